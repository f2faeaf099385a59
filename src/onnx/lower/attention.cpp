// ONNX's attention ops as the computations they stand for: Attention (23, 24, and com.microsoft's),
// com.microsoft's MultiHeadAttention, RotaryEmbedding (23, and com.microsoft's) and com.microsoft's
// EmbedLayerNormalization (ONNX defines its own two as functions of MatMul, Softmax, Gather...). What the rules
// need is each output's shape and which elements meet: a query of batch entry b meets the keys and values
// of entry b only, a query head meets the key and value head of its group. The checks ONNX Runtime makes on
// the inputs' shapes are made by the layers on the way to the outputs (an exact split, a one-way broadcast,
// a concatenation), so that a node whose inputs do not fit has no output shape: no layer off the path only
// to check.
#include <array>
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

using attributes = node_context::attributes;

source transpose(node_context& c, source x, std::vector<std::int64_t> order) {
  return c.add("Transpose", 1, {x, c.i64(std::move(order))});
}
/// Dimensions [from, to) of x's shape (negative: from the end; to 0: up to the end), 1-D i64, from one
/// ShapeOf per tensor of the node: `made` holds them, one map per node.
using made_shapes = std::map<std::pair<std::size_t, std::size_t>, source>;
source dims(node_context& c, made_shapes& made, source x, std::int64_t from, std::int64_t to) {
  auto [it, added] = made.try_emplace({x.layer, x.output});
  if (added) it->second = c.shape_of(x);
  return shape_slice(c, it->second, from, to);
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
/// The scores [..., S, T] plus a term of each (query, key) position pair: a causal mask's, whose value at a
/// row depends on that row's place in the sequence (a batch folded into the sequence would see it).
source plus_causal(node_context& c, made_shapes& m, source scores) {
  const auto range = [&](std::int64_t axis) {
    const auto length = c.add("Squeeze", 1, {dims(c, m, scores, axis, axis + 1), c.i64({0})});
    return c.add("Range", 4, {c.i64({0}, scalar), length, c.i64({1}, scalar)}, {{"output_type", "i64"}});
  };
  const auto rows = c.add("Unsqueeze", 1, {range(-2), c.i64({1})});
  const auto columns = c.add("Unsqueeze", 1, {range(-1), c.i64({0})});
  const auto places = c.add("Subtract", 1, {rows, columns}, numpy);
  return c.add("Add", 1, {scores, c.add("ConvertLike", 1, {places, scores})}, numpy);
}
/// [B, S, heads * size] as [B, heads, S, size]: the Reshape refuses a hidden size the heads do not divide.
source to_heads(node_context& c, source x, std::int64_t heads) {
  return transpose(c, reshape(c, x, c.i64({0, 0, heads, -1})), {0, 2, 1, 3});
}

// Attention-23 and 24: Q [B, Hq, S, d], K [B, Hkv, L, d], V [B, Hkv, L, dv] (or each 3-D, [B, S, heads * size],
// with q_num_heads and kv_num_heads), past_key and past_value put before K and V along the sequence (the
// present outputs), the query heads in Hkv groups (Hq a multiple of Hkv). Scores [B, Hq, S, P + L] (output 3)
// plus attn_mask (rank 2 to 4, its last two axes the query and total lengths, broadcast to the scores; 24:
// plus the per-entry nonpad_kv_seqlen), softmax over the keys, times V: Y [B, Hq, S, dv] (3-D: [B, S, Hq * dv]).
/// Attention's ranks, past and nonpad_kv_seqlen (24), as ONNX Runtime checks them; Q is of rank `rank`.
void attention_checks(node_context& c, std::size_t rank) {
  if (rank != 3 && rank != 4) c.bad(fmt::format("Q is of rank {}", rank), "Q, K and V are 3-D or 4-D");
  for (std::size_t k = 1; k < 3; ++k)
    if (const auto r = c.rank(k); r && *r != rank)
      c.bad(fmt::format("input {} is of rank {} and Q of rank {}", k, *r, rank), "Q, K and V have one rank");
  const auto past_key = c.input(4), past_value = c.input(5);
  if (past_key.has_value() != past_value.has_value())
    c.bad("it has one of past_key and past_value", "give both or neither");
  if (past_key && (!c.has_output(1) || !c.has_output(2)))
    c.bad("it has a past and not both present outputs", "ONNX Runtime runs a past only with present_key and present_value");
  const auto nonpad = c.version() >= 24 ? c.input(6) : std::nullopt;
  if (nonpad && past_key) c.bad("it has nonpad_kv_seqlen and past_key", "nonpad_kv_seqlen goes without the past");
}

/// Attention's Q, K and V as [B, heads, length, size]: 3-D inputs split into `q_heads` and `kv_heads` heads.
void attention_heads(node_context& c, std::size_t rank, std::int64_t q_heads, std::int64_t kv_heads, source& q, source& k,
                     source& v) {
  if (rank == 3) {
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
}

/// Attention's terms on its scores [B, Hq, S, T] (of shape `scores_shape`): attn_mask and nonpad_kv_seqlen.
source attention_score_terms(node_context& c, made_shapes& m, source scores, source scores_shape, source q, source k,
                             std::optional<source> nonpad) {
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
  return scores;
}

void attention(node_context& c) {
  made_shapes m;
  const auto rank = c.rank(0);
  if (!rank) return c.not_covered("Attention whose Q the model gives no rank is not covered (3-D and 4-D differ)");
  attention_checks(c, *rank);
  const auto past_key = c.input(4), past_value = c.input(5);
  const auto nonpad = c.version() >= 24 ? c.input(6) : std::nullopt;
  const auto q_heads = c.i("q_num_heads", 0), kv_heads = c.i("kv_num_heads", 0);
  source q = c.need(0), k = c.need(1), v = c.need(2);
  attention_heads(c, *rank, q_heads, kv_heads, q, k, v);
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
  // does not divide: the group's size is a quotient, not a -1, which a length of 0 would leave undecided),
  // against K and V with a group axis of 1.
  const auto group = c.add("Divide", 1, {dims(c, m, q, 1, 2), dims(c, m, k, 1, 2)}, {{"auto_broadcast", "numpy"}, {"m_pythondiv", "true"}});
  const auto grouped = [&](source x) {
    return reshape(c, x, concat(c, {dims(c, m, x, 0, 1), dims(c, m, k, 1, 2), group, dims(c, m, x, 2, 4)}, 0), false);
  };
  const auto q5 = grouped(q);
  const auto k5 = c.add("Unsqueeze", 1, {k, c.i64({2})});
  const auto v5 = c.add("Unsqueeze", 1, {v, c.i64({2})});
  const auto scores5 = c.add("MatMul", 1, {q5, k5}, {{"transpose_a", "false"}, {"transpose_b", "true"}});
  const auto scores_shape = concat(c, {dims(c, m, q, 0, 3), dims(c, m, k, 2, 3)}, 0);
  auto scores = attention_score_terms(c, m, reshape(c, scores5, scores_shape, false), scores_shape, q, k, nonpad);
  if (c.i("is_causal", 0) != 0) scores = plus_causal(c, m, scores);
  if (c.has_output(3)) c.output(3, scores);
  const auto weights = c.add("SoftMax", 8, {scores}, {{"axis", "-1"}});
  const auto y5 = c.add("MatMul", 1, {grouped(weights), v5}, {{"transpose_a", "false"}, {"transpose_b", "false"}});
  auto y = reshape(c, y5, concat(c, {dims(c, m, q, 0, 3), dims(c, m, v, 3, 4)}, 0), false);
  if (*rank == 3) y = reshape(c, transpose(c, y, {0, 2, 1, 3}), c.i64({0, 0, -1}));
  c.output(0, y);
}

/// Both RotaryEmbeddings' end: x seen as `xs` [B, S, heads, head] times its rows of the caches `row` (each
/// [..., 1, width], used twice: cos and sin), over the first `rotary` values of each head if given, else all,
/// and shaped back as x (3-D: `flat`, else [B, heads, S, head]).
source rotated(node_context& c, source x, bool flat, source xs, source row, std::int64_t rotary) {
  row = concat(c, {row, row}, -1);
  source y;
  if (rotary > 0) {
    const auto parts = c.add("VariadicSplit", 1, {xs, c.i64({-1}, scalar), c.i64({rotary / 2 * 2, -1})}, {}, 2);
    y = concat(c, {c.add("Multiply", 1, {parts, row}, numpy), source{parts.layer, 1}}, -1);
  } else {
    y = c.add("Multiply", 1, {xs, row}, numpy);
  }
  return flat ? reshape(c, y, c.shape_of(x), false) : transpose(c, y, {0, 2, 1, 3});
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
  c.output(0, rotated(c, x, *rank == 3, xs, row, c.i("rotary_embedding_dim", 0)));
}

// com.microsoft.RotaryEmbedding: input [B, S, hidden] or [B, heads, S, head], position_ids [B, S] or one
// offset (the positions offset to offset + S - 1 for every entry), caches [rows, width] of one shape, at least
// S rows. As ONNX's RotaryEmbedding, with ONNX Runtime's head size: hidden / num_heads, or twice the caches'
// width without num_heads (the hidden size a multiple of it); the width half of rotary_embedding_dim if
// given, else of the head size.
void ms_rotary_embedding(node_context& c) {
  made_shapes m;
  const auto rank = c.rank(0);
  if (!rank)
    return c.not_covered("com.microsoft.RotaryEmbedding whose input the model gives no rank is not covered (3-D and 4-D differ)");
  if (*rank != 3 && *rank != 4) c.bad(fmt::format("its input is of rank {}", *rank), "the input is 3-D or 4-D");
  const auto heads = c.i("num_heads", 0), rotary = c.i("rotary_embedding_dim", 0);
  if (rotary > 0 && heads == 0) c.bad("it has rotary_embedding_dim and no num_heads", "give num_heads with rotary_embedding_dim");
  for (std::size_t k = 2; k < 4; ++k)
    if (const auto r = c.rank(k); r && *r != 2) c.bad(fmt::format("input {} is of rank {}", k, *r), "the caches are 2-D");
  const auto position_rank = c.rank(1);
  if (!position_rank)
    return c.not_covered("com.microsoft.RotaryEmbedding whose position_ids the model gives no rank is not covered (an offset or one per position)");
  if (*position_rank > 2) c.bad(fmt::format("position_ids is of rank {}", *position_rank), "position_ids is one offset or [B, S]");
  const auto x = c.need(0);
  const auto width = dims(c, m, c.need(2), -1, 0);
  // [B, S, heads, head].
  source xs;
  if (*rank == 4) {
    xs = transpose(c, x, {0, 2, 1, 3});
  } else if (heads > 0) {
    xs = reshape(c, x, c.i64({0, 0, heads, -1}));
  } else {
    const auto head = c.add("Multiply", 1, {width, c.i64({2})}, numpy);
    xs = reshape(c, x, concat(c, {c.i64({0, 0, -1}), head}, 0));
  }
  const auto caches = c.add("VariadicSplit", 1,
                            {concat(c, {c.need(2), c.need(3)}, -1), c.i64({-1}, scalar), concat(c, {width, width}, 0)}, {}, 2);
  // At least S rows: the first S and the rest, put back together.
  const auto length = dims(c, m, xs, 1, 2);
  const auto split = c.add("VariadicSplit", 1, {caches, c.i64({0}, scalar), concat(c, {length, c.i64({-1})}, 0)}, {}, 2);
  const auto whole = concat(c, {split, source{split.layer, 1}}, 0);
  source row;
  if (*position_rank == 2) {
    // [B, S, 1, width]: batch and length those of the input exactly.
    row = c.add("Unsqueeze", 1, {c.add("Gather", 8, {whole, c.need(1), c.i64({0}, scalar)}, {{"batch_dims", "0"}}), c.i64({2})});
    std::tie(xs, row) = same_leading(c, m, xs, row, 2);
  } else {
    // One offset: the rows from it on, one per position, [S, 1, width].
    const auto offset = c.add("Reshape", 1, {c.need(1), c.i64({}, std::vector<std::int64_t>{0})}, {{"special_zero", "false"}});
    const auto at = c.add("Add", 1, {c.add("Range", 4, {c.i64({0}, scalar), c.add("Squeeze", 1, {length, c.i64({0})}), c.i64({1}, scalar)},
                                           {{"output_type", "i64"}}),
                                     c.add("Convert", 1, {offset}, {{"destination_type", "i64"}})},
                          numpy);
    row = c.add("Unsqueeze", 1, {c.add("Gather", 8, {whole, at, c.i64({0}, scalar)}, {{"batch_dims", "0"}}), c.i64({1})});
  }
  c.output(0, rotated(c, x, *rank == 3, xs, row, rotary));
}

/// The num_heads of com.microsoft's Attention and MultiHeadAttention (refused unless above 0); 0 when the
/// node shares its past's buffer with its present, which is not covered (the node is left to "cannot tell").
std::int64_t num_heads(node_context& c) {
  const auto heads = c.i("num_heads", 0);
  if (heads <= 0) c.bad(fmt::format("num_heads is {}", heads), "num_heads is above 0");
  if (c.i("past_present_share_buffer", 0) != 0) {
    c.not_covered(fmt::format("com.microsoft.{} with past_present_share_buffer is not covered (present is past's buffer)",
                              c.node().op_type()));
    return 0;
  }
  return heads;
}

/// A 1-D mask of lengths per batch entry, [B] or [2B], as [B]: seen as [k, B] and summed over k, so that entry
/// b's values meet entry b's scores and the batch stays on one axis (ONNX Runtime's [3B + 2] is refused: no
/// split of it keeps the batch apart).
source per_entry(node_context& c, made_shapes& m, source converted, source input) {
  const auto rows = reshape(c, converted, concat(c, {c.i64({-1}), dims(c, m, input, 0, 1)}, 0), false);
  return c.add("ReduceSum", 1, {rows, c.i64({0})}, {{"keep_dims", "false"}});
}

/// The scores [B, N, S, T] plus a com.microsoft.Attention mask_index, by its rank (ONNX Runtime's formats):
/// [B] key lengths or [2B] end and start positions, [B, T] key padding (or one column, [B or 1, 1]: no mask at
/// all), [B, S, T]. What meets the scores of entry b is the mask's entry b, whatever its values.
/// ONNX Runtime's CPU kernel runs no 4-D (Megatron) mask: not covered.
std::optional<source> add_mask_index(node_context& c, made_shapes& m, source scores, source input, std::size_t port, std::size_t rank) {
  const auto mask = c.need(port);
  const auto converted = c.add("ConvertLike", 1, {mask, scores});
  const auto batch = dims(c, m, input, 0, 1);
  source bias;
  switch (rank) {
    case 1: bias = c.add("Unsqueeze", 1, {per_entry(c, m, converted, input), c.i64({1, 2, 3})}); break;
    case 2:
      // [B, T], or one column ([B, 1] or [1, 1]: no mask at all). A constant is one or the other by its dims:
      // [B, T] exactly unless it has one column (a constant [1, T] is refused at another batch, as ONNX
      // Runtime refuses it). A computed mask broadcasts one way ([1, T] is then a batch of one).
      if (const auto d = c.constant_dims(port); d && d->size() == 2 && (*d)[1] != 1) {
        bias = c.add("Unsqueeze", 1, {exactly(c, exactly(c, converted, 0, batch), 1, dims(c, m, scores, 3, 4)), c.i64({1, 2})});
      } else {
        bias = c.add("Unsqueeze", 1, {converted, c.i64({1, 2})});
      }
      break;
    case 3:
      bias = exactly(c, exactly(c, converted, 0, batch), 1, dims(c, m, scores, 2, 3));
      bias = c.add("Unsqueeze", 1, {exactly(c, bias, 2, dims(c, m, scores, 3, 4)), c.i64({1})});
      break;
    case 4:
      c.not_covered("com.microsoft.Attention with a 4-D mask_index is not covered (ONNX Runtime's CPU kernel does not run it)");
      return std::nullopt;
    default: c.bad(fmt::format("mask_index is of rank {}", rank), "mask_index is 1-D to 4-D");
  }
  return c.add("Add", 1, {scores, broadcast(c, bias, c.shape_of(scores))}, numpy);
}

// com.microsoft.Attention (the BERT attention ONNX Runtime's optimiser fuses): input [B, S, Di] times weights
// [Di, D + D + Dv] plus bias, split into Q, K, V (qkv_hidden_sizes, else three equal parts) of num_heads
// heads each; past [2, B, N, P, H] put before K and V (present: [2, B, N, P + S, H]); the scores plus the
// mask_index and attention_bias; softmax; times V: [B, S, Dv].
/// com.microsoft.Attention's computation, for it and QAttention: `input` [B, S, Di] times `weights` plus `bias`,
/// with the mask_index of node input `mask_port`, the past of `past_port`, the attention_bias of `bias_port`.
void bert_attention(node_context& c, std::int64_t heads, source input, source weights, std::optional<source> bias,
                    std::size_t mask_port, std::size_t past_port, std::optional<std::size_t> bias_port) {
  made_shapes m;
  const auto past = c.input(past_port);
  const auto attention_bias = bias_port ? c.input(*bias_port) : std::nullopt;
  if (past && attention_bias) c.bad("it has past and attention_bias", "ONNX Runtime takes one of the two");
  if (past && !c.has_output(1)) c.bad("it has a past and no present output", "ONNX Runtime runs a past only with present");
  if (const auto r = c.rank(0); r && *r != 3) c.bad(fmt::format("its input is of rank {}", *r), "the input is [B, S, hidden]");
  auto qkv = c.add("MatMul", 1, {input, weights}, {{"transpose_a", "false"}, {"transpose_b", "false"}});
  if (bias) qkv = c.add("Add", 1, {qkv, exactly(c, *bias, 0, dims(c, m, weights, 1, 2))}, numpy);
  source parts;
  if (const auto sizes = c.ints("qkv_hidden_sizes")) {
    if (sizes->size() != 3) c.bad(fmt::format("qkv_hidden_sizes has {} values", sizes->size()), "it has three");
    if ((*sizes)[0] != (*sizes)[1]) c.bad("qkv_hidden_sizes gives Q and K two sizes", "Q and K have one hidden size");
    for (const auto size : *sizes)
      if (size <= 0 || size % heads != 0)
        c.bad(fmt::format("qkv_hidden_sizes holds {}, which the {} heads do not divide", size, heads));
    parts = c.add("VariadicSplit", 1, {qkv, c.i64({-1}, scalar), c.i64(*sizes)}, {}, 3);
  } else {
    parts = c.add("Split", 1, {qkv, c.i64({-1}, scalar)}, {{"num_splits", "3"}}, 3);
  }
  auto k = to_heads(c, source{parts.layer, 1}, heads);
  auto v = to_heads(c, source{parts.layer, 2}, heads);
  const auto q = to_heads(c, parts, heads);
  if (past) {
    // [2, B, N, P, H]: its two halves before K and V, which must then have one head size.
    const auto halves = c.add("VariadicSplit", 1, {*past, c.i64({0}, scalar), c.i64({1, 1})}, {}, 2);
    k = concat(c, {c.add("Squeeze", 1, {halves, c.i64({0})}), k}, 2);
    v = concat(c, {c.add("Squeeze", 1, {source{halves.layer, 1}, c.i64({0})}), v}, 2);
  }
  // [2, B, N, T, H]: K then V, of one head size with a past; without one ONNX Runtime's CPU kernel gives V's
  // head size to both halves whatever K's (each entry's keys and values meet its own half all the same).
  const auto present = concat(c, {c.add("Unsqueeze", 1, {past ? k : v, c.i64({0})}), c.add("Unsqueeze", 1, {v, c.i64({0})})}, 0);
  if (c.has_output(1)) c.output(1, present);
  auto scores = c.add("MatMul", 1, {q, k}, {{"transpose_a", "false"}, {"transpose_b", "true"}});
  if (c.input(mask_port)) {
    const auto rank = c.rank(mask_port);
    if (!rank)
      return c.not_covered(fmt::format("com.microsoft.{} whose mask_index the model gives no rank is not covered (its rank is its format)",
                                       c.node().op_type()));
    const auto masked = add_mask_index(c, m, scores, input, mask_port, *rank);
    if (!masked) return;
    scores = *masked;
  }
  if (attention_bias) {
    // 4-D (a Reshape that copies four dimensions refuses fewer), its dims 1 or the scores'.
    const auto four = reshape(c, *attention_bias, c.i64({0, 0, 0, 0}));
    scores = c.add("Add", 1, {scores, broadcast(c, four, c.shape_of(scores))}, numpy);
  }
  if (c.i("unidirectional", 0) != 0) scores = plus_causal(c, m, scores);
  const auto weights_v = c.add("SoftMax", 8, {scores}, {{"axis", "-1"}});
  const auto y = c.add("MatMul", 1, {weights_v, v}, {{"transpose_a", "false"}, {"transpose_b", "false"}});
  c.output(0, reshape(c, transpose(c, y, {0, 2, 1, 3}), c.i64({0, 0, -1})));
}
void ms_attention(node_context& c) {
  const auto heads = num_heads(c);
  if (heads == 0) return;
  bert_attention(c, heads, c.need(0), c.need(1), c.input(2), 3, 4, 5);
}
// com.microsoft.QAttention: Attention of the dequantized input (uint8) and weights, its input scale and zero
// point one value each (a Reshape to [1] refuses others), the weights' one or one per column (a one-way
// broadcast to the columns).
void ms_qattention(node_context& c) {
  const auto heads = num_heads(c);
  if (heads == 0) return;
  for (const std::size_t port : {4, 7})
    if (const auto r = c.rank(port); c.input(port) && r && *r > 1)
      c.bad(fmt::format("its {} is of rank {}", port == 4 ? "weight_scale" : "weight_zero_point", *r), "a scalar or one value per column");
  made_shapes m;
  const auto weights = c.need(1);
  const auto one = [&](source x, source like) { return reshape(c, c.add("ConvertLike", 1, {x, like}), c.i64({1}), false); };
  const auto per_column = [&](source x, source like) {
    return broadcast(c, reshape(c, c.add("ConvertLike", 1, {x, like}), c.i64({-1}), false), dims(c, m, weights, 1, 2));
  };
  auto input = as_f32(c, c.need(0));
  if (const auto zero = c.input(6)) input = c.add("Subtract", 1, {input, one(*zero, input)}, numpy);
  input = c.add("Multiply", 1, {input, one(c.need(3), input)}, numpy);
  auto w = as_f32(c, weights);
  if (const auto zero = c.input(7)) w = c.add("Subtract", 1, {w, per_column(*zero, w)}, numpy);
  w = c.add("Multiply", 1, {w, per_column(c.need(4), w)}, numpy);
  bert_attention(c, heads, input, w, c.add("ConvertLike", 1, {c.need(2), input}), 5, 8, std::nullopt);
}

// com.microsoft.MultiHeadAttention: query [B, S, D] with key [B, L, D] and value [B, L, Dv] (each split into
// num_heads heads, bias [D + D + Dv] added first), or with key and value already [B, N, L, H] (cross
// attention); past_key and past_value [B, N, P, H] before K and V (the present outputs); the scores
// (output 3) plus key_padding_mask ([B] lengths, [B, T], [B, S, T]) and
// attention_bias ([B or 1, N or 1, S, T]); softmax; times V: [B, S, Dv]. The packed formats (QKV in the
// query, KV in the key) are not covered.
/// MultiHeadAttention's bias [D + D + Dv] added to the query, key and value (a key of rank `kv_rank`).
void mha_add_bias(node_context& c, made_shapes& m, source bias, std::int64_t heads, std::size_t kv_rank, source& q,
                  source& k, source& v) {
  // [D + D + Dv]: its parts by Q's and K's hidden size, the rest V's (Dv = N * Hv for a 4-D value). A 4-D
  // key and value take no bias of their own (ONNX Runtime checks only its length).
  const auto d = dims(c, m, q, 2, 3);
  const auto parts = c.add("VariadicSplit", 1, {bias, c.i64({0}, scalar), concat(c, {d, d, c.i64({-1})}, 0)}, {}, 3);
  q = c.add("Add", 1, {q, parts}, numpy);
  if (kv_rank == 3) {
    k = c.add("Add", 1, {k, source{parts.layer, 1}}, numpy);
    v = c.add("Add", 1, {v, exactly(c, source{parts.layer, 2}, 0, dims(c, m, v, 2, 3))}, numpy);
  } else {
    const auto dv = c.add("Multiply", 1, {dims(c, m, v, 3, 4), c.i64({heads})}, numpy);
    q = c.add("Add", 1, {q, c.add("ReduceSum", 1, {exactly(c, source{parts.layer, 2}, 0, dv), c.i64({0})}, {{"keep_dims", "true"}})}, numpy);
  }
}

/// MultiHeadAttention's query, key and value as [B, N, length, H] (a key of rank `kv_rank`: 3-D split, 4-D as given).
void mha_heads(node_context& c, made_shapes& m, std::int64_t heads, std::size_t kv_rank, source& q, source& k, source& v) {
  q = to_heads(c, q, heads);
  if (kv_rank == 3) {
    // K of the query's hidden size exactly (its heads then Q's head size), its batch Q's.
    k = to_heads(c, exactly(c, k, 2, dims(c, m, c.need(0), 2, 3)), heads);
    v = to_heads(c, v, heads);
  } else {
    // [B, N, L, H], the value of the key's shape exactly (ONNX Runtime's).
    k = reshape(c, k, c.i64({0, heads, 0, 0}));
    v = exactly(c, reshape(c, v, c.i64({0, heads, 0, 0})), 3, dims(c, m, k, 3, 4));
  }
}

/// MultiHeadAttention's scores [B, N, S, T] plus its key_padding_mask, by the mask's rank (its format).
source mha_plus_key_padding_mask(node_context& c, made_shapes& m, source scores, source mask, std::size_t rank, source q,
                                 source k) {
  const auto converted = c.add("ConvertLike", 1, {mask, scores});
  if (rank == 1) {
    // [B] (ONNX Runtime's [3B + 2] is refused, as Attention's).
    return c.add("Add", 1, {scores, c.add("Unsqueeze", 1, {per_entry(c, m, converted, c.need(0)), c.i64({1, 2, 3})})}, numpy);
  }
  if (rank == 2 || rank == 3) {
    // [B, T] or [B, S, T] exactly: ONNX Runtime broadcasts no 1 there.
    auto bias = exactly(c, converted, 0, dims(c, m, q, 0, 1));
    bias = exactly(c, bias, -1, dims(c, m, k, 2, 3));
    if (rank == 3) bias = exactly(c, bias, 1, dims(c, m, q, 2, 3));
    bias = c.add("Unsqueeze", 1, {bias, c.i64(rank == 2 ? std::vector<std::int64_t>{1, 2} : std::vector<std::int64_t>{1})});
    return c.add("Add", 1, {scores, bias}, numpy);
  }
  c.bad(fmt::format("key_padding_mask is of rank {}", rank), "key_padding_mask is 1-D to 3-D");
}

void ms_multihead_attention(node_context& c) {
  made_shapes m;
  const auto heads = num_heads(c);
  if (heads == 0) return;
  const auto key = c.input(1), value = c.input(2);
  if (!key || !value)
    return c.not_covered("com.microsoft.MultiHeadAttention with packed QKV or KV is not covered");
  const auto ranks = std::array{c.rank(0), c.rank(1), c.rank(2)};
  if (!ranks[0] || !ranks[1] || !ranks[2])
    return c.not_covered("com.microsoft.MultiHeadAttention whose query, key or value the model gives no rank is not covered (ranks tell its formats apart)");
  if (*ranks[0] != 3) c.bad(fmt::format("its query is of rank {}", *ranks[0]), "the query is [B, S, D] when a key is given");
  if (*ranks[1] == 5) return c.not_covered("com.microsoft.MultiHeadAttention with packed KV is not covered");
  if ((*ranks[1] != 3 && *ranks[1] != 4) || *ranks[2] != *ranks[1])
    c.bad(fmt::format("its key is of rank {} and its value of rank {}", *ranks[1], *ranks[2]), "both are 3-D or both 4-D");
  const auto past_key = c.input(6), past_value = c.input(7);
  if (past_key.has_value() != past_value.has_value()) c.bad("it has one of past_key and past_value", "give both or neither");
  source q = c.need(0), k = *key, v = *value;
  if (const auto bias = c.input(3)) mha_add_bias(c, m, *bias, heads, *ranks[1], q, k, v);
  mha_heads(c, m, heads, *ranks[1], q, k, v);
  if (past_key && past_value) {
    // ONNX Runtime checks both pasts' head size against the key's.
    const auto head = dims(c, m, k, 3, 4);
    k = concat(c, {exactly(c, *past_key, 3, head), k}, 2);
    v = concat(c, {exactly(c, *past_value, 3, head), v}, 2);
  }
  std::tie(q, k) = same_leading(c, m, q, k, 1);
  // K and V agree in batch, heads and length.
  const auto both = concat(c, {k, v}, 3);
  const auto kv = c.add("VariadicSplit", 1, {both, c.i64({3}, scalar), concat(c, {dims(c, m, k, 3, 4), c.i64({-1})}, 0)}, {}, 2);
  k = kv;
  v = source{kv.layer, 1};
  if (c.has_output(1)) c.output(1, k);
  if (c.has_output(2)) c.output(2, v);
  auto scores = c.add("MatMul", 1, {q, k}, {{"transpose_a", "false"}, {"transpose_b", "true"}});
  if (const auto mask = c.input(4)) {
    const auto rank = c.rank(4);
    if (!rank) return c.not_covered("com.microsoft.MultiHeadAttention whose key_padding_mask the model gives no rank is not covered (its rank is its format)");
    scores = mha_plus_key_padding_mask(c, m, scores, *mask, *rank, q, k);
  }
  if (const auto extra = c.input(5)) {
    if (const auto r = c.rank(5); r && *r != 4) c.bad(fmt::format("attention_bias is of rank {}", *r), "attention_bias is 4-D");
    scores = c.add("Add", 1, {scores, broadcast(c, exactly(c, exactly(c, *extra, -1, dims(c, m, k, 2, 3)), -2, dims(c, m, q, 2, 3)),
                                                c.shape_of(scores))},
                   numpy);
  }
  if (c.i("unidirectional", 0) != 0) scores = plus_causal(c, m, scores);
  if (c.has_output(3)) c.output(3, scores);
  const auto weights = c.add("SoftMax", 8, {scores}, {{"axis", "-1"}});
  const auto y = c.add("MatMul", 1, {weights, v}, {{"transpose_a", "false"}, {"transpose_b", "false"}});
  c.output(0, reshape(c, transpose(c, y, {0, 2, 1, 3}), c.i64({0, 0, -1})));
}

// com.microsoft.EmbedLayerNormalization: the word, position and segment embeddings of each token summed
// (output 2), normalised over the hidden axis, times gamma plus beta; mask_index [B] the mask's sum per
// entry. The embeddings share one hidden size (concatenated along their rows, then split), segment_ids and
// the mask have input_ids' shape exactly, gamma and beta the hidden size; positions are 0 to S - 1 unless
// position_ids ([1 or B, S]) gives them. A segment_embedding without segment_ids is checked and not used.
// com.microsoft.QEmbedLayerNormalization: the same of uint8 tables, gamma and beta, each dequantised by its scale
// and zero point (inputs 8 to 12 and 13 to 17, one value each); no position_ids, two outputs.
/// QEmbedLayerNormalization's input `port` dequantised: (x - zero point) * scale, each one value.
source dequantised(node_context& c, std::size_t port) {
  const auto one = [&](source v) {
    return reshape(c, as_f32(c, v), c.i64({}, std::vector<std::int64_t>{0}), false);
  };
  auto x = as_f32(c, c.need(port));
  if (const auto zero = c.input(port + 11)) x = c.add("Subtract", 1, {x, one(*zero)}, numpy);
  return c.add("Multiply", 1, {x, one(c.need(port + 6))}, numpy);
}
template <bool Quantised>
void embed_layer_norm(node_context& c) {
  made_shapes m;
  if (Quantised && c.outputs() != 2) c.bad(fmt::format("it has {} outputs", c.outputs()), "output and mask_index");
  const auto table = [&](std::size_t port) { return Quantised ? dequantised(c, port) : c.need(port); };
  for (const std::size_t k : {0U, 1U, 7U})
    if (const auto r = c.rank(k); r && *r != 2) c.bad(fmt::format("input {} is of rank {}", k, *r), "it is [B, S]");
  auto ids = c.need(0);
  auto segments = c.input(1);
  const auto segment_table = c.input(4) ? std::optional<source>(table(4)) : std::nullopt;
  if (segments && !segment_table) c.bad("it has segment_ids and no segment_embedding", "give segment_embedding with them");
  if (c.outputs() < 2) c.bad("it has no mask_index output", "mask_index is a required output");
  // segment_ids and the mask of input_ids' shape: the ids taken through both checks, before any use.
  if (segments) std::tie(ids, *segments) = same_leading(c, m, ids, *segments, 2);
  auto mask = c.input(7);
  if (mask) std::tie(ids, *mask) = same_leading(c, m, ids, *mask, 2);
  std::vector<source> tables{table(2), table(3)};
  if (segment_table) tables.push_back(*segment_table);
  std::vector<source> rows;
  for (const auto& t : tables) rows.push_back(dims(c, m, t, 0, 1));
  const auto joined = c.add("VariadicSplit", 1, {concat(c, tables, 0), c.i64({0}, scalar), concat(c, rows, 0)}, {}, tables.size());
  const auto hidden = dims(c, m, tables[0], 1, 2);
  const auto gather = [&](std::size_t which, source at) {
    return c.add("Gather", 8, {source{joined.layer, which}, at, c.i64({0}, scalar)}, {{"batch_dims", "0"}});
  };
  auto sum = gather(0, ids);
  source positions;
  if (const auto given = Quantised ? std::nullopt : c.input(8)) {
    positions = gather(1, *given);
  } else {  // positions 0 to S - 1: the table's first S rows (a shorter table is refused, as ONNX Runtime does)
    positions = c.add("VariadicSplit", 1, {source{joined.layer, 1}, c.i64({0}, scalar), concat(c, {dims(c, m, ids, 1, 2), c.i64({-1})}, 0)},
                      {}, 2);
  }
  sum = c.add("Add", 1, {sum, broadcast(c, positions, c.shape_of(sum))}, numpy);
  if (segments) sum = c.add("Add", 1, {sum, gather(2, *segments)}, numpy);
  const auto normalised = c.add("MVN", 6, {sum, c.i64({-1})},
                                {{"eps", real(c.f("epsilon", 1e-12F))}, {"normalize_variance", "true"}, {"eps_mode", "inside_sqrt"}});
  const auto scaled = c.add("Multiply", 1, {normalised, exactly(c, table(5), 0, hidden)}, numpy);
  c.output(0, c.add("Add", 1, {scaled, exactly(c, table(6), 0, hidden)}, numpy));
  if (c.has_output(1)) c.output(1, c.add("ReduceSum", 1, {mask ? *mask : ids, c.i64({1})}, {{"keep_dims", "false"}}));
  if (c.has_output(2)) c.output(2, sum);
}

// com.microsoft.GroupQueryAttention (the decoder attention of ONNX Runtime's LLM exports): query [B, S, N * H]
// and key, value [B, S, Nk * H] (or one packed query [B, S, (N + 2 Nk) H] split in three), N num_heads and Nk
// kv_num_heads (N a multiple of Nk, H of 8), past_key and past_value [B, Nk, P, H] before K and V, seqlens_k one
// per entry, total_sequence_length T a scalar. Causal: a term of each (query, key) position pair, and each
// entry's seqlens_k, on its own scores. Output [B, S, N * H]; present_key and present_value [B, Nk, max(T, P), H]
// (P with sliding_window_cache): each of their positions meets every key and value position of its entry and
// head; output_qk [B, N, S, T]. The rotary caches [R, C] (do_rotary): of one shape, R at least T. A quantized KV
// cache is not covered.
/// com.microsoft.GroupQueryAttention's query, optional inputs and attributes, as ONNX Runtime checks them.
void gqa_checks(node_context& c) {
  if (const auto r = c.rank(0); r && *r != 3) c.bad(fmt::format("its query is of rank {}", *r), "the query is [B, S, hidden]");
  if (c.input(1).has_value() != c.input(2).has_value()) c.bad("it has one of key and value", "give both, or a packed query");
  if (c.input(3).has_value() != c.input(4).has_value()) c.bad("it has one of past_key and past_value", "give both or neither");
  if (c.i("causal", 1) == 0 && c.i("local_window_size", -1) != -1)
    c.bad("it is not causal and has a local window", "local_window_size is -1 without causal");
  // output_qk with qk_output 0: ONNX Runtime refuses it beside a past (and runs it without one).
  if (c.has_output(3) && c.i("qk_output", 0) == 0 && c.input(3))
    c.bad("it has output_qk and a past, and qk_output is 0", "set qk_output to 1 or 2");
  if (!c.has_output(3) && c.i("qk_output", 0) != 0) c.bad("its qk_output is set without output_qk", "give the fourth output");
  if (const auto v = c.constant_ints(6); v && (v->size() != 1 || (*v)[0] < 1))
    c.bad("its total_sequence_length is not one value above 0");
}

/// GroupQueryAttention's rotary caches on q and k ([B, heads, S, H]) of `total` positions.
void gqa_rotate(node_context& c, made_shapes& m, source& q, source& k, source total) {
  // The caches [R, C] of one shape, C a multiple of 8 ([R, C / 8, 8]), of T rows at least: side by side, split
  // in two equal parts, then after T rows; each head's first 2 C values rotated (a split refuses 2 C above H).
  if (const auto r = c.rank(7); r && *r != 2) c.bad(fmt::format("its cos_cache is of rank {}", *r), "the caches are [rows, width]");
  const auto width = dims(c, m, c.need(7), -1, 0);
  auto caches = c.add("VariadicSplit", 1, {concat(c, {c.need(7), c.need(8)}, -1), c.i64({-1}, scalar), concat(c, {width, width}, 0)}, {}, 2);
  caches = reshape(c, caches, c.i64({0, -1, 8}));
  caches = c.add("VariadicSplit", 1, {caches, c.i64({0}, scalar), concat(c, {total, c.i64({-1})}, 0)}, {}, 2);
  const auto angle = c.add("ConvertLike", 1, {c.add("ReduceSum", 1, {caches, c.i64({0, 1, 2})}, {{"keep_dims", "false"}}), q});
  const auto rotated_part = c.add("Multiply", 1, {width, c.i64({2}, scalar)}, numpy);
  const auto turn = [&](source x) {
    const auto parts = c.add("VariadicSplit", 1, {x, c.i64({-1}, scalar), concat(c, {rotated_part, c.i64({-1})}, 0)}, {}, 2);
    return concat(c, {c.add("Multiply", 1, {parts, angle}, numpy), source{parts.layer, 1}}, -1);
  };
  q = turn(q);
  k = turn(k);
}

/// GroupQueryAttention's terms on its scores [B, N, S, T] of `total` positions: each entry's seqlens_k,
/// position_ids, attention_bias and head_sink.
source gqa_score_terms(node_context& c, made_shapes& m, source scores, source q, source total) {
  // Each entry's seqlens_k ([B], [B, 1] or [1, B]: B values, not a scalar) on its own scores.
  if (const auto r = c.rank(5); r && *r == 0) c.bad("its seqlens_k is a scalar", "seqlens_k holds one value per batch entry");
  const auto lengths = exactly(c, reshape(c, c.add("ConvertLike", 1, {c.need(5), scores}), c.i64({-1}), false), 0, dims(c, m, q, 0, 1));
  scores = c.add("Add", 1, {scores, c.add("Unsqueeze", 1, {lengths, c.i64({1, 2, 3})})}, numpy);
  if (const auto ids = c.input(9)) {
    // position_ids [B, S or more]: each entry's on its scores.
    const auto cut = c.add("VariadicSplit", 1, {exactly(c, *ids, 0, dims(c, m, q, 0, 1)), c.i64({1}, scalar), concat(c, {dims(c, m, q, 2, 3), c.i64({-1})}, 0)}, {}, 2);
    const auto sums = c.add("ReduceSum", 1, {cut, c.i64({1})}, {{"keep_dims", "false"}});
    scores = c.add("Add", 1, {scores, c.add("Unsqueeze", 1, {c.add("ConvertLike", 1, {sums, scores}), c.i64({1, 2, 3})})}, numpy);
  }
  if (const auto bias = c.input(10)) {
    // [B or 1, N or 1, S, T]: its last axes S and T exactly, the others broadcast to the scores'.
    if (const auto r = c.rank(10); r && *r != 4) c.bad(fmt::format("attention_bias is of rank {}", *r), "attention_bias is 4-D");
    auto b = exactly(c, exactly(c, c.add("ConvertLike", 1, {*bias, scores}), -1, total), -2, dims(c, m, q, 2, 3));
    b = c.add("ReduceSum", 1, {b, c.i64({-1})}, {{"keep_dims", "true"}});
    b = broadcast(c, b, concat(c, {dims(c, m, q, 0, 3), c.i64({1})}, 0));
    scores = c.add("Add", 1, {scores, b}, numpy);
  }
  if (const auto sink = c.input(11)) {
    const auto each = exactly(c, c.add("ConvertLike", 1, {*sink, scores}), 0, dims(c, m, q, 1, 2));
    scores = c.add("Add", 1, {scores, c.add("Unsqueeze", 1, {each, c.i64({0, 2, 3})})}, numpy);
  }
  return scores;
}

void ms_group_query_attention(node_context& c) {
  made_shapes m;
  const auto heads = c.i("num_heads", 0), kv_heads = c.i("kv_num_heads", 0);
  if (heads <= 0 || kv_heads <= 0 || heads > (std::int64_t{1} << 31) || kv_heads > (std::int64_t{1} << 31) || heads % kv_heads != 0)
    c.bad(fmt::format("num_heads is {} and kv_num_heads {}", heads, kv_heads), "both above 0, num_heads a multiple of kv_num_heads");
  if (c.input(12) || c.input(13) || c.attribute("kv_cache_bit_width") != nullptr)
    return c.not_covered("com.microsoft.GroupQueryAttention with a quantized KV cache is not covered");
  gqa_checks(c);
  const auto key = c.input(1), value = c.input(2);
  const auto past_key = c.input(3), past_value = c.input(4);
  source q = c.need(0);
  source k, v;
  if (!key) {
    // (N + 2 Nk) heads of H: N H, Nk H and Nk H, the split refusing a hidden size the heads do not divide.
    const auto size = c.add("Divide", 1, {dims(c, m, q, 2, 3), c.i64({heads + 2 * kv_heads}, scalar)}, numpy);
    const auto part = [&](std::int64_t n) { return c.add("Multiply", 1, {size, c.i64({n}, scalar)}, numpy); };
    const auto parts = c.add("VariadicSplit", 1, {q, c.i64({2}, scalar), concat(c, {part(heads), part(kv_heads), part(kv_heads)}, 0)}, {}, 3);
    q = parts;
    k = source{parts.layer, 1};
    v = source{parts.layer, 2};
  } else {
    // K and V of the query's length, side by side (of one batch and length), then apart.
    const auto both = concat(c, {exactly(c, *key, 1, dims(c, m, q, 1, 2)), *value}, 2);
    const auto parts = c.add("VariadicSplit", 1, {both, c.i64({2}, scalar), concat(c, {dims(c, m, *key, 2, 3), c.i64({-1})}, 0)}, {}, 2);
    k = parts;
    v = source{parts.layer, 1};
  }
  // Heads of a size that is a multiple of 8, of 16 with the rotary caches (ONNX Runtime's): [B, S, heads, H / 8,
  // 8] back to [B, heads, S, H].
  const bool rotary = c.i("do_rotary", 0) != 0 || c.input(7);
  const auto split_heads = [&](source x, std::int64_t n) {
    return transpose(c, reshape(c, reshape(c, x, c.i64({0, 0, n, -1, rotary ? 16 : 8})), c.i64({0, 0, 0, -1})), {0, 2, 1, 3});
  };
  q = split_heads(q, heads);
  k = split_heads(k, kv_heads);
  v = split_heads(v, kv_heads);
  std::tie(q, k) = same_leading(c, m, q, k, 1);
  if (past_key) {
    k = concat(c, {*past_key, k}, 2);
    v = concat(c, {*past_value, v}, 2);
  }
  const auto both = concat(c, {k, v}, 3);
  const auto kv = c.add("VariadicSplit", 1, {both, c.i64({3}, scalar), concat(c, {dims(c, m, k, 3, 4), c.i64({-1})}, 0)}, {}, 2);
  k = kv;
  v = source{kv.layer, 1};
  const auto total = c.add("Convert", 1, {reshape(c, c.need(6), c.i64({1}), false)}, {{"destination_type", "i64"}});
  if (rotary) gqa_rotate(c, m, q, k, total);
  const auto group = c.add("Divide", 1, {dims(c, m, q, 1, 2), dims(c, m, k, 1, 2)}, {{"auto_broadcast", "numpy"}, {"m_pythondiv", "true"}});
  const auto grouped = [&](source x) {
    return reshape(c, x, concat(c, {dims(c, m, x, 0, 1), dims(c, m, k, 1, 2), group, dims(c, m, x, 2, 4)}, 0), false);
  };
  const auto scores5 = c.add("MatMul", 1, {grouped(q), c.add("Unsqueeze", 1, {k, c.i64({2})})}, {{"transpose_a", "false"}, {"transpose_b", "true"}});
  auto scores = reshape(c, scores5, concat(c, {dims(c, m, q, 0, 3), dims(c, m, k, 2, 3)}, 0), false);
  scores = gqa_score_terms(c, m, scores, q, total);
  if (c.i("causal", 1) != 0) scores = plus_causal(c, m, scores);
  if (c.has_output(3)) {
    const auto qk_shape = concat(c, {dims(c, m, scores, 0, 3), total}, 0);
    c.output(3, broadcast(c, c.add("ReduceSum", 1, {scores, c.i64({-1})}, {{"keep_dims", "true"}}), qk_shape));
  }
  const auto weights = c.add("SoftMax", 8, {scores}, {{"axis", "-1"}});
  const auto y5 = c.add("MatMul", 1, {grouped(weights), c.add("Unsqueeze", 1, {v, c.i64({2})})}, {{"transpose_a", "false"}, {"transpose_b", "false"}});
  const auto y = reshape(c, y5, concat(c, {dims(c, m, q, 0, 3), dims(c, m, v, 3, 4)}, 0), false);
  c.output(0, reshape(c, transpose(c, y, {0, 2, 1, 3}), c.i64({0, 0, -1})));
  // The presents: max(T, P) positions (P with a sliding window cache), each meeting all of its entry's and head's.
  const auto past_length = past_key ? dims(c, m, *past_key, 2, 3) : c.i64({0});
  const auto length = c.i("sliding_window_cache", 0) != 0 && past_key ? past_length : c.add("Maximum", 1, {total, past_length}, numpy);
  const auto present = [&](source x) {
    const auto shape = concat(c, {dims(c, m, x, 0, 2), length, dims(c, m, x, 3, 4)}, 0);
    return broadcast(c, c.add("ReduceSum", 1, {x, c.i64({2})}, {{"keep_dims", "true"}}), shape);
  };
  if (c.has_output(1)) c.output(1, present(k));
  if (c.has_output(2)) c.output(2, present(v));
}

// com.microsoft.DecoderMaskedMultiHeadAttention (a beam search's decoder step, one token: S = 1). Self
// attention: query, key and value [B, 1, D] of num_heads heads (plus a bias [3 D]), the pasts [B, N, M, H]
// (buffers of M rows of which past_sequence_length P are used, P < M), the key and value written into them:
// the presents are the pasts' shape, each position meeting its entry's and head's keys or values; scores over
// the P + 1 positions (output_qk [B, N, 1, P + 1]) plus a mask [B, P + 1] and an attention_bias
// [B or 1, N or 1, 1, P + 1]. Cross attention (no past): key and value [B, N, L, H] or [B, L, D], a mask
// [B, L], one output. Output [B, 1, D].
/// DecoderMaskedMultiHeadAttention's past, outputs and beams, as ONNX Runtime checks them.
void dmmha_checks(node_context& c) {
  const auto past_key = c.input(5), past_value = c.input(6);
  if (past_key.has_value() != past_value.has_value()) c.bad("it has one of past_key and past_value", "give both or neither");
  if (past_key) {
    if (c.i("past_present_share_buffer", 0) != 1)
      c.bad("it has a past without past_present_share_buffer", "ONNX Runtime's kernel writes the token into the past's buffer");
    if (!c.input(7)) c.bad("it has a past without past_sequence_length", "past_sequence_length says how many rows are used");
  } else {
    if (c.outputs() > 1) c.bad("it has present outputs without a past", "cross attention has one output");
    if (c.input(4)) c.bad("it has attention_bias in cross attention", "ONNX Runtime takes it in self attention only");
  }
  if (const auto beams = c.constant_ints(8); beams && beams->size() == 1 && (*beams)[0] > 1 && !c.input(9))
    c.bad(fmt::format("its beam_width is {} without cache_indirection", (*beams)[0]), "beams need their cache indirection");
}

/// DecoderMaskedMultiHeadAttention's bias [3 D] added to the query, and to a key and value that are not 4-D.
void dmmha_add_bias(node_context& c, made_shapes& m, source bias, bool cross_4d, source& q, source& k, source& v) {
  // [D + D + D], each part added to its input (the bias of 4-D key and value is the kernel's business).
  const auto parts = c.add("Split", 1, {exactly(c, bias, 0, c.add("Multiply", 1, {dims(c, m, q, 2, 3), c.i64({3}, scalar)}, numpy)),
                                        c.i64({0}, scalar)}, {{"num_splits", "3"}}, 3);
  q = c.add("Add", 1, {q, parts}, numpy);
  if (!cross_4d) {
    k = c.add("Add", 1, {k, source{parts.layer, 1}}, numpy);
    v = c.add("Add", 1, {v, source{parts.layer, 2}}, numpy);
  }
}

/// DecoderMaskedMultiHeadAttention's terms on its scores [B, N, 1, `length`]: the mask and attention_bias.
source dmmha_score_terms(node_context& c, made_shapes& m, source scores, source q, source length) {
  if (const auto mask = c.input(3)) {
    if (const auto r = c.rank(3); r && *r != 2) c.bad(fmt::format("its mask_index is of rank {}", *r), "the mask is [B, length]");
    const auto each = exactly(c, exactly(c, c.add("ConvertLike", 1, {*mask, scores}), 0, dims(c, m, q, 0, 1)), 1, length);
    scores = c.add("Add", 1, {scores, c.add("Unsqueeze", 1, {c.add("ReduceSum", 1, {each, c.i64({1})}, {{"keep_dims", "false"}}), c.i64({1, 2, 3})})}, numpy);
  }
  if (const auto bias = c.input(4)) {
    if (const auto r = c.rank(4); r && *r != 4) c.bad(fmt::format("attention_bias is of rank {}", *r), "attention_bias is 4-D");
    auto b = exactly(c, exactly(c, c.add("ConvertLike", 1, {*bias, scores}), -1, length), -2, c.i64({1}));
    b = broadcast(c, c.add("ReduceSum", 1, {b, c.i64({-1})}, {{"keep_dims", "true"}}), concat(c, {dims(c, m, q, 0, 3), c.i64({1})}, 0));
    scores = c.add("Add", 1, {scores, b}, numpy);
  }
  return scores;
}

/// DecoderMaskedMultiHeadAttention's self attention: the past's `used` rows (P + 1) in its scores, and the
/// presents and output_qk, each position meeting its entry's and head's.
source dmmha_past_rows(node_context& c, made_shapes& m, source scores, source past_key, source used, source k, source v) {
  // P + 1 rows of the past's M at most (P below M): the buffer split after P + 1 rows, whose sum each entry's
  // and head's scores take in.
  const auto rows = c.add("VariadicSplit", 1, {past_key, c.i64({2}, scalar), concat(c, {used, c.i64({-1})}, 0)}, {}, 2);
  const auto held = c.add("ReduceSum", 1, {rows, c.i64({2, 3})}, {{"keep_dims", "false"}});
  scores = c.add("Add", 1, {scores, c.add("Unsqueeze", 1, {c.add("ConvertLike", 1, {held, scores}), c.i64({2, 3})})}, numpy);
  const auto present = [&](source x) {
    const auto to = concat(c, {dims(c, m, x, 0, 2), dims(c, m, past_key, 2, 3), dims(c, m, x, 3, 4)}, 0);
    return broadcast(c, c.add("ReduceSum", 1, {x, c.i64({2})}, {{"keep_dims", "true"}}), to);
  };
  if (c.has_output(1)) c.output(1, present(k));
  if (c.has_output(2)) c.output(2, present(v));
  if (c.has_output(3)) {
    const auto to = concat(c, {dims(c, m, scores, 0, 3), used}, 0);
    c.output(3, broadcast(c, c.add("ReduceSum", 1, {scores, c.i64({-1})}, {{"keep_dims", "true"}}), to));
  }
  return scores;
}

void ms_decoder_masked_mha(node_context& c) {
  made_shapes m;
  const auto heads = c.i("num_heads", 0);
  if (heads <= 0 || heads > (std::int64_t{1} << 31)) c.bad(fmt::format("num_heads is {}", heads), "num_heads is above 0");
  dmmha_checks(c);
  const auto past_key = c.input(5), past_value = c.input(6);
  auto q = exactly(c, c.need(0), 1, c.i64({1}));
  auto k = c.need(1), v = c.need(2);
  const bool cross_4d = !past_key && c.rank(1) && *c.rank(1) == 4;
  if (const auto bias = c.input(10)) dmmha_add_bias(c, m, *bias, cross_4d, q, k, v);
  q = to_heads(c, q, heads);
  if (!cross_4d) {
    k = to_heads(c, k, heads);
    v = to_heads(c, v, heads);
  }
  std::tie(q, k) = same_leading(c, m, q, k, 1);
  std::optional<source> used;  // P + 1, with a past
  if (past_key) {
    k = concat(c, {*past_key, k}, 2);
    v = concat(c, {*past_value, v}, 2);
    used = c.add("Add", 1, {c.add("Convert", 1, {reshape(c, c.need(7), c.i64({1}), false)}, {{"destination_type", "i64"}}), c.i64({1}, scalar)}, numpy);
    if (const auto p = c.constant_ints(7); p && p->size() == 1 && (*p)[0] < 0)
      c.bad(fmt::format("its past_sequence_length is {}", (*p)[0]), "0 at least, below the past's length");
  }
  const auto both = concat(c, {k, v}, 3);
  // Of one head size (ONNX Runtime's kernel): two equal parts.
  const auto kv = c.add("VariadicSplit", 1, {both, c.i64({3}, scalar), concat(c, {dims(c, m, k, 3, 4), dims(c, m, k, 3, 4)}, 0)}, {}, 2);
  k = kv;
  v = source{kv.layer, 1};
  auto scores = c.add("MatMul", 1, {q, k}, {{"transpose_a", "false"}, {"transpose_b", "true"}});
  const auto length = used ? *used : dims(c, m, k, 2, 3);
  scores = dmmha_score_terms(c, m, scores, q, length);
  if (past_key) scores = dmmha_past_rows(c, m, scores, *past_key, *used, k, v);
  const auto weights = c.add("SoftMax", 8, {scores}, {{"axis", "-1"}});
  const auto y = c.add("MatMul", 1, {weights, v}, {{"transpose_a", "false"}, {"transpose_b", "false"}});
  c.output(0, reshape(c, transpose(c, y, {0, 2, 1, 3}), c.i64({0, 0, -1})));
}

// TensorScatter-24: the cache [B, ..., max, ...] with each entry's update [B, ..., n, ...] written along
// `axis` (-2 by default) from its write index: the cache's shape. An element of the cache meets the updates
// and the write index of its own entry: the sums of cache and update over the axis, added without
// broadcasting (every other dimension must be equal), broadcast back along it. The update is not longer than
// the cache along the axis (a split of the cache at its length).
void tensor_scatter(node_context& c) {
  const auto mode = c.s("mode", "linear");
  if (mode != "linear" && mode != "circular") c.bad(fmt::format("mode is '{}'", mode), "linear or circular");
  const auto axis = c.i("axis", -2);
  // Bounded before any arithmetic on it (a model's attribute may hold any value).
  if (axis > (std::int64_t{1} << 31) || axis < -(std::int64_t{1} << 31)) c.bad(fmt::format("axis is {}", axis));
  if (const auto r = c.rank(0)) {
    const auto rank = static_cast<std::int64_t>(*r);
    // ONNX Runtime takes an axis other than the batch's.
    if (axis < -rank || axis >= rank || axis == 0 || axis == -rank)
      c.bad(fmt::format("axis {} is not a sequence axis of a cache of rank {}", axis, rank), "the axis is not 0, the batch's");
  } else if (axis == 0) {
    c.bad("axis 0 is the batch's", "TensorScatter writes along another axis");
  }
  const auto cache = c.need(0);
  const auto update = c.need(1);
  const auto keep = attributes{{"keep_dims", "true"}};
  const auto along = c.i64({axis});
  // The cache split at the update's length along the axis: refused when the update is the longer.
  made_shapes m;
  const auto parts = c.add("VariadicSplit", 1, {cache, c.i64({axis}, scalar), concat(c, {dims(c, m, update, axis, axis == -1 ? 0 : axis + 1), c.i64({-1})}, 0)},
                           {}, 2);
  const auto cached = c.add("Add", 1, {c.add("ReduceSum", 1, {parts, along}, keep), c.add("ReduceSum", 1, {source{parts.layer, 1}, along}, keep)}, numpy);
  const auto sums = c.add("Add", 1, {cached, c.add("ReduceSum", 1, {update, along}, keep)}, {{"auto_broadcast", "none"}});
  auto y = c.add("Add", 1, {cache, sums}, numpy);
  if (const auto at = c.input(2)) {
    // One write index for each entry: [B] exactly, seen as [B, 1, ...].
    const auto each = exactly(c, *at, 0, dims(c, m, cache, 0, 1));
    const auto ones = c.add("Broadcast", 3, {c.i64({1}, scalar), c.add("Subtract", 1, {c.add("Unsqueeze", 1, {c.rank_of(cache), c.i64({0})}), c.i64({1}, scalar)}, numpy)},
                            {{"mode", "numpy"}});
    const auto shaped = reshape(c, each, c.add("Concat", 1, {c.i64({-1}), ones}, {{"axis", "0"}}), false);
    y = c.add("Add", 1, {y, c.add("ConvertLike", 1, {shaped, y})}, numpy);
  }
  c.output(0, y);
}

}  // namespace

std::span<const onnx_entry> attention_rows() {
  static const std::vector<onnx_entry> rows = {
      {"Attention", 23, attention}, {"Attention", 24, attention}, {"RotaryEmbedding", 23, rotary_embedding},
      {"RotaryEmbedding", 1, ms_rotary_embedding, "com.microsoft"},
      {"Attention", 1, ms_attention, "com.microsoft"},
      {"MultiHeadAttention", 1, ms_multihead_attention, "com.microsoft"},
      {"EmbedLayerNormalization", 1, embed_layer_norm<false>, "com.microsoft"},
      {"QEmbedLayerNormalization", 1, embed_layer_norm<true>, "com.microsoft"}, {"TensorScatter", 24, tensor_scatter},
      {"GroupQueryAttention", 1, ms_group_query_attention, "com.microsoft"},
      {"QAttention", 1, ms_qattention, "com.microsoft"},
      {"DecoderMaskedMultiHeadAttention", 1, ms_decoder_masked_mha, "com.microsoft"},
      // No shape of it could be checked: every model of one node is refused when run.
      untranslated("SparseAttention", 1,
                   "ONNX Runtime's CPU kernel runs it only with present_key and present_value bound to past_key's and "
                   "past_value's buffers, which a session's run never gives, so no answer of its own to check a rule against",
                   "com.microsoft"),
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
