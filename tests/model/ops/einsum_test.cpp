// Einsum-7: explicit and implicit outputs, repeated letters, "..." broadcasting, and malformed equations.
#include "rule_util.hpp"

namespace reshape1::test {
namespace {

std::string einsum(const char* equation, std::vector<model::tensor> inputs) {
  return shape_of(run("Einsum", 7, {{"equation", equation}}, inputs));
}

TEST(einsum, shapes_from_the_equation) {
  EXPECT_EQ(einsum("ij,jk->ik", {of("[2,3]"), of("[3,4]")}), "[2,4]");
  EXPECT_EQ(einsum("ij,jk", {of("[2,3]"), of("[3,4]")}), "[2,4]");  // implicit: i and k, sorted
  EXPECT_EQ(einsum("ba,ac", {of("[2,3]"), of("[3,4]")}), "[2,4]");   // implicit: b, c
  EXPECT_EQ(einsum("ii->i", {of("[5,?]")}), "[5]");
  EXPECT_EQ(einsum("ij->ji", {of("[2,3]")}), "[3,2]");
  EXPECT_EQ(einsum("i,i->", {of("[3]"), of("[3]")}), "[]");
  EXPECT_EQ(einsum("...ij,...jk->...ik", {of("[7,1,2,3]"), of("[5,3,4]")}), "[7,5,2,4]");
  EXPECT_EQ(einsum("a...,a...", {of("[2,3,4]"), of("[2,1,4]")}), "[3,4]");  // implicit: "..." first
  EXPECT_EQ(einsum("ij,jk->ik", {of("[...]"), of("[3,4]")}), "[?,4]");
  EXPECT_EQ(einsum("...i->...", {of("[...]")}), "[...]");
}

TEST(einsum, errors) {
  expect_refused([] { (void)einsum("ij,jk->ik", {of("[2,3]"), of("[4,4]")}); }, "the dimensions of 'j': 3 and 4");
  expect_refused([] { (void)einsum("ij,jk->ik", {of("[2,3]")}); }, "2 input subscripts for 1 inputs");
  expect_refused([] { (void)einsum("ijk->i", {of("[2,3]")}); }, "has rank 2 but its subscript names 3 dimensions");
  expect_refused([] { (void)einsum("ij->ix", {of("[2,3]")}); }, "the output letter 'x' is in no input subscript");
  expect_refused([] { (void)einsum("ij->ii", {of("[2,3]")}); }, "the output subscript repeats 'i'");
  expect_refused([] { (void)einsum("i1->i", {of("[2,3]")}); }, "has '1', not a letter");
  expect_refused([] { (void)einsum("i..j->i", {of("[2,3]")}); }, "a stray '.'");
  expect_refused([] { (void)einsum("ij->...", {of("[2,3]")}); }, "the output has '...' but no input has");
  expect_refused([] { (void)einsum("...i,...i->...", {of("[2,3]"), of("[4,3]")}); }, "do not broadcast");
}

}  // namespace
}  // namespace reshape1::test
