#include "reshape1/element_type.hpp"

#include <array>
#include <string>

#include <fmt/format.h>

#include "detail/checked.hpp"
#include "detail/fail.hpp"

namespace reshape1 {
namespace {

struct type_info {
  element_type type;
  std::string_view name;
  int bits;
  bool integer;
  bool is_signed;
};

// Section "Element types" of docs/semantics.md.
constexpr std::array<type_info, 25> table{{
    {element_type::boolean, "boolean", 8, false, false},
    {element_type::bf16, "bf16", 16, false, true},
    {element_type::f16, "f16", 16, false, true},
    {element_type::f32, "f32", 32, false, true},
    {element_type::f64, "f64", 64, false, true},
    {element_type::f8e4m3, "f8e4m3", 8, false, true},
    {element_type::f8e5m2, "f8e5m2", 8, false, true},
    {element_type::f8e8m0, "f8e8m0", 8, false, false},
    {element_type::f4e2m1, "f4e2m1", 4, false, true},
    {element_type::nf4, "nf4", 4, false, true},
    {element_type::i4, "i4", 4, true, true},
    {element_type::i8, "i8", 8, true, true},
    {element_type::i16, "i16", 16, true, true},
    {element_type::i32, "i32", 32, true, true},
    {element_type::i64, "i64", 64, true, true},
    {element_type::u1, "u1", 1, true, false},
    {element_type::u2, "u2", 2, true, false},
    {element_type::u3, "u3", 3, true, false},
    {element_type::u4, "u4", 4, true, false},
    {element_type::u6, "u6", 6, true, false},
    {element_type::u8, "u8", 8, true, false},
    {element_type::u16, "u16", 16, true, false},
    {element_type::u32, "u32", 32, true, false},
    {element_type::u64, "u64", 64, true, false},
    {element_type::string, "string", 0, false, false},
}};

constexpr std::array<element_type, table.size()> all_types = [] {
  std::array<element_type, table.size()> r{};
  for (std::size_t i = 0; i < table.size(); ++i) r[i] = table[i].type;
  return r;
}();

const type_info& info(element_type t) noexcept { return table[static_cast<std::size_t>(t)]; }

}  // namespace

std::span<const element_type> all_element_types() noexcept { return all_types; }
std::string_view name(element_type t) noexcept { return info(t).name; }
int bit_width(element_type t) noexcept { return info(t).bits; }
bool is_integer(element_type t) noexcept { return info(t).integer; }
bool is_signed_integer(element_type t) noexcept { return info(t).integer && info(t).is_signed; }

std::optional<element_type> find_element_type(std::string_view n) noexcept {
  for (const auto& i : table)  // the first character settles most comparisons without a call to memcmp
    if (i.name.size() == n.size() && i.name[0] == n[0] && i.name == n) return i.type;
  return std::nullopt;
}

element_type parse_element_type(std::string_view n) {
  if (auto t = find_element_type(n)) return *t;
  std::string names;
  for (const auto& i : table) {
    if (!names.empty()) names += ", ";
    names += i.name;
  }
  detail::fail(errc::unknown_element_type, {},
               fmt::format("element type '{}': unknown; use one of {}", n, names));
}

std::uint64_t storage_size(element_type t, std::uint64_t n) {
  auto too_big = [&] {
    detail::fail(errc::overflow, {},
                 fmt::format("storage: {} elements of {} need more than 2^64 bytes", n, name(t)));
  };
  if (t == element_type::string) {
    std::uint64_t r = 0;
    if (__builtin_mul_overflow(n, sizeof(std::string), &r)) too_big();
    return r;
  }
  if (t == element_type::u3 || t == element_type::u6) {
    // Split-bit packing: groups of 24 bits (8 u3 or 4 u6 values) in 3 bytes.
    const std::uint64_t per_group = 24 / static_cast<std::uint64_t>(bit_width(t));
    const std::uint64_t groups = n / per_group + (n % per_group != 0 ? 1 : 0);
    std::uint64_t r = 0;
    if (__builtin_mul_overflow(groups, std::uint64_t{3}, &r)) too_big();
    return r;
  }
  const auto bits = static_cast<std::uint64_t>(bit_width(t));
  if (bits >= 8) {
    std::uint64_t r = 0;
    if (__builtin_mul_overflow(n, bits / 8, &r)) too_big();
    return r;
  }
  const std::uint64_t per_byte = 8 / bits;
  return n / per_byte + (n % per_byte != 0 ? 1 : 0);
}

}  // namespace reshape1
