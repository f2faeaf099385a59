// ONNX's NonMaxSuppression (OpenVINO's, its optional limits filled with ONNX's defaults), RoiAlign and MaxRoiPool.
#include <fmt/format.h>

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

// RoiAlign: OpenVINO's ROIAlign-9 (X, rois, batch_indices). Its coordinates are OpenVINO's half_pixel from
// 16 on unless the node asks output_half_pixel, which is OpenVINO's asymmetric (the only mode before 16).
void roi_align(node_context& c) {
  const auto transform = c.version() >= 16 ? c.s("coordinate_transformation_mode", "half_pixel") : "output_half_pixel";
  if (transform != "half_pixel" && transform != "output_half_pixel")
    c.bad(fmt::format("coordinate_transformation_mode is '{}'", transform), "it is half_pixel or output_half_pixel");
  c.output(0, c.add("ROIAlign", 9, {c.need(0), c.need(1), c.need(2)},
                    {{"pooled_h", fmt::format("{}", c.i("output_height", 1))},
                     {"pooled_w", fmt::format("{}", c.i("output_width", 1))},
                     {"sampling_ratio", fmt::format("{}", c.i("sampling_ratio", 0))},
                     {"spatial_scale", real(c.f("spatial_scale", 1.0F))},
                     {"mode", c.s("mode", "avg")},
                     {"aligned_mode", transform == "half_pixel" ? "half_pixel" : "asymmetric"}}));
}

// MaxRoiPool: OpenVINO's ROIPooling-2 with the max method, whose boxes are ONNX's rois as they are
// ([batch index, x1, y1, x2, y2]).
void max_roi_pool(node_context& c) {
  const auto pooled = c.ints("pooled_shape");
  if (!pooled) c.bad("MaxRoiPool needs the attribute pooled_shape");
  if (pooled->size() != 2) c.bad(fmt::format("its pooled_shape has {} values", pooled->size()), "it is [height, width]");
  c.output(0, c.add("ROIPooling", 2, {c.need(0), c.need(1)},
                    {{"pooled_h", fmt::format("{}", (*pooled)[0])},
                     {"pooled_w", fmt::format("{}", (*pooled)[1])},
                     {"spatial_scale", real(c.f("spatial_scale", 1.0F))},
                     {"method", "max"}}));
}

// com.microsoft.CropAndResize (X [N, C, H, W], rois [R, 4], batch_indices [R], crop_size [2]): each box cropped
// and resized to crop_size, [R, C, crop_h, crop_w]: OpenVINO's ROIAlign-9 of that pooled size, whose rule checks
// the boxes and indices (a crop_size no Const gives is not covered).
void crop_and_resize(node_context& c) {
  const auto mode = c.s("mode", "bilinear");
  if (mode != "bilinear" && mode != "nearest") c.bad(fmt::format("mode is '{}'", mode), "bilinear or nearest");
  const auto crop = c.constant_ints(3);
  if (!crop) return c.not_covered("com.microsoft.CropAndResize with a crop_size no Const gives is not covered");
  if (crop->size() != 2) c.bad(fmt::format("its crop_size holds {} values", crop->size()), "it is [height, width]");
  if ((*crop)[0] <= 0 || (*crop)[1] <= 0) c.bad(fmt::format("its crop_size is [{}, {}]", (*crop)[0], (*crop)[1]), "both above 0");
  if (const auto r = c.rank(0); r && *r != 4) c.bad(fmt::format("its input is of rank {}", *r), "X is [N, C, H, W]");
  c.output(0, c.add("ROIAlign", 9, {c.need(0), c.need(1), c.need(2)},
                    {{"pooled_h", fmt::format("{}", (*crop)[0])}, {"pooled_w", fmt::format("{}", (*crop)[1])},
                     {"sampling_ratio", "1"}, {"spatial_scale", "1"}, {"mode", "avg"}, {"aligned_mode", "asymmetric"}}));
}

}  // namespace

std::span<const onnx_entry> detection_rows() {
  static const std::vector<onnx_entry> rows = {
      {"NonMaxSuppression", 10, non_max_suppression}, {"RoiAlign", 10, roi_align}, {"RoiAlign", 16, roi_align},
      {"MaxRoiPool", 1, max_roi_pool}, {"CropAndResize", 1, crop_and_resize, "com.microsoft"},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
