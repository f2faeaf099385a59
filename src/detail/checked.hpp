// Internal: checked 64-bit arithmetic on dimensions and intervals. Nothing here wraps.
#pragma once

#include <cstdint>
#include <optional>

#include "reshape1/interval.hpp"

namespace reshape1::detail {

/// a * b, or nullopt when it does not fit int64.
[[nodiscard]] inline std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

/// Product of non-negative values with the element-count rule: 0 when any value is 0 (however
/// large the others), otherwise the checked product; nullopt on overflow.
template <class Range, class Proj>
[[nodiscard]] std::optional<std::int64_t> count_product(const Range& values, Proj proj) noexcept {
  for (const auto& v : values)
    if (proj(v) == 0) return 0;
  std::int64_t r = 1;
  for (const auto& v : values) {
    auto next = checked_mul(r, proj(v));
    if (!next) return std::nullopt;
    r = *next;
  }
  return r;
}

/// Interval product [a.lo*b.lo, a.hi*b.hi]. The upper bound saturates to unbounded; the lower bound
/// cannot (no tensor could satisfy it): nullopt when it overflows.
[[nodiscard]] inline std::optional<interval> multiply(const interval& a, const interval& b) noexcept {
  if (a.is_static() && b.is_static()) {  // the same rule, for the common case: one checked product
    std::int64_t p = 0;
    if (__builtin_mul_overflow(a.lo(), b.lo(), &p)) return std::nullopt;
    return interval(p);
  }
  std::int64_t lo = 0;
  if (a.lo() != 0 && b.lo() != 0) {
    auto p = checked_mul(a.lo(), b.lo());
    if (!p) return std::nullopt;
    lo = *p;
  }
  std::int64_t hi = 0;
  if (a.hi() != 0 && b.hi() != 0) {
    if (!a.is_bounded() || !b.is_bounded()) {
      hi = interval::unbounded;
    } else {
      auto p = checked_mul(a.hi(), b.hi());
      hi = p ? *p : interval::unbounded;
    }
  }
  if (hi < lo) hi = interval::unbounded;  // only when lo saturated exactly at the maximum
  return interval(lo, hi);
}

/// The interval of possible element counts of `dims` (each with .range()): the lower bound is the checked
/// product of the lower bounds (nullopt when it overflows; 0 when any is 0, however large the
/// others), the upper bound saturates.
template <class Dims>
[[nodiscard]] std::optional<interval> count_interval(const Dims& dims) noexcept {
  interval total(1);
  for (const bool can_be_zero : {true, false})  // a 0 lower bound first: it absorbs the others' overflow
    for (const auto& d : dims) {
      if ((d.range().lo() == 0) != can_be_zero) continue;
      auto p = multiply(total, d.range());
      if (!p) return std::nullopt;
      total = *p;
    }
  return total;
}

/// ceil(a / b) for a >= 0, b > 0.
[[nodiscard]] constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) noexcept {
  return a / b + (a % b != 0 ? 1 : 0);
}

}  // namespace reshape1::detail
