// The resizing rows of src/onnx/lower/resize.cpp: one case a row (rows_test.cpp runs them as onnx/lower_rows).
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
      // From 11 the sizes are the fourth input, after roi and scales (left out).
      {"Resize", 11, "x:f32[1,3,4,4] sizes:i64[4]=1,3,6,6", "x,,,sizes", "y", "", "Interpolate", "[1,3,6,6]"},
  };
}

}  // namespace reshape1::test
