// Convolution-1 and GroupConvolution-1: output size floor((in + pads - dilated kernel) / stride) + 1.
#include "rule_util.hpp"

namespace reshape1::test {
namespace {

const std::vector<std::pair<std::string, std::string>> same_3x3 = {
    {"strides", "1, 1"}, {"dilations", "1, 1"}, {"pads_begin", "1, 1"}, {"pads_end", "1, 1"}, {"auto_pad", "explicit"}};

TEST(convolution, explicit_pads_strides_and_dilations) {
  EXPECT_EQ(shape_of(run("Convolution", 1, same_3x3, {of("[1,3,224,224]"), of("[64,3,3,3]")})), "[1,64,224,224]");
  EXPECT_EQ(shape_of(run("Convolution", 1,
                         {{"strides", "2, 2"}, {"dilations", "1, 1"}, {"pads_begin", "0, 0"}, {"pads_end", "0, 0"}},
                         {of("[1,3,9,8]"), of("[4,3,3,3]")})),
            "[1,4,4,3]");
  EXPECT_EQ(shape_of(run("Convolution", 1,
                         {{"strides", "1"}, {"dilations", "2"}, {"pads_begin", "0"}, {"pads_end", "0"}},
                         {of("[2,3,10]"), of("[5,3,3]")})),
            "[2,5,6]");  // a 3-wide kernel dilated by 2 spans 5
  EXPECT_EQ(shape_of(run("Convolution", 1,
                         {{"strides", "2, 2"}, {"dilations", "1, 1"}, {"pads_begin", "0, 0"}, {"pads_end", "0, 0"},
                          {"auto_pad", "same_upper"}},
                         {of("[1,3,7,8]"), of("[4,3,3,3]")})),
            "[1,4,4,4]");  // ceil(in / stride)
  EXPECT_EQ(shape_of(run("Convolution", 1, same_3x3, {of("[?,3,1..10,224]"), of("[64,3,3,3]")})), "[?,64,1..10,224]");
}

TEST(convolution, groups) {
  EXPECT_EQ(shape_of(run("GroupConvolution", 1, same_3x3, {of("[1,32,56,56]"), of("[32,1,1,3,3]")})),
            "[1,32,56,56]");
  EXPECT_EQ(shape_of(run("GroupConvolution", 1, same_3x3, {of("[1,8,5,5]"), of("[2,3,4,3,3]")})), "[1,6,5,5]");
}

TEST(convolution, disagreements_are_refused) {
  expect_refused([] { (void)run("Convolution", 1, same_3x3, {of("[1,3,8,8]"), of("[4,5,3,3]")}); },
                 "input channels of the data and the filters: 3 and 5 cannot be equal");
  expect_refused([] { (void)run("GroupConvolution", 1, same_3x3, {of("[1,8,5,5]"), of("[3,3,2,3,3]")}); },
                 "expect 3 groups of 2");
  expect_refused([] { (void)run("Convolution", 1, same_3x3, {of("[1,3,8,8]"), of("[4,3,3]")}); },
                 "matching ranks");
  expect_refused(
      [] {
        (void)run("Convolution", 1, {{"strides", "1, 1"}, {"pads_begin", "0, 0"}, {"pads_end", "0, 0"}},
                  {of("[1,3,2,8]"), of("[4,3,3,3]")});
      },
      "larger than the padded input");
  expect_refused([] { (void)run("Convolution", 1, {{"strides", "1, 1"}}, {of("[1,3,8,8]"), of("[4,3,3,3]")}); },
                 "missing attribute 'pads_begin'", errc::bad_file);
}

}  // namespace
}  // namespace reshape1::test
