// Internal to the ONNX lowering: the rows of each op family (src/onnx/lower/<family>.cpp), which table.cpp
// assembles into the one table, and the helpers more than one family uses. A new ONNX op is a translation
// and a row in its family's file, and a case in tests/onnx/lower/<family>_test.cpp.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "../lowering.hpp"

namespace reshape1::onnx::detail {

/// The broadcast of ONNX's elementwise ops (numpy's), as the IR's arithmetic layers spell it.
inline const node_context::attributes numpy{{"auto_broadcast", "numpy"}};
/// NumPy's broadcast of the second input to the first, which it must not grow: where ONNX (and ONNX Runtime)
/// broadcast one way (Gemm's C, a convolution's bias, a quantisation parameter, LayerNormalization's scale and
/// bias). See elementwise.cpp's binary_shape.
inline const node_context::attributes one_way{{"auto_broadcast", "numpy"}, {"onnx_one_way", "true"}};

/// Whether t is one of ONNX's arithmetic float types (float16, float, double, bfloat16): those its float-only
/// ops constrain their inputs and outputs to (Mod with fmod 0 refuses them; the random generators make them).
/// The 8-bit and smaller floats are storage types, none of them.
[[nodiscard]] inline bool is_arithmetic_float(element_type t) {
  return t == element_type::f16 || t == element_type::f32 || t == element_type::f64 || t == element_type::bf16;
}

/// y with its values dropped: an Erf, which keeps y's shape and element type and whose values no rule computes.
/// For a translation whose layers give the op's shape but other values (CumProd as a CumSum, BitCast as a
/// Convert, Det as a ReduceProd), so that a size computed from the node's output is unknown, not wrong.
inline source values_dropped(node_context& c, source y) { return c.add("Erf", 1, {y}); }

/// Registry op names that translations of several families give as template arguments (`binary<Add>`,
/// `global_pool<ReduceMean>`): declared once, as the unity build joins those files into one.
inline constexpr char Add[] = "Add", Multiply[] = "Multiply", Sigmoid[] = "Sigmoid", ReduceMean[] = "ReduceMean",
                      ReduceMax[] = "ReduceMax";

/// The shape of a rank-0 constant.
inline const std::vector<std::int64_t> scalar{};

/// A float attribute as the IR's text writes it.
[[nodiscard]] inline std::string real(float v) { return fmt::format("{}", v); }

/// A scalar Const of x's element type: an f32 value converted like x (ConvertLike), so that the arithmetic
/// around it keeps x's type as ONNX's does.
inline source like(node_context& c, float v, source x) { return c.add("ConvertLike", 1, {c.f32({v}, true), x}); }

/// x converted to f32: the integer and quantised products are computed as real ones (the same shapes, the
/// same elements meeting).
inline source as_f32(node_context& c, source x) { return c.add("Convert", 1, {x}, {{"destination_type", "f32"}}); }

/// y converted to the type of node input `port` when a Const gives it, else to u8: a quantised output takes
/// its zero point's type.
inline source quantised_like(node_context& c, source y, std::size_t port) {
  const auto type = c.constant_type(port);
  return c.add("Convert", 1, {y}, {{"destination_type", type ? std::string(name(*type)) : "u8"}});
}

/// A tensor of random values (none known to a rule) of `shape` (1-D i64), of ONNX data type `dtype`, or without
/// one of the type of `like` (f32 without either): see random.cpp.
source random_of_shape(node_context& c, source shape, std::optional<std::int64_t> dtype, std::optional<source> like);
/// The pattern that flattens x to 2-D at `axis` (Flatten): see shape.cpp.
source flattening_pattern(node_context& c, source x, std::int64_t axis);
/// Dimensions [from, to) of `shape` (a ShapeOf's output; to 0: up to the end), 1-D i64.
inline source shape_slice(node_context& c, source shape, std::int64_t from, std::int64_t to) {
  const auto end = to == 0 ? std::numeric_limits<std::int64_t>::max() : to;
  return c.add("Slice", 8, {shape, c.i64({from}), c.i64({end}), c.i64({1})});
}

/// x along `axis` in one piece of `length` (a 1-element i64): its rule refuses a length other than the axis'.
/// How a translation checks a dimension the graph computes against what ONNX Runtime requires of it.
inline source exactly(node_context& c, source x, std::int64_t axis, source length) {
  return c.add("VariadicSplit", 1, {x, c.i64({axis}, scalar), length});
}

/// A check that the dimension sizes `dims` (1-D i64) are none of them 0: zeros as many as their product split
/// in [1, the rest], which the split's rule refuses when the product is 0 (and the Broadcast when it is
/// negative). Nothing reads its output. For the ops ONNX Runtime's kernels refuse an empty axis in (a global
/// pool: "Only N can be zero"; MaxUnpool's output: "Computed output dimension is not positive").
inline void expect_no_zero(node_context& c, source dims) {
  const auto count = c.add("ReduceProd", 1, {dims, c.i64({0})}, {{"keep_dims", "true"}});
  const auto zeros = c.add("Broadcast", 3, {c.i64({0}, scalar), count}, {{"mode", "numpy"}});
  static_cast<void>(c.add("VariadicSplit", 1, {zeros, c.i64({0}, scalar), c.i64({1, -1})}, {}, 2));
}
/// An optional input the node lists but leaves out (named ""), where ONNX Runtime fails on that: its kernel (or
/// its type inference) reads the input whenever the node lists it (Squeeze's axes, MaxUnpool's output_shape, a
/// QLinearAdd's zero points). Refused, naming it; leaving it off the end of the list is the way out.
inline void refuse_listed_but_left_out(node_context& c, std::size_t port, std::string_view name) {
  if (c.inputs() > port && !c.input(port))
    c.bad(fmt::format("its input {} ({}) is listed but left out (named \"\")", port, name),
          "ONNX Runtime fails on it: leave the input off the node's list, or give it");
}

/// A check that node input `port`, where given, holds one value (a scalar or one element of any rank), as
/// ONNX Runtime's quantised kernels read a scale or zero point ("must be a scalar or 1D tensor of size 1"):
/// zeros as many as its elements, split exactly as [1], which the split's rule refuses for any other count.
/// Nothing reads its output. (Not a Reshape: check reports every Reshape layer.)
inline void expect_one_value(node_context& c, std::size_t port) {
  const auto x = c.input(port);
  if (!x) return;
  if (const auto dims = c.constant_dims(port)) {  // a Const (as a scale is): its count is known now
    std::int64_t n = 1;  // (the reader refuses a Const whose dims' product passes 2^63, a 0 among them or not)
    for (const auto d : *dims) n *= d;
    if (n != 1)
      c.bad(fmt::format("its input {} holds {} values", port, n), "a scale or zero point is one value, as ONNX Runtime reads it");
    return;
  }
  const auto count = c.add("ReduceProd", 1, {c.shape_of(*x), c.i64({0})}, {{"keep_dims", "true"}});
  const auto zeros = c.add("Broadcast", 3, {c.i64({0}, scalar), count}, {{"mode", "numpy"}});
  static_cast<void>(c.add("VariadicSplit", 1, {zeros, c.i64({0}, scalar), c.i64({1})}));
}

/// A check that a 1-element i64 `length` is at least `least`: zeros as many as length - least, which the Broadcast's
/// rule refuses when negative. Nothing reads its output.
inline void expect_at_least(node_context& c, source length, std::int64_t least) {
  const auto over = c.add("Subtract", 1, {length, c.i64({least})}, numpy);
  static_cast<void>(c.add("Broadcast", 3, {c.i64({0}, scalar), over}, {{"mode", "numpy"}}));
}
/// A check that a 1-element i64 `length` is at most `most` (as expect_at_least).
inline void expect_at_most(node_context& c, source length, std::int64_t most) {
  const auto under = c.add("Subtract", 1, {c.i64({most}), length}, numpy);
  static_cast<void>(c.add("Broadcast", 3, {c.i64({0}, scalar), under}, {{"mode", "numpy"}}));
}
/// x converted to element type `to`.
inline source converted(node_context& c, source x, element_type to) {
  return c.add("Convert", 1, {x}, {{"destination_type", std::string(name(to))}});
}

/// The element type a graph's input or output declares, where it declares one of a tensor.
inline std::optional<element_type> declared_element(const ::onnx::ValueInfoProto& v) {
  return v.type().has_tensor_type() ? element_of(v.type().tensor_type().elem_type()) : std::nullopt;
}
/// expect_no_zero of dimensions [from, to) of x (to 0: up to the end).
inline void expect_elements(node_context& c, source x, std::int64_t from, std::int64_t to = 0) {
  expect_no_zero(c, shape_slice(c, c.shape_of(x), from, to));
}

std::span<const onnx_entry> elementwise_rows();
std::span<const onnx_entry> convolution_rows();
std::span<const onnx_entry> normalization_rows();
std::span<const onnx_entry> matmul_rows();
std::span<const onnx_entry> shape_rows();
std::span<const onnx_entry> indexing_rows();
std::span<const onnx_entry> reduction_rows();
std::span<const onnx_entry> resize_rows();
std::span<const onnx_entry> recurrent_rows();
std::span<const onnx_entry> detection_rows();
std::span<const onnx_entry> quantization_rows();
std::span<const onnx_entry> control_flow_rows();
std::span<const onnx_entry> microsoft_rows();
std::span<const onnx_entry> attention_rows();
std::span<const onnx_entry> signal_rows();
std::span<const onnx_entry> random_rows();
std::span<const onnx_entry> text_rows();
std::span<const onnx_entry> sequence_rows();
std::span<const onnx_entry> ml_rows();

/// The families' rows as one table, sorted by op_type then since_version. Two rows of the same
/// (op_type, since_version) are a fault of reshape1's own, not of a model: the process stops, naming the
/// row, rather than let one translation silently shadow the other.
[[nodiscard]] std::vector<onnx_entry> assemble(std::initializer_list<std::span<const onnx_entry>> families);

}  // namespace reshape1::onnx::detail
