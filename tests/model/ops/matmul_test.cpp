// MatMul-1: batch broadcasting, transposes and 1-D operands.
#include "rule_util.hpp"

namespace reshape1::test {
namespace {

TEST(matmul, shapes_from_the_specification) {
  struct row {
    const char *a, *b;
    bool ta, tb;
    const char* out;
  };
  for (const auto& r : std::vector<row>{{"[2,3]", "[3,4]", false, false, "[2,4]"},
                                        {"[3,2]", "[3,4]", true, false, "[2,4]"},
                                        {"[2,3]", "[4,3]", false, true, "[2,4]"},
                                        {"[5,1,2,3]", "[7,3,4]", false, false, "[5,7,2,4]"},
                                        {"[3]", "[3,4]", false, false, "[4]"},
                                        {"[2,3]", "[3]", false, false, "[2]"},
                                        {"[3]", "[3]", false, false, "[]"},
                                        {"[?,3]", "[3,?]", false, false, "[?,?]"}}) {
    EXPECT_EQ(shape_of(run("MatMul", 1, {{"transpose_a", r.ta ? "true" : "false"}, {"transpose_b", r.tb ? "true" : "false"}},
                           {of(r.a), of(r.b)})),
              r.out)
        << r.a << " x " << r.b;
  }
}

TEST(matmul, inner_dimensions_that_differ_are_refused) {
  expect_refused([] { (void)run("MatMul", 1, {}, {of("[2,3]"), of("[4,5]")}); },
                 "the inner dimensions of [2,3] and [4,5]: 3 and 4 cannot be equal");
  expect_refused([] { (void)run("MatMul", 1, {}, {of("[2,2,3]"), of("[3,3,4]")}); }, "do not broadcast");
  expect_refused([] { (void)run("MatMul", 1, {}, {of("[]"), of("[3]")}); }, "does not take scalars");
}

}  // namespace
}  // namespace reshape1::test
