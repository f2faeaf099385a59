// Shape ops: the model's inputs and constants, ShapeOf, Reshape (reshape1's own inference), Squeeze-1
// and -15, Unsqueeze, Range-1 and -4, and NonZero. Values pass through the ops that only change a shape.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "../../detail/decode.hpp"
#include "../../detail/fail.hpp"
#include "model/ops/rules.hpp"
#include "reshape1/reshape.hpp"

namespace reshape1::model::detail {
namespace {

// Parameter-1: the declared shape (or the one it is given); each dynamic dimension without a symbol gets
// one of its own, so that computed patterns that read it (ShapeOf) cancel against it in Reshape.
void parameter(op& o) {
  o.need(0, 1);
  const auto declared = o.given != nullptr ? *o.given : parameter_shape(o.l);
  if (!declared.rank_known()) {
    o.out[0].shape = declared;
  } else {
    std::vector<dimension> dims;
    for (std::size_t i = 0; i < declared.size(); ++i)
      dims.push_back(declared[i].is_static() || declared[i].symbol()
                         ? declared[i]
                         : dimension(declared[i].range(), fmt::format("{}.{}", o.l.name, i)));
    o.out[0].shape = partial_shape(std::move(dims));
  }
  o.out[0].type = o.l.find("element_type") ? std::optional(o.l.element("element_type")) : o.l.outputs[0].type;
}

double half_to_double(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  const double sign = (h & 0x8000) != 0 ? -1.0 : 1.0;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  if (exponent == 31) return mantissa == 0 ? sign * HUGE_VAL : NAN;
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

}  // namespace

std::optional<tensor_value> const_values(const graph& g, const layer& l, element_type type, std::int64_t count) {
  if (count < 0 || type == element_type::string) return std::nullopt;
  // The readers match the size to the shape and type: at most 8 bytes (the widest type) per value. A graph
  // built otherwise, with fewer bytes than the values take, gets no values rather than unwritten bytes.
  // (On the stack for the propagation's small Consts, which it reads at every run.)
  std::array<std::byte, 8 * max_const_values> small;
  std::vector<std::byte> large;
  const auto stored = g.const_bytes(l);
  const auto n = static_cast<std::size_t>(count);
  if (stored.size() > 8 * n || stored.size() < storage_size(type, static_cast<std::uint64_t>(count))) return std::nullopt;
  if (stored.size() > small.size()) large.resize(stored.size());
  const auto bytes = stored.size() > small.size() ? std::span(large) : std::span(small).first(stored.size());
  copy_const_bytes(g, stored, bytes);
  tensor_value v;
  if (is_integer(type)) {  // with the decoder reshape_pattern::from_tensor uses, every integer type
    v.elements.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
      const auto d = reshape1::detail::decode_integer(type, bytes.data(), k);
      if (d.too_large) return std::nullopt;  // a u64 above 2^63-1: Reshape reads it from the bytes themselves
      v.elements[k] = {d.value, d.value, {}, true};
    }
    return v;
  }
  if (type == element_type::boolean) {  // one byte each; nonzero is true (Loop's conditions)
    v.elements.reserve(n);
    for (std::size_t k = 0; k < n; ++k) {
      const std::int64_t b = bytes[k] != std::byte{0} ? 1 : 0;
      v.elements.push_back({b, b, {}, true});
    }
    return v;
  }
  if (type != element_type::f32 && type != element_type::f16 && type != element_type::f64) return std::nullopt;
  v.reals.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    if (type == element_type::f32) {
      float f = 0;
      std::memcpy(&f, bytes.data() + 4 * k, 4);
      v.reals.push_back(f);
    } else if (type == element_type::f64) {
      double f = 0;
      std::memcpy(&f, bytes.data() + 8 * k, 8);
      v.reals.push_back(f);
    } else {
      std::uint16_t h = 0;
      std::memcpy(&h, bytes.data() + 2 * k, 2);
      v.reals.push_back(half_to_double(h));
    }
  }
  if (v.reals.empty()) return std::nullopt;
  return v;
}

namespace {

// Const-1: shape and element type from the attributes; the values of small integer, boolean and real
// tensors.
void constant(op& o) {
  o.need(0, 1);
  const auto type = o.l.element("element_type");
  auto& shape_out = o.out[0].shape;
  shape_out = partial_shape();
  for (auto d : o.l.integers("shape")) shape_out.push_back(dimension(d));
  o.out[0].type = type;
  const auto count = small_count(o.out[0].shape);
  if (!count || *count > max_const_values) return;
  o.out[0].value = const_values(o.g, o.l, type, *count);
}

// ShapeOf-1, ShapeOf-3: a 1-D tensor of the input's rank whose elements are its dimensions. The shape of a
// tensor no input feeds (a ConstantOfShape of a constant) is itself a constant: a size written there is
// written down as surely as in a Const, and the analyses at new sizes must see it so.
void shape_of(op& o) {
  o.need(1, 1);
  const auto& s = o.shape(0);
  o.out[0].type = o.l.opset >= 3 ? o.l.element("output_type") : element_type::i64;
  if (!s.rank_known()) {
    o.out[0].shape = partial_shape{dimension()};
    return;
  }
  o.out[0].shape = partial_shape{dimension(static_cast<std::int64_t>(s.size()))};
  const bool constant = o.follows != nullptr && !o.l.sources.empty() && o.l.sources[0] &&
                        o.l.sources[0]->layer < o.follows->size() && !(*o.follows)[o.l.sources[0]->layer];
  tensor_value v;
  for (const auto& d : s) {
    v.elements.push_back(bound_of(d));
    v.elements.back().constant = constant && d.is_static();
  }
  o.out[0].value = std::move(v);
}

}  // namespace

reshape_pattern reshape_pattern_of(const op& o, std::vector<bool>* constant) {
  reshape_pattern pattern = reshape_pattern::unknown(o.shape(1));
  if (const auto* c = o.constant_source(1); c != nullptr) {
    const auto type = c->element("element_type");
    const auto& dims = c->integers("shape");
    if (is_integer(type) && small_count(o.shape(1))) {
      const auto stored = o.g.const_bytes(*c);
      std::vector<std::byte> bytes(stored.size());
      copy_const_bytes(o.g, stored, bytes);
      pattern = reshape_pattern::from_tensor(type, bytes, shape(std::span<const std::int64_t>(dims)));
      if (constant != nullptr) constant->assign(pattern.elements().size(), true);
    } else if (!is_integer(type)) {
      pattern = pattern.with_element_type(type);
    }
  } else if (const auto& v = o.value(1); v && !v->is_real()) {
    std::vector<pattern_bound> bounds;
    for (const auto& e : v->elements) {
      bounds.push_back({e.lo, e.hi, e.symbol});
      if (constant != nullptr) constant->push_back(e.constant);
    }
    pattern = reshape_pattern::from_bounds(std::move(bounds)).with_tensor_shape(o.shape(1));
    if (o.in[1]->type) pattern = pattern.with_element_type(*o.in[1]->type);
  }
  return pattern;
}

reshape_pattern reshape_pattern_at(const graph& g, const propagation& p, const layer& l, std::vector<bool>* constant) {
  static const tensor unknown;
  std::vector<const tensor*> in;
  for (std::size_t k = 0; k < l.inputs.size(); ++k) in.push_back(&p.input(g, l, k));
  while (in.size() < 2) in.push_back(&unknown);
  std::vector<tensor> scratch;
  return reshape_pattern_of(op{g, l, in, scratch}, constant);
}

reshape_pattern without_symbols(const reshape_pattern& pattern) {
  if (pattern.kind() == pattern_kind::unknown) return pattern;
  std::vector<pattern_bound> shown(pattern.elements().begin(), pattern.elements().end());
  for (auto& b : shown) b.symbol = {};
  return reshape_pattern::from_bounds(std::move(shown)).with_tensor_shape(pattern.tensor_shape());
}

namespace {

// Reshape-1: reshape1's own inference; the pattern is the Const's bytes (exact, any integer type) or
// the values/bounds propagated to input 1.
void reshape(op& o) {
  o.need(2, 1);
  // From an ONNX Reshape node (onnx_empty_strict): a -1 beside an output dimension of 0 is refused, as ONNX
  // Runtime refuses it.
  reshape_options options;
  const bool strict = o.l.find("onnx_empty_strict") != nullptr;
  if (strict) options.empty = empty_rule::strict;
  std::optional<std::size_t> marker;  // where the pattern holds exactly -1
  try {
    const auto pattern = reshape_pattern_of(o, nullptr);
    for (std::size_t m = 0; m < pattern.elements().size(); ++m)
      if (const auto& e = pattern.elements()[m]; e.lo == -1 && e.hi == -1) marker = m;
    o.out[0].shape = infer_shape(o.shape(0), pattern, o.l.flag("special_zero"), options).shape;
  } catch (const error& e) {
    reshape1::detail::fail(e.code(), e.where(), fmt::format("{}: {}", o.l.where(), reshape1::detail::message_of(e)), e.hint());
  }
  // ONNX Runtime also refuses a -1 beside a copied 0 ([0,3] by [0,-1]), which OpenVINO's rule cancels.
  const auto& out = o.out[0].shape;
  if (strict && marker && out.rank_known())
    for (std::size_t j = 0; j < out.size(); ++j)
      if (j != *marker && out[j].is_static() && out[j].lo() == 0)
        refuse(o, fmt::format("pattern[{}]: cannot infer -1 beside output dimension {}, which is 0", *marker, j),
               "ONNX Runtime refuses a -1 where another output dimension is 0: give the dimension");
  o.out[0].type = o.in[0]->type;
  if (o.value(0) && o.out[0].shape.is_static()) o.out[0].value = o.value(0);
}

/// Axes from input i, normalised for `rank`, each once; nullopt when unknown.
std::optional<std::vector<std::size_t>> axes(const op& o, std::size_t i, std::size_t rank) {
  const auto v = known_integers(o, i);
  if (!v) return std::nullopt;
  std::vector<std::size_t> r;
  for (auto a : *v) r.push_back(normalize_axis(o, a, rank));
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

// Squeeze-1: removes the given axes (each must be 1) or, without axes, every dimension that is 1 (from ONNX,
// an empty list of axes too).
// Squeeze-15 with allow_axis_skip keeps a given axis that is not 1 (and cannot tell the rank when a given
// axis may or may not be 1).
void squeeze(op& o) {
  o.need(1, 1);
  const auto& s = o.shape(0);
  o.out[0].type = o.in[0]->type;
  if (o.in.size() > 1 && o.shape(1).rank_known() && o.shape(1).size() > 1)
    refuse(o, fmt::format("the axes {} must be a scalar or 1-D", to_string(o.shape(1))));
  if (!s.rank_known()) return;
  const bool skip = o.l.opset >= 15 && o.l.flag("allow_axis_skip", false);
  std::vector<bool> drop(s.size(), false);
  // ONNX's Squeeze reads an empty axes list as none given, whatever computes it (ONNX Runtime squeezes every 1).
  const auto& axes_shape = o.in.size() > 1 ? o.shape(1) : partial_shape::dynamic();
  const auto listed = o.in.size() > 1 ? known_integers(o, 1) : std::nullopt;
  const bool none_given = o.g.format() == model_format::onnx && o.in.size() > 1 &&
                          ((listed && listed->empty()) ||
                           (axes_shape.rank_known() && axes_shape.size() == 1 && axes_shape[0].is_static() && axes_shape[0].lo() == 0));
  if (o.in.size() > 1 && !none_given) {
    const auto a = axes(o, 1, s.size());
    if (!a) return;
    for (auto i : *a) {
      const bool one = s[i].is_static() && s[i].lo() == 1;
      if (skip && !one && s[i].range().contains(1)) return;  // the rank depends on the data
      if (skip && !one) continue;
      if (!s[i].range().contains(1))
        refuse(o, fmt::format("axis {} has the dimension {}, which is not 1", i, to_string(dimension(s[i].range()))));
      drop[i] = true;
    }
  } else {
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (!s[i].is_static() && s[i].range().contains(1)) return;  // may or may not be removed
      drop[i] = s[i].is_static() && s[i].lo() == 1;
    }
  }
  std::vector<dimension> dims;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (!drop[i]) dims.push_back(s[i]);
  o.out[0].shape = partial_shape(std::move(dims));
  o.out[0].value = o.value(0);
}

// Unsqueeze-1: inserts dimensions of 1 at the given axes of the output. Repeated axes count once (before
// and after normalisation), as OpenVINO reads them; an empty list is refused.
void unsqueeze(op& o) {
  o.need(2, 1);
  const auto& s = o.shape(0);
  o.out[0].type = o.in[0]->type;
  if (!s.rank_known()) return;
  const auto v = known_integers(o, 1);
  if (!v) {
    const auto& a = o.shape(1);
    if (a.is_static() && a.size() == 1 && a[0].lo() == 1)
      o.out[0].shape = partial_shape(std::vector<dimension>(s.size() + 1));
    return;
  }
  if (v->empty()) refuse(o, "the axes input is empty");
  // ONNX's shape inference refuses an axis named twice (before or after counting from the end), where
  // OpenVINO counts it once.
  if (o.g.format() == model_format::onnx) {
    const auto rank = s.size() + v->size();
    std::set<std::size_t> seen;
    for (const auto a : *v)
      if (!seen.insert(normalize_axis(o, a, rank)).second)
        refuse(o, fmt::format("axis {} is named more than once", a), "ONNX's Unsqueeze takes each axis once");
  }
  std::vector<std::int64_t> unique = *v;
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  const std::size_t rank = s.size() + unique.size();
  std::set<std::size_t> axes;
  for (auto a : unique) axes.insert(normalize_axis(o, a, rank));
  std::vector<dimension> dims(s.begin(), s.end());
  for (auto a : axes) {
    if (a <= dims.size()) dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(a), dimension(1));
    else dims.emplace_back(1);
  }
  o.out[0].shape = partial_shape(std::move(dims));
  o.out[0].value = o.value(0);
}

/// A scalar input of Range: its one value (integers or reals); nullopt when unknown.
struct range_operand {
  element_bound bound;  ///< for integers
  std::optional<double> real;
};

std::optional<range_operand> range_input(const op& o, std::size_t i, const char* what) {
  const auto& s = o.shape(i);
  if (s.rank_known() && s.size() != 0 && !(s.size() == 1 && s[0].is_static() && s[0].lo() == 1))
    refuse(o, fmt::format("{} must be a scalar", what), fmt::format("its shape is {}", to_string(s)));
  const auto& v = o.value(i);
  if (!v) return std::nullopt;
  range_operand r;
  if (v->is_real()) {
    if (v->reals.size() != 1) return std::nullopt;
    r.real = v->reals[0];
    r.bound.constant = v->real_constant(0);
  } else {
    if (v->elements.size() != 1) return std::nullopt;
    r.bound = v->elements[0];
    if (r.bound.exact()) r.real = static_cast<double>(r.bound.lo);
  }
  return r;
}

/// The number of elements of a range, clamped to 0 and to the largest dimension.
std::int64_t range_length(double start, double stop, double step) {
  const double n = std::ceil((stop - start) / step);
  if (!(n > 0)) return 0;
  return n >= 9.0e18 ? interval::unbounded - 1 : static_cast<std::int64_t>(n);
}

// Range-1 and Range-4: [ceil((stop - start) / step)] (at least 0); step must not be 0. The values of a short
// integer range are carried, and of a short float range of whole numbers; a stop known only by its bounds gives an interval.
void range(op& o) {
  o.need(3, 1);
  o.out[0].type = o.l.opset >= 4 ? std::optional(o.l.element("output_type")) : o.in[0]->type;
  o.out[0].shape = partial_shape{dimension()};
  const auto start = range_input(o, 0, "start");
  const auto stop = range_input(o, 1, "stop");
  const auto step = range_input(o, 2, "step");
  if (step && step->real && *step->real == 0) refuse(o, "step is 0");
  if (!start || !stop || !step || !start->real || !step->real) return;
  bool integral = o.out[0].type && is_integer(*o.out[0].type);
  double a = *start->real, d = *step->real;
  if (integral) {  // integer ranges work on the values converted to the output type
    a = std::trunc(a);
    d = std::trunc(d);
    if (d == 0) refuse(o, "step is 0 in the output type");
  }
  if (!stop->real) {
    // An integer stop known by its bounds: the length is monotonic in it. From 0 by 1 it is the stop itself,
    // a dimension read from a shape keeping its symbol: `Range(0, shape(x)[2], 1)` is as long as x's H, which
    // what it is added to or concatenated with must then be, not a size of its own.
    const auto& b = stop->bound;
    if (a == 0 && d == 1 && b.symbol) {
      o.out[0].shape = partial_shape{dimension_from(b)};
      return;
    }
    if (b.lo == element_bound::no_lower || b.hi == element_bound::no_upper) {
      if (d > 0 && b.lo != element_bound::no_lower)
        o.out[0].shape = partial_shape{span_dimension(range_length(a, static_cast<double>(b.lo), d), interval::unbounded)};
      return;
    }
    const auto x = range_length(a, static_cast<double>(b.lo), d), y = range_length(a, static_cast<double>(b.hi), d);
    o.out[0].shape = partial_shape{span_dimension(std::min(x, y), std::max(x, y))};
    return;
  }
  const double e = integral ? std::trunc(*stop->real) : *stop->real;
  // (ONNX Runtime refuses such a range: NaN or an infinite bound has no count.)
  if (!std::isfinite((e - a) / d)) refuse(o, fmt::format("its length, ceil(({} - {}) / {}), is not a finite number", e, a, d));
  const auto n = range_length(a, e, d);
  // A length no tensor can have is refused, as Concat and Pad refuse theirs (it was shown as 2^63 - 2).
  if (n == interval::unbounded - 1)
    refuse(o, fmt::format("its length, ceil(({} - {}) / {}), overflows", e, a, d));
  o.out[0].shape = partial_shape{dimension(n)};
  if (n > max_value_elements) return;
  tensor_value v;
  const bool constant = start->bound.constant && stop->bound.constant && step->bound.constant;
  if (!integral) {
    // Whole values only, each exact in the output type whichever way a runtime computes them (start + k*step or
    // a running sum): `arange(24.0)`, a count a program made of a size, is then seen counting.
    const auto type = o.out[0].type;
    const double exact_below = !type                                                      ? 0
                               : *type == element_type::f32 || *type == element_type::f64 ? 16777216.0
                               : *type == element_type::f16                               ? 2048.0
                               : *type == element_type::bf16                              ? 256.0
                                                                                          : 0;
    const double last = a + static_cast<double>(n - 1) * d;
    if (n == 0 || a != std::trunc(a) || d != std::trunc(d) || !(std::abs(a) <= exact_below) || !(std::abs(last) <= exact_below))
      return;
    for (std::int64_t k = 0; k < n; ++k) v.push_real(a + static_cast<double>(k) * d, constant);
    o.out[0].value = std::move(v);
    return;
  }
  for (std::int64_t k = 0; k < n; ++k) {
    const double x = a + static_cast<double>(k) * d;
    if (std::abs(x) >= 9.0e18) return;
    const auto z = static_cast<std::int64_t>(x);
    v.elements.push_back({z, z, {}, constant});
  }
  o.out[0].value = std::move(v);
}

// NonZero-3: [rank, count]; the count is exact when the input's values are, an interval otherwise. A
// scalar is read as one element of rank 1 where it is not zero: OpenVINO gives [1,1] for it and [0,0] for a
// zero, ONNX Runtime [1,1] and [1,0] (a model read from ONNX gets ONNX Runtime's).
void non_zero(op& o) {
  o.need(1, 1);
  const auto& s = o.shape(0);
  o.out[0].type = o.l.element("output_type");
  const dimension rank = s.rank_known() ? dimension(static_cast<std::int64_t>(s.size())) : dimension();
  dimension count;
  if (const auto& v = o.value(0); v) {
    std::int64_t lo = 0, hi = 0;
    if (v->is_real()) {
      for (double r : v->reals) lo += r != 0 ? 1 : 0;
      hi = lo;
    } else {
      for (const auto& e : v->elements) {
        lo += (e.lo > 0 || e.hi < 0) ? 1 : 0;
        hi += (e.lo == 0 && e.hi == 0) ? 0 : 1;
      }
    }
    count = span_dimension(lo, hi);
  } else if (s.rank_known()) {
    std::int64_t total = 1;
    bool bounded = true;
    for (const auto& d : s) {
      if (!d.range().is_bounded() || __builtin_mul_overflow(total, d.hi(), &total)) bounded = false;
      if (!bounded) break;
    }
    count = span_dimension(0, bounded ? total : interval::unbounded);
  }
  if (s.rank_known() && s.size() == 0) {
    if (o.g.format() == model_format::onnx) {
      o.out[0].shape = partial_shape{dimension(1), count};
    } else {
      const auto n = count.range().is_bounded() ? std::min<std::int64_t>(count.hi(), 1) : 1;
      const auto lo = std::min<std::int64_t>(count.lo(), 1);
      o.out[0].shape = partial_shape{span_dimension(lo, n), span_dimension(lo, n)};
    }
    return;
  }
  o.out[0].shape = partial_shape{rank, count};
  // The positions themselves where every value is known and of a static shape: indices computed from constants
  // (`nonzero(mask)` of a mask a fixed-shape export folded) are looked at as a Const's are (check --shape).
  const auto& v = o.value(0);
  if (!v || !count.is_static() || !s.is_static() || s.size() == 0 ||
      static_cast<std::int64_t>(s.size()) * count.lo() > max_value_elements)
    return;
  const auto n = v->is_real() ? v->reals.size() : v->elements.size();
  std::vector<std::size_t> at;  // the flat positions of the values that are not zero, and whether all are constant
  bool constant = true;
  for (std::size_t k = 0; k < n; ++k) {
    const bool nonzero = v->is_real() ? v->reals[k] != 0 : v->elements[k].lo != 0;
    constant = constant && (v->is_real() ? v->real_constant(k) : v->elements[k].constant);
    if (nonzero) at.push_back(k);
  }
  if (static_cast<std::int64_t>(at.size()) != count.lo()) return;
  tensor_value out;
  out.elements.resize(s.size() * at.size());
  for (std::size_t j = 0; j < at.size(); ++j) {
    auto rest = at[j];
    for (std::size_t a = s.size(); a-- > 0;) {
      const auto extent = static_cast<std::size_t>(s[a].lo());
      const auto i = static_cast<std::int64_t>(extent == 0 ? 0 : rest % extent);
      out.elements[a * at.size() + j] = {i, i, {}, constant};
      rest = extent == 0 ? 0 : rest / extent;
    }
  }
  o.out[0].value = std::move(out);
}

constexpr rule_entry shape_ops_table[] = {
    {"Parameter", 1, parameter, batch::source, no_values},
    {"Const", 1, constant, batch::source, no_values},
    {"ShapeOf", 1, shape_of, batch::shape_of, no_values},
    {"ShapeOf", 3, shape_of, batch::shape_of, no_values},
    {"Reshape", 1, reshape, batch::reshape, reads_values(1)},
    {"Squeeze", 1, squeeze, batch::squeeze, reads_values(1)},
    {"Unsqueeze", 1, unsqueeze, batch::unsqueeze, reads_values(1)},
    {"NonZero", 3, non_zero, batch::non_zero, reads_values(0)},
    {"Squeeze", 15, squeeze, batch::squeeze, reads_values(1)},
    {"Range", 1, range, batch::cannot_tell, reads_values(0, 1, 2)},
    {"Range", 4, range, batch::cannot_tell, reads_values(0, 1, 2)},
};

}  // namespace

std::span<const rule_entry> shape_rules() { return shape_ops_table; }

}  // namespace reshape1::model::detail
