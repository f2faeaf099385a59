// The sliding-window output size of Convolution, GroupConvolution, MaxPool and AvgPool.
#include "window.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace reshape1::model::detail {

window read_window(const op& o, std::size_t spatial, std::span<const std::int64_t> kernel) {
  window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  const auto strides = o.l.integers("strides");
  w.strides.assign(strides.begin(), strides.end());
  w.dilations = o.l.integers("dilations", std::vector<std::int64_t>(spatial, 1));
  w.auto_pad = o.l.text("auto_pad", "explicit");
  if (w.auto_pad.empty()) w.auto_pad = "explicit";
  const bool explicit_pads = w.auto_pad == "explicit" || w.auto_pad == "notset";
  const auto list = [&](const char* name) {
    if (!explicit_pads) return o.l.integers(name, {});
    const auto l = o.l.integers(name);
    return std::vector<std::int64_t>(l.begin(), l.end());
  };
  w.pads_begin = list("pads_begin");
  w.pads_end = list("pads_end");
  if (!explicit_pads) {
    w.pads_begin.assign(spatial, 0);
    w.pads_end.assign(spatial, 0);
  }
  const auto r = o.l.text("rounding_type", "floor");
  w.round = r == "ceil" ? rounding::ceil : r == "ceil_torch" ? rounding::ceil_torch : rounding::floor;
  if (r != "floor" && r != "ceil" && r != "ceil_torch")
    refuse(o, fmt::format("rounding_type '{}' is not floor, ceil or ceil_torch", r));
  if (w.auto_pad != "explicit" && w.auto_pad != "notset" && w.auto_pad != "valid" && w.auto_pad != "same_upper" &&
      w.auto_pad != "same_lower")
    refuse(o, fmt::format("auto_pad '{}' is not explicit, valid, same_upper or same_lower", w.auto_pad));
  for (const auto* v : {&w.kernel, &w.strides, &w.dilations, &w.pads_begin, &w.pads_end})
    if (v->size() != spatial)
      refuse(o, fmt::format("the window attributes need {} values each (the spatial rank)", spatial));
  for (std::size_t i = 0; i < spatial; ++i)
    if (w.kernel[i] <= 0 || w.strides[i] <= 0 || w.dilations[i] <= 0 || w.pads_begin[i] < 0 || w.pads_end[i] < 0)
      refuse(o, fmt::format("spatial dimension {}: kernel {}, stride {} and dilation {} must be positive, pads "
                            "not negative",
                            i, w.kernel[i], w.strides[i], w.dilations[i]));
  return w;
}

dimension window_output(const op& o, const dimension& in, const window& w, std::size_t i) {
  const std::int64_t s = w.strides[i];
  if (w.auto_pad == "same_upper" || w.auto_pad == "same_lower")
    return map_dimension(in, [&](std::int64_t x) { return x / s + (x % s != 0 ? 1 : 0); });
  std::int64_t extent = 0, padded_extra = 0;
  if (__builtin_mul_overflow(w.kernel[i] - 1, w.dilations[i], &extent) ||
      __builtin_add_overflow(w.pads_begin[i], w.pads_end[i], &padded_extra))
    refuse(o, "the window attributes overflow");
  extent += 1;
  // Padded sizes saturate below the unbounded marker (no real tensor comes near it).
  auto padded = [&](std::int64_t x) {
    std::int64_t y = 0;
    return __builtin_add_overflow(x, padded_extra, &y) || y == interval::unbounded ? interval::unbounded - 1 : y;
  };
  // ONNX Runtime's size of a window over a shorter input (span < 0), negative where it refuses it: span / s + 1
  // in integers, whose division truncates toward zero (-1 / 3 + 1 is 1), or with ceil_mode the real
  // span / s + 1 rounded up.
  const auto short_output = [&](std::int64_t span) {
    if (w.round == rounding::floor) return span / s + 1;
    const std::int64_t a = span + s;
    return a > 0 ? (a + s - 1) / s : a / s;
  };
  if (in.range().is_bounded() && padded(in.hi()) < extent &&
      (!w.onnx_short_input || short_output(padded(in.hi()) - extent) < 0))
    refuse(o, fmt::format("spatial dimension {}: the window ({}) is larger than the padded input ({})", i, extent,
                          to_string(dimension(map_dimension(in, padded).range()))));
  return map_dimension(in, [&](std::int64_t x) {
    const std::int64_t span = padded(x) - extent;
    if (span < 0) return w.onnx_short_input ? std::max<std::int64_t>(0, short_output(span)) : std::int64_t{0};
    std::int64_t out = span / s + 1;
    if (w.round != rounding::floor && span % s != 0) {
      ++out;
      // ceil_torch: a last window that would start inside the end padding is dropped.
      std::int64_t start = 0, limit = 0;
      if (w.round == rounding::ceil_torch &&
          (__builtin_mul_overflow(out - 1, s, &start) || __builtin_add_overflow(x, w.pads_begin[i], &limit) ||
           start >= limit))
        --out;
    }
    return out;
  });
}

}  // namespace reshape1::model::detail
