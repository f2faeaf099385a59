// Pattern tensors of every integer type, decoded exactly from the bytes OpenVINO would hold.
#include <gtest/gtest.h>

#include <cstring>

#include "test_util.hpp"

namespace reshape1::test {
namespace {

std::vector<std::int64_t> values_of(element_type t, std::vector<unsigned char> raw, std::int64_t n) {
  std::vector<std::byte> bytes(raw.size());
  std::memcpy(bytes.data(), raw.data(), raw.size());
  const auto p = reshape_pattern::from_tensor(t, bytes, shape{n});
  std::vector<std::int64_t> v;
  for (const auto& e : p.elements()) v.push_back(e.lo);
  return v;
}

template <class T>
std::vector<unsigned char> bytes_of(std::initializer_list<T> values) {
  std::vector<unsigned char> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

using v = std::vector<std::int64_t>;

TEST(pattern_tensor, whole_byte_types) {
  EXPECT_EQ(values_of(element_type::i8, bytes_of<std::int8_t>({-128, -1, 0, 127}), 4), (v{-128, -1, 0, 127}));
  EXPECT_EQ(values_of(element_type::u8, bytes_of<std::uint8_t>({255, 0}), 2), (v{255, 0}));
  EXPECT_EQ(values_of(element_type::i16, bytes_of<std::int16_t>({-32768, -1}), 2), (v{-32768, -1}));
  EXPECT_EQ(values_of(element_type::u16, bytes_of<std::uint16_t>({65535}), 1), (v{65535}));
  EXPECT_EQ(values_of(element_type::i32, bytes_of<std::int32_t>({INT32_MIN, -1, 7}), 3), (v{INT32_MIN, -1, 7}));
  EXPECT_EQ(values_of(element_type::u32, bytes_of<std::uint32_t>({4294967295u}), 1), (v{4294967295}));
  EXPECT_EQ(values_of(element_type::i64, bytes_of<std::int64_t>({INT64_MIN, INT64_MAX}), 2), (v{INT64_MIN, INT64_MAX}));
  EXPECT_EQ(values_of(element_type::u64, bytes_of<std::uint64_t>({std::uint64_t{INT64_MAX}}), 1), (v{INT64_MAX}));
}

TEST(pattern_tensor, u64_above_int64_is_kept_for_inference) {
  const auto raw = bytes_of<std::uint64_t>({2, UINT64_MAX});
  std::vector<std::byte> bytes(raw.size());
  std::memcpy(bytes.data(), raw.data(), raw.size());
  const auto p = reshape_pattern::from_tensor(element_type::u64, bytes, shape{2});
  ASSERT_EQ(p.too_large().size(), 1u);
  EXPECT_EQ(p.too_large()[0], (std::pair<std::size_t, std::uint64_t>{1, UINT64_MAX}));
  test::expect_error([&] { (void)infer_shape(parse_shape("[2,3]"), p, false); }, errc::invalid_value,
                     "pattern[1]: value 18446744073709551615 does not fit int64; a pattern value is -1, 0 or a "
                     "dimension",
                     {1});
}

TEST(pattern_tensor, u1_first_element_in_the_most_significant_bit) {
  EXPECT_EQ(values_of(element_type::u1, {0xB1, 0x80}, 9), (v{1, 0, 1, 1, 0, 0, 0, 1, 1}));
  EXPECT_EQ(values_of(element_type::u1, {0x80}, 1), (v{1}));
  EXPECT_EQ(values_of(element_type::u1, {0xFE}, 7), (v{1, 1, 1, 1, 1, 1, 1}));
}

TEST(pattern_tensor, u2_first_element_in_the_top_bits) {
  EXPECT_EQ(values_of(element_type::u2, {0xC9, 0x40}, 5), (v{3, 0, 2, 1, 1}));
}

TEST(pattern_tensor, four_bit_types_first_element_in_the_low_nibble) {
  EXPECT_EQ(values_of(element_type::u4, {0xC5, 0x07}, 3), (v{5, 12, 7}));
  EXPECT_EQ(values_of(element_type::i4, {0x78, 0x0F}, 3), (v{-8, 7, -1}));
}

TEST(pattern_tensor, u3_split_bit_groups_of_eight) {
  EXPECT_EQ(values_of(element_type::u3, {0x1B, 0x1B, 0x0F, 0x40, 0x00, 0x80}, 9), (v{0, 1, 2, 3, 4, 5, 6, 7, 5}));
  EXPECT_EQ(values_of(element_type::u3, {0x1B, 0x1B, 0x0F}, 7), (v{0, 1, 2, 3, 4, 5, 6}));
}

TEST(pattern_tensor, u6_split_bit_groups_of_four) {
  EXPECT_EQ(values_of(element_type::u6, {0x12, 0xF0, 0x1E, 0x10, 0x00, 0x80}, 5), (v{1, 18, 63, 32, 33}));
}

TEST(pattern_tensor, a_wrong_byte_count_is_refused) {
  std::vector<std::byte> two(2);
  EXPECT_THROW((void)reshape_pattern::from_tensor(element_type::u3, two, shape{8}), error);
  EXPECT_THROW((void)reshape_pattern::from_tensor(element_type::i16, two, shape{2}), error);
}

TEST(pattern_tensor, float_type_is_reported_by_inference) {
  std::vector<std::byte> four(4);
  const auto p = reshape_pattern::from_tensor(element_type::f32, four, shape{1});
  EXPECT_EQ(infer_text("[1]", "[1]", false, {}, element_type::f32), "error:pattern_type");
  EXPECT_THROW((void)infer_shape(parse_shape("[1]"), p, false), error);
}

TEST(pattern_tensor, drives_inference_like_values) {
  const auto raw = bytes_of<std::int32_t>({0, -1, 4});
  std::vector<std::byte> bytes(raw.size());
  std::memcpy(bytes.data(), raw.data(), raw.size());
  const auto p = reshape_pattern::from_tensor(element_type::i32, bytes, shape{3});
  EXPECT_EQ(to_string(infer_shape(parse_shape("[2,5,5,24]"), p, true).shape), "[2,150,4]");
}

}  // namespace
}  // namespace reshape1::test
