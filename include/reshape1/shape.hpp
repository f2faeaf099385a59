// reshape1: a static shape. Ranks up to inline_rank live inside the object (no heap allocation).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

namespace reshape1 {

class shape {
 public:
  static constexpr std::size_t inline_rank = 8;

  shape() noexcept = default;
  /// Throws error(invalid_shape) on a negative dimension.
  shape(std::initializer_list<std::int64_t> dims);
  explicit shape(std::span<const std::int64_t> dims);

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] const std::int64_t* data() const noexcept {
    return size_ <= inline_rank ? inline_.data() : heap_.data();
  }
  [[nodiscard]] std::int64_t operator[](std::size_t i) const noexcept { return data()[i]; }
  [[nodiscard]] const std::int64_t* begin() const noexcept { return data(); }
  [[nodiscard]] const std::int64_t* end() const noexcept { return data() + size_; }
  [[nodiscard]] std::span<const std::int64_t> dims() const noexcept { return {data(), size_}; }
  operator std::span<const std::int64_t>() const noexcept { return dims(); }  // NOLINT: a shape is its dims

  /// Appends a dimension (>= 0; not checked here: library code validates before it appends).
  void push_back(std::int64_t d);
  /// The number of elements; 0 when any dimension is 0. Throws error(overflow) past int64.
  [[nodiscard]] std::int64_t element_count() const;

  friend bool operator==(const shape& a, const shape& b) noexcept;

 private:
  std::array<std::int64_t, inline_rank> inline_{};
  std::vector<std::int64_t> heap_;
  std::size_t size_ = 0;
};

/// `[2,150,4]`
[[nodiscard]] std::string to_string(const shape& s);

}  // namespace reshape1
