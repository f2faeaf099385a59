// The ONNX reader: each fixture of tests/data/onnx (protobuf text, parsed here) read and checked at batch 4;
// the shared ONNX models (when ../shared is beside the checkout, always in CI) with their reports pinned;
// and the reader's refusals, each naming what is wrong and where. ONNX's fix has its own suite
// (onnx_fix_test.cpp).
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
#include "onnx_test_util.hpp"

namespace reshape1::test {
namespace {

namespace fs = std::filesystem;

// The fixtures and how they are read: onnx_test_util.hpp.

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
                      expected{"com_microsoft", model::batch_verdict::yes, ""},
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
                      expected{"fold_scaler", model::batch_verdict::cannot_tell, "cannot_tell flat, cannot_tell acc"},
                      // ... and a running sum along the fold: no.
                      expected{"fold_cumsum", model::batch_verdict::no, "swallows_batch flat"},
                      // The samples interleaved by a Reshape ([3,-1] of [N,3]): kept through elementwise layers
                      // and put back, yes; a Softmax along the interleaved axis or a model output that holds
                      // them, no (the Reshape, as that layer shows); a Transpose of them, cannot tell.
                      expected{"fold_interleave", model::batch_verdict::yes, ""},
                      expected{"fold_interleave_mixed", model::batch_verdict::no, "swallows_batch interleave"},
                      expected{"fold_interleave_output", model::batch_verdict::no, "swallows_batch interleave"},
                      expected{"fold_interleave_transpose", model::batch_verdict::cannot_tell, "cannot_tell t1"},
                      // A Flatten past a dynamic size ([N,8,L,L] to [N·8·L,L]): the sample batches know neither
                      // output dimension, so nothing is decided there without a size for L.
                      expected{"flatten_past_size", model::batch_verdict::cannot_tell, "cannot_tell flatten"},
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

// A finding's code and args are what proves it: a Reshape blamed for what a later layer or a model output
// does to the samples it interleaved carries that layer's or output's reason; alone, its own.
TEST(onnx, a_reshape_blamed_for_a_later_layer_carries_its_reason) {
  const auto find = [](const model::batch_report& r) {
    EXPECT_EQ(r.findings.size(), 1U) << listed(r);
    return r.findings.empty() ? model::batch_finding{} : r.findings.front();
  };
  const auto mixed = find(model::check_batch(read_fixture("fold_interleave_mixed"), {.batch = dimension(4)}));
  EXPECT_EQ(mixed.issue, model::batch_issue::swallows_batch);
  EXPECT_EQ(mixed.type, "Reshape");
  EXPECT_EQ(mixed.code, "batch_on_softmax_axis");
  const model::reason_args softmax_input{{"port", std::int64_t{0}}, {"axis", std::int64_t{1}}};
  EXPECT_EQ(mixed.args, softmax_input);
  EXPECT_TRUE(mixed.used_by_id.has_value());
  const auto output = find(model::check_batch(read_fixture("fold_interleave_output"), {.batch = dimension(4)}));
  EXPECT_EQ(output.code, "output_interleaved");
  ASSERT_EQ(output.args.size(), 2U);
  EXPECT_EQ(output.args[0].first, "output_id");
  EXPECT_EQ(std::get<std::int64_t>(output.args[0].second), *output.used_by_id);
  const auto cumsum = model::check_batch(read_fixture("fold_scaler"), {.batch = dimension(4)});
  ASSERT_EQ(listed(cumsum), "cannot_tell flat, cannot_tell acc");
  const auto& replaced = cumsum.findings.front();
  EXPECT_FALSE(replaced.used_by_id.has_value());
  EXPECT_EQ(replaced.code, "replaces_batch");
  const model::reason_args written{{"pattern_index", std::int64_t{0}}, {"value", std::int64_t{1}}};
  EXPECT_EQ(replaced.args, written);
}

// A node reshape1 does not translate has no output shapes: --assume-kept would not give them, so it is not
// offered, before or after the user tried it.
TEST(onnx, an_untranslated_node_is_not_offered_to_assume_kept) {
  const auto g = read_fixture("fold_scaler");
  for (const auto& kept : {std::vector<std::string>{}, std::vector<std::string>{"ai.onnx.ml.Scaler"}}) {
    const auto r = model::check_batch(g, {.batch = dimension(4), .assume_kept = kept});
    ASSERT_EQ(r.findings.size(), 2u);
    EXPECT_EQ(r.findings[1].name, "acc");
    EXPECT_EQ(r.findings[1].hint,
              "ai.onnx.ml.Scaler: reshape1 translates ONNX's default domain and com.microsoft only, so its outputs' "
              "shapes are unknown and vouching for it with assume_kept cannot help; 'reshape1 check --list-ops "
              "--format onnx' lists the ops reshape1 translates");
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
  EXPECT_EQ(report.reshapes[0].code, "infer_zero");
  EXPECT_EQ(report.reshapes[0].error->code, errc::infer_zero);
}

TEST(onnx, a_node_of_another_domain_is_not_covered_and_named) {
  const auto g = read_fixture("fold_scaler");
  const auto report = model::check(g);
  ASSERT_EQ(report.summary.layers.not_covered, 1u);
  const auto& f = report.layers[0];
  EXPECT_EQ(f.name, "acc");
  EXPECT_EQ(f.type, "ai.onnx.ml.Scaler");
  EXPECT_EQ(f.id, 2);
  EXPECT_EQ(f.message,
            "layer 'acc' (id 2): ai.onnx.ml.Scaler: reshape1 translates ONNX's default domain and com.microsoft only; "
            "its outputs are unknown");
  EXPECT_EQ(f.opset, 1);  // the version of ai.onnx.ml the model imports
}

// A com.microsoft node is read at the version of that domain the model imports, and named with it.
TEST(onnx, a_com_microsoft_node_is_translated_at_its_domain_s_version) {
  const auto g = read_fixture("com_microsoft");
  EXPECT_EQ(model::check(g).summary.layers.not_covered, 0u);
  const auto* gelu = g.find(1);
  ASSERT_NE(gelu, nullptr);
  EXPECT_EQ(gelu->type, "Gelu");
  EXPECT_EQ(gelu->op_type(), "com.microsoft.Gelu");
  EXPECT_EQ(gelu->op_version(), 1);
  EXPECT_EQ(model::check_batch(g, {.batch = dimension(4)}).summary.verdict(), model::batch_verdict::yes);
  // Without an import of com.microsoft, ONNX Runtime reads it at version 1 (its only one); another version
  // it does not know.
  auto bytes = fixture_bytes("com_microsoft");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_opset_import()->RemoveLast();
  EXPECT_EQ(model::check(read_bytes(m.SerializeAsString(), "no_import.onnx")).summary.layers.not_covered, 0u);
  auto* v2 = m.add_opset_import();
  v2->set_domain("com.microsoft");
  v2->set_version(2);
  const auto report = model::check(read_bytes(m.SerializeAsString(), "v2.onnx"));
  ASSERT_EQ(report.layers.size(), 1u);
  EXPECT_EQ(report.layers[0].message,
            "layer 'gelu' (id 1): com.microsoft.Gelu: the model imports version 2 of com.microsoft, which has version "
            "1 only; its outputs are unknown");
}

TEST(onnx, findings_name_the_nodes_op_type_and_version) {
  const auto g = read_fixture("constant_node_shape");
  const auto r = model::check_batch(g, {.batch = dimension(4)});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].type, "Reshape");
  EXPECT_EQ(r.findings[0].opset, 13);  // Reshape-13 is what opset 13 runs (translated as Reshape-5: allowzero came at 14)
  EXPECT_EQ(g.find(1)->type, "Reshape");
  EXPECT_EQ(g.find(1)->op_version(), 13);
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

// A dim_param that reads as a symbol's name is that symbol in the top graph's declarations: reports show it
// and dimensions declared with one name are one size. One that would not read back stays unnamed, and so
// does every dim_param of a body (a Loop's graph may reuse a name for another size).
TEST(onnx, dim_params_are_symbols_where_they_read_as_names) {
  const std::string text = R"pb(
    ir_version: 8
    opset_import { domain: "" version: 13 }
    graph {
      name: "named"
      input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_param: "batch" } dim { dim_param: "seq" } dim { dim_value: 3 } } } } }
      input { name: "y" type { tensor_type { elem_type: 1 shape { dim { dim_param: "batch" } dim { dim_param: "floor(seq/2)" } } } } }
      input { name: "m" type { tensor_type { elem_type: 1 shape { dim { dim_param: "batch" } dim { dim_param: "batch" } } } } }
      input { name: "pts" type { tensor_type { elem_type: 1 shape { dim { dim_param: "batch" } dim { dim_param: "N" } } } } }
      node { name: "r" op_type: "Relu" input: ["x"] output: ["z"] }
      output { name: "z" type { tensor_type { elem_type: 1 shape { dim { dim_param: "batch" } dim { dim_param: "seq" } dim { dim_value: 3 } } } } }
    })pb";
  ::onnx::ModelProto m;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m));
  const auto g = read_bytes(m.SerializeAsString(), "named.onnx");
  const auto r = model::check_batch(g, {.batch = dimension(4)});
  ASSERT_EQ(r.inputs.size(), 4u);
  EXPECT_EQ(to_string(r.inputs[0].declared), "[?@batch,?@seq,3]");
  EXPECT_EQ(to_string(r.inputs[1].declared), "[?@batch,?]");
  EXPECT_EQ(to_string(r.inputs[0].requested), "[4,?@seq,3]");
  // Every dimension named as the batch is the batch, not a size apart from it.
  EXPECT_EQ(to_string(r.inputs[2].requested), "[4,4]");
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(to_string(r.outputs[0].declared), "[?@batch,?@seq,3]");
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::yes) << r.summary_line();
  // A dynamic batch is ?@N, but for a model that names another size N (a point count): then N1.
  const auto dynamic = model::check_batch(g, {.batch = dimension()});
  EXPECT_EQ(to_string(dynamic.inputs[3].requested), "[?@N1,?@N]");
  EXPECT_EQ(to_string(dynamic.inputs[2].requested), "[?@N1,?@N1]");
  // A named dimension given a value in one input's shape has it in the inputs the request leaves as
  // declared: y, m and pts follow x to batch 1 (and y's unnamed dimension stays as declared).
  const auto one = model::check_batch(g, {.shapes = {{"x", parse_shape("[1,7,3]")}}});
  EXPECT_EQ(to_string(one.inputs[1].requested), "[1,?]");
  EXPECT_EQ(to_string(one.inputs[2].requested), "[1,1]");
  EXPECT_EQ(to_string(one.inputs[3].requested), "[1,?@N]");
  EXPECT_EQ(one.summary.verdict(), model::batch_verdict::yes) << one.summary_line();

  auto body = fixture_bytes("loop_body");
  ::onnx::ModelProto loop;
  ASSERT_TRUE(loop.ParseFromString(body));
  auto* acc = loop.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g()->mutable_input(2);
  acc->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param("seq");
  const auto lg = read_bytes(loop.SerializeAsString(), "loop.onnx");
  const auto* repeat = lg.find(0);
  ASSERT_NE(repeat, nullptr);
  ASSERT_NE(repeat->body, nullptr);
  bool seen = false;
  for (const auto& l : repeat->body->network.layers())
    if (l.name == "acc") {
      seen = true;
      EXPECT_EQ(to_string(l.outputs[0].shape()), "[?]");
      ASSERT_NE(l.find("shape"), nullptr);
      EXPECT_EQ(l.find("shape")->text, "-1");
    }
  EXPECT_TRUE(seen);
}

TEST(onnx, a_model_above_opset_26_is_read_but_its_nodes_are_not_covered) {
  auto bytes = fixture_bytes("allowzero_copy");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_opset_import(0)->set_version(25);  // Reshape-25: translated
  EXPECT_EQ(model::check(read_bytes(m.SerializeAsString(), "opset25.onnx")).layers.size(), 0u);
  m.mutable_opset_import(0)->set_version(27);
  const auto g = read_bytes(m.SerializeAsString(), "opset27.onnx");
  const auto r = model::check_batch(g, {.batch = dimension(4)});
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell);
  const auto report = model::check(g);
  ASSERT_EQ(report.layers.size(), 1u);
  EXPECT_EQ(report.layers[0].message,
            "layer 'flat' (id 0): the model's opset 27 is above 26, the newest reshape1 knows; its outputs are unknown");
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
  // Each (domain, op_type, since) is listed once, sorted, and the translations cover the ops of the shared
  // models.
  const auto ops = onnx::op_versions();
  ASSERT_FALSE(ops.empty());
  for (std::size_t i = 1; i < ops.size(); ++i)
    EXPECT_LT(std::tie(ops[i - 1].domain, ops[i - 1].op_type, ops[i - 1].since_version),
              std::tie(ops[i].domain, ops[i].op_type, ops[i].since_version));
  for (const char* op : {"Add", "BatchNormalization", "Cast", "Clip", "Concat", "Constant", "ConstantOfShape", "Conv",
                         "Div", "Equal", "Exp", "Flatten", "Gather", "Gemm", "GlobalAveragePool", "HardSigmoid",
                         "Identity", "LSTM", "Log", "MatMul", "MaxPool", "AveragePool", "Mul", "Neg", "Pad", "Pow",
                         "ReduceMean", "Relu", "Reshape", "Shape", "Sigmoid", "Slice", "Softmax", "Split", "Sqrt",
                         "Squeeze", "Sub", "Tanh", "Transpose", "Unsqueeze"}) {
    EXPECT_TRUE(std::any_of(ops.begin(), ops.end(), [&](const auto& e) { return e.op_type == op && e.translated_from; })) << op;
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
                        model::batch_verdict::yes, ""},
        shared_expected{"silero-vad-v4-if-lstm-opset16", "2 reshapes, 0 errors, 0 not covered, 0 rule errors, 0 mismatches",
                        model::batch_verdict::yes, ""},
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

// A dynamic dimension besides the batch (Silero's audio chunk, PaddleOCR's line width) is a size apart from
// the batch: where the sample batches follow it (Silero: a Reshape's -1 over it, the sequence length its LSTM
// reads through a Shape) the batch is decided with it dynamic, as ONNX Runtime confirms (ort_agreement runs
// Silero's and PaddleOCR's fixed files at 1, 2 and 4). A Flatten to [N·8·L,L] has a product the sample
// batches do not know: given a size, the answer is ONNX Runtime's.
TEST(onnx, other_dynamic_dimensions_given_a_size) {
  if (!fs::exists(shared)) GTEST_SKIP() << "../shared is not beside the checkout";
  const auto dynamic = model::check_batch(onnx::read(shared_model("silero-vad-v4-if-lstm-opset16")), {.batch = dimension(4)});
  EXPECT_EQ(dynamic.summary.verdict(), model::batch_verdict::yes) << dynamic.summary_line();
  // PaddleOCR's text width is such a size too: its opset-9 Softmax normalises [N,8,L,L] along the last axis,
  // each row apart (the 2-D coercion's rows are independent: reshape1 keeps the leading dimensions).
  const auto ocr_dynamic = model::check_batch(onnx::read(shared_model("paddleocr-v4-rec-opset9")), {.batch = dimension(4)});
  EXPECT_EQ(ocr_dynamic.summary.verdict(), model::batch_verdict::yes) << ocr_dynamic.summary_line();
  // A Flatten past such a size leaves both output dimensions unknown at the samples: the hint asks for sizes
  // (it suggested vouching for Reshape, which decides nothing); the library spells the option as Python
  // does, the command line as --shape.
  const auto r = model::check_batch(read_fixture("flatten_past_size"), {.batch = dimension(4)});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].name, "flatten");
  EXPECT_EQ(r.findings[0].hint,
            "the shapes here follow the inputs' other dynamic dimensions ('x' [4,8,?@L,?@L]): give them sizes with shapes");
  EXPECT_EQ(model::check_batch(read_fixture("flatten_past_size"), {.shapes = {{"x", parse_shape("[4,8,5,5]")}}})
                .summary.verdict(),
            model::batch_verdict::yes);
  const auto silero = onnx::read(shared_model("silero-vad-v4-if-lstm-opset16"));
  const auto given = model::check_batch(silero, {.shapes = {{"input", parse_shape("[4,512]")},
                                                        {"h", parse_shape("[2,4,64]")},
                                                        {"c", parse_shape("[2,4,64]")}}});
  EXPECT_EQ(given.summary.verdict(), model::batch_verdict::yes) << given.summary_line();
  // h and c hold the dim_param `batch` at axis 1, as input's axis 0 does: that is their batch axis. The
  // sample rate sr is a scalar: no batch.
  for (const auto& in : given.inputs) {
    const std::optional<std::size_t> want = in.name == "sr" ? std::nullopt
                                            : in.name == "input" ? std::optional<std::size_t>(0)
                                                                 : std::optional<std::size_t>(1);
    EXPECT_EQ(in.batch_index, want) << in.name;
  }
  const auto ocr = onnx::read(shared_model("paddleocr-v4-rec-opset9"));
  const auto o = model::check_batch(ocr, {.shapes = {{"x", parse_shape("[4,3,48,320]")}}});
  EXPECT_EQ(o.summary.verdict(), model::batch_verdict::yes) << o.summary_line();
}

// At new sizes (check --shape with an image's height and width changed), a constant the model reads as a
// size, bound or divisor that equals, at the declared shapes, a size that changes on its path cannot tell:
// a fixed-shape export writes x.shape-derived values down. Each fixture is declared at 4x4 and asked at 8x8.
TEST(onnx, constants_that_may_stand_for_a_size_cannot_tell) {
  struct size_case {
    const char* fixture;
    model::batch_verdict verdict;
    const char* code;
    const char* source;  ///< the constant the finding names ("" for none)
  };
  for (const auto& c : {size_case{"size_mean_baked", model::batch_verdict::cannot_tell, "baked_size", "area"},
                        size_case{"size_crop_end", model::batch_verdict::cannot_tell, "baked_size", "ends"},
                        size_case{"size_last_row", model::batch_verdict::cannot_tell, "baked_size", "last"},
                        size_case{"size_pool_window", model::batch_verdict::cannot_tell, "kernel_covers_size", ""},
                        size_case{"size_view_free", model::batch_verdict::yes, "", ""},
                        // Sizes computed from the shape through floats are not constants (a real computed
                        // from a dimension keeps that it was).
                        size_case{"size_resize_from_shape", model::batch_verdict::yes, "", ""}}) {
    SCOPED_TRACE(c.fixture);
    const auto g = read_fixture(c.fixture);
    const auto r = model::check_batch(g, {.shapes = {{"x", parse_shape("[1,3,8,8]")}}});
    EXPECT_EQ(r.summary.verdict(), c.verdict) << r.summary_line();
    if (c.verdict == model::batch_verdict::yes) {
      EXPECT_TRUE(r.findings.empty());
      continue;
    }
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].code, c.code);
    EXPECT_EQ(r.findings[0].source, c.source);
    // At the declared sizes nothing changes: no such finding.
    EXPECT_EQ(model::check_batch(g, {.shapes = {{"x", parse_shape("[1,3,4,4]")}}}).summary.verdict(), model::batch_verdict::yes);
    // Vouched for by name, the constant is not a finding.
    if (*c.source != '\0') {
      EXPECT_EQ(model::check_batch(g, {.shapes = {{"x", parse_shape("[1,3,8,8]")}}, .assume_constant = {c.source}})
                    .summary.verdict(),
                model::batch_verdict::yes);
    }
  }
  // The finding says what the constant equals and what that becomes.
  const auto mean = model::check_batch(read_fixture("size_mean_baked"), {.shapes = {{"x", parse_shape("[1,3,8,8]")}}});
  ASSERT_EQ(mean.findings.size(), 1u);
  EXPECT_EQ(mean.findings[0].what,
            "input 1 element 0 may stand for the size 16: the constant 16 equals 4·4, dimensions 2..3 of 'x' "
            "[1,3,4,4] at the declared shapes, which is 64 at the shapes asked");
  // A batch alone changes no size: none of these findings.
  EXPECT_EQ(model::check_batch(read_fixture("size_mean_baked"), {.batch = dimension(4)}).summary.verdict(),
            model::batch_verdict::yes);
  // A Loop's body is not searched for such constants: at new sizes it cannot tell; at a new batch alone it
  // is judged as before.
  const auto loop = model::check_batch(read_fixture("loop_body"), {.shapes = {{"x", parse_shape("[1,2,5]")}}});
  ASSERT_EQ(loop.findings.size(), 1u);
  EXPECT_EQ(loop.findings[0].code, "sizes_in_body");
  EXPECT_EQ(model::check_batch(read_fixture("loop_body"), {.batch = dimension(4)}).summary.verdict(), model::batch_verdict::yes);
  // A name the model has no constant for is refused, naming it.
  try {
    (void)model::check_batch(read_fixture("size_mean_baked"), {.shapes = {{"x", parse_shape("[1,3,8,8]")}}, .assume_constant = {"nope"}});
    ADD_FAILURE() << "an unknown constant was taken";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("no constant named 'nope'"), std::string::npos) << e.what();
  }
}

TEST(onnx, sizes_asked_as_intervals_or_symbols_hold_for_every_member_or_cannot_tell) {
  const auto g = read_fixture("size_stride_skip");
  // Propagation over 4..16 fits (intervals meet intervals); the member 9 does not: no, naming it.
  for (const char* asked : {"[1,1,4..16,4..16]", "[1,1,?@H,?@W]"}) {
    SCOPED_TRACE(asked);
    const auto r = model::check_batch(g, {.shapes = {{"x", parse_shape(asked)}}});
    EXPECT_EQ(r.summary.verdict(), model::batch_verdict::no) << r.summary_line();
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].issue, model::batch_issue::fails);
    EXPECT_EQ(r.findings[0].name, "skip");
    EXPECT_EQ(r.findings[0].at, "x=[1,1,9,9]");
    // The hint names the step it runs at, and the members that ran there.
    EXPECT_EQ(r.findings[0].hint.rfind("the model runs only at some sizes: at multiples of 2 it runs (x=[1,1,10,10], ", 0), 0u)
        << r.findings[0].hint;
  }
  // A window partition `[1,-1,7,8,7,96]` of a 56x56 map runs where H·W is a multiple of 7·8·7: at multiples
  // of 28.
  const auto windows = model::check_batch(read_fixture("size_regroup_inferred"), {.shapes = {{"x", parse_shape("[1,?,?,96]")}}});
  ASSERT_FALSE(windows.findings.empty());
  EXPECT_EQ(windows.findings[0].hint.rfind("the model runs only at some sizes: at multiples of 28 it runs (", 0), 0u)
      << windows.findings[0].hint;
  // A new single size beside an interval: the interval's members are tried with it (9 fails).
  const auto mixed = model::check_batch(g, {.shapes = {{"x", parse_shape("[1,1,16,8..9]")}}});
  EXPECT_EQ(mixed.summary.verdict(), model::batch_verdict::no) << mixed.summary_line();
  ASSERT_EQ(mixed.findings.size(), 1u);
  EXPECT_EQ(mixed.findings[0].at, "x=[1,1,16,9]");
  const auto single = model::check_batch(g, {.shapes = {{"x", parse_shape("[1,1,16,16]")}}});
  EXPECT_EQ(single.summary.verdict(), model::batch_verdict::yes) << single.summary_line();
  // Where every member tried runs, the others are not proven: cannot tell, saying what ran.
  const auto free = model::check_batch(read_fixture("size_view_free"), {.shapes = {{"x", parse_shape("[1,3,?@H,4..6]")}}});
  EXPECT_EQ(free.summary.verdict(), model::batch_verdict::cannot_tell) << free.summary_line();
  ASSERT_EQ(free.findings.size(), 1u);
  EXPECT_EQ(free.findings[0].code, "sizes_not_proven");
  EXPECT_EQ(free.findings[0].name, "x");
  EXPECT_EQ(free.findings[0].hint, "it runs at x=[1,3,5,5], x=[1,3,1,4] and x=[1,3,64,6]; to be sure of a size, ask for it alone");
}

TEST(onnx, sizes_found_after_a_cold_review) {
  struct size_case {
    const char* fixture;
    std::vector<std::pair<std::string, const char*>> shapes;
    model::batch_verdict verdict;
    const char* code;  ///< the first finding's
  };
  const std::vector<size_case> cases{
      // A fixed target divided by the shape: the output keeps its size.
      {"size_resize_scales_fixed", {{"x", "[1,3,24,24]"}}, model::batch_verdict::cannot_tell, "resize_to_fixed_size"},
      // A fixed size written as Cast(Floor(constant)): Floor carries the values, so the constant 32 is seen
      // where the size changes (it said yes with the sizes unknown).
      {"size_resize_floor_fixed", {{"x", "[1,3,24,24]"}}, model::batch_verdict::cannot_tell, "placed_on_size"},
      // Sizes computed through an op whose values are not followed: unknown, so the output's shape is.
      {"size_resize_unknown_sizes", {{"x", "[1,3,24,24]"}}, model::batch_verdict::cannot_tell, "size_value_unknown"},
      // An op without a translation on the input's values: its output is unknown, so nothing after it is shown.
      {"size_not_covered", {{"x", "[1,3,24,24]"}}, model::batch_verdict::cannot_tell, "no_rule"},
      // A float divisor computed from float constants is a constant.
      {"size_mean_computed", {{"x", "[1,3,8,12]"}}, model::batch_verdict::cannot_tell, "baked_size"},
      // A float constant concatenated with dims from Shape stays a constant, element by element.
      {"size_view_real_concat", {{"x", "[1,3,16,6]"}}, model::batch_verdict::cannot_tell, "baked_size"},
      // One symbol is one size in both inputs' members (16 and 12 apart would fail the Add): not no; the
      // Pad by a fixed 2 along the length is the first finding.
      {"size_two_inputs_one_size", {{"a", "[1,?@S]"}, {"b", "[1,?@S]"}}, model::batch_verdict::cannot_tell, "placed_on_size"},
      // A k and an index past the axis at the new length: ONNX Runtime refuses both (they said yes).
      {"size_topk_past_axis", {{"x", "[1,8]"}}, model::batch_verdict::no, "invalid_shape"},
      {"size_gather_past_axis", {{"x", "[1,8]"}}, model::batch_verdict::no, "invalid_shape"},
      // A LayerNormalization's scale made for the declared width, and a ScatterND index past the new height:
      // ONNX Runtime refuses both (they said yes).
      {"size_layer_norm_scale", {{"x", "[1,3,8,10]"}}, model::batch_verdict::no, "count_mismatch"},
      {"size_scatter_nd_past_axis", {{"x", "[1,3,8,4]"}}, model::batch_verdict::no, "invalid_shape"},
      // A ConvTranspose output_shape past what the shorter input makes: ONNX Runtime refuses it (it said yes).
      {"size_conv_transpose_output_shape", {{"x", "[1,2,8]"}}, model::batch_verdict::no, "invalid_shape"},
      // An end read from the Shape of a ConstantOfShape of a constant is a constant too (it said yes).
      {"size_shape_of_constant", {{"x", "[1,3,16,16]"}}, model::batch_verdict::cannot_tell, "baked_size"},
      // A dimension the model declares at one size and the request asks as `?` (every size) is tried.
      {"size_stride_skip", {{"x", "[1,1,?,?]"}}, model::batch_verdict::no, "invalid_shape"},
      // A Reshape that runs at the new size but groups its dimensions otherwise, no constant equal to a
      // size (they said yes, and only sizes_not_proven at a `?` length).
      {"size_regroup_inferred", {{"x", "[1,112,112,96]"}}, model::batch_verdict::cannot_tell, "regroups_sizes"},
      {"size_regroup_members", {{"x", "[1,?,12]"}}, model::batch_verdict::cannot_tell, "regroups_sizes"},
      // A pattern element equal to another input's length, which nothing on the Reshape's path carries, and
      // an integer constant written out as an output, equal to the size that changes (both said yes).
      {"size_other_input_length", {{"y", "[1,4]"}}, model::batch_verdict::cannot_tell, "baked_size"},
      {"size_constant_output", {{"x", "[1,6,12,16]"}}, model::batch_verdict::cannot_tell, "baked_size"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.fixture);
    model::reshape_request request;
    for (const auto& [name, shape] : c.shapes) request.shapes.emplace_back(name, parse_shape(shape));
    const auto r = model::check_batch(read_fixture(c.fixture), request);
    EXPECT_EQ(r.summary.verdict(), c.verdict) << r.summary_line();
    ASSERT_FALSE(r.findings.empty());
    EXPECT_EQ(r.findings[0].code, c.code) << r.findings[0].what;
  }
}

TEST(onnx, a_reshape_that_groups_its_dimensions_alike_at_every_size_is_not_a_finding) {
  // [0,-1,96] on [1,H,W,96] makes H·W one dimension at 56x56 and at 112x64 alike.
  model::reshape_request request;
  request.shapes.emplace_back("x", parse_shape("[1,112,64,96]"));
  const auto r = model::check_batch(read_fixture("size_regroup_kept"), request);
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::yes) << r.summary_line();
  EXPECT_TRUE(r.findings.empty());
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
