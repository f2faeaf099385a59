// Every conformance vector (tests/data/conformance), default answer and every variant, through the
// structured API and through the text notation.
#include <gtest/gtest.h>

#include <functional>

#include "detail/inference.hpp"
#include "conformance.hpp"

namespace reshape1::test {
namespace {

struct answer {
  std::string text;  // canonical shape, or "error:<code>"
  std::vector<std::pair<std::string, std::string>> equalities;
  std::optional<partial_shape> shape;
};

answer run(const std::function<reshape_result()>& f) {
  try {
    auto r = f();
    std::vector<std::pair<std::string, std::string>> equalities;
    for (const auto& eq : r.symbol_equalities) equalities.emplace_back(eq.input.name(), eq.output.name());
    return {to_string(r.shape), equalities, r.shape};
  } catch (const error& e) {
    return {"error:" + std::string(name(e.code())), {}, std::nullopt};
  }
}

answer expected(const nlohmann::json& e) {
  if (e.contains("error")) return {"error:" + e.at("error").get<std::string>(), {}, std::nullopt};
  answer a{e.at("shape_text").get<std::string>(), {}, shape_from_json(e.at("shape"))};
  if (e.contains("symbol_equalities"))
    for (const auto& p : e.at("symbol_equalities")) a.equalities.emplace_back(p[0], p[1]);
  return a;
}

/// Runs `c` (default and variants) through `infer` and returns one line per disagreement.
std::vector<std::string> check_case(const nlohmann::json& c,
                                    const std::function<answer(const reshape_options&)>& infer) {
  std::vector<std::pair<reshape_options, nlohmann::json>> runs{{reshape_options{}, c.at("expect")}};
  if (c.contains("variants"))
    for (const auto& v : c.at("variants")) runs.emplace_back(options_from_json(v.at("options")), v.at("expect"));
  std::vector<std::string> failures;
  for (const auto& [options, expect] : runs) {
    const answer want = expected(expect);
    const answer got = infer(options);
    const bool same = got.text == want.text && got.equalities == want.equalities &&
                      (!want.shape || (got.shape && *got.shape == *want.shape));
    if (!same)
      failures.push_back(c.at("id").get<std::string>() + ": " + c.at("input_text").get<std::string>() + " . " +
                         c.at("pattern").dump() + " -> got " + got.text + ", want " + want.text);
  }
  return failures;
}

class conformance : public ::testing::TestWithParam<const char*> {
 protected:
  std::vector<nlohmann::json> cases() const { return load_jsonl(std::string(RESHAPE1_TEST_DATA) + "/conformance/" + GetParam()); }
};

TEST_P(conformance, structured_form_gives_every_expected_answer) {
  const auto all = cases();
  ASSERT_FALSE(all.empty());
  std::size_t runs = 0;
  std::vector<std::string> failures;
  for (const auto& c : all) {
    const auto input = shape_from_json(c.at("input"));
    const auto pattern = pattern_from_case(c);
    const bool special_zero = c.at("special_zero").get<bool>();
    auto f = check_case(c, [&](const reshape_options& o) {
      ++runs;
      return run([&] { return infer_shape(input, pattern, special_zero, o); });
    });
    failures.insert(failures.end(), f.begin(), f.end());
  }
  for (const auto& f : failures) ADD_FAILURE() << f;
  EXPECT_GE(runs, all.size());
}

TEST_P(conformance, partial_instantiation_gives_every_expected_answer) {
  // infer_shape hands plain problems (static input, known values, no symbols) to the static
  // instantiation; the partial one must give every answer too.
  std::size_t runs = 0;
  std::vector<std::string> failures;
  for (const auto& c : cases()) {
    const auto input = shape_from_json(c.at("input"));
    const auto pattern = pattern_from_case(c);
    const bool special_zero = c.at("special_zero").get<bool>();
    auto f = check_case(c, [&](const reshape_options& o) {
      ++runs;
      return run([&] { return detail::infer_shape_partial(input, pattern, special_zero, o); });
    });
    failures.insert(failures.end(), f.begin(), f.end());
  }
  for (const auto& f : failures) ADD_FAILURE() << f;
  EXPECT_GT(runs, 0u);
}

TEST_P(conformance, text_form_gives_every_expected_answer) {
  std::size_t runs = 0;
  std::vector<std::string> failures;
  for (const auto& c : cases()) {
    if (c.at("pattern_text").is_null()) continue;  // e.g. a 2-D pattern tensor: no text form
    const auto type = c.contains("pattern_element_type")
                          ? parse_element_type(c.at("pattern_element_type").get<std::string>())
                          : element_type::i64;
    const auto input = parse_shape(c.at("input_text").get<std::string>());
    const auto pattern = parse_pattern(c.at("pattern_text").get<std::string>(), type);
    const bool special_zero = c.at("special_zero").get<bool>();
    auto f = check_case(c, [&](const reshape_options& o) {
      ++runs;
      return run([&] { return infer_shape(input, pattern, special_zero, o); });
    });
    failures.insert(failures.end(), f.begin(), f.end());
  }
  for (const auto& f : failures) ADD_FAILURE() << f;
  EXPECT_GT(runs, 0u);
}

TEST_P(conformance, static_cases_agree_with_the_fast_path) {
  std::size_t runs = 0;
  for (const auto& c : cases()) {
    const auto input = shape_from_json(c.at("input"));
    const auto& p = c.at("pattern");
    const bool has_symbols = c.at("input_text").get<std::string>().find('@') != std::string::npos;
    if (!input.is_static() || has_symbols || !p.contains("values") || p.contains("pattern_shape") ||
        p.contains("pattern_symbols"))
      continue;  // the fast path takes static, symbol-free shapes and plain i64 values
    std::vector<std::int64_t> values;
    bool fits = true;
    for (const auto& v : p.at("values")) {
      fits = fits && !(v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t{INT64_MAX});
      if (fits) values.push_back(v.get<std::int64_t>());
    }
    if (!fits) continue;
    const bool special_zero = c.at("special_zero").get<bool>();
    auto f = check_case(c, [&](const reshape_options& o) {
      ++runs;
      return run([&] {
        return reshape_result{infer_static_shape(input.to_static(), values, special_zero, o), {}};
      });
    });
    for (const auto& x : f) ADD_FAILURE() << x;
  }
  EXPECT_GT(runs, 50u);
}

INSTANTIATE_TEST_SUITE_P(vectors, conformance, ::testing::Values("cases.jsonl", "random.jsonl"),
                         [](const auto& param_info) {
                           const std::string file = param_info.param;
                           return file.substr(0, file.find('.'));
                         });

}  // namespace
}  // namespace reshape1::test
