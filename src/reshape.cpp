// Reshape-1 shape inference, general path: partial shapes, intervals, symbols, pattern bounds and
// the options. The section numbers in comments refer to docs/semantics.md.
#include <algorithm>
#include <exception>
#include <string_view>
#include <tuple>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "detail/assert.hpp"
#include "detail/checked.hpp"
#include "detail/fail.hpp"
#include "detail/static_path.hpp"
#include "reshape1/reshape.hpp"

namespace reshape1 {
namespace {

using detail::fail;

enum class role { literal, copy, marker };

/// A pattern element after reading its bounds (5.2).
struct element {
  role what = role::literal;
  dimension dim;  // literal: the output dimension; marker: `?` with the element's symbol
};

struct read_pattern {
  std::vector<element> elements;
  std::optional<std::size_t> marker;
};

std::string join_dims(const std::vector<dimension>& dims) {
  return to_string(partial_shape(dims));
}

/// The possible element counts of `dims`, as text.
std::string count_text(const std::vector<dimension>& dims) {
  const auto count = detail::count_interval(dims);
  return count ? to_string(dimension(*count)) : std::string("more than 2^63-1");
}

/// A pattern bound's upper value, with -1 read as "no upper bound" (as shape sub-graphs write it).
std::int64_t upper_bound(const pattern_bound& b) { return (b.hi == -1 && b.lo >= 0) ? interval::unbounded : b.hi; }

// ---- 5.2: reading the pattern, validation rows 3 and 4 in one scan ---------------------------

read_pattern read_elements(const reshape_pattern& pattern, bool special_zero) {
  read_pattern r;
  const auto elements = pattern.elements();
  const auto too_large = pattern.too_large();
  auto big = too_large.begin();
  r.elements.reserve(elements.size());
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (big != too_large.end() && big->first == i) {
      fail(errc::invalid_value, {.indices = {i}},
           fmt::format("pattern[{}]: value {} does not fit int64; a pattern value is -1, 0 or a dimension", i,
                       big->second));
    }
    const auto& b = elements[i];
    const std::int64_t lo = b.lo;
    const std::int64_t hi = upper_bound(b);
    if (hi < lo)
      fail(errc::invalid_value, {.indices = {i}},
           fmt::format("pattern[{}]: bounds {}..{} are empty; the lower bound must not exceed the upper", i, lo, hi));
    if (lo == -1 && hi == -1) {
      if (r.marker)
        fail(errc::multiple_infer, {.indices = {*r.marker, i}},
             fmt::format("pattern[{}] and pattern[{}]: only one -1 is allowed; give the other dimensions explicitly",
                         *r.marker, i));
      r.marker = i;
      r.elements.push_back({role::marker, dimension(interval(), b.symbol)});
    } else if (lo >= -1) {
      const interval range(std::max<std::int64_t>(lo, 0), hi);
      const bool copy = special_zero && range == interval(0);
      r.elements.push_back({copy ? role::copy : role::literal, dimension(range, b.symbol)});
    } else if (hi >= 0) {
      r.elements.push_back({role::literal, dimension(interval(), b.symbol)});  // one bound overflowed
    } else if (lo == hi) {
      fail(errc::invalid_value, {.indices = {i}}, fmt::format("pattern[{}]: value {} is invalid; use -1 to infer a dimension", i, lo));
    } else {
      fail(errc::invalid_value, {.indices = {i}},
           fmt::format("pattern[{}]: bounds {}..{} are invalid; a pattern element is -1, 0 or a dimension", i, lo, hi));
    }
  }
  return r;
}

// ---- row 5 and row 6 (input) -----------------------------------------------------------------

void check_copies(const read_pattern& r, const partial_shape& input) {
  if (!input.rank_known()) return;
  for (std::size_t i = 0; i < r.elements.size(); ++i)
    if (r.elements[i].what == role::copy && i >= input.size())
      fail(errc::copy_out_of_range, {.indices = {i}},
           fmt::format("pattern[{}]: 0 copies input dimension {}, but the input {} has rank {}; use "
                       "special_zero=false for a literal 0",
                       i, i, to_string(input), input.size()));
}

void check_input_count(const partial_shape& input) {
  if (!input.rank_known()) return;
  if (!detail::count_product(input.dims(), [](const dimension& d) { return d.lo(); }))
    fail(errc::overflow, {}, fmt::format("input: the element count of {} overflows 64 bits", to_string(input)));
}

// ---- 5.3: products with the symbol rule ------------------------------------------------------

/// running * factor: a static 1 on either side leaves the other operand as it is (symbol included;
/// when the running product is 1 the factor wins); any other product has no symbol.
std::optional<dimension> times(const dimension& running, const dimension& factor) {
  if (running.is_static() && running.lo() == 1) return factor;
  if (factor.is_static() && factor.lo() == 1) return running;
  auto p = detail::multiply(running.range(), factor.range());
  if (!p) return std::nullopt;
  return dimension(*p);
}

/// Product of static factors: exact; 0 when any factor is 0; nullopt on overflow.
std::optional<dimension> static_product(const std::vector<const dimension*>& factors) {
  dimension running(1);
  bool has_zero = false;
  for (const auto* f : factors) has_zero = has_zero || f->lo() == 0;
  for (const auto* f : factors) {
    auto next = times(running, *f);
    if (!next) return has_zero ? std::optional<dimension>(dimension(0)) : std::nullopt;
    running = std::move(*next);
  }
  return running;
}

/// Product of dynamic factors; nullopt when its lower bound overflows. Factors that can be 0 go
/// first, so that a 0 lower bound absorbs the others' overflow (the element-count rule). The order
/// changes no symbol: a product of two or more factors other than 1 has none.
std::optional<dimension> dynamic_product(dimension running, const std::vector<const dimension*>& factors) {
  for (const bool can_be_zero : {true, false})
    for (const auto* f : factors) {
      if ((f->lo() == 0) != can_be_zero) continue;
      auto next = times(running, *f);
      if (!next) return std::nullopt;
      running = std::move(*next);
    }
  return running;
}

/// Factors cancel when their keys are equal: the same interval and symbol. Only static or symbolled
/// factors other than 0 have a key (two plain `?` never cancel; zeros never do).
using cancel_key = std::tuple<std::int64_t, std::int64_t, std::string_view>;
std::optional<cancel_key> key_of(const dimension& d) {
  if (!(d.is_static() || d.has_symbol()) || d.range() == interval(0)) return std::nullopt;
  return cancel_key(d.lo(), d.hi(), d.symbol());
}

bool is_one(const dimension& d) { return d.is_static() && d.lo() == 1; }

// ---- the algorithm for one reading of the pattern --------------------------------------------

reshape_result infer_reading(const partial_shape& input, const read_pattern& r, const reshape_options& options) {
  const auto& elements = r.elements;
  std::vector<dimension> out;
  out.reserve(elements.size());
  std::vector<dimension> in_factors;
  std::vector<dimension> out_factors;          // literal output dimensions
  in_factors.reserve(input.rank_known() ? input.size() : 0);
  out_factors.reserve(elements.size());
  std::optional<dimension> unknown_rank_marker;  // 5.4: the -1 is itself a (fully unknown) output factor
  bool unknown_copy = false;

  if (input.rank_known()) {
    for (std::size_t i = 0; i < elements.size(); ++i) {
      const auto& e = elements[i];
      if (e.what == role::marker) {
        out.emplace_back();
      } else if (e.what == role::copy) {
        out.push_back(input[i]);
      } else {
        out.push_back(e.dim);
        out_factors.push_back(e.dim);
      }
      if (i < input.size() && e.what != role::copy) in_factors.push_back(input[i]);
    }
    for (std::size_t i = elements.size(); i < input.size(); ++i) in_factors.push_back(input[i]);
  } else {
    // 5.4: no input factors; a copy is unknown and makes both dynamic products unknown.
    for (const auto& e : elements) {
      if (e.what == role::copy) {
        out.emplace_back();
        unknown_copy = true;
      } else if (e.what == role::marker) {
        out.push_back(e.dim);
        unknown_rank_marker = e.dim;
      } else {
        out.push_back(e.dim);
        out_factors.push_back(e.dim);
      }
    }
  }

  reshape_result result;
  if (r.marker) {
    if (options.empty == empty_rule::tensorflow) {
      // O2 tensorflow: literal zeros leave the output product, and then zero dimensions leave the input's.
      auto is_zero = [](const dimension& d) { return d.range() == interval(0); };
      if (std::any_of(out_factors.begin(), out_factors.end(), is_zero)) {
        std::erase_if(out_factors, is_zero);
        std::erase_if(in_factors, is_zero);
      }
    }
    // Section 7: the literal output dimensions must have a product that fits before -1 is resolved.
    if (!detail::count_product(out_factors, [](const dimension& d) { return d.lo(); }))
      fail(errc::overflow, {.indices = {*r.marker}},
           fmt::format("pattern: the output dimensions other than -1 {} multiply past 64 bits", join_dims(out_factors)));
    if (unknown_rank_marker) out_factors.push_back(*unknown_rank_marker);
  }

  // Step 1: cancel pairs of the same dimension. Each input factor takes the first remaining output
  // factor it matches; output factors that can match are grouped by (interval, symbol), in order.
  std::vector<bool> cancelled(out_factors.size(), false);
  std::vector<const dimension*> rem_in_static, rem_in_dynamic, rem_out_static, rem_out_dynamic;
  // Candidates sorted by key, then by position: each key's run lists its factors in order, and the
  // run's first entry counts how many of them are taken (O(n log n) for any number of equal factors).
  struct candidate {
    cancel_key key;
    std::size_t index;
    std::size_t taken = 0;
  };
  std::vector<candidate> candidates;
  candidates.reserve(out_factors.size());
  for (std::size_t k = 0; k < out_factors.size(); ++k)
    if (const auto key = key_of(out_factors[k])) candidates.push_back({*key, k});
  std::sort(candidates.begin(), candidates.end(),
            [](const candidate& a, const candidate& b) { return std::tie(a.key, a.index) < std::tie(b.key, b.index); });
  for (const auto& d : in_factors) {
    const auto key = key_of(d);
    auto run = candidates.end();
    if (key)
      run = std::lower_bound(candidates.begin(), candidates.end(), *key,
                             [](const candidate& c, const cancel_key& k) { return c.key < k; });
    const bool found = run != candidates.end() && run->key == *key;
    // The first factor of the run not yet taken; just past the run when all are.
    const auto pick = found ? run + static_cast<std::ptrdiff_t>(run->taken) : candidates.end();
    if (pick != candidates.end() && pick->key == *key) {
      cancelled[pick->index] = true;
      ++run->taken;
    } else {
      (d.is_static() ? rem_in_static : rem_in_dynamic).push_back(&d);
    }
  }
  for (std::size_t k = 0; k < out_factors.size(); ++k)
    if (!cancelled[k]) (out_factors[k].is_static() ? rem_out_static : rem_out_dynamic).push_back(&out_factors[k]);

  // Step 2: static and dynamic products.
  const dimension start = unknown_copy ? dimension() : dimension(1);
  const auto s_in = static_product(rem_in_static);
  const auto s_out = static_product(rem_out_static);
  auto d_in = dynamic_product(start, rem_in_dynamic);
  auto d_out = dynamic_product(start, rem_out_dynamic);

  if (!r.marker) {
    // Symbol deduction: S_in == S_out != 0 forces D_in == D_out.
    if (s_in && s_out && d_in && d_out && s_in->lo() == s_out->lo() && s_in->lo() != 0) {
      if (s_in->lo() == 1 && is_one(*d_in)) d_in = *s_in;
      if (d_in->has_symbol() && d_out->has_symbol() && d_in->symbol() != d_out->symbol() &&
          d_in->range().intersects(d_out->range()))
        result.symbol_equalities.emplace_back(d_in->symbol(), d_out->symbol());
    }
  } else {
    const std::size_t m = *r.marker;
    // Section 7: a side whose static product is 0 has no elements, however large its other factors, so
    // only an overflowing dynamic product on a side without a 0 is an error. (The output side passed the
    // literal-product check above; its static factors can still overflow beside a `?`, whose lower
    // bound 0 kept that product at 0: `[8,?,9223372036854775807,-1]`.)
    auto rest_of = [](const std::vector<const dimension*>& a, const std::vector<const dimension*>& b) {
      std::vector<dimension> rest;
      for (const auto* f : a) rest.push_back(*f);
      for (const auto* f : b) rest.push_back(*f);
      return join_dims(rest);
    };
    if (!s_in || (!d_in && s_in->lo() != 0))
      fail(errc::overflow, {.indices = {m}},
           fmt::format("pattern[{}]: cannot infer -1: the input dimensions it stands for {} multiply past 64 bits", m,
                       rest_of(rem_in_static, rem_in_dynamic)));
    if (!s_out || (!d_out && s_out->lo() != 0))
      fail(errc::overflow, {.indices = {m}},
           fmt::format("pattern[{}]: cannot infer -1: the other output dimensions {} multiply past 64 bits", m,
                       rest_of(rem_out_static, rem_out_dynamic)));
    if (s_in->lo() != s_out->lo()) {
      d_in = s_in->lo() == 0 ? dimension(0) : times(*d_in, *s_in);
      d_out = s_out->lo() == 0 ? dimension(0) : times(*d_out, *s_out);
      if (!d_in || !d_out)
        fail(errc::overflow, {.indices = {m}},
             fmt::format("pattern[{}]: cannot infer -1: the element count of {} overflows 64 bits", m,
                         to_string(input)));
    } else if (s_in->lo() == 1 && is_one(*d_in)) {
      d_in = *s_in;
    }
    // Step 5: infer_zero, before the division.
    const bool zero_out = s_out->lo() == 0;
    const bool both_empty = zero_out && s_in->lo() == 0;  // any value of -1 keeps the (zero) count
    if (both_empty && options.empty == empty_rule::strict)
      fail(errc::infer_zero, {.indices = {m}},
           fmt::format("pattern[{}]: cannot infer -1 when another output dimension is 0: for the empty input {} "
                       "any value fits (empty rule strict); give the dimension explicitly",
                       m, to_string(input)));
    if (zero_out && s_in->lo() != 0)
      fail(errc::infer_zero, {.indices = {m}},
           fmt::format("pattern[{}]: cannot infer -1 when another output dimension is 0 and the input {} has no "
                       "dimension known to be 0; use special_zero=true to copy a 0, or give the dimension explicitly",
                       m, to_string(input)));
    // Step 3: the marker is D_in / D_out.
    // A dynamic product is missing (overflowed) only when both static products are 0: OpenVINO's
    // quotient then has no value, as when its interval comes out empty (D9).
    std::optional<interval> value;
    if (!d_in || !d_out) {
      RESHAPE1_ASSERT(both_empty);
    } else if (d_in->is_static() && d_out->is_static()) {
      RESHAPE1_ASSERT(d_out->lo() != 0);
      if (d_in->lo() % d_out->lo() == 0) value = interval(d_in->lo() / d_out->lo());
    } else {
      const bool upper_known = d_in->range().is_bounded() && d_out->lo() > 0 && !d_out->range().is_unknown();
      const std::int64_t hi = upper_known ? d_in->hi() / d_out->lo() : interval::unbounded;
      const std::int64_t lo = d_out->hi() != 0 ? detail::ceil_div(d_in->lo(), d_out->hi()) : d_in->lo();
      if (lo <= hi) value = interval(lo, hi);
    }
    // Both sides empty: an empty interval does not mean that no value works. Sound bounds must cover
    // the run-time answer: `?`.
    if (!value && options.sound_bounds && both_empty) value = interval();
    if (!value) {
      std::vector<dimension> others;
      for (std::size_t i = 0; i < out.size(); ++i)
        if (i != m) others.push_back(out[i]);
      if (both_empty)  // D9 with empty tensors: the count does not decide the -1
        fail(errc::not_divisible, {.indices = {m}},
             fmt::format("pattern[{}]: cannot infer -1: input {} and the other output dimensions {} are both empty, so "
                         "the element count does not fix it, and their remaining dimensions leave no value; give the "
                         "dimension explicitly or use sound bounds",
                         m, to_string(input), join_dims(others)));
      const auto input_count = input.rank_known() ? count_text(input.dims()) : std::string("?");
      fail(errc::not_divisible, {.indices = {m}},
           fmt::format("pattern[{}]: cannot infer -1: input {} has {} elements, which the other output dimensions "
                       "({}) do not divide",
                       m, to_string(input), input_count, count_text(others)));
    }
    // Step 4: the symbol survives only a division by exactly 1.
    out[m] = dimension(*value, d_in && d_out && is_one(*d_out) ? d_in->symbol() : std::string());
  }

  if (!detail::count_product(out, [](const dimension& d) { return d.lo(); }))
    fail(errc::overflow, {}, fmt::format("pattern: the element count of the output {} overflows 64 bits", join_dims(out)));

  result.shape = partial_shape(std::move(out));
  if (input.is_static() && result.shape.is_static()) {
    const auto in_count = *detail::count_product(input.dims(), [](const dimension& d) { return d.lo(); });
    const auto out_count = *detail::count_product(result.shape.dims(), [](const dimension& d) { return d.lo(); });
    if (in_count != out_count)
      fail(errc::count_mismatch, {},
           fmt::format("pattern: output {} has {} elements but input {} has {}; use 0 to copy an input dimension or "
                       "-1 to infer one",
                       to_string(result.shape), out_count, to_string(input), in_count));
  }
  return result;
}

reshape_result infer_checked(const partial_shape& input, const read_pattern& r, const reshape_options& options) {
  check_copies(r, input);
  check_input_count(input);
  return infer_reading(input, r, options);
}

// ---- O1: sound bounds ------------------------------------------------------------------------

constexpr std::size_t max_enumerated = 4;

/// The ways an element could be read at run time, when that differs from OpenVINO's one reading.
std::vector<element> readings_of(const pattern_bound& b, const element& literal, bool special_zero) {
  const std::int64_t lo = b.lo;
  const std::int64_t hi = upper_bound(b);
  if (literal.what == role::marker || hi < -1 || hi < lo) return {};
  const std::int64_t first = std::max<std::int64_t>(lo, -1);
  const bool may_infer = first <= -1;
  const bool may_copy = special_zero && first <= 0 && hi >= 0;
  if (!may_infer && !(may_copy && literal.what != role::copy)) return {};
  std::vector<element> ways;
  if (may_infer) ways.push_back({role::marker, dimension(interval(), b.symbol)});
  if (may_copy) ways.push_back({role::copy, dimension()});
  const std::int64_t literal_lo = std::max<std::int64_t>(first, special_zero ? 1 : 0);
  if (lo < -1) {
    ways.push_back(literal);  // unreliable bounds: keep OpenVINO's `?`
  } else if (literal_lo <= hi) {
    ways.push_back({role::literal, dimension(interval(literal_lo, hi), b.symbol)});
  }
  return ways;
}

std::optional<read_pattern> validate_reading(std::vector<element> elements) {
  read_pattern r;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (elements[i].what != role::marker) continue;
    if (r.marker) return std::nullopt;  // a second -1: this reading cannot happen
    r.marker = i;
  }
  r.elements = std::move(elements);
  return r;
}

reshape_result hull(const std::vector<reshape_result>& results) {
  reshape_result h = results.front();
  std::vector<dimension> dims = h.shape.dims();
  for (std::size_t k = 1; k < results.size(); ++k) {
    const auto& other = results[k].shape.dims();
    for (std::size_t i = 0; i < dims.size(); ++i) {
      const auto range = dims[i].range().hull(other[i].range());
      dims[i] = dimension(range, dims[i].symbol() == other[i].symbol() ? dims[i].symbol() : std::string());
    }
    std::erase_if(h.symbol_equalities, [&](const auto& eq) {
      return std::find(results[k].symbol_equalities.begin(), results[k].symbol_equalities.end(), eq) ==
             results[k].symbol_equalities.end();
    });
  }
  h.shape = partial_shape(std::move(dims));
  return h;
}

reshape_result infer_sound(const partial_shape& input, const reshape_pattern& pattern, const read_pattern& literal,
                           bool special_zero, const reshape_options& options) {
  std::vector<std::size_t> ambiguous;
  std::vector<std::vector<element>> ways(literal.elements.size());
  for (std::size_t i = 0; i < literal.elements.size(); ++i) {
    ways[i] = readings_of(pattern.elements()[i], literal.elements[i], special_zero);
    if (!ways[i].empty()) ambiguous.push_back(i);
  }
  if (ambiguous.empty()) return infer_checked(input, literal, options);

  if (ambiguous.size() > max_enumerated) {
    // Too many combinations: the affected dimensions and the -1 become `?`.
    read_pattern coarse = literal;
    for (auto i : ambiguous) coarse.elements[i] = {role::literal, dimension()};
    reshape_result r = infer_checked(input, coarse, options);
    std::vector<dimension> dims = r.shape.dims();
    for (auto i : ambiguous) dims[i] = dimension();
    if (coarse.marker) dims[*coarse.marker] = dimension();
    return {partial_shape(std::move(dims)), {}};
  }

  std::vector<reshape_result> results;
  std::exception_ptr first_error;
  std::vector<std::size_t> choice(ambiguous.size(), 0);
  for (;;) {
    std::vector<element> elements = literal.elements;
    for (std::size_t k = 0; k < ambiguous.size(); ++k) elements[ambiguous[k]] = ways[ambiguous[k]][choice[k]];
    if (auto r = validate_reading(std::move(elements))) {
      try {
        results.push_back(infer_checked(input, *r, options));
      } catch (const error&) {
        if (!first_error) first_error = std::current_exception();
      }
    }
    std::size_t k = 0;
    while (k < choice.size() && ++choice[k] == ways[ambiguous[k]].size()) choice[k++] = 0;
    if (k == choice.size()) break;
  }
  if (results.empty()) {
    infer_checked(input, literal, options);  // OpenVINO's reading: its error, if it has one
    if (first_error) std::rethrow_exception(first_error);
    fail(errc::not_divisible, {}, "pattern: no reading of the pattern's bounds gives a valid reshape");
  }
  return hull(results);
}

// ---- rows 1 and 2, scalar patterns, unknown values -------------------------------------------

reshape_result infer_general(const partial_shape& input, const reshape_pattern& pattern, bool special_zero,
                             const reshape_options& options) {
  if (!is_integer(pattern.type()))
    fail(errc::pattern_type, {},
         fmt::format("pattern: element type {} is not an integer type; use an integer type such as i64 or i32",
                     name(pattern.type())));
  const auto& ts = pattern.tensor_shape();
  bool scalar = false;
  if (ts.rank_known() && ts.size() == 0) {
    if (!options.legacy_scalar_pattern)
      fail(errc::scalar_pattern, {},
           "pattern: must be 1-D, got a scalar (rank-0) tensor; write [v] for one output dimension or [] for a "
           "scalar output");
    scalar = true;
  } else if (ts.rank_known() && ts.size() >= 2) {
    fail(errc::pattern_rank, {}, fmt::format("pattern: must be a 1-D tensor, got shape {}; a pattern lists one value "
                                             "per output dimension",
                                             to_string(ts)));
  }

  // A 1-D pattern of length 0 has no unknown values: it is the empty pattern (a scalar output).
  const bool empty_vector = ts.rank_known() && ts.size() == 1 && ts[0] == dimension(0);
  if (pattern.what() == reshape_pattern::kind::unknown && empty_vector)
    return infer_general(input, reshape_pattern::from_values({}).with_element_type(pattern.type()), special_zero,
                         options);
  if (pattern.what() == reshape_pattern::kind::unknown) {
    check_input_count(input);
    if (scalar) {  // O3 with an unknown value: the output is a scalar, so the input must be one too
      if (input.rank_known() && input.size() != 0)
        fail(errc::scalar_pattern, {},
             fmt::format("pattern: a scalar pattern gives a scalar output, but the input {} has rank {}",
                         to_string(input), input.size()));
      return {partial_shape{}, {}};
    }
    if (ts.rank_known() && ts[0].is_static())
      return {partial_shape(std::vector<dimension>(static_cast<std::size_t>(ts[0].lo()))), {}};
    return {partial_shape::dynamic(), {}};
  }

  if (ts.rank_known() && !scalar && ts[0].is_static() && static_cast<std::size_t>(ts[0].lo()) != pattern.elements().size())
    fail(errc::invalid_argument, {},
         fmt::format("pattern: tensor shape {} does not hold {} elements", to_string(ts), pattern.elements().size()));

  std::optional<reshape_pattern> scalar_as_empty;  // O3: the pattern read in place of a scalar one
  if (scalar) {
    // O3: the one value must be exactly 1; it asks for a scalar output (an empty 1-D pattern).
    const auto e = pattern.elements();
    if (e.size() != 1 || !pattern.too_large().empty() || e[0].lo != 1 || e[0].hi != 1)
      fail(errc::scalar_pattern, {},
           fmt::format("pattern: a scalar pattern must hold 1, got {}; write {} for a 1-D pattern", to_string(pattern),
                       e.size() == 1 ? fmt::format("[{}]", to_string(pattern)) : std::string("[v]")));
    scalar_as_empty = reshape_pattern::from_values({});
  }
  const reshape_pattern& effective = scalar_as_empty ? *scalar_as_empty : pattern;

  const read_pattern literal = read_elements(effective, special_zero);
  if (options.sound_bounds && effective.what() == reshape_pattern::kind::bounds) {
    check_copies(literal, input);  // the literal reading's row-5 error comes before any enumeration
    return infer_sound(input, effective, literal, special_zero, options);
  }
  return infer_checked(input, literal, options);
}

}  // namespace

namespace detail {
reshape_result infer_for_static_path(const shape& input, std::span<const std::int64_t> pattern, bool special_zero,
                                     const reshape_options& options) {
  return infer_general(partial_shape(input), reshape_pattern::from_values(pattern), special_zero, options);
}
}  // namespace detail

reshape_result infer_shape(const partial_shape& input, const reshape_pattern& pattern, bool special_zero,
                           const reshape_options& options) {
  return infer_general(input, pattern, special_zero, options);
}

}  // namespace reshape1
