// One test per error code, with the exact message. docs/errors.md shows the same messages; the CLI
// test checks the doc's examples against the built binary.
#include <gtest/gtest.h>

#include <set>

#include "test_util.hpp"

namespace reshape1::test {
namespace {

void infer(const std::string& input, const std::string& pattern, bool special_zero, const reshape_options& o = {},
           element_type type = element_type::i64) {
  (void)infer_shape(parse_shape(input), parse_pattern(pattern, type), special_zero, o);
}

TEST(reshape_errors, pattern_type_names_the_element_type) {
  expect_error([] { infer("[2,3]", "[1,2]", false, {}, element_type::f32); }, errc::pattern_type,
               "pattern: element type f32 is not an integer type; use an integer type such as i64 or i32");
}

TEST(reshape_errors, nf4_and_string_patterns_are_not_integers) {
  for (auto t : {element_type::nf4, element_type::string, element_type::boolean})
    EXPECT_THROW(infer("[2,3]", "[6]", false, {}, t), error);
}

TEST(reshape_errors, pattern_rank_shows_the_tensor_shape) {
  const auto p = reshape_pattern::from_values(std::vector<std::int64_t>{3, 5, 4}).with_tensor_shape(
      parse_shape("[3,1]"));
  expect_error([&] { (void)infer_shape(parse_shape("[3,4,5]"), p, false); }, errc::pattern_rank,
               "pattern: must be a 1-D tensor, got shape [3,1]; a pattern lists one value per output dimension");
}

TEST(reshape_errors, invalid_value_names_index_and_value) {
  expect_error([] { infer("[2,3]", "[-2,3]", false); }, errc::invalid_value,
               "pattern[0]: value -2 is invalid; use -1 to infer a dimension", {0});
}

TEST(reshape_errors, invalid_value_for_bounds_that_are_both_negative) {
  expect_error([] { infer("[2,3]", "[7,-7..-2]", false); }, errc::invalid_value,
               "pattern[1]: bounds -7..-2 are invalid; a pattern element is -1, 0 or a dimension", {1});
}

TEST(reshape_errors, invalid_value_for_u64_above_int64) {
  expect_error([] { infer("[2,3]", "[18446744073709551615,3]", false, {}, element_type::u64); }, errc::invalid_value,
               "pattern[0]: value 18446744073709551615 does not fit int64; a pattern value is -1, 0 or a dimension",
               {0});
}

TEST(reshape_errors, first_invalid_element_from_the_left_decides) {
  expect_error([] { infer("[2,3]", "[-1,-1,-2]", false); }, errc::multiple_infer,
               "pattern[0] and pattern[1]: only one -1 is allowed; give the other dimensions explicitly", {0, 1});
  expect_error([] { infer("[2,3]", "[-2,-1,-1]", false); }, errc::invalid_value,
               "pattern[0]: value -2 is invalid; use -1 to infer a dimension", {0});
}

TEST(reshape_errors, multiple_infer_names_both_indices) {
  expect_error([] { infer("[1,2,3,1]", "[0,-1,-1]", true); }, errc::multiple_infer,
               "pattern[1] and pattern[2]: only one -1 is allowed; give the other dimensions explicitly", {1, 2});
}

TEST(reshape_errors, copy_out_of_range_shows_the_input) {
  expect_error([] { infer("[1..2,2..4,8]", "[5,1,1,0]", true); }, errc::copy_out_of_range,
               "pattern[3]: 0 copies input dimension 3, but the input [1..2,2..4,8] has rank 3; use "
               "special_zero=false for a literal 0",
               {3});
}

TEST(reshape_errors, overflow_of_the_input_count) {
  expect_error([] { infer("[4294967296,4294967296]", "[-1]", false); }, errc::overflow,
               "input: the element count of [4294967296,4294967296] overflows 64 bits");
}

TEST(reshape_errors, overflow_of_the_literal_output_product) {
  expect_error([] { infer("[1]", "[7,7905747460161236407,-1]", true); }, errc::overflow,
               "pattern: the output dimensions other than -1 [7,7905747460161236407] multiply past 64 bits", {2});
}

TEST(reshape_errors, overflow_of_the_output_count) {
  expect_error([] { infer("[1]", "[7,7905747460161236407]", true); }, errc::overflow,
               "pattern: the element count of the output [7,7905747460161236407] overflows 64 bits");
}

TEST(reshape_errors, infer_zero_explains_the_missing_zero) {
  expect_error([] { infer("[2,5,4]", "[5,0,-1]", false); }, errc::infer_zero,
               "pattern[2]: cannot infer -1 when another output dimension is 0 and the input [2,5,4] has no "
               "dimension known to be 0; use special_zero=true to copy a 0, or give the dimension explicitly",
               {2});
}

TEST(reshape_errors, infer_zero_under_the_strict_empty_rule) {
  reshape_options o;
  o.empty = empty_rule::strict;
  expect_error([&] { infer("[0,3]", "[0,-1]", false, o); }, errc::infer_zero,
               "pattern[1]: cannot infer -1 when another output dimension is 0: for the empty input [0,3] any value "
               "fits (empty rule strict); give the dimension explicitly",
               {1});
}

TEST(reshape_errors, not_divisible_shows_both_counts) {
  expect_error([] { infer("[2,5,4]", "[10,-1,3]", false); }, errc::not_divisible,
               "pattern[1]: cannot infer -1: input [2,5,4] has 40 elements, which the other output dimensions (30) "
               "do not divide",
               {1});
}

TEST(reshape_errors, not_divisible_when_the_interval_is_empty) {
  expect_error([] { infer("[24,2..9]", "[-1,256]", false); }, errc::not_divisible,
               "pattern[0]: cannot infer -1: input [24,2..9] has 48..216 elements, which the other output dimensions "
               "(256) do not divide",
               {0});
}

TEST(reshape_errors, count_mismatch_shows_both_shapes_and_counts) {
  expect_error([] { infer("[3,4,5]", "[3,3,3]", false); }, errc::count_mismatch,
               "pattern: output [3,3,3] has 27 elements but input [3,4,5] has 60; use 0 to copy an input dimension "
               "or -1 to infer one");
}

TEST(reshape_errors, scalar_pattern_is_refused_by_default) {
  expect_error([] { infer("[1,2,3]", "100", false); }, errc::scalar_pattern,
               "pattern: must be 1-D, got a scalar (rank-0) tensor; write [v] for one output dimension or [] for a "
               "scalar output");
}

TEST(reshape_errors, legacy_scalar_pattern_must_hold_one) {
  reshape_options o;
  o.legacy_scalar_pattern = true;
  expect_error([&] { infer("[1,2,3]", "100", false, o); }, errc::scalar_pattern,
               "pattern: a scalar pattern must hold 1, got 100; write [100] for a 1-D pattern");
  expect_error([&] { infer("[3,4]", "?", false, o); }, errc::scalar_pattern,
               "pattern: a scalar pattern gives a scalar output, but the input [3,4] has rank 2");
}

TEST(reshape_errors, syntax_error_carries_the_offset) {
  try {
    (void)parse_shape("[2,x]");
    FAIL();
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::syntax);
    EXPECT_EQ(e.where().offset, 3u);
    EXPECT_STREQ(e.what(),
                 "offset 3: expected a dimension, found 'x'; dimensions look like 5, ?, 2..8, 2.., ..8 or -1, "
                 "optionally followed by @name");
  }
}

TEST(reshape_errors, unknown_element_type_lists_the_names) {
  try {
    (void)parse_element_type("float");
    FAIL();
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::unknown_element_type);
    EXPECT_EQ(std::string(e.what()).rfind("element type 'float': unknown; use one of boolean, bf16,", 0), 0u);
  }
}

TEST(reshape_errors, value_range_names_the_type_and_its_range) {
  expect_error([] { (void)parse_pattern("[2,300]", element_type::u8); }, errc::value_range,
               "offset 3 (pattern[1]): value 300 does not fit u8 (0..255); choose a wider element type", {1});
  expect_error([] { (void)parse_pattern("[-9]", element_type::i4); }, errc::value_range,
               "offset 1 (pattern[0]): value -9 does not fit i4 (-8..7); choose a wider element type", {0});
}

TEST(reshape_errors, invalid_shape_for_negative_dimensions) {
  expect_error([] { (void)parse_shape("[2,-3]"); }, errc::invalid_shape,
               "offset 3: dimension -3 is negative; use ? (or -1) for an unknown dimension");
  expect_error([] { (void)shape({2, -3}); }, errc::invalid_shape,
               "shape[1]: dimension -3 is negative; a static shape has dimensions >= 0", {1});
}

TEST(reshape_errors, invalid_argument_for_a_tensor_of_the_wrong_size) {
  const std::vector<std::byte> bytes(5);
  expect_error([&] { (void)reshape_pattern::from_tensor(element_type::i32, bytes, shape{2}); },
               errc::invalid_argument, "pattern: a i32 tensor of shape [2] takes 8 bytes, got 5");
}

TEST(reshape_errors, static_fast_path_throws_the_same_error_as_the_general_path) {
  const std::vector<std::int64_t> p{10, -1, 3};
  expect_error([&] { (void)infer_static_shape(shape{2, 5, 4}, p, false); }, errc::not_divisible,
               "pattern[1]: cannot infer -1: input [2,5,4] has 40 elements, which the other output dimensions (30) "
               "do not divide",
               {1});
}

TEST(reshape_errors, every_code_has_a_stable_distinct_name) {
  std::set<std::string_view> names;
  for (int c = 0; c <= static_cast<int>(errc::unsupported); ++c) names.insert(name(static_cast<errc>(c)));
  EXPECT_EQ(names.size(), static_cast<std::size_t>(errc::unsupported) + 1);
  EXPECT_EQ(names.count("unknown"), 0u);
}

}  // namespace
}  // namespace reshape1::test
