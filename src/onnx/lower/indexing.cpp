// ONNX's nodes that pick or place elements by index (Gather, Scatter, NonZero) and Trilu, which keeps the
// elements whose row and column indices lie in a triangle.
#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

void gather(node_context& c) {
  c.output(0, c.add("Gather", 8, {c.need(0), c.need(1), c.i64({c.i("axis", 0)}, std::vector<std::int64_t>{})},
                    {{"batch_dims", "0"}}));
}
void gather_elements(node_context& c) {
  c.output(0, c.add("GatherElements", 6, {c.need(0), c.need(1)}, {{"axis", fmt::format("{}", c.i("axis", 0))}}));
}
void gather_nd(node_context& c) {
  c.output(0, c.add("GatherND", 8, {c.need(0), c.need(1)}, {{"batch_dims", fmt::format("{}", c.i("batch_dims", 0))}}));
}
void non_zero(node_context& c) { c.output(0, c.add("NonZero", 3, {c.need(0)}, {{"output_type", "i64"}})); }
void scatter_elements(node_context& c) {
  const auto reduction = c.s("reduction", "none");
  c.output(0, c.add("ScatterElementsUpdate", 12, {c.need(0), c.need(1), c.need(2), c.i64({c.i("axis", 0)}, std::vector<std::int64_t>{})},
                    {{"reduction", reduction == "add" ? "sum" : reduction == "mul" ? "prod" : reduction}, {"use_init_val", "true"}}));
}
void scatter_nd(node_context& c) {
  if (c.s("reduction", "none") != "none") return c.not_covered("ScatterND with a reduction is not covered");
  c.output(0, c.add("ScatterNDUpdate", 4, {c.need(0), c.need(1), c.need(2)}));
}
// Trilu: one triangle of each matrix in the last two axes kept, the rest zero. The mask compares column
// minus row with k, so an axis the batch is folded into keeps a meaning per position, as the batch rules
// then see.
void trilu(node_context& c) {
  const auto x = c.need(0);
  const auto shape = c.shape_of(x);
  const auto scalar = std::vector<std::int64_t>{};
  const auto dim = [&](std::int64_t axis) {
    return c.add("Gather", 8, {shape, c.i64({axis}, scalar), c.i64({0}, scalar)}, {{"batch_dims", "0"}});
  };
  const auto rows = c.add("Unsqueeze", 1, {c.add("Range", 4, {c.i64({0}, scalar), dim(-2), c.i64({1}, scalar)},
                                                 {{"output_type", "i64"}}),
                                           c.i64({1})});
  const auto cols = c.add("Range", 4, {c.i64({0}, scalar), dim(-1), c.i64({1}, scalar)}, {{"output_type", "i64"}});
  const auto diff = c.add("Subtract", 1, {cols, rows}, {{"auto_broadcast", "numpy"}});
  const auto k = c.input(1) ? *c.input(1) : c.i64({0}, scalar);
  const auto mask = c.add(c.i("upper", 1) != 0 ? "GreaterEqual" : "LessEqual", 1, {diff, k}, {{"auto_broadcast", "numpy"}});
  const auto zero = c.add("Subtract", 1, {x, x}, {{"auto_broadcast", "numpy"}});  // zeros of x's type
  c.output(0, c.add("Select", 1, {mask, x, zero}, {{"auto_broadcast", "numpy"}}));
}

}  // namespace

std::span<const onnx_entry> indexing_rows() {
  static const std::vector<onnx_entry> rows = {
      {"Gather", 1, gather}, {"GatherElements", 11, gather_elements}, {"GatherND", 11, gather_nd},
      {"NonZero", 9, non_zero}, {"ScatterElements", 11, scatter_elements}, {"ScatterND", 11, scatter_nd},
      {"Trilu", 14, trilu},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
