// Inference allocates nothing on the heap for output ranks up to shape::inline_rank: the static
// instantiation in and out of its common case (no 0, no overflow), and infer_shape.
#include <gtest/gtest.h>

#include "alloc_counter.hpp"
#include "reshape1/reshape1.hpp"

namespace {

TEST(allocations, static_fast_path_allocates_nothing) {
  const reshape1::shape input{2, 5, 5, 24};
  const std::vector<std::int64_t> pattern{0, -1, 4};
  const std::vector<std::int64_t> rank8{1, 2, 1, 5, 1, 5, -1, 1};
  (void)reshape1::infer_static_shape(input, pattern, true);  // warm-up
  const long before = g_allocations.load();
  for (int i = 0; i < 1000; ++i) {
    auto out = reshape1::infer_static_shape(input, pattern, true);
    auto out8 = reshape1::infer_static_shape(input, rank8, false);
    EXPECT_EQ(out.size() + out8.size(), 11u);
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
}

TEST(allocations, static_path_off_the_common_lane_allocates_nothing) {
  // Empty tensors, the empty rules and inputs longer than the inline rank leave the common case,
  // and allocate nothing either (the rank-9 input owns its heap block).
  const reshape1::shape empty{2, 0, 5, 24};
  const reshape1::shape rank9{1, 2, 1, 3, 1, 1, 1, 1, 4};
  const std::vector<std::int64_t> pattern{0, -1, 4};
  const std::vector<std::int64_t> flatten{-1};
  reshape1::reshape_options tensorflow;
  tensorflow.empty = reshape1::empty_rule::tensorflow;
  (void)reshape1::infer_static_shape(empty, pattern, true);  // warm-up
  const long before = g_allocations.load();
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(reshape1::infer_static_shape(empty, pattern, true).size(), 3u);
    EXPECT_EQ(reshape1::infer_static_shape(empty, pattern, false, tensorflow).size(), 3u);
    EXPECT_EQ(reshape1::infer_static_shape(rank9, flatten, false)[0], 24);
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
}

TEST(allocations, infer_shape_allocates_nothing_up_to_the_inline_rank) {
  // A plain problem (handed to the static instantiation) and a partial one with symbols.
  const auto plain = reshape1::parse_shape("[2,5,5,24]");
  const auto values = reshape1::parse_pattern("[0,-1,4]");
  const auto partial = reshape1::parse_shape("[?@A,?@B,768]");
  const auto bounds = reshape1::parse_pattern("[?@A,?@C,12,64]");
  (void)reshape1::infer_shape(plain, values, true);  // warm-up
  (void)reshape1::infer_shape(partial, bounds, false);
  const long before = g_allocations.load();
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(reshape1::infer_shape(plain, values, true).shape[1], reshape1::dimension(150));
    EXPECT_EQ(reshape1::infer_shape(partial, bounds, false).shape.size(), 4u);
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
