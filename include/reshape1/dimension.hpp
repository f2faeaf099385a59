// reshape1: one dimension of a partial shape: an interval plus an optional symbol.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "reshape1/interval.hpp"

namespace reshape1 {

/// A dimension `5`, `?`, `2..8`, optionally with a symbol (`?@A`, `768@C`). Two dimensions that
/// carry the same symbol are known to be equal. An empty symbol means "no symbol".
class dimension {
 public:
  /// The fully unknown dimension `?`.
  dimension() = default;
  /// The static dimension v (v >= 0).
  explicit dimension(std::int64_t v, std::string symbol = {}) : range_(v), symbol_(std::move(symbol)) {}
  explicit dimension(interval range, std::string symbol = {}) : range_(range), symbol_(std::move(symbol)) {}

  [[nodiscard]] const interval& range() const noexcept { return range_; }
  [[nodiscard]] std::int64_t lo() const noexcept { return range_.lo(); }
  [[nodiscard]] std::int64_t hi() const noexcept { return range_.hi(); }
  [[nodiscard]] bool is_static() const noexcept { return range_.is_static(); }
  [[nodiscard]] const std::string& symbol() const noexcept { return symbol_; }
  [[nodiscard]] bool has_symbol() const noexcept { return !symbol_.empty(); }

  friend bool operator==(const dimension&, const dimension&) = default;

 private:
  interval range_;
  std::string symbol_;
};

}  // namespace reshape1
