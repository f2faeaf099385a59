// Element-wise ops: NumPy broadcasting (spec: broadcast_rules), values of shape arithmetic, and refusals.
#include "rule_util.hpp"

namespace reshape1::test {
namespace {

TEST(elementwise, numpy_broadcasting_of_two_inputs) {
  struct row {
    const char *a, *b, *out;
  };
  for (const auto& r : std::vector<row>{{"[2,3,4]", "[4]", "[2,3,4]"},
                                        {"[2,1,4]", "[3,1]", "[2,3,4]"},
                                        {"[]", "[5]", "[5]"},
                                        {"[?,3]", "[4,3]", "[4,3]"},
                                        {"[1..4,3]", "[1]", "[1..4,3]"},
                                        {"[...]", "[2]", "[...]"}}) {
    EXPECT_EQ(shape_of(run("Add", 1, {}, {of(r.a), of(r.b)})), r.out) << r.a << " + " << r.b;
    EXPECT_EQ(shape_of(run("Multiply", 1, {}, {of(r.a), of(r.b)})), r.out) << r.a << " * " << r.b;
  }
}

TEST(elementwise, shapes_that_do_not_broadcast_are_refused) {
  expect_refused([] { (void)run("Add", 1, {}, {of("[2,3]"), of("[4]")}); }, "do not broadcast");
  expect_refused([] { (void)run("Add", 1, {{"auto_broadcast", "none"}}, {of("[2,3]"), of("[3]")}); },
                 "auto_broadcast is none");
  expect_refused([] { (void)run("Select", 1, {}, {of("[2]"), of("[3]"), of("[3]")}); }, "do not broadcast");
}

TEST(elementwise, integer_values_follow_the_arithmetic) {
  const auto sum = run("Add", 1, {}, {values({1, 2, 3}), values({10})});
  EXPECT_EQ(model::detail::exact_values(sum[0].value), (std::vector<std::int64_t>{11, 12, 13}));
  const auto quotient = run("Divide", 1, {}, {values({7, -7}), values({2})});
  EXPECT_EQ(model::detail::exact_values(quotient[0].value), (std::vector<std::int64_t>{3, -4}));  // rounds down
  const auto mod = run("Mod", 1, {}, {values({7, -7}), values({3})});
  EXPECT_EQ(model::detail::exact_values(mod[0].value), (std::vector<std::int64_t>{1, -1}));  // sign of the dividend
  const auto gt = run("Greater", 1, {}, {values({1, 5}), values({3})});
  EXPECT_EQ(gt[0].type, element_type::boolean);
  EXPECT_EQ(model::detail::exact_values(gt[0].value), (std::vector<std::int64_t>{0, 1}));
  const auto sel = run("Select", 1, {}, {values({1, 0}), values({10, 20}), values({30, 40})});
  EXPECT_EQ(model::detail::exact_values(sel[0].value), (std::vector<std::int64_t>{10, 40}));
}

TEST(elementwise, real_scales_times_a_shape) {
  // Interpolate sizes computed as Convert(ShapeOf) * scales, then Convert to i64.
  const auto product = run("Multiply", 1, {}, {values({1, 32, 8, 14}), reals({1, 1, 2, 2})});
  ASSERT_TRUE(product[0].value);
  const auto converted = run("Convert", 1, {{"destination_type", "i64"}}, {product[0]});
  EXPECT_EQ(model::detail::exact_values(converted[0].value), (std::vector<std::int64_t>{1, 32, 16, 28}));
}

TEST(elementwise, unary_and_same_shape_ops_keep_the_shape) {
  for (const char* op : {"ReLU", "Sigmoid", "Exp"}) EXPECT_EQ(shape_of(run(op, 1, {}, {of("[2,?,4]")})), "[2,?,4]");
  EXPECT_EQ(shape_of(run("Swish", 4, {}, {of("[2,3]")})), "[2,3]");
  EXPECT_EQ(shape_of(run("Clamp", 1, {{"min", "0"}, {"max", "6"}}, {of("[1,3]")})), "[1,3]");
  EXPECT_EQ(shape_of(run("SoftMax", 8, {{"axis", "-1"}}, {of("[2,5]")})), "[2,5]");
  EXPECT_EQ(shape_of(run("PReLU", 1, {}, {of("[1,8,4,4]"), of("[8]")})), "[1,8,4,4]");
  EXPECT_EQ(shape_of(run("FakeQuantize", 1, {{"levels", "256"}},
                         {of("[1,8,4,4]"), of("[1,8,1,1]"), of("[1,8,1,1]"), of("[]"), of("[]")})),
            "[1,8,4,4]");
  EXPECT_EQ(shape_of(run("MVN", 6, {}, {of("[1,8,4,4]"), values({2, 3})})), "[1,8,4,4]");
  EXPECT_EQ(shape_of(run("NormalizeL2", 1, {}, {of("[1,8]"), values({1})})), "[1,8]");
}

TEST(elementwise, bad_attributes_are_refused) {
  expect_refused([] { (void)run("SoftMax", 1, {{"axis", "-1"}}, {of("[2,5]")}); }, "must not be negative");
  expect_refused([] { (void)run("SoftMax", 8, {{"axis", "2"}}, {of("[2,5]")}); }, "axis 2 is out of range for rank 2");
  expect_refused([] { (void)run("Clamp", 1, {{"min", "6"}, {"max", "0"}}, {of("[2]")}); }, "min 6 is above max 0");
  expect_refused([] { (void)run("MVN", 6, {}, {of("[1,8]"), values({3})}); }, "axis 3 is out of range");
  expect_refused([] { (void)run("PReLU", 1, {}, {of("[1,8,4,4]"), of("[3]")}); }, "do not broadcast");
}

}  // namespace
}  // namespace reshape1::test
