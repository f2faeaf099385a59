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


TEST(detection, detection_output_8_derives_the_classes) {
  // 100 priors (proposals' last dimension 400 over the box size 4), 21 classes (2100 / 100).
  const std::vector<std::pair<std::string, std::string>> base = {
      {"keep_top_k", "-1"}, {"top_k", "-1"}, {"normalized", "true"}, {"share_location", "true"}};
  EXPECT_EQ(shape_of(run("DetectionOutput", 8, base, {of("[2,400]"), of("[2,2100]"), of("[1,2,400]")})),
            "[1,1,4200,7]");  // N * priors * classes
  auto top = base;
  top[1].second = "50";
  EXPECT_EQ(shape_of(run("DetectionOutput", 8, top, {of("[2,400]"), of("[2,2100]"), of("[1,2,400]")})),
            "[1,1,2100,7]");  // N * top_k * classes
  auto keep = base;
  keep[0].second = "200";
  EXPECT_EQ(shape_of(run("DetectionOutput", 8, keep, {of("[?,400]"), of("[?,?]"), of("[1,2,?]")})), "[1,1,?,7]");
  EXPECT_EQ(shape_of(run("DetectionOutput", 8, keep, {of("[3,400]"), of("[3,2100]"), of("[1,2,400]")})), "[1,1,600,7]");
  expect_refused([&] { (void)run("DetectionOutput", 8, base, {of("[2,400]"), of("[2,2100]"), of("[1,2,402]")}); },
                 "not a positive multiple of the prior box size 4");
  expect_refused([&] { (void)run("DetectionOutput", 8, base, {of("[2,400]"), of("[2,2101]"), of("[1,2,400]")}); },
                 "the class predictions' dimension 2101 is not a multiple of the 100 priors");
  expect_refused([&] { (void)run("DetectionOutput", 8, base, {of("[2,400,1]"), of("[2,2100]"), of("[1,2,400]")}); },
                 "the box logits [2,400,1] must be 2-D");
}

TEST(detection, region_yolo) {
  // YOLOv3: do_softmax false, 3 masks of (80 classes + 4 coords + 1).
  EXPECT_EQ(shape_of(run("RegionYolo", 1,
                         {{"coords", "4"}, {"classes", "80"}, {"num", "9"}, {"do_softmax", "false"}, {"mask", "0,1,2"}},
                         {of("[1,255,13,13]")})),
            "[1,255,13,13]");
  // YOLOv2: do_softmax flattens from axis to end_axis.
  EXPECT_EQ(shape_of(run("RegionYolo", 1,
                         {{"coords", "4"}, {"classes", "20"}, {"num", "5"}, {"do_softmax", "true"}, {"axis", "1"},
                          {"end_axis", "3"}},
                         {of("[1,125,13,13]")})),
            "[1,21125]");
  EXPECT_EQ(shape_of(run("RegionYolo", 1,
                         {{"coords", "4"}, {"classes", "20"}, {"num", "5"}, {"do_softmax", "true"}, {"axis", "1"},
                          {"end_axis", "2"}},
                         {of("[?,125,13,13]")})),
            "[?,1625,13]");
  expect_refused([] { (void)run("RegionYolo", 1, {{"coords", "4"}, {"classes", "20"}}, {of("[1,125,13]")}); },
                 "the data [1,125,13] must have rank 4");
  expect_refused([] {
    (void)run("RegionYolo", 1, {{"coords", "4"}, {"classes", "20"}, {"axis", "2"}, {"end_axis", "1"}}, {of("[1,125,13,13]")});
  }, "end_axis 1 is before axis 2");
}

TEST(detection, proposal) {
  const std::vector<std::pair<std::string, std::string>> attributes = {{"post_nms_topn", "300"}, {"pre_nms_topn", "6000"}};
  const auto four = run("Proposal", 4, attributes, {of("[2,18,38,50]"), of("[2,36,38,50]"), of("[3]")}, 2);
  EXPECT_EQ(shape_of(four, 0), "[600,5]");
  EXPECT_EQ(shape_of(four, 1), "[600]");
  EXPECT_EQ(shape_of(run("Proposal", 1, attributes, {of("[?,18,38,50]"), of("[1,36,38,50]"), of("[4]")})), "[300,5]");
  expect_refused([&] { (void)run("Proposal", 4, attributes, {of("[2,18,38,50]"), of("[3,36,38,50]"), of("[3]")}, 2); },
                 "the batch of the class probabilities and the box deltas: 2 and 3 cannot be equal");
  expect_refused([&] { (void)run("Proposal", 4, attributes, {of("[2,18,38,50]"), of("[2,36,38,50]"), of("[5]")}, 2); },
                 "the image shape [5] must hold 3 or 4 values");
  expect_refused([&] { (void)run("Proposal", 4, attributes, {of("[2,18,38]"), of("[2,36,38,50]"), of("[3]")}, 2); },
                 "must have rank 4");
  expect_refused([] { (void)run("Proposal", 4, {{"post_nms_topn", "0"}}, {of("[1,2,3,3]"), of("[1,4,3,3]"), of("[3]")}, 2); },
                 "post_nms_topn is 0");
}

TEST(detection, roi_pooling_and_align) {
  const std::vector<std::pair<std::string, std::string>> pooled = {
      {"pooled_h", "7"}, {"pooled_w", "6"}, {"spatial_scale", "0.0625"}};
  EXPECT_EQ(shape_of(run("ROIPooling", 2, pooled, {of("[1,256,38,50]"), of("[300,5]")})), "[300,256,7,6]");
  EXPECT_EQ(shape_of(run("ROIAlign", 3, pooled, {of("[1,256,38,50]"), of("[?,4]"), of("[300]")})), "[300,256,7,6]");
  auto aligned = pooled;
  aligned.emplace_back("aligned_mode", "half_pixel");
  EXPECT_EQ(shape_of(run("ROIAlign", 9, aligned, {of("[?,8,38,50]"), of("[10,4]"), of("[10]")})), "[10,8,7,6]");
  expect_refused([&] { (void)run("ROIPooling", 2, pooled, {of("[1,256,38,50]"), of("[300,4]")}); },
                 "the boxes [300,4] must be [R, 5]");
  expect_refused([&] { (void)run("ROIAlign", 9, pooled, {of("[1,256,38,50]"), of("[300,4]"), of("[200]")}); },
                 "the boxes and the batch indices: 300 and 200 cannot be equal");
  expect_refused([] {
    (void)run("ROIAlign", 9, {{"pooled_h", "0"}, {"pooled_w", "6"}, {"spatial_scale", "1"}},
              {of("[1,256,38,50]"), of("[300,4]"), of("[300]")});
  }, "pooled_h 0 and pooled_w 6 must be positive");
  expect_refused([&] {
    auto bad = pooled;
    bad.emplace_back("aligned_mode", "quarter_pixel");
    (void)run("ROIAlign", 9, bad, {of("[1,256,38,50]"), of("[300,4]"), of("[300]")});
  }, "aligned_mode 'quarter_pixel'");
}

TEST(detection, non_max_suppression_5) {
  const auto out = run("NonMaxSuppression", 5, {{"output_type", "i64"}},
                       {of("[2,100,4]"), of("[2,3,100]"), values({10}, "[]"), of("[]"), of("[]"), of("[]")}, 3);
  EXPECT_EQ(shape_of(out, 0), "[..60,3]");
  EXPECT_EQ(shape_of(out, 1), "[..60,3]");
  expect_refused([] { (void)run("NonMaxSuppression", 5, {{"output_type", "i64"}}, {of("[2,100,5]"), of("[2,3,100]")}, 3); },
                 "must be [batches, boxes, 4]");
}

}  // namespace
}  // namespace reshape1::test
