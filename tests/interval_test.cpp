#include <gtest/gtest.h>

#include "detail/checked.hpp"
#include "test_util.hpp"

namespace reshape1::test {
namespace {

TEST(interval, invariants_are_enforced) {
  EXPECT_THROW(interval(-1, 3), error);
  EXPECT_THROW(interval(5, 3), error);
  EXPECT_NO_THROW(interval(3, interval::unbounded));
}

TEST(interval, multiplication_saturates_upward_and_fails_downward) {
  using detail::multiply;
  EXPECT_EQ(*multiply(interval(2, 3), interval(4, 5)), interval(8, 15));
  EXPECT_EQ(*multiply(interval(0, 0), interval()), interval(0));
  EXPECT_EQ(*multiply(interval(2, 3), interval(1, interval::unbounded)), interval(2, interval::unbounded));
  EXPECT_EQ(*multiply(interval(1, std::int64_t{1} << 40), interval(1, std::int64_t{1} << 40)),
            interval(1, interval::unbounded));
  EXPECT_FALSE(multiply(interval(std::int64_t{1} << 40, interval::unbounded),
                        interval(std::int64_t{1} << 40, interval::unbounded)));
}

TEST(interval, hull_and_intersection) {
  EXPECT_EQ(interval(1, 3).hull(interval(7)), interval(1, 7));
  EXPECT_TRUE(interval(4, 15).intersects(interval(2, 4)));
  EXPECT_FALSE(interval(2, 3).intersects(interval(5, 9)));
}

TEST(shape, inline_storage_and_growth) {
  shape s;
  for (std::int64_t i = 1; i <= 10; ++i) s.push_back(i);
  EXPECT_EQ(s.size(), 10u);
  EXPECT_EQ(to_string(s), "[1,2,3,4,5,6,7,8,9,10]");
  shape copy = s;
  EXPECT_EQ(copy, s);
  EXPECT_EQ(shape({2, 3}).element_count(), 6);
  EXPECT_EQ(shape({0, 4294967296, 4294967296}).element_count(), 0);
  EXPECT_THROW((void)shape({4294967296, 4294967296}).element_count(), error);
}

TEST(partial_shape, static_conversion) {
  EXPECT_TRUE(parse_shape("[2,3@A]").is_static());
  EXPECT_EQ(to_string(parse_shape("[2,3]").to_static()), "[2,3]");
  EXPECT_THROW((void)parse_shape("[2,?]").to_static(), error);
  EXPECT_THROW((void)partial_shape::dynamic().to_static(), error);
}

}  // namespace
}  // namespace reshape1::test
