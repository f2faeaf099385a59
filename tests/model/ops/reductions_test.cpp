// ReduceMax/Min/Mean/Prod-1 (keep_dims, values) and TopK-3.
#include "rule_util.hpp"

namespace reshape1::test {
namespace {

TEST(reductions, axes_removed_or_kept) {
  EXPECT_EQ(shape_of(run("ReduceMean", 1, {{"keep_dims", "true"}}, {of("[2,3,4]"), values({1, -1})})), "[2,1,1]");
  EXPECT_EQ(shape_of(run("ReduceMax", 1, {{"keep_dims", "false"}}, {of("[2,3,4]"), values({1})})), "[2,4]");
  EXPECT_EQ(shape_of(run("ReduceMin", 1, {}, {of("[5]"), values({0})})), "[]");
  const auto p = run("ReduceProd", 1, {{"keep_dims", "true"}}, {values({2, 3, 4}), values({0})});
  EXPECT_EQ(model::detail::exact_values(p[0].value), std::vector<std::int64_t>{24});
  const auto m = run("ReduceMin", 1, {}, {values({1000, 5376}), values({0})});
  EXPECT_EQ(model::detail::exact_values(m[0].value), std::vector<std::int64_t>{1000});
  expect_refused([] { (void)run("ReduceMax", 1, {}, {of("[2,3]"), values({2})}); }, "axis 2 is out of range for rank 2");
}

TEST(reductions, top_k) {
  const std::vector<std::pair<std::string, std::string>> a = {
      {"axis", "0"}, {"mode", "max"}, {"sort", "value"}, {"index_element_type", "i64"}};
  const auto out = run("TopK", 3, a, {of("[5376]"), values({1000}, "[]")}, 2);
  EXPECT_EQ(shape_of(out, 0), "[1000]");
  EXPECT_EQ(shape_of(out, 1), "[1000]");
  EXPECT_EQ(out[1].type, element_type::i64);
  const auto bounds = [](std::int64_t lo, std::int64_t hi) {  // a scalar k known between bounds
    auto t = values({lo}, "[]");
    t.value->elements[0] = {lo, hi, {}, false};
    return t;
  };
  // As OpenVINO infers it: an unknown k gives [0, the dimension's upper bound]; a known k is the
  // dimension; a k between bounds is capped by the data's upper bound. A k that cannot fit is refused, as
  // the engines refuse it when the model runs.
  EXPECT_EQ(shape_of(run("TopK", 3, a, {of("[10,3]"), of("[]", element_type::i64)}, 2), 0), "[..10,3]");
  EXPECT_EQ(shape_of(run("TopK", 3, a, {of("[?,3]"), of("[]", element_type::i64)}, 2), 0), "[?,3]");
  expect_refused([&] { (void)run("TopK", 3, a, {of("[10,3]"), values({20}, "[]")}, 2); },
                 "k is 20, more than axis 0 holds (10)");
  expect_refused([&] { (void)run("TopK", 3, a, {of("[2..5,3]"), bounds(6, 9)}, 2); },
                 "k is at least 6, more than axis 0 holds (2..5)");
  EXPECT_EQ(shape_of(run("TopK", 3, a, {of("[10,3]"), values({10}, "[]")}, 2), 0), "[10,3]");
  EXPECT_EQ(shape_of(run("TopK", 3, a, {of("[2..,3]"), values({20}, "[]")}, 2), 0), "[20,3]");
  EXPECT_EQ(shape_of(run("TopK", 3, a, {of("[2..5,3]"), values({4}, "[]")}, 2), 0), "[4,3]");
  EXPECT_EQ(shape_of(run("TopK", 3, a, {of("[10,3]"), bounds(3, 40)}, 2), 0), "[3..10,3]");
  EXPECT_EQ(shape_of(run("TopK", 3, a, {of("[6..10,3]"), bounds(3, 8)}, 2), 0), "[3..8,3]");
  EXPECT_EQ(shape_of(run("TopK", 3, a, {of("[?,3]"), bounds(3, 8)}, 2), 0), "[?,3]");
  expect_refused([] { (void)run("TopK", 3, {{"axis", "0"}, {"mode", "max"}, {"index_element_type", "i64"}},
                                {of("[8]"), values({1, 2})}, 2); },
                 "k must be a scalar");
  expect_refused([] { (void)run("TopK", 3, {{"axis", "1"}, {"mode", "max"}, {"index_element_type", "i64"}},
                                {of("[8]"), values({1}, "[]")}, 2); },
                 "axis 1 is out of range");
}


TEST(reductions, sum_l1_l2_and_logical) {
  for (const auto& [type, opset] : std::vector<std::pair<const char*, int>>{
           {"ReduceSum", 1}, {"ReduceL1", 4}, {"ReduceL2", 4}, {"ReduceLogicalAnd", 1}, {"ReduceLogicalOr", 1}}) {
    EXPECT_EQ(shape_of(run(type, opset, {{"keep_dims", "true"}}, {of("[2,3,4]"), values({0, -1})})), "[1,3,1]") << type;
    EXPECT_EQ(shape_of(run(type, opset, {{"keep_dims", "false"}}, {of("[2,3,4]"), values({1})})), "[2,4]") << type;
    expect_refused([&] { (void)run(type, opset, {}, {of("[2,3]"), values({2})}); }, "axis 2 is out of range for rank 2");
    expect_refused([&] { (void)run(type, opset, {}, {of("[2,3]"), values({0}, "[1,1]")}); }, "must be a scalar or 1-D");
  }
  EXPECT_EQ(run("ReduceLogicalOr", 1, {}, {of("[2,3]", element_type::boolean), values({0})})[0].type,
            element_type::boolean);
  const auto sum = run("ReduceSum", 1, {}, {values({1, 2, 3, 4}, "[2,2]"), values({1})});
  EXPECT_EQ(model::detail::exact_values(sum[0].value), (std::vector<std::int64_t>{3, 7}));
}

TEST(reductions, top_k_1_and_11) {
  const std::vector<std::pair<std::string, std::string>> attributes = {{"axis", "1"}, {"mode", "max"}, {"sort", "value"}};
  const auto one = run("TopK", 1, attributes, {of("[2,10]"), values({3}, "[]")}, 2);
  EXPECT_EQ(shape_of(one, 0), "[2,3]");
  EXPECT_EQ(one[1].type, element_type::i32);  // TopK-1's default index type
  auto stable = attributes;
  stable.emplace_back("stable", "true");
  stable.emplace_back("index_element_type", "i64");
  const auto eleven = run("TopK", 11, stable, {of("[2,?]"), values({3}, "[]")}, 2);
  EXPECT_EQ(shape_of(eleven, 1), "[2,3]");
  EXPECT_EQ(eleven[1].type, element_type::i64);
  expect_refused([&] { (void)run("TopK", 1, attributes, {of("[2,10]"), values({3})}, 2); },
                 "k must be a scalar in TopK-1");
  expect_refused([] { (void)run("TopK", 11, {{"axis", "1"}, {"mode", "max"}, {"sort", "random"}}, {of("[2,10]"), values({3}, "[]")}, 2); },
                 "sort 'random'");
  expect_refused([&] { (void)run("TopK", 11, attributes, {of("[]"), values({3}, "[]")}, 2); }, "must not be a scalar");
}

}  // namespace
}  // namespace reshape1::test
