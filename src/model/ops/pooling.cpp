// MaxPool-1/8/14 and AvgPool-1/14: [N, C, spatial...] to [N, C, window outputs...]; MaxPool-8 and -14
// also give the indices, of the same shape. AdaptiveAvgPool-8 and AdaptiveMaxPool-8 (which also gives
// indices): [N, C, spatial...] to [N, C, output_shape...].
#include <fmt/format.h>

#include "model/ops/rules.hpp"
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
  auto w = read_window(o, spatial, o.l.integers("kernel"));
  w.onnx_short_input = o.g.format() == model_format::onnx;
  // ONNX Runtime's pooling takes an empty batch only (it refuses an empty channel or spatial axis when it runs).
  if (w.onnx_short_input)
    for (std::size_t i = 1; i < data.size(); ++i)
      if (data[i].is_static() && data[i].lo() == 0)
        refuse(o, fmt::format("dimension {} of the data {} is 0", i, to_string(data)), "only the batch may be empty (ONNX Runtime)");
  if (o.l.opset < 14 && w.round == rounding::ceil_torch)
    refuse(o, fmt::format("rounding_type ceil_torch needs {}-14", o.l.type));
  std::vector<dimension> out{data[0], data[1]};
  for (std::size_t i = 0; i < spatial; ++i) out.push_back(window_output(o, data[2 + i], w, i));
  o.out[0].shape = partial_shape(std::move(out));
  if (indices) {
    o.out[1].shape = o.out[0].shape;
    (void)normalize_axis(o, o.l.integer("axis", 0), data.size());
  }
}

void adaptive_pool(op& o) {
  const bool indices = o.l.type == "AdaptiveMaxPool";
  o.need(2, indices ? 2 : 1);
  o.out[0].type = o.in[0]->type;
  if (indices) o.out[1].type = o.l.find("index_element_type") ? o.l.element("index_element_type") : element_type::i64;
  const auto& data = o.shape(0);
  const auto& sizes_shape = o.shape(1);
  if (sizes_shape.rank_known() && sizes_shape.size() != 1)
    refuse(o, fmt::format("output_shape {} must be 1-D", to_string(sizes_shape)));
  if (data.rank_known() && (data.size() < 3 || data.size() > 5))
    refuse(o, fmt::format("the data {} must have rank 3, 4 or 5", to_string(data)));
  const auto sizes = shape_from_value(o, 1);
  if (!data.rank_known()) return;
  const std::size_t spatial = data.size() - 2;
  if (sizes && sizes->size() != spatial)
    refuse(o, fmt::format("output_shape has {} values for {} spatial dimensions", sizes->size(), spatial));
  std::vector<dimension> out{data[0], data[1]};
  for (std::size_t i = 0; i < spatial; ++i) out.push_back(sizes && o.value(1) ? (*sizes)[i] : dimension());
  o.out[0].shape = partial_shape(std::move(out));
  if (indices) o.out[1].shape = o.out[0].shape;
}

constexpr rule_entry pooling_table[] = {
    {"MaxPool", 1, pool, batch::pooling, no_values},
    {"MaxPool", 8, pool, batch::pooling, no_values},
    {"MaxPool", 14, pool, batch::pooling, no_values},
    {"AvgPool", 1, pool, batch::pooling, no_values},
    {"AvgPool", 14, pool, batch::pooling, no_values},
    {"AdaptiveAvgPool", 8, adaptive_pool, batch::pooling, reads_values(1)},
    {"AdaptiveMaxPool", 8, adaptive_pool, batch::pooling, reads_values(1)},
};

}  // namespace

std::span<const rule_entry> pooling_rules() { return pooling_table; }

}  // namespace reshape1::model::detail
