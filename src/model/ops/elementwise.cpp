// Element-wise ops: NumPy- or PDPD-broadcast arithmetic, comparisons and logical ops (with interval
// values), the bitwise ops, Select, the unary activations and math functions, Convert and ConvertLike,
// FakeQuantize, and the ops that keep their input's shape (SoftMax, MVN, NormalizeL2, CumSum, PReLU, Result).
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "model/ops/rules.hpp"

namespace reshape1::model::detail {
namespace {

constexpr auto no_lower = element_bound::no_lower;
constexpr auto no_upper = element_bound::no_upper;

enum class arith {
  add, subtract, multiply, divide, divide_trunc, mod, equal, greater,
  maximum, minimum, power, squared_difference, floor_mod,
  less, less_equal, greater_equal, not_equal, logical_and, logical_or, logical_xor
};

constexpr bool is_comparison(arith op) {
  return op == arith::equal || op == arith::greater || op == arith::less || op == arith::less_equal ||
         op == arith::greater_equal || op == arith::not_equal;
}
constexpr bool is_logical(arith op) {
  return op == arith::logical_and || op == arith::logical_or || op == arith::logical_xor;
}
constexpr bool is_boolean_result(arith op) { return is_comparison(op) || is_logical(op); }

/// 0..1 bounds for a boolean result: exact when `always` or `never` holds.
element_bound truth(bool always, bool never, bool constant) {
  return {never ? 0 : (always ? 1 : 0), always ? 1 : (never ? 0 : 1), {}, constant};
}

/// Whether an element is certainly nonzero / certainly zero.
bool surely_true(const element_bound& e) { return e.lo > 0 || e.hi < 0; }
bool surely_false(const element_bound& e) { return e.lo == 0 && e.hi == 0; }

/// The ops whose values are only carried when both operands are exact.
std::optional<std::int64_t> exact_result(arith op, std::int64_t x, std::int64_t y) {
  std::int64_t z = 0;
  switch (op) {
    case arith::floor_mod: {  // the sign follows the divisor
      if (y == 0) return std::nullopt;
      if (y == -1) return 0;
      z = x % y;
      if (z != 0 && ((z < 0) != (y < 0))) z += y;
      return z;
    }
    case arith::power: {
      // 1, 0 and -1 to any power without a loop (-1's sign alternates); the others overflow within 63 steps.
      if (x == 1 || y == 0) return 1;
      if (x == -1) return y % 2 == 0 ? 1 : -1;
      if (y < 0) return std::nullopt;
      if (x == 0) return 0;
      std::int64_t r = 1;
      for (std::int64_t k = 0; k < y; ++k)
        if (__builtin_mul_overflow(r, x, &r)) return std::nullopt;
      return r;
    }
    case arith::squared_difference:
      if (__builtin_sub_overflow(x, y, &z) || __builtin_mul_overflow(z, z, &z)) return std::nullopt;
      return z;
    default: return std::nullopt;
  }
}

/// Add, Subtract, Multiply or Divide of two bounded intervals: the extremes are at the corners. `r` is the
/// unknown result to narrow; left so when a step overflows.
element_bound at_corners(arith op, const element_bound& a, const element_bound& b, element_bound r) {
  std::int64_t lo = no_upper, hi = no_lower;
  for (auto x : {a.lo, a.hi})
    for (auto y : {b.lo, b.hi}) {
      std::int64_t z = 0;
      bool overflow = false;
      switch (op) {
        case arith::add: overflow = __builtin_add_overflow(x, y, &z); break;
        case arith::subtract: overflow = __builtin_sub_overflow(x, y, &z); break;
        case arith::multiply: overflow = __builtin_mul_overflow(x, y, &z); break;
        case arith::divide_trunc:  // Divide with m_pythondiv false, and ONNX's Div: toward zero, as C
          if (x == no_lower && y == -1) return r;
          z = x / y;
          break;
        default:  // integer Divide rounds toward negative infinity (Python's //)
          if (x == no_lower && y == -1) return r;
          z = x / y - ((x % y != 0) && ((x < 0) != (y < 0)) ? 1 : 0);
      }
      if (overflow) return r;
      lo = std::min(lo, z);
      hi = std::max(hi, z);
    }
  r.lo = lo;
  r.hi = hi;
  const bool identity =
      b.exact() && ((op == arith::multiply || op == arith::divide || op == arith::divide_trunc) ? b.lo == 1 : b.lo == 0);
  if (identity) r.symbol = a.symbol;
  return r;
}

/// Interval arithmetic over the bounds' corners; unknown when a bound is open or a step overflows.
element_bound combine(arith op, const element_bound& a, const element_bound& b) {
  element_bound r;
  r.constant = a.constant && b.constant;
  switch (op) {
    case arith::less: return truth(a.hi < b.lo, a.lo >= b.hi, r.constant);
    case arith::less_equal: return truth(a.hi <= b.lo, a.lo > b.hi, r.constant);
    case arith::greater_equal: return truth(a.lo >= b.hi, a.hi < b.lo, r.constant);
    case arith::not_equal: {
      const auto eq = combine(arith::equal, a, b);
      return truth(eq.hi == 0, eq.lo == 1, r.constant);
    }
    case arith::logical_and:
      return truth(surely_true(a) && surely_true(b), surely_false(a) || surely_false(b), r.constant);
    case arith::logical_or:
      return truth(surely_true(a) || surely_true(b), surely_false(a) && surely_false(b), r.constant);
    case arith::logical_xor: {
      const bool known = (surely_true(a) || surely_false(a)) && (surely_true(b) || surely_false(b));
      const bool value = surely_true(a) != surely_true(b);
      return truth(known && value, known && !value, r.constant);
    }
    case arith::maximum:
    case arith::minimum: {
      const bool max = op == arith::maximum;
      r.lo = max ? std::max(a.lo, b.lo) : std::min(a.lo, b.lo);
      r.hi = max ? std::max(a.hi, b.hi) : std::min(a.hi, b.hi);
      // One operand always wins: the result is that operand (its symbol too).
      if (max ? a.lo >= b.hi : a.hi <= b.lo) r.symbol = a.symbol;
      else if (max ? b.lo >= a.hi : b.hi <= a.lo) r.symbol = b.symbol;
      return r;
    }
    case arith::power:
    case arith::squared_difference:
      if (a.exact() && b.exact())
        if (const auto z = exact_result(op, a.lo, b.lo)) r.lo = r.hi = *z;
      return r;
    default: break;
  }
  if ((op == arith::floor_mod || op == arith::mod) && b.exact() && b.lo > 0 && a.lo >= 0) {
    // A remainder of a count by a positive constant is below it, whatever the count: a pad to a multiple,
    // (m - d mod m) mod m, is bounded where d is a size not known yet. (Both remainders agree there.)
    if (a.exact()) {
      r.lo = r.hi = a.lo % b.lo;
    } else if (a.hi < b.lo) {
      r.lo = a.lo;
      r.hi = a.hi;
      r.symbol = a.symbol;
    } else {
      r.lo = 0;
      r.hi = b.lo - 1;
    }
    return r;
  }
  if (op == arith::floor_mod) {
    if (a.exact() && b.exact())
      if (const auto z = exact_result(op, a.lo, b.lo)) r.lo = r.hi = *z;
    return r;
  }
  if (op == arith::equal || op == arith::greater) {
    r.lo = 0;
    r.hi = 1;
    if (op == arith::equal && a.exact() && b.exact()) r.lo = r.hi = a.lo == b.lo ? 1 : 0;
    if (op == arith::equal && (a.hi < b.lo || b.hi < a.lo)) r.hi = 0;
    if (op == arith::greater && a.lo > b.hi) r.lo = 1;
    if (op == arith::greater && a.hi <= b.lo) r.hi = 0;
    return r;
  }
  const bool known = a.lo != no_lower && a.hi != no_upper && b.lo != no_lower && b.hi != no_upper;
  if (!known) {
    // x + c and x - c keep a lower bound.
    if ((op == arith::add || op == arith::subtract) && a.lo != no_lower && b.exact()) {
      std::int64_t lo = 0;
      if (!__builtin_add_overflow(a.lo, op == arith::add ? b.lo : -b.lo, &lo) && b.lo != no_lower) r.lo = lo;
    }
    return r;
  }
  if (op == arith::mod) {
    if (a.exact() && b.exact() && b.lo != 0)  // the sign follows the dividend
      r.lo = r.hi = b.lo == -1 ? 0 : a.lo % b.lo;
    return r;
  }
  if ((op == arith::divide || op == arith::divide_trunc) && b.lo <= 0 && b.hi >= 0) return r;
  return at_corners(op, a, b, r);
}

double combine_real(arith op, double a, double b) {
  switch (op) {
    case arith::add: return a + b;
    case arith::subtract: return a - b;
    case arith::multiply: return a * b;
    case arith::divide:
    case arith::divide_trunc: return a / b;
    case arith::mod: return std::fmod(a, b);
    case arith::equal: return a == b ? 1 : 0;
    case arith::greater: return a > b ? 1 : 0;
    case arith::maximum: return std::max(a, b);
    case arith::minimum: return std::min(a, b);
    case arith::power: return std::pow(a, b);
    case arith::squared_difference: return (a - b) * (a - b);
    case arith::floor_mod: return a - b * std::floor(a / b);
    case arith::less: return a < b ? 1 : 0;
    case arith::less_equal: return a <= b ? 1 : 0;
    case arith::greater_equal: return a >= b ? 1 : 0;
    case arith::not_equal: return a != b ? 1 : 0;
    case arith::logical_and: return (a != 0 && b != 0) ? 1 : 0;
    case arith::logical_or: return (a != 0 || b != 0) ? 1 : 0;
    case arith::logical_xor: return ((a != 0) != (b != 0)) ? 1 : 0;
  }
  return 0;
}

bool is_real_type(const std::optional<element_type>& t) { return t && !is_integer(*t) && *t != element_type::boolean; }

std::optional<double> real_at(const tensor_value& v, std::size_t i) {
  if (v.is_real()) return v.reals[i];
  const auto& e = v.elements[i];
  return e.exact() ? std::optional<double>(static_cast<double>(e.lo)) : std::nullopt;
}

bool constant_at(const tensor_value& v, std::size_t i) { return v.is_real() ? v.real_constant(i) : v.elements[i].constant; }

/// PDPD broadcasting: the second shape broadcasts to the first, placed at `axis` (-1: aligned to the right);
/// its trailing 1s are ignored and its other dimensions are 1 or the first shape's.
partial_shape pdpd_broadcast(const op& o, const partial_shape& a, const partial_shape& b) {
  if (!a.rank_known()) return a;
  if (!b.rank_known()) return a;
  std::size_t used = b.size();
  while (used > 0 && b[used - 1].is_static() && b[used - 1].lo() == 1) --used;
  if (b.size() > a.size())
    refuse(o, fmt::format("PDPD broadcasting: the second shape {} has a higher rank than the first {}", to_string(b),
                          to_string(a)));
  auto axis = o.l.integer("axis", -1);
  if (axis == -1) axis = static_cast<std::int64_t>(a.size() - b.size());
  if (axis < 0 || static_cast<std::size_t>(axis) + used > a.size())
    refuse(o, fmt::format("PDPD broadcasting: axis {} does not place {} inside {}", o.l.integer("axis", -1),
                          to_string(b), to_string(a)));
  std::vector<dimension> out(a.begin(), a.end());
  for (std::size_t i = 0; i < used; ++i) {
    if (b[i].is_static() && b[i].lo() == 1) continue;
    auto& d = out[static_cast<std::size_t>(axis) + i];
    if (d.is_static() && d.lo() == 1 && !b[i].range().contains(1))
      refuse(o, fmt::format("PDPD broadcasting: {} does not broadcast to {} (dimension {})", to_string(b),
                            to_string(a), i));
    d = merge(o, d, b[i], fmt::format("PDPD broadcasting of {} to {} at dimension {}", to_string(b), to_string(a), i));
  }
  return partial_shape(std::move(out));
}

/// The output shape of a binary element-wise op under its auto_broadcast mode.
partial_shape binary_shape(const op& o) {
  const auto mode = o.l.text("auto_broadcast", "numpy");
  if (mode == "none") {
    if (o.shape(0).rank_known() && o.shape(1).rank_known() && o.shape(0).size() != o.shape(1).size())
      refuse(o, fmt::format("auto_broadcast is none but the shapes {} and {} differ in rank", to_string(o.shape(0)),
                            to_string(o.shape(1))));
    if (!o.shape(0).rank_known() || !o.shape(1).rank_known()) return partial_shape::dynamic();
    std::vector<dimension> out;
    for (std::size_t i = 0; i < o.shape(0).size(); ++i)
      out.push_back(merge(o, o.shape(0)[i], o.shape(1)[i], fmt::format("auto_broadcast none: dimension {}", i)));
    return partial_shape(std::move(out));
  }
  if (mode == "pdpd") return pdpd_broadcast(o, o.shape(0), o.shape(1));
  if (mode != "numpy") refuse(o, fmt::format("auto_broadcast '{}' is not none, numpy or pdpd", mode));
  auto out = broadcast(o, o.shape(0), o.shape(1));
  // An op the ONNX reader lowered where ONNX broadcasts one way (attribute onnx_one_way: Gemm's C, a
  // convolution's bias, a quantisation parameter, LayerNormalization's scale and bias): input 1 broadcasts
  // to input 0, which it must not grow. NumPy's alignment otherwise, so that the batch rules read it as any
  // numpy op.
  if (const auto& a = o.shape(0); o.l.find("onnx_one_way") != nullptr && a.rank_known() && out.rank_known()) {
    if (out.size() != a.size())
      refuse(o, fmt::format("{} does not broadcast to {} one way: its rank is higher", to_string(o.shape(1)), to_string(a)));
    for (std::size_t i = 0; i < a.size(); ++i)
      if (out[i].is_static() && a[i].is_static() && out[i].lo() != a[i].lo())
        refuse(o, fmt::format("{} does not broadcast to {} one way: it grows dimension {} to {}", to_string(o.shape(1)),
                              to_string(a), i, out[i].lo()));
  }
  return out;
}

template <arith Op>
void binary(op& o) {
  o.need(2, 1);
  o.out[0].shape = binary_shape(o);
  o.out[0].type = is_boolean_result(Op) ? std::optional(element_type::boolean) : o.in[0]->type;
  if (o.l.text("auto_broadcast", "numpy") == "pdpd") return;  // values follow NumPy's positions only
  const auto& a = o.value(0);
  const auto& b = o.value(1);
  const auto count = small_count(o.out[0].shape);
  if (!a || !b || !count) return;
  const auto out = o.out[0].shape.to_static();
  const auto pa = broadcast_positions(o.shape(0).to_static(), out);
  const auto pb = broadcast_positions(o.shape(1).to_static(), out);
  tensor_value v;
  const bool real = a->is_real() || b->is_real() ||
                    (is_real_type(o.out[0].type) && (Op == arith::divide || Op == arith::divide_trunc));
  for (std::size_t k = 0; k < pa.size(); ++k) {
    if (real) {
      const auto x = real_at(*a, pa[k]), y = real_at(*b, pb[k]);
      if (!x || !y) return;
      const double z = combine_real(Op, *x, *y);
      const bool constant = constant_at(*a, pa[k]) && constant_at(*b, pb[k]);
      if (is_boolean_result(Op) || (!is_real_type(o.out[0].type) && z == std::trunc(z) && std::abs(z) < 9.0e18)) {
        v.elements.push_back({static_cast<std::int64_t>(z), static_cast<std::int64_t>(z), {}, constant});
      } else {
        v.push_real(z, constant);
      }
    } else {
      v.elements.push_back(combine(Op, a->elements[pa[k]], b->elements[pb[k]]));
    }
  }
  if (!v.elements.empty() && !v.reals.empty()) return;
  o.out[0].value = std::move(v);
}

// Divide-1: integers rounded toward negative infinity (m_pythondiv true, the default) or toward zero.
void divide(op& o) {
  if (o.l.flag("m_pythondiv", true)) return binary<arith::divide>(o);
  binary<arith::divide_trunc>(o);
}

// Select-1: the three inputs broadcast together; the value is known where the condition is.
void select(op& o) {
  o.need(3, 1);
  o.out[0].shape = broadcast(o, broadcast(o, o.shape(0), o.shape(1)), o.shape(2));
  o.out[0].type = o.in[1]->type;
  const auto count = small_count(o.out[0].shape);
  const auto &c = o.value(0), &t = o.value(1), &f = o.value(2);
  if (!count || !c || !t || !f || c->is_real() || t->is_real() || f->is_real()) return;
  const auto out = o.out[0].shape.to_static();
  const auto pc = broadcast_positions(o.shape(0).to_static(), out);
  const auto pt = broadcast_positions(o.shape(1).to_static(), out);
  const auto pf = broadcast_positions(o.shape(2).to_static(), out);
  tensor_value v;
  for (std::size_t k = 0; k < pc.size(); ++k) {
    const auto& cond = c->elements[pc[k]];
    const auto& x = t->elements[pt[k]];
    const auto& y = f->elements[pf[k]];
    if (cond.exact()) {
      v.elements.push_back(cond.lo != 0 ? x : y);
    } else {
      v.elements.push_back({std::min(x.lo, y.lo), std::max(x.hi, y.hi), {}, x.constant && y.constant});
    }
  }
  o.out[0].value = std::move(v);
}

/// The output is input 0, shape and type.
void same_shape(op& o) {
  o.need(1, 1);
  o.out[0].shape = o.shape(0);
  o.out[0].type = o.in[0]->type;
}

/// Integer values element by element (exact elements only; the others become unknown).
template <class F>
void map_values(op& o, F f) {
  const auto& v = o.value(0);
  if (!v || v->is_real()) return;
  tensor_value r;
  for (const auto& e : v->elements) {
    element_bound b;
    b.constant = e.constant;
    if (e.exact())
      if (const auto z = f(e.lo)) b.lo = b.hi = *z;
    r.elements.push_back(b);
  }
  o.out[0].value = std::move(r);
}

// Negative-1 and Abs-1: the shape, and integer values negated or made absolute.
void negative(op& o) {
  same_shape(o);
  map_values(o, [](std::int64_t x) { return x == no_lower ? std::nullopt : std::optional<std::int64_t>(-x); });
}
void absolute(op& o) {
  same_shape(o);
  map_values(o, [](std::int64_t x) { return x == no_lower ? std::nullopt : std::optional<std::int64_t>(x < 0 ? -x : x); });
}

// LogicalNot-1: the shape; boolean.
void logical_not(op& o) {
  same_shape(o);
  o.out[0].type = element_type::boolean;
  map_values(o, [](std::int64_t x) { return std::optional<std::int64_t>(x == 0 ? 1 : 0); });
}

/// Inputs 1.. of HardSigmoid and Selu are scalars (or hold one element).
void scalar_inputs(const op& o, std::initializer_list<const char*> names) {
  std::size_t i = 1;
  for (const char* n : names) {
    const auto& s = o.shape(i++);
    if (!s.rank_known()) continue;
    const bool one = s.size() == 0 || (s.size() == 1 && s[0].range().contains(1));
    if (!one) refuse(o, fmt::format("{} must be a scalar", n), fmt::format("its shape is {}", to_string(s)));
  }
}

// HardSigmoid-1 (data, alpha, beta) and Selu-1 (data, alpha, lambda): the data's shape.
void hard_sigmoid(op& o) {
  o.need(3, 1);
  same_shape(o);
  scalar_inputs(o, {"alpha", "beta"});
}
void selu(op& o) {
  o.need(3, 1);
  same_shape(o);
  scalar_inputs(o, {"alpha", "lambda"});
}

// Elu-1: the shape; alpha is one number.
void elu(op& o) {
  same_shape(o);
  if (o.l.reals("alpha").size() != 1) refuse(o, fmt::format("alpha is '{}', not one number", o.l.text("alpha", "")));
}

// Gelu-2 and Gelu-7 (approximation_mode erf or tanh): the shape.
void gelu(op& o) {
  same_shape(o);
  if (o.l.opset < 7) return;
  const auto mode = o.l.text("approximation_mode", "erf");
  if (mode != "erf" && mode != "ERF" && mode != "tanh" && mode != "TANH")
    refuse(o, fmt::format("approximation_mode '{}' is not erf or tanh", mode));
}

/// A real value as a tensor of type `t` holds it: values are carried as doubles, but an f32 computation
/// rounds each result to f32 (10 * 0.7f is 7 in f32, 6.99999988 in double), and a rounding or a conversion
/// to an integer must see that value. f16 and bf16 results are not modelled: nullopt.
std::optional<double> as_held(double x, std::optional<element_type> t) {
  if (!t || *t == element_type::f64) return x;
  if (*t == element_type::f32) return static_cast<double>(static_cast<float>(x));
  return std::nullopt;
}

/// Real values rounded by `f`, each keeping whether it is a constant; integers are their own rounding. A
/// size computed as floor(h * scale), or a constant written as Cast(Floor(c)), keeps its value this way,
/// as Convert's truncation keeps it: the analyses can then tell a size that follows the input from one
/// baked into the model.
template <class F>
void rounded_values(op& o, F f) {
  const auto& v = o.value(0);
  if (!v) return;
  if (!v->is_real()) {
    o.out[0].value = v;
    return;
  }
  tensor_value r;
  for (std::size_t i = 0; i < v->reals.size(); ++i) {
    const auto x = as_held(v->reals[i], o.in[0]->type);
    if (!x) return;
    r.push_real(f(*x), v->real_constant(i));
  }
  o.out[0].value = std::move(r);
}

// Floor-1, Ceiling-1: the shape; values rounded down, up.
void floor_op(op& o) {
  same_shape(o);
  rounded_values(o, [](double x) { return std::floor(x); });
}
void ceiling_op(op& o) {
  same_shape(o);
  rounded_values(o, [](double x) { return std::ceil(x); });
}

/// Sqrt-1 and Exp-1: the shape; the values of real inputs through `f`, each held in the tensor's type. A
/// constant an export folded behind them (a scale written as sqrt(1/225), a count as exp(log(15))) is then a
/// value the analyses compare with the sizes, as the same constant written out is. Integers (whose results an
/// engine rounds its own way) and results that are not finite get none.
template <double (*F)(double)>
void real_function(op& o) {
  same_shape(o);
  const auto& v = o.value(0);
  if (!v || !v->is_real()) return;
  tensor_value r;
  for (std::size_t i = 0; i < v->reals.size(); ++i) {
    const auto x = as_held(v->reals[i], o.in[0]->type);
    const auto y = x ? as_held(F(*x), o.in[0]->type) : std::nullopt;
    if (!y || !std::isfinite(*y)) return;
    r.push_real(*y, v->real_constant(i));
  }
  o.out[0].value = std::move(r);
}
double square_root(double x) { return std::sqrt(x); }
double exponential(double x) { return std::exp(x); }

// Round-5: the shape; mode half_to_even or half_away_from_zero; values rounded so.
void round_op(op& o) {
  same_shape(o);
  const auto mode = o.l.text("mode", "half_to_even");
  if (mode != "half_to_even" && mode != "half_away_from_zero")
    refuse(o, fmt::format("mode '{}' is not half_to_even or half_away_from_zero", mode));
  if (mode == "half_away_from_zero") return rounded_values(o, [](double x) { return std::round(x); });
  rounded_values(o, [](double x) {
    // Ties to even: nearest, and where x is halfway, the even one of the two.
    const double down = std::floor(x), diff = x - down;
    if (diff != 0.5) return std::round(x);
    return std::fmod(down, 2.0) == 0.0 ? down : down + 1.0;
  });
}

/// An integer as type `to` holds it: a boolean is 0 or 1; a narrower integer type wraps (two's complement,
/// as C++ and ONNX Runtime convert). nullopt for a type not modelled.
std::optional<std::int64_t> wrapped(std::int64_t x, element_type to) {
  if (to == element_type::boolean) return x != 0 ? 1 : 0;
  const int bits = bit_width(to);
  if (bits >= 64) return x;
  if (bits <= 0) return std::nullopt;
  const auto u = static_cast<std::uint64_t>(x) & ((std::uint64_t{1} << bits) - 1);
  if (is_signed_integer(to) && (u >> (bits - 1)) != 0) return static_cast<std::int64_t>(u) - (std::int64_t{1} << bits);
  return static_cast<std::int64_t>(u);
}

/// Values converted from `from` to `to` (Convert, ConvertLike): reals truncate toward zero into an integer
/// type (as their source type holds them; out of range: unknown), integers wrap into a narrower one (a
/// finite bound that would wrap: unknown), reals stay reals and integers integers otherwise.
void converted_values(op& o, std::optional<element_type> from, std::optional<element_type> to) {
  const auto& v = o.value(0);
  if (!v) return;
  const bool to_integer = to && (is_integer(*to) || *to == element_type::boolean);
  if (!to_integer) {
    if (!v->is_real() || !to || is_real_type(to)) o.out[0].value = v;
    return;
  }
  tensor_value r;
  if (v->is_real()) {
    for (std::size_t i = 0; i < v->reals.size(); ++i) {
      const auto x = as_held(v->reals[i], from);
      if (!x || !std::isfinite(*x) || std::abs(*x) > 9.0e18) return;
      const auto t = static_cast<std::int64_t>(std::trunc(*x));
      const auto z = *to == element_type::boolean ? std::optional<std::int64_t>(*x != 0 ? 1 : 0) : wrapped(t, *to);
      if (!z || (*to != element_type::boolean && *z != t)) return;  // out of the type's range
      r.elements.push_back({*z, *z, {}, v->real_constant(i)});
    }
  } else {
    for (const auto& b : v->elements) {
      auto e = b;
      if (b.exact()) {
        const auto z = wrapped(b.lo, *to);
        if (!z) return;
        if (*z != b.lo) e = {*z, *z, {}, b.constant};
      } else {
        // A finite bound past the type's range: some values wrap, the bounds say nothing. An open bound
        // (0.., a size) is kept as it is: sizes do not reach 2^31.
        const auto past = [&](std::int64_t x) {
          const auto w = wrapped(x, *to);
          return x != no_lower && x != no_upper && (!w || *w != x);
        };
        if (past(b.lo) || past(b.hi)) e = {no_lower, no_upper, {}, b.constant};
      }
      r.elements.push_back(e);
    }
  }
  o.out[0].value = std::move(r);
}

// ConvertLike-1: the shape of input 0 in the element type of input 1; values as Convert carries them.
void convert_like(op& o) {
  o.need(2, 1);
  o.out[0].shape = o.shape(0);
  o.out[0].type = o.in[1]->type ? o.in[1]->type : o.declared_type(0);
  converted_values(o, o.in[0]->type, o.out[0].type);
}

// Result-1: no output.
void result(op& o) { o.need(1, 0); }

// Convert-1: the shape; integer values pass (reals truncate toward zero when they become integers).
void convert(op& o) {
  o.need(1, 1);
  const auto to = o.l.element("destination_type");
  o.out[0].shape = o.shape(0);
  o.out[0].type = to;
  converted_values(o, o.in[0]->type, to);
}

// SoftMax-1 (axis in [0, rank)) and SoftMax-8 (axis in [-rank, rank)).
void softmax(op& o) {
  same_shape(o);
  const auto axis = o.l.integer("axis", 1);
  if (!o.shape(0).rank_known()) return;
  if (o.l.opset == 1 && axis < 0) refuse(o, fmt::format("axis {} must not be negative in SoftMax-1", axis));
  (void)normalize_axis(o, axis, o.shape(0).size());
}

// MVN-6 and NormalizeL2-1: the shape of input 0; the axes (input 1) must name its dimensions.
void with_axes(op& o) {
  o.need(2, 1);
  same_shape(o);
  const auto axes = known_integers(o, 1);
  if (!axes || !o.shape(0).rank_known()) return;
  for (auto a : *axes) (void)normalize_axis(o, a, o.shape(0).size());
}

// PReLU-1: the shape of the data; the slope must broadcast to it.
void prelu(op& o) {
  o.need(2, 1);
  same_shape(o);
  const auto& data = o.shape(0);
  const auto& slope = o.shape(1);
  if (!data.rank_known() || !slope.rank_known()) return;
  // A 1-D slope may follow the channel (dimension 1); otherwise NumPy broadcasting (always, for ONNX's PRelu,
  // whose slope lines up with the last axis).
  if (o.l.find("onnx_numpy_slope") == nullptr && slope.size() == 1 && data.size() >= 2 && slope[0].is_static() && data[1].is_static() &&
      slope[0].lo() == data[1].lo())
    return;
  (void)broadcast(o, data, slope);
}

// FakeQuantize-1: the data and the four range inputs broadcast together.
void fake_quantize(op& o) {
  o.need(5, 1);
  o.out[0].type = o.in[0]->type;
  partial_shape s = o.shape(0);
  for (std::size_t i = 1; i < 5; ++i) s = broadcast(o, s, o.shape(i));
  o.out[0].shape = s;
}

// The bitwise ops (BitwiseAnd-13, BitwiseOr-13, BitwiseXor-13, BitwiseLeftShift-15, BitwiseRightShift-15):
// the inputs broadcast NumPy's way, of integer or boolean elements (the shifts: integers); values are not
// carried (no shape is computed with them in the models reshape1 reads).
void bitwise_binary(op& o) {
  o.need(2, 1);
  o.out[0].shape = binary_shape(o);
  o.out[0].type = o.in[0]->type;
  const bool shift = o.l.type.ends_with("Shift");
  for (std::size_t i = 0; i < 2; ++i)
    if (const auto t = o.in[i]->type; t && (is_real_type(t) || (shift && *t == element_type::boolean)))
      refuse(o, fmt::format("input {} is of {}", i, name(*t)),
             shift ? "the shifts take integers" : "the bitwise ops take integers or booleans");
}
// BitwiseNot-13: the shape, of integer or boolean elements.
void bitwise_not(op& o) {
  same_shape(o);
  if (const auto t = o.in[0]->type; t && is_real_type(t))
    refuse(o, fmt::format("input 0 is of {}", name(*t)), "the bitwise ops take integers or booleans");
}

/// CumSum's sums of exactly known values `v` of static shape `s` along `axis` (`exclusive`: each sum leaves its own
/// element out; `reverse`: summed from the end), constant where every value summed is; nullopt where an integer sum
/// overflows. A tensor of indices computed as a running count of constants (`cumsum(ones) - 1`, an `arange` a
/// fixed-shape export folded the length of) counts along a size as a Range of constants does (check --shape).
std::optional<tensor_value> cumulative_sums(const tensor_value& v, const partial_shape& s, std::size_t axis, bool exclusive,
                                            bool reverse) {
  const bool real = v.is_real();
  const auto n = real ? v.reals.size() : v.elements.size();
  std::size_t inner = 1;
  for (std::size_t a = axis + 1; a < s.size(); ++a) inner *= static_cast<std::size_t>(s[a].lo());
  const auto length = static_cast<std::size_t>(s[axis].lo());
  if (length == 0 || n % (length * inner) != 0) return std::nullopt;
  tensor_value out;
  if (real) out.reals.resize(n);
  else out.elements.resize(n);
  std::vector<bool> computed(real ? n : 0, false);
  for (std::size_t outer = 0; outer < n / (length * inner); ++outer)
    for (std::size_t in = 0; in < inner; ++in) {
      double sum = 0;
      std::int64_t whole = 0;
      bool constant = true;
      for (std::size_t step = 0; step < length; ++step) {
        const auto k = (outer * length + (reverse ? length - 1 - step : step)) * inner + in;
        const auto add = [&] {
          if (real) {
            sum += v.reals[k];
            constant = constant && v.real_constant(k);
            return true;
          }
          constant = constant && v.elements[k].constant;
          return !__builtin_add_overflow(whole, v.elements[k].lo, &whole);
        };
        if (!exclusive && !add()) return std::nullopt;
        if (real) {
          out.reals[k] = sum;
          computed[k] = !constant;
        } else {
          out.elements[k] = {whole, whole, {}, constant};
        }
        if (exclusive && !add()) return std::nullopt;
      }
    }
  if (real && std::find(computed.begin(), computed.end(), true) != computed.end()) out.reals_computed = std::move(computed);
  return out;
}

// CumSum-3 (data, axis): the data's shape; the axis is a scalar within [-rank, rank). The sums of exactly known
// values are carried.
void cumsum(op& o) {
  o.need(2, 1);
  same_shape(o);
  if (const auto& s = o.shape(1); s.rank_known() && s.size() != 0)
    refuse(o, fmt::format("its axis input has shape {}", to_string(s)), "CumSum's axis is a scalar");
  const auto axis = known_integers(o, 1);
  if (!axis || axis->size() != 1 || !o.shape(0).rank_known()) return;
  const auto a = normalize_axis(o, (*axis)[0], o.shape(0).size());
  const auto& v = o.value(0);
  if (!v || !o.shape(0).is_static() ||
      std::any_of(v->elements.begin(), v->elements.end(), [](const element_bound& e) { return !e.exact(); }))
    return;
  o.out[0].value = cumulative_sums(*v, o.shape(0), a, o.l.flag("exclusive", false), o.l.flag("reverse", false));
}

// Clamp-1: the shape; min must not be above max.
void clamp(op& o) {
  same_shape(o);
  const auto low = o.l.reals("min"), high = o.l.reals("max");
  if (low.size() != 1 || high.size() != 1 || low[0] > high[0])
    refuse(o, fmt::format("min {} is above max {}", o.l.text("min", ""), o.l.text("max", "")));
}

constexpr rule_entry elementwise_table[] = {
    {"Add", 1, binary<arith::add>, batch::pointwise, no_values},
    {"Subtract", 1, binary<arith::subtract>, batch::pointwise, no_values},
    {"Multiply", 1, binary<arith::multiply>, batch::pointwise, no_values},
    {"Divide", 1, divide, batch::pointwise, no_values},
    {"Mod", 1, binary<arith::mod>, batch::pointwise, no_values},
    {"Equal", 1, binary<arith::equal>, batch::pointwise, no_values},
    {"Greater", 1, binary<arith::greater>, batch::pointwise, no_values},
    {"Maximum", 1, binary<arith::maximum>, batch::pointwise, no_values},
    {"Minimum", 1, binary<arith::minimum>, batch::pointwise, no_values},
    {"Power", 1, binary<arith::power>, batch::pointwise, no_values},
    {"SquaredDifference", 1, binary<arith::squared_difference>, batch::pointwise, no_values},
    {"FloorMod", 1, binary<arith::floor_mod>, batch::pointwise, no_values},
    {"Less", 1, binary<arith::less>, batch::pointwise, no_values},
    {"LessEqual", 1, binary<arith::less_equal>, batch::pointwise, no_values},
    {"GreaterEqual", 1, binary<arith::greater_equal>, batch::pointwise, no_values},
    {"NotEqual", 1, binary<arith::not_equal>, batch::pointwise, no_values},
    {"LogicalAnd", 1, binary<arith::logical_and>, batch::pointwise, no_values},
    {"LogicalOr", 1, binary<arith::logical_or>, batch::pointwise, no_values},
    {"LogicalXor", 1, binary<arith::logical_xor>, batch::pointwise, no_values},
    {"BitwiseAnd", 13, bitwise_binary, batch::pointwise, no_values},
    {"BitwiseOr", 13, bitwise_binary, batch::pointwise, no_values},
    {"BitwiseXor", 13, bitwise_binary, batch::pointwise, no_values},
    {"BitwiseNot", 13, bitwise_not, batch::pointwise, no_values},
    {"BitwiseLeftShift", 15, bitwise_binary, batch::pointwise, no_values},
    {"BitwiseRightShift", 15, bitwise_binary, batch::pointwise, no_values},
    // Unary: the IR writes the opset the op first appeared in (Acosh, Asinh and Atanh: opset4).
    {"Abs", 1, absolute, batch::pointwise, no_values},
    {"Acos", 1, same_shape, batch::pointwise, no_values},
    {"Acosh", 4, same_shape, batch::pointwise, no_values},
    {"Asin", 1, same_shape, batch::pointwise, no_values},
    {"Asinh", 4, same_shape, batch::pointwise, no_values},
    {"Atan", 1, same_shape, batch::pointwise, no_values},
    {"Atanh", 4, same_shape, batch::pointwise, no_values},
    {"Ceiling", 1, ceiling_op, batch::pointwise, no_values},
    {"Cos", 1, same_shape, batch::pointwise, no_values},
    {"Cosh", 1, same_shape, batch::pointwise, no_values},
    {"Elu", 1, elu, batch::first_input, no_values},
    {"Erf", 1, same_shape, batch::pointwise, no_values},
    {"Floor", 1, floor_op, batch::pointwise, no_values},
    {"Gelu", 2, gelu, batch::pointwise, no_values},
    {"Gelu", 7, gelu, batch::pointwise, no_values},
    {"HSigmoid", 5, same_shape, batch::pointwise, no_values},
    {"HSwish", 4, same_shape, batch::pointwise, no_values},
    {"HardSigmoid", 1, hard_sigmoid, batch::first_input, no_values},
    {"Log", 1, same_shape, batch::pointwise, no_values},
    {"LogicalNot", 1, logical_not, batch::pointwise, no_values},
    {"Mish", 4, same_shape, batch::pointwise, no_values},
    {"Negative", 1, negative, batch::pointwise, no_values},
    {"Round", 5, round_op, batch::pointwise, no_values},
    {"Selu", 1, selu, batch::first_input, no_values},
    {"Sign", 1, same_shape, batch::pointwise, no_values},
    {"Sin", 1, same_shape, batch::pointwise, no_values},
    {"Sinh", 1, same_shape, batch::pointwise, no_values},
    {"SoftPlus", 4, same_shape, batch::pointwise, no_values},
    {"SoftSign", 9, same_shape, batch::pointwise, no_values},
    {"Sqrt", 1, real_function<square_root>, batch::pointwise, no_values},
    {"Tan", 1, same_shape, batch::pointwise, no_values},
    {"Tanh", 1, same_shape, batch::pointwise, no_values},
    {"ConvertLike", 1, convert_like, batch::convert_like, no_values},
    {"Select", 1, select, batch::select, no_values},
    {"Clamp", 1, clamp, batch::pointwise, no_values},
    {"Exp", 1, real_function<exponential>, batch::pointwise, no_values},
    {"ReLU", 1, same_shape, batch::pointwise, no_values},
    {"Sigmoid", 1, same_shape, batch::pointwise, no_values},
    {"Swish", 4, same_shape, batch::first_input, no_values},
    {"PReLU", 1, prelu, batch::prelu, no_values},
    {"FakeQuantize", 1, fake_quantize, batch::pointwise, no_values},
    {"Convert", 1, convert, batch::pointwise, no_values},
    {"SoftMax", 1, softmax, batch::softmax, no_values},
    {"SoftMax", 8, softmax, batch::softmax, no_values},
    {"MVN", 6, with_axes, batch::mvn, no_values},
    {"NormalizeL2", 1, with_axes, batch::over_axes_input, no_values},
    {"CumSum", 3, cumsum, batch::cumulative, no_values},
    {"Result", 1, result, batch::output, no_values},
};

}  // namespace

std::span<const rule_entry> elementwise_rules() { return elementwise_table; }

}  // namespace reshape1::model::detail
