// reshape1: storage for shapes. Not part of the API: shape and partial_shape use it so that ranks up
// to N live inside the object, and only larger ones allocate.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>

namespace reshape1::detail {

/// A vector of trivially copyable values whose first N live inline. A moved-from vector is empty.
/// `data_` always points at the values (the inline buffer or the heap), so that reading an element
/// costs no test of where they live.
template <class T, std::size_t N>
class inline_vector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  inline_vector() noexcept {}  // NOLINT: the inline buffer is written before it is read
  inline_vector(const inline_vector& o) { assign(o); }
  inline_vector(inline_vector&& o) noexcept { steal(o); }
  inline_vector& operator=(const inline_vector& o) {
    if (this != &o) {
      clear();
      assign(o);
    }
    return *this;
  }
  inline_vector& operator=(inline_vector&& o) noexcept {
    if (this != &o) {
      clear();
      steal(o);
    }
    return *this;
  }
  ~inline_vector() {
    if (on_heap()) delete[] data_;
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] const T* data() const noexcept { return data_; }
  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] std::span<const T> span() const noexcept { return {data_, size_}; }
  [[nodiscard]] const T* begin() const noexcept { return data_; }
  [[nodiscard]] const T* end() const noexcept { return data_ + size_; }
  [[nodiscard]] const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  void push_back(const T& v) {
    if (size_ == capacity_) [[unlikely]]
      reserve(capacity_ * 2);
    std::construct_at(data_ + size_, v);
    ++size_;
  }
  /// Appends a value for the caller to write (field by field, say) before reading it.
  T& append_for_overwrite() {
    if (size_ == capacity_) [[unlikely]]
      reserve(capacity_ * 2);
    return data_[size_++];
  }
  /// Makes the size n and returns the storage; the caller writes all n values before reading any.
  T* resize_for_overwrite(std::size_t n) {
    reserve(n);
    size_ = n;
    return data_;
  }
  /// Keeps the first n values (n <= size()).
  void truncate(std::size_t n) noexcept { size_ = n; }
  /// Room for n values without another allocation.
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    T* bigger = new T[n];
    if (size_ != 0) std::memcpy(static_cast<void*>(bigger), data_, size_ * sizeof(T));
    if (on_heap()) delete[] data_;
    data_ = bigger;
    capacity_ = n;
  }
  void clear() noexcept {
    if (on_heap()) delete[] data_;
    data_ = inline_data();
    size_ = 0;
    capacity_ = N;
  }

 private:
  [[nodiscard]] T* inline_data() noexcept { return reinterpret_cast<T*>(buffer_); }
  [[nodiscard]] bool on_heap() const noexcept { return capacity_ != N; }  // a heap block always holds more than N
  void assign(const inline_vector& o) {
    if (!o.on_heap() && !on_heap()) {
      copy_inline(o);
    } else {
      reserve(o.size_);
      if (o.size_ != 0) std::memcpy(static_cast<void*>(data_), o.data_, o.size_ * sizeof(T));  // creates the objects
    }
    size_ = o.size_;
  }
  void steal(inline_vector& o) noexcept {
    if (o.on_heap()) {
      data_ = std::exchange(o.data_, o.inline_data());
      capacity_ = std::exchange(o.capacity_, N);
    } else {
      copy_inline(o);
    }
    size_ = std::exchange(o.size_, 0);
  }

  /// The inline values of `o` (both inline). A small buffer is copied whole, a fixed size that
  /// compiles to a few moves instead of a call; the bytes past size_ are indeterminate, which a copy
  /// of unsigned char may carry (C++20 [basic.indet]).
  void copy_inline(const inline_vector& o) noexcept {
    if constexpr (sizeof(buffer_) <= 64) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)  // GCC's name; clang has no such group and would warn about it
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
      std::memcpy(buffer_, o.buffer_, sizeof(buffer_));
#pragma GCC diagnostic pop
    } else if (o.size_ != 0) {
      std::memcpy(buffer_, o.buffer_, o.size_ * sizeof(T));
    }
  }

  alignas(T) unsigned char buffer_[N * sizeof(T)];  // the values while capacity_ == N
  T* data_ = inline_data();                          // buffer_, or the heap block once more than N were stored
  std::size_t size_ = 0;
  std::size_t capacity_ = N;
};

}  // namespace reshape1::detail
