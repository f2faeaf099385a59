// The detection rows of src/onnx/lower/detection.cpp: one case a row (rows_test.cpp runs them as onnx/lower_rows).
#include <string>
#include <vector>

#include "lowering_case.hpp"

namespace reshape1::test {

std::vector<lowering_case> detection_cases() {
  const std::string rois = "x:f32[2,3,8,8] rois:f32[5,4]= idx:i64[5]=";
  const auto size = attr_i("output_height", 2) + attr_i("output_width", 3);
  // At most 3 boxes of the 6 selected per class and batch: [..3, 3] (batch, class, box).
  return {{"NonMaxSuppression", 10, "boxes:f32[1,6,4] scores:f32[1,1,6] most:i64[1]=3", "boxes,scores,most", "y", "",
           "NonMaxSuppression", "[..3,3]"},
          // [rois, C, output_height, output_width].
          {"RoiAlign", 10, rois, "x,rois,idx", "y", size, "ROIAlign", "[5,3,2,3]"},
          {"RoiAlign", 16, rois, "x,rois,idx", "y", size, "ROIAlign", "[5,3,2,3]"},
          // rois [R, 5] (batch index, corners): [R, C, pooled height, pooled width].
          {"MaxRoiPool", 1, "x:f32[2,3,8,8] rois:f32[4,5]=", "x,rois", "y", attr_ints("pooled_shape", {2, 3}), "ROIPooling",
           "[4,3,2,3]"}};
}

}  // namespace reshape1::test
