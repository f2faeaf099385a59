#include <gtest/gtest.h>

#include "test_util.hpp"

namespace reshape1::test {
namespace {

TEST(element_type, names_round_trip) {
  EXPECT_EQ(all_element_types().size(), 25u);
  for (auto t : all_element_types()) EXPECT_EQ(parse_element_type(name(t)), t);
  EXPECT_FALSE(find_element_type("float32"));
  EXPECT_EQ(name(element_type::boolean), "boolean");
}

TEST(element_type, integer_types_are_the_pattern_types) {
  std::vector<std::string_view> integers;
  for (auto t : all_element_types())
    if (is_integer(t)) integers.push_back(name(t));
  EXPECT_EQ(integers, (std::vector<std::string_view>{"i4", "i8", "i16", "i32", "i64", "u1", "u2", "u3", "u4", "u6",
                                                     "u8", "u16", "u32", "u64"}));
}

TEST(element_type, storage_sizes) {
  struct row {
    element_type t;
    std::uint64_t n1, n7, n8, n9;
  };
  for (const auto& r : std::vector<row>{{element_type::boolean, 1, 7, 8, 9},  {element_type::f16, 2, 14, 16, 18},
                                        {element_type::bf16, 2, 14, 16, 18},  {element_type::f32, 4, 28, 32, 36},
                                        {element_type::f64, 8, 56, 64, 72},   {element_type::f8e4m3, 1, 7, 8, 9},
                                        {element_type::f8e8m0, 1, 7, 8, 9},   {element_type::f4e2m1, 1, 4, 4, 5},
                                        {element_type::nf4, 1, 4, 4, 5},      {element_type::i4, 1, 4, 4, 5},
                                        {element_type::u1, 1, 1, 1, 2},       {element_type::u2, 1, 2, 2, 3},
                                        {element_type::u3, 3, 3, 3, 6},       {element_type::u6, 3, 6, 6, 9},
                                        {element_type::u64, 8, 56, 64, 72}}) {
    EXPECT_EQ(storage_size(r.t, 1), r.n1) << name(r.t);
    EXPECT_EQ(storage_size(r.t, 7), r.n7) << name(r.t);
    EXPECT_EQ(storage_size(r.t, 8), r.n8) << name(r.t);
    EXPECT_EQ(storage_size(r.t, 9), r.n9) << name(r.t);
    EXPECT_EQ(storage_size(r.t, 0), 0u);
  }
  EXPECT_EQ(storage_size(element_type::u6, 4), 3u);
  EXPECT_EQ(storage_size(element_type::u6, 5), 6u);
}

TEST(element_type, storage_size_overflow_is_an_error) {
  EXPECT_THROW((void)storage_size(element_type::f64, std::uint64_t{1} << 62), error);
  EXPECT_EQ(storage_size(element_type::u1, UINT64_MAX), UINT64_MAX / 8 + 1);
}

}  // namespace
}  // namespace reshape1::test
