// Interpolate-1: the data's shape with the dimensions on the `axes` attribute replaced by the target
// spatial shape (input 1). Interpolate-4 and Interpolate-11: the padded input with the dimensions on `axes` replaced by the
// sizes, or scaled (rounded down) by the scales, following shape_calculation_mode.
#include <cmath>

#include <fmt/format.h>

#include "model/ops/rules.hpp"

namespace reshape1::model::detail {
namespace {

void interpolate(op& o, std::size_t sizes_port, std::size_t scales_port, std::size_t axes_port) {
  o.need(2, 1);
  o.out[0].type = o.in[0]->type;
  const auto& data = o.shape(0);
  if (!data.rank_known()) return;
  const auto rank = data.size();
  auto pads_begin = o.l.integers("pads_begin", {});
  auto pads_end = o.l.integers("pads_end", {});
  pads_begin.resize(rank, 0);
  pads_end.resize(rank, 0);
  std::vector<std::size_t> axes;
  if (o.in.size() > axes_port) {
    const auto a = known_integers(o, axes_port);
    if (!a) {
      o.out[0].shape = partial_shape(std::vector<dimension>(rank));
      return;
    }
    for (auto x : *a) axes.push_back(normalize_axis(o, x, rank, "the axis"));
  } else {
    for (std::size_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  std::vector<dimension> out;
  for (std::size_t i = 0; i < rank; ++i) {
    std::int64_t extra = 0;
    if (__builtin_add_overflow(pads_begin[i], pads_end[i], &extra))
      refuse(o, fmt::format("the pads of dimension {} overflow", i));
    out.push_back(extra == 0 ? data[i] : map_dimension(data[i], [&](std::int64_t x) {
      std::int64_t y = 0;
      if (__builtin_add_overflow(x, extra, &y) || y < 0)
        refuse(o, fmt::format("dimension {} padded by {} is out of range", i, extra));
      return y;
    }));
  }
  const auto mode = o.l.text("shape_calculation_mode", "");
  const bool onnx = o.g.format() == model_format::onnx;
  if (mode == "sizes") {
    const auto sizes = shape_from_value(o, sizes_port);
    // ONNX's Resize asks one size per axis (ONNX Runtime refuses more); OpenVINO reads the leading ones.
    if (sizes && (sizes->size() < axes.size() || (onnx && sizes->size() != axes.size())))
      refuse(o, fmt::format("{} sizes for {} axes", sizes->size(), axes.size()));
    for (std::size_t k = 0; k < axes.size(); ++k) out[axes[k]] = o.value(sizes_port) ? (*sizes)[k] : dimension();
  } else if (mode == "scales") {
    if (o.in.size() <= scales_port) refuse(o, "shape_calculation_mode is scales but there is no scales input");
    const auto& v = o.value(scales_port);
    std::vector<double> scales;
    if (v) {
      if (v->is_real()) {
        scales = v->reals;
      } else {
        for (const auto& e : v->elements) {
          if (!e.exact()) break;
          scales.push_back(static_cast<double>(e.lo));
        }
      }
    }
    const bool all = v && scales.size() == (v->is_real() ? v->reals.size() : v->elements.size());
    const bool known = v && scales.size() >= axes.size();
    if (all && (!known || (onnx && scales.size() != axes.size())))
      refuse(o, fmt::format("{} scales for {} axes", scales.size(), axes.size()));
    for (std::size_t k = 0; k < axes.size(); ++k) {
      if (!known) {
        out[axes[k]] = dimension();
        continue;
      }
      // As OpenVINO scales a dimension: in float, a scale of exactly 1 leaves it as it is (symbol included),
      // any other gains 1e-6 (so that 0.5 of 2,000,000 is 1,000,002) and the product is truncated.
      const auto scale = static_cast<float>(scales[k]);
      if (scale == 1.0f) continue;
      const float nudged = scale + 1.0e-6f;
      out[axes[k]] = map_dimension(out[axes[k]], [&](std::int64_t x) {
        const float r = static_cast<float>(x) * nudged;
        if (!(r >= 0 && r < 9.0e18f)) refuse(o, fmt::format("the scale {} gives the dimension {}", scale, r));
        return static_cast<std::int64_t>(r);
      });
    }
  } else {
    refuse(o, fmt::format("shape_calculation_mode '{}' is not sizes or scales", mode));
  }
  // ONNX Runtime cannot scale an empty dimension to a non-empty one, and reads a size of 0 (or below) of a
  // non-empty one as a scale of 0 (it refuses both when it runs).
  if (onnx)
    for (std::size_t i = 0; i < rank; ++i) {
      if (data[i].is_static() && data[i].lo() == 0 && out[i].is_static() && out[i].lo() > 0)
        refuse(o, fmt::format("dimension {} is 0, asked to become {}", i, out[i].lo()));
      if (mode == "sizes" && out[i].range().is_bounded() && out[i].hi() == 0 && data[i].is_static() && data[i].lo() > 0)
        refuse(o, fmt::format("dimension {} ({}) is asked to become 0, a scale of 0", i, data[i].lo()));
    }
  o.out[0].shape = partial_shape(std::move(out));
}

void interpolate1(op& o) {
  o.need(2, 1);
  o.out[0].type = o.in[0]->type;
  const auto& data = o.shape(0);
  const auto mode = o.l.text("mode", "");
  if (mode != "nearest" && mode != "linear" && mode != "cubic" && mode != "area")
    refuse(o, fmt::format("mode '{}' is not nearest, linear, cubic or area", mode));
  const auto& target_shape = o.shape(1);
  if (target_shape.rank_known() && target_shape.size() != 1)
    refuse(o, fmt::format("the target spatial shape {} must be 1-D", to_string(target_shape)));
  o.out[0].shape = data;
  if (!data.rank_known()) return;
  const auto& axes = o.l.integers("axes");
  std::vector<bool> seen(data.size(), false);
  for (auto a : axes) {
    if (a < 0 || static_cast<std::size_t>(a) >= data.size())
      refuse(o, fmt::format("the axis {} is out of range for rank {}", a, data.size()));
    if (seen[static_cast<std::size_t>(a)]) refuse(o, fmt::format("the axis {} is given twice", a));
    seen[static_cast<std::size_t>(a)] = true;
  }
  const auto sizes = shape_from_value(o, 1);
  if (sizes && sizes->size() < axes.size())
    refuse(o, fmt::format("{} target sizes for {} axes", sizes->size(), axes.size()));
  std::vector<dimension> out(data.begin(), data.end());
  for (std::size_t k = 0; k < axes.size(); ++k)
    out[static_cast<std::size_t>(axes[k])] = sizes && o.value(1) ? (*sizes)[k] : dimension();
  o.out[0].shape = partial_shape(std::move(out));
}

void interpolate4(op& o) { interpolate(o, 1, 2, 3); }
void interpolate11(op& o) { interpolate(o, 1, 1, 2); }

constexpr rule_entry resize_table[] = {
    {"Interpolate", 1, interpolate1, batch::interpolate, reads_values(1)},
    {"Interpolate", 4, interpolate4, batch::interpolate, reads_values(1, 2, 3)},
    {"Interpolate", 11, interpolate11, batch::interpolate, reads_values(1, 2)},
};

}  // namespace

std::span<const rule_entry> resize_rules() { return resize_table; }

}  // namespace reshape1::model::detail
