// The quantisation rows of src/onnx/lower/quantization.cpp: one case a row (rows_test.cpp runs them as
// onnx/lower_rows).
#include <string>
#include <vector>

#include "lowering_case.hpp"

namespace reshape1::test {

std::vector<lowering_case> quantization_cases() {
  return {
      {"QuantizeLinear", 10, "x:f32[2,3] scale:f32[]=0.5 zp:u8[]=0", "x,scale,zp", "y", "", "Divide,Convert,Add,Convert",
       "[2,3]"},
      {"DequantizeLinear", 10, "x:u8[2,3] scale:f32[]=0.5 zp:u8[]=0", "x,scale,zp", "y", "",
       "Convert,Convert,Subtract,Multiply", "[2,3]"},
      // A's zero point per tensor (ONNX Runtime's only kind), one element made a scalar.
      {"MatMulInteger", 10, "a:u8[2,3,4] b:u8[4,5] az:u8[1]=", "a,b,az", "y", "",
       "Convert,Convert,Convert,Reshape,Subtract,MatMul,Convert", "[2,3,5]"},
      {"QLinearMatMul", 10, "a:u8[3,4] as:f32[]=1 az:u8[]=0 b:u8[4,5] bs:f32[]=1 bz:u8[]=0 ys:f32[]=1 yz:u8[]=0",
       "a,as,az,b,bs,bz,ys,yz", "y", "", "Convert,Convert,MatMul,Convert", "[3,5]"},
      // Scale and zero point from the whole input: scalars.
      {"DynamicQuantizeLinear", 11, "x:f32[2,3]", "x", "y,s,z", "",
       "ShapeOf,ShapeOf,Squeeze,Range,ReduceMin,ReduceMax,Subtract,Divide,Divide,Convert,Divide,Negative,Convert",
       "[2,3] [] []"},
  };
}

namespace {

// Blocked quantisation (a scale per block_size elements along the axis, from opset 21): the scale has the data's
// shape but ceil(d / block_size) on the axis, as ONNX Runtime checks it; one of one element is per tensor, and
// blocks beside it are refused. (The per-axis reading flattened a blocked scale into the axis: [3,1,5] by a
// [3,1,5] scale gave [3,15,5], where ONNX Runtime gives [3,1,5].)
TEST(lower_quantization, blocked_scales_are_the_data_s_shape_but_the_blocks) {
  const auto blocked = [](const char* scale, std::int64_t block) {
    return lowering_case{"DequantizeLinear", 21, fmt::format("x:u8[2,6] scale:f32{}=", scale), "x,scale", "y",
                         attr_i("axis", 1) + attr_i("block_size", block), "", ""};
  };
  EXPECT_EQ(refusals(blocked("[2,2]", 4)), "");
  EXPECT_EQ(refusals(blocked("[2,6]", 1)), "");
  EXPECT_NE(refusals(blocked("[2,3]", 4)), "");  // 3 blocks of 4 for 6 elements
  EXPECT_NE(refusals(blocked("[1,2]", 4)), "");  // a 1 where the data has 2: no broadcast
  expect_refused_with(blocked("[1]", 4), "block_size is 4 beside a scale of one element");
  expect_refused_with(blocked("[2]", 4), "its scale has rank 1 beside data of rank 2");
  expect_refused_with(blocked("[2,2]", -1), "block_size is -1");
  const lowering_case per_axis{"DequantizeLinear", 21, "x:u8[3,4,5] scale:f32[4]=", "x,scale", "y", attr_i("axis", 1), "", ""};
  EXPECT_EQ(not_covered_why(per_axis), "");
}

// Without blocks a scale is a scalar or 1-D; a zero point has the scale's shape ([] and [1] agree); each
// broadcasts one way to the data (ONNX Runtime refuses the others when it runs).
TEST(lower_quantization, parameters_onnx_runtime_refuses) {
  expect_refused_with({"DequantizeLinear", 13, "x:u8[2,3] scale:f32[1,3]=", "x,scale", "y", attr_i("axis", 1), "", ""},
                      "its scale has rank 2");
  expect_refused_with({"QuantizeLinear", 13, "x:f32[2,3] scale:f32[3]= zp:u8[1]=", "x,scale,zp", "y", attr_i("axis", 1), "", ""},
                      "its zero point is [1] beside a scale of [3]");
  EXPECT_EQ(refused_when_read({"QuantizeLinear", 13, "x:f32[2,3] scale:f32[]=1 zp:u8[1]=", "x,scale,zp", "y", "", "", ""}), "");
  EXPECT_NE(refusals({"DequantizeLinear", 13, "x:u8[1,1] scale:f32[2]=", "x,scale", "y", attr_i("axis", 0), "", ""})
                .find("does not broadcast to [1,1] one way"),
            std::string::npos);
}

// keep_aspect_ratio_policy not_larger or not_smaller scales every axis by one factor that the sizes alone do not
// give (x [1,3,4] asked [6,1,1] not_larger is [0,1,1] in ONNX Runtime; reshape1 gave [6,1,1]): not covered.
TEST(lower_resize, keep_aspect_ratio_policies_but_stretch_are_not_covered) {
  for (const auto* policy : {"not_larger", "not_smaller"}) {
    const lowering_case c{"Resize", 18, "x:f32[1,3,4] sizes:i64[3]=6,1,1", "x,,,sizes", "y",
                          attr_s("keep_aspect_ratio_policy", policy), "", ""};
    EXPECT_NE(not_covered_why(c).find(std::string("keep_aspect_ratio_policy ") + policy + " is not covered"),
              std::string::npos)
        << policy;
  }
  EXPECT_EQ(not_covered_why({"Resize", 18, "x:f32[1,3,4] sizes:i64[3]=6,1,1", "x,,,sizes", "y",
                             attr_s("keep_aspect_ratio_policy", "stretch"), "", ""}),
            "");
}

}  // namespace

}  // namespace reshape1::test
