// The sentences of check --batch come from one place (model/text/batch.cpp): every reason a batching rule
// or the analysis gives has a sentence that names exactly what the reason carries, and the rules
// themselves write no English.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

#include <fmt/args.h>
#include <fmt/format.h>

#include "model/text/batch.hpp"

namespace reshape1::test {
namespace {

using model::detail::because;
using model::detail::why;

std::string source(const std::string& path) {
  std::ifstream in(std::string(RESHAPE1_SOURCE_DIR) + "/" + path);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::vector<why> every_reason() {
  std::vector<why> all;
  for (int k = 0; k <= static_cast<int>(model::text::last_reason); ++k) all.push_back(static_cast<why>(k));
  return all;
}

// The arguments a form takes, as the reason carries them: `numbers` numbers, then the quoted text.
std::string render(std::string_view form, std::size_t numbers, bool quotes) {
  fmt::dynamic_format_arg_store<fmt::format_context> args;
  for (std::size_t k = 0; k < numbers; ++k) args.push_back(static_cast<std::int64_t>(k + 7));
  if (quotes) args.push_back(std::string("QUOTED"));
  return fmt::vformat(form, args);
}

TEST(batch_text, every_reason_has_a_sentence_that_names_what_it_carries) {
  std::set<std::string_view> forms;
  for (const auto code : every_reason()) {
    const auto f = model::text::form_of(code);
    SCOPED_TRACE(f.form);
    ASSERT_FALSE(f.form.empty()) << "reason " << static_cast<int>(code) << " has no sentence";
    EXPECT_TRUE(forms.insert(f.form).second) << "two reasons with one sentence";
    const auto arguments = f.numbers + (f.quotes ? 1U : 0U);
    // Every argument is used (each appears in the sentence), and none is missing (one fewer fails).
    const auto text = render(f.form, f.numbers, f.quotes);
    for (std::size_t k = 0; k < f.numbers; ++k) EXPECT_NE(text.find(std::to_string(k + 7)), std::string::npos);
    if (f.quotes) {
      EXPECT_NE(text.find("QUOTED"), std::string::npos);
    }
    if (arguments > 0) {
      const bool quotes_only = f.quotes && f.numbers == 0;
      EXPECT_THROW(render(f.form, quotes_only ? 0 : f.numbers - 1, quotes_only ? false : f.quotes), fmt::format_error);
    }
    // A reason is one clause: findings join clauses with "; ", and a hint follows it apart.
    if (code != why::rule_refused) {
      EXPECT_EQ(text.find("; "), std::string::npos);
      EXPECT_NE(text.back(), '.');
    }
  }
}

// A finding's code and args come from the same row as its sentence: a stable snake_case name per reason,
// and a name for each value the sentence names, in its order.
TEST(batch_text, every_reason_has_a_code_and_names_what_it_carries) {
  std::set<std::string_view> codes;
  const std::regex snake("[a-z][a-z0-9]*(_[a-z0-9]+)*");
  for (const auto code : every_reason()) {
    const auto name = model::text::code_name(code);
    SCOPED_TRACE(std::string(name));
    EXPECT_TRUE(std::regex_match(std::string(name), snake));
    EXPECT_TRUE(codes.insert(name).second) << "two reasons with one code";
    const auto f = model::text::form_of(code);
    std::vector<std::string> keys;
    for (const auto& [key, value] : model::text::args_of(because(code))) keys.push_back(key);
    EXPECT_EQ(keys.size(), f.numbers + (f.quotes ? 1U : 0U)) << "names: " << f.names;
    EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), keys.size()) << "a name given twice";
    for (const auto& key : keys) EXPECT_TRUE(std::regex_match(key, snake)) << key;
  }
  const auto args = model::text::args_of(because(why::sums_over_batch, 1, 2).quoting("b"));
  ASSERT_EQ(args.size(), 3U);
  EXPECT_EQ(args[0].first, "port");
  EXPECT_EQ(std::get<std::int64_t>(args[1].second), 2);
  EXPECT_EQ(std::get<std::string>(args[2].second), "b");
  EXPECT_EQ(model::text::code_name(why::sums_over_batch), "sums_over_batch");
}

TEST(batch_text, an_output_elsewhere_names_its_batch_dimension) {
  EXPECT_EQ(model::text::sentence(because(why::output_batch_elsewhere, 7, 1, 1, 0).quoting("y")),
            "the model output 'y' (id 7) gets the batch in dimension 1 as N, not in dimension 0, its batch axis");
  EXPECT_EQ(model::text::sentence(because(why::output_batch_elsewhere, 7, 1, 3, -1).quoting("y")),
            "the model output 'y' (id 7) gets the batch in dimension 1 as N·3, not as a dimension of its own");
}

TEST(batch_text, a_reason_reads_as_its_sentence_with_its_numbers) {
  EXPECT_EQ(model::text::sentence({why::reduces_batch, std::size_t{0}, std::size_t{2}}),
            "input 0 holds the batch in dimension 2, which this layer reduces");
  EXPECT_EQ(model::text::sentence(because(why::label_repeats, std::size_t{1}).quoting("b")),
            "the batch's label b repeats within input 1 (a diagonal)");
  EXPECT_EQ(model::text::sentence(because(why::no_batching_rule, 3).quoting("PriorBox")),
            "PriorBox-3 has no batching rule that follows per-sample data");
  EXPECT_EQ(model::text::sentence(why::data_rank_unknown), "the data's rank is unknown");
}

// Each reason is one a rule or the analysis gives (no sentence is dead), and the rules name their
// reasons by code: no sentence is written in them.
TEST(batch_text, the_rules_give_reasons_and_write_no_sentence) {
  const auto rules = source("src/model/ops/batching.cpp") + source("src/model/ops/batching_data.cpp");
  // Every stage of the analysis (src/model/analysis/batch*.cpp), whatever files it is split into.
  std::string analysis;
  for (const auto& file : std::filesystem::directory_iterator(std::string(RESHAPE1_SOURCE_DIR) + "/src/model/analysis")) {
    const auto name = file.path().filename().string();
    if (name.starts_with("batch") && name.ends_with(".cpp")) analysis += source("src/model/analysis/" + name);
  }
  ASSERT_FALSE(rules.empty());
  ASSERT_FALSE(analysis.empty());
  const auto header = source("src/model/ops/batching.hpp");
  const std::regex name(R"(\b([a-z][a-z0-9_]*)\b)");
  const auto begin = header.find("enum class why");
  const auto end = header.find("};", begin);
  std::string list = header.substr(begin, end - begin);
  list = std::regex_replace(list, std::regex("//[^\n]*"), "");
  std::size_t named = 0;
  for (auto it = std::sregex_iterator(list.begin(), list.end(), name); it != std::sregex_iterator(); ++it) {
    const auto code = (*it)[1].str();
    if (code == "enum" || code == "class" || code == "why" || code == "std" || code == "uint8_t") continue;
    ++named;
    EXPECT_TRUE(rules.find("why::" + code) != std::string::npos || analysis.find("why::" + code) != std::string::npos)
        << "no rule gives why::" << code;
  }
  EXPECT_EQ(named, static_cast<std::size_t>(model::text::last_reason) + 1);
  // Outside comments, the rules' string literals are names (attributes, modes, rule names), never prose.
  const auto code = std::regex_replace(rules, std::regex("//[^\n]*"), "");
  const std::regex literal(R"re("(?:[^"\\\n]|\\.)*")re");
  std::size_t literals = 0;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), literal); it != std::sregex_iterator(); ++it, ++literals)
    if (it->str().find(' ') != std::string::npos) ADD_FAILURE() << "a sentence in the rules: " << it->str();
  EXPECT_GT(literals, 40U);  // the rule names and the attributes the rules read
  EXPECT_EQ(code.find("fmt::"), std::string::npos);
}

}  // namespace
}  // namespace reshape1::test
