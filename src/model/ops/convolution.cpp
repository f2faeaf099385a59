// Convolution-1 and GroupConvolution-1: [N, C_in, spatial...] with filters [C_out, C_in, kernel...]
// (grouped: [G, C_out/G, C_in/G, kernel...]) gives [N, C_out, window outputs...].
// ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1 go the other way: filters [C_in, C_out,
// kernel...] (grouped: [G, C_in/G, C_out/G, kernel...]) and each spatial size grows to
// stride * (in - 1) + dilated kernel - pads + output_padding, or is given by the output_shape input.
#include <fmt/format.h>

#include "model/ops/rules.hpp"
#include "window.hpp"

namespace reshape1::model::detail {
namespace {

void convolve(op& o, bool grouped) {
  o.need(2, 1);
  o.out[0].type = o.in[0]->type;
  const auto& data = o.shape(0);
  const auto& filters = o.shape(1);
  if (!data.rank_known() || !filters.rank_known()) return;
  const std::size_t lead = grouped ? 3 : 2;
  if (data.size() < 3 || filters.size() != data.size() + (grouped ? 1 : 0))
    refuse(o, fmt::format("the data {} and the filters {} do not have matching ranks (data rank at least 3)",
                          to_string(data), to_string(filters)));
  const std::size_t spatial = data.size() - 2;
  std::vector<std::int64_t> kernel(spatial);
  for (std::size_t i = 0; i < spatial; ++i) {
    if (!filters[lead + i].is_static()) return;  // a dynamic kernel: the output stays unknown
    kernel[i] = filters[lead + i].lo();
  }
  const auto w = read_window(o, spatial, kernel);
  std::vector<dimension> out{data[0]};
  if (grouped) {
    // Input channels = groups * channels per group.
    const auto& g = filters[0];
    const auto& per_group = filters[2];
    std::int64_t channels = 0, outputs = 0;
    if (g.is_static() && per_group.is_static() && data[1].is_static() &&
        (__builtin_mul_overflow(g.lo(), per_group.lo(), &channels) || channels != data[1].lo()))
      refuse(o, fmt::format("the data has {} channels but the filters {} expect {} groups of {}", data[1].lo(),
                            to_string(filters), g.lo(), per_group.lo()));
    const bool known = g.is_static() && filters[1].is_static() &&
                       !__builtin_mul_overflow(g.lo(), filters[1].lo(), &outputs) && outputs != interval::unbounded;
    out.push_back(known ? dimension(outputs) : dimension());
  } else {
    (void)merge(o, data[1], filters[1], "input channels of the data and the filters");
    out.push_back(filters[0]);
  }
  for (std::size_t i = 0; i < spatial; ++i) out.push_back(window_output(o, data[2 + i], w, i));
  o.out[0].shape = partial_shape(std::move(out));
}

void convolution(op& o) { convolve(o, false); }
void group_convolution(op& o) { convolve(o, true); }

/// ONNX Runtime pads an output_shape below the natural size down to it, but takes it at most
/// stride·(in - 1) + window + stride - 1 (whatever the output padding): past that the input is too small
/// for it, and the model fails when run. `lead`: the filters' dimensions before their spatial ones.
void refuse_output_shape_past_input(const op& o, const partial_shape& sizes, std::size_t lead) {
  const auto& data = o.shape(0);
  const auto& filters = o.shape(1);
  const std::size_t spatial = data.size() - 2;
  std::vector<std::int64_t> kernel(spatial, 1);
  for (std::size_t i = 0; i < spatial; ++i)
    if (filters[lead + i].is_static()) kernel[i] = std::max<std::int64_t>(filters[lead + i].lo(), 1);
  const auto w = read_window(o, spatial, kernel);
  for (std::size_t i = 0; i < spatial; ++i) {
    const auto& in = data[2 + i];
    const auto& want = sizes[i];
    if (!filters[lead + i].is_static() || !in.is_static() || !want.is_static() || in.lo() == 0) continue;
    std::int64_t most = 0, extent = 0;
    if (__builtin_mul_overflow(in.lo() - 1, w.strides[i], &most) ||
        __builtin_mul_overflow(w.kernel[i] - 1, w.dilations[i], &extent) ||
        __builtin_add_overflow(most, extent, &most) || __builtin_add_overflow(most, w.strides[i], &most))
      continue;
    if (want.lo() > most)
      refuse(o,
             fmt::format("output_shape asks {} along spatial axis {}, more than an input of {} makes (at most {})",
                         want.lo(), i, in.lo(), most),
             "ONNX Runtime refuses an output_shape its input is too small for when the model runs");
  }
}

void transposed(op& o, bool grouped) {
  o.need(2, 1);
  o.out[0].type = o.in[0]->type;
  const auto& data = o.shape(0);
  const auto& filters = o.shape(1);
  const bool given = o.in.size() > 2;  // the output_shape input
  const auto& given_shape = given ? o.shape(2) : data;
  if (given && given_shape.rank_known() && given_shape.size() != 1)
    refuse(o, fmt::format("output_shape {} must be 1-D", to_string(given_shape)));
  if (!data.rank_known() || !filters.rank_known()) return;
  const std::size_t lead = grouped ? 3 : 2;
  if (data.size() < 3 || filters.size() != data.size() + (grouped ? 1 : 0))
    refuse(o, fmt::format("the data {} and the filters {} do not have matching ranks (data rank at least 3)",
                          to_string(data), to_string(filters)));
  const std::size_t spatial = data.size() - 2;
  std::vector<dimension> out{data[0]};
  if (grouped) {
    const auto& g = filters[0];
    std::int64_t channels = 0, outputs = 0;
    if (g.is_static() && filters[1].is_static() && data[1].is_static() &&
        (__builtin_mul_overflow(g.lo(), filters[1].lo(), &channels) || channels != data[1].lo()))
      refuse(o, fmt::format("the data has {} channels but the filters {} expect {} groups of {}", data[1].lo(),
                            to_string(filters), g.lo(), filters[1].lo()));
    const bool known = g.is_static() && filters[2].is_static() &&
                       !__builtin_mul_overflow(g.lo(), filters[2].lo(), &outputs) && outputs != interval::unbounded;
    out.push_back(known ? dimension(outputs) : dimension());
  } else {
    (void)merge(o, data[1], filters[0], "input channels of the data and the filters");
    out.push_back(filters[1]);
  }
  const auto output_padding = o.l.integers("output_padding", std::vector<std::int64_t>(spatial, 0));
  if (output_padding.size() != spatial)
    refuse(o, fmt::format("output_padding has {} values for {} spatial dimensions", output_padding.size(), spatial));
  if (given) {
    const auto sizes = shape_from_value(o, 2);
    if (sizes && sizes->size() != spatial)
      refuse(o, fmt::format("output_shape has {} values for {} spatial dimensions", sizes->size(), spatial));
    if (sizes && o.value(2) && o.g.format() == model_format::onnx) refuse_output_shape_past_input(o, *sizes, lead);
    for (std::size_t i = 0; i < spatial; ++i) out.push_back(sizes && o.value(2) ? (*sizes)[i] : dimension());
    o.out[0].shape = partial_shape(std::move(out));
    return;
  }
  std::vector<std::int64_t> kernel(spatial, 1);
  bool kernel_known = true;
  for (std::size_t i = 0; i < spatial; ++i) {
    if (filters[lead + i].is_static()) kernel[i] = std::max<std::int64_t>(filters[lead + i].lo(), 1);
    else kernel_known = false;
  }
  const auto w = read_window(o, spatial, kernel);
  const bool explicit_pads = w.auto_pad == "explicit" || w.auto_pad == "notset";
  for (std::size_t i = 0; i < spatial; ++i) {
    if (!kernel_known) {
      out.emplace_back();
      continue;
    }
    std::int64_t extent = 0, pads = 0;
    if (__builtin_mul_overflow(w.kernel[i] - 1, w.dilations[i], &extent) ||
        (explicit_pads && __builtin_add_overflow(w.pads_begin[i], w.pads_end[i], &pads)))
      refuse(o, "the window attributes overflow");
    const std::int64_t extra = extent + 1 - pads + output_padding[i];
    const auto& in = data[2 + i];
    auto size = [&](std::int64_t x) {
      std::int64_t y = 0;
      if (x == 0 || __builtin_mul_overflow(x - 1, w.strides[i], &y) || __builtin_add_overflow(y, extra, &y))
        return x == 0 ? std::int64_t{0} : interval::unbounded - 1;
      return y;
    };
    if (in.is_static() && in.lo() > 0 && size(in.lo()) < 0)
      refuse(o, fmt::format("spatial dimension {}: the output size {} is negative", i, size(in.lo())));
    // ONNX Runtime refuses an output that the pads leave empty.
    if (in.is_static() && in.lo() > 0 && size(in.lo()) == 0 && o.g.format() == model_format::onnx)
      refuse(o, fmt::format("spatial dimension {}: the pads leave an output of 0", i));
    out.push_back(map_dimension(in, size));
  }
  o.out[0].shape = partial_shape(std::move(out));
}

void convolution_backprop(op& o) { transposed(o, false); }
void group_convolution_backprop(op& o) { transposed(o, true); }

constexpr rule_entry convolution_table[] = {
    {"Convolution", 1, convolution, batch::spatial, no_values},
    {"GroupConvolution", 1, group_convolution, batch::spatial, no_values},
    {"ConvolutionBackpropData", 1, convolution_backprop, batch::spatial, reads_values(2)},
    {"GroupConvolutionBackpropData", 1, group_convolution_backprop, batch::spatial, reads_values(2)},
};

}  // namespace

std::span<const rule_entry> convolution_rules() { return convolution_table; }

}  // namespace reshape1::model::detail
