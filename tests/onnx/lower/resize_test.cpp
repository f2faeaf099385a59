// The resizing rows of src/onnx/lower/resize.cpp: one case a row (rows_test.cpp runs them as onnx/lower_rows).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lowering_case.hpp"

namespace reshape1::test {

std::vector<lowering_case> resize_cases() {
  return {
      // X [N, C, H, W] at grid [N, H', W', 2]: [N, C, H', W'] (20 on, also 5-D with a grid of 3 per point).
      {"GridSample", 16, "x:f32[2,3,4,5] g:f32[2,6,7,2]", "x,g", "y", "",
       "ShapeOf,ShapeOf,Squeeze,Unsqueeze,ShapeOf,VariadicSplit,Subtract,VariadicSplit,ReduceSum,Unsqueeze,"
       "ShapeOf,ShapeOf,Squeeze,Range,ReduceSum,ShapeOf,Slice,Slice,Slice,Concat,Slice,Concat,Broadcast,"
       "Broadcast,Add", "[2,3,6,7]"},
      {"GridSample", 20, "x:f32[2,3,4,5,6] g:f32[2,2,3,4,3]", "x,g", "y", "",
       "ShapeOf,ShapeOf,Squeeze,Unsqueeze,ShapeOf,VariadicSplit,Subtract,VariadicSplit,ReduceSum,Unsqueeze,"
       "ShapeOf,ShapeOf,Squeeze,Range,ReduceSum,ShapeOf,Slice,Slice,Slice,Concat,Slice,Concat,Broadcast,"
       "Broadcast,Add", "[2,3,2,3,4]"},
      {"GridSample", 22, "x:f32[2,3,4,5] g:f32[2,6,7,2]", "x,g", "y", "",
       "ShapeOf,ShapeOf,Squeeze,Unsqueeze,ShapeOf,VariadicSplit,Subtract,VariadicSplit,ReduceSum,Unsqueeze,"
       "ShapeOf,ShapeOf,Squeeze,Range,ReduceSum,ShapeOf,Slice,Slice,Slice,Concat,Slice,Concat,Broadcast,"
       "Broadcast,Add", "[2,3,6,7]"},
      {"GridSample", 1, "x:f32[2,3,4,5] g:f32[2,6,7,2]", "x,g", "y", "",
       "ShapeOf,ShapeOf,Squeeze,Unsqueeze,ShapeOf,VariadicSplit,Subtract,VariadicSplit,ReduceSum,Unsqueeze,"
       "ShapeOf,ShapeOf,Squeeze,Range,ReduceSum,ShapeOf,Slice,Slice,Slice,Concat,Slice,Concat,Broadcast,"
       "Broadcast,Add", "[2,3,6,7]", "com.microsoft"},
      // theta [N, 2, 3] and size [N, C, H, W]: [N, H, W, 2].
      {"AffineGrid", 20, "t:f32[2,2,3] size:i64[4]=2,3,5,6", "t,size", "y", "",
       "ShapeOf,Subtract,VariadicSplit,Add,VariadicSplit,ReduceSum,Slice,Slice,Concat,Add,Broadcast,Concat,"
       "Reshape,Broadcast,ShapeOf,Slice,VariadicSplit", "[2,5,6,2]"},
      {"Upsample", 7, "x:f32[1,3,4,4]", "x", "y", attr_floats("scales", {1, 1, 2, 2}), "Interpolate", "[1,3,8,8]"},
      {"Upsample", 9, "x:f32[1,3,4,4] scales:f32[4]=1,1,2,2", "x,scales", "y", "", "Interpolate", "[1,3,8,8]"},
      {"Resize", 10, "x:f32[1,3,4,4] scales:f32[4]=1,1,2,2", "x,scales", "y", "", "Interpolate", "[1,3,8,8]"},
      // From 11 the sizes are the fourth input, after roi and scales: required inputs at 11 (named "", refused),
      // given empty as torch's exporter writes them.
      {"Resize", 11, "x:f32[1,3,4,4] roi:f32[0]= scales:f32[0]= sizes:i64[4]=1,3,6,6", "x,roi,scales,sizes", "y", "",
       "Interpolate", "[1,3,6,6]"},
  };
}

namespace {

// What ONNX Runtime refuses of Resize's and Upsample's scales, sizes and axes.
TEST(lower_resize, refuses_what_onnx_runtime_refuses) {
  expect_refused_with({"Resize", 13, "x:f32[2,4] s:f32[2]=1,2 z:i64[2]=1,4", "x,,s,z", "y", "", "", ""}, "it has both scales and sizes");
  expect_refused_with({"Resize", 13, "x:f32[2,4] s:f32[2]=0,2", "x,,s", "y", "", "", ""}, "its scale 0 is 0");
  expect_refused_with({"Resize", 13, "x:f32[] s:f32[0]=", "x,,s", "y", "", "", ""}, "its scales hold no value and it has no sizes");
  expect_refused_with({"Upsample", 9, "x:f32[2,4] s:f32[2]=0.5,2", "x,s", "y", "", "", ""}, "its scale 0 is 0.5");
  expect_refused_with({"Resize", 18, "x:f32[1,3,4,4] z:i64[2]=6,5", "x,,,z", "y", attr_ints("axes", {-1, 3}), "", ""},
                      "its axes name axis 3 twice");
  // A size of 0 for a non-empty dimension is a scale of 0 to ONNX Runtime.
  EXPECT_NE(refusals({"Resize", 13, "x:f32[3,4] z:i64[2]=0,4", "x,,,z", "y", "", "", ""}).find("dimension 0 (3) is asked to become 0"),
            std::string::npos);
  // One scale or size per axis: more are refused when propagated.
  EXPECT_NE(refusals({"Resize", 13, "x:f32[2,4] z:i64[3]=1,4,3", "x,,,z", "y", "", "", ""}).find("3 sizes for 2 axes"), std::string::npos);
}

}  // namespace

}  // namespace reshape1::test
