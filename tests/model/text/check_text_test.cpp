// The reasons `check` gives for a Reshape's verdict and warnings come from one place (model/text/check.cpp):
// each has a stable code, a sentence, and the values it names under snake_case names; every code is listed,
// given by the checker, and documented.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "model/text/check.hpp"
#include "reason_checks.hpp"

namespace reshape1::test {
namespace {

using model::text::reason_text;

std::vector<reason_text> every_check_reason() {
  namespace t = model::text;
  const partial_shape declared{dimension(2), dimension(3)};
  const partial_shape inferred{dimension(2), dimension(interval(1, 4))};
  const t::dimension_fix fix{.special_zero = true, .has_minus_one = false};
  return {t::declared_cannot_be(declared, partial_shape{dimension(6)}),
          t::can_be_declared_as(partial_shape{dimension(2), dimension()}, inferred),
          t::declared_more_precise(declared, inferred),
          t::counts_never_match(declared, dimension(6), partial_shape{dimension(7)}, dimension(7)),
          t::bounds_include_special(1, -1, 8, true),
          t::hard_codes_dynamic(0, 4, dimension(), fix),
          t::pattern_not_read(5000, 4096),
          t::hard_codes_batch(1, fix)};
}

TEST(check_text, every_reason_has_a_listed_code_a_sentence_and_named_values) {
  for (const auto& r : every_check_reason()) EXPECT_FALSE(r.args.empty()) << r.code;
  expect_well_formed(every_check_reason(), model::text::check_reason_codes());
}

TEST(check_text, a_reason_names_the_values_its_sentence_says) {
  const auto r = model::text::bounds_include_special(2, -3, interval::unbounded, false);
  EXPECT_EQ(r.text, "pattern[2] has the bounds -3..: at run time it may be 0 (copy), which the bound does not cover "
                    "(see --sound-bounds)");
  EXPECT_EQ(r.args, (model::reason_args{{"index", std::int64_t{2}}, {"value", std::int64_t{0}}, {"bounds", "-3.."}}));
}

// Each reason is given by the checker (its function called outside model/text), and documented.
TEST(check_text, every_code_is_given_by_the_checker_and_documented) {
  expect_given_and_documented(model::text::check_reason_codes(), [](std::string_view code) { return std::string(code); });
  std::ifstream doc(std::filesystem::path(RESHAPE1_SOURCE_DIR) / "docs" / "cli.md");
  const std::string docs{std::istreambuf_iterator<char>(doc), {}};
  EXPECT_NE(docs.find("`no_rule`"), std::string::npos) << "no_rule is not in docs/cli.md";
}

}  // namespace
}  // namespace reshape1::test
