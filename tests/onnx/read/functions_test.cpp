// Model-local functions: each call inlined as ONNX Runtime inlines it (its tensors renamed under the call's
// name, its attribute references bound to the call's attributes or the function's defaults), and the models
// ONNX Runtime refuses refused with the function and node named.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "../onnx_test_util.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::test {
namespace {

// Fields of IR versions 9 and 10, which Debian's ONNX 1.12 classes keep as unknown fields.
constexpr int node_overload = 8;
constexpr int function_attribute_proto = 11;
constexpr int function_overload = 13;

::onnx::ModelProto model_of(const std::string& text) {
  ::onnx::ModelProto m;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m));
  return m;
}

const model::layer* named(const model::graph& g, const std::string& name) {
  for (const auto& l : g.layers())
    if (l.name == name && !l.auxiliary) return &l;
  return nullptr;
}

std::string shape_of(const model::graph& g, const std::string& name) {
  const auto* l = named(g, name);
  if (l == nullptr) return "no layer " + name;
  const auto p = model::propagate(g);
  // A graph output (a Result) by what feeds it.
  if (l->outputs.empty() && !l->sources.empty() && l->sources[0])
    return to_string(p.outputs[l->sources[0]->layer][l->sources[0]->output].shape);
  const auto& outputs = p.outputs[static_cast<std::size_t>(l - g.layers().data())];
  return outputs.empty() ? "no outputs" : to_string(outputs[0].shape);
}

// A graph of x [2,3,4,5] and calls of local.Flat, a Flatten whose axis is the call's attribute `axis`.
const std::string flat_model = R"(
ir_version: 10
opset_import { domain: "" version: 17 }
opset_import { domain: "local" version: 1 }
graph {
  name: "g"
  input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } dim { dim_value: 3 } dim { dim_value: 4 } dim { dim_value: 5 } } } } }
  node { name: "by_default" op_type: "Flat" domain: "local" input: "x" output: "y1" }
  node { name: "given" op_type: "Flat" domain: "local" input: "x" output: "y2" attribute { name: "axis" type: INT i: 3 } }
  node { name: "other" op_type: "Flat" domain: "local" input: "x" output: "y3" }
  output { name: "y1" type { tensor_type { elem_type: 1 } } }
  output { name: "y2" type { tensor_type { elem_type: 1 } } }
  output { name: "y3" type { tensor_type { elem_type: 1 } } }
}
functions {
  name: "Flat" domain: "local" input: "X" output: "Y"
  opset_import { domain: "" version: 17 }
  node { name: "f" op_type: "Flatten" input: "X" output: "Y" attribute { name: "axis" ref_attr_name: "axis" type: INT } }
}
functions {
  name: "Flat" domain: "local" input: "X" output: "Y"
  opset_import { domain: "" version: 17 }
  node { name: "f" op_type: "Flatten" input: "X" output: "Y" attribute { name: "axis" ref_attr_name: "axis" type: INT } }
})";

TEST(onnx_functions, inlines_each_call_under_its_name_as_onnx_runtime_runs_it) {
  const auto g = read_fixture("local_functions");
  // The calls' nodes, named under the call (a nested call's under both); the graph's own tensors keep theirs.
  for (const auto* name : {"block1/act", "block1/regroup", "block2/regroup", "head/scale/times"})
    EXPECT_NE(named(g, name), nullptr) << name;
  EXPECT_EQ(named(g, "block1"), nullptr);  // the call itself is gone
  EXPECT_EQ(shape_of(g, "block2/back"), "[?@N,4,6]");
  EXPECT_NE(named(g, "head/flat"), nullptr);  // a node of a subgraph of the body, named under the call too
  const auto r = model::check_batch(g, {.batch = dimension(4)});
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::yes) << r.summary_line();

  const auto baked = read_fixture("local_functions_baked");
  const auto b = model::check_batch(baked, {.batch = dimension(4)});
  EXPECT_EQ(b.summary.verdict(), model::batch_verdict::no);
  EXPECT_EQ(listed(b), "swallows_batch pool/flat");
}

// IR version 9 gives a function's attributes defaults (attribute_proto), IR version 10 overloads of one name.
TEST(onnx_functions, binds_attribute_defaults_and_overloads_that_debians_onnx_does_not_know) {
  auto m = model_of(flat_model);
  ::onnx::AttributeProto axis;
  axis.set_name("axis");
  axis.set_type(::onnx::AttributeProto::INT);
  axis.set_i(2);
  m.mutable_functions(0)->mutable_unknown_fields()->AddLengthDelimited(function_attribute_proto, axis.SerializeAsString());
  m.mutable_functions(1)->mutable_unknown_fields()->AddLengthDelimited(function_overload, "plain");
  m.mutable_graph()->mutable_node(2)->mutable_unknown_fields()->AddLengthDelimited(node_overload, "plain");
  const auto g = read_bytes(m.SerializeAsString(), "m.onnx");
  EXPECT_EQ(shape_of(g, "by_default/f"), "[6,20]");  // the function's default: axis 2
  EXPECT_EQ(shape_of(g, "given/f"), "[24,5]");        // the call's own: axis 3
  EXPECT_EQ(shape_of(g, "other/f"), "[2,60]");        // the overload without a default: Flatten's own, 1
}

// ONNX Runtime 1.30 calls the last of two definitions of one function; an overload no definition has it
// refuses, and a recursive function even where nothing calls it.
TEST(onnx_functions, calls_the_last_of_two_definitions_and_refuses_overloads_none_has) {
  auto m = model_of(flat_model);
  m.mutable_functions(1)->mutable_node(0)->set_op_type("Identity");
  m.mutable_functions(1)->mutable_node(0)->clear_attribute();
  const auto g = read_bytes(m.SerializeAsString(), "m.onnx");
  EXPECT_EQ(shape_of(g, "y1"), "[2,3,4,5]");
  m.mutable_graph()->mutable_node(0)->mutable_unknown_fields()->AddLengthDelimited(node_overload, "b");
  EXPECT_EQ(refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file),
            "m.onnx: node 'by_default' calls local.Flat with overload 'b'; the model defines it with overload ''; "
            "ONNX Runtime refuses the model too");
  auto unused = model_of(flat_model);
  unused.mutable_functions()->RemoveLast();
  auto& f = *unused.add_functions();
  f.set_name("Loop");
  f.set_domain("local");
  f.add_input("X");
  f.add_output("Y");
  auto& again = *f.add_node();
  again.set_op_type("Loop");
  again.set_domain("local");
  again.add_input("X");
  again.add_output("Y");
  EXPECT_EQ(refusal([&] { (void)read_bytes(unused.SerializeAsString(), "m.onnx"); }, errc::bad_file),
            "m.onnx: node 'Loop' calls function local.Loop, which is already being called (local.Loop -> local.Loop); "
            "ONNX forbids recursive functions; ONNX Runtime refuses the model too");
}

TEST(onnx_functions, refuses_recursion_naming_the_calls) {
  auto m = model_of(flat_model);
  m.mutable_functions()->RemoveLast();
  auto& body = *m.mutable_functions(0)->mutable_node(0);
  body.set_op_type("Flat");
  body.set_domain("local");
  body.set_name("again");
  const auto msg = refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  EXPECT_EQ(msg, "m.onnx: node 'again' calls function local.Flat, which is already being called (local.Flat -> "
                 "local.Flat); ONNX forbids recursive functions; ONNX Runtime refuses the model too");
}

TEST(onnx_functions, refuses_a_call_of_more_inputs_than_its_function) {
  auto m = model_of(flat_model);
  m.mutable_functions()->RemoveLast();
  m.mutable_graph()->mutable_node(0)->add_input("x");
  const auto msg = refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  EXPECT_EQ(msg, "m.onnx: node 'by_default' calls function local.Flat with 2 inputs and 1 outputs; it has 1 and 1; "
                 "ONNX Runtime refuses a call of more inputs or of other outputs than its function's");
}

// Ten functions, each calling the next twice, make 2^10 nodes; twenty-one, two million: refused before any
// is copied. And a chain of functions each calling the next once is followed 256 deep, not until the stack
// overflows.
TEST(onnx_functions, refuses_calls_that_multiply_past_a_million_nodes_or_nest_past_256) {
  const auto chain = [](int depth, int calls = 2) {
    auto m = model_of(flat_model);
    m.mutable_functions()->Clear();
    for (int k = 0; k < depth; ++k) {
      auto& f = *m.add_functions();
      f.set_name(fmt::format("F{}", k));
      f.set_domain("local");
      f.add_input("X");
      f.add_output("Y");
      auto& o = *f.add_opset_import();
      o.set_version(17);
      for (int c = 0; c < calls; ++c) {
        auto& n = *f.add_node();
        n.set_op_type(k + 1 < depth ? fmt::format("F{}", k + 1) : "Relu");
        if (k + 1 < depth) n.set_domain("local");
        n.add_input(c == 0 ? "X" : "t");
        n.add_output(c + 1 == calls ? "Y" : "t");
      }
    }
    auto& g = *m.mutable_graph();
    while (g.node_size() > 1) g.mutable_node()->RemoveLast();
    g.mutable_node(0)->set_op_type("F0");
    g.mutable_node(0)->clear_attribute();
    while (g.output_size() > 1) g.mutable_output()->RemoveLast();
    return m.SerializeAsString();
  };
  const auto g = read_bytes(chain(10), "m.onnx");
  EXPECT_EQ(g.layers().size(), 1024u + 2u);  // the Relus, the input and the output
  const auto msg = refusal([&] { (void)read_bytes(chain(21), "m.onnx"); }, errc::unsupported);
  EXPECT_EQ(msg, "m.onnx: the model's local functions inline to more than 1000000 nodes or 256 MiB; reshape1 reads a "
                 "model whose calls of its functions come to fewer nodes");
  EXPECT_EQ(read_bytes(chain(100, 1), "m.onnx").layers().size(), 3u);
  const auto deep = refusal([&] { (void)read_bytes(chain(1'000, 1), "m.onnx"); }, errc::unsupported);
  EXPECT_EQ(deep, "m.onnx: the model's local functions and their subgraphs nest more than 256 deep; reshape1 reads "
                  "functions that call one another, and graphs inside them, to that depth");
}

// Refused as ONNX Runtime refuses them: an output that is an input, one no node computes, a tensor of the
// graph around the call read inside the function.
TEST(onnx_functions, refuses_outputs_no_node_computes_and_reads_from_outside) {
  auto m = model_of(flat_model);
  m.mutable_functions()->RemoveLast();
  auto& f = *m.mutable_functions(0);
  f.set_output(0, "X");
  EXPECT_EQ(refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file),
            "m.onnx: function local.Flat: output 0 'X' is one of its inputs; ONNX Runtime refuses the model too: "
            "compute the output by a node (an Identity)");
  f.set_output(0, "nowhere");
  EXPECT_EQ(refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file),
            "m.onnx: function local.Flat: output 0 'nowhere' is computed by none of its nodes; ONNX Runtime refuses the "
            "model too");
  f.set_output(0, "Y");
  f.mutable_node(0)->set_input(0, "x");
  EXPECT_EQ(refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file),
            "m.onnx: function local.Flat: node 'f' reads 'x', which is none of the function's inputs and which none of "
            "its nodes computes; a function reads only its inputs and what its nodes compute; ONNX Runtime refuses the "
            "model too");
}

// Node names need not be unique: calls of one name get their nodes and tensors numbered in turn (c/n, c/n_1,
// ...), each asked from where the one before stopped (asked from 1 each time, 20,000 calls of one name took
// 340 s; bench numbers in CHANGELOG).
TEST(onnx_functions, numbers_the_names_of_calls_that_share_a_name) {
  auto m = model_of(flat_model);
  m.mutable_functions()->RemoveLast();
  auto& g = *m.mutable_graph();
  for (int k = 0; k < 3; ++k) g.mutable_node(k)->set_name("c");
  const auto read = read_bytes(m.SerializeAsString(), "m.onnx");
  EXPECT_EQ(shape_of(read, "c/f"), "[2,60]");
  EXPECT_EQ(shape_of(read, "c/f_1"), "[24,5]");
  EXPECT_EQ(shape_of(read, "c/f_2"), "[2,60]");
}

// A graph the call passes as an attribute is read inside the function: `t` is the function's (an Unsqueeze of
// X, [1,N,6]), `x` the graph's around the call (ONNX Runtime 1.30 gives y [1,2,6] at N = 2: found by a cold
// attack, which had y [N,6] from the caller's t).
TEST(onnx_functions, a_graph_the_call_passes_reads_the_functions_names) {
  const auto g = read_bytes(model_of(R"(
ir_version: 10
opset_import { domain: "" version: 17 }
opset_import { domain: "local" version: 1 }
graph { name: "g"
  node { name: "k" op_type: "Constant" output: "cond" attribute { name: "value" type: TENSOR t { data_type: 9 int32_data: 1 } } }
  node { name: "z" op_type: "Abs" input: "x" output: "t" }
  node { name: "c" op_type: "F" domain: "local" input: ["x", "cond"] output: "y"
    attribute { name: "br" type: GRAPH g { name: "b" node { name: "bn" op_type: "Add" input: ["t", "x"] output: "o" } output { name: "o" type { tensor_type { elem_type: 1 } } } } } }
  input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_param: "N" } dim { dim_value: 6 } } } } }
  output { name: "y" type { tensor_type { elem_type: 1 } } }
}
functions { name: "F" domain: "local" input: ["X", "C"] output: "Y" attribute: "br"
  opset_import { domain: "" version: 17 }
  node { op_type: "Constant" output: "ax" attribute { name: "value" type: TENSOR t { dims: 1 data_type: 7 int64_data: 0 } } }
  node { op_type: "Unsqueeze" input: ["X", "ax"] output: "t" }
  node { op_type: "If" input: "C" output: "Y"
    attribute { name: "then_branch" ref_attr_name: "br" type: GRAPH }
    attribute { name: "else_branch" type: GRAPH g { name: "e" node { op_type: "Identity" input: "X" output: "o" } output { name: "o" type { tensor_type { elem_type: 1 } } } } }
  } }
)").SerializeAsString(), "m.onnx");
  EXPECT_EQ(shape_of(g, "y"), "[1,?@N,6]");
}

// A tensor of the graph already named as an inlined one would be gets another name; a call inside an If
// branch is inlined there; ops of the standard domains and com.microsoft's own are never calls (ONNX Runtime
// runs its op in place of a function of the same name).
TEST(onnx_functions, keeps_names_apart_inlines_in_branches_and_leaves_registered_ops_alone) {
  auto m = model_of(flat_model);
  m.mutable_functions()->RemoveLast();
  auto& body = *m.mutable_functions(0);
  body.mutable_node(0)->set_output(0, "t");  // an inner tensor, by_default/t once inlined in by_default
  auto& pass = *body.add_node();
  pass.set_op_type("Identity");
  pass.add_input("t");
  pass.add_output("Y");
  auto& g = *m.mutable_graph();
  g.mutable_node(1)->set_output(0, "by_default/t");  // the graph has a tensor of that name already
  g.mutable_output(1)->set_name("by_default/t");
  auto& relu = *g.add_node();
  relu.set_op_type("Relu");
  relu.add_input("x");
  relu.add_output("r");
  auto& fast = *g.add_node();
  fast.set_op_type("FastGelu");
  fast.set_domain("com.microsoft");
  fast.add_input("x");
  fast.add_output("fg");
  auto& reorder = *g.add_node();
  reorder.set_op_type("ReorderInput");
  reorder.set_domain("com.microsoft.nchwc");
  reorder.add_input("x");
  reorder.add_output("ri");
  for (const auto* name : {"Relu", "FastGelu", "ReorderInput"}) {
    auto& f = *m.add_functions();
    f.set_name(name);
    f.set_domain(std::string(name) == "Relu" ? "" : std::string(name) == "FastGelu" ? "com.microsoft" : "com.microsoft.nchwc");
    f.add_input("X");
    f.add_output("Y");
    auto& n = *f.add_node();
    n.set_op_type("Neg");
    n.add_input("X");
    n.add_output("Y");
  }
  const auto read = read_bytes(m.SerializeAsString(), "m.onnx");
  EXPECT_EQ(shape_of(read, "by_default/f"), "[2,60]");
  EXPECT_EQ(shape_of(read, "given/f"), "[24,5]");
  EXPECT_NE(named(read, "r"), nullptr);
  for (const auto& l : read.layers()) EXPECT_NE(l.type, "Negative") << l.name;

  // Inside an If's branch.
  auto branchy = model_of(flat_model);
  branchy.mutable_functions()->RemoveLast();
  auto& bg = *branchy.mutable_graph();
  ::onnx::GraphProto branch;
  *branch.add_node() = bg.node(0);
  branch.mutable_node(0)->set_output(0, "b");
  auto& out = *branch.add_output();
  out.set_name("b");
  out.mutable_type()->mutable_tensor_type()->set_elem_type(1);
  while (bg.node_size() > 0) bg.mutable_node()->RemoveLast();
  while (bg.output_size() > 1) bg.mutable_output()->RemoveLast();
  auto& flag = *bg.add_initializer();
  flag.set_name("flag");
  flag.set_data_type(9);
  flag.add_int32_data(1);
  auto& choose = *bg.add_node();
  choose.set_name("choose");
  choose.set_op_type("If");
  choose.add_input("flag");
  choose.add_output("y1");
  for (const auto* side : {"then_branch", "else_branch"}) {
    auto& a = *choose.add_attribute();
    a.set_name(side);
    a.set_type(::onnx::AttributeProto::GRAPH);
    *a.mutable_g() = branch;
    a.mutable_g()->mutable_node(0)->set_output(0, std::string(side) + "_out");
    a.mutable_g()->mutable_output(0)->set_name(std::string(side) + "_out");
  }
  const auto inlined = read_bytes(branchy.SerializeAsString(), "m.onnx");
  EXPECT_EQ(shape_of(inlined, "y1"), "[2,60]");
}

}  // namespace
}  // namespace reshape1::test
