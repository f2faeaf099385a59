// The op registry as a whole: every row has a spec test (a rule test that runs that (type, opset) row to an
// output through rule_util.hpp's run), and the inputs each row declares its shape rule reads values from.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "model/ops/rules.hpp"
#include "rule_util.hpp"

namespace reshape1::test {
namespace {

using model::detail::reads_all_values;
using model::detail::reads_value;
using model::detail::reads_values;

/// With RESHAPE1_ROW_COVERAGE set (the ctest model.every_row_has_a_spec_test, which runs the rule suites in
/// one process), every registry row must have been run to an output by then, and every input a row declares
/// its shape rule reads the values of must have been shown to matter (rule_util.hpp's run_layer): a
/// declaration is checked both ways. Off otherwise: one test alone runs few rows, as gtest_discover_tests
/// runs each test in a process of its own. TensorIterator and Loop, which declare every input, are only
/// checked to run.
class row_coverage : public ::testing::Environment {
 public:
  void TearDown() override {
    if (std::getenv("RESHAPE1_ROW_COVERAGE") == nullptr) return;
    const auto rows = model::detail::rule_table();
    ASSERT_FALSE(rows.empty());
    for (const auto& e : rows)
      if (rows_run().count({std::string(e.type), e.opset}) == 0)
        ADD_FAILURE() << e.type << "-" << e.opset << " has no spec test: no rule test runs it to an output";
    for (const auto& e : rows) {
      if (e.values == model::detail::reads_all_values) continue;
      for (std::size_t k = 0; k < 32; ++k)
        if (reads_value(e.values, k) && values_shown().count({std::string(e.type), e.opset, k}) == 0)
          ADD_FAILURE() << e.type << "-" << e.opset << " declares that its shape rule reads the values of input " << k
                        << ", but no rule test shows them changing an output's shape";
    }
  }
};

[[maybe_unused]] const auto* const coverage = ::testing::AddGlobalTestEnvironment(new row_coverage);

// One row per (type, opset), each with the facts of its type: no row twice, no facts without a row.
TEST(registry, the_table_is_one_row_per_op_version_with_its_types_facts) {
  EXPECT_EQ(model::detail::rule_table_problems(), "");
  const auto* reshape = model::detail::find_entry("Reshape", 1);
  ASSERT_NE(reshape, nullptr);
  EXPECT_EQ(reshape->part, model::detail::op_part::reshape);
  EXPECT_EQ(reshape->spec, 1);
  EXPECT_EQ(std::vector<std::size_t>(reshape->sizes.begin(), reshape->sizes.end()), std::vector<std::size_t>{1});
  EXPECT_FALSE(reshape->arithmetic);
  const auto* mvn = model::detail::find_entry("MVN", 2);  // MVN-1, which the IR writes opset2
  ASSERT_NE(mvn, nullptr);
  EXPECT_EQ(mvn->spec, 1);
  EXPECT_TRUE(model::detail::find_entry("Divide", 1)->arithmetic);
  EXPECT_EQ(model::detail::find_entry("IfMerge", 1)->spec, 0);  // reshape1's own
  EXPECT_EQ(model::detail::part_of("Const"), model::detail::op_part::constant);
  EXPECT_EQ(model::detail::part_of("NotAnOp"), model::detail::op_part::other);
}

// part_of (a hashed lookup) gives every row's part, and none to a type that only looks like one: another
// case, a prefix, a longer name, the same ends and length.
TEST(registry, part_of_is_each_rows_part) {
  for (const auto& e : model::detail::rule_table()) EXPECT_EQ(model::detail::part_of(e.type), e.part) << e.type;
  for (const auto* other : {"", "const", "Cons", "Const1", "ConstX", "Cxxxt", "Rxxxxxt", "Parameterx", "R", "C"})
    EXPECT_EQ(model::detail::part_of(other), model::detail::op_part::other) << other;
}

TEST(registry, value_ports_name_the_inputs_a_row_reads) {
  EXPECT_EQ(reads_values(), 0u);
  EXPECT_EQ(reads_values(1, 2), 6u);
  const auto values = [](std::string_view type, int opset) {
    const auto* e = model::detail::find_entry(type, opset);
    return e == nullptr ? ~0u - 1 : e->values;
  };
  EXPECT_EQ(values("Reshape", 1), reads_values(1));
  EXPECT_EQ(values("Add", 1), 0u);
  EXPECT_EQ(values("ShapeOf", 3), 0u);
  EXPECT_EQ(values("Range", 4), reads_values(0, 1, 2));
  EXPECT_EQ(values("Loop", 5), reads_all_values);
  EXPECT_TRUE(reads_value(reads_all_values, 40));
  EXPECT_FALSE(reads_value(reads_values(1), 40));
  // No row names a port its op does not have (the most any row reads is Slice's axes, input 4).
  for (const auto& e : model::detail::rule_table()) {
    if (e.values == reads_all_values) continue;
    EXPECT_LT(e.values, 1u << 5) << e.type << "-" << e.opset;
  }
}

// A rule that refuses gives its hint apart (refuse's third argument): nothing splits the message at a
// "; ", so a name or an attribute's text quoted in it stays whole. No refusal writes "; " in its message.
TEST(registry, refusals_give_their_hint_apart) {
  std::size_t calls = 0;
  for (const auto& file : std::filesystem::directory_iterator(std::string(RESHAPE1_SOURCE_DIR) + "/src/model/ops")) {
    if (file.path().extension() != ".cpp") continue;
    std::ifstream in(file.path());
    const std::string text{std::istreambuf_iterator<char>(in), {}};
    for (auto at = text.find("refuse("); at != std::string::npos; at = text.find("refuse(", at + 1)) {
      // The call's first argument after the op, to its end: up to the comma at depth 1 after it.
      std::size_t depth = 0, i = at + 6, commas = 0;
      bool quoted = false;
      std::string message;
      for (; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
          if (c == '\\') ++i;
          else if (c == '"') quoted = false;
          else if (commas == 1) message += c;
          continue;
        }
        if (c == '"') quoted = true;
        else if (c == '(') ++depth;
        else if (c == ')' && --depth == 0) break;
        else if (c == ',' && depth == 1 && ++commas == 2) break;
      }
      ++calls;
      EXPECT_EQ(message.find("; "), std::string::npos) << file.path().filename() << ": " << text.substr(at, i - at);
    }
  }
  EXPECT_GT(calls, 150U);
}

}  // namespace
}  // namespace reshape1::test
