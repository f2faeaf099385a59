// shape and partial_shape: construction with their invariants, element counts.
#include "reshape1/shape.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "detail/checked.hpp"
#include "detail/fail.hpp"
#include "reshape1/partial_shape.hpp"

namespace reshape1 {
namespace detail {

void check_rank(std::size_t rank, std::string_view what) {
  if (rank > max_rank)
    fail(errc::too_large, {},
         fmt::format("{}: rank {} is above reshape1's limit of {} (2^20)", what, rank, max_rank),
         "no real model needs as many dimensions; check where this shape comes from");
}

}  // namespace detail

shape::shape(std::initializer_list<std::int64_t> dims) : shape(std::span<const std::int64_t>(dims.begin(), dims.size())) {}

shape::shape(std::span<const std::int64_t> dims) {
  detail::check_rank(dims.size(), "shape");
  dims_.reserve(dims.size());
  for (const auto d : dims) push_back(d);
}

void shape::refuse(std::int64_t d) const {
  detail::check_rank(size() + 1, "shape");
  detail::fail(errc::invalid_shape, {.indices = {size()}},
               fmt::format("shape[{}]: dimension {} is negative", size(), d),
               "a static shape has dimensions >= 0");
}

std::int64_t shape::element_count() const {
  if (count_ == overflowed)
    detail::fail(errc::overflow, {}, fmt::format("shape: the element count of {} overflows 64 bits", to_string(*this)));
  return count_;
}

bool operator==(const shape& a, const shape& b) noexcept { const auto x = a.dims(), y = b.dims();
  return std::equal(x.begin(), x.end(), y.begin(), y.end()); }

std::string to_string(const shape& s) { return fmt::format("[{}]", fmt::join(s.dims(), ",")); }

partial_shape::partial_shape(std::initializer_list<dimension> dims)
    : partial_shape(std::span<const dimension>(dims.begin(), dims.size())) {}

partial_shape::partial_shape(std::span<const dimension> dims) {
  detail::check_rank(dims.size(), "shape");
  dims_.reserve(dims.size());
  for (const auto& d : dims) dims_.push_back(d);
}

partial_shape::partial_shape(const shape& s) {
  dims_.reserve(s.size());
  for (auto d : s) dims_.push_back(dimension(d));
}

partial_shape partial_shape::dynamic() noexcept {
  partial_shape s;
  s.rank_known_ = false;
  return s;
}

void partial_shape::refuse_rank() const { detail::check_rank(dims_.size() + 1, "shape"); }

bool partial_shape::is_static() const noexcept {
  const auto d = dims();
  return rank_known_ && std::all_of(d.begin(), d.end(), [](const dimension& x) { return x.is_static(); });
}

shape partial_shape::to_static() const {
  if (!is_static())
    detail::fail(errc::invalid_argument, {}, fmt::format("shape: {} is not static", to_string(*this)),
                 "only a shape with known rank and values converts");
  shape s;
  for (const auto& d : dims()) s.push_back(d.lo());
  return s;
}

bool operator==(const partial_shape& a, const partial_shape& b) noexcept {
  const auto x = a.dims(), y = b.dims();
  return a.rank_known_ == b.rank_known_ && std::equal(x.begin(), x.end(), y.begin(), y.end());
}

}  // namespace reshape1
