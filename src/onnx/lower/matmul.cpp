// ONNX's matrix products: MatMul as it is, Gemm as a MatMul whose transposes are attributes and whose
// alpha, beta and bias are a Multiply and an Add (as OpenVINO's frontend decomposes it), Einsum as it is;
// and the ops on square matrices (Det, com.microsoft's Inverse).
#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

void matmul(node_context& c) {
  c.output(0, c.add("MatMul", 1, {c.need(0), c.need(1)}, {{"transpose_a", "false"}, {"transpose_b", "false"}}));
}
void gemm(node_context& c) {
  // ONNX's shape inference refuses A or B of another rank than 2 (ONNX Runtime, when it loads the model);
  // a declared or Const rank is what reshape1 knows here.
  for (const std::size_t port : {std::size_t{0}, std::size_t{1}})
    if (const auto r = c.rank(port); r && *r != 2)
      c.bad(fmt::format("its input {} ({}) has rank {}", port, port == 0 ? "A" : "B", *r), "Gemm multiplies matrices: A and B of rank 2");
  auto y = c.add("MatMul", 1, {c.need(0), c.need(1)},
                 {{"transpose_a", c.i("transA", 0) != 0 ? "true" : "false"},
                  {"transpose_b", c.i("transB", 0) != 0 ? "true" : "false"}});
  if (const float alpha = c.f("alpha", 1.0F); alpha != 1.0F) y = c.add("Multiply", 1, {y, c.f32({alpha}, true)});
  if (const auto bias = c.input(2)) {
    auto b = *bias;
    if (const float beta = c.f("beta", 1.0F); beta != 1.0F) b = c.add("Multiply", 1, {b, c.f32({beta}, true)});
    // C broadcasts to [M, N] one way (ONNX Runtime refuses a C that would grow the product).
    y = c.add("Add", 1, {y, b}, one_way);
  }
  c.output(0, y);
}
void einsum(node_context& c) {
  std::vector<source> in;
  for (std::size_t k = 0; k < c.inputs(); ++k) in.push_back(c.need(k));
  c.output(0, c.add("Einsum", 7, std::move(in), {{"equation", c.s("equation", "")}}));
}

/// x [..., M, M] with itself transposed in the last two axes: the square matrices Det and Inverse take
/// (the Add refuses M != N), each element of a matrix meeting the others.
source square_matrices(node_context& c) {
  const auto x = c.need(0);
  const auto r = c.rank(0);
  if (!r) return x;
  if (*r < 2) c.bad(fmt::format("its input has rank {}", *r), "it takes matrices: rank 2 at least");
  std::vector<std::int64_t> order(*r);
  for (std::size_t k = 0; k < *r; ++k) order[k] = static_cast<std::int64_t>(k);
  std::swap(order[*r - 2], order[*r - 1]);
  return c.add("Add", 1, {x, c.add("Transpose", 1, {x, c.i64(order)})}, {{"auto_broadcast", "none"}});
}
// Det: one value per matrix, [...] from [..., M, M]: a product over the last two axes stands for it.
void det(node_context& c) {
  if (!c.rank(0)) return c.not_covered("Det of an input of unknown rank is not covered");
  c.output(0, values_dropped(c, c.add("ReduceProd", 1, {square_matrices(c), c.i64({-2, -1})}, {{"keep_dims", "false"}})));
}
// Inverse (com.microsoft): each matrix's inverse, of the same shape: the matrix times itself stands for it.
void inverse(node_context& c) {
  if (!c.rank(0)) return c.not_covered("Inverse of an input of unknown rank is not covered");
  const auto x = square_matrices(c);
  c.output(0, values_dropped(c, c.add("MatMul", 1, {x, x}, {{"transpose_a", "false"}, {"transpose_b", "false"}})));
}
}  // namespace

std::span<const onnx_entry> matmul_rows() {
  static const std::vector<onnx_entry> rows = {
      {"MatMul", 1, matmul}, {"Gemm", 7, gemm}, {"Einsum", 12, einsum}, {"Det", 11, det},
      {"Inverse", 1, inverse, "com.microsoft"}, 
      // FusedGemm (com.microsoft): Gemm followed by an activation, which keeps the shape.
      {"FusedGemm", 1, gemm, "com.microsoft"},
      {"MatMulInteger16", 1, matmul, "com.microsoft"},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
