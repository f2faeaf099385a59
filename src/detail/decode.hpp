// Internal: one element of an integer tensor's bytes, widened exactly. The one decoder of packed integer
// data: reshape_pattern::from_tensor uses it, and so do the model library's Const values.
#pragma once

#include <cstddef>
#include <cstdint>

#include "reshape1/element_type.hpp"

namespace reshape1::detail {

struct decoded_integer {
  std::int64_t value;  ///< the element; 0 when it is too large
  bool too_large;      ///< a u64 above 2^63-1, which no int64 holds
  std::uint64_t raw;   ///< the element's unsigned bits (for unsigned types; what a message about too_large shows)
};

/// Element i of a packed buffer of integer type t, in the machine's byte order. Layouts follow OpenVINO:
/// u1/u2: first element in the most significant bits; i4/u4: first element in the low nibble;
/// u3/u6: split-bit groups of 3 bytes whose first two bytes hold the low bits and the third the high.
/// t must be an integer type (is_integer) and the buffer must hold element i.
[[nodiscard]] decoded_integer decode_integer(element_type t, const std::byte* data, std::size_t i) noexcept;

}  // namespace reshape1::detail
