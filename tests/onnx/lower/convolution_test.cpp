// The convolution and pooling rows of src/onnx/lower/convolution.cpp: one case a row (rows_test.cpp runs them as
// onnx/lower_rows), and what the family refuses or fails as ONNX Runtime does.
#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>
#include <vector>

#include "lowering_case.hpp"

namespace reshape1::test {

std::vector<lowering_case> convolution_cases() {
  const std::string lp_pool_layers = "Abs,ConvertLike,Power,AvgPool,ConvertLike,Multiply,ConvertLike,Power";
  return {
      // LpPool: AveragePool's shapes ((8 + 1 + 1 - 3) / 2 + 1 = 4; with ceil_mode from 18: 5 for 9).
      {"LpPool", 2, "x:f32[1,3,8,8]", "x", "y",
       attr_ints("kernel_shape", {3, 3}) + attr_ints("strides", {2, 2}) + attr_ints("pads", {1, 1, 1, 1}), lp_pool_layers,
       "[1,3,4,4]"},
      {"LpPool", 11, "x:f32[1,3,8]", "x", "y", attr_ints("kernel_shape", {2}) + attr_i("p", 3), lp_pool_layers, "[1,3,7]"},
      {"LpPool", 18, "x:f32[1,3,9,9]", "x", "y",
       attr_ints("kernel_shape", {2, 2}) + attr_ints("strides", {2, 2}) + attr_i("ceil_mode", 1), lp_pool_layers, "[1,3,5,5]"},
      {"LpPool", 22, "x:f32[1,3,8,8]", "x", "y", attr_ints("kernel_shape", {8, 8}), lp_pool_layers, "[1,3,1,1]"},
      // (8 + 1 + 1 - 3) / 2 + 1 = 4 per spatial axis; the bias initializer given the shape [1,4,1,1].
      {"Conv", 1, "x:f32[1,3,8,8] w:f32[4,3,3,3]= b:f32[4]=", "x,w,b", "y",
       attr_ints("pads", {1, 1, 1, 1}) + attr_ints("strides", {2, 2}), "Convolution,Add", "[1,4,4,4]"},
      // (5 - 1) * 2 + 3 = 11; the weights are [C_in, C_out / group, k, k].
      {"ConvTranspose", 1, "x:f32[1,4,5,5] w:f32[4,2,3,3]=", "x,w", "y", attr_ints("strides", {2, 2}),
       "ConvolutionBackpropData", "[1,2,11,11]"},
      // Its pads given as input 2, [1, 2] before and [0, 1] after: the product of no padding [1, 2, 11, 11] cropped.
      {"ConvTransposeWithDynamicPads", 1, "x:f32[1,4,5,5] w:f32[4,2,3,3]= p:i64[4]=1,2,0,1", "x,w,p", "y", attr_ints("strides", {2, 2}),
       "Convert,VariadicSplit,ConvolutionBackpropData,ShapeOf,Slice,Subtract,Subtract,Slice,Concat,"
       "ConvertLike,Unsqueeze,Tile,ShapeOf,ShapeOf,Squeeze,Range,ReduceSum,Add", "[1,2,10,8]", "com.microsoft"},
      {"MaxPool", 8, "x:f32[1,3,8,8]", "x", "y", attr_ints("kernel_shape", {2, 2}) + attr_ints("strides", {2, 2}),
       "MaxPool", "[1,3,4,4]"},
      {"AveragePool", 7, "x:f32[1,3,8,8]", "x", "y", attr_ints("kernel_shape", {3, 3}) + attr_ints("pads", {1, 1, 1, 1}),
       "AvgPool", "[1,3,8,8]"},
      // Reduced over the axes from 2 on: a Range to the rank.
      // The global pools first check that C and the spatial axes hold elements unless the batch is empty (zeros
      // of their product's length, or one where N is 0, split [1, rest]): ONNX Runtime lets only the batch be
      // empty, and runs anything of an empty batch.
      {"GlobalAveragePool", 1, "x:f32[1,3,8,8]", "x", "y", "",
       "ShapeOf,Slice,Equal,Slice,ReduceProd,Select,ReduceProd,Broadcast,VariadicSplit,ShapeOf,ShapeOf,Squeeze,Range,"
       "ReduceMean", "[1,3,1,1]"},
      {"GlobalMaxPool", 1, "x:f32[1,3,8,8]", "x", "y", "",
       "ShapeOf,Slice,Equal,Slice,ReduceProd,Select,ReduceProd,Broadcast,VariadicSplit,ShapeOf,ShapeOf,Squeeze,Range,"
       "ReduceMax", "[1,3,1,1]"},
      {"GlobalLpPool", 2, "x:f32[1,3,8,8]", "x", "y", attr_i("p", 3),
       "ShapeOf,Slice,Equal,Slice,ReduceProd,Select,ReduceProd,Broadcast,VariadicSplit,ShapeOf,ShapeOf,Squeeze,Range,"
       "Abs,ConvertLike,Power,ReduceSum,ConvertLike,Power",
       "[1,3,1,1]"},
      {"MaxPool", 1, "x:f32[1,3,8,8]", "x", "y", attr_ints("kernel_shape", {2, 2}) + attr_ints("strides", {2, 2}),
       "MaxPool", "[1,3,4,4]"},
      // The integer convolutions, computed in f32 and converted to their output's type.
      {"ConvInteger", 10, "x:u8[1,3,8,8] w:u8[4,3,3,3]=", "x,w", "y", attr_ints("strides", {2, 2}),
       "Convert,Convert,Convolution,Convert", "[1,4,3,3]"},
      {"QLinearConv", 10,
       "x:u8[1,4,8,8] xs:f32[]=1 xz:u8[]=0 w:u8[4,2,3,3]= ws:f32[]=1 wz:u8[]=0 ys:f32[]=1 yz:u8[]=0 b:i32[4]=",
       "x,xs,xz,w,ws,wz,ys,yz,b", "y", attr_i("group", 2) + attr_ints("pads", {1, 1, 1, 1}),
       "Convert,Convert,GroupConvolution,Add,Convert", "[1,4,8,8]"},
      // The indices of a 2x2 window of stride 2 back in [1, 2, 3 * 2, 3 * 2], or in the output_shape given.
      // (The inferred spatial sizes checked to hold elements: ONNX Runtime refuses a computed size of 0.)
      {"MaxUnpool", 9, "x:f32[1,2,3,3] i:i64[1,2,3,3]", "x,i", "y", attr_ints("kernel_shape", {2, 2}) + attr_ints("strides", {2, 2}),
       "ShapeOf,Broadcast,ShapeOf,Broadcast,ShapeOf,Slice,Subtract,Multiply,Slice,Add,Concat,Slice,ReduceProd,Broadcast,"
       "VariadicSplit,ShapeOf,Slice,Subtract,Multiply,Slice,Add,Concat,ConvertLike,Broadcast,Reshape,Reshape,Reshape,"
       "ScatterUpdate,Reshape",
       "[1,2,6,6]"},
      // Columns [N, C * 2 * 3, L] of 2x3 blocks of a 5x6 image (4 * 4 blocks): [N, C, 5, 6].
      {"Col2Im", 18, "x:f32[2,12,16] img:i64[2]=5,6 block:i64[2]=2,3", "x,img,block", "y", "", "Convert,Convert,Multiply,Add,Subtract,Divide,Add,ReduceProd,ReduceProd,ShapeOf,Slice,Broadcast,Concat,Reshape,ShapeOf,Slice,Slice,Slice,Concat,Reshape,VariadicSplit,ReduceSum,ShapeOf,Concat,Unsqueeze,Broadcast", "[2,2,5,6]"},
      // A 3x3 window over 5x5, offsets of 2 * 9 channels and a mask of 9 at each of the 3x3 positions: ONNX
      // Runtime's output size computed from the shapes; X's channels, C and M, the image and B checked; offset
      // and mask against the output.
      {"DeformConv", 19, "x:f32[1,2,5,5] w:f32[3,2,3,3]= off:f32[1,18,3,3] b:f32[3]= m:f32[1,9,3,3]", "x,w,off,b,m", "y", "",
       "ShapeOf,Slice,Slice,Multiply,VariadicSplit,ShapeOf,Slice,Concat,ReduceProd,Broadcast,VariadicSplit,Slice,"
       "Broadcast,Reshape,Slice,Slice,Subtract,Multiply,Add,Add,Subtract,Divide,Add,Slice,Concat,ReduceProd,Equal,"
       "ReduceProd,Select,ReduceProd,Broadcast,VariadicSplit,ReduceSum,Reshape,ReduceSum,Reshape,Add,Slice,Concat,"
       "Broadcast,Add,ReduceProd,Multiply,ShapeOf,VariadicSplit,Slice,VariadicSplit,Slice,"
       "VariadicSplit,ShapeOf,Slice,Slice,Concat,Broadcast,ReduceSum,Add,Multiply,ShapeOf,VariadicSplit,Slice,"
       "VariadicSplit,Slice,VariadicSplit,ShapeOf,Slice,Slice,Concat,Broadcast,ReduceSum,Add",
       "[1,3,3,3]"},
  };
}

namespace {

// Attributes ONNX Runtime refuses: the model is refused when read (bad_file), naming the node.
TEST(lower_convolution, conv_transpose_refuses_what_onnx_runtime_refuses) {
  const auto refused = [](const std::string& attributes, const std::string& words) {
    const auto what = refused_when_read({"ConvTranspose", 1, "x:f32[1,2,8] w:f32[2,2,3]=", "x,w", "y", attributes, "", ""});
    EXPECT_NE(what.find(words), std::string::npos) << attributes << ": " << (what.empty() ? "read" : what);
  };
  refused(attr_s("auto_pad", "VALID") + attr_ints("pads", {0, 0}), "pads is given with auto_pad VALID");
  refused(attr_ints("strides", {2}) + attr_ints("output_padding", {2}),
          "output_padding 2 on spatial axis 0 is not below the stride 2 or the dilation 1");
}

// An output_shape ONNX Runtime takes: up to stride·(in - 1) + window + stride - 1 (9, 3, 2: 20), whatever the
// output padding.
TEST(lower_convolution, conv_transpose_output_shape_within_onnx_runtime_s_reach) {
  const auto run = [](std::int64_t padding, std::int64_t size) {
    return refusals({"ConvTranspose", 1, "x:f32[1,2,9] w:f32[2,2,3]=", "x,w", "y",
                     attr_ints("strides", {2}) + attr_ints("output_padding", {padding}) +
                         attr_ints("output_shape", {size}),
                     "", ""});
  };
  EXPECT_EQ(run(0, 20), "");
  EXPECT_EQ(run(1, 20), "");
  EXPECT_NE(run(0, 21).find("output_shape asks 21 along spatial axis 0, more than an input of 9 makes (at most 20)"),
            std::string::npos);
  EXPECT_NE(run(1, 21).find("at most 20"), std::string::npos);
}

// Dilations with auto_pad SAME_*, where ONNX Runtime parts from ONNX's shape inference (each run in ONNX Runtime
// 1.30): its convolutions refuse them when they run ("Dilation not supported"), and only then (it runs a model
// that has one in an If's branch not taken): not covered. ConvTranspose runs them as ONNX says.
TEST(lower_convolution, dilations_with_same_padding_as_onnx_runtime_runs_them) {
  const std::string same = attr_s("auto_pad", "SAME_UPPER") + attr_ints("strides", {2, 2});
  for (const auto* op : {"Conv", "ConvInteger"}) {
    const bool integer = std::string(op) == "ConvInteger";
    const lowering_case c{op, integer ? 10 : 11, integer ? "x:u8[1,1,3,5] w:u8[1,1,2,3]=" : "x:f32[1,1,3,5] w:f32[1,1,2,3]=",
                          "x,w", "y", same + attr_ints("dilations", {1, 2}), "", ""};
    EXPECT_NE(not_covered_why(c).find("a convolution dilated with auto_pad SAME_UPPER: ONNX Runtime refuses it when it runs"),
              std::string::npos)
        << op;
  }
  EXPECT_EQ(not_covered_why({"Conv", 11, "x:f32[1,1,3,5] w:f32[1,1,2,3]=", "x,w", "y", same + attr_ints("dilations", {1, 1}), "", ""}), "");
  EXPECT_EQ(not_covered_why({"ConvTranspose", 11, "x:f32[1,1,3,5] w:f32[1,1,2,3]=", "x,w", "y", same + attr_ints("dilations", {1, 2}), "", ""}), "");
  // Its pooling pads for the undilated window: MaxPool of [3,5] by a [2,3] window dilated by 2 is [2,3] there,
  // [3,5] by ONNX's formula. No IR op pads so, and the input's size is not known when the model is read: not covered.
  const lowering_case pool{"MaxPool", 12, "x:f32[1,1,3,5]", "x", "y",
                           attr_s("auto_pad", "SAME_UPPER") + attr_ints("kernel_shape", {2, 3}) + attr_ints("dilations", {2, 2}),
                           "", ""};
  EXPECT_NE(not_covered_why(pool).find("ONNX Runtime pads it for the undilated window"), std::string::npos) << not_covered_why(pool);
}

}  // namespace

namespace {

// ONNX Runtime's pooling: pads shorter than the window (refused when its kernel loads), only the batch empty.
TEST(lower_convolution, pooling_refuses_what_onnx_runtime_refuses) {
  expect_refused_with({"MaxPool", 8, "x:f32[1,1,3]", "x", "y", attr_ints("kernel_shape", {1}) + attr_ints("pads", {0, 2}), "", ""},
                      "its pad 1 is 2, not below the window's 1 on spatial axis 0");
  EXPECT_NE(refusals({"MaxPool", 8, "x:f32[1,0,3]", "x", "y", attr_ints("kernel_shape", {1}), "", ""}).find("dimension 1 of the data [1,0,3] is 0"),
            std::string::npos);
  EXPECT_EQ(refusals({"MaxPool", 8, "x:f32[0,1,3]", "x", "y", attr_ints("kernel_shape", {1}), "", ""}), "");
}

TEST(lower_convolution, global_pools_take_a_spatial_axis) {
  expect_refused_with({"GlobalMaxPool", 1, "x:f32[2,3]", "x", "y", "", "", ""}, "its input has rank 2");
  expect_refused_with({"GlobalLpPool", 2, "x:f32[2]", "x", "y", "", "", ""}, "its input has rank 1");
  // Only the batch may be empty, as ONNX Runtime's pooling checks it ("Only N can be zero").
  const auto empty = "the split lengths [1,-1] do not add up to the dimension 0";
  EXPECT_NE(refusals({"GlobalAveragePool", 1, "x:f32[2,0,4]", "x", "y", "", "", ""}).find(empty), std::string::npos);
  EXPECT_NE(refusals({"GlobalMaxPool", 1, "x:f32[2,3,4,0]", "x", "y", "", "", ""}).find(empty), std::string::npos);
  EXPECT_EQ(refusals({"GlobalLpPool", 2, "x:f32[0,3,4]", "x", "y", "", "", ""}), "");
  // With an empty batch ONNX Runtime runs any other empty axis too.
  EXPECT_EQ(refusals({"GlobalMaxPool", 1, "x:f32[0,0,3]", "x", "y", "", "", ""}), "");
  EXPECT_EQ(refusals({"GlobalAveragePool", 1, "x:f32[0,2,0,3]", "x", "y", "", "", ""}), "");
}

// Weights or a bias the graph computes are checked when the model propagates, as ONNX Runtime checks them
// when it runs: the window against kernel_shape, the bias 1-D of one value per output channel (a Const of
// one value too, which would broadcast).
TEST(lower_convolution, computed_weights_and_bias_checked_as_onnx_runtime_checks_them) {
  EXPECT_NE(refusals({"Conv", 11, "x:f32[1,2,5,5] w:f32[3,2,3,3]", "x,w", "y", attr_ints("kernel_shape", {2, 2}), "", ""})
                .find("the split lengths [2] do not add up to the dimension 3"),
            std::string::npos);
  EXPECT_EQ(refusals({"Conv", 11, "x:f32[1,2,5,5] w:f32[3,2,3,3]", "x,w", "y", attr_ints("kernel_shape", {3, 3}), "", ""}), "");
  EXPECT_NE(refusals({"ConvTranspose", 11, "x:f32[1,2,5,5] w:f32[2,3,3,3]", "x,w", "y", attr_ints("kernel_shape", {2, 2}), "", ""})
                .find("the split lengths [2] do not add up to the dimension 3"),
            std::string::npos);
  for (const auto* bias : {"b:f32[1]", "b:f32[1]=", "b:f32[4]"})
    EXPECT_NE(refusals({"Conv", 11, fmt::format("x:f32[1,2,5,5] w:f32[3,2,3,3] {}", bias), "x,w,b", "y", "", "", ""}),
              "") << bias;
  EXPECT_EQ(refusals({"Conv", 11, "x:f32[1,2,5,5] w:f32[3,2,3,3]= b:f32[3]", "x,w,b", "y", "", "", ""}), "");
  expect_refused_with({"ConvTranspose", 11, "x:f32[1,2,5,5] w:f32[2,3,3,3]= b:f32[1,3]", "x,w,b", "y", "", "", ""},
                      "its bias (input 2) has rank 2");
}

// An output of 0 where MaxUnpool's sizes give one (an input of 1 with pads as long as the kernel): ONNX
// Runtime refuses it ("Computed output dimension is not positive").
TEST(lower_convolution, max_unpool_refuses_an_empty_output) {
  EXPECT_NE(refusals({"MaxUnpool", 9, "x:f32[1,1,1,1] i:i64[1,1,1,1]", "x,i", "y",
                      attr_ints("kernel_shape", {2, 2}) + attr_ints("pads", {1, 1, 1, 1}), "", ""})
                .find("the split lengths [1,-1] do not add up to the dimension 0"),
            std::string::npos);
}

// DeformConv's sizes are ONNX Runtime's: a window longer than the input gives 0 or 1 (span / stride + 1,
// truncated); an empty image beside an output of elements, C or M of 0, and a bias of another count are
// refused.
TEST(lower_convolution, deform_conv_sizes_as_onnx_runtime_computes_them) {
  const auto output = [](const std::string& x, const std::string& attrs, const std::string& offset) {
    const lowering_case c{"DeformConv", 19, fmt::format("x:f32{} w:f32[3,2,3,3]= off:f32{}", x, offset), "x,w,off", "y", attrs, "", ""};
    const auto bytes = model_of(c);
    const auto g = onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), "t.onnx");
    const auto p = model::propagate(g);
    std::string out = p.lost.empty() ? "" : "lost: ";
    for (const auto& l : g.layers())
      if (l.type == "Result") out += to_string(p.input(g, l, 0).shape);
    return out;
  };
  EXPECT_EQ(output("[1,2,2,2]", "", "[1,18,0,0]"), "[1,3,0,0]");
  EXPECT_EQ(output("[1,2,2,5]", attr_ints("strides", {2, 2}), "[1,18,1,2]"), "[1,3,1,2]");
  EXPECT_EQ(output("[1,2,0,5]", attr_ints("pads", {1, 0, 1, 0}), "[1,18,0,3]"), "[1,3,0,3]");
  EXPECT_EQ(output("[1,2,0,5]", "", "[1,18,0,3]").substr(0, 6), "lost: ");  // -2 positions
  EXPECT_EQ(output("[1,2,0,5]", attr_ints("pads", {2, 0, 2, 0}), "[1,18,2,3]").substr(0, 6), "lost: ");
  EXPECT_EQ(output("[1,0,5,5]", "", "[1,18,3,3]").substr(0, 6), "lost: ");
  expect_refused_with({"DeformConv", 19, "x:f32[1,2,5,5] w:f32[3,2,3,3]= off:f32[1,18,3,3] b:f32[]", "x,w,off,b", "y", "", "", ""},
                      "its bias (input 3) has rank 0");
}

}  // namespace

}  // namespace reshape1::test
