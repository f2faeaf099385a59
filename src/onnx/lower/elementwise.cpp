// ONNX's element-wise nodes: one op when only the names differ (Relu and ReLU, Neg and Negative), a small
// fixed graph when the IR has no such op (Reciprocal, Mean) or takes as inputs what ONNX gives as
// attributes (LeakyRelu's alpha, Clip-11's bounds).
#include <algorithm>
#include <limits>
#include <optional>

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
/// Max, Min, Sum, Mean: a chain of the binary op over every input, broadcast as NumPy does from opset 8;
/// before it (version 6) the inputs are of one shape.
std::string variadic_broadcast(const node_context& c) { return c.version() >= 8 ? "numpy" : "none"; }
template <const char* Type>
void variadic(node_context& c) {
  auto acc = c.need(0);
  for (std::size_t k = 1; k < c.inputs(); ++k) acc = c.add(Type, 1, {acc, c.need(k)}, {{"auto_broadcast", variadic_broadcast(c)}});
  c.output(0, acc);
}
void mean(node_context& c) {
  auto acc = c.need(0);
  for (std::size_t k = 1; k < c.inputs(); ++k) acc = c.add("Add", 1, {acc, c.need(k)}, {{"auto_broadcast", variadic_broadcast(c)}});
  if (c.inputs() > 1) acc = c.add("Divide", 1, {acc, like(c, static_cast<float>(c.inputs()), acc)});
  c.output(0, acc);
}

constexpr char Abs[] = "Abs", Ceiling[] = "Ceiling", Cos[] = "Cos", Erf[] = "Erf", Exp[] = "Exp", Floor[] = "Floor",
               Log[] = "Log", Negative[] = "Negative", LogicalNot[] = "LogicalNot", ReLU[] = "ReLU",
               Sign[] = "Sign", Sin[] = "Sin", SoftPlus[] = "SoftPlus", Sqrt[] = "Sqrt",
               Tanh[] = "Tanh", HSwish[] = "HSwish", Subtract[] = "Subtract",
               Power[] = "Power", Maximum[] = "Maximum", Minimum[] = "Minimum", Equal[] = "Equal",
               Greater[] = "Greater", Less[] = "Less", GreaterEqual[] = "GreaterEqual", LessEqual[] = "LessEqual",
               LogicalAnd[] = "LogicalAnd", LogicalOr[] = "LogicalOr", LogicalXor[] = "LogicalXor",
               Atan[] = "Atan", Tan[] = "Tan", Asin[] = "Asin", Acos[] = "Acos", Sinh[] = "Sinh", Cosh[] = "Cosh";

/// Identity: its input, a sequence or an optional passed on as the lowering follows it (Identity takes them from 14
/// and 16).
void identity(node_context& c) {
  if (const auto* v = c.input_value(0); v != nullptr && v->held != nullptr) return c.output_value(0, *v);
  c.output(0, c.need(0));
}
/// Dropout: in inference (every version up to 10; from 12, training_mode left out or a constant false) the
/// output is the input and the mask is all ones (ONNX's definition), of the input's shape: true from 10 on,
/// before that of the input's type. In training mode (or where training_mode is computed) both are of the
/// input's shape with random values.
void dropout(node_context& c) {
  const auto x = c.need(0);
  // ONNX's shape inference refuses a ratio or training_mode that is not a scalar (ONNX Runtime, when it loads
  // the model): a Const of rank 0 or unknown is the only one reshape1 reads here.
  for (const std::size_t port : {std::size_t{1}, std::size_t{2}})
    if (c.version() >= 12 && c.rank(port) && *c.rank(port) != 0)
      c.bad(fmt::format("its {} (input {}) has rank {}", port == 1 ? "ratio" : "training_mode", port, *c.rank(port)),
            "Dropout's ratio and training_mode are scalars");
  std::optional<bool> training = false;
  if (c.version() >= 12 && c.input(2)) {
    const auto mode = c.constant_ints(2);
    training = mode && mode->size() == 1 ? std::optional<bool>((*mode)[0] != 0) : std::nullopt;
  }
  // ONNX Runtime checks a ratio input in either mode when it runs.
  if (const auto ratio = c.version() >= 12 ? c.constant_reals(1) : std::nullopt;
      ratio && ratio->size() == 1 && !((*ratio)[0] >= 0.0 && (*ratio)[0] < 1.0))
    c.bad(fmt::format("its ratio is {}", (*ratio)[0]), "Dropout's ratio is at least 0 and below 1 (ONNX Runtime refuses another when it runs)");
  if (training.value_or(true)) {
    const auto shape = c.shape_of(x);
    c.output(0, c.add("Multiply", 1, {x, random_of_shape(c, shape, std::nullopt, x)}, numpy));
    if (c.has_output(1)) c.output(1, random_of_shape(c, shape, ::onnx::TensorProto::BOOL, std::nullopt));
    return;
  }
  c.output(0, x);
  if (!c.has_output(1)) return;
  const auto one = c.version() >= 10 ? c.boolean(true) : like(c, 1.0F, x);
  c.output(1, c.add("Broadcast", 3, {one, c.shape_of(x)}, {{"mode", "numpy"}}));
}
void reciprocal(node_context& c) { c.output(0, c.add("Divide", 1, {c.f32({1.0F}, true), c.need(0)})); }
void round_(node_context& c) { c.output(0, c.add("Round", 5, {c.need(0)}, {{"mode", "half_to_even"}})); }
void elu(node_context& c) { c.output(0, c.add("Elu", 1, {c.need(0)}, {{"alpha", real(c.f("alpha", 1.0F))}})); }
void leaky_relu(node_context& c) { c.output(0, c.add("PReLU", 1, {c.need(0), c.f32({c.f("alpha", 0.01F)}, true)})); }
/// PRelu: OpenVINO's PReLU keeps the data's shape, the slope broadcast to it; ONNX Runtime broadcasts the two
/// both ways (ONNX's spec asks a slope that broadcasts to the data; reshape1 follows the engine, which runs the
/// others: docs/onnx.md), so the data is first broadcast to the shape the two make together unless the slope
/// cannot grow it. A 1-D slope lines up with the last axis, as ONNX broadcasts, not with the channels.
void prelu(node_context& c) {
  auto x = c.need(0);
  const auto slope = c.need(1);
  const auto data_rank = c.rank(0), slope_rank = c.rank(1);
  // A slope dimension above the data's 1 grows the output too ([1] and [3] give [3] in ONNX Runtime); only a
  // constant slope of ones and of no higher rank is known not to.
  const auto dims = c.constant_dims(1);
  const bool ones = dims && std::all_of(dims->begin(), dims->end(), [](std::int64_t d) { return d == 1; });
  if (!data_rank || !slope_rank || *slope_rank > *data_rank || !ones)
    x = c.add("Broadcast", 3, {x, dims ? c.i64(*dims) : c.shape_of(slope)}, {{"mode", "bidirectional"}});
  // OpenVINO's PReLU lays a 1-D slope as long as the data's dimension 1 along the channels; ONNX's lines up
  // with the last axis, as every broadcast does (the two differ where the channels and the last axis are as
  // long): the flag keeps NumPy's alignment, for the shape rule and for the analyses that place the slope.
  c.output(0, c.add("PReLU", 1, {x, slope}, {{"onnx_numpy_slope", "true"}}));
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
  // ONNX Runtime refuses saturate 0 (not its default, 1) beside a target that is not a float 8 type, where
  // ONNX says it is ignored.
  if (const auto to = c.i("to", 0); c.i("saturate", 1) == 0 && !(to >= 17 && to <= 20))
    c.bad(fmt::format("saturate is 0 for a cast to ONNX data type {}", to),
          "saturate is for float 8 targets only (ONNX Runtime refuses 0 for another)");
  // FLOAT4E2M1 (23) and FLOAT8E8M0 (24) are targets of Cast from the versions that brought them; before, the
  // schema does not take them, and neither does ONNX Runtime (it finds no kernel). From them on, reshape1
  // shapes the cast as ONNX says, though ONNX Runtime 1.30 has no kernel for either target.
  if (const auto code = c.i("to", 0); (code == 23 || code == 24) && c.version() < code)
    c.bad(fmt::format("to is ONNX data type {}, which Cast takes from version {} on", code, code),
          "ONNX Runtime refuses it too: import a newer opset, or cast to another type");
  // ONNX's data types are numbered 1 to 26 (0 is UNDEFINED); ONNX Runtime refuses another `to` as it loads the
  // model ("does not specify a valid type"), and fails on 0 when it runs.
  if (const auto code = c.i("to", 0); code < 1 || code > 26)
    c.bad(fmt::format("to is {}, which names no ONNX data type", code), "ONNX Runtime refuses it too: give the type to cast to");
  const auto to = element_of(static_cast<int>(c.i("to", 0)));
  if (!to) return c.not_covered(fmt::format("Cast to ONNX data type {} is not covered", c.i("to", 0)));
  c.output(0, c.add("Convert", 1, {c.need(0)}, {{"destination_type", std::string(name(*to))}}));
}
/// BitCast (26): x's bits read as `to`, a type of the same width (ONNX's inference refuses another, and a string
/// either way): x's shape. No layer of the IR reinterprets bits, so a Convert gives the type and its values,
/// numbers converted, are dropped.
void bitcast(node_context& c) {
  const auto code = c.i("to");
  if (!code) c.bad("it has no attribute to", "BitCast's to names the type to read the bits as");
  if (*code == ::onnx::TensorProto::UNDEFINED || *code == ::onnx::TensorProto::STRING)
    c.bad(fmt::format("to is ONNX data type {} ({})", *code, *code == 0 ? "undefined" : "string"),
          "BitCast reads bits as a numeric type");
  const auto to = element_of(static_cast<int>(*code));
  if (!to) return c.not_covered(fmt::format("BitCast to ONNX data type {} is not covered", *code));
  if (const auto from = c.declared_type(0); from && *from == element_type::string)
    c.bad("its input is string", "BitCast reads the bits of a numeric type");
  else if (from && bit_width(*from) != bit_width(*to))
    c.bad(fmt::format("its input is {} ({} bits) and to is {} ({} bits)", name(*from), bit_width(*from), name(*to),
                      bit_width(*to)),
          "BitCast keeps the bits: to must be a type of the input's width");
  c.output(0, values_dropped(c, c.add("Convert", 1, {c.need(0)}, {{"destination_type", std::string(name(*to))}})));
}
void mod(node_context& c) {
  // ONNX: fmod must be 1 where the inputs are floats (ONNX Runtime refuses 0 when it runs).
  if (const auto t = c.declared_type(0); c.i("fmod", 0) == 0 && t && is_arithmetic_float(*t))
    c.bad(fmt::format("fmod is 0 and its inputs are {}", name(*t)), "Mod of floats needs fmod 1");
  c.output(0, c.add(c.i("fmod", 0) != 0 ? "Mod" : "FloorMod", 1, {c.need(0), c.need(1)}, {{"auto_broadcast", "numpy"}}));
}
void where(node_context& c) {
  c.output(0, c.add("Select", 1, {c.need(0), c.need(1), c.need(2)}, {{"auto_broadcast", "numpy"}}));
}
void clip6(node_context& c) {
  c.output(0, c.add("Clamp", 1, {c.need(0)}, {{"min", real(c.f("min", -3.4028234663852886e38F))},
                                              {"max", real(c.f("max", 3.4028234663852886e38F))}}));
}
/// Clip-11's bound at `port` as a scalar: ONNX Runtime takes a scalar or [1] (and refuses anything else when
/// it runs), so a [1] bound does not broadcast the data to rank 1. A Const is checked here; a bound computed
/// in the graph goes through a Reshape to a scalar, which refuses more than one element.
source clip_bound(node_context& c, std::size_t port) {
  const auto bound = c.need(port);
  const auto name = port == 1 ? "min" : "max";
  if (const auto dims = c.constant_dims(port)) {
    if (dims->empty()) return bound;
    if (*dims == std::vector<std::int64_t>{1}) {
      if (const auto s = c.constant_as(port, {})) return *s;
    } else {
      c.bad(fmt::format("its {} (input {}) has dims [{}]", name, port, fmt::join(*dims, ",")), "Clip's min and max are scalars (or [1])");
    }
  }
  const auto r = c.rank(port);
  if (r && *r == 0) return bound;
  if (r && *r > 1) c.bad(fmt::format("its {} (input {}) has rank {}", name, port, *r), "Clip's min and max are scalars (or [1])");
  return c.add("Reshape", 1, {bound, c.i64({}, std::vector<std::int64_t>{0})}, {{"special_zero", "false"}});
}
// Clip-11: min and max are optional inputs (a Maximum and a Minimum, which keep the data's shape).
void clip11(node_context& c) {
  auto x = c.need(0);
  if (c.input(1)) x = c.add("Maximum", 1, {x, clip_bound(c, 1)}, {{"auto_broadcast", "numpy"}});
  if (c.input(2)) x = c.add("Minimum", 1, {x, clip_bound(c, 2)}, {{"auto_broadcast", "numpy"}});
  c.output(0, x);
}

// Gelu-20: OpenVINO's Gelu-7 in the mode `approximate` names ("none" is the exact, erf form).
void gelu(node_context& c) {
  const auto mode = c.s("approximate", "none");
  if (mode != "none" && mode != "tanh") c.bad(fmt::format("approximate is '{}'", mode), "Gelu's approximate is none or tanh");
  c.output(0, c.add("Gelu", 7, {c.need(0)}, {{"approximation_mode", mode == "tanh" ? "tanh" : "erf"}}));
}
// Celu: alpha · elu(x / alpha) with elu's alpha 1 (ONNX defines it so); alpha 0 would divide by zero, and ONNX
// Runtime refuses it.
void celu(node_context& c) {
  const float alpha = c.f("alpha", 1.0F);
  if (alpha == 0.0F) c.bad("alpha is 0", "Celu divides by alpha");
  const auto x = c.need(0);
  const auto inner = c.add("Elu", 1, {c.add("Divide", 1, {x, like(c, alpha, x)})}, {{"alpha", "1"}});
  c.output(0, c.add("Multiply", 1, {inner, like(c, alpha, x)}));
}
void selu(node_context& c) {
  const auto x = c.need(0);
  c.output(0, c.add("Selu", 1, {x, like(c, c.f("alpha", 1.67326319217681884765625F), x),
                                like(c, c.f("gamma", 1.05070102214813232421875F), x)}));
}
// ThresholdedRelu: x where x > alpha, else 0.
void thresholded_relu(node_context& c) {
  const auto x = c.need(0);
  const auto keep = c.add("Greater", 1, {x, like(c, c.f("alpha", 1.0F), x)}, {{"auto_broadcast", "numpy"}});
  c.output(0, c.add("Select", 1, {keep, x, like(c, 0.0F, x)}, {{"auto_broadcast", "numpy"}}));
}
// The experimental ops ONNX dropped at opset 10 and ONNX Runtime still runs at version 1 (its kernels for
// them; from 10 their schemas are deprecated and refused): elementwise on float tensors.
// Affine: alpha · x + beta. Scale: scale · x.
void experimental_affine(node_context& c) {
  const auto x = c.need(0);
  const auto scaled = c.add("Multiply", 1, {x, like(c, c.f("alpha", 1.0F), x)}, numpy);
  c.output(0, c.add("Add", 1, {scaled, like(c, c.f("beta", 0.0F), x)}, numpy));
}
void experimental_scale(node_context& c) {
  const auto x = c.need(0);
  c.output(0, c.add("Multiply", 1, {x, like(c, c.f("scale", 1.0F), x)}, numpy));
}
/// Attribute `name`, which ONNX Runtime's kernel needs although the schema gives it no default.
float required_float(const node_context& c, std::string_view name) {
  const auto* a = c.attribute(name);
  if (a == nullptr) c.bad(fmt::format("it has no attribute {}", name), fmt::format("ONNX Runtime's {} needs {}", c.node().op_type(), name));
  return c.f(name, 0.0F);
}
// ScaledTanh: alpha · tanh(beta · x). ParametricSoftplus: alpha · ln(exp(beta · x) + 1).
template <const char* Type, int Opset>
void scaled_activation(node_context& c) {
  const auto alpha = required_float(c, "alpha"), beta = required_float(c, "beta");
  const auto x = c.need(0);
  const auto inner = c.add(Type, Opset, {c.add("Multiply", 1, {x, like(c, beta, x)}, numpy)});
  c.output(0, c.add("Multiply", 1, {inner, like(c, alpha, x)}, numpy));
}
// ImageScaler: scale · x + bias[c] on [N, C, H, W], one bias a channel. ONNX Runtime needs the bias list
// (it reads one value a channel: an empty list is refused here), takes an input of rank 4 at least and gives
// [N, C, H, W] of one of higher rank, dropping its other axes: that is not covered where the rank is declared,
// and refused where it is not.
void image_scaler(node_context& c) {
  const auto bias = c.floats("bias");
  if (!bias) c.bad("it has no attribute bias", "ONNX Runtime's ImageScaler needs bias, one value a channel");
  if (bias->empty()) c.bad("its bias is empty", "one bias value a channel");
  const auto r = c.rank(0);
  if (r && *r < 4) c.bad(fmt::format("its input has rank {}", *r), "ImageScaler takes [N, C, H, W]");
  if (r && *r > 4) return c.not_covered(fmt::format("an ImageScaler of rank {}: ONNX Runtime returns its first four axes", *r));
  const auto x = c.need(0);
  // Of rank 4 where no rank is declared (the rank a split of the shape as [4] takes), not given a shape of another.
  if (!r) static_cast<void>(exactly(c, c.shape_of(x), 0, c.i64({4})));
  const auto values = c.add("ConvertLike", 1, {c.add("Reshape", 1, {c.f32(*bias), c.i64({1, -1, 1, 1})}, {{"special_zero", "false"}}), x});
  // The channels must have the bias' count: ONNX Runtime broadcasts no 1 (exactly, one way).
  const auto channels = shape_slice(c, c.shape_of(x), 1, 2);
  const auto exact = exactly(c, values, 1, channels);
  const auto scaled = c.add("Multiply", 1, {x, like(c, c.f("scale", 1.0F), x)}, numpy);
  c.output(0, c.add("Add", 1, {scaled, exact}, numpy));
}
// Shrink: x + bias below -lambd, x - bias above lambd, 0 between.
void shrink(node_context& c) {
  const auto x = c.need(0);
  const float bias = c.f("bias", 0.0F), lambd = c.f("lambd", 0.5F);
  const auto above = c.add("Select", 1, {c.add("Greater", 1, {x, like(c, lambd, x)}, numpy),
                                         c.add("Subtract", 1, {x, like(c, bias, x)}, numpy), like(c, 0.0F, x)},
                           numpy);
  c.output(0, c.add("Select", 1, {c.add("Less", 1, {x, like(c, -lambd, x)}, numpy),
                                  c.add("Add", 1, {x, like(c, bias, x)}, numpy), above},
                    numpy));
}
// IsNaN: x differs from itself only where it is NaN. IsInf: x equals +inf or -inf, as the attributes ask.
void is_nan(node_context& c) {
  const auto x = c.need(0);
  c.output(0, c.add("NotEqual", 1, {x, x}, {{"auto_broadcast", "numpy"}}));
}
void is_inf(node_context& c) {
  const auto x = c.need(0);
  const auto infinity = std::numeric_limits<float>::infinity();
  std::optional<source> y;
  const auto either = [&](source s) { y = y ? c.add("LogicalOr", 1, {*y, s}, numpy) : s; };
  if (c.i("detect_positive", 1) != 0) either(c.add("Equal", 1, {x, like(c, infinity, x)}, numpy));
  if (c.i("detect_negative", 1) != 0) either(c.add("Equal", 1, {x, like(c, -infinity, x)}, numpy));
  // Neither: false everywhere (x == x and x != x never both hold).
  if (!y) y = c.add("LogicalAnd", 1, {c.add("Equal", 1, {x, x}, numpy), c.add("NotEqual", 1, {x, x}, numpy)}, numpy);
  c.output(0, *y);
}
void cast_like(node_context& c) { c.output(0, c.add("ConvertLike", 1, {c.need(0), c.need(1)})); }
// The bitwise ops: OpenVINO's of the same names (elementwise, NumPy broadcasting). BitShift: the shift of
// its direction.
template <const char* Type>
void bitwise(node_context& c) {
  c.output(0, c.add(Type, 13, {c.need(0), c.need(1)}, {{"auto_broadcast", "numpy"}}));
}
void bitwise_not(node_context& c) { c.output(0, c.add("BitwiseNot", 13, {c.need(0)})); }
void bit_shift(node_context& c) {
  const auto direction = c.s("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    c.bad(fmt::format("direction is '{}'", direction), "BitShift's direction is LEFT or RIGHT");
  c.output(0, c.add(direction == "LEFT" ? "BitwiseLeftShift" : "BitwiseRightShift", 15, {c.need(0), c.need(1)},
                    {{"auto_broadcast", "numpy"}}));
}
// Swish-24: x · sigmoid(alpha · x), OpenVINO's Swish with beta = alpha.
void swish(node_context& c) {
  const auto x = c.need(0);
  c.output(0, c.add("Swish", 4, {x, like(c, c.f("alpha", 1.0F), x)}));
}
constexpr char Acosh[] = "Acosh", Asinh[] = "Asinh", Atanh[] = "Atanh";
constexpr char BitwiseAnd[] = "BitwiseAnd", BitwiseOr[] = "BitwiseOr", BitwiseXor[] = "BitwiseXor",
               Mish[] = "Mish", SoftSign[] = "SoftSign";

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
      {"Cast", 6, cast}, {"BitCast", 26, bitcast}, {"Clip", 6, clip6}, {"Clip", 11, clip11},
      {"Add", 7, binary<Add>}, {"Sub", 7, binary<Subtract>}, {"Mul", 7, binary<Multiply>},
      {"Div", 7, div}, {"Pow", 7, binary<Power>}, {"Equal", 7, binary<Equal>},
      {"Greater", 7, binary<Greater>}, {"Less", 7, binary<Less>}, {"GreaterOrEqual", 12, binary<GreaterEqual>},
      {"LessOrEqual", 12, binary<LessEqual>}, {"And", 7, binary<LogicalAnd>}, {"Or", 7, binary<LogicalOr>},
      {"Xor", 7, binary<LogicalXor>}, {"Mod", 10, mod}, {"Where", 9, where},
      {"Acosh", 9, unary<Acosh, 4>}, {"Asinh", 9, unary<Asinh, 4>}, {"Atanh", 9, unary<Atanh, 4>},
      {"Swish", 24, swish}, {"Gelu", 20, gelu}, {"Mish", 18, unary<Mish, 4>}, {"Celu", 12, celu}, {"Selu", 6, selu},
      {"Softsign", 1, unary<SoftSign, 9>}, {"ThresholdedRelu", 1, thresholded_relu}, {"ThresholdedRelu", 10, thresholded_relu}, {"Shrink", 9, shrink},
      {"Affine", 1, experimental_affine}, {"Scale", 1, experimental_scale}, {"ScaledTanh", 1, scaled_activation<Tanh, 1>},
      {"ParametricSoftplus", 1, scaled_activation<SoftPlus, 4>}, {"ImageScaler", 1, image_scaler},
      {"IsNaN", 9, is_nan}, {"IsInf", 10, is_inf}, {"CastLike", 15, cast_like},
      {"BitwiseAnd", 18, bitwise<BitwiseAnd>}, {"BitwiseOr", 18, bitwise<BitwiseOr>},
      {"BitwiseXor", 18, bitwise<BitwiseXor>}, {"BitwiseNot", 18, bitwise_not}, {"BitShift", 11, bit_shift},
      {"Max", 6, variadic<Maximum>}, {"Min", 6, variadic<Minimum>}, {"Sum", 6, variadic<Add>}, {"Mean", 6, mean},
      {"Max", 8, variadic<Maximum>}, {"Min", 8, variadic<Minimum>}, {"Sum", 8, variadic<Add>}, {"Mean", 8, mean},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
