// Compile-time checks of the interval rules: this file fails to build if they break.
#include "detail/checked.hpp"
#include "reshape1/interval.hpp"

namespace reshape1::test {

static_assert(interval().is_unknown());
static_assert(interval(3).is_static() && interval(3).is_bounded());
static_assert(!interval(2, interval::unbounded).is_bounded());
static_assert(interval(interval::unbounded).is_static() && interval(interval::unbounded).is_bounded());
static_assert(interval(2, 8).contains(8) && !interval(2, 8).contains(9));
static_assert(interval(1, 3).hull(interval(6, 7)) == interval(1, 7));
static_assert(interval(2, 5).intersects(interval(5, 9)));
static_assert(detail::ceil_div(7, 2) == 4 && detail::ceil_div(8, 2) == 4 && detail::ceil_div(0, 5) == 0);
static_assert(detail::ceil_div(1, interval::unbounded) == 1);

}  // namespace reshape1::test
