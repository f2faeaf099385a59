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

  shape() noexcept {}  // NOLINT: the inline buffer is written before it is read
  shape(const shape& other) : size_(other.size_) { copy_from(other); }
  shape(shape&& other) noexcept : heap_(std::move(other.heap_)), size_(other.size_) { copy_inline(other); }
  shape& operator=(const shape& other) {
    if (this != &other) {
      size_ = other.size_;
      copy_from(other);
    }
    return *this;
  }
  shape& operator=(shape&& other) noexcept {
    heap_ = std::move(other.heap_);
    size_ = other.size_;
    copy_inline(other);
    return *this;
  }
  ~shape() = default;
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
  void push_back(std::int64_t d) {
    if (size_ < inline_rank) {
      inline_[size_++] = d;
    } else {
      grow(d);
    }
  }
  /// The number of elements; 0 when any dimension is 0. Throws error(overflow) past int64.
  [[nodiscard]] std::int64_t element_count() const;

  friend bool operator==(const shape& a, const shape& b) noexcept;

 private:
  void grow(std::int64_t d);
  void copy_inline(const shape& other) noexcept {
    if (size_ <= inline_rank)
      for (std::size_t i = 0; i < size_; ++i) inline_[i] = other.inline_[i];
  }
  void copy_from(const shape& other) {
    if (size_ <= inline_rank) {
      heap_.clear();
      copy_inline(other);
    } else {
      heap_ = other.heap_;
    }
  }

  std::array<std::int64_t, inline_rank> inline_;  // the first size_ entries are valid when size_ <= inline_rank
  std::vector<std::int64_t> heap_;                // all entries when size_ > inline_rank
  std::size_t size_ = 0;
};

/// `[2,150,4]`
[[nodiscard]] std::string to_string(const shape& s);

}  // namespace reshape1
