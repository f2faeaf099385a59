// MaxPool-1/8/14 and AvgPool-1: [N, C, spatial...] to [N, C, window outputs...]; MaxPool-8 and -14
// also give the indices, of the same shape.
#include <fmt/format.h>

#include "../rules.hpp"
#include "window.hpp"

namespace reshape1::model::detail {
namespace {

void pool(op& o) {
  const bool indices = o.l.opset >= 8 && o.l.type == "MaxPool";
  o.need(1, indices ? 2 : 1);
  o.out[0].type = o.in[0]->type;
  if (indices) o.out[1].type = o.l.element("index_element_type");
  const auto& data = o.shape(0);
  if (!data.rank_known()) return;
  if (data.size() < 3) refuse(o, fmt::format("the data {} has rank below 3", to_string(data)));
  const std::size_t spatial = data.size() - 2;
  const auto w = read_window(o, spatial, o.l.integers("kernel"));
  if (o.l.type == "MaxPool" && o.l.opset < 14 && w.round == rounding::ceil_torch)
    refuse(o, "rounding_type ceil_torch needs MaxPool-14");
  std::vector<dimension> out{data[0], data[1]};
  for (std::size_t i = 0; i < spatial; ++i) out.push_back(window_output(o, data[2 + i], w, i));
  o.out[0].shape = partial_shape(std::move(out));
  if (indices) {
    o.out[1].shape = o.out[0].shape;
    (void)normalize_axis(o, o.l.integer("axis", 0), data.size());
  }
}

constexpr rule_entry table[] = {
    {"MaxPool", 1, pool},
    {"MaxPool", 8, pool},
    {"MaxPool", 14, pool},
    {"AvgPool", 1, pool},
};

}  // namespace

std::span<const rule_entry> pooling_rules() { return table; }

}  // namespace reshape1::model::detail
