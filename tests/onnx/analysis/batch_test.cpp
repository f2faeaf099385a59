// check --batch on ONNX models: each fixture of tests/data/onnx read and checked at batch 4, with its answer
// and findings pinned; the batch size used as a value, judged at the batches asked; and what a finding
// carries (its reason, its hint).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "../onnx_test_util.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::test {
namespace {

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
                      expected{"qdq_per_channel", model::batch_verdict::yes, ""},
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
                      expected{"custom_domain", model::batch_verdict::cannot_tell, "cannot_tell flat, cannot_tell acc"},
                      // ... and an elementwise layer after it (a Scaler of one scale): each sample's elements come
                      // back where they were, yes.
                      expected{"fold_scaler", model::batch_verdict::yes, ""},
                      // ai.onnx.ml: a pipeline's rows kept apart; a Normalizer of a rank-1 batch mixes them; an
                      // Imputer's value per position along a rank-1 batch cannot be decided.
                      expected{"ml_pipeline", model::batch_verdict::yes, ""},
                      expected{"ml_normalizer_batch", model::batch_verdict::no, "mixes_samples norm"},
                      expected{"ml_imputer_per_position", model::batch_verdict::cannot_tell, "cannot_tell impute"},
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
  const auto cumsum = model::check_batch(read_fixture("custom_domain"), {.batch = dimension(4)});
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
  const auto g = read_fixture("custom_domain");
  for (const auto& kept : {std::vector<std::string>{}, std::vector<std::string>{"com.example.Scaler"}}) {
    const auto r = model::check_batch(g, {.batch = dimension(4), .assume_kept = kept});
    ASSERT_EQ(r.findings.size(), 2u);
    EXPECT_EQ(r.findings[1].name, "acc");
    EXPECT_EQ(r.findings[1].hint,
              "com.example.Scaler: reshape1 translates ONNX's default domain, ai.onnx.ml and com.microsoft only, so its outputs' "
              "shapes are unknown and vouching for it with assume_kept cannot help; 'reshape1 check --list-ops "
              "--format onnx' lists the ops reshape1 translates");
    EXPECT_NE(r.findings[0].what.find("one cannot tell whether it keeps each sample apart"), std::string::npos)
        << r.findings[0].what;
  }
}

}  // namespace
}  // namespace reshape1::test
