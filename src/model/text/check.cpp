// The sentences of `reshape1 check`: see check.hpp.
#include "model/text/check.hpp"

#include <fmt/format.h>

#include "reshape1/interval.hpp"

namespace reshape1::model::text {
namespace {

std::string_view fix_text(dimension_fix fix) {
  if (fix.special_zero) return fix.has_minus_one ? "use 0 to copy it" : "use 0 to copy it, or -1";
  return fix.has_minus_one ? "use 0 with special_zero=true to copy it" : "use -1, or 0 with special_zero=true";
}

}  // namespace

std::string declared_cannot_be(const partial_shape& declared, const partial_shape& inferred) {
  return fmt::format("the declared output {} cannot be {}", to_string(declared), to_string(inferred));
}

std::string can_be_declared_as(const partial_shape& inferred) {
  return fmt::format("the output can be declared as {}", to_string(inferred));
}

std::string counts_never_match(const partial_shape& input, const dimension& input_count, const partial_shape& declared,
                               const dimension& declared_count) {
  return fmt::format("the input {} has {} elements but the declared output {} has {}: the counts can never match",
                     to_string(input), to_string(input_count), to_string(declared), to_string(declared_count));
}

std::string bounds_include_special(std::size_t index, std::int64_t lo, std::int64_t hi, bool infer) {
  return fmt::format("pattern[{}] has the bounds {}..{}: at run time it may be {}, which the bound does not cover "
                     "(see --sound-bounds)",
                     index, lo, hi == interval::unbounded ? std::string() : std::to_string(hi),
                     infer ? "-1 (infer)" : "0 (copy)");
}

std::string hard_codes_dynamic(std::size_t index, std::int64_t value, const dimension& input, dimension_fix fix) {
  return fmt::format("pattern[{}] hard-codes {} where the input's dimension {} is dynamic ({}); {}", index, value,
                     index, to_string(input), fix_text(fix));
}

std::string pattern_not_read(std::uint64_t length, std::uint64_t limit) {
  return fmt::format("the pattern holds {} values, more than the {} reshape1 reads as values: they were not read, "
                     "and the output is known only by its rank",
                     length, limit);
}

std::string hard_codes_batch(std::int64_t value, dimension_fix fix) {
  return fmt::format("pattern[0] hard-codes the batch ({}): the model cannot be reshaped to another batch; {}", value,
                     fix_text(fix));
}

std::string pattern_fix_hint(std::size_t index, dimension_fix fix) {
  return fmt::format("pattern[{}]: {}", index, fix_text(fix));
}

}  // namespace reshape1::model::text
