// ONNX's QuantizeLinear and DequantizeLinear, as the arithmetic they stand for: reshape1 computes no
// floating-point data, but the layers carry the shapes and element types through.
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
  if (const auto v = c.constant_ints(port); v && v->size() == 1) return p;
  if (!prank) return std::nullopt;
  auto axis = c.i("axis", 1);
  if (axis < 0) axis += static_cast<std::int64_t>(*prank);
  std::vector<std::int64_t> pattern(*prank, 1);
  if (axis < 0 || axis >= static_cast<std::int64_t>(*prank)) c.bad(fmt::format("axis {} is out of range", c.i("axis", 1)));
  pattern[static_cast<std::size_t>(axis)] = -1;
  return c.add("Reshape", 1, {p, c.i64(pattern)}, {{"special_zero", "false"}});
}
// QuantizeLinear: x / scale + zero point, converted to the zero point's type (u8 by default).
void quantize(node_context& c) {
  const auto scale = along_axis(c, c.need(1), 1);
  if (!scale) return c.not_covered("per-axis QuantizeLinear on data of unknown rank is not covered");
  auto y = c.add("Divide", 1, {c.need(0), *scale}, {{"auto_broadcast", "numpy"}});
  std::string type = "u8";
  if (const auto zp = c.input(2)) {
    const auto shaped = along_axis(c, *zp, 2);
    if (!shaped) return c.not_covered("per-axis QuantizeLinear on data of unknown rank is not covered");
    y = c.add("Add", 1, {y, c.add("Convert", 1, {*shaped}, {{"destination_type", "f32"}})}, {{"auto_broadcast", "numpy"}});
    if (const auto t = c.constant_type(2)) type = std::string(name(*t));
  }
  c.output(0, c.add("Convert", 1, {y}, {{"destination_type", type}}));
}
// DequantizeLinear: (x - zero point) * scale, in f32.
void dequantize(node_context& c) {
  const auto scale = along_axis(c, c.need(1), 1);
  if (!scale) return c.not_covered("per-axis DequantizeLinear on data of unknown rank is not covered");
  auto y = c.add("Convert", 1, {c.need(0)}, {{"destination_type", "f32"}});
  if (const auto zp = c.input(2)) {
    const auto shaped = along_axis(c, *zp, 2);
    if (!shaped) return c.not_covered("per-axis DequantizeLinear on data of unknown rank is not covered");
    y = c.add("Subtract", 1, {y, c.add("Convert", 1, {*shaped}, {{"destination_type", "f32"}})}, {{"auto_broadcast", "numpy"}});
  }
  c.output(0, c.add("Multiply", 1, {y, *scale}, {{"auto_broadcast", "numpy"}}));
}

}  // namespace

std::span<const onnx_entry> quantization_rows() {
  static const std::vector<onnx_entry> rows = {
      {"QuantizeLinear", 10, quantize}, {"DequantizeLinear", 10, dequantize},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
