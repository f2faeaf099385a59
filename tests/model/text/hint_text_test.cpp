// Every finding's hint comes from one place (model/text): a stable code, the values it names under
// snake_case names, and its sentence. Every code is listed, given by the analysis, and documented; a joined
// hint and a hint named inside a Reshape keep what they join.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/text/batch.hpp"
#include "model/text/check.hpp"
#include "reason_checks.hpp"

namespace reshape1::test {
namespace {

using model::text::reason_text;

std::vector<reason_text> every_hint() {
  namespace t = model::text;
  const auto s = model::option_spelling::command_line;
  model::layer l;
  l.id = 7;
  l.name = "pool";
  l.type = "AvgPool";
  l.version = "opset1";
  l.opset = 1;
  model::input_report in;
  in.id = 1;
  in.name = "x";
  in.declared = partial_shape{dimension(88), dimension(1)};
  in.requested = partial_shape{dimension(88), dimension()};
  in.batch_index = 0;
  const t::dimension_fix fix{.special_zero = false, .has_minus_one = true};
  const auto verdict = t::declared_cannot_be(partial_shape{dimension(2)}, partial_shape{dimension(3)});
  return {t::error_hint("give the layer a shape"),
          t::declaration_hint(verdict),
          t::pattern_fix_hint(1, fix),
          t::see_check_hint(s),
          t::body_input_hint(l, 1, l),
          t::slice_whole_at_asked_hint(),
          t::not_covered_hint(s, l),
          t::copy_batch_hint(0, false, false),
          t::own_dimension_hint(1, true),
          t::follow_back_hint(s),
          t::dynamic_dims_hint(s, {in}),
          t::size_value_hint(),
          t::rule_hint(s, model::batch_issue::mixes_samples, l),
          t::rule_hint(s, model::batch_issue::drops_samples, l),
          t::rule_hint(s, model::batch_issue::cannot_tell, l),
          t::output_batch_elsewhere_hint(),
          t::reads_interleaved_hint("fold", 3),
          t::output_size_value_hint(),
          t::guessed_batch_hint(s, in, 1, std::nullopt),
          t::regroup_hint(s),
          t::vouch_hint(s, "n", 12),
          t::vouch_hint(s, "", std::nullopt),
          t::global_window_hint(s, "pool", 7),
          t::window_spans_hint(s, "", 7),
          t::window_tiles_hint(s, "pool", 7),
          t::resize_to_fixed_size_hint(),
          t::size_value_unknown_hint(),
          t::member_fails_hint(),
          t::runs_at_step_hint(32, {"64", "96"}),
          t::sizes_not_proven_hint({"64", "96"})};
}

TEST(hint_text, every_hint_has_a_listed_code_a_sentence_and_named_values) {
  expect_well_formed(every_hint(), model::text::hint_codes());
}

// The function that gives each code, as the analysis calls it.
std::string function_of(std::string_view code) {
  static const std::vector<std::pair<std::string_view, std::string_view>> functions = {
      {"error_hint", "error_hint"},
      {"change_declaration", "declaration_hint"},
      {"rewrite_pattern_element", "pattern_fix_hint"},
      {"see_check", "see_check_hint"},
      {"feed_body_batch", "body_input_hint"},
      {"slice_to_end", "slice_whole_at_asked_hint"},
      {"not_translated", "not_covered_hint"},
      {"copy_batch", "copy_batch_hint"},
      {"batch_own_dimension", "own_dimension_hint"},
      {"follow_size_back", "follow_back_hint"},
      {"give_dynamic_sizes", "dynamic_dims_hint"},
      {"batch_size_not_a_value", "size_value_hint"},
      {"compute_per_sample", "rule_hint"},
      {"select_whole_batch", "rule_hint"},
      {"vouch_op", "rule_hint"},
      {"give_output_layout", "output_batch_elsewhere_hint"},
      {"keep_batch_apart", "reads_interleaved_hint"},
      {"output_holds_data", "output_size_value_hint"},
      {"give_input_layout", "guessed_batch_hint"},
      {"compute_pattern", "regroup_hint"},
      {"vouch_constant", "vouch_hint"},
      {"compute_from_shape", "vouch_hint"},
      {"global_pool", "global_window_hint"},
      {"window_from_shape", "window_spans_hint"},
      {"adaptive_pool", "window_tiles_hint"},
      {"resize_from_shape", "resize_to_fixed_size_hint"},
      {"compute_size_value", "size_value_unknown_hint"},
      {"ask_running_sizes", "member_fails_hint"},
      {"ask_step_multiples", "runs_at_step_hint"},
      {"ask_size_alone", "sizes_not_proven_hint"}};
  for (const auto& [c, f] : functions)
    if (c == code) return std::string(f);
  ADD_FAILURE() << code << " has no function here";
  return {};
}

TEST(hint_text, every_code_is_given_by_the_analysis_and_documented) {
  expect_given_and_documented(model::text::hint_codes(), function_of);
}

TEST(hint_text, a_hint_names_the_values_its_sentence_says) {
  const auto h = model::text::vouch_hint(model::option_spelling::command_line, "n", 12);
  EXPECT_EQ(h.code, "vouch_constant");
  EXPECT_EQ(h.args, (model::reason_args{{"constant_id", std::int64_t{12}}, {"constant", "n"}}));
  EXPECT_NE(h.text.find("--assume-constant n"), std::string::npos) << h.text;
  const auto unnamed = model::text::vouch_hint(model::option_spelling::command_line, "", 12);
  EXPECT_EQ(unnamed.args, (model::reason_args{{"constant_id", std::int64_t{12}}, {"constant", "#12"}}));
}

TEST(hint_text, a_joined_hint_keeps_both_codes_and_their_values) {
  namespace t = model::text;
  const auto first = t::runs_at_step_hint(32, {"64"});
  const auto then = t::copy_batch_hint(2, true, false);
  const auto j = t::joined_hint(first, then);
  EXPECT_EQ(j.code, "ask_step_multiples");
  EXPECT_EQ(j.text, first.text + "; " + then.text);
  EXPECT_EQ(j.args, (model::reason_args{{"step", std::int64_t{32}},
                                        {"tried", "64"},
                                        {"then", "copy_batch"},
                                        {"then_pattern_index", std::int64_t{2}},
                                        {"then_write", "0"}}));
  // Nothing to join: the first alone.
  EXPECT_EQ(t::joined_hint(first, {}).args, first.args);
}

TEST(hint_text, a_hint_inside_a_reshape_names_it_and_keeps_its_code) {
  model::layer r;
  r.id = 5;
  r.name = "flatten";
  const auto h = model::text::in_reshape(r, model::text::copy_batch_hint(0, false, true));
  EXPECT_EQ(h.code, "copy_batch");
  EXPECT_EQ(h.text, "in the Reshape 'flatten' (id 5), pattern[0]: use 0 with special_zero=true to copy the batch");
  EXPECT_EQ(h.args, (model::reason_args{{"pattern_index", std::int64_t{0}},
                                        {"write", "0_special_zero"},
                                        {"reshape_id", std::int64_t{5}},
                                        {"reshape", "flatten"}}));
}

// A finding's hint and its code are set together: an empty sentence is no hint, whatever its code.
TEST(hint_text, an_empty_hint_has_no_code) {
  model::batch_finding f;
  model::text::give_hint(f, model::text::error_hint(""));
  EXPECT_EQ(f.hint_code, "");
  model::text::give_hint(f, model::text::dynamic_dims_hint(model::option_spelling::api, {}));
  EXPECT_EQ(f.hint, "");
  EXPECT_EQ(f.hint_code, "");
  EXPECT_TRUE(f.hint_args.empty());
  model::text::give_hint(f, model::text::regroup_hint(model::option_spelling::api));
  EXPECT_EQ(f.hint_code, "compute_pattern");
  EXPECT_NE(f.hint.find("assume_constant"), std::string::npos) << f.hint;
}

}  // namespace
}  // namespace reshape1::test
