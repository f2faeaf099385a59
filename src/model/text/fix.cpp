// The sentences of `reshape1 fix`: see fix.hpp.
#include "model/text/fix.hpp"

#include <fmt/format.h>

#include "model/ops/rules.hpp"

namespace reshape1::model::text {

namespace {
/// The Reshape's flag as the format writes it: OpenVINO's special_zero, or ONNX's allowzero, its negation.
std::string_view literal_zeros(model_format format) { return format == model_format::onnx ? "allowzero=1" : "special_zero=false"; }
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

std::string minus_one_folds_batch(std::size_t index, bool node) {
  return fmt::format("the -1 at pattern[{}] folds the batch together with other dimensions; keeping it apart would "
                     "change the {}'s output rank",
                     index, node ? "node" : "layer");
}

std::string pattern_folds_batch() { return "the pattern folds the batch together with other dimensions"; }

std::string no_element_follows_batch() { return "no element of the pattern can follow the batch"; }

std::string literal_zero_with_minus_one(std::size_t zero, model_format format) {
  return fmt::format("pattern has a -1 and {} with a literal 0 at index {}", literal_zeros(format), zero);
}

std::string maybe_zero_with_minus_one(std::size_t minus_one, model_format format) {
  return fmt::format("pattern has a -1 at index {} and {} with an element that may be 0", minus_one,
                     literal_zeros(format));
}

std::string not_fixed_without_special_zero(model_format format) {
  return fmt::format("pattern has elements that are not fixed values, and {}", literal_zeros(format));
}

std::string shape_values_unknown() { return "its shape's values are not known"; }

std::string computed_not_const(std::size_t index, std::string_view where) {
  return fmt::format("pattern[{}] is computed by {}, not held by a Const", index, where.empty() ? "nothing" : where);
}

std::string type_not_rewritten(std::size_t index, std::string_view where, std::string_view type) {
  return fmt::format("pattern[{}] is held by {} of type {}, which fix does not rewrite", index, where, type);
}

std::string unsigned_cannot_hold_minus_one(std::size_t index, std::string_view where, std::string_view type) {
  return fmt::format("pattern[{}] is held by {} of unsigned type {}, which cannot hold -1", index, where, type);
}

std::string comes_through_shared_layer(std::size_t index, std::string_view where) {
  return fmt::format("pattern[{}] comes through {}, which feeds other layers too", index, where);
}

std::string computed_not_tensor(std::size_t index) {
  return fmt::format("pattern[{}] is computed, not held in an initializer or a Constant node", index);
}

std::string constant_not_in_file(std::size_t index, std::string_view node) {
  return fmt::format("pattern[{}] is a constant of node '{}' that is not written in the file as a tensor", index, node);
}

std::string comes_through_shared_node(std::size_t index, std::string_view node) {
  return fmt::format("pattern[{}] comes through node '{}', which feeds other nodes too", index, node);
}

std::string reaches_through_added_layer(std::string_view tensor) {
  return fmt::format("'{}' reaches the pattern through a layer reshape1 added", tensor);
}

std::string not_a_tensor_the_node_sees(std::size_t index, std::string_view tensor) {
  return fmt::format("pattern[{}] is held by '{}', which is no initializer or Constant node the node sees", index,
                     tensor);
}

std::string external_read_in_body(std::size_t index, std::string_view tensor) {
  return fmt::format("pattern[{}] is held by '{}', in external data, and read inside a body", index, tensor);
}

std::string values_not_read(std::string_view tensor) {
  return fmt::format("'{}' is not an int64 or int32 tensor whose values reshape1 read", tensor);
}

std::string does_not_feed(std::string_view tensor, std::size_t port, std::string_view node) {
  return fmt::format("'{}' does not feed input {} of node '{}' as the lowering saw it", tensor, port, node);
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

std::string rewrite_changes_shapes(std::size_t index, std::int64_t value, std::int64_t layer) {
  return fmt::format("rewriting pattern[{}] to {} changes the shapes of layer {} at the declared inputs", index, value,
                     layer);
}

std::string rewrite_still_leaves(std::size_t index, std::int64_t value, batch_issue issue, std::string_view at) {
  return fmt::format("rewriting pattern[{}] to {} still leaves the layer {} at batch {}", index, value,
                     issue == batch_issue::fails ? std::string_view("failing") : issue_words(issue), at);
}

std::string fails_as_given(const batch_finding& f) {
  return fmt::format("fails at the declared shapes, before any batch changes; fix mends only what another batch breaks: {}",
                     f.what);
}

std::string refusal(const batch_finding& f, const dimension& at) {
  const auto what = f.issue == batch_issue::fails_at_declared
                        ? fails_as_given(f)
                        : fmt::format("{} at batch {}: {}", issue_words(f.issue), to_string(at), f.what);
  std::string r;
  if (f.issue == batch_issue::cannot_tell)
    r = "reshape1 cannot tell whether it keeps each sample apart, so nothing can be proven: " + what;
  else if (f.issue == batch_issue::fails_at_declared)
    r = what;
  else
    r = detail::part_of(f.type) == detail::op_part::reshape ? "still " + what : "not a Reshape pattern: " + what;
  if (f.within.empty()) return r;
  return fmt::format("inside the body of {} '{}' (id {}): {}", f.within.back().type, f.within.back().name,
                     f.within.back().id, r);
}

std::string read_back_lacks_layer() { return "the rewritten model read back has no layer with this id"; }

std::string read_back_lacks_tensor(std::string_view name) {
  return fmt::format("the fixed model read back has no tensor '{}'", name);
}

std::string read_back_differs() { return "the rewritten model read back has other shapes here at the declared inputs"; }

std::string not_scaled(const dimension& at, std::size_t output, const partial_shape& shape,
                       const partial_shape& declared) {
  return fmt::format("at batch {} output {} is {}, not its declared {} with the batch scaled", to_string(at), output,
                     to_string(detail::without_symbols(shape)), to_string(detail::without_symbols(declared)));
}

}  // namespace reshape1::model::text
