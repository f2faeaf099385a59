#include "reshape1/shape.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "detail/checked.hpp"
#include "detail/fail.hpp"
#include "reshape1/partial_shape.hpp"

namespace reshape1 {

shape::shape(std::initializer_list<std::int64_t> dims) : shape(std::span<const std::int64_t>(dims.begin(), dims.size())) {}

shape::shape(std::span<const std::int64_t> dims) {
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i] < 0)
      detail::fail(errc::invalid_shape, {.indices = {i}},
                   fmt::format("shape[{}]: dimension {} is negative; a static shape has dimensions >= 0", i,
                               dims[i]));
  if (dims.size() > inline_rank) {
    heap_.assign(dims.begin(), dims.end());
  } else {
    std::copy(dims.begin(), dims.end(), inline_.begin());
  }
  size_ = dims.size();
}

void shape::grow(std::int64_t d) {
  if (size_ == inline_rank) heap_.assign(inline_.begin(), inline_.end());
  heap_.push_back(d);
  ++size_;
}

std::int64_t shape::element_count() const {
  auto n = detail::count_product(dims(), [](std::int64_t d) { return d; });
  if (!n)
    detail::fail(errc::overflow, {}, fmt::format("shape: the element count of {} overflows 64 bits", to_string(*this)));
  return *n;
}

bool operator==(const shape& a, const shape& b) noexcept { return std::ranges::equal(a.dims(), b.dims()); }

std::string to_string(const shape& s) { return fmt::format("[{}]", fmt::join(s.dims(), ",")); }

partial_shape::partial_shape(const shape& s) {
  dims_.reserve(s.size());
  for (auto d : s) dims_.emplace_back(d);
}

partial_shape partial_shape::dynamic() {
  partial_shape s;
  s.rank_known_ = false;
  return s;
}

bool partial_shape::is_static() const noexcept {
  return rank_known_ && std::ranges::all_of(dims_, [](const dimension& d) { return d.is_static(); });
}

shape partial_shape::to_static() const {
  if (!is_static())
    detail::fail(errc::invalid_argument, {},
                 fmt::format("shape: {} is not static; only a shape with known rank and values converts",
                             to_string(*this)));
  shape s;
  for (const auto& d : dims_) s.push_back(d.lo());
  return s;
}

}  // namespace reshape1
