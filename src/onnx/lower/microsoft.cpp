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
// SampleOp: ONNX Runtime's example of a contrib op, its input as it is.
void sample_op(node_context& c) { c.output(0, c.need(0)); }
// NGramRepeatBlock (input_ids [B, L], scores [B, V]): the scores, each entry's lowered where its ids repeat an
// n-gram: the scores' shape, each entry's scores meeting its own ids (their sum, of the scores' batch exactly).
void ngram_repeat_block(node_context& c) {
  const auto scores = c.add("Reshape", 1, {c.need(1), c.i64({0, 0})}, {{"special_zero", "true"}});  // refuses other ranks
  const auto ids = c.add("Reshape", 1, {c.add("ConvertLike", 1, {c.need(0), scores}), c.i64({0, 0})}, {{"special_zero", "true"}});
  const auto batch = c.add("Slice", 8, {c.shape_of(scores), c.i64({0}), c.i64({1}), c.i64({1})});
  const auto each = c.add("VariadicSplit", 1, {c.add("ReduceSum", 1, {ids, c.i64({1})}, {{"keep_dims", "true"}}),
                                               c.i64({0}, std::vector<std::int64_t>{}), batch});
  c.output(0, c.add("Add", 1, {scores, each}, numpy));
}
// CDist (A [M, K], B [N, K]): the distance of each row pair, [M, N]; a product of A and B's transpose has its
// shape and checks (K of both).
void cdist(node_context& c) {
  for (const std::size_t port : {0, 1})
    if (const auto r = c.rank(port); r && *r != 2) c.bad(fmt::format("input {} is of rank {}", port, *r), "A and B are matrices");
  const auto metric = c.s("metric", "sqeuclidean");
  if (metric != "sqeuclidean" && metric != "euclidean") c.bad(fmt::format("metric is '{}'", metric), "sqeuclidean or euclidean");
  c.output(0, c.add("MatMul", 1, {c.need(0), c.need(1)}, {{"transpose_a", "false"}, {"transpose_b", "true"}}));
}
// MatMulBnb4 (A [..., K], B packed, absmax; attributes K and N) and MatMulFpQ4 (A, B packed, B_shape [K, N]):
// A times K x N weights held quantised, which stand as a broadcast of zeros of [K, N] (as MatMulNBits'); with
// MatMulBnb4's transB 0, of [N, K]. ONNX Runtime's checks on the packed buffers are made where they are Consts.
void matmul_bnb4(node_context& c) {
  const auto k = c.i("K"), n = c.i("N");
  constexpr std::int64_t limit = std::int64_t{1} << 31;
  if (!k || !n || *k <= 0 || *n <= 0 || *k > limit || *n > limit) c.bad("it needs attributes K and N, both positive");
  const auto block = c.i("block_size", 0);
  if (block != 16 && block != 32 && block != 64 && block != 128 && block != 256)
    c.bad(fmt::format("its block_size is {}", block), "16, 32, 64, 128 or 256");
  if (const auto type = c.i("quant_type", 0); type != 0 && type != 1) c.bad(fmt::format("its quant_type is {}", type), "0 (FP4) or 1 (NF4)");
  const auto count = [&](std::size_t port) -> std::optional<std::int64_t> {
    const auto d = c.constant_dims(port);
    if (!d) return std::nullopt;
    std::int64_t e = 1;
    for (const auto x : *d) e *= x;
    return e;
  };
  if (const auto bytes = count(1); bytes && *bytes < (*k * *n + 1) / 2)
    c.bad(fmt::format("its B holds {} bytes for {} x {} weights of 4 bits", *bytes, *k, *n));
  if (const auto scales = count(2); scales && *scales < (*k * *n + block - 1) / block)
    c.bad(fmt::format("its absmax holds {} values for {} blocks", *scales, (*k * *n + block - 1) / block));
  const auto a = c.need(0);
  const bool transposed = c.i("transB", 1) != 0;
  const auto weights = c.add("Broadcast", 3, {like(c, 0.0F, a), c.i64(transposed ? std::vector<std::int64_t>{*k, *n} : std::vector<std::int64_t>{*n, *k})},
                             {{"mode", "numpy"}});
  c.output(0, c.add("MatMul", 1, {a, weights}, {{"transpose_a", "false"}, {"transpose_b", "false"}}));
}
void matmul_fpq4(node_context& c) {
  if (const auto d = c.constant_dims(1); d && d->size() != 1) c.bad(fmt::format("its B has rank {}", d->size()), "B is the 1-D packed blob");
  // The blob: N blocks of 32 rows of K, 20 bytes each (type 0) or 21 (any other), when both are Consts.
  if (const auto shape = c.constant_ints(2); shape && shape->size() == 2) {
    const auto k = (*shape)[0], n = (*shape)[1];
    constexpr std::int64_t limit = std::int64_t{1} << 31;
    if (k <= 0 || n <= 0 || k > limit || n > limit) c.bad(fmt::format("its B_shape is [{}, {}]", k, n), "K and N above 0");
    if (const auto d = c.constant_dims(1); d && d->size() == 1 && (*d)[0] != n * ((k + 31) / 32) * (c.i("blk_quant_type", 1) == 0 ? 20 : 21))
      c.bad(fmt::format("its B holds {} bytes for [{}, {}] weights", (*d)[0], k, n));
  }
  const auto a = c.need(0);
  const auto shape = c.add("Reshape", 1, {c.need(2), c.i64({2})}, {{"special_zero", "false"}});  // [K, N]
  const auto weights = c.add("Broadcast", 3, {like(c, 0.0F, a), shape}, {{"mode", "numpy"}});
  c.output(0, c.add("MatMul", 1, {a, weights}, {{"transpose_a", "false"}, {"transpose_b", "false"}}));
}

// UnfoldTensor (dim, size, step): windows of `size` along dim, every `step`: dim becomes (d - size) / step + 1
// and a last axis of `size` is added; an element meets the others of its window's row along dim (a sum over
// it, of the input split after `size`: refused when the window is longer than the axis).
void unfold_tensor(node_context& c) {
  const auto size = c.i("size");
  const auto step = c.i("step", 1);
  auto dim = c.i("dim", -1);
  constexpr std::int64_t limit = std::int64_t{1} << 31;
  if (!size || *size <= 0 || *size > limit) c.bad("its size is not above 0", "UnfoldTensor needs a size above 0");
  if (step <= 0 || step > limit) c.bad(fmt::format("its step is {}", step), "a step above 0");
  if (dim > limit || dim < -limit) c.bad(fmt::format("its dim is {}", dim));
  if (const auto r = c.rank(0)) {
    const auto rank = static_cast<std::int64_t>(*r);
    if (dim < -rank || dim >= rank) c.bad(fmt::format("dim {} is out of range for an input of rank {}", dim, rank));
  }
  const auto scalar = std::vector<std::int64_t>{};
  const auto x = c.need(0);
  const auto dims = c.shape_of(x);
  const auto parts = c.add("VariadicSplit", 1, {x, c.i64({dim}, scalar), c.i64({*size, -1})}, {}, 2);
  const auto keep = node_context::attributes{{"keep_dims", "true"}};
  const auto sums = c.add("Add", 1, {c.add("ReduceSum", 1, {parts, c.i64({dim})}, keep), c.add("ReduceSum", 1, {source{parts.layer, 1}, c.i64({dim})}, keep)},
                          numpy);
  const auto along = c.add("Gather", 8, {dims, c.i64({dim}), c.i64({0}, scalar)}, {{"batch_dims", "0"}});
  const auto frames = c.add("Add", 1, {c.add("Divide", 1, {c.add("Subtract", 1, {along, c.i64({*size}, scalar)}, numpy), c.i64({step}, scalar)}, numpy),
                                       c.i64({1}, scalar)}, numpy);
  const auto shape = c.add("Concat", 1, {c.add("ScatterUpdate", 3, {dims, c.i64({dim}), frames, c.i64({0}, scalar)}), c.i64({*size})}, {{"axis", "0"}});
  c.output(0, c.add("Broadcast", 3, {c.add("Unsqueeze", 1, {sums, c.i64({-1})}), shape}, {{"mode", "numpy"}}));
}
// GatherBlockQuantized (data, indices, scales, zero_points): rows of quantised data gathered along gather_axis
// and dequantised to the scales' type: data's shape with the gathered axis replaced by the indices' shape, the
// last axis times 8 / bits for uint8 data (several values a byte).
void gather_block_quantized(node_context& c) {
  const auto type = c.constant_type(0);
  if (!type) return c.not_covered("com.microsoft.GatherBlockQuantized of data no Const gives is not covered (its type says how values are packed)");
  const auto bits = c.i("bits", 4);
  const auto axis = c.i("gather_axis", 0);
  const auto block = c.i("block_size", 128);
  if (block < 16 || (block & (block - 1)) != 0) c.bad(fmt::format("its block_size is {}", block), "a power of 2 of 16 at least");
  std::int64_t per_byte = 1;
  if (*type == element_type::u8) {
    if (bits != 2 && bits != 4 && bits != 8) c.bad(fmt::format("its bits is {}", bits), "2, 4 or 8 for uint8 data");
    if (axis != 0) c.bad(fmt::format("its gather_axis is {} for uint8 data", axis), "uint8 data is gathered along axis 0");
    per_byte = 8 / bits;
  } else if (bits != 4) {
    c.bad(fmt::format("its bits is {} for 4-bit data", bits), "int4 and uint4 data hold 4 bits");
  }
  const auto d = c.constant_dims(0);
  if (d && d->size() < 2) c.bad(fmt::format("its data is of rank {}", d->size()), "data is 2-D at least");
  if (const auto r = c.rank(2); d && r && *r != d->size()) c.bad(fmt::format("its scales are of rank {} for data of rank {}", *r, d->size()));
  const auto rank = static_cast<std::int64_t>(d ? d->size() : 0);
  if (axis < -rank || axis >= rank) c.bad(fmt::format("its gather_axis {} is out of range for data of rank {}", axis, rank));
  auto data = c.need(0);
  if (per_byte > 1) {
    const auto dims = c.shape_of(data);
    const auto wide = c.add("Broadcast", 3, {c.add("Unsqueeze", 1, {data, c.i64({-1})}), c.add("Concat", 1, {dims, c.i64({per_byte})}, {{"axis", "0"}})},
                            {{"mode", "numpy"}});
    data = c.add("Reshape", 1, {wide, c.add("Concat", 1, {shape_slice(c, dims, 0, -1), c.i64({-1})}, {{"axis", "0"}})}, {{"special_zero", "false"}});
  }
  const auto rows = c.add("Gather", 8, {data, c.need(1), c.i64({axis}, std::vector<std::int64_t>{})}, {{"batch_dims", "0"}});
  c.output(0, c.add("ConvertLike", 1, {rows, c.need(2)}));
}

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
      {"ExpandDims", 1, expand_dims, ms}, {"SampleOp", 1, sample_op, ms}, {"NGramRepeatBlock", 1, ngram_repeat_block, ms},
      {"CDist", 1, cdist, ms}, {"MatMulBnb4", 1, matmul_bnb4, ms}, {"MatMulFpQ4", 1, matmul_fpq4, ms},
      {"UnfoldTensor", 1, unfold_tensor, ms}, {"GatherBlockQuantized", 1, gather_block_quantized, ms},
      untranslated("BifurcationDetector", 1, "its output's length is where the draft and the model's tokens part, which only its data decides", ms),
      untranslated("DynamicTimeWarping", 1, "its path's length only its data decides", ms),
      untranslated("SparseToDenseMatMul", 1, "its first input is a sparse tensor, which reshape1 does not read", ms),
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
