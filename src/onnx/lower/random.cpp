// ONNX's random generators: RandomUniform, RandomNormal and their Like forms, Bernoulli and Multinomial, each
// as OpenVINO's RandomUniform-8 of the output's shape. Their values are random (no rule knows them: each run
// draws others, and the distribution does not matter to a shape); their shapes are not: the shape attribute,
// the input's shape, or Multinomial's [batch, sample_size].
#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {

/// RandomUniform-8 makes the float types and i32, i64; another type (bool, a small integer) is made as f32 and
/// converted.
source random_of_shape(node_context& c, source shape, std::optional<std::int64_t> dtype, std::optional<source> like) {
  std::optional<element_type> type;
  if (dtype) {
    type = element_of(static_cast<int>(*dtype));
    if (!type) c.bad(fmt::format("dtype is {}, no ONNX data type reshape1 knows", *dtype));
  }
  const auto made = type && (*type == element_type::f16 || *type == element_type::bf16 || *type == element_type::f32 ||
                             *type == element_type::f64 || *type == element_type::i32 || *type == element_type::i64)
                        ? *type
                        : element_type::f32;
  const auto y = c.add("RandomUniform", 8, {shape, c.f32({0.0F}, true), c.f32({1.0F}, true)},
                       {{"output_type", std::string(name(made))}, {"global_seed", "0"}, {"op_seed", "0"}});
  if (type && *type != made) return c.add("Convert", 1, {y}, {{"destination_type", std::string(name(*type))}});
  if (!type && like) return c.add("ConvertLike", 1, {y, *like});
  return y;
}

namespace {

/// What ONNX's types and ONNX Runtime's kernels take of the distribution's attributes and dtype: the
/// uniform and normal ones make floats (float16, float, double, bfloat16) from low below high, or a positive
/// scale (ONNX Runtime stops its process on the others: its C++ library asserts them).
void refuse_bad_distribution(const node_context& c) {
  const auto& op = c.node().op_type();
  if (const auto dtype = c.i("dtype"); dtype && op != "Bernoulli" && *dtype != ::onnx::TensorProto::FLOAT16 &&
                                       *dtype != ::onnx::TensorProto::FLOAT && *dtype != ::onnx::TensorProto::DOUBLE &&
                                       *dtype != ::onnx::TensorProto::BFLOAT16)
    c.bad(fmt::format("dtype is {}, not a float type", *dtype), fmt::format("{} makes float16, float, double or bfloat16", op));
  if (op == "RandomUniform" || op == "RandomUniformLike") {
    if (const float low = c.f("low", 0.0F), high = c.f("high", 1.0F); !(low < high))
      c.bad(fmt::format("low ({}) is not below high ({})", low, high), "the range of the values is [low, high)");
  } else if (op == "RandomNormal" || op == "RandomNormalLike") {
    if (const float scale = c.f("scale", 1.0F); !(scale > 0.0F))
      c.bad(fmt::format("scale is {}", scale), "the standard deviation (scale) is positive");
  }
}

/// RandomUniform and RandomNormal: the shape attribute, dtype f32 unless it says otherwise.
void random_shaped(node_context& c) {
  refuse_bad_distribution(c);
  const auto shape = c.ints("shape");
  if (!shape) c.bad(fmt::format("{} needs the attribute shape", c.node().op_type()));
  c.output(0, random_of_shape(c, c.i64(*shape), c.i("dtype").value_or(::onnx::TensorProto::FLOAT), std::nullopt));
}
/// RandomUniformLike, RandomNormalLike and Bernoulli: the input's shape, and its type unless dtype says.
void random_like(node_context& c) {
  refuse_bad_distribution(c);
  const auto x = c.need(0);
  // Random values of an integer type: ONNX's type constraints (and ONNX Runtime's kernels) take float outputs.
  if (const auto t = c.declared_type(0); !c.i("dtype") && t && !is_arithmetic_float(*t))
    c.bad(fmt::format("its input is {} and no dtype is given", name(*t)),
          fmt::format("{} makes floats: give dtype, or an input of a float type", c.node().op_type()));
  c.output(0, random_of_shape(c, c.shape_of(x), c.i("dtype"), x));
}
/// Multinomial: [batch, class_size] -> [batch, sample_size] of samples, int32 unless dtype says.
void multinomial(node_context& c) {
  const auto x = c.need(0);
  if (const auto r = c.rank(0); r && *r != 2)
    c.bad(fmt::format("its input has rank {}", *r), "Multinomial takes [batch_size, class_size]");
  if (const auto dtype = c.i("dtype"); dtype && *dtype != ::onnx::TensorProto::INT32 && *dtype != ::onnx::TensorProto::INT64)
    c.bad(fmt::format("dtype is {}, not int32 or int64", *dtype), "Multinomial's samples are class indices");
  const auto samples = c.i("sample_size", 1);
  if (samples < 1) c.bad(fmt::format("sample_size is {}", samples), "Multinomial draws at least one sample");
  const auto shape = c.add("Concat", 1, {shape_slice(c, c.shape_of(x), 0, 1), c.i64({samples})}, {{"axis", "0"}});
  c.output(0, random_of_shape(c, shape, c.i("dtype").value_or(::onnx::TensorProto::INT32), std::nullopt));
}

}  // namespace

std::span<const onnx_entry> random_rows() {
  static const std::vector<onnx_entry> rows = {
      {"RandomUniform", 1, random_shaped},     {"RandomNormal", 1, random_shaped}, {"RandomUniformLike", 1, random_like},
      {"RandomNormalLike", 1, random_like},    {"Bernoulli", 15, random_like},     {"Multinomial", 7, multinomial},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
