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

TEST(elementwise, values_as_the_engines_compute_them) {
  // Odd powers of -1 are -1 (a cold review: Pow(-1, 3) came out 1).
  EXPECT_EQ(model::detail::exact_values(run("Power", 1, {}, {values({-1, -1, 2, 0}), values({3, 2, 10, 0})})[0].value),
            (std::vector<std::int64_t>{-1, 1, 1024, 1}));
  // Divide rounds integers down unless m_pythondiv is false (ONNX's Div): then toward zero.
  EXPECT_EQ(model::detail::exact_values(run("Divide", 1, {}, {values({1, -7}), values({-2, 2})})[0].value),
            (std::vector<std::int64_t>{-1, -4}));
  EXPECT_EQ(model::detail::exact_values(
                run("Divide", 1, {{"m_pythondiv", "false"}}, {values({1, -7}), values({-2, 2})})[0].value),
            (std::vector<std::int64_t>{0, -3}));
  // Integers converted to a narrower type wrap, as ONNX Runtime converts them; to boolean, nonzero is 1.
  EXPECT_EQ(model::detail::exact_values(run("Convert", 1, {{"destination_type", "u8"}}, {values({-1, 300, 7})})[0].value),
            (std::vector<std::int64_t>{255, 44, 7}));
  EXPECT_EQ(model::detail::exact_values(run("Convert", 1, {{"destination_type", "boolean"}}, {values({-1, 0})})[0].value),
            (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(model::detail::exact_values(
                run("Convert", 1, {{"destination_type", "i32"}}, {values({4294967297})})[0].value),
            (std::vector<std::int64_t>{1}));
  // An f32 product is rounded to f32 before it is rounded or truncated: 10 * 0.7f is 7 in f32.
  const auto product = run("Multiply", 1, {}, {reals({10.0}), reals({static_cast<double>(0.7F)})});  // f32 both
  EXPECT_EQ(model::detail::exact_values(
                run("Convert", 1, {{"destination_type", "i64"}}, {run("Floor", 1, {}, {product[0]})[0]})[0].value),
            (std::vector<std::int64_t>{7}));
  EXPECT_EQ(model::detail::exact_values(run("Convert", 1, {{"destination_type", "i64"}}, {product[0]})[0].value),
            (std::vector<std::int64_t>{7}));
}

TEST(elementwise, real_scales_times_a_shape) {
  // Interpolate sizes computed as Convert(ShapeOf) * scales, then Convert to i64.
  const auto product = run("Multiply", 1, {}, {values({1, 32, 8, 14}), reals({1, 1, 2, 2})});
  ASSERT_TRUE(product[0].value);
  const auto converted = run("Convert", 1, {{"destination_type", "i64"}}, {product[0]});
  EXPECT_EQ(model::detail::exact_values(converted[0].value), (std::vector<std::int64_t>{1, 32, 16, 28}));
}

TEST(elementwise, rounding_ops_round_real_values_and_keep_whether_each_is_a_constant) {
  // Interpolate sizes written as Convert(Floor(c)): the values stay known, so a size baked as a float
  // constant is still seen as one.
  const auto floor = run("Floor", 1, {}, {reals({2.5, -2.5, 32.0})});
  const auto as_i64 = run("Convert", 1, {{"destination_type", "i64"}}, {floor[0]});
  EXPECT_EQ(model::detail::exact_values(as_i64[0].value), (std::vector<std::int64_t>{2, -3, 32}));
  ASSERT_TRUE(floor[0].value);
  EXPECT_TRUE(floor[0].value->real_constant(0));
  EXPECT_EQ(floor[0].value->reals, (std::vector<double>{2.0, -3.0, 32.0}));
  EXPECT_EQ(run("Ceiling", 1, {}, {reals({2.5, -2.5})})[0].value->reals, (std::vector<double>{3.0, -2.0}));
  EXPECT_EQ(run("Round", 5, {}, {reals({2.5, 3.5, -2.5, 2.4})})[0].value->reals,
            (std::vector<double>{2.0, 4.0, -2.0, 2.0}));  // half_to_even
  EXPECT_EQ(run("Round", 5, {{"mode", "half_away_from_zero"}}, {reals({2.5, -2.5})})[0].value->reals,
            (std::vector<double>{3.0, -3.0}));
  // Integers are their own rounding.
  EXPECT_EQ(model::detail::exact_values(run("Floor", 1, {}, {values({4, -1})})[0].value),
            (std::vector<std::int64_t>{4, -1}));
}

TEST(elementwise, sqrt_and_exp_carry_real_values_as_their_type_holds_them) {
  // A divisor folded behind them (sqrt(225), exp(log(15))) is a value the size analyses compare, as the
  // constant written out is; f32 rounds each result.
  const auto root = run("Sqrt", 1, {}, {reals({225.0, 2.0})});
  ASSERT_TRUE(root[0].value);
  EXPECT_EQ(root[0].value->reals, (std::vector<double>{15.0, static_cast<double>(std::sqrt(2.0F))}));
  EXPECT_TRUE(root[0].value->real_constant(0));
  EXPECT_EQ(run("Exp", 1, {}, {reals({0.0})})[0].value->reals, (std::vector<double>{1.0}));
  // No value where one result is not a number (sqrt(-1)) or not finite (exp(1000)), nor for integers.
  EXPECT_FALSE(run("Sqrt", 1, {}, {reals({4.0, -1.0})})[0].value);
  EXPECT_FALSE(run("Exp", 1, {}, {reals({1000.0})})[0].value);
  EXPECT_FALSE(run("Sqrt", 1, {}, {values({4, 9})})[0].value);
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


TEST(elementwise, every_unary_op_keeps_the_shape_and_type) {
  const std::pair<const char*, int> unary[] = {
      {"Abs", 1},   {"Acos", 1},  {"Acosh", 4},    {"Asin", 1},      {"Asinh", 4},    {"Atan", 1},
      {"Atanh", 4}, {"Ceiling", 1}, {"Cos", 1},    {"Cosh", 1},      {"Erf", 1},      {"Floor", 1},
      {"Gelu", 2},  {"Gelu", 7},  {"HSigmoid", 5}, {"HSwish", 4},    {"Log", 1},      {"Mish", 4},
      {"Negative", 1}, {"Round", 5}, {"Sign", 1},  {"Sin", 1},       {"Sinh", 1},     {"SoftPlus", 4},
      {"SoftSign", 9}, {"Sqrt", 1}, {"Tan", 1},    {"Tanh", 1}};
  for (const auto& [type, opset] : unary) {
    const auto out = run(type, opset, {}, {of("[2,?,1..4]", element_type::f16)});
    EXPECT_EQ(shape_of(out), "[2,?,1..4]") << type;
    EXPECT_EQ(out[0].type, element_type::f16) << type;
  }
  EXPECT_EQ(shape_of(run("Elu", 1, {{"alpha", "0.5"}}, {of("[3,4]")})), "[3,4]");
  EXPECT_EQ(shape_of(run("HardSigmoid", 1, {}, {of("[3,4]"), of("[]"), of("[]")})), "[3,4]");
  EXPECT_EQ(shape_of(run("Selu", 1, {}, {of("[3,4]"), of("[1]"), of("[]")})), "[3,4]");
  const auto n = run("LogicalNot", 1, {}, {values({0, 3})});
  EXPECT_EQ(n[0].type, element_type::boolean);
  EXPECT_EQ(model::detail::exact_values(n[0].value), (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(model::detail::exact_values(run("Negative", 1, {}, {values({2, -5})})[0].value),
            (std::vector<std::int64_t>{-2, 5}));
  EXPECT_EQ(model::detail::exact_values(run("Abs", 1, {}, {values({2, -5})})[0].value),
            (std::vector<std::int64_t>{2, 5}));
}

TEST(elementwise, unary_attribute_and_parameter_errors) {
  expect_refused([] { (void)run("HardSigmoid", 1, {}, {of("[3]"), of("[2]"), of("[]")}); },
                 "alpha must be a scalar; its shape is [2]");
  expect_refused([] { (void)run("Selu", 1, {}, {of("[3]"), of("[]"), of("[2,2]")}); }, "lambda must be a scalar");
  expect_refused([] { (void)run("Gelu", 7, {{"approximation_mode", "fast"}}, {of("[3]")}); },
                 "approximation_mode 'fast' is not erf or tanh");
  expect_refused([] { (void)run("Round", 5, {{"mode", "up"}}, {of("[3]")}); }, "mode 'up'");
  expect_refused([] { (void)run("Elu", 1, {{"alpha", "1,2"}}, {of("[3]")}); }, "alpha is '1,2'");
  expect_refused([] { (void)run("HardSigmoid", 1, {}, {of("[3]")}); }, "needs 3 inputs");
}

TEST(elementwise, convert_like_takes_the_second_inputs_type) {
  const auto out = run("ConvertLike", 1, {}, {of("[2,3]", element_type::f32), of("[7]", element_type::i32)});
  EXPECT_EQ(shape_of(out), "[2,3]");
  EXPECT_EQ(out[0].type, element_type::i32);
  const auto v = run("ConvertLike", 1, {}, {reals({2.5, -1.5}), of("[]", element_type::i64)});
  EXPECT_EQ(model::detail::exact_values(v[0].value), (std::vector<std::int64_t>{2, -1}));
  expect_refused([] { (void)run("ConvertLike", 1, {}, {of("[2]")}); }, "needs 2 inputs");
}

TEST(elementwise, every_binary_op_broadcasts) {
  for (const char* type : {"Maximum", "Minimum", "Power", "SquaredDifference", "FloorMod", "Less", "LessEqual",
                           "GreaterEqual", "NotEqual", "LogicalAnd", "LogicalOr", "LogicalXor"}) {
    const auto out = run(type, 1, {}, {of("[2,1,4]"), of("[3,1]")});
    EXPECT_EQ(shape_of(out), "[2,3,4]") << type;
    expect_refused([&] { (void)run(type, 1, {}, {of("[2,3]"), of("[4]")}); }, "do not broadcast");
  }
  for (const char* type : {"Less", "LessEqual", "GreaterEqual", "NotEqual", "LogicalAnd", "LogicalOr", "LogicalXor"})
    EXPECT_EQ(run(type, 1, {}, {of("[2]"), of("[2]")})[0].type, element_type::boolean) << type;
  EXPECT_EQ(run("Maximum", 1, {}, {of("[2]", element_type::i32), of("[2]")})[0].type, element_type::i32);
}

TEST(elementwise, cumsum_keeps_the_shape_along_a_scalar_axis) {
  EXPECT_EQ(shape_of(run("CumSum", 3, {}, {of("[2,?,4]"), values({-1}, "[]")})), "[2,?,4]");
  EXPECT_EQ(shape_of(run("CumSum", 3, {{"exclusive", "true"}, {"reverse", "true"}}, {of("[3]"), values({0}, "[]")})), "[3]");
  expect_refused([] { (void)run("CumSum", 3, {}, {of("[2,4]"), values({2}, "[]")}); }, "axis 2 is out of range for rank 2");
  expect_refused([] { (void)run("CumSum", 3, {}, {of("[2,4]"), values({0})}); }, "CumSum's axis is a scalar");
  expect_refused([] { (void)run("CumSum", 3, {}, {of("[2,4]")}); }, "needs 2 inputs");
}

TEST(elementwise, bitwise_ops_broadcast_integers_and_refuse_reals) {
  for (const auto& [type, opset] : {std::pair{"BitwiseAnd", 13}, {"BitwiseOr", 13}, {"BitwiseXor", 13},
                                    {"BitwiseLeftShift", 15}, {"BitwiseRightShift", 15}}) {
    const auto out = run(type, opset, {}, {of("[2,1,4]", element_type::u8), of("[3,1]", element_type::u8)});
    EXPECT_EQ(shape_of(out), "[2,3,4]") << type;
    EXPECT_EQ(out[0].type, element_type::u8) << type;
    expect_refused([&] { (void)run(type, opset, {}, {of("[2,3]", element_type::i32), of("[4]", element_type::i32)}); },
                   "do not broadcast");
    expect_refused([&] { (void)run(type, opset, {}, {of("[2]", element_type::f32), of("[2]", element_type::f32)}); },
                   "input 0 is of f32");
  }
  EXPECT_EQ(run("BitwiseAnd", 13, {}, {of("[2]", element_type::boolean), of("[2]", element_type::boolean)})[0].type,
            element_type::boolean);
  expect_refused([] { (void)run("BitwiseLeftShift", 15, {}, {of("[2]", element_type::boolean), of("[2]", element_type::boolean)}); },
                 "the shifts take integers");
  EXPECT_EQ(shape_of(run("BitwiseNot", 13, {}, {of("[2,?]", element_type::i64)})), "[2,?]");
  expect_refused([] { (void)run("BitwiseNot", 13, {}, {of("[2]", element_type::f16)}); }, "input 0 is of f16");
}

TEST(elementwise, binary_values) {
  using model::detail::exact_values;
  auto v = [](const char* type, std::vector<std::int64_t> a, std::vector<std::int64_t> b) {
    return exact_values(run(type, 1, {}, {values(std::move(a)), values(std::move(b))})[0].value);
  };
  EXPECT_EQ(v("Maximum", {1, 5}, {3}), (std::vector<std::int64_t>{3, 5}));
  EXPECT_EQ(v("Minimum", {1, 5}, {3}), (std::vector<std::int64_t>{1, 3}));
  EXPECT_EQ(v("Power", {2, 3}, {3}), (std::vector<std::int64_t>{8, 27}));
  EXPECT_EQ(v("SquaredDifference", {2, 7}, {4}), (std::vector<std::int64_t>{4, 9}));
  EXPECT_EQ(v("FloorMod", {7, -7}, {3}), (std::vector<std::int64_t>{1, 2}));  // the sign of the divisor
  EXPECT_EQ(v("FloorMod", {7, -7}, {-3}), (std::vector<std::int64_t>{-2, -1}));
  EXPECT_EQ(v("Less", {1, 3, 5}, {3}), (std::vector<std::int64_t>{1, 0, 0}));
  EXPECT_EQ(v("LessEqual", {1, 3, 5}, {3}), (std::vector<std::int64_t>{1, 1, 0}));
  EXPECT_EQ(v("GreaterEqual", {1, 3, 5}, {3}), (std::vector<std::int64_t>{0, 1, 1}));
  EXPECT_EQ(v("NotEqual", {1, 3}, {3}), (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(v("LogicalAnd", {0, 1, 1}, {1, 0, 1}), (std::vector<std::int64_t>{0, 0, 1}));
  EXPECT_EQ(v("LogicalOr", {0, 1, 0}, {1, 0, 0}), (std::vector<std::int64_t>{1, 1, 0}));
  EXPECT_EQ(v("LogicalXor", {0, 1, 1}, {1, 0, 1}), (std::vector<std::int64_t>{1, 1, 0}));
  // Bounds: max(d, 1) of a dimension 2..8 is the dimension itself, with its bounds.
  model::tensor d = values({0});
  d.value->elements[0] = {2, 8, {}, false};
  const auto m = run("Maximum", 1, {}, {d, values({1})});
  EXPECT_EQ(m[0].value->elements[0].lo, 2);
  EXPECT_EQ(m[0].value->elements[0].hi, 8);
  const auto less = run("Less", 1, {}, {d, values({10})});
  EXPECT_EQ(exact_values(less[0].value), std::vector<std::int64_t>{1});
}

TEST(elementwise, pdpd_broadcasting) {
  EXPECT_EQ(shape_of(run("Add", 1, {{"auto_broadcast", "pdpd"}, {"axis", "1"}}, {of("[2,3,4,5]"), of("[3,1]")})),
            "[2,3,4,5]");
  EXPECT_EQ(shape_of(run("Maximum", 1, {{"auto_broadcast", "pdpd"}}, {of("[2,3,4,5]"), of("[4,5]")})), "[2,3,4,5]");
  EXPECT_EQ(shape_of(run("Less", 1, {{"auto_broadcast", "pdpd"}, {"axis", "0"}}, {of("[?,3]"), of("[2]")})), "[2,3]");
  expect_refused([] { (void)run("Add", 1, {{"auto_broadcast", "pdpd"}}, {of("[2,3]"), of("[2,3,4]")}); },
                 "has a higher rank");
  expect_refused([] { (void)run("Add", 1, {{"auto_broadcast", "pdpd"}, {"axis", "1"}}, {of("[2,3]"), of("[4]")}); },
                 "3 and 4 cannot be equal");
  expect_refused([] { (void)run("Add", 1, {{"auto_broadcast", "pdpd"}, {"axis", "2"}}, {of("[2,3]"), of("[3]")}); },
                 "axis 2 does not place");
  expect_refused([] { (void)run("Add", 1, {{"auto_broadcast", "sideways"}}, {of("[2]"), of("[2]")}); },
                 "auto_broadcast 'sideways'");
  expect_refused([] { (void)run("Add", 1, {{"auto_broadcast", "none"}}, {of("[2,3]"), of("[2,4]")}); },
                 "auto_broadcast none: dimension 1");
}

// Every output position reads the input element whose coordinates are the output's, right-aligned, with
// 0 wherever the input has 1: checked against that definition, written out per element.
TEST(elementwise, broadcast_positions_follow_numpy_indexing) {
  struct row {
    reshape1::shape in, out;
  };
  for (const auto& r : std::vector<row>{{{}, {}},
                                        {{}, {3, 2}},
                                        {{4}, {2, 3, 4}},
                                        {{3, 1}, {2, 3, 5}},
                                        {{1, 1}, {4, 1}},
                                        {{2, 1, 3}, {2, 4, 3}},
                                        {{1, 5}, {3, 5}},
                                        {{0, 1}, {0, 7}},
                                        {{3}, {0, 3}}}) {
    const auto got = model::detail::broadcast_positions(r.in, r.out);
    std::size_t count = 1;
    for (std::size_t i = 0; i < r.out.size(); ++i) count *= static_cast<std::size_t>(r.out[i]);
    ASSERT_EQ(got.size(), count) << to_string(r.in) << " to " << to_string(r.out);
    const std::size_t shift = r.out.size() - r.in.size();
    for (std::size_t k = 0; k < count; ++k) {
      std::vector<std::size_t> coordinate(r.out.size());
      for (std::size_t i = r.out.size(), rest = k; i-- > 0;) {
        coordinate[i] = rest % static_cast<std::size_t>(r.out[i]);
        rest /= static_cast<std::size_t>(r.out[i]);
      }
      std::size_t want = 0;
      for (std::size_t j = 0; j < r.in.size(); ++j)
        want = want * static_cast<std::size_t>(r.in[j]) + (r.in[j] == 1 ? 0 : coordinate[j + shift]);
      EXPECT_EQ(got[k], want) << to_string(r.in) << " to " << to_string(r.out) << ", position " << k;
    }
  }
}

TEST(elementwise, subtract_1_broadcasts_and_subtracts_values) {
  EXPECT_EQ(shape_of(run("Subtract", 1, {}, {of("[?,4]"), of("[4]")})), "[?,4]");
  EXPECT_EQ(shape_of(run("Subtract", 1, {}, {of("[2,1,5]"), of("[3,1]")})), "[2,3,5]");
  const auto d = run("Subtract", 1, {}, {values({10, 3}), values({4})});
  EXPECT_EQ(shape_of(d), "[2]");
  EXPECT_EQ(d[0].type, element_type::i64);
  EXPECT_EQ(model::detail::exact_values(d[0].value), (std::vector<std::int64_t>{6, -1}));
  expect_refused([] { (void)run("Subtract", 1, {}, {of("[2,3]"), of("[2]")}); }, "do not broadcast");
}

TEST(elementwise, equal_1_is_boolean_and_compares_values) {
  const auto e = run("Equal", 1, {}, {of("[2,1]"), of("[3]")});
  EXPECT_EQ(shape_of(e), "[2,3]");
  EXPECT_EQ(e[0].type, element_type::boolean);
  const auto v = run("Equal", 1, {}, {values({2, 3, 4}), values({3})});
  EXPECT_EQ(shape_of(v), "[3]");
  EXPECT_EQ(model::detail::exact_values(v[0].value), (std::vector<std::int64_t>{0, 1, 0}));
}

TEST(elementwise, softmax_1_keeps_the_shape_with_a_non_negative_axis) {
  EXPECT_EQ(shape_of(run("SoftMax", 1, {{"axis", "1"}}, {of("[2,5,?]")})), "[2,5,?]");
  EXPECT_EQ(shape_of(run("SoftMax", 1, {{"axis", "0"}}, {of("[7]")})), "[7]");
  // SoftMax-1's axis is in [0, rank); SoftMax-8 added negative axes.
  expect_refused([] { (void)run("SoftMax", 1, {{"axis", "-1"}}, {of("[2,5]")}); }, "must not be negative in SoftMax-1");
  expect_refused([] { (void)run("SoftMax", 1, {{"axis", "2"}}, {of("[2,5]")}); }, "axis 2");
}

TEST(elementwise, result_1_has_no_output) {
  EXPECT_TRUE(run("Result", 1, {}, {of("[1,3,224,224]")}, 0).empty());
  EXPECT_TRUE(run("Result", 1, {}, {of("[...]")}, 0).empty());
  expect_refused([] { (void)run("Result", 1, {}, {}, 0); }, "needs 1 inputs and 0 outputs");
}

}  // namespace
}  // namespace reshape1::test
