// Internal: the static fast path's verdict, exposed to the agreement test.
#pragma once

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

static_verdict infer_static(const shape& input, std::span<const std::int64_t> pattern, bool special_zero,
                            const reshape_options& options, shape& out) noexcept;

}  // namespace reshape1::detail
