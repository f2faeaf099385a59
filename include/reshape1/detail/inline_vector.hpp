// reshape1: storage for shapes. Not part of the API: shape and partial_shape use it so that ranks up
// to N live inside the object, and only larger ones allocate.
#pragma once

#include <cstring>
#include <cstddef>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

namespace reshape1::detail {

/// A vector of trivially copyable values whose first N live inline. A moved-from vector is empty.
template <class T, std::size_t N>
class inline_vector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  inline_vector() noexcept {}  // NOLINT: the inline buffer is written before it is read
  inline_vector(const inline_vector& o) : heap_(o.heap_), size_(o.size_) { copy_inline(o); }
  inline_vector(inline_vector&& o) noexcept : heap_(std::move(o.heap_)), size_(o.size_) {
    copy_inline(o);
    o.reset();
  }
  inline_vector& operator=(const inline_vector& o) {
    if (this != &o) {
      heap_ = o.heap_;
      size_ = o.size_;
      copy_inline(o);
    }
    return *this;
  }
  inline_vector& operator=(inline_vector&& o) noexcept {
    if (this != &o) {
      heap_ = std::move(o.heap_);
      size_ = o.size_;
      copy_inline(o);
      o.reset();
    }
    return *this;
  }
  ~inline_vector() = default;

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] const T* data() const noexcept { return size_ <= N ? inline_data() : heap_.data(); }
  [[nodiscard]] T* data() noexcept { return size_ <= N ? inline_data() : heap_.data(); }
  [[nodiscard]] std::span<const T> span() const noexcept { return {data(), size_}; }
  [[nodiscard]] const T* begin() const noexcept { return data(); }
  [[nodiscard]] const T* end() const noexcept { return data() + size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] const T& operator[](std::size_t i) const noexcept { return data()[i]; }
  void push_back(const T& v) {
    if (size_ < N) {
      std::construct_at(inline_data() + size_, v);
      ++size_;
    } else {
      if (size_ == N) heap_.assign(inline_data(), inline_data() + N);
      heap_.push_back(v);
      ++size_;
    }
  }
  void reserve(std::size_t n) {
    if (n > N) heap_.reserve(n);
  }
  void clear() noexcept { reset(); }

 private:
  [[nodiscard]] T* inline_data() noexcept { return reinterpret_cast<T*>(buffer_); }
  [[nodiscard]] const T* inline_data() const noexcept { return reinterpret_cast<const T*>(buffer_); }
  void copy_inline(const inline_vector& o) noexcept {  // memcpy creates the objects (trivially copyable)
    if (size_ <= N && size_ != 0) std::memcpy(buffer_, o.buffer_, size_ * sizeof(T));
  }
  void reset() noexcept {
    heap_.clear();
    size_ = 0;
  }

  alignas(T) unsigned char buffer_[N * sizeof(T)];  // the first size_ values when size_ <= N
  std::vector<T> heap_;                             // all values when size_ > N
  std::size_t size_ = 0;
};

}  // namespace reshape1::detail
