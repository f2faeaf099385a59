// The ONNX reader's subgraphs: a Loop becomes OpenVINO's Loop and a Scan a TensorIterator over its body, an
// If is inlined with its branches' outputs merged, and nested bodies are propagated in linear work.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "../onnx_test_util.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::test {
namespace {

TEST(onnx, a_loop_becomes_openvinos_loop_over_its_body) {
  const auto g = read_fixture("loop_body");
  const auto* loop = g.find(0);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->type, "Loop");
  EXPECT_EQ(loop->opset, 5);
  ASSERT_NE(loop->body, nullptr);
  EXPECT_EQ(loop->sources.size(), 4u);  // trips, go, x, and x again: the body reads it from the graph around it
  const auto& sub = *loop->body;
  // The iteration number, the condition and the carried value, then x as an invariant input.
  ASSERT_EQ(sub.inputs.size(), 4u);
  EXPECT_EQ(sub.inputs[0].purpose, "current_iteration");
  EXPECT_EQ(sub.inputs[1].external_port, 1);
  EXPECT_EQ(sub.inputs[3].external_port, 3);
  EXPECT_EQ(sub.back_edges.size(), 2u);  // the condition and the carried value
  ASSERT_EQ(sub.outputs.size(), 2u);
  EXPECT_EQ(sub.outputs[0].purpose, "execution_condition");
  EXPECT_FALSE(sub.outputs[1].axis);
  const auto p = model::propagate(g);
  EXPECT_EQ(to_string(p.outputs[static_cast<std::size_t>(loop - g.layers().data())][0].shape), "[1,2,3]");
  EXPECT_TRUE(model::check(g).layers.empty());

  // A scan output is stacked along a new axis 0; a condition the body passes on unchanged makes the
  // trip count exact.
  const auto s = read_fixture("loop_scan");
  const auto* scan = s.find(0);
  ASSERT_NE(scan, nullptr);
  ASSERT_EQ(scan->body->outputs.size(), 3u);
  EXPECT_EQ(scan->body->outputs[2].axis, 0);
  const std::vector<model::input_shape> at4{{static_cast<std::size_t>(s.find(1) - s.layers().data()), parse_shape("[4,2,3]")}};
  ASSERT_EQ(s.find(1)->name, "x");
  const auto ps = model::propagate(s, at4);
  EXPECT_EQ(to_string(ps.outputs[static_cast<std::size_t>(scan - s.layers().data())][1].shape), "[3,4,2,3]");
}

TEST(onnx, a_scan_becomes_a_tensor_iterator_over_its_body) {
  const auto g = read_fixture("scan_sum");
  const auto* scan = g.find(1);
  ASSERT_NE(scan, nullptr);
  EXPECT_EQ(scan->type, "TensorIterator");
  ASSERT_NE(scan->body, nullptr);
  const auto& sub = *scan->body;
  // The state, then the two scan inputs sliced along axis 1 (the second backwards).
  ASSERT_EQ(sub.inputs.size(), 3u);
  EXPECT_FALSE(sub.inputs[0].axis);
  EXPECT_EQ(sub.inputs[1].axis, 1);
  EXPECT_EQ(sub.inputs[1].stride, 1);
  EXPECT_EQ(sub.inputs[2].stride, -1);
  EXPECT_EQ(sub.back_edges.size(), 1u);
  ASSERT_EQ(sub.outputs.size(), 2u);
  EXPECT_EQ(sub.outputs[1].axis, 1);
  const auto p = model::propagate(g);
  const auto at = static_cast<std::size_t>(scan - g.layers().data());
  EXPECT_EQ(to_string(p.outputs[at][0].shape), "[1,3]");
  EXPECT_EQ(to_string(p.outputs[at][1].shape), "[1,4,3]");  // four steps, stacked at axis 1
  EXPECT_TRUE(model::check(g).layers.empty());
}

/// A Loop whose body holds a Loop, `depth` deep. Each carries a counter that starts at the constant `zero`
/// and grows by one an iteration, so the counter's value never holds across iterations.
void nested_loop_body(::onnx::GraphProto& g, int depth) {
  const auto d = std::to_string(depth);
  g.set_name("body" + d);
  const auto scalar = [&](const std::string& name, int type) {
    auto* in = g.add_input();
    in->set_name(name);
    in->mutable_type()->mutable_tensor_type()->set_elem_type(type);
    in->mutable_type()->mutable_tensor_type()->mutable_shape();
  };
  scalar("i" + d, ::onnx::TensorProto::INT64);
  scalar("c" + d, ::onnx::TensorProto::BOOL);
  scalar("k" + d, ::onnx::TensorProto::INT64);
  const auto node = [&](const char* type, std::vector<std::string> in, const std::string& out) {
    auto* n = g.add_node();
    n->set_op_type(type);
    for (const auto& i : in) n->add_input(i);
    n->add_output(out);
    return n;
  };
  node("Identity", {"c" + d}, "c_out" + d);
  node("Add", {"k" + d, "one"}, "k_out" + d);
  if (depth > 0) {
    auto* inner = node("Loop", {"trips", "go", "zero"}, "inner" + d);
    auto* body = inner->add_attribute();
    body->set_name("body");
    body->set_type(::onnx::AttributeProto::GRAPH);
    nested_loop_body(*body->mutable_g(), depth - 1);
  }
  g.add_output()->set_name("c_out" + d);
  g.add_output()->set_name("k_out" + d);
}

TEST(onnx, nested_loops_whose_carried_values_change_are_propagated_in_linear_work) {
  // Each body's counter is tried with its starting value and again without it: without the layer budget,
  // 60 nested Loops would take 2^60 propagations.
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto& g = *m.mutable_graph();
  auto* x = g.add_input();
  x->set_name("x");
  x->mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
  for (const int dim : {1, 3}) x->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(dim);
  const auto constant = [&](const char* name, int type, std::int64_t v) {
    auto* t = g.add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    if (type == ::onnx::TensorProto::INT64) t->add_int64_data(v);
    else t->add_int32_data(static_cast<std::int32_t>(v));
  };
  constant("trips", ::onnx::TensorProto::INT64, 2);
  constant("zero", ::onnx::TensorProto::INT64, 0);
  constant("one", ::onnx::TensorProto::INT64, 1);
  constant("go", ::onnx::TensorProto::BOOL, 1);
  auto* pass = g.add_node();
  pass->set_op_type("Identity");
  pass->add_input("x");
  pass->add_output("x_out");
  auto* loop = g.add_node();
  loop->set_op_type("Loop");
  loop->add_input("trips");
  loop->add_input("go");
  loop->add_input("zero");
  loop->add_output("count");
  auto* body = loop->add_attribute();
  body->set_name("body");
  body->set_type(::onnx::AttributeProto::GRAPH);
  nested_loop_body(*body->mutable_g(), 60);
  g.add_output()->set_name("x_out");
  g.add_output()->set_name("count");
  const auto text = m.SerializeAsString();
  const auto model = onnx::read(std::as_bytes(std::span(text.data(), text.size())), "nested_loops");
  const auto r = model::check_batch(model, {.batch = dimension(4)});
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::yes) << r.summary_line();
}

TEST(onnx, a_node_not_covered_takes_what_its_subgraph_reads_as_inputs) {
  // Of another domain, the Loop is not covered: the layer it becomes still reads x, as its body does, so
  // what depends on the batch is seen to.
  auto bytes = fixture_bytes("loop_body");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_graph()->mutable_node(0)->set_domain("com.example");
  auto* other = m.add_opset_import();
  other->set_domain("com.example");
  other->set_version(1);
  const auto text = m.SerializeAsString();
  const auto g = onnx::read(std::as_bytes(std::span(text.data(), text.size())), "loop_elsewhere");
  const auto* node = g.find(0);
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->type, "com.example.Loop");
  EXPECT_EQ(node->sources.size(), 4u);  // trips, go, x, and x read by the body
}

TEST(onnx, an_if_inlines_its_branches_and_merges_their_outputs) {
  const auto g = read_fixture("if_branches");
  const auto* merge = g.find(0);
  ASSERT_NE(merge, nullptr);
  EXPECT_EQ(merge->type, "IfMerge");
  EXPECT_EQ(merge->name, "choose");
  const auto report = model::check(g);
  ASSERT_EQ(report.reshapes.size(), 2u);  // the branches' Reshapes, by their own names
  EXPECT_EQ(report.reshapes[0].name, "then_flat");
  EXPECT_EQ(report.reshapes[1].name, "else_flat");
  // A constant condition takes one branch only: the one that keeps the batch.
  auto bytes = fixture_bytes("if_branches");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  auto* flag = m.mutable_graph()->add_initializer();
  flag->set_name("flag");
  flag->set_data_type(::onnx::TensorProto::BOOL);
  flag->add_int32_data(1);
  m.mutable_graph()->mutable_input()->RemoveLast();
  const auto constant = read_bytes(m.SerializeAsString(), "constant_flag.onnx");
  EXPECT_EQ(model::check_batch(constant, {.batch = dimension(4)}).summary.verdict(), model::batch_verdict::yes);
  EXPECT_EQ(model::check(constant).reshapes.size(), 1u);
}

}  // namespace
}  // namespace reshape1::test
