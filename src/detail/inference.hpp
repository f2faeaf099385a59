// Internal: the Reshape-1 algorithm, written once over the dimension type (docs/semantics.md,
// "Inference"). `Dim` is std::int64_t for static shapes, where every step is plain checked
// arithmetic, or `dimension` for partial shapes (intervals and symbols). Each step below is one step
// of semantics.md, in its order; the error messages are built in src/reshape.cpp (cold code).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>

#include "checked.hpp"
#include "reshape1/detail/inline_vector.hpp"
#include "reshape1/reshape.hpp"

namespace reshape1::detail {

template <class Dim>
inline constexpr bool is_static_domain = std::is_same_v<Dim, std::int64_t>;

inline constexpr std::size_t none = static_cast<std::size_t>(-1);
inline constexpr std::size_t small = shape::inline_rank;

enum class role : std::uint8_t { literal, copy, marker };

/// The storage of a result whose dimensions the algorithm has validated (rank within max_rank; for a
/// static shape each >= 0): written in place, without push_back's per-element checks.
struct shape_access {
  static std::int64_t* resize_for_overwrite(shape& s, std::size_t n) { return s.dims_.resize_for_overwrite(n); }
  static dimension* resize_for_overwrite(partial_shape& s, std::size_t n) { return s.dims_.resize_for_overwrite(n); }
  /// The element count the shape keeps (shape::overflowed past int64), and the one to keep for
  /// dimensions written through resize_for_overwrite.
  static std::int64_t count(const shape& s) noexcept { return s.count_; }
  static void set_count(shape& s, std::int64_t n) noexcept { s.count_ = n; }
  static constexpr std::int64_t overflowed = shape::overflowed;
};

/// A product under the element-count rule (a 0 makes it 0, whatever else overflowed), over plain
/// values: the static domain's products.
struct count {
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
  /// this * other, for two products of disjoint factors. A wrapped `nonzero` (after an overflow) is
  /// never trusted: it could be anything, even 0.
  void times(const count& other) noexcept {
    zero |= other.zero;
    overflowed |= other.overflowed || __builtin_mul_overflow(nonzero, other.nonzero, &nonzero);
  }
  [[nodiscard]] bool fits() const noexcept { return zero || !overflowed; }
  [[nodiscard]] std::int64_t value() const noexcept { return zero ? 0 : nonzero; }
};

/// One reading of the pattern (semantics.md, "Reading the pattern"): each element's role, and for a
/// literal its output dimension (for the marker of a partial pattern: `?` with the element's symbol).
/// Known values carry their roles in themselves (-1 is the marker, 0 a copy under special_zero), so
/// the static domain's reading stores nothing; bounds store each element's role.
template <class Dim>
struct reading {
  std::span<const Dim> dims;
  inline_vector<role, small> roles;
  std::size_t marker = none;
  [[nodiscard]] std::size_t size() const noexcept { return roles.size(); }
  [[nodiscard]] role at(std::size_t i) const noexcept { return roles.data()[i]; }
  [[nodiscard]] bool copies(std::size_t i) const noexcept { return i < roles.size() && roles.data()[i] == role::copy; }
};

/// The static domain's reading writes each element's output dimension straight into the result: the
/// value itself, or for a copy the input dimension (the marker's is filled in when the output is
/// complete). It keeps the products of the literal values and of the copied dimensions.
template <>
struct reading<std::int64_t> {
  std::span<std::int64_t> dims;
  std::span<const std::int64_t> values;  // the pattern
  bool special_zero = false;
  std::size_t marker = none;
  count literal;                // the product of the literal values
  count copied;                 // the product of the input dimensions copied (those below the rank)
  [[nodiscard]] std::size_t size() const noexcept { return dims.size(); }
  [[nodiscard]] bool copies(std::size_t i) const noexcept {
    return i < values.size() && special_zero && values[i] == 0;
  }
  [[nodiscard]] role at(std::size_t i) const noexcept {
    return i == marker ? role::marker : copies(i) ? role::copy : role::literal;
  }
};

// ---- reading one pattern element (row 3) ---------------------------------------------------------

/// How one element with bounds lo..hi reads. A known value is lo == hi, so the static domain
/// reads by the same rule.
enum class reads : std::uint8_t { marker, literal, copy, unknown, invalid };

[[nodiscard]] inline reads classify(std::int64_t lo, std::int64_t hi, bool special_zero) noexcept {
  if (hi < lo) return reads::invalid;
  if (lo > 0) [[likely]] return reads::literal;  // the common case first: a dimension
  if (lo == -1 && hi == -1) return reads::marker;
  if (lo >= -1) return special_zero && hi == 0 ? reads::copy : reads::literal;  // (-1,0) reads as 0
  if (hi >= 0) return reads::unknown;  // one bound overflowed upstream: `?`
  return reads::invalid;
}

// ---- arithmetic on one dimension type ------------------------------------------------------------

[[nodiscard]] inline std::int64_t lower(std::int64_t d) noexcept { return d; }
[[nodiscard]] inline std::int64_t lower(const dimension& d) noexcept { return d.lo(); }
[[nodiscard]] inline bool fixed(std::int64_t) noexcept { return true; }
[[nodiscard]] inline bool fixed(const dimension& d) noexcept { return d.is_static(); }
[[nodiscard]] inline bool is_zero(std::int64_t d) noexcept { return d == 0; }
[[nodiscard]] inline bool is_zero(const dimension& d) noexcept { return d.is_static() && d.lo() == 0; }
[[nodiscard]] inline bool is_one(std::int64_t d) noexcept { return d == 1; }
[[nodiscard]] inline bool is_one(const dimension& d) noexcept { return d.is_static() && d.lo() == 1; }

/// running * factor with the symbol rule: a static 1 on either side leaves the other operand as it
/// is (symbol included; when the running product is 1 the factor wins); any other product has no
/// symbol. nullopt when the lower bound overflows.
[[nodiscard]] inline std::optional<dimension> times(const dimension& running, const dimension& factor) {
  if (is_one(running)) return factor;
  if (is_one(factor)) return running;
  auto p = multiply(running.range(), factor.range());
  if (!p) return std::nullopt;
  return dimension(*p);
}

[[nodiscard]] inline std::optional<std::int64_t> times(std::int64_t a, std::int64_t b) noexcept { return checked_mul(a, b); }

/// Cancellation key (step 1): the same interval and symbol; only static or symbolled factors other
/// than 0 have one (two plain `?` never cancel; zeros never do).
struct cancel_key {
  std::int64_t lo = 0, hi = 0;
  std::uintptr_t sym = 0;
  friend auto operator<=>(const cancel_key&, const cancel_key&) = default;
};
[[nodiscard]] inline bool has_key(std::int64_t d) noexcept { return d != 0; }
[[nodiscard]] inline bool has_key(const dimension& d) noexcept { return (d.is_static() || d.has_symbol()) && !is_zero(d); }
[[nodiscard]] inline std::optional<cancel_key> key_of(std::int64_t d) noexcept {
  if (!has_key(d)) return std::nullopt;
  return cancel_key{d, d, 0};
}
[[nodiscard]] inline std::optional<cancel_key> key_of(const dimension& d) noexcept {
  if (!has_key(d)) return std::nullopt;
  return cancel_key{d.lo(), d.hi(), d.symbol().id()};
}

/// Factors of one side, as values, with the ones that cancelled marked (one array: adding a factor
/// is one store).
template <class Dim>
struct factors {
  struct entry {
    Dim dim;
    bool cancelled;  // in step 1
  };
  inline_vector<entry, small> entries;
  /// Writes one entry field by field: a whole `entry{d, false}` built first is copied with loads that
  /// straddle the stores that built it, which stalls store forwarding (bench/README.md, "Design choices").
  static void put(entry& e, const Dim& d) noexcept {
    e.dim = d;
    e.cancelled = false;
  }
  void add(const Dim& d) { put(entries.append_for_overwrite(), d); }
  /// Filling in one pass: room for up to n factors, then keep(k) with the number k written.
  [[nodiscard]] entry* fill(std::size_t n) { return entries.resize_for_overwrite(n); }
  void keep(std::size_t k) noexcept { entries.truncate(k); }
  [[nodiscard]] std::size_t size() const noexcept { return entries.size(); }
  [[nodiscard]] const Dim& operator[](std::size_t i) const noexcept { return entries.data()[i].dim; }
  [[nodiscard]] bool cancelled(std::size_t i) const noexcept { return entries.data()[i].cancelled; }
  void cancel(std::size_t i) noexcept { entries.data()[i].cancelled = true; }
  template <class F>
  void for_each_remaining(F f) const {
    for (const entry& e : entries)
      if (!e.cancelled) f(e.dim);
  }
  /// Drops the factors that are exactly 0 (the tensorflow empty rule).
  void drop_zeros() {
    factors kept;
    for (const entry& e : entries)
      if (!is_zero(e.dim)) kept.add(e.dim);
    *this = std::move(kept);
  }
};

/// Step 1 for many output factors: the ones that can match are sorted by (key, position): each key's
/// run lists its factors in order, and the run's first entry counts how many are taken (O(n log n) for
/// any number of equal factors). Out of line: cancel()'s common case keeps a small frame.
template <class Dim>
[[gnu::noinline]] void cancel_sorted(factors<Dim>& in, factors<Dim>& out) {
  struct candidate {
    cancel_key key;
    std::size_t index = 0;
    std::size_t taken = 0;
  };
  inline_vector<candidate, small> sorted;
  for (std::size_t k = 0; k < out.size(); ++k)
    if (const auto key = key_of(out[k])) sorted.push_back({*key, k, 0});
  if (sorted.size() == 0) return;
  candidate* first = sorted.data();
  candidate* last = first + sorted.size();
  std::sort(first, last, [](const candidate& a, const candidate& b) {
    return a.key < b.key || (a.key == b.key && a.index < b.index);
  });
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto key = key_of(in[i]);
    if (!key) continue;
    candidate* run = std::lower_bound(first, last, *key, [](const candidate& c, const cancel_key& k) { return c.key < k; });
    if (run == last || run->key != *key) continue;
    candidate* pick = run + run->taken;
    if (pick == last || pick->key != *key) continue;  // every factor of the run is taken
    in.cancel(i);
    out.cancel(pick->index);
    ++run->taken;
  }
}

/// Step 1: each input factor cancels the first remaining output factor with the same key.
template <class Dim>
void cancel(factors<Dim>& in, factors<Dim>& out) {
  if (out.size() > small) return cancel_sorted(in, out);
  // Few output factors: scanning them for the first remaining one with the key picks the same factor
  // as the sorted runs, without sorting. Two factors with keys have the same key exactly when they are
  // equal (interval and symbol), so the scan compares the factors.
  unsigned open = 0;  // bit k: out[k] has a key and is not taken yet
  for (std::size_t k = 0; k < out.size(); ++k)
    if (!out.cancelled(k) && has_key(out[k])) open |= 1u << k;
  for (std::size_t i = 0; i < in.size() && open != 0; ++i) {
    const Dim& x = in[i];
    if (!has_key(x)) continue;
    for (unsigned left = open; left != 0; left &= left - 1) {  // the open ones, in order
      const auto k = static_cast<std::size_t>(std::countr_zero(left));
      if (out[k] == x) {
        open &= ~(1u << k);
        in.cancel(i);
        out.cancel(k);
        break;
      }
    }
  }
}

/// infer_shape with every problem on the partial instantiation: infer_shape hands plain problems
/// (static input, known values, no symbols) to the static one. For the test that compares the two.
reshape_result infer_shape_partial(const partial_shape& input, const reshape_pattern& pattern, bool special_zero,
                                   const reshape_options& options);

}  // namespace reshape1::detail
