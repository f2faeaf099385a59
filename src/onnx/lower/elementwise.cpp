// ONNX's element-wise nodes: one op when only the names differ (Relu and ReLU, Neg and Negative), a small
// fixed graph when the IR has no such op (Reciprocal, Mean) or takes as inputs what ONNX gives as
// attributes (LeakyRelu's alpha, Clip-11's bounds).
#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

template <const char* Type, int Opset = 1>
void unary(node_context& c) {
  c.output(0, c.add(Type, Opset, {c.need(0)}));
}
template <const char* Type>
void binary(node_context& c) {
  c.output(0, c.add(Type, 1, {c.need(0), c.need(1)}, {{"auto_broadcast", "numpy"}}));
}
/// Max, Min, Sum, Mean: a chain of the binary op over every input.
template <const char* Type>
void variadic(node_context& c) {
  auto acc = c.need(0);
  for (std::size_t k = 1; k < c.inputs(); ++k) acc = c.add(Type, 1, {acc, c.need(k)}, {{"auto_broadcast", "numpy"}});
  c.output(0, acc);
}
void mean(node_context& c) {
  auto acc = c.need(0);
  for (std::size_t k = 1; k < c.inputs(); ++k) acc = c.add("Add", 1, {acc, c.need(k)}, {{"auto_broadcast", "numpy"}});
  if (c.inputs() > 1) acc = c.add("Divide", 1, {acc, c.f32({static_cast<float>(c.inputs())}, true)});
  c.output(0, acc);
}

constexpr char Abs[] = "Abs", Ceiling[] = "Ceiling", Cos[] = "Cos", Erf[] = "Erf", Exp[] = "Exp", Floor[] = "Floor",
               Log[] = "Log", Negative[] = "Negative", LogicalNot[] = "LogicalNot", ReLU[] = "ReLU",
               Sigmoid[] = "Sigmoid", Sign[] = "Sign", Sin[] = "Sin", SoftPlus[] = "SoftPlus", Sqrt[] = "Sqrt",
               Tanh[] = "Tanh", HSwish[] = "HSwish", Add[] = "Add", Subtract[] = "Subtract", Multiply[] = "Multiply",
               Power[] = "Power", Maximum[] = "Maximum", Minimum[] = "Minimum", Equal[] = "Equal",
               Greater[] = "Greater", Less[] = "Less", GreaterEqual[] = "GreaterEqual", LessEqual[] = "LessEqual",
               LogicalAnd[] = "LogicalAnd", LogicalOr[] = "LogicalOr", LogicalXor[] = "LogicalXor",
               Atan[] = "Atan", Tan[] = "Tan", Asin[] = "Asin", Acos[] = "Acos", Sinh[] = "Sinh", Cosh[] = "Cosh";

void identity(node_context& c) { c.output(0, c.need(0)); }
void dropout(node_context& c) {
  if (c.has_output(1)) return c.not_covered("Dropout's mask output is not covered");
  c.output(0, c.need(0));
}
void reciprocal(node_context& c) { c.output(0, c.add("Divide", 1, {c.f32({1.0F}, true), c.need(0)})); }
void round_(node_context& c) { c.output(0, c.add("Round", 5, {c.need(0)}, {{"mode", "half_to_even"}})); }
void elu(node_context& c) { c.output(0, c.add("Elu", 1, {c.need(0)}, {{"alpha", real(c.f("alpha", 1.0F))}})); }
void leaky_relu(node_context& c) { c.output(0, c.add("PReLU", 1, {c.need(0), c.f32({c.f("alpha", 0.01F)}, true)})); }
/// PRelu: OpenVINO's PReLU keeps the data's shape, the slope broadcast to it; ONNX Runtime broadcasts the two
/// both ways, so a slope of higher rank than the data (or of unknown rank) first broadcasts the data to the
/// shape they make together.
void prelu(node_context& c) {
  auto x = c.need(0);
  const auto slope = c.need(1);
  const auto data_rank = c.rank(0), slope_rank = c.rank(1);
  if (!data_rank || !slope_rank || *slope_rank > *data_rank)
    x = c.add("Broadcast", 3, {x, c.shape_of(slope)}, {{"mode", "bidirectional"}});
  c.output(0, c.add("PReLU", 1, {x, slope}));
}
void hard_sigmoid(node_context& c) {
  c.output(0, c.add("HardSigmoid", 1, {c.need(0), c.f32({c.f("alpha", 0.2F)}, true), c.f32({c.f("beta", 0.5F)}, true)}));
}
/// Div: integers divide toward zero, as ONNX specifies and ONNX Runtime computes (OpenVINO's frontend makes
/// a Divide that rounds them down, Python's //; the two differ when the signs differ, docs/onnx.md).
void div(node_context& c) {
  c.output(0, c.add("Divide", 1, {c.need(0), c.need(1)}, {{"auto_broadcast", "numpy"}, {"m_pythondiv", "false"}}));
}
void cast(node_context& c) {
  const auto to = element_of(static_cast<int>(c.i("to", 0)));
  if (!to) return c.not_covered(fmt::format("Cast to ONNX data type {} is not covered", c.i("to", 0)));
  c.output(0, c.add("Convert", 1, {c.need(0)}, {{"destination_type", std::string(name(*to))}}));
}
void mod(node_context& c) {
  c.output(0, c.add(c.i("fmod", 0) != 0 ? "Mod" : "FloorMod", 1, {c.need(0), c.need(1)}, {{"auto_broadcast", "numpy"}}));
}
void where(node_context& c) {
  c.output(0, c.add("Select", 1, {c.need(0), c.need(1), c.need(2)}, {{"auto_broadcast", "numpy"}}));
}
void clip6(node_context& c) {
  c.output(0, c.add("Clamp", 1, {c.need(0)}, {{"min", real(c.f("min", -3.4028234663852886e38F))},
                                              {"max", real(c.f("max", 3.4028234663852886e38F))}}));
}
// Clip-11: min and max are optional inputs (a Maximum and a Minimum, which keep the data's shape).
void clip11(node_context& c) {
  auto x = c.need(0);
  if (const auto lo = c.input(1)) x = c.add("Maximum", 1, {x, *lo}, {{"auto_broadcast", "numpy"}});
  if (const auto hi = c.input(2)) x = c.add("Minimum", 1, {x, *hi}, {{"auto_broadcast", "numpy"}});
  c.output(0, x);
}

}  // namespace

std::span<const onnx_entry> elementwise_rows() {
  static const std::vector<onnx_entry> rows = {
      {"Abs", 6, unary<Abs>}, {"Acos", 7, unary<Acos>}, {"Asin", 7, unary<Asin>}, {"Atan", 7, unary<Atan>},
      {"Ceil", 6, unary<Ceiling>}, {"Cos", 7, unary<Cos>}, {"Cosh", 9, unary<Cosh>}, {"Erf", 9, unary<Erf>},
      {"Exp", 6, unary<Exp>}, {"Floor", 6, unary<Floor>}, {"Log", 6, unary<Log>}, {"Neg", 6, unary<Negative>},
      {"Not", 1, unary<LogicalNot>}, {"Relu", 6, unary<ReLU>}, {"Sigmoid", 6, unary<Sigmoid>},
      {"Sign", 9, unary<Sign>}, {"Sin", 7, unary<Sin>}, {"Sinh", 9, unary<Sinh>}, {"Softplus", 1, unary<SoftPlus, 4>},
      {"Sqrt", 6, unary<Sqrt>}, {"Tan", 7, unary<Tan>}, {"Tanh", 6, unary<Tanh>}, {"HardSwish", 14, unary<HSwish, 4>},
      {"Round", 11, round_}, {"Reciprocal", 6, reciprocal}, {"Elu", 6, elu}, {"LeakyRelu", 6, leaky_relu},
      {"PRelu", 7, prelu}, {"HardSigmoid", 6, hard_sigmoid}, {"Identity", 1, identity}, {"Dropout", 7, dropout},
      {"Cast", 6, cast}, {"Clip", 6, clip6}, {"Clip", 11, clip11},
      {"Add", 7, binary<Add>}, {"Sub", 7, binary<Subtract>}, {"Mul", 7, binary<Multiply>},
      {"Div", 7, div}, {"Pow", 7, binary<Power>}, {"Equal", 7, binary<Equal>},
      {"Greater", 7, binary<Greater>}, {"Less", 7, binary<Less>}, {"GreaterOrEqual", 12, binary<GreaterEqual>},
      {"LessOrEqual", 12, binary<LessEqual>}, {"And", 7, binary<LogicalAnd>}, {"Or", 7, binary<LogicalOr>},
      {"Xor", 7, binary<LogicalXor>}, {"Mod", 10, mod}, {"Where", 9, where},
      {"Max", 8, variadic<Maximum>}, {"Min", 8, variadic<Minimum>}, {"Sum", 8, variadic<Add>}, {"Mean", 8, mean},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
