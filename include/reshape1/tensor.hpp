// reshape1: tensors. A view is (pointer, element type, shape) over dense row-major data; a tensor
// owns 64-byte-aligned storage. String tensors hold std::string objects, one per element.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>

#include "reshape1/element_type.hpp"
#include "reshape1/shape.hpp"

namespace reshape1 {

namespace detail {
struct view_access;  // reshape() builds its view with the count it has already checked (src/kernel.cpp)
}

/// A read-only, non-owning view of dense row-major data. For element_type::string, `data` points to
/// element_count() std::string objects. A default view is empty: shape [0], no data.
class tensor_view {
 public:
  tensor_view() = default;
  /// Throws error(overflow) when the storage size does not fit 64 bits.
  tensor_view(const void* data, element_type type, shape dims);

  [[nodiscard]] const void* data() const noexcept { return data_; }
  [[nodiscard]] element_type type() const noexcept { return type_; }
  [[nodiscard]] const shape& dims() const noexcept { return dims_; }
  [[nodiscard]] std::int64_t element_count() const noexcept { return count_; }
  /// Bytes the elements occupy (storage_size); for strings, the bytes of the string objects.
  [[nodiscard]] std::uint64_t byte_size() const noexcept { return bytes_; }
  /// The raw bytes (not for string tensors).
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept {
    return {static_cast<const std::byte*>(data_), static_cast<std::size_t>(bytes_)};
  }
  /// The elements of a string tensor.
  [[nodiscard]] std::span<const std::string> strings() const noexcept {
    return {static_cast<const std::string*>(data_), static_cast<std::size_t>(count_)};
  }

 private:
  friend struct detail::view_access;
  tensor_view(const void* data, element_type type, shape&& dims, std::int64_t count, std::uint64_t bytes) noexcept
      : data_(data), type_(type), dims_(std::move(dims)), count_(count), bytes_(bytes) {}
  const void* data_ = nullptr;
  element_type type_ = element_type::u8;
  shape dims_{0};
  std::int64_t count_ = 0;
  std::uint64_t bytes_ = 0;
};

/// An owning tensor with 64-byte-aligned storage, zero-filled (strings: empty). A default or
/// moved-from tensor is empty: u8, shape [0], no storage.
class tensor {
 public:
  tensor() = default;
  tensor(element_type type, shape dims);
  tensor(const tensor& other);
  tensor(tensor&& other) noexcept;
  tensor& operator=(tensor other) noexcept;
  ~tensor();

  [[nodiscard]] tensor_view view() const { return {storage_, type_, dims_}; }
  [[nodiscard]] void* data() noexcept { return storage_; }
  [[nodiscard]] std::span<std::byte> bytes() noexcept {
    return {static_cast<std::byte*>(storage_), static_cast<std::size_t>(view().byte_size())};
  }
  [[nodiscard]] std::span<std::string> strings() noexcept {
    return {static_cast<std::string*>(storage_), static_cast<std::size_t>(count_)};
  }
  [[nodiscard]] element_type type() const noexcept { return type_; }
  [[nodiscard]] const shape& dims() const noexcept { return dims_; }

 private:
  void release() noexcept;
  void* storage_ = nullptr;
  element_type type_ = element_type::u8;
  shape dims_{0};
  std::int64_t count_ = 0;
};

}  // namespace reshape1
