// The com.microsoft rows of src/onnx/lower/microsoft.cpp: one case a row (rows_test.cpp runs them as
// onnx/lower_rows).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lowering_case.hpp"

namespace reshape1::test {

/// The com.microsoft rows: each case's model imports that domain at version 1.
std::vector<lowering_case> microsoft_cases() {
  const std::string ms = "com.microsoft";
  const std::string q = "x:u8[2,3] xs:f32[]=1 xz:u8[]=0 ys:f32[]=1 yz:u8[]=0";
  return {
      {"FusedMatMul", 1, "a:f32[2,4,3] b:f32[5,4]", "a,b", "y", attr_i("transA", 1) + attr_i("transB", 1) + attr_f("alpha", 0.5F),
       "MatMul,ConvertLike,Multiply", "[2,3,5]", ms},
      {"TransposeMatMul", 1, "a:f32[2,3,4] b:f32[4,5]", "a,b", "y", "", "MatMul", "[2,3,5]", ms},
      {"Gelu", 1, "x:f32[2,3]", "x", "y", "", "Gelu", "[2,3]", ms},
      // The bias broadcast to the input's shape, one way.
      {"FastGelu", 1, "x:f32[2,3] b:f32[3]=", "x,b", "y", "", "ShapeOf,Broadcast,Add,Gelu", "[2,3]", ms},
      {"BiasGelu", 1, "x:f32[2,3] b:f32[3]=", "x,b", "y", "", "ShapeOf,Broadcast,Add,Gelu", "[2,3]", ms},
      {"QuickGelu", 1, "x:f32[2,3]", "x", "y", "", "ConvertLike,Swish", "[2,3]", ms},
      // y, mean, inverse deviation and the sum; the statistics per row.
      {"SkipLayerNormalization", 1, "x:f32[2,3,4] s:f32[2,3,4] g:f32[4]= b:f32[4]=", "x,s,g,b", "y,m,i,sum", "",
       "ShapeOf,Broadcast,Add,MVN,ShapeOf,Broadcast,Multiply,ShapeOf,Broadcast,Add,ReduceMean,ReduceMean",
       "[2,3,4] [2,3,1] [2,3,1] [2,3,4]", ms},
      {"SkipSimplifiedLayerNormalization", 1, "x:f32[2,3,4] s:f32[3,4] g:f32[4]=", "x,s,g", "y", "",
       "ShapeOf,Broadcast,Add,Multiply,ReduceMean,ConvertLike,Add,Sqrt,Divide,ShapeOf,Broadcast,Multiply", "[2,3,4]", ms},
      // A [.., K=4] times the K x N = 4 x 6 weights B packs.
      {"MatMulNBits", 1, "a:f32[2,3,4] b:u8[6,1,2]= s:f32[6]=", "a,b,s", "y", attr_i("K", 4) + attr_i("N", 6),
       "ConvertLike,Broadcast,MatMul", "[2,3,6]", ms},
      {"MatMulIntegerToFloat", 1, "a:u8[3,4] b:u8[4,5] as:f32[]=1 bs:f32[]=1", "a,b,as,bs", "y", "",
       "Convert,Convert,MatMul", "[3,5]", ms},
      {"DynamicQuantizeMatMul", 1, "a:f32[3,4] b:u8[4,5] bs:f32[]=1", "a,b,bs", "y", "", "Convert,Convert,MatMul",
       "[3,5]", ms},
      {"QLinearAdd", 1, "a:u8[2,1,4] as:f32[]=1 az:u8[]=0 b:u8[3,1] bs:f32[]=1 bz:u8[]=0 cs:f32[]=1 cz:u8[]=0",
       "a,as,az,b,bs,bz,cs,cz", "y", "", "Convert,Convert,Add,Convert", "[2,3,4]", ms},
      {"QLinearMul", 1, "a:u8[2,1,4] as:f32[]=1 az:u8[]=0 b:u8[3,1] bs:f32[]=1 bz:u8[]=0 cs:f32[]=1 cz:u8[]=0",
       "a,as,az,b,bs,bz,cs,cz", "y", "", "Convert,Convert,Multiply,Convert", "[2,3,4]", ms},
      {"QLinearSigmoid", 1, q, "x,xs,xz,ys,yz", "y", "", "Convert,Sigmoid,Convert", "[2,3]", ms},
      {"QLinearLeakyRelu", 1, q, "x,xs,xz,ys,yz", "y", "", "Convert,PReLU,Convert", "[2,3]", ms},
      {"QLinearSoftmax", 1, q, "x,xs,xz,ys,yz", "y", attr_i("opset", 13), "Convert,SoftMax,Convert", "[2,3]", ms},
      {"QLinearWhere", 1,
       "c:bool[2,1] x:u8[3] xs:f32[]=1 xz:u8[]=0 y:u8[2,3] ys:f32[]=1 yz:u8[]=0 zs:f32[]=1 zz:u8[]=0",
       "c,x,xs,xz,y,ys,yz,zs,zz", "z", "", "Convert,Convert,Select,Convert", "[2,3]", ms},
      {"QGemm", 1, "a:u8[3,4] as:f32[]=1 az:u8[]=0 b:u8[5,4] bs:f32[]=1 bz:u8[]=0", "a,as,az,b,bs,bz", "y",
       attr_i("transB", 1), "Convert,Convert,MatMul", "[3,5]", ms},
      {"ExpandDims", 1, "x:f32[2,3] axis:i32[]=1", "x,axis", "y", "", "Unsqueeze", "[2,1,3]", ms},
      {"Trilu", 1, "x:f32[2,3,4]", "x", "y", "", "ShapeOf,Gather,Range,Unsqueeze,Gather,Range,Subtract,GreaterEqual,Subtract,Select",
       "[2,3,4]", ms},
      {"GatherND", 1, "data:f32[2,3,4] idx:i64[2,2]", "data,idx", "y", "", "GatherND", "[2,4]", ms},
      {"Range", 1, "start:i64[]=0 limit:i64[]=10", "start,limit", "y", "", "ConvertLike,Range", "[10]", ms},
      {"Pad", 1, "x:f32[2,3] pads:i64[4]=0,1,0,2", "x,pads", "y", "", "Split,Pad", "[2,6]", ms},
      {"QuantizeLinear", 1, "x:f32[2,3] scale:f32[]=0.5 zp:u8[]=0", "x,scale,zp", "y", "", "Divide,Convert,Add,Convert",
       "[2,3]", ms},
      {"DequantizeLinear", 1, "x:u8[2,3] scale:f32[]=0.5 zp:u8[]=0", "x,scale,zp", "y", "",
       "Convert,Convert,Subtract,Multiply", "[2,3]", ms},
      {"QLinearConv", 1,
       "x:u8[1,4,8,8] xs:f32[]=1 xz:u8[]=0 w:u8[4,4,3,3]= ws:f32[]=1 wz:u8[]=0 ys:f32[]=1 yz:u8[]=0",
       "x,xs,xz,w,ws,wz,ys,yz", "y", "", "Convert,Convert,Convolution,Convert", "[1,4,6,6]", ms},
      {"FusedConv", 1, "x:f32[1,3,8,8] w:f32[4,3,3,3]= b:f32[4]= z:f32[1,4,6,6]", "x,w,b,z", "y",
       attr_s("activation", "Relu"), "Convolution,Add,Add", "[1,4,6,6]", ms},
      {"FusedGemm", 1, "a:f32[3,4] b:f32[4,5]", "a,b", "y", attr_s("activation", "Relu"), "MatMul", "[3,5]", ms},
      {"MatMulInteger16", 1, "a:i16[3,4] b:i16[4,5]", "a,b", "y", "", "MatMul", "[3,5]", ms},
      {"Inverse", 1, "x:f32[2,3,3]", "x", "y", "", "Transpose,Add,MatMul,Erf", "[2,3,3]", ms},
      {"SampleOp", 1, "x:f32[2,3]", "x", "y", "", "", "[2,3]", ms},
      // Scores [B, V] with ids [B, L]: the scores' shape, each entry's scores meeting its own ids.
      {"NGramRepeatBlock", 1, "ids:i64[2,5] s:f32[2,10]", "ids,s", "y", attr_i("ngram_size", 2), "Reshape,ConvertLike,Reshape,ShapeOf,Slice,ReduceSum,VariadicSplit,Add", "[2,10]", ms},
      // (K checked to be at least 1: ONNX Runtime refuses points of no coordinate.)
      {"CDist", 1, "a:f32[3,4] b:f32[5,4]", "a,b", "y", "", "ShapeOf,Slice,ReduceProd,Broadcast,VariadicSplit,MatMul", "[3,5]", ms},
      // A [2, 3, 8] times 8 x 6 weights held in 4 bits: [2, 3, 6].
      {"MatMulBnb4", 1, "a:f32[2,3,8] b:u8[24]= absmax:f32[3]=", "a,b,absmax", "y", attr_i("K", 8) + attr_i("N", 6) + attr_i("block_size", 16) + attr_i("quant_type", 1),
       "ConvertLike,Broadcast,MatMul", "[2,3,6]", ms},
      {"MatMulFpQ4", 1, "a:f32[2,3,8] b:u8[126]= s:i64[2]=8,6", "a,b,s", "y", "", "Reshape,ConvertLike,Broadcast,MatMul", "[2,3,6]", ms},
      // Windows of 3 every 2 along axis 1 of [2, 7]: [2, 3, 3].
      {"UnfoldTensor", 1, "x:f32[2,7]", "x", "y", attr_i("dim", 1) + attr_i("size", 3) + attr_i("step", 2), "ShapeOf,VariadicSplit,ReduceSum,ReduceSum,Add,Gather,Subtract,Divide,Add,ScatterUpdate,Concat,Unsqueeze,Broadcast", "[2,3,3]", ms},
      // Rows of a [10, 8] table of 4-bit values packed in uint8 (16 a row), gathered at [2, 3] indices.
      // The scales [10, 1]: the data's rows, and one block of 16 along its last axis (quantize_axis 1).
      {"GatherBlockQuantized", 1, "d:u8[10,8]= i:i64[2,3] s:f32[10,1]=", "d,i,s", "y", attr_i("block_size", 16) + attr_i("bits", 4),
       "ShapeOf,Slice,VariadicSplit,Slice,Multiply,Add,Divide,VariadicSplit,Unsqueeze,Concat,Broadcast,Slice,Concat,Reshape,Gather,ConvertLike",
       "[2,3,16]", ms},
      {"CropAndResize", 1, "x:f32[2,3,8,8] rois:f32[4,4]= idx:i32[4]= size:i32[2]=5,6", "x,rois,idx,size", "y", "", "ROIAlign",
       "[4,3,5,6]", ms},
      // [N, H, W, C] pooled by 2x2 windows of stride 2.
      {"NhwcMaxPool", 1, "x:u8[1,8,8,3]", "x", "y", attr_ints("kernel_shape", {2, 2}) + attr_ints("strides", {2, 2}), "Transpose,MaxPool,Transpose",
       "[1,4,4,3]", ms},
      // The quantiser's pools: [N, C, H, W] by 2x2 windows of stride 2, and its mean over H and W.
      {"QLinearAveragePool", 1, "x:u8[1,3,8,8] xs:f32[]=1 xz:u8[]=0 ys:f32[]=1 yz:u8[]=0", "x,xs,xz,ys,yz", "y",
       attr_ints("kernel_shape", {2, 2}) + attr_ints("strides", {2, 2}), "Convert,AvgPool,Convert", "[1,3,4,4]", ms},
      {"QLinearGlobalAveragePool", 1, "x:u8[2,3,5,7] xs:f32[]=1 xz:u8[]=0 ys:f32[]=1 yz:u8[]=0", "x,xs,xz,ys,yz", "y",
       "", "Convert,ShapeOf,ShapeOf,Squeeze,Range,ShapeOf,Gather,ReduceProd,Broadcast,VariadicSplit,ReduceMean,Convert",
       "[2,3,1,1]", ms},
      // [2, 3] and [2, 2] joined along axis 1, each with its scale and zero point.
      {"QLinearConcat", 1, "ys:f32[]=1 yz:u8[]=0 a:u8[2,3] as:f32[]=1 az:u8[]=0 b:u8[2,2] bs:f32[]=1 bz:u8[]=0",
       "ys,yz,a,as,az,b,bs,bz", "y", attr_i("axis", 1), "Convert,Convert,Concat,Convert", "[2,5]", ms},
      {"MaxpoolWithMask", 1, "x:f32[2,3,8,8] m:i32[1,1,8,8]", "x,m", "y", attr_ints("kernel_shape", {2, 2}) + attr_ints("strides", {2, 2}), "ShapeOf,Broadcast,ConvertLike,Multiply,MaxPool",
       "[2,3,4,4]", ms},
      // 3 words of 5 characters looked up in a [8, 2] table, 4 filters of 3 characters, each word's maximum: [3, 4].
      {"WordConvEmbedding", 1, "s:i32[3,5] w:f32[4,1,3,2]= b:f32[4]= t:f32[8,2]=", "s,w,b,t", "y", "",
       "Gather,ReduceSum,Transpose,Transpose,Convolution,ReduceMax,ShapeOf,ShapeOf,Squeeze,Range,ReduceSum,"
       "Add", "[3,4]", ms},
      // Two experts of [2, 6, 4] and [2, 4, 6]: the hidden size 4 (this layout) or 6 (the older one), the input's 4.
      {"MoE", 1, "x:f32[2,3,4] r:f32[6,2] w1:f32[2,6,4]= w2:f32[2,4,6]=", "x,r,w1,,w2", "y", attr_i("k", 1),
       "ShapeOf,Slice,Subtract,Multiply,Subtract,Multiply,Add,ConvertLike,Broadcast,Reshape,Add,Reshape,"
       "VariadicSplit,ShapeOf,Slice,Concat,Reshape,ReduceSum,ConvertLike,ReduceSum,Add,Add", "[2,3,4]", ms},
      // 4-bit weights, two a byte: fc1 [2, 6, 4 / 2], fc2 [2, 4, 6 / 2], scales per row.
      {"QMoE", 1, "x:f32[3,4] r:f32[3,2] w1:u8[2,6,2]= s1:f32[2,6]= w2:u8[2,4,3]= s2:f32[2,4]=", "x,r,w1,s1,,w2,s2", "y",
       attr_i("expert_weight_bits", 4),
       "ShapeOf,Slice,Subtract,Multiply,Add,ConvertLike,Broadcast,Reshape,Add,Reshape,VariadicSplit,ShapeOf,"
       "Slice,Concat,Reshape,ReduceSum,ConvertLike,ReduceSum,Add,Add", "[3,4]", ms},
  };
}

namespace {

// ONNX Runtime's CDist refuses points of no coordinate (K of 0).
TEST(lower_microsoft, cdist_takes_points_of_a_coordinate_at_least) {
  const lowering_case empty{"CDist", 1, "a:f32[3,0] b:f32[5,0]", "a,b", "y", "", "", "", "com.microsoft"};
  EXPECT_NE(refusals(empty).find("the split lengths [1,-1] do not add up to the dimension 0"), std::string::npos);
}

// GatherBlockQuantized of data a graph input gives (its declared type says how values are packed), and scales
// held to the data as ONNX Runtime's shape inference holds them (a block more along quantize_axis refused).
TEST(lower_microsoft, gather_block_quantized_holds_the_scales_to_the_data) {
  const auto gbq = [](const char* scales) {
    return lowering_case{"GatherBlockQuantized", 1, fmt::format("d:u8[10,8] i:i64[2,3]=0,1,2,3,4,5 s:f32[{}]=", scales), "d,i,s", "y",
                         attr_i("block_size", 16) + attr_i("bits", 4), "", "", "com.microsoft"};
  };
  EXPECT_EQ(refusals(gbq("10,1")), "");
  EXPECT_NE(refusals(gbq("10,2")), "");
  EXPECT_NE(refusals(gbq("9,1")), "");
}

// The quantised pools and QLinearConcat as ONNX Runtime runs them: each scale and zero point one value (two
// refused), the global pool's image of one element at least, and QLinearAveragePool's pads beside an auto_pad
// taken and ignored, where ONNX's own pools refuse them.
TEST(lower_microsoft, qlinear_pools_and_concat_take_one_scale_and_zero_point) {
  const auto pool = [](const char* op, const char* x, const char* zero, std::string attributes) {
    return lowering_case{op, 1, fmt::format("x:u8[{}] xs:f32[]=1 xz:u8[{}]= ys:f32[]=1 yz:u8[]=0", x, zero), "x,xs,xz,ys,yz", "y",
                         std::move(attributes), "", "", "com.microsoft"};
  };
  const auto window = attr_ints("kernel_shape", {2});
  EXPECT_EQ(refusals(pool("QLinearAveragePool", "1,1,4", "1", window)), "");
  expect_refused_with(pool("QLinearAveragePool", "1,1,4", "2", window), "its input 2 holds 2 values");
  expect_refused_with(pool("QLinearGlobalAveragePool", "1,1,4", "2", ""), "its input 2 holds 2 values");
  expect_refused_with(pool("QLinearGlobalAveragePool", "1,1,4", "0", ""), "its input 2 holds 0 values");
  // A computed zero point of two values, checked when the shapes are known.
  const lowering_case computed{"QLinearGlobalAveragePool", 1, "x:u8[1,1,4] xs:f32[]=1 xz:u8[2] ys:f32[]=1 yz:u8[]=0",
                               "x,xs,xz,ys,yz", "y", "", "", "", "com.microsoft"};
  EXPECT_NE(refusals(computed), "");
  EXPECT_NE(refusals(pool("QLinearGlobalAveragePool", "1,1,0", "", "")), "");
  EXPECT_EQ(refusals(pool("QLinearGlobalAveragePool", "0,1,4", "", "")), "");
  const auto valid = pool("QLinearAveragePool", "1,1,4", "", window + attr_s("auto_pad", "VALID") + attr_ints("pads", {1, 1}));
  EXPECT_EQ(refused_when_read(valid), "");
  EXPECT_EQ(refusals(valid), "");
  const lowering_case concat{"QLinearConcat", 1, "ys:f32[]=1 yz:u8[]=0 a:u8[2,3] as:f32[2]= az:u8[]=0", "ys,yz,a,as,az", "y",
                             attr_i("axis", 1), "", "", "com.microsoft"};
  expect_refused_with(concat, "its input 3 holds 2 values");
}

// ONNX Runtime takes QLinearConcat's inputs in threes, and pools 1 to 3 axes (more only as a global pool).
TEST(lower_microsoft, qlinear_concat_and_pool_refusals) {
  const lowering_case pairs{"QLinearConcat", 1, "ys:f32[]=1 yz:u8[]=0 a:u8[2,3] as:f32[]=1 az:u8[]=0 b:u8[2,2] bs:f32[]=1",
                            "ys,yz,a,as,az,b,bs", "y", attr_i("axis", 1), "", "", "com.microsoft"};
  expect_refused_with(pairs, "it has 7 inputs");
  const lowering_case ranks{"QLinearAveragePool", 1, "x:u8[2,3,8] xs:f32[]=1 xz:u8[]=0 ys:f32[]=1 yz:u8[]=0", "x,xs,xz,ys,yz", "y",
                            attr_ints("kernel_shape", {2, 2}), "", "", "com.microsoft"};
  expect_refused_with(ranks, "its input has rank 3 for a kernel of 2 axes");
  const lowering_case low{"QLinearGlobalAveragePool", 1, "x:u8[2,3] xs:f32[]=1 xz:u8[]=0 ys:f32[]=1 yz:u8[]=0", "x,xs,xz,ys,yz",
                          "y", "", "", "", "com.microsoft"};
  expect_refused_with(low, "its input has rank 2");
}

}  // namespace

}  // namespace reshape1::test
