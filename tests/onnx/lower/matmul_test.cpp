// The matrix product rows of src/onnx/lower/matmul.cpp: one case a row (rows_test.cpp runs them as onnx/lower_rows).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lowering_case.hpp"

namespace reshape1::test {

std::vector<lowering_case> matmul_cases() {
  return {
      {"MatMul", 1, "a:f32[2,3,4] b:f32[4,5]", "a,b", "y", "", "MatMul", "[2,3,5]"},
      // alpha * A * B^T + C.
      {"Gemm", 7, "a:f32[3,4] b:f32[5,4] c:f32[5]", "a,b,c", "y", attr_i("transB", 1) + attr_f("alpha", 2.0F),
       "MatMul,Multiply,Add", "[3,5]"},
      {"Einsum", 12, "a:f32[2,3] b:f32[3,4]", "a,b", "y", attr_s("equation", "ij,jk->ik"), "Einsum", "[2,4]"},
      // One value per square matrix (the Add with its transpose refuses others), the product's values dropped.
      {"Det", 11, "x:f32[2,3,3]", "x", "y", "", "Transpose,Add,ReduceProd,Erf", "[2]"},
  };
}

namespace {

// ONNX's shape inference refuses a Gemm of A or B of another rank than 2 (ONNX Runtime, when it loads it); at
// 11, where C became optional.
TEST(lower_matmul, gemm_refuses_operands_that_are_not_matrices) {
  expect_refused_with({"Gemm", 11, "a:f32[1,2,3] b:f32[3,4]", "a,b", "y", "", "", ""}, "its input 0 (A) has rank 3");
  expect_refused_with({"Gemm", 11, "a:f32[2,3] b:f32[3]", "a,b", "y", "", "", ""}, "its input 1 (B) has rank 1");
}

// ONNX Runtime broadcasts a letter's dimension of 1 across Einsum's inputs, but takes no other two that differ,
// nor a letter repeated in one input (a diagonal) of unequal dimensions.
TEST(lower_matmul, einsum_broadcasts_only_ones_across_inputs) {
  EXPECT_NE(refusals({"Einsum", 12, "a:f32[2,3] b:f32[2,4]", "a,b", "y", attr_s("equation", "ab,ab->ab"), "", ""}), "");
  EXPECT_NE(refusals({"Einsum", 12, "a:f32[1,3]", "a", "y", attr_s("equation", "ii->i"), "", ""}).find("the dimensions of 'i'"),
            std::string::npos);
}

}  // namespace

}  // namespace reshape1::test
