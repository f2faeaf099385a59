// The ONNX reader: each fixture of tests/data/onnx (protobuf text, parsed here) read and checked at batch 4;
// the shared ONNX models (when ../shared is beside the checkout, always in CI) with their reports pinned;
// and the reader's refusals, each naming what is wrong and where.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <google/protobuf/util/message_differencer.h>
#include <onnx/shape_inference/implementation.h>

#include <cstdio>
#include <filesystem>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "reshape1/error.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::test {
namespace {

namespace fs = std::filesystem;

const fs::path fixtures = fs::path(RESHAPE1_TEST_DATA) / "onnx";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// A fixture's model, serialised.
std::string fixture_bytes(const std::string& name) {
  ::onnx::ModelProto m;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(slurp(fixtures / (name + ".textproto")), &m)) << name;
  return m.SerializeAsString();
}

model::graph read_bytes(const std::string& bytes, const std::string& name) {
  return onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), name);
}

/// Reads a fixture as if it lay in tests/data/onnx (where its external data is).
model::graph read_fixture(const std::string& name) {
  return read_bytes(fixture_bytes(name), (fixtures / (name + ".onnx")).string());
}

std::string listed(const model::batch_report& r) {
  std::string s;
  for (const auto& f : r.findings) s += fmt::format("{}{} {}", s.empty() ? "" : ", ", model::name(f.issue), f.name);
  return s;
}

struct expected {
  const char* fixture;
  model::batch_verdict verdict;
  const char* findings;
};

class fixture_answers : public ::testing::TestWithParam<expected> {};

TEST_P(fixture_answers, at_batch_4) {
  const auto& e = GetParam();
  const auto g = read_fixture(e.fixture);
  EXPECT_EQ(g.format(), model::model_format::onnx);
  const auto r = model::check_batch(g, {.batch = dimension(4)});
  EXPECT_EQ(r.summary.verdict(), e.verdict) << r.summary_line();
  EXPECT_EQ(listed(r), e.findings);
}

INSTANTIATE_TEST_SUITE_P(
    onnx, fixture_answers,
    ::testing::Values(expected{"allowzero_copy", model::batch_verdict::yes, ""},
                      expected{"allowzero_literal", model::batch_verdict::no, "fails_at_declared flat"},
                      expected{"constant_node_shape", model::batch_verdict::no, "swallows_batch flat"},
                      expected{"shared_initializer", model::batch_verdict::no, "fails first"},
                      expected{"computed_pattern", model::batch_verdict::yes, ""},
                      expected{"if_branches", model::batch_verdict::no, "swallows_batch else_flat, cannot_tell choose"},
                      expected{"loop_body", model::batch_verdict::yes, ""},
                      expected{"loop_scan", model::batch_verdict::yes, ""},
                      expected{"loop_reshape", model::batch_verdict::no, "fails repeat, swallows_batch flat"},
                      expected{"scan_sum", model::batch_verdict::yes, ""},
                      expected{"body_dims", model::batch_verdict::yes, ""},
                      expected{"scan_reshape", model::batch_verdict::no, "fails steps, swallows_batch split"},
                      expected{"loop_captured", model::batch_verdict::no, "fails repeat, swallows_batch flat"},
                      expected{"loop_captured_shared", model::batch_verdict::no, "fails repeat, swallows_batch flat"},
                      expected{"qdq_pair", model::batch_verdict::yes, ""},
                      expected{"com_microsoft", model::batch_verdict::cannot_tell, "cannot_tell gelu"},
                      expected{"external_data", model::batch_verdict::yes, ""},
                      expected{"external_pattern", model::batch_verdict::no, "swallows_batch flat"},
                      expected{"batch_moves", model::batch_verdict::no, "fails flat"},
                      expected{"fold_rows", model::batch_verdict::no, "fails rows"},
                      expected{"initializers_as_inputs", model::batch_verdict::no, "swallows_batch flat"},
                      expected{"concat_pattern", model::batch_verdict::no, "swallows_batch flat"},
                      expected{"allowzero_pinned", model::batch_verdict::no, "fails flat"},
                      // The batch size used as a value in the data: each sample's result changes with N.
                      expected{"size_if", model::batch_verdict::no, "mixes_samples branch"},
                      expected{"size_where", model::batch_verdict::no, "mixes_samples pick"},
                      expected{"size_scale", model::batch_verdict::no, "mixes_samples scale"},
                      expected{"size_parity", model::batch_verdict::no, "mixes_samples shift"},
                      expected{"size_constant", model::batch_verdict::yes, ""},
                      // ... and one that changes between the sample batches but not between batch 1 and 4.
                      expected{"size_max", model::batch_verdict::yes, ""},
                      // ... but not where it is read as a shape: the same value at 1 and 4 does not scale.
                      expected{"size_max_pattern", model::batch_verdict::no, "mixes_samples r"},
                      // A slice of the batch that ends between 4 and the sample batches drops nothing at 4.
                      expected{"slice_batch_end_1000", model::batch_verdict::cannot_tell, "cannot_tell cut"},
                      // ... and an If on it whose first branch runs alone only: that branch is not named.
                      expected{"size_if_view", model::batch_verdict::no, "mixes_samples branch"},
                      // An If's branch that runs at no batch: what it writes does not matter.
                      expected{"if_untaken_branch", model::batch_verdict::yes, ""},
                      // An If on the batch size whose branch at 4 is not the one at the sample batches.
                      expected{"size_if_flatten", model::batch_verdict::cannot_tell, "cannot_tell flat, cannot_tell branch"},
                      // ... and one whose other branch runs alone only: the If still mixes samples.
                      expected{"size_if_idle_branch", model::batch_verdict::no, "mixes_samples branch"},
                      // Both branches of an If write the batch as 1: both are named.
                      expected{"if_both_branches", model::batch_verdict::no,
                               "swallows_batch then_flat, swallows_batch else_flat"},
                      // ... and as a parameter that sets a layer's output shape.
                      expected{"size_slice_end", model::batch_verdict::no, "mixes_samples sl"},
                      expected{"size_topk", model::batch_verdict::no, "mixes_samples tk"},
                      // ... and as a parameter that picks other values alone than in a batch, at the same shape.
                      expected{"size_slice_start", model::batch_verdict::no, "mixes_samples cut"},
                      expected{"size_gather_index", model::batch_verdict::no, "mixes_samples pick"},
                      expected{"size_pad_value", model::batch_verdict::no, "mixes_samples pad"},
                      expected{"batch_norm_training", model::batch_verdict::no, "mixes_samples bn"},
                      // The batch folded into the channels, normalised per channel or across them, put back.
                      expected{"group_norm_fold", model::batch_verdict::yes, ""},
                      expected{"group_norm_fold_mixed", model::batch_verdict::no, "swallows_batch to_channels"},
                      // ... and a layer after it that cannot be decided: cannot tell, not no.
                      expected{"fold_cumsum", model::batch_verdict::cannot_tell, "cannot_tell flat, cannot_tell acc"},
                      // The samples interleaved by a Reshape ([3,-1] of [N,3]): kept through elementwise layers
                      // and put back, yes; a Softmax along the interleaved axis or a model output that holds
                      // them, no (the Reshape, as that layer shows); a Transpose of them, cannot tell.
                      expected{"fold_interleave", model::batch_verdict::yes, ""},
                      expected{"fold_interleave_mixed", model::batch_verdict::no, "swallows_batch interleave"},
                      expected{"fold_interleave_output", model::batch_verdict::no, "swallows_batch interleave"},
                      expected{"fold_interleave_transpose", model::batch_verdict::cannot_tell, "cannot_tell t1"},
                      // Nearest to twice the rows along the batch: kept or not by the coordinate mode, not followed.
                      expected{"resize_batch_nearest", model::batch_verdict::cannot_tell, "cannot_tell up"},
                      // A value the same alone and at the batch asked but another at the samples (n > 1000)
                      // steers the layers after it otherwise there: a shape from it is not shared.
                      expected{"fold_interleave_if_rows", model::batch_verdict::cannot_tell, "cannot_tell choose"},
                      // A condition on the batch size the same alone as at the batch asked reads one side.
                      expected{"size_where_alike", model::batch_verdict::no, "mixes_samples pick"},
                      // A parameter the same alone as at the batch asked still acts on another batch.
                      expected{"size_alike_reverse", model::batch_verdict::no, "mixes_samples rev"},
                      // Invalid at every batch: the spec forbids the attribute or input (rule errors).
                      expected{"flatten_axis_past_rank", model::batch_verdict::no, "fails_at_declared flat"},
                      expected{"softmax_axis_out_of_range", model::batch_verdict::no, "fails_at_declared soft"},
                      expected{"instance_norm_scale_length", model::batch_verdict::no, "fails_at_declared norm"},
                      expected{"tile_repeats_length", model::batch_verdict::no, "fails_at_declared t"},
                      expected{"gather_real_indices", model::batch_verdict::no, "fails_at_declared pick"},
                      expected{"slice_matrix_starts", model::batch_verdict::no, "fails_at_declared cut"},
                      // the batch folded into the channels by a written 1 and put back: right at every batch
                      expected{"leading_one_right", model::batch_verdict::yes, ""}),
    [](const auto& p) { return std::string(p.param.fixture); });

// A value of the batch size that changes with N (max(N, 4)) mixes samples only where it differs from batch
// 1's: not at 2 or 4, at 8 and at a dynamic batch (which holds the sample batches); at 2..4, where no run
// shows it, cannot tell.
TEST(onnx, a_batch_size_value_is_judged_at_the_batches_asked) {
  const auto g = read_fixture("size_max");
  const std::vector<std::pair<std::string, model::batch_verdict>> cases{
      {"2", model::batch_verdict::yes},  {"4", model::batch_verdict::yes},
      {"8", model::batch_verdict::no},   {"?", model::batch_verdict::no},
      {"2..4", model::batch_verdict::cannot_tell}};
  for (const auto& [batch, verdict] : cases) {
    const auto r = model::check_batch(g, {.batch = model::parse_batch(batch, "batch")});
    EXPECT_EQ(r.summary.verdict(), verdict) << batch << ": " << r.summary_line();
  }
}

// Where(n < 3, x, float(n)): alike alone and at 1..2, so float(n) reaches no sample there (yes); at 3 and
// more it does (no). Mul(x, w[:Where(n > 1000, 1, 3)]): at 3 the factor has 3 rows, at the samples 1: the
// samples do not show what it does (cannot tell); at 2 and 4 it fails.
TEST(onnx, a_batch_size_value_alike_alone_is_judged_at_the_batch_asked) {
  const auto where = read_fixture("size_where_alike");
  const auto slice = read_fixture("size_shape_beyond_samples");
  const auto four = read_fixture("size_equal_four");
  const std::vector<std::tuple<const model::graph*, std::string, model::batch_verdict>> cases{
      {&where, "2", model::batch_verdict::yes},   {&where, "1..2", model::batch_verdict::yes},
      {&where, "3", model::batch_verdict::no},    {&where, "?", model::batch_verdict::no},
      {&slice, "3", model::batch_verdict::cannot_tell}, {&slice, "4", model::batch_verdict::no},
      // A parameter n == 4 ? 3 : 2: batch 1's at 2, not at 4, unproven over ? and 1..8.
      {&four, "2", model::batch_verdict::yes},   {&four, "4", model::batch_verdict::no},
      {&four, "?", model::batch_verdict::cannot_tell}, {&four, "1..8", model::batch_verdict::cannot_tell}};
  for (const auto& [g, batch, verdict] : cases) {
    const auto r = model::check_batch(*g, {.batch = model::parse_batch(batch, "batch")});
    EXPECT_EQ(r.summary.verdict(), verdict) << g->name() << " at " << batch << ": " << r.summary_line();
  }
}

// At a batch past its end, the same slice drops samples.
TEST(onnx, a_slice_of_the_batch_past_its_end_drops_samples) {
  const auto r = model::check_batch(read_fixture("slice_batch_end_1000"), {.batch = dimension(2000)});
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::no) << r.summary_line();
  EXPECT_EQ(listed(r), "drops_samples cut");
}

// A node reshape1 does not translate has no output shapes: --assume-kept would not give them, so it is not
// offered, before or after the user tried it.
TEST(onnx, an_untranslated_node_is_not_offered_to_assume_kept) {
  const auto g = read_fixture("fold_cumsum");
  for (const auto& kept : {std::vector<std::string>{}, std::vector<std::string>{"CumSum"}}) {
    const auto r = model::check_batch(g, {.batch = dimension(4), .assume_kept = kept});
    ASSERT_EQ(r.findings.size(), 2u);
    EXPECT_EQ(r.findings[1].name, "acc");
    EXPECT_EQ(r.findings[1].hint,
              "reshape1 does not translate CumSum-14 yet, so its outputs' shapes are unknown and vouching for it with "
              "assume_kept cannot help; docs/onnx.md lists the ops it translates");
    EXPECT_NE(r.findings[0].what.find("one cannot tell whether it keeps each sample apart"), std::string::npos)
        << r.findings[0].what;
  }
}

TEST(onnx, a_node_is_one_layer_with_its_index_as_id_and_its_helpers_are_marked) {
  const auto g = read_fixture("computed_pattern");
  const auto* reshape = g.find(4);  // node 4, "flat"
  ASSERT_NE(reshape, nullptr);
  EXPECT_EQ(reshape->type, "Reshape");
  EXPECT_EQ(reshape->name, "flat");
  EXPECT_FALSE(reshape->auxiliary);
  EXPECT_TRUE(reshape->flag("special_zero"));  // allowzero absent: 0 copies
  // Gather's axis becomes a Const input of Gather-8, a layer of the node "batch" that is not its own.
  bool helper = false;
  for (const auto& l : g.layers()) helper = helper || (l.name == "batch" && l.auxiliary && l.type == "Const");
  EXPECT_TRUE(helper);
  const auto report = model::check(g);
  ASSERT_EQ(report.reshapes.size(), 1u);
  EXPECT_EQ(report.reshapes[0].name, "flat");
  EXPECT_EQ(report.reshapes[0].result, model::verdict::ok);
  EXPECT_FALSE(report.summary.failed());
}

TEST(onnx, allowzero_is_the_opposite_of_special_zero) {
  const auto g = read_fixture("allowzero_literal");
  EXPECT_FALSE(g.find(0)->flag("special_zero"));
  const auto report = model::check(g);
  ASSERT_EQ(report.reshapes.size(), 1u);
  EXPECT_EQ(report.reshapes[0].result, model::verdict::error);
  EXPECT_EQ(report.reshapes[0].code, errc::infer_zero);
}

TEST(onnx, a_node_of_another_domain_is_not_covered_and_named) {
  const auto g = read_fixture("com_microsoft");
  const auto report = model::check(g);
  ASSERT_EQ(report.summary.layers.not_covered, 1u);
  const auto& f = report.layers[0];
  EXPECT_EQ(f.name, "gelu");
  EXPECT_EQ(f.type, "com.microsoft.Gelu");
  EXPECT_EQ(f.id, 1);
  EXPECT_EQ(f.message, "layer 'gelu' (id 1): Gelu of domain 'com.microsoft' has no translation; its outputs are unknown");
  EXPECT_EQ(f.opset, 1);  // the version of com.microsoft the model imports
  // The hint names the op as findings do, and does not offer vouching for it: that does not make shapes a
  // layer without a translation cannot give.
  const auto r = model::check_batch(g, {.batch = dimension(4)});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].hint,
            "reshape1 does not translate com.microsoft.Gelu-1 yet, so its outputs' shapes are unknown and vouching "
            "for it with assume_kept cannot help; docs/onnx.md lists the ops it translates");
}

TEST(onnx, findings_name_the_nodes_op_type_and_version) {
  const auto g = read_fixture("constant_node_shape");
  const auto r = model::check_batch(g, {.batch = dimension(4)});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].type, "Reshape");
  EXPECT_EQ(r.findings[0].opset, 5);  // Reshape-5 is what opset 13 runs (allowzero came at 14)
  EXPECT_EQ(g.find(1)->type, "Reshape");
  EXPECT_EQ(g.find(1)->op_version(), 5);
}

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

// The axes of a reduction move from an attribute to an input (ReduceSum at 13, the others at 18): each
// form is read at its own opsets. (Translated as one row from version 1, the input form was taken for
// "no axes attribute", every axis reduced.)
TEST(onnx, reductions_read_their_axes_from_the_attribute_or_the_input_by_opset) {
  struct reduction {
    const char* op;
    int opset;
    bool axes_input;
  };
  for (const auto& r : {reduction{"ReduceSum", 11, false}, reduction{"ReduceSum", 13, true},
                        reduction{"ReduceMean", 13, false}, reduction{"ReduceMean", 18, true},
                        reduction{"ReduceMax", 18, true}, reduction{"ReduceMin", 18, true},
                        reduction{"ReduceProd", 18, true}, reduction{"ReduceL1", 18, true},
                        reduction{"ReduceL2", 18, true}}) {
    for (const int keep : {0, 1}) {
      SCOPED_TRACE(fmt::format("{}-{} keepdims={}", r.op, r.opset, keep));
      const auto text = fmt::format(R"(
        ir_version: 8 opset_import {{ domain: "" version: {1} }}
        graph {{
          name: "reduce"
          input {{ name: "x" type {{ tensor_type {{ elem_type: 1 shape {{ dim {{ dim_value: 2 }} dim {{ dim_value: 3 }} dim {{ dim_value: 4 }} }} }} }} }}
          initializer {{ name: "axes" data_type: 7 dims: [1] int64_data: [2] }}
          node {{ name: "r" op_type: "{0}" input: [{2}] output: ["y"] {3}
                 attribute {{ name: "keepdims" type: INT i: {4} }} }}
          output {{ name: "y" type {{ tensor_type {{ elem_type: 1 }} }} }}
        }})",
                                    r.op, r.opset, r.axes_input ? R"("x", "axes")" : R"("x")",
                                    r.axes_input ? "" : R"(attribute { name: "axes" type: INTS ints: [2] })", keep);
      ::onnx::ModelProto m;
      ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m));
      const auto g = read_bytes(m.SerializeAsString(), "reduce.onnx");
      const auto p = model::propagate(g);
      const auto& result = g.layers()[g.order().back()];
      EXPECT_EQ(to_string(p.input(g, result, 0).shape), keep != 0 ? "[2,3,1]" : "[2,3]");
    }
  }
  // An empty axes input: every axis, or none with noop_with_empty_axes.
  for (const auto& [noop, want] : {std::pair{0, "[]"}, std::pair{1, "[2,3,4]"}}) {
    SCOPED_TRACE(fmt::format("noop_with_empty_axes={}", noop));
    const auto text = fmt::format(R"(
      ir_version: 8 opset_import {{ domain: "" version: 13 }}
      graph {{
        name: "reduce"
        input {{ name: "x" type {{ tensor_type {{ elem_type: 1 shape {{ dim {{ dim_value: 2 }} dim {{ dim_value: 3 }} dim {{ dim_value: 4 }} }} }} }} }}
        initializer {{ name: "axes" data_type: 7 dims: [0] }}
        node {{ name: "r" op_type: "ReduceSum" input: ["x", "axes"] output: ["y"]
               attribute {{ name: "keepdims" type: INT i: 0 }} attribute {{ name: "noop_with_empty_axes" type: INT i: {} }} }}
        output {{ name: "y" type {{ tensor_type {{ elem_type: 1 }} }} }}
      }})",
                                  noop);
    ::onnx::ModelProto m;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m));
    const auto g = read_bytes(m.SerializeAsString(), "reduce.onnx");
    const auto p = model::propagate(g);
    EXPECT_EQ(to_string(p.input(g, g.layers()[g.order().back()], 0).shape), want);
  }
}

TEST(onnx, declared_shapes_come_from_outputs_and_value_info_only) {
  const auto g = read_fixture("shared_initializer");
  const auto* relu = g.find(1);
  ASSERT_NE(relu, nullptr);
  EXPECT_FALSE(relu->outputs[0].declared);
  EXPECT_FALSE(relu->outputs[0].shape().rank_known());
  EXPECT_TRUE(g.find(0)->outputs.size() == 1);
}

TEST(onnx, a_model_above_opset_21_is_read_but_its_nodes_are_not_covered) {
  auto bytes = fixture_bytes("allowzero_copy");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_opset_import(0)->set_version(22);
  const auto g = read_bytes(m.SerializeAsString(), "opset22.onnx");
  const auto r = model::check_batch(g, {.batch = dimension(4)});
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell);
  const auto report = model::check(g);
  ASSERT_EQ(report.layers.size(), 1u);
  EXPECT_EQ(report.layers[0].message,
            "layer 'flat' (id 0): the model's opset 22 is outside the versions reshape1 translates (7 to 21); its "
            "outputs are unknown");
}

TEST(onnx, an_unnamed_node_takes_its_first_outputs_name) {
  auto bytes = fixture_bytes("allowzero_copy");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_graph()->mutable_node(0)->clear_name();
  const auto g = read_bytes(m.SerializeAsString(), "unnamed.onnx");
  EXPECT_EQ(g.find(0)->name, "y");
}

/// The message of the error `f` throws, checking its code.
template <class F>
std::string refusal(F f, errc code) {
  try {
    f();
  } catch (const error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(onnx, refuses_bytes_that_are_not_a_model) {
  const auto m = refusal([] { (void)read_bytes("\x08\x07\x12\xff\xff", "junk.onnx"); }, errc::bad_file);
  EXPECT_EQ(m, "junk.onnx: not an ONNX model: protobuf cannot parse it as a ModelProto");
}

TEST(onnx, refuses_an_input_nothing_computes_naming_the_node) {
  auto bytes = fixture_bytes("allowzero_copy");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_graph()->mutable_node(0)->set_input(1, "nowhere");
  const auto msg = refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  EXPECT_EQ(msg,
            "m.onnx: node 'flat' (Reshape, node 0): input 1 'nowhere' is computed by no node before it, and is no graph "
            "input or initializer");
}

// Protobuf merges a graph given twice in one file: its inputs are then listed twice (found by fuzzing fix,
// whose freeing of the batch dimension took the second listing's shorter shape for the first's).
TEST(onnx, refuses_a_graph_input_listed_twice) {
  auto bytes = fixture_bytes("allowzero_copy");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  auto& again = *m.mutable_graph()->add_input();
  again = m.graph().input(0);
  again.mutable_type()->mutable_tensor_type()->mutable_shape()->clear_dim();
  const auto msg = refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  EXPECT_EQ(msg, fmt::format("m.onnx: graph input '{}' is listed twice", m.graph().input(0).name()));
  const auto twice = m.SerializeAsString();
  EXPECT_EQ(refusal([&] { (void)onnx::fix(std::as_bytes(std::span(twice.data(), twice.size())), "m.onnx"); },
                    errc::bad_file),
            msg);
}

// A tensor name is defined once in a graph, as ONNX Runtime requires ("Duplicate definition of name"): a node
// output that an earlier node, an initializer or a graph input already defines is refused, naming both. An
// initializer and a Constant node of one name are weights, the last one counts (ONNX Runtime warns).
TEST(onnx, refuses_a_name_defined_twice) {
  const std::string head = R"(ir_version: 8 opset_import { domain: "" version: 13 }
    graph { name: "twice"
      input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } dim { dim_value: 3 } } } } }
      output { name: "y" type { tensor_type { elem_type: 1 } } })";
  const auto error_of = [&](const std::string& rest) {
    ::onnx::ModelProto m;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(head + rest + "}", &m));
    return refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  };
  const std::string hint = "; a tensor name is defined once in a graph; ONNX Runtime refuses the model";
  EXPECT_EQ(error_of(R"(node { name: "a" op_type: "Relu" input: "x" output: "y" }
                        node { name: "b" op_type: "Sigmoid" input: "x" output: "y" })"),
            "m.onnx: node 'b' (Sigmoid, node 1): output 0 'y' is already defined by node 'a' (Relu, node 0)" + hint);
  EXPECT_EQ(error_of(R"(initializer { name: "y" data_type: 1 dims: 1 float_data: 1 }
                        node { name: "b" op_type: "Sigmoid" input: "x" output: "y" })"),
            "m.onnx: node 'b' (Sigmoid, node 0): output 0 'y' is already defined by an initializer" + hint);
  EXPECT_EQ(error_of(R"(node { name: "b" op_type: "Sigmoid" input: "x" output: "x" }
                        node { name: "c" op_type: "Relu" input: "x" output: "y" })"),
            "m.onnx: node 'b' (Sigmoid, node 0): output 0 'x' is already defined by a graph input" + hint);
  // A Constant node of a graph input's name would give the input a default value (ONNX Runtime makes it an
  // initializer): not read, and not said to be refused by ONNX Runtime.
  ::onnx::ModelProto defaulted;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(head + R"(
      node { name: "c" op_type: "Constant" output: "x" attribute { name: "value" type: TENSOR
             t { data_type: 1 dims: [2, 3] float_data: [1, 2, 3, 4, 5, 6] } } }
      node { name: "r" op_type: "Relu" input: "x" output: "y" } })", &defaulted));
  EXPECT_EQ(refusal([&] { (void)read_bytes(defaulted.SerializeAsString(), "m.onnx"); }, errc::unsupported),
            "m.onnx: node 'c' (Constant, node 0): output 0 'x' is already defined by a graph input; a Constant node "
            "that gives a graph input a default value is not read by reshape1");
  // The last of a weight's definitions is what every node reads, one before the last Constant included, as
  // ONNX Runtime makes every Constant node an initializer before it runs anything.
  for (const bool constant_first : {true, false}) {
    const std::string constant = R"(node { name: "c" op_type: "Constant" output: "s" attribute { name: "value"
        type: TENSOR t { data_type: 7 dims: 2 int64_data: [3, -1] } } })";
    const std::string reshape = R"(node { name: "r" op_type: "Reshape" input: ["x", "s"] output: "y" })";
    ::onnx::ModelProto weights;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
        head + R"(initializer { name: "s" data_type: 7 dims: 2 int64_data: [2, -1] })" +
            (constant_first ? constant + reshape : reshape + constant) + "}",
        &weights));
    const auto g = read_bytes(weights.SerializeAsString(), "m.onnx");
    const auto p = model::propagate(g);
    bool found = false;
    for (std::size_t i = 0; i < g.layers().size(); ++i)
      if (g.layers()[i].name == "r" && g.layers()[i].type == "Reshape") {
        found = true;
        EXPECT_EQ(to_string(p.outputs[i][0].shape), "[3,2]") << "the Constant's [3,-1]; first: " << constant_first;
      }
    EXPECT_TRUE(found);
  }
}

// "; " is where a whole message's hint starts: a tensor name holding it stays in the message.
TEST(onnx, a_name_with_a_semicolon_stays_in_the_message) {
  auto bytes = fixture_bytes("allowzero_copy");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_graph()->mutable_node(0)->set_input(1, "no; where");
  try {
    (void)read_bytes(m.SerializeAsString(), "m.onnx");
    ADD_FAILURE() << "no error";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::bad_file);
    EXPECT_EQ(e.hint(), "");
    EXPECT_EQ(std::string(e.what()),
              "m.onnx: node 'flat' (Reshape, node 0): input 1 'no; where' is computed by no node before it, and is no "
              "graph input or initializer");
  }
}

TEST(onnx, refuses_a_model_without_the_default_domain) {
  auto bytes = fixture_bytes("allowzero_copy");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_opset_import(0)->set_domain("com.example");
  const auto msg = refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  EXPECT_NE(msg.find("imports no version of the default ONNX domain"), std::string::npos) << msg;
}

TEST(onnx, refuses_external_data_that_leaves_the_model_directory) {
  const auto msg = refusal([] { (void)read_fixture("external_escape"); }, errc::bad_file);
  EXPECT_NE(msg.find("initializer 'pattern': its external data '../onnx/external_shape.bin' goes up a directory"),
            std::string::npos)
      << msg;
  auto bytes = fixture_bytes("external_data");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_graph()->mutable_initializer(0)->mutable_external_data(0)->set_value("/etc/passwd");
  const auto absolute = refusal([&] { (void)read_bytes(m.SerializeAsString(), (fixtures / "m.onnx").string()); },
                                errc::bad_file);
  EXPECT_NE(absolute.find("is an absolute path"), std::string::npos) << absolute;
}

TEST(onnx, refuses_external_data_reached_through_a_symbolic_link_out) {
  const auto dir = fs::temp_directory_path() / fmt::format("reshape1_onnx_link_{}", ::getpid());
  fs::create_directories(dir / "model");
  fs::copy_file(fixtures / "external_shape.bin", dir / "outside.bin", fs::copy_options::overwrite_existing);
  fs::create_symlink(dir / "outside.bin", dir / "model" / "external_shape.bin");
  const auto msg = refusal([&] { (void)read_bytes(fixture_bytes("external_data"), (dir / "model" / "m.onnx").string()); },
                           errc::bad_file);
  EXPECT_NE(msg.find("leads out of it through a symbolic link"), std::string::npos) << msg;
  // A link that stays inside the directory is followed.
  fs::remove(dir / "model" / "external_shape.bin");
  fs::copy_file(fixtures / "external_shape.bin", dir / "model" / "data.bin");
  fs::create_symlink("data.bin", dir / "model" / "external_shape.bin");
  EXPECT_NO_THROW((void)read_bytes(fixture_bytes("external_data"), (dir / "model" / "m.onnx").string()));
  fs::remove_all(dir);
}

// What ONNX Runtime refuses to load is refused as it reads: InstanceNormalization below rank 3,
// BatchNormalization in inference mode with its training outputs, or in training mode without them.
TEST(onnx, normalisations_onnx_runtime_refuses_are_refused) {
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(fixture_bytes("instance_norm_scale_length")));
  auto* dims = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  dims->mutable_dim()->DeleteSubrange(2, 2);
  const auto rank2 = refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  EXPECT_NE(rank2.find("node 'norm' (InstanceNormalization, node 0): its input has rank 2"), std::string::npos) << rank2;
  ASSERT_TRUE(m.ParseFromString(fixture_bytes("batch_norm_training")));
  m.mutable_graph()->mutable_node(0)->mutable_attribute(0)->set_i(0);
  const auto inference = refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  EXPECT_NE(inference.find("training_mode=0 with 3 outputs"), std::string::npos) << inference;
  ASSERT_TRUE(m.ParseFromString(fixture_bytes("batch_norm_training")));
  m.mutable_graph()->mutable_node(0)->mutable_output()->DeleteSubrange(1, 2);
  m.mutable_graph()->mutable_output()->DeleteSubrange(1, 2);
  const auto training = refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  EXPECT_NE(training.find("training_mode=1 with 1 output"), std::string::npos) << training;
}

// A location that cannot be resolved says why (a loop of links, a name too long), not that it leads out; one
// with a NUL byte is refused as such, the whole message kept; bytes without a directory find no file.
TEST(onnx, external_data_that_cannot_be_resolved_says_why) {
  const auto dir = fs::temp_directory_path() / fmt::format("reshape1_onnx_loop_{}", ::getpid());
  fs::create_directories(dir);
  fs::create_symlink("b.bin", dir / "a.bin");
  fs::create_symlink("a.bin", dir / "b.bin");
  const auto with_location = [](const std::string& location) {
    ::onnx::ModelProto m;
    EXPECT_TRUE(m.ParseFromString(fixture_bytes("external_data")));
    m.mutable_graph()->mutable_initializer(0)->mutable_external_data(0)->set_value(location);
    return m.SerializeAsString();
  };
  const auto in_dir = (dir / "m.onnx").string();
  const auto loop = refusal([&] { (void)read_bytes(with_location("a.bin"), in_dir); }, errc::bad_file);
  EXPECT_NE(loop.find("its external data 'a.bin' cannot be resolved: Too many levels of symbolic links"),
            std::string::npos) << loop;
  const auto long_name = refusal([&] { (void)read_bytes(with_location(std::string(5000, 'n')), in_dir); }, errc::bad_file);
  EXPECT_NE(long_name.find("cannot be resolved: File name too long"), std::string::npos) << long_name.substr(0, 300);
  EXPECT_EQ(long_name.find("symbolic link"), std::string::npos);
  const auto nul = refusal([&] { (void)read_bytes(with_location(std::string("data\0.bin", 9)), in_dir); }, errc::bad_file);
  EXPECT_NE(nul.find("its external data 'data\\x00.bin' holds a NUL byte, which no file name can; reshape1 reads "
                     "external data only from within the model's directory, or the one base_dir=DIR gives"),
            std::string::npos) << nul;
  const auto memory = refusal([&] { (void)read_bytes(fixture_bytes("external_data"), "<ONNX bytes>"); }, errc::bad_file);
  EXPECT_NE(memory.find("but a model read from memory has no directory to find it in"), std::string::npos) << memory;
  fs::remove_all(dir);
}

// fuzz_onnx: dims that promise 2^50 elements, with a few typed values, allocated the whole tensor before
// the values were counted.
TEST(onnx, refuses_a_tensor_whose_values_are_fewer_than_its_shape_before_allocating) {
  auto bytes = fixture_bytes("allowzero_copy");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  auto* t = m.mutable_graph()->mutable_initializer(0);
  t->clear_dims();
  t->add_dims(std::int64_t{1} << 25);
  t->add_dims(std::int64_t{1} << 25);
  const auto msg = refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  EXPECT_EQ(msg, "m.onnx: tensor 'pattern': 2 values for a tensor of 1125899906842624 elements");
}

TEST(onnx, refuses_external_data_shorter_than_its_tensor) {
  auto bytes = fixture_bytes("external_data");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_graph()->mutable_initializer(0)->mutable_external_data(1)->set_value("24");
  const auto msg = refusal([&] { (void)read_bytes(m.SerializeAsString(), (fixtures / "m.onnx").string()); },
                           errc::bad_file);
  EXPECT_NE(msg.find("reads 16 bytes at byte 24, past the end of the file (32 bytes)"), std::string::npos) << msg;
}

TEST(onnx, many_small_tensors_that_hold_no_values_are_refused_without_reserving_their_size) {
  // 20,000 initializers of 4,096 declared elements and no data: a few bytes each in the file, 32 KiB each
  // had their sizes been reserved (640 MB) before the first was found short.
  auto bytes = fixture_bytes("allowzero_copy");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  for (int k = 0; k < 20000; ++k) {
    auto* t = m.mutable_graph()->add_initializer();
    t->set_name(fmt::format("empty{}", k));
    t->set_data_type(::onnx::TensorProto::INT64);
    t->add_dims(4096);
  }
  const auto msg = refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  EXPECT_EQ(msg, "m.onnx: tensor 'empty0': 0 values for a tensor of 4096 elements");
}

TEST(onnx, read_any_tells_the_formats_apart_by_content) {
  const auto dir = fs::temp_directory_path() / fmt::format("reshape1_onnx_any_{}", ::getpid());
  fs::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir / name, std::ios::binary) << bytes;
    return dir / name;
  };
  // An ONNX model named .xml is still read as ONNX.
  const auto g = onnx::read_any(write("model.xml", fixture_bytes("allowzero_copy")));
  EXPECT_EQ(g.format(), model::model_format::onnx);
  EXPECT_NE(refusal([&] { (void)onnx::read_any(write("m.onnx", fixture_bytes("allowzero_copy")), dir / "m.bin"); },
                    errc::invalid_argument)
                .find("model_bin: an ONNX model keeps its weights inside"),
            std::string::npos);
  EXPECT_NE(refusal([&] { (void)onnx::read_any(write("empty.onnx", "")); }, errc::bad_file).find("not a model: an empty file"),
            std::string::npos);
  EXPECT_NE(refusal([&] { (void)onnx::read_any(write("z.onnx", std::string("PK\x03\x04rest", 8))); }, errc::bad_file)
                .find("a zip archive; unpack it first"),
            std::string::npos);
  EXPECT_NE(refusal([&] { (void)onnx::read_any(write("lfs.onnx", "version https://git-lfs.github.com/spec/v1\n")); },
                    errc::bad_file)
                .find("a Git LFS pointer"),
            std::string::npos);
  EXPECT_NE(refusal([&] { (void)onnx::read_any(write("bytes.onnx", std::string("\xff\xfe\x00\x01", 4))); }, errc::bad_file)
                .find("neither XML nor protobuf (it starts with the bytes ff fe 00 01)"),
            std::string::npos);
  EXPECT_NE(refusal([&] { (void)onnx::read_any(write("text.onnx", "# a comment\n\nir_version: 8\ngraph { name: \"g\" }\n")); },
                    errc::bad_file)
                .find("an ONNX model in protobuf's text format; write it as a binary model first"),
            std::string::npos);
  fs::remove_all(dir);
}

TEST(onnx, every_table_row_names_a_registry_op_or_a_decomposition) {
  // Each (op_type, since) is listed once, sorted, and the list covers the ops of the shared models.
  const auto ops = onnx::covered_ops();
  ASSERT_FALSE(ops.empty());
  for (std::size_t i = 1; i < ops.size(); ++i) EXPECT_LT(ops[i - 1], ops[i]);
  for (const char* op : {"Add", "BatchNormalization", "Cast", "Clip", "Concat", "Constant", "ConstantOfShape", "Conv",
                         "Div", "Equal", "Exp", "Flatten", "Gather", "Gemm", "GlobalAveragePool", "HardSigmoid",
                         "Identity", "LSTM", "Log", "MatMul", "MaxPool", "AveragePool", "Mul", "Neg", "Pad", "Pow",
                         "ReduceMean", "Relu", "Reshape", "Shape", "Sigmoid", "Slice", "Softmax", "Split", "Sqrt",
                         "Squeeze", "Sub", "Tanh", "Transpose", "Unsqueeze"}) {
    EXPECT_TRUE(std::any_of(ops.begin(), ops.end(), [&](const auto& e) { return e.first == op; })) << op;
  }
}

// ---- the shared ONNX models ------------------------------------------------------------------------

const fs::path shared = fs::path(RESHAPE1_SOURCE_DIR) / ".." / "shared" / "onnx-models";

fs::path shared_model(const std::string& folder) {
  for (const auto& e : fs::directory_iterator(shared / folder))
    if (e.path().extension() == ".onnx") return e.path();
  return {};
}

struct shared_expected {
  const char* folder;
  const char* check;  ///< model::check's counts: reshapes, reshape errors, not covered, rule errors
  model::batch_verdict verdict;
  const char* findings;
};

class shared_models : public ::testing::TestWithParam<shared_expected> {};

TEST_P(shared_models, pinned_reports) {
  if (!fs::exists(shared)) GTEST_SKIP() << "../shared is not beside the checkout";
  const auto& e = GetParam();
  const auto g = onnx::read(shared_model(e.folder));
  const auto c = model::check(g);
  EXPECT_EQ(fmt::format("{} reshapes, {} errors, {} not covered, {} rule errors, {} mismatches", c.summary.reshapes.count,
                        c.summary.reshapes.errors, c.summary.layers.not_covered, c.summary.layers.rule_errors,
                        c.summary.layers.shape_mismatches),
            e.check);
  const auto r = model::check_batch(g, {.batch = dimension(4)});
  EXPECT_EQ(r.summary.verdict(), e.verdict) << r.summary_line();
  EXPECT_EQ(listed(r), e.findings);
}

INSTANTIATE_TEST_SUITE_P(
    onnx, shared_models,
    ::testing::Values(
        shared_expected{"ultraface-rfb-320-simplified-opset9", "9 reshapes, 0 errors, 0 not covered, 0 rule errors, 0 mismatches",
                        model::batch_verdict::no,
                        "swallows_batch 328, swallows_batch 342, swallows_batch 374, swallows_batch 388, "
                        "swallows_batch 414, swallows_batch 428, swallows_batch 446, swallows_batch 458"},
        shared_expected{"ultraface-rfb-320-opset9", "9 reshapes, 0 errors, 0 not covered, 0 rule errors, 0 mismatches",
                        model::batch_verdict::yes, ""},
        shared_expected{"dtln-model1-audio-lstm-opset11", "0 reshapes, 0 errors, 0 not covered, 0 rule errors, 0 mismatches",
                        model::batch_verdict::yes, ""},
        shared_expected{"paddleocr-v4-rec-opset9", "9 reshapes, 0 errors, 0 not covered, 0 rule errors, 0 mismatches",
                        model::batch_verdict::cannot_tell, "cannot_tell p2o.Reshape.64"},
        shared_expected{"silero-vad-v4-if-lstm-opset16", "2 reshapes, 0 errors, 0 not covered, 0 rule errors, 0 mismatches",
                        model::batch_verdict::cannot_tell, "cannot_tell Reshape_39"},
        shared_expected{"faceplugin-age-ssrnet-opset9", "6 reshapes, 0 errors, 0 not covered, 0 rule errors, 0 mismatches",
                        model::batch_verdict::yes, ""},
        shared_expected{"faceplugin-headpose-shufflenetv2-opset9",
                        "32 reshapes, 0 errors, 0 not covered, 0 rule errors, 0 mismatches", model::batch_verdict::no,
                        "fails Reshape_13"},
        shared_expected{"faceplugin-landmark-flatten-opset9", "1 reshapes, 0 errors, 0 not covered, 0 rule errors, 0 mismatches",
                        model::batch_verdict::yes, ""}),
    [](const auto& p) {
      std::string n = p.param.folder;
      for (auto& ch : n)
        if (ch == '-' || ch == '.') ch = '_';
      return n;
    });

// A dynamic dimension besides the batch (Silero's audio chunk, PaddleOCR's line width) leaves the sample
// batches' shapes unknown where a pattern reads it: given a size, the answer is ONNX Runtime's.
TEST(onnx, other_dynamic_dimensions_given_a_size) {
  if (!fs::exists(shared)) GTEST_SKIP() << "../shared is not beside the checkout";
  // Without the sizes, the hint asks for them (it suggested vouching for Reshape, which decides nothing);
  // the library spells the option as Python does, the command line as --shape.
  for (const auto& [folder, input] : {std::pair{"silero-vad-v4-if-lstm-opset16", "'input' [4,?]"},
                                      std::pair{"paddleocr-v4-rec-opset9", "'x' [4,3,48,?]"}}) {
    const auto r = model::check_batch(onnx::read(shared_model(folder)), {.batch = dimension(4)});
    ASSERT_EQ(r.findings.size(), 1u) << folder;
    EXPECT_EQ(r.findings[0].hint,
              fmt::format("the shapes here follow the inputs' other dynamic dimensions ({}): give them sizes with shapes",
                          input));
  }
  const auto silero = onnx::read(shared_model("silero-vad-v4-if-lstm-opset16"));
  const auto r = model::check_batch(silero, {.shapes = {{"input", parse_shape("[4,512]")},
                                                        {"h", parse_shape("[2,4,64]")},
                                                        {"c", parse_shape("[2,4,64]")}}});
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::yes) << r.summary_line();
  // h and c hold the dim_param `batch` at axis 1, as input's axis 0 does: that is their batch axis. The
  // sample rate sr is a scalar: no batch.
  for (const auto& in : r.inputs) {
    const std::optional<std::size_t> want = in.name == "sr" ? std::nullopt
                                            : in.name == "input" ? std::optional<std::size_t>(0)
                                                                 : std::optional<std::size_t>(1);
    EXPECT_EQ(in.batch_index, want) << in.name;
  }
  const auto ocr = onnx::read(shared_model("paddleocr-v4-rec-opset9"));
  const auto o = model::check_batch(ocr, {.shapes = {{"x", parse_shape("[4,3,48,320]")}}});
  EXPECT_EQ(o.summary.verdict(), model::batch_verdict::yes) << o.summary_line();
}

// ---- fix --------------------------------------------------------------------------------------------

/// The original model with a fix report's edits applied by hand: what the fixed file must equal.
::onnx::ModelProto with_edits(::onnx::ModelProto m, const onnx::fix_report& r) {
  auto& g = *m.mutable_graph();
  for (const auto& c : r.changes) {
    if (c.cloned_from) {
      for (const auto& t : g.initializer())
        if (t.name() == *c.cloned_from) {
          auto copy = t;
          copy.set_name(c.tensor);
          *g.add_initializer() = copy;
          break;
        }
      g.mutable_node(static_cast<int>(c.node))->set_input(1, c.tensor);
    }
    for (auto& t : *g.mutable_initializer()) {
      if (t.name() != c.tensor) continue;
      if (t.has_raw_data()) {
        std::memcpy(t.mutable_raw_data()->data() + c.element * 8, &c.new_value, 8);
      } else {
        t.set_int64_data(static_cast<int>(c.element), c.new_value);
      }
    }
  }
  for (const auto& f : r.freed) {
    // "<kind> '<name>' dimension <k>[ cleared]"
    const auto kind = f.substr(0, f.find(' '));
    const auto name = f.substr(f.find('\'') + 1, f.rfind('\'') - f.find('\'') - 1);
    const auto k = std::stoi(f.substr(f.find("dimension ") + 10));
    auto* list = kind == "input" ? g.mutable_input() : kind == "output" ? g.mutable_output() : g.mutable_value_info();
    for (auto& v : *list)
      if (v.name() == name) {
        auto* d = v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(k);
        d->clear_dim_value();
        if (f.ends_with("cleared")) {
          d->clear_dim_param();
        } else {
          d->set_dim_param("N");
        }
      }
  }
  return m;
}

TEST(onnx_fix, the_fixed_file_is_the_original_with_the_listed_edits) {
  for (const auto& path : {fs::path(RESHAPE1_TEST_DATA) / "onnx-models/ultraface-rfb-320/version-RFB-320_simplified.onnx",
                           fixtures / "shared_initializer.textproto", fixtures / "constant_node_shape.textproto"}) {
    SCOPED_TRACE(path.string());
    const auto bytes = path.extension() == ".onnx" ? slurp(path) : fixture_bytes(path.stem().string());
    const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), path.string());
    ASSERT_TRUE(r.fixed);
    ASSERT_FALSE(r.model.empty());
    ::onnx::ModelProto original, fixed;
    ASSERT_TRUE(original.ParseFromString(bytes));
    ASSERT_TRUE(fixed.ParseFromString(r.model));
    // A Constant node's value is edited in the node: compare the rest as edited, and the node apart.
    if (path.stem() == "constant_node_shape") {
      EXPECT_EQ(r.changes.size(), 1u);
      const auto& value = fixed.graph().node(0).attribute(0).t();
      EXPECT_EQ(value.int64_data(0), 0);
      original.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_t()->set_int64_data(0, 0);
    }
    std::string diff;
    google::protobuf::util::MessageDifferencer d;
    d.ReportDifferencesToString(&diff);
    EXPECT_TRUE(d.Compare(with_edits(original, r), fixed)) << diff;
    // Nothing but the edits changed: the model was written field for field, so serialising the edited
    // original gives the same bytes; and where the file is protobuf's own serialisation (the shipped
    // UltraFace), every byte outside the edits is the file's.
    EXPECT_EQ(with_edits(original, r).SerializeAsString(), r.model);
    if (path.extension() == ".onnx") {
      ::onnx::ModelProto again;
      ASSERT_TRUE(again.ParseFromString(bytes));
      EXPECT_EQ(again.SerializeAsString(), bytes);
    }
  }
}

TEST(onnx_fix, reports_its_progress_as_the_ir_fix_does) {
  const auto bytes = fixture_bytes("shared_initializer");
  std::vector<std::string> stages;
  std::size_t last_round = 0, kept = 0;
  onnx::fix_options options;
  options.progress = [&](const model::fix_progress& p) {
    if (stages.empty() || stages.back() != p.stage) stages.emplace_back(p.stage);
    last_round = p.round;
    kept = p.kept;
  };
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "shared.onnx", options);
  ASSERT_TRUE(r.fixed);
  const std::vector<std::string> expected{"checking", "judging rewrites", "proving", "writing"};
  EXPECT_EQ(stages, expected);
  EXPECT_EQ(last_round, 2u) << "the second Reshape waits a round for the first";
  EXPECT_EQ(kept, 2u);
}

// A tensor name given twice (two initializers, or an initializer and a Constant node) is the last one, as
// the reader and ONNX Runtime take it ("the model will use the latest encountered initializer"): fix
// rewrites that one, where it rewrote the first and then said the layer still failed.
TEST(onnx_fix, a_name_given_twice_is_rewritten_where_the_reader_takes_it) {
  const std::string head = R"(ir_version: 8 opset_import { domain: "" version: 13 }
    graph { name: "twice"
      input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 3 } dim { dim_value: 2 } } } } }
      output { name: "y" type { tensor_type { elem_type: 1 } } }
      initializer { name: "s" data_type: 7 dims: 2 int64_data: [2, -1] }
      node { name: "r" op_type: "Reshape" input: ["x", "s"] output: ["y"] })";
  for (const auto& [what, second, constant] :
       {std::tuple<std::string, std::string, bool>{"an initializer",
                                                   R"(initializer { name: "s" data_type: 7 dims: 2 int64_data: [3, -1] })", false},
        {"a Constant node", R"(node { name: "c" op_type: "Constant" output: ["s"] attribute { name: "value" type: TENSOR
                                  t { data_type: 7 dims: 2 int64_data: [3, -1] } } })", true}}) {
    ::onnx::ModelProto m;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(head + second + "}", &m)) << what;
    if (constant) m.mutable_graph()->mutable_node()->SwapElements(0, 1);  // the Constant before the Reshape
    const auto bytes = m.SerializeAsString();
    const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "twice.onnx");
    ASSERT_TRUE(r.fixed) << what << ": " << (r.refusals.empty() ? "" : r.refusals[0].reason);
    ASSERT_EQ(r.changes.size(), 1u) << what;
    EXPECT_EQ(r.changes[0].old_pattern, "[3,-1]") << what;
    EXPECT_EQ(r.changes[0].new_pattern, "[0,-1]") << what;
    ::onnx::ModelProto fixed;
    ASSERT_TRUE(fixed.ParseFromString(r.model)) << what;
    const auto& first = fixed.graph().initializer(0);
    EXPECT_EQ(std::vector<std::int64_t>(first.int64_data().begin(), first.int64_data().end()),
              (std::vector<std::int64_t>{2, -1}))
        << what << ": the first definition, which nothing reads, is left as it was";
  }
}

TEST(onnx_fix, a_shared_initializer_rewritten_alike_for_every_reader_stays_one_tensor) {
  // Both Reshapes need pattern[0] = 0: the first one's copy, made while the second waited for it, is
  // merged back once the second is rewritten the same way.
  const auto bytes = fixture_bytes("shared_initializer");
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "shared.onnx");
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 2u);
  for (const auto& c : r.changes) {
    EXPECT_EQ(c.tensor, "pattern") << c.name;
    EXPECT_FALSE(c.cloned_from) << c.name;
  }
  EXPECT_EQ(r.changes[0].name, "first");
  EXPECT_EQ(r.changes[0].new_pattern, "[0,3,2]");
  ::onnx::ModelProto fixed;
  ASSERT_TRUE(fixed.ParseFromString(r.model));
  EXPECT_EQ(fixed.graph().initializer_size(), 1);
}

TEST(onnx_fix, a_shared_initializer_is_cloned_for_the_reshape_that_needs_it) {
  // The pattern is also a value of the graph (an Identity makes it an output): the Reshape gets a copy,
  // and the Identity still reads [1,3,2].
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(fixture_bytes("shared_initializer")));
  auto& second = *m.mutable_graph()->mutable_node(2);
  second.set_op_type("Identity");
  second.clear_input();
  second.add_input("pattern");
  m.mutable_graph()->mutable_node(1)->set_output(0, "y2");  // the Relu's output is an output of its own
  auto* relu_out = m.mutable_graph()->add_output();
  relu_out->set_name("y2");
  relu_out->mutable_type()->mutable_tensor_type()->set_elem_type(1);
  const auto text = m.SerializeAsString();
  const auto r = onnx::fix(std::as_bytes(std::span(text.data(), text.size())), "shared.onnx");
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].tensor, "pattern_for_first");
  EXPECT_EQ(r.changes[0].cloned_from, "pattern");
  EXPECT_EQ(r.changes[0].new_pattern, "[0,3,2]");
  ::onnx::ModelProto fixed;
  ASSERT_TRUE(fixed.ParseFromString(r.model));
  ASSERT_EQ(fixed.graph().initializer_size(), 2);
  EXPECT_EQ(fixed.graph().initializer(0).name(), "pattern");
  EXPECT_EQ(fixed.graph().initializer(0).int64_data(0), 1);
  EXPECT_EQ(fixed.graph().initializer(1).name(), "pattern_for_first");
  EXPECT_EQ(fixed.graph().initializer(1).int64_data(0), 0);
  EXPECT_EQ(fixed.graph().node(0).input(1), "pattern_for_first");
  EXPECT_EQ(fixed.graph().node(2).input(0), "pattern");
}

TEST(onnx_fix, a_pattern_in_external_data_is_written_into_the_fixed_model) {
  const auto bytes = fixture_bytes("external_pattern");
  // Named as if it lay in tests/data/onnx, beside its data file.
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), (fixtures / "external_pattern.onnx").string());
  ASSERT_TRUE(r.fixed);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].old_pattern, "[1,-1]");
  EXPECT_EQ(r.changes[0].new_pattern, "[0,-1]");
  EXPECT_NE(r.changes[0].why.find("now written in the model rather than its external data"), std::string::npos)
      << r.changes[0].why;
  ::onnx::ModelProto fixed;
  ASSERT_TRUE(fixed.ParseFromString(r.model));
  const auto& t = fixed.graph().initializer(0);
  EXPECT_NE(t.data_location(), ::onnx::TensorProto::EXTERNAL);
  EXPECT_EQ(t.external_data_size(), 0);
  ASSERT_EQ(t.raw_data().size(), 16u);
  std::int64_t v[2];
  std::memcpy(v, t.raw_data().data(), 16);
  EXPECT_EQ(v[0], 0);
  EXPECT_EQ(v[1], -1);
  // Read anywhere: the fixed model needs no data file any more.
  const auto again = model::check_batch(read_bytes(r.model, "/nonexistent/fixed.onnx"), {.batch = dimension(4)});
  EXPECT_EQ(again.summary.verdict(), model::batch_verdict::yes) << again.summary_line();
}

TEST(onnx_fix, the_declared_dims_of_if_branches_follow_the_batch) {
  // Each branch declares its output and a tensor inside it at batch 1.
  const auto branch = [](const char* name, const char* op) {
    return fmt::format(R"(
      name: "{0}" node {{ name: "{0}_a" op_type: "{1}" input: ["x"] output: ["{0}_t"] }}
      node {{ name: "{0}_b" op_type: "Neg" input: ["{0}_t"] output: ["{0}_out"] }}
      value_info {{ name: "{0}_t" type {{ tensor_type {{ elem_type: 1 shape {{ dim {{ dim_value: 1 }} dim {{ dim_value: 3 }} }} }} }} }}
      output {{ name: "{0}_out" type {{ tensor_type {{ elem_type: 1 shape {{ dim {{ dim_value: 1 }} dim {{ dim_value: 3 }} }} }} }} }})",
                       name, op);
  };
  const auto text = fmt::format(R"(
    ir_version: 8 opset_import {{ domain: "" version: 13 }}
    graph {{
      name: "branches"
      input {{ name: "x" type {{ tensor_type {{ elem_type: 1 shape {{ dim {{ dim_value: 1 }} dim {{ dim_value: 3 }} }} }} }} }}
      input {{ name: "flag" type {{ tensor_type {{ elem_type: 9 shape {{ }} }} }} }}
      node {{ name: "choose" op_type: "If" input: ["flag"] output: ["y"]
        attribute {{ name: "then_branch" type: GRAPH g {{ {} }} }}
        attribute {{ name: "else_branch" type: GRAPH g {{ {} }} }} }}
      output {{ name: "y" type {{ tensor_type {{ elem_type: 1 shape {{ dim {{ dim_value: 1 }} dim {{ dim_value: 3 }} }} }} }} }}
    }})",
                                branch("then", "Relu"), branch("else", "Abs"));
  ::onnx::ModelProto m;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m));
  const auto bytes = m.SerializeAsString();
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "branches.onnx");
  ASSERT_TRUE(r.fixed);
  EXPECT_TRUE(r.changes.empty());
  const auto freed = fmt::format("{}", fmt::join(r.freed, "; "));
  for (const auto* want : {"input 'x' dimension 0", "output 'y' dimension 0", "branch output 'then_out' dimension 0",
                           "branch value_info 'then_t' dimension 0", "branch output 'else_out' dimension 0",
                           "branch value_info 'else_t' dimension 0"})
    EXPECT_NE(freed.find(want), std::string::npos) << want << " in " << freed;
  ::onnx::ModelProto fixed;
  ASSERT_TRUE(fixed.ParseFromString(r.model));
  for (const auto& a : fixed.graph().node(0).attribute()) {
    EXPECT_EQ(a.g().output(0).type().tensor_type().shape().dim(0).dim_param(), "N") << a.name();
    EXPECT_EQ(a.g().value_info(0).type().tensor_type().shape().dim(0).dim_param(), "N") << a.name();
    EXPECT_EQ(a.g().output(0).type().tensor_type().shape().dim(1).dim_value(), 3) << a.name();
  }
}

TEST(onnx_fix, the_declared_dims_of_loop_and_scan_bodies_follow_the_batch) {
  // A Loop body and a Scan body declare batch 1 in their inputs, outputs and a value_info: ONNX Runtime
  // sizes a Scan body's outputs from them, and fails at batch 2 if they stay.
  const auto bytes = fixture_bytes("body_dims");
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "body_dims.onnx");
  ASSERT_TRUE(r.fixed);
  EXPECT_TRUE(r.changes.empty());
  const auto freed = fmt::format("{}", fmt::join(r.freed, "; "));
  EXPECT_EQ(freed,
            "input 'x' dimension 0; output 'steps' dimension 0; Loop 'repeat' body input 'acc' dimension 0; "
            "Loop 'repeat' body output 'acc_out' dimension 0; Loop 'repeat' body value_info 'sum' dimension 0; "
            "Scan 'running' body input 'step_in' dimension 0; Scan 'running' body output 'step_out' dimension 0");
  ::onnx::ModelProto fixed, original;
  ASSERT_TRUE(fixed.ParseFromString(r.model));
  ASSERT_TRUE(original.ParseFromString(bytes));
  const auto dims = [](const ::onnx::ValueInfoProto& v) {
    std::string s;
    for (const auto& d : v.type().tensor_type().shape().dim())
      s += (s.empty() ? "" : ",") + (d.has_dim_param() ? d.dim_param() : std::to_string(d.dim_value()));
    return s;
  };
  const auto& loop = fixed.graph().node(0).attribute(0).g();
  EXPECT_EQ(dims(loop.input(2)), "N,4,3");
  EXPECT_EQ(dims(loop.output(1)), "N,4,3");
  EXPECT_EQ(dims(loop.value_info(0)), "N,4,3");
  EXPECT_EQ(dims(loop.input(0)), "");  // the iteration number, a scalar: unchanged
  const auto& scan = fixed.graph().node(1).attribute(3).g();
  EXPECT_EQ(dims(scan.input(0)), "N,3");
  EXPECT_EQ(dims(scan.output(0)), "N,3");
  // Nothing else changed: the original with those dims set is the fixed model.
  for (auto* v : {original.mutable_graph()->mutable_input(0), original.mutable_graph()->mutable_output(0)})
    v->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("N");
  auto& ol = *original.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g();
  for (auto* v : {ol.mutable_input(2), ol.mutable_output(1), ol.mutable_value_info(0)})
    v->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("N");
  auto& os = *original.mutable_graph()->mutable_node(1)->mutable_attribute(3)->mutable_g();
  for (auto* v : {os.mutable_input(0), os.mutable_output(0)})
    v->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("N");
  EXPECT_EQ(fixed.SerializeAsString(), original.SerializeAsString());
}

TEST(onnx_fix, rewrites_a_reshape_inside_a_loop_or_scan_body) {
  // scan_reshape: the shape is an initializer of the Scan's body. loop_captured: the Loop's body reads it
  // by name from the top graph, where it is rewritten (and the node keeps reading it by that name).
  struct expected_fix {
    const char* fixture;
    const char* tensor;
    const char* pattern;
    std::int64_t body_layer;  // the Reshape's id in the body
    const char* within;       // the layer that runs the body
  };
  for (const auto& e : {expected_fix{"scan_reshape", "split_shape", "[0,2,3]", 4, "steps"},
                        expected_fix{"loop_captured", "flat_shape", "[0,6]", 5, "repeat"}}) {
    SCOPED_TRACE(e.fixture);
    const auto bytes = fixture_bytes(e.fixture);
    const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), std::string(e.fixture) + ".onnx");
    ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
    ASSERT_EQ(r.changes.size(), 1u);
    const auto& c = r.changes[0];
    EXPECT_EQ(c.tensor, e.tensor);
    EXPECT_EQ(c.new_pattern, e.pattern);
    EXPECT_EQ(c.node, e.body_layer);
    ASSERT_EQ(c.within.size(), 1u);
    EXPECT_EQ(c.within[0].name, e.within);
    // The tensor is rewritten where it is: in the body's initializers, or in the top graph's.
    ::onnx::ModelProto fixed;
    ASSERT_TRUE(fixed.ParseFromString(r.model));
    const ::onnx::TensorProto* t = nullptr;
    for (const auto& i : fixed.graph().initializer())
      if (i.name() == e.tensor) t = &i;
    for (const auto& n : fixed.graph().node())
      for (const auto& a : n.attribute())
        if (a.has_g())
          for (const auto& i : a.g().initializer())
            if (i.name() == e.tensor) t = &i;
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->int64_data(0), 0);
  }
  // A body input named as a tensor around the body hides it: the Reshape reads the input (a shape the
  // Loop carries from that tensor, here unchanged). fix does not follow a carried value back to where it
  // starts, so it leaves the Reshape alone rather than name the outer tensor as the one it reads.
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(fixture_bytes("loop_captured")));
  auto& loop = *m.mutable_graph()->mutable_node(1);
  loop.add_input("flat_shape");  // a second carried value: the shape, passed on unchanged
  loop.add_output("shape_out");
  auto& body = *loop.mutable_attribute(0)->mutable_g();
  auto* in = body.add_input();
  in->set_name("flat_shape");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(7);
  auto* pass = body.add_node();
  pass->set_name("pass");
  pass->set_op_type("Identity");
  pass->add_input("flat_shape");
  pass->add_output("shape_next");
  auto* out = body.add_output();
  out->set_name("shape_next");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(7);
  const auto text = m.SerializeAsString();
  const auto r = onnx::fix(std::as_bytes(std::span(text.data(), text.size())), "hidden.onnx");
  EXPECT_FALSE(r.fixed);
  EXPECT_TRUE(r.changes.empty());
}

TEST(onnx_fix, a_shape_a_body_reads_from_outside_is_copied_when_the_graph_reads_it_too) {
  // loop_captured_shared: the body's Reshape reads a copy of the shape, made in the top graph (the Loop
  // then passes the copy in), and the graph's own reader keeps [1,6].
  const auto text = fixture_bytes("loop_captured_shared");
  const auto r = onnx::fix(std::as_bytes(std::span(text.data(), text.size())), "captured.onnx");
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].tensor, "flat_shape_for_flat");
  EXPECT_EQ(r.changes[0].cloned_from, "flat_shape");
  EXPECT_EQ(r.changes[0].new_pattern, "[0,6]");
  ASSERT_EQ(r.changes[0].within.size(), 1u);
  EXPECT_EQ(r.changes[0].within[0].name, "repeat");
  ::onnx::ModelProto fixed;
  ASSERT_TRUE(fixed.ParseFromString(r.model));
  std::map<std::string, std::int64_t> first;
  for (const auto& i : fixed.graph().initializer())
    if (i.int64_data_size() > 0) first[i.name()] = i.int64_data(0);
  EXPECT_EQ(first["flat_shape"], 1);
  EXPECT_EQ(first["flat_shape_for_flat"], 0);
  EXPECT_EQ(fixed.graph().node(1).attribute(0).g().node(1).input(1), "flat_shape_for_flat");
  EXPECT_EQ(fixed.graph().node(2).input(0), "flat_shape");  // the Cast
}

// Two chained Reshapes plan alike in a Scan's body and in the top graph: the second is judged with the
// first one's rewrite, not on its own.
TEST(onnx_fix, chained_reshapes_in_a_body_are_planned_as_in_the_top_graph) {
  const auto chain = [](bool in_body) {
    const std::string nodes = R"(
      node { name: "r1" op_type: "Reshape" input: ["IN", "s1"] output: ["a"] }
      node { name: "r2" op_type: "Reshape" input: ["a", "s2"] output: ["b"] })";
    const std::string shapes = R"(
      initializer { name: "s1" data_type: 7 dims: [2] int64_data: [1, -1] }
      initializer { name: "s2" data_type: 7 dims: [2] int64_data: [1, 6] })";
    const auto replaced = [](std::string text, const std::string& with) {
      return text.replace(text.find("IN"), 2, with);
    };
    const std::string text =
        in_body ? R"(
      ir_version: 8 opset_import { domain: "" version: 13 }
      graph {
        name: "chain"
        input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 1 } dim { dim_value: 4 } dim { dim_value: 6 } } } } }
        node { name: "steps" op_type: "Scan" input: ["x"] output: ["ys"]
          attribute { name: "num_scan_inputs" type: INT i: 1 }
          attribute { name: "scan_input_axes" type: INTS ints: [1] }
          attribute { name: "scan_output_axes" type: INTS ints: [1] }
          attribute { name: "body" type: GRAPH g {
            name: "body"
            input { name: "step" type { tensor_type { elem_type: 1 shape { dim { dim_value: 1 } dim { dim_value: 6 } } } } })" +
                      shapes + replaced(nodes, "step") + R"(
            output { name: "b" type { tensor_type { elem_type: 1 } } } } } }
        output { name: "ys" type { tensor_type { elem_type: 1 } } }
      })"
                : R"(
      ir_version: 8 opset_import { domain: "" version: 13 }
      graph {
        name: "chain"
        input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 1 } dim { dim_value: 6 } } } } })" +
                      shapes + replaced(nodes, "x") + R"(
        output { name: "b" type { tensor_type { elem_type: 1 } } }
      })";
    ::onnx::ModelProto m;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m));
    const auto bytes = m.SerializeAsString();
    return onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "chain.onnx");
  };
  const auto top = chain(false);
  const auto body = chain(true);
  ASSERT_TRUE(top.fixed);
  ASSERT_TRUE(body.fixed);
  ASSERT_EQ(top.changes.size(), body.changes.size());
  for (std::size_t k = 0; k < top.changes.size(); ++k) {
    EXPECT_EQ(body.changes[k].name, top.changes[k].name);
    EXPECT_EQ(body.changes[k].new_pattern, top.changes[k].new_pattern);
    EXPECT_EQ(body.changes[k].within.size(), 1u);
  }
}

// An If inside a Loop's body is lowered into the body: its branches' declared dims follow the batch too.
TEST(onnx_fix, the_declared_dims_of_if_branches_inside_a_body_follow_the_batch) {
  const auto branch = [](const char* name, const char* op) {
    return fmt::format(R"(
      name: "{0}" node {{ name: "{0}_a" op_type: "{1}" input: ["acc"] output: ["{0}_out"] }}
      output {{ name: "{0}_out" type {{ tensor_type {{ elem_type: 1 shape {{ dim {{ dim_value: 1 }} dim {{ dim_value: 3 }} }} }} }} }})",
                       name, op);
  };
  const auto text = fmt::format(R"(
    ir_version: 8 opset_import {{ domain: "" version: 13 }}
    graph {{
      name: "loop_if"
      input {{ name: "x" type {{ tensor_type {{ elem_type: 1 shape {{ dim {{ dim_value: 1 }} dim {{ dim_value: 3 }} }} }} }} }}
      input {{ name: "flag" type {{ tensor_type {{ elem_type: 9 shape {{ }} }} }} }}
      initializer {{ name: "trips" data_type: 7 int64_data: [2] }}
      initializer {{ name: "go" data_type: 9 int32_data: [1] }}
      node {{ name: "repeat" op_type: "Loop" input: ["trips", "go", "x"] output: ["y"]
        attribute {{ name: "body" type: GRAPH g {{
          name: "body"
          input {{ name: "i" type {{ tensor_type {{ elem_type: 7 shape {{ }} }} }} }}
          input {{ name: "c" type {{ tensor_type {{ elem_type: 9 shape {{ }} }} }} }}
          input {{ name: "acc" type {{ tensor_type {{ elem_type: 1 }} }} }}
          node {{ name: "keep_going" op_type: "Identity" input: ["c"] output: ["c_out"] }}
          node {{ name: "choose" op_type: "If" input: ["flag"] output: ["acc_out"]
            attribute {{ name: "then_branch" type: GRAPH g {{ {} }} }}
            attribute {{ name: "else_branch" type: GRAPH g {{ {} }} }} }}
          output {{ name: "c_out" type {{ tensor_type {{ elem_type: 9 shape {{ }} }} }} }}
          output {{ name: "acc_out" type {{ tensor_type {{ elem_type: 1 }} }} }} }} }} }}
      output {{ name: "y" type {{ tensor_type {{ elem_type: 1 }} }} }}
    }})",
                                branch("then", "Relu"), branch("else", "Neg"));
  ::onnx::ModelProto m;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m));
  const auto bytes = m.SerializeAsString();
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "loop_if.onnx");
  const auto freed = fmt::format("{}", fmt::join(r.freed, "; "));
  for (const auto* want : {"Loop 'repeat' body branch output 'then_out' dimension 0",
                           "Loop 'repeat' body branch output 'else_out' dimension 0"})
    EXPECT_NE(freed.find(want), std::string::npos) << want << " in " << freed;
}

TEST(onnx_fix, a_pattern_that_fails_gets_minus_one_where_the_checks_hold) {
  // [1,6] after an Unsqueeze that puts the batch at axis 1: 0 would copy the 1 in front of it. The
  // finding names no element (the pattern fails), so -1 is tried at each element in turn.
  for (const auto& [name, want] : {std::pair{"batch_moves", "[-1,6]"}, std::pair{"fold_rows", "[-1,3]"}}) {
    SCOPED_TRACE(name);
    const auto bytes = fixture_bytes(name);
    const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), std::string(name) + ".onnx");
    ASSERT_TRUE(r.fixed);
    ASSERT_EQ(r.changes.size(), 1u);
    EXPECT_EQ(r.changes[0].new_pattern, want);
    EXPECT_NE(r.changes[0].why.find("folds the declared batch"), std::string::npos) << r.changes[0].why;
  }
}

TEST(onnx_fix, rewrites_a_reshape_inside_an_if_branch) {
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(fixture_bytes("if_branches")));
  // As written: the else branch reads the top graph's initializer 'pin'. Then with its shape held by a
  // Constant node inside the branch.
  ::onnx::ModelProto inner = m;
  auto& g = *inner.mutable_graph();
  const auto pin = g.initializer(1);
  ASSERT_EQ(pin.name(), "pin");
  g.mutable_initializer()->RemoveLast();
  auto* else_branch = g.mutable_node(0)->mutable_attribute(1)->mutable_g();
  ::onnx::NodeProto constant;
  constant.set_name("pin_node");
  constant.set_op_type("Constant");
  constant.add_output("pin");
  auto* value = constant.add_attribute();
  value->set_name("value");
  value->set_type(::onnx::AttributeProto::TENSOR);
  *value->mutable_t() = pin;
  value->mutable_t()->clear_name();
  *else_branch->add_node() = constant;
  else_branch->mutable_node()->SwapElements(0, 1);  // the Constant first
  for (const auto* model : {&m, &inner}) {
    const auto bytes = model->SerializeAsString();
    const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "if.onnx");
    ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
    ASSERT_EQ(r.changes.size(), 1u);
    EXPECT_EQ(r.changes[0].name, "else_flat");
    EXPECT_EQ(r.changes[0].tensor, "pin");
    EXPECT_EQ(r.changes[0].new_pattern, "[0,-1]");
    ::onnx::ModelProto fixed;
    ASSERT_TRUE(fixed.ParseFromString(r.model));
    EXPECT_EQ(fixed.graph().node_size(), model->graph().node_size());
    const auto back = model::check_batch(read_bytes(r.model, "fixed.onnx"), {.batch = dimension(4)});
    EXPECT_EQ(back.summary.verdict(), model::batch_verdict::yes) << back.summary_line();
  }
}

TEST(onnx_fix, takes_the_batch_axis_from_a_layout) {
  // Time-major [T,N,C] = [5,1,4], made batch-first and flattened as [1,20]: with the layout, the batch is
  // axis 1, the Reshape's 1 becomes 0, and the input's dimension 1 is freed.
  ::onnx::ModelProto m;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"(ir_version: 8
    opset_import { domain: "" version: 13 }
    graph {
      name: "time_major"
      input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 5 } dim { dim_value: 1 } dim { dim_value: 4 } } } } }
      initializer { name: "pattern" data_type: 7 dims: 2 int64_data: [1, 20] }
      node { name: "batch_first" op_type: "Transpose" input: ["x"] output: ["t"] attribute { name: "perm" type: INTS ints: [1, 0, 2] } }
      node { name: "flat" op_type: "Reshape" input: ["t", "pattern"] output: ["y"] }
      output { name: "y" type { tensor_type { elem_type: 1 shape { dim { dim_value: 1 } dim { dim_value: 20 } } } } }
    })", &m));
  const auto bytes = m.SerializeAsString();
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "tnc.onnx", {.layouts = {{"x", "TNC"}}});
  ASSERT_TRUE(r.fixed);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].new_pattern, "[0,20]");
  ASSERT_FALSE(r.freed.empty());
  EXPECT_EQ(r.freed[0], "input 'x' dimension 1");
  // Without it, axis 0 (T) is taken for the batch, and [1,20] cannot follow it.
  EXPECT_FALSE(onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "tnc.onnx").fixed);
  const auto wrong = [&] {
    (void)onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "tnc.onnx", {.layouts = {{"y", "NC"}}});
  };
  EXPECT_THROW(wrong(), error);
}

TEST(onnx_fix, rewrites_branch_reshapes_that_share_their_shape_and_a_constant_condition_if) {
  // Both branches flatten with one initializer [1,-1]: both need the same rewrite, made once in it.
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(fixture_bytes("if_branches")));
  m.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g()->mutable_node(0)->set_input(1, "pin");
  {
    const auto bytes = m.SerializeAsString();
    const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "shared.onnx");
    ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
    ASSERT_EQ(r.changes.size(), 2u);
    EXPECT_EQ(r.changes[0].name, "then_flat");
    EXPECT_EQ(r.changes[1].name, "else_flat");
    for (const auto& c : r.changes) {
      EXPECT_EQ(c.tensor, "pin") << c.name;
      EXPECT_FALSE(c.cloned_from) << c.name;
    }
    // The ids are those of the fixed model's layers, as check gives them.
    const auto g = read_bytes(r.model, "fixed.onnx");
    for (const auto& c : r.changes) {
      ASSERT_NE(g.find(c.node), nullptr) << c.name;
      EXPECT_EQ(g.find(c.node)->name, c.name);
    }
  }
  // A constant condition: the If's output is the then branch's Reshape's, inlined.
  ::onnx::ModelProto constant = m;
  auto* flag = constant.mutable_graph()->add_initializer();
  flag->set_name("flag");
  flag->set_data_type(::onnx::TensorProto::BOOL);
  flag->add_int32_data(1);
  constant.mutable_graph()->mutable_input()->RemoveLast();  // flag is no input any more
  const auto bytes = constant.SerializeAsString();
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "constant.onnx");
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].name, "then_flat");
}

TEST(onnx_fix, refuses_what_it_cannot_prove_and_writes_nothing) {
  const auto bytes = fixture_bytes("allowzero_literal");
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "allowzero.onnx");
  EXPECT_FALSE(r.fixed);
  EXPECT_TRUE(r.model.empty());
  ASSERT_FALSE(r.refusals.empty());
  EXPECT_EQ(r.refusals[0].name, "flat");
  EXPECT_THROW(onnx::write_fixed(r, "allowzero.onnx", "out.onnx"), error);
}

// ---- against ONNX's own shape inference -------------------------------------------------------------
// ONNX's InferShapes (1.12, opsets up to 17) writes the shapes it infers into value_info; reshape1 then
// compares each with what it propagates, as it compares an IR's declared shapes. A shape_mismatch would
// be a disagreement between the two; none is allowed. reshape1 may know more (ONNX 1.12 gives the
// simplified UltraFace's Reshapes [1,?,2]): only the reverse, ONNX static where reshape1 has an interval,
// is counted (refinable), and pinned.

struct inferred_expected {
  const char* folder;
  int inferred;  ///< value_info entries InferShapes adds (the simplified UltraFace declares them all already)
  std::size_t refinable;
};

class against_onnx_inference : public ::testing::TestWithParam<inferred_expected> {};

TEST_P(against_onnx_inference, no_shape_disagrees) {
  if (!fs::exists(shared)) GTEST_SKIP() << "../shared is not beside the checkout";
  const auto& e = GetParam();
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(slurp(shared_model(e.folder))));
  const auto declared_before = m.graph().value_info_size();
  ::onnx::shape_inference::InferShapes(m);
  EXPECT_EQ(m.graph().value_info_size() - declared_before, e.inferred);
  const auto g = read_bytes(m.SerializeAsString(), e.folder);
  const auto report = model::check(g);
  EXPECT_EQ(report.summary.layers.shape_mismatches, 0u);
  EXPECT_EQ(report.summary.layers.refinable, e.refinable);
  for (const auto& f : report.layers)
    if (f.issue == model::layer_issue::shape_mismatch)
      ADD_FAILURE() << f.name << " (" << f.type << "): ONNX " << to_string(f.declared) << ", reshape1 "
                    << to_string(f.propagated);
}

INSTANTIATE_TEST_SUITE_P(onnx, against_onnx_inference,
                         ::testing::Values(inferred_expected{"ultraface-rfb-320-simplified-opset9", 0, 0},
                                           inferred_expected{"ultraface-rfb-320-opset9", 240, 0},
                                           inferred_expected{"dtln-model1-audio-lstm-opset11", 38, 0},
                                           inferred_expected{"paddleocr-v4-rec-opset9", 764, 0},
                                           inferred_expected{"silero-vad-v4-if-lstm-opset16", 1, 0},
                                           inferred_expected{"faceplugin-age-ssrnet-opset9", 132, 0},
                                           inferred_expected{"faceplugin-headpose-shufflenetv2-opset9", 217, 0},
                                           inferred_expected{"faceplugin-landmark-flatten-opset9", 78, 0}),
                         [](const auto& p) {
                           std::string n = p.param.folder;
                           for (auto& ch : n)
                             if (ch == '-' || ch == '.') ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace reshape1::test
