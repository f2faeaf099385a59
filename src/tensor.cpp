#include "reshape1/tensor.hpp"

#include <cstring>
#include <new>
#include <utility>

#include <fmt/format.h>

#include "detail/fail.hpp"

namespace reshape1 {
namespace {
constexpr std::align_val_t alignment{64};
}

tensor_view::tensor_view(const void* data, element_type type, shape dims)
    : data_(data), type_(type), dims_(std::move(dims)) {
  count_ = dims_.element_count();
  bytes_ = storage_size(type_, static_cast<std::uint64_t>(count_));
}

tensor::tensor(element_type type, shape dims) : type_(type), dims_(std::move(dims)) {
  count_ = dims_.element_count();
  const auto bytes = storage_size(type_, static_cast<std::uint64_t>(count_));
  if (bytes > static_cast<std::uint64_t>(PTRDIFF_MAX))
    detail::fail(errc::overflow, {}, fmt::format("tensor: {} bytes do not fit in memory", bytes));
  storage_ = ::operator new(bytes == 0 ? 1 : static_cast<std::size_t>(bytes), alignment);
  if (type_ == element_type::string) {
    auto* s = static_cast<std::string*>(storage_);
    for (std::int64_t i = 0; i < count_; ++i) new (s + i) std::string();
  } else {
    std::memset(storage_, 0, static_cast<std::size_t>(bytes));
  }
}

tensor::tensor(const tensor& other) : tensor(other.type_, other.dims_) {
  if (type_ == element_type::string) {
    for (std::int64_t i = 0; i < count_; ++i)
      static_cast<std::string*>(storage_)[i] = static_cast<const std::string*>(other.storage_)[i];
  } else {
    std::memcpy(storage_, other.storage_, static_cast<std::size_t>(view().byte_size()));
  }
}

tensor::tensor(tensor&& other) noexcept
    : storage_(std::exchange(other.storage_, nullptr)),
      type_(std::exchange(other.type_, element_type::u8)),
      dims_(std::move(other.dims_)),
      count_(std::exchange(other.count_, 0)) {
  other.dims_.push_back(0);  // moved-from shapes are []: make it the empty tensor's [0] (inline: cannot throw)
}

tensor& tensor::operator=(tensor other) noexcept {
  std::swap(storage_, other.storage_);
  std::swap(type_, other.type_);
  std::swap(dims_, other.dims_);
  std::swap(count_, other.count_);
  return *this;
}

tensor::~tensor() { release(); }

void tensor::release() noexcept {
  if (storage_ == nullptr) return;
  if (type_ == element_type::string) {
    auto* s = static_cast<std::string*>(storage_);
    for (std::int64_t i = 0; i < count_; ++i) s[i].~basic_string();
  }
  ::operator delete(storage_, alignment);
  storage_ = nullptr;
}

}  // namespace reshape1
