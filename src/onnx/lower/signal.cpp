// ONNX's signal ops and losses: DFT (17, 20), STFT-17, MelWeightMatrix-17, NegativeLogLikelihoodLoss and
// SoftmaxCrossEntropyLoss. The registry has no Fourier transform; what the rules need is each output's shape
// and which elements meet. A transform along an axis meets every element of that axis (and both parts of a
// complex number) and nothing across the others: a sum over the axis and the last dimension, broadcast to
// the output's shape. A loss meets the classes of each element, and with a reduction every element.
#include <cmath>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

using attributes = node_context::attributes;

/// A scalar (or 1-element) integer input as a 1-element i64.
source one_value(node_context& c, std::size_t port) {
  const auto v = c.add("Reshape", 1, {c.need(port), c.i64({1})}, {{"special_zero", "false"}});
  return c.add("Convert", 1, {v}, {{"destination_type", "i64"}});
}
/// n / 2 + 1 (the bins a one-sided transform of n points keeps).
source one_sided(node_context& c, source n) {
  return c.add("Add", 1, {c.add("Divide", 1, {n, c.i64({2}, scalar)}, numpy), c.i64({1}, scalar)}, numpy);
}
/// x with its last dimension checked to be 1 (real) or 2 (complex): broadcast one way to 2.
source complex_or_real(node_context& c, source x, source dims) {
  return c.add("Broadcast", 3, {x, c.add("ScatterUpdate", 3, {dims, c.i64({-1}), c.i64({2}), c.i64({0}, scalar)})},
               {{"mode", "numpy"}});
}

/// Refuses a Const input `port` of a rank other than 0 (ONNX's shape inference, which ONNX Runtime runs when
/// it loads a model, takes these scalars only).
void scalar_input(const node_context& c, std::size_t port, std::string_view what) {
  if (const auto d = c.constant_dims(port); d && !d->empty())
    c.bad(fmt::format("its {} has rank {}", what, d->size()), fmt::format("the {} is a scalar", what));
}
/// x along its last axis in one piece of `n` (1 real, 2 complex): the split refuses another length.
source last_exactly(node_context& c, source x, std::int64_t n) {
  return c.add("VariadicSplit", 1, {x, c.i64({-1}, scalar), c.i64({n})});
}

// DFT: the input [..., n, ..., 1 or 2] along `axis` (17: an attribute, 1 by default; 20: an input, -2 by
// default) gives [..., m, ..., 2], m the dft_length (the axis' length by default), or m / 2 + 1 one-sided (of
// a real input only). One-sided and inverse, of a complex input, gives [..., m, ..., 1], m the dft_length or
// 2 (n - 1): the real signal whose one-sided transform the input is.
void dft(node_context& c) {
  // DFT-20's axis listed but left out crashes ONNX Runtime (its dft_length left out is fine).
  if (c.version() >= 20) refuse_listed_but_left_out(c, 2, "axis");
  std::int64_t axis = 1;
  if (c.version() >= 20) {
    axis = -2;
    if (c.input(2)) {
      scalar_input(c, 2, "axis");
      const auto v = c.constant_ints(2);
      if (!v) return c.not_covered("DFT with an axis computed by the graph is not covered");
      if (v->size() != 1) c.bad(fmt::format("its axis holds {} values", v->size()), "the axis is a scalar");
      axis = (*v)[0];
    }
  } else {
    axis = c.i("axis", 1);
  }
  if (c.input(1)) {
    scalar_input(c, 1, "dft_length");
    if (const auto v = c.constant_ints(1); v && v->size() == 1 && (*v)[0] < 1) c.bad(fmt::format("its dft_length is {}", (*v)[0]), "dft_length is 1 at least");
  }
  const auto x = c.need(0);
  if (const auto r = c.rank(0)) {
    const auto rank = static_cast<std::int64_t>(*r);
    if (rank < 2) c.bad(fmt::format("its input has rank {}", rank), "DFT's input is [..., n, ..., 1 or 2]");
    // ONNX Runtime takes an axis of the signal's dimensions, not the last (the real and imaginary parts).
    if (axis < -rank || axis >= rank || axis == rank - 1 || axis == -1)
      c.bad(fmt::format("axis {} is not one of the signal's axes for an input of rank {}", axis, rank));
    if (axis < 0) axis += rank;
  } else if (axis == -1) {
    c.bad("axis -1 is the last dimension", "DFT's axis is one of the signal's, not the last");
  }
  const bool onesided = c.i("onesided", 0) != 0;
  const bool inverse = c.i("inverse", 0) != 0;
  const auto dims = c.shape_of(x);
  const auto along = c.add("Gather", 8, {dims, c.i64({axis}), c.i64({0}, scalar)}, {{"batch_dims", "0"}});
  auto length = c.input(1) ? one_value(c, 1) : along;
  std::int64_t parts = 2;
  source checked = x;
  if (onesided && inverse) {
    if (!c.input(1)) length = c.add("Multiply", 1, {c.add("Subtract", 1, {along, c.i64({1}, scalar)}, numpy), c.i64({2}, scalar)}, numpy);
    checked = last_exactly(c, x, 2);
    parts = 1;
  } else if (onesided) {
    length = one_sided(c, length);
    checked = last_exactly(c, x, 1);
  } else {
    checked = complex_or_real(c, x, dims);
  }
  const auto shape = c.add("ScatterUpdate", 3, {dims, c.i64({axis, -1}), c.add("Concat", 1, {length, c.i64({parts})}, {{"axis", "0"}}),
                                                 c.i64({0}, scalar)});
  const auto sums = c.add("ReduceSum", 1, {checked, c.i64({axis, -1})}, {{"keep_dims", "true"}});
  c.output(0, c.add("Broadcast", 3, {sums, shape}, {{"mode", "numpy"}}));
}

// STFT-17: the signal [B, L, 1 or 2] (or a real [B, L]) cut in frames of frame_length (or the window's
// length, not longer than L: a split of the signal at it) every frame_step gives [B, (L - length) / step + 1,
// bins, 2], bins the frame's length or, one-sided (the default), half of it plus one.
void stft(node_context& c) {
  const auto x = c.need(0);
  const auto rank = c.rank(0);
  if (rank && *rank != 2 && *rank != 3) c.bad(fmt::format("its signal has rank {}", *rank), "STFT's signal is [batch, length, 1 or 2]");
  const auto window = c.input(2);
  if (!window && !c.input(3)) c.bad("it has neither a window nor a frame_length", "STFT needs one of them");
  if (c.input(3)) {
    scalar_input(c, 3, "frame_length");
    if (const auto v = c.constant_ints(3); v && v->size() == 1 && (*v)[0] < 1) c.bad(fmt::format("its frame_length is {}", (*v)[0]), "a frame is 1 long at least");
  }
  if (const auto v = c.constant_ints(1); v && v->size() == 1 && (*v)[0] < 1)
    c.bad(fmt::format("its frame_step is {}", (*v)[0]), "frames step by 1 at least");
  if (window) {
    if (const auto d = c.constant_dims(2); d && d->size() != 1) c.bad(fmt::format("its window has rank {}", d->size()), "the window is 1-D");
    if (const auto d = c.constant_dims(2); d && (*d)[0] < 1) c.bad("its window is empty", "a window holds 1 value at least");
  }
  const auto dims = c.shape_of(x);
  std::optional<source> weights;
  source length = c.input(3) ? one_value(c, 3) : c.add("Gather", 8, {c.shape_of(*window), c.i64({0}), c.i64({0}, scalar)}, {{"batch_dims", "0"}});
  if (window) {
    // A window of another length than frame_length: the split refuses it.
    const auto checked = c.input(3) ? exactly(c, *window, 0, length) : *window;
    weights = c.add("ReduceSum", 1, {checked, c.i64({0})}, {{"keep_dims", "false"}});
  }
  const auto step = one_value(c, 1);
  const auto frames = c.add("Add", 1, {c.add("Divide", 1, {c.add("Subtract", 1, {shape_slice(c, dims, 1, 2), length}, numpy), step}, numpy),
                                       c.i64({1}, scalar)}, numpy);
  const auto bins = c.i("onesided", 1) != 0 ? one_sided(c, length) : length;
  const auto shape = c.add("Concat", 1, {shape_slice(c, dims, 0, 1), frames, bins, c.i64({2})}, {{"axis", "0"}});
  const auto signal = rank && *rank == 2 ? x : complex_or_real(c, x, dims);
  // The signal split after the first frame: refused when a frame is longer than the signal.
  const auto cut = c.add("VariadicSplit", 1, {signal, c.i64({1}, scalar), c.add("Concat", 1, {length, c.i64({-1})}, {{"axis", "0"}})}, {}, 2);
  const auto reduce = [&](source part) {
    const auto axes = rank && *rank == 2 ? c.i64({1}) : c.i64({1, 2});
    return c.add("ReduceSum", 1, {part, axes}, {{"keep_dims", "false"}});
  };
  auto sums = c.add("Add", 1, {reduce(cut), reduce(source{cut.layer, 1})}, numpy);
  if (weights) sums = c.add("Multiply", 1, {sums, c.add("ConvertLike", 1, {*weights, sums})}, numpy);
  sums = c.add("Unsqueeze", 1, {sums, c.i64({1, 2, 3})});
  c.output(0, c.add("Broadcast", 3, {sums, shape}, {{"mode", "numpy"}}));
}

// MelWeightMatrix-17: [dft_length / 2 + 1, num_mel_bins] of output_datatype (f32 by default), from scalars.
void mel_weight_matrix(node_context& c) {
  const auto to = element_of(static_cast<int>(c.i("output_datatype", 1)));
  if (!to) return c.not_covered(fmt::format("a MelWeightMatrix of ONNX data type {} is not covered", c.i("output_datatype", 1)));
  scalar_input(c, 0, "num_mel_bins");
  scalar_input(c, 1, "dft_length");
  // Each a scalar when a Const gives it (one value: a Const's values are its dims').
  const auto one = [&](std::size_t port) {
    auto v = c.constant_ints(port);
    return v && v->size() == 1 ? v : std::nullopt;
  };
  const auto bins = one(0);
  if (bins && (*bins)[0] < 0) c.bad(fmt::format("its num_mel_bins is {}", (*bins)[0]), "num_mel_bins is 0 at least");
  // ONNX Runtime's check that both edges fall on a bin of the transform: floor((dft_length + 1) * edge /
  // sample_rate) in [0, dft_length / 2 + 1).
  const auto length = one(1);
  const auto rate = one(2);
  if (rate && (*rate)[0] <= 0) c.bad(fmt::format("its sample_rate is {}", (*rate)[0]), "the sample rate is above 0");
  if (length && rate) {
    for (const std::size_t port : {3, 4}) {
      const auto edge = c.constant_reals(port);
      if (!edge || edge->size() != 1) continue;
      const double at = std::floor((static_cast<double>((*length)[0]) + 1) * (*edge)[0] / static_cast<double>((*rate)[0]));
      if (!(at >= 0 && at < static_cast<double>((*length)[0] / 2 + 1)))
        c.bad(fmt::format("its {} edge {} falls outside the transform's {} bins at sample rate {}", port == 3 ? "lower" : "upper",
                          (*edge)[0], (*length)[0] / 2 + 1, (*rate)[0]));
    }
  }
  const auto shape = c.add("Concat", 1, {one_sided(c, one_value(c, 1)), one_value(c, 0)}, {{"axis", "0"}});
  const auto zero = c.add("Convert", 1, {c.i64({0}, scalar)}, {{"destination_type", std::string(name(*to))}});
  c.output(0, c.add("Broadcast", 3, {zero, shape}, {{"mode", "numpy"}}));
}

// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: scores [N, C, d...] and labels [N, d...] (of that
// shape exactly: an Add without broadcasting) give a loss per element, [N, d...] with reduction none, else
// a scalar; a weight per class. SoftmaxCrossEntropyLoss's second output is the scores'
// LogSoftmax over the classes.
void loss(node_context& c, bool softmax) {
  // ONNX Runtime (which expands both ops as ONNX's functions) reduces for any reduction but none.
  const auto reduction = c.s("reduction", "mean");
  if (const auto r = c.rank(0); r && *r < 2) c.bad(fmt::format("its input has rank {}", *r), "the input is [N, C, d...]");
  const auto x = c.need(0);
  const auto log_prob = softmax ? c.add("LogSoftmax", 5, {x}, {{"axis", "1"}}) : x;
  auto each = c.add("ReduceSum", 1, {log_prob, c.i64({1})}, {{"keep_dims", "false"}});
  each = c.add("Add", 1, {each, c.add("ConvertLike", 1, {c.need(1), each})}, {{"auto_broadcast", "none"}});
  if (const auto w = c.input(2)) {
    // ONNX Runtime reads the weight of each label's class, of a 1-D weight of any length.
    if (const auto d = c.constant_dims(2); d && d->size() != 1) c.bad(fmt::format("its weight has rank {}", d->size()), "the weight is 1-D");
    each = c.add("Multiply", 1, {each, c.add("ReduceSum", 1, {*w, c.i64({0})}, {{"keep_dims", "false"}})}, numpy);
  }
  c.output(0, reduction == "none" ? each : c.add("ReduceSum", 1, {each, c.axes_from(each, 0)}, {{"keep_dims", "false"}}));
  if (softmax && c.has_output(1)) c.output(1, log_prob);
}
void negative_log_likelihood_loss(node_context& c) { loss(c, false); }
void softmax_cross_entropy_loss(node_context& c) { loss(c, true); }

}  // namespace

std::span<const onnx_entry> signal_rows() {
  static const std::vector<onnx_entry> rows = {
      {"DFT", 17, dft}, {"DFT", 20, dft}, {"STFT", 17, stft}, {"MelWeightMatrix", 17, mel_weight_matrix},
      {"NegativeLogLikelihoodLoss", 12, negative_log_likelihood_loss},
      {"SoftmaxCrossEntropyLoss", 12, softmax_cross_entropy_loss},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
