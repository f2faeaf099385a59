// ONNX's NonMaxSuppression: OpenVINO's, its optional limits filled with ONNX's defaults.
#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

void non_max_suppression(node_context& c) {
  std::vector<source> in{c.need(0), c.need(1)};
  for (std::size_t k = 2; k < 5; ++k) {
    if (const auto s = c.input(k)) {
      in.push_back(*s);
    } else {
      in.push_back(k == 2 ? c.i64({0}, std::vector<std::int64_t>{}) : c.f32({0.0F}, true));
    }
  }
  const auto y = c.add("NonMaxSuppression", 9, std::move(in),
                       {{"box_encoding", c.i("center_point_box", 0) != 0 ? "center" : "corner"},
                        {"sort_result_descending", "false"}, {"output_type", "i64"}},
                       3);
  c.output(0, y);
}

}  // namespace

std::span<const onnx_entry> detection_rows() {
  static const std::vector<onnx_entry> rows = {
      {"NonMaxSuppression", 10, non_max_suppression},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
