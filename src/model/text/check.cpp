// The sentences of `reshape1 check`: see check.hpp.
#include "model/text/check.hpp"

#include <array>

#include <fmt/format.h>

#include "reshape1/interval.hpp"

namespace reshape1::model::text {
namespace {

std::string_view fix_text(dimension_fix fix) {
  if (fix.special_zero) return fix.has_minus_one ? "use 0 to copy it" : "use 0 to copy it, or -1";
  return fix.has_minus_one ? "use 0 with special_zero=true to copy it" : "use -1, or 0 with special_zero=true";
}

/// A number as a reason's value.
reason_value number(std::uint64_t n) { return static_cast<std::int64_t>(n); }

constexpr std::array<std::string_view, 8> codes{"declared_cannot_be", "can_be_declared_as", "declared_more_precise",
                                                 "counts_never_match",
                                                 "bounds_include_special", "hard_codes_dynamic", "pattern_not_read",
                                                 "hard_codes_batch"};

}  // namespace

reason_text declared_cannot_be(const partial_shape& declared, const partial_shape& inferred) {
  return {"declared_cannot_be",
          {{"declared", to_string(declared)}, {"inferred", to_string(inferred)}},
          fmt::format("the declared output {} cannot be {}", to_string(declared), to_string(inferred))};
}

reason_text can_be_declared_as(const partial_shape& declared, const partial_shape& inferred) {
  return {"can_be_declared_as",
          {{"declared", to_string(declared)}, {"inferred", to_string(inferred)}},
          fmt::format("the output can be declared as {}", to_string(inferred))};
}

reason_text declared_more_precise(const partial_shape& declared, const partial_shape& propagated) {
  return {"declared_more_precise",
          {{"declared", to_string(declared)}, {"propagated", to_string(propagated)}},
          fmt::format("the declared output {} is static where only {} can be derived", to_string(declared),
                      to_string(propagated))};
}

reason_text counts_never_match(const partial_shape& input, const dimension& input_count, const partial_shape& declared,
                               const dimension& declared_count) {
  return {"counts_never_match",
          {{"input", to_string(input)},
           {"input_count", to_string(input_count)},
           {"declared", to_string(declared)},
           {"declared_count", to_string(declared_count)}},
          fmt::format("the input {} has {} elements but the declared output {} has {}: the counts can never match",
                      to_string(input), to_string(input_count), to_string(declared), to_string(declared_count))};
}

reason_text bounds_include_special(std::size_t index, std::int64_t lo, std::int64_t hi, bool infer) {
  const auto upper = hi == interval::unbounded ? std::string() : std::to_string(hi);
  return {"bounds_include_special",
          {{"index", number(index)}, {"value", std::int64_t{infer ? -1 : 0}}, {"bounds", fmt::format("{}..{}", lo, upper)}},
          fmt::format("pattern[{}] has the bounds {}..{}: at run time it may be {}, which the bound does not cover "
                      "(see --sound-bounds)",
                      index, lo, upper, infer ? "-1 (infer)" : "0 (copy)")};
}

reason_text hard_codes_dynamic(std::size_t index, std::int64_t value, const dimension& input, dimension_fix fix) {
  return {"hard_codes_dynamic",
          {{"index", number(index)}, {"value", value}, {"input_dimension", to_string(input)}},
          fmt::format("pattern[{}] hard-codes {} where the input's dimension {} is dynamic ({}); {}", index, value,
                      index, to_string(input), fix_text(fix))};
}

reason_text pattern_not_read(std::uint64_t length, std::uint64_t limit) {
  return {"pattern_not_read",
          {{"length", number(length)}, {"limit", number(limit)}},
          fmt::format("the pattern holds {} values, more than the {} reshape1 reads as values: they were not read, "
                      "and the output is known only by its rank",
                      length, limit)};
}

reason_text hard_codes_batch(std::int64_t value, dimension_fix fix) {
  return {"hard_codes_batch",
          {{"index", std::int64_t{0}}, {"value", value}},
          fmt::format("pattern[0] hard-codes the batch ({}): the model cannot be reshaped to another batch; {}", value,
                      fix_text(fix))};
}

reason_text pattern_fix_hint(std::size_t index, dimension_fix fix) {
  // `write` names the rewrite fix_text words.
  const std::string_view write = fix.special_zero    ? (fix.has_minus_one ? "0" : "0_or_-1")
                                 : fix.has_minus_one ? "0_special_zero"
                                                     : "-1_or_0_special_zero";
  return {"rewrite_pattern_element",
          {{"pattern_index", number(index)}, {"write", std::string(write)}},
          fmt::format("pattern[{}]: {}", index, fix_text(fix))};
}

reason_text declaration_hint(const reason_text& verdict) { return {"change_declaration", verdict.args, verdict.text}; }

std::span<const std::string_view> check_reason_codes() noexcept { return codes; }

}  // namespace reshape1::model::text
