// Regressions found by fuzzing and review, each named after what it found.
#include <gtest/gtest.h>

#include "test_util.hpp"

namespace reshape1::test {
namespace {

TEST(regressions, fuzz_infer_unknown_values_of_length_zero_are_the_empty_pattern) {
  // fuzz_infer: [9,1,5,0,3,6] with a length-0 pattern of "unknown" values gave [] (1 element from 0).
  const auto input = parse_shape("[9,1,5,0,3,6]");
  EXPECT_THROW((void)infer_shape(input, reshape_pattern::of_length(0), false), error);
  EXPECT_EQ(to_string(infer_shape(parse_shape("[1,1]"), reshape_pattern::of_length(0), false).shape), "[]");
  EXPECT_EQ(to_string(infer_shape(parse_shape("[?,1]"), reshape_pattern::of_length(0), false).shape), "[]");
}

TEST(regressions, fast_path_wrapped_product_is_not_a_zero_dimension) {
  // Found by the agreement test: 144 * 2^62 wraps to exactly 0 in 64 bits.
  const std::vector<std::int64_t> p{5, 0, 4};
  EXPECT_THROW((void)infer_static_shape(shape{2, 1, 4, 6, 3, 4611686018427387904}, p, true), error);
}

TEST(regressions, fuzz_infer_upper_bound_minus_one_prints_as_unbounded) {
  // fuzz_infer's report showed the bounds (0,-1) as "..-1"; -1 above 0 means no upper bound.
  EXPECT_EQ(to_string(reshape_pattern::from_bounds({{0, -1, "A"}, {3, -1, ""}})), "[?@A,3..]");
}

TEST(regressions, fuzz_infer_sound_bounds_cover_minus_one_when_both_products_are_zero) {
  // fuzz_infer: [0,0] with bounds [-1..0,0,4..4294967296]. Read as -1 with the value 4, the run-time
  // answer is [1,0,4]; the interval form of that reading came out empty and was skipped, so the sound
  // result [0,0,4..4294967296] missed it.
  // Sound bounds now reason on instances: with a 0 on both sides the -1 is 1, and read as 0 it is 0.
  EXPECT_EQ(infer_text("[0,0]", "[-1..0,0,4..4294967296]", false, sound()), "[..1,0,4..4294967296]");
  EXPECT_EQ(infer_text("[0,0]", "[-1,0,4]", false), "[1,0,4]");
  // The default answer is unchanged (OpenVINO's algorithm, with deviation D9).
  EXPECT_EQ(infer_text("[0,0]", "[-1,0,4..4294967296]", false), "error:not_divisible");
}

TEST(regressions, fuzz_infer_a_literal_zero_absorbs_an_overflowing_output_product) {
  // fuzz_infer: [0,0,0] with bounds [-1..0,7410673577680044023..,4..,-1..0]. The reading [0,7410673577680044023..,4..,-1]
  // failed with `overflow` (the lower bounds of the other output dimensions multiply past 2^63), so the
  // sound result [0,7410673577680044023..,4..,0] missed the run-time answer [0,7410673577680044023,4,1]. Beside a
  // literal 0 the output has no elements: section 7 makes that product 0, not an overflow.
  // Either end is the -1 (1, beside a 0 on both sides) or a literal 0: ..1 at both ends.
  EXPECT_EQ(infer_text("[0,0,0]", "[-1..0,7410673577680044023..,4..,-1..0]", false, sound()),
            "[..1,7410673577680044023..,4..,..1]");
  EXPECT_EQ(infer_text("[0,0,0]", "[0,7410673577680044023,4,-1]", false), "[0,7410673577680044023,4,1]");
  // Default answers: both static products are 0, so the -1's interval has no value (D9), as it has
  // none for [0,74..,4..,-1]; with a non-empty input, the literal 0 is infer_zero, as with values.
  expect_error([] { (void)infer_shape(parse_shape("[0,0,0]"), parse_pattern("[0,7410673577680044023..,4..,-1]"), false); },
               errc::not_divisible,
               "pattern[3]: cannot infer -1: input [0,0,0] and the other output dimensions [0,7410673577680044023..,4..] "
               "are both empty, so the element count does not fix it, and their remaining dimensions leave no value; "
               "give the dimension explicitly or use sound bounds",
               {3});
  EXPECT_EQ(infer_text("[0,0,0]", "[0,74..,4..,-1]", false), "error:not_divisible");
  EXPECT_EQ(infer_text("[2,3]", "[0,7410673577680044023..,4..,-1]", false), "error:infer_zero");
  EXPECT_EQ(infer_text("[2,3]", "[0,7410673577680044023,4,-1]", false), "error:infer_zero");
  // An input side with a 0 has no elements either: the -1 stands for 0 elements.
  EXPECT_EQ(infer_text("[0,4294967296..,4294967296..]", "[-1]", false), "[0]");
  // Every instance is empty on both sides, so with sound bounds the -1 is 1 (by default: D9).
  EXPECT_EQ(infer_text("[0,4294967296..,4294967296..]", "[0,-1]", false), "error:not_divisible");
  EXPECT_EQ(infer_text("[0,4294967296..,4294967296..]", "[0,-1]", false, sound()), "[0,1]");
  // Without a 0 on its side, the product of the dimensions the -1 stands for still overflows.
  EXPECT_EQ(infer_text("[0,4294967296..,4294967296..]", "[0,-1]", true), "error:overflow");
}

TEST(regressions, fuzz_infer_a_factor_that_can_be_zero_absorbs_an_overflowing_product) {
  // fuzz_infer: [0,0,5] with bounds [-1..0,7410673577680044023..,4..,..4]. Multiplied in order, the lower bounds
  // 7410673577680044023 x 4 overflowed before the 0 of `..4` was reached, so the reading with -1 failed and the
  // sound result missed the run-time answer [1,7410673577680044023,4,0]. A 0 lower bound now goes first.
  // Sound bounds: the input is empty, so the -1 is 0 (no output 0) or 1 (an output 0).
  EXPECT_EQ(infer_text("[0,0,5]", "[-1..0,7410673577680044023..,4..,..4]", false, sound()),
            "[..1,7410673577680044023..,4..,..4]");
  EXPECT_EQ(infer_text("[0,0,5]", "[-1,7410673577680044023..,4..,..4]", false), "[?,7410673577680044023..,4..,..4]");
  EXPECT_EQ(infer_text("[0,0,5]", "[-1,7410673577680044023,4,0]", false), "[1,7410673577680044023,4,0]");
  // The same rule for input factors, and in either order.
  EXPECT_EQ(infer_text("[4294967296..,4294967296..,..3]", "[-1]", false), "[?]");
  EXPECT_EQ(infer_text("[..3,4294967296..,4294967296..]", "[-1]", false), "[?]");
  EXPECT_EQ(infer_text("[4294967296..,4294967296..,1..3]", "[-1]", false), "error:overflow");
}

TEST(regressions, review_an_overflowing_output_side_is_named_as_such) {
  // Review: when the literal output dimensions' static factors overflow beside a `?` (whose lower bound
  // 0 keeps the checked literal product at 0), the message blamed "the input dimensions it stands for".
  expect_error([] { (void)infer_shape(parse_shape("[]"), parse_pattern("[8,?,9223372036854775807,-1]"), false); },
               errc::overflow,
               "pattern[3]: cannot infer -1: the other output dimensions [8,9223372036854775807,?] multiply past 64 bits",
               {3});
}

}  // namespace
}  // namespace reshape1::test

namespace reshape1::test {
namespace {

TEST(regressions, issue_10_a_symbol_on_a_zero_dimension_survives_the_minus_one) {
  // OpenVINO keeps the symbol of a static 0 as it does for [5@A]; the 0 used to drop it.
  EXPECT_EQ(infer_text("[0@A]", "[-1,1]", false), "[0@A,1]");
  EXPECT_EQ(infer_text("[5@A]", "[-1,1]", false), "[5@A,1]");
}

TEST(regressions, issue_10_a_pattern_length_is_capped_before_anything_is_allocated) {
  // A pattern of unknown values declared 10^12 long used to allocate 10^12 dimensions.
  expect_error([] { (void)infer_shape(parse_shape("[2,3]"), reshape_pattern::of_length(1000000000000), false); },
               errc::too_large,
               "pattern: length 1000000000000 is above reshape1's limit of 1048576 (2^20); no real model has an output "
               "of that rank; check where the pattern comes from");
  EXPECT_EQ(to_string(reshape_pattern::of_length(1000000000000)), "<1000000000000 unknown values>");
  // At the limit it is still answered.
  EXPECT_EQ(infer_shape(parse_shape("[...]"), reshape_pattern::of_length(1 << 20), false).shape.size(), 1u << 20);
}

}  // namespace
}  // namespace reshape1::test

namespace reshape1::test {
namespace {

TEST(regressions, fuzz_infer_sound_bounds_when_a_copied_zero_empties_an_overflowing_product) {
  // fuzz_infer: [?,9,11,9223372036854775807,8,11] with bounds [0,-1..9,9..,11..,?,?] and special_zero. The
  // -1 reading failed with `overflow` (9 x 11 x 2^63-1 x ...), so the sound result [?,1..9,...] missed the
  // instance [0,9,11,9223372036854775807,8,11] . [0,-1,9,11,8,11], whose copied 0 empties both sides and
  // whose equal values cancel: [0,9223372036854775807,9,11,8,11].
  const auto sound_answer = infer_text("[?,9,11,9223372036854775807,8,11]", "[0,-1..9,9..,11..,?,?]", true, sound());
  EXPECT_EQ(sound_answer, "[?,?,9..,11..,1..,1..]");
  EXPECT_EQ(infer_text("[0,9,11,9223372036854775807,8,11]", "[0,-1,9,11,8,11]", true), "[0,9223372036854775807,9,11,8,11]");
}

}  // namespace
}  // namespace reshape1::test
