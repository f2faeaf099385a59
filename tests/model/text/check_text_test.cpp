// The reasons `check` gives for a Reshape's verdict and warnings come from one place (model/text/check.cpp):
// each has a stable code, a sentence, and the values it names under snake_case names; every code is listed,
// given by the checker, and documented.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "model/text/check.hpp"

namespace reshape1::test {
namespace {

namespace fs = std::filesystem;
using model::text::reason_text;

bool snake_case(const std::string& s) { return std::regex_match(s, std::regex("[a-z]+(_[a-z]+)*")); }

std::vector<reason_text> every_reason() {
  namespace t = model::text;
  const partial_shape declared{dimension(2), dimension(3)};
  const partial_shape inferred{dimension(2), dimension(interval(1, 4))};
  const t::dimension_fix fix{.special_zero = true, .has_minus_one = false};
  return {t::declared_cannot_be(declared, partial_shape{dimension(6)}),
          t::can_be_declared_as(partial_shape{dimension(2), dimension()}, inferred),
          t::counts_never_match(declared, dimension(6), partial_shape{dimension(7)}, dimension(7)),
          t::bounds_include_special(1, -1, 8, true),
          t::hard_codes_dynamic(0, 4, dimension(), fix),
          t::pattern_not_read(5000, 4096),
          t::hard_codes_batch(1, fix)};
}

TEST(check_text, every_reason_has_a_listed_code_a_sentence_and_named_values) {
  std::set<std::string> given;
  for (const auto& r : every_reason()) {
    EXPECT_TRUE(snake_case(r.code)) << r.code;
    EXPECT_FALSE(r.text.empty()) << r.code;
    EXPECT_FALSE(r.args.empty()) << r.code;
    EXPECT_TRUE(given.insert(r.code).second) << "two reasons give " << r.code;
    for (const auto& [name, value] : r.args) EXPECT_TRUE(snake_case(name)) << r.code << ": " << name;
  }
  const auto listed = model::text::check_reason_codes();
  EXPECT_EQ(given, std::set<std::string>(listed.begin(), listed.end()));
}

TEST(check_text, a_reason_names_the_values_its_sentence_says) {
  const auto r = model::text::bounds_include_special(2, -3, interval::unbounded, false);
  EXPECT_EQ(r.text, "pattern[2] has the bounds -3..: at run time it may be 0 (copy), which the bound does not cover "
                    "(see --sound-bounds)");
  EXPECT_EQ(r.args, (model::reason_args{{"index", std::int64_t{2}}, {"value", std::int64_t{0}}, {"bounds", "-3.."}}));
}

// Each reason is given by the checker (its function called outside model/text), and documented.
TEST(check_text, every_code_is_given_by_the_checker_and_documented) {
  std::string code_text;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(RESHAPE1_SOURCE_DIR) / "src")) {
    if (!e.is_regular_file() || e.path().string().find("/model/text/") != std::string::npos) continue;
    std::ifstream in(e.path());
    code_text.append(std::istreambuf_iterator<char>(in), {});
  }
  std::ifstream doc(fs::path(RESHAPE1_SOURCE_DIR) / "docs" / "cli.md");
  const std::string docs{std::istreambuf_iterator<char>(doc), {}};
  for (const auto code : model::text::check_reason_codes()) {
    EXPECT_NE(code_text.find("text::" + std::string(code) + "("), std::string::npos) << code << " is given nowhere";
    EXPECT_NE(docs.find("`" + std::string(code) + "`"), std::string::npos) << code << " is not in docs/cli.md";
  }
  EXPECT_NE(docs.find("`no_rule`"), std::string::npos) << "no_rule is not in docs/cli.md";
}

}  // namespace
}  // namespace reshape1::test
