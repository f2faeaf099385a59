// The sentences of `reshape1 fix`: see fix.hpp.
#include "model/text/fix.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "model/ops/rules.hpp"
#include "model/options.hpp"

namespace reshape1::model::text {

namespace {
/// The Reshape's flag as the format writes it: OpenVINO's special_zero, or ONNX's allowzero, its negation.
std::string_view literal_zeros(model_format format) { return format == model_format::onnx ? "allowzero=1" : "special_zero=false"; }

/// A pattern index or port as a reason's value.
reason_value at(std::size_t index) { return static_cast<std::int64_t>(index); }

/// A refusal's sentence for a layer in a body: the body named first.
std::string inside_body(const batch_finding& f, std::string_view r) {
  return fmt::format("inside the body of {} '{}' (id {}): {}", f.within.back().type, f.within.back().name,
                     f.within.back().id, r);
}
}  // namespace

std::string zero_copies_batch(std::size_t index, std::int64_t declared, std::optional<model_format> setting) {
  return fmt::format("pattern[{}] wrote the declared batch {}; 0 copies the batch{}", index, declared,
                     !setting                              ? ""
                     : *setting == model_format::onnx      ? ", with allowzero set to 0 (the pattern has no other 0)"
                                                           : ", with special_zero set to true (the pattern has no other 0)");
}

std::string minus_one_infers_batch(std::size_t index, std::int64_t declared) {
  return fmt::format("pattern[{}] wrote the declared batch {}; -1 infers it (the pattern has no other -1 and its other "
                     "elements are fixed)",
                     index, declared);
}

std::string minus_one_infers_folded(std::size_t index, std::int64_t value) {
  return fmt::format("pattern[{}] held {}, which folds the declared batch with other dimensions; -1 infers it at every "
                     "batch",
                     index, value);
}

std::string follows_sizes(std::span<const std::size_t> copies, std::optional<std::pair<std::size_t, std::int64_t>> minus_one,
                          std::optional<model_format> setting) {
  std::string r;
  if (copies.size() == 1)
    r = fmt::format("pattern[{}] held the input's dimension there, which changes: 0 copies it", copies[0]);
  else if (!copies.empty())
    r = fmt::format("pattern[{}] held the input's dimensions there, which change: 0 copies them", fmt::join(copies, ","));
  if (minus_one)
    r += fmt::format("{}pattern[{}] held {}, which stands for the sizes that change: -1 infers it",
                     r.empty() ? "" : "; ", minus_one->first, minus_one->second);
  if (setting)
    r += *setting == model_format::onnx ? ", with allowzero set to 0 (the pattern has no other 0)"
                                        : ", with special_zero set to true (the pattern has no other 0)";
  return r;
}

std::string held_by_const(std::string_view why, const layer& holder, const layer* through) {
  if (through != nullptr)
    return fmt::format("{} (the value is held by Const '{}' (id {}), through {})", why, holder.name, holder.id,
                       through->where());
  return fmt::format("{} (Const '{}' (id {}))", why, holder.name, holder.id);
}

std::string cloned_const(std::string_view why, std::int64_t holder) {
  return fmt::format("{}; Const id {} feeds other layers too, so it was cloned", why, holder);
}

std::string held_by_tensor(std::string_view why, bool constant_node, std::string_view tensor, bool was_external) {
  return fmt::format("{} ({} '{}'{})", why, constant_node ? "Constant" : "initializer", tensor,
                     was_external ? ", now written in the model rather than its external data" : "");
}

std::string through_concat(std::string_view why, std::string_view concat) {
  return fmt::format("{}, through Concat '{}'", why, concat);
}

fix_reason minus_one_folds_batch(std::size_t index, bool node) {
  return {"minus_one_folds_batch", {{"pattern_index", at(index)}}, fmt::format("the -1 at pattern[{}] folds the batch together with other dimensions; keeping it apart would "
                     "change the {}'s output rank",
                     index, node ? "node" : "layer")};
}

fix_reason pattern_folds_batch() {
  return {"pattern_folds_batch", {}, "the pattern folds the batch together with other dimensions"};
}

fix_reason no_element_follows_batch() {
  return {"no_element_follows_batch", {}, "no element of the pattern can follow the batch"};
}

fix_reason literal_zero_with_minus_one(std::size_t zero, model_format format) {
  return {"literal_zero_with_minus_one", {{"pattern_index", at(zero)}, {"flag", std::string(literal_zeros(format))}},
          fmt::format("pattern has a -1 and {} with a literal 0 at index {}", literal_zeros(format), zero)};
}

fix_reason maybe_zero_with_minus_one(std::size_t minus_one, model_format format) {
  return {"maybe_zero_with_minus_one", {{"pattern_index", at(minus_one)}, {"flag", std::string(literal_zeros(format))}},
          fmt::format("pattern has a -1 at index {} and {} with an element that may be 0", minus_one,
                      literal_zeros(format))};
}

fix_reason not_fixed_without_special_zero(model_format format) {
  return {"not_fixed_without_special_zero", {{"flag", std::string(literal_zeros(format))}},
          fmt::format("pattern has elements that are not fixed values, and {}", literal_zeros(format))};
}

std::string element_ref::named() const { return fmt::format("{}[{}]", input, index); }

fix_reason shape_values_unknown() { return {"shape_values_unknown", {}, "its shape's values are not known"}; }

fix_reason computed_not_const(element_ref element, std::string_view where) {
  return {"computed_not_const", {{"pattern_index", at(element.index)}, {"layer", std::string(where)}},
          fmt::format("{} is computed by {}, not held by a Const", element.named(), where.empty() ? "nothing" : where)};
}

fix_reason type_not_rewritten(element_ref element, std::string_view where, std::string_view type) {
  return {"type_not_rewritten",
          {{"pattern_index", at(element.index)}, {"layer", std::string(where)}, {"element_type", std::string(type)}},
          fmt::format("{} is held by {} of type {}, which fix does not rewrite", element.named(), where, type)};
}

fix_reason unsigned_cannot_hold_minus_one(element_ref element, std::string_view where, std::string_view type) {
  return {"unsigned_cannot_hold_minus_one",
          {{"pattern_index", at(element.index)}, {"layer", std::string(where)}, {"element_type", std::string(type)}},
          fmt::format("{} is held by {} of unsigned type {}, which cannot hold -1", element.named(), where, type)};
}

fix_reason comes_through_shared_layer(element_ref element, std::string_view where) {
  return {"comes_through_shared_layer", {{"pattern_index", at(element.index)}, {"layer", std::string(where)}},
          fmt::format("{} comes through {}, which feeds other layers too", element.named(), where)};
}

fix_reason computed_not_tensor(element_ref element) {
  return {"computed_not_tensor", {{"pattern_index", at(element.index)}},
          fmt::format("{} is computed, not held in an initializer or a Constant node", element.named())};
}

fix_reason constant_not_in_file(element_ref element, std::string_view node) {
  return {"constant_not_in_file", {{"pattern_index", at(element.index)}, {"node", std::string(node)}},
          fmt::format("{} is a constant of node '{}' that is not written in the file as a tensor", element.named(), node)};
}

fix_reason comes_through_shared_node(element_ref element, std::string_view node) {
  return {"comes_through_shared_node", {{"pattern_index", at(element.index)}, {"node", std::string(node)}},
          fmt::format("{} comes through node '{}', which feeds other nodes too", element.named(), node)};
}

fix_reason reaches_through_added_layer(std::string_view tensor) {
  return {"reaches_through_added_layer", {{"tensor", std::string(tensor)}},
          fmt::format("'{}' reaches the pattern through a layer reshape1 added", tensor)};
}

fix_reason not_a_tensor_the_node_sees(element_ref element, std::string_view tensor) {
  return {"not_a_tensor_the_node_sees", {{"pattern_index", at(element.index)}, {"tensor", std::string(tensor)}},
          fmt::format("{} is held by '{}', which is no initializer or Constant node the node sees", element.named(),
                      tensor)};
}

fix_reason external_read_in_body(element_ref element, std::string_view tensor) {
  return {"external_read_in_body", {{"pattern_index", at(element.index)}, {"tensor", std::string(tensor)}},
          fmt::format("{} is held by '{}', in external data, and read inside a body", element.named(), tensor)};
}

fix_reason values_not_read(std::string_view tensor) {
  return {"values_not_read", {{"tensor", std::string(tensor)}},
          fmt::format("'{}' is not an int64 or int32 tensor whose values reshape1 read", tensor)};
}

fix_reason does_not_feed(std::string_view tensor, std::size_t port, std::string_view node, std::string_view read) {
  return {"does_not_feed",
          {{"port", at(port)}, {"tensor", std::string(tensor)}, {"node", std::string(node)}, {"read", std::string(read)}},
          read.empty()
              ? fmt::format("node '{}' has no input {} in the file, where the lowering read '{}'", node, port, tensor)
              : fmt::format("input {} of node '{}' reads '{}', which holds the value of '{}' only through a node other "
                            "than Identity (an If's branch, say): fix rewrites a value where its node reads it, "
                            "directly or through Identity nodes",
                            port, node, read, tensor)};
}

std::string freed_dimension(std::string_view kind, std::string_view name, std::size_t index, bool cleared) {
  return fmt::format("{} '{}' dimension {}{}", kind, name, index, cleared ? " cleared" : "");
}

std::string_view issue_words(batch_issue issue) {
  switch (issue) {
    case batch_issue::fails: return "fails";
    case batch_issue::swallows_batch: return "swallows the batch";
    case batch_issue::scales_with_batch: return "grows with the batch";
    case batch_issue::mixes_samples: return "mixes samples";
    case batch_issue::drops_samples: return "drops samples";
    case batch_issue::loses_batch: return "loses the batch";
    case batch_issue::fails_at_declared: return "fails at the declared shapes";
    case batch_issue::cannot_tell: return "cannot tell";
  }
  return "fails";
}

fix_reason rewrite_raises(errc code, std::string_view what) {
  return {"rewrite_raises", {{"error", std::string(name(code))}}, std::string(what)};
}

namespace {
/// What a rewrite did, as its reasons name it: an element's new value, or the values computed, of the
/// input `input` names (a Reshape's pattern, an Interpolate's sizes...).
std::string rewriting(std::size_t index, std::int64_t value, std::string_view computed, std::string_view input,
                      reason_args& args) {
  if (!computed.empty()) {
    args.emplace_back("computed", std::string(computed));
    return fmt::format("computing the {} as {}", input, computed);
  }
  args.emplace_back("pattern_index", at(index));
  args.emplace_back("value", value);
  return fmt::format("rewriting {}[{}] to {}", input, index, value);
}
}  // namespace

fix_reason rewrite_changes_shapes(std::size_t index, std::int64_t value, std::int64_t layer, std::string_view computed,
                                  std::string_view input) {
  reason_args args;
  const auto what = rewriting(index, value, computed, input, args);
  args.emplace_back("layer_id", layer);
  return {"rewrite_changes_shapes", std::move(args),
          fmt::format("{} changes the shapes of layer {} at the declared inputs", what, layer)};
}

fix_reason rewrite_still_leaves(std::size_t index, std::int64_t value, batch_issue issue, const proof_at& place,
                                std::string_view computed, std::string_view input) {
  reason_args args;
  const auto what = rewriting(index, value, computed, input, args);
  args.emplace_back("finding", std::string(name(issue)));
  args.emplace_back(std::string(place.key), place.value);
  return {"rewrite_still_leaves", std::move(args),
          fmt::format("{} still leaves the layer {} at {}", what,
                      issue == batch_issue::fails ? std::string_view("failing") : issue_words(issue), place.words())};
}

fix_reason fails_as_given(const batch_finding& f) {
  return {"fails_as_given", {{"finding_code", f.code}},
          fmt::format("fails at the declared shapes, before any batch changes; fix mends only what another batch "
                      "breaks: {}",
                      f.what)};
}

fix_reason refusal(const batch_finding& f, const proof_at& place) {
  if (f.issue == batch_issue::fails_at_declared) {
    auto r = fails_as_given(f);
    if (!f.within.empty()) r.text = inside_body(f, r.text);
    return r;
  }
  const auto what = fmt::format("{} at {}: {}", issue_words(f.issue), place.words(), f.what);
  std::string r;
  if (f.issue == batch_issue::cannot_tell)
    r = place.key == "batch" ? "reshape1 cannot tell whether it keeps each sample apart, so nothing can be proven: " + what
                          : "reshape1 cannot tell whether it keeps its meaning at the new sizes, so nothing can be proven: " + what;
  else
    // (At new sizes fix rewrites more than patterns: a layer it has nothing for is said so.)
    r = detail::part_of(f.type) == detail::op_part::reshape ? "still " + what
        : place.key == "batch"                              ? "not a Reshape pattern: " + what
                                                            : "fix has no rewrite for this layer: " + what;
  return {"batch_finding",
          {{"finding", std::string(name(f.issue))}, {"finding_code", f.code}, {std::string(place.key), place.value}},
          f.within.empty() ? r : inside_body(f, r)};
}

fix_reason needs_computed_pattern(std::size_t index, std::int64_t value) {
  return {"needs_computed_pattern", {{"pattern_index", at(index)}, {"value", value}},
          fmt::format("pattern[{}] holds {}, which stands for a size, and no 0 or -1 makes the pattern follow the "
                      "sizes (other elements stand for sizes too, or it has a -1 already); nor can it be computed "
                      "from the input's shape: its elements do not group the input's dimensions so that each "
                      "size that changes is one dimension, or the product of several, of the input",
                      index, value)};
}

fix_reason split_not_read(std::size_t dimension, std::int64_t value, const std::vector<std::int64_t>& factors) {
  return {"split_not_read", {{"dimension", at(dimension)}, {"value", value}, {"factors", fmt::format("{}", fmt::join(factors, ","))}},
          fmt::format("the pattern splits dimension {} of its input ({}), which changes, into [{}]: nothing in the "
                      "model shows which factor follows the size and which stay (none of them, or more than one, is "
                      "a value the model's other Reshapes keep at every size)",
                      dimension, value, fmt::join(factors, ","))};
}

fix_reason kept_by_reading(std::string_view reading) {
  return {"kept_by_reading", {{"reading", std::string(reading)}},
          fmt::format("read as its input's dimensions grouped, the pattern is {}: what follows the sizes that "
                      "change is its -1 already (or nothing does), and every value it holds stays, so there is "
                      "nothing to rewrite; if the constant check names is a coincidence (a value that stays at "
                      "every size), vouch for it",
                      reading)};
}

fix_reason constant_written_out(std::string_view holder, std::string_view output) {
  return {"constant_written_out", {{"constant", std::string(holder)}, {"output", std::string(output)}},
          fmt::format("its constant '{}' is also the model's output '{}', which would keep the value it has at the "
                      "declared shapes where the program wrote out the size: fix cannot compute it there",
                      holder, output)};
}

fix_reason kept_value_is_a_size(std::size_t index, std::int64_t value) {
  return {"kept_value_is_a_size", {{"pattern_index", at(index)}, {"value", value}},
          fmt::format("pattern[{}] holds {}, which the pattern's reading keeps, and a size that changes has that "
                      "value at the declared shapes (another input's, or a dimension computed from one): it may "
                      "stand for that size, which fix cannot compute here; vouch for it if it stays",
                      index, value)};
}

fix_reason changing_one(std::size_t dimension) {
  return {"changing_one", {{"dimension", at(dimension)}},
          fmt::format("dimension {} of the pattern's input is 1 at the declared shapes and changes: where the "
                      "pattern's 1s put it (before or after its neighbour) its values do not show",
                      dimension)};
}

fix_reason pattern_not_an_input() {
  return {"pattern_not_an_input", {},
          "the pattern is the node's `shape` attribute (Reshape-1 to -4), not an input that computed values can "
          "feed"};
}

fix_reason computed_in_body() {
  return {"computed_in_body", {},
          "the pattern must be computed from the input's shape, which fix writes only for a Reshape of the model's "
          "own graph, not inside a body"};
}

std::string computed_from_shape(std::string_view terms) {
  return fmt::format("no 0 or -1 makes the pattern follow the sizes: it is computed as {}, where shape is the "
                     "shape of the Reshape's input",
                     terms);
}

std::string computed_from_tensor(std::string_view terms, std::string_view source) {
  return fmt::format("it gives back the shape '{}' has before it: it is computed as {}, from that shape at the new "
                     "sizes",
                     source, terms);
}

std::string sizes_computed_from_shape(std::string_view what, std::string_view terms) {
  return fmt::format("its {} follow its input: they are computed as {}, where shape is the shape of its data input",
                     what, terms);
}

std::string sizes_computed_from_tensor(std::string_view what, std::string_view terms, std::string_view source) {
  return fmt::format("its output meets '{}', whose extents its {} have at the declared shapes: they are computed "
                     "as {}, from that shape at the new sizes",
                     source, what, terms);
}

std::string names_last_position(std::span<const std::size_t> elements, std::int64_t value, std::size_t axis,
                                std::int64_t extent) {
  return fmt::format("element{} {} of its positions, {}, {} the last along axis {}, whose extent is {} at the declared "
                     "shapes: -1 names the last position at every size",
                     elements.size() == 1 ? "" : "s", fmt::join(elements, ", "), value, elements.size() == 1 ? "is" : "are",
                     axis, extent);
}

std::string divisor_from_tensor(std::string_view terms, std::string_view source) {
  return fmt::format("it divides by the count of elements of '{}' it sums at the declared shapes: the divisor is "
                     "computed as {}, from that shape at the new sizes",
                     source, terms);
}

fix_reason window_not_whole(std::optional<std::size_t> axis) {
  if (axis)
    return {"window_not_whole", {{"axis", at(*axis)}},
            fmt::format("its window covers axis {} only in part, or gives more than one output along it, at the "
                        "declared shapes: it is no global pooling, and fix has no rewrite for it",
                        *axis)};
  return {"window_not_whole", {},
          "its window is the whole input, but it pads, dilates, or gives its indices too (MaxPool-8, MaxPool-14): "
          "no reduction computes the same, and fix has no rewrite for it"};
}

std::string global_window(std::string_view reduction, const std::vector<std::int64_t>& axes) {
  return fmt::format("its window is the whole of axes {} at the declared shapes: global pooling, written as the "
                     "{} of all of each (kept as 1s), which takes the whole extent at every size",
                     fmt::join(axes, ","), reduction == "ReduceMax" ? "maximum" : "mean");
}

std::string count_from_tensor(std::string_view computed, std::string_view source) {
  return fmt::format("it multiplies a mean of the elements of '{}' by their count at the declared shapes: the factor "
                     "is computed as {}, from that shape at the new sizes",
                     source, computed);
}

std::string bessel_from_tensor(std::string_view computed, std::string_view source) {
  return fmt::format("it corrects a variance of the elements of '{}' by one less than their count at the declared "
                     "shapes (Bessel's correction): it is computed as {}, from that shape at the new sizes",
                     source, computed);
}

std::string reciprocal_from_tensor(std::string_view computed, std::string_view source) {
  return fmt::format("it multiplies by one over the count of elements of '{}' it sums at the declared shapes: the "
                     "factor is computed as {}, from that shape at the new sizes",
                     source, computed);
}

std::string limit_from_tensor(std::string_view terms, std::string_view source) {
  return fmt::format("its output meets '{}', whose extent there it counts to at the declared shapes: its limit is "
                     "computed as {}, from that shape at the new sizes",
                     source, terms);
}

std::string range_from_tensor(std::string_view terms, std::string_view source) {
  return fmt::format("what reads it meets '{}', whose extent there it counts at the declared shapes: it is "
                     "computed as a Range of {} values, from that shape at the new sizes",
                     source, terms);
}

std::string grid_from_tensor(std::string_view terms, std::string_view source) {
  return fmt::format("what reads it meets '{}', whose extents there it follows at the declared shapes: it is "
                     "computed as its values at the first index plus, along each axis it follows, a Range of {} "
                     "times the step there, from that shape at the new sizes",
                     source, terms);
}

std::string spread_from_tensor(std::string_view terms, std::string_view source) {
  return fmt::format("what reads it meets '{}', whose extents there it is as long as at the declared shapes, the "
                     "same values all along: it is computed as its values at the first index spread along each such "
                     "axis (plus a Range of {} times 0), from that shape at the new sizes",
                     source, terms);
}

std::string k_is_the_axis(std::string_view terms, std::int64_t k, std::size_t axis) {
  return fmt::format("its k, {}, is the whole of axis {} at the declared shapes: it is computed as {}, where shape is "
                     "the shape of its data input",
                     k, axis, terms);
}

std::string pads_to_multiple(std::string_view terms, std::size_t axis, std::int64_t extent, std::int64_t amount,
                             std::int64_t multiple) {
  return fmt::format("it pads axis {} ({} at the declared shapes) by {}, what it lacks to be a multiple of {}, a size "
                     "the model's other Reshapes keep: its amounts are computed as {}, where shape is the shape of its "
                     "data input",
                     axis, extent, amount, multiple, terms);
}

fix_reason grid_not_read(std::size_t axis, std::int64_t extent) {
  return {"grid_not_read",
          {{"axis", static_cast<std::int64_t>(axis)}, {"extent", extent}},
          fmt::format("its values count down along axis {} ({} long), or start at half of what they count to there "
                      "or further, or more than two steps above 0 or half a step below it: they may start at a value "
                      "computed from the size (a centered grid, j-(W-1)/2), which Ranges of the new extents would not "
                      "follow; fix reads only grids that count up from such a start",
                      axis, extent)};
}

fix_reason met_may_be_one(const std::string& met) {
  return {"met_may_be_one",
          {{"met", met}},
          fmt::format("the tensor it meets, '{}', would give its count, but it may be 1 at the shapes asked, where "
                      "arithmetic spreads it rather than meets the count: ask for sizes from 2 (`2..` in place of `?`)",
                      met)};
}

std::string table_from_tensor(std::string_view code, std::string_view terms, std::string_view source) {
  const std::string_view what = code == "shape_table_part"    ? "the shape, but for its dimensions of 1,"
                                : code == "shape_table_count" ? "a product of the dimensions"
                                                              : "the whole shape";
  const std::string_view that = code == "shape_table_count" ? "that count" : "that shape";
  return fmt::format("it is {} of '{}' at the declared shapes: it is computed as {}, {} at the new sizes", what, source, terms,
                     that);
}

fix_reason table_tensor_unknown(const std::string& shape, const std::string& first, const std::string& first_at,
                                const std::string& second, const std::string& second_at) {
  return {"table_tensor_unknown",
          {{"shape", shape}, {"first", first}, {"first_at", first_at}, {"second", second}, {"second_at", second_at}},
          fmt::format("its values {} are both {} and {} at the declared shapes, which are {} and {} at the shapes "
                      "asked: which one they stand for is not known",
                      shape, first, second, first_at, second_at)};
}

fix_reason table_read_whole(const std::string& type, const std::string& name) {
  return {"table_read_whole",
          {{"type", type}, {"name", name}},
          fmt::format("it equals a tensor's whole shape, but {} '{}' reads it whole, not by index as a shape is read: "
                      "it may be values that equal the shape by chance",
                      type, name)};
}

fix_reason table_count_split(const std::string& values) {
  return {"table_count_split",
          {{"values", values}},
          fmt::format("its values {} make as many elements as a size that changes, but more than one of them is not 1: "
                      "which of them follows that size does not show",
                      values)};
}

fix_reason range_not_read(std::int64_t count, std::int64_t start, std::int64_t step) {
  return {"range_not_read",
          {{"count", count}, {"start", start}, {"step", step}},
          fmt::format("it counts {} values from {} by {}: a count down, or one that starts at half its count or "
                      "further, or more than two steps above 0 or half a step below it, may start at a value computed from "
                      "the size (the last position, L-1; the middle, (L-1)/2), which a Range of the new count would not "
                      "follow; fix reads only counts up from a start below half the count, at most two steps above 0 "
                      "and half a step below it",
                      count, start, step)};
}

fix_reason pad_not_read(std::size_t axis, std::int64_t extent, std::int64_t amount, const std::vector<std::int64_t>& kept,
                        pad_doubt doubt) {
  const auto kept_text = kept.empty() ? std::string("none") : fmt::format("{}", fmt::join(kept, ", "));
  reason_args args{{"axis", at(axis)}, {"extent", extent}, {"amount", amount}, {"kept", kept_text}};
  switch (doubt) {
    case pad_doubt::both_ends:
      return {"pad_not_read", std::move(args),
              fmt::format("it pads axis {}, which changes, at both ends: fix reads a pad to a multiple only at one "
                          "end, and has no rewrite for it",
                          axis)};
    case pad_doubt::zero:
      return {"pad_not_read", std::move(args),
              fmt::format("it pads axis {} ({} at the declared shapes, a multiple of a window the model keeps: {}) by "
                          "0: it may pad that axis to the window at other sizes, or not at all, and nothing shows "
                          "which (a cut of it by the window after the pad, and a crop back to its size after that)",
                          axis, extent, kept_text)};
    case pad_doubt::crop:
      return {"pad_not_read", std::move(args),
              fmt::format("it crops axis {}, which changes, by {}: fix reads no crop as a pad to a multiple, and has "
                          "no rewrite for it",
                          axis, -amount)};
    case pad_doubt::split:
      return {"pad_not_read", std::move(args),
              fmt::format("it pads axis {} by 1 at one end: a pad split between both ends (half before, rounded down) "
                          "is the same 1 there and differs where the pad is 2 or more, and nothing shows which",
                          axis)};
    case pad_doubt::window: break;
  }
  return {"pad_not_read", std::move(args),
          fmt::format("it pads axis {} ({} at the declared shapes) by {}: fix reads that as what the size lacks to be "
                      "a multiple of a window the model's other Reshapes keep (kept: {}) and the Reshape after the pad "
                      "cuts the axis by, and not one of them, or more than one, makes it so; vouch for it with "
                      "--assume-constant if it is meant to stay",
                      axis, extent, amount, kept_text)};
}

fix_reason no_negative_positions(std::size_t index, std::string_view op, int version) {
  return {"no_negative_positions",
          {{"index", static_cast<std::int64_t>(index)}, {"version", std::int64_t{version}}, {"op", std::string(op)}},
          fmt::format("element {} of its positions is the last along its axis, but {}-{} counts no position back from "
                      "the end, so -1 cannot name it: the model needs Gather-8 (an ONNX Gather from version 11)",
                      index, op, version)};
}

fix_reason size_not_a_whole_ratio(std::size_t index, std::int64_t value, std::size_t axis, std::int64_t extent) {
  return {"size_not_a_whole_ratio",
          {{"index", static_cast<std::int64_t>(index)}, {"value", value}, {"axis", static_cast<std::int64_t>(axis)},
           {"extent", extent}},
          fmt::format("element {} is {} along axis {}, whose extent is {} at the declared shapes: neither a whole "
                      "multiple nor a whole fraction of it, and no tensor its output meets has it; what it stands for is "
                      "not known",
                      index, value, axis, extent)};
}

fix_reason vouched_pattern(std::string_view holder, option_spelling spelling) {
  return {"vouched_pattern", {{"constant", std::string(holder)}},
          fmt::format("its pattern is held by '{}', which {} vouches stays as it is: fix keeps it, and the model "
                      "with it does not take the new sizes",
                      holder, detail::spell(spelling, detail::option::assume_constant))};
}

fix_reason shape_not_a_tensor(std::string_view source) {
  return {"shape_not_a_tensor", {{"tensor", std::string(source)}},
          fmt::format("its pattern would be computed from the shape of '{}', which is no tensor of the file",
                      source)};
}

fix_reason held_apart(element_ref element, std::size_t other) {
  return {"held_apart", {{"pattern_index", at(element.index)}, {"other_index", at(other)}},
          fmt::format("{} and {}[{}] must be rewritten together, and different constants hold them",
                      element.named(), element.input, other)};
}

fix_reason read_back_lacks_layer() {
  return {"read_back_lacks_layer", {}, "the rewritten model read back has no layer with this id"};
}

fix_reason read_back_lacks_tensor(std::string_view tensor) {
  return {"read_back_lacks_tensor", {{"tensor", std::string(tensor)}},
          fmt::format("the fixed model read back has no tensor '{}'", tensor)};
}

fix_reason read_back_differs() {
  return {"read_back_differs", {}, "the rewritten model read back has other shapes here at the declared inputs"};
}

fix_reason not_scaled(const dimension& batch, std::size_t output, const partial_shape& shape,
                      const partial_shape& declared) {
  const auto is = to_string(detail::without_symbols(shape)), was = to_string(detail::without_symbols(declared));
  return {"not_scaled", {{"output", at(output)}, {"batch", to_string(batch)}, {"shape", is}, {"declared", was}},
          fmt::format("at batch {} output {} is {}, not its declared {} with the batch scaled", to_string(batch),
                      output, is, was)};
}

std::span<const std::string_view> fix_reason_codes() noexcept {
  static constexpr std::string_view codes[] = {"minus_one_folds_batch",
                                               "pattern_folds_batch",
                                               "no_element_follows_batch",
                                               "literal_zero_with_minus_one",
                                               "maybe_zero_with_minus_one",
                                               "not_fixed_without_special_zero",
                                               "shape_values_unknown",
                                               "computed_not_const",
                                               "type_not_rewritten",
                                               "unsigned_cannot_hold_minus_one",
                                               "comes_through_shared_layer",
                                               "computed_not_tensor",
                                               "constant_not_in_file",
                                               "comes_through_shared_node",
                                               "reaches_through_added_layer",
                                               "not_a_tensor_the_node_sees",
                                               "external_read_in_body",
                                               "values_not_read",
                                               "does_not_feed",
                                               "met_may_be_one",
                                               "rewrite_raises",
                                               "rewrite_changes_shapes",
                                               "rewrite_still_leaves",
                                               "fails_as_given",
                                               "batch_finding",
                                               "read_back_lacks_layer",
                                               "read_back_lacks_tensor",
                                               "read_back_differs",
                                               "not_scaled",
                                               "needs_computed_pattern",
                                               "split_not_read",
                                               "kept_by_reading",
                                               "kept_value_is_a_size",
                                               "constant_written_out",
                                               "changing_one",
                                               "pattern_not_an_input",
                                               "computed_in_body",
                                               "held_apart",
                                               "size_not_a_whole_ratio",
                                               "no_negative_positions",
                                               "window_not_whole",
                                               "pad_not_read",
                                               "table_tensor_unknown",
                                               "table_read_whole",
                                               "table_count_split"};
  return codes;
}

}  // namespace reshape1::model::text
