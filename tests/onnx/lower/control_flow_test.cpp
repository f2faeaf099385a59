// The control-flow rows (If, Loop, Scan) of src/onnx/lower/control_flow.cpp: one case a row (rows_test.cpp runs them
// as onnx/lower_rows).
#include <string>
#include <vector>

#include "lowering_case.hpp"

namespace reshape1::test {

namespace {

/// A value_info of a graph (a body's input), in protobuf text.
std::string value(const char* name, int type, const std::vector<std::int64_t>& dims) {
  std::string shape;
  for (const auto d : dims) shape += fmt::format("dim {{ dim_value: {} }} ", d);
  return fmt::format("{{ name: \"{}\" type {{ tensor_type {{ elem_type: {} shape {{ {}}} }} }} }}", name, type, shape);
}

// Both branches read x from the graph around them; inlined, each output is an IfMerge of theirs.
std::string branches() {
  return attr_g("then_branch", R"(name: "then" node { op_type: "Relu" input: ["x"] output: ["t"] }
                                  output { name: "t" })") +
         attr_g("else_branch", R"(name: "else" node { op_type: "Neg" input: ["x"] output: ["e"] }
                                  output { name: "e" })");
}

// A carried value doubled three times, and a scan output: each iteration's stacked along a new axis 0.
std::string loop_body() {
  constexpr int f32 = ::onnx::TensorProto::FLOAT, i64 = ::onnx::TensorProto::INT64, boolean = ::onnx::TensorProto::BOOL;
  return attr_g("body", "name: \"body\" input " + value("i", i64, {}) + " input " + value("c", boolean, {}) + " input " +
                            value("x_in", f32, {2, 3}) + R"(
      node { op_type: "Identity" input: ["c"] output: ["c_out"] }
      node { op_type: "Add" input: ["x_in", "x_in"] output: ["x_out"] }
      node { op_type: "Relu" input: ["x_in"] output: ["s_out"] }
      output { name: "c_out" } output { name: "x_out" } output { name: "s_out" })");
}

// A running sum over the 4 rows of xs, and each row's ReLU stacked along axis 0.
std::string scan_body() {
  constexpr int f32 = ::onnx::TensorProto::FLOAT;
  return attr_g("body", "name: \"body\" input " + value("s_in", f32, {3}) + " input " + value("x_in", f32, {3}) + R"(
      node { op_type: "Add" input: ["s_in", "x_in"] output: ["s_out"] }
      node { op_type: "Relu" input: ["x_in"] output: ["y_out"] }
      output { name: "s_out" } output { name: "y_out" })");
}

}  // namespace

std::vector<lowering_case> control_flow_cases() {
  const auto loop_body = test::loop_body();
  const auto scan_body = test::scan_body();
  const auto branches = test::branches();
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

// A node that runs a graph with other outputs than its graph gives, or with one left out (named ""): ONNX
// Runtime refuses the first when it loads the model ("If node has 1 but subgraphs produce 2") and fails on the
// second when it creates the session or runs it (a Loop's crashed it).
TEST(lower_control_flow, outputs_other_than_the_graph_gives_are_refused) {
  expect_refused_with({"If", 1, "c:bool[] x:f32[2,3]", "c", "y,z", branches(), "", ""},
                      "it has 2 outputs, where its then_branch gives 1");
  expect_refused_with({"If", 1, "c:bool[]=1 x:f32[2,3]", "c", "y,z", branches(), "", ""},
                      "it has 2 outputs, where its then_branch gives 1");
  expect_refused_with({"Loop", 1, "trips:i64[]=3 go:bool[]=1 x:f32[2,3]", "trips,go,x", "y", loop_body(), "", ""},
                      "it has 1 output, where its body's carried values and scan outputs give 2");
  expect_refused_with({"Loop", 1, "trips:i64[]=3 go:bool[]=1 x:f32[2,3]", "trips,go,x", ",ys", loop_body(), "", ""},
                      "its output 0 is left out (named \"\")");
  expect_refused_with({"Scan", 9, "s:f32[3] xs:f32[4,3]", "s,xs", "sum", scan_body() + attr_i("num_scan_inputs", 1), "", ""},
                      "it has 1 output, where its body's state variables and scan outputs give 2");
  expect_refused_with({"Scan", 9, "s:f32[3] xs:f32[4,3]", "s,xs", "sum,", scan_body() + attr_i("num_scan_inputs", 1), "", ""},
                      "its output 1 is left out (named \"\")");
}

// An If of a constant condition with an output left out: ONNX Runtime folds it into its branch when it optimises
// the graph and then crashes when it runs (without optimisations it refuses the model), so it is refused too.
TEST(lower_control_flow, an_if_of_a_constant_condition_with_an_output_left_out_is_refused) {
  const auto two = attr_g("then_branch", R"(name: "then" node { op_type: "Relu" input: ["x"] output: ["t"] }
                                            node { op_type: "Neg" input: ["x"] output: ["u"] }
                                            output { name: "t" } output { name: "u" })") +
                   attr_g("else_branch", R"(name: "else" node { op_type: "Neg" input: ["x"] output: ["e"] }
                                            node { op_type: "Relu" input: ["x"] output: ["f"] }
                                            output { name: "e" } output { name: "f" })");
  expect_refused_with({"If", 1, "c:bool[]=1 x:f32[2,3]", "c", ",z", two, "", ""}, "its output 0 is left out");
  expect_refused_with({"If", 1, "c:bool[] x:f32[2,3]", "c", "y,", two, "", ""}, "its output 1 is left out");
  EXPECT_EQ(refused_when_read({"If", 1, "c:bool[]=1 x:f32[2,3]", "c", "y,z", two, "", ""}), "");
}

// An If's condition is one value: ONNX Runtime refuses a constant of two when it folds the If.
TEST(lower_control_flow, an_if_takes_one_condition) {
  expect_refused_with({"If", 1, "c:bool[2]=1,0 x:f32[2,3]", "c", "y", branches(), "", ""}, "its condition holds 2 values");
  EXPECT_EQ(refused_when_read({"If", 1, "c:bool[1]=1 x:f32[2,3]", "c", "y", branches(), "", ""}), "");
}

// ONNX Runtime checks every node of both branches when it loads the model, then folds an If of a constant
// condition into the branch it takes: a node of the other branch that its checks refuse (an attribute its op
// does not have, too many inputs, an op above the model's opset, a Scan whose body gives other outputs than
// the node has, at any depth) refuses the model, as it does in a branch taken. A node it checks no further (an
// op reshape1 does not translate, of a domain ONNX Runtime may be given) does not.
TEST(lower_control_flow, the_branch_a_constant_condition_does_not_take_is_checked_as_onnx_runtime_loads_it) {
  const auto with_else = [](const std::string& nodes) {
    return attr_g("then_branch", R"(name: "then" node { op_type: "Relu" input: ["x"] output: ["t"] } output { name: "t" })") +
           attr_g("else_branch", "name: \"else\" " + nodes + R"( output { name: "e" })");
  };
  const auto taken = [&](const std::string& nodes) {
    return lowering_case{"If", 1, "c:bool[]=1 x:f32[2,3]", "c", "y", with_else(nodes), "", "", "ai.onnx", 17};
  };
  expect_refused_with(taken(R"(node { op_type: "Relu" input: ["x"] output: ["e"] attribute { name: "foo" type: INT i: 1 } })"),
                      "it has the attribute 'foo', which Relu-14 does not have");
  expect_refused_with(taken(R"(node { op_type: "Relu" input: ["x", "x"] output: ["e"] })"), "it has 2 inputs, where Relu-14 takes 1");
  expect_refused_with(taken(R"(node { op_type: "Gelu" input: ["x"] output: ["e"] })"), "Gelu does not exist at opset 17");
  // A nested If in the branch not taken, whose own else branch holds the node ONNX Runtime refuses.
  const auto nested = R"(node { op_type: "If" input: ["c"] output: ["e"] )" +
                      with_else(R"(node { op_type: "Relu" input: ["x"] output: ["e"] attribute { name: "foo" type: INT i: 1 } })") +
                      "}";
  expect_refused_with(taken(nested), "it has the attribute 'foo'");
  // A Scan whose body gives two outputs, on a node of one: refused where it is never run.
  const auto scan = R"(node { op_type: "Scan" input: ["x"] output: ["e"] attribute { name: "num_scan_inputs" type: INT i: 1 } )" +
                    attr_g("body", R"(name: "b" input { name: "r" } node { op_type: "Relu" input: ["r"] output: ["o"] }
                                      node { op_type: "Neg" input: ["r"] output: ["p"] } output { name: "o" } output { name: "p" })") +
                    "}";
  expect_refused_with(taken(scan), "it has 1 output, where its body's state variables and scan outputs give 2");
  // What ONNX Runtime does not check before it runs a node stays unread: an op of another domain, a product of
  // shapes that do not meet.
  EXPECT_EQ(refused_when_read(taken(R"(node { op_type: "Foo" domain: "x.y" input: ["x"] output: ["e"] })")), "");
  EXPECT_EQ(refused_when_read(taken(R"(node { op_type: "Relu" input: ["x"] output: ["e"] })")), "");
}

// Element types as ONNX Runtime holds a graph's to them when it loads the model (or runs it), each seen in ONNX
// Runtime 1.30: an If's branches give one type, whatever the condition; a Loop's or Scan's input is of the type its
// body's input declares; a Loop's carried value keeps its type (refused at load), as a Scan's state does (it fails
// when it runs); a body's nodes take the types their inputs are declared of.
TEST(lower_control_flow, element_types_are_held_as_onnx_runtime_holds_them) {
  constexpr int f32 = ::onnx::TensorProto::FLOAT, i64 = ::onnx::TensorProto::INT64, boolean = ::onnx::TensorProto::BOOL;
  // (The branch a constant condition does not take is not lowered: its outputs' declared types are compared.)
  const auto two_types = attr_g("then_branch", R"(name: "then" node { op_type: "Relu" input: ["x"] output: ["t"] }
                                                  output { name: "t" type { tensor_type { elem_type: 1 } } })") +
                         attr_g("else_branch", R"(name: "else" node { op_type: "Cast" input: ["x"] output: ["e"]
                                                    attribute { name: "to" type: INT i: 7 } }
                                                  output { name: "e" type { tensor_type { elem_type: 7 } } })");
  for (const char* c : {"c:bool[]", "c:bool[]=1", "c:bool[]=0"})
    expect_refused_with({"If", 1, std::string(c) + " x:f32[2,3]", "c", "y", two_types, "", ""},
                        "its output 0 is of type f32 in then_branch and i64 in else_branch");
  // A Loop whose carried value becomes an int64.
  const auto head = "name: \"body\" input " + value("i", i64, {}) + " input " + value("c", boolean, {});
  const auto cast_body = attr_g("body", head + " input " + value("v", f32, {2, 3}) + R"(
      node { op_type: "Identity" input: ["c"] output: ["c_out"] }
      node { op_type: "Cast" input: ["v"] output: ["v_out"] attribute { name: "to" type: INT i: 7 } }
      output { name: "c_out" } output { name: "v_out" })");
  expect_refused_with({"Loop", 1, "trips:i64[]=3 go:bool[]=1 x:f32[2,3]", "trips,go,x", "y", cast_body, "", ""},
                      "its body's output 1 ('v_out') is of type i64, where the state it carries ('v') is f32; ONNX Runtime "
                      "refuses it when it loads the model");
  // The iteration number declared float.
  const auto float_iteration = attr_g("body", "name: \"body\" input " + value("i", f32, {}) + " input " + value("c", boolean, {}) +
                                                  " input " + value("v", f32, {2, 3}) + R"(
      node { op_type: "Identity" input: ["c"] output: ["c_out"] } node { op_type: "Relu" input: ["v"] output: ["v_out"] }
      output { name: "c_out" } output { name: "v_out" })");
  expect_refused_with({"Loop", 1, "trips:i64[]=3 go:bool[]=1 x:f32[2,3]", "trips,go,x", "y", float_iteration, "", ""},
                      "its body's input 0 ('i'), the iteration number, is declared f32");
  // An int64 given to a body input declared float.
  expect_refused_with({"Loop", 1, "trips:i64[]=3 go:bool[]=1 x:i64[2,3]", "trips,go,x", "y,ys", loop_body(), "", ""},
                      "its input 2 ('x') is of type i64, where its body's input 2 ('x_in') is declared f32");
  // A Relu on a string the body carries.
  const auto relu_body = attr_g("body", head + " input " + value("v", ::onnx::TensorProto::STRING, {2}) + R"(
      node { op_type: "Identity" input: ["c"] output: ["c_out"] }
      node { op_type: "Relu" input: ["v"] output: ["v_out"] }
      output { name: "c_out" } output { name: "v_out" })");
  expect_refused_with({"Loop", 13, "trips:i64[]=3 go:bool[]=1 x:string[2]", "trips,go,x", "y", relu_body, "", ""},
                      "its input 0 ('v') is of type string, which Relu-");
  // A Scan's state that becomes an int64: ONNX Runtime loads the model and fails when it runs it.
  const auto scan_cast = attr_g("body", "name: \"body\" input " + value("s_in", f32, {3}) + " input " + value("x_in", f32, {3}) + R"(
      node { op_type: "Add" input: ["s_in", "x_in"] output: ["sum"] }
      node { op_type: "Cast" input: ["sum"] output: ["s_out"] attribute { name: "to" type: INT i: 7 } }
      output { name: "s_out" })");
  expect_refused_with({"Scan", 9, "s:f32[3] xs:f32[4,3]", "s,xs", "sum", scan_cast + attr_i("num_scan_inputs", 1), "", ""},
                      "ONNX Runtime refuses it when it runs the node");
  expect_refused_with({"Scan", 9, "s:i64[3] xs:f32[4,3]", "s,xs", "sum,ys", scan_body() + attr_i("num_scan_inputs", 1), "", ""},
                      "its input 0 ('s') is of type i64, where its body's input 0 ('s_in') is declared f32");
}

}  // namespace reshape1::test
