// The normalisation rows (batch, instance, layer and group normalisation, Softmax and its kin) of
// src/onnx/lower/normalization.cpp: one case a row (rows_test.cpp runs them as onnx/lower_rows), and what the family
// refuses or fails as ONNX Runtime does.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "lowering_case.hpp"

namespace reshape1::test {

std::vector<lowering_case> normalization_cases() {
  const std::string statistics = "x:f32[2,3,4,4] scale:f32[3]= bias:f32[3]= mean:f32[3]= var:f32[3]=";
  return {
      {"BatchNormalization", 7, statistics, "x,scale,bias,mean,var", "y", "", "BatchNormInference", "[2,3,4,4]"},
      {"BatchNormalization", 14, statistics, "x,scale,bias,mean,var", "y", "", "BatchNormInference", "[2,3,4,4]"},
      {"InstanceNormalization", 6, "x:f32[2,3,4,4] scale:f32[3]= bias:f32[3]=", "x,scale,bias", "y", "",
       "ShapeOf,ShapeOf,Squeeze,Range,MVN,BatchNormInference", "[2,3,4,4]"},
      {"MeanVarianceNormalization", 1, "x:f32[2,3,4,4]", "x", "y", "", "ShapeOf,ShapeOf,Squeeze,Range,MVN", "[2,3,4,4]"},
      {"MeanVarianceNormalization", 9, "x:f32[2,3,4,4]", "x", "y", "", "MVN", "[2,3,4,4]"},
      {"MeanVarianceNormalization", 13, "x:f32[2,3,4,4]", "x", "y", attr_ints("axes", {2, 3}), "MVN", "[2,3,4,4]"},
      {"LayerNormalization", 17, "x:f32[2,3,4] scale:f32[4]=", "x,scale", "y", "", "Range,ShapeOf,Slice,ReduceProd,Broadcast,VariadicSplit,MVN,Multiply", "[2,3,4]"},
      // ONNX Runtime's own version for opsets 1 to 16 (no ONNX schema; its transformer optimiser writes it).
      {"LayerNormalization", 1, "x:f32[2,3,4] scale:f32[4]= b:f32[4]=", "x,scale,b", "y", attr_f("epsilon", 1e-12F),
       "Range,ShapeOf,Slice,ReduceProd,Broadcast,VariadicSplit,MVN,Multiply,Add", "[2,3,4]", "ai.onnx", 14},
      // ONNX Runtime's RMS norm in the default domain (at every opset), with its inverse standard deviation.
      {"SimplifiedLayerNormalization", 1, "x:f32[2,3,4] scale:f32[4]=", "x,scale", "y,inv", attr_i("axis", -2),
       "ShapeOf,Slice,ReduceProd,Broadcast,VariadicSplit,Multiply,Range,ReduceMean,ConvertLike,Add,Sqrt,Divide,Multiply,"
       "ConvertLike,Divide,Convert",
       "[2,3,4] [2,1,1]", "ai.onnx", 17},
      {"LRN", 1, "x:f32[1,3,8,8]", "x", "y", attr_i("size", 3), "LRN", "[1,3,8,8]"},
      // Before 13: flattened to 2-D at the axis (1: [0,-1]), normalised along the second axis, shaped back.
      {"Softmax", 1, "x:f32[2,3,4]", "x", "y", "", "Reshape,SoftMax,ShapeOf,Reshape", "[2,3,4]"},
      {"Softmax", 13, "x:f32[2,3,4]", "x", "y", "", "SoftMax", "[2,3,4]"},
      {"LogSoftmax", 1, "x:f32[2,3,4]", "x", "y", "", "Reshape,LogSoftmax,ShapeOf,Reshape", "[2,3,4]"},
      {"LogSoftmax", 13, "x:f32[2,3,4]", "x", "y", "", "LogSoftmax", "[2,3,4]"},
      // The first largest of each line set to 1: TopK's index scattered into zeros.
      {"Hardmax", 1, "x:f32[2,3,4]", "x", "y", "",
       "Reshape,ShapeOf,Gather,Minimum,TopK,ConvertLike,ShapeOf,Broadcast,ConvertLike,ShapeOf,Broadcast,"
       "ScatterElementsUpdate,ShapeOf,Reshape",
       "[2,3,4]"},
      {"Hardmax", 13, "x:f32[2,3,4]", "x", "y", attr_i("axis", 1),
       "ShapeOf,Gather,Minimum,TopK,ConvertLike,ShapeOf,Broadcast,ConvertLike,ShapeOf,Broadcast,ScatterElementsUpdate",
       "[2,3,4]"},
      {"RMSNormalization", 23, "x:f32[2,3,4] scale:f32[4]=", "x,scale", "y", "",
       "ShapeOf,Slice,ReduceProd,Broadcast,VariadicSplit,Multiply,Range,ReduceMean,ConvertLike,Add,Sqrt,ShapeOf,"
       "Broadcast,Divide,Multiply",
       "[2,3,4]"},
      // Scale and bias per group (18): the data as [N, groups, rest]; per channel (21): OpenVINO's op.
      {"GroupNormalization", 18, "x:f32[2,4,3,3] scale:f32[2]= bias:f32[2]=", "x,scale,bias", "y", attr_i("num_groups", 2),
       "ShapeOf,Slice,Divide,Slice,Slice,Concat,Reshape,Reshape,MVN,Reshape,Multiply,Reshape,Add,Reshape", "[2,4,3,3]"},
      {"GroupNormalization", 21, "x:f32[2,4,3,3] scale:f32[4]= bias:f32[4]=", "x,scale,bias", "y", attr_i("num_groups", 2),
       "GroupNormalization", "[2,4,3,3]"},
      {"LpNormalization", 1, "x:f32[2,3,4]", "x", "y", attr_i("axis", 1) + attr_i("p", 1), "ReduceL1,Divide", "[2,3,4]"},
  };
}

namespace {

// Softmax, LogSoftmax and Hardmax before 13 with an axis that names no dimension fail at the declared
// shapes (their split of the shape does not add up), as ONNX Runtime refuses them.
TEST(lower_normalization, an_axis_out_of_range_fails_before_13) {
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"})
    for (const auto axis : {3, -4}) {
      const lowering_case c{op, 11, "x:f32[2,3,4]", "x", "y", attr_i("axis", axis), "", ""};
      EXPECT_NE(refusals(c).find("do not add up"), std::string::npos) << op << " " << axis << ": " << refusals(c);
    }
}

}  // namespace

namespace {

// ONNX Runtime 1.30 takes a scale or bias of X.shape[axis:] or what broadcasts to it one way; not one of the
// same count of another shape ([12] for [3,4]).
TEST(lower_normalization, layer_normalization_scales_broadcast_one_way) {
  const auto with = [](const char* scale) {
    return refusals({"LayerNormalization", 17, fmt::format("x:f32[2,3,4] s:f32{}=", scale), "x,s", "y", attr_i("axis", 1), "", ""});
  };
  for (const auto* fits : {"[1]", "[4]", "[3,1]", "[1,4]", "[3,4]", "[2,1,4]"}) EXPECT_EQ(with(fits), "") << fits;
  EXPECT_NE(with("[12]").find("do not broadcast"), std::string::npos);
  // One way: a scale that would grow the data is refused too.
  EXPECT_NE(with("[1,2,3,4]").find("does not broadcast to [2,3,4] one way"), std::string::npos);
}

// Before 14 BatchNormalization has Y alone or all five outputs (ONNX's checker and ONNX Runtime refuse others).
TEST(lower_normalization, batch_normalization_before_14_has_one_output_or_five) {
  const auto* statistics = "x:f32[2,3,4] s:f32[3]= b:f32[3]= m:f32[3]= v:f32[3]=";
  expect_refused_with({"BatchNormalization", 9, statistics, "x,s,b,m,v", "y,a,c", "", "", ""},
                      "it has 3 outputs; BatchNormalization-9 has one output, Y, or five");
  EXPECT_EQ(refused_when_read({"BatchNormalization", 9, statistics, "x,s,b,m,v", "y,a,c,d,e", "", "", ""}), "");
}

TEST(lower_normalization, lrn_refuses_an_even_size) {
  expect_refused_with({"LRN", 1, "x:f32[1,3,4,4]", "x", "y", attr_i("size", 2), "", ""}, "size is 2, even");
}

}  // namespace

// ONNX Runtime's layer norms refuse to normalise no element ("Size of X.shape[axis:] must be at least 1"), which
// ONNX allows: a 0 among the normalised dimensions fails; one before them does not.
TEST(lower_normalization, a_layer_norm_of_no_element_fails) {
  for (const auto* op : {"LayerNormalization", "SimplifiedLayerNormalization", "RMSNormalization"}) {
    const int since = std::string_view(op) == "LayerNormalization" ? 17 : std::string_view(op) == "RMSNormalization" ? 23 : 1;
    const int opset = since == 1 ? 21 : since;
    EXPECT_NE(refusals({op, since, "x:f32[2,3,0] scale:f32[1]=", "x,scale", "y", "", "", "", "ai.onnx", opset}), "") << op;
    EXPECT_NE(refusals({op, since, "x:f32[2,0,4] scale:f32[4]=", "x,scale", "y", attr_i("axis", 1), "", "", "ai.onnx", opset}), "")
        << op;
    EXPECT_EQ(refusals({op, since, "x:f32[0,3,4] scale:f32[4]=", "x,scale", "y", "", "", "", "ai.onnx", opset}), "") << op;
  }
}

}  // namespace reshape1::test
