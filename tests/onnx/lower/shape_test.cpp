// The rows that make, read and change shapes of src/onnx/lower/shape.cpp: one case a row (rows_test.cpp runs them as
// onnx/lower_rows).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lowering_case.hpp"

namespace reshape1::test {

std::vector<lowering_case> shape_cases() {
  const auto value = R"(attribute { name: "value" type: TENSOR t { data_type: 7 dims: [3] int64_data: [1, 2, 3] } })";
  return {
      {"Reshape", 1, "x:f32[2,3,4]", "x", "y", attr_ints("shape", {0, -1}), "Reshape", "[2,12]"},
      {"Reshape", 5, "x:f32[2,3,4] shape:i64[2]=0,-1", "x,shape", "y", "", "Reshape", "[2,12]"},
      {"Reshape", 14, "x:f32[2,3,4] shape:i64[2]=6,-1", "x,shape", "y", attr_i("allowzero", 1), "Reshape", "[6,4]"},
      {"Shape", 1, "x:f32[2,3,4]", "x", "y", "", "ShapeOf", "[3]"},
      {"Shape", 15, "x:f32[2,3,4]", "x", "y", attr_i("start", 1), "ShapeOf,Slice", "[2]"},
      {"Size", 1, "x:f32[2,3,4]", "x", "y", "", "ShapeOf,ReduceProd", "[]"},
      // [2 * 3, 4]: the product of the dimensions before the axis, from a split of the shape.
      {"Flatten", 1, "x:f32[2,3,4]", "x", "y", attr_i("axis", 2), "ShapeOf,VariadicSplit,ReduceProd,ReduceProd,Concat,Reshape",
       "[6,4]"},
      {"Squeeze", 1, "x:f32[2,1,4]", "x", "y", attr_ints("axes", {1}), "Squeeze", "[2,4]"},
      {"Squeeze", 13, "x:f32[2,1,4] axes:i64[1]=1", "x,axes", "y", "", "Squeeze", "[2,4]"},
      {"Unsqueeze", 1, "x:f32[2,4]", "x", "y", attr_ints("axes", {0}), "Unsqueeze", "[1,2,4]"},
      {"Unsqueeze", 13, "x:f32[2,4] axes:i64[1]=0", "x,axes", "y", "", "Unsqueeze", "[1,2,4]"},
      {"Transpose", 1, "x:f32[2,3,4]", "x", "y", attr_ints("perm", {2, 0, 1}), "Transpose", "[4,2,3]"},
      {"Concat", 4, "a:f32[2,3] b:f32[2,5]", "a,b", "y", attr_i("axis", 1), "Concat", "[2,8]"},
      {"Split", 2, "x:f32[2,6]", "x", "y,z", attr_i("axis", 1) + attr_ints("split", {2, 4}), "VariadicSplit",
       "[2,2] [2,4]"},
      {"Split", 13, "x:f32[2,6] split:i64[2]=2,4", "x,split", "y,z", attr_i("axis", 1), "VariadicSplit", "[2,2] [2,4]"},
      {"Split", 18, "x:f32[2,6]", "x", "y,z,w", attr_i("axis", 1) + attr_i("num_outputs", 3), "Split",
       "[2,2] [2,2] [2,2]"},
      {"Slice", 1, "x:f32[2,6]", "x", "y", attr_ints("starts", {1}) + attr_ints("ends", {3}) + attr_ints("axes", {1}),
       "Slice", "[2,2]"},
      // Elements 1 and 3 of axis 1.
      {"Slice", 10, "x:f32[2,6] starts:i64[1]=1 ends:i64[1]=5 axes:i64[1]=1 steps:i64[1]=2", "x,starts,ends,axes,steps",
       "y", "", "Slice", "[2,2]"},
      // Slice-10 without steps (an experimental op ONNX Runtime runs at version 1): elements 1 to 4 of axis 1.
      {"DynamicSlice", 1, "x:f32[2,6] starts:i64[1]=1 ends:i64[1]=5 axes:i64[1]=1", "x,starts,ends,axes", "y", "",
       "ShapeOf,Broadcast,Slice", "[2,4]"},
      // [1, 2, 8, 9] less borders left 1, top 2, right 3, bottom 1: [1, 2, 5, 5].
      {"Crop", 1, "x:f32[1,2,8,9]", "x", "y", attr_ints("border", {1, 2, 3, 1}),
       "ShapeOf,VariadicSplit,Slice,Subtract,Subtract,Broadcast,Slice", "[1,2,5,5]"},
      {"Expand", 8, "x:f32[3,1] shape:i64[3]=2,1,4", "x,shape", "y", "", "Broadcast", "[2,3,4]"},
      {"Tile", 6, "x:f32[2,3] repeats:i64[2]=2,2", "x,repeats", "y", "", "Tile", "[4,6]"},
      {"ConstantOfShape", 9, "shape:i64[2]=2,3", "shape", "y", "", "Broadcast", "[2,3]"},
      // 0, 3, 6, 9.
      {"Range", 11, "start:i64[]=0 limit:i64[]=10 delta:i64[]=3", "start,limit,delta", "y", "", "Range", "[4]"},
      {"Constant", 1, "", "", "y", value, "", "[3]"},
      {"DepthToSpace", 1, "x:f32[1,8,2,3]", "x", "y", attr_i("blocksize", 2), "DepthToSpace", "[1,2,4,6]"},
      {"SpaceToDepth", 1, "x:f32[1,2,4,6]", "x", "y", attr_i("blocksize", 2), "SpaceToDepth", "[1,8,2,3]"},
      // One before and two after axis 1; the pads split into their begin and end halves.
      {"Pad", 2, "x:f32[2,3]", "x", "y", attr_ints("pads", {0, 1, 0, 2}), "Split,Pad", "[2,6]"},
      {"Pad", 11, "x:f32[2,3] pads:i64[4]=0,1,0,2", "x,pads", "y", "", "Split,Pad", "[2,6]"},
      // Windows of `size` values.
      {"BlackmanWindow", 17, "n:i64[]=5", "n", "y", "", "Convert,Range,Convert", "[5]"},
      {"HammingWindow", 17, "n:i64[]=5", "n", "y", attr_i("periodic", 0), "Convert,Range,Convert", "[5]"},
      {"HannWindow", 17, "n:i64[]=5", "n", "y", "", "Convert,Range,Convert", "[5]"},
      // Pad-18 with axes: the pads of those axes only, a negative one counting from the rank.
      {"Pad", 18, "x:f32[2,5,7] p:i64[4]=1,2,3,4 a:i64[2]=-1,0", "x,p,,a", "y", "", "Split,ShapeOf,ShapeOf,Broadcast,Convert,Convert,ScatterUpdate,ShapeOf,ShapeOf,Broadcast,Convert,Convert,ScatterUpdate,Pad", "[8,5,11]"},
      // Axis 1 padded from 5 to 6, axis 2 cropped from 7 to 4, each centred.
      {"CenterCropPad", 18, "x:f32[2,5,7] s:i64[2]=6,4", "x,s", "y", attr_ints("axes", {1, -1}), "Convert,ShapeOf,Gather,Maximum,Subtract,Divide,Subtract,ShapeOf,ShapeOf,Broadcast,Convert,Convert,ScatterUpdate,ShapeOf,ShapeOf,Broadcast,Convert,Convert,ScatterUpdate,ConvertLike,Pad,Subtract,Divide,Add,ShapeOf,Broadcast,Slice", "[2,6,4]"},
  };
}

namespace {

// What ONNX Runtime refuses and OpenVINO reads: an Unsqueeze axis named twice (OpenVINO counts it once), a -1
// beside another output dimension of 0 (OpenVINO infers 1).
TEST(lower_shape, unsqueeze_and_reshape_refuse_what_onnx_runtime_refuses) {
  EXPECT_NE(refusals({"Unsqueeze", 13, "x:f32[2,3] a:i64[2]=0,0", "x,a", "y", "", "", ""}).find("axis 0 is named more than once"),
            std::string::npos);
  EXPECT_NE(refusals({"Unsqueeze", 13, "x:f32[2,3] a:i64[2]=1,-3", "x,a", "y", "", "", ""}).find("axis -3 is named more than once"),
            std::string::npos);
  EXPECT_EQ(refusals({"Unsqueeze", 13, "x:f32[2,3] a:i64[2]=0,-1", "x,a", "y", "", "", ""}), "");
  EXPECT_NE(refusals({"Reshape", 5, "x:f32[0,3] p:i64[2]=0,-1", "x,p", "y", "", "", ""}).find("cannot infer -1"), std::string::npos);
  EXPECT_EQ(refusals({"Reshape", 5, "x:f32[0,3] p:i64[2]=-1,3", "x,p", "y", "", "", ""}), "");
  // Flatten's Reshape is not ONNX's Reshape: [0,3] flattens to [0,3].
  EXPECT_EQ(refusals({"Flatten", 13, "x:f32[0,3]", "x", "y", "", "", ""}), "");
}

// ONNX Runtime slices no scalar ("Cannot slice scalars" when it runs), with any version of Slice.
TEST(lower_shape, a_scalar_is_not_sliced) {
  expect_refused_with({"Slice", 1, "x:f32[]", "x", "y", attr_ints("starts", {}) + attr_ints("ends", {}), "", "", "ai.onnx", 9},
                      "its input is a scalar");
  expect_refused_with({"Slice", 13, "x:f32[] s:i64[0]= e:i64[0]=", "x,s,e", "y", "", "", ""}, "its input is a scalar");
  expect_refused_with({"DynamicSlice", 1, "x:f32[] s:i64[0]= e:i64[0]=", "x,s,e", "y", "", "", "", "ai.onnx", 9},
                      "its input is a scalar");
}

// ONNX's schema takes an int32 shape, but ONNX Runtime refuses the function body it expands CenterCropPad into
// (it takes the maximum of the shape and an int64 one) at every version.
TEST(lower_shape, center_crop_pad_of_an_int32_shape_is_refused) {
  for (const int since : {18, 21})
    expect_refused_with({"CenterCropPad", since, "x:f32[2,5,7] s:i32[3]=2,6,4", "x,s", "y", "", "", ""}, "its shape (input 1) is int32");
}

TEST(lower_shape, depth_to_space_and_space_to_depth_take_four_dimensions) {
  expect_refused_with({"DepthToSpace", 11, "x:f32[1,8,2]", "x", "y", attr_i("blocksize", 2), "", ""}, "its input has rank 3");
  expect_refused_with({"SpaceToDepth", 1, "x:f32[1,2,4,4,1]", "x", "y", attr_i("blocksize", 2), "", ""}, "its input has rank 5");
}

// Crop as ONNX Runtime runs it: `scale` takes height and width from the top left border (the other borders
// still within the map); a window past the map, or borders that meet, are refused, as it refuses them when it
// runs; and lists it would read past (three borders, one size, a negative border) when read.
TEST(lower_shape, crop_takes_its_window_within_the_map) {
  const auto crop = [](std::vector<std::int64_t> border, std::vector<std::int64_t> scale = {}) {
    return lowering_case{"Crop", 1, "x:f32[1,2,8,9]", "x", "y",
                         attr_ints("border", border) + (scale.empty() ? std::string() : attr_ints("scale", scale)), "", ""};
  };
  EXPECT_EQ(refusals(crop({1, 2, 3, 1}, {6, 4})), "");
  EXPECT_NE(refusals(crop({1, 2, 3, 1}, {7, 4})), "");  // 2 + 7 rows of 8
  EXPECT_NE(refusals(crop({1, 5, 3, 4}, {1, 1})), "");  // top and bottom borders 9 of 8 rows
  EXPECT_NE(refusals(crop({5, 0, 5, 0})), "");          // 10 columns of 9
  EXPECT_EQ(refusals(crop({4, 4, 5, 4})), "");          // an empty window
  expect_refused_with(crop({1, 2, 3}), "its border has 3 values");
  expect_refused_with(crop({1, 2, 3, 1}, {6}), "its scale has 1 values");
  expect_refused_with(crop({1, -2, 3, 1}), "its border holds -2");
  expect_refused_with({"Crop", 1, "x:f32[2,8,9]", "x", "y", attr_ints("border", {1, 1, 1, 1}), "", ""}, "its input has rank 3");
}

}  // namespace

}  // namespace reshape1::test
