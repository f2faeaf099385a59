// The reduction rows of src/onnx/lower/reduction.cpp: one case a row (rows_test.cpp runs them as onnx/lower_rows).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lowering_case.hpp"

namespace reshape1::test {

namespace {

/// A reduction's two rows: axes as an attribute (the row of version 1), then as an input.
std::vector<lowering_case> reduce(const char* op, int axes_input_since, const char* layer) {
  return {{op, 1, "x:f32[2,3,4]", "x", "y", attr_ints("axes", {1}) + attr_i("keepdims", 0), layer, "[2,4]"},
          {op, axes_input_since, "x:f32[2,3,4] axes:i64[1]=1", "x,axes", "y", attr_i("keepdims", 0), layer, "[2,4]"}};
}

}  // namespace

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
  // CumSum's shape, its values (sums, not products) dropped by an Erf.
  all.push_back({"CumProd", 26, "x:f32[2,3] axis:i64[]=1", "x,axis", "y", attr_i("exclusive", 1), "CumSum,Erf", "[2,3]"});
  return all;
}

namespace {

// ONNX Runtime's CumSum and CumProd kernels take exclusive and reverse of 0 or 1 only.
TEST(lower_reduction, cumulative_flags_are_0_or_1) {
  expect_refused_with({"CumSum", 11, "x:f32[2,3] axis:i64[]=1", "x,axis", "y", attr_i("exclusive", 2), "", ""}, "exclusive is 2");
  expect_refused_with({"CumProd", 26, "x:f32[2,3] axis:i64[]=1", "x,axis", "y", attr_i("reverse", -1), "", ""}, "reverse is -1");
}

}  // namespace

}  // namespace reshape1::test
