// Section 9 of docs/semantics.md: the deviations from OpenVINO (D1-D9) and the options (O1-O3).
#include <gtest/gtest.h>

#include "test_util.hpp"

namespace reshape1::test {
namespace {

reshape_options with(empty_rule r) {
  reshape_options o;
  o.empty = r;
  return o;
}
reshape_options legacy() {
  reshape_options o;
  o.legacy_scalar_pattern = true;
  return o;
}

TEST(deviations, d1_count_is_checked_even_with_special_zero) {
  EXPECT_EQ(infer_text("[1,2,3,8]", "[0,3,0,8]", true), "error:count_mismatch");
  EXPECT_EQ(infer_text("[1,3,3,8]", "[0,2,0,8]", true), "error:count_mismatch");
}

TEST(deviations, d2_overflowing_products_never_compare_equal) {
  EXPECT_EQ(infer_text("[4294967296,4294967296]", "[17179869184,2147483648]", false), "error:overflow");
}

TEST(deviations, d3_u64_max_is_not_minus_one) {
  EXPECT_EQ(infer_text("[2,3]", "[18446744073709551615,3]", false, {}, element_type::u64), "error:invalid_value");
  EXPECT_EQ(infer_text("[2,3]", "[9223372036854775808,3]", false, {}, element_type::u64), "error:invalid_value");
}

TEST(deviations, d4_nf4_and_string_patterns_are_rejected) {
  EXPECT_EQ(infer_text("[2,3]", "[6]", false, {}, element_type::nf4), "error:pattern_type");
  EXPECT_EQ(infer_text("[2,3]", "[6]", false, {}, element_type::string), "error:pattern_type");
}

TEST(deviations, d5_packed_4_bit_patterns_are_unpacked) {
  // i4 values 6 and -1 packed in one byte: low nibble first.
  const std::byte packed{0xF6};
  const auto p = reshape_pattern::from_tensor(element_type::i4, std::span(&packed, 1), shape{2});
  EXPECT_EQ(to_string(infer_shape(parse_shape("[2,3,4]"), p, false).shape), "[6,4]");
}

TEST(deviations, d7_exact_integer_division_above_2_53) {
  EXPECT_EQ(infer_text("[27021597764222979]", "[3,-1]", false), "[3,9007199254740993]");
  EXPECT_EQ(infer_text("[9007199254740995]", "[5,-1]", false), "[5,1801439850948199]");
}

TEST(deviations, d8_zero_size_tensor_with_minus_one_does_not_divide_by_zero) {
  EXPECT_EQ(infer_text("[0,3]", "[0,-1]", false), "[0,1]");
  EXPECT_EQ(infer_text("[1]", "[7,7905747460161236407]", false), "error:overflow");
}

TEST(deviations, d9_empty_interval_for_minus_one_is_not_divisible) {
  EXPECT_EQ(infer_text("[24,2..9]", "[-1,256]", false), "error:not_divisible");
  EXPECT_EQ(infer_text("[6..16]", "[6..16,6..16,6..16,-1]", false), "error:not_divisible");
}

TEST(empty_rule, openvino_tensorflow_and_strict_answers) {
  struct row {
    const char* input;
    const char* pattern;
    bool sz;
    const char* openvino;
    const char* tensorflow;
    const char* strict;
  };
  for (const auto& r : std::vector<row>{
           {"[0,16,8]", "[0,-1]", false, "[0,1]", "[0,128]", "error:infer_zero"},
           {"[0,16,8]", "[0,-1]", true, "[0,128]", "[0,128]", "[0,128]"},
           {"[0,16,8]", "[0,16,-1]", false, "[0,16,1]", "[0,16,8]", "error:infer_zero"},
           {"[0,3]", "[-1]", false, "[0]", "[0]", "[0]"},
           {"[0,3]", "[-1,0]", false, "[1,0]", "[3,0]", "error:infer_zero"},
           {"[10,0]", "[2,0,-1]", false, "[2,0,1]", "[2,0,5]", "error:infer_zero"},
           {"[2,3]", "[0,-1]", false, "error:infer_zero", "error:count_mismatch", "error:infer_zero"},
           {"[5]", "[0,1879048192,100000000,1610612736,-1]", false, "error:infer_zero", "error:overflow",
            "error:infer_zero"},
       }) {
    EXPECT_EQ(infer_text(r.input, r.pattern, r.sz, with(empty_rule::openvino)), r.openvino) << r.input << r.pattern;
    EXPECT_EQ(infer_text(r.input, r.pattern, r.sz, with(empty_rule::tensorflow)), r.tensorflow) << r.input << r.pattern;
    EXPECT_EQ(infer_text(r.input, r.pattern, r.sz, with(empty_rule::strict)), r.strict) << r.input << r.pattern;
  }
}

TEST(empty_rule, tensorflow_applies_to_partial_shapes) {
  EXPECT_EQ(infer_text("[0,?,8]", "[0,-1]", false, with(empty_rule::tensorflow)), "[0,?]");
  EXPECT_EQ(infer_text("[0,2..4]", "[0,-1]", false, with(empty_rule::tensorflow)), "[0,2..4]");
}

TEST(sound_bounds, covers_the_copy_and_the_inference_readings) {
  EXPECT_EQ(infer_text("[7,3]", "[..5,3]", true), "[..5,3]");
  EXPECT_EQ(infer_text("[7,3]", "[..5,3]", true, sound()), "[1..7,3]");
  EXPECT_EQ(infer_text("[6]", "[-1..5]", false), "[..5]");
  EXPECT_EQ(infer_text("[6]", "[-1..5]", false, sound()), "[..6]");
}

TEST(sound_bounds, a_reading_with_a_second_minus_one_is_skipped) {
  // [-1..4, -1] with [8]: the first element cannot be -1 as well, so it is read literally, 0..4. Its
  // value 0 is infer_zero in every instance, so the -1 is 8 / (1..4): 2..8.
  EXPECT_EQ(infer_text("[8]", "[-1..4,-1]", false, sound()), "[..4,2..8]");
}

TEST(sound_bounds, minus_one_to_zero_reads_as_infer_or_copy) {
  EXPECT_EQ(infer_text("[4,3]", "[-1..0,3]", true), "[4,3]");
  EXPECT_EQ(infer_text("[4,3]", "[-1..0,3]", true, sound()), "[4,3]");
  EXPECT_EQ(infer_text("[4,3]", "[-1..0,2]", true, sound()), "[6,2]");  // the copy reading fails; -1 gives 6
}

TEST(sound_bounds, more_than_four_ambiguous_elements_become_unknown) {
  EXPECT_EQ(infer_text("[2,2,2,2,2,2]", "[..2,..2,..2,..2,..2,2]", true, sound()), "[?,?,?,?,?,2]");
  // Four are enumerated: each is a copy (2) or a literal 1..2 (under special_zero a 0 is never literal).
  EXPECT_EQ(infer_text("[2,2,2,2,2,2]", "[..2,..2,..2,..2,2]", true, sound()), "[1..2,1..2,1..2,1..2,2]");
}

TEST(sound_bounds, when_every_reading_fails_the_literal_error_is_reported) {
  // -1 would give 4/3, the literal 0 gives 0 elements for 4: no reading works.
  EXPECT_EQ(infer_text("[4]", "[-1..0,3]", false, sound()), "error:count_mismatch");
  EXPECT_EQ(infer_text("[2]", "[0..1,0]", true, sound()), "error:copy_out_of_range");
}

TEST(sound_bounds, values_patterns_are_unaffected) {
  EXPECT_EQ(infer_text("[2,5,5,24]", "[0,-1,4]", true, sound()), "[2,150,4]");
}

TEST(legacy_scalar_pattern, one_means_a_scalar) {
  EXPECT_EQ(infer_text("[]", "1", false), "error:scalar_pattern");
  EXPECT_EQ(infer_text("[]", "1", false, legacy()), "[]");
  EXPECT_EQ(infer_text("[1,1]", "1", false, legacy()), "[]");
  EXPECT_EQ(infer_text("[1,2,3]", "1", false, legacy()), "error:count_mismatch");
  EXPECT_EQ(infer_text("[1,2,3]", "100", false, legacy()), "error:scalar_pattern");
  EXPECT_EQ(infer_text("[1]", "-1", false, legacy()), "error:scalar_pattern");
  EXPECT_EQ(infer_text("[...]", "?", false, legacy()), "[]");
  EXPECT_EQ(infer_text("[]", "?", false, legacy()), "[]");
  EXPECT_EQ(infer_text("[3,4]", "?", false, legacy()), "error:scalar_pattern");
}

}  // namespace
}  // namespace reshape1::test
