// Reshape-1 static fast path (docs/semantics.md section 4): plain checked 64-bit arithmetic, no
// allocation. infer_shape tries the common lane (detail/static_path.hpp) inline, then the complete
// static path below, then the general path for messages. Each must agree with the general path on
// every input (tests/reshape_agreement_test.cpp).
#include <cstddef>

#include "detail/assert.hpp"
#include "detail/static_path.hpp"

namespace reshape1::detail {
namespace {

constexpr std::size_t none = static_cast<std::size_t>(-1);

/// A product of dimensions under the element-count rule: a zero makes it 0, whatever else
/// overflowed. `nonzero` is the checked product of the factors other than 0.
struct product {
  std::int64_t nonzero = 1;
  bool zero = false;
  bool overflowed = false;
  void times(std::int64_t v) noexcept {
    if (v == 0) {
      zero = true;
    } else {
      overflowed |= __builtin_mul_overflow(nonzero, v, &nonzero);
    }
  }
  /// this * other, for two products of disjoint factors. A wrapped `nonzero` (after an overflow)
  /// is never multiplied: it could be anything, even 0.
  void times(const product& other) noexcept {
    zero |= other.zero;
    overflowed |= other.overflowed || __builtin_mul_overflow(nonzero, other.nonzero, &nonzero);
  }
  [[nodiscard]] bool fits() const noexcept { return zero || !overflowed; }
  [[nodiscard]] std::int64_t value() const noexcept { return zero ? 0 : nonzero; }
};

constexpr static_verdict failed(errc code) noexcept { return {static_status::failed, code}; }

}  // namespace

static_verdict infer_static(const shape& input, std::span<const std::int64_t> pattern, bool special_zero,
                            const reshape_options& options, shape& out) noexcept {
  const std::size_t rank = input.size();
  const std::size_t n = pattern.size();
  const std::int64_t* in = input.data();
  const std::int64_t* p = pattern.data();
  auto is_copy = [&](std::size_t i) { return special_zero && i < n && p[i] == 0; };

  // Rows 3 and 4 in one scan from the left; row 5 and the literal product on the way.
  std::size_t marker = none;
  bool copy_out_of_range = false;
  std::uint64_t copies = 0;  // bit i: pattern[i] copies input[i] (first 64 indices)
  product literal;           // the literal output dimensions
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t v = p[i];
    if (v < 0) [[unlikely]] {
      if (v < -1) return failed(errc::invalid_value);
      if (marker != none) return failed(errc::multiple_infer);
      marker = i;
    } else if (v == 0 && special_zero) {
      copy_out_of_range |= i >= rank;
      if (i < 64) copies |= std::uint64_t{1} << i;
    } else {
      literal.times(v);
    }
  }
  if (copy_out_of_range) return failed(errc::copy_out_of_range);

  // Row 6 (input): every input dimension is either copied or stands for the -1 (or is left over).
  // All non-zero factors are >= 1, so the whole product fits iff both parts and their product fit.
  const bool tf = marker != none && literal.zero && options.empty == empty_rule::tensorflow;
  product copied;
  product replaced;
  for (std::size_t i = 0; i < rank; ++i) {
    if (i < 64 ? ((copies >> i) & 1) != 0 : is_copy(i)) {
      copied.times(in[i]);
    } else {
      replaced.times(in[i]);
    }
  }
  product in_count = copied;
  in_count.times(replaced);
  if (!in_count.fits()) return failed(errc::overflow);
  if (tf) replaced.zero = false;  // O2 tensorflow: zero dimensions leave the input product

  std::int64_t value = 0;
  product out_count = literal;
  if (marker != none) {
    // Section 7: the literal product must fit (under the tensorflow rule its zeros are left out).
    if (tf ? literal.overflowed : !literal.fits()) return failed(errc::overflow);
    const std::int64_t divisor = tf ? literal.nonzero : literal.value();
    // The general path cancels equal factors first; only it can decide when this overflows.
    if (!replaced.fits()) return {static_status::undecided, errc::overflow};
    const std::int64_t dividend = replaced.value();
    if (divisor == 0 && (dividend != 0 || options.empty == empty_rule::strict)) return failed(errc::infer_zero);
    value = 1;
    if (dividend != divisor) {
      if (dividend % divisor != 0) return failed(errc::not_divisible);
      value = dividend / divisor;
    }
    out_count.times(value);
  }
  // Row 6 (output) and row 9: the output count is literal x -1 x copied.
  out_count.times(copied);
  if (!out_count.fits()) return failed(errc::overflow);
  if (out_count.value() != in_count.value()) return failed(errc::count_mismatch);

  for (std::size_t i = 0; i < n; ++i) {
    const bool copy = i < 64 ? ((copies >> i) & 1) != 0 : is_copy(i);
    out.push_back(i == marker ? value : copy ? in[i] : p[i]);
  }
  return {};
}

namespace {

/// Everything infer_common leaves: the complete static path, and for its errors and the rare inputs
/// it leaves undecided, the general path (one algorithm, one set of messages). Kept out of line so
/// that the common case pays nothing for it.
[[gnu::noinline]] void infer_uncommon(const shape& input, std::span<const std::int64_t> pattern,
                                      bool special_zero, const reshape_options& options, shape& out) {
  const auto verdict = infer_static(input, pattern, special_zero, options, out);
  if (verdict.status == static_status::ok) return;
  const auto r = infer_for_static_path(input, pattern, special_zero, options);
  RESHAPE1_ASSERT(verdict.status == static_status::undecided);
  out = r.shape.to_static();
}

}  // namespace

}  // namespace reshape1::detail

namespace reshape1 {

shape infer_shape(const shape& input, std::span<const std::int64_t> pattern, bool special_zero,
                  const reshape_options& options) {
  shape out;
  if (!detail::infer_common(input, pattern, special_zero, out)) [[unlikely]]
    detail::infer_uncommon(input, pattern, special_zero, options, out);
  return out;
}

}  // namespace reshape1
