// The facts the analysis at new sizes reads from the rules folder (src/model/ops/sizes.cpp), seen through
// check_batch at other shapes on IR models: a slice's end inside a changing axis is a position written down,
// one past the axis at both shapes is not.
#include <gtest/gtest.h>

#include <string>

#include "../ir_builder.hpp"
#include "reshape1/model/batch.hpp"

namespace reshape1::test {
namespace {

class sizes : public ir {
 protected:
  model::batch_report at(const ir_builder& b, const char* shape) {
    graph_ = load(b.xml(), b.bin());
    return model::check_batch(graph_, {.shapes = {{"", parse_shape(shape)}}});
  }
  model::graph graph_;
};

/// x [1,16] cut along axis 1 by a StridedSlice from 0 to `end`.
ir_builder strided_to(std::int64_t end, const std::string& out) {
  return strided_slice_model("[1,16]", {0, 0}, {1, end}, R"(begin_mask="0,0" end_mask="0,0")", out);
}

TEST_F(sizes, a_strided_slice_end_inside_a_changing_axis_is_placed_and_one_past_it_is_not) {
  // 8 of 16: the first half at the declared shape, written down; at 12 the program may want 6.
  auto r = at(strided_to(8, "[1,8]"), "[1,12]");
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell) << r.summary_line();
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].code, "placed_on_size");
  // 16, the whole axis at the declared shape and past it at 12: the whole axis at both, whatever it stands
  // for (it was taken for the size 16, baked_size).
  r = at(strided_to(16, "[1,16]"), "[1,12]");
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::yes) << r.summary_line();
  // At 20 the end 16 cuts inside the axis: a size written down.
  r = at(strided_to(16, "[1,16]"), "[1,20]");
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell) << r.summary_line();
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].code, "baked_size");
}

// Interpolate-11's input 2 names axes, not sizes (Interpolate-4's input 2 is its scales): NHWC data
// [1,4,4,2] scaled by two along axes [1,2], whose 2 equals half of the declared H, is no size written down.
TEST_F(sizes, an_interpolate_s_axes_are_not_sizes) {
  ir_builder b;
  const int x = b.parameter("[1,4,4,2]", "x");
  const int up = b.layer("Interpolate", "mode=\"nearest\" shape_calculation_mode=\"scales\"", {"[1,4,4,2]", "[2]", "[2]"},
                         {"[1,8,8,2]"}, "up", 11);
  b.edge(x, up, 0);
  b.edge(b.constant(element_type::f32, "2", {0x40000000, 0x40000000}, "[2]"), up, 1);  // 2.0f, 2.0f
  b.edge(b.i64({1, 2}), up, 2);
  b.result(up, "[1,8,8,2]");
  const auto r = at(b, "[1,6,6,2]");
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::yes) << (r.findings.empty() ? r.summary_line() : r.findings[0].what);
}

}  // namespace
}  // namespace reshape1::test
