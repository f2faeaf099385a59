// Interpolate-4 and Interpolate-11: sizes and scales modes, pads, axes.
#include "rule_util.hpp"

namespace reshape1::test {
namespace {

// Scales as OpenVINO applies them: in float, 1e-6 added to the scale, the product truncated; a scale of
// exactly 1 leaves the dimension alone (even one that float cannot hold exactly).
TEST(resize, interpolate_scales_round_as_openvino_does) {
  const auto scaled = [](const char* data, double scale) {
    return shape_of(run("Interpolate", 11, {{"shape_calculation_mode", "scales"}}, {of(data), reals({scale})}));
  };
  EXPECT_EQ(scaled("[20]", 2.0), "[40]");
  EXPECT_EQ(scaled("[3]", 1.0 / 3), "[1]");
  EXPECT_EQ(scaled("[2000000]", 0.5), "[1000002]");
  EXPECT_EQ(scaled("[16777217]", 1.0), "[16777217]");
  EXPECT_EQ(scaled("[7]", 0.5), "[3]");
  EXPECT_EQ(scaled("[2..6]", 1.5), "[3..9]");
  EXPECT_EQ(scaled("[?]", 2.0), "[?]");
}

TEST(resize, interpolate_sizes_and_scales) {
  EXPECT_EQ(shape_of(run("Interpolate", 4, {{"shape_calculation_mode", "sizes"}},
                         {of("[1,32,8,14]"), values({1, 32, 16, 28}), reals({1, 1, 2, 2})})),
            "[1,32,16,28]");
  EXPECT_EQ(shape_of(run("Interpolate", 11, {{"shape_calculation_mode", "scales"}},
                         {of("[1,64,20,20]"), reals({1, 1, 2, 2})})),
            "[1,64,40,40]");
  EXPECT_EQ(shape_of(run("Interpolate", 11, {{"shape_calculation_mode", "sizes"}},
                         {of("[1,24,12,3]"), values({24, 24}), values({1, 2})})),
            "[1,24,24,3]");
  EXPECT_EQ(shape_of(run("Interpolate", 4, {{"shape_calculation_mode", "scales"}, {"pads_begin", "0,0,1,1"},
                                            {"pads_end", "0,0,1,1"}},
                         {of("[1,3,4,4]"), values({0, 0}), reals({1.5, 0.5}), values({2, 3})})),
            "[1,3,9,3]");
  EXPECT_EQ(shape_of(run("Interpolate", 11, {{"shape_calculation_mode", "sizes"}},
                         {of("[1,3,4,4]"), of("[2]", element_type::i64), values({2, 3})})),
            "[1,3,?,?]");
}

TEST(resize, refusals) {
  expect_refused([] { (void)run("Interpolate", 11, {{"shape_calculation_mode", "linear"}}, {of("[1,3]"), values({1, 1})}); },
                 "shape_calculation_mode 'linear'");
  expect_refused([] { (void)run("Interpolate", 11, {{"shape_calculation_mode", "sizes"}},
                                {of("[1,3,4,4]"), values({2}), values({2, 3})}); },
                 "1 sizes for 2 axes");
  expect_refused([] { (void)run("Interpolate", 11, {{"shape_calculation_mode", "sizes"}},
                                {of("[1,3,4,4]"), values({2}), values({4})}); },
                 "the axis 4 is out of range");
}


TEST(resize, interpolate_1_sets_the_axes_to_the_target) {
  EXPECT_EQ(shape_of(run("Interpolate", 1, {{"axes", "2,3"}, {"mode", "nearest"}}, {of("[1,3,10,20]"), values({40, 60})})),
            "[1,3,40,60]");
  EXPECT_EQ(shape_of(run("Interpolate", 1, {{"axes", "1"}, {"mode", "linear"}}, {of("[?,3,10]"), of("[1]")})), "[?,?,10]");
  expect_refused([] { (void)run("Interpolate", 1, {{"axes", "4"}, {"mode", "nearest"}}, {of("[1,3,10,20]"), values({4})}); },
                 "the axis 4 is out of range for rank 4");
  expect_refused([] { (void)run("Interpolate", 1, {{"axes", "2,2"}, {"mode", "nearest"}}, {of("[1,3,10,20]"), values({4, 4})}); },
                 "the axis 2 is given twice");
  expect_refused([] { (void)run("Interpolate", 1, {{"axes", "2,3"}, {"mode", "nearest"}}, {of("[1,3,10,20]"), values({4})}); },
                 "1 target sizes for 2 axes");
  expect_refused([] { (void)run("Interpolate", 1, {{"axes", "2"}, {"mode", "bicubic"}}, {of("[1,3,10,20]"), values({4})}); },
                 "mode 'bicubic'");
}

}  // namespace
}  // namespace reshape1::test
