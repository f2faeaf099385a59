// The steps of the one algorithm (src/detail/inference.hpp), each on its own: reading an element,
// the element-count product, the symbol rule of products, and the cancellation of equal factors.
#include <gtest/gtest.h>

#include "detail/inference.hpp"
#include "test_util.hpp"

namespace reshape1::test {
namespace {

using detail::classify;
using detail::reads;

TEST(inference_steps, reading_an_element_by_its_bounds) {
  EXPECT_EQ(classify(-1, -1, false), reads::marker);
  EXPECT_EQ(classify(-1, 5, false), reads::literal);  // ..5, not a marker
  EXPECT_EQ(classify(0, 0, true), reads::copy);
  EXPECT_EQ(classify(-1, 0, true), reads::copy);  // (-1,0) reads as 0
  EXPECT_EQ(classify(0, 0, false), reads::literal);
  EXPECT_EQ(classify(pattern_bound::no_lower, 7, false), reads::unknown);  // one bound overflowed upstream
  EXPECT_EQ(classify(-3, -2, false), reads::invalid);
  EXPECT_EQ(classify(-2, -2, true), reads::invalid);
  EXPECT_EQ(classify(5, 3, false), reads::invalid);  // empty bounds
  // A known value reads by the same rule: the static domain calls it with lo == hi.
  for (std::int64_t v : {-1, 0, 7}) EXPECT_NE(classify(v, v, true), reads::invalid);
}

TEST(inference_steps, a_zero_absorbs_an_overflowing_count) {
  detail::count c;
  c.times(std::int64_t{1} << 40);
  c.times(std::int64_t{1} << 40);
  EXPECT_FALSE(c.fits());
  c.times(0);
  EXPECT_TRUE(c.fits());
  EXPECT_EQ(c.value(), 0);
  detail::count d;
  d.times(6);
  d.times(7);
  EXPECT_EQ(d.value(), 42);
  detail::count e;
  e.times(std::int64_t{1} << 62);
  e.times(d);  // a product of two counts: overflows unless one is 0
  EXPECT_FALSE(e.fits());
}

TEST(inference_steps, a_static_one_keeps_the_other_operands_symbol) {
  const dimension a(interval(), "A"), one_b(1, "B");
  EXPECT_EQ(detail::times(dimension(1), a), a);
  EXPECT_EQ(detail::times(a, dimension(1)), a);
  EXPECT_EQ(detail::times(dimension(1), one_b), one_b);  // the running 1 gives way to the factor
  EXPECT_FALSE(detail::times(a, dimension(2, "C"))->has_symbol());
  EXPECT_EQ(to_string(*detail::times(dimension(2, 4), dimension(3))), "6..12");
  EXPECT_FALSE(detail::times(dimension(std::int64_t{1} << 40, interval::unbounded), dimension(std::int64_t{1} << 40)));
}

TEST(inference_steps, cancellation_matches_each_input_factor_with_the_first_equal_output_factor) {
  detail::factors<dimension> in, out;
  for (const auto& d : {dimension(4), dimension(interval(), "A"), dimension(interval()), dimension(0), dimension(4)})
    in.add(d);
  for (const auto& d : {dimension(interval(), "A"), dimension(4), dimension(interval()), dimension(0), dimension(2)})
    out.add(d);
  detail::cancel(in, out);
  // 4 and ?@A cancel; a plain ? never does, nor does 0; the second input 4 finds no second output 4.
  const auto marks = [](const detail::factors<dimension>& f) {
    std::vector<int> m;
    for (std::size_t i = 0; i < f.size(); ++i) m.push_back(f.cancelled(i) ? 1 : 0);
    return m;
  };
  EXPECT_EQ(marks(in), (std::vector<int>{1, 1, 0, 0, 0}));
  EXPECT_EQ(marks(out), (std::vector<int>{1, 1, 0, 0, 0}));
  // Equal values with different symbols are different factors.
  detail::factors<dimension> x, y;
  x.add(dimension(2, "X"));
  y.add(dimension(2, "Y"));
  detail::cancel(x, y);
  EXPECT_FALSE(x.cancelled(0));
}

}  // namespace
}  // namespace reshape1::test
