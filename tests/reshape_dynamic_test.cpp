// Section 5 of docs/semantics.md: partial shapes, intervals, pattern bounds, symbols, unknown rank
// and unknown patterns, as tables.
#include <gtest/gtest.h>

#include "test_util.hpp"

namespace reshape1::test {
namespace {

struct dynamic_row {
  const char* input;
  const char* pattern;
  bool special_zero;
  const char* expected;
};

class reshape_dynamic : public ::testing::TestWithParam<dynamic_row> {};

TEST_P(reshape_dynamic, gives_the_table_answer) {
  const auto& r = GetParam();
  EXPECT_EQ(infer_text(r.input, r.pattern, r.special_zero), r.expected) << r.input << " . " << r.pattern;
}

INSTANTIATE_TEST_SUITE_P(
    intervals_and_symbols, reshape_dynamic,
    ::testing::Values(dynamic_row{"[1..8,16..64,6,200..400]", "[16..64,0,-1]", true, "[16..64,16..64,19..1200]"},
                      dynamic_row{"[1,1..3,1..6]", "[0,-1]", true, "[1,1..18]"},
                      dynamic_row{"[2..4,2,2..6,1,3]", "[-1,12,2]", false, "[1..6,12,2]"},
                      dynamic_row{"[4@A,?@B,2@C,1@D,3@E]", "[-1,12@G,2@H]", false, "[?@B,12@G,2@H]"},
                      dynamic_row{"[1@A,1280]", "[-1,1280]", false, "[1@A,1280]"},
                      dynamic_row{"[1@A,1280,1,1]", "[-1,1280]", false, "[1,1280]"},
                      dynamic_row{"[1,32@A]", "[-1]", false, "[32@A]"},
                      dynamic_row{"[?@A,2]", "[-1@E,?@B,?@C,2@D]", false, "[?,?@B,?@C,2@D]"},
                      dynamic_row{"[?,?,?]", "[7,-7..0,1,2]", false, "[7,?,1,2]"},
                      dynamic_row{"[?,3]", "[0,5]", true, "[?,5]"},
                      dynamic_row{"[?,?]", "[-1]", false, "[?]"},
                      dynamic_row{"[0@A,0@B]", "[-1,?@C,2@D]", true, "[?,?@C,2@D]"}),
    [](const auto& row_info) { return "row_" + std::to_string(row_info.index); });

INSTANTIATE_TEST_SUITE_P(
    unknown_rank_and_unknown_patterns, reshape_dynamic,
    ::testing::Values(dynamic_row{"[...]", "[-1]", false, "[1..]"},
                      dynamic_row{"[...]", "[2,-1]", false, "[2,1..]"},
                      dynamic_row{"[...]", "[3,-1,0,2]", true, "[3,?,?,2]"},
                      dynamic_row{"[...]", "[0,-1]", false, "error:infer_zero"},
                      dynamic_row{"[...]", "[0,0,0,0,0]", true, "[?,?,?,?,?]"},
                      dynamic_row{"[...]", "[0]", false, "[0]"},
                      dynamic_row{"[...]", "[8@A,-1@B,1,2]", false, "[8@A,1..,1,2]"},
                      dynamic_row{"[2,3]", "[?,?,?]", false, "[?,?,?]"},
                      dynamic_row{"[2,3]", "[...]", false, "[...]"},
                      dynamic_row{"[2,3]", "[]", false, "error:count_mismatch"}),
    [](const auto& row_info) { return "row_" + std::to_string(row_info.index); });

TEST(reshape_dynamic, symbol_equalities_come_with_the_shape) {
  const auto r = infer_shape(parse_shape("[?@A,?@B,768]"), parse_pattern("[?@A,?@C,12,64]"), false);
  EXPECT_EQ(to_string(r.shape), "[?@A,?@C,12,64]");
  ASSERT_EQ(r.symbol_equalities.size(), 1u);
  EXPECT_EQ(r.symbol_equalities[0], (symbol_equality{"B", "C"}));

  const auto s = infer_shape(parse_shape("[1@A,4]"), parse_pattern("[4,1..3@B]"), false);
  ASSERT_EQ(s.symbol_equalities.size(), 1u);
  EXPECT_EQ(s.symbol_equalities[0], (symbol_equality{"A", "B"}));
}

TEST(reshape_dynamic, no_equality_when_the_intervals_cannot_meet) {
  const auto r = infer_shape(parse_shape("[2..3@A]"), parse_pattern("[5..9@B]"), false);
  EXPECT_TRUE(r.symbol_equalities.empty());
}

TEST(reshape_dynamic, no_equality_and_no_error_when_there_is_a_minus_one) {
  const auto r = infer_shape(parse_shape("[?@A,4]"), parse_pattern("[-1,?@B]"), false);
  EXPECT_EQ(to_string(r.shape), "[?,?@B]");
  EXPECT_TRUE(r.symbol_equalities.empty());
}

TEST(reshape_dynamic, huge_interval_lower_bound_product_is_overflow) {
  EXPECT_EQ(infer_text("[0,4294967296..,4294967296..]", "[0,-1]", true), "error:overflow");
  EXPECT_EQ(infer_text("[?]", "[4294967296,4294967296]", false), "error:overflow");
  // Upper bounds saturate instead: this is sound.
  EXPECT_EQ(infer_text("[1..4294967296,1..4294967296]", "[-1]", false), "[1..]");
}

TEST(reshape_dynamic, pattern_bound_with_hi_minus_one_means_unbounded) {
  const auto p = reshape_pattern::from_bounds({{5, -1, ""}, {2, 2, ""}});
  EXPECT_EQ(to_string(infer_shape(parse_shape("[?,2]"), p, false).shape), "[5..,2]");
}

}  // namespace
}  // namespace reshape1::test
