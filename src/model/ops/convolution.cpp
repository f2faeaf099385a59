// Convolution-1 and GroupConvolution-1: [N, C_in, spatial...] with filters [C_out, C_in, kernel...]
// (grouped: [G, C_out/G, C_in/G, kernel...]) gives [N, C_out, window outputs...].
#include <fmt/format.h>

#include "../rules.hpp"
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

constexpr rule_entry table[] = {
    {"Convolution", 1, convolution},
    {"GroupConvolution", 1, group_convolution},
};

}  // namespace

std::span<const rule_entry> convolution_rules() { return table; }

}  // namespace reshape1::model::detail
