// Internal: the static fast paths (the common lane and the complete static path), exposed to the
// agreement test.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "reshape1/error.hpp"
#include "reshape1/reshape.hpp"
#include "reshape1/shape.hpp"

namespace reshape1::detail {

enum class static_status {
  ok,         ///< `out` holds the answer
  failed,     ///< the inputs are invalid; `code` says why (the general path builds the message)
  undecided,  ///< a product overflowed before cancellation: only the general path can decide
};

struct static_verdict {
  static_status status = static_status::ok;
  errc code = errc::invalid_argument;
};

/// Reshape-1 on a static input and known i64 pattern values, without heap allocation for output
/// ranks up to shape::inline_rank. `out` must be empty; on ok it holds the output. Never throws.
/// The general path on the same arguments: builds every error of the fast path, and decides the
/// inputs the fast path leaves undecided.
reshape_result infer_for_static_path(const shape& input, std::span<const std::int64_t> pattern, bool special_zero,
                                     const reshape_options& options);

/// Every static input: the checks of the validation order, with the element-count rule for zeros.
static_verdict infer_static(const shape& input, std::span<const std::int64_t> pattern, bool special_zero,
                            const reshape_options& options, shape& out) noexcept;

/// The common case in one pass over each argument: input rank and pattern length at most
/// shape::inline_rank, no zero among the input dimensions or the literal values, no product past
/// int64. There every check of the validation order reduces to the ones below, and the -1 is
/// count / (literal x copied): copied divides the count, so the division is exact iff the product
/// of the replaced dimensions is a multiple of the literal one. `out` must be empty. Returns false,
/// with `out` untouched, for anything else, valid or not; the complete path then decides.
[[gnu::always_inline]] inline bool infer_common(const shape& input, std::span<const std::int64_t> pattern,
                                                bool special_zero, shape& out) noexcept {
  const std::size_t rank = input.size();
  const std::size_t n = pattern.size();
  if (rank > shape::inline_rank || n > shape::inline_rank) return false;
  const std::int64_t* in = input.begin();
  const std::int64_t* p = pattern.data();

  std::int64_t count = 1;
  bool unusual = false;  // a zero or an overflow: leave it to the complete path
  for (std::size_t i = 0; i < rank; ++i) {
    unusual |= in[i] == 0;
    unusual |= __builtin_mul_overflow(count, in[i], &count);
  }
  std::array<std::int64_t, shape::inline_rank> dims;  // NOLINT: the first n entries are written below
  std::int64_t known = 1;                              // literal x copied
  std::size_t marker = n;
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t v = p[i];
    if (v == -1) {
      unusual |= marker != n;
      marker = i;
      v = 1;
    } else if (v == 0) {
      if (!special_zero || i >= rank) return false;
      v = in[i];
    } else if (v < 0) {
      return false;
    }
    unusual |= __builtin_mul_overflow(known, v, &known);
    dims[i] = v;
  }
  if (unusual) return false;
  if (marker != n) {
    if (count % known != 0) return false;
    dims[marker] = count / known;
  } else if (count != known) {
    return false;
  }
  for (std::size_t i = 0; i < n; ++i) out.push_back(dims[i]);
  return true;
}

}  // namespace reshape1::detail
