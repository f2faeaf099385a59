// The reasons fix gives for a refusal come from one place (model/text/fix.cpp): each has a stable code, a
// sentence, and the values it names under snake_case names; every code is listed and given somewhere.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/text/fix.hpp"
#include "reason_checks.hpp"

namespace reshape1::test {
namespace {

using model::text::fix_reason;

std::vector<fix_reason> every_fix_reason() {
  namespace t = model::text;
  model::batch_finding f;
  f.issue = model::batch_issue::fails;
  f.code = "invalid_shape";
  f.type = "Concat";
  f.what = "layer 'c' (id 2): input 1 dimension 0: 2 and 1 cannot be equal";
  model::batch_finding given = f;
  given.issue = model::batch_issue::fails_at_declared;
  const auto ir = model::model_format::ir;
  return {t::minus_one_folds_batch(1, false),
          t::pattern_folds_batch(),
          t::no_element_follows_batch(),
          t::literal_zero_with_minus_one(0, ir),
          t::maybe_zero_with_minus_one(1, model::model_format::onnx),
          t::not_fixed_without_special_zero(ir),
          t::shape_values_unknown(),
          t::computed_not_const(0, "Concat 'shape' (id 5)"),
          t::type_not_rewritten(0, "Const 'p' (id 3)", "f32"),
          t::unsigned_cannot_hold_minus_one(0, "Const 'p' (id 3)", "u8"),
          t::comes_through_shared_layer(0, "Concat 'shape' (id 5)"),
          t::computed_not_tensor(0),
          t::constant_not_in_file(0, "n"),
          t::comes_through_shared_node(0, "n"),
          t::reaches_through_added_layer("p"),
          t::not_a_tensor_the_node_sees(0, "p"),
          t::external_read_in_body(0, "p"),
          t::values_not_read("p"),
          t::does_not_feed("p", 1, "n", "q"),
          t::rewrite_raises(errc::invalid_shape, "layer 'r': cannot reshape"),
          t::rewrite_changes_shapes(0, -1, 7),
          t::rewrite_still_leaves(0, 0, model::batch_issue::mixes_samples, {"batch", "2"}),
          t::fails_as_given(given),
          t::refusal(f, {"batch", "2"}),
          t::needs_computed_pattern(1, 49),
          t::split_not_read(1, 56, {8, 7}),
          t::computed_in_body(),
          t::changing_one(2),
          t::kept_by_reading("[1,-1,4]"),
          t::kept_value_is_a_size(1, 6),
          t::constant_written_out("area", "area"),
          t::pattern_not_an_input(),
          t::held_apart(1, 2),
          t::size_not_a_whole_ratio(2, 300, 2, 224),
          t::no_negative_positions(0, "Gather", 7),
          t::met_may_be_one("x"),
          t::window_not_whole(3),
          t::pad_not_read(3, 18, 2, {3, 4}, t::pad_doubt::window),
          t::table_tensor_unknown("[1,3,8,8]", "x", "[1,3,?,?]", "w", "[1,3,8,8]"),
          t::table_read_whole("Cast", "weights"),
          t::table_count_split("[4,6]"),
          t::read_back_lacks_layer(),
          t::read_back_lacks_tensor("y"),
          t::read_back_differs(),
          t::not_scaled(dimension(2), 0, partial_shape{dimension(2), dimension(4)}, partial_shape{dimension(1), dimension(3)})};
}

TEST(fix_text, a_computed_pattern_is_named_as_computed_not_as_an_element) {
  namespace t = model::text;
  const auto leaves = t::rewrite_still_leaves(0, 0, model::batch_issue::cannot_tell, {"x", "[1,6,?,?]"}, "[1,6,shape[3]]");
  EXPECT_EQ(leaves.text, "computing the pattern as [1,6,shape[3]] still leaves the layer cannot tell at [1,6,?,?]");
  ASSERT_FALSE(leaves.args.empty());
  EXPECT_EQ(leaves.args[0].first, "computed");
  const auto changes = t::rewrite_changes_shapes(0, 0, 7, "[1,shape[1]*shape[2],768]");
  EXPECT_EQ(changes.text, "computing the pattern as [1,shape[1]*shape[2],768] changes the shapes of layer 7 at the declared inputs");
}

// A layer other than a Reshape is rewritten through another input: the reason names it as fix does.
TEST(fix_text, a_rewrite_of_another_layer_names_its_input) {
  namespace t = model::text;
  const auto leaves = t::rewrite_still_leaves(0, 0, model::batch_issue::cannot_tell, {"x", "[1,2,?,?]"},
                                              "[shape[0],8,shape[2]*2,shape[3]*2]", "sizes");
  EXPECT_EQ(leaves.text,
            "computing the sizes as [shape[0],8,shape[2]*2,shape[3]*2] still leaves the layer cannot tell at [1,2,?,?]");
  EXPECT_EQ(t::rewrite_changes_shapes(2, 7, 9, {}, "bounds").text,
            "rewriting bounds[2] to 7 changes the shapes of layer 9 at the declared inputs");
  // Where the element is held says it of that input too; the args keep their names.
  const auto held = t::comes_through_shared_node({1, "sizes"}, "cat");
  EXPECT_EQ(held.text, "sizes[1] comes through node 'cat', which feeds other nodes too");
  EXPECT_EQ(held.args.front().first, "pattern_index");
  EXPECT_EQ(t::held_apart({0, "bounds"}, 2).text,
            "bounds[0] and bounds[2] must be rewritten together, and different constants hold them");
  EXPECT_EQ(t::computed_not_const(3, "").text, "pattern[3] is computed by nothing, not held by a Const");
}

// A Pad's amount not read as a pad to a multiple says why: a crop is named as one, not as a pad of -2; a 0
// names the windows its extent is a multiple of.
TEST(fix_text, a_pad_not_read_names_why) {
  namespace t = model::text;
  EXPECT_EQ(t::pad_not_read(3, 18, -2, {4}, t::pad_doubt::crop).text,
            "it crops axis 3, which changes, by 2: fix reads no crop as a pad to a multiple, and has no rewrite for it");
  EXPECT_NE(t::pad_not_read(3, 18, 1, {4}, t::pad_doubt::split).text.find("split between both ends"), std::string::npos);
  const auto zero = t::pad_not_read(2, 8, 0, {4, 7}, t::pad_doubt::zero);
  EXPECT_EQ(zero.code, "pad_not_read");
  EXPECT_NE(zero.text.find("8 at the declared shapes, a multiple of a window the model keeps: 4, 7"), std::string::npos)
      << zero.text;
}

TEST(fix_text, every_reason_has_a_listed_code_a_sentence_and_named_values) {
  expect_well_formed(every_fix_reason(), model::text::fix_reason_codes());
}

// Each reason is given by the fixers (its function called outside model/text), and documented.
TEST(fix_text, every_code_is_given_by_a_fixer_and_documented) {
  // A finding that keeps the model from being fixed is worded by text::refusal.
  expect_given_and_documented(model::text::fix_reason_codes(), [](std::string_view code) {
    return code == "batch_finding" ? std::string("refusal") : std::string(code);
  });
}

}  // namespace
}  // namespace reshape1::test
