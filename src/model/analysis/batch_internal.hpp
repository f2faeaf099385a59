// Internal: what check_batch and fix share.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/ops/rules.hpp"
#include "model/ops/sizes.hpp"
#include "model/propagate/in_place.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/graph.hpp"
#include "reshape1/model/propagate.hpp"

namespace reshape1::model::detail {

/// Where one element of a layer's input comes from.
struct element_origin {
  const layer* holder = nullptr;   ///< the Const that holds the element, or the layer that computes it
  std::size_t index = 0;           ///< the element's index in the holder (for a Const)
  const layer* through = nullptr;  ///< the Concat the element went through, if any
  const layer* consumer = nullptr;  ///< the layer the holder feeds on the way (the Reshape or a Concat)
  std::size_t consumer_port = 0;    ///< and its input port
  std::vector<const layer*> path;   ///< the layers between the holder and the layer asked about
};

/// Follows element `index` of input `port` of `l` back to the Const that holds it, through Concats of 1-D
/// tensors and the ops that keep element positions (Convert, Squeeze, Unsqueeze).
element_origin origin_of_element(const graph& g, const propagation& p, const layer& l, std::size_t port,
                                 std::size_t index);

/// The axis of `l`'s data (input 0, of rank `rank`) that each of the `elements` elements of placed input `in`
/// names: from the layer's axes input (its values at `declared`) or attribute, else element i is axis i;
/// nullopt for an element whose axis is not known or not an axis of the data.
std::vector<std::optional<std::size_t>> placed_axes(const graph& g, const propagation& declared, const layer& l,
                                                    const placed_input& in, std::size_t elements, std::size_t rank);

/// Products of sizes above this are not sizes any constant is compared with (and would overflow).
inline constexpr std::int64_t largest_size = std::int64_t{1} << 40;

/// What a reduction looked for by reduction_before reduces.
enum class reduced_data {
  anything,
  squares,  ///< squares (reduces_squares): a variance's
  /// a moment's powers (forms_moment: squares, products, cubes, absolute values), maybe reduced in steps
  /// (a sum over W, then over H): the reduction found is the last of those steps
  moments,
};

/// The sum or mean (sums_or_averages) that the operand of the elementwise `l` other than input `port` is
/// computed from, by at most a few steps that carry its values (a variance: the mean of squares, times the
/// count, then divided), of data as `what` says; null where there is none. `declared` gives the values (a
/// Power's exponent).
const layer* reduction_before(const graph& g, const propagation& declared, const layer& l, std::size_t port,
                              reduced_data what);

/// What a sum or mean reduces, with the reductions of the same op directly before it that reduce the same
/// data in steps (`ReduceSum(ReduceSum(x, [3]), [2])`, a sum over H·W taken a row at a time).
struct reduced_elements {
  const layer* first = nullptr;  ///< the first step, whose input 0 holds the elements reduced
  std::vector<std::size_t> axes;  ///< the axes of that input every step together reduces, sorted
  std::int64_t count = 0;  ///< the number of elements they reduce, at the declared shapes
};

/// What the sum or mean `sum` reduces, with its steps before it, where some of the axes reduced change at the
/// shapes asked (adjacent or not: a mean over C and W); nullopt otherwise.
std::optional<reduced_elements> reduced_count(const graph& g, const propagation& declared, const propagation& asked,
                                              const layer& sum);

/// The layer that holds the value layer `index` outputs, through layers that pass values on (an Identity, the
/// Converts of a compressed IR): a Const, where there is one.
std::size_t value_holder(const graph& g, std::size_t index);

/// Whether the sum or mean `r` reduces data as `what` says (its own input, not in steps).
bool reduces_data(const graph& g, const propagation& declared, const layer& r, reduced_data what);

/// `last` and the reductions before it that it reduces further (reduced_before), `last` first: at most 4.
std::vector<const layer*> reduction_steps(const graph& g, const layer& last);

/// The axes the reduction `r` reduces (its input 1's values), of an input of rank `rank`, negative ones
/// counted from the end, in its order (an axis given twice, twice); nullopt where they are not all known
/// exactly and in range, or there are none.
std::optional<std::vector<std::size_t>> reduced_axes(const graph& g, const propagation& declared, const layer& r,
                                                     std::size_t rank);

/// The first output of Const `index` of `g` as `declared` holds it, its values read from its bytes where
/// the propagation leaves them out (above max_const_values values, up to max_grid_elements): a constant
/// that counts along a size (`position_ids` of 512) is seldom as small as a pattern.
tensor const_with_values(const graph& g, const propagation& declared, std::size_t index);

/// A tensor that counts along its one axis above 1: `count` whole values from `start` by `step` (not 0).
struct counted_values {
  std::size_t axis = 0;
  std::int64_t count = 0, start = 0, step = 0;
};
/// Whether the known values of `t` (static, three at least) count so, whole numbers (of floats too).
std::optional<counted_values> counts_along(const tensor& t);

/// A tensor whose values follow their indices along some of its axes, as a grid of cell positions folded at
/// export does (`meshgrid(arange(h), arange(w))` stacked, yolov5's `_make_grid`): at index i,
/// `base[i'] + i[axes[0]]·slopes[0][i'] + i[axes[1]]·slopes[1][i'] + ...`, where i' is i with those axes at 0
/// (`base` and each slope have the tensor's shape with those axes 1, row-major), added in that order.
struct counted_grid {
  std::vector<std::size_t> axes;
  std::vector<double> base;
  std::vector<std::vector<double>> slopes;
  bool spread = false;  ///< every slope 0: the same values all along those axes
};
/// Whether the known values of `t` follow their indices so along each of its axes at least 2 long whose
/// extent is among `changing` (sorted), one of them at least 3 long with a slope not 0, or with slopes of 0
/// everywhere (`spread`: the same values along those axes, yolov5's anchor_grid): exactly, in the
/// arithmetic fix computes them in (whole numbers up to 2^40 for integers; f64 for f64; f32 for f32, f16
/// and bf16, whose values a Convert then keeps). Other element types: nullopt.
std::optional<counted_grid> grid_along(const tensor& t, std::span<const std::int64_t> changing);

/// What a size at the declared shapes is: where it is read and what it becomes at the shapes asked. Its
/// sentence is written only for a finding (describe): most sizes are never one.
struct size_source {
  enum class scale : std::uint8_t { none, half_down, half_up, twice };
  const partial_shape* shape = nullptr;  ///< the declared shape it is read from (the propagation's)
  std::string_view name;                 ///< that tensor's layer
  std::size_t from = 0, to = 0;          ///< the dimensions whose product it is
  std::optional<std::int64_t> asked;     ///< its value at the shapes asked, when known
  scale how = scale::none;
  /// For a count of the elements reductions reduce, its sentence (`3·14, the elements 'sum' reduces`),
  /// which describe gives instead: its axes need not be adjacent, nor of one tensor.
  std::string counted;
  [[nodiscard]] bool scaled() const noexcept { return how != scale::none; }
};

/// The sizes of one tensor that change: each static dimension at the declared shapes (`d`) that is another
/// at the shapes asked (`a`), and each product of adjacent dimensions that holds one, by value (the first
/// met kept); with `scaled_too`, half and twice each such dimension too. (analysis/batch_sizes.cpp)
void add_changing(const partial_shape& d, const partial_shape& a, std::optional<std::size_t> batch_axis, std::string_view name,
                  std::unordered_map<std::int64_t, size_source>& sizes, bool scaled_too);

/// `7·7, dimensions 1..2 of 'conv' [1,7,7,768]`, `half (rounded down) of dimension 2 of ...`: what `s` is.
std::string describe(const size_source& s);

/// What `s` is at the shapes asked: its value, or `unknown`.
std::string asked_text(const size_source& s);

/// A Const that some layer reads as data, counting along its one axis above 1 (counts_along), whose count
/// equals a size that changes: `torch.arange(h)` or `position_ids[:, :L]` folded at one size into the
/// numbers they gave. Its finding is the Const's own (fix computes it as a Range on a shape).
// (analysis/batch_counted.cpp)
std::optional<batch_finding> counted_range_finding(const graph& g, std::size_t index, const tensor& t,
                                                   const std::unordered_map<std::int64_t, size_source>& sizes,
                                                   std::span<const std::string> assumed, option_spelling spelling);
/// The tensors (layer, output) of a model by their static shape at the declared shapes, of rank 2 at least.
using tensors_by_shape = std::map<std::vector<std::int64_t>, std::vector<std::pair<std::size_t, std::size_t>>>;
/// ... of the tensors whose rank the shapes asked (`asked`) know, in the graph's order. (analysis/batch_counted.cpp)
tensors_by_shape shapes_of(const graph& g, const propagation& declared, const propagation& asked);

/// The values of a shape table (shape_table_finding): its integers, each exactly known, or its reals where each
/// is a whole number (a table an export stored as floats, cast before it is indexed); nullopt otherwise.
/// (analysis/batch_counted.cpp)
std::optional<std::vector<std::int64_t>> table_values(const std::optional<tensor_value>& v);
/// Where a table (`key`, the values of a shape) is a tensor's declared shape (`shape`) but for its 1s: its values
/// other than 1 are, in order, the shape's last dimensions other than 1 (two at least, or all of them). The
/// positions of those dimensions; nullopt where it is not so, or where the table is the whole shape.
/// (analysis/batch_counted.cpp)
std::optional<std::vector<std::size_t>> table_part_of(std::span<const std::int64_t> key, std::span<const std::int64_t> shape);
/// A static shape with one dimension other than 1 at most (`[4]`, `[1,4]`): its values read in order are a vector's.
bool vector_like(const partial_shape& s);
/// A Const that some layer reads as data, of rank 1 (vector_like) and two values at least, that is the whole shape of a tensor
/// of the model (`shaped`) at the declared shapes, where a dimension of that tensor other than its batch changes
/// and some layer takes that position from the table: the shape a program read from its input (`x.shape`
/// indexed, cast, computed with), folded at one size into a table. Its finding is the Const's own, unless
/// `assumed` vouches for it. Tensors of the layers `skip` marks are not looked at. (analysis/batch_counted.cpp)
std::optional<batch_finding> shape_table_finding(const graph& g, const propagation& declared, const propagation& asked,
                                                 std::span<const std::vector<batch_carrier>> carriers, std::size_t index,
                                                 const tensors_by_shape& shaped, std::span<const std::string> assumed,
                                                 option_spelling spelling, std::span<const char> skip = {});
/// Which layers' first output some layer reads as data (and, in `readers`, those layers and inputs): at an input
/// its shape rule does not read the values of (a Gather's indices, an operand of arithmetic, an Expand's data),
/// not an index into a shape, and not where that layer computes integers whose values propagation knows and a
/// layer reads as values (a Concat of a pattern's pieces: a shape, whatever its constants count). `indexed` marks
/// those read so too, and those read by such a layer that computes a value read as one (`table[3]` handed to
/// ConstantOfShape): a shape table is looked for in both. `shape_value` marks the layers whose values a shape rule
/// reads (a pattern, an Expand's shape). (analysis/batch_counted.cpp)
std::vector<char> read_as_data(const graph& g, const propagation& declared,
                               std::vector<std::vector<std::pair<std::size_t, std::size_t>>>& readers, std::vector<char>& indexed,
                               std::vector<char>& shape_value);
/// Input `port` of `c` is the shape its output takes, whole: takes_shape's (a Broadcast's target shape), or a
/// Tile's repeats of a tensor of 1s (`ones.repeat(*shape)`). (analysis/batch_counted.cpp)
bool gives_output_shape(const graph& g, const propagation& declared, const layer& c, std::size_t port);
/// A Const (or a value computed from constants alone) read as an output's whole shape (gives_output_shape: an
/// Expand's, a ConstantOfShape's) that is the shape of a tensor in another branch (`ones.expand(pooled.shape)`,
/// summed into a count): shape_table_finding over the tensors off its readers' path; else, there, a table of such a
/// tensor's last dimensions without its 1s (shape_table_part), or one whose element count is a size that changes
/// of such a tensor (shape_table_count).
/// The sizes a layer reads are matched against its own path and the model's inputs only (baked_sizes), where a
/// table of a tensor elsewhere is never seen; a tensor on the path, or an input, is left to that match (one
/// finding, on the reader), and so is one computed from the table. (analysis/batch_counted.cpp)
std::optional<batch_finding> apart_table_finding(const graph& g, const propagation& declared, const propagation& asked,
                                                 std::span<const std::vector<batch_carrier>> carriers, std::size_t index,
                                                 const tensors_by_shape& shaped, std::span<const std::string> assumed,
                                                 option_spelling spelling);
/// A value computed from constants alone (a table gathered, sliced, concatenated or scaled; the shape of a
/// constant; the caller's to show) that a layer reads as its output's whole shape: apart_table_finding's, unless a
/// layer it is computed from has a finding already (`out`: a Const squeezed is the Const's). (analysis/batch_counted.cpp)
std::optional<batch_finding> computed_table_finding(const graph& g, const propagation& declared, const propagation& asked,
                                                    std::span<const std::vector<batch_carrier>> carriers, std::size_t index,
                                                    const tensors_by_shape& shaped, std::span<const batch_finding> out,
                                                    std::span<const std::string> assumed, option_spelling spelling);
/// A Range whose bounds are constants alone (the caller's to show), whose length is a size that changes of a tensor
/// apart (count_finding's: `Range(0.0, 52.5, 0.5)` made into a count of 105 ones, a map's element count): its
/// values, unless whole numbers, are not carried, so counted_range does not see it. (analysis/batch_counted.cpp)
std::optional<batch_finding> range_length_finding(const graph& g, const propagation& declared, const propagation& asked,
                                                  std::span<const std::vector<batch_carrier>> carriers, std::size_t index,
                                                  std::span<const std::string> assumed, option_spelling spelling);
/// The finding of a layer other than a Const whose values count along a size that changes, computed from constants
/// alone (`cumsum(ones) - 1`, `nonzero(mask)`: an `arange` or a mask a fixed-shape export folded), as a Const's
/// (counted_range_finding); only the first such layer of a chain (one that reads no counted range itself), and none
/// where the caller vouches for every Const it is computed from. (analysis/batch_counted.cpp)
std::optional<batch_finding> computed_range_finding(const graph& g, const propagation& declared, std::size_t index,
                                                    const std::unordered_map<std::int64_t, size_source>& sizes,
                                                    std::span<const std::string> assumed, option_spelling spelling);

/// A Const that some layer reads as data, whose values follow their indices along axes as long as sizes
/// that change (grid_along: a grid of cell positions, `arange(w) - 0.5`), where counted_range_finding finds
/// no count along one axis; or whose values stay the same along such axes (grid_along's `spread`: yolov5's
/// anchor_grid, an Expand folded at export) where spread_lines_up shows it spread along them
/// (`spread_along_size`). Its finding is the Const's own (fix computes it from Ranges on a shape).
std::optional<batch_finding> counted_grid_finding(const graph& g, const propagation& declared, const propagation& asked,
                                                  std::size_t index, const tensor& t,
                                                  const std::unordered_map<std::int64_t, size_source>& sizes,
                                                  std::span<const std::int64_t> changing,
                                                  std::span<const std::string> assumed, option_spelling spelling);

/// Whether elementwise arithmetic lines one of the axes `axes` of Const `index`'s first output up with an axis
/// of its other operand of the same extent that changes between `declared` and `asked` (or is not known at
/// `asked`, after a layer that fails, or computed by a layer `not_shown` marks): a constant the same
/// all along such an axis is spread along that size. (A value per channel that happens to be the same for 32
/// channels, on a map 32 high, lines up with the channels, which stay.)
bool spread_lines_up(const graph& g, const propagation& declared, const propagation& asked, std::size_t index,
                     std::span<const std::size_t> axes, std::span<const char> not_shown = {});


/// A Const that a layer spreading its inputs (spread_tail: arithmetic, comparisons, Where, PReLU...) spreads
/// over another operand that is 1 along an axis where the Const is as long as a size that changes (a table
/// of 6 values per position added to a mean over the positions, `[1,6,1] + [1,1,4]`), at the declared shapes
/// or, where that operand has the extent there, at the shapes asked (`x + c[1,1,1,5]` asked at a width of
/// 1): the output takes that extent from the Const alone where the program may have made one value per
/// position. (Where the other operand has another extent at the shapes asked, the layer fails: no.)
/// `readers`: the layers that read the Const's first output, each with the input it reads it at.
std::optional<batch_finding> spread_extent_finding(const graph& g, const propagation& declared, const propagation& asked,
                                                   std::size_t index,
                                                   std::span<const std::pair<std::size_t, std::size_t>> readers,
                                                   const std::unordered_map<std::int64_t, size_source>& sizes,
                                                   std::span<const std::string> assumed, option_spelling spelling);

/// At new sizes: the findings of the constants that equal, at the declared shapes, a size that changes
/// between `declared` and `asked` (analysis/batch_sizes.cpp), unless `assumed` names them. The batch axis
/// `carriers` show in a tensor (check_batch's, empty when the batch does not change) is not such a size.
/// `batch_only`: the only size that changes is the batch, asked at 1 from a declared batch of more (then no
/// carrier shows it). Half and twice a size count too (a crop to the middle, an upsampling), and an amount of
/// 0 placed on an axis that changes, but not there: nothing halves or doubles the samples, and a pad or a
/// slice names every axis, the batch's with 0. Hints name the option that vouches as `spelling` writes it.
std::vector<batch_finding> baked_sizes(const graph& g, const propagation& declared, const propagation& asked,
                                       std::span<const std::vector<batch_carrier>> carriers,
                                       std::span<const std::string> assumed, option_spelling spelling,
                                       bool batch_only = false);

/// How layer `l` lines up the data inputs it spreads with its output: the number of trailing output axes
/// that are not spread (0 for arithmetic, comparisons, Select, PReLU, FakeQuantize, a NumPy Broadcast, and for
/// a Tile, an Interpolate or a slice of their data; 2 for MatMul, whose last two axes are its matrices), or
/// nullopt for a layer that lines them up otherwise. Layers of one input that keep its shape (an activation)
/// give it on as it is (0).
std::optional<std::size_t> spread_tail(const layer& l);

/// Where a layer's input `port` (of shape `in`) lies in its output of rank `rank`: the output axis of its
/// first axis (aligned to the right; a PReLU's 1-D slope lies along the channels, axis 1, but for the PRelu of
/// an ONNX model, whose slope broadcasts as any other operand).
std::size_t first_axis_at(const layer& l, std::size_t port, const partial_shape& in, std::size_t rank);

/// The layer and port whose input stands for input `port` of `l` as the program had it: the data under a
/// bidirectional Broadcast an ONNX lowering put before `l` (PRelu spreads its data to the slope's shape first),
/// else `l`'s own.
std::pair<const layer*, std::size_t> program_operand(const graph& g, const layer& l, std::size_t port);

/// The axis output `o` of layer `index` holds the batch in, where the batch analysis showed one.
std::optional<std::size_t> batch_axis(std::span<const std::vector<batch_carrier>> carriers, std::size_t index,
                                      std::size_t o);

/// For each layer's outputs, the axes where it is 1 at the declared shapes because a constant may be 1 there
/// (bit a for axis a; analysis/batch_spread.cpp): a value computed from constants alone (not vouched for) at each axis it is 1 along; a
/// layer that spreads its inputs (spread_tail) at each axis its output is 1 along where such an input is; and
/// any other layer that reads such an input (apart from its batch axis) at every axis its outputs are 1 along:
/// a Reshape, a Transpose, a normalization, a reduction or a convolution of `mean_h(x) + c` may carry c's one
/// row anywhere. `from`: the layer computed from constants alone that it comes from (the first met).
struct constant_ones {
  std::vector<std::uint64_t> axes;  ///< of the first output
  /// Whether the layer holds such 1s where no axis shows them (a flatten of `mean_h(x) + c`, which a
  /// Reshape may give back): what reads it is taken to carry them as well.
  std::vector<char> hidden;
  std::vector<std::size_t> from;
  /// The axes of output `o` of layer `index`. (A layer of several outputs never lines its inputs up: where it
  /// carries such 1s at all, each output carries them wherever it is 1.)
  [[nodiscard]] std::uint64_t of(const propagation& declared, std::size_t index, std::size_t o) const;
};


/// constant_ones of every layer of `g`, for check --shape from `declared` to `asked`; `assumed` vouches for
/// constants, whose 1s are then not followed.
constant_ones ones_of_constants(const graph& g, const propagation& declared, const propagation& asked,
                                std::span<const std::vector<batch_carrier>> carriers,
                                std::span<const std::string> assumed);

/// A layer that spreads its inputs (spread_tail: arithmetic, a comparison, Select, PReLU, Expand to a shape,
/// Tile, Interpolate, MatMul's leading axes) whose input is 1 along an output axis because a constant is
/// (ones_of_constants), where that axis is 1 at the declared shapes and another size at the shapes asked
/// (`x + grid` exported at a height of 1, `grid` `[1,1,1,5,2]`; or `x + (mean over H of x + c)`): the
/// constant spreads over the new size, where the program may have made it one value per row (`arange(h)` is
/// `[0]` at a height of 1). One size of 1 cannot show which; the batch is the batch analysis's (a constant
/// spread over the samples keeps each one's result).
std::optional<batch_finding> spread_at_size_1(const graph& g, const propagation& declared, const propagation& asked,
                                              std::span<const std::vector<batch_carrier>> carriers, std::size_t index,
                                              const constant_ones& ones, std::span<const std::string> assumed);

/// The mirror of spread_extent for an input computed from constants alone (a Sigmoid of a Const, a slope
/// reshaped for PReLU): layer `index` spreads its input, `n` long along an output axis, over another input
/// that is `n` long there at the declared shapes and 1 at the shapes asked (`x + sigmoid(c)` asked at a width
/// of 1), or over the model's data that has no such axis where `n` is one of `sizes` (`x[8,16] - abs(c[8,1,1])`
/// asked at batch 1): the output keeps n where the program may have made one value per element. A finding on the layer,
/// naming the Const the input is computed from, unless `assumed` vouches for the layer or that Const.
std::optional<batch_finding> spread_over_size_1(const graph& g, const propagation& declared, const propagation& asked,
                                                std::size_t index, const std::unordered_map<std::int64_t, size_source>& sizes,
                                                std::span<const std::string> assumed);

/// Whether dimension `d` of a tensor is the same static size at the shapes asked as declared.
bool same_at(const partial_shape& declared, const partial_shape& asked, std::size_t d);

/// Whether the caller vouches for the Const `holder` (by name or `#id`).
bool vouched(const layer& holder, std::span<const std::string> assumed);
/// Whether the caller vouches for the value `holder` gives: a Const it vouches for, or a layer computed from Consts
/// alone, every one of which it vouches for (what a finding's "vouch for the constants it is computed from" asks).
bool vouched_value(const graph& g, const layer& holder, std::span<const std::string> assumed);

/// A pooling window or a convolution kernel as large as its input at the declared shapes, along an axis
/// whose size changes: global pooling written as a fixed window. A pooling whose window, padded or dilated,
/// reaches across the whole input from one of its outputs is named too (its kernel, padding or dilation may
/// have been computed from the size); a convolution's only where its kernel is the input and gives one
/// output (a 3x3 kernel padded on a 3x3 map is an ordinary convolution there, and at every size). Each such
/// layer (at `index`) is a finding in `out`, unless `assumed` vouches for it.
void kernel_covers(const graph& g, const propagation& declared, const propagation& asked, std::size_t index,
                   std::span<const std::string> assumed, option_spelling spelling, std::vector<batch_finding>& out);

/// The axes along which layer `index`'s output 0 is one static size at the declared shapes and at the shapes asked,
/// where its input 0's size changes (both of the output's rank): what a resize or a crop to a fixed size keeps.
/// (analysis/batch_crops.cpp)
std::vector<std::size_t> kept_axes(const graph& g, const propagation& declared, const propagation& asked, std::size_t index);

/// A Slice, StridedSlice or Pad whose output keeps its extent along an axis (not `batch`) where its input's
/// changes, its bounds computed (from the input's shape, say) and from a Const that holds that extent, which is
/// the input's whole extent there at the declared shapes, half of it or twice it: ONNX's CenterCropPad to a
/// target an export wrote for one size (`[H, W]`, `[H/2, W/2]`), where the program crops to the size it is
/// given. A finding in `out` naming the Const, unless `assumed` vouches for it; true if there is one. A crop to
/// a fixed extent of 1 (`x[:, L-1:L]`, the last token) is none.
bool fixed_crop(const graph& g, const propagation& declared, const propagation& asked, std::size_t index,
                std::optional<std::size_t> batch, std::span<const std::string> assumed, option_spelling spelling,
                std::vector<batch_finding>& out);

/// A `cannot_tell` finding on layer `l` (at `index`) of check --shape, its reason not yet set.
batch_finding size_finding(const layer& l, std::size_t index);

/// A finding's code, args and sentence: its reason's.
void set_reason(batch_finding& f, const because& reason);

/// Where Reshape `index` groups its input's dimensions into its output's otherwise at `asked` than at
/// `declared`. A Reshape keeps what each output dimension means only where it regroups the same dimensions
/// at every size: `[1,56,56,96] -> [1,8,7,8,7,96]` must hold H in its first two output factors at 112 too,
/// where `[1,-1,7,8,7,96]` gives `[1,32,7,8,7,96]` and runs. A grouping is a product the input's leading
/// dimensions and the output's share (each a range of places where a dimension of 1 makes several); each
/// one at the declared shapes must be one at the shapes asked. Only where all four shapes are static and
/// nothing is empty: a symbolic size is tried at its members.
std::optional<because> regrouped(const graph& g, const propagation& declared, const propagation& asked, std::size_t index,
                                 std::span<const std::string> assumed);

/// At new sizes asked as intervals or symbols (`ranged[i][d]`: dimension d of input i is one, a size that
/// changes): propagation over them shows only that some of their values fit, so the model is also run at a
/// few members of each (analysis/batch_sizes.cpp). A layer that fails at one is a `fails` finding there
/// (the answer is no); where none fails, a `sizes_not_proven` finding on the input (cannot tell), and a
/// `regroups_sizes` finding on each Reshape (not in `findings` yet) that groups its dimensions otherwise at
/// a member than at the declared shapes, unless `assumed` vouches for its pattern.
void try_members(const graph& g, const propagation& declared, const std::vector<input_report>& inputs,
                 const std::vector<std::vector<bool>>& ranged, std::span<const std::string> assumed,
                 option_spelling spelling, std::vector<batch_finding>& findings);

/// Every input's shape as check_batch reads `shapes` (`--shape NAME=SHAPE`: by name, `#ID`, or no name for
/// the only input; a named size follows into the inputs that declare it), without a batch: what `shapes`
/// propagates from. error(invalid_argument) as check_batch refuses the same shapes.
std::vector<input_shape> requested_shapes(const graph& g, std::span<const std::pair<std::string, partial_shape>> shapes,
                                          option_spelling spelling);

/// The propagations one check_batch runs, kept so that the next one, on an edit of the same graph, runs
/// only the rules of the layers the edit reaches, in place (fix judges its rewrites this way).
struct batch_runs {
  static constexpr std::size_t count = 7;
  /// 0: at the declared shapes; 1: at the requested ones; 2: at the example batch, for a dynamic one;
  /// 3, 4, 5: at the sample batches; 6: at batch 1, each sample alone, when neither 0 nor 1 is and a value
  /// computed from the batch size needs it. Empty when check_batch did not need it.
  std::array<std::optional<propagation>, count> runs;
  /// The shapes the requested run was given and the example batch: an edit's check_batch updates these
  /// runs in place only when it gives the same.
  std::vector<input_shape> requested;
  std::optional<std::int64_t> example_batch;
  /// The inputs' shapes taken as declared, where they are not the graph's own (empty: its own). A fixed
  /// model read back declares its new sizes as dim_params; its proof compares it with the original's sizes.
  std::vector<input_shape> declared_inputs;
  [[nodiscard]] const propagation& declared() const { return *runs[0]; }
};

/// What check_batch_in_place replaced in a batch_runs, to put it back.
struct batch_undo {
  std::array<undo_log, batch_runs::count> logs;  ///< for a run updated in place
  std::array<bool, batch_runs::count> in_place{};
  std::array<bool, batch_runs::count> replaced{};  ///< a run made afresh: `before` holds the old one
  std::array<std::optional<propagation>, batch_runs::count> before;
  bool analysed = false;  ///< check_batch_in_place ran: `requested` and `example_batch` are the old ones
  std::vector<input_shape> requested;
  std::optional<std::int64_t> example_batch;
};

/// check_batch(g, request), keeping its propagations in `runs`; `runs.runs[0]`, when set on entry, is
/// taken as g's propagation at its declared shapes.
batch_report check_batch_keeping(const graph& g, const reshape_request& request, batch_runs& runs);

/// The declared-shape run of `runs` (the runs of a graph `g` is an edit of) made g's in place: only the
/// layers `redo` marks (those that changed, and those that read one) run their rules.
void declared_in_place(const graph& g, batch_runs& runs, std::span<const char> redo, batch_undo& undo);

/// check_batch(g, request) that makes `runs` (the same request's runs on a graph `g` is an edit of) g's in
/// place, as declared_in_place does; the declared-shape run is taken as already g's when `undo` says so.
batch_report check_batch_in_place(const graph& g, const reshape_request& request, batch_runs& runs,
                                  std::span<const char> redo, batch_undo& undo);

/// Puts back what declared_in_place and check_batch_in_place replaced: `runs` are `before`'s again.
void undo_runs(const graph& before, batch_runs& runs, batch_undo&& undo);

/// Per layer of `after`, an edit of `before` (its layers at the same indices, clones after them, and the
/// same bytes at the weights' offsets both name): whether its rule runs again when `before`'s propagations
/// are made after's in place: redo_always when it is new or edited, redo_if_inputs_changed when it reads
/// such a layer, directly or through others.
std::vector<char> layers_to_redo(const graph& before, const graph& after);

/// For each layer (by index): whether it reads, directly or through others, a layer `marked` marks. fix
/// makes a Reshape after another one the checks name wait: what it is found to do may be that one's doing.
std::vector<char> downstream_of(const graph& g, const std::vector<char>& marked);

}  // namespace reshape1::model::detail
