// Internal: the sentences of `reshape1 check` (a Reshape's hint and warnings), written from the shapes and
// pattern bounds the checker found, each with its stable code and the values it names. The only English in
// a check report besides the rules' own messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "model/text/reason.hpp"
#include "reshape1/partial_shape.hpp"

namespace reshape1::model::text {

/// The declared output of a Reshape (or of any layer's port) cannot be what it computes.
[[nodiscard]] reason_text declared_cannot_be(const partial_shape& declared, const partial_shape& inferred);
/// The declared output is less precise than what it computes.
[[nodiscard]] reason_text can_be_declared_as(const partial_shape& declared, const partial_shape& inferred);
/// A layer's declared output is static where propagation derives only `propagated` (a data-dependent size
/// the IR writes down): the opposite of a Reshape's can_be_declared_as.
[[nodiscard]] reason_text declared_more_precise(const partial_shape& declared, const partial_shape& propagated);
/// The input's and the declared output's element counts cannot be equal.
[[nodiscard]] reason_text counts_never_match(const partial_shape& input, const dimension& input_count,
                                             const partial_shape& declared, const dimension& declared_count);
/// Pattern element `index` has the bounds lo..hi (`hi` unbounded: lo..), which include -1 (`infer`) or 0.
[[nodiscard]] reason_text bounds_include_special(std::size_t index, std::int64_t lo, std::int64_t hi, bool infer);

/// How a pattern element that hard-codes a dimension can follow it instead: 0 copies it (with special_zero),
/// -1 infers it where the pattern has no -1 yet.
struct dimension_fix {
  bool special_zero = false;
  bool has_minus_one = false;
};
/// Pattern element `index` hard-codes `value` where the input's dimension is dynamic (`input`).
[[nodiscard]] reason_text hard_codes_dynamic(std::size_t index, std::int64_t value, const dimension& input,
                                             dimension_fix fix);
/// A pattern whose values were not read because it holds more than `limit`.
[[nodiscard]] reason_text pattern_not_read(std::uint64_t length, std::uint64_t limit);
/// Pattern element 0 hard-codes the batch `value`.
[[nodiscard]] reason_text hard_codes_batch(std::int64_t value, dimension_fix fix);
/// The hint for the first element that keeps the model from reshaping.
[[nodiscard]] reason_text pattern_fix_hint(std::size_t index, dimension_fix fix);
/// A Reshape's shape_mismatch or refinable verdict as its hint: the declaration to change (its sentence and
/// values, code `change_declaration`).
[[nodiscard]] reason_text declaration_hint(const reason_text& verdict);

/// Every code the reasons above give, in their order (the tests render each).
[[nodiscard]] std::span<const std::string_view> check_reason_codes() noexcept;

}  // namespace reshape1::model::text
