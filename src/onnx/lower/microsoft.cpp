// The com.microsoft ops ONNX Runtime's transformer optimiser and quantiser write (ContribOperators.md), as
// the standard computations they fuse: a fused op keeps the shapes and the element meetings of the ops it
// stands for, which is what the rules need. Each reads its inputs at the positions ONNX Runtime gives them.
#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

using attributes = node_context::attributes;

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
  // ONNX Runtime's type inference reads each zero point's type: one left out fails it.
  for (const auto& [port, name] : {std::pair<std::size_t, const char*>{2, "A_zero_point"}, {5, "B_zero_point"}, {7, "C_zero_point"}})
    refuse_listed_but_left_out(c, port, name);
  const auto y = c.add(Type, 1, {as_f32(c, c.need(0)), as_f32(c, c.need(3))}, numpy);
  c.output(0, quantised_like(c, y, 7));
}
// QLinearSigmoid and QLinearLeakyRelu (X, X_scale, X_zero_point, Y_scale, Y_zero_point): the shape.
template <const char* Type>
void qlinear_unary(node_context& c) {
  const auto x = as_f32(c, c.need(0));
  const auto y = std::string_view(Type) == "PReLU" ? c.add("PReLU", 1, {x, c.f32({c.f("alpha", 0.01F)}, true)})
                                                   : c.add(Type, 1, {x});
  c.output(0, quantised_like(c, y, 4));
}
constexpr char PReLU[] = "PReLU";
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
// QLinearConcat (Y_scale, Y_zero_point, then X, X_scale, X_zero_point for each input): the inputs' values
// joined along `axis`, of Y_zero_point's type. ONNX Runtime takes the inputs in threes, every one of them.
void qlinear_concat(node_context& c) {
  if (c.inputs() < 5 || (c.inputs() - 2) % 3 != 0)
    c.bad(fmt::format("it has {} inputs", c.inputs()), "QLinearConcat takes Y_scale, Y_zero_point, then X, X_scale and X_zero_point for each input");
  const auto axis = c.i("axis");
  if (!axis) c.bad("QLinearConcat needs the attribute axis");
  std::vector<source> in;
  for (std::size_t k = 2; k < c.inputs(); k += 3) {
    in.push_back(as_f32(c, c.need(k)));
    // (Each scale and zero point is read for its type when ONNX Runtime runs: none may be left out.)
    static_cast<void>(c.need(k + 1));
    static_cast<void>(c.need(k + 2));
    expect_one_value(c, k + 1);
    expect_one_value(c, k + 2);
  }
  static_cast<void>(c.need(0));
  expect_one_value(c, 0);
  expect_one_value(c, 1);
  c.output(0, quantised_like(c, c.add("Concat", 1, std::move(in), {{"axis", fmt::format("{}", *axis)}}), 1));
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
  expect_elements(c, c.need(0), 1, 2);  // ONNX Runtime's kernel refuses points of no coordinate (K of 0)
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
  const auto type = c.declared_type(0);
  if (!type) return c.not_covered("com.microsoft.GatherBlockQuantized of data of no declared type is not covered (its type says how values are packed)");
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
  const auto data_rank = c.rank(0);
  if (!data_rank) return c.not_covered("com.microsoft.GatherBlockQuantized of data of no declared rank is not covered");
  if (*data_rank < 2) c.bad(fmt::format("its data is of rank {}", *data_rank), "data is 2-D at least");
  if (const auto r = c.rank(2); r && *r != *data_rank) c.bad(fmt::format("its scales are of rank {} for data of rank {}", *r, *data_rank));
  const auto rank = static_cast<std::int64_t>(*data_rank);
  if (axis < -rank || axis >= rank) c.bad(fmt::format("its gather_axis {} is out of range for data of rank {}", axis, rank));
  auto data = c.need(0);
  // The scales as ONNX Runtime's shape inference holds them to the data: its dims, but along quantize_axis the
  // count of blocks, ceil(values / block_size), a uint8 byte holding per_byte values. Each checked exactly.
  auto q = c.i("quantize_axis", 1);
  if (q < -rank || q >= rank) c.bad(fmt::format("its quantize_axis {} is out of range for data of rank {}", q, rank));
  if (q < 0) q += rank;
  const auto data_dims = c.shape_of(data);
  for (std::int64_t a = 0; a < rank; ++a) {
    auto length = shape_slice(c, data_dims, a, a + 1);
    if (a == q)
      length = c.add("Divide", 1, {c.add("Add", 1, {c.add("Multiply", 1, {length, c.i64({per_byte})}, numpy), c.i64({block - 1})}, numpy),
                                   c.i64({block})},
                     {{"auto_broadcast", "numpy"}, {"m_pythondiv", "true"}});
    static_cast<void>(exactly(c, c.need(2), a, length));
  }
  if (per_byte > 1) {
    const auto dims = data_dims;
    const auto wide = c.add("Broadcast", 3, {c.add("Unsqueeze", 1, {data, c.i64({-1})}), c.add("Concat", 1, {dims, c.i64({per_byte})}, {{"axis", "0"}})},
                            {{"mode", "numpy"}});
    data = c.add("Reshape", 1, {wide, c.add("Concat", 1, {shape_slice(c, dims, 0, -1), c.i64({-1})}, {{"axis", "0"}})}, {{"special_zero", "false"}});
  }
  const auto rows = c.add("Gather", 8, {data, c.need(1), c.i64({axis}, std::vector<std::int64_t>{})}, {{"batch_dims", "0"}});
  c.output(0, c.add("ConvertLike", 1, {rows, c.need(2)}));
}

// MoE and QMoE (ONNX Runtime's mixture of experts): each token of input [tokens, H] or [B, S, H] routed by its
// row of router_probs [tokens, E] to k of E experts, each two (or, fused SwiGLU, three) products with its
// weights; the output is the input's shape, each token's row meeting its own row and its router row.
// ONNX Runtime reads the weights' layout from their dims and the hidden size H (input's last axis): fc1
// [E, F1, H / pack] and fc2 [E, H, I / pack] (F1 = I, or 2 I fused), or the older [E, H, F1 / pack] and
// [E, I, H / pack]; pack is 2 for QMoE's 4-bit weights, else 1. The weights being Consts (as a model's
// experts are), the hidden sizes they allow are found here, and the input's last axis is checked against them.
struct moe_ports {
  std::size_t fc1, fc2, fc3;
  std::optional<std::size_t> bias1, bias2, scales1, scales2;
};
/// The dims of an input when a Const gives it; nullopt when it is left out, or (`unknown` set) when no Const does.
std::optional<std::vector<std::int64_t>> moe_dims(node_context& c, std::optional<std::size_t> port, bool& unknown) {
  if (!port || !c.input(*port)) return std::nullopt;
  auto d = c.constant_dims(*port);
  if (!d) unknown = true;
  return d;
}
/// Whether ONNX Runtime's checks of the experts' dims pass for a hidden size h (its CheckInputs).
bool moe_fits(std::int64_t h, std::int64_t pack, bool fused, std::int64_t block, const std::vector<std::vector<std::int64_t>>& d) {
  // d: fc1, fc2, bias1, bias2, scales1, scales2 (empty: left out).
  const auto& fc1 = d[0];
  const auto& fc2 = d[1];
  if (h <= 0 || h % pack != 0) return false;
  const auto e = fc1[0];
  const auto inter = fc2[1] * fc2[2] * pack / h;
  const bool legacy = (h != inter && fc2[1] == inter) || (h == inter && fused && fc1[1] == h);
  const auto f1 = fused ? 2 * inter : inter;
  using dims = std::vector<std::int64_t>;
  const auto want1 = legacy ? dims{e, h, f1 / pack} : dims{e, f1, h / pack};
  const auto want2 = legacy ? dims{e, inter, h / pack} : dims{e, h, inter / pack};
  const auto blocks = [&](std::int64_t n) { return (n + block - 1) / block; };
  const auto scales1 = block > 0 ? dims{e, f1, blocks(h)} : dims{e, f1};
  const auto scales2 = block > 0 ? dims{e, h, blocks(inter)} : dims{e, h};
  const auto fits = [](const dims& given, const dims& want) { return given.empty() || given == want; };
  return fc1 == want1 && fc2 == want2 && fits(d[2], dims{e, f1}) && fits(d[3], dims{e, h}) && fits(d[4], scales1) &&
         fits(d[5], scales2);
}
/// x (the input, [..., H]) with its last axis one of `sizes`: the product of (H - s) is 0, so that a tensor of
/// that product plus 1 elements is one element (a Reshape refuses any other count); added to x as a 0.
source hidden_one_of(node_context& c, source x, const std::vector<std::int64_t>& sizes) {
  const auto h = shape_slice(c, c.shape_of(x), -1, 0);
  source product = c.i64({1});
  for (const auto s : sizes) product = c.add("Multiply", 1, {product, c.add("Subtract", 1, {h, c.i64({s})}, numpy)}, numpy);
  const auto count = c.add("Add", 1, {product, c.i64({1})}, numpy);
  const auto one = c.add("Reshape", 1, {c.add("Broadcast", 3, {like(c, 0.0F, x), count}, {{"mode", "numpy"}}), c.i64({}, std::vector<std::int64_t>{0})},
                         {{"special_zero", "false"}});
  return c.add("Add", 1, {x, one}, numpy);
}
/// The activation and k of MoE and QMoE, as ONNX Runtime's CPU kernels take them; whether SwiGLU fuses fc1.
bool moe_attributes(node_context& c) {
  const auto activation = c.s("activation_type", "relu");
  if (activation != "relu" && activation != "gelu" && activation != "silu" && activation != "identity" && activation != "swiglu")
    c.bad(fmt::format("its activation_type is '{}'", activation), "relu, gelu, silu, identity or swiglu");
  const bool swiglu = activation == "swiglu";
  if (swiglu && c.i("swiglu_fusion", 0) != 1)
    c.bad(fmt::format("its swiglu_fusion is {} with SwiGLU", c.i("swiglu_fusion", 0)), "ONNX Runtime's CPU kernel runs the interleaved SwiGLU (swiglu_fusion 1)");
  if (const auto k = c.i("k", 1); k < 1) c.bad(fmt::format("its k is {}", k), "k is 1 at least");
  return swiglu;
}
void mixture_of_experts(node_context& c, const moe_ports& p, std::int64_t pack, std::int64_t block) {
  const bool fused = moe_attributes(c);
  if (c.input(p.fc3) || c.input(p.fc3 + 1) || (p.scales1 && c.input(p.fc3 + 2)))
    c.bad("it has fc3 weights", "ONNX Runtime's CPU kernel runs no fc3");
  const auto rank = c.rank(0);
  if (!rank) return c.not_covered(fmt::format("com.microsoft.{} whose input the model gives no rank is not covered", c.node().op_type()));
  if (*rank != 2 && *rank != 3) c.bad(fmt::format("its input is of rank {}", *rank), "the input is [tokens, H] or [B, S, H]");
  if (const auto r = c.rank(1); r && *r != 2) c.bad(fmt::format("its router_probs is of rank {}", *r), "router_probs is [tokens, experts]");
  bool unknown = false;
  std::vector<std::vector<std::int64_t>> d;
  for (const auto port : {std::optional<std::size_t>{p.fc1}, std::optional<std::size_t>{p.fc2}, p.bias1, p.bias2, p.scales1, p.scales2})
    d.push_back(moe_dims(c, port, unknown).value_or(std::vector<std::int64_t>{}));
  if (d[0].empty() || d[1].empty() || unknown)
    return c.not_covered(fmt::format("com.microsoft.{} whose expert weights, scales or biases no Const gives is not covered (their dims and the hidden size give the layout)",
                                     c.node().op_type()));
  for (const std::size_t k : {0U, 1U})
    if (d[k].size() != 3) c.bad(fmt::format("its fc{}_experts_weights is of rank {}", k + 1, d[k].size()), "the expert weights are 3-D");
  // Bounded before any product of them (an initializer with a dimension of 0 may declare any other).
  constexpr std::int64_t limit = std::int64_t{1} << 31;
  for (const auto& dims : d)
    for (const auto v : dims)
      if (v > limit) c.bad(fmt::format("its expert weights, scales or biases have a dimension of {}", v));
  const auto experts = d[0][0];
  if (const auto k = c.i("k", 1); k > experts) c.bad(fmt::format("its k is {} for {} experts", k, experts), "k is at most the experts' count");
  // The hidden sizes the fc2 check allows: fc2[1] (the layout of now) or fc2[2] packed (the older one).
  std::vector<std::int64_t> sizes;
  for (std::int64_t h = d[1][2] * pack; h < d[1][2] * pack + pack; ++h)
    if (moe_fits(h, pack, fused, block, d)) sizes.push_back(h);
  if (d[1][1] != d[1][2] * pack && moe_fits(d[1][1], pack, fused, block, d)) sizes.push_back(d[1][1]);
  if (sizes.empty()) c.bad("its expert weights, scales and biases fit no hidden size", "see ONNX Runtime's MoE layouts");
  auto x = hidden_one_of(c, c.need(0), sizes);
  // router_probs [tokens, E]: 2-D, E the experts', as many rows as the input has tokens.
  const auto router = c.add("VariadicSplit", 1, {c.add("Reshape", 1, {c.need(1), c.i64({0, 0})}, {{"special_zero", "true"}}), c.i64({1}, std::vector<std::int64_t>{}), c.i64({experts})});
  const auto shape = c.shape_of(x);
  const auto rows = c.add("Reshape", 1, {router, c.add("Concat", 1, {shape_slice(c, shape, 0, -1), c.i64({experts})}, {{"axis", "0"}})}, {{"special_zero", "false"}});
  const auto keep = attributes{{"keep_dims", "true"}};
  const auto routed = c.add("ConvertLike", 1, {c.add("ReduceSum", 1, {rows, c.i64({-1})}, keep), x});
  c.output(0, c.add("Add", 1, {x, c.add("Add", 1, {c.add("ReduceSum", 1, {x, c.i64({-1})}, keep), routed}, numpy)}, numpy));
}
// MoE (input, router_probs, fc1_experts_weights, fc1_experts_bias, fc2_experts_weights, fc2_experts_bias, fc3...).
void moe(node_context& c) { mixture_of_experts(c, {2, 4, 6, 3, 5, std::nullopt, std::nullopt}, 1, 0); }
// QMoE (input, router_probs, fc1 weights, fc1 scales, fc1 bias, fc2 weights, fc2 scales, fc2 bias, fc3...): uint8
// weights of expert_weight_bits (4: two a byte), scales per row or (block_size) per block of a row.
void qmoe(node_context& c) {
  const auto bits = c.i("expert_weight_bits");
  if (!bits || (*bits != 4 && *bits != 8)) c.bad("its expert_weight_bits is not 4 or 8", "QMoE's weights hold 4 or 8 bits");
  const auto block = c.i("block_size", 0);
  if (block < 0 || block > (std::int64_t{1} << 31) || (block > 0 && (block < 16 || (block & (block - 1)) != 0)))
    c.bad(fmt::format("its block_size is {}", block), "0, or a power of 2 of 16 at least");
  if (c.inputs() > 11) return c.not_covered("com.microsoft.QMoE with zero points is not covered");
  static_cast<void>(c.need(3));  // the scales are required
  static_cast<void>(c.need(6));
  mixture_of_experts(c, {2, 5, 8, 4, 7, 3, 6}, *bits == 4 ? 2 : 1, block);
}

// WordConvEmbedding (Sequence [S, L] of character ids, W [M, C, fw, E], B [M], C [V, E]): each word's characters
// looked up in C, convolved along the word by the M filters of fw characters (W's C axis is not read), the bias
// added and the maximum over the positions taken: [S, M]. ONNX Runtime checks W[0], W[2] and C[1] against the
// attributes given, C[1] against W[3], and the window against the word's length L; it reads no more of B than M
// values (any B runs), and no more of Sequence than its first two axes.
void word_conv_embedding(node_context& c) {
  const auto one = [&](source x, std::int64_t axis, std::string_view attribute) {
    const auto v = c.i(attribute, -1);
    return v == -1 ? x : c.add("VariadicSplit", 1, {x, c.i64({axis}, std::vector<std::int64_t>{}), c.i64({v})});
  };
  if (const auto r = c.rank(0); r && *r < 2) c.bad(fmt::format("its Sequence is of rank {}", *r), "Sequence is [words, characters]");
  if (const auto r = c.rank(1); r && *r != 4) c.bad(fmt::format("its W is of rank {}", *r), "W is [M, C, window, E]");
  auto words = c.need(0);
  if (const auto r = c.rank(0); !r || *r > 2)
    words = c.add("ReduceSum", 1, {words, c.axes_from(words, 2)}, {{"keep_dims", "false"}});
  const auto table = one(c.need(3), 1, "char_embedding_size");
  const auto characters = c.add("Gather", 8, {table, words, c.i64({0}, std::vector<std::int64_t>{})}, {{"batch_dims", "0"}});
  // W as [M, E, fw], C's axis summed away; the characters as [S, E, L].
  auto w = one(one(c.need(1), 0, "embedding_size"), 2, "conv_window_size");
  w = c.add("Transpose", 1, {c.add("ReduceSum", 1, {w, c.i64({1})}, {{"keep_dims", "false"}}), c.i64({0, 2, 1})});
  const auto x = c.add("Transpose", 1, {characters, c.i64({0, 2, 1})});
  const auto y = c.add("Convolution", 1, {x, w},
                       {{"strides", "1"}, {"dilations", "1"}, {"pads_begin", "0"}, {"pads_end", "0"}, {"auto_pad", "explicit"}});
  const auto pooled = c.add("ReduceMax", 1, {y, c.i64({2})}, {{"keep_dims", "false"}});
  const auto bias = c.add("ReduceSum", 1, {c.need(2), c.axes_from(c.need(2), 0)}, {{"keep_dims", "false"}});
  c.output(0, c.add("Add", 1, {pooled, bias}, numpy));
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
      {"QLinearSoftmax", 1, qlinear_softmax, ms}, {"QLinearWhere", 1, qlinear_where, ms},
      {"QLinearConcat", 1, qlinear_concat, ms}, {"QGemm", 1, qgemm, ms},
      {"ExpandDims", 1, expand_dims, ms}, {"SampleOp", 1, sample_op, ms}, {"NGramRepeatBlock", 1, ngram_repeat_block, ms},
      {"CDist", 1, cdist, ms}, {"MatMulBnb4", 1, matmul_bnb4, ms}, {"MatMulFpQ4", 1, matmul_fpq4, ms},
      {"UnfoldTensor", 1, unfold_tensor, ms}, {"GatherBlockQuantized", 1, gather_block_quantized, ms},
      {"MoE", 1, moe, ms}, {"QMoE", 1, qmoe, ms}, {"WordConvEmbedding", 1, word_conv_embedding, ms},
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
