// ONNX's quantisation nodes (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear) and integer products
// (MatMulInteger, QLinearMatMul), as the arithmetic they stand for: reshape1 computes no floating-point
// data, but the layers carry the shapes and element types through, and show which elements meet.
#include <optional>
#include <string>

#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

/// A per-axis quantisation parameter (1-D, along `axis`) shaped to broadcast against the data: [-1] and as
/// many 1s as the data has axes after `axis` (from the data's rank where the file does not give it: a Q→DQ
/// pair of fake quantisation has a computed input); a per-tensor one as it is.
source along_axis(node_context& c, source p, std::size_t port) {
  const auto rank = c.rank(port);
  const auto prank = c.rank(0);
  if (rank && *rank == 0) return p;
  // One element of rank 1 is per tensor, as ONNX Runtime reads it (a scale [1] beside data of rank 0 or 1
  // too, where the default axis names no axis): a scalar, so that it adds no dimension.
  if (const auto dims = c.constant_dims(port); dims && dims->size() == 1 && (*dims)[0] == 1)
    return c.add("Reshape", 1, {p, c.i64({}, std::vector<std::int64_t>{0})}, {{"special_zero", "false"}});
  if (!prank) {
    const auto axis = c.i("axis", 1);
    if (axis < 0) {  // as many 1s as the axis is from the end
      if (axis < -64) c.bad(fmt::format("axis {} is out of range", axis));
      std::vector<std::int64_t> pattern(static_cast<std::size_t>(-axis), 1);
      pattern[0] = -1;
      return c.add("Reshape", 1, {p, c.i64(pattern)}, {{"special_zero", "false"}});
    }
    // rank - 1 - axis 1s, computed (a Broadcast to a negative length fails: an axis past the data's).
    const auto after = c.add("Subtract", 1, {c.rank_of(c.need(0)), c.i64({axis + 1})}, numpy);
    const auto ones = c.add("Broadcast", 3, {c.i64({1}, scalar), after}, {{"mode", "numpy"}});
    const auto pattern = c.add("Concat", 1, {c.i64({-1}), ones}, {{"axis", "0"}});
    return c.add("Reshape", 1, {p, pattern}, {{"special_zero", "false"}});
  }
  auto axis = c.i("axis", 1);
  if (axis < 0) axis += static_cast<std::int64_t>(*prank);
  std::vector<std::int64_t> pattern(*prank, 1);
  if (axis < 0 || axis >= static_cast<std::int64_t>(*prank)) c.bad(fmt::format("axis {} is out of range", c.i("axis", 1)));
  pattern[static_cast<std::size_t>(axis)] = -1;
  return c.add("Reshape", 1, {p, c.i64(pattern)}, {{"special_zero", "false"}});
}
/// Without blocks a scale is a scalar or 1-D (ONNX Runtime refuses another rank when it runs).
void refuse_unblocked_rank(const node_context& c) {
  if (const auto r = c.rank(1); c.i("block_size", 0) == 0 && r && *r > 1)
    c.bad(fmt::format("its scale has rank {}", *r), "a scale is a scalar or 1-D (per axis) without block_size");
}
/// Blocked quantisation (block_size, from opset 21): a scale (and zero point) per block of `block_size` elements
/// along `axis`, of the data's shape but ceil(d / block_size) on the axis, as ONNX Runtime checks it. The
/// parameter at `port` spread over the data: each element of a block gathered along the axis (index k / block
/// size for element k), so that every element of the data meets its own block's scale. nullopt where the
/// data's rank is unknown (not covered).
std::optional<source> per_block(node_context& c, source p, std::size_t port) {
  const auto rank = c.rank(0);
  if (!rank) return std::nullopt;
  const auto block = c.i("block_size", 0);
  if (block < 0) c.bad(fmt::format("block_size is {}", block), "block_size is positive (0: no blocks)");
  const auto r = static_cast<std::int64_t>(*rank);
  auto axis = c.i("axis", 1);
  if (axis < -r || axis >= r) c.bad(fmt::format("axis {} is out of range for data of rank {}", axis, r));
  if (axis < 0) axis += r;
  // A scale of one element is one per tensor to ONNX Runtime, whatever the data: blocks are refused beside it.
  if (const auto dims = c.constant_dims(1); port == 1 && dims && (dims->empty() || *dims == std::vector<std::int64_t>{1}))
    c.bad(fmt::format("block_size is {} beside a scale of one element", block),
          "block_size must be 0 for a scale per tensor (ONNX Runtime refuses it)");
  if (const auto pr = c.rank(port); pr && *pr != *rank)
    c.bad(fmt::format("its {} has rank {} beside data of rank {}", port == 1 ? "scale" : "zero point", *pr, r),
          "a blocked scale has the data's rank (block_size must be 0 for one per tensor or per axis)");
  const auto x = c.need(0);
  const auto xs = c.shape_of(x);
  // Every other axis as the data's; the axis ceil(d / block_size) long.
  for (std::int64_t k = 0; k < r; ++k)
    if (k != axis) p = exactly(c, p, k, shape_slice(c, xs, k, k + 1));
  const auto d = c.add("Squeeze", 1, {shape_slice(c, xs, axis, axis + 1), c.i64({0})});
  const auto size = c.i64({block}, scalar);
  // ceil(d / block_size) as floor((d - 1) / block_size) + 1: no sum that a block_size near 2^63 overflows (and
  // 0 blocks for d = 0).
  const auto floor_div = [&](source a, source b) {
    return c.add("Divide", 1, {a, b}, {{"auto_broadcast", "numpy"}, {"m_pythondiv", "true"}});
  };
  const auto one = c.i64({1}, scalar);
  const auto blocks = c.add("Add", 1, {floor_div(c.add("Subtract", 1, {d, one}, numpy), size), one}, numpy);
  p = exactly(c, p, axis, c.add("Unsqueeze", 1, {blocks, c.i64({0})}));
  const auto element = c.add("Range", 4, {c.i64({0}, scalar), d, c.i64({1}, scalar)}, {{"output_type", "i64"}});
  const auto index = floor_div(element, size);
  return c.add("Gather", 8, {p, index, c.i64({axis}, scalar)}, {{"batch_dims", "0"}});
}
/// A quantisation parameter (input `port`) as it meets the data: per block, along the axis, or per tensor;
/// nullopt where blocks need the data's rank and it is unknown.
std::optional<source> parameter(node_context& c, source p, std::size_t port) {
  if (c.i("block_size", 0) != 0) return per_block(c, p, port);
  return along_axis(c, p, port);
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
  refuse_unblocked_rank(c);
  const auto scale = parameter(c, c.need(1), 1);
  if (!scale) return c.not_covered("blocked QuantizeLinear on data of unknown rank is not covered");
  refuse_mismatched_zero_point(c);
  auto y = c.add("Divide", 1, {c.need(0), *scale}, one_way);
  std::string type = "u8";
  if (const auto zp = c.input(2)) {
    const auto shaped = parameter(c, *zp, 2);
    if (!shaped) return c.not_covered("blocked QuantizeLinear on data of unknown rank is not covered");
    y = c.add("Add", 1, {y, c.add("Convert", 1, {*shaped}, {{"destination_type", "f32"}})}, one_way);
    if (const auto t = c.constant_type(2)) type = std::string(name(*t));
  }
  c.output(0, c.add("Convert", 1, {y}, {{"destination_type", type}}));
}
// DequantizeLinear: (x - zero point) * scale, in f32.
void dequantize(node_context& c) {
  refuse_unblocked_rank(c);
  const auto scale = parameter(c, c.need(1), 1);
  if (!scale) return c.not_covered("blocked DequantizeLinear on data of unknown rank is not covered");
  refuse_mismatched_zero_point(c);
  auto y = c.add("Convert", 1, {c.need(0)}, {{"destination_type", "f32"}});
  if (const auto zp = c.input(2)) {
    const auto shaped = parameter(c, *zp, 2);
    if (!shaped) return c.not_covered("blocked DequantizeLinear on data of unknown rank is not covered");
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
