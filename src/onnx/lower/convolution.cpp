// ONNX's windowed nodes, convolutions and pooling: the same window attributes under the IR's names, a
// bias (an input in ONNX, a separate Add in the IR) added after, grouped weights given the IR's layout.
#include <algorithm>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

std::string list(std::span<const std::int64_t> v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i != 0) s += ',';
    s += std::to_string(v[i]);
  }
  return s;
}
std::string list(const std::vector<std::int64_t>& v) { return list(std::span<const std::int64_t>(v)); }

using attributes = node_context::attributes;

/// The window attributes every ONNX windowed op shares, in IR names. `pads_ignored_beside_auto_pad`: the op
/// takes pads beside an auto_pad other than NOTSET, and ignores them (as ONNX Runtime's QLinearAveragePool).
attributes window(const node_context& c, std::size_t spatial, bool with_dilations, bool pads_ignored_beside_auto_pad = false) {
  attributes a;
  const auto ones = std::vector<std::int64_t>(spatial, 1);
  a.emplace_back("strides", list(c.ints("strides").value_or(ones)));
  if (with_dilations) a.emplace_back("dilations", list(c.ints("dilations").value_or(ones)));
  const auto pad = c.s("auto_pad", "NOTSET");
  auto pads = c.ints("pads").value_or(std::vector<std::int64_t>(2 * spatial, 0));
  if (pads.size() != 2 * spatial) c.bad(fmt::format("pads has {} values for {} spatial axes", pads.size(), spatial));
  // ONNX's shape inference refuses both where the input's rank is known (ONNX Runtime does not load such a
  // model); where it is not, ONNX Runtime ignores the pads, as it does for the op that asks to.
  if (pad != "NOTSET" && c.attribute("pads") != nullptr && c.rank(0) && !pads_ignored_beside_auto_pad)
    c.bad(fmt::format("pads is given with auto_pad {}", pad), "the pads attribute cannot be used with auto_pad");
  if (pad != "NOTSET" && pads_ignored_beside_auto_pad) pads.assign(2 * spatial, 0);
  a.emplace_back("pads_begin", list(std::span(pads).first(spatial)));
  a.emplace_back("pads_end", list(std::span(pads).last(spatial)));
  a.emplace_back("auto_pad", pad == "SAME_UPPER"   ? "same_upper"
                             : pad == "SAME_LOWER" ? "same_lower"
                             : pad == "VALID"      ? "valid"
                                                   : "explicit");
  return a;
}

/// Whether the node has dilations other than 1 (AvgPool has none).
bool dilated(const node_context& c) {
  const auto d = c.ints("dilations");
  return d && std::any_of(d->begin(), d->end(), [](std::int64_t v) { return v != 1; });
}
/// Whether the node pads SAME_UPPER or SAME_LOWER with dilations other than 1, which ONNX Runtime computes
/// otherwise than ONNX's shape inference (and OpenVINO): its convolutions refuse it when they run, and its
/// pooling pads for the undilated window (MaxPool of [3,5] with a [2,3] window dilated by 2 gives [2,3],
/// where the other two say [3,5]).
bool same_and_dilated(const node_context& c) {
  const auto pad = c.s("auto_pad", "NOTSET");
  return (pad == "SAME_UPPER" || pad == "SAME_LOWER") && dilated(c);
}

/// The number of spatial axes of a windowed op: from kernel_shape, the weights' (or input's) rank, the data's,
/// or the attributes that hold a value per spatial axis (weights fake-quantised by a QuantizeLinear and a
/// DequantizeLinear, as quantisation-aware training exports them, have a rank the file does not declare).
std::size_t spatial_axes(const node_context& c, std::size_t ranked_input) {
  if (const auto k = c.ints("kernel_shape")) return k->size();
  for (const auto port : {ranked_input, std::size_t{0}})
    if (const auto r = c.rank(port); r && *r >= 2) return *r - 2;
  for (const auto* name : {"strides", "dilations"})
    if (const auto v = c.ints(name); v && !v->empty()) return v->size();
  if (const auto p = c.ints("pads"); p && !p->empty() && p->size() % 2 == 0) return p->size() / 2;
  c.bad("the number of spatial axes is unknown: no kernel_shape, strides, dilations or pads, and no declared rank");
}

/// Bias [C] (node input `port`) added to [N, C, ...]: seen as [1, C, 1...] (rank 2 + spatial); an
/// initializer is simply given that shape, as OpenVINO's frontend folds the Reshape it writes.
source add_bias(node_context& c, source x, source bias, std::size_t spatial, std::size_t port = 2) {
  std::vector<std::int64_t> pattern{1, -1};
  pattern.resize(2 + spatial, 1);
  std::optional<source> shaped;
  // A Const of several values: given the shape, its count checked by the one-way Add below (a count other
  // than x's channels does not broadcast to them).
  if (const auto dims = c.constant_dims(port); dims && dims->size() == 1 && (*dims)[0] != 1) {
    pattern[1] = (*dims)[0];
    shaped = c.constant_as(port, pattern);
  }
  if (!shaped) {
    // A computed bias, or a Const of one value (which would broadcast): 1-D, of x's channels exactly (a split
    // in one piece of that length), as ONNX Runtime checks it when it runs.
    if (const auto r = c.rank(port); r && *r != 1)
      c.bad(fmt::format("its bias (input {}) has rank {}", port, *r), "the bias is 1-D: one value per output channel");
    bias = exactly(c, bias, 0, shape_slice(c, c.shape_of(x), 1, 2));
    shaped = c.add("Reshape", 1, {bias, c.i64(pattern)}, {{"special_zero", "false"}});
  }
  // One way: ONNX Runtime refuses a bias that is not one value per output channel, where numpy's broadcast
  // would let a bias of C values grow an output of one channel to C.
  return c.add("Add", 1, {x, *shaped}, one_way);
}

/// Grouped weights [O, I/G, k...] (node input `port`) as [G, O/G, I/G, k...]: an initializer given that
/// shape, or a Reshape.
source grouped(node_context& c, source w, std::int64_t groups, std::size_t port = 1) {
  if (const auto dims = c.constant_dims(port); dims && !dims->empty() && groups > 0 && (*dims)[0] % groups == 0) {
    std::vector<std::int64_t> shape{groups, (*dims)[0] / groups};
    shape.insert(shape.end(), dims->begin() + 1, dims->end());
    if (const auto s = c.constant_as(port, shape)) return *s;
  }
  const auto tail = c.add("StridedSlice", 1, {c.shape_of(w), c.i64({1}), c.i64({0}), c.i64({1})},
                          {{"begin_mask", "0"}, {"end_mask", "1"}});
  const auto pattern = c.add("Concat", 1, {c.i64({groups, -1}), tail}, {{"axis", "0"}});
  return c.add("Reshape", 1, {w, pattern}, {{"special_zero", "false"}});
}

/// The weights w (node input `port`, [O, I, k...]) with the node's kernel_shape, where it has one, checked
/// against their window as ONNX Runtime checks it: a Const's dims when the node is read, a computed tensor's
/// by a split of each spatial axis in one piece of kernel_shape's length (whose rule refuses another).
source kernel_checked(node_context& c, source w, std::size_t port) {
  const auto kernel = c.ints("kernel_shape");
  if (!kernel) return w;
  if (const auto dims = c.constant_dims(port)) {
    if (dims->size() == kernel->size() + 2 && !std::equal(kernel->begin(), kernel->end(), dims->begin() + 2))
      c.bad("kernel_shape is not the weights' window", "kernel_shape must equal the weights' dimensions from 2 on");
    return w;
  }
  if (const auto r = c.rank(port); r && *r != kernel->size() + 2) return w;
  for (std::size_t k = 0; k < kernel->size(); ++k)
    w = exactly(c, w, static_cast<std::int64_t>(k) + 2, c.i64({(*kernel)[k]}));
  return w;
}

/// Where a convolution node has its weights and bias (its data is input 0): Conv's (w 1, B 2), ConvInteger's
/// (w 1; no bias), QLinearConv's (w 3, B 8).
struct conv_ports {
  std::size_t w = 1;
  std::optional<std::size_t> bias = 2;
};

/// A convolution of x and w (already of a type the IR's convolutions take) with the node's window and
/// group, plus its bias.
source convolve(node_context& c, source x, source w, const conv_ports& at) {
  const auto spatial = spatial_axes(c, at.w);
  w = kernel_checked(c, w, at.w);
  const auto groups = c.i("group", 1);
  // The bias is one value per output channel (the weights' first dimension), as ONNX Runtime checks it.
  if (const auto wd = c.constant_dims(at.w), bd = at.bias ? c.constant_dims(*at.bias) : std::nullopt;
      wd && bd && !wd->empty() && *bd != std::vector<std::int64_t>{(*wd)[0]})
    c.bad(fmt::format("its bias (input {}) is [{}] for {} output channels", *at.bias, fmt::join(*bd, ","), (*wd)[0]),
          "the bias holds one value per output channel");
  auto a = window(c, spatial, true);
  source y = groups == 1 ? c.add("Convolution", 1, {x, w}, a)
                         : c.add("GroupConvolution", 1, {x, grouped(c, w, groups, at.w)}, a);
  if (const auto bias = at.bias ? c.input(*at.bias) : std::nullopt) y = add_bias(c, y, *bias, spatial, *at.bias);
  return y;
}

/// y [N, M, oH, oW] plus DeformConv's offset or mask (node input `port`, [N, `channels`, oH, oW]) summed over its
/// channels: the output reads it per sample and position, as the op does, so the batch rules see it. Checked
/// as ONNX Runtime checks it: 4-D, `channels` and y's positions exactly (each axis in one piece of that
/// length), and the batch both ways.
source plus_sampling_input(node_context& c, source y, std::size_t port, source channels) {
  const auto* what = port == 2 ? "offset" : "mask";
  if (const auto r = c.rank(port); r && *r != 4)
    c.bad(fmt::format("its {} (input {}) has rank {}", what, port, *r),
          fmt::format("DeformConv's {} is 4-D: [N, channels, output height, output width]", what));
  const auto ys = c.shape_of(y);
  auto x = exactly(c, c.need(port), 1, channels);
  x = exactly(c, x, 2, shape_slice(c, ys, 2, 3));
  x = exactly(c, x, 3, shape_slice(c, ys, 3, 4));
  // Its batch no larger than y's: y broadcast to it (a check only, whose output nothing reads) ...
  const auto batch = c.add("Concat", 1, {shape_slice(c, c.shape_of(x), 0, 1), shape_slice(c, ys, 1, 0)}, {{"axis", "0"}});
  static_cast<void>(c.add("Broadcast", 3, {y, batch}, {{"mode", "numpy"}}));
  // ... and no smaller: its sum added to y one way.
  const auto summed = c.add("ReduceSum", 1, {x, c.i64({1})}, {{"keep_dims", "true"}});
  return c.add("Add", 1, {y, summed}, one_way);
}

/// DeformConv (19, 22): a 2-D convolution of X [N, C, H, W] by W [M, C/group, kH, kW] (plus B [M]) whose sampling
/// points each output position moves by its offsets, [N, offset_group * 2 * kH * kW, oH, oW], and scales by its
/// mask, [N, offset_group * kH * kW, oH, oW]: [N, M, oH, oW]. Its sizes are ONNX Runtime's, computed here rather
/// than by a Convolution's rule: o = (in + pads - dilation * (k - 1) - 1) / stride + 1 with the division
/// truncated toward zero, so a window longer than the input gives 0 or 1 (a negative o is refused by the
/// Broadcast that makes the output). Each sample's X summed meets W's filters summed, broadcast to that shape;
/// offset and mask are checked against it and read (plus_sampling_input). ONNX Runtime's checks: X and W 4-D,
/// C and M positive, group and offset_group positive and dividing C (offset_group) and M (group), C equal to
/// W's in-channels times group, the window W's (kernel_shape), B of M values, and an input image of at least
/// one element where the output has one.
void deform_conv(node_context& c) {
  for (const std::size_t port : {0, 1})
    if (const auto r = c.rank(port); r && *r != 4)
      c.bad(fmt::format("its {} (input {}) has rank {}", port == 0 ? "X" : "W", port, *r),
            "DeformConv is 2-D: X is [N, C, H, W] and W [M, C/group, kH, kW]");
  const auto groups = c.i("group", 1), offset_groups = c.i("offset_group", 1);
  if (groups <= 0 || offset_groups <= 0)
    c.bad(fmt::format("its {} is {}", groups <= 0 ? "group" : "offset_group", groups <= 0 ? groups : offset_groups),
          "group and offset_group are positive");
  const auto two = [&](std::string_view name, std::size_t count, std::int64_t fallback, std::int64_t least) {
    const auto v = c.ints(name).value_or(std::vector<std::int64_t>(count, fallback));
    if (v.size() != count) c.bad(fmt::format("{} has {} values", name, v.size()), fmt::format("DeformConv's {} has {} values", name, count));
    for (const auto e : v)
      if (e < least) c.bad(fmt::format("{} holds {}", name, e), fmt::format("DeformConv's {} are {} at least", name, least));
    return v;
  };
  const auto strides = two("strides", 2, 1, 1), dilations = two("dilations", 2, 1, 1), pads = two("pads", 4, 0, 0);
  if (c.ints("kernel_shape")) static_cast<void>(two("kernel_shape", 2, 1, 1));
  const auto w = kernel_checked(c, c.need(1), 1);
  const auto ws = c.shape_of(w);
  const auto out_channels = shape_slice(c, ws, 0, 1);
  // X's channels W's in-channels times group, exactly (a split in one piece of that length).
  const auto x = exactly(c, c.need(0), 1, c.add("Multiply", 1, {shape_slice(c, ws, 1, 2), c.i64({groups})}, numpy));
  const auto xs = c.shape_of(x);
  // C and M hold an element; C in offset_group parts (C zeros reshaped to [offset_group, -1] infer the part
  // only where it divides). Checks only: nothing reads their outputs.
  expect_no_zero(c, c.add("Concat", 1, {shape_slice(c, xs, 1, 2), out_channels}, {{"axis", "0"}}));
  const auto channels = c.add("Broadcast", 3, {c.i64({0}, scalar), shape_slice(c, xs, 1, 2)}, {{"mode", "numpy"}});
  static_cast<void>(c.add("Reshape", 1, {channels, c.i64({offset_groups, -1})}, {{"special_zero", "false"}}));
  // The output's positions.
  const auto image = shape_slice(c, xs, 2, 4);
  const auto window = shape_slice(c, ws, 2, 4);
  const auto reach = c.add("Multiply", 1, {c.add("Subtract", 1, {window, c.i64({1, 1})}, numpy), c.i64(dilations)}, numpy);
  const auto span = c.add("Subtract", 1, {c.add("Add", 1, {image, c.i64({pads[0] + pads[2], pads[1] + pads[3]})}, numpy),
                                          c.add("Add", 1, {reach, c.i64({1, 1})}, numpy)}, numpy);
  const auto positions = c.add("Add", 1, {c.add("Divide", 1, {span, c.i64(strides)}, {{"auto_broadcast", "numpy"}, {"m_pythondiv", "false"}}),
                                          c.i64({1, 1})}, numpy);
  // An empty image only where the output is empty too (ONNX Runtime refuses H or W of 0 beside an output of
  // elements: pads that make one from nothing).
  const auto keep = attributes{{"keep_dims", "true"}};
  const auto outputs = c.add("ReduceProd", 1, {c.add("Concat", 1, {shape_slice(c, xs, 0, 1), positions}, {{"axis", "0"}}), c.i64({0})}, keep);
  expect_no_zero(c, c.add("Select", 1, {c.add("Equal", 1, {outputs, c.i64({0})}, numpy), c.i64({1}),
                                        c.add("ReduceProd", 1, {image, c.i64({0})}, keep)}, numpy));
  // Each sample's X meets every filter: [N, 1, 1, 1] plus [1, M, 1, 1] (M in group parts), broadcast to the output.
  const auto filters = c.add("ReduceSum", 1, {w, c.i64({1, 2, 3})}, {{"keep_dims", "false"}});
  const auto grouped_filters = c.add("Reshape", 1, {filters, c.i64({groups, -1})}, {{"special_zero", "false"}});
  const auto met = c.add("Add", 1, {c.add("ReduceSum", 1, {x, c.i64({1, 2, 3})}, keep),
                                    c.add("Reshape", 1, {grouped_filters, c.i64({1, -1, 1, 1})}, {{"special_zero", "false"}})}, numpy);
  auto y = c.add("Broadcast", 3, {met, c.add("Concat", 1, {shape_slice(c, xs, 0, 1), out_channels, positions}, {{"axis", "0"}})},
                 {{"mode", "numpy"}});
  // B: one value per output channel, 1-D, as a convolution's.
  if (const auto bias = c.input(3)) y = add_bias(c, y, *bias, 2, 3);
  const auto taps = c.add("ReduceProd", 1, {window, c.i64({0})}, keep);
  y = plus_sampling_input(c, y, 2, c.add("Multiply", 1, {taps, c.i64({2 * offset_groups})}, numpy));
  if (c.input(4)) y = plus_sampling_input(c, y, 4, c.add("Multiply", 1, {taps, c.i64({offset_groups})}, numpy));
  c.output(0, y);
}

/// Leaves a convolution dilated with SAME_* not covered, and says so. Not a refusal of the model: ONNX
/// Runtime loads it, and runs it as long as the node does not run (in an If's branch not taken).
bool dilated_same_not_covered(node_context& c) {
  if (!same_and_dilated(c)) return false;
  c.not_covered(fmt::format("a convolution dilated with auto_pad {}: ONNX Runtime refuses it when it runs (give the "
                            "pads, or dilations of 1)",
                            c.s("auto_pad", "")));
  return true;
}

void conv(node_context& c) {
  if (dilated_same_not_covered(c)) return;
  c.output(0, convolve(c, c.need(0), c.need(1), {}));
}
// FusedConv (com.microsoft): Conv, plus Z (input 3) when given, then an activation that keeps the shape.
void fused_conv(node_context& c) {
  if (dilated_same_not_covered(c)) return;
  auto y = convolve(c, c.need(0), c.need(1), {});
  if (const auto z = c.input(3)) y = c.add("Add", 1, {y, *z}, {{"auto_broadcast", "numpy"}});
  c.output(0, y);
}

// The integer convolutions compute in integers what Conv computes in reals; the layers here compute in f32
// and convert, which keeps the shapes and which elements meet. ConvInteger gives i32; QLinearConv the type
// of its output zero point (u8 by default).
void conv_integer(node_context& c) {
  if (dilated_same_not_covered(c)) return;
  // One statement each: the layers' order (and ids) must not depend on the compiler's order of arguments.
  const auto x = as_f32(c, c.need(0));
  const auto w = as_f32(c, c.need(1));
  const auto y = convolve(c, x, w, {.w = 1, .bias = std::nullopt});
  c.output(0, c.add("Convert", 1, {y}, {{"destination_type", "i32"}}));
}
void qlinear_conv(node_context& c) {
  if (dilated_same_not_covered(c)) return;
  const auto x = as_f32(c, c.need(0));
  const auto w = as_f32(c, c.need(3));
  const auto y = convolve(c, x, w, {.w = 3, .bias = 8});
  c.output(0, quantised_like(c, y, 7));
}

// ConvTranspose: ConvolutionBackpropData (grouped when `group` > 1). Its output's spatial sizes differ from
// the IR op's where ONNX says more: an `output_shape` attribute gives them (spatial sizes only: ONNX Runtime
// refuses a model whose output_shape holds N and C too, which OpenVINO's frontend skips), and
// SAME_UPPER/SAME_LOWER without one make them the input's times the stride, less what ONNX Runtime leaves
// out for a window shorter than the stride (the IR op, given no output_shape, pads nothing). Both become the
// IR op's output_shape input; the second is computed from the input's shape, so it follows new sizes.
/// ConvTranspose's product, before its bias.
source transposed(node_context& c) {
  const auto spatial = spatial_axes(c, 1);
  const auto groups = c.i("group", 1);
  auto a = window(c, spatial, true);
  const auto output_padding = c.ints("output_padding").value_or(std::vector<std::int64_t>(spatial, 0));
  {
    // ONNX Runtime refuses an output padding as large as both the stride and the dilation.
    const auto s = c.ints("strides").value_or(std::vector<std::int64_t>(spatial, 1));
    const auto d = c.ints("dilations").value_or(std::vector<std::int64_t>(spatial, 1));
    for (std::size_t i = 0; i < output_padding.size() && i < s.size() && i < d.size(); ++i)
      if (output_padding[i] >= std::max(s[i], d[i]))
        c.bad(fmt::format("output_padding {} on spatial axis {} is not below the stride {} or the dilation {}",
                          output_padding[i], i, s[i], d[i]));
  }
  a.emplace_back("output_padding", list(output_padding));
  const auto x = c.need(0);
  const auto weights = kernel_checked(c, c.need(1), 1);
  std::vector<source> inputs{x, groups == 1 ? weights : grouped(c, weights, groups)};
  const auto pad = c.s("auto_pad", "NOTSET");
  if (auto sizes = c.ints("output_shape")) {
    if (sizes->size() != spatial)
      c.bad(fmt::format("output_shape has {} values for {} spatial axes", sizes->size(), spatial));
    inputs.push_back(c.i64(*sizes));
  } else if (pad == "SAME_UPPER" || pad == "SAME_LOWER") {
    const auto dims = c.add("StridedSlice", 1, {c.shape_of(x), c.i64({2}), c.i64({0}), c.i64({1})},
                            {{"begin_mask", "0"}, {"end_mask", "1"}});
    const auto strides = c.ints("strides").value_or(std::vector<std::int64_t>(spatial, 1));
    source out_sizes = c.add("Multiply", 1, {dims, c.i64(strides)}, {{"auto_broadcast", "numpy"}});
    // ONNX Runtime pads by stride·(in - 1) + window + output_padding - stride·in where that is not negative,
    // and by 0 where it is: a window (with its output padding) shorter than the stride leaves the output
    // that much short of stride·in. Known where the kernel is (kernel_shape, or the weights' dims).
    auto kernel = c.ints("kernel_shape");
    if (!kernel)
      if (const auto w = c.constant_dims(1); w && w->size() == spatial + 2) kernel.emplace(w->begin() + 2, w->end());
    const auto dilations = c.ints("dilations").value_or(std::vector<std::int64_t>(spatial, 1));
    const auto padding = c.ints("output_padding").value_or(std::vector<std::int64_t>(spatial, 0));
    if (kernel && kernel->size() == spatial && strides.size() == spatial && dilations.size() == spatial &&
        padding.size() == spatial) {
      std::vector<std::int64_t> short_by(spatial, 0);
      bool any = false;
      for (std::size_t i = 0; i < spatial; ++i) {
        // Attributes out of these ranges are the rule's to refuse; nothing here may overflow on them.
        constexpr std::int64_t large = std::int64_t{1} << 40;
        const auto within = [](std::int64_t v, std::int64_t lo) { return v >= lo && v <= large; };
        if (!within((*kernel)[i], 1) || !within(dilations[i], 1) || !within(padding[i], 0) || !within(strides[i], 1))
          continue;
        std::int64_t window = 0;
        if (__builtin_mul_overflow((*kernel)[i] - 1, dilations[i], &window) || window > large) continue;
        short_by[i] = std::min<std::int64_t>(0, window + 1 + padding[i] - strides[i]);
        any = any || short_by[i] != 0;
      }
      if (any) out_sizes = c.add("Add", 1, {out_sizes, c.i64(short_by)}, {{"auto_broadcast", "numpy"}});
    } else if (!kernel && strides.size() == spatial && dilations.size() == spatial && padding.size() == spatial) {
      // The window from the weights' shape (weights computed in the graph, no kernel_shape).
      const auto k = c.add("StridedSlice", 1, {c.shape_of(c.need(1)), c.i64({2}), c.i64({0}), c.i64({1})},
                           {{"begin_mask", "0"}, {"end_mask", "1"}});
      std::vector<std::int64_t> rest(spatial, 0);
      for (std::size_t i = 0; i < spatial; ++i)
        if (__builtin_add_overflow(padding[i], 1, &rest[i]) || __builtin_sub_overflow(rest[i], strides[i], &rest[i]))
          rest[i] = 0;  // the rule refuses such attributes
      const auto window = c.add("Multiply", 1, {c.add("Subtract", 1, {k, c.i64(std::vector<std::int64_t>(spatial, 1))}, numpy),
                                                c.i64(dilations)},
                                numpy);
      const auto short_by = c.add("Minimum", 1, {c.add("Add", 1, {window, c.i64(rest)}, numpy),
                                                 c.i64(std::vector<std::int64_t>(spatial, 0))},
                                  numpy);
      out_sizes = c.add("Add", 1, {out_sizes, short_by}, numpy);
    }
    inputs.push_back(out_sizes);
  }
  return c.add(groups == 1 ? "ConvolutionBackpropData" : "GroupConvolutionBackpropData", 1, inputs, a);
}
void conv_transpose(node_context& c) {
  auto y = transposed(c);
  if (const auto bias = c.input(2)) y = add_bias(c, y, *bias, spatial_axes(c, 1));
  c.output(0, y);
}
// com.microsoft.ConvTransposeWithDynamicPads (X, W, Pads, B): ConvTranspose whose pads are input 2, read when it
// runs: r begins then r ends (int64). Without auto_pad (or with VALID, which ONNX Runtime reads as NOTSET
// here), the product of no padding cropped by them on each spatial axis (a negative pad, or more than the
// product holds, is refused: the pads and the sizes left are the repeats of a Tile, which cannot be negative).
// With SAME_UPPER or SAME_LOWER ONNX Runtime computes its own pads, as ConvTranspose's. It takes no pads or
// output_shape attribute.
void conv_transpose_dynamic_pads(node_context& c) {
  if (c.attribute("pads") != nullptr || c.attribute("output_shape") != nullptr)
    c.bad("it has a pads or output_shape attribute", "its pads are input 2");
  const auto spatial = static_cast<std::int64_t>(spatial_axes(c, 1));
  if (const auto r = c.rank(2); r && *r != 1) c.bad(fmt::format("its Pads is of rank {}", *r), "Pads is 1-D, 2 values a spatial axis");
  // Two halves of r values, whatever auto_pad says (ONNX Runtime checks the count when it loads the model).
  const auto halves = c.add("VariadicSplit", 1, {c.add("Convert", 1, {c.need(2)}, {{"destination_type", "i64"}}), c.i64({0}, scalar),
                                                 c.i64({spatial, spatial})}, {}, 2);
  const source ends{halves.layer, 1};
  auto y = transposed(c);
  // Each pad, and each size left, must not be negative (ONNX Runtime checks the pads whatever auto_pad says).
  std::vector<source> counts{halves, ends};
  if (const auto pad = c.s("auto_pad", "NOTSET"); pad != "SAME_UPPER" && pad != "SAME_LOWER") {
    const auto end = c.add("Subtract", 1, {shape_slice(c, c.shape_of(y), 2, 0), ends}, numpy);
    counts.push_back(c.add("Subtract", 1, {end, halves}, numpy));
    std::vector<std::int64_t> axes(static_cast<std::size_t>(spatial));
    for (std::size_t k = 0; k < axes.size(); ++k) axes[k] = static_cast<std::int64_t>(k) + 2;
    y = c.add("Slice", 8, {y, halves, end, c.i64(std::vector<std::int64_t>(axes.size(), 1)), c.i64(axes)});
  }
  const auto repeats = c.add("Concat", 1, counts, {{"axis", "0"}});
  const auto zeros = c.add("Tile", 1, {c.add("Unsqueeze", 1, {like(c, 0.0F, y), c.i64({0})}), repeats});
  y = c.add("Add", 1, {y, c.add("ReduceSum", 1, {zeros, c.axes_from(zeros, 0)}, {{"keep_dims", "false"}})}, numpy);
  if (const auto bias = c.input(3)) {
    // [M] exactly (ONNX Runtime broadcasts no 1), seen as [1, M, 1...].
    const auto channels = shape_slice(c, c.shape_of(y), 1, 2);
    const auto exact = exactly(c, *bias, 0, channels);
    std::vector<std::int64_t> pattern(static_cast<std::size_t>(spatial) + 2, 1);
    pattern[1] = -1;
    y = c.add("Add", 1, {y, c.add("Reshape", 1, {exact, c.i64(pattern)}, {{"special_zero", "false"}})}, numpy);
  }
  c.output(0, y);
}

/// The window attributes of a pooling node, with its kernel_shape (which `op` needs) and rounding: ceil_mode
/// (where the version has it) makes ONNX Runtime drop a last window that would start in the end padding,
/// OpenVINO's ceil_torch.
attributes pool_window(node_context& c, std::string_view op, bool with_dilations, bool ceil,
                       bool pads_ignored_beside_auto_pad = false) {
  auto a = window(c, spatial_axes(c, 0), with_dilations, pads_ignored_beside_auto_pad);
  const auto kernel = c.ints("kernel_shape");
  if (!kernel) c.bad(fmt::format("{} needs kernel_shape", op));
  // ONNX Runtime's pooling kernels refuse a pad as long as the window when they load.
  if (const auto pads = c.ints("pads"); pads && !kernel->empty())
    for (std::size_t i = 0; i < pads->size(); ++i)
      if (const auto k = i % kernel->size(); (*pads)[i] >= (*kernel)[k])
        c.bad(fmt::format("its pad {} is {}, not below the window's {} on spatial axis {}", i, (*pads)[i], (*kernel)[k], k),
              "a pooling's pads are shorter than its window (ONNX Runtime)");
  a.emplace_back("kernel", list(*kernel));
  a.emplace_back("rounding_type", ceil ? "ceil_torch" : "floor");
  return a;
}
/// Refuses a pad not shorter than its kernel (ONNX Runtime's pooling kernels refuse it when they are made).
void pads_below_kernel(const node_context& c) {
  const auto kernel = c.ints("kernel_shape");
  const auto pads = c.ints("pads");
  if (!kernel || !pads || pads->size() != 2 * kernel->size()) return;
  for (std::size_t k = 0; k < pads->size(); ++k)
    if ((*pads)[k] >= (*kernel)[k % kernel->size()])
      c.bad(fmt::format("its pad {} is not shorter than its kernel", (*pads)[k]), "pads are shorter than the kernel");
}

constexpr const char* same_dilated_pool =
    "a MaxPool dilated with auto_pad SAME_*: ONNX Runtime pads it for the undilated window, which no op of reshape1's "
    "computes";
void max_pool(node_context& c) {
  if (same_and_dilated(c)) return c.not_covered(same_dilated_pool);
  const bool ceil = c.i("ceil_mode", 0) != 0;
  auto a = pool_window(c, "MaxPool", true, ceil);
  a.emplace_back("index_element_type", "i64");
  a.emplace_back("axis", "0");
  const auto y = c.add("MaxPool", ceil ? 14 : 8, {c.need(0)}, a, 2);
  c.output(0, y);
  c.output(1, source{y.layer, 1});
}

/// The Transposes' orders that move the channels of [N, spatial..., C] (`spatial` axes) to [N, C, spatial...]
/// (`to`) and back (`back`), for the pools that take channels last.
struct channel_moves {
  std::vector<std::int64_t> to, back;
};
channel_moves channels_first(std::int64_t spatial) {
  channel_moves m{{0, spatial + 1}, {0}};
  for (std::int64_t k = 1; k <= spatial; ++k) m.to.push_back(k);
  for (std::int64_t k = 2; k <= spatial + 1; ++k) m.back.push_back(k);
  m.back.push_back(1);
  return m;
}

// com.microsoft.NhwcMaxPool: MaxPool of [N, spatial..., C] (1 to 3 spatial axes, the kernel's), through a
// transpose to [N, C, spatial...] and back.
void nhwc_max_pool(node_context& c) {
  const auto kernel = c.ints("kernel_shape");
  if (!kernel || kernel->empty() || kernel->size() > 3) c.bad("its kernel_shape is missing or not of 1 to 3 axes");
  const auto spatial = static_cast<std::int64_t>(kernel->size());
  if (const auto r = c.rank(0); r && static_cast<std::int64_t>(*r) != spatial + 2)
    c.bad(fmt::format("its input has rank {} for a kernel of {} axes", *r, spatial), "X is [N, spatial..., C]");
  pads_below_kernel(c);
  if (same_and_dilated(c)) return c.not_covered(same_dilated_pool);
  const bool ceil = c.i("ceil_mode", 0) != 0;
  auto a = pool_window(c, "NhwcMaxPool", true, ceil);
  a.emplace_back("index_element_type", "i64");
  a.emplace_back("axis", "0");
  const auto moves = channels_first(spatial);
  const auto nchw = c.add("Transpose", 1, {c.need(0), c.i64(moves.to)});
  const auto y = c.add("MaxPool", ceil ? 14 : 8, {nchw}, a, 2);
  c.output(0, c.add("Transpose", 1, {y, c.i64(moves.back)}));
}
// com.microsoft.QLinearAveragePool (X, x_scale, x_zero_point, y_scale, y_zero_point; the quantiser's
// AveragePool): AveragePool of X's values, of [N, C, spatial...] or, with channels_last, [N, spatial..., C]
// (through a transpose to [N, C, spatial...] and back, as ONNX Runtime moves the channels), its output of
// y_zero_point's type. ONNX Runtime pools 1 to 3 axes (more only where the window is the whole map, which
// is left not covered).
void qlinear_average_pool(node_context& c) {
  const auto kernel = c.ints("kernel_shape");
  if (!kernel || kernel->empty()) c.bad("QLinearAveragePool needs kernel_shape");
  if (kernel->size() > 3)
    return c.not_covered("a QLinearAveragePool of more than 3 axes (ONNX Runtime runs it only as a global pool)");
  const auto spatial = static_cast<std::int64_t>(kernel->size());
  const bool last = c.i("channels_last", 0) != 0;
  if (const auto r = c.rank(0); r && static_cast<std::int64_t>(*r) != spatial + 2)
    c.bad(fmt::format("its input has rank {} for a kernel of {} axes", *r, spatial),
          last ? "X is [N, spatial..., C]" : "X is [N, C, spatial...]");
  for (const std::size_t port : {1, 2, 3, 4}) expect_one_value(c, port);
  const bool ceil = c.i("ceil_mode", 0) != 0;
  // (ONNX Runtime's schema of it, unlike ONNX's pools, takes pads beside auto_pad, which it then ignores.)
  auto a = pool_window(c, "QLinearAveragePool", false, ceil, true);
  a.emplace_back("exclude-pad", c.i("count_include_pad", 0) != 0 ? "false" : "true");
  auto x = as_f32(c, c.need(0));
  const auto moves = channels_first(spatial);
  if (last) x = c.add("Transpose", 1, {x, c.i64(moves.to)});
  auto y = c.add("AvgPool", ceil ? 14 : 1, {x}, a);
  if (last) y = c.add("Transpose", 1, {y, c.i64(moves.back)});
  c.output(0, quantised_like(c, y, 4));
}

// com.microsoft.MaxpoolWithMask (X [N, C, spatial...], M of X's rank, its N and C possibly 1): MaxPool of X
// where the mask holds, the mask broadcast one way to X's shape (of its rank: ONNX Runtime's check).
void maxpool_with_mask(node_context& c) {
  const auto kernel = c.ints("kernel_shape");
  if (!kernel || kernel->empty() || kernel->size() > 3) c.bad("its kernel_shape is missing or not of 1 to 3 axes", "ONNX Runtime pools 1 to 3 axes");
  if (const auto r = c.rank(0), m = c.rank(1); r && m && *r != *m) c.bad(fmt::format("its mask has rank {} and X rank {}", *m, *r));
  pads_below_kernel(c);
  auto a = pool_window(c, "MaxpoolWithMask", false, false);
  a.emplace_back("index_element_type", "i64");
  a.emplace_back("axis", "0");
  const auto x = c.need(0);
  const auto mask = c.add("ConvertLike", 1, {c.add("Broadcast", 3, {c.need(1), c.shape_of(x)}, {{"mode", "numpy"}}), x});
  c.output(0, c.add("MaxPool", 8, {c.add("Multiply", 1, {x, mask}, {{"auto_broadcast", "numpy"}})}, a, 2));
}

void average_pool(node_context& c) {
  const bool ceil = c.i("ceil_mode", 0) != 0;
  auto a = pool_window(c, "AveragePool", false, ceil);
  a.emplace_back("exclude-pad", c.i("count_include_pad", 0) != 0 ? "false" : "true");
  if (dilated(c)) return c.not_covered("AveragePool with dilations is not covered");
  c.output(0, c.add("AvgPool", ceil ? 14 : 1, {c.need(0)}, a));
}

// LpPool: the Lp norm of each window: |x|^p averaged over the window with the padding counted (AvgPool
// without exclude-pad), times the window's size, to the power 1/p; AveragePool's shapes (ceil_mode and
// dilations from 18; dilations other than 1 are not covered, as AveragePool's).
void lp_pool(node_context& c) {
  const bool ceil = c.version() >= 18 && c.i("ceil_mode", 0) != 0;
  auto a = pool_window(c, "LpPool", false, ceil);
  a.emplace_back("exclude-pad", "false");
  if (dilated(c)) return c.not_covered("LpPool with dilations is not covered");
  const auto kernel = c.ints("kernel_shape");
  const auto p = c.i("p", 2);
  if (p <= 0) c.bad(fmt::format("p is {}", p), "LpPool's p is positive");
  // The window's size as a real factor (the rule refuses kernels out of range, so no product overflows a double).
  double size = 1;
  for (const auto k : *kernel) size *= static_cast<double>(k);
  const auto x = c.need(0);
  const auto powered = c.add("Power", 1, {c.add("Abs", 1, {x}), like(c, static_cast<float>(p), x)}, numpy);
  const auto sums = c.add("Multiply", 1, {c.add("AvgPool", ceil ? 14 : 1, {powered}, a), like(c, static_cast<float>(size), x)}, numpy);
  c.output(0, c.add("Power", 1, {sums, like(c, 1.0F / static_cast<float>(p), x)}, numpy));
}

/// The global pools take [N, C, D1...]: ONNX Runtime refuses an input of rank below 3 when it runs.
/// A global pool's input: of rank 3 at least, and (as ONNX Runtime's kernels check when they run) with an
/// element in each channel and spatial axis, unless the batch is empty (which it runs whatever the others).
void refuse_unpooled_rank(node_context& c) {
  if (const auto r = c.rank(0); r && *r < 3)
    c.bad(fmt::format("its input has rank {}", *r), "a global pool takes [N, C, D1, ...]: rank 3 at least");
  const auto dims = c.shape_of(c.need(0));
  const auto keep = attributes{{"keep_dims", "true"}};
  const auto batch = shape_slice(c, dims, 0, 1);
  expect_no_zero(c, c.add("Select", 1, {c.add("Equal", 1, {batch, c.i64({0})}, numpy), c.i64({1}),
                                        c.add("ReduceProd", 1, {shape_slice(c, dims, 1, 0), c.i64({0})}, keep)},
                          numpy));
}
template <const char* Reduce>
void global_pool(node_context& c) {
  refuse_unpooled_rank(c);
  const auto x = c.need(0);
  c.output(0, c.add(Reduce, 1, {x, c.axes_from(x, 2)}, {{"keep_dims", "true"}}));
}
// com.microsoft.QLinearGlobalAveragePool (X, x_scale, x_zero_point, y_scale, y_zero_point): the mean of X's
// values over its spatial axes, kept as 1s: axes 2 on, or 1 to the last but one with channels_last; of
// y_zero_point's type. ONNX Runtime takes an X of rank 3 at least.
void qlinear_global_average_pool(node_context& c) {
  if (const auto r = c.rank(0); r && *r < 3)
    c.bad(fmt::format("its input has rank {}", *r), "a global pool takes [N, C, D1, ...]: rank 3 at least");
  for (const std::size_t port : {1, 2, 3, 4}) expect_one_value(c, port);
  const auto x = as_f32(c, c.need(0));
  const auto axes = c.i("channels_last", 0) != 0
                        ? c.add("Range", 4, {c.i64({1}, scalar), c.add("Subtract", 1, {c.rank_of(x), c.i64({1}, scalar)}, numpy),
                                             c.i64({1}, scalar)},
                                {{"output_type", "i64"}})
                        : c.axes_from(x, 2);
  // ONNX Runtime averages no image of no element ("parameter out of computation range").
  expect_no_zero(c, c.add("Gather", 8, {c.shape_of(x), axes, c.i64({0}, scalar)}, {{"batch_dims", "0"}}));
  c.output(0, quantised_like(c, c.add("ReduceMean", 1, {x, axes}, {{"keep_dims", "true"}}), 4));
}
// GlobalLpPool: the Lp norm over the spatial axes (p 2 by default): ReduceL1 or ReduceL2, else the sum of
// |x|^p to the power 1/p.
void global_lp_pool(node_context& c) {
  refuse_unpooled_rank(c);
  const auto x = c.need(0);
  const auto p = c.i("p", 2);
  const auto axes = c.axes_from(x, 2);
  const auto keep = node_context::attributes{{"keep_dims", "true"}};
  if (p == 1 || p == 2) return c.output(0, c.add(p == 1 ? "ReduceL1" : "ReduceL2", 4, {x, axes}, keep));
  if (p <= 0) c.bad(fmt::format("p is {}", p), "GlobalLpPool's p is positive");
  const auto powered = c.add("Power", 1, {c.add("Abs", 1, {x}), like(c, static_cast<float>(p), x)}, numpy);
  c.output(0, c.add("Power", 1, {c.add("ReduceSum", 1, {powered, axes}, keep), like(c, 1.0F / static_cast<float>(p), x)}, numpy));
}

/// Refuses window values (kernel, strides, pads, dilations, image and block sizes) of magnitude above 2^60, so
/// that the sums of a few of them the rows compute stay within int64 (a model's attributes may hold any value).
void limited(const node_context& c, const std::vector<std::int64_t>& values, std::string_view what) {
  constexpr std::int64_t limit = std::int64_t{1} << 60;
  for (const auto v : values)
    if (v > limit || v < -limit) c.bad(fmt::format("its {} holds {}", what, v), "window values are within 2^60 in magnitude");
}

// MaxUnpool: each element of X written, in an output of zeros, at the position its index in I gives, counted
// over the whole output as MaxPool's indices are (the batch and channels included): a ScatterUpdate of the
// output flattened. The output is [N, C, (in - 1) * stride + kernel - pads] on each spatial axis, or what the
// output_shape input says (X's batch and channels, and as many elements at least). X and I have one shape:
// each is broadcast one way to the other's.
void max_unpool(node_context& c) {
  refuse_listed_but_left_out(c, 2, "output_shape");
  const auto exact = attributes{{"auto_broadcast", "none"}};
  const auto kernel = c.ints("kernel_shape");
  if (!kernel) c.bad("MaxUnpool needs kernel_shape");
  const auto spatial = kernel->size();
  const auto strides = c.ints("strides").value_or(std::vector<std::int64_t>(spatial, 1));
  const auto pads = c.ints("pads").value_or(std::vector<std::int64_t>(2 * spatial, 0));
  if (strides.size() != spatial) c.bad(fmt::format("strides has {} values for {} spatial axes", strides.size(), spatial));
  if (pads.size() != 2 * spatial) c.bad(fmt::format("pads has {} values for {} spatial axes", pads.size(), spatial));
  limited(c, *kernel, "kernel_shape");
  limited(c, strides, "strides");
  limited(c, pads, "pads");
  if (const auto r = c.rank(0); r && *r != spatial + 2)
    c.bad(fmt::format("its input has rank {} for a kernel of {} axes", *r, spatial), "X is [N, C, spatial...]");
  // ONNX Runtime's kernel: 1 to 3 spatial axes, kernels and strides of 1 at least, a pad shorter than its kernel.
  if (spatial == 0 || spatial > 3) c.bad(fmt::format("its kernel has {} axes", spatial), "ONNX Runtime unpools 1 to 3 spatial axes");
  for (std::size_t k = 0; k < spatial; ++k) {
    if ((*kernel)[k] < 1 || strides[k] < 1)
      c.bad(fmt::format("its kernel_shape or strides hold a value below 1 on spatial axis {}", k));
    if (pads[k] >= (*kernel)[k] || pads[spatial + k] >= (*kernel)[k])
      c.bad(fmt::format("a pad of spatial axis {} is not shorter than its kernel {}", k, (*kernel)[k]), "pads are shorter than the kernel");
  }
  if (const auto d = c.constant_dims(2); d && (d->size() != 1 || static_cast<std::size_t>((*d)[0]) != spatial + 2))
    c.bad(fmt::format("its output_shape has dims [{}]", fmt::join(*d, ",")), fmt::format("one value for each of the {} dimensions of X", spatial + 2));
  const auto x = c.need(0);
  const auto indices = c.need(1);
  const auto values = c.add("Broadcast", 3, {x, c.shape_of(indices)}, {{"mode", "numpy"}});
  const auto at = c.add("Broadcast", 3, {indices, c.shape_of(x)}, {{"mode", "numpy"}});
  const auto inferred = [&] {
    const auto dims = c.shape_of(x);
    std::vector<std::int64_t> extra(spatial);
    for (std::size_t k = 0; k < spatial; ++k)
      extra[k] = (*kernel)[k] - pads[k] - pads[spatial + k];
    const auto grown = c.add("Multiply", 1, {c.add("Subtract", 1, {shape_slice(c, dims, 2, 0), c.i64({1}, std::vector<std::int64_t>{})}, numpy),
                                              c.i64(strides)}, exact);
    return c.add("Concat", 1, {shape_slice(c, dims, 0, 2), c.add("Add", 1, {grown, c.i64(extra)}, exact)}, {{"axis", "0"}});
  };
  // An output_shape of X's batch and channels (a tensor of that shape split by X's) and its own spatial sizes.
  const auto given = [&](source wanted) {
    const auto dims = c.shape_of(x);
    auto lead = c.add("Broadcast", 3, {c.i64({0}, scalar), shape_slice(c, wanted, 0, 2)}, {{"mode", "numpy"}});
    lead = exactly(c, lead, 0, shape_slice(c, dims, 0, 1));
    lead = exactly(c, lead, 1, shape_slice(c, dims, 1, 2));
    return c.add("Concat", 1, {c.shape_of(lead), shape_slice(c, wanted, 2, 0)}, {{"axis", "0"}});
  };
  // ONNX Runtime refuses an inferred spatial size of 0 (an input of 1 beside pads as long as the kernel).
  if (!c.input(2)) expect_no_zero(c, shape_slice(c, inferred(), 2, 0));
  const auto shape = c.input(2) ? given(c.add("Convert", 1, {*c.input(2)}, {{"destination_type", "i64"}})) : inferred();
  // The output flattened; one given by output_shape holds the inferred one's elements at least (a tensor of its
  // count split after the inferred count).
  const auto any = c.i64({-1});
  auto flat = any;
  if (c.input(2)) {
    const auto keep = attributes{{"keep_dims", "true"}};
    const auto count = c.add("ReduceProd", 1, {shape, c.i64({0})}, keep);
    const auto least = c.add("ReduceProd", 1, {inferred(), c.i64({0})}, keep);
    const auto room = c.add("Broadcast", 3, {c.i64({0}, std::vector<std::int64_t>{}), count}, {{"mode", "numpy"}});
    const auto parts = c.add("VariadicSplit", 1, {room, c.i64({0}, std::vector<std::int64_t>{}), c.add("Concat", 1, {least, c.i64({-1})}, {{"axis", "0"}})},
                             {}, 2);
    flat = c.shape_of(c.add("Concat", 1, {parts, source{parts.layer, 1}}, {{"axis", "0"}}));
  }
  const auto zeros = c.add("Broadcast", 3, {like(c, 0.0F, x), shape}, {{"mode", "numpy"}});
  const auto flat_of = [&](source t, source pattern) { return c.add("Reshape", 1, {t, pattern}, {{"special_zero", "false"}}); };
  const auto written = c.add("ScatterUpdate", 3, {flat_of(zeros, flat), flat_of(at, any), flat_of(values, any), c.i64({0}, std::vector<std::int64_t>{})});
  c.output(0, c.add("Reshape", 1, {written, shape}, {{"special_zero", "false"}}));
}

// Col2Im: the columns [N, C * K, L] (K the product of block_shape, L the number of blocks the image holds)
// summed back into images [N, C, image_shape...]. Which columns meet at a pixel depends on its place; what
// the rules need is that an image of channel c of entry n is made of the columns of c and n only: the columns
// seen as [N, C, K, L] (a VariadicSplit refuses a count of blocks other than L), summed over K and L, and
// broadcast to the image.
void col2im(node_context& c) {
  const auto exact = attributes{{"auto_broadcast", "none"}};
  std::size_t spatial = 0;
  if (const auto d = c.constant_dims(1); d && d->size() == 1) spatial = static_cast<std::size_t>((*d)[0]);
  else if (const auto b = c.constant_dims(2); b && b->size() == 1) spatial = static_cast<std::size_t>((*b)[0]);
  else if (const auto s = c.ints("strides")) spatial = s->size();
  else return c.not_covered("Col2Im with an image_shape and a block_shape of unknown lengths is not covered");
  if (spatial == 0) c.bad("its image_shape is empty", "Col2Im has one spatial axis at least");
  if (const auto r = c.rank(0); r && *r != 3) c.bad(fmt::format("its input has rank {}", *r), "Col2Im's input is [N, C * K, L]");
  const auto ones = std::vector<std::int64_t>(spatial, 1);
  const auto strides = c.ints("strides").value_or(ones);
  const auto dilations = c.ints("dilations").value_or(ones);
  const auto pads = c.ints("pads").value_or(std::vector<std::int64_t>(2 * spatial, 0));
  if (strides.size() != spatial || dilations.size() != spatial || pads.size() != 2 * spatial)
    c.bad(fmt::format("it has {} strides, {} dilations and {} pads for {} spatial axes", strides.size(), dilations.size(),
                      pads.size(), spatial));
  limited(c, strides, "strides");
  limited(c, dilations, "dilations");
  limited(c, pads, "pads");
  for (std::size_t k = 0; k < spatial; ++k)
    if (strides[k] < 1 || dilations[k] < 1) c.bad(fmt::format("a stride or dilation of spatial axis {} is below 1", k));
  for (const std::size_t port : {1, 2})
    if (const auto v = c.constant_ints(port)) {
      if (v->size() != spatial) c.bad(fmt::format("its image_shape and block_shape hold {} and {} values", spatial, v->size()));
      if (std::any_of(v->begin(), v->end(), [](std::int64_t d) { return d < 1; }))
        c.bad(fmt::format("its {} holds a value below 1", port == 1 ? "image_shape" : "block_shape"));
      limited(c, *v, port == 1 ? "image_shape" : "block_shape");
    }
  std::vector<std::int64_t> padding(spatial);
  for (std::size_t k = 0; k < spatial; ++k)
    padding[k] = pads[k] + pads[spatial + k] - 1 + dilations[k];
  if (const auto image = c.constant_ints(1), block = c.constant_ints(2); image && block)
    for (std::size_t k = 0; k < spatial; ++k)
      if (std::int64_t span = 0; __builtin_mul_overflow(dilations[k], (*block)[k], &span) || (*image)[k] + padding[k] < span)
        c.bad(fmt::format("on spatial axis {} the padded image is smaller than the dilated block", k),
              "image + pads must hold dilation * (block - 1) + 1");
  const auto image = c.add("Convert", 1, {c.need(1)}, {{"destination_type", "i64"}});
  const auto block = c.add("Convert", 1, {c.need(2)}, {{"destination_type", "i64"}});
  // Blocks along each axis: (image + pads - dilation * (block - 1) - 1) / stride + 1.
  const auto span = c.add("Multiply", 1, {block, c.i64(dilations)}, exact);
  const auto room = c.add("Subtract", 1, {c.add("Add", 1, {image, c.i64(padding)}, exact), span}, exact);
  const auto along = c.add("Add", 1, {c.add("Divide", 1, {room, c.i64(strides)}, exact), c.i64({1}, scalar)}, numpy);
  const auto keep = attributes{{"keep_dims", "true"}};
  const auto count = c.add("ReduceProd", 1, {along, c.i64({0})}, keep);
  const auto size = c.add("ReduceProd", 1, {block, c.i64({0})}, keep);
  const auto x = c.need(0);
  const auto dims = c.shape_of(x);
  // C, of C * K columns: a tensor of that many elements seen as [-1, K], which refuses a K that does not divide
  // them, or none (ONNX Runtime takes a positive multiple), also where N is 0.
  const auto columns = c.add("Broadcast", 3, {c.i64({0}, scalar), shape_slice(c, dims, 1, 2)}, {{"mode", "numpy"}});
  const auto per_block = c.add("Reshape", 1, {columns, c.add("Concat", 1, {c.i64({-1}), size}, {{"axis", "0"}})}, {{"special_zero", "false"}});
  const auto channels = shape_slice(c, c.shape_of(per_block), 0, 1);
  auto y = c.add("Reshape", 1, {x, c.add("Concat", 1, {shape_slice(c, dims, 0, 1), channels, size, shape_slice(c, dims, 2, 3)}, {{"axis", "0"}})},
                 {{"special_zero", "false"}});
  y = exactly(c, y, 3, count);
  const auto sums = c.add("ReduceSum", 1, {y, c.i64({2, 3})}, {{"keep_dims", "false"}});
  std::vector<std::int64_t> axes(spatial);
  for (std::size_t k = 0; k < spatial; ++k) axes[k] = static_cast<std::int64_t>(k) + 2;
  const auto shape = c.add("Concat", 1, {c.shape_of(sums), image}, {{"axis", "0"}});
  c.output(0, c.add("Broadcast", 3, {c.add("Unsqueeze", 1, {sums, c.i64(axes)}), shape}, {{"mode", "numpy"}}));
}

}  // namespace

std::span<const onnx_entry> convolution_rows() {
  static const std::vector<onnx_entry> rows = {
      {"Conv", 1, conv}, {"ConvInteger", 10, conv_integer}, {"QLinearConv", 10, qlinear_conv},
      {"QLinearConv", 1, qlinear_conv, "com.microsoft"}, {"FusedConv", 1, fused_conv, "com.microsoft"},
      {"MaxPool", 1, max_pool},
      {"GlobalLpPool", 2, global_lp_pool}, {"LpPool", 2, lp_pool}, {"LpPool", 11, lp_pool}, {"LpPool", 18, lp_pool},
      {"LpPool", 22, lp_pool},
      {"ConvTranspose", 1, conv_transpose},
      {"ConvTransposeWithDynamicPads", 1, conv_transpose_dynamic_pads, "com.microsoft"}, {"MaxPool", 8, max_pool},
      {"AveragePool", 7, average_pool}, {"GlobalAveragePool", 1, global_pool<ReduceMean>},
      {"GlobalMaxPool", 1, global_pool<ReduceMax>}, {"MaxUnpool", 9, max_unpool},
      {"Col2Im", 18, col2im}, {"NhwcMaxPool", 1, nhwc_max_pool, "com.microsoft"},
      {"QLinearAveragePool", 1, qlinear_average_pool, "com.microsoft"},
      {"QLinearGlobalAveragePool", 1, qlinear_global_average_pool, "com.microsoft"},
      {"MaxpoolWithMask", 1, maxpool_with_mask, "com.microsoft"}, {"DeformConv", 19, deform_conv},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
