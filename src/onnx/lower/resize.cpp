// ONNX's Upsample and Resize: one Interpolate-11, by scales or by sizes.
#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

std::string resize_mode(const node_context& c) {
  const auto m = c.s("mode", "nearest");
  return m == "linear" || m == "bilinear" ? "linear_onnx" : m == "cubic" ? "cubic" : "nearest";
}
void interpolate_scales(node_context& c, source x, source scales) {
  c.output(0, c.add("Interpolate", 11, {x, scales},
                    {{"mode", resize_mode(c)}, {"shape_calculation_mode", "scales"},
                     {"coordinate_transformation_mode", "asymmetric"}, {"nearest_mode", "floor"}}));
}
void upsample7(node_context& c) {
  const auto scales = c.floats("scales");
  if (!scales) c.bad("Upsample needs the attribute scales");
  interpolate_scales(c, c.need(0), c.f32(*scales));
}
void upsample9(node_context& c) { interpolate_scales(c, c.need(0), c.need(1)); }
void resize10(node_context& c) { interpolate_scales(c, c.need(0), c.need(1)); }
void resize11(node_context& c) {
  if (c.attribute("axes") != nullptr) return c.not_covered("Resize with axes is not covered");
  if (const auto sizes = c.input(3)) {
    return c.output(0, c.add("Interpolate", 11, {c.need(0), *sizes},
                             {{"mode", resize_mode(c)}, {"shape_calculation_mode", "sizes"},
                              {"coordinate_transformation_mode", "asymmetric"}, {"nearest_mode", "floor"}}));
  }
  interpolate_scales(c, c.need(0), c.need(2));
}

}  // namespace

std::span<const onnx_entry> resize_rows() {
  static const std::vector<onnx_entry> rows = {
      {"Upsample", 7, upsample7}, {"Upsample", 9, upsample9}, {"Resize", 10, resize10}, {"Resize", 11, resize11},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
