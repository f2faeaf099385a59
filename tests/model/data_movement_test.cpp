// Concat, Gather, StridedSlice, Broadcast, Tile, Transpose, VariadicSplit, Pad, ScatterUpdate.
#include "rule_util.hpp"

namespace reshape1::test {
namespace {

using model::detail::exact_values;

TEST(data_movement, concat) {
  EXPECT_EQ(shape_of(run("Concat", 1, {{"axis", "1"}}, {of("[2,3]"), of("[2,?]"), of("[?,4]")})), "[2,7..]");
  const auto v = run("Concat", 1, {{"axis", "0"}}, {values({1, 2}), values({-1})});
  EXPECT_EQ(exact_values(v[0].value), (std::vector<std::int64_t>{1, 2, -1}));
  expect_refused([] { (void)run("Concat", 1, {{"axis", "1"}}, {of("[2,3]"), of("[3,3]")}); },
                 "input 1 dimension 0: 2 and 3 cannot be equal");
  expect_refused([] { (void)run("Concat", 1, {{"axis", "0"}}, {of("[2,3]"), of("[3]")}); }, "of another rank");
}

TEST(data_movement, gather) {
  EXPECT_EQ(shape_of(run("Gather", 8, {{"batch_dims", "0"}}, {of("[5,6,7]"), of("[2,3]"), values({1}, "[]")})),
            "[5,2,3,7]");
  EXPECT_EQ(shape_of(run("Gather", 8, {{"batch_dims", "1"}}, {of("[5,6,7]"), of("[5,3]"), values({1}, "[]")})),
            "[5,3,7]");
  const auto v = run("Gather", 1, {}, {values({2, 3, 4}), values({-1, 0}), values({0}, "[]")});
  EXPECT_EQ(exact_values(v[0].value), (std::vector<std::int64_t>{4, 2}));
  expect_refused([] { (void)run("Gather", 8, {}, {of("[5]"), of("[2]"), values({1}, "[]")}); },
                 "axis 1 is out of range for rank 1");
}

TEST(data_movement, strided_slice) {
  const std::vector<std::pair<std::string, std::string>> plain = {{"begin_mask", "0"}, {"end_mask", "0"}};
  EXPECT_EQ(shape_of(run("StridedSlice", 1, plain, {of("[10,8]"), values({2, 1}), values({8, -1}), values({2, 1})})),
            "[3,6]");
  EXPECT_EQ(shape_of(run("StridedSlice", 1, plain, {of("[10]"), values({-1}), values({-11}), values({-3})})), "[4]");
  EXPECT_EQ(shape_of(run("StridedSlice", 1, {{"shrink_axis_mask", "1"}, {"new_axis_mask", "0,1"}},
                         {of("[10,8]"), values({3, 0}), values({4, 0}), values({1, 1})})),
            "[1,8]");
  EXPECT_EQ(shape_of(run("StridedSlice", 1, {{"ellipsis_mask", "1"}},
                         {of("[2,3,4]"), values({0, 1}), values({0, 3}), values({1, 1})})),
            "[2,3,2]");
  const auto v = run("StridedSlice", 1, plain, {values({1, 3, 8, 14}), values({2}), values({4}), values({1})});
  EXPECT_EQ(exact_values(v[0].value), (std::vector<std::int64_t>{8, 14}));
  expect_refused([] { (void)run("StridedSlice", 1, {}, {of("[4]"), values({0}), values({4}), values({0})}); },
                 "strides[0] is 0");
  expect_refused([] { (void)run("StridedSlice", 1, {{"shrink_axis_mask", "1"}}, {of("[4]"), values({4}), values({5})}); },
                 "outside the dimension 4");
}

TEST(data_movement, broadcast_tile_transpose) {
  EXPECT_EQ(shape_of(run("Broadcast", 3, {{"mode", "numpy"}}, {of("[3,1]"), values({2, 3, 4})})), "[2,3,4]");
  EXPECT_EQ(shape_of(run("Broadcast", 3, {{"mode", "bidirectional"}}, {of("[3,1]"), values({4})})), "[3,4]");
  const auto v = run("Broadcast", 3, {{"mode", "numpy"}}, {values({7}, "[]"), values({3})});
  EXPECT_EQ(exact_values(v[0].value), (std::vector<std::int64_t>{7, 7, 7}));
  EXPECT_EQ(shape_of(run("Tile", 1, {}, {of("[2,3]"), values({2, 1, 2})})), "[2,2,6]");
  EXPECT_EQ(shape_of(run("Transpose", 1, {}, {of("[2,3,4]"), values({2, 0, 1})})), "[4,2,3]");
  EXPECT_EQ(shape_of(run("Transpose", 1, {}, {of("[2,3,4]"), values({})})), "[4,3,2]");
  expect_refused([] { (void)run("Broadcast", 3, {{"mode", "numpy"}}, {of("[3]"), values({4})}); }, "do not broadcast");
  expect_refused([] { (void)run("Broadcast", 3, {{"mode", "numpy"}}, {of("[3]"), values({1})}); },
                 "the data [3] does not broadcast to the target [1]");
  expect_refused([] { (void)run("Tile", 1, {}, {of("[2]"), values({-1})}); }, "the repeat -1 is negative");
  expect_refused([] { (void)run("Transpose", 1, {}, {of("[2,3]"), values({0, 0})}); }, "not a permutation");
}

TEST(data_movement, split_pad_scatter) {
  const auto parts = run("VariadicSplit", 1, {}, {of("[2,10]"), values({1}, "[]"), values({3, -1})}, 2);
  EXPECT_EQ(shape_of(parts, 0), "[2,3]");
  EXPECT_EQ(shape_of(parts, 1), "[2,7]");
  EXPECT_EQ(shape_of(run("Pad", 1, {{"pad_mode", "constant"}}, {of("[1,3,4]"), values({0, 1, 2}), values({0, 1, -1})})),
            "[1,5,5]");
  const auto s = run("ScatterUpdate", 3, {}, {values({0, 0, 0, 0}), values({1, 3}), values({5, 6}), values({0}, "[]")});
  EXPECT_EQ(exact_values(s[0].value), (std::vector<std::int64_t>{0, 5, 0, 6}));
  expect_refused([] { (void)run("VariadicSplit", 1, {}, {of("[10]"), values({0}, "[]"), values({3, 3})}, 2); },
                 "do not add up to the dimension 10");
  expect_refused([] { (void)run("Pad", 1, {}, {of("[2]"), values({-2}), values({-1})}); }, "is negative");
  expect_refused(
      [] { (void)run("ScatterUpdate", 3, {}, {values({0, 0}), values({2}), values({1}), values({0}, "[]")}); },
      "the index 2 is outside the dimension 2");
}

}  // namespace
}  // namespace reshape1::test
