// The ONNX table row by row: for each (op_type, since_version), a model of one such node is read, and the
// layers it lowers to and the shapes propagated to its outputs are those of ONNX's specification
// (docs/Operators.md). Every layer a translation adds must be a registry op; the cases and the table
// must name the same rows, both ways.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdlib>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "model/ops/rules.hpp"
#include "onnx/lower/families.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/model/propagate.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::test {
namespace {

/// One row's case: a node of `op` in a model whose opset runs the row's since_version (opset_of).
struct lowering_case {
  std::string op;
  int since;
  /// The tensors around the node: `x:f32[2,3]` is a graph input; `w:f32[4,3]=` an initializer of zeros,
  /// `axes:i64[1]=2` one holding those values (`[]`: a scalar).
  std::string tensors;
  std::string inputs;   ///< the node's, comma-separated; an empty one leaves an optional input out
  std::string outputs;  ///< the node's, each also a graph output
  std::string attributes;
  std::string layers;  ///< what the node lowers to, in order: its layers but Consts (and the model's Parameters, Results)
  std::string shapes;  ///< the propagated shape of each graph output
  std::string domain = "ai.onnx";  ///< the node's (com.microsoft: imported at version 1)
};

std::string attr_i(const char* name, std::int64_t v) {
  return fmt::format(R"(attribute {{ name: "{}" type: INT i: {} }} )", name, v);
}
std::string attr_ints(const char* name, const std::vector<std::int64_t>& v) {
  return fmt::format(R"(attribute {{ name: "{}" type: INTS ints: [{}] }} )", name, fmt::join(v, ", "));
}
std::string attr_f(const char* name, float v) {
  return fmt::format(R"(attribute {{ name: "{}" type: FLOAT f: {} }} )", name, v);
}
std::string attr_floats(const char* name, const std::vector<float>& v) {
  return fmt::format(R"(attribute {{ name: "{}" type: FLOATS floats: [{}] }} )", name, fmt::join(v, ", "));
}
std::string attr_s(const char* name, const char* v) {
  return fmt::format(R"(attribute {{ name: "{}" type: STRING s: "{}" }} )", name, v);
}
std::string attr_g(const char* name, const std::string& graph) {
  return fmt::format(R"(attribute {{ name: "{}" type: GRAPH g {{ {} }} }} )", name, graph);
}

int onnx_type(const std::string& name) {
  if (name == "f32") return ::onnx::TensorProto::FLOAT;
  if (name == "i64") return ::onnx::TensorProto::INT64;
  if (name == "i32") return ::onnx::TensorProto::INT32;
  if (name == "u8") return ::onnx::TensorProto::UINT8;
  if (name == "bool") return ::onnx::TensorProto::BOOL;
  ADD_FAILURE() << "no element type " << name;
  return 0;
}

std::vector<std::string> split(const std::string& s, char by) {
  std::vector<std::string> out;
  std::string piece;
  std::istringstream in(s);
  while (std::getline(in, piece, by)) out.push_back(piece);
  if (!s.empty() && s.back() == by) out.emplace_back();
  return out;
}

/// One tensor of `lowering_case::tensors` added to `g`.
void add_tensor(::onnx::GraphProto& g, const std::string& spec) {
  const auto colon = spec.find(':'), open = spec.find('['), close = spec.find(']');
  ASSERT_TRUE(colon != std::string::npos && open != std::string::npos && close != std::string::npos) << spec;
  const auto name = spec.substr(0, colon);
  const auto type = onnx_type(spec.substr(colon + 1, open - colon - 1));
  std::vector<std::int64_t> dims;
  for (const auto& d : split(spec.substr(open + 1, close - open - 1), ',')) dims.push_back(std::stoll(d));
  if (spec.find('=', close) == std::string::npos) {
    auto* in = g.add_input();
    in->set_name(name);
    auto* t = in->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    auto* shape = t->mutable_shape();
    for (const auto d : dims) shape->add_dim()->set_dim_value(d);
    return;
  }
  auto* t = g.add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  std::int64_t count = 1;
  for (const auto d : dims) {
    t->add_dims(d);
    count *= d;
  }
  auto values = split(spec.substr(spec.find('=', close) + 1), ',');
  if (values.empty()) values.assign(static_cast<std::size_t>(count), "0");
  for (const auto& v : values) {
    if (type == ::onnx::TensorProto::FLOAT) t->add_float_data(std::stof(v));
    else if (type == ::onnx::TensorProto::INT64) t->add_int64_data(std::stoll(v));
    else t->add_int32_data(std::stoi(v));
  }
}

/// The default domain's opset of the case's model: 7 where that still runs the row's version (the ops in an
/// If's or a Loop's body then have versions ONNX Runtime runs), else the row's version; 17 for a
/// com.microsoft case.
int opset_of(const lowering_case& c) {
  if (c.domain != "ai.onnx") return 17;
  const auto* at7 = onnx::detail::schema_at(c.domain, c.op, 7);
  return c.since < 7 && at7 != nullptr && at7->since == c.since ? 7 : c.since;
}

/// What a failing case prints for itself (gtest would dump its bytes).
void PrintTo(const lowering_case& c, std::ostream* out) { *out << c.domain << "." << c.op << "-" << c.since; }

/// The model of one node of the case.
std::string model_of(const lowering_case& c) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(opset_of(c));
  if (c.domain != "ai.onnx") {
    auto* other = m.add_opset_import();
    other->set_domain(c.domain);
    other->set_version(c.since);
  }
  auto& g = *m.mutable_graph();
  g.set_name(c.op);
  std::istringstream tensors(c.tensors);
  for (std::string spec; tensors >> spec;) add_tensor(g, spec);
  auto* node = g.add_node();
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(c.attributes, node)) << c.attributes;
  node->set_name("n");
  node->set_op_type(c.op);
  if (c.domain != "ai.onnx") node->set_domain(c.domain);
  for (const auto& in : split(c.inputs, ',')) node->add_input(in);
  for (const auto& out : split(c.outputs, ',')) {
    node->add_output(out);
    g.add_output()->set_name(out);
  }
  return m.SerializeAsString();
}

/// A row as "domain op since".
using row_key = std::tuple<std::string, std::string, int>;

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

// ---- the cases, by the family of their rows (src/onnx/lower/<family>.cpp) ------------------------------

/// A node of one input of [2,3,4] that lowers to one layer of that shape.
lowering_case unary(const char* op, int since, const char* layers, std::string attributes = {}) {
  return {op, since, "x:f32[2,3,4]", "x", "y", std::move(attributes), layers, "[2,3,4]"};
}
/// A node of two inputs broadcast as numpy does: [2,1,4] and [3,1] give [2,3,4].
lowering_case binary(const char* op, int since, const char* layers, const char* type = "f32") {
  return {op, since, fmt::format("a:{0}[2,1,4] b:{0}[3,1]", type), "a,b", "y", "", layers, "[2,3,4]"};
}

std::vector<lowering_case> elementwise_cases() {
  return {
      unary("Abs", 6, "Abs"), unary("Acos", 7, "Acos"), unary("Asin", 7, "Asin"), unary("Atan", 7, "Atan"),
      unary("Ceil", 6, "Ceiling"), unary("Cos", 7, "Cos"), unary("Cosh", 9, "Cosh"), unary("Erf", 9, "Erf"),
      unary("Exp", 6, "Exp"), unary("Floor", 6, "Floor"), unary("Log", 6, "Log"), unary("Neg", 6, "Negative"),
      {"Not", 1, "x:bool[2,3,4]", "x", "y", "", "LogicalNot", "[2,3,4]"},
      unary("Relu", 6, "ReLU"), unary("Sigmoid", 6, "Sigmoid"), unary("Sign", 9, "Sign"), unary("Sin", 7, "Sin"),
      unary("Sinh", 9, "Sinh"), unary("Softplus", 1, "SoftPlus"), unary("Sqrt", 6, "Sqrt"), unary("Tan", 7, "Tan"),
      unary("Tanh", 6, "Tanh"), unary("HardSwish", 14, "HSwish"), unary("Round", 11, "Round"),
      unary("Reciprocal", 6, "Divide"), unary("Elu", 6, "Elu", attr_f("alpha", 0.5F)),
      unary("LeakyRelu", 6, "PReLU", attr_f("alpha", 0.1F)),
      {"PRelu", 7, "x:f32[2,3,4] slope:f32[1]=0.25", "x,slope", "y", "", "PReLU", "[2,3,4]"},
      unary("HardSigmoid", 6, "HardSigmoid"), unary("Identity", 1, ""), unary("Dropout", 7, ""),
      unary("Cast", 6, "Convert", attr_i("to", ::onnx::TensorProto::INT64)),
      unary("Clip", 6, "Clamp", attr_f("min", 0.0F) + attr_f("max", 6.0F)),
      {"Clip", 11, "x:f32[2,3,4] lo:f32[]=0 hi:f32[]=6", "x,lo,hi", "y", "", "Maximum,Minimum", "[2,3,4]"},
      binary("Add", 7, "Add"), binary("Sub", 7, "Subtract"), binary("Mul", 7, "Multiply"),
      binary("Div", 7, "Divide"), binary("Pow", 7, "Power"), binary("Equal", 7, "Equal"),
      binary("Greater", 7, "Greater"), binary("Less", 7, "Less"), binary("GreaterOrEqual", 12, "GreaterEqual"),
      binary("LessOrEqual", 12, "LessEqual"), binary("And", 7, "LogicalAnd", "bool"),
      binary("Or", 7, "LogicalOr", "bool"), binary("Xor", 7, "LogicalXor", "bool"), binary("Mod", 10, "FloorMod"),
      {"Where", 9, "c:bool[2,1,4] a:f32[3,1] b:f32[1]", "c,a,b", "y", "", "Select", "[2,3,4]"},
      // The variadic nodes: a chain of the binary op, each broadcast as numpy does.
      {"Max", 8, "a:f32[2,1,4] b:f32[3,1] c:f32[4]", "a,b,c", "y", "", "Maximum,Maximum", "[2,3,4]"},
      {"Min", 8, "a:f32[2,1,4] b:f32[3,1]", "a,b", "y", "", "Minimum", "[2,3,4]"},
      {"Sum", 8, "a:f32[2,1,4] b:f32[3,1] c:f32[4]", "a,b,c", "y", "", "Add,Add", "[2,3,4]"},
      {"Mean", 8, "a:f32[2,1,4] b:f32[3,1]", "a,b", "y", "", "Add,ConvertLike,Divide", "[2,3,4]"},
      // Before 8: inputs of one shape (no broadcasting).
      {"Max", 6, "a:f32[2,3] b:f32[2,3] c:f32[2,3]", "a,b,c", "y", "", "Maximum,Maximum", "[2,3]"},
      {"Min", 6, "a:f32[2,3] b:f32[2,3]", "a,b", "y", "", "Minimum", "[2,3]"},
      {"Sum", 6, "a:f32[2,3] b:f32[2,3]", "a,b", "y", "", "Add", "[2,3]"},
      {"Mean", 6, "a:f32[2,3] b:f32[2,3]", "a,b", "y", "", "Add,ConvertLike,Divide", "[2,3]"},
      unary("Gelu", 20, "Gelu", attr_s("approximate", "tanh")), unary("Mish", 18, "Mish"),
      unary("Acosh", 9, "Acosh"), unary("Asinh", 9, "Asinh"), unary("Atanh", 9, "Atanh"),
      unary("Swish", 24, "ConvertLike,Swish", attr_f("alpha", 1.5F)),
      // alpha * elu(x / alpha).
      unary("Celu", 12, "ConvertLike,Divide,Elu,ConvertLike,Multiply", attr_f("alpha", 2.0F)),
      unary("Selu", 6, "ConvertLike,ConvertLike,Selu"), unary("Softsign", 1, "SoftSign"),
      unary("ThresholdedRelu", 10, "ConvertLike,Greater,ConvertLike,Select"),
      unary("Shrink", 9, "ConvertLike,Greater,ConvertLike,Subtract,ConvertLike,Select,ConvertLike,Less,ConvertLike,Add,Select"),
      unary("IsNaN", 9, "NotEqual"), unary("IsInf", 10, "ConvertLike,Equal,ConvertLike,Equal,LogicalOr"),
      {"CastLike", 15, "x:f32[2,3] t:i64[1]", "x,t", "y", "", "ConvertLike", "[2,3]"},
      binary("BitwiseAnd", 18, "BitwiseAnd", "i32"), binary("BitwiseOr", 18, "BitwiseOr", "i32"),
      binary("BitwiseXor", 18, "BitwiseXor", "i32"),
      {"BitwiseNot", 18, "x:i32[2,3]", "x", "y", "", "BitwiseNot", "[2,3]"},
      {"BitShift", 11, "a:u8[2,1,4] b:u8[3,1]", "a,b", "y", attr_s("direction", "LEFT"), "BitwiseLeftShift", "[2,3,4]"},
  };
}

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
      {"MaxPool", 8, "x:f32[1,3,8,8]", "x", "y", attr_ints("kernel_shape", {2, 2}) + attr_ints("strides", {2, 2}),
       "MaxPool", "[1,3,4,4]"},
      {"AveragePool", 7, "x:f32[1,3,8,8]", "x", "y", attr_ints("kernel_shape", {3, 3}) + attr_ints("pads", {1, 1, 1, 1}),
       "AvgPool", "[1,3,8,8]"},
      // Reduced over the axes from 2 on: a Range to the rank.
      {"GlobalAveragePool", 1, "x:f32[1,3,8,8]", "x", "y", "", "ShapeOf,ShapeOf,Squeeze,Range,ReduceMean", "[1,3,1,1]"},
      {"GlobalMaxPool", 1, "x:f32[1,3,8,8]", "x", "y", "", "ShapeOf,ShapeOf,Squeeze,Range,ReduceMax", "[1,3,1,1]"},
      {"GlobalLpPool", 2, "x:f32[1,3,8,8]", "x", "y", attr_i("p", 3),
       "ShapeOf,ShapeOf,Squeeze,Range,Abs,ConvertLike,Power,ReduceSum,ConvertLike,Power", "[1,3,1,1]"},
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
      {"MaxUnpool", 9, "x:f32[1,2,3,3] i:i64[1,2,3,3]", "x,i", "y", attr_ints("kernel_shape", {2, 2}) + attr_ints("strides", {2, 2}),
       "ShapeOf,Broadcast,ShapeOf,Broadcast,ShapeOf,Slice,Subtract,Multiply,Slice,Add,Concat,ConvertLike,Broadcast,Reshape,Reshape,Reshape,ScatterUpdate,Reshape", "[1,2,6,6]"},
      // Columns [N, C * 2 * 3, L] of 2x3 blocks of a 5x6 image (4 * 4 blocks): [N, C, 5, 6].
      {"Col2Im", 18, "x:f32[2,12,16] img:i64[2]=5,6 block:i64[2]=2,3", "x,img,block", "y", "", "Convert,Convert,Multiply,Add,Subtract,Divide,Add,ReduceProd,ReduceProd,ShapeOf,Slice,Broadcast,Concat,Reshape,ShapeOf,Slice,Slice,Slice,Concat,Reshape,VariadicSplit,ReduceSum,ShapeOf,Concat,Unsqueeze,Broadcast", "[2,2,5,6]"},
  };
}

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
      {"LayerNormalization", 17, "x:f32[2,3,4] scale:f32[4]=", "x,scale", "y", "", "Range,MVN,ShapeOf,Slice,Reshape,Multiply",
       "[2,3,4]"},
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
       "Multiply,Range,ReduceMean,ConvertLike,Add,Sqrt,ShapeOf,Broadcast,Divide,Multiply", "[2,3,4]"},
      // Scale and bias per group (18): the data as [N, groups, rest]; per channel (21): OpenVINO's op.
      {"GroupNormalization", 18, "x:f32[2,4,3,3] scale:f32[2]= bias:f32[2]=", "x,scale,bias", "y", attr_i("num_groups", 2),
       "ShapeOf,Slice,Divide,Slice,Slice,Concat,Reshape,Reshape,MVN,Reshape,Multiply,Reshape,Add,Reshape", "[2,4,3,3]"},
      {"GroupNormalization", 21, "x:f32[2,4,3,3] scale:f32[4]= bias:f32[4]=", "x,scale,bias", "y", attr_i("num_groups", 2),
       "GroupNormalization", "[2,4,3,3]"},
      {"LpNormalization", 1, "x:f32[2,3,4]", "x", "y", attr_i("axis", 1) + attr_i("p", 1), "ReduceL1,Divide", "[2,3,4]"},
  };
}

std::vector<lowering_case> matmul_cases() {
  return {
      {"MatMul", 1, "a:f32[2,3,4] b:f32[4,5]", "a,b", "y", "", "MatMul", "[2,3,5]"},
      // alpha * A * B^T + C.
      {"Gemm", 7, "a:f32[3,4] b:f32[5,4] c:f32[5]", "a,b,c", "y", attr_i("transB", 1) + attr_f("alpha", 2.0F),
       "MatMul,Multiply,Add", "[3,5]"},
      {"Einsum", 12, "a:f32[2,3] b:f32[3,4]", "a,b", "y", attr_s("equation", "ij,jk->ik"), "Einsum", "[2,4]"},
      // One value per square matrix (the Add with its transpose refuses others).
      {"Det", 11, "x:f32[2,3,3]", "x", "y", "", "Transpose,Add,ReduceProd", "[2]"},
  };
}

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

std::vector<lowering_case> indexing_cases() {
  return {
      {"Gather", 1, "data:f32[5,4] idx:i64[2,3]", "data,idx", "y", "", "Gather", "[2,3,4]"},
      {"GatherElements", 11, "data:f32[3,4] idx:i64[2,4]", "data,idx", "y", "", "GatherElements", "[2,4]"},
      {"GatherND", 11, "data:f32[2,3,4] idx:i64[2,2]", "data,idx", "y", "", "GatherND", "[2,4]"},
      // One column per element not zero: 0 to 6 of them ([2,..6]).
      {"NonZero", 9, "x:f32[2,3]", "x", "y", "", "NonZero", "[2,..6]"},
      {"ScatterElements", 11, "data:f32[3,4] idx:i64[2,4] upd:f32[2,4]", "data,idx,upd", "y", attr_i("axis", 0),
       "ScatterElementsUpdate", "[3,4]"},
      {"ScatterND", 11, "data:f32[4,5] idx:i64[2,1] upd:f32[2,5]", "data,idx,upd", "y", "", "ScatterNDUpdate", "[4,5]"},
      {"Scatter", 9, "data:f32[3,4] idx:i64[2,4] upd:f32[2,4]", "data,idx,upd", "y", attr_i("axis", 0),
       "ScatterElementsUpdate", "[3,4]"},
      // The lower triangle from the first diagonal above the main one: column - row <= k, over the last two axes.
      {"Trilu", 14, "x:f32[2,3,4] k:i64[]=1", "x,k", "y", attr_i("upper", 0),
       "ShapeOf,Gather,Range,Unsqueeze,Gather,Range,Subtract,LessEqual,Subtract,Select", "[2,3,4]"},
      // Each index against 0..depth-1 laid along a new axis 1 ([1,5,1], from the indices' rank).
      {"OneHot", 9, "idx:i64[2,3] depth:i64[1]=5 values:f32[2]=0,1", "idx,depth,values", "y", attr_i("axis", 1),
       "Reshape,Convert,Convert,Less,Add,Select,Range,Unsqueeze,ShapeOf,ShapeOf,Broadcast,Unsqueeze,ScatterUpdate,"
       "Reshape,Equal,Gather,Gather,Select",
       "[2,5,3]"},
      {"OneHot", 11, "idx:i64[2,3] depth:i64[]=5 values:f32[2]=0,1", "idx,depth,values", "y", "",
       "Convert,Convert,Less,Add,Select,Range,Unsqueeze,Equal,Gather,Gather,Select", "[2,3,5]"},
      // The true positions of the condition (cut to the axis's length), gathered (how many: 0 to 3).
      {"Compress", 9, "x:f32[3,2] cond:bool[3]", "x,cond", "y", attr_i("axis", 0),
       "ShapeOf,Gather,Slice,NonZero,Squeeze,Gather", "[..3,2]"},
      {"Compress", 11, "x:f32[3,2] cond:bool[8]", "x,cond", "y", "", "Reshape,ShapeOf,Gather,Slice,NonZero,Squeeze,Gather",
       "[..6]"},
      {"ReverseSequence", 10, "x:f32[4,2,3] lens:i64[2]=4,2", "x,lens", "y", "",
       "ShapeOf,Gather,Range,Gather,Convert,Reshape,Unsqueeze,Subtract,Subtract,Less,Select,ShapeOf,Subtract,Broadcast,"
       "ShapeOf,Concat,Reshape,Broadcast,GatherElements",
       "[4,2,3]"},
      {"EyeLike", 9, "x:f32[3,4]", "x", "y", attr_i("k", 1),
       "ShapeOf,Gather,Range,Unsqueeze,Gather,Range,Subtract,Equal,ConvertLike", "[3,4]"},
  };
}

/// A reduction's two rows: axes as an attribute (the row of version 1), then as an input.
std::vector<lowering_case> reduce(const char* op, int axes_input_since, const char* layer) {
  return {{op, 1, "x:f32[2,3,4]", "x", "y", attr_ints("axes", {1}) + attr_i("keepdims", 0), layer, "[2,4]"},
          {op, axes_input_since, "x:f32[2,3,4] axes:i64[1]=1", "x,axes", "y", attr_i("keepdims", 0), layer, "[2,4]"}};
}

std::vector<lowering_case> reduction_cases() {
  std::vector<lowering_case> all{
      {"ArgMax", 1, "x:f32[2,3,4]", "x", "y", attr_i("axis", 1) + attr_i("keepdims", 0), "TopK,Squeeze", "[2,4]"},
      {"ArgMin", 1, "x:f32[2,3,4]", "x", "y", attr_i("axis", 2), "TopK", "[2,3,1]"},
      {"TopK", 1, "x:f32[2,3,4]", "x", "v,i", attr_i("k", 2), "TopK", "[2,3,2] [2,3,2]"},
      {"TopK", 10, "x:f32[2,3,4] k:i64[1]=2", "x,k", "v,i", "", "Squeeze,TopK", "[2,3,2] [2,3,2]"},
  };
  for (const auto& [op, since, layer] : {std::tuple{"ReduceMean", 18, "ReduceMean"}, {"ReduceMax", 18, "ReduceMax"},
                                         {"ReduceMin", 18, "ReduceMin"}, {"ReduceProd", 18, "ReduceProd"},
                                         {"ReduceSum", 13, "ReduceSum"}, {"ReduceL2", 18, "ReduceL2"},
                                         {"ReduceL1", 18, "ReduceL1"}, {"ReduceSumSquare", 18, "Multiply,ReduceSum"},
                                         {"ReduceLogSum", 18, "ReduceSum,Log"}, {"ReduceLogSumExp", 18, "Exp,ReduceSum,Log"}})
    for (auto& c : reduce(op, since, layer)) all.push_back(std::move(c));
  all.push_back({"CumSum", 11, "x:f32[2,3] axis:i64[1]=1", "x,axis", "y", attr_i("reverse", 1), "Reshape,CumSum", "[2,3]"});
  return all;
}

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

std::vector<lowering_case> recurrent_cases() {
  // X [L=5, N=2, I=3], hidden size 4, one direction: Y [L, 1, N, 4], the states [1, N, 4]. The layout moves
  // to the batch first and back; the initial states and the lengths are built from X's shape.
  const std::string into = "Transpose,ShapeOf,Gather,Gather,Concat,Broadcast,Broadcast";
  return {
      {"LSTM", 7, "x:f32[5,2,3] w:f32[1,16,3]= r:f32[1,16,4]=", "x,w,r", "y,yh,yc", attr_i("hidden_size", 4),
       into + ",Broadcast,Concat,Broadcast,LSTMSequence,Transpose,Transpose,Transpose", "[5,1,2,4] [1,2,4] [1,2,4]"},
      // B's two halves added: OpenVINO has one bias per gate.
      {"GRU", 7, "x:f32[5,2,3] w:f32[1,12,3]= r:f32[1,12,4]= b:f32[1,24]=", "x,w,r,b", "y,yh", attr_i("hidden_size", 4),
       into + ",Split,Add,GRUSequence,Transpose,Transpose", "[5,1,2,4] [1,2,4]"},
      {"RNN", 7, "x:f32[5,2,3] w:f32[1,4,3]= r:f32[1,4,4]=", "x,w,r", "y,yh", attr_i("hidden_size", 4),
       into + ",Broadcast,RNNSequence,Transpose,Transpose", "[5,1,2,4] [1,2,4]"},
  };
}

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
      {"MatMulInteger16", 1, "a:i32[3,4] b:i32[4,5]", "a,b", "y", "", "MatMul", "[3,5]", ms},
      {"Inverse", 1, "x:f32[2,3,3]", "x", "y", "", "Transpose,Add,MatMul", "[2,3,3]", ms},
      {"SampleOp", 1, "x:f32[2,3]", "x", "y", "", "", "[2,3]", ms},
      // Scores [B, V] with ids [B, L]: the scores' shape, each entry's scores meeting its own ids.
      {"NGramRepeatBlock", 1, "ids:i64[2,5] s:f32[2,10]", "ids,s", "y", attr_i("ngram_size", 2), "Reshape,ConvertLike,Reshape,ShapeOf,Slice,ReduceSum,VariadicSplit,Add", "[2,10]", ms},
      {"CDist", 1, "a:f32[3,4] b:f32[5,4]", "a,b", "y", "", "MatMul", "[3,5]", ms},
      // A [2, 3, 8] times 8 x 6 weights held in 4 bits: [2, 3, 6].
      {"MatMulBnb4", 1, "a:f32[2,3,8] b:u8[24]= absmax:f32[3]=", "a,b,absmax", "y", attr_i("K", 8) + attr_i("N", 6) + attr_i("block_size", 16) + attr_i("quant_type", 1),
       "ConvertLike,Broadcast,MatMul", "[2,3,6]", ms},
      {"MatMulFpQ4", 1, "a:f32[2,3,8] b:u8[126]= s:i64[2]=8,6", "a,b,s", "y", "", "Reshape,ConvertLike,Broadcast,MatMul", "[2,3,6]", ms},
      // Windows of 3 every 2 along axis 1 of [2, 7]: [2, 3, 3].
      {"UnfoldTensor", 1, "x:f32[2,7]", "x", "y", attr_i("dim", 1) + attr_i("size", 3) + attr_i("step", 2), "ShapeOf,VariadicSplit,ReduceSum,ReduceSum,Add,Gather,Subtract,Divide,Add,ScatterUpdate,Concat,Unsqueeze,Broadcast", "[2,3,3]", ms},
      // Rows of a [10, 8] table of 4-bit values packed in uint8 (16 a row), gathered at [2, 3] indices.
      {"GatherBlockQuantized", 1, "d:u8[10,8]= i:i64[2,3] s:f32[10,1]=", "d,i,s", "y", attr_i("block_size", 16) + attr_i("bits", 4), "ShapeOf,Unsqueeze,Concat,Broadcast,Slice,Concat,Reshape,Gather,ConvertLike",
       "[2,3,16]", ms},
      {"CropAndResize", 1, "x:f32[2,3,8,8] rois:f32[4,4]= idx:i32[4]= size:i32[2]=5,6", "x,rois,idx,size", "y", "", "ROIAlign",
       "[4,3,5,6]", ms},
      // [N, H, W, C] pooled by 2x2 windows of stride 2.
      {"NhwcMaxPool", 1, "x:u8[1,8,8,3]", "x", "y", attr_ints("kernel_shape", {2, 2}) + attr_ints("strides", {2, 2}), "Transpose,MaxPool,Transpose",
       "[1,4,4,3]", ms},
      {"MaxpoolWithMask", 1, "x:f32[2,3,8,8] m:i32[1,1,8,8]", "x,m", "y", attr_ints("kernel_shape", {2, 2}) + attr_ints("strides", {2, 2}), "ShapeOf,Broadcast,ConvertLike,Multiply,MaxPool",
       "[2,3,4,4]", ms},
  };
}

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

/// A value_info of a graph (a body's input), in protobuf text.
std::string value(const char* name, int type, const std::vector<std::int64_t>& dims) {
  std::string shape;
  for (const auto d : dims) shape += fmt::format("dim {{ dim_value: {} }} ", d);
  return fmt::format("{{ name: \"{}\" type {{ tensor_type {{ elem_type: {} shape {{ {}}} }} }} }}", name, type, shape);
}

std::vector<lowering_case> control_flow_cases() {
  constexpr int f32 = ::onnx::TensorProto::FLOAT, i64 = ::onnx::TensorProto::INT64, boolean = ::onnx::TensorProto::BOOL;
  // Both branches read x from the graph around them; inlined, each output is an IfMerge of theirs.
  const auto branches = attr_g("then_branch", R"(name: "then" node { op_type: "Relu" input: ["x"] output: ["t"] }
                                                  output { name: "t" })") +
                        attr_g("else_branch", R"(name: "else" node { op_type: "Neg" input: ["x"] output: ["e"] }
                                                  output { name: "e" })");
  // A carried value doubled three times, and a scan output: each iteration's stacked along a new axis 0.
  const auto loop_body = attr_g("body", "name: \"body\" input " + value("i", i64, {}) + " input " + value("c", boolean, {}) +
                                            " input " + value("x_in", f32, {2, 3}) + R"(
      node { op_type: "Identity" input: ["c"] output: ["c_out"] }
      node { op_type: "Add" input: ["x_in", "x_in"] output: ["x_out"] }
      node { op_type: "Relu" input: ["x_in"] output: ["s_out"] }
      output { name: "c_out" } output { name: "x_out" } output { name: "s_out" })");
  // A running sum over the 4 rows of xs, and each row's ReLU stacked along axis 0.
  const auto scan_body = attr_g("body", "name: \"body\" input " + value("s_in", f32, {3}) + " input " +
                                            value("x_in", f32, {3}) + R"(
      node { op_type: "Add" input: ["s_in", "x_in"] output: ["s_out"] }
      node { op_type: "Relu" input: ["x_in"] output: ["y_out"] }
      output { name: "s_out" } output { name: "y_out" })");
  return {
      {"If", 1, "c:bool[] x:f32[2,3]", "c", "y", branches, "ReLU,Negative,IfMerge", "[2,3]"},
      {"Loop", 1, "trips:i64[]=3 go:bool[]=1 x:f32[2,3]", "trips,go,x", "y,ys", loop_body, "Loop", "[2,3] [3,2,3]"},
      {"Scan", 9, "s:f32[3] xs:f32[4,3]", "s,xs", "sum,ys", scan_body + attr_i("num_scan_inputs", 1), "TensorIterator",
       "[3] [4,3]"},
      // Scan-8: the same body on each of 2 batch entries, the rows scanned backwards, no sequence_lens.
      {"Scan", 8, "s:f32[2,3] xs:f32[2,4,3]", ",s,xs", "sum,ys",
       scan_body + attr_i("num_scan_inputs", 1) + attr_ints("directions", {1}), "TensorIterator", "[2,3] [2,4,3]"},
  };
}

std::vector<lowering_case> attention_cases() {
  return {
      // Grouped query heads (4 over 2 key heads), the past before K and V, a 2-D mask: Y, the presents, the
      // scores.
      {"Attention", 23, "q:f32[2,4,3,5] k:f32[2,2,6,5] v:f32[2,2,6,7] m:f32[3,8] pk:f32[2,2,2,5] pv:f32[2,2,2,7]",
       "q,k,v,m,pk,pv", "y,pk2,pv2,qk", "",
       "ShapeOf,Slice,ShapeOf,Slice,Concat,Broadcast,Slice,Slice,Concat,Broadcast,Concat,Concat,Concat,ShapeOf,Slice,"
       "Concat,VariadicSplit,ShapeOf,Slice,ShapeOf,Slice,Divide,Slice,Slice,Slice,Concat,Reshape,Unsqueeze,Unsqueeze,"
       "MatMul,Slice,Slice,Concat,Reshape,Slice,ConvertLike,VariadicSplit,Slice,VariadicSplit,Broadcast,Add,SoftMax,"
       "ShapeOf,Slice,Slice,Slice,Concat,Reshape,MatMul,Slice,ShapeOf,Slice,Concat,Reshape",
       "[2,4,3,7] [2,2,8,5] [2,2,8,7] [2,4,3,8]"},
      // 3-D: the heads from the attributes; 24: one length per batch entry.
      {"Attention", 24, "q:f32[2,3,8] k:f32[2,5,4] v:f32[2,5,6] n:i64[2]=3,5", "q,k,v,,,,n", "y",
       attr_i("q_num_heads", 4) + attr_i("kv_num_heads", 2),
       "Reshape,Transpose,Reshape,Transpose,Reshape,Transpose,ShapeOf,Slice,ShapeOf,Slice,Concat,Broadcast,Slice,"
       "Slice,Concat,Broadcast,Concat,ShapeOf,Slice,Concat,VariadicSplit,ShapeOf,Slice,ShapeOf,Slice,Divide,Slice,"
       "Slice,Slice,Concat,Reshape,Unsqueeze,Unsqueeze,MatMul,Slice,Slice,Concat,Reshape,Slice,ConvertLike,"
       "VariadicSplit,Unsqueeze,Add,SoftMax,ShapeOf,Slice,Slice,Slice,Concat,Reshape,MatMul,Slice,ShapeOf,Slice,"
       "Concat,Reshape,Transpose,Reshape", "[2,3,12]"},
      // 3-D with num_heads, the caches gathered by position; the first 4 of each head's 6 rotated.
      {"RotaryEmbedding", 23, "x:f32[2,3,12] cos:f32[8,2]= sin:f32[8,2]= p:i64[2,3]=0,1,2,3,4,5", "x,cos,sin,p", "y",
       attr_i("num_heads", 2) + attr_i("rotary_embedding_dim", 4),
       "Reshape,ShapeOf,Slice,Concat,Concat,VariadicSplit,ShapeOf,Slice,Concat,VariadicSplit,Concat,Gather,Unsqueeze,"
       "ShapeOf,Slice,Slice,Concat,Broadcast,Slice,Slice,Concat,Broadcast,Concat,VariadicSplit,Multiply,Concat,ShapeOf,"
       "Reshape", "[2,3,12]"},
      // com.microsoft's: positions one per (b, s), or one offset.
      {"RotaryEmbedding", 1, "x:f32[2,3,8] p:i64[2,3]=0,1,2,3,4,5 cos:f32[8,2]= sin:f32[8,2]=", "x,p,cos,sin", "y", "",
       "ShapeOf,Slice,Multiply,Concat,Reshape,Concat,Concat,VariadicSplit,ShapeOf,Slice,Concat,VariadicSplit,Concat,"
       "Gather,Unsqueeze,ShapeOf,Slice,Slice,Concat,Broadcast,Slice,Slice,Concat,Broadcast,Concat,Multiply,ShapeOf,"
       "Reshape",
       "[2,3,8]", "com.microsoft"},
      // com.microsoft's BERT attention: Q, K, V from one MatMul; a past of 2 steps, key lengths per entry.
      {"Attention", 1, "x:f32[2,3,4] w:f32[4,12]= b:f32[12]= m:i32[2] past:f32[2,2,2,2,2]", "x,w,b,m,past", "y,present",
       attr_i("num_heads", 2),
       "MatMul,ShapeOf,Slice,VariadicSplit,Add,Split,Reshape,Transpose,Reshape,Transpose,Reshape,Transpose,"
       "VariadicSplit,Squeeze,Concat,Squeeze,Concat,Unsqueeze,Unsqueeze,Concat,MatMul,ConvertLike,ShapeOf,"
       "Slice,Slice,Concat,Reshape,ReduceSum,Unsqueeze,ShapeOf,Broadcast,Add,SoftMax,MatMul,Transpose,"
       "Reshape",
       "[2,3,4] [2,2,2,5,2]", "com.microsoft"},
      // MultiHeadAttention: separate Q, K, V with a bias, a past, key lengths; the scores out.
      {"MultiHeadAttention", 1, "q:f32[2,3,4] k:f32[2,5,4] v:f32[2,5,4] b:f32[12]= m:i32[2,7] pk:f32[2,2,2,2] pv:f32[2,2,2,2]",
       "q,k,v,b,m,,pk,pv", "y,pk2,pv2,qk", attr_i("num_heads", 2),
       "ShapeOf,Slice,Concat,VariadicSplit,Add,Add,ShapeOf,Slice,VariadicSplit,Add,Reshape,Transpose,Slice,"
       "VariadicSplit,Reshape,Transpose,Reshape,Transpose,ShapeOf,Slice,VariadicSplit,Concat,VariadicSplit,Concat,"
       "ShapeOf,Slice,ShapeOf,Slice,Concat,Broadcast,Slice,Slice,Concat,Broadcast,Concat,ShapeOf,Slice,Concat,"
       "VariadicSplit,MatMul,ConvertLike,ShapeOf,Slice,VariadicSplit,ShapeOf,Slice,VariadicSplit,Unsqueeze,Add,"
       "SoftMax,MatMul,Transpose,Reshape",
       "[2,3,4] [2,2,7,2] [2,2,7,2] [2,2,3,7]",
       "com.microsoft"},
      // And its embeddings: word, position and segment rows summed, normalised; the mask summed per entry.
      {"EmbedLayerNormalization", 1,
       "ids:i32[2,3] seg:i32[2,3] word:f32[10,4]= pos:f32[8,4]= segs:f32[2,4]= g:f32[4]= b:f32[4]= m:i32[2,3]",
       "ids,seg,word,pos,segs,g,b,m", "y,mi,sum", "",
       "ShapeOf,Slice,ShapeOf,Slice,Concat,Broadcast,Slice,Slice,Concat,Broadcast,ShapeOf,Slice,ShapeOf,Slice,Concat,"
       "Broadcast,Slice,Slice,Concat,Broadcast,ShapeOf,Slice,ShapeOf,Slice,ShapeOf,Slice,Concat,Concat,VariadicSplit,Slice,"
       "Gather,ShapeOf,Slice,Concat,VariadicSplit,ShapeOf,Broadcast,Add,Gather,Add,MVN,VariadicSplit,Multiply,"
       "VariadicSplit,Add,ReduceSum",
       "[2,3,4] [2] [2,3,4]", "com.microsoft"},
      // A cache [2, 3, 8, 4] written at each entry's index along -2 with an update [2, 3, 2, 4]: the cache's shape.
      {"TensorScatter", 24, "c:f32[2,3,8,4] u:f32[2,3,2,4] at:i64[2]=0,3", "c,u,at", "y", "", "ShapeOf,Slice,Concat,VariadicSplit,ReduceSum,ReduceSum,Add,ReduceSum,Add,Add,ShapeOf,Slice,VariadicSplit,ShapeOf,ShapeOf,Squeeze,Unsqueeze,Subtract,Broadcast,Concat,Reshape,ConvertLike,Add", "[2,3,8,4]"},
      // GroupQueryAttention: 2 query heads of 16 on 1 key head, a past of 4 before K and V, T = 7: the output
      // [2, 3, 32], the presents [2, 1, max(7, 4), 16].
      {"GroupQueryAttention", 1,
       "q:f32[2,3,32] k:f32[2,3,16] v:f32[2,3,16] pk:f32[2,1,4,16] pv:f32[2,1,4,16] sl:i32[2]=6,6 t:i32[]=7",
       "q,k,v,pk,pv,sl,t", "y,ok,ov", attr_i("num_heads", 2) + attr_i("kv_num_heads", 1), "ShapeOf,Slice,VariadicSplit,Concat,ShapeOf,Slice,Concat,VariadicSplit,Reshape,Reshape,Transpose,"
       "Reshape,Reshape,Transpose,Reshape,Reshape,Transpose,ShapeOf,Slice,ShapeOf,Slice,Concat,Broadcast,"
       "Slice,Slice,Concat,Broadcast,Concat,Concat,Concat,ShapeOf,Slice,Concat,VariadicSplit,Reshape,Convert,"
       "ShapeOf,Slice,ShapeOf,Slice,Divide,Slice,Slice,Slice,Concat,Reshape,Unsqueeze,MatMul,Slice,Slice,"
       "Concat,Reshape,Slice,ConvertLike,Reshape,VariadicSplit,Unsqueeze,Add,ShapeOf,Slice,Squeeze,Range,"
       "Unsqueeze,Slice,Squeeze,Range,Unsqueeze,Subtract,ConvertLike,Add,SoftMax,ShapeOf,Slice,Slice,Slice,"
       "Concat,Reshape,Unsqueeze,MatMul,Slice,ShapeOf,Slice,Concat,Reshape,Transpose,Reshape,ShapeOf,Slice,"
       "Maximum,Slice,Slice,Concat,ReduceSum,Broadcast,Slice,Slice,Concat,ReduceSum,Broadcast",
       "[2,3,32] [2,1,7,16] [2,1,7,16]", "com.microsoft"},
      // QAttention: com.microsoft.Attention of the dequantized input [2, 3, 8] and weights [8, 24], 2 heads.
      {"QAttention", 1, "x:u8[2,3,8] w:u8[8,24]= b:f32[24]= xs:f32[]=1 ws:f32[]=1", "x,w,b,xs,ws", "y,present",
       attr_i("num_heads", 2), "Convert,ConvertLike,Reshape,Multiply,Convert,ShapeOf,Slice,ConvertLike,Reshape,Broadcast,Multiply,"
       "ConvertLike,MatMul,ShapeOf,Slice,VariadicSplit,Add,Split,Reshape,Transpose,Reshape,Transpose,Reshape,"
       "Transpose,Unsqueeze,Unsqueeze,Concat,MatMul,SoftMax,MatMul,Transpose,Reshape", "[2,3,8] [2,2,2,3,4]", "com.microsoft"},
      // DecoderMaskedMultiHeadAttention, a token of 2 heads of 4 written into pasts of 6 rows, 3 of them used:
      // the output [2, 1, 8], the presents the pasts' shape, the scores [2, 2, 1, 3 + 1].
      {"DecoderMaskedMultiHeadAttention", 1,
       "q:f32[2,1,8] k:f32[2,1,8] v:f32[2,1,8] pk:f32[2,2,6,4] pv:f32[2,2,6,4] p:i32[]=3", "q,k,v,,,pk,pv,p", "y,ok,ov,qk",
       attr_i("num_heads", 2) + attr_i("past_present_share_buffer", 1) + attr_i("output_qk", 1), "VariadicSplit,Reshape,Transpose,Reshape,Transpose,Reshape,Transpose,ShapeOf,Slice,ShapeOf,Slice,"
       "Concat,Broadcast,Slice,Slice,Concat,Broadcast,Concat,Concat,Reshape,Convert,Add,Concat,ShapeOf,Slice,"
       "Slice,Concat,VariadicSplit,MatMul,Concat,VariadicSplit,ReduceSum,ConvertLike,Unsqueeze,Add,ShapeOf,"
       "Slice,ShapeOf,Slice,Slice,Concat,ReduceSum,Broadcast,ShapeOf,Slice,Slice,Slice,Concat,ReduceSum,"
       "Broadcast,ShapeOf,Slice,Concat,ReduceSum,Broadcast,SoftMax,MatMul,Transpose,Reshape",
       "[2,1,8] [2,2,6,4] [2,2,6,4] [2,2,1,4]", "com.microsoft"},
  };
}

std::vector<lowering_case> signal_cases() {
  return {
      // A real signal [2, 8, 1] along axis 1, one-sided: [2, 8 / 2 + 1, 2].
      {"DFT", 17, "x:f32[2,8,1]", "x", "y", attr_i("onesided", 1), "ShapeOf,Gather,Divide,Add,VariadicSplit,Concat,ScatterUpdate,ReduceSum,Broadcast", "[2,5,2]"},
      // 20: the axis an input (-3 of a complex [2, 8, 6, 2]), dft_length 10.
      {"DFT", 20, "x:f32[2,8,6,2] n:i64[]=10 a:i64[]=-3", "x,n,a", "y", "", "ShapeOf,Gather,Reshape,Convert,ScatterUpdate,Broadcast,Concat,ScatterUpdate,ReduceSum,Broadcast", "[2,10,6,2]"},
      // Frames of the window's 16 every 8 of 64: 7 frames, 16 / 2 + 1 bins.
      {"STFT", 17, "x:f32[2,64,1] step:i64[]=8 w:f32[16]=", "x,step,w", "y", "", "ShapeOf,ShapeOf,Gather,ReduceSum,Reshape,Convert,Slice,Subtract,Divide,Add,Divide,Add,Slice,Concat,ScatterUpdate,Broadcast,Concat,VariadicSplit,ReduceSum,ReduceSum,Add,ConvertLike,Multiply,Unsqueeze,Broadcast", "[2,7,9,2]"},
      {"MelWeightMatrix", 17, "n:i64[]=8 d:i64[]=64 r:i64[]=16000 lo:f32[]=0 hi:f32[]=8000", "n,d,r,lo,hi", "y", "", "Reshape,Convert,Divide,Add,Reshape,Convert,Concat,Convert,Broadcast",
       "[33,8]"},
      // Scores [3, 5, 2] and labels [3, 2]: a loss per element without reduction, a scalar with one.
      {"NegativeLogLikelihoodLoss", 12, "x:f32[3,5,2] t:i64[3,2]", "x,t", "y", attr_s("reduction", "none"), "ReduceSum,ConvertLike,Add", "[3,2]"},
      {"SoftmaxCrossEntropyLoss", 12, "x:f32[3,5] t:i64[3] w:f32[5]=", "x,t,w", "y,p", "", "LogSoftmax,ReduceSum,ConvertLike,Add,ReduceSum,Multiply,ShapeOf,ShapeOf,Squeeze,Range,ReduceSum", "[] [3,5]"},
  };
}

std::vector<lowering_case> cases() {
  std::vector<lowering_case> all;
  for (auto family : {elementwise_cases(), convolution_cases(), normalization_cases(), matmul_cases(), shape_cases(),
                      indexing_cases(), reduction_cases(), resize_cases(), recurrent_cases(), detection_cases(),
                      quantization_cases(), control_flow_cases(), microsoft_cases(), attention_cases(), signal_cases()})
    for (auto& c : family) all.push_back(std::move(c));
  return all;
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
        ADD_FAILURE() << row.domain << "." << row.op_type << "-" << row.since << " is lowered by no case of tests/onnx/lower_test.cpp";
  }
};

[[maybe_unused]] const auto* const coverage = ::testing::AddGlobalTestEnvironment(new row_coverage);

/// More cases for rows whose attributes choose between lowerings: each also lowers its row.
std::vector<lowering_case> variant_cases() {
  return {
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
      // would keep the data's [3]), so the data is broadcast first.
      {"PRelu", 7, "x:f32[3] slope:f32[2,3]=", "x,slope", "y", "", "ShapeOf,Broadcast,PReLU", "[2,3]"},
      // A slope along the last axis, as numpy aligns it (not OpenVINO's channel axis): the data's shape.
      {"PRelu", 7, "x:f32[2,3,4] slope:f32[4]=", "x,slope", "y", "", "PReLU", "[2,3,4]"},
      // Mean and InvStdDev: a value per row, the normalised axes kept as 1s.
      {"LayerNormalization", 17, "x:f32[2,3,4] scale:f32[4]=", "x,scale", "y,m,i", attr_i("axis", -1),
       "Range,MVN,ShapeOf,Slice,Reshape,Multiply,ReduceMean", "[2,3,4] [2,3,1] [2,3,1]"},
      // The bias too, over the last two axes: each shaped as the axes it scales.
      {"LayerNormalization", 17, "x:f32[2,3,4] scale:f32[12]= bias:f32[3,4]=", "x,scale,bias", "y", attr_i("axis", 1),
       "ShapeOf,ShapeOf,Squeeze,Range,MVN,ShapeOf,Slice,Reshape,Multiply,Reshape,Add", "[2,3,4]"},
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
      // stride 2, padding 1 each side, gives 5, not 6): OpenVINO's ceil_torch.
      {"MaxPool", 8, "x:f32[1,1,9,9]", "x", "y",
       attr_ints("kernel_shape", {2, 2}) + attr_ints("strides", {2, 2}) + attr_ints("pads", {1, 1, 1, 1}) +
           attr_i("ceil_mode", 1),
       "MaxPool", "[1,1,5,5]"},
      {"AveragePool", 7, "x:f32[1,1,7]", "x", "y",
       attr_ints("kernel_shape", {4}) + attr_ints("strides", {3}) + attr_ints("pads", {2, 2}) + attr_i("ceil_mode", 1),
       "AvgPool", "[1,1,3]"},
      // keepdims other than 1 drops the axes, as ONNX Runtime does (2 is not "true").
      {"ReduceMax", 1, "x:f32[1,2,6]", "x", "y", attr_ints("axes", {1}) + attr_i("keepdims", 2), "ReduceMax", "[1,6]"},
      {"ArgMax", 1, "x:f32[2,6]", "x", "y", attr_i("keepdims", -1), "TopK,Squeeze", "[6]"},
      // A float range counts in floats: 0.5 to 7.2 by 1.5 is 5 values, of the inputs' type.
      {"Range", 11, "start:f32[]=0.5 limit:f32[]=7.2 delta:f32[]=1.5", "start,limit,delta", "y", "", "Range", "[5]"},
      // Flatten of an empty input at the last axis: [0, 2], both products known (a -1 beside the 0 is not).
      {"Flatten", 1, "x:f32[1,0,5,2]", "x", "y", attr_i("axis", -1),
       "ShapeOf,VariadicSplit,ReduceProd,ReduceProd,Concat,Reshape", "[0,2]"},
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

/// The message a case's model is refused with when read (bad_file), or "" when it is read.
std::string refused_when_read(const lowering_case& c) {
  const auto bytes = model_of(c);
  try {
    (void)onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), "t.onnx");
    return "";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::bad_file) << e.what();
    return e.what();
  }
}

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


// What the cold attack on the new rows found ONNX Runtime refuses, refused when read.
TEST(lower_table, nodes_onnx_runtime_refuses_are_refused_when_read) {
  const auto says = [](const lowering_case& c, const std::string& words) {
    const auto what = refused_when_read(c);
    EXPECT_NE(what.find(words), std::string::npos) << c.op << ": " << what;
  };
  says({"HannWindow", 17, "n:i64[]=0", "n", "y", "", "", ""}, "its size is 0");
  says({"HannWindow", 17, "n:i64[1]=7", "n", "y", "", "", ""}, "its size has rank 1");
  says({"Conv", 1, "x:f32[1,3,8,8] w:f32[4,3,3,3]=", "x,w", "y", attr_ints("kernel_shape", {5, 5}), "", ""},
       "kernel_shape is not the weights' window");
  says({"Split", 18, "x:f32[2,6] s:i64[2]=2,4", "x,s", "y,z", attr_i("axis", 1) + attr_i("num_outputs", 2), "", ""},
       "it has both a split input and num_outputs");
  says({"Split", 18, "x:f32[2,6]", "x", "y,z", attr_i("axis", 1), "", ""}, "it has neither a split input nor num_outputs");
  says({"CumSum", 11, "x:f32[2,3] a:i64[1,1]=1", "x,a", "y", "", "", ""}, "its axis has rank 2");
  says({"OneHot", 11, "i:i64[2] d:i64[]=0 v:f32[2]=0,1", "i,d,v", "y", "", "", ""}, "its depth is 0");
  says({"OneHot", 11, "i:i64[2] d:i64[]=3 v:f32[3]=0,1,2", "i,d,v", "y", "", "", ""}, "its values hold 3 elements");
  says({"MatMulInteger", 10, "a:u8[3,4] b:u8[4,5] az:u8[3,1]=", "a,b,az", "y", "", "", ""}, "a_zero_point has rank 2");
}

/// The messages of the layers whose rules refuse the case's model when it is propagated ("" when none does).
std::string refusals(const lowering_case& c) {
  const auto bytes = model_of(c);
  const auto g = onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), c.op + ".onnx");
  std::string out;
  for (const auto& lost : model::propagate(g).lost) out += lost.message;
  return out;
}

// A ReverseSequence's lengths are one per batch entry: a single length does not serve a batch of 3 (a
// broadcast would have let it, at any batch).
TEST(lower_indexing, reverse_sequence_takes_one_length_per_batch_entry) {
  // The batch is axis 1 (4 entries) by default.
  const lowering_case one{"ReverseSequence", 10, "x:f32[3,4,2] lens:i64[1]=2", "x,lens", "y", "", "", ""};
  EXPECT_NE(refusals(one).find("elements"), std::string::npos) << refusals(one);
  const lowering_case four{"ReverseSequence", 10, "x:f32[3,4,2] lens:i64[4]=2,3,1,3", "x,lens", "y", "", "", ""};
  EXPECT_EQ(refusals(four), "");
}

// Softmax, LogSoftmax and Hardmax before 13 with an axis that names no dimension fail at the declared
// shapes (their split of the shape does not add up), as ONNX Runtime refuses them.
TEST(lower_normalization, an_axis_out_of_range_fails_before_13) {
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"})
    for (const auto axis : {3, -4}) {
      const lowering_case c{op, 11, "x:f32[2,3,4]", "x", "y", attr_i("axis", axis), "", ""};
      EXPECT_NE(refusals(c).find("do not add up"), std::string::npos) << op << " " << axis << ": " << refusals(c);
    }
}


// Indices ONNX Runtime refuses when it runs the node: past their axis, in [-n, n) otherwise; a tuple's j-th
// index is into the data's axis batch_dims + j.
TEST(lower_indexing, indices_past_their_axis_are_refused_as_onnx_runtime_refuses_them) {
  const auto gather_nd = [](const char* indices) {
    return refusals({"GatherND", 12, fmt::format("x:f32[2,3,4] i:i64[2,1]={}", indices), "x,i", "y",
                     attr_i("batch_dims", 1), "", ""});
  };
  EXPECT_EQ(gather_nd("2,-3"), "");
  EXPECT_NE(gather_nd("3,0").find("index 3 (element 0 of input 1) is outside axis 1 of the data, which holds 3"),
            std::string::npos);
  const auto scatter = [](const char* indices) {
    return refusals({"ScatterElements", 11, fmt::format("x:f32[2,3] i:i64[1,2]={} u:f32[1,2]=", indices), "x,i,u", "y",
                     attr_i("axis", 1), "", ""});
  };
  EXPECT_EQ(scatter("-3,2"), "");
  EXPECT_NE(scatter("0,-4").find("index -4 (element 1 of input 1) is outside axis 1, which holds 3"), std::string::npos);
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

TEST(lower_table, every_row_has_one_case_and_every_case_names_a_row) {
  std::set<row_key> rows, named;
  for (const auto& row : onnx::detail::onnx_table())
    if (row.fn != nullptr) rows.emplace(row.domain, row.op_type, row.since);
  for (const auto& c : cases()) {
    EXPECT_TRUE(named.emplace(c.domain, c.op, c.since).second) << c.domain << "." << c.op << "-" << c.since << " has two cases";
    EXPECT_TRUE(rows.contains({c.domain, c.op, c.since})) << c.domain << "." << c.op << "-" << c.since << " is no row of the table";
  }
  for (const auto& [domain, op, since] : rows) EXPECT_TRUE(named.contains({domain, op, since})) << domain << "." << op << "-" << since << " has no case";
}

TEST(lower_table, a_row_given_twice_stops_the_process_naming_it) {
  const std::vector<onnx::detail::onnx_entry> one{{"Reshape", 14, nullptr}, {"Abs", 6, nullptr}};
  const std::vector<onnx::detail::onnx_entry> again{{"Reshape", 14, nullptr}};
  const std::vector<onnx::detail::onnx_entry> other{{"Reshape", 14, nullptr, "com.microsoft"}};
  EXPECT_EQ(onnx::detail::assemble({one}).front().op_type, "Abs");  // sorted
  EXPECT_EQ(onnx::detail::assemble({one, other}).size(), 3u);      // another domain's op of the same name
  EXPECT_DEATH((void)onnx::detail::assemble({one, again}), "the ONNX table has two rows for Reshape-14");
}

// Every row is at a version of the op list: a row's since is a schema's since_version, so that the list
// decides which row each model's opset runs.
TEST(lower_table, every_row_is_at_a_version_of_the_op_list) {
  for (const auto& row : onnx::detail::onnx_table()) {
    const auto* schema = onnx::detail::schema_at(row.domain, row.op_type, row.since);
    EXPECT_TRUE(schema != nullptr && schema->since == row.since)
        << row.domain << "." << row.op_type << "-" << row.since << " is no version of src/onnx/op_list.tsv";
  }
}

/// The versions ONNX Runtime runs that have no row yet: each an open item of issue 49, so that the list
/// shrinks as rows are written (a version that gains a row must leave it, and no other may be missing).
const std::set<std::string>& not_yet_translated();

TEST(lower_table, every_version_onnx_runtime_runs_has_a_row) {
  std::set<std::string> missing;
  for (const auto& v : onnx::op_versions())
    if (v.onnx_runtime && !v.translated_from && v.not_translated.empty())
      missing.insert(fmt::format("{}{}-{}", v.domain == "ai.onnx" ? "" : std::string(v.domain) + ".", v.op_type, v.since_version));
  for (const auto& m : missing)
    EXPECT_TRUE(not_yet_translated().contains(m)) << m << " is run by ONNX Runtime and has no row of the ONNX table";
  for (const auto& m : not_yet_translated())
    EXPECT_TRUE(missing.contains(m)) << m << " is listed as not yet translated, but it has a row (or is not in the list)";
}

// A row that leaves its op to "cannot tell" says why in the layer's message.
TEST(lower_table, an_untranslated_row_says_why) {
  std::size_t seen = 0;
  for (const auto& row : onnx::detail::onnx_table()) {
    if (row.fn != nullptr) continue;
    ++seen;
    const lowering_case c{std::string(row.op_type), row.since, "x:f32[2]", "x", "y", "", "", "", std::string(row.domain)};
    const auto bytes = model_of(c);
    const auto g = onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), c.op + ".onnx");
    const auto report = model::check(g);
    ASSERT_EQ(report.layers.size(), 1u) << c.op;
    EXPECT_NE(report.layers[0].message.find(std::string(row.why)), std::string::npos) << report.layers[0].message;
  }
  EXPECT_GT(seen, 0u);
}

const std::set<std::string>& not_yet_translated() {
  static const std::set<std::string> versions = {
      "com.microsoft.AttnLSTM-1",
      "com.microsoft.ConvTransposeWithDynamicPads-1",
      "com.microsoft.DynamicQuantizeLSTM-1",
      "com.microsoft.MoE-1",
      "com.microsoft.QEmbedLayerNormalization-1",
      "com.microsoft.QMoE-1",
      "com.microsoft.SparseAttention-1",
      "com.microsoft.WordConvEmbedding-1",
  };
  return versions;
}

}  // namespace
}  // namespace reshape1::test
