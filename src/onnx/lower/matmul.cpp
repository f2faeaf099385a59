// ONNX's matrix products: MatMul as it is, Gemm as a MatMul whose transposes are attributes and whose
// alpha, beta and bias are a Multiply and an Add (as OpenVINO's frontend decomposes it), Einsum as it is.
#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

void matmul(node_context& c) {
  c.output(0, c.add("MatMul", 1, {c.need(0), c.need(1)}, {{"transpose_a", "false"}, {"transpose_b", "false"}}));
}
void gemm(node_context& c) {
  auto y = c.add("MatMul", 1, {c.need(0), c.need(1)},
                 {{"transpose_a", c.i("transA", 0) != 0 ? "true" : "false"},
                  {"transpose_b", c.i("transB", 0) != 0 ? "true" : "false"}});
  if (const float alpha = c.f("alpha", 1.0F); alpha != 1.0F) y = c.add("Multiply", 1, {y, c.f32({alpha}, true)});
  if (const auto bias = c.input(2)) {
    auto b = *bias;
    if (const float beta = c.f("beta", 1.0F); beta != 1.0F) b = c.add("Multiply", 1, {b, c.f32({beta}, true)});
    y = c.add("Add", 1, {y, b}, {{"auto_broadcast", "numpy"}});
  }
  c.output(0, y);
}
void einsum(node_context& c) {
  std::vector<source> in;
  for (std::size_t k = 0; k < c.inputs(); ++k) in.push_back(c.need(k));
  c.output(0, c.add("Einsum", 7, std::move(in), {{"equation", c.s("equation", "")}}));
}

}  // namespace

std::span<const onnx_entry> matmul_rows() {
  static const std::vector<onnx_entry> rows = {
      {"MatMul", 1, matmul}, {"Gemm", 7, gemm}, {"Einsum", 12, einsum},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
