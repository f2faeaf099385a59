// The random generators' rows of src/onnx/lower/random.cpp: one case a row (rows_test.cpp runs them as
// onnx/lower_rows). Their values are random; their shapes are checked here and against ONNX Runtime by
// tests/property/op_truth_index.py (random_shape).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lowering_case.hpp"

namespace reshape1::test {

std::vector<lowering_case> random_cases() {
  return {
      {"RandomUniform", 1, "", "", "y", attr_ints("shape", {2, 0, 3}), "RandomUniform", "[2,0,3]"},
      // dtype 11 (double).
      {"RandomNormal", 1, "", "", "y", attr_ints("shape", {4}) + attr_i("dtype", 11), "RandomUniform", "[4]"},
      // Of the input's type (ConvertLike) unless dtype says.
      {"RandomUniformLike", 1, "x:f32[2,3]", "x", "y", "", "ShapeOf,RandomUniform,ConvertLike", "[2,3]"},
      {"RandomNormalLike", 1, "x:f32[2,3]", "x", "y", attr_i("dtype", 1), "ShapeOf,RandomUniform", "[2,3]"},
      // A bool dtype: made as f32, converted.
      {"Bernoulli", 15, "x:f32[5]", "x", "y", attr_i("dtype", 9), "ShapeOf,RandomUniform,Convert", "[5]"},
      // [batch, classes] -> [batch, sample_size].
      {"Multinomial", 7, "x:f32[3,10]", "x", "y", attr_i("sample_size", 4), "ShapeOf,Slice,Concat,RandomUniform", "[3,4]"},
  };
}

namespace {

TEST(lower_random, refusals) {
  expect_refused_with({"RandomUniform", 1, "", "", "y", "", "", ""}, "RandomUniform needs the attribute shape");
  expect_refused_with({"Multinomial", 7, "x:f32[2,3,4]", "x", "y", "", "", ""}, "its input has rank 3");
  // Of an integer input without dtype: random integers, which ONNX's types (and ONNX Runtime's kernels) do not make.
  expect_refused_with({"RandomUniformLike", 1, "x:i64[2]", "x", "y", "", "", ""}, "its input is i64 and no dtype is given");
  EXPECT_EQ(refused_when_read({"RandomUniformLike", 1, "x:i64[2]", "x", "y", attr_i("dtype", 1), "", ""}), "");
  expect_refused_with({"Multinomial", 7, "x:f32[2,3]", "x", "y", attr_i("sample_size", 0), "", ""}, "sample_size is 0");
  expect_refused_with({"Multinomial", 7, "x:f32[2,3]", "x", "y", attr_i("dtype", 1), "", ""}, "dtype is 1, not int32 or int64");
  // What ONNX Runtime's library asserts (its process stops): low below high, a positive scale; and float types.
  expect_refused_with({"RandomUniform", 1, "", "", "y", attr_ints("shape", {2}) + attr_f("low", 2.0F) + attr_f("high", 1.0F), "", ""},
                      "low (2) is not below high (1)");
  expect_refused_with({"RandomNormalLike", 1, "x:f32[2]", "x", "y", attr_f("scale", 0.0F), "", ""}, "scale is 0");
  expect_refused_with({"RandomUniform", 1, "", "", "y", attr_ints("shape", {2}) + attr_i("dtype", 7), "", ""},
                      "dtype is 7, not a float type");
}

}  // namespace

}  // namespace reshape1::test
