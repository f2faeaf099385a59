// reshape1: a closed interval [lo, hi] of non-negative 64-bit integers; hi may be unbounded.
#pragma once

#include <cstdint>
#include <limits>

namespace reshape1 {

namespace detail {
[[noreturn]] void throw_invalid_interval(std::int64_t lo, std::int64_t hi);
}

class interval {
 public:
  /// The upper bound of an interval with no upper bound (`2..`, `?`). A named constant, never
  /// used in arithmetic: every operation on intervals checks for it.
  static constexpr std::int64_t unbounded = std::numeric_limits<std::int64_t>::max();

  /// The fully unknown interval `0..` (printed `?`).
  constexpr interval() noexcept = default;
  /// The single value v (v >= 0).
  constexpr explicit interval(std::int64_t v) : interval(v, v) {}
  /// [lo, hi] with 0 <= lo <= hi; hi == unbounded for no upper bound. Throws error(invalid_shape).
  constexpr interval(std::int64_t lo, std::int64_t hi) : lo_(lo), hi_(hi) {
    if (lo < 0 || hi < lo) detail::throw_invalid_interval(lo, hi);
  }

  [[nodiscard]] constexpr std::int64_t lo() const noexcept { return lo_; }
  [[nodiscard]] constexpr std::int64_t hi() const noexcept { return hi_; }
  /// A single value. `[max, max]` counts as the static value max.
  [[nodiscard]] constexpr bool is_static() const noexcept { return lo_ == hi_; }
  [[nodiscard]] constexpr bool is_bounded() const noexcept { return hi_ != unbounded || is_static(); }
  /// `0..`: nothing is known.
  [[nodiscard]] constexpr bool is_unknown() const noexcept { return lo_ == 0 && hi_ == unbounded; }
  [[nodiscard]] constexpr bool contains(std::int64_t v) const noexcept { return lo_ <= v && v <= hi_; }
  [[nodiscard]] constexpr bool intersects(const interval& o) const noexcept {
    return lo_ <= o.hi_ && o.lo_ <= hi_;
  }
  /// The smallest interval holding both.
  [[nodiscard]] constexpr interval hull(const interval& o) const noexcept {
    interval r;
    r.lo_ = lo_ < o.lo_ ? lo_ : o.lo_;
    r.hi_ = hi_ > o.hi_ ? hi_ : o.hi_;
    return r;
  }
  friend constexpr bool operator==(const interval&, const interval&) noexcept = default;

 private:
  std::int64_t lo_ = 0;
  std::int64_t hi_ = unbounded;
};

}  // namespace reshape1
