// Internal: what the planner (fix_planner.hpp) decides and proves, whichever file the model came from: the
// values a Reshape the checks name gets to try, in order, and the checks of the proof. The IR fix
// (analysis/fix.cpp) and the ONNX fix (src/onnx/fix.cpp) differ only in where they write the value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "reshape1/model/batch.hpp"
#include "reshape1/model/fix.hpp"
#include "reshape1/model/graph.hpp"
#include "model/text/fix.hpp"
#include "reshape1/model/propagate.hpp"

namespace reshape1::model::detail {

/// New sizes: one element of a pattern computed from the shape of the Reshape's data input: the product of
/// the input's dimensions `dims` times `factor`, divided by `divisor` (exactly, at the declared shapes);
/// with no `dims`, the constant `factor`. Where `multiple` is set, the element is instead what that value
/// lacks to be a multiple of it, `(multiple - v mod multiple) mod multiple`: a pad to a multiple.
struct pattern_term {
  std::vector<std::size_t> dims{};
  std::int64_t factor = 1;
  std::int64_t divisor = 1;
  std::int64_t multiple = 0;
  friend bool operator==(const pattern_term&, const pattern_term&) = default;
};

/// The values of the dimensions that are static at the declared shapes (`declared`) and change at the shapes
/// asked (`asked`), in the layers of `g` that `skip` does not mark; sorted, each once. A tensor whose rank
/// the shapes asked leave unknown changes in every dimension when `unknown_changes`, else is left out.
[[nodiscard]] std::vector<std::int64_t> changing_values(const graph& g, const propagation& declared, const propagation& asked,
                                                        std::span<const char> skip, bool unknown_changes);

/// `terms` in the notation of patterns, each computed element written from `shape`, the data input's shape:
/// `[1,2,24,shape[2],shape[3]]`, `[1,shape[1]/7,7,96]`, `[shape[1]*shape[2]*96]`.
[[nodiscard]] std::string terms_text(std::span<const pattern_term> terms);
/// ... written from the shape of the tensor layer `source` outputs: `[1,shape('grid')[1],...]`.
[[nodiscard]] std::string terms_text(std::span<const pattern_term> terms, std::string_view source);

/// How a count computed from a shape feeds its input: as it is (a divisor), one over it (a mean's factor),
/// or with Bessel's correction (an unbiased variance: one less than it, one over that, the count over that).
enum class count_form { count, reciprocal, less_one, reciprocal_less_one, ratio_less_one };

/// `computed`, the count as text, in `form`: `1/(...)`, `...-1`, `1/(...-1)`, `.../(...-1)`.
[[nodiscard]] std::string form_text(count_form form, const std::string& computed);

/// New sizes: a Const that counts along one axis (check's `counted_range`), computed instead as a Range of
/// the count (the one term of `computed`) from `start` by `step`, given the Const's shape (`shape`, -1
/// along the axis it counts) and its element type.
struct counted_range {
  std::int64_t start = 0, step = 1;
  std::vector<std::int64_t> shape{};
  /// A grid instead (check's `counted_grid`; `shape` is then the Const's): the axes it counts along, one term
  /// of `computed` each, and its base and slopes (counted_grid's), computed in i64 for integers, f64 for
  /// f64 and f32 for other floats; `start` and `step` are not read.
  std::vector<std::size_t> axes{};
  std::vector<double> base{};
  std::vector<std::vector<double>> slopes{};
  /// A table instead (check's `shape_table`): the Const is `computed` itself, a tensor's whole shape, in its
  /// type (`shape` is then the Const's); nothing is counted.
  bool table = false;
  friend bool operator==(const counted_range&, const counted_range&) = default;
};

/// The pattern that gives a table's values (counted_range::table) the Const's shape: `[1,-1]` for `[1,4]` (a
/// table squeezed where it is read). Its one dimension other than 1 is -1, since a 4 written there would be a
/// size of its own to check. (analysis/fix_table.cpp)
std::vector<std::int64_t> table_pattern(std::span<const std::int64_t> shape);

/// A value one element of a Reshape's pattern could take so that the Reshape keeps the batch.
struct pattern_choice {
  std::size_t element = 0;
  std::int64_t old_value = 0;     ///< what the element holds now
  std::int64_t value = 0;         ///< 0 or -1
  bool set_special_zero = false;  ///< with the Reshape's special_zero set to true (ONNX: allowzero to 0)
  std::string why;
  /// New sizes: other elements (of the pattern) written with it, each with its value (0: they copy the
  /// input's dimension there). They come from the same Const as `element`, or the choice is not made.
  std::vector<std::pair<std::size_t, std::int64_t>> also{};
  /// New sizes: the whole pattern computed from the data input's shape instead (no element is written then).
  std::vector<pattern_term> computed{};
  /// ... or from the shape of this tensor before the Reshape (a layer's id in the graph, and its output),
  /// whose declared shape is the Reshape's output: the Reshape gives back a shape the model had (a window
  /// reverse's `[1,8,8,7,7,96]` is the windows' grid before they were flattened).
  std::optional<std::pair<std::int64_t, std::size_t>> shape_of{};
  std::string shape_of_name{};  ///< that layer's name
  /// The input of the layer that `computed` feeds: a Reshape's pattern (1), an Interpolate's sizes.
  std::size_t port = 1;
  /// How the input takes the computed value: as it is, or one over it (a mean written as a sum times
  /// 1/(h·w)), or Bessel's correction of it (count_form).
  count_form form = count_form::count;
  /// New sizes: the layer (a pooling whose window is the whole of each spatial axis) becomes this
  /// reduction (ReduceMean-1, ReduceMax-1) over `axes`, keeping them as 1s; nothing is computed then.
  std::string reduction{};
  std::vector<std::int64_t> axes{};
  /// New sizes: `computed` holds a Pad's begins then its ends (ONNX's pads input, whole); the IR's Pad takes
  /// the halves at inputs 1 and 2.
  bool pads = false;
  /// New sizes: the layer is a Const that `computed` and this Range replace for every layer that reads it.
  std::optional<counted_range> range{};
};

/// The choice that feeds input `port` `terms` read from the shape of output `output` of `from` (a tensor
/// met), explained by `why(terms as text, from's name)`.
template <class Why>
pattern_choice read_from_met(std::size_t port, const layer& from, std::size_t output, std::vector<pattern_term> terms, Why why) {
  const std::string name(from.name);
  pattern_choice c;
  c.port = port;
  c.computed = std::move(terms);
  c.why = why(terms_text(c.computed, name), name);
  c.shape_of = std::pair<std::int64_t, std::size_t>(from.id, output);
  c.shape_of_name = name;
  return c;
}

/// The values to try, best first, for Reshape `l` of `g` (propagated as `p`), which check_batch names with
/// finding `f`. An element that writes the declared batch (`f.pattern_index`) gets 0, the copy of the
/// input's batch: with special_zero as it is, or set to true when no element of the pattern may be 0
/// (setting it then changes no other element's meaning); then -1, when the pattern has no -1 and its other
/// elements are fixed values (then -1 is exactly the batch). A pattern that folds the batch into another
/// dimension and fails at the checked batch gets -1 at each element that holds a positive value, in turn:
/// which one follows the batch is the judges' to find. Empty, with `reason`, when nothing is worth trying.
[[nodiscard]] std::vector<pattern_choice> pattern_choices(const graph& g, const propagation& p, const layer& l,
                                                          const batch_finding& f, text::fix_reason& reason);

/// New sizes: the values to try, best first, for Reshape `l` of `g`, which check_batch at the shapes asked
/// (propagated there as `asked`, at the declared ones as `declared`) names with finding `f`. It
/// reads the pattern as computed_terms does, and every choice writes that reading: 0 in each element that
/// follows its input's dimension at the same index (with special_zero set where the pattern has no 0);
/// with those, -1 in the one element left that follows the sizes, where the pattern has no -1; last, the
/// pattern computed from the input's shape. `stays` holds the values the patterns of the model's other
/// Reshapes give at every size asked (none of them a finding there): a factor of a split dimension with one
/// of those values is the one that stays. Empty, with `reason`, when nothing is worth trying.
[[nodiscard]] std::vector<pattern_choice> size_pattern_choices(const graph& g, const propagation& declared,
                                                               const propagation& asked, const layer& l,
                                                               const batch_finding& f, std::span<const std::int64_t> stays,
                                                               text::fix_reason& reason);

/// The index of the first layer of `g` that reads an output of layer `index` (layers().size() when none): where
/// the layers that compute a Const in its place go (fix_value_choices.cpp).
[[nodiscard]] std::size_t first_reader(const graph& g, std::size_t index);

/// New sizes: whether finding `f` names Const `l` as a shape table (check's `shape_table`), and the choice that
/// computes it as the shape of the tensor it is (fix_table.cpp).
[[nodiscard]] bool reads_table(const layer& l, const batch_finding& f);
[[nodiscard]] std::vector<pattern_choice> table_choices(const graph& g, const propagation& declared, const propagation& asked,
                                                        const layer& l, const batch_finding& f, text::fix_reason& reason);

/// The input a finding names (its `port` argument), where it names one.
[[nodiscard]] inline std::optional<std::size_t> finding_port(const batch_finding& f) {
  for (const auto& [key, value] : f.args)
    if (key == "port" && std::holds_alternative<std::int64_t>(value) && std::get<std::int64_t>(value) >= 0)
      return static_cast<std::size_t>(std::get<std::int64_t>(value));
  return std::nullopt;
}

/// One group of a Reshape's input dimensions and output dimensions of equal products: input dimensions
/// [in_begin, in_end), output dimensions [out_begin, out_end).
struct product_group {
  std::size_t in_begin = 0, in_end = 0, out_begin = 0, out_end = 0;
};
/// The dimensions of a Reshape from `in` to `out` read in groups of equal products, as the Reshape lays the
/// elements out, up to the first group that does not close; none where either shape is not static or holds
/// a dimension below 1.
[[nodiscard]] std::vector<product_group> product_groups(const partial_shape& in, const partial_shape& out);

/// The model's Reshapes (and `also`, a layer whose constant is read) and every layer after them: their
/// outputs hold their constants' values, not sizes the inputs carry.
[[nodiscard]] std::vector<char> at_or_after_reshapes(const graph& g, const layer* also = nullptr);

/// Which dimensions of a Reshape's input (`in` at the declared shapes, `now` at the sizes asked) are a size
/// that changes and that the value names alone: no dimension of a layer before the Reshapes (`after`) has
/// that value at the declared shapes unless it is that same size at the sizes asked.
/// `of`, where given, is the tensor `in` is (a layer's index and output): its own dimensions are their sizes,
/// named or not (a Pad's output computed from a size not known yet has none); where it is a Pad's output, the
/// size before the pad along the same axis is not another size.
/// `whole`: the values read are a Reshape pattern without -1, whose elements must multiply to the input's
/// element count: a size that stays the same at the sizes asked is then not another reading (a program
/// that wrote it there would not run at those sizes), as YOLOv8's anchors `[1,2,2100]` beside its
/// `[1,4,16,2100]` of `[1,64,2100]`.
[[nodiscard]] std::vector<char> sole_sizes(const graph& g, const propagation& declared, const propagation& asked,
                                           const partial_shape& in, const partial_shape& now,
                                           const std::vector<char>& after,
                                           std::optional<std::pair<std::size_t, std::size_t>> of = std::nullopt,
                                           bool whole = false);

/// New sizes: whether finding `f` of layer `l` (placed_on_size or baked_size) names an input that places
/// sizes, begins or ends along its data's axes (an Interpolate's sizes, a Slice's bounds): one that
/// placed_size_choices reads.
[[nodiscard]] bool reads_placed(const layer& l, const batch_finding& f);

/// New sizes: the values to try for the sizes of Interpolate `l` (the input finding `f` names), which place
/// an extent along each axis of its data, or for a slice's begins or ends: each is computed from a shape,
/// its elements along axes that stay kept as constants (a size equal to its axis' extent as that extent).
/// For sizes, first from the shape of a tensor that the layer's output meets in
/// elementwise arithmetic or a Concat, where that tensor has, at the declared shapes, every size along an
/// axis that changes, and changes there too (an FPN's upsampling to its skip connection's size); then
/// from its data input's shape, each size a whole multiple or a whole fraction of its axis' extent (an
/// upsampling by two, a crop to half the width). Empty, with `reason`, when neither reads the values.
[[nodiscard]] std::vector<pattern_choice> placed_size_choices(const graph& g, const propagation& declared,
                                                              const propagation& asked, const layer& l,
                                                              const batch_finding& f, text::fix_reason& reason);

/// New sizes: whether finding `f` of layer `l` (baked_size) names a Gather's positions: one that
/// last_position_choices reads.
[[nodiscard]] bool reads_positions(const layer& l, const batch_finding& f);

/// New sizes: the value to try for Gather `l`'s positions: -1 in every element that is, at the declared
/// shapes, the last position along its axis, which changes (a program's `x[:, n - 1]` folded to `x[:, 6]`).
/// Empty, with `reason`, when no element is (check's finding stands), or where the op counts no position
/// back from the end (`no_negative_positions`).
[[nodiscard]] std::vector<pattern_choice> last_position_choices(const graph& g, const propagation& declared,
                                                                const propagation& asked, const layer& l,
                                                                const batch_finding& f, text::fix_reason& reason);

/// New sizes: whether finding `f` of layer `l` (baked_size) names a Tile's repeats or a bidirectional
/// Broadcast's (ONNX Expand's) shape: one that extent_choices reads.
[[nodiscard]] bool reads_extents(const layer& l, const batch_finding& f);

/// New sizes: the values to try for the repeats of Tile `l`, or the shape of a bidirectional Broadcast,
/// where its data is 1 along an axis that a value spreads it over and the output meets, as a Resize's does
/// (met_tensors), a tensor that has that extent there at the declared shapes and changes: those values are
/// that tensor's extents (a mean over the rows tiled back to the map it is subtracted from:
/// `[1,1,shape('x')[2],1]`). Every other value stays (a broadcast's equal to the data's extent becomes 1,
/// which takes the data's at every size); a Tile of an axis above 1 is not read. Empty, with `reason`,
/// otherwise (check's finding stands).
[[nodiscard]] std::vector<pattern_choice> extent_choices(const graph& g, const propagation& declared,
                                                         const propagation& asked, const layer& l,
                                                         const batch_finding& f, text::fix_reason& reason);

/// New sizes: whether finding `f` of layer `l` (baked_size) names a Divide's divisor: one divisor_choices reads.
[[nodiscard]] bool reads_divisor(const layer& l, const batch_finding& f);

/// New sizes: the value to try for the divisor of Divide `l`, a whole number, where its dividend is a
/// ReduceSum over axes, adjacent or not, one of them changing, whose extents multiply to it (a mean written as a sum
/// over H and W divided by 48): their product, from the summed tensor's shape
/// (`[shape('x')[2]*shape('x')[3]]`). Empty, with `reason`, otherwise (check's finding stands).
[[nodiscard]] std::vector<pattern_choice> divisor_choices(const graph& g, const propagation& declared,
                                                          const propagation& asked, const layer& l,
                                                          const batch_finding& f, text::fix_reason& reason);

/// New sizes: whether finding `f` of layer `l` (baked_size) names a Range's limit: one limit_choices reads.
[[nodiscard]] bool reads_limit(const layer& l, const batch_finding& f);

/// New sizes: the value to try for the limit of Range `l`, a count from 0 by a whole step whose output meets
/// (met_tensors; arithmetic aligns it with the other operand's last axes) a tensor that has its extent there
/// and changes: that extent times the step (a grid of columns added to a map, `torch.arange(w)`:
/// `[shape('x')[3]]`). Empty, with `reason`, otherwise (check's finding stands).
[[nodiscard]] std::vector<pattern_choice> limit_choices(const graph& g, const propagation& declared,
                                                        const propagation& asked, const layer& l,
                                                        const batch_finding& f, text::fix_reason& reason);

/// New sizes: whether finding `f` of layer `l` (baked_size) names a TopK's k: one that k_choices reads.
[[nodiscard]] bool reads_k(const layer& l, const batch_finding& f);

/// New sizes: the value to try for TopK `l`'s k where it is, at the declared shapes, the whole extent of the
/// axis it sorts along, which changes (a program's `x.topk(x.shape[-1])`): that extent, computed from the
/// data's shape. Empty, with `reason`, otherwise (check's finding stands).
[[nodiscard]] std::vector<pattern_choice> k_choices(const graph& g, const propagation& declared, const propagation& asked,
                                                    const layer& l, const batch_finding& f, text::fix_reason& reason);

/// Whether slice `l` starts each axis it cuts at its first element and steps by one: every begin 0 (or one its
/// mask ignores), every step 1 (or none given).
[[nodiscard]] bool from_the_start(const graph& g, const propagation& declared, const layer& l);

/// New sizes: whether finding `f` of layer `l` (placed_on_size) names a Pad's amounts: one pad_choices reads.
[[nodiscard]] bool reads_pads(const layer& l, const batch_finding& f);

/// New sizes: the values to try for the amounts of Pad `l` where each one along an axis that changes pads one
/// end by what its extent lacks, at the declared shapes, to be a multiple of a window (a Swin block's pad to
/// its window, `F.pad(x, (0, (7 - W % 7) % 7))`): that window is the one value of `stays` (the sizes the
/// model's other Reshapes keep) that gives the amount, and the amount is computed as `(m - shape[a] % m) % m`
/// from the data's shape. A 0 on an axis that changes stays 0 where no such window divides its extent, or where
/// a crop back after the windows (a Slice from 0 to the size before the pad) leaves the axis alone; it is
/// read as a pad to the window where that crop cuts it; otherwise refused. Both ends padded, no such value or
/// more than one: empty, with `reason` (pad_not_read).
[[nodiscard]] std::vector<pattern_choice> pad_choices(const graph& g, const propagation& declared,
                                                      const propagation& asked, const layer& l,
                                                      const batch_finding& f, std::span<const std::int64_t> stays,
                                                      text::fix_reason& reason);

/// New sizes: whether finding `f` of layer `l` names a value input other than a Reshape's pattern that one of
/// the readings above reads (a placed size or bound, a Gather's position, a TopK's k, a Tile's or
/// Broadcast's extents, a Range's limit, a divisor, a Pad's amounts).
[[nodiscard]] bool reads_values(const layer& l, const batch_finding& f);
/// ... and the choices of the reading that reads it (empty, with `reason`, where none does); `stays` as for
/// pad_choices.
[[nodiscard]] std::vector<pattern_choice> value_choices(const graph& g, const propagation& declared,
                                                        const propagation& asked, const layer& l,
                                                        const batch_finding& f, std::span<const std::int64_t> stays,
                                                        text::fix_reason& reason);

/// New sizes: the pattern `e` of a Reshape whose data input is `in` at the declared shapes and `now` at the
/// shapes asked, computed from the input's shape: the input's dimensions and the pattern's elements are
/// matched in groups of equal products (as the Reshape lays the elements out, row by row); a group whose
/// input dimensions stay keeps its constants, one input dimension that changes gives one element its copy
/// (or several, whose product one element holds), and a dimension that changes split into several elements
/// gives the one that follows it its quotient by the others, which must each be a value of `stays`. Every
/// input dimension that changes and is read must have `sole` set: its declared value is no other size's.
/// Nullopt, with `reason`, when the pattern cannot be read that way.
[[nodiscard]] std::optional<std::vector<pattern_term>> computed_terms(const partial_shape& in, const partial_shape& now,
                                                                      std::span<const std::int64_t> e, bool special_zero,
                                                                      std::span<const std::int64_t> stays,
                                                                      std::span<const char> sole, text::fix_reason& reason);

/// A refusal of layer `id` for reason `why`.
[[nodiscard]] inline fix_refusal refused(std::int64_t id, std::string name, std::string type, text::fix_reason why,
                                         std::vector<enclosing_layer> within = {}) {
  return {{id, std::move(name), std::move(type), std::move(within), std::move(why.code), std::move(why.args)},
          std::move(why.text)};
}

/// How many inputs of `g`'s layers `l` feeds: a Const or a layer on the way to a pattern that feeds more
/// than one is shared, and a rewrite must not reach the others.
[[nodiscard]] inline std::size_t readers_of(const graph& g, const layer& l) {
  const auto index = static_cast<std::size_t>(&l - g.layers().data());
  std::size_t n = 0;
  for (const auto& x : g.layers())
    for (const auto& src : x.sources) n += src && src->layer == index;
  return n;
}

// The proof, after check_batch's verdict at every checked batch: a rewritten model must also compute
// what the original computes at the original's declared inputs, and carry the batch where check_batch
// says it does. Both fixers prove with these, each matching its model's tensors to the original's (the
// IR by layer id, ONNX by tensor name).

/// Whether two shapes are the same, symbols aside.
[[nodiscard]] bool same_shape(const partial_shape& a, const partial_shape& b);

/// Whether a layer's outputs have the same shapes before and after a rewrite.
[[nodiscard]] bool same_shapes(std::span<const tensor> before, std::span<const tensor> after);
/// The same, but only for its first `read` outputs (those up to the last one a layer reads: outputs_read):
/// a rewrite may change or drop the others (a MaxPool's indices, which the reduction it becomes does not give).
[[nodiscard]] bool same_shapes(std::span<const tensor> before, std::span<const tensor> after, std::size_t read);
/// Per layer of `g`: one more than the last of its outputs that a layer of `g` reads (0 when none is read).
[[nodiscard]] std::vector<std::size_t> outputs_read(const graph& g);

/// The first tensor of `g` that check_batch (its report `r` at batch `b`) says carries the batch but whose
/// shape at `b` (`at`) is not its shape in `reference` with the batch dimension scaled, or that carries no
/// batch and does not keep its shape in `reference`; nullopt when there is none. `reference` is `g`
/// propagated at the original model's declared inputs. A dynamic `b` is always consistent.
[[nodiscard]] std::optional<fix_refusal> not_scaled(const graph& g, const propagation& reference,
                                                    const propagation& at, const batch_report& r, const dimension& b);

}  // namespace reshape1::model::detail
