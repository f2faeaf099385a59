// GatherND-5 and -8, GatherElements-6, ScatterNDUpdate (opset4, -15), ScatterElementsUpdate-3 and -12.
#include "rule_util.hpp"

namespace reshape1::test {
namespace {

TEST(indexing, gather_nd) {
  // The indices' last dimension picks that many leading data dimensions.
  EXPECT_EQ(shape_of(run("GatherND", 8, {}, {of("[2,3,4]"), of("[5,2]")})), "[5,4]");
  EXPECT_EQ(shape_of(run("GatherND", 8, {}, {of("[2,3,4]"), of("[5,3]")})), "[5]");
  EXPECT_EQ(shape_of(run("GatherND", 8, {{"batch_dims", "1"}}, {of("[2,3,4]"), of("[2,5,1]")})), "[2,5,4]");
  // GatherND-5 folds the batch dimensions into one.
  EXPECT_EQ(shape_of(run("GatherND", 5, {{"batch_dims", "2"}}, {of("[2,3,4,5]"), of("[2,3,1]")})), "[6,5]");
  EXPECT_EQ(shape_of(run("GatherND", 8, {{"batch_dims", "2"}}, {of("[2,3,4,5]"), of("[2,3,1]")})), "[2,3,5]");
  EXPECT_EQ(shape_of(run("GatherND", 8, {}, {of("[2,3,4]"), of("[5,?]")})), "[...]");
  expect_refused([] { (void)run("GatherND", 8, {}, {of("[2,3]"), of("[5,3]")}); }, "more than the data [2,3] has");
  expect_refused([] { (void)run("GatherND", 8, {{"batch_dims", "1"}}, {of("[2,3,4]"), of("[3,1]")}); },
                 "batch dimension 0: 2 and 3 cannot be equal");
  expect_refused([] { (void)run("GatherND", 8, {{"batch_dims", "2"}}, {of("[2,3,4]"), of("[2,3]")}); },
                 "batch_dims 2 must be below the indices' rank 2");
  expect_refused([] { (void)run("GatherND", 8, {}, {of("[2,3,4]"), of("[]")}); }, "the indices must not be a scalar");
}

TEST(indexing, gather_elements) {
  EXPECT_EQ(shape_of(run("GatherElements", 6, {{"axis", "1"}}, {of("[3,4,5]"), of("[3,7,5]")})), "[3,7,5]");
  EXPECT_EQ(shape_of(run("GatherElements", 6, {{"axis", "-1"}}, {of("[3,?]"), of("[?,2]")})), "[3,2]");
  expect_refused([] { (void)run("GatherElements", 6, {{"axis", "1"}}, {of("[3,4]"), of("[3,4,5]")}); }, "differ in rank");
  expect_refused([] { (void)run("GatherElements", 6, {{"axis", "1"}}, {of("[3,4]"), of("[2,4]")}); },
                 "dimension 0 of the data and the indices: 3 and 2 cannot be equal");
  expect_refused([] { (void)run("GatherElements", 6, {{"axis", "2"}}, {of("[3,4]"), of("[3,4]")}); },
                 "axis 2 is out of range for rank 2");
  // Known indices past the axis: the spec allows none, and the engines refuse them when the model runs.
  expect_refused([] { (void)run("GatherElements", 6, {{"axis", "1"}}, {of("[1,4]"), values({1, 4}, "[1,2]")}); },
                 "index 4 (element 1 of input 1) is outside axis 1, which holds 4");
  expect_refused([] { (void)run("GatherElements", 6, {{"axis", "1"}}, {of("[1,4]"), values({-5, 0}, "[1,2]")}); },
                 "index -5 (element 0 of input 1) is outside axis 1");
  EXPECT_EQ(shape_of(run("GatherElements", 6, {{"axis", "1"}}, {of("[1,4]"), values({-4, 3}, "[1,2]")})), "[1,2]");
  // An empty axis: every index is outside it, whatever the values; indices of no element take none.
  expect_refused([] { (void)run("GatherElements", 6, {{"axis", "1"}}, {of("[4,0,5]"), of("[4,4,5]")}); },
                 "the data's axis 1 is empty, and the indices [4,4,5] take elements from it");
  EXPECT_EQ(shape_of(run("GatherElements", 6, {{"axis", "1"}}, {of("[4,0,5]"), of("[4,0,5]")})), "[4,0,5]");
}

TEST(indexing, scatter_nd_update) {
  EXPECT_EQ(shape_of(run("ScatterNDUpdate", 4, {}, {of("[4,5,6]"), of("[3,2]"), of("[3,6]")})), "[4,5,6]");
  EXPECT_EQ(shape_of(run("ScatterNDUpdate", 4, {}, {of("[8]"), of("[4,1]"), of("[4]")})), "[8]");
  expect_refused([] { (void)run("ScatterNDUpdate", 4, {}, {of("[4,5,6]"), of("[3,2]"), of("[3,5]")}); },
                 "updates dimension 1: 6 and 5 cannot be equal");
  expect_refused([] { (void)run("ScatterNDUpdate", 4, {}, {of("[4,5,6]"), of("[3,2]"), of("[3]")}); },
                 "the updates [3] must have the shape [3,6]");
  expect_refused([] { (void)run("ScatterNDUpdate", 4, {}, {of("[4,5]"), of("[3,3]"), of("[3]")}); },
                 "address 3 dimensions of the rank-2 data");
  // -15's reductions change the values only.
  for (const auto* r : {"none", "sum", "sub", "prod", "min", "max"})
    EXPECT_EQ(shape_of(run("ScatterNDUpdate", 15, {{"reduction", r}}, {of("[4,5,6]"), of("[3,2]"), of("[3,6]")})), "[4,5,6]");
  expect_refused([] { (void)run("ScatterNDUpdate", 15, {{"reduction", "mean"}}, {of("[4]"), of("[3,1]"), of("[3]")}); },
                 "reduction 'mean' is not none, sum, sub, prod, min or max");
}

TEST(indexing, scatter_elements_update) {
  EXPECT_EQ(shape_of(run("ScatterElementsUpdate", 3, {}, {of("[4,5]"), of("[2,5]"), of("[2,5]"), values({0}, "[]")})),
            "[4,5]");
  EXPECT_EQ(shape_of(run("ScatterElementsUpdate", 12, {{"reduction", "sum"}, {"use_init_val", "true"}},
                         {of("[4,?]"), of("[2,5]"), of("[2,?]"), values({-1}, "[]")})),
            "[4,?]");
  expect_refused([] {
    (void)run("ScatterElementsUpdate", 12, {{"reduction", "median"}}, {of("[4]"), of("[2]"), of("[2]"), values({0}, "[]")});
  }, "reduction 'median'");
  expect_refused([] {
    (void)run("ScatterElementsUpdate", 3, {}, {of("[4,5]"), of("[2,5]"), of("[2,4]"), values({0}, "[]")});
  }, "dimension 1 of the indices and the updates: 5 and 4 cannot be equal");
  expect_refused([] {
    (void)run("ScatterElementsUpdate", 3, {}, {of("[4,5]"), of("[2]"), of("[2]"), values({0}, "[]")});
  }, "must have the data's rank 2");
  expect_refused([] {
    (void)run("ScatterElementsUpdate", 3, {}, {of("[4,5]"), of("[2,5]"), of("[2,5]"), values({2}, "[]")});
  }, "axis 2 is out of range for rank 2");
}

}  // namespace
}  // namespace reshape1::test
