// ONNX's LSTM, GRU and RNN as OpenVINO's sequence ops, whose layout and bias are not ONNX's.
#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

using attributes = node_context::attributes;

/// LSTM, GRU and RNN: ONNX's layout is sequence-major (X [L, N, I], states [D, N, H], Y [L, D, N, H])
/// unless layout = 1; OpenVINO's sequences are batch-major. Transposes on the way in and out, B's two
/// halves added (OpenVINO has one bias per gate), missing lengths and states filled.
/// `x0` is X [L, N, I] (or batch-first with layout 1), `w` and `r` W [D, gates * H, I] and R [D, gates * H, H].
template <int Gates>
void recurrent_with(node_context& c, source x0, source w, source r) {
  const char* type = Gates == 4 ? "LSTMSequence" : Gates == 3 ? "GRUSequence" : "RNNSequence";
  const auto hidden = c.i("hidden_size");
  if (!hidden) c.bad("needs the attribute hidden_size");
  const auto direction = c.s("direction", "forward");
  const std::int64_t dirs = direction == "bidirectional" ? 2 : 1;
  const bool batch_first = c.i("layout", 0) != 0;
  // LSTM's peepholes P [D, 3H] change the values only; their shape is checked where a Const gives it.
  if (Gates == 4 && c.input(7)) {
    const auto p = c.constant_dims(7);
    if (!p) return c.not_covered("LSTM with peepholes (P) that no Const gives is not covered");
    if (*p != std::vector<std::int64_t>{dirs, 3 * *hidden})
      c.bad(fmt::format("its peepholes P (input 7) are [{}], not [{}, {}]", fmt::join(*p, ","), dirs, 3 * *hidden),
            "P is [num_directions, 3 * hidden_size]");
  }
  const auto x = batch_first ? x0 : c.add("Transpose", 1, {x0, c.i64({1, 0, 2})});
  const auto shape = c.shape_of(x);
  const auto batch = c.add("Gather", 8, {shape, c.i64({0}), c.i64({0}, std::vector<std::int64_t>{})}, {{"batch_dims", "0"}});
  const auto seq = c.add("Gather", 8, {shape, c.i64({1}), c.i64({0}, std::vector<std::int64_t>{})}, {{"batch_dims", "0"}});
  const auto state = [&](std::size_t port) {
    if (const auto s = c.input(port))
      return batch_first ? *s : c.add("Transpose", 1, {*s, c.i64({1, 0, 2})});
    const auto dims = c.add("Concat", 1, {batch, c.i64({dirs, *hidden})}, {{"axis", "0"}});
    return c.add("Broadcast", 3, {c.f32({0.0F}, true), dims}, {{"mode", "numpy"}});
  };
  const auto h0 = state(5);
  const auto lengths = c.input(4) ? *c.input(4) : c.add("Broadcast", 3, {seq, batch}, {{"mode", "numpy"}});
  const auto g = (Gates == 3 && c.i("linear_before_reset", 0) != 0) ? 4 : Gates;
  source bias;
  if (const auto b = c.input(3)) {
    const auto halves = c.add("Split", 1, {*b, c.i64({1}, std::vector<std::int64_t>{})}, {{"num_splits", "2"}}, 2);
    bias = g == Gates ? c.add("Add", 1, {halves, source{halves.layer, 1}}, {{"auto_broadcast", "numpy"}})
                      : c.add("Concat", 1, {c.add("Add", 1, {halves, source{halves.layer, 1}}, {{"auto_broadcast", "numpy"}}),
                                            c.add("Broadcast", 3, {c.f32({0.0F}, true), c.i64({dirs, *hidden})}, {{"mode", "numpy"}})},
                                  {{"axis", "1"}});
    if (g != Gates) bias = c.add("StridedSlice", 1, {bias, c.i64({0, 0}), c.i64({0, g * *hidden}), c.i64({1, 1})},
                                 {{"begin_mask", "1,1"}, {"end_mask", "1,0"}});
  } else {
    bias = c.add("Broadcast", 3, {c.f32({0.0F}, true), c.i64({dirs, g * *hidden})}, {{"mode", "numpy"}});
  }
  std::vector<source> in{x, h0};
  if (Gates == 4) in.push_back(state(6));
  in.insert(in.end(), {lengths, w, r, bias});
  attributes a{{"hidden_size", fmt::format("{}", *hidden)}, {"direction", direction}};
  if (Gates == 3) a.emplace_back("linear_before_reset", c.i("linear_before_reset", 0) != 0 ? "true" : "false");
  const auto y = c.add(type, 5, std::move(in), std::move(a), Gates == 4 ? 3 : 2);
  // Y [N, D, L, H] back to [L, D, N, H] (or [N, L, D, H] batch-first); the states [N, D, H] to [D, N, H].
  c.output(0, c.add("Transpose", 1, {y, c.i64(batch_first ? std::vector<std::int64_t>{0, 2, 1, 3} : std::vector<std::int64_t>{2, 1, 0, 3})}));
  for (std::size_t k = 1; k < (Gates == 4 ? 3U : 2U); ++k) {
    const source s{y.layer, k};
    c.output(k, batch_first ? s : c.add("Transpose", 1, {s, c.i64({1, 0, 2})}));
  }
}

template <int Gates>
void recurrent(node_context& c) {
  recurrent_with<Gates>(c, c.need(0), c.need(1), c.need(2));
}
// com.microsoft.DynamicQuantizeLSTM: LSTM of int8 or uint8 weights held transposed, W [D, I, 4 H] and R [D, H, 4 H]
// (each dequantised by its scale and zero point, per direction or per column), sequence-major only (no layout).
void dynamic_quantize_lstm(node_context& c) {
  if (c.attribute("layout") != nullptr) c.bad("it has a layout attribute", "DynamicQuantizeLSTM is sequence-major");
  const auto turned = [&](std::size_t port) {
    return c.add("Transpose", 1, {c.add("Convert", 1, {c.need(port)}, {{"destination_type", "f32"}}), c.i64({0, 2, 1})});
  };
  const auto w = turned(1);
  const auto r = turned(2);
  recurrent_with<4>(c, c.need(0), w, r);
}

// com.microsoft.AttnLSTM: an LSTM whose input at each step is X's row beside the attention state of its batch
// entry, C wide (the memory's depth, or AW's last axis with an attention layer): W is [D, 4 H, I + C]. The memory
// M [N, steps, depth] is of X's batch, memory_seq_lens [N] (values in (0, steps], checked where a Const gives
// them), the memory layer MW [D, depth, A], the query layer QW [D, H, A], V [D, A] and AW [D, depth + H, C], each
// exactly, as ONNX Runtime checks them. The state of entry n meets entry n's memory and the attention weights.
/// AttnLSTM's attention state as [L, N, C] beside X, checking the attention inputs on the way.
source attention_state(node_context& c, source x, std::int64_t dirs, std::int64_t hidden) {
  const auto dims = [&](source t, std::int64_t from, std::int64_t to) { return shape_slice(c, c.shape_of(t), from, to); };
  const auto batch = dims(x, 1, 2);
  auto memory = exactly(c, c.need(11), 0, batch);
  const auto depth = dims(memory, 2, 3);
  if (const auto lengths = c.input(12)) {
    const auto each = exactly(c, *lengths, 0, batch);
    if (const auto v = c.constant_ints(12); v && !v->empty()) {
      for (const auto length : *v)
        if (length <= 0) c.bad(fmt::format("its memory_seq_lens holds {}", length), "each length is in (0, the memory's steps]");
      // No more than the memory's steps: a split of the memory after the longest.
      const auto longest = *std::max_element(v->begin(), v->end());
      memory = c.add("VariadicSplit", 1, {memory, c.i64({1}, std::vector<std::int64_t>{}), c.i64({longest, -1})}, {}, 2);
    }
    memory = c.add("Add", 1, {memory, c.add("ConvertLike", 1, {c.add("Unsqueeze", 1, {each, c.i64({1, 2})}), memory})}, numpy);
  }
  const auto ones = [&](std::int64_t v) { return c.i64({v}); };
  const auto layer = exactly(c, exactly(c, c.need(9), 0, ones(dirs)), 1, depth);
  const auto size = dims(layer, 2, 3);
  const auto query = exactly(c, exactly(c, exactly(c, c.need(8), 0, ones(dirs)), 1, ones(hidden)), 2, size);
  const auto v = exactly(c, exactly(c, c.need(10), 0, ones(dirs)), 1, size);
  // Each entry's memory through the memory layer, [D, N, A], with the query layer and V summed in.
  auto keys = c.add("MatMul", 1, {c.add("ReduceSum", 1, {memory, c.i64({1})}, {{"keep_dims", "false"}}), layer}, {{"transpose_a", "false"}, {"transpose_b", "false"}});
  keys = c.add("Add", 1, {keys, c.add("Add", 1, {c.add("ReduceSum", 1, {query, c.i64({1})}, {{"keep_dims", "true"}}), c.add("Unsqueeze", 1, {v, c.i64({1})})}, numpy)}, numpy);
  source width = depth;
  auto state = c.add("ReduceSum", 1, {keys, c.i64({0, 2})}, {{"keep_dims", "false"}});  // [N]
  if (const auto aw = c.input(13)) {
    const auto both = c.add("Add", 1, {depth, ones(hidden)}, numpy);
    const auto checked = exactly(c, exactly(c, *aw, 0, ones(dirs)), 1, both);
    width = dims(checked, 2, 3);
    state = c.add("Add", 1, {state, c.add("ReduceSum", 1, {checked, c.i64({0, 1, 2})}, {{"keep_dims", "false"}})}, numpy);
  }
  const auto to = c.add("Concat", 1, {dims(x, 0, 2), width}, {{"axis", "0"}});
  const auto shaped = c.add("Unsqueeze", 1, {state, c.i64({0, 2})});
  return c.add("ConvertLike", 1, {c.add("Broadcast", 3, {shaped, to}, {{"mode", "numpy"}}), x});
}
void attn_lstm(node_context& c) {
  const auto hidden = c.i("hidden_size");
  if (!hidden || *hidden <= 0 || *hidden > (std::int64_t{1} << 31)) c.bad("it needs hidden_size above 0");
  if (c.attribute("layout") != nullptr) c.bad("it has a layout attribute", "AttnLSTM is sequence-major");
  const std::int64_t dirs = c.s("direction", "forward") == "bidirectional" ? 2 : 1;
  for (const auto& [port, rank] : {std::pair<std::size_t, std::size_t>{8, 3}, {9, 3}, {10, 2}, {11, 3}, {12, 1}, {13, 3}})
    if (const auto r = c.rank(port); c.input(port) && r && *r != rank) c.bad(fmt::format("its input {} is of rank {}", port, *r), fmt::format("it is {}-D", rank));
  const auto x = c.need(0);
  const auto with_state = c.add("Concat", 1, {x, attention_state(c, x, dirs, *hidden)}, {{"axis", "2"}});
  recurrent_with<4>(c, with_state, c.need(1), c.need(2));
}

}  // namespace

std::span<const onnx_entry> recurrent_rows() {
  static const std::vector<onnx_entry> rows = {
      {"LSTM", 7, recurrent<4>}, {"GRU", 7, recurrent<3>}, {"RNN", 7, recurrent<1>},
      {"DynamicQuantizeLSTM", 1, dynamic_quantize_lstm, "com.microsoft"}, {"AttnLSTM", 1, attn_lstm, "com.microsoft"},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
