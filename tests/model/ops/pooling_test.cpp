// MaxPool-1/8/14 and AvgPool-1: rounding floor, ceil and ceil_torch; MaxPool-8/14 indices.
#include "rule_util.hpp"

namespace reshape1::test {
namespace {

std::vector<std::pair<std::string, std::string>> window(const char* rounding, const char* pads = "0, 0") {
  return {{"kernel", "3, 3"}, {"strides", "2, 2"}, {"pads_begin", pads}, {"pads_end", pads},
          {"rounding_type", rounding}, {"auto_pad", "explicit"}};
}

TEST(pooling, rounding_types) {
  EXPECT_EQ(shape_of(run("MaxPool", 1, window("floor"), {of("[1,8,8,8]")})), "[1,8,3,3]");
  EXPECT_EQ(shape_of(run("MaxPool", 1, window("ceil"), {of("[1,8,8,8]")})), "[1,8,4,4]");
  EXPECT_EQ(shape_of(run("AvgPool", 1, window("floor"), {of("[1,8,9,9]")})), "[1,8,4,4]");
  // 7 padded by 1 on each side, kernel 2, stride 2: ceil gives 5 windows; the fifth starts at 8, inside
  // the end padding, and ceil_torch drops it.
  auto torch = window("ceil_torch", "1, 1");
  torch[0].second = "2, 2";
  torch.emplace_back("index_element_type", "i64");
  EXPECT_EQ(shape_of(run("MaxPool", 14, torch, {of("[1,1,7,7]")}, 2)), "[1,1,4,4]");
  auto ceil = window("ceil", "1, 1");
  ceil[0].second = "2, 2";
  ceil.emplace_back("index_element_type", "i64");
  EXPECT_EQ(shape_of(run("MaxPool", 8, ceil, {of("[1,1,7,7]")}, 2)), "[1,1,5,5]");
}

TEST(pooling, maxpool8_gives_indices_of_the_same_shape) {
  auto w = window("floor");
  w.emplace_back("index_element_type", "i32");
  const auto out = run("MaxPool", 8, w, {of("[2,4,?,10]")}, 2);
  EXPECT_EQ(shape_of(out, 0), "[2,4,?,4]");
  EXPECT_EQ(shape_of(out, 1), "[2,4,?,4]");
  EXPECT_EQ(out[1].type, element_type::i32);
}

TEST(pooling, refusals) {
  expect_refused([] { (void)run("MaxPool", 1, window("floor"), {of("[8,8]")}); }, "rank below 3");
  expect_refused([] { (void)run("MaxPool", 1, window("round"), {of("[1,1,8,8]")}); }, "rounding_type 'round'");
  expect_refused([] { (void)run("MaxPool", 1, window("ceil_torch"), {of("[1,1,8,8]")}); }, "needs MaxPool-14");
  expect_refused([] { (void)run("AvgPool", 1, window("floor"), {of("[1,1,2,8]")}); }, "larger than the padded input");
}


TEST(pooling, avg_pool_14_rounds_with_ceil_torch) {
  const std::vector<std::pair<std::string, std::string>> attributes = {
      {"kernel", "2"}, {"strides", "2"}, {"pads_begin", "1"}, {"pads_end", "1"}, {"rounding_type", "ceil_torch"}};
  // in 5, pads 1+1, kernel 2, stride 2: floor 3, ceil 4, but the 4th window would start in the end padding.
  EXPECT_EQ(shape_of(run("AvgPool", 14, attributes, {of("[1,3,5]")})), "[1,3,3]");
  auto ceil = attributes;
  ceil.back().second = "ceil";
  EXPECT_EQ(shape_of(run("AvgPool", 14, ceil, {of("[1,3,5]")})), "[1,3,4]");
  for (const char* pad : {"valid", "same_upper", "same_lower"}) {
    auto a = attributes;
    a.emplace_back("auto_pad", pad);
    EXPECT_EQ(shape_of(run("AvgPool", 14, a, {of("[1,3,5]")})), "[1,3,3]") << pad;  // valid: windows at 0, 2, 4
  }
  expect_refused([&] { (void)run("AvgPool", 1, attributes, {of("[1,3,5]")}); },
                 "rounding_type ceil_torch needs AvgPool-14");
}

TEST(pooling, adaptive_pools_take_the_output_shape_input) {
  EXPECT_EQ(shape_of(run("AdaptiveAvgPool", 8, {}, {of("[2,3,17,9]"), values({4, 5})})), "[2,3,4,5]");
  const auto max = run("AdaptiveMaxPool", 8, {{"index_element_type", "i32"}}, {of("[?,3,17]"), values({4})}, 2);
  EXPECT_EQ(shape_of(max, 0), "[?,3,4]");
  EXPECT_EQ(shape_of(max, 1), "[?,3,4]");
  EXPECT_EQ(max[1].type, element_type::i32);
  EXPECT_EQ(shape_of(run("AdaptiveAvgPool", 8, {}, {of("[2,3,17,9,4]"), of("[3]")})), "[2,3,?,?,?]");
  expect_refused([] { (void)run("AdaptiveAvgPool", 8, {}, {of("[2,3,17,9]"), values({4})}); },
                 "output_shape has 1 values for 2 spatial dimensions");
  expect_refused([] { (void)run("AdaptiveAvgPool", 8, {}, {of("[2,3]"), values({4})}); }, "must have rank 3, 4 or 5");
  expect_refused([] { (void)run("AdaptiveMaxPool", 8, {}, {of("[2,3,4]"), values({4})}, 1); }, "needs 2 inputs and 2 outputs");
}

}  // namespace
}  // namespace reshape1::test
