// Element-wise ops: NumPy-broadcast arithmetic and comparisons (with interval values), Select, the
// unary activations, Convert, FakeQuantize, and the ops that keep their input's shape (SoftMax, MVN,
// NormalizeL2, PReLU, Result).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "../rules.hpp"

namespace reshape1::model::detail {
namespace {

constexpr auto no_lower = element_bound::no_lower;
constexpr auto no_upper = element_bound::no_upper;

enum class arith { add, subtract, multiply, divide, mod, equal, greater };

/// Interval arithmetic over the bounds' corners; unknown when a bound is open or a step overflows.
element_bound combine(arith op, const element_bound& a, const element_bound& b) {
  element_bound r;
  r.constant = a.constant && b.constant;
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
  if (op == arith::divide && b.lo <= 0 && b.hi >= 0) return r;
  std::int64_t lo = no_upper, hi = no_lower;
  for (auto x : {a.lo, a.hi})
    for (auto y : {b.lo, b.hi}) {
      std::int64_t z = 0;
      bool overflow = false;
      switch (op) {
        case arith::add: overflow = __builtin_add_overflow(x, y, &z); break;
        case arith::subtract: overflow = __builtin_sub_overflow(x, y, &z); break;
        case arith::multiply: overflow = __builtin_mul_overflow(x, y, &z); break;
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
  const bool identity = b.exact() && ((op == arith::multiply || op == arith::divide) ? b.lo == 1 : b.lo == 0);
  if (identity) r.symbol = a.symbol;
  return r;
}

double combine_real(arith op, double a, double b) {
  switch (op) {
    case arith::add: return a + b;
    case arith::subtract: return a - b;
    case arith::multiply: return a * b;
    case arith::divide: return a / b;
    case arith::mod: return std::fmod(a, b);
    case arith::equal: return a == b ? 1 : 0;
    case arith::greater: return a > b ? 1 : 0;
  }
  return 0;
}

bool is_real_type(const std::optional<element_type>& t) { return t && !is_integer(*t) && *t != element_type::boolean; }

std::optional<double> real_at(const tensor_value& v, std::size_t i) {
  if (v.is_real()) return v.reals[i];
  const auto& e = v.elements[i];
  return e.exact() ? std::optional<double>(static_cast<double>(e.lo)) : std::nullopt;
}

template <arith Op>
void binary(op& o) {
  o.need(2, 1);
  if (o.l.text("auto_broadcast", "numpy") == "none") {
    if (o.shape(0).rank_known() && o.shape(1).rank_known() && o.shape(0).size() != o.shape(1).size())
      refuse(o, fmt::format("auto_broadcast is none but the shapes {} and {} differ in rank", to_string(o.shape(0)),
                            to_string(o.shape(1))));
  }
  o.out[0].shape = broadcast(o, o.shape(0), o.shape(1));
  o.out[0].type = (Op == arith::equal || Op == arith::greater) ? std::optional(element_type::boolean) : o.in[0]->type;
  const auto& a = o.value(0);
  const auto& b = o.value(1);
  const auto count = small_count(o.out[0].shape);
  if (!a || !b || !count) return;
  const auto out = o.out[0].shape.to_static();
  const auto pa = broadcast_positions(o.shape(0).to_static(), out);
  const auto pb = broadcast_positions(o.shape(1).to_static(), out);
  tensor_value v;
  const bool real = a->is_real() || b->is_real() || (is_real_type(o.out[0].type) && Op == arith::divide);
  for (std::size_t k = 0; k < pa.size(); ++k) {
    if (real) {
      const auto x = real_at(*a, pa[k]), y = real_at(*b, pb[k]);
      if (!x || !y) return;
      const double z = combine_real(Op, *x, *y);
      if (Op == arith::equal || Op == arith::greater || (!is_real_type(o.out[0].type) && z == std::trunc(z) &&
                                                          std::abs(z) < 9.0e18)) {
        v.elements.push_back({static_cast<std::int64_t>(z), static_cast<std::int64_t>(z), {}, false});
      } else {
        v.reals.push_back(z);
      }
    } else {
      v.elements.push_back(combine(Op, a->elements[pa[k]], b->elements[pb[k]]));
    }
  }
  if (!v.elements.empty() && !v.reals.empty()) return;
  o.out[0].value = std::move(v);
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

// Result-1: no output.
void result(op& o) { o.need(1, 0); }

// Convert-1: the shape; integer values pass (reals truncate toward zero when they become integers).
void convert(op& o) {
  o.need(1, 1);
  const auto to = o.l.element("destination_type");
  o.out[0].shape = o.shape(0);
  o.out[0].type = to;
  const auto& v = o.value(0);
  if (!v) return;
  if (v->is_real() && (is_integer(to) || to == element_type::boolean)) {
    tensor_value r;
    for (double x : v->reals) {
      if (!std::isfinite(x) || std::abs(x) > 9.0e18) return;
      const auto z = to == element_type::boolean ? (x != 0 ? 1 : 0) : static_cast<std::int64_t>(std::trunc(x));
      r.elements.push_back({z, z, {}, true});
    }
    o.out[0].value = std::move(r);
  } else {
    o.out[0].value = v;
  }
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
  // A 1-D slope may follow the channel (dimension 1); otherwise NumPy broadcasting.
  if (slope.size() == 1 && data.size() >= 2 && slope[0].is_static() && data[1].is_static() &&
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

// Clamp-1: the shape; min must not be above max.
void clamp(op& o) {
  same_shape(o);
  const auto low = o.l.reals("min"), high = o.l.reals("max");
  if (low.size() != 1 || high.size() != 1 || low[0] > high[0])
    refuse(o, fmt::format("min {} is above max {}", o.l.text("min", ""), o.l.text("max", "")));
}

constexpr rule_entry table[] = {
    {"Add", 1, binary<arith::add>},
    {"Subtract", 1, binary<arith::subtract>},
    {"Multiply", 1, binary<arith::multiply>},
    {"Divide", 1, binary<arith::divide>},
    {"Mod", 1, binary<arith::mod>},
    {"Equal", 1, binary<arith::equal>},
    {"Greater", 1, binary<arith::greater>},
    {"Select", 1, select},
    {"Clamp", 1, clamp},
    {"Exp", 1, same_shape},
    {"ReLU", 1, same_shape},
    {"Sigmoid", 1, same_shape},
    {"Swish", 4, same_shape},
    {"PReLU", 1, prelu},
    {"FakeQuantize", 1, fake_quantize},
    {"Convert", 1, convert},
    {"SoftMax", 1, softmax},
    {"SoftMax", 8, softmax},
    {"MVN", 6, with_axes},
    {"NormalizeL2", 1, with_axes},
    {"Result", 1, result},
};

}  // namespace

std::span<const rule_entry> elementwise_rules() { return table; }

}  // namespace reshape1::model::detail
