// reshape1: OpenVINO's element types, their IR names, bit widths and storage sizes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace reshape1 {

enum class element_type {
  boolean, bf16, f16, f32, f64, f8e4m3, f8e5m2, f8e8m0, f4e2m1, nf4,
  i4, i8, i16, i32, i64,
  u1, u2, u3, u4, u6, u8, u16, u32, u64,
  string,
};

/// Every element type, in declaration order.
[[nodiscard]] std::span<const element_type> all_element_types() noexcept;
/// The name OpenVINO writes in IR files: "f32", "boolean", "u6"...
[[nodiscard]] std::string_view name(element_type t) noexcept;
/// The type with that IR name; std::nullopt if none.
[[nodiscard]] std::optional<element_type> find_element_type(std::string_view name) noexcept;
/// Like find_element_type, but throws error(unknown_element_type) listing the valid names.
[[nodiscard]] element_type parse_element_type(std::string_view name);
/// Bits per element; 0 for string (its elements are objects).
[[nodiscard]] int bit_width(element_type t) noexcept;
/// Integer types: the ones a Reshape pattern may have (i4..i64, u1..u64).
[[nodiscard]] bool is_integer(element_type t) noexcept;
[[nodiscard]] bool is_signed_integer(element_type t) noexcept;
/// Bytes that n elements occupy, packed as OpenVINO packs them (u3/u6 in 3-byte groups).
/// For string, n * sizeof(std::string). Throws error(overflow) past 64 bits.
[[nodiscard]] std::uint64_t storage_size(element_type t, std::uint64_t n);

}  // namespace reshape1
