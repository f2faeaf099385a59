// Reshape-1 shape inference: one algorithm over the dimension type (detail/inference.hpp), its two
// instantiations (infer_static_shape on std::int64_t, infer_shape on dimension), the reading of
// patterns, and option O1 (sound bounds). Section names refer to docs/semantics.md.
#include <algorithm>
#include <bit>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "detail/assert.hpp"
#include "detail/checked.hpp"
#include "detail/fail.hpp"
#include "detail/inference.hpp"
#include "reshape1/reshape.hpp"

namespace reshape1 {
namespace {

using namespace detail;

// ---- messages: cold, built from the same values in both domains ------------------------------------

template <class Dim>
partial_shape as_partial(std::span<const Dim> dims) {
  partial_shape s;
  for (const auto& d : dims) s.push_back(dimension(d));
  return s;
}

template <class Dim>
std::string input_text(std::span<const Dim> input, bool rank_known) {
  return rank_known ? to_string(as_partial(input)) : std::string("[...]");
}

/// The factors as text: all of them in order, or the remaining ones, static first (as multiplied).
template <class Dim>
std::string text(const factors<Dim>& f, bool remaining_only) {
  partial_shape s;
  for (const bool static_pass : {true, false})
    for (std::size_t i = 0; i < f.size(); ++i) {
      const bool remaining = !f.cancelled(i);
      if (!remaining_only) {
        if (static_pass) s.push_back(dimension(f[i]));
      } else if (remaining && fixed(f[i]) == static_pass) {
        s.push_back(dimension(f[i]));
      }
    }
  return to_string(s);
}

/// The possible element counts of `dims`, as text.
std::string count_text(std::span<const dimension> dims) {
  const auto count = detail::count_interval(dims);
  return count ? to_string(dimension(*count)) : std::string("more than 2^63-1");
}

[[noreturn, gnu::cold, gnu::noinline]] void fail_multiple_infer(std::size_t first, std::size_t second) {
  fail(errc::multiple_infer, {.indices = {first, second}},
       fmt::format("pattern[{}] and pattern[{}]: only one -1 is allowed", first, second),
       "give the other dimensions explicitly");
}

[[noreturn, gnu::cold, gnu::noinline]] void fail_invalid(std::size_t i, std::int64_t lo, std::int64_t hi) {
  if (hi < lo)
    fail(errc::invalid_value, {.indices = {i}}, fmt::format("pattern[{}]: bounds {}..{} are empty", i, lo, hi),
         "the lower bound must not exceed the upper");
  if (lo == hi)
    fail(errc::invalid_value, {.indices = {i}}, fmt::format("pattern[{}]: value {} is invalid", i, lo),
         "use -1 to infer a dimension");
  fail(errc::invalid_value, {.indices = {i}}, fmt::format("pattern[{}]: bounds {}..{} are invalid", i, lo, hi),
       "a pattern element is -1, 0 or a dimension");
}

[[noreturn, gnu::cold, gnu::noinline]] void fail_too_large_value(std::size_t i, std::uint64_t value) {
  fail(errc::invalid_value, {.indices = {i}}, fmt::format("pattern[{}]: value {} does not fit int64", i, value),
       "a pattern value is -1, 0 or a dimension");
}

template <class Dim>
[[noreturn, gnu::cold, gnu::noinline]] void fail_copy_out_of_range(std::size_t i, std::span<const Dim> input) {
  fail(errc::copy_out_of_range, {.indices = {i}},
       fmt::format("pattern[{}]: 0 copies input dimension {}, but the input {} has rank {}", i, i,
                   to_string(as_partial(input)), input.size()),
       "use special_zero=false for a literal 0");
}

template <class Dim>
[[noreturn, gnu::cold, gnu::noinline]] void fail_input_overflow(std::span<const Dim> input) {
  fail(errc::overflow, {}, fmt::format("input: the element count of {} overflows 64 bits", to_string(as_partial(input))));
}

[[noreturn, gnu::cold, gnu::noinline]] void fail_too_long(std::uint64_t length) {
  fail(errc::too_large, {}, fmt::format("pattern: length {} is above reshape1's limit of {} (2^20)", length, max_rank),
       "no real model has an output of that rank; check where the pattern comes from");
}

// ---- reading the pattern (validation rows 3 and 4 in one scan from the left) ------------------------

/// Row 3's one -1: a second marker is an error naming both.
inline void note_marker(std::size_t& marker, std::size_t i) {
  if (marker != none) [[unlikely]]
    fail_multiple_infer(marker, i);
  marker = i;
}

/// Known values: the static domain's reading. `out` (room for p.size() values) receives each
/// element's output dimension: the value itself, or for a copy below the input's rank the input
/// dimension, whose product the reading keeps (row 4's copies past the rank are checked after the
/// scan, in order). The scan keeps its state in locals.
void read_values(std::span<const std::int64_t> p, bool special_zero, std::span<const std::int64_t> input,
                 std::int64_t* out, reading<std::int64_t>& r) {
  std::size_t marker = none;
  count literal, copied;
  const std::int64_t* values = p.data();
  const std::size_t n = p.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t v = values[i];
    out[i] = v;
    const auto how = classify(v, v, special_zero);
    if (how == reads::literal) [[likely]] {
      literal.times(v);
    } else if (how == reads::copy) {
      if (i < input.size()) {
        out[i] = input[i];
        copied.times(input[i]);
      }
    } else if (how == reads::marker) {
      note_marker(marker, i);
    } else [[unlikely]] {
      fail_invalid(i, v, v);
    }
  }
  r.dims = {out, n};
  r.values = p;
  r.special_zero = special_zero;
  r.marker = marker;
  r.literal = literal;
  r.copied = copied;
}

/// Bounds: the partial domain's reading. `dims` receives each element's output dimension.
void read_bounds(const reshape_pattern& pattern, bool special_zero, inline_vector<dimension, small>& dims,
                 reading<dimension>& r) {
  const auto elements = pattern.elements();
  const auto too_large = pattern.too_large();
  auto big = too_large.begin();
  // Written in place (the length is within max_rank): each element's role and output dimension.
  dimension* out = dims.resize_for_overwrite(elements.size());
  role* roles = r.roles.resize_for_overwrite(elements.size());
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (big != too_large.end() && big->first == i) fail_too_large_value(i, big->second);
    const auto& b = elements[i];
    const auto how = classify(b.lo, b.hi, special_zero);
    if (how == reads::invalid) fail_invalid(i, b.lo, b.hi);
    if (how == reads::marker) note_marker(r.marker, i);
    roles[i] = how == reads::marker ? role::marker : how == reads::copy ? role::copy : role::literal;
    if (how == reads::marker || how == reads::unknown) {
      out[i] = dimension(interval(), b.symbol);
    } else {
      out[i] = dimension(interval(std::max<std::int64_t>(b.lo, 0), b.hi), b.symbol);
    }
  }
  r.dims = dims.span();
}

// ---- the algorithm for one reading ----------------------------------------------------------------

/// What inference of one reading returns: the static domain completes its output in place.
template <class Dim>
using output_of = std::conditional_t<is_static_domain<Dim>, void, reshape_result>;

/// One reading of a pattern against an input. The static domain holds its small reading by value (the
/// compiler then keeps its fields in registers on the hot path; measured with callgrind).
template <class Dim>
struct problem {
  std::span<const Dim> input;
  bool rank_known = true;
  std::conditional_t<is_static_domain<Dim>, const reading<Dim>, const reading<Dim>&> r;
  const reshape_options& options;
  /// A static input's element count as its shape keeps it (shape_access::overflowed past int64).
  [[no_unique_address]] std::conditional_t<is_static_domain<Dim>, std::int64_t, std::monostate> input_count{};
  /// The static input as the caller gave it (with_rebuilt reads it again).
  [[no_unique_address]] std::conditional_t<is_static_domain<Dim>, const shape*, std::monostate> source{};
};

/// The static problem of a call (the input, the pattern, special_zero, the options): the pattern read
/// into `out`, room for pattern.size() values.
[[gnu::always_inline]] inline problem<std::int64_t> static_problem(const shape& input, std::span<const std::int64_t> pattern,
                                                                   bool special_zero, const reshape_options& options,
                                                                   std::int64_t* out) {
  reading<std::int64_t> r;
  read_values(pattern, special_zero, input.dims(), out, r);
  return {input.dims(), true, r, options, shape_access::count(input), &input};
}

/// Runs `f` on a static problem built again, by the same steps, from the call's arguments (the input,
/// the pattern, special_zero, the options): cold paths (failures) take these few values instead of
/// the problem, which the hot path then never needs in memory, so the compiler keeps it in registers.
/// The pattern is read again; it passed the first time.
template <class F>
[[gnu::cold, gnu::noinline]] auto with_rebuilt(const shape& input, std::span<const std::int64_t> pattern,
                                               bool special_zero, const reshape_options& options, const F& f) {
  shape out;
  return f(static_problem(input, pattern, special_zero, options,
                          shape_access::resize_for_overwrite(out, pattern.size())));
}

template <class F>
auto with_rebuilt(const problem<std::int64_t>& p, const F& f) {
  return with_rebuilt(*p.source, p.r.values, p.r.special_zero, p.options, f);
}

/// Raises the failure `fail` (a [[noreturn]] function of the problem) of one reading. The static domain
/// hands it a rebuilt problem (with_rebuilt).
template <class Dim, class Fail>
[[noreturn]] inline void raise(const problem<Dim>& p, const Fail& fail) {
  if constexpr (is_static_domain<Dim>) {
    with_rebuilt(p, fail);
  } else {
    fail(p);
  }
  __builtin_unreachable();  // every `fail` throws
}

/// Row 4: a copy at an index the input (of known rank) does not have.
template <class Dim>
void check_copies(const problem<Dim>& p) {
  if (!p.rank_known || p.r.size() <= p.input.size()) return;
  for (std::size_t i = p.input.size(); i < p.r.size(); ++i)
    if (p.r.copies(i)) raise(p, [i](const auto& x) { fail_copy_out_of_range(i, x.input); });
}

/// Row 5: the input's element count (lower bounds: the smallest possible count) fits 64 bits. For
/// plain values the count is the one the input shape keeps, and the step adds the product of the
/// copied dimensions (which the reading multiplied): a copied dimension is a factor of both sides, so
/// the products step (infer_static_reading) can use the whole input's count.
struct input_counts {
  count all, copied;
};

template <class Dim>
input_counts check_input_count(const problem<Dim>& p) {
  input_counts c;
  if (!p.rank_known) return c;
  if constexpr (is_static_domain<Dim>) {
    count all;
    // The whole count is the one the input shape keeps, by the same element-count rule.
    if (p.input_count > 0) [[likely]] {
      all.nonzero = p.input_count;
    } else if (p.input_count == 0) {
      all.zero = true;
    } else {
      all.overflowed = true;  // shape_access::overflowed
    }
    // Row 4 has passed: every copy is at an index below the rank, and the reading multiplied them.
    c.all = all;
    c.copied = p.r.copied;
  } else {
    for (const auto& d : p.input) c.all.times(d.lo());
  }
  if (!c.all.fits()) [[unlikely]]
    raise(p, [](const auto& x) { fail_input_overflow(x.input); });
  return c;
}

/// The factors of both sides (semantics.md, "Known input rank"): every input dimension that is not
/// copied, and every literal output dimension; with an unknown input rank, no input factors, and the
/// marker is an output factor.
template <class Dim>
struct sides {
  factors<Dim> in, out;
  bool unknown_copy = false;  // unknown rank and a copy: both dynamic products are unknown
  std::optional<Dim> unknown_rank_marker;
};

/// Output dimension i before the marker is resolved: a copy of the input, or the reading's
/// dimension (the marker's is a placeholder).
template <class Dim>
Dim output_dim(const problem<Dim>& p, std::size_t i) {
  if (p.r.at(i) != role::copy) return p.r.dims[i];
  if constexpr (is_static_domain<Dim>) {
    return p.input[i];
  } else {
    return p.rank_known ? p.input[i] : dimension();
  }
}

/// The output with `value` at the marker (cold: for messages).
template <class Dim>
partial_shape output_text_shape(const problem<Dim>& p, std::optional<Dim> value) {
  partial_shape s;
  for (std::size_t i = 0; i < p.r.size(); ++i) {
    if (i == p.r.marker && !value) continue;
    s.push_back(dimension(i == p.r.marker ? *value : output_dim(p, i)));
  }
  return s;
}

template <class Dim>
[[gnu::always_inline]] inline void collect(const problem<Dim>& p, sides<Dim>& s) {
  const auto& r = p.r;
  const std::size_t n = r.size();
  if (p.rank_known) {
    // Written through local counts (an entry's stores could otherwise alias the arrays' sizes).
    const std::size_t rank = p.input.size();
    auto* in = s.in.fill(std::max(n, rank));
    auto* out = s.out.fill(n);
    std::size_t k_in = 0, k_out = 0;
    using side = factors<Dim>;
    for (std::size_t i = 0; i < n; ++i) {
      const role what = r.at(i);
      if (what == role::literal) side::put(out[k_out++], r.dims[i]);
      if (what != role::copy && i < rank) side::put(in[k_in++], p.input[i]);
    }
    for (std::size_t i = n; i < rank; ++i) side::put(in[k_in++], p.input[i]);
    s.in.keep(k_in);
    s.out.keep(k_out);
  } else if constexpr (!is_static_domain<Dim>) {
    for (std::size_t i = 0; i < n; ++i) {
      const role what = r.at(i);
      s.unknown_copy = s.unknown_copy || what == role::copy;
      if (what == role::marker) s.unknown_rank_marker = r.dims[i];
      if (what == role::literal) s.out.add(r.dims[i]);
    }
  }
}

/// The factors as in collect(), after the tensorflow rule drops zeros when it applies.
template <class Dim>
[[gnu::always_inline]] inline void collect_for_marker(const problem<Dim>& p, sides<Dim>& s) {
  collect(p, s);
  if (p.options.empty != empty_rule::tensorflow) return;
  bool zero = false;
  for (std::size_t i = 0; i < s.out.size(); ++i) zero |= is_zero(s.out[i]);
  if (zero) {
    s.out.drop_zeros();
    s.in.drop_zeros();
  }
}

template <class Dim>
[[noreturn, gnu::cold, gnu::noinline]] void fail_literal_overflow(const problem<Dim>& p) {
  sides<Dim> s;
  collect_for_marker(p, s);
  fail(errc::overflow, {.indices = {p.r.marker}},
       fmt::format("pattern: the output dimensions other than -1 {} multiply past 64 bits", text(s.out, false)));
}

/// Step 2: the products of the remaining factors. S is the product of the static ones, exact (0 when
/// any is 0, however large the others; nullopt on overflow); D the product of the others (factors that
/// can be 0 first, so that a 0 lower bound absorbs the others' overflow; nullopt when it overflows).
template <class Dim>
struct products {
  std::optional<Dim> s_in, s_out, d_in, d_out;
};

/// Step 2 on one side: {S, D} of its remaining factors, in one scan.
template <class Dim>
[[gnu::always_inline]] inline std::pair<std::optional<Dim>, std::optional<Dim>> multiply_side(const factors<Dim>& f,
                                                                                              bool unknown_start) {
  if constexpr (is_static_domain<Dim>) {
    count c;
    f.for_each_remaining([&](std::int64_t v) { c.times(v); });
    return {c.fits() ? std::optional<Dim>(c.value()) : std::nullopt, Dim{1}};  // every factor is in S
  } else {
    // S: the static factors, a 0 absorbing an overflow of the others.
    dimension fixed(1);
    bool zero = false, overflowed = false;
    // D: the others, those that can be 0 at once (so that a 0 lower bound absorbs an overflow), the rest
    // (usually none) in a second scan.
    std::optional<dimension> running = unknown_start ? dimension() : dimension(1);
    bool later = false;
    for (std::size_t i = 0; i < f.size(); ++i) {
      if (f.cancelled(i)) continue;
      const dimension& x = f[i];
      if (x.is_static()) {
        zero |= x.lo() == 0;
        if (overflowed) continue;
        if (auto next = times(fixed, x)) {
          fixed = *next;
        } else {
          overflowed = true;
        }
      } else if (x.lo() != 0) {
        later = true;
      } else if (running) {
        running = times(*running, x);
      }
    }
    for (std::size_t i = 0; later && i < f.size() && running; ++i) {
      const dimension& x = f[i];
      if (!f.cancelled(i) && !x.is_static() && x.lo() != 0) running = times(*running, x);
    }
    std::optional<dimension> s = fixed;
    if (overflowed) s = zero ? std::optional<Dim>(dimension(0)) : std::nullopt;
    return {s, running};
  }
}

template <class Dim>
products<Dim> multiply_sides(const sides<Dim>& s) {
  auto [s_in, d_in] = multiply_side(s.in, s.unknown_copy);
  auto [s_out, d_out] = multiply_side(s.out, s.unknown_copy);
  return {s_in, s_out, d_in, d_out};
}

/// The remaining factors of one side after steps 1 and 2, as text (cold: for messages).
template <class Dim>
std::string remaining_text(const problem<Dim>& p, bool input_side) {
  sides<Dim> s;
  collect_for_marker(p, s);
  if constexpr (!is_static_domain<Dim>) {
    if (s.unknown_rank_marker) s.out.add(*s.unknown_rank_marker);
  }
  cancel(s.in, s.out);
  return text(input_side ? s.in : s.out, true);
}

/// The errors of steps 3 to 5 and rows 7 and 8, out of line: the hot path only tests and calls.
template <class Dim>
[[noreturn, gnu::cold, gnu::noinline]] void fail_side_overflow(const problem<Dim>& p, bool input_side) {
  const std::size_t m = p.r.marker;
  fail(errc::overflow, {.indices = {m}},
       input_side ? fmt::format("pattern[{}]: cannot infer -1: the input dimensions it stands for {} multiply past 64 bits",
                                m, remaining_text(p, true))
                  : fmt::format("pattern[{}]: cannot infer -1: the other output dimensions {} multiply past 64 bits", m,
                                remaining_text(p, false)));
}

template <class Dim>
[[noreturn, gnu::cold, gnu::noinline]] void fail_count_overflow(const problem<Dim>& p) {
  fail(errc::overflow, {.indices = {p.r.marker}},
       fmt::format("pattern[{}]: cannot infer -1: the element count of {} overflows 64 bits", p.r.marker,
                   input_text(p.input, p.rank_known)));
}

template <class Dim>
[[noreturn, gnu::cold, gnu::noinline]] void fail_infer_zero(const problem<Dim>& p, bool both_empty) {
  const std::size_t m = p.r.marker;
  if (both_empty)
    fail(errc::infer_zero, {.indices = {m}},
         fmt::format("pattern[{}]: cannot infer -1 when another output dimension is 0: for the empty input {} any "
                     "value fits (empty rule strict)",
                     m, input_text(p.input, p.rank_known)),
         "give the dimension explicitly");
  fail(errc::infer_zero, {.indices = {m}},
       fmt::format("pattern[{}]: cannot infer -1 when another output dimension is 0 and the input {} has no "
                   "dimension known to be 0",
                   m, input_text(p.input, p.rank_known)),
       "use special_zero=true to copy a 0, or give the dimension explicitly");
}

template <class Dim>
[[noreturn, gnu::cold, gnu::noinline]] void fail_not_divisible(const problem<Dim>& p, bool both_empty) {
  const std::size_t m = p.r.marker;
  const auto others_shape = output_text_shape(p, std::optional<Dim>());
  if (both_empty)  // D9 with empty tensors: the count does not decide the -1
    fail(errc::not_divisible, {.indices = {m}},
         fmt::format("pattern[{}]: cannot infer -1: input {} and the other output dimensions {} are both empty, so "
                     "the element count does not fix it, and their remaining dimensions leave no value",
                     m, input_text(p.input, p.rank_known), to_string(others_shape)),
         "give the dimension explicitly or use sound bounds");
  const auto input_count = p.rank_known ? count_text(as_partial(p.input).dims()) : std::string("?");
  fail(errc::not_divisible, {.indices = {m}},
       fmt::format("pattern[{}]: cannot infer -1: input {} has {} elements, which the other output dimensions "
                   "({}) do not divide",
                   m, input_text(p.input, p.rank_known), input_count, count_text(others_shape.dims())));
}

template <class Dim>
[[noreturn, gnu::cold, gnu::noinline]] void fail_output_overflow(const problem<Dim>& p, const std::optional<Dim>& value) {
  fail(errc::overflow, {},
       fmt::format("pattern: the element count of the output {} overflows 64 bits", to_string(output_text_shape(p, value))));
}

template <class Dim>
[[noreturn, gnu::cold, gnu::noinline]] void fail_count_mismatch(const problem<Dim>& p, const std::optional<Dim>& value,
                                                               std::int64_t out_count, std::int64_t in_count) {
  fail(errc::count_mismatch, {},
       fmt::format("pattern: output {} has {} elements but input {} has {}", to_string(output_text_shape(p, value)),
                   out_count, input_text(p.input, true), in_count),
       "use 0 to copy an input dimension or -1 to infer one");
}

/// Step 3 to 5: the value of the marker, D_in / D_out after the static products are settled.
template <class Dim>
Dim resolve_marker(const problem<Dim>& p, products<Dim> q) {
  const auto& options = p.options;
  if constexpr (is_static_domain<Dim>) q.d_in = q.d_out = Dim{1};  // plain values: every factor is in S
  // Section 7: a side whose static product is 0 has no elements, however large its other factors, so
  // only an overflowing dynamic product on a side without a 0 is an error. (The output side passed the
  // literal-product check; its static factors can still overflow beside a `?`, whose lower bound 0
  // kept that product at 0: `[8,?,9223372036854775807,-1]`.)
  if (!q.s_in || (!q.d_in && lower(*q.s_in) != 0)) raise(p, [](const auto& x) { fail_side_overflow(x, true); });
  if (!q.s_out || (!q.d_out && lower(*q.s_out) != 0)) raise(p, [](const auto& x) { fail_side_overflow(x, false); });
  const std::int64_t s_in = lower(*q.s_in), s_out = lower(*q.s_out);
  if (s_in != s_out) {
    // Each S joins its D. A 0 absorbs an overflowed D, and keeps its own symbol beside a plain 1.
    auto join = [](const std::optional<Dim>& d, const Dim& f) -> std::optional<Dim> {
      if (!d) return lower(f) == 0 ? std::optional<Dim>(Dim(0)) : std::nullopt;
      return times(*d, f);
    };
    q.d_in = join(q.d_in, *q.s_in);
    q.d_out = join(q.d_out, *q.s_out);
    if (!q.d_in || !q.d_out) raise(p, [](const auto& x) { fail_count_overflow(x); });
  } else if (s_in == 1 && q.d_in && is_one(*q.d_in)) {
    q.d_in = q.s_in;
  }
  // Step 5 (infer_zero) comes before the division.
  const bool zero_out = s_out == 0;
  const bool both_empty = zero_out && s_in == 0;  // any value of -1 keeps the (zero) count
  if (both_empty && options.empty == empty_rule::strict) raise(p, [](const auto& x) { fail_infer_zero(x, true); });
  if (zero_out && s_in != 0) raise(p, [](const auto& x) { fail_infer_zero(x, false); });
  // Step 3: the marker is D_in / D_out. A D is missing (overflowed) only when both static products are
  // 0: OpenVINO's quotient then has no value, as when its interval comes out empty (D9).
  std::optional<Dim> value;
  if (!q.d_in || !q.d_out) {
    RESHAPE1_ASSERT(both_empty);
  } else if (fixed(*q.d_in) && fixed(*q.d_out)) {
    const std::int64_t num = lower(*q.d_in), den = lower(*q.d_out);
    RESHAPE1_ASSERT(den != 0);
    const std::int64_t quotient = num / den;  // one division (num >= 0, den > 0)
    if (quotient * den == num) value = Dim(quotient);
  } else if constexpr (!is_static_domain<Dim>) {
    const dimension& num = *q.d_in;
    const dimension& den = *q.d_out;
    const bool upper_known = num.range().is_bounded() && den.lo() > 0 && !den.range().is_unknown();
    const std::int64_t hi = upper_known ? num.hi() / den.lo() : interval::unbounded;
    const std::int64_t lo = den.hi() != 0 ? ceil_div(num.lo(), den.hi()) : num.lo();
    if (lo <= hi) value = dimension(lo, hi);
  }
  // Both sides empty: an empty interval does not mean that no value works. Sound bounds must cover
  // the run-time answer: `?`.
  if constexpr (!is_static_domain<Dim>) {
    if (!value && options.sound_bounds && both_empty) value = dimension();
  }
  if (!value) raise(p, [=](const auto& x) { fail_not_divisible(x, both_empty); });
  // Step 4: the symbol survives only a division by exactly 1.
  if constexpr (!is_static_domain<Dim>) {
    if (q.d_in && q.d_out && is_one(*q.d_out)) return dimension(value->range(), q.d_in->symbol());
  }
  return *value;
}

/// Symbol deduction without a marker: S_in == S_out != 0 forces D_in == D_out.
inline void deduce_equality(const products<dimension>& q, reshape_result& result) {
  if (!(q.s_in && q.s_out && q.d_in && q.d_out) || q.s_in->lo() != q.s_out->lo() || q.s_in->lo() == 0) return;
  const dimension d_in = q.s_in->lo() == 1 && is_one(*q.d_in) ? *q.s_in : *q.d_in;
  const dimension& d_out = *q.d_out;
  if (d_in.has_symbol() && d_out.has_symbol() && d_in.symbol() != d_out.symbol() &&
      d_in.range().intersects(d_out.range()))
    result.symbol_equalities.push_back({d_in.symbol(), d_out.symbol()});
}

/// Step 1 and 2 for plain values when a product has a 0 or overflows: the input dimensions that are
/// not copied against the literal values, and when a product overflows, the factors listed and
/// cancelled (out of line: rare, and it would crowd the registers of the common case).
[[gnu::noinline]] products<std::int64_t> zero_or_overflow_products(const problem<std::int64_t>& p) {
  const auto& r = p.r;
  count in;
  for (std::size_t i = 0; i < p.input.size(); ++i)
    if (!r.copies(i)) in.times(p.input[i]);
  count out = r.literal;
  const bool tf = r.marker != none && p.options.empty == empty_rule::tensorflow && out.zero;
  if (r.marker != none && (tf ? out.overflowed : !out.fits())) [[unlikely]]
    raise(p, [](const auto& x) { fail_literal_overflow(x); });
  if (tf) in.zero = out.zero = false;  // O2 tensorflow: zeros leave both products
  if (in.fits() && out.fits()) return {in.value(), out.value(), std::int64_t{1}, std::int64_t{1}};
  sides<std::int64_t> s;
  if (r.marker != none) {
    collect_for_marker(p, s);
  } else {
    collect(p, s);
  }
  cancel(s.in, s.out);
  return multiply_sides(s);
}

/// Completes the static result in place: the -1's value (the reading wrote the copies). Every
/// dimension is then a copy of an input dimension, a literal (>= 0) or the -1's value (>= 0), and the
/// length is within max_rank, so the result is valid as written.
void complete_static_output(const problem<std::int64_t>& p, std::int64_t value) {
  if (p.r.marker != none) p.r.dims[p.r.marker] = value;
}

/// Rows 7 and 8 on the output's element count.
template <class Dim>
void check_output_count(const problem<Dim>& p, const std::optional<Dim>& value, const count& out_count,
                        bool all_static, const count& in_count) {
  // Row 7: the output's element count fits.
  if (!out_count.fits()) [[unlikely]]
    raise(p, [=](const auto& x) { fail_output_overflow(x, value); });
  // Row 8: input and output fully static with different counts.
  if (all_static && in_count.value() != out_count.value()) [[unlikely]]
    raise(p, [=, out = out_count.value(), in = in_count.value()](const auto& x) { fail_count_mismatch(x, value, out, in); });
}

/// Rows 6 to 8 for plain values when a product has a 0 or overflows (infer_static_reading's less common
/// case), on the problem read again from the call's arguments into the same output. Out of line, and
/// taking those few values instead of the problem: the common case then never puts the problem in memory.
[[gnu::noinline, gnu::flatten]] void finish_zero_or_overflow(const shape& input, std::span<const std::int64_t> pattern,
                                                              bool special_zero, const reshape_options& options,
                                                              std::int64_t* out) {
  const problem<std::int64_t> p = static_problem(input, pattern, special_zero, options, out);
  const input_counts counts = check_input_count(p);
  const std::size_t m = p.r.marker;
  const products<std::int64_t> q = zero_or_overflow_products(p);
  std::optional<std::int64_t> value;
  if (m != none) value = resolve_marker(p, q);
  // The output's count is literal x -1 x copied, known without a pass over the output, so rows 7
  // and 8 come before it is built.
  count out_count = p.r.literal;
  if (m != none) out_count.times(*value);
  out_count.times(counts.copied);
  check_output_count(p, value, out_count, true, counts.all);
  complete_static_output(p, m == none ? 0 : *value);
}

/// Rows 6 to 8 for plain values. Steps 1 and 2 take their products straight from the counts:
/// cancelling equal factors changes no quotient of plain values, only whether a product overflows, so
/// the factors are listed and cancelled only when one does (zero_or_overflow_products). Without a 0,
/// the copied dimensions, factors of both sides, leave the quotient as it is: the products are then
/// the whole input's count and literal x copied, both at least 1, and the -1 is their exact quotient,
/// so the output's count (literal x -1 x copied) is the input's: rows 7 and 8 hold by construction.
void infer_static_reading(const problem<std::int64_t>& p, const input_counts& counts) {
  const std::size_t m = p.r.marker;
  const count& literal = p.r.literal;
  std::int64_t s_out = 0;
  if (!counts.all.zero && !literal.zero && !literal.overflowed &&
      !__builtin_mul_overflow(literal.nonzero, counts.copied.nonzero, &s_out)) [[likely]] {
    const std::int64_t s_in = counts.all.nonzero;
    if (s_in < 1 || s_out < 1) __builtin_unreachable();  // products of dimensions >= 1 that fit
    if (m == none) {
      check_output_count(p, std::optional<std::int64_t>(), count{s_out, false, false}, true, counts.all);
    } else {
      complete_static_output(p, resolve_marker(p, {s_in, s_out, std::int64_t{1}, std::int64_t{1}}));
    }
    return;
  }
  // A product is 0 or overflows.
  finish_zero_or_overflow(*p.source, p.r.values, p.r.special_zero, p.options, p.r.dims.data());
}

/// Rows 6 to 8 for partial shapes: the factors listed, step 1, the products, the -1, the output.
reshape_result infer_partial_reading(const problem<dimension>& p, const input_counts& counts) {
  const std::size_t m = p.r.marker;
  sides<dimension> s;  // the factors, listed
  // Built in one expression: a products<dimension> declared first would be zeroed, then overwritten.
  const products<dimension> q = [&] {
    if (m != none) {
      collect_for_marker(p, s);
      // Section 7: the literal output dimensions must have a product that fits before -1 is resolved.
      count literal;
      for (std::size_t i = 0; i < s.out.size(); ++i) literal.times(lower(s.out[i]));
      if (!literal.fits()) raise(p, [](const auto& x) { fail_literal_overflow(x); });
      if (s.unknown_rank_marker) s.out.add(*s.unknown_rank_marker);
    } else {
      collect(p, s);
    }
    cancel(s.in, s.out);  // step 1
    return multiply_sides(s);
  }();

  std::optional<dimension> value;
  if (m != none) value = resolve_marker(p, q);

  reshape_result result;
  if (m == none) {
    // O1: the equality relies on the counts, which a 0 among the copied or cancelled dimensions
    // makes equal whatever D_in and D_out are.
    bool hidden_zero = false;
    if (p.options.sound_bounds) {
      for (std::size_t i = 0; i < std::min(p.r.size(), p.input.size()); ++i)
        hidden_zero = hidden_zero || (p.r.copies(i) && p.input[i].lo() == 0);
      for (std::size_t i = 0; i < s.in.size(); ++i)
        hidden_zero = hidden_zero || (s.in.cancelled(i) && s.in[i].lo() == 0);
    }
    if (!hidden_zero) deduce_equality(q, result);
  }
  count out_count;
  bool all_static = p.rank_known;
  dimension* out = shape_access::resize_for_overwrite(result.shape, p.r.size());  // the pattern's length
  for (std::size_t i = 0; i < p.r.size(); ++i) {
    const dimension d = i == m ? *value : output_dim(p, i);
    out_count.times(d.lo());
    all_static = all_static && d.is_static();
    out[i] = d;
  }
  for (std::size_t i = 0; all_static && i < p.input.size(); ++i) all_static = p.input[i].is_static();
  check_output_count(p, value, out_count, all_static, counts.all);
  return result;
}

/// Rows 6 to 8 for one reading whose rows 3 to 5 have passed (`counts` from row 5).
template <class Dim>
output_of<Dim> infer_reading(const problem<Dim>& p, const input_counts& counts) {
  if constexpr (is_static_domain<Dim>) {
    infer_static_reading(p, counts);
  } else {
    return infer_partial_reading(p, counts);
  }
}

template <class Dim>
output_of<Dim> infer_checked(const problem<Dim>& p) {
  check_copies(p);
  return infer_reading(p, check_input_count(p));
}

// ---- O1: sound bounds ---------------------------------------------------------------------------

/// Sound answer for one reading (option O1): it must contain the static answer of every concrete
/// instance of the input and the reading. Without a marker the output positions are copies and
/// literals, which hold in every instance; only the symbol equality needs care (infer_reading drops
/// it when a factor it relies on can be 0). With a marker, instances fall into three cases:
///   (i)   no factor is 0: the partial algorithm on factors raised to >= 1;
///   (ii)  an input factor is 0, no output factor is: the -1 is 0;
///   (iii) factors on both sides are 0: the -1 is 1 (openvino), anything (tensorflow) or an error (strict).
/// An output factor of 0 with no input factor 0 is an error in every rule.
reshape_result infer_sound_reading(const problem<dimension>& p) {
  check_copies(p);
  const auto counts = check_input_count(p);
  if (p.r.marker == none) return infer_reading(p, counts);
  reshape_result result;
  const std::size_t m = p.r.marker;
  const auto& r = p.r;
  bool in_zero = !p.rank_known, in_nonzero = true, out_zero = false, out_nonzero = true;
  if (p.rank_known)
    for (std::size_t i = 0; i < p.input.size(); ++i)
      if (!r.copies(i)) {
        in_zero = in_zero || p.input[i].lo() == 0;
        in_nonzero = in_nonzero && p.input[i].hi() >= 1;
      }
  for (std::size_t i = 0; i < r.size(); ++i)
    if (r.at(i) == role::literal) {
      out_zero = out_zero || r.dims[i].lo() == 0;
      out_nonzero = out_nonzero && r.dims[i].hi() >= 1;
    }
  std::optional<dimension> marker;  // the hull of the cases' values
  auto add = [&](const dimension& d) {
    marker = marker ? dimension(marker->range().hull(d.range()), marker->symbol() == d.symbol() ? d.symbol() : symbol())
                    : d;
  };
  std::exception_ptr first_error;
  if (in_nonzero && out_nonzero) {  // (i)
    auto raise = [](const dimension& d) {
      return d.lo() == 0 ? dimension(interval(1, d.hi()), d.symbol()) : d;
    };
    inline_vector<dimension, small> input, dims;
    for (std::size_t i = 0; i < p.input.size(); ++i) input.push_back(r.copies(i) ? p.input[i] : raise(p.input[i]));
    for (std::size_t i = 0; i < r.size(); ++i)
      dims.push_back(r.at(i) == role::literal ? raise(r.dims[i]) : r.dims[i]);
    reading<dimension> raised{dims.span(), r.roles, r.marker};
    try {
      const reshape_result nonempty = infer_checked(problem<dimension>{input.span(), p.rank_known, raised, p.options});
      add(nonempty.shape[m]);
    } catch (const error& e) {
      // A product that overflows here is no proof that every instance fails when a copied dimension
      // can be 0: the counts are then 0, and equal values cancel before anything overflows. The -1
      // can be anything.
      bool copied_zero = false;
      for (std::size_t i = 0; i < std::min(r.size(), p.input.size()); ++i)
        copied_zero = copied_zero || (r.copies(i) && p.input[i].lo() == 0);
      if (e.code() == errc::overflow && copied_zero) {
        add(dimension());
      } else {
        first_error = std::current_exception();
      }
    }
  }
  if (in_zero && out_nonzero) add(dimension(0));  // (ii)
  if (in_zero && out_zero) {                      // (iii)
    if (p.options.empty == empty_rule::openvino) add(dimension(1));
    if (p.options.empty == empty_rule::tensorflow) add(dimension());
  }
  if (!marker) {
    result = infer_reading(p, counts);  // no instance is valid: the reading's own error, if it has one
    if (first_error) std::rethrow_exception(first_error);
    return result;
  }
  // Every other position is a copy or a literal, as in every instance.
  for (std::size_t i = 0; i < r.size(); ++i) result.shape.push_back(i == m ? *marker : output_dim(p, i));
  return result;
}

constexpr std::size_t max_enumerated = 4;

/// The ways an element could be read at run time, when that differs from OpenVINO's one reading.
struct way {
  reads how;
  dimension dim;
};

inline_vector<way, 3> readings_of(const pattern_bound& b, role literal_role, const dimension& literal, bool special_zero) {
  inline_vector<way, 3> ways;
  const std::int64_t lo = b.lo, hi = b.hi;
  if (literal_role == role::marker || hi < -1 || hi < lo) return ways;
  const std::int64_t first = std::max<std::int64_t>(lo, -1);
  const bool may_infer = first <= -1;
  const bool may_copy = special_zero && first <= 0 && hi >= 0;
  if (!may_infer && !(may_copy && literal_role != role::copy)) return ways;
  if (may_infer) ways.push_back({reads::marker, dimension(interval(), b.symbol)});
  if (may_copy) ways.push_back({reads::copy, dimension()});
  const std::int64_t literal_lo = std::max<std::int64_t>(first, special_zero ? 1 : 0);
  if (lo < -1) {
    ways.push_back({reads::literal, literal});  // unreliable bounds: keep OpenVINO's `?`
  } else if (literal_lo <= hi) {
    ways.push_back({reads::literal, dimension(interval(literal_lo, hi), b.symbol)});
  }
  return ways;
}

reshape_result hull(const std::vector<reshape_result>& results) {
  reshape_result h = results.front();
  partial_shape dims = h.shape;
  for (std::size_t k = 1; k < results.size(); ++k) {
    const auto& other = results[k].shape;
    partial_shape joined;
    for (std::size_t i = 0; i < dims.size(); ++i)
      joined.push_back(dimension(dims[i].range().hull(other[i].range()),
                                 dims[i].symbol() == other[i].symbol() ? dims[i].symbol() : symbol()));
    dims = std::move(joined);
    const auto& eq = results[k].symbol_equalities;
    if (h.symbol_equalities.size() != 0 && !(eq.size() != 0 && eq.data()[0] == h.symbol_equalities.data()[0]))
      h.symbol_equalities.clear();
  }
  h.shape = std::move(dims);
  return h;
}

reshape_result infer_sound(const partial_shape& input, const reshape_pattern& pattern, const reading<dimension>& literal,
                           bool special_zero, const reshape_options& options) {
  const auto elements = pattern.elements();
  std::vector<std::size_t> ambiguous;
  std::vector<inline_vector<way, 3>> ways(literal.size());
  for (std::size_t i = 0; i < literal.size(); ++i) {
    ways[i] = readings_of(elements[i], literal.at(i), literal.dims[i], special_zero);
    if (ways[i].size() != 0) ambiguous.push_back(i);
  }
  const problem<dimension> literal_problem{input.dims(), input.rank_known(), literal, options};
  if (ambiguous.empty()) return infer_sound_reading(literal_problem);

  if (ambiguous.size() > max_enumerated) {
    // Too many combinations: the affected dimensions and the -1 become `?`.
    inline_vector<dimension, small> dims;
    reading<dimension> coarse;
    for (std::size_t i = 0; i < literal.size(); ++i) {
      const bool vague = ways[i].size() != 0;
      dims.push_back(vague ? dimension() : literal.dims[i]);
      coarse.roles.push_back(vague ? role::literal : literal.at(i));
    }
    coarse.dims = dims.span();
    coarse.marker = literal.marker;
    reshape_result r = infer_sound_reading(problem<dimension>{input.dims(), input.rank_known(), coarse, options});
    partial_shape widened;
    for (std::size_t i = 0; i < r.shape.size(); ++i)
      widened.push_back(ways[i].size() != 0 || i == literal.marker ? dimension() : r.shape[i]);
    return {std::move(widened), {}};
  }

  std::vector<reshape_result> results;
  std::exception_ptr first_error;
  std::vector<std::size_t> choice(ambiguous.size(), 0);
  for (;;) {
    inline_vector<dimension, small> dims;
    reading<dimension> r;
    bool valid = true;
    for (std::size_t i = 0; i < literal.size() && valid; ++i) {
      const auto it = std::find(ambiguous.begin(), ambiguous.end(), i);
      role what = literal.at(i);
      dimension d = literal.dims[i];
      if (it != ambiguous.end()) {
        const way& w = ways[i].data()[choice[static_cast<std::size_t>(it - ambiguous.begin())]];
        what = w.how == reads::marker ? role::marker : w.how == reads::copy ? role::copy : role::literal;
        d = w.dim;
      }
      if (what == role::marker) {
        valid = r.marker == none;  // a second -1: this reading cannot happen
        r.marker = i;
      }
      r.roles.push_back(what);
      dims.push_back(d);
    }
    if (valid) {
      r.dims = dims.span();
      try {
        results.push_back(infer_sound_reading(problem<dimension>{input.dims(), input.rank_known(), r, options}));
      } catch (const error&) {
        if (!first_error) first_error = std::current_exception();
      }
    }
    std::size_t k = 0;
    while (k < choice.size() && ++choice[k] == ways[ambiguous[k]].size()) choice[k++] = 0;
    if (k == choice.size()) break;
  }
  if (results.empty()) {
    (void)infer_checked(literal_problem);  // OpenVINO's reading: its error, if it has one
    if (first_error) std::rethrow_exception(first_error);
    fail(errc::not_divisible, {}, "pattern: no reading of the pattern's bounds gives a valid reshape");
  }
  return hull(results);
}

// ---- plain values ---------------------------------------------------------------------------------

/// Whether a problem has plain values only: a static input and a pattern of known values, neither with
/// symbols, and no value past int64.
bool plain(const partial_shape& input, const reshape_pattern& pattern) noexcept {
  if (!input.rank_known() || !pattern.too_large().empty()) return false;
  for (const dimension& d : input)
    if (!d.is_static() || d.has_symbol()) return false;
  for (const pattern_bound& b : pattern.elements())
    if (b.lo != b.hi || b.symbol) return false;
  return true;
}

/// infer_shape on a plain problem: the static instantiation of the same algorithm gives the same shape
/// and the same errors (tests/reshape_agreement_test.cpp compares both, messages included), without the
/// partial domain's intervals.
reshape_result infer_plain(const partial_shape& input, const reshape_pattern& pattern, bool special_zero,
                           const reshape_options& options) {
  const auto elements = pattern.elements();
  shape in;  // its element count kept as it grows
  for (const dimension& d : input) in.push_back(d.lo());
  inline_vector<std::int64_t, small> values;
  std::int64_t* v = values.resize_for_overwrite(elements.size());
  for (std::size_t i = 0; i < elements.size(); ++i) v[i] = elements[i].lo;
  const shape out = infer_static_shape(in, values.span(), special_zero, options);
  reshape_result result;
  dimension* o = shape_access::resize_for_overwrite(result.shape, out.size());
  for (std::size_t i = 0; i < out.size(); ++i) o[i] = dimension(interval(out[i]));
  return result;
}

// ---- rows 1 and 2, scalar patterns, unknown values --------------------------------------------------

/// Rows 1 and 2, then one of the instantiations. `to_static`: plain problems go to the static one.
reshape_result infer_general(const partial_shape& input, const reshape_pattern& pattern, bool special_zero,
                             const reshape_options& options, bool to_static = true) {
  if (!is_integer(pattern.type()))
    fail(errc::pattern_type, {},
         fmt::format("pattern: element type {} is not an integer type", name(pattern.type())),
         "use an integer type such as i64 or i32");
  const auto& ts = pattern.tensor_shape();
  bool scalar = false;
  if (ts.rank_known() && ts.size() == 0) {
    if (!options.legacy_scalar_pattern)
      fail(errc::scalar_pattern, {}, "pattern: must be 1-D, got a scalar (rank-0) tensor",
           "write [v] for one output dimension or [] for a scalar output");
    scalar = true;
  } else if (ts.rank_known() && ts.size() >= 2) {
    fail(errc::pattern_rank, {}, fmt::format("pattern: must be a 1-D tensor, got shape {}", to_string(ts)),
         "a pattern lists one value per output dimension");
  }
  if (input.size() > max_rank)
    fail(errc::too_large, {}, fmt::format("input: rank {} is above reshape1's limit of {} (2^20)", input.size(), max_rank));

  // A 1-D pattern of length 0 has no unknown values: it is the empty pattern (a scalar output).
  const bool empty_vector = ts.rank_known() && ts.size() == 1 && ts[0] == dimension(0);
  if (pattern.kind() == pattern_kind::unknown && empty_vector)
    return infer_general(input, reshape_pattern::from_values({}).with_element_type(pattern.type()), special_zero,
                         options, to_static);
  if (pattern.kind() == pattern_kind::unknown) {
    reading<dimension> none_read;
    check_input_count(problem<dimension>{input.dims(), input.rank_known(), none_read, options});
    if (scalar) {  // O3 with an unknown value: the output is a scalar, so the input must be one too
      if (input.rank_known() && input.size() != 0)
        fail(errc::scalar_pattern, {},
             fmt::format("pattern: a scalar pattern gives a scalar output, but the input {} has rank {}",
                         to_string(input), input.size()));
      return {partial_shape{}, {}};
    }
    if (ts.rank_known() && ts[0].is_static()) {
      const auto length = static_cast<std::uint64_t>(ts[0].lo());
      if (length > max_rank) fail_too_long(length);
      partial_shape out;
      for (std::uint64_t i = 0; i < length; ++i) out.push_back(dimension());
      return {std::move(out), {}};
    }
    return {partial_shape::dynamic(), {}};
  }
  if (pattern.elements().size() > max_rank) fail_too_long(pattern.elements().size());

  if (ts.rank_known() && !scalar && ts[0].is_static() && static_cast<std::uint64_t>(ts[0].lo()) != pattern.elements().size())
    fail(errc::invalid_argument, {},
         fmt::format("pattern: tensor shape {} does not hold {} elements", to_string(ts), pattern.elements().size()));

  if (scalar) {
    // O3: the one value must be exactly 1; it asks for a scalar output (an empty 1-D pattern).
    const auto e = pattern.elements();
    if (e.size() != 1 || !pattern.too_large().empty() || e[0].lo != 1 || e[0].hi != 1)
      fail(errc::scalar_pattern, {}, fmt::format("pattern: a scalar pattern must hold 1, got {}", to_string(pattern)),
           fmt::format("write {} for a 1-D pattern",
                       e.size() == 1 ? fmt::format("[{}]", to_string(pattern)) : std::string("[v]")));
  }
  // O3: a scalar pattern is read as the empty 1-D pattern (built once: an immutable value).
  static const reshape_pattern empty_pattern = reshape_pattern::from_values({});
  const reshape_pattern& effective = scalar ? empty_pattern : pattern;
  if (to_static && !options.sound_bounds && plain(input, effective))
    return infer_plain(input, effective, special_zero, options);

  inline_vector<dimension, small> dims;
  reading<dimension> literal;
  read_bounds(effective, special_zero, dims, literal);
  if (options.sound_bounds) return infer_sound(input, effective, literal, special_zero, options);
  return infer_checked(problem<dimension>{input.dims(), input.rank_known(), literal, options});
}

/// The static instantiation, its steps inlined into one function of plain integer arithmetic
/// (messages stay out of line). `Inline`: the output fits the shape's inline storage, so the common case
/// (no product 0 or past 64 bits) makes no call and keeps its state in registers (bench/README.md,
/// "Design choices").
template <bool Inline>
[[gnu::flatten]] shape infer_static(const shape& input, std::span<const std::int64_t> pattern, bool special_zero,
                                    const reshape_options& options) {
  shape out;
  shape_access::set_count(out, shape_access::count(input));  // row 8: the counts agree
  std::int64_t* o = shape_access::resize_for_overwrite(out, pattern.size());
  if constexpr (Inline) {
    if (pattern.size() > small) __builtin_unreachable();
  }
  infer_checked(static_problem(input, pattern, special_zero, options, o));
  return out;
}

/// Outputs longer than the inline storage: out of line, so that the common case's frame stays small.
[[gnu::noinline]] shape infer_static_long(const shape& input, std::span<const std::int64_t> pattern, bool special_zero,
                                          const reshape_options& options) {
  if (pattern.size() > max_rank) fail_too_long(pattern.size());
  return infer_static<false>(input, pattern, special_zero, options);
}

}  // namespace

shape infer_static_shape(const shape& input, std::span<const std::int64_t> pattern, bool special_zero,
                         const reshape_options& options) {
  if (pattern.size() <= small) [[likely]]
    return infer_static<true>(input, pattern, special_zero, options);
  return infer_static_long(input, pattern, special_zero, options);
}

reshape_result infer_shape(const partial_shape& input, const reshape_pattern& pattern, bool special_zero,
                           const reshape_options& options) {
  return infer_general(input, pattern, special_zero, options);
}

reshape_result detail::infer_shape_partial(const partial_shape& input, const reshape_pattern& pattern, bool special_zero,
                                           const reshape_options& options) {
  return infer_general(input, pattern, special_zero, options, false);
}

}  // namespace reshape1
