// Reshape-1 static fast path (docs/semantics.md section 4): plain 64-bit arithmetic, checked, no
// allocation. It must agree with the general path on every input (tests/reshape_agreement_test.cpp).
#include <cstddef>
#include <optional>

#include "detail/checked.hpp"
#include "detail/static_path.hpp"

namespace reshape1::detail {
namespace {

constexpr std::size_t none = static_cast<std::size_t>(-1);

/// Zero-aware checked product of the dimensions `keep` selects; nullopt on overflow.
template <class Keep>
std::optional<std::int64_t> product_if(std::span<const std::int64_t> dims, Keep keep) noexcept {
  bool zero = false;
  for (std::size_t i = 0; i < dims.size(); ++i) zero = zero || (keep(i) && dims[i] == 0);
  if (zero) return 0;
  std::int64_t r = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (!keep(i)) continue;
    auto next = checked_mul(r, dims[i]);
    if (!next) return std::nullopt;
    r = *next;
  }
  return r;
}

constexpr static_verdict failed(errc code) noexcept { return {static_status::failed, code}; }

}  // namespace

static_verdict infer_static(const shape& input, std::span<const std::int64_t> pattern, bool special_zero,
                            const reshape_options& options, shape& out) noexcept {
  const std::size_t rank = input.size();
  const std::size_t n = pattern.size();

  // Rows 3 and 4: one scan from the left.
  std::size_t marker = none;
  for (std::size_t i = 0; i < n; ++i) {
    if (pattern[i] < -1) return failed(errc::invalid_value);
    if (pattern[i] == -1) {
      if (marker != none) return failed(errc::multiple_infer);
      marker = i;
    }
  }
  auto is_copy = [&](std::size_t i) { return special_zero && pattern[i] == 0; };
  // Row 5.
  for (std::size_t i = rank; i < n; ++i)
    if (is_copy(i)) return failed(errc::copy_out_of_range);
  // Row 6, input side.
  const auto in_count = product_if(input.dims(), [](std::size_t) { return true; });
  if (!in_count) return failed(errc::overflow);

  out = shape();
  for (std::size_t i = 0; i < n; ++i) out.push_back(i == marker ? 0 : is_copy(i) ? input[i] : pattern[i]);

  if (marker != none) {
    bool tf = false;  // O2 tensorflow: literal zeros present, so zeros leave both products
    if (options.empty == empty_rule::tensorflow)
      for (std::size_t i = 0; i < n; ++i) tf = tf || (i != marker && !is_copy(i) && pattern[i] == 0);
    const auto literal = product_if(pattern, [&](std::size_t i) {
      return i != marker && !is_copy(i) && !(tf && pattern[i] == 0);
    });
    if (!literal) return failed(errc::overflow);
    const auto replaced = product_if(input.dims(), [&](std::size_t i) {
      return !(i < n && is_copy(i)) && !(tf && input[i] == 0);
    });
    if (!replaced) return {static_status::undecided, errc::overflow};  // cancellation may avoid it
    if (*literal == 0 && (*replaced != 0 || options.empty == empty_rule::strict)) return failed(errc::infer_zero);
    std::int64_t value = 1;
    if (*replaced != *literal) {
      if (*replaced % *literal != 0) return failed(errc::not_divisible);
      value = *replaced / *literal;
    }
    out = shape();
    for (std::size_t i = 0; i < n; ++i) out.push_back(i == marker ? value : is_copy(i) ? input[i] : pattern[i]);
  }

  const auto out_count = product_if(out.dims(), [](std::size_t) { return true; });
  if (!out_count) return failed(errc::overflow);
  if (*out_count != *in_count) return failed(errc::count_mismatch);
  return {};
}

}  // namespace reshape1::detail
