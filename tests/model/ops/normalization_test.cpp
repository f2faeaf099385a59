// BatchNormInference-1 and -5, MVN (opset2), LRN-1, GroupNormalization-12, LogSoftmax-5.
#include "rule_util.hpp"

namespace reshape1::test {
namespace {

TEST(normalization, batch_norm_inference) {
  EXPECT_EQ(shape_of(run("BatchNormInference", 5, {{"epsilon", "1e-5"}},
                         {of("[2,?,4,4]"), of("[3]"), of("[3]"), of("[3]"), of("[3]")})),
            "[2,3,4,4]");
  // BatchNormInference-1 takes the data third.
  EXPECT_EQ(shape_of(run("BatchNormInference", 1, {{"epsilon", "0.001"}},
                         {of("[8]"), of("[8]"), of("[1,8,5]"), of("[8]"), of("[8]")})),
            "[1,8,5]");
  expect_refused([] {
    (void)run("BatchNormInference", 5, {{"epsilon", "1e-5"}}, {of("[2,3,4]"), of("[3]"), of("[4]"), of("[3]"), of("[3]")});
  }, "the channels of the data and of beta: 3 and 4 cannot be equal");
  expect_refused([] {
    (void)run("BatchNormInference", 5, {{"epsilon", "-1"}}, {of("[2,3]"), of("[3]"), of("[3]"), of("[3]"), of("[3]")});
  }, "epsilon is '-1'");
  expect_refused([] {
    (void)run("BatchNormInference", 5, {{"epsilon", "0"}}, {of("[3]"), of("[3]"), of("[3]"), of("[3]"), of("[3]")});
  }, "must have rank 2 or more");
  expect_refused([] {
    (void)run("BatchNormInference", 5, {{"epsilon", "0"}}, {of("[2,3]"), of("[3,1]"), of("[3]"), of("[3]"), of("[3]")});
  }, "gamma [3,1] must be 1-D");
}

TEST(normalization, mvn_lrn_log_softmax) {
  EXPECT_EQ(shape_of(run("MVN", 2, {{"eps", "1e-9"}, {"across_channels", "true"}}, {of("[1,3,?,5]")})), "[1,3,?,5]");
  EXPECT_EQ(shape_of(run("LRN", 1, {{"size", "5"}}, {of("[1,16,8,8]"), values({1})})), "[1,16,8,8]");
  EXPECT_EQ(shape_of(run("LogSoftmax", 5, {{"axis", "-1"}}, {of("[2,7]")})), "[2,7]");
  expect_refused([] { (void)run("MVN", 2, {{"eps", "1e-9"}, {"reduction_axes", "4"}}, {of("[1,3,4,5]")}); },
                 "reduction axis 4 is out of range for rank 4");
  expect_refused([] { (void)run("LRN", 1, {{"size", "5"}}, {of("[1,16,8,8]"), values({4})}); },
                 "axis 4 is out of range for rank 4");
  expect_refused([] { (void)run("LRN", 1, {{"size", "5"}}, {of("[1,16,8,8]"), values({1, 1})}); }, "axis 1 is given twice");
  expect_refused([] { (void)run("LRN", 1, {{"size", "0"}}, {of("[1,16]"), values({1})}); }, "size is 0");
  expect_refused([] { (void)run("LogSoftmax", 5, {{"axis", "2"}}, {of("[2,7]")}); }, "axis 2 is out of range for rank 2");
}

TEST(normalization, group_normalization) {
  EXPECT_EQ(shape_of(run("GroupNormalization", 12, {{"num_groups", "4"}, {"epsilon", "1e-5"}},
                         {of("[2,?,5,5]"), of("[8]"), of("[8]")})),
            "[2,8,5,5]");
  expect_refused([] {
    (void)run("GroupNormalization", 12, {{"num_groups", "3"}, {"epsilon", "1e-5"}}, {of("[2,8,5]"), of("[8]"), of("[8]")});
  }, "8 channels do not split into num_groups 3 groups");
  expect_refused([] {
    (void)run("GroupNormalization", 12, {{"num_groups", "0"}, {"epsilon", "1e-5"}}, {of("[2,8]"), of("[8]"), of("[8]")});
  }, "num_groups is 0");
  expect_refused([] {
    (void)run("GroupNormalization", 12, {{"num_groups", "2"}, {"epsilon", "1e-5"}}, {of("[2,8]"), of("[4]"), of("[8]")});
  }, "the channels of the data and of scale: 8 and 4 cannot be equal");
}

}  // namespace
}  // namespace reshape1::test
