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


const std::vector<std::pair<std::string, std::string>> back_2x2 = {
    {"strides", "2, 2"}, {"dilations", "1, 1"}, {"pads_begin", "0, 0"}, {"pads_end", "0, 0"}, {"auto_pad", "explicit"}};

TEST(convolution, backprop_data_grows_the_spatial_dimensions) {
  // stride * (in - 1) + dilated kernel - pads + output_padding
  EXPECT_EQ(shape_of(run("ConvolutionBackpropData", 1, back_2x2, {of("[1,16,8,8]"), of("[16,4,2,2]")})),
            "[1,4,16,16]");
  EXPECT_EQ(shape_of(run("ConvolutionBackpropData", 1,
                         {{"strides", "2"}, {"dilations", "2"}, {"pads_begin", "1"}, {"pads_end", "2"},
                          {"output_padding", "1"}},
                         {of("[2,3,5]"), of("[3,6,3]")})),
            "[2,6,11]");  // 2*4 + 5 - 3 + 1
  EXPECT_EQ(shape_of(run("ConvolutionBackpropData", 1,
                         {{"strides", "2, 2"}, {"dilations", "1, 1"}, {"pads_begin", "1, 1"}, {"pads_end", "1, 1"},
                          {"auto_pad", "valid"}},
                         {of("[1,16,?,1..4]"), of("[16,4,3,3]")})),
            "[1,4,?,3..9]");  // valid: no pads
  for (const char* pad : {"same_upper", "same_lower"})
    EXPECT_EQ(shape_of(run("ConvolutionBackpropData", 1,
                           {{"strides", "2, 2"}, {"pads_begin", "0, 0"}, {"pads_end", "0, 0"}, {"auto_pad", pad}},
                           {of("[1,16,8,8]"), of("[16,4,3,3]")})),
              "[1,4,17,17]")
        << pad;
  // The output_shape input sets the spatial dimensions.
  EXPECT_EQ(shape_of(run("ConvolutionBackpropData", 1, back_2x2, {of("[1,16,8,8]"), of("[16,4,2,2]"), values({15, 17})})),
            "[1,4,15,17]");
  EXPECT_EQ(shape_of(run("ConvolutionBackpropData", 1, back_2x2, {of("[1,16,8,8]"), of("[16,4,2,2]"), of("[2]")})),
            "[1,4,?,?]");
}

TEST(convolution, backprop_data_errors) {
  expect_refused([] { (void)run("ConvolutionBackpropData", 1, back_2x2, {of("[1,16,8,8]"), of("[8,4,2,2]")}); },
                 "input channels of the data and the filters: 16 and 8 cannot be equal");
  expect_refused([] { (void)run("ConvolutionBackpropData", 1, back_2x2, {of("[1,16,8,8]"), of("[16,4,2]")}); },
                 "do not have matching ranks");
  expect_refused([] {
    (void)run("ConvolutionBackpropData", 1, back_2x2, {of("[1,16,8,8]"), of("[16,4,2,2]"), values({15, 17, 3})});
  }, "output_shape has 3 values for 2 spatial dimensions");
  expect_refused([] {
    auto attributes = back_2x2;
    attributes.emplace_back("output_padding", "1");
    (void)run("ConvolutionBackpropData", 1, attributes, {of("[1,16,8,8]"), of("[16,4,2,2]")});
  }, "output_padding has 1 values for 2 spatial dimensions");
  expect_refused([] {
    (void)run("ConvolutionBackpropData", 1,
              {{"strides", "1"}, {"pads_begin", "5"}, {"pads_end", "5"}, {"auto_pad", "explicit"}},
              {of("[1,2,2]"), of("[2,2,3]")});
  }, "the output size -6 is negative");
}

TEST(convolution, group_backprop_data) {
  // filters [G, C_in/G, C_out/G, kernel...]: output channels G * C_out/G.
  EXPECT_EQ(shape_of(run("GroupConvolutionBackpropData", 1, back_2x2, {of("[1,16,8,8]"), of("[4,4,3,2,2]")})),
            "[1,12,16,16]");
  EXPECT_EQ(shape_of(run("GroupConvolutionBackpropData", 1, back_2x2,
                         {of("[?,16,8,8]"), of("[4,4,3,2,2]"), values({20, 20})})),
            "[?,12,20,20]");
  expect_refused([] {
    (void)run("GroupConvolutionBackpropData", 1, back_2x2, {of("[1,16,8,8]"), of("[4,3,3,2,2]")});
  }, "the data has 16 channels but the filters [4,3,3,2,2] expect 4 groups of 3");
}

}  // namespace
}  // namespace reshape1::test
