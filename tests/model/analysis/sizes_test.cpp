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

}  // namespace
}  // namespace reshape1::test
