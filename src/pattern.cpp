// reshape_pattern: construction, and exact decoding of pattern tensors of every integer type.
#include <cstring>

#include <fmt/format.h>

#include "detail/decode.hpp"
#include "detail/fail.hpp"
#include "reshape1/reshape.hpp"

namespace reshape1 {
namespace {

partial_shape vector_shape(std::size_t n) { return partial_shape{dimension(static_cast<std::int64_t>(n))}; }

template <class T>
T load(const std::byte* p) noexcept {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

detail::decoded_integer detail::decode_integer(element_type t, const std::byte* data, std::size_t i) noexcept {
  auto byte = [&](std::size_t k) { return std::to_integer<unsigned>(data[k]); };
  auto small = [](unsigned v) { return detail::decoded_integer{static_cast<std::int64_t>(v), false, v}; };
  switch (t) {
    case element_type::i8: return {load<std::int8_t>(data + i), false, 0};
    case element_type::i16: return {load<std::int16_t>(data + 2 * i), false, 0};
    case element_type::i32: return {load<std::int32_t>(data + 4 * i), false, 0};
    case element_type::i64: return {load<std::int64_t>(data + 8 * i), false, 0};
    case element_type::u8: return small(load<std::uint8_t>(data + i));
    case element_type::u16: return small(load<std::uint16_t>(data + 2 * i));
    case element_type::u32: {
      const auto v = load<std::uint32_t>(data + 4 * i);
      return {static_cast<std::int64_t>(v), false, v};
    }
    case element_type::u64: {
      const auto v = load<std::uint64_t>(data + 8 * i);
      if (v > static_cast<std::uint64_t>(INT64_MAX)) return {0, true, v};
      return {static_cast<std::int64_t>(v), false, v};
    }
    case element_type::u1: return small((byte(i / 8) >> (7 - i % 8)) & 0x1u);
    case element_type::u2: return small((byte(i / 4) >> (6 - 2 * (i % 4))) & 0x3u);
    case element_type::u4: return small((byte(i / 2) >> (4 * (i % 2))) & 0xFu);
    case element_type::i4: {
      const unsigned nibble = (byte(i / 2) >> (4 * (i % 2))) & 0xFu;
      return {nibble >= 8 ? static_cast<std::int64_t>(nibble) - 16 : static_cast<std::int64_t>(nibble), false, 0};
    }
    case element_type::u3: {
      const std::size_t g = 3 * (i / 8), k = 7 - i % 8;
      const unsigned low = (((byte(g) << 8) | byte(g + 1)) >> (2 * k)) & 0x3u;
      const unsigned high = (byte(g + 2) >> k) & 0x1u;
      return small((high << 2) | low);
    }
    case element_type::u6: {
      const std::size_t g = 3 * (i / 4), k = 3 - i % 4;
      const unsigned low = (((byte(g) << 8) | byte(g + 1)) >> (4 * k)) & 0xFu;
      const unsigned high = (byte(g + 2) >> (2 * k)) & 0x3u;
      return small((high << 4) | low);
    }
    default: break;
  }
  return {0, false, 0};  // not reached: callers decode integer types only
}

reshape_pattern reshape_pattern::from_values(std::span<const std::int64_t> values,
                                             std::span<const symbol> symbols) {
  if (!symbols.empty() && symbols.size() != values.size())
    detail::fail(errc::invalid_argument, {},
                 fmt::format("pattern: {} symbols given for {} values; give one symbol per value (\"\" for none)",
                             symbols.size(), values.size()));
  reshape_pattern p;
  p.kind_ = pattern_kind::values;
  p.tensor_shape_ = vector_shape(values.size());
  p.elements_.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    p.elements_.push_back({values[i], values[i], symbols.empty() ? symbol() : symbols[i]});
  return p;
}

reshape_pattern reshape_pattern::from_bounds(std::vector<pattern_bound> bounds) {
  reshape_pattern p;
  p.kind_ = pattern_kind::bounds;
  p.tensor_shape_ = vector_shape(bounds.size());
  for (auto& b : bounds)
    if (b.hi == -1 && b.lo >= 0) b.hi = pattern_bound::no_upper;  // OpenVINO's bound evaluation writes -1
  p.elements_ = std::move(bounds);
  return p;
}

reshape_pattern reshape_pattern::of_length(std::int64_t length) {
  if (length < 0)
    detail::fail(errc::invalid_argument, {},
                 fmt::format("pattern: length {} is negative; a pattern has 0 or more elements", length));
  return unknown(partial_shape{dimension(length)});
}

reshape_pattern reshape_pattern::unknown(partial_shape tensor_shape) {
  reshape_pattern p;
  p.kind_ = pattern_kind::unknown;
  p.tensor_shape_ = std::move(tensor_shape);
  return p;
}

reshape_pattern reshape_pattern::scalar(std::int64_t value) {
  reshape_pattern p = from_values(std::span<const std::int64_t>(&value, 1));
  p.tensor_shape_ = partial_shape{};
  return p;
}

reshape_pattern reshape_pattern::from_tensor(element_type type, std::span<const std::byte> bytes,
                                             const shape& tensor_shape) {
  reshape_pattern p;
  p.type_ = type;
  p.tensor_shape_ = partial_shape(tensor_shape);
  if (!is_integer(type)) {
    p.kind_ = pattern_kind::unknown;  // inference reports pattern_type before it looks at values
    return p;
  }
  const auto count = static_cast<std::uint64_t>(tensor_shape.element_count());
  if (count > max_rank)
    detail::fail(errc::too_large, {},
                 fmt::format("pattern: {} elements are above reshape1's limit of {} (2^20)", count, max_rank),
                 "no real model has an output of that rank; check where the pattern comes from");
  const auto expected = storage_size(type, count);
  if (bytes.size() != expected)
    detail::fail(errc::invalid_argument, {},
                 fmt::format("pattern: a {} tensor of shape {} takes {} bytes, got {}", name(type),
                             to_string(tensor_shape), expected, bytes.size()));
  p.kind_ = pattern_kind::values;
  p.elements_.reserve(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < count; ++i) {
    const auto d = detail::decode_integer(type, bytes.data(), i);
    if (d.too_large) p.too_large_.emplace_back(i, d.raw);
    p.elements_.push_back({d.value, d.value, {}});
  }
  return p;
}

reshape_pattern reshape_pattern::with_element_type(element_type type) const {
  reshape_pattern p = *this;
  p.type_ = type;
  return p;
}

reshape_pattern reshape_pattern::with_tensor_shape(partial_shape tensor_shape) const {
  reshape_pattern p = *this;
  p.tensor_shape_ = std::move(tensor_shape);
  return p;
}

}  // namespace reshape1
