// ONNX's attention ops: Attention (23, 24) and RotaryEmbedding (23, and com.microsoft's), as the computations they stand for
// (ONNX defines both as functions of MatMul, Softmax, Gather...). What the rules need is each output's
// shape and which elements meet: a query of batch entry b meets the keys and values of entry b only, a
// query head meets the key and value head of its group. The checks ONNX Runtime makes on the inputs' shapes
// are made by the layers on the way to the outputs (an exact split, a one-way broadcast, a concatenation),
// so that a node whose inputs do not fit has no output shape: no layer off the path only to check.
#include <limits>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

using attributes = node_context::attributes;
const attributes numpy{{"auto_broadcast", "numpy"}};
const std::vector<std::int64_t> scalar{};

source transpose(node_context& c, source x, std::vector<std::int64_t> order) {
  return c.add("Transpose", 1, {x, c.i64(std::move(order))});
}
/// Dimensions [from, to) of x's shape (negative: from the end; to 0: up to the end), 1-D i64, from one
/// ShapeOf per tensor of the node: `made` holds them, one map per node.
using made_shapes = std::map<std::pair<std::size_t, std::size_t>, source>;
source dims(node_context& c, made_shapes& made, source x, std::int64_t from, std::int64_t to) {
  auto [it, added] = made.try_emplace({x.layer, x.output});
  if (added) it->second = c.shape_of(x);
  const auto end = to == 0 ? std::numeric_limits<std::int64_t>::max() : to;
  return c.add("Slice", 8, {it->second, c.i64({from}), c.i64({end}), c.i64({1})});
}
source concat(node_context& c, std::vector<source> parts, std::int64_t axis) {
  return c.add("Concat", 1, std::move(parts), {{"axis", fmt::format("{}", axis)}});
}
/// x reshaped: a 0 of a constant pattern copies x's dimension; a pattern of dimensions read from shapes
/// (`zero_copies` false) may hold a 0 that is one.
source reshape(node_context& c, source x, source pattern, bool zero_copies = true) {
  return c.add("Reshape", 1, {x, pattern}, {{"special_zero", zero_copies ? "true" : "false"}});
}
/// x broadcast one way to a shape: a 1 widens, any other dimension must be the target's.
source broadcast(node_context& c, source x, source shape) {
  return c.add("Broadcast", 3, {x, shape}, {{"mode", "numpy"}});
}
/// x with its first `n` dimensions checked against y's: each one-way broadcast to the other's (with its own
/// dimensions after them), so that they pass only where they are equal (a 1 against 2 fails one way).
std::pair<source, source> same_leading(node_context& c, made_shapes& m, source x, source y, std::int64_t n) {
  const auto x2 = broadcast(c, x, concat(c, {dims(c, m, y, 0, n), dims(c, m, x, n, 0)}, 0));
  const auto y2 = broadcast(c, y, concat(c, {dims(c, m, x, 0, n), dims(c, m, y, n, 0)}, 0));
  return {x2, y2};
}
/// x along `axis` in one piece of `length` (a 1-element i64): its rule refuses a length other than the axis'.
source exactly(node_context& c, source x, std::int64_t axis, source length) {
  return c.add("VariadicSplit", 1, {x, c.i64({axis}, scalar), length});
}
/// [B, S, heads * size] as [B, heads, S, size]: the Reshape refuses a hidden size the heads do not divide.
source to_heads(node_context& c, source x, std::int64_t heads) {
  return transpose(c, reshape(c, x, c.i64({0, 0, heads, -1})), {0, 2, 1, 3});
}

// Attention-23 and 24: Q [B, Hq, S, d], K [B, Hkv, L, d], V [B, Hkv, L, dv] (or each 3-D, [B, S, heads * size],
// with q_num_heads and kv_num_heads), past_key and past_value put before K and V along the sequence (the
// present outputs), the query heads in Hkv groups (Hq a multiple of Hkv). Scores [B, Hq, S, P + L] (output 3)
// plus attn_mask (rank 2 to 4, its last two axes the query and total lengths, broadcast to the scores; 24: plus the
// per-entry nonpad_kv_seqlen), softmax over the keys, times V: Y [B, Hq, S, dv] (3-D: [B, S, Hq * dv]).
void attention(node_context& c) {
  made_shapes m;
  const auto rank = c.rank(0);
  if (!rank) return c.not_covered("Attention whose Q the model gives no rank is not covered (3-D and 4-D differ)");
  if (*rank != 3 && *rank != 4) c.bad(fmt::format("Q is of rank {}", *rank), "Q, K and V are 3-D or 4-D");
  for (std::size_t k = 1; k < 3; ++k)
    if (const auto r = c.rank(k); r && *r != *rank)
      c.bad(fmt::format("input {} is of rank {} and Q of rank {}", k, *r, *rank), "Q, K and V have one rank");
  const auto past_key = c.input(4), past_value = c.input(5);
  if (past_key.has_value() != past_value.has_value())
    c.bad("it has one of past_key and past_value", "give both or neither");
  const auto nonpad = c.version() >= 24 ? c.input(6) : std::nullopt;
  if (nonpad && past_key) c.bad("it has nonpad_kv_seqlen and past_key", "nonpad_kv_seqlen goes without the past");
  const auto q_heads = c.i("q_num_heads", 0), kv_heads = c.i("kv_num_heads", 0);
  source q = c.need(0), k = c.need(1), v = c.need(2);
  if (*rank == 3) {
    if (q_heads <= 0 || kv_heads <= 0)
      c.bad(fmt::format("its inputs are 3-D and q_num_heads is {}, kv_num_heads {}", q_heads, kv_heads),
            "3-D inputs need both, above 0");
    q = to_heads(c, q, q_heads);
    k = to_heads(c, k, kv_heads);
    v = to_heads(c, v, kv_heads);
  } else {
    // Given with 4-D inputs, the heads attributes must be the inputs' dimension 1.
    if (q_heads > 0) q = reshape(c, q, c.i64({0, q_heads, 0, 0}));
    if (kv_heads > 0) {
      k = reshape(c, k, c.i64({0, kv_heads, 0, 0}));
      v = reshape(c, v, c.i64({0, kv_heads, 0, 0}));
    }
  }
  // Q's batch is K's: one-way broadcasts both ways (MatMul would broadcast a batch of 1).
  std::tie(q, k) = same_leading(c, m, q, k, 1);
  if (past_key) {
    k = concat(c, {*past_key, k}, 2);
    v = concat(c, {*past_value, v}, 2);
  }
  // K and V agree in batch, heads and length: side by side along the head size, then apart again.
  const auto both = concat(c, {k, v}, 3);
  const auto parts = c.add("VariadicSplit", 1, {both, c.i64({3}, scalar), concat(c, {dims(c, m, k, 3, 4), c.i64({-1})}, 0)},
                           {}, 2);
  k = parts;
  v = source{parts.layer, 1};
  if (c.has_output(1)) c.output(1, k);
  if (c.has_output(2)) c.output(2, v);
  // The query heads in groups, one per key head: [B, Hkv, Hq / Hkv, S, d] (the Reshape refuses Hq that Hkv
  // does not divide), against K and V with a group axis of 1.
  const auto grouped = [&](source x) {
    return reshape(c, x, concat(c, {dims(c, m, x, 0, 1), dims(c, m, k, 1, 2), c.i64({-1}), dims(c, m, x, 2, 4)}, 0), false);
  };
  const auto q5 = grouped(q);
  const auto k5 = c.add("Unsqueeze", 1, {k, c.i64({2})});
  const auto v5 = c.add("Unsqueeze", 1, {v, c.i64({2})});
  const auto scores5 = c.add("MatMul", 1, {q5, k5}, {{"transpose_a", "false"}, {"transpose_b", "true"}});
  const auto scores_shape = concat(c, {dims(c, m, q, 0, 3), dims(c, m, k, 2, 3)}, 0);
  auto scores = reshape(c, scores5, scores_shape, false);
  if (const auto mask = c.input(3)) {
    // Its last axis is the total length exactly, the one before it the query length (ONNX Runtime does not
    // broadcast a 1 there), the others broadcast to the scores.
    if (const auto r = c.rank(3); r && (*r < 2 || *r > 4))
      c.bad(fmt::format("attn_mask is of rank {}", *r), "attn_mask is 2-D to 4-D");
    auto bias = exactly(c, c.add("ConvertLike", 1, {*mask, scores}), -1, dims(c, m, k, 2, 3));
    bias = exactly(c, bias, -2, dims(c, m, q, 2, 3));
    scores = c.add("Add", 1, {scores, broadcast(c, bias, scores_shape)}, numpy);
  }
  if (nonpad) {
    if (const auto r = c.rank(6); r && *r != 1)
      c.bad(fmt::format("nonpad_kv_seqlen is of rank {}", *r), "nonpad_kv_seqlen holds one length per batch entry");
    const auto lengths = exactly(c, c.add("ConvertLike", 1, {*nonpad, scores}), 0, dims(c, m, q, 0, 1));
    scores = c.add("Add", 1, {scores, c.add("Unsqueeze", 1, {lengths, c.i64({1, 2, 3})})}, numpy);
  }
  if (c.has_output(3)) c.output(3, scores);
  const auto weights = c.add("SoftMax", 8, {scores}, {{"axis", "-1"}});
  const auto y5 = c.add("MatMul", 1, {grouped(weights), v5}, {{"transpose_a", "false"}, {"transpose_b", "false"}});
  auto y = reshape(c, y5, concat(c, {dims(c, m, q, 0, 3), c.i64({-1})}, 0), false);
  if (*rank == 3) y = reshape(c, transpose(c, y, {0, 2, 1, 3}), c.i64({0, 0, -1}));
  c.output(0, y);
}

// RotaryEmbedding-23: X [B, heads, S, head] (or [B, S, heads * head] with num_heads) rotated, in its first
// rotary_embedding_dim (else all) of each head, by the cos and sin caches of each position: [B, S, r / 2]
// without position_ids, else [max positions, r / 2] gathered by position_ids [B, S] (S at most the positions).
// The output is X's shape; each (b, s) of X meets its own cache row.
void rotary_embedding(node_context& c) {
  made_shapes m;
  const auto rank = c.rank(0);
  if (!rank) return c.not_covered("RotaryEmbedding whose input the model gives no rank is not covered (3-D and 4-D differ)");
  if (*rank != 3 && *rank != 4) c.bad(fmt::format("its input is of rank {}", *rank), "X is 3-D or 4-D");
  const auto heads = c.i("num_heads", 0);
  const auto x = c.need(0);
  if (*rank == 3 && heads <= 0)
    c.bad(fmt::format("its input is 3-D and num_heads is {}", heads), "a 3-D input needs num_heads above 0");
  // [B, S, heads, head] either way.
  auto xs = *rank == 3 ? reshape(c, x, c.i64({0, 0, heads, -1})) : transpose(c, x, {0, 2, 1, 3});
  // The caches of one shape: side by side along their last axis, then that axis split in two equal parts.
  const auto width = dims(c, m, c.need(1), -1, 0);
  const auto caches = c.add("VariadicSplit", 1,
                            {concat(c, {c.need(1), c.need(2)}, -1), c.i64({-1}, scalar), concat(c, {width, width}, 0)}, {}, 2);
  source rows = caches;  // [B, S, r / 2]
  if (const auto positions = c.input(3)) {
    if (const auto r = c.rank(3); r && *r != 2) c.bad(fmt::format("position_ids is of rank {}", *r), "position_ids is [B, S]");
    // At least S positions in the caches: their first S rows, and the rest, put back together.
    const auto split = c.add("VariadicSplit", 1, {caches, c.i64({0}, scalar), concat(c, {dims(c, m, xs, 1, 2), c.i64({-1})}, 0)},
                             {}, 2);
    const auto whole = concat(c, {split, source{split.layer, 1}}, 0);
    rows = c.add("Gather", 8, {whole, *positions, c.i64({0}, scalar)}, {{"batch_dims", "0"}});
  }
  // Each (b, s) its row, [B, S, 1, r]: batch and length those of X exactly.
  auto row = c.add("Unsqueeze", 1, {rows, c.i64({2})});
  std::tie(xs, row) = same_leading(c, m, xs, row, 2);
  row = concat(c, {row, row}, -1);
  source y = xs;
  if (const auto rotary = c.i("rotary_embedding_dim", 0); rotary > 0) {
    const auto split = c.add("VariadicSplit", 1, {xs, c.i64({-1}, scalar), c.i64({rotary / 2 * 2, -1})}, {}, 2);
    y = concat(c, {c.add("Multiply", 1, {split, row}, numpy), source{split.layer, 1}}, -1);
  } else {
    y = c.add("Multiply", 1, {xs, row}, numpy);
  }
  c.output(0, *rank == 3 ? reshape(c, y, c.shape_of(x), false) : transpose(c, y, {0, 2, 1, 3}));
}

// com.microsoft.RotaryEmbedding: input [B, S, hidden] or [B, heads, S, head], position_ids [B, S] or one
// offset (the positions offset to offset + S - 1 for every entry), caches [max positions, width] of one
// shape. Only the positions' rows meet the input's (b, s) here: each is summed to one value that scales the
// input at (b, s), which keeps the input's shape and which elements meet (ONNX Runtime checks no cache
// width against the heads where rotary_embedding_dim is 0, and no row count against S).
void ms_rotary_embedding(node_context& c) {
  made_shapes m;
  const auto rank = c.rank(0);
  if (!rank)
    return c.not_covered("com.microsoft.RotaryEmbedding whose input the model gives no rank is not covered (3-D and 4-D differ)");
  if (*rank != 3 && *rank != 4) c.bad(fmt::format("its input is of rank {}", *rank), "the input is 3-D or 4-D");
  if (c.i("rotary_embedding_dim", 0) > 0 && c.i("num_heads", 0) == 0)
    c.bad("it has rotary_embedding_dim and no num_heads", "give num_heads with rotary_embedding_dim");
  for (std::size_t k = 2; k < 4; ++k)
    if (const auto r = c.rank(k); r && *r != 2) c.bad(fmt::format("input {} is of rank {}", k, *r), "the caches are 2-D");
  const auto x = c.need(0);
  auto xs = *rank == 3 ? x : transpose(c, x, {0, 2, 1, 3});  // [B, S, ...]
  const auto width = dims(c, m, c.need(2), -1, 0);
  const auto caches = c.add("VariadicSplit", 1,
                            {concat(c, {c.need(2), c.need(3)}, -1), c.i64({-1}, scalar), concat(c, {width, width}, 0)}, {}, 2);
  const auto positions = c.need(1);
  const auto position_rank = c.rank(1);
  if (!position_rank)
    return c.not_covered("com.microsoft.RotaryEmbedding whose position_ids the model gives no rank is not covered (an offset or one per position)");
  source row;
  if (*position_rank == 2) {
    // [B, S, 1, ...]: each (b, s) its row's sum, batch and length those of the input exactly.
    row = c.add("ReduceSum", 1, {c.add("Gather", 8, {caches, positions, c.i64({0}, scalar)}, {{"batch_dims", "0"}}), c.i64({-1})},
                {{"keep_dims", "true"}});
    if (*rank == 4) row = c.add("Unsqueeze", 1, {row, c.i64({-1})});
    std::tie(xs, row) = same_leading(c, m, xs, row, 2);
  } else {
    if (*position_rank > 1) c.bad(fmt::format("position_ids is of rank {}", *position_rank), "position_ids is one offset or [B, S]");
    // One offset: the rows from it on, one per position of the sequence.
    const auto length = c.add("Squeeze", 1, {dims(c, m, xs, 1, 2), c.i64({0})});
    const auto offset = c.add("Reshape", 1, {positions, c.i64({}, std::vector<std::int64_t>{0})}, {{"special_zero", "false"}});
    const auto at = c.add("Add", 1, {c.add("Range", 4, {c.i64({0}, scalar), length, c.i64({1}, scalar)}, {{"output_type", "i64"}}),
                                      c.add("Convert", 1, {offset}, {{"destination_type", "i64"}})},
                          numpy);
    row = c.add("ReduceSum", 1, {c.add("Gather", 8, {caches, at, c.i64({0}, scalar)}, {{"batch_dims", "0"}}), c.i64({-1})},
                {{"keep_dims", "true"}});
    if (*rank == 4) row = c.add("Unsqueeze", 1, {row, c.i64({-1})});
  }
  const auto y = c.add("Multiply", 1, {xs, row}, numpy);
  c.output(0, *rank == 3 ? y : transpose(c, y, {0, 2, 1, 3}));
}

}  // namespace

std::span<const onnx_entry> attention_rows() {
  static const std::vector<onnx_entry> rows = {
      {"Attention", 23, attention}, {"Attention", 24, attention}, {"RotaryEmbedding", 23, rotary_embedding},
      {"RotaryEmbedding", 1, ms_rotary_embedding, "com.microsoft"},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
