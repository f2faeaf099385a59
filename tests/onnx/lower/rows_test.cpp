// The ONNX table row by row: for each (op_type, since_version), a model of one such node is read, and the
// layers it lowers to and the shapes propagated to its outputs are those of ONNX's specification
// (docs/Operators.md). Every layer a translation adds must be a registry op. The cases are in their family's
// file (tests/onnx/lower/<family>_test.cpp); here they run, all in the suite onnx/lower_rows, with the
// variants of rows whose attributes choose between lowerings.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "lowering_case.hpp"
#include "model/ops/rules.hpp"
#include "reshape1/model/propagate.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::test {

std::vector<lowering_case> cases() {
  std::vector<lowering_case> all;
  for (auto family : {elementwise_cases(), convolution_cases(), normalization_cases(), matmul_cases(), shape_cases(),
                      indexing_cases(), reduction_cases(), resize_cases(), recurrent_cases(), detection_cases(),
                      quantization_cases(), control_flow_cases(), microsoft_cases(), attention_cases(), signal_cases(),
                      random_cases(), text_cases(), sequence_cases(), ml_cases()})
    for (auto& c : family) all.push_back(std::move(c));
  return all;
}

namespace {

/// The rows the cases run in this process lowered (a layer's op_type and op_version say which).
std::set<row_key>& rows_lowered() {
  static std::set<row_key> rows;
  return rows;
}

/// The layers of `g` and of the bodies in it that are no registry op, as "type-opset" in a list.
std::string not_in_registry(const model::graph& g) {
  std::string out;
  for (const auto& l : g.layers()) {
    if (model::detail::find_entry(l.type, l.opset) == nullptr) out += fmt::format("{}-{} ", l.type, l.opset);
    if (l.body) out += not_in_registry(l.body->network);
  }
  return out;
}

/// With RESHAPE1_ONNX_ROW_COVERAGE set (the ctest onnx.every_row_has_a_lowering_test, which runs the cases
/// in one process), every row of the table must have been lowered by then. Off otherwise: one case alone
/// lowers one row, as gtest_discover_tests runs each test in a process of its own.
class row_coverage : public ::testing::Environment {
 public:
  void TearDown() override {
    if (std::getenv("RESHAPE1_ONNX_ROW_COVERAGE") == nullptr) return;
    for (const auto& row : onnx::detail::onnx_table())
      if (row.fn != nullptr && rows_lowered().count({std::string(row.domain), std::string(row.op_type), row.since}) == 0)
        ADD_FAILURE() << row.domain << "." << row.op_type << "-" << row.since << " is lowered by no case of tests/onnx/lower/<family>_test.cpp";
  }
};

[[maybe_unused]] const auto* const coverage = ::testing::AddGlobalTestEnvironment(new row_coverage);

/// More cases for rows whose attributes choose between lowerings: each also lowers its row.
std::vector<lowering_case> variant_cases() {
  return {
      // Einsum as ONNX Runtime runs it: a letter's dimension of 1 in one input broadcasts to another input's, a
      // contracted letter's too (numpy's einsum does the same; OpenVINO's asks for equal dimensions).
      {"Einsum", 12, "a:f32[2,2] b:f32[2,1]", "a,b", "y", attr_s("equation", "ba,ba->b"), "Einsum", "[2]"},
      {"Einsum", 12, "a:f32[1,2,3] b:f32[4,3,5]", "a,b", "y", attr_s("equation", "bij,bjk->bik"), "Einsum", "[4,2,5]"},
      {"Einsum", 12, "a:f32[2,1] b:f32[3,4]", "a,b", "y", attr_s("equation", "ij,jk->ik"), "Einsum", "[2,4]"},
      // Before 14, BatchNormalization with all five outputs is in training mode (ONNX Runtime's reading):
      // normalised with the batch's statistics, which the four per-channel outputs are.
      {"BatchNormalization", 7, "x:f32[2,3,4,4] scale:f32[3]= bias:f32[3]= mean:f32[3]= var:f32[3]=",
       "x,scale,bias,mean,var", "y,m,v,sm,sv", "", "ShapeOf,ShapeOf,Squeeze,Range,Concat,MVN,BatchNormInference,ReduceMean",
       "[2,3,4,4] [3] [3] [3] [3]", "ai.onnx", 9},
      // com.microsoft's quantised pools with channels_last, [N, H, W, C]: through a transpose to [N, C, H, W]
      // and back (the average pool), or the mean over H and W.
      {"QLinearAveragePool", 1, "x:u8[2,8,6,3] xs:f32[]=1 xz:u8[]=0 ys:f32[]=1 yz:u8[]=0", "x,xs,xz,ys,yz", "y",
       attr_ints("kernel_shape", {2, 3}) + attr_ints("strides", {2, 3}) + attr_i("channels_last", 1),
       "Convert,Transpose,AvgPool,Transpose,Convert", "[2,4,2,3]", "com.microsoft"},
      {"QLinearGlobalAveragePool", 1, "x:u8[2,8,6,3] xs:f32[]=1 xz:u8[]=0 ys:f32[]=1 yz:u8[]=0", "x,xs,xz,ys,yz", "y",
       attr_i("channels_last", 1),
       "Convert,ShapeOf,ShapeOf,Squeeze,Subtract,Range,ShapeOf,Gather,ReduceProd,Broadcast,VariadicSplit,ReduceMean,Convert",
       "[2,1,1,3]",
       "com.microsoft"},
      // A num_outputs above the node's outputs: as many parts as outputs, as ONNX Runtime splits.
      {"Split", 18, "x:f32[2,12]", "x", "a,b,c", attr_i("axis", 1) + attr_i("num_outputs", 4), "Split",
       "[2,4] [2,4] [2,4]"},
      // MaxUnpool with the output_shape input (of X's batch and channels, and as many elements at least).
      {"MaxUnpool", 9, "x:f32[1,2,3,3] i:i64[1,2,3,3] s:i64[4]=1,2,7,7", "x,i,s", "y", attr_ints("kernel_shape", {2, 2}) + attr_ints("strides", {2, 2}),
       "ShapeOf,Broadcast,ShapeOf,Broadcast,Convert,ShapeOf,Slice,Broadcast,Slice,VariadicSplit,Slice,VariadicSplit,ShapeOf,Slice,Concat,ReduceProd,ShapeOf,Slice,Subtract,Multiply,Slice,Add,Concat,ReduceProd,Broadcast,Concat,VariadicSplit,Concat,ShapeOf,ConvertLike,Broadcast,Reshape,Reshape,Reshape,ScatterUpdate,Reshape", "[1,2,7,7]"},
      // com.microsoft.RotaryEmbedding with one offset for the positions, of a 4-D input.
      {"RotaryEmbedding", 1, "x:f32[2,2,3,4] p:i64[1]=2 cos:f32[8,2]= sin:f32[8,2]=", "x,p,cos,sin", "y", "",
       "ShapeOf,Slice,Transpose,Concat,Concat,VariadicSplit,ShapeOf,Slice,Concat,VariadicSplit,Concat,Reshape,"
       "Squeeze,Range,Convert,Add,Gather,Unsqueeze,Concat,Multiply,Transpose",
       "[2,2,3,4]", "com.microsoft"},
      // Along an axis of length 0 TopK takes none (ONNX Runtime gives the empty output).
      {"Hardmax", 13, "x:f32[2,0,3]", "x", "y", attr_i("axis", 1),
       "ShapeOf,Gather,Minimum,TopK,ConvertLike,ShapeOf,Broadcast,ConvertLike,ShapeOf,Broadcast,ScatterElementsUpdate",
       "[2,0,3]"},
      // A scalar from ONNX: rank 1, ONNX Runtime's [1,1] or [1,0] (OpenVINO would give [0,0] for a zero).
      {"NonZero", 9, "x:f32[]", "x", "y", "", "NonZero", "[1,..1]"},
      // A slope of higher rank than the data: ONNX Runtime broadcasts both ways ([2,3]; OpenVINO's PReLU
      // would keep the data's [3]), so the data is broadcast first (to the Const slope's dims).
      {"PRelu", 7, "x:f32[3] slope:f32[2,3]=", "x,slope", "y", "", "Broadcast,PReLU", "[2,3]"},
      // A slope along the last axis, as numpy aligns it (not OpenVINO's channel axis): the data's shape.
      {"PRelu", 7, "x:f32[2,3,4] slope:f32[4]=", "x,slope", "y", "", "Broadcast,PReLU", "[2,3,4]"},
      // A slope dimension above the data's 1 grows it, as ONNX Runtime broadcasts ([2,1] and [3]: [2,3]).
      {"PRelu", 7, "x:f32[2,1] slope:f32[3]=", "x,slope", "y", "", "Broadcast,PReLU", "[2,3]", "ai.onnx", 16},
      // A slope computed in the graph: broadcast to its shape, whatever it is.
      {"PRelu", 7, "x:f32[2,1] slope:f32[3]", "x,slope", "y", "", "ShapeOf,Broadcast,PReLU", "[2,3]", "ai.onnx", 16},
      // Dropout's mask in inference: all true, of the input's shape.
      {"Dropout", 7, "x:f32[2,3]", "x", "y,m", "", "ShapeOf,Broadcast", "[2,3] [2,3]", "ai.onnx", 13},
      // In training mode both outputs are random, of the input's shape.
      {"Dropout", 7, "x:f32[2,3] r:f32[]=0.5 t:bool[]=1", "x,r,t", "y,m", "",
       "ShapeOf,RandomUniform,ConvertLike,Multiply,RandomUniform,Convert", "[2,3] [2,3]", "ai.onnx", 12},
      // Clip's bound of [1] is a scalar to ONNX Runtime: a rank-0 input stays rank 0.
      {"Clip", 11, "x:f32[] lo:f32[1]=0", "x,lo", "y", "", "Maximum", "[]"},
      // A bound computed in the graph: reshaped to a scalar (which refuses more than one element).
      {"Clip", 11, "x:f32[2] lo:f32[1]", "x,lo", "y", "", "Reshape,Maximum", "[2]"},
      // Blocked quantisation (21 on): the scale per 4 elements along axis 1 ([2,6]: 2 blocks, the last short),
      // gathered over the data's elements.
      {"DequantizeLinear", 10, "x:u8[2,6] scale:f32[2,2]=", "x,scale", "y", attr_i("axis", 1) + attr_i("block_size", 4),
       "ShapeOf,Slice,VariadicSplit,Slice,Squeeze,Subtract,Divide,Add,Unsqueeze,VariadicSplit,Range,Divide,Gather,Convert,Multiply",
       "[2,6]", "ai.onnx", 21},
      // Constants of the narrow types: 4-bit (21 on) and float 8 (19 on).
      {"DequantizeLinear", 10, "x:i4[2,3]=1,2,3,4,5,6 scale:f32[]=0.5", "x,scale", "y", "", "Convert,Multiply", "[2,3]", "ai.onnx", 21},
      {"DequantizeLinear", 10, "x:f8[2,3]= scale:f32[]=0.5", "x,scale", "y", "", "Convert,Multiply", "[2,3]", "ai.onnx", 19},
      // Resize-18's axes: the scales name those axes.
      {"Resize", 11, "x:f32[1,3,4,4] s:f32[2]=2,3", "x,,s", "y", attr_ints("axes", {2, -1}), "Interpolate", "[1,3,8,12]", "ai.onnx", 18},
      // ScatterND's reductions (16 on): ScatterNDUpdate-15's, the data's shape.
      {"ScatterND", 11, "d:f32[4,5] i:i64[2,1] u:f32[2,5]", "d,i,u", "y", attr_s("reduction", "add"), "ScatterNDUpdate", "[4,5]", "ai.onnx", 16},
      // GatherElements' indices shorter than the data off the axis: the indices' shape (ONNX Runtime runs it).
      {"GatherElements", 11, "d:f32[3,4] i:i64[2,2]", "d,i", "y", attr_i("axis", 0), "GatherElements", "[2,2]"},
      // Split-18's num_outputs where the axis does not divide: the last part smaller (ONNX's spec).
      {"Split", 18, "x:f32[2,7]", "x", "y,z,w", attr_i("axis", 1) + attr_i("num_outputs", 3), "Split", "[2,3] [2,3] [2,1]"},
      // A window longer than the input: ONNX Runtime pools it to span / stride + 1, the division truncated
      // toward zero (0 here; 1 with ceil_mode, and 1 for a window of 3 and stride 3 over 2), where OpenVINO
      // refuses it.
      {"AveragePool", 7, "x:f32[1,1,2,5]", "x", "y", attr_ints("kernel_shape", {3, 1}) + attr_ints("strides", {3, 1}),
       "AvgPool", "[1,1,1,5]", "ai.onnx", 11},
      {"MaxPool", 8, "x:f32[1,1,2,5]", "x", "y", attr_ints("kernel_shape", {3, 3}), "MaxPool", "[1,1,0,3]", "ai.onnx", 12},
      {"AveragePool", 7, "x:f32[1,1,2,5]", "x", "y", attr_ints("kernel_shape", {3, 3}) + attr_ints("strides", {2, 1}) + attr_i("ceil_mode", 1),
       "AvgPool", "[1,1,1,3]", "ai.onnx", 11},
      // Mean and InvStdDev: a value per row, the normalised axes kept as 1s.
      {"LayerNormalization", 17, "x:f32[2,3,4] scale:f32[4]=", "x,scale", "y,m,i", attr_i("axis", -1),
       "Range,ShapeOf,Slice,ReduceProd,Broadcast,VariadicSplit,MVN,Multiply,ReduceMean,Convert", "[2,3,4] [2,3,1] [2,3,1]"},
      // The bias too, over the last two axes: each broadcast one way to the data.
      {"LayerNormalization", 17, "x:f32[2,3,4] scale:f32[4]= bias:f32[3,4]=", "x,scale,bias", "y", attr_i("axis", 1),
       "ShapeOf,ShapeOf,Squeeze,Range,ShapeOf,Slice,ReduceProd,Broadcast,VariadicSplit,MVN,Multiply,Add", "[2,3,4]"},
      // An empty axes constant is no axes: every 1 is squeezed (ONNX Runtime: [2,4]).
      {"Squeeze", 13, "x:f32[2,1,4,1] axes:i64[0]=", "x,axes", "y", "", "Squeeze", "[2,4]"},
      // SAME_UPPER without output_shape: the input's size times the stride (ONNX Runtime: [1,2,8,12]), read
      // from the input's shape so that it follows new sizes; the window is only the padding's business.
      {"ConvTranspose", 1, "x:f32[1,4,4,6] w:f32[4,2,3,3]=", "x,w", "y",
       attr_ints("strides", {2, 2}) + attr_s("auto_pad", "SAME_UPPER"),
       "ShapeOf,StridedSlice,Multiply,ConvolutionBackpropData", "[1,2,8,12]"},
      // SAME_UPPER with a window shorter than the stride: ONNX Runtime pads by 0 where stride·in would need a
      // negative padding, so the output is stride·(in - 1) + 1 = 15, not 16.
      {"ConvTranspose", 1, "x:f32[1,2,8] w:f32[2,2,1]=", "x,w", "y",
       attr_ints("strides", {2}) + attr_s("auto_pad", "SAME_UPPER"),
       "ShapeOf,StridedSlice,Multiply,Add,ConvolutionBackpropData", "[1,2,15]"},
      // The same with weights the graph computes (no kernel_shape, no initializer): the window from their shape.
      {"ConvTranspose", 1, "x:f32[1,2,8] w:f32[2,2,1]", "x,w", "y",
       attr_ints("strides", {2}) + attr_s("auto_pad", "SAME_UPPER"),
       "ShapeOf,StridedSlice,Multiply,ShapeOf,StridedSlice,Subtract,Multiply,Add,Minimum,Add,ConvolutionBackpropData",
       "[1,2,15]"},
      // output_shape gives the spatial sizes (as ONNX Runtime runs it).
      {"ConvTranspose", 1, "x:f32[1,4,5,5] w:f32[4,2,3,3]=", "x,w", "y",
       attr_ints("strides", {2, 2}) + attr_ints("output_shape", {10, 12}), "ConvolutionBackpropData",
       "[1,2,10,12]"},
      // ceil_mode drops a last window that would start in the end padding (ONNX Runtime: 9 rows, window 2,
      // stride 2, padding 1 each side, gives 5, not 6): OpenVINO's ceil_torch. ceil_mode is an attribute from
      // version 10 on (before, the node is refused: lower_table's unknown attribute test), which rows 8 and
      // 7 translate.
      {"MaxPool", 8, "x:f32[1,1,9,9]", "x", "y",
       attr_ints("kernel_shape", {2, 2}) + attr_ints("strides", {2, 2}) + attr_ints("pads", {1, 1, 1, 1}) +
           attr_i("ceil_mode", 1),
       "MaxPool", "[1,1,5,5]", "ai.onnx", 10},
      {"AveragePool", 7, "x:f32[1,1,7]", "x", "y",
       attr_ints("kernel_shape", {4}) + attr_ints("strides", {3}) + attr_ints("pads", {2, 2}) + attr_i("ceil_mode", 1),
       "AvgPool", "[1,1,3]", "ai.onnx", 10},
      // keepdims other than 1 drops the axes, as ONNX Runtime does (2 is not "true").
      {"ReduceMax", 1, "x:f32[1,2,6]", "x", "y", attr_ints("axes", {1}) + attr_i("keepdims", 2), "ReduceMax", "[1,6]"},
      {"ArgMax", 1, "x:f32[2,6]", "x", "y", attr_i("keepdims", -1), "TopK,Squeeze", "[6]"},
      // A float range counts in floats: 0.5 to 7.2 by 1.5 is 5 values, of the inputs' type.
      {"Range", 11, "start:f32[]=0.5 limit:f32[]=7.2 delta:f32[]=1.5", "start,limit,delta", "y", "", "Range", "[5]"},
      // A scale and zero point of one element ([1]) are per tensor, as ONNX Runtime reads them: beside data of
      // rank 0 or 1 too, where the default axis 1 names no axis.
      {"QuantizeLinear", 10, "x:f32[] scale:f32[1]=0.5 zp:u8[1]=0", "x,scale,zp", "y", "",
       "Reshape,Divide,Reshape,Convert,Add,Convert", "[]", "ai.onnx", 13},
      {"DequantizeLinear", 10, "x:u8[3] scale:f32[1]=0.5", "x,scale", "y", "", "Reshape,Convert,Multiply", "[3]",
       "ai.onnx", 13},
      // Flatten of an empty input at the last axis: [0, 2], both products known (a -1 beside the 0 is not).
      {"Flatten", 1, "x:f32[1,0,5,2]", "x", "y", attr_i("axis", -1),
       "ShapeOf,VariadicSplit,ReduceProd,ReduceProd,Concat,Reshape", "[0,2]"},
      // StringNormalizer of [C] with stopwords: a length the data decides, up to C (ONNX Runtime keeps one empty string
      // where all are stopwords: 1 to C).
      {"StringNormalizer", 10, "x:string[4]", "x", "y",
       R"(attribute { name: "stopwords" type: STRINGS strings: ["a", "b"] } )", "Convert,ShapeOf,ShapeOf,Squeeze,Range,ReduceSum,Unsqueeze,Slice",
       "[..4]"},
  };
}

void expect_lowered(const lowering_case& c) {
  const auto bytes = model_of(c);
  const auto g = onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), c.op + ".onnx");
  // The row the model's opset runs is the case's, and the node's layers (Identity and Dropout add none)
  // say they lower that version.
  const auto* schema = onnx::detail::schema_at(c.domain, c.op, c.domain == "ai.onnx" ? opset_of(c) : c.since);
  ASSERT_NE(schema, nullptr) << "the op list has no such version";
  const auto* row = onnx::detail::find_translation(c.domain, c.op, schema->since);
  ASSERT_NE(row, nullptr);
  ASSERT_EQ(row->since, c.since) << "opset " << opset_of(c) << " runs another row";
  std::string layers;
  for (const auto& l : g.layers()) {
    if (l.op_type() == (c.domain == "ai.onnx" ? c.op : c.domain + "." + c.op)) {
      EXPECT_EQ(l.op_version(), schema->since) << l.type;
    }
    if (l.type == "Parameter" || l.type == "Const" || l.type == "Result") continue;
    layers += fmt::format("{}{}", layers.empty() ? "" : ",", l.type);
  }
  rows_lowered().emplace(c.domain, c.op, c.since);
  EXPECT_EQ(layers, c.layers);
  EXPECT_EQ(not_in_registry(g), "");
  const auto p = model::propagate(g);
  std::string shapes;
  for (const auto& l : g.layers())
    if (l.type == "Result") shapes += fmt::format("{}{}", shapes.empty() ? "" : " ", to_string(p.input(g, l, 0).shape));
  EXPECT_EQ(shapes, c.shapes);
  for (const auto& lost : p.lost) ADD_FAILURE() << "propagation lost at " << lost.message;
}

class lower_rows : public ::testing::TestWithParam<lowering_case> {};
TEST_P(lower_rows, lowers_to_registry_ops_of_the_specified_shapes) { expect_lowered(GetParam()); }
INSTANTIATE_TEST_SUITE_P(onnx, lower_rows, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<lowering_case>& row) {
                           return fmt::format("{}_{}", row.param.op, row.param.since);
                         });

class lower_variants : public ::testing::TestWithParam<lowering_case> {};
TEST_P(lower_variants, lowers_to_registry_ops_of_the_specified_shapes) { expect_lowered(GetParam()); }
INSTANTIATE_TEST_SUITE_P(onnx, lower_variants, ::testing::ValuesIn(variant_cases()),
                         [](const ::testing::TestParamInfo<lowering_case>& row) {
                           return fmt::format("{}_{}_{}", row.param.op, row.param.since, row.index);
                         });

}  // namespace
}  // namespace reshape1::test
