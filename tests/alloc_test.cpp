// The static fast path allocates nothing on the heap for output ranks up to shape::inline_rank.
#include <gtest/gtest.h>

#include "alloc_counter.hpp"
#include "reshape1/reshape1.hpp"

namespace {

TEST(allocations, static_fast_path_allocates_nothing) {
  const reshape1::shape input{2, 5, 5, 24};
  const std::vector<std::int64_t> pattern{0, -1, 4};
  const std::vector<std::int64_t> rank8{1, 2, 1, 5, 1, 5, -1, 1};
  (void)reshape1::infer_shape(input, pattern, true);  // warm-up
  const long before = g_allocations.load();
  for (int i = 0; i < 1000; ++i) {
    auto out = reshape1::infer_shape(input, pattern, true);
    auto out8 = reshape1::infer_shape(input, rank8, false);
    EXPECT_EQ(out.size() + out8.size(), 11u);
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
}

TEST(allocations, counter_sees_allocations) {
  const long before = g_allocations.load();
  auto r = reshape1::infer_shape(reshape1::parse_shape("[2,1..]"), reshape1::parse_pattern("[-1]"), false);
  EXPECT_GT(g_allocations.load() - before, 0);  // the general path may allocate: the counter works
  EXPECT_EQ(reshape1::to_string(r.shape), "[2..]");
}

}  // namespace
