// The com.microsoft ops ONNX Runtime's transformer optimiser and quantiser write (ContribOperators.md), as
// the standard computations they fuse: a fused op keeps the shapes and the element meetings of the ops it
// stands for, which is what the rules need. Each reads its inputs at the positions ONNX Runtime gives them.
#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

using attributes = node_context::attributes;
const attributes numpy{{"auto_broadcast", "numpy"}};

/// `t` broadcast to x's shape, one way: ONNX Runtime refuses a bias or a gamma that would widen the input (a
/// last dimension of 1 against a bias of 2), which NumPy's two-way broadcasting would allow.
source to_shape_of(node_context& c, source t, source x) {
  return c.add("Broadcast", 3, {t, c.shape_of(x)}, {{"mode", "numpy"}});
}

// FusedMatMul (and TransposeMatMul, its older name): alpha · op(A) · op(B), the transposes of the last two
// axes as attributes. transBatchA/B move the batch axes too, which is not covered.
void fused_matmul(node_context& c) {
  if (c.i("transBatchA", 0) != 0 || c.i("transBatchB", 0) != 0)
    return c.not_covered("FusedMatMul with transBatchA or transBatchB is not covered");
  auto y = c.add("MatMul", 1, {c.need(0), c.need(1)},
                 {{"transpose_a", c.i("transA", 0) != 0 ? "true" : "false"},
                  {"transpose_b", c.i("transB", 0) != 0 ? "true" : "false"}});
  if (const float alpha = c.f("alpha", 1.0F); alpha != 1.0F) y = c.add("Multiply", 1, {y, like(c, alpha, y)}, numpy);
  c.output(0, y);
}
// Gelu, FastGelu (x + bias, tanh form), BiasGelu (x + bias), QuickGelu (x · sigmoid(alpha · x)).
void gelu(node_context& c) { c.output(0, c.add("Gelu", 7, {c.need(0)}, {{"approximation_mode", "erf"}})); }
template <bool Tanh>
void bias_gelu(node_context& c) {
  auto x = c.need(0);
  if (const auto bias = c.input(1)) x = c.add("Add", 1, {x, to_shape_of(c, *bias, x)}, numpy);
  c.output(0, c.add("Gelu", 7, {x}, {{"approximation_mode", Tanh ? "tanh" : "erf"}}));
}
void quick_gelu(node_context& c) {
  const auto x = c.need(0);
  c.output(0, c.add("Swish", 4, {x, like(c, c.f("alpha", 1.702F), x)}));
}

/// The sum input + skip (+ bias) of the Skip*LayerNormalization ops, which ONNX Runtime also returns as
/// output 3: skip is of the input's shape, or [1, S, H] / [S, H] broadcast to it.
source skip_sum(node_context& c, std::optional<std::size_t> bias_port) {
  const auto x = c.need(0);
  auto sum = c.add("Add", 1, {x, to_shape_of(c, c.need(1), x)}, numpy);
  if (const auto bias = bias_port ? c.input(*bias_port) : std::nullopt) sum = c.add("Add", 1, {sum, to_shape_of(c, *bias, x)}, numpy);
  return sum;
}
/// Normalised over the last axis (mean and variance, or the root mean square), times gamma (plus beta).
source last_axis_norm(node_context& c, source x, bool simplified, source gamma, std::optional<source> beta) {
  const auto eps = real(c.f("epsilon", 1e-5F));
  source y = x;
  if (simplified) {
    const auto mean = c.add("ReduceMean", 1, {c.add("Multiply", 1, {x, x}, numpy), c.i64({-1})}, {{"keep_dims", "true"}});
    y = c.add("Divide", 1, {x, c.add("Sqrt", 1, {c.add("Add", 1, {mean, like(c, c.f("epsilon", 1e-5F), x)}, numpy)})}, numpy);
  } else {
    y = c.add("MVN", 6, {x, c.i64({-1})}, {{"eps", eps}, {"normalize_variance", "true"}, {"eps_mode", "inside_sqrt"}});
  }
  y = c.add("Multiply", 1, {y, to_shape_of(c, gamma, x)}, numpy);
  if (beta) y = c.add("Add", 1, {y, to_shape_of(c, *beta, x)}, numpy);
  return y;
}
/// The statistics outputs (mean, inverse standard deviation), per row: a reduction over the last axis.
void statistics(node_context& c, source x, std::size_t first) {
  for (std::size_t k = first; k < first + 2; ++k)
    if (c.has_output(k)) c.output(k, c.add("ReduceMean", 1, {x, c.i64({-1})}, {{"keep_dims", "true"}}));
}
// SkipLayerNormalization (input, skip, gamma, beta, bias) and SkipSimplifiedLayerNormalization (input,
// skip, gamma, bias): outputs y, mean, inverse standard deviation, and the sum.
template <bool Simplified>
void skip_layer_norm(node_context& c) {
  const auto sum = skip_sum(c, Simplified ? 3 : 4);
  c.output(0, last_axis_norm(c, sum, Simplified, c.need(2), Simplified ? std::nullopt : c.input(3)));
  statistics(c, sum, 1);
  if (c.has_output(3)) c.output(3, sum);
}

// MatMulNBits: A [..., K] times the K x N weights B holds quantised (attributes K and N; B's own shape is
// its packed blocks), plus the bias: [..., N]. The weights stand as a broadcast of zeros of [K, N].
void matmul_nbits(node_context& c) {
  const auto k = c.i("K"), n = c.i("N");
  if (!k || !n || *k <= 0 || *n <= 0) c.bad("it needs attributes K and N, both positive");
  const auto a = c.need(0);
  const auto weights = c.add("Broadcast", 3, {like(c, 0.0F, a), c.i64({*k, *n})}, {{"mode", "numpy"}});
  auto y = c.add("MatMul", 1, {a, weights}, {{"transpose_a", "false"}, {"transpose_b", "false"}});
  if (const auto bias = c.input(5)) y = c.add("Add", 1, {y, *bias}, numpy);
  c.output(0, y);
}
// MatMulIntegerToFloat (A, B, a_scale, b_scale, a_zero_point, b_zero_point, bias) and DynamicQuantizeMatMul
// (A, B, b_scale, b_zero_point, bias): a real product of A and B, plus the bias.
template <std::size_t BiasPort>
void matmul_to_float(node_context& c) {
  auto y = c.add("MatMul", 1, {as_f32(c, c.need(0)), as_f32(c, c.need(1))}, {{"transpose_a", "false"}, {"transpose_b", "false"}});
  if (const auto bias = c.input(BiasPort)) y = c.add("Add", 1, {y, *bias}, numpy);
  c.output(0, y);
}
// QLinearAdd and QLinearMul (A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point).
template <const char* Type>
void qlinear_binary(node_context& c) {
  const auto y = c.add(Type, 1, {as_f32(c, c.need(0)), as_f32(c, c.need(3))}, numpy);
  c.output(0, quantised_like(c, y, 7));
}
constexpr char Add[] = "Add", Multiply[] = "Multiply";
// QLinearSigmoid and QLinearLeakyRelu (X, X_scale, X_zero_point, Y_scale, Y_zero_point): the shape.
template <const char* Type>
void qlinear_unary(node_context& c) {
  const auto x = as_f32(c, c.need(0));
  const auto y = std::string_view(Type) == "PReLU" ? c.add("PReLU", 1, {x, c.f32({c.f("alpha", 0.01F)}, true)})
                                                   : c.add(Type, 1, {x});
  c.output(0, quantised_like(c, y, 4));
}
constexpr char Sigmoid[] = "Sigmoid", PReLU[] = "PReLU";
// QLinearSoftmax (X, X_scale, X_zero_point, Y_scale, Y_zero_point): softmax along `axis` (opset 13 on),
// or over the axes from `axis` on (before 13), as ONNX's Softmax of the `opset` attribute.
void qlinear_softmax(node_context& c) {
  const auto x = as_f32(c, c.need(0));
  const auto axis = c.i("axis", -1);
  source y = x;
  if (c.i("opset", 13) >= 13) {
    y = c.add("SoftMax", 8, {x}, {{"axis", fmt::format("{}", axis)}});
  } else {
    const auto merged = c.add("Reshape", 1, {x, c.add("Concat", 1, {c.add("Slice", 8, {c.shape_of(x), c.i64({0}), c.i64({axis}), c.i64({1})}),
                                                                    c.i64({-1})},
                                                       {{"axis", "0"}})},
                              {{"special_zero", "false"}});
    y = c.add("Reshape", 1, {c.add("SoftMax", 8, {merged}, {{"axis", "-1"}}), c.shape_of(x)}, {{"special_zero", "false"}});
  }
  c.output(0, quantised_like(c, y, 4));
}
// QLinearWhere (condition, X, x_scale, x_zero_point, Y, y_scale, y_zero_point, z_scale, z_zero_point).
void qlinear_where(node_context& c) {
  const auto y = c.add("Select", 1, {c.need(0), as_f32(c, c.need(1)), as_f32(c, c.need(4))}, numpy);
  c.output(0, quantised_like(c, y, 8));
}
// QGemm (A, a_scale, a_zero_point, B, b_scale, b_zero_point, C, y_scale, y_zero_point): Gemm's product
// and bias; quantised when y_scale is given, else real.
void qgemm(node_context& c) {
  auto y = c.add("MatMul", 1, {as_f32(c, c.need(0)), as_f32(c, c.need(3))},
                 {{"transpose_a", c.i("transA", 0) != 0 ? "true" : "false"},
                  {"transpose_b", c.i("transB", 0) != 0 ? "true" : "false"}});
  if (const auto bias = c.input(6)) y = c.add("Add", 1, {y, as_f32(c, *bias)}, numpy);
  c.output(0, c.input(7) ? quantised_like(c, y, 8) : y);
}
// ExpandDims (X, axis): an axis of 1 inserted.
void expand_dims(node_context& c) { c.output(0, c.add("Unsqueeze", 1, {c.need(0), c.need(1)})); }

}  // namespace

std::span<const onnx_entry> microsoft_rows() {
  static constexpr std::string_view ms = "com.microsoft";
  static const std::vector<onnx_entry> rows = {
      {"FusedMatMul", 1, fused_matmul, ms}, {"TransposeMatMul", 1, fused_matmul, ms}, {"Gelu", 1, gelu, ms},
      {"FastGelu", 1, bias_gelu<true>, ms}, {"BiasGelu", 1, bias_gelu<false>, ms}, {"QuickGelu", 1, quick_gelu, ms},
      {"SkipLayerNormalization", 1, skip_layer_norm<false>, ms},
      {"SkipSimplifiedLayerNormalization", 1, skip_layer_norm<true>, ms}, {"MatMulNBits", 1, matmul_nbits, ms},
      {"MatMulIntegerToFloat", 1, matmul_to_float<6>, ms}, {"DynamicQuantizeMatMul", 1, matmul_to_float<4>, ms},
      {"QLinearAdd", 1, qlinear_binary<Add>, ms}, {"QLinearMul", 1, qlinear_binary<Multiply>, ms},
      {"QLinearSigmoid", 1, qlinear_unary<Sigmoid>, ms}, {"QLinearLeakyRelu", 1, qlinear_unary<PReLU>, ms},
      {"QLinearSoftmax", 1, qlinear_softmax, ms}, {"QLinearWhere", 1, qlinear_where, ms}, {"QGemm", 1, qgemm, ms},
      {"ExpandDims", 1, expand_dims, ms},
      untranslated("Unique", 1, "its outputs are as long as the input has distinct values, which only its data decides", ms),
      untranslated("BeamSearch", 1, "a search whose length only its data decides", ms),
      untranslated("GreedySearch", 1, "a search whose length only its data decides", ms),
      untranslated("WhisperBeamSearch", 1, "a search whose length only its data decides", ms),
      untranslated("Sampling", 1, "a random search whose length only its data decides", ms),
      untranslated("Tokenizer", 1, "its input is strings", ms),
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
