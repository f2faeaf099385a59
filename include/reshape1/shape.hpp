// reshape1: a static shape. Ranks up to inline_rank live inside the object (no heap allocation).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <utility>

#include "reshape1/detail/inline_vector.hpp"

namespace reshape1 {

namespace detail {
struct shape_access;  // inference writes results it has already validated (src/detail/inference.hpp)
}

/// The largest rank, and pattern length, that reshape1 accepts anywhere (2^20): larger ones are
/// error(too_large), raised before anything is allocated for them.
inline constexpr std::size_t max_rank = std::size_t{1} << 20;

/// A shape whose dimensions are all known: a regular value type. Every dimension is >= 0; a
/// moved-from shape is the scalar shape `[]`.
class shape {
 public:
  static constexpr std::size_t inline_rank = 8;

  /// The scalar shape `[]`.
  shape() noexcept = default;
  shape(const shape&) = default;
  shape& operator=(const shape&) = default;
  shape(shape&& o) noexcept : dims_(std::move(o.dims_)), count_(std::exchange(o.count_, 1)) {}
  shape& operator=(shape&& o) noexcept {
    dims_ = std::move(o.dims_);
    count_ = std::exchange(o.count_, 1);
    return *this;
  }
  ~shape() = default;
  /// Throws error(invalid_shape) on a negative dimension, error(too_large) past max_rank.
  shape(std::initializer_list<std::int64_t> dims);
  explicit shape(std::span<const std::int64_t> dims);

  [[nodiscard]] std::size_t size() const noexcept { return dims_.size(); }
  [[nodiscard]] bool empty() const noexcept { return dims_.size() == 0; }
  [[nodiscard]] const std::int64_t* data() const noexcept { return dims_.data(); }
  [[nodiscard]] std::int64_t operator[](std::size_t i) const noexcept { return data()[i]; }
  [[nodiscard]] const std::int64_t* begin() const noexcept { return data(); }
  [[nodiscard]] const std::int64_t* end() const noexcept { return data() + size(); }
  [[nodiscard]] std::span<const std::int64_t> dims() const noexcept { return dims_.span(); }
  operator std::span<const std::int64_t>() const noexcept { return dims(); }  // NOLINT: a shape is its dims

  /// Appends a dimension. Throws error(invalid_shape) when d < 0, error(too_large) past max_rank.
  void push_back(std::int64_t d) {
    if (d < 0 || size() >= max_rank) [[unlikely]]
      refuse(d);
    dims_.push_back(d);
    count_ = d == 0 ? 0 : count_ <= 0 ? count_ : times(count_, d);
  }
  /// The number of elements; 0 when any dimension is 0. Throws error(overflow) past int64.
  [[nodiscard]] std::int64_t element_count() const;

  friend bool operator==(const shape& a, const shape& b) noexcept;

 private:
  friend struct detail::shape_access;
  [[noreturn]] void refuse(std::int64_t d) const;
  static constexpr std::int64_t overflowed = -1;
  [[nodiscard]] static std::int64_t times(std::int64_t count, std::int64_t d) noexcept {
    std::int64_t r = 0;
    return __builtin_mul_overflow(count, d, &r) ? overflowed : r;
  }
  detail::inline_vector<std::int64_t, inline_rank> dims_;
  /// The element count, kept as dimensions are added (a 0 makes it 0 whatever else overflowed);
  /// `overflowed` past int64.
  std::int64_t count_ = 1;
};

/// `[2,150,4]`
[[nodiscard]] std::string to_string(const shape& s);

}  // namespace reshape1
