// Shape ops: Parameter, Const, ShapeOf, Reshape (reshape1's inference on propagated patterns), Squeeze, Unsqueeze,
// NonZero, Range.
#include <limits>
#include <filesystem>

#include "rule_util.hpp"

namespace reshape1::test {
namespace {

namespace fs = std::filesystem;

TEST(shape_ops, shape_of_gives_the_dimensions_as_values) {
  auto x = of("[2,?,1..8]");
  const auto out = run("ShapeOf", 3, {{"output_type", "i32"}}, {x});
  EXPECT_EQ(shape_of(out), "[3]");
  EXPECT_EQ(out[0].type, element_type::i32);
  ASSERT_TRUE(out[0].value);
  EXPECT_EQ(out[0].value->elements[0], (model::element_bound{2, 2, {}, false}));
  EXPECT_EQ(out[0].value->elements[2].hi, 8);
  EXPECT_EQ(out[0].value->elements[1].hi, model::element_bound::no_upper);
  EXPECT_EQ(shape_of(run("ShapeOf", 1, {}, {of("[...]")})), "[?]");
}

TEST(shape_ops, reshape_uses_the_propagated_pattern) {
  EXPECT_EQ(shape_of(run("Reshape", 1, {{"special_zero", "true"}}, {of("[2,3,4]"), values({0, -1})})), "[2,12]");
  EXPECT_EQ(shape_of(run("Reshape", 1, {{"special_zero", "false"}}, {of("[2,3,4]"), of("[3]", element_type::i64)})),
            "[?,?,?]");
  expect_refused([] { (void)run("Reshape", 1, {{"special_zero", "false"}}, {of("[2,3]"), values({4, -1})}); },
                 "", errc::not_divisible);
}

TEST(shape_ops, squeeze_and_unsqueeze) {
  EXPECT_EQ(shape_of(run("Squeeze", 1, {}, {of("[1,3,1,2]")})), "[3,2]");
  EXPECT_EQ(shape_of(run("Squeeze", 1, {}, {of("[1,3,1,2]"), values({-2})})), "[1,3,2]");
  EXPECT_EQ(shape_of(run("Squeeze", 1, {}, {of("[?,3]")})), "[...]");  // ? may be 1: the rank is unknown
  EXPECT_EQ(shape_of(run("Unsqueeze", 1, {}, {of("[3,2]"), values({0, 3})})), "[1,3,2,1]");
  EXPECT_EQ(shape_of(run("Unsqueeze", 1, {}, {of("[]"), values({0})})), "[1]");
  // Values pass through.
  const auto u = run("Unsqueeze", 1, {}, {values({5}, "[]"), values({0})});
  EXPECT_EQ(model::detail::exact_values(u[0].value), std::vector<std::int64_t>{5});
  expect_refused([] { (void)run("Squeeze", 1, {}, {of("[2,3]"), values({0})}); }, "axis 0 has the dimension 2");
  // Repeated axes count once, before and after normalisation: [2] with [0,0] is [1,2]; [2,3] with [3,-1] is [2,3,1].
  EXPECT_EQ(shape_of(run("Unsqueeze", 1, {}, {of("[2]"), values({0, 0})})), "[1,2]");
  EXPECT_EQ(shape_of(run("Unsqueeze", 1, {}, {of("[2,3]"), values({3, -1})})), "[2,3,1]");
  EXPECT_EQ(shape_of(run("Unsqueeze", 1, {}, {of("[2,3]"), of("[1]", element_type::i64)})), "[?,?,?]");
  expect_refused([] { (void)run("Unsqueeze", 1, {}, {of("[2]"), values({})}); }, "the axes input is empty");
  expect_refused([] { (void)run("Unsqueeze", 1, {}, {of("[2]"), values({5})}); }, "axis 5 is out of range for rank 2");
}

TEST(shape_ops, non_zero_is_exact_when_values_are_known) {
  EXPECT_EQ(shape_of(run("NonZero", 3, {{"output_type", "i64"}}, {values({0, 4, 0, 7})})), "[1,2]");
  EXPECT_EQ(shape_of(run("NonZero", 3, {{"output_type", "i64"}}, {of("[2,3]")})), "[2,..6]");
  EXPECT_EQ(shape_of(run("NonZero", 3, {{"output_type", "i64"}}, {of("[2,?]")})), "[2,?]");
  // A scalar in an IR: [1,1] when it is not zero, [0,0] when it is (OpenVINO's evaluation).
  EXPECT_EQ(shape_of(run("NonZero", 3, {{"output_type", "i64"}}, {values({5}, "[]")})), "[1,1]");
  EXPECT_EQ(shape_of(run("NonZero", 3, {{"output_type", "i64"}}, {values({0}, "[]")})), "[0,0]");
  EXPECT_EQ(shape_of(run("NonZero", 3, {{"output_type", "i64"}}, {of("[]")})), "[..1,..1]");
}


TEST(shape_ops, squeeze_15_may_skip_axes) {
  const std::vector<std::pair<std::string, std::string>> skip = {{"allow_axis_skip", "true"}};
  EXPECT_EQ(shape_of(run("Squeeze", 15, skip, {of("[1,3,1,2]"), values({0, 1})})), "[3,1,2]");
  EXPECT_EQ(shape_of(run("Squeeze", 15, skip, {of("[1,?,2]"), values({0, 1})})), "[...]");  // ? may be 1
  EXPECT_EQ(shape_of(run("Squeeze", 15, {}, {of("[1,?,2]"), values({0, 1})})), "[2]");
  EXPECT_EQ(shape_of(run("Squeeze", 15, {}, {of("[1,3,1]")})), "[3]");
  expect_refused([] { (void)run("Squeeze", 15, {}, {of("[1,3]"), values({1})}); }, "axis 1 has the dimension 3");
  expect_refused([] { (void)run("Squeeze", 15, {}, {of("[1,3]"), values({0}, "[1,1]")}); }, "must be a scalar or 1-D");
}

TEST(shape_ops, range_gives_the_count_and_values) {
  using model::detail::exact_values;
  const auto r = run("Range", 4, {{"output_type", "i64"}}, {values({2}, "[]"), values({11}, "[]"), values({3}, "[]")});
  EXPECT_EQ(shape_of(r), "[3]");
  EXPECT_EQ(exact_values(r[0].value), (std::vector<std::int64_t>{2, 5, 8}));
  EXPECT_EQ(shape_of(run("Range", 4, {{"output_type", "i32"}}, {values({5}, "[]"), values({0}, "[]"), values({-2}, "[]")})),
            "[3]");
  EXPECT_EQ(shape_of(run("Range", 4, {{"output_type", "i32"}}, {values({5}, "[]"), values({0}, "[]"), values({1}, "[]")})),
            "[0]");
  model::tensor real_step = reals({0.5});
  real_step.shape = partial_shape(std::vector<dimension>{});
  EXPECT_EQ(shape_of(run("Range", 4, {{"output_type", "f32"}}, {values({0}, "[]"), values({2}, "[]"), real_step})),
            "[4]");
  EXPECT_EQ(shape_of(run("Range", 1, {}, {values({0}, "[]"), values({10}, "[]"), values({4}, "[]")})), "[3]");
  // A float range of whole numbers carries its values (`arange(24.0)`, a count made of a size), as f32 holds them
  // exactly; with a step of 0.5, or past what f16 holds exactly, its length only.
  const auto scalar = [](double v) {
    auto t = reals({v});
    t.shape = partial_shape(std::vector<dimension>{});
    return t;
  };
  const auto counted = run("Range", 4, {{"output_type", "f32"}}, {scalar(1), scalar(7), scalar(2)});
  ASSERT_TRUE(counted[0].value);
  EXPECT_EQ(counted[0].value->reals, (std::vector<double>{1, 3, 5}));
  EXPECT_TRUE(counted[0].value->real_constant(2));
  EXPECT_FALSE(run("Range", 4, {{"output_type", "f32"}}, {values({0}, "[]"), values({2}, "[]"), real_step})[0].value);
  const auto wide = run("Range", 4, {{"output_type", "f16"}}, {scalar(2040), scalar(2050), scalar(1)});
  EXPECT_EQ(shape_of(wide), "[10]");
  EXPECT_FALSE(wide[0].value);
  // A stop known by its bounds (a dimension read by ShapeOf) gives an interval.
  model::tensor stop = values({0}, "[]");
  stop.value->elements[0] = {2, 9, {}, false};
  EXPECT_EQ(shape_of(run("Range", 4, {{"output_type", "i64"}}, {values({0}, "[]"), stop, values({1}, "[]")})), "[2..9]");
  EXPECT_EQ(shape_of(run("Range", 4, {{"output_type", "i64"}}, {of("[]"), of("[]"), of("[]")})), "[?]");
  expect_refused([] {
    (void)run("Range", 4, {{"output_type", "i64"}}, {values({0}, "[]"), values({3}, "[]"), values({0}, "[]")});
  }, "step is 0");
  // A length no tensor can have is refused (it was shown as 2^63 - 2).
  expect_refused([] {
    (void)run("Range", 4, {{"output_type", "i64"}},
              {values({std::numeric_limits<std::int64_t>::min()}, "[]"), values({std::numeric_limits<std::int64_t>::max()}, "[]"),
               values({1}, "[]")});
  }, "overflows");
  // A NaN bound has no length: ONNX Runtime refuses it (it was [0]).
  expect_refused(
      [&] {
        (void)run("Range", 4, {{"output_type", "f32"}}, {scalar(0), scalar(std::numeric_limits<double>::quiet_NaN()), scalar(1)});
      },
      "not a finite number");
  expect_refused([] { (void)run("Range", 4, {{"output_type", "i64"}}, {values({0, 1}), values({3}, "[]"), values({1}, "[]")}); },
                 "start must be a scalar");
}

TEST(shape_ops, parameter_1_gives_its_declared_shape_and_type) {
  // Each dynamic dimension gets a symbol of its own (named after the layer and the axis), so that a pattern
  // read from it by ShapeOf cancels against it in Reshape.
  const auto out = run("Parameter", 1, {{"shape", "1,?,?,224"}, {"element_type", "f16"}}, {});
  EXPECT_EQ(shape_of(out), "[1,?@op.1,?@op.2,224]");
  EXPECT_EQ(out[0].type, element_type::f16);
  const auto& s = out[0].shape;
  EXPECT_FALSE(s[0].has_symbol());
  ASSERT_TRUE(s[1].has_symbol());
  ASSERT_TRUE(s[2].has_symbol());
  EXPECT_FALSE(s[1] == s[2]);
  EXPECT_EQ(shape_of(run("Parameter", 1, {{"shape", "1..8,3"}, {"element_type", "i64"}}, {})), "[1..8@op.0,3]");
  EXPECT_EQ(shape_of(run("Parameter", 1, {{"shape", "..."}, {"element_type", "f32"}}, {})), "[...]");
  expect_refused([] { (void)run("Parameter", 1, {{"shape", "1"}, {"element_type", "f32"}}, {}, 0); },
                 "needs 0 inputs and 1 outputs");
}

TEST(shape_ops, const_1_gives_its_shape_type_and_small_values) {
  // Weights above max_const_values: shape and type only.
  const auto weights =
      run("Const", 1, {{"element_type", "f32"}, {"shape", "64,3,7,7"}, {"offset", "0"}, {"size", "37632"}}, {});
  EXPECT_EQ(shape_of(weights), "[64,3,7,7]");
  EXPECT_EQ(weights[0].type, element_type::f32);
  EXPECT_FALSE(weights[0].value);
  // Small constants from a model's .bin: an i64 scalar (Loop's trip count) and a boolean (its condition).
  const auto g = model::read_ir(fs::path(RESHAPE1_TEST_DATA) / "models/loop-trip-count/model.xml",
                                fs::path(RESHAPE1_TEST_DATA) / "models/loop-trip-count/model.bin");
  const auto at = [&](std::string_view name) -> const model::layer& {
    for (const auto& l : g.layers())
      if (l.name == name) return l;
    throw std::logic_error(std::string(name));
  };
  const auto trip = run_layer(g, at("trip_count"), {});
  EXPECT_EQ(shape_of(trip), "[]");
  EXPECT_EQ(trip[0].type, element_type::i64);
  EXPECT_EQ(model::detail::exact_values(trip[0].value), (std::vector<std::int64_t>{3}));
  const auto start = run_layer(g, at("start"), {});
  EXPECT_EQ(shape_of(start), "[]");
  EXPECT_EQ(start[0].type, element_type::boolean);
  EXPECT_EQ(model::detail::exact_values(start[0].value), (std::vector<std::int64_t>{1}));
  // A small Const of a graph that holds no bytes for it (made by hand, not read): its shape and type, and no
  // values, never bytes that were not written.
  const auto unread = run("Const", 1, {{"element_type", "i64"}, {"shape", "2"}, {"offset", "0"}, {"size", "16"}}, {});
  EXPECT_EQ(shape_of(unread), "[2]");
  EXPECT_EQ(unread[0].type, element_type::i64);
  EXPECT_FALSE(unread[0].value);
}

}  // namespace
}  // namespace reshape1::test
