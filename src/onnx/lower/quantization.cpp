// ONNX's quantisation nodes (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear) and integer products
// (MatMulInteger, QLinearMatMul), as the arithmetic they stand for: reshape1 computes no floating-point
// data, but the layers carry the shapes and element types through, and show which elements meet.
#include <optional>
#include <string>

#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

/// A per-axis quantisation parameter (1-D, along `axis`) shaped to broadcast against the data; a
/// per-tensor one as it is. nullopt when the data's rank is unknown.
std::optional<source> along_axis(node_context& c, source p, std::size_t port) {
  const auto rank = c.rank(port);
  const auto prank = c.rank(0);
  if (rank && *rank == 0) return p;
  // One element of rank 1 is per tensor, as ONNX Runtime reads it (a scale [1] beside data of rank 0 or 1
  // too, where the default axis names no axis): a scalar, so that it adds no dimension.
  if (const auto dims = c.constant_dims(port); dims && dims->size() == 1 && (*dims)[0] == 1)
    return c.add("Reshape", 1, {p, c.i64({}, std::vector<std::int64_t>{0})}, {{"special_zero", "false"}});
  if (!prank) return std::nullopt;
  auto axis = c.i("axis", 1);
  if (axis < 0) axis += static_cast<std::int64_t>(*prank);
  std::vector<std::int64_t> pattern(*prank, 1);
  if (axis < 0 || axis >= static_cast<std::int64_t>(*prank)) c.bad(fmt::format("axis {} is out of range", c.i("axis", 1)));
  pattern[static_cast<std::size_t>(axis)] = -1;
  return c.add("Reshape", 1, {p, c.i64(pattern)}, {{"special_zero", "false"}});
}
/// Blocked quantisation (block_size, from opset 21: a scale per block of `block_size` elements along the
/// axis) is not covered; nullopt when the node is not blocked.
std::optional<std::string> blocked_quantisation(const node_context& c) {
  // Without blocks a scale is a scalar or 1-D (ONNX Runtime refuses another rank when it runs).
  if (const auto r = c.rank(1); c.i("block_size", 0) == 0 && r && *r > 1)
    c.bad(fmt::format("its scale has rank {}", *r), "a scale is a scalar or 1-D (per axis) without block_size");
  if (c.i("block_size", 0) == 0) return std::nullopt;
  return fmt::format("{} with block_size {} (a scale per block along the axis) is not covered",
                     c.node().op_type(), c.i("block_size", 0));
}
/// ONNX Runtime refuses a zero point of another shape than the scale's (one element either way is per
/// tensor: [] and [1] agree), when it runs; checked where Consts give both.
void refuse_mismatched_zero_point(const node_context& c) {
  const auto scale = c.constant_dims(1), zero_point = c.constant_dims(2);
  if (!scale || !zero_point || *scale == *zero_point) return;
  const auto one = [](const std::vector<std::int64_t>& d) { return d.empty() || d == std::vector<std::int64_t>{1}; };
  if (one(*scale) && one(*zero_point)) return;
  c.bad(fmt::format("its zero point is [{}] beside a scale of [{}]", fmt::join(*zero_point, ","), fmt::join(*scale, ",")),
        "the zero point has the scale's shape");
}
// QuantizeLinear: x / scale + zero point, converted to the zero point's type (u8 by default).
void quantize(node_context& c) {
  if (const auto why = blocked_quantisation(c)) return c.not_covered(*why);
  const auto scale = along_axis(c, c.need(1), 1);
  if (!scale) return c.not_covered("per-axis QuantizeLinear on data of unknown rank is not covered");
  refuse_mismatched_zero_point(c);
  auto y = c.add("Divide", 1, {c.need(0), *scale}, one_way);
  std::string type = "u8";
  if (const auto zp = c.input(2)) {
    const auto shaped = along_axis(c, *zp, 2);
    if (!shaped) return c.not_covered("per-axis QuantizeLinear on data of unknown rank is not covered");
    y = c.add("Add", 1, {y, c.add("Convert", 1, {*shaped}, {{"destination_type", "f32"}})}, one_way);
    if (const auto t = c.constant_type(2)) type = std::string(name(*t));
  }
  c.output(0, c.add("Convert", 1, {y}, {{"destination_type", type}}));
}
// DequantizeLinear: (x - zero point) * scale, in f32.
void dequantize(node_context& c) {
  if (const auto why = blocked_quantisation(c)) return c.not_covered(*why);
  const auto scale = along_axis(c, c.need(1), 1);
  if (!scale) return c.not_covered("per-axis DequantizeLinear on data of unknown rank is not covered");
  refuse_mismatched_zero_point(c);
  auto y = c.add("Convert", 1, {c.need(0)}, {{"destination_type", "f32"}});
  if (const auto zp = c.input(2)) {
    const auto shaped = along_axis(c, *zp, 2);
    if (!shaped) return c.not_covered("per-axis DequantizeLinear on data of unknown rank is not covered");
    y = c.add("Subtract", 1, {y, c.add("Convert", 1, {*shaped}, {{"destination_type", "f32"}})}, one_way);
  }
  c.output(0, c.add("Multiply", 1, {y, *scale}, one_way));
}

// MatMulInteger: (A - a_zero_point) x (B - b_zero_point) in i32. ONNX allows a zero point of A per row
// ([M]), but ONNX Runtime takes one per tensor only (a scalar or one element), and refuses the model
// otherwise; one of B is per tensor or per column ([N], as it broadcasts).
void matmul_integer(node_context& c) {
  auto a = as_f32(c, c.need(0));
  auto b = as_f32(c, c.need(1));
  if (const auto zp = c.input(2)) {
    if (const auto r = c.rank(2); r && *r > 1) c.bad(fmt::format("a_zero_point has rank {}", *r), "ONNX Runtime takes a scalar");
    // A scalar from any one-element tensor: a Reshape that refuses any other count.
    const auto zero_point = c.add("Reshape", 1, {as_f32(c, *zp), c.i64({}, std::vector<std::int64_t>{0})}, {{"special_zero", "false"}});
    a = c.add("Subtract", 1, {a, zero_point}, numpy);
  }
  if (const auto zp = c.input(3)) b = c.add("Subtract", 1, {b, as_f32(c, *zp)}, numpy);
  const auto y = c.add("MatMul", 1, {a, b}, {{"transpose_a", "false"}, {"transpose_b", "false"}});
  c.output(0, c.add("Convert", 1, {y}, {{"destination_type", "i32"}}));
}
// QLinearMatMul (a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point): the product of
// the dequantised operands, quantised to the output zero point's type.
void qlinear_matmul(node_context& c) {
  const auto y = c.add("MatMul", 1, {as_f32(c, c.need(0)), as_f32(c, c.need(3))},
                       {{"transpose_a", "false"}, {"transpose_b", "false"}});
  c.output(0, quantised_like(c, y, 7));
}
// DynamicQuantizeLinear: the scale and zero point come from the minimum and maximum of the whole input (so
// every element's result depends on every other's), y is x quantised to u8 with them.
void dynamic_quantize(node_context& c) {
  const auto x = c.need(0);
  const auto all = c.axes_from(x, 0);
  const auto low = c.add("ReduceMin", 1, {x, all}, {{"keep_dims", "false"}});
  const auto high = c.add("ReduceMax", 1, {x, all}, {{"keep_dims", "false"}});
  const auto scale = c.add("Divide", 1, {c.add("Subtract", 1, {high, low}, numpy), c.f32({255.0F}, true)}, numpy);
  c.output(0, c.add("Convert", 1, {c.add("Divide", 1, {x, scale}, numpy)}, {{"destination_type", "u8"}}));
  if (c.has_output(1)) c.output(1, scale);
  if (c.has_output(2))
    c.output(2, c.add("Convert", 1, {c.add("Negative", 1, {c.add("Divide", 1, {low, scale}, numpy)})}, {{"destination_type", "u8"}}));
}

}  // namespace

std::span<const onnx_entry> quantization_rows() {
  static const std::vector<onnx_entry> rows = {
      {"QuantizeLinear", 10, quantize}, {"DequantizeLinear", 10, dequantize},
      {"QuantizeLinear", 1, quantize, "com.microsoft"}, {"DequantizeLinear", 1, dequantize, "com.microsoft"},
      {"MatMulInteger", 10, matmul_integer}, {"QLinearMatMul", 10, qlinear_matmul},
      {"DynamicQuantizeLinear", 11, dynamic_quantize},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
