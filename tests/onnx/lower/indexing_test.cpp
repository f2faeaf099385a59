// The indexing rows (gathers, scatters, slices and the like) of src/onnx/lower/indexing.cpp: one case a row
// (rows_test.cpp runs them as onnx/lower_rows), and what the family refuses or fails as ONNX Runtime does.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lowering_case.hpp"

namespace reshape1::test {

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

namespace {

// A ReverseSequence's lengths are one per batch entry: a single length does not serve a batch of 3 (a
// broadcast would have let it, at any batch).
TEST(lower_indexing, reverse_sequence_takes_one_length_per_batch_entry) {
  // The batch is axis 1 (4 entries) by default.
  const lowering_case one{"ReverseSequence", 10, "x:f32[3,4,2] lens:i64[1]=2", "x,lens", "y", "", "", ""};
  EXPECT_NE(refusals(one).find("elements"), std::string::npos) << refusals(one);
  const lowering_case four{"ReverseSequence", 10, "x:f32[3,4,2] lens:i64[4]=2,3,1,3", "x,lens", "y", "", "", ""};
  EXPECT_EQ(refusals(four), "");
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
  // Each slice gathered empty: ONNX Runtime reads no index (data [1,1,0] by [4,2,2] is [4,2,0]).
  EXPECT_EQ(refusals({"GatherND", 12, "x:f32[1,1,0] i:i64[2,2]=4,5,6,7", "x,i", "y", "", "", ""}), "");
  const auto scatter = [](const char* indices) {
    return refusals({"ScatterElements", 11, fmt::format("x:f32[2,3] i:i64[1,2]={} u:f32[1,2]=", indices), "x,i,u", "y",
                     attr_i("axis", 1), "", ""});
  };
  EXPECT_EQ(scatter("-3,2"), "");
  EXPECT_NE(scatter("0,-4").find("index -4 (element 1 of input 1) is outside axis 1, which holds 3"), std::string::npos);
}

}  // namespace

namespace {

TEST(lower_indexing, scatter_nd_reductions) {
  // max and min are ONNX's from 18; ONNX Runtime runs them at 16 too.
  for (const auto* r : {"add", "mul", "max", "min"})
    EXPECT_EQ(refused_when_read({"ScatterND", 16, "d:f32[4] i:i64[2,1] u:f32[2]", "d,i,u", "y", attr_s("reduction", r), "", ""}), "") << r;
  // ONNX Runtime's kernels read any other reduction as none (ScatterElements' "mean", which OpenVINO's scatter
  // has, too): the scatter each lowers to, with the reduction it reads.
  const auto lowered = [](const char* op, const char* tensors, const char* reduction) {
    const auto bytes = model_of({op, 16, tensors, "d,i,u", "y", attr_s("reduction", reduction), "", ""});
    const auto g = onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), "t.onnx");
    for (const auto& l : g.layers())
      if (l.type.starts_with("Scatter"))
        return fmt::format("{}-{} {}", l.type, l.opset, l.find("reduction") ? l.text("reduction", "") : "-");
    return std::string("no scatter");
  };
  const auto* nd = "d:f32[4] i:i64[2,1] u:f32[2]";
  EXPECT_EQ(lowered("ScatterND", nd, "add"), "ScatterNDUpdate-15 sum");
  EXPECT_EQ(lowered("ScatterND", nd, "max"), "ScatterNDUpdate-15 max");
  for (const auto* r : {"mean", "foo", "", "none"}) EXPECT_EQ(lowered("ScatterND", nd, r), "ScatterNDUpdate-4 -") << r;
  const auto* elements = "d:f32[4] i:i64[2]=0,1 u:f32[2]";
  EXPECT_EQ(lowered("ScatterElements", elements, "mul"), "ScatterElementsUpdate-12 prod");
  for (const auto* r : {"mean", "foo", ""}) EXPECT_EQ(lowered("ScatterElements", elements, r), "ScatterElementsUpdate-12 none") << r;
  EXPECT_NE(refusals({"ScatterND", 11, "d:f32[] i:i64[0]= u:f32[]", "d,i,u", "y", "", "", ""}).find("the data must not be a scalar"),
            std::string::npos);
}

}  // namespace

}  // namespace reshape1::test
