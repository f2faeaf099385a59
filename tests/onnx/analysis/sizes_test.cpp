// check --shape on ONNX models: at new sizes, constants that may stand for a size cannot tell; sizes asked as
// intervals or symbols hold for every member or cannot tell; and the sizes a cold review found.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../onnx_test_util.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::test {
namespace {

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
    EXPECT_NE(std::string(e.what()).find("no constant or pooling window named 'nope'"), std::string::npos) << e.what();
  }
  // A node that is neither is named with its op_type (the ONNX one, not the layer's it is lowered to).
  try {
    (void)model::check_batch(read_fixture("size_mean_baked"), {.shapes = {{"x", parse_shape("[1,3,8,8]")}}, .assume_constant = {"mean"}});
    ADD_FAILURE() << "a Div was taken for a constant";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("'mean' (#"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(") is a Div layer, which holds no constant or pooling window"), std::string::npos) << e.what();
  }
}

// A constant 1 long where the data is 1 at the declared shapes spreads over whatever size the data takes:
// one size of 1 cannot show whether the program made it for that size (`arange(h)` is [0] at a height of 1).
TEST(onnx, a_constant_spread_over_a_size_of_1_cannot_tell) {
  struct spread_case {
    const char* fixture;
    const char* asked;
    const char* holder;  ///< the constant named and vouched for
    std::size_t axis;
  };
  for (const auto& c : {spread_case{"size_grid_at_height_1", "[1,3,6,5,2]", "grid", 2},
                        spread_case{"size_range_at_length_1", "[1,13]", "positions", 1},
                        spread_case{"size_range_at_length_1", "[1,?]", "positions", 1}}) {
    SCOPED_TRACE(std::string(c.fixture) + " " + c.asked);
    const auto g = read_fixture(c.fixture);
    const auto r = model::check_batch(g, {.shapes = {{"x", parse_shape(c.asked)}}});
    EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell) << r.summary_line();
    ASSERT_FALSE(r.findings.empty());
    const auto& f = r.findings[0];
    EXPECT_EQ(f.code, "spread_at_size_1");
    EXPECT_EQ(f.name, "add");
    EXPECT_EQ(f.source, c.holder);  // through the Unsqueeze, to the initializer
    EXPECT_NE(f.what.find(std::string("output axis ") + std::to_string(c.axis)), std::string::npos) << f.what;
    EXPECT_NE(f.hint.find(std::string("assume_constant=[") + c.holder + "]"), std::string::npos) << f.hint;
    // Vouched for, it is no finding; at the declared shape nothing changes.
    const auto vouched = model::check_batch(g, {.shapes = {{"x", parse_shape(c.asked)}}, .assume_constant = {c.holder}});
    for (const auto& v : vouched.findings) EXPECT_NE(v.code, "spread_at_size_1");
  }
  EXPECT_EQ(model::check_batch(read_fixture("size_grid_at_height_1"), {.shapes = {{"x", parse_shape("[1,3,6,5,2]")}},
                                                                         .assume_constant = {"grid"}})
                .summary.verdict(),
            model::batch_verdict::yes);
  EXPECT_EQ(model::check_batch(read_fixture("size_grid_at_height_1"), {.shapes = {{"x", parse_shape("[1,3,1,5,2]")}}})
                .summary.verdict(),
            model::batch_verdict::yes);
  // Its height kept and its batch changed: the constant spreads over the samples, each keeps its result.
  EXPECT_EQ(model::check_batch(read_fixture("size_grid_at_height_1"), {.shapes = {{"x", parse_shape("[4,3,1,5,2]")}}})
                .summary.verdict(),
            model::batch_verdict::yes);
  EXPECT_EQ(model::check_batch(read_fixture("size_grid_at_height_1"), {.batch = dimension(4)}).summary.verdict(),
            model::batch_verdict::yes);
}

// The same where a Where, an Expand to the data's shape and a MatMul's leading axes spread the constant.
TEST(onnx, a_constant_spread_over_a_size_of_1_by_any_numpy_broadcast_cannot_tell) {
  const auto r = model::check_batch(read_fixture("size_spread_at_size_1_ops"), {.shapes = {{"x", parse_shape("[1,5,2]")}}});
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell) << r.summary_line();
  std::vector<std::pair<std::string, std::string>> named;
  for (const auto& f : r.findings)
    if (f.code == "spread_at_size_1") named.emplace_back(f.name, f.source);
  EXPECT_EQ(named, (std::vector<std::pair<std::string, std::string>>{
                       {"where", "keep"}, {"expand", "offsets"}, {"matmul", "per_row"}}))
      << listed(r);
  // The MatMul's matrices are not spread: its [2,2] is no finding at another width.
  const auto wide = model::check_batch(read_fixture("size_spread_at_size_1_ops"), {.shapes = {{"x", parse_shape("[1,1,4]")}}});
  for (const auto& f : wide.findings) EXPECT_NE(f.code, "spread_at_size_1") << f.what;
}

// A constant reaching the spread through data 1 long there at every size (a mean over H), through ops of
// constants alone (a Reciprocal), through an Einsum, or flattened and shaped back; and a pooling window of 1
// on a height of 1.
TEST(onnx, a_constant_spread_over_a_size_of_1_after_data_or_by_labels_cannot_tell) {
  const auto r = model::check_batch(read_fixture("size_spread_through_data"), {.shapes = {{"x", parse_shape("[1,3,6,9]")}}});
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell) << r.summary_line();
  std::vector<std::tuple<std::string, std::string, std::string>> named;
  for (const auto& f : r.findings) named.emplace_back(f.name, f.code, f.source);
  std::sort(named.begin(), named.end());
  EXPECT_EQ(named, (std::vector<std::tuple<std::string, std::string, std::string>>{
                       {"pool", "kernel_covers_size", ""},
                       {"spread_back", "spread_at_size_1", "per_row"},
                       {"spread_einsum", "spread_at_size_1", "table"},
                       {"spread_inverse", "spread_at_size_1", "scale"},
                       {"spread_mean", "spread_at_size_1", "columns"}}))
      << listed(r);
  // Vouched for, each is no finding: a yes.
  EXPECT_EQ(model::check_batch(read_fixture("size_spread_through_data"),
                               {.shapes = {{"x", parse_shape("[1,3,6,9]")}}, .assume_constant = {"columns", "scale", "table", "pool", "per_row"}})
                .summary.verdict(),
            model::batch_verdict::yes);
}

// A layer that fails only at the sample batches the analysis runs (a batch of 2 written down, asked at 2 with
// --batch): its finding says so, and names no dimension by a name of the analysis's own. Asked with --shape
// alone, the batch stays as declared and is no question: the finding is the member of 2..16 that fails.
TEST(onnx, a_failure_at_a_sample_batch_says_it_is_one) {
  const auto kept = model::check_batch(read_fixture("size_batch_written_at_2"), {.shapes = {{"x", parse_shape("[2,2..16,4]")}}});
  EXPECT_EQ(kept.summary.verdict(), model::batch_verdict::no) << kept.summary_line();
  const auto add = std::find_if(kept.findings.begin(), kept.findings.end(), [](const model::batch_finding& x) { return x.name == "add"; });
  ASSERT_NE(add, kept.findings.end()) << listed(kept);
  EXPECT_EQ(add->issue, model::batch_issue::fails);
  EXPECT_NE(add->what.find("(a member of the sizes asked)"), std::string::npos) << add->what;
  const auto r = model::check_batch(read_fixture("size_batch_written_at_2"),
                                    {.batch = dimension(2), .shapes = {{"x", parse_shape("[2,2..16,4]")}}});
  // (No: a member of 2..16 fails, the embeddings 6 long.)
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::no) << r.summary_line();
  const auto f = std::find_if(r.findings.begin(), r.findings.end(), [](const model::batch_finding& x) { return x.name == "add"; });
  ASSERT_NE(f, r.findings.end()) << listed(r);
  EXPECT_EQ(f->code, "fails_at_sample_batch");
  EXPECT_NE(f->what.find("it fails at the batch of 1009 samples that the analysis runs the model at"), std::string::npos) << f->what;
  EXPECT_EQ(f->what.find('\x01'), std::string::npos) << f->what;
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
    const char* code;  ///< the first finding's; null where there is none
  };
  const std::vector<size_case> cases{
      // A fixed target divided by the shape: the output keeps its size.
      {"size_resize_scales_fixed", {{"x", "[1,3,24,24]"}}, model::batch_verdict::cannot_tell, "resize_to_fixed_size"},
      // A center crop to the input's own size, computed from the shape and a constant target: larger, it crops
      // (the Slice is named), smaller, it pads (the Pad is); a target that is no size, and the last tokens
      // read from the shape, keep their extent as the program does, and so does a pad to a fixed size (its
      // slice's input is the target's size by construction).
      {"size_center_crop_to_input", {{"x", "[1,3,10,12]"}}, model::batch_verdict::cannot_tell, "crop_to_fixed_size"},
      {"size_center_crop_to_input", {{"x", "[1,3,4,4]"}}, model::batch_verdict::cannot_tell, "crop_to_fixed_size"},
      {"size_center_crop_fixed", {{"x", "[1,3,20,24]"}}, model::batch_verdict::yes, nullptr},
      {"size_center_pad_fixed", {{"x", "[1,3,6,6]"}}, model::batch_verdict::yes, nullptr},
      // The input's shape folded into a table that k is read from (a cold attack's: it said yes).
      {"size_shape_table", {{"x", "[1,2,3,16]"}}, model::batch_verdict::cannot_tell, "shape_table"},
      // ... read through a Concat and a Slice of one position: only where that position's size changes.
      {"size_shape_table_concat", {{"x", "[1,2,3,8]"}}, model::batch_verdict::yes, nullptr},
      {"size_shape_table_concat", {{"x", "[1,2,6,16]"}}, model::batch_verdict::cannot_tell, "shape_table"},
      {"size_shape_table_pooled", {{"x", "[1,2,6,12]"}}, model::batch_verdict::cannot_tell, "shape_table"},
      {"size_shape_table_weights", {{"x", "[1,5,7,9]"}}, model::batch_verdict::cannot_tell, "shape_table"},
      {"size_shape_table_float", {{"x", "[1,2,3,16]"}}, model::batch_verdict::no, "shape_table"},
      // ... the shape of a map in a branch apart, read whole by an Expand of ones that is summed (it said yes).
      {"size_expand_table_counted", {{"x", "[1,2,10,12]"}}, model::batch_verdict::cannot_tell, "shape_table"},
      {"size_constant_of_shape_table_counted", {{"x", "[1,2,10,12]"}}, model::batch_verdict::cannot_tell, "shape_table"},
      // ... but not a tensor computed from the table (a cold attack's false "cannot tell").
      {"size_table_before_its_tensor", {{"x", "[1,2,10,12]"}}, model::batch_verdict::yes, nullptr},
      // ... and, by a cold attack on those, the map's shape without its 1s, and repeats of ones as the table.
      {"size_expand_table_part", {{"x", "[1,2,10,12]"}}, model::batch_verdict::cannot_tell, "shape_table_part"},
      {"size_tile_table_counted", {{"x", "[1,2,10,12]"}}, model::batch_verdict::cannot_tell, "shape_table"},
      // ... and such a table stored as [1,4], squeezed before the Expand (a cold attack's wrong yes).
      {"size_expand_table_squeezed", {{"x", "[1,2,10,12]"}}, model::batch_verdict::cannot_tell, "shape_table"},
      // ... and counts of ones of the map's element count: a shape [24] and a float Range to 24 (wrong yeses too).
      {"size_expand_count_table", {{"x", "[1,2,10,12]"}}, model::batch_verdict::cannot_tell, "shape_table_count"},
      {"size_float_range_count", {{"x", "[1,2,10,12]"}}, model::batch_verdict::cannot_tell, "counted_range"},
      {"size_float_range_half_count", {{"x", "[1,2,10,12]"}}, model::batch_verdict::cannot_tell, "shape_table_count"},
      {"size_float_range_half_count", {{"x", "[1,2,6,8]"}}, model::batch_verdict::yes, nullptr},
      {"size_expand_count_table", {{"x", "[1,2,6,8]"}}, model::batch_verdict::yes, nullptr},
      // ... and tables computed from constants alone: gathered, the Shape of a constant; a count of one value.
      {"size_expand_table_reshaped", {{"x", "[1,3,18,22]"}}, model::batch_verdict::cannot_tell, "shape_table"},
      {"size_expand_table_gathered", {{"x", "[1,3,18,22]"}}, model::batch_verdict::cannot_tell, "shape_table"},
      {"size_expand_shape_of_constant", {{"x", "[1,3,18,22]"}}, model::batch_verdict::cannot_tell, "shape_table"},
      {"size_expand_count_of_two", {{"x", "[1,1,8,2]"}}, model::batch_verdict::cannot_tell, "shape_table_part"},
      {"size_last_tokens_computed", {{"x", "[1,16,8]"}}, model::batch_verdict::yes, nullptr},
      // The batch, 2, read from a table of the input's shape into view(2, -1): where the batch stays as declared,
      // it is no question (it said "no: swallows the batch"); where it changes, the batch's answer is given.
      {"size_batch_kept_table", {{"x", "[2,3,8]"}}, model::batch_verdict::yes, nullptr},
      {"size_batch_kept_table", {{"x", "[4,3,9]"}}, model::batch_verdict::no, "replaces_batch"},
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
      // ONNX Runtime refuses both (they said yes). The scale, ones along W, is named first: the same value
      // all along a width that changes (the layer fails after it).
      {"size_layer_norm_scale", {{"x", "[1,3,8,10]"}}, model::batch_verdict::no, "spread_along_size"},
      {"size_scatter_nd_past_axis", {{"x", "[1,3,8,4]"}}, model::batch_verdict::no, "invalid_shape"},
      // A ConvTranspose output_shape past what the shorter input makes: ONNX Runtime refuses it (it said yes).
      {"size_conv_transpose_output_shape", {{"x", "[1,2,8]"}}, model::batch_verdict::no, "invalid_shape"},
      // An end read from the Shape of a ConstantOfShape of a constant is a constant too (it said yes).
      {"size_shape_of_constant", {{"x", "[1,3,16,16]"}}, model::batch_verdict::cannot_tell, "shape_table_count"},
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
      // A table of one value per position spread over the mean of the positions, and a count of the
      // positions negated and given out (a cold attack's: both said yes, where the programs at length 9 make
      // 9 rows and 9 values).
      {"size_spread_extent", {{"x", "[1,9,4]"}}, model::batch_verdict::cannot_tell, "spread_extent"},
      {"size_counted_output", {{"x", "[1,9,4]"}}, model::batch_verdict::cannot_tell, "counted_range"},
      // Column indices computed from constants alone (cumsum of ones, nonzero of ones), counting along a width that
      // changes (a cold attack's: it said yes, the values not propagated through CumSum and NonZero).
      {"size_computed_range", {{"x", "[1,3,4,9]"}}, model::batch_verdict::cannot_tell, "counted_range"},
      // yolov5's cell grid folded whole (660 values, read from the Const's bytes): the head's view fails first.
      {"size_fix_folded_grid", {{"x", "[1,12,13,14]"}}, model::batch_verdict::no, "counted_grid"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.fixture);
    model::reshape_request request;
    for (const auto& [name, shape] : c.shapes) request.shapes.emplace_back(name, parse_shape(shape));
    const auto r = model::check_batch(read_fixture(c.fixture), request);
    EXPECT_EQ(r.summary.verdict(), c.verdict) << r.summary_line();
    if (c.code == nullptr) {
      EXPECT_TRUE(r.findings.empty()) << r.findings[0].what;
      continue;
    }
    ASSERT_FALSE(r.findings.empty());
    EXPECT_EQ(r.findings[0].code, c.code) << r.findings[0].what;
  }
}

TEST(onnx, a_constant_the_same_along_a_size_that_changes_is_spread_along_it) {
  // `anchor` (2.0 at every cell) multiplied along H and W: its own finding, naming both axes, before the Mul
  // that fails at the new sizes; vouched for, only the Mul. `scale` (0.3 per channel, 5 channels on a map 5
  // high) lines up with the channels, which stay: no finding.
  const auto g = read_fixture("size_spread_along");
  const auto named = [](const model::batch_report& r, std::string_view name) {
    return std::count_if(r.findings.begin(), r.findings.end(), [&](const model::batch_finding& f) { return f.name == name; });
  };
  const auto r = model::check_batch(g, {.shapes = {{"x", parse_shape("[1,5,7,9]")}}});
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::no) << r.summary_line();
  ASSERT_EQ(r.findings.size(), 2u);
  const auto& f = r.findings[0];
  EXPECT_EQ(f.code, "spread_along_size");
  EXPECT_EQ(f.name, "anchor");
  ASSERT_FALSE(f.args.empty());
  EXPECT_EQ(f.args[0], (std::pair<std::string, model::reason_value>{"axes", std::int64_t{2}}));
  EXPECT_NE(f.what.find("axis 2, 5 long"), std::string::npos) << f.what;
  EXPECT_NE(f.what.find("axis 3, 6 long"), std::string::npos) << f.what;
  EXPECT_EQ(r.findings[1].name, "spread");
  EXPECT_EQ(r.findings[1].issue, model::batch_issue::fails);
  EXPECT_EQ(named(r, "scale") + named(r, "scaled"), 0);
  const auto vouched = model::check_batch(g, {.shapes = {{"x", parse_shape("[1,5,7,9]")}}, .assume_constant = {"anchor"}});
  EXPECT_EQ(named(vouched, "anchor"), 0);
  EXPECT_EQ(named(vouched, "spread"), 1);
}

TEST(onnx, a_constant_spread_over_a_size_that_becomes_1_is_named) {
  // Asked at a width of 1, `x + mask`, `x + sigmoid(c)` and `expand(table, shape(x))` keep the constants' 5
  // columns where the programs would give 1 (a cold attack's wrong yeses): the Const's own finding for those
  // read directly, the Add's for the one computed from a Const. At another width the layers fail.
  const auto g = read_fixture("size_spread_to_width_1");
  const auto r = model::check_batch(g, {.shapes = {{"x", parse_shape("[1,3,4,1]")}}});
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell) << r.summary_line();
  ASSERT_EQ(r.findings.size(), 3u);
  EXPECT_EQ(r.findings[0].name, "mask");
  EXPECT_EQ(r.findings[0].code, "spread_extent");
  EXPECT_NE(r.findings[0].what.find("its other operand 1 there at the shapes asked"), std::string::npos) << r.findings[0].what;
  EXPECT_EQ(r.findings[1].name, "table");
  EXPECT_EQ(r.findings[1].code, "spread_extent");
  EXPECT_EQ(r.findings[2].name, "gated");
  EXPECT_EQ(r.findings[2].code, "spread_over_size_1");
  EXPECT_EQ(r.findings[2].source, "c");
  EXPECT_EQ(r.findings[2].args[0], (std::pair<std::string, model::reason_value>{"port", std::int64_t{1}}));
  EXPECT_EQ(model::check_batch(g, {.shapes = {{"x", parse_shape("[1,3,4,7]")}}}).summary.verdict(), model::batch_verdict::no);
  const auto vouched =
      model::check_batch(g, {.shapes = {{"x", parse_shape("[1,3,4,1]")}}, .assume_constant = {"mask", "c", "table"}});
  EXPECT_EQ(vouched.summary.verdict(), model::batch_verdict::yes) << vouched.summary_line();
}

TEST(onnx, a_prelu_slope_spread_over_a_size_that_becomes_1_is_named_through_the_lowering) {
  // PRelu broadcasts its data to the slope's shape before it computes (the lowering's Broadcast): asked at a
  // width of 1, slopes 5 wide keep 5 columns where the programs would give 1. The findings look through the
  // Broadcast to the data, as for an Add; a slope along the channels, which stay, is none.
  const auto g = read_fixture("size_prelu_to_width_1");
  const auto r = model::check_batch(g, {.shapes = {{"x", parse_shape("[1,3,4,1]")}}});
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell) << r.summary_line();
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].name, "slope");
  EXPECT_EQ(r.findings[0].code, "spread_extent");
  EXPECT_EQ(r.findings[1].name, "gated");
  EXPECT_EQ(r.findings[1].code, "spread_over_size_1");
  EXPECT_EQ(r.findings[1].source, "c");
  EXPECT_EQ(model::check_batch(g, {.shapes = {{"x", parse_shape("[1,3,4,7]")}}}).summary.verdict(), model::batch_verdict::no);
  EXPECT_EQ(model::check_batch(g, {.shapes = {{"x", parse_shape("[1,3,1,5]")}}}).summary.verdict(), model::batch_verdict::yes);
  const auto vouched = model::check_batch(g, {.shapes = {{"x", parse_shape("[1,3,4,1]")}}, .assume_constant = {"slope", "c"}});
  EXPECT_EQ(vouched.summary.verdict(), model::batch_verdict::yes) << vouched.summary_line();
}

TEST(onnx, a_prelu_1d_slope_lines_up_with_the_last_axis_as_onnx_broadcasts) {
  // OpenVINO's PReLU lays a 1-D slope as long as the channels along them; ONNX's PRelu broadcasts it from the
  // last axis. `slope` [3] on x [1,3,4,3] is one slope per column: asked at a width of 1 it keeps 3 columns
  // (spread_extent; along the channels, which stay, it would be no finding, the wrong yes this closes).
  const auto g = read_fixture("size_prelu_1d_slope");
  const auto r = model::check_batch(g, {.shapes = {{"x", parse_shape("[1,3,4,1]")}}});
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell) << r.summary_line();
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].name, "slope");
  EXPECT_EQ(r.findings[0].code, "spread_extent");
  // `one` [1] is as long as y's width of 1, not its 2 channels: asked at a width of 4, spread over it.
  const auto w = model::check_batch(g, {.shapes = {{"y", parse_shape("[1,2,3,4]")}}});
  EXPECT_EQ(w.summary.verdict(), model::batch_verdict::cannot_tell) << w.summary_line();
  ASSERT_EQ(w.findings.size(), 1u);
  EXPECT_EQ(w.findings[0].name, "single");
  EXPECT_EQ(w.findings[0].code, "spread_at_size_1");
  // The channels may change: neither slope lies along them.
  const auto c = model::check_batch(g, {.shapes = {{"x", parse_shape("[1,5,4,3]")}, {"y", parse_shape("[1,6,3,1]")}}});
  EXPECT_EQ(c.summary.verdict(), model::batch_verdict::yes) << c.summary_line();
  // A width the slope does not broadcast to fails, as it does in ONNX Runtime.
  EXPECT_EQ(model::check_batch(g, {.shapes = {{"x", parse_shape("[1,3,4,5]")}}}).summary.verdict(), model::batch_verdict::no);
}

TEST(onnx, gather_and_scatter_elements_tables_at_another_size) {
  // A table of 96 indices (more than the propagation carries) that permutes x's 12 columns: past the axis at a
  // width of 8 (no, as ONNX Runtime refuses it), as long as the width it was made for at 16 (the output keeps
  // 12 columns: spread_extent). Scatter indices longer than the data off the axis: no, as in ONNX Runtime.
  const auto g = read_fixture("size_gather_elements_tables");
  const auto at = [&](const char* input, const char* shape) {
    return model::check_batch(g, {.shapes = {{input, parse_shape(shape)}}});
  };
  const auto narrow = at("x", "[1,1,8,8]");
  EXPECT_EQ(narrow.summary.verdict(), model::batch_verdict::no) << narrow.summary_line();
  const auto wide = at("x", "[1,1,8,16]");
  EXPECT_EQ(wide.summary.verdict(), model::batch_verdict::cannot_tell) << wide.summary_line();
  ASSERT_EQ(wide.findings.size(), 1u);
  EXPECT_EQ(wide.findings[0].name, "table");
  EXPECT_EQ(wide.findings[0].code, "spread_extent");
  EXPECT_EQ(at("y", "[1,1,3,5]").summary.verdict(), model::batch_verdict::no);
  EXPECT_EQ(at("y", "[1,1,4,7]").summary.verdict(), model::batch_verdict::yes);
  const auto vouched = model::check_batch(g, {.shapes = {{"x", parse_shape("[1,1,8,16]")}}, .assume_constant = {"table"}});
  EXPECT_EQ(vouched.summary.verdict(), model::batch_verdict::yes) << vouched.summary_line();
}

TEST(onnx, a_divisor_folded_behind_sqrt_or_exp_is_compared_with_the_sizes) {
  // sqrt(225) and exp(2.708...) are 15 = H·W at [1,1,3,5]: divisors of a mean, as the 15 written out would be.
  const auto g = read_fixture("size_folded_behind_sqrt");
  const auto r = model::check_batch(g, {.shapes = {{"x", parse_shape("[1,1,3,7]")}}});
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell) << r.summary_line();
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].name, "mean");
  EXPECT_EQ(r.findings[0].code, "baked_size");
  EXPECT_EQ(r.findings[0].source, "square");
  EXPECT_EQ(r.findings[1].name, "mean2");
  EXPECT_EQ(r.findings[1].source, "log_count");
  const auto vouched =
      model::check_batch(g, {.shapes = {{"x", parse_shape("[1,1,3,7]")}}, .assume_constant = {"square", "log_count"}});
  EXPECT_EQ(vouched.summary.verdict(), model::batch_verdict::yes) << vouched.summary_line();
  EXPECT_EQ(model::check_batch(g, {.shapes = {{"x", parse_shape("[1,1,3,5]")}}}).summary.verdict(), model::batch_verdict::yes);
}

TEST(onnx, an_einsum_operand_as_long_as_a_size_that_becomes_1_is_spread_extent) {
  const auto g = read_fixture("size_einsum_shrink_to_1");
  const auto r = model::check_batch(g, {.shapes = {{"x", parse_shape("[1,3,1,3]")}}});
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell) << r.summary_line();
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].name, "w");
  EXPECT_EQ(r.findings[0].code, "spread_extent");
  EXPECT_EQ(model::check_batch(g, {.shapes = {{"x", parse_shape("[1,3,2,5]")}}}).summary.verdict(), model::batch_verdict::yes);
  EXPECT_EQ(model::check_batch(g, {.shapes = {{"x", parse_shape("[1,3,4,3]")}}}).summary.verdict(), model::batch_verdict::no);
}

TEST(onnx, a_batch_of_1_from_a_declared_batch_of_more_is_a_size_that_becomes_1) {
  // Exported at a batch of 8 and asked at 1: `[8,-1]` gives [8,2] for one sample, `x * c[8,1]`,
  // `x * d[8,1,1]` and `x - abs(e[8,1,1])` keep 8 rows. Batch 1 is what the per-sample property compares with, so only the size
  // findings show them; the Reshape to [0,4,4] follows the batch (its 4 is half the declared batch, not looked
  // for where only the batch changes), and the Pad's 0 on the batch axis pads no samples.
  const auto g = read_fixture("size_batch_1_from_8");
  model::reshape_request one;
  one.batch = dimension(1);
  const auto r = model::check_batch(g, one);
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell) << r.summary_line();
  ASSERT_EQ(r.findings.size(), 4u);
  EXPECT_EQ(r.findings[0].name, "c");
  EXPECT_EQ(r.findings[0].code, "spread_extent");
  EXPECT_EQ(r.findings[1].name, "d");  // [8,1,1] on x [8,16]: the output's first 8 is d's alone
  EXPECT_EQ(r.findings[1].code, "spread_extent");
  EXPECT_EQ(r.findings[2].name, "flat");
  EXPECT_EQ(r.findings[2].code, "baked_size");
  EXPECT_EQ(r.findings[2].source, "p");
  EXPECT_EQ(r.findings[3].name, "shifted");  // x - abs(e[8,1,1])
  EXPECT_EQ(r.findings[3].code, "spread_over_size_1");
  EXPECT_EQ(r.findings[3].source, "e");
  EXPECT_NE(r.findings[3].what.find("an input that has no such axis"), std::string::npos) << r.findings[3].what;
  auto two = one;
  two.batch = dimension(2);
  EXPECT_EQ(model::check_batch(g, two).summary.verdict(), model::batch_verdict::no);
  one.assume_constant = {"p", "c", "d", "e"};
  const auto vouched = model::check_batch(g, one);
  EXPECT_EQ(vouched.summary.verdict(), model::batch_verdict::yes) << vouched.summary_line();
}

TEST(onnx, a_reshape_that_groups_its_dimensions_alike_at_every_size_is_not_a_finding) {
  // [0,-1,96] on [1,H,W,96] makes H·W one dimension at 56x56 and at 112x64 alike.
  model::reshape_request request;
  request.shapes.emplace_back("x", parse_shape("[1,112,64,96]"));
  const auto r = model::check_batch(read_fixture("size_regroup_kept"), request);
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::yes) << r.summary_line();
  EXPECT_TRUE(r.findings.empty());
}

}  // namespace
}  // namespace reshape1::test
