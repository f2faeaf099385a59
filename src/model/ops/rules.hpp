// Internal: what a shape rule sees, the helpers the rules share, and the rule tables of each op family.
// A rule is a plain function from a layer's input tensors (shapes, and values when known) to its output
// tensors; it refuses impossible inputs with error(invalid_shape) through refuse().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reshape1/model/graph.hpp"
#include "reshape1/model/propagate.hpp"
#include "reshape1/reshape.hpp"
#include "model/ops/batching.hpp"

namespace reshape1::model::detail {

/// The largest tensor whose element values propagation carries.
inline constexpr std::int64_t max_value_elements = 4096;
/// The largest Const whose values are read from the .bin: shape paths hold shapes, patterns, indices and
/// scales; weights are larger and would only cost time.
inline constexpr std::int64_t max_const_values = 64;
/// The largest Const the analyses at new sizes read as a count or a grid (const_with_values): a detector's
/// folded grids at 640x640 hold tens of thousands of values (yolov5's [1,3,80,80,2], YOLOv8's anchors).
/// Only what a file keeps the bytes of: an IR's .bin, an ONNX tensor small enough to be copied.
inline constexpr std::int64_t max_grid_elements = std::int64_t{1} << 18;

/// Copies `bytes` (a Const's, from g.const_bytes) into `to` (room for them all). A .bin over 1 MiB is
/// mapped: the read is guarded, so that a file that shrank since it was read is error(io) naming it, not a
/// crash.
void copy_const_bytes(const graph& g, std::span<const std::byte> bytes, std::span<std::byte> to);

/// The values of Const `l` of `g` (of type `type`, `count` elements: every integer type, boolean, f32, f16
/// and f64), read from its bytes; nullopt for another type, or bytes fewer than the values take. The
/// propagation reads those of up to max_const_values; the analyses at new sizes, those of a constant that
/// may count along a size, up to max_grid_elements.
std::optional<tensor_value> const_values(const graph& g, const layer& l, element_type type, std::int64_t count);

struct op {
  const graph& g;
  const layer& l;
  std::span<const tensor* const> in;  ///< one per input port; never null (a missing input is unknown)
  std::span<tensor> out;              ///< one per output of the layer, all unknown on entry
  const partial_shape* given = nullptr;  ///< for a Parameter: the shape it is given in place of its own
  /// For a TensorIterator or Loop: where its rule leaves the propagation of its body (else null).
  std::shared_ptr<const propagation>* body = nullptr;
  /// Per layer of g, whether a Parameter is among its ancestors (as far as propagation got), when known.
  const std::vector<bool>* follows = nullptr;

  [[nodiscard]] const partial_shape& shape(std::size_t i) const { return in[i]->shape; }
  [[nodiscard]] const std::optional<tensor_value>& value(std::size_t i) const { return in[i]->value; }
  /// The Const layer that feeds input i, if any.
  [[nodiscard]] const layer* constant_source(std::size_t i) const;
  /// Refuses fewer than n inputs or outputs than the op has.
  void need(std::size_t inputs, std::size_t outputs) const;
  /// The element type declared on output i (its precision), if any.
  [[nodiscard]] std::optional<element_type> declared_type(std::size_t i) const;
};

using rule = void (*)(op&);

/// The input ports whose values (not only shapes) a shape rule reads to decide its output shapes: bit k for
/// input k. Values an op only computes with (Add on a shape path, Concat, ShapeOf) or only checks (MVN-6's
/// axes, which cannot change its shape) are not among them. The rule tests check each row both ways
/// (tests/model/rule_util.hpp): each output's shape stays the same without the other inputs' values, and
/// each declared input is shown by some test to change one.
using value_ports = std::uint32_t;
/// The value_ports of the given input ports: reads_values(1) for Reshape's pattern.
template <class... Port>
[[nodiscard]] constexpr value_ports reads_values(Port... ports) noexcept {
  return (value_ports{0} | ... | (value_ports{1} << ports));
}
inline constexpr value_ports no_values = 0;
/// TensorIterator and Loop: every input but a sliced one takes its values into the body, where any layer
/// may read them for a shape, so no input can be ruled out by the row alone.
inline constexpr value_ports reads_all_values = ~value_ports{0};
/// Whether input `port` is among `ports` (every port is, past the mask's width, for reads_all_values).
[[nodiscard]] constexpr bool reads_value(value_ports ports, std::size_t port) noexcept {
  return port < 32 ? ((ports >> port) & 1u) != 0 : ports == reads_all_values;
}

/// What the code outside the rules needs to know of an op besides its shape: its part in the graph (a
/// model input, a constant, a model output), that it is the op reshape1 is about, or how its output's
/// elements come from its inputs' (what fix follows back to the constant that holds a pattern element).
/// The analyses, the readers and fix ask this instead of comparing type names.
enum class op_part : std::uint8_t {
  other,
  parameter,     ///< Parameter: a model input (or a body's)
  constant,      ///< Const: values held in the weights
  result,        ///< Result: a model output (or a body's)
  reshape,       ///< Reshape: its pattern is input 1, special_zero an attribute
  concat,        ///< Concat: its inputs' elements one after the other along `axis`
  passes_values, ///< Convert, Squeeze, Unsqueeze: output 0 holds input 0's elements in their order
  runs_body,     ///< TensorIterator, Loop: runs a body graph of its own
  if_merge,      ///< IfMerge (ONNX If, lowered): output 0 is input 1 or input 2, as input 0 says
};
/// One row of the op registry, one per (type, opset): every fact about the op version. Its family's table
/// gives the first five (the op, its shape rule, its batching rule, the inputs whose values the shape rule
/// reads); the facts that hold for every version of a type come from the one table of types (registry.cpp)
/// when rule_table() is built, which refuses a (type, opset) given twice and a type with no row.
struct rule_entry {
  std::string_view type;
  int opset;
  rule fn;
  batching batch;
  value_ports values;
  /// The version of OpenVINO's operation specification the row implements (the IR writes the opset the
  /// version came in: MVN-1 is written opset2); 0 for an op OpenVINO does not specify (IfMerge).
  int spec = 0;
  op_part part = op_part::other;  ///< its part in the graph
  /// The inputs it reads as sizes, bounds, counts or indices: where a fixed-shape export may have written a
  /// size (ops/sizes.hpp).
  std::span<const std::size_t> sizes{};
  /// Elementwise arithmetic (Multiply, Divide, Add, Subtract, Minimum, Maximum, FloorMod, Mod): a constant
  /// operand is one factor, divisor or bound against the other operand's sizes.
  bool arithmetic = false;
};

/// error(invalid_shape): `layer 'name' (id 3): what`, with `hint` apart (a name or an attribute's text
/// quoted in `what` may hold the "; " that joins them in error::what()).
[[noreturn]] void refuse(const op& o, const std::string& what, const std::string& hint = {});
/// The index of the port with this id among `ports` (a layer's inputs or outputs), if any.
std::optional<std::size_t> port_index(std::span<const port> ports, std::int64_t id) noexcept;

/// XML's white space (space, tab, line feed, carriage return): what the reader skips around attribute
/// values and list items, and what a layout given on the command line may carry around its letters.
[[nodiscard]] inline bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
/// `s` without white space at either end.
[[nodiscard]] inline std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// ---- shapes ----------------------------------------------------------------------------------
/// The axis in [0, rank) for an axis in [-rank, rank); refuses others.
std::size_t normalize_axis(const op& o, std::int64_t axis, std::size_t rank, std::string_view what = "axis");
/// Two dimensions that must be equal: their intersection (refused when empty).
dimension merge(const op& o, const dimension& a, const dimension& b, std::string_view what);
/// NumPy broadcasting of two shapes.
partial_shape broadcast(const op& o, const partial_shape& a, const partial_shape& b);
/// A dimension from bounds that may be unknown or negative (clamped to 0..).
dimension dimension_from(const element_bound& e);
/// The bounds of a dimension as a value element.
element_bound bound_of(const dimension& d);
/// lo..hi, hi saturating to unbounded; refused when lo is negative.
dimension span_dimension(std::int64_t lo, std::int64_t hi);
/// Applies a monotonic non-decreasing function to both ends of a dimension (unbounded stays so).
template <class F>
dimension map_dimension(const dimension& d, F f) {
  const auto lo = f(d.lo());
  const auto hi = d.range().is_bounded() ? f(d.hi()) : interval::unbounded;
  return span_dimension(lo < 0 ? 0 : lo, hi < lo ? lo : hi);
}
/// The shape without the propagation's symbols (for reports and comparisons).
partial_shape without_symbols(const partial_shape& s);
/// Whether a name reads back as a symbol's in shape text (`?@H`): letters, digits and _, not starting with a
/// digit. Those reshape1 makes for the dimensions it leaves unknown never do: they hold a '.' (a
/// Parameter's `x.2`) or start with \x01 (a sample run's).
[[nodiscard]] bool reads_as_symbol(std::string_view name) noexcept;
/// The shape with only the symbols a model or a request names (an ONNX dim_param, `?@H`), for reports: those
/// reshape1 makes for itself (a Parameter's `x.2`, a sample run's) are dropped.
partial_shape with_given_symbols(const partial_shape& s);
/// The number of elements, or nullopt when not static or above max_value_elements.
std::optional<std::int64_t> small_count(const partial_shape& s);

// ---- values ----------------------------------------------------------------------------------
/// All elements exact: their values.
std::optional<std::vector<std::int64_t>> exact_values(const std::optional<tensor_value>& v);
/// A 1-D (or scalar) shape-like input as a shape (each element a dimension), when its length is known.
std::optional<partial_shape> shape_from_value(const op& o, std::size_t input);
/// The exact integers of a Const or known input i; nullopt when unknown.
std::optional<std::vector<std::int64_t>> known_integers(const op& o, std::size_t input);
/// Refuses known indices (input `input`) that lie outside [-n, n) for every size n the dimension `axis_dim`
/// (the data's axis `axis`) may have. Engines refuse such an index when the model runs
/// (ONNX Runtime's Gather and GatherElements; OpenVINO's GatherElements, whose spec allows no other).
void refuse_indices_past(const op& o, std::size_t input, const dimension& axis_dim, std::size_t axis);
/// The same for index tuples (GatherND, ScatterND): the innermost dimension of input `input` holds `k`
/// indices, the j-th into the data's axis `first + j` (`data` the data's shape, of rank first + k or more).
void refuse_index_tuples_past(const op& o, std::size_t input, const partial_shape& data, std::size_t first,
                              std::size_t k);
/// Refuses an index input (indices, starts, repeats: the spec's T_IND) whose element type is known and not
/// an integer type, or, with `one_d`, whose rank is known and not 1. `what` names it in the message.
void require_index_input(const op& o, std::size_t input, std::string_view what, bool one_d);
/// A value for every element of a shape's row-major positions from an index mapping (for data movement).
std::optional<tensor_value> gather_value(const tensor_value& v, const std::vector<std::size_t>& positions);
/// For each row-major position of `out`, the position in `in` that NumPy broadcasting reads.
std::vector<std::size_t> broadcast_positions(const shape& in, const shape& out);
/// Row-major strides of a static shape.
std::vector<std::size_t> strides_of(const shape& s);

/// Reshape's pattern (input 1): a Const's exact bytes, or the propagated values or bounds; `constant`
/// (when given) receives, per element, whether only constants went into it.
reshape_pattern reshape_pattern_of(const op& o, std::vector<bool>* constant);
/// The same for a Reshape layer of `g` at what propagation `p` computed (a missing input is unknown).
reshape_pattern reshape_pattern_at(const graph& g, const propagation& p, const layer& l, std::vector<bool>* constant);
/// A pattern without the propagation's symbols on its bounds (for reports); an unknown one as it is.
reshape_pattern without_symbols(const reshape_pattern& pattern);

// ---- the families' tables ---------------------------------------------------------------------
std::span<const rule_entry> elementwise_rules();
std::span<const rule_entry> convolution_rules();
std::span<const rule_entry> pooling_rules();
std::span<const rule_entry> matmul_rules();
std::span<const rule_entry> shape_rules();
std::span<const rule_entry> data_movement_rules();
std::span<const rule_entry> resize_rules();
std::span<const rule_entry> reduction_rules();
std::span<const rule_entry> detection_rules();
std::span<const rule_entry> recurrent_rules();
std::span<const rule_entry> normalization_rules();
std::span<const rule_entry> indexing_rules();
std::span<const rule_entry> einsum_rules();
std::span<const rule_entry> subgraph_rules();

/// Every row, sorted by (type, opset), with the facts of its type.
std::span<const rule_entry> rule_table() noexcept;
/// What is wrong with the tables rule_table() is built from, one line each ("" when nothing): a (type,
/// opset) given twice, a type with facts but no row. The registry test asserts there is nothing.
[[nodiscard]] std::string rule_table_problems();

/// A Parameter's declared shape as OpenVINO builds the Parameter: from its `shape` attribute ("1,3,?,224",
/// intervals "1..8", "..." for a dynamic rank) when it has one that reads, else from its output port's dims
/// (which cannot write an interval). Where the two disagree, `check` reports the port as a shape_mismatch.
[[nodiscard]] partial_shape parameter_shape(const layer& l);

[[nodiscard]] op_part part_of(std::string_view type) noexcept;
[[nodiscard]] inline op_part part_of(const layer& l) noexcept { return part_of(l.type); }

/// The op's name in OpenVINO's specification (`MVN-1` for the IR's MVN opset2, `Constant-1` for Const),
/// "" for a registry op OpenVINO does not specify (IfMerge, reshape1's own for ONNX's If).
[[nodiscard]] std::string spec_name(std::string_view type, int opset);

/// The registry row for (type, opset), or nullptr.
const rule_entry* find_entry(std::string_view type, int opset) noexcept;
/// The registry's first row of `type` (its facts that hold for every version), or nullptr.
const rule_entry* first_entry(std::string_view type) noexcept;
/// The shape rule for (type, opset), or nullptr.
rule find_rule(std::string_view type, int opset) noexcept;

}  // namespace reshape1::model::detail
