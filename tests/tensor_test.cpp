// The data path: every element type's storage, views, copies, strings, value propagation, and the
// data-path cases of the conformance vectors.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "conformance.hpp"
#include <fmt/format.h>

#include "test_util.hpp"

namespace reshape1::test {
namespace {

TEST(tensor_view, every_element_type_views_and_copies_byte_identically) {
  for (auto t : all_element_types()) {
    if (t == element_type::string) continue;
    for (std::int64_t n : {1, 7, 8, 9}) {
      const auto size = storage_size(t, static_cast<std::uint64_t>(n));
      const auto src = pattern_bytes(size, static_cast<unsigned>(n));
      const tensor_view in(src.data(), t, shape{n});
      EXPECT_EQ(in.byte_size(), size) << name(t);
      const std::vector<std::int64_t> p{1, -1, 1};
      const tensor_view v = reshape(in, p, false);
      EXPECT_EQ(v.data(), in.data());
      EXPECT_EQ(to_string(v.dims()), fmt::format("[1,{},1]", n));
      std::vector<std::byte> dst(size + 3, std::byte{0xEE});
      const tensor_view c = reshape_copy(in, p, false, dst);
      EXPECT_EQ(c.data(), dst.data());
      EXPECT_EQ(std::memcmp(dst.data(), src.data(), size), 0) << name(t) << " n=" << n;
      // Exactly the storage size: the bytes past it are untouched.
      EXPECT_EQ(dst[size], std::byte{0xEE}) << name(t) << " n=" << n;
    }
  }
}

TEST(tensor_view, sub_byte_and_split_bit_sizes) {
  EXPECT_EQ(tensor_view(nullptr, element_type::u3, shape{9}).byte_size(), 6u);
  EXPECT_EQ(tensor_view(nullptr, element_type::u6, shape{5}).byte_size(), 6u);
  EXPECT_EQ(tensor_view(nullptr, element_type::u1, shape{3, 3}).byte_size(), 2u);
  EXPECT_EQ(tensor_view(nullptr, element_type::nf4, shape{7}).byte_size(), 4u);
  EXPECT_EQ(tensor_view(nullptr, element_type::f32, shape{0, 5}).byte_size(), 0u);
}

TEST(tensor_view, a_small_destination_is_refused_before_any_write) {
  const std::vector<float> src(10, 1.5f);
  std::vector<std::byte> dst(39, std::byte{0x5A});
  const std::vector<std::int64_t> p{-1};
  test::expect_error([&] { (void)reshape_copy(tensor_view(src.data(), element_type::f32, shape{10}), p, false, dst); },
                     errc::buffer_too_small,
                     "destination: 39 bytes are too few for a f32 tensor of shape [10] (40 bytes); nothing was written");
  for (auto b : dst) EXPECT_EQ(b, std::byte{0x5A});
}

TEST(tensor_view, multi_threaded_copy_is_identical) {
  const auto src = pattern_bytes((std::size_t{3} << 20) + 13, 3);
  std::vector<std::byte> dst(src.size());
  copy_options o;
  o.threads = 3;
  o.parallel_threshold = 0;
  copy_elements(tensor_view(src.data(), element_type::u8, shape{static_cast<std::int64_t>(src.size())}), dst, o);
  EXPECT_EQ(dst, src);
}

TEST(tensor_view, strings_copy_element_by_element) {
  tensor t(element_type::string, shape{2, 2});
  t.strings()[0] = "a";
  t.strings()[3] = std::string(100, 'x');
  const std::vector<std::int64_t> p{-1};
  const auto v = reshape(t.view(), p, false);
  EXPECT_EQ(to_string(v.dims()), "[4]");
  std::vector<std::string> out(4);
  copy_elements(v, out);
  EXPECT_EQ(out[0], "a");
  EXPECT_EQ(out[3], std::string(100, 'x'));
  std::vector<std::string> small(3);
  EXPECT_THROW(copy_elements(v, small), error);
  std::vector<std::byte> bytes(1000);
  EXPECT_THROW(copy_elements(v, std::span<std::byte>(bytes)), error);
}

TEST(tensor, owning_storage_is_aligned_zeroed_and_copyable) {
  tensor t(element_type::f64, shape{3, 5});
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.data()) % 64, 0u);
  for (auto b : t.bytes()) EXPECT_EQ(b, std::byte{0});
  t.bytes()[7] = std::byte{9};
  tensor copy = t;
  EXPECT_EQ(copy.bytes()[7], std::byte{9});
  tensor moved = std::move(copy);
  EXPECT_EQ(moved.bytes()[7], std::byte{9});
  EXPECT_THROW(tensor(element_type::f64, shape{std::int64_t{1} << 62}), error);
}

TEST(tensor, value_propagation_keeps_the_values) {
  const std::vector<std::int64_t> lo{1, 2, 3, 4, 5, 6}, hi{2, 3, 4, 5, 6, 7};
  const tensor_view l(lo.data(), element_type::i64, shape{6}), h(hi.data(), element_type::i64, shape{6});
  const auto [pl, ph] = propagate_values(l, h, shape{2, 3});
  EXPECT_EQ(pl.data(), lo.data());
  EXPECT_EQ(ph.data(), hi.data());
  EXPECT_EQ(to_string(pl.dims()), "[2,3]");
  EXPECT_THROW((void)propagate_values(l, h, shape{4}), error);
}

/// Fills a tensor of type `t` with the integer values `v` (cast to the type's C++ representation).
std::vector<std::byte> encode_values(element_type t, const std::vector<std::int64_t>& v) {
  std::vector<std::byte> out(storage_size(t, v.size()));
  auto put = [&]<class T>(T) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      const T x = static_cast<T>(v[i]);
      std::memcpy(out.data() + i * sizeof(T), &x, sizeof(T));
    }
  };
  switch (t) {
    case element_type::f32: put(float{}); break;
    case element_type::i64: put(std::int64_t{}); break;
    case element_type::i32: put(std::int32_t{}); break;
    case element_type::i16: put(std::int16_t{}); break;
    case element_type::i8: put(std::int8_t{}); break;
    case element_type::u64: put(std::uint64_t{}); break;
    case element_type::u32: put(std::uint32_t{}); break;
    case element_type::u16: put(std::uint16_t{}); break;
    case element_type::u8: put(std::uint8_t{}); break;
    default: ADD_FAILURE() << "no encoder for " << name(t);
  }
  return out;
}

TEST(conformance_data_path, every_listed_element_type_keeps_its_values) {
  std::size_t runs = 0;
  for (const auto& c : load_jsonl(std::string(RESHAPE1_TEST_DATA) + "/conformance/cases.jsonl")) {
    if (!c.contains("element_types") && !c.contains("element_type")) continue;
    const auto in_shape = shape_from_json(c.at("input")).to_static();
    const auto count = in_shape.element_count();
    std::vector<std::int64_t> values(static_cast<std::size_t>(count));
    if (c.contains("input_values") && c.at("input_values").is_array()) {
      values = c.at("input_values").get<std::vector<std::int64_t>>();
    } else {
      std::iota(values.begin(), values.end(), 1);  // "iota from 1", and the chained-reshape cases
    }
    std::vector<std::int64_t> expected_values = values;
    if (c.contains("expect_values") && c.at("expect_values").is_array())
      expected_values = c.at("expect_values").get<std::vector<std::int64_t>>();
    std::vector<std::string> types;
    if (c.contains("element_types")) types = c.at("element_types").get<std::vector<std::string>>();
    else types.push_back(c.at("element_type").get<std::string>());
    std::vector<std::int64_t> pattern;
    for (const auto& v : c.at("pattern").at("values")) pattern.push_back(v.get<std::int64_t>());
    const bool sz = c.at("special_zero").get<bool>();
    for (const auto& type_name : types) {
      const auto t = parse_element_type(type_name);
      const auto src = encode_values(t, values);
      const tensor_view in(src.data(), t, in_shape);
      if (c.at("expect").contains("error")) {
        EXPECT_THROW((void)reshape(in, pattern, sz), error) << c.at("id");
        continue;
      }
      const auto out = reshape(in, pattern, sz);
      EXPECT_EQ(to_string(out.dims()), c.at("expect").at("shape_text").get<std::string>()) << c.at("id");
      std::vector<std::byte> copy(out.byte_size());
      (void)reshape_copy(in, pattern, sz, copy);
      EXPECT_EQ(copy, encode_values(t, expected_values)) << c.at("id") << " " << type_name;
      ++runs;
    }
  }
  EXPECT_GT(runs, 60u);
}

}  // namespace
}  // namespace reshape1::test
