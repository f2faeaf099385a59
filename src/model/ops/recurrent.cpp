// Recurrent cells and sequences. Cells: X [N, I] and the states [N, H] with W [G*H, I], R [G*H, H] and
// B [G*H] (G gates: LSTM 4, GRU 3, RNN 1; GRU's B is [4H] with linear_before_reset) give the states [N, H].
// Sequences (LSTMSequence-5, GRUSequence-5, RNNSequence-5): X [N, L, I], the states [N, D, H], lengths [N],
// W [D, G*H, I], R [D, G*H, H], B [D, G*H] give Y [N, D, L, H] and the states [N, D, H]; D is 2 for a
// bidirectional sequence, else 1. CTCGreedyDecoderSeqLen-6: [N, T, C] and lengths [N] give [N, T] and [N].
#include <fmt/format.h>

#include "model/ops/rules.hpp"

namespace reshape1::model::detail {
namespace {

struct recurrent_layout {
  std::int64_t gates = 4;   ///< weights rows per hidden unit
  std::int64_t bias = 4;    ///< bias rows per hidden unit
  std::size_t states = 2;   ///< state inputs after X (H, and C for LSTM)
};

recurrent_layout layout_of(const op& o) {
  recurrent_layout r;
  if (o.l.type.starts_with("GRU")) {
    r.gates = 3;
    r.bias = o.l.flag("linear_before_reset", false) ? 4 : 3;
    r.states = 1;
  } else if (o.l.type.starts_with("RNN")) {
    r.gates = r.bias = 1;
    r.states = 1;
  }
  return r;
}

std::int64_t hidden_size(const op& o) {
  const auto hidden = o.l.integer("hidden_size");
  if (hidden <= 0 || hidden > (std::int64_t{1} << 60)) refuse(o, fmt::format("hidden_size is {}", hidden));
  return hidden;
}

/// Merges the shape of input `port` with `dims` (when its rank is known), refusing another rank.
void expect(const op& o, std::size_t port, std::vector<dimension>& dims, const char* what) {
  if (port >= o.in.size()) return;
  const auto& s = o.shape(port);
  if (!s.rank_known()) return;
  if (s.size() != dims.size())
    refuse(o, fmt::format("{} {} has rank {}, not {}", what, to_string(s), s.size(), dims.size()));
  for (std::size_t i = 0; i < dims.size(); ++i) dims[i] = merge(o, dims[i], s[i], fmt::format("{} dimension {}", what, i));
}

// LSTMCell-1 (with an optional peephole input P [3H]) and -4, GRUCell-3, RNNCell (opset1).
void cell(op& o) {
  const auto lay = layout_of(o);
  const std::size_t weights = 1 + lay.states;  // W's port
  o.need(weights + 3, lay.states);
  for (auto& t : o.out) t.type = o.in[0]->type;
  const auto hidden = hidden_size(o);
  const dimension h(hidden), gates(lay.gates * hidden), bias(lay.bias * hidden);
  std::vector<dimension> x{dimension(), dimension()};
  expect(o, 0, x, "X");
  dimension n = x[0], input = x[1];
  for (std::size_t k = 0; k < lay.states; ++k) {
    std::vector<dimension> state{n, h};
    expect(o, 1 + k, state, k == 0 ? "H" : "C");
    n = state[0];
  }
  std::vector<dimension> w{gates, input}, r{gates, h}, b{bias};
  expect(o, weights, w, "W");
  expect(o, weights + 1, r, "R");
  expect(o, weights + 2, b, "B");
  if (o.l.type == "LSTMCell" && o.l.opset < 4 && o.in.size() > weights + 3) {
    std::vector<dimension> p{dimension(3 * hidden)};
    expect(o, weights + 3, p, "P");
  }
  for (auto& t : o.out) t.shape = partial_shape{n, h};
}

// LSTMSequence-5, GRUSequence-5 and RNNSequence-5.
void sequence(op& o) {
  const auto lay = layout_of(o);
  const std::size_t lengths = 1 + lay.states;
  o.need(lengths + 4, 1 + lay.states);
  for (auto& t : o.out) t.type = o.in[0]->type;
  const auto hidden = hidden_size(o);
  const auto direction = o.l.text("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    refuse(o, fmt::format("direction '{}' is not forward, reverse or bidirectional", direction));
  const dimension d(direction == "bidirectional" ? 2 : 1), h(hidden), gates(lay.gates * hidden),
      bias(lay.bias * hidden);
  std::vector<dimension> x{dimension(), dimension(), dimension()};
  const auto& xs = o.shape(0);
  if (xs.rank_known() && xs.size() != 3) refuse(o, fmt::format("X {} must be [N, L, I]", to_string(xs)));
  expect(o, 0, x, "X");
  dimension n = x[0];
  for (std::size_t k = 0; k < lay.states; ++k) {
    std::vector<dimension> state{n, d, h};
    expect(o, 1 + k, state, k == 0 ? "H0" : "C0");
    n = state[0];
  }
  std::vector<dimension> len{n}, w{d, gates, x[2]}, r{d, gates, h}, b{d, bias};
  expect(o, lengths, len, "sequence lengths");
  n = len[0];
  expect(o, lengths + 1, w, "W");
  expect(o, lengths + 2, r, "R");
  expect(o, lengths + 3, b, "B");
  o.out[0].shape = partial_shape{n, d, x[1], h};
  for (std::size_t k = 1; k < o.out.size(); ++k) o.out[k].shape = partial_shape{n, d, h};
}

// CTCGreedyDecoderSeqLen-6: logits [N, T, C], sequence lengths [N] and an optional scalar blank index.
void ctc_greedy_decoder_seq_len(op& o) {
  o.need(2, 2);
  o.out[0].type = o.l.find("classes_index_type") ? o.l.element("classes_index_type") : element_type::i32;
  o.out[1].type = o.l.find("sequence_length_type") ? o.l.element("sequence_length_type") : element_type::i32;
  const auto& data = o.shape(0);
  const auto& lengths = o.shape(1);
  if (data.rank_known() && data.size() != 3) refuse(o, fmt::format("the logits {} must be [N, T, C]", to_string(data)));
  if (lengths.rank_known() && lengths.size() != 1)
    refuse(o, fmt::format("the sequence lengths {} must be [N]", to_string(lengths)));
  if (o.in.size() > 2 && o.shape(2).rank_known() && o.shape(2).size() != 0 &&
      !(o.shape(2).size() == 1 && o.shape(2)[0].range().contains(1)))
    refuse(o, fmt::format("the blank index {} must be a scalar", to_string(o.shape(2))));
  dimension n, t;
  if (data.rank_known()) {
    n = data[0];
    t = data[1];
  }
  if (lengths.rank_known()) n = merge(o, n, lengths[0], "the batch of the logits and the sequence lengths");
  o.out[0].shape = partial_shape{n, t};
  o.out[1].shape = partial_shape{n};
}

constexpr rule_entry recurrent_table[] = {
    {"LSTMSequence", 5, sequence, batch::recurrent, no_values},
    {"GRUSequence", 5, sequence, batch::recurrent, no_values},
    {"RNNSequence", 5, sequence, batch::recurrent, no_values},
    {"LSTMCell", 1, cell, batch::recurrent, no_values},
    {"LSTMCell", 4, cell, batch::recurrent, no_values},
    {"GRUCell", 3, cell, batch::recurrent, no_values},
    {"RNNCell", 1, cell, batch::recurrent, no_values},
    {"CTCGreedyDecoderSeqLen", 6, ctc_greedy_decoder_seq_len, batch::ctc_greedy_decoder_seq_len, no_values},
};

}  // namespace

std::span<const rule_entry> recurrent_rules() { return recurrent_table; }

}  // namespace reshape1::model::detail
