// PriorBox-1, PriorBoxClustered-1, DetectionOutput-1, NonMaxSuppression-9, CTCGreedyDecoder-1.
#include "rule_util.hpp"

namespace reshape1::test {
namespace {

TEST(detection, prior_boxes) {
  // Aspect ratios {1, 2, 1/2} (flip), one min_size and one max_size: 3 * 1 + 1 = 4 priors per cell.
  EXPECT_EQ(shape_of(run("PriorBox", 1,
                         {{"aspect_ratio", "2.0"}, {"flip", "1"}, {"min_size", "16.0"}, {"max_size", "38.4"},
                          {"clip", "0"}},
                         {values({24, 42}), values({384, 672})})),
            "[2,16128]");
  EXPECT_EQ(shape_of(run("PriorBoxClustered", 1, {{"width", "8,21,12"}, {"height", "12,33,21"}},
                         {values({25, 43}), values({400, 680})})),
            "[2,12900]");
  expect_refused([] { (void)run("PriorBoxClustered", 1, {{"width", "8,21"}, {"height", "12"}},
                                {values({2, 2}), values({8, 8})}); },
                 "2 widths and 1 heights");
}

TEST(detection, detection_output) {
  EXPECT_EQ(shape_of(run("DetectionOutput", 1, {{"keep_top_k", "200"}, {"num_classes", "2"}, {"top_k", "400"}},
                         {of("[1,40448]"), of("[1,20224]"), of("[1,2,40448]")})),
            "[1,1,200,7]");
  EXPECT_EQ(shape_of(run("DetectionOutput", 1,
                         {{"keep_top_k", "-1"}, {"num_classes", "3"}, {"top_k", "-1"}, {"normalized", "1"}},
                         {of("[2,40]"), of("[2,30]"), of("[1,2,40]")})),
            "[1,1,60,7]");
  expect_refused([] { (void)run("DetectionOutput", 1, {{"keep_top_k", "200"}, {"num_classes", "0"}},
                                {of("[1,4]"), of("[1,2]"), of("[1,2,4]")}); },
                 "num_classes is 0");
}

TEST(detection, non_max_suppression_is_an_interval) {
  const auto out = run("NonMaxSuppression", 9, {{"output_type", "i64"}},
                       {of("[1,7332,4]"), of("[1,3,7332]"), values({100}, "[]")}, 3);
  EXPECT_EQ(shape_of(out, 0), "[..300,3]");
  EXPECT_EQ(shape_of(out, 2), "[1]");
  expect_refused([] { (void)run("NonMaxSuppression", 9, {{"output_type", "i64"}}, {of("[1,10,4]"), of("[1,3,9]")}, 3); },
                 "the boxes of the boxes and the scores: 10 and 9 cannot be equal");
}

TEST(detection, ctc_greedy_decoder) {
  EXPECT_EQ(shape_of(run("CTCGreedyDecoder", 1, {}, {of("[88,1,71]"), of("[88,1]")})), "[1,88,1,1]");
  expect_refused([] { (void)run("CTCGreedyDecoder", 1, {}, {of("[88,1,71]"), of("[80,1]")}); },
                 "the time dimension of the data and the mask: 88 and 80 cannot be equal");
}

}  // namespace
}  // namespace reshape1::test
