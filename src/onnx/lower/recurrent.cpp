// ONNX's LSTM, GRU and RNN as OpenVINO's sequence ops, whose layout and bias are not ONNX's.
#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

using attributes = node_context::attributes;

/// LSTM, GRU and RNN: ONNX's layout is sequence-major (X [L, N, I], states [D, N, H], Y [L, D, N, H])
/// unless layout = 1; OpenVINO's sequences are batch-major. Transposes on the way in and out, B's two
/// halves added (OpenVINO has one bias per gate), missing lengths and states filled.
/// `w` and `r` are W [D, gates * H, I] and R [D, gates * H, H].
template <int Gates>
void recurrent_with(node_context& c, source w, source r) {
  const char* type = Gates == 4 ? "LSTMSequence" : Gates == 3 ? "GRUSequence" : "RNNSequence";
  const auto hidden = c.i("hidden_size");
  if (!hidden) c.bad("needs the attribute hidden_size");
  const auto direction = c.s("direction", "forward");
  const std::int64_t dirs = direction == "bidirectional" ? 2 : 1;
  const bool batch_first = c.i("layout", 0) != 0;
  if (Gates == 4 && c.input(7)) return c.not_covered("LSTM with peepholes is not covered");
  const auto x0 = c.need(0);
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
  recurrent_with<Gates>(c, c.need(1), c.need(2));
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
  recurrent_with<4>(c, w, r);
}

}  // namespace

std::span<const onnx_entry> recurrent_rows() {
  static const std::vector<onnx_entry> rows = {
      {"LSTM", 7, recurrent<4>}, {"GRU", 7, recurrent<3>}, {"RNN", 7, recurrent<1>},
      {"DynamicQuantizeLSTM", 1, dynamic_quantize_lstm, "com.microsoft"},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
