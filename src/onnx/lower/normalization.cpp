// ONNX's normalisations (and Softmax, which normalises along an axis): MVN over the axes each one names,
// then a per-channel BatchNormInference where the node has a per-channel scale and bias.
#include <limits>

#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

/// The per-channel scale and bias of a normalisation, applied to `normalised`: a BatchNormInference whose
/// gamma and beta are `scale` and `bias` and whose mean and variance are `mean` and `variance`, so that its
/// rule checks each is 1-D of the channel count, as ONNX Runtime does. reshape1 computes no floating-point
/// data: the layer stands for the affine map per channel, whatever the statistics in it.
source per_channel(node_context& c, source normalised, source scale, source bias, source mean, source variance) {
  return c.add("BatchNormInference", 5, {normalised, scale, bias, mean, variance}, {{"epsilon", "0"}});
}

// BatchNormalization: with training_mode (opset 14 on), Y is normalised with the batch's own mean and
// variance over every axis but the channels, which mixes the samples: an MVN over [0, 2, ...] shows it.
// The running mean and variance it also returns (ONNX's shape inference, and so ONNX Runtime, wants all
// three outputs) are per channel: a reduction over the same axes gives their shape. Before 14, a node with
// outputs past Y (mean, var, saved_mean, saved_var) is one in training mode, as ONNX Runtime runs it.
void batch_norm(node_context& c) {
  const auto x = c.need(0);
  // Before 14 there is no training_mode: ONNX Runtime normalises with the batch's statistics where the node
  // asks for any output past Y (the running and saved means and variances, each per channel).
  const bool training = c.version() >= 14 ? c.i("training_mode", 0) != 0 : c.outputs() > 1;
  // Its schema takes Y alone or all five (ONNX's checker and ONNX Runtime refuse any other count).
  if (c.version() < 14 && c.outputs() != 1 && c.outputs() != 5)
    c.bad(fmt::format("it has {} outputs", c.outputs()),
          fmt::format("BatchNormalization-{} has one output, Y, or five: Y, mean, var, saved_mean and saved_var", c.version()));
  if (training) {
    if (c.version() >= 14 && c.outputs() != 3)
      c.bad(fmt::format("training_mode=1 with {} output{}", c.outputs(), c.outputs() == 1 ? "" : "s"),
            "in training mode BatchNormalization has three outputs: Y, running_mean and running_var");
    const auto axes = c.add("Concat", 1, {c.i64({0}), c.axes_from(x, 2)}, {{"axis", "0"}});
    const auto normalised = c.add("MVN", 6, {x, axes},
                                  {{"eps", real(c.f("epsilon", 1e-5F))}, {"normalize_variance", "true"},
                                   {"eps_mode", "inside_sqrt"}});
    c.output(0, per_channel(c, normalised, c.need(1), c.need(2), c.need(3), c.need(4)));
    // One layer for every statistics output (of the normalised data: the MVN is where the samples meet, and
    // is reported).
    std::optional<source> statistics;
    for (std::size_t k = 1; k < c.outputs(); ++k) {
      if (!c.has_output(k)) continue;
      if (!statistics) statistics = c.add("ReduceMean", 1, {normalised, axes}, {{"keep_dims", "false"}});
      c.output(k, *statistics);
    }
    return;
  }
  if (c.version() >= 14 && c.outputs() != 1)
    c.bad(fmt::format("training_mode=0 with {} outputs", c.outputs()),
          "in inference mode BatchNormalization has one output, Y (training_mode=1 gives the running statistics)");
  c.output(0, c.add("BatchNormInference", 5, {x, c.need(1), c.need(2), c.need(3), c.need(4)},
                    {{"epsilon", real(c.f("epsilon", 1e-5F))}}));
}

/// The normalised axes of LayerNormalization and RMSNormalization, from `axis` (negative: from the end),
/// which must name a dimension of x (ONNX Runtime refuses one that does not).
source normalised_axes(node_context& c, source x, std::int64_t axis) {
  if (const auto r = c.rank(0); r && (axis < -static_cast<std::int64_t>(*r) || axis >= static_cast<std::int64_t>(*r)))
    c.bad(fmt::format("axis {} is out of range for an input of rank {}", axis, *r));
  return axis >= 0 ? c.axes_from(x, axis)
                   : c.add("Range", 4, {c.i64({axis}, scalar), c.i64({0}, scalar), c.i64({1}, scalar)},
                           {{"output_type", "i64"}});
}

// InstanceNormalization: MVN over the spatial axes, then the per-channel scale and bias (whose lengths
// must be C). LayerNormalization: MVN over the normalised axes, times the scale and plus the bias, each
// shaped as those axes: ONNX Runtime requires as many elements as they hold, which the Reshape to their
// shape refuses otherwise (a scale made for one width no longer fits at another).
void instance_norm(node_context& c) {
  const auto x = c.need(0);
  // ONNX Runtime refuses an input of rank below 3 (no spatial axis to normalise over).
  if (const auto r = c.rank(0); r && *r < 3)
    c.bad(fmt::format("its input has rank {}", *r), "InstanceNormalization normalises over the axes from 2 on: rank 3 at least");
  const auto normalised = c.add("MVN", 6, {x, c.axes_from(x, 2)},
                                {{"eps", real(c.f("epsilon", 1e-5F))}, {"normalize_variance", "true"},
                                 {"eps_mode", "inside_sqrt"}});
  const auto scale = c.need(1), bias = c.need(2);
  c.output(0, per_channel(c, normalised, scale, bias, bias, scale));
}
/// ONNX Runtime's layer norms (LayerNormalization, SimplifiedLayerNormalization, RMSNormalization) refuse to
/// normalise no element: "Size of X.shape[axis:] must be at least 1" (ONNX allows it). A check that none of
/// those dimensions is 0.
void normalises_elements(node_context& c, source x, std::int64_t axis) { expect_elements(c, x, axis); }

/// A layer norm's statistics in the type `stash_type` names (float by default), as ONNX Runtime gives them
/// whatever the data's type.
source as_stashed(node_context& c, source statistics) {
  const auto stash = element_of(static_cast<int>(c.i("stash_type", 1)));
  if (!stash) return statistics;
  return c.add("Convert", 1, {statistics}, {{"destination_type", std::string(name(*stash))}});
}

void layer_norm(node_context& c) {
  const auto x = c.need(0);
  const auto axis = c.i("axis", -1);
  const auto axes = normalised_axes(c, x, axis);
  normalises_elements(c, x, axis);
  auto y = c.add("MVN", 6, {x, axes},
                 {{"eps", real(c.f("epsilon", 1e-5F))}, {"normalize_variance", "true"}, {"eps_mode", "inside_sqrt"}});
  // The scale and bias broadcast one way to X, as ONNX Runtime 1.30 takes them: X.shape[axis:] or what
  // NumPy broadcasts to it ([1], [4] or [3,1] for [3,4]; not the 12 values of [12]), or [B,1,...] and
  // [B,S,...] shapes of more dimensions.
  y = c.add("Multiply", 1, {y, c.need(1)}, one_way);
  if (const auto bias = c.input(2)) y = c.add("Add", 1, {y, *bias}, one_way);
  c.output(0, y);
  // Mean and InvStdDev: one value per row, the normalised axes kept as 1s (a reduction over them).
  if (c.has_output(1) || c.has_output(2)) {
    const auto statistics = as_stashed(c, c.add("ReduceMean", 1, {x, axes}, {{"keep_dims", "true"}}));
    for (std::size_t k = 1; k < 3; ++k)
      if (c.has_output(k)) c.output(k, statistics);
  }
}
// MeanVarianceNormalization: MVN over its axes (9 on: the attribute, [0, 2, 3] by default; the
// experimental opset-1 op: the spatial axes, the channels too with across_channels). Its statistics are
// over those axes only: with the batch folded into the channels ([1, -1, 0, 0]), the default axes keep each
// sample's channels apart.
void mean_variance_norm(node_context& c) {
  const auto x = c.need(0);
  const std::string variance = c.version() >= 9 || c.i("normalize_variance", 1) != 0 ? "true" : "false";
  const auto axes = c.version() >= 9 ? c.i64(c.ints("axes").value_or(std::vector<std::int64_t>{0, 2, 3}))
                                     : c.axes_from(x, c.i("across_channels", 0) != 0 ? 1 : 2);
  c.output(0, c.add("MVN", 6, {x, axes}, {{"eps", "1e-09"}, {"normalize_variance", variance}, {"eps_mode", "outside_sqrt"}}));
}
void lrn(node_context& c) {
  // ONNX Runtime's kernel refuses an even size when it loads (the window is centred on the channel).
  if (const auto size = c.i("size"); size && *size > 0 && *size % 2 == 0)
    c.bad(fmt::format("size is {}, even", *size), "LRN's size is odd (ONNX Runtime refuses an even one)");
  c.output(0, c.add("LRN", 1, {c.need(0), c.i64({1})},
                    {{"alpha", real(c.f("alpha", 1e-4F))}, {"beta", real(c.f("beta", 0.75F))},
                     {"bias", real(c.f("bias", 1.0F))}, {"size", fmt::format("{}", c.i("size", 1))}}));
}

/// Softmax and LogSoftmax before opset 13 normalise the input coerced to 2-D at `axis`: each row of that
/// matrix (one index into the dimensions before the axis) over all the dimensions from the axis on. The rows
/// are independent, so the dimensions before the axis are kept as they are and only those from the axis on
/// are merged into one, normalised along the last axis, and shaped back. Keeping them (rather than their
/// product, as a literal 2-D flatten would) leaves the batch and every other leading size in its own
/// dimension, which is what lets `check` follow them; the values are the same. The leading dimensions are the
/// first piece of the split `flattening_pattern` also makes, whose rule refuses an axis that names no
/// dimension, as ONNX Runtime does.
template <typename Along>
void along_2d(node_context& c, Along along) {
  const auto x = c.need(0);
  const auto axis = c.i("axis", 1);
  source pattern = c.i64({0, -1});
  // Axis 1 copies the first dimension, where the input is known to have one more: else the split below
  // refuses a rank the axis does not fit (a Squeeze of every 1 may leave one dimension).
  const auto rank = c.rank(0);
  if (axis == 0) pattern = c.i64({-1});
  else if (axis != 1 || !rank || *rank < 2) {
    const auto from_end = axis == std::numeric_limits<std::int64_t>::min() ? std::numeric_limits<std::int64_t>::max() : -axis;
    auto lengths = axis > 0 ? std::vector<std::int64_t>{axis, 1, -1} : std::vector<std::int64_t>{-1, 1, from_end - 1};
    const auto before = c.add("VariadicSplit", 1, {c.shape_of(x), c.i64({0}), c.i64(std::move(lengths))}, {}, 3);
    pattern = c.add("Concat", 1, {before, c.i64({-1})}, {{"axis", "0"}});
  }
  const auto merged = c.add("Reshape", 1, {x, pattern}, {{"special_zero", axis == 1 ? "true" : "false"}});
  const auto y = along(merged);
  c.output(0, c.add("Reshape", 1, {y, c.shape_of(x)}, {{"special_zero", "false"}}));
}
void softmax_2d(node_context& c, std::string_view type, int opset) {
  along_2d(c, [&](source merged) { return c.add(type, opset, {merged}, {{"axis", "-1"}}); });
}

/// Hardmax along `axis` of x: 1 at the first largest element of each line, 0 elsewhere (TopK's index of
/// the largest, scattered into zeros of x's shape and type). TopK takes min(1, the axis' length): an axis
/// of length 0 has no largest element, and ONNX Runtime gives the empty output.
source hardmax_along(node_context& c, source x, std::int64_t axis) {
  const auto length = c.add("Gather", 8, {c.shape_of(x), c.i64({axis}, scalar), c.i64({0}, scalar)}, {{"batch_dims", "0"}});
  const auto k = c.add("Minimum", 1, {length, c.i64({1}, scalar)}, {{"auto_broadcast", "numpy"}});
  const auto top = c.add("TopK", 11, {x, k},
                         {{"axis", fmt::format("{}", axis)}, {"mode", "max"}, {"sort", "none"},
                          {"index_element_type", "i64"}},
                         2);
  const source index{top.layer, 1};
  const auto zeros = c.add("Broadcast", 3, {like(c, 0.0F, x), c.shape_of(x)}, {{"mode", "numpy"}});
  const auto ones = c.add("Broadcast", 3, {like(c, 1.0F, x), c.shape_of(index)}, {{"mode", "numpy"}});
  return c.add("ScatterElementsUpdate", 12, {zeros, index, ones, c.i64({axis}, scalar)},
               {{"reduction", "none"}, {"use_init_val", "true"}});
}
// Hardmax before 13 works on the input coerced to 2-D at `axis`, as Softmax then did; from 13 along one axis.
// ONNX Runtime refuses a scalar (no axis to take the largest along).
void not_scalar(node_context& c) {
  if (const auto r = c.rank(0); r && *r == 0) c.bad("its input is a scalar", "Hardmax takes an input of rank 1 at least");
}
void hardmax1(node_context& c) {
  not_scalar(c);
  along_2d(c, [&](source merged) { return hardmax_along(c, merged, -1); });
}
void hardmax13(node_context& c) {
  not_scalar(c);
  c.output(0, hardmax_along(c, c.need(0), c.i("axis", -1)));
}

// RMSNormalization-23: x / sqrt(mean(x^2) + epsilon) over the axes from `axis` on, times the scale, which
// broadcasts to x's shape (ONNX Runtime refuses one that would widen it: a Broadcast to x's shape).
/// sqrt(mean(x^2) + epsilon) over the axes from `axis` on, kept as 1s: the root mean square RMSNormalization
/// and SimplifiedLayerNormalization divide by, after the check that those axes hold elements.
source root_mean_square(node_context& c, source x) {
  normalises_elements(c, x, c.i("axis", -1));
  const auto square = c.add("Multiply", 1, {x, x}, numpy);
  const auto mean = c.add("ReduceMean", 1, {square, normalised_axes(c, x, c.i("axis", -1))}, {{"keep_dims", "true"}});
  return c.add("Sqrt", 1, {c.add("Add", 1, {mean, like(c, c.f("epsilon", 1e-5F), x)}, numpy)});
}
void rms_norm(node_context& c) {
  const auto x = c.need(0);
  const auto root = root_mean_square(c, x);
  const auto scale = c.add("Broadcast", 3, {c.need(1), c.shape_of(x)}, {{"mode", "numpy"}});
  c.output(0, c.add("Multiply", 1, {c.add("Divide", 1, {x, root}, numpy), scale}, numpy));
}

// SimplifiedLayerNormalization: ONNX Runtime's own RMS norm in the default domain (its transformer optimiser
// writes it, at every opset): x / sqrt(mean(x^2) + epsilon) over the axes from `axis` on, times the scale,
// which broadcasts one way as LayerNormalization's does (ONNX Runtime runs both with one kernel). Output 1,
// the inverse standard deviation: one value per row, the normalised axes kept as 1s.
void simplified_layer_norm(node_context& c) {
  const auto x = c.need(0);
  const auto root = root_mean_square(c, x);
  c.output(0, c.add("Multiply", 1, {c.add("Divide", 1, {x, root}, numpy), c.need(1)}, one_way));
  if (c.has_output(1)) c.output(1, as_stashed(c, c.add("Divide", 1, {like(c, 1.0F, x), root}, numpy)));
}

// GroupNormalization: 21 on, OpenVINO's GroupNormalization (scale and bias per channel). Before 21 the
// scale and bias are per group: the data seen as [N, groups, C / groups, spatial...] (as ONNX's function
// body does, so that channels the groups do not divide are refused as ONNX Runtime refuses them), then as
// [N, groups, rest], normalised over the rest, scaled and shifted per group, shaped back.
void group_norm(node_context& c) {
  const auto groups = c.i("num_groups");
  if (!groups) c.bad("it has no num_groups");
  if (*groups <= 0) c.bad(fmt::format("num_groups is {}", *groups), "it must be positive");
  const auto epsilon = real(c.f("epsilon", 1e-5F));
  const auto x = c.need(0);
  if (c.version() >= 21) {
    c.output(0, c.add("GroupNormalization", 12, {x, c.need(1), c.need(2)},
                      {{"num_groups", fmt::format("{}", *groups)}, {"epsilon", epsilon}}));
    return;
  }
  const auto shape = c.shape_of(x);
  const auto slice = [&](std::int64_t from, std::int64_t to) {
    return c.add("Slice", 8, {shape, c.i64({from}), c.i64({to}), c.i64({1})});
  };
  const auto per_group = c.add("Divide", 1, {slice(1, 2), c.i64({*groups})}, {{"auto_broadcast", "numpy"}, {"m_pythondiv", "true"}});
  const auto split = c.add("Concat", 1, {slice(0, 1), c.i64({*groups}), per_group, slice(2, std::numeric_limits<std::int64_t>::max())},
                           {{"axis", "0"}});
  const auto grouped = c.add("Reshape", 1, {c.add("Reshape", 1, {x, split}, {{"special_zero", "false"}}), c.i64({0, 0, -1})},
                             {{"special_zero", "true"}});
  auto y = c.add("MVN", 6, {grouped, c.i64({2})},
                 {{"eps", epsilon}, {"normalize_variance", "true"}, {"eps_mode", "inside_sqrt"}});
  const auto group_parameter = [&](std::size_t i) {
    return c.add("Reshape", 1, {c.need(i), c.i64({*groups, 1})}, {{"special_zero", "false"}});
  };
  y = c.add("Add", 1, {c.add("Multiply", 1, {y, group_parameter(1)}, numpy), group_parameter(2)}, numpy);
  c.output(0, c.add("Reshape", 1, {y, shape}, {{"special_zero", "false"}}));
}

// LpNormalization: x divided by its L1 or L2 norm along `axis` (ONNX Runtime computes p 1 and 2 only).
void lp_norm(node_context& c) {
  const auto p = c.i("p", 2);
  if (p != 1 && p != 2) c.bad(fmt::format("p is {}", p), "LpNormalization's p is 1 or 2");
  const auto x = c.need(0);
  const auto norm = c.add(p == 1 ? "ReduceL1" : "ReduceL2", 4, {x, c.i64({c.i("axis", -1)})}, {{"keep_dims", "true"}});
  c.output(0, c.add("Divide", 1, {x, norm}, {{"auto_broadcast", "numpy"}}));
}

void softmax1(node_context& c) { softmax_2d(c, "SoftMax", 8); }
void softmax13(node_context& c) { c.output(0, c.add("SoftMax", 8, {c.need(0)}, {{"axis", fmt::format("{}", c.i("axis", -1))}})); }
void log_softmax1(node_context& c) { softmax_2d(c, "LogSoftmax", 5); }
void log_softmax13(node_context& c) {
  c.output(0, c.add("LogSoftmax", 5, {c.need(0)}, {{"axis", fmt::format("{}", c.i("axis", -1))}}));
}

}  // namespace

std::span<const onnx_entry> normalization_rows() {
  static const std::vector<onnx_entry> rows = {
      {"BatchNormalization", 7, batch_norm}, {"BatchNormalization", 14, batch_norm},
      {"InstanceNormalization", 6, instance_norm},
      {"MeanVarianceNormalization", 1, mean_variance_norm}, {"MeanVarianceNormalization", 9, mean_variance_norm},
      {"MeanVarianceNormalization", 13, mean_variance_norm}, {"LayerNormalization", 1, layer_norm}, {"LayerNormalization", 17, layer_norm},
      {"SimplifiedLayerNormalization", 1, simplified_layer_norm}, {"LRN", 1, lrn},
      {"Softmax", 1, softmax1}, {"Softmax", 13, softmax13}, {"LogSoftmax", 1, log_softmax1},
      {"LogSoftmax", 13, log_softmax13}, {"Hardmax", 1, hardmax1}, {"Hardmax", 13, hardmax13},
      {"RMSNormalization", 23, rms_norm}, {"GroupNormalization", 18, group_norm},
      {"GroupNormalization", 21, group_norm}, {"LpNormalization", 1, lp_norm},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
