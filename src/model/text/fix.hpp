// Internal: the sentences of `reshape1 fix`, for an IR and an ONNX model alike: why each rewrite was made,
// why a Reshape was left alone, and why a finding keeps the model from being fixed. The fixers decide with
// typed values (pattern elements, values, layers, findings); only this file words them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/text/reason.hpp"
#include "reshape1/dimension.hpp"
#include "reshape1/model/graph.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/graph.hpp"
#include "reshape1/partial_shape.hpp"

namespace reshape1::model::text {

/// Why fix left a Reshape alone or did not call the model fixed: a stable snake_case code, the values it
/// names (each under its name, as a finding's args), and the sentence that says it, written here from them.
using fix_reason = reason_text;

// ---- why a rewrite ----
/// Element `index` wrote the declared batch: 0 copies it (`setting`: with the Reshape's special_zero set
/// to true, allowzero to 0 in ONNX, the pattern having no other 0).
[[nodiscard]] std::string zero_copies_batch(std::size_t index, std::int64_t declared,
                                            std::optional<model_format> setting = std::nullopt);
/// Element `index` wrote the declared batch: -1 infers it (the pattern has no other -1 and its other
/// elements are fixed, which is why -1 does).
[[nodiscard]] std::string minus_one_infers_batch(std::size_t index, std::int64_t declared);
/// New sizes: the pattern elements `copies` become 0, copying the input's dimensions that change, and
/// `minus_one` (an element and the value it held) becomes -1 (`setting`: with special_zero set to true,
/// allowzero to 0 in ONNX).
[[nodiscard]] std::string follows_sizes(std::span<const std::size_t> copies,
                                        std::optional<std::pair<std::size_t, std::int64_t>> minus_one,
                                        std::optional<model_format> setting);
/// Element `index` held `value`, which folds the declared batch with other dimensions: -1 infers it.
[[nodiscard]] std::string minus_one_infers_folded(std::size_t index, std::int64_t value);
/// An IR rewrite's Const (`through`: the layer the value goes through, if any), and the clone it needed.
[[nodiscard]] std::string held_by_const(std::string_view why, const layer& holder, const layer* through);
[[nodiscard]] std::string cloned_const(std::string_view why, std::int64_t holder);
/// An ONNX rewrite's tensor: a Constant node's or an initializer (`was_external`: now written in the
/// model rather than its external data), and the Concat the value goes through.
[[nodiscard]] std::string held_by_tensor(std::string_view why, bool constant_node, std::string_view tensor,
                                         bool was_external);
[[nodiscard]] std::string through_concat(std::string_view why, std::string_view concat);

// ---- why a Reshape is left alone ----
/// The -1 at `index` folds the batch with other dimensions (`node`: an ONNX node's rank, else a layer's).
[[nodiscard]] fix_reason minus_one_folds_batch(std::size_t index, bool node);
[[nodiscard]] fix_reason pattern_folds_batch();
[[nodiscard]] fix_reason no_element_follows_batch();
/// special_zero=false (allowzero=1 in ONNX, as `format` says) with a -1 taken: a literal 0 at `zero`, an
/// element that may be 0 (the -1 at `minus_one`), or elements that are not fixed values.
[[nodiscard]] fix_reason literal_zero_with_minus_one(std::size_t zero, model_format format);
[[nodiscard]] fix_reason maybe_zero_with_minus_one(std::size_t minus_one, model_format format);
[[nodiscard]] fix_reason not_fixed_without_special_zero(model_format format);
/// The shape's values unknown.
[[nodiscard]] fix_reason shape_values_unknown();
/// An element of the input fix rewrites, as its reasons name it: `pattern[2]` of a Reshape, `sizes[1]` of
/// an Interpolate, `bounds[0]` of a slice (input_word); an index alone is a pattern's.
struct element_ref {
  std::size_t index = 0;
  std::string_view input = "pattern";
  element_ref(std::size_t i, std::string_view in = "pattern") : index(i), input(in) {}
  [[nodiscard]] std::string named() const;
};
/// The element is not held where fix can write it. IR: computed by a layer (`where`; "" for nothing), held
/// by a Const of a type fix does not rewrite, or unsigned where -1 is needed; through a shared layer.
[[nodiscard]] fix_reason computed_not_const(element_ref element, std::string_view where);
[[nodiscard]] fix_reason type_not_rewritten(element_ref element, std::string_view where, std::string_view type);
[[nodiscard]] fix_reason unsigned_cannot_hold_minus_one(element_ref element, std::string_view where,
                                                         std::string_view type);
[[nodiscard]] fix_reason comes_through_shared_layer(element_ref element, std::string_view where);
/// ONNX: the same, by node and tensor names.
[[nodiscard]] fix_reason computed_not_tensor(element_ref element);
[[nodiscard]] fix_reason constant_not_in_file(element_ref element, std::string_view node);
[[nodiscard]] fix_reason comes_through_shared_node(element_ref element, std::string_view node);
[[nodiscard]] fix_reason reaches_through_added_layer(std::string_view tensor);
[[nodiscard]] fix_reason not_a_tensor_the_node_sees(element_ref element, std::string_view tensor);
[[nodiscard]] fix_reason external_read_in_body(element_ref element, std::string_view tensor);
[[nodiscard]] fix_reason values_not_read(std::string_view tensor);
[[nodiscard]] fix_reason does_not_feed(std::string_view tensor, std::size_t port, std::string_view node,
                                      std::string_view read);

// ---- what an ONNX fix frees ----
/// Dimension `index` of the tensor `name` (`kind`: "input", "output", "value_info"... as the fix names
/// where the tensor is declared) became the batch's dim_param, or (`cleared`) lost its declared size.
[[nodiscard]] std::string freed_dimension(std::string_view kind, std::string_view name, std::size_t index, bool cleared);

// ---- why a rewrite was taken back, or the model not fixed ----
/// A finding's kind as fix's reasons say it ("swallows the batch").
[[nodiscard]] std::string_view issue_words(batch_issue issue);
/// Rewriting raised an error (`code`, its message `what`) while the rewritten model was propagated.
[[nodiscard]] fix_reason rewrite_raises(errc code, std::string_view what);
/// Rewriting element `index` to `value` (or computing the pattern as `computed`, when given) changed layer
/// `layer`'s shapes at the declared inputs. `input` names what was rewritten: a Reshape's "pattern", an
/// Interpolate's "sizes" (input_word).
[[nodiscard]] fix_reason rewrite_changes_shapes(std::size_t index, std::int64_t value, std::int64_t layer,
                                                std::string_view computed = {}, std::string_view input = "pattern");
/// Where the proof checks: a batch (`batch`, "8") or, for new sizes, the shapes asked (`shapes`,
/// "x=[1,3,?@H,?@W]"); the reasons name it under that key.
struct proof_at {
  std::string_view key = "batch";
  std::string value;
  [[nodiscard]] std::string words() const { return key == "batch" ? "batch " + value : value; }
};
/// ... still leaves the Reshape failing (or with `issue`) at `at`.
[[nodiscard]] fix_reason rewrite_still_leaves(std::size_t index, std::int64_t value, batch_issue issue,
                                              const proof_at& place, std::string_view computed = {},
                                              std::string_view input = "pattern");
/// Why a fails_at_declared finding is not fix's to mend: the model fails as it is given.
[[nodiscard]] fix_reason fails_as_given(const batch_finding& f);
/// Why finding `f`, at `at`, keeps the model from being fixed (code `batch_finding`, naming the finding's
/// kind, code and where).
[[nodiscard]] fix_reason refusal(const batch_finding& f, const proof_at& at);
/// New sizes: no 0 and -1 in Reshape pattern element `index` (holding `value`) and the elements that copy
/// the input's dimensions makes the pattern follow the sizes (more than one element stands for a size, or
/// the pattern has a -1 already), and its elements do not group its input's dimensions as computed_terms
/// reads them.
[[nodiscard]] fix_reason needs_computed_pattern(std::size_t index, std::int64_t value);
/// New sizes: the pattern splits input dimension `dimension` (`value`, which changes) into `factors`, and no
/// other Reshape shows which of them follows the size.
[[nodiscard]] fix_reason split_not_read(std::size_t dimension, std::int64_t value, const std::vector<std::int64_t>& factors);
/// New sizes: the pattern read as its input's dimensions grouped (`reading`, terms_text) has no element
/// that follows a size: check's finding names a constant the reading keeps.
[[nodiscard]] fix_reason kept_by_reading(std::string_view reading);
/// New sizes: pattern element `index`, kept by the reading, holds `value`, which a size that changes has.
[[nodiscard]] fix_reason kept_value_is_a_size(std::size_t index, std::int64_t value);
/// New sizes: the constant `holder` the rewrite computes is also the model output `output`, which would keep
/// the declared shapes' value (what the program wrote out there is not in the file).
[[nodiscard]] fix_reason constant_written_out(std::string_view holder, std::string_view output);
/// New sizes: dimension `dimension` of the Reshape's input is 1 at the declared shapes and changes.
[[nodiscard]] fix_reason changing_one(std::size_t dimension);
/// New sizes: the pattern is an ONNX node's attribute, which no computed value can feed.
[[nodiscard]] fix_reason pattern_not_an_input();
/// New sizes: the pattern of a Reshape in a body would have to be computed from its input's shape.
[[nodiscard]] fix_reason computed_in_body();
/// New sizes: why a pattern is computed from its input's shape, written as `terms` (terms_text).
[[nodiscard]] std::string computed_from_shape(std::string_view terms);
/// ... computed from the shape of the tensor `source` outputs, which the Reshape gives back.
[[nodiscard]] std::string computed_from_tensor(std::string_view terms, std::string_view source);
/// New sizes: why an Interpolate's sizes or a slice's bounds (`what`: "sizes", "ends"...) are computed from
/// its data input's shape, written as `terms`.
[[nodiscard]] std::string sizes_computed_from_shape(std::string_view what, std::string_view terms);
/// ... from the shape of the tensor `source` outputs, which the layer's output is combined with.
[[nodiscard]] std::string sizes_computed_from_tensor(std::string_view what, std::string_view terms, std::string_view source);
/// New sizes: element `index` of an Interpolate's sizes or a slice's bounds, `value` along an axis whose
/// declared extent is `extent`, is neither a whole multiple nor a whole fraction of it, and no tensor the
/// output meets has it: what it stands for is not known.
[[nodiscard]] fix_reason size_not_a_whole_ratio(std::size_t index, std::int64_t value, std::size_t axis, std::int64_t extent);
/// New sizes: why a Gather's positions `elements` (each `value`, the last along axis `axis` of `extent` at the
/// declared shapes) are written as -1.
[[nodiscard]] std::string names_last_position(std::span<const std::size_t> elements, std::int64_t value, std::size_t axis,
                                              std::int64_t extent);
/// New sizes: why a divisor is computed as `terms`, the count of elements of the tensor `source` outputs.
[[nodiscard]] std::string divisor_from_tensor(std::string_view terms, std::string_view source);
/// New sizes: a pooling whose window covers spatial axis `axis` only in part (or, nullopt, that pads,
/// dilates or gives its indices): no reduction computes it.
[[nodiscard]] fix_reason window_not_whole(std::optional<std::size_t> axis);
/// New sizes: why a pooling whose window is the whole of `axes` becomes `reduction` over them.
[[nodiscard]] std::string global_window(std::string_view reduction, const std::vector<std::int64_t>& axes);
/// New sizes: why a Multiply's factor, one over a count of elements summed, is computed as `computed`.
[[nodiscard]] std::string reciprocal_from_tensor(std::string_view computed, std::string_view source);
/// New sizes: why a Multiply's factor, the count of elements a mean of `source`'s averages, is computed as
/// `computed`.
[[nodiscard]] std::string count_from_tensor(std::string_view computed, std::string_view source);
/// New sizes: why a value that corrects a variance of `source`'s elements for their count (Bessel's
/// correction) is computed as `computed`.
[[nodiscard]] std::string bessel_from_tensor(std::string_view computed, std::string_view source);
/// New sizes: why a Range's limit is computed as `terms`, from the shape of the tensor `source` outputs.
[[nodiscard]] std::string limit_from_tensor(std::string_view terms, std::string_view source);
/// New sizes: why a Const that counts along an axis is computed as a Range of `terms` values, from the shape
/// of the tensor `source` outputs.
[[nodiscard]] std::string range_from_tensor(std::string_view terms, std::string_view source);
/// A grid (check's `counted_grid`) computed from the shape of `source`, the tensor its readers meet.
[[nodiscard]] std::string grid_from_tensor(std::string_view terms, std::string_view source);
/// A constant spread along sizes (check's `spread_along_size`) computed from the shape of `source` likewise.
[[nodiscard]] std::string spread_from_tensor(std::string_view terms, std::string_view source);
/// A Const that is a tensor's shape (check's `shape_table`; `code` `shape_table_part`, that shape but for its 1s;
/// `shape_table_count`, a product of its dimensions) computed as `terms`, from the shape of `source`.
[[nodiscard]] std::string table_from_tensor(std::string_view code, std::string_view terms, std::string_view source);
/// New sizes: why a TopK's k, `k` at the declared shapes, the whole of axis `axis`, is computed as `terms`.
[[nodiscard]] std::string k_is_the_axis(std::string_view terms, std::int64_t k, std::size_t axis);
/// New sizes: why a Pad's amounts are computed as `terms`: each that changes pads axis `axis` (of extent
/// `extent` at the declared shapes) by `amount`, what it lacks to be a multiple of `multiple`, a size the
/// model's other Reshapes keep.
[[nodiscard]] std::string pads_to_multiple(std::string_view terms, std::size_t axis, std::int64_t extent,
                                           std::int64_t amount, std::int64_t multiple);
/// Why a Pad's amount is not read as a pad to a multiple (pad_not_read).
enum class pad_doubt {
  window,     ///< no value the model's other Reshapes keep makes it one, or several do
  both_ends,  ///< it pads both ends
  zero,       ///< it is 0 on an axis whose extent is a multiple already, and nothing shows whether it pads there
  crop,       ///< it is negative: a crop
  split,      ///< it is 1 at one end, as a pad split between both ends gives it too
};
/// New sizes: a Pad's amount `amount` on axis `axis` (of extent `extent` at the declared shapes), which
/// changes, is not read as a pad to a multiple, for `doubt` (`kept`: the values the model's other Reshapes
/// keep).
[[nodiscard]] fix_reason pad_not_read(std::size_t axis, std::int64_t extent, std::int64_t amount,
                                      const std::vector<std::int64_t>& kept, pad_doubt doubt);
/// New sizes: a constant that counts `count` values from `start` by `step` is not read as a Range of its
/// count: it counts down, or starts at half its count or further (`arange(L - 1, -1, -1)`, whose start follows
/// the size as its count does) (range_not_read).
[[nodiscard]] fix_reason range_not_read(std::int64_t count, std::int64_t start, std::int64_t step);
/// A grid (check's `counted_grid`) that counts down along `axis`, or starts at half its extent or further
/// there (grid_not_read).
[[nodiscard]] fix_reason grid_not_read(std::size_t axis, std::int64_t extent);
/// A counted constant or grid whose only tensor met, `met`, may be 1 at the shapes asked (a `?` holds 1),
/// where arithmetic would spread it rather than meet its extent (met_may_be_one).
[[nodiscard]] fix_reason met_may_be_one(const std::string& met);
/// New sizes: a Const whose values (`shape`) are two readings of tensors' shapes at the declared shapes, `first` and
/// `second` (`[shape('x')[0],...]`), which differ at the shapes asked (`first_at`, `second_at`), or may: which
/// one it stood for is not known (table_tensor_unknown).
[[nodiscard]] fix_reason table_tensor_unknown(const std::string& shape, const std::string& first, const std::string& first_at,
                                              const std::string& second, const std::string& second_at);
/// New sizes: a Const that is a tensor's whole shape is read whole by layer `name` (of type `type`), not indexed
/// as a shape is: its values may be weights that equal it by chance (table_read_whole).
[[nodiscard]] fix_reason table_read_whole(const std::string& type, const std::string& name);
/// New sizes: a table whose element count is a size (check's `shape_table_count`) holds more than one value other
/// than 1 (`values`, `[4,6]`): which of them follows the size does not show (table_count_split).
[[nodiscard]] fix_reason table_count_split(const std::string& values);
/// New sizes: element `index` of a Gather's positions is the last along its axis, but the op (`op`, `version`)
/// counts no position back from the end.
[[nodiscard]] fix_reason no_negative_positions(std::size_t index, std::string_view op, int version);
/// The pattern is held by the constant `holder`, which the caller vouches for (`--assume-constant`).
[[nodiscard]] fix_reason vouched_pattern(std::string_view holder, option_spelling spelling);
/// The format cannot name the tensor (`source`) a computed pattern would read the shape of.
[[nodiscard]] fix_reason shape_not_a_tensor(std::string_view source);
/// New sizes: pattern elements `index` and `other`, rewritten together, are held by different constants.
[[nodiscard]] fix_reason held_apart(element_ref element, std::size_t other);
/// The proof read the rewritten model back: a layer is missing, or has other shapes at the declared inputs.
[[nodiscard]] fix_reason read_back_lacks_layer();
[[nodiscard]] fix_reason read_back_lacks_tensor(std::string_view name);
[[nodiscard]] fix_reason read_back_differs();
/// At batch `at`, output `output` is `shape`, not its declared shape with the batch scaled.
[[nodiscard]] fix_reason not_scaled(const dimension& at, std::size_t output, const partial_shape& shape,
                                     const partial_shape& declared);

/// Every code the reasons above give, in their order (the tests render each).
[[nodiscard]] std::span<const std::string_view> fix_reason_codes() noexcept;

}  // namespace reshape1::model::text
