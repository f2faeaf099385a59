// The rows of src/onnx/lower/sequence.cpp: one case a row (rows_test.cpp runs them as onnx/lower_rows), each between
// the nodes that make its sequence or optional and read it back as a tensor; then what is refused (as ONNX Runtime
// refuses it, seen in ONNX Runtime 1.30) and what is not covered (what the lowering does not follow). Shapes against
// ONNX Runtime: tests/property/op_truth_sequence.py.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lowering_case.hpp"

namespace reshape1::test {

namespace {
const std::string construct_s = R"(node { op_type: "SequenceConstruct" input: ["a", "b", "c"] output: "s" } )";
std::string at(const char* seq, const char* position, const char* out) {
  return fmt::format(R"(node {{ op_type: "SequenceAt" input: ["{}", "{}"] output: "{}" }} )", seq, position, out);
}
/// SequenceMap's body: each tensor e of the sequence times t (f32 inputs unless `e_type` says otherwise), and e's
/// shape (its output declared of `d_type`; 0: of none).
std::string times_body(int e_type = 1, int d_type = 7) {
  const auto d = d_type != 0 ? fmt::format("type {{ tensor_type {{ elem_type: {} }} }}", d_type) : "";
  return attr_g("body", fmt::format(R"(name: "b" input {{ name: "e" type {{ tensor_type {{ elem_type: {} }} }} }} input {{ name: "t" }}
      node {{ op_type: "Mul" input: ["e", "t"] output: ["m"] }} node {{ op_type: "Shape" input: ["e"] output: ["d"] }}
      output {{ name: "m" type {{ tensor_type {{ elem_type: 1 }} }} }} output {{ name: "d" {} }})",
                                    e_type, d));
}
}  // namespace

std::vector<lowering_case> sequence_cases() {
  const std::string abc = "a:f32[2,3] b:f32[4] c:f32[5,1] p1:i64[]=1 pm1:i64[]=-1";
  return {
      // SequenceAt of a constant position: the tensor at it (from the end where negative); nothing computed.
      {"SequenceAt", 11, abc, "s,pm1", "y", "", "", "[5,1]", "ai.onnx", 0, construct_s},
      {"SequenceConstruct", 11, abc, "a,b,c", "s", "", "", "[4]", "ai.onnx", 0, "", at("s", "p1", "y"), "y"},
      // An empty sequence, then a tensor inserted: length 1.
      {"SequenceEmpty", 11, "a:f32[2]", "", "e", "", "", "[]", "ai.onnx", 0, "",
       R"(node { op_type: "SequenceInsert" input: ["e", "a"] output: "s" } node { op_type: "SequenceLength" input: "s" output: "y" } )",
       "y"},
      // a inserted at position 1 of [a, b, c]: [a, a, b, c].
      {"SequenceInsert", 11, abc, "s,a,p1", "t", "", "", "[2,3] [5,1]", "ai.onnx", 0, construct_s,
       at("t", "p1", "y") + at("t", "pm1", "z"), "y,z"},
      // The last erased: c's place is b's.
      {"SequenceErase", 11, abc, "s", "t", "", "", "[4]", "ai.onnx", 0, construct_s, at("t", "pm1", "y"), "y"},
      {"SequenceLength", 11, abc, "s", "y", "", "", "[]", "ai.onnx", 0, construct_s},
      // Pieces of 2 along axis 1 of [3,5]: [3,2], [3,2], [3,1].
      {"SplitToSequence", 11, "x:f32[3,5]= two:i64[]=2 pm1:i64[]=-1", "x,two", "s", attr_i("axis", 1), "VariadicSplit", "[3,1]",
       "ai.onnx", 0, "", at("s", "pm1", "y"), "y"},
      // Stacked along a new axis 0: [3, 2, 2].
      {"ConcatFromSequence", 11, "a:f32[2,2] b:f32[2,2] c:f32[2,2]", "s", "y", attr_i("axis", 0) + attr_i("new_axis", 1),
       "Unsqueeze,Unsqueeze,Unsqueeze,Concat", "[3,2,2]", "ai.onnx", 0, construct_s},
      {"Optional", 15, "a:f32[2,3]", "a", "o", "", "", "[2,3]", "ai.onnx", 0, "",
       R"(node { op_type: "OptionalGetElement" input: "o" output: "y" } )", "y"},
      {"OptionalHasElement", 15, "a:f32[2,3]", "o", "y", "", "", "[]", "ai.onnx", 0,
       R"(node { op_type: "Optional" input: "a" output: "o" } )"},
      {"OptionalGetElement", 15, "a:f32[2,3]", "o", "y", "", "", "[2,3]", "ai.onnx", 0,
       R"(node { op_type: "Optional" input: "a" output: "o" } )"},
      // The body on each of [a, b, c] with a scalar t: the last run's product [5,1] and shape [2]; the body's layers
      // once a tensor.
      {"SequenceMap", 17, abc + " t:f32[]=2", "s,t", "m,d", times_body(), "Multiply,ShapeOf,Multiply,ShapeOf,Multiply,ShapeOf",
       "[5,1] [2]", "ai.onnx", 0, construct_s, at("m", "pm1", "y") + at("d", "pm1", "z"), "y,z"},
  };
}

namespace {

/// The case's model read, its `check` report's not-covered reasons joined ("" when all is covered).
std::string not_covered(const lowering_case& c) { return not_covered_why(c); }

TEST(lower_sequence, the_forms_each_op_takes) {
  // SplitToSequence without split: pieces of 1, squeezed with keepdims 0; a 1-D split: its lengths.
  const lowering_case ones{"SplitToSequence", 11, "x:f32[3,5]= p:i64[]=2", "x", "s", attr_i("keepdims", 0), "", "", "ai.onnx", 0, "",
                           at("s", "p", "y"), "y"};
  EXPECT_EQ(not_covered(ones), "");
  EXPECT_EQ(refusals(ones), "");
  EXPECT_EQ(refusals({"SplitToSequence", 11, "x:f32[6,2] sp:i64[2]=2,4 p:i64[]=1", "x,sp", "s", "", "", "", "ai.onnx", 0, "",
                      at("s", "p", "y"), "y"}),
            "");
  // A sequence passed through Identity and an If of a constant condition is still followed.
  EXPECT_EQ(not_covered({"Identity", 14, "a:f32[2,3] b:f32[4] c:f32[5,1] p:i64[]=0", "s", "t", "", "", "", "ai.onnx", 0,
                         construct_s, at("t", "p", "y"), "y"}),
            "");
  // OptionalHasElement-18 of no input: false; of a tensor: true.
  EXPECT_EQ(refused_when_read({"OptionalHasElement", 18, "", "", "y", "", "", ""}), "");
}

TEST(lower_sequence, refusals) {
  const std::string abc = "a:f32[2,3] b:f32[4] c:f32[5,1] p3:i64[]=3 v:i64[1]=0";
  expect_refused_with({"SequenceAt", 11, abc, "s,p3", "y", "", "", "", "ai.onnx", 0, construct_s},
                      "its position 3 is outside the sequence of 3 tensors");
  // A position of rank 1: ONNX Runtime reads its first value (v holds 0: a's [2,3]).
  EXPECT_EQ(refused_when_read({"SequenceAt", 11, abc, "s,v", "y", "", "", "", "ai.onnx", 0, construct_s}), "");
  expect_refused_with({"SequenceAt", 11, abc + " f:f32[]=1", "s,f", "y", "", "", "", "ai.onnx", 0, construct_s},
                      "its position (input 1) is f32");
  // An Optional of an optional.
  expect_refused_with({"OptionalGetElement", 15, "a:f32[2]", "o", "y", "", "", "", "ai.onnx", 0,
                       R"(node { op_type: "Optional" input: "a" output: "i" } node { op_type: "Optional" input: "i" output: "o" } )"},
                      "its input is an optional");
  expect_refused_with({"SequenceInsert", 11, abc + " i:i64[2]", "s,i", "t", "", "", "", "ai.onnx", 0, construct_s,
                       at("t", "p3", "y"), "y"},
                      "its tensor is i64 and its sequence of f32");
  expect_refused_with({"SequenceErase", 11, "", "e", "t", "", "", "", "ai.onnx", 0,
                       R"(node { op_type: "SequenceEmpty" output: "e" } )", R"(node { op_type: "SequenceLength" input: "t" output: "y" } )", "y"},
                      "its sequence is empty");
  expect_refused_with({"ConcatFromSequence", 11, "", "e", "y", attr_i("axis", 0), "", "", "ai.onnx", 0,
                       R"(node { op_type: "SequenceEmpty" output: "e" } )"},
                      "its sequence is empty");
  expect_refused_with({"OptionalGetElement", 15, "", "o", "y", "", "", "", "ai.onnx", 0,
                       R"(node { op_type: "Optional" output: "o" attribute { name: "type" type: TYPE_PROTO tp { tensor_type { elem_type: 1 } } } } )"},
                      "its optional is empty");
  // A scalar split of 0 (ONNX Runtime's process stops on it: a division by zero).
  expect_refused_with({"SplitToSequence", 11, "x:f32[3,5] z:i64[]=0", "x,z", "s", "", "", "", "ai.onnx", 0, "",
                       R"(node { op_type: "SequenceLength" input: "s" output: "y" } )", "y"},
                      "its split is 0");
  // An optional where a sequence is taken.
  expect_refused_with({"SequenceLength", 11, "a:f32[2]", "o", "y", "", "", "", "ai.onnx", 15,
                       R"(node { op_type: "Optional" input: "a" output: "o" } )"},
                      "its input 0 ('o') is an optional, where SequenceLength takes a sequence");
}

// SequenceMap as ONNX Runtime 1.30 runs it (its function body, a Loop over the first sequence): a sequence input
// gives its tensor at each position, a tensor is given whole to each run; a longer sequence's last tensors are not
// read, a shorter one fails the run; an empty first sequence gives empty sequences of the body's declared types.
TEST(lower_sequence, sequence_map_runs_its_body_on_each_tensor) {
  const std::string abc = "a:f32[2,3] b:f32[4] c:f32[5,1] pm1:i64[]=-1 p0:i64[]=0";
  // Paired by position, each tensor times itself; u's fourth tensor is not read.
  const auto squares = R"(node { op_type: "SequenceConstruct" input: ["a", "b", "c", "a"] output: "u" } )";
  EXPECT_EQ(propagated_shapes({"SequenceMap", 17, abc, "s,u", "m,d", times_body(), "", "", "ai.onnx", 0,
                               construct_s + squares, at("m", "pm1", "y") + at("d", "p0", "z"), "y,z"}),
            "[5,1] [2]");
  expect_refused_with({"SequenceMap", 17, abc, "s,u", "m,d", times_body(), "", "", "ai.onnx", 0,
                       construct_s + R"(node { op_type: "SequenceConstruct" input: ["a", "b"] output: "u" } )",
                       at("m", "pm1", "y"), "y"},
                      "its input 1 is a sequence of 2 tensors, and its first of 3");
  // A run that fails: a [2,3] times a [4].
  EXPECT_NE(refusals({"SequenceMap", 17, abc + " t:f32[4]", "s,t", "m,d", times_body(), "", "", "ai.onnx", 0, construct_s,
                      at("m", "pm1", "y"), "y"}),
            "");
  expect_refused_with({"SequenceMap", 17, abc + " t:f32[]=2", "s,t", "m,d", times_body(7), "", "", "ai.onnx", 0, construct_s,
                       at("m", "pm1", "y"), "y"},
                      "its body's input 0 ('e') is declared i64, where its input 0 holds f32");
  // Outputs of no declared type (ONNX Runtime's function body makes each sequence of its output's declared type), or
  // of another than the body gives.
  expect_refused_with({"SequenceMap", 17, abc + " t:f32[]=2", "s,t", "m,d", times_body(1, 0), "", "", "ai.onnx", 0, construct_s,
                       at("m", "pm1", "y"), "y"},
                      "its body's output 1 ('d') declares no element type");
  expect_refused_with({"SequenceMap", 17, abc + " t:f32[]=2", "s,t", "m,d", times_body(1, 1), "", "", "ai.onnx", 0, construct_s,
                       at("m", "pm1", "y"), "y"},
                      "node 'd' (Shape, node 1): its output 0 ('d') is declared of type f32, where Shape-15 gives i64");
  expect_refused_with({"SequenceMap", 17, abc + " t:f32[]=2", "s,t", "m", times_body(), "", "", "ai.onnx", 0, construct_s,
                       at("m", "pm1", "y"), "y"},
                      "its body has 2 outputs, where the node has 1");
  // What ONNX Runtime refuses when it inlines SequenceMap's function: a body node output named as a tensor of the
  // graph (`a`: the graph is no longer in static single assignment form; a body input may be named so), an output
  // left out, a SequenceMap in the body, a body output that is a tensor of the graph around it.
  const auto body_of = [](const char* nodes, const char* outputs) {
    return attr_g("body", fmt::format(R"(name: "b" input {{ name: "e" type {{ tensor_type {{ elem_type: 1 }} }} }} {} {})", nodes, outputs));
  };
  expect_refused_with({"SequenceMap", 17, abc, "s", "m", body_of(R"(node { op_type: "Relu" input: ["e"] output: ["a"] })",
                                                                   R"(output { name: "a" type { tensor_type { elem_type: 1 } } })"),
                       "", "", "ai.onnx", 0, construct_s, at("m", "pm1", "y"), "y"},
                      "its body defines 'a', which the graph around it defines too");
  EXPECT_EQ(refused_when_read({"SequenceMap", 17, abc, "s", "m", body_of(R"(node { op_type: "Relu" input: ["e"] output: ["r"] })",
                                                                            R"(output { name: "r" type { tensor_type { elem_type: 1 } } })"),
                               "", "", "ai.onnx", 0, construct_s, at("m", "pm1", "y"), "y"}),
            "");
  expect_refused_with({"SequenceMap", 17, abc + " t:f32[]=2", "s,t", "m,", times_body(), "", "", "ai.onnx", 0, construct_s,
                       at("m", "pm1", "y"), "y"},
                      "its output 1 is left out");
  expect_refused_with({"SequenceMap", 17, abc, "s", "m", body_of(R"(node { op_type: "SequenceMap" input: ["e"] output: ["r"] })",
                                                                   R"(output { name: "r" type { tensor_type { elem_type: 1 } } })"),
                       "", "", "ai.onnx", 0, construct_s, at("m", "pm1", "y"), "y"},
                      "its body holds a SequenceMap node");
  expect_refused_with({"SequenceMap", 17, abc, "s", "m", body_of("", R"(output { name: "a" type { tensor_type { elem_type: 1 } } })"),
                       "", "", "ai.onnx", 0, construct_s, at("m", "pm1", "y"), "y"},
                      "its body gives 'a', a tensor of the graph around it, as its output");
  // An empty sequence: no run, empty sequences (their length 0) of the types the body declares.
  EXPECT_EQ(propagated_shapes({"SequenceMap", 17, "t:f32[]=2", "e,t", "m,d", times_body(), "", "", "ai.onnx", 0,
                               R"(node { op_type: "SequenceEmpty" output: "e" } )",
                               R"(node { op_type: "SequenceLength" input: "m" output: "y" } )", "y"}),
            "[]");
  // A first input the lowering does not follow (a split the graph computes): not covered.
  const lowering_case computed{"SequenceMap", 17, "x:f32[6,2] q:i64[2] t:f32[]=2 p0:i64[]=0", "s,t", "m,d", times_body(), "", "",
                                "ai.onnx", 0, R"(node { op_type: "SplitToSequence" input: ["x", "q"] output: "s" } )",
                                at("m", "p0", "y"), "y"};
  const auto bytes = model_of(computed);
  const auto report = model::check(onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), "t.onnx"));
  std::string why;
  for (const auto& l : report.layers)
    if (l.name == "n" && l.issue == model::layer_issue::not_covered) why = l.message;
  EXPECT_NE(why.find("its input 0 ('s') is a sequence whose contents the graph does not give"), std::string::npos) << why;
}

TEST(lower_sequence, what_is_not_followed) {
  // A position the graph computes.
  EXPECT_NE(not_covered({"SequenceAt", 11, "a:f32[2,3] b:f32[4] c:f32[5,1] q:i64[]", "s,q", "y", "", "", "", "ai.onnx", 0, construct_s})
                .find("its position (input 1) is computed by the graph"),
            std::string::npos);
  // A split into pieces of 1 (no split) along an axis whose length is not a constant's, unknown or declared: at
  // another batch or size the count changes.
  for (const char* x : {"x:f32[3,?]", "x:f32[3,4]"})
    EXPECT_NE(not_covered({"SplitToSequence", 11, std::string(x) + " p:i64[]=0", "x", "s", attr_i("axis", 1), "", "", "ai.onnx", 0,
                           "", at("s", "p", "y"), "y"})
                  .find("an axis whose length is not fixed"),
              std::string::npos);
  // A position of no value.
  EXPECT_NE(not_covered({"SequenceAt", 11, "a:f32[2,3] b:f32[4] c:f32[5,1] e:i64[0]=", "s,e", "y", "", "", "", "ai.onnx", 0,
                         construct_s})
                .find("holds no value"),
            std::string::npos);
  // More than 1,024 tensors.
  std::string many = "a:f32[2]";
  std::string names = "a";
  for (int k = 0; k < 1024; ++k) names += ",a";
  EXPECT_NE(not_covered({"SequenceConstruct", 11, many, names, "s", "", "", "", "ai.onnx", 0, "",
                         R"(node { op_type: "SequenceLength" input: "s" output: "y" } )", "y"})
                .find("its sequence holds 1025 tensors, and reshape1 follows sequences of up to 1024"),
            std::string::npos);
  // A tensor op reading a sequence; a graph output that is one.
  EXPECT_NE(not_covered({"Relu", 14, "a:f32[2,3] b:f32[4] c:f32[5,1]", "s", "y", "", "", "", "ai.onnx", 0, construct_s})
                .find("its input 0 ('s') is a sequence, which reshape1 follows only through the sequence and optional ops"),
            std::string::npos);
  EXPECT_NE(not_covered({"SequenceConstruct", 11, "a:f32[2]", "a", "s", "", "", ""}).find("a graph output that is a sequence"),
            std::string::npos);
}

}  // namespace

}  // namespace reshape1::test
