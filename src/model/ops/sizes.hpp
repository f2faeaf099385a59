// Internal: what an op reads as a size, and where it places something along its data's axes: the facts the
// analysis at new sizes (analysis/batch_sizes.cpp) asks of a layer to find the constants a fixed-shape export
// may have written where the program computed them. Kept with the rules, so that the analysis asks
// questions of a layer and never names an op; an op whose parameters are sizes gets its facts here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "reshape1/model/graph.hpp"

namespace reshape1::model::detail {

/// The inputs layer `l` reads as sizes, bounds, counts or indices (its constants there may be a size written
/// down): its type's registry row's (rule_entry::sizes), but where a version gives a port another meaning
/// (Interpolate-11's input 2 is its axes, Interpolate-4's its scales); none for a type without one.
[[nodiscard]] std::span<const std::size_t> size_ports(const layer& l);

/// Elementwise arithmetic (Multiply, Divide, Add, Subtract, Minimum, Maximum, FloorMod, Mod): a constant
/// operand is one factor, divisor or bound, read element by element against the other operand's sizes.
[[nodiscard]] bool elementwise_arithmetic(std::string_view type);

/// Input `port` of `l` holds positions along an axis (Gather's indices, Slice's and StridedSlice's begins and
/// ends): the last position along a size is written as one less than it.
[[nodiscard]] bool holds_positions(const layer& l, std::size_t port);

/// For a Gather (its positions input 1, along the axis input 2 names): whether a negative position counts
/// back from the end of the axis, as in Gather-8 and an ONNX Gather from version 11 (lowered to Gather-8);
/// nullopt for another op.
[[nodiscard]] std::optional<bool> gather_counts_back(const layer& l);

/// For a TopK: the axis (its `axis` attribute, maybe negative) along which it keeps k elements, k the value
/// of input 1; nullopt for another op.
[[nodiscard]] std::optional<std::int64_t> keeps_k_along(const layer& l);

/// `l` sums its data over the axes input 1 holds (ReduceSum).
[[nodiscard]] bool sums_over_axes(const layer& l);

/// `l` sums or averages its data over the axes input 1 holds (ReduceSum, ReduceMean, ReduceL2, the root of
/// a sum of squares, or ReduceL1, a sum of absolute values): a count of the elements it reduces may follow
/// it as a factor or a divisor (a mean, a variance).
[[nodiscard]] bool sums_or_averages(const layer& l);

/// `l` averages its data over the axes input 1 holds (ReduceMean): times their count, it is their sum.
[[nodiscard]] bool averages(const layer& l);

/// `l`'s output is a sum of squares of its data, or of the data it reduces, where `squared` says whether the
/// layer that data comes from squares it: ReduceL2 does itself; ReduceSum and ReduceMean of squares do.
[[nodiscard]] bool reduces_squares(const layer& l, bool squared);

/// `l` squares its data: a Multiply of one tensor by itself (`same_operands`), a SquaredDifference, or a
/// Power whose exponent is the constant 2 (`exponent`, its value, where known).
[[nodiscard]] bool squares(const layer& l, bool same_operands, std::optional<double> exponent);

/// `l`'s output is a sum of a moment's terms (`formed`: the layer its data comes from forms them, as
/// forms_moment reads it): ReduceL2 and ReduceL1 form their own (squares, absolute values).
[[nodiscard]] bool reduces_moment(const layer& l, bool formed);

/// `l` makes what a moment of its data sums, beyond a square (`squares`): a product of two tensors neither
/// of which is a constant (`data_operands`: a covariance's), a Power by any constant exponent (a third
/// moment's cube), an absolute value (a mean absolute deviation's), or an exponential (a log-sum-exp's).
[[nodiscard]] bool forms_moment(const layer& l, bool same_operands, bool data_operands, std::optional<double> exponent);

/// `l`'s output holds values computed from its inputs' element by element, or its inputs' elements moved
/// (a pointwise op, arithmetic among them; Convert, Squeeze, Unsqueeze, Reshape, Concat, Transpose): a
/// count read after a reduction may follow it (a variance, flattened or rectified, then corrected).
[[nodiscard]] bool carries_values(const layer& l);

/// `l` divides input 0 by input 1, elementwise (Divide; an ONNX Div).
[[nodiscard]] bool divides(const layer& l);

/// `l` multiplies input 0 by input 1, elementwise (Multiply; an ONNX Mul).
[[nodiscard]] bool multiplies(const layer& l);

/// `l` counts from input 0 to input 1 by input 2 (Range): its output's one extent follows from the three.
[[nodiscard]] bool counts_range(const layer& l);

/// How a layer extends its data along each axis by the values of input 1.
enum class extension {
  repeats,    ///< Tile: the extent times the repeat
  broadcast,  ///< a bidirectional Broadcast (ONNX's Expand): the larger of the two, a 1 taking the other's
};
/// nullopt for a layer that extends nothing so (a Broadcast of another mode among them).
[[nodiscard]] std::optional<extension> extends(const layer& l);

/// Input `port` of `l` is the shape its output takes, whole (a Broadcast's target shape, what ONNX's Expand
/// and ConstantOfShape become): a constant there that is another tensor's shape may be that shape written down.
[[nodiscard]] bool takes_shape(const layer& l, std::size_t port);

/// How an input places something along the data's (input 0's) axes.
enum class placement {
  size,    ///< the extent of the output along the axis (Interpolate's sizes): any value
  amount,  ///< how much is added or cut at an end (Pad's amounts): any value but 0, unless every one is 0
  begin,   ///< where a slice starts: inside the axis, past its second element
  end,     ///< where a slice ends: inside the axis, past its first element
};

/// An input of a layer whose elements are positions or extents along the data's axes.
struct placed_input {
  std::size_t port = 0;
  placement kind = placement::size;
  /// The input naming each element's axis, when the layer has one; else `axes` (from an attribute: an
  /// empty one names none), else element i is axis i.
  std::optional<std::size_t> axes_port;
  std::optional<std::vector<std::int64_t>> axes;
  std::vector<bool> ignored;  ///< elements a mask tells the layer to ignore (StridedSlice's begin_mask, end_mask)
};

/// The inputs of `l` that place something along its data's axes; none for an op that places nothing, and
/// for a StridedSlice whose masks insert, remove or skip axes (its elements name no axis one for one).
[[nodiscard]] std::vector<placed_input> placed_inputs(const layer& l);

/// The window a pooling or convolution layer slides over its data's spatial axes (from axis 2 on): a
/// pooling kernel from its attribute, or a convolution's from its weights (input `weights_port`, whose
/// dimensions from `weights_lead` on are the window).
struct window_source {
  std::vector<std::int64_t> kernel;
  std::optional<std::size_t> weights_port;
  std::size_t weights_lead = 0;
};
/// nullopt for a layer that slides no window, or one whose kernel attribute is not a list of integers (its
/// rule refuses that).
[[nodiscard]] std::optional<window_source> window_of(const layer& l);

/// The reduction (ReduceMean-1, ReduceMax-1) that computes what pooling layer `l` (AvgPool, MaxPool) does
/// where its window is the whole of each spatial axis; nullopt for other layers.
[[nodiscard]] std::optional<std::string_view> global_reduction(const layer& l);

/// What fix calls the input of `l` it rewrites or computes, in the names of the layers it adds before `l`
/// and in its reasons: a Reshape's `pattern`, an Interpolate's `sizes`, a TopK's `k`, a Tile's or
/// Broadcast's `extents`, a Range's `limit`, a Divide's `divisor`, a Multiply's `factor`, a Gather's
/// `indices`, a pooling's `window`, a Pad's `pads`, a Const's own `values` (computed whole), a slice's `bounds`.
[[nodiscard]] std::string_view input_word(const layer& l);

/// `l`'s output holds another tensor's dimensions (ShapeOf): an index into it names a dimension, not a
/// position along one, even where the dimensions are constants.
[[nodiscard]] bool gives_dimensions(const layer& l);

/// `l` only adds or removes dimensions of 1 of its data (Unsqueeze, Squeeze) where its shapes show it, as a
/// Reshape may: the data's other dimensions keep their order.
[[nodiscard]] bool moves_ones(const layer& l);

/// `l` permutes its data's axes (Transpose): output axis j is input axis perm[j], perm the values of input 1.
[[nodiscard]] bool permutes_axes(const layer& l);

/// `l` resizes its data (Interpolate): its output's extent along an axis is whatever its sizes or scales make
/// it, not a function of the data's alone.
[[nodiscard]] bool resizes(const layer& l);

/// `l` pads its data (Pad): its output's extent along an axis is the data's and the amounts its inputs 1 and
/// 2 add at the begin and at the end.
[[nodiscard]] bool pads(const layer& l);

/// `l` slices its data (Slice, StridedSlice): inputs 1 and 2 are its begins and ends.
[[nodiscard]] bool slices(const layer& l);

}  // namespace reshape1::model::detail
