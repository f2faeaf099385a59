// reshape1: one dimension of a partial shape: an interval plus an optional symbol.
#pragma once

#include <cstdint>

#include "reshape1/interval.hpp"
#include "reshape1/symbol.hpp"

namespace reshape1 {

/// A dimension `5`, `?`, `2..8`, optionally with a symbol (`?@A`, `768@C`). Two dimensions that
/// carry the same symbol are known to be equal. A trivially copyable value (24 bytes).
class dimension {
 public:
  /// The fully unknown dimension `?`.
  constexpr dimension() noexcept = default;
  /// The static dimension v (v >= 0; throws error(invalid_shape) otherwise). Implicit, so that
  /// `partial_shape{2, {1, 10}, dimension(768, "C")}` reads like the notation.
  dimension(std::int64_t v, reshape1::symbol s = {}) : range_(v), symbol_(s) {}  // NOLINT
  /// The interval lo..hi (0 <= lo <= hi, hi == interval::unbounded for `lo..`).
  dimension(std::int64_t lo, std::int64_t hi, reshape1::symbol s = {}) : range_(lo, hi), symbol_(s) {}
  dimension(interval range, reshape1::symbol s = {}) : range_(range), symbol_(s) {}  // NOLINT

  [[nodiscard]] constexpr const interval& range() const noexcept { return range_; }
  [[nodiscard]] constexpr std::int64_t lo() const noexcept { return range_.lo(); }
  [[nodiscard]] constexpr std::int64_t hi() const noexcept { return range_.hi(); }
  [[nodiscard]] constexpr bool is_static() const noexcept { return range_.is_static(); }
  [[nodiscard]] reshape1::symbol symbol() const noexcept { return symbol_; }
  [[nodiscard]] bool has_symbol() const noexcept { return static_cast<bool>(symbol_); }

  friend bool operator==(const dimension&, const dimension&) = default;

 private:
  interval range_;
  reshape1::symbol symbol_;
};

}  // namespace reshape1
