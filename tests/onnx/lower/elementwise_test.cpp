// The elementwise rows (unary, binary and variadic ops) of src/onnx/lower/elementwise.cpp: one case a row
// (rows_test.cpp runs them as onnx/lower_rows).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lowering_case.hpp"

namespace reshape1::test {

namespace {

/// A node of one input of [2,3,4] that lowers to one layer of that shape.
lowering_case unary(const char* op, int since, const char* layers, std::string attributes = {}) {
  return {op, since, "x:f32[2,3,4]", "x", "y", std::move(attributes), layers, "[2,3,4]"};
}
/// A node of two inputs broadcast as numpy does: [2,1,4] and [3,1] give [2,3,4].
lowering_case binary(const char* op, int since, const char* layers, const char* type = "f32") {
  return {op, since, fmt::format("a:{0}[2,1,4] b:{0}[3,1]", type), "a,b", "y", "", layers, "[2,3,4]"};
}

}  // namespace

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
      // The bits read as int32: a Convert gives the type, an Erf drops its values (numbers converted).
      unary("BitCast", 26, "Convert,Erf", attr_i("to", ::onnx::TensorProto::INT32)),
      unary("Clip", 6, "Clamp", attr_f("min", 0.0F) + attr_f("max", 6.0F)),
      {"Clip", 11, "x:f32[2,3,4] lo:f32[]=0 hi:f32[]=6", "x,lo,hi", "y", "", "Maximum,Minimum", "[2,3,4]"},
      binary("Add", 7, "Add"), binary("Sub", 7, "Subtract"), binary("Mul", 7, "Multiply"),
      binary("Div", 7, "Divide"), binary("Pow", 7, "Power"), binary("Equal", 7, "Equal", "i64"),
      binary("Greater", 7, "Greater"), binary("Less", 7, "Less"), binary("GreaterOrEqual", 12, "GreaterEqual"),
      binary("LessOrEqual", 12, "LessEqual"), binary("And", 7, "LogicalAnd", "bool"),
      binary("Or", 7, "LogicalOr", "bool"), binary("Xor", 7, "LogicalXor", "bool"), binary("Mod", 10, "FloorMod", "i64"),
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
      // Version 1 is experimental (in no ONNX list since 1.5), but ONNX Runtime runs it up to opset 9.
      unary("ThresholdedRelu", 1, "ConvertLike,Greater,ConvertLike,Select"),
      unary("ThresholdedRelu", 10, "ConvertLike,Greater,ConvertLike,Select"),
      // ONNX's experimental ops that ONNX Runtime runs at version 1 (alpha · x + beta, scale · x,
      // alpha · tanh(beta · x), alpha · softplus(beta · x)), and ImageScaler's scale and bias a channel.
      unary("Affine", 1, "ConvertLike,Multiply,ConvertLike,Add", attr_f("alpha", 2.0F) + attr_f("beta", 1.0F)),
      unary("Scale", 1, "ConvertLike,Multiply", attr_f("scale", 2.0F)),
      unary("ScaledTanh", 1, "ConvertLike,Multiply,Tanh,ConvertLike,Multiply", attr_f("alpha", 2.0F) + attr_f("beta", 0.5F)),
      unary("ParametricSoftplus", 1, "ConvertLike,Multiply,SoftPlus,ConvertLike,Multiply",
            attr_f("alpha", 2.0F) + attr_f("beta", 0.5F)),
      {"ImageScaler", 1, "x:f32[1,3,4,5]", "x", "y", attr_floats("bias", {1.0F, 2.0F, 3.0F}) + attr_f("scale", 2.0F),
       "Reshape,ConvertLike,ShapeOf,Slice,VariadicSplit,ConvertLike,Multiply,Add", "[1,3,4,5]"},
      unary("Shrink", 9, "ConvertLike,Greater,ConvertLike,Subtract,ConvertLike,Select,ConvertLike,Less,ConvertLike,Add,Select"),
      unary("IsNaN", 9, "NotEqual"), unary("IsInf", 10, "ConvertLike,Equal,ConvertLike,Equal,LogicalOr"),
      {"CastLike", 15, "x:f32[2,3] t:i64[1]", "x,t", "y", "", "ConvertLike", "[2,3]"},
      binary("BitwiseAnd", 18, "BitwiseAnd", "i32"), binary("BitwiseOr", 18, "BitwiseOr", "i32"),
      binary("BitwiseXor", 18, "BitwiseXor", "i32"),
      {"BitwiseNot", 18, "x:i32[2,3]", "x", "y", "", "BitwiseNot", "[2,3]"},
      {"BitShift", 11, "a:u8[2,1,4] b:u8[3,1]", "a,b", "y", attr_s("direction", "LEFT"), "BitwiseLeftShift", "[2,3,4]"},
  };
}

namespace {

// What ONNX Runtime refuses of Clip's bounds and Dropout's ratio (when it loads the model, or when it runs).
TEST(lower_elementwise, clip_and_dropout_refuse_what_onnx_runtime_refuses) {
  expect_refused_with({"Clip", 11, "x:f32[2,3] lo:f32[1,1]=0", "x,lo", "y", "", "", ""}, "its min (input 1) has dims [1,1]");
  expect_refused_with({"Clip", 11, "x:f32[1] hi:f32[2]=0,1", "x,,hi", "y", "", "", ""}, "its max (input 2) has dims [2]");
  expect_refused_with({"Clip", 11, "x:f32[2] lo:f32[1,1]", "x,lo", "y", "", "", ""}, "its min (input 1) has rank 2");
  expect_refused_with({"Dropout", 12, "x:f32[2,3] r:f32[1]=0.5", "x,r", "y", "", "", ""}, "its ratio (input 1) has rank 1");
  expect_refused_with({"Dropout", 12, "x:f32[2,3] r:f32[]=1", "x,r", "y", "", "", ""}, "its ratio is 1");
}

// ONNX: Mod of floats takes fmod 1 (the declared type tells); of integers either.
TEST(lower_elementwise, mod_of_floats_needs_fmod) {
  expect_refused_with({"Mod", 10, "a:f32[2] b:f32[2]", "a,b", "y", "", "", ""}, "fmod is 0 and its inputs are f32");
  EXPECT_EQ(refused_when_read({"Mod", 10, "a:f32[2] b:f32[2]", "a,b", "y", attr_i("fmod", 1), "", ""}), "");
  EXPECT_EQ(refused_when_read({"Mod", 10, "a:i64[2] b:i64[2]", "a,b", "y", "", "", ""}), "");
}

// ImageScaler takes [N, C, H, W]: of a declared rank 5 it is not covered (ONNX Runtime returns the first four
// axes), of a computed one (an Identity's output, whose rank no declaration gives) it is refused, not given the
// shape of a broadcast ([1, 3, 3, 1, 1] and the bias [1, 3, 1, 1] would broadcast).
TEST(lower_elementwise, image_scaler_takes_four_axes) {
  const lowering_case five{"ImageScaler", 1, "x:f32[1,3,3,1,1]", "x", "y", attr_floats("bias", {1.0F, 2.0F, 3.0F}), "", "",
                           "ai.onnx", 9};
  EXPECT_NE(not_covered_why(five).find("an ImageScaler of rank 5"), std::string::npos);
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(model_of(five)));
  auto* g = m.mutable_graph();
  g->mutable_node(0)->set_input(0, "xi");
  auto* identity = g->add_node();
  identity->set_op_type("Identity");
  identity->add_input("x");
  identity->add_output("xi");
  for (int k = g->node_size() - 1; k > 0; --k) g->mutable_node()->SwapElements(k, k - 1);
  const auto bytes = m.SerializeAsString();
  const auto read = onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), "t.onnx");
  EXPECT_FALSE(model::propagate(read).lost.empty());
}

}  // namespace

}  // namespace reshape1::test
