#include "reshape1/interval.hpp"

#include <fmt/format.h>

#include "detail/fail.hpp"

namespace reshape1::detail {

void throw_invalid_interval(std::int64_t lo, std::int64_t hi) {
  if (lo < 0)
    fail(errc::invalid_shape, {}, fmt::format("dimension: lower bound {} is negative; dimensions are >= 0", lo));
  fail(errc::invalid_shape, {},
       fmt::format("dimension: interval {}..{} is empty; the lower bound must not exceed the upper", lo, hi));
}

}  // namespace reshape1::detail
