// What the tests of the text layer check of every reason it words (model/text/reason.hpp): a listed,
// snake_case code, a sentence and snake_case names for its values; and that each code is given by the code
// outside model/text and documented in docs/cli.md.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <regex>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/text/reason.hpp"

namespace reshape1::test {

inline bool snake_case(const std::string& s) { return std::regex_match(s, std::regex("[a-z]+(_[a-z]+)*")); }

/// Each of `reasons` (one per code) well formed, and their codes exactly `listed`.
inline void expect_well_formed(const std::vector<model::text::reason_text>& reasons,
                               std::span<const std::string_view> listed) {
  std::set<std::string> given;
  for (const auto& r : reasons) {
    EXPECT_TRUE(snake_case(r.code)) << r.code;
    EXPECT_FALSE(r.text.empty()) << r.code;
    EXPECT_TRUE(given.insert(r.code).second) << "two reasons give " << r.code;
    for (const auto& [name, value] : r.args) EXPECT_TRUE(snake_case(name)) << r.code << ": " << name;
  }
  EXPECT_EQ(given, std::set<std::string>(listed.begin(), listed.end()));
}

/// Each code of `listed` given outside model/text (its function, `function_of(code)`, called as `text::F(`)
/// and named in docs/cli.md.
inline void expect_given_and_documented(std::span<const std::string_view> listed,
                                        const std::function<std::string(std::string_view)>& function_of) {
  namespace fs = std::filesystem;
  std::string code_text;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(RESHAPE1_SOURCE_DIR) / "src")) {
    if (!e.is_regular_file() || e.path().string().find("/model/text/") != std::string::npos) continue;
    std::ifstream in(e.path());
    code_text.append(std::istreambuf_iterator<char>(in), {});
  }
  std::ifstream doc(fs::path(RESHAPE1_SOURCE_DIR) / "docs" / "cli.md");
  const std::string docs{std::istreambuf_iterator<char>(doc), {}};
  for (const auto code : listed) {
    EXPECT_NE(code_text.find("text::" + function_of(code) + "("), std::string::npos) << code << " is given nowhere";
    EXPECT_NE(docs.find("`" + std::string(code) + "`"), std::string::npos) << code << " is not in docs/cli.md";
  }
}

}  // namespace reshape1::test
