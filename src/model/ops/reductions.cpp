// Reductions: ReduceMax/Min/Mean/Prod/Sum/LogicalAnd/LogicalOr-1 and ReduceL1/L2-4 (the axes removed, or
// kept as 1 with keep_dims; values of small integer tensors reduced too for max, min, prod and sum) and
// TopK-1, -3 and -11 (the dimension at `axis` becomes k).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "model/ops/rules.hpp"

namespace reshape1::model::detail {
namespace {

enum class reduction { max, min, mean, prod, sum, l1, l2, logical_and, logical_or };

constexpr bool carries_values(reduction r) {
  return r == reduction::max || r == reduction::min || r == reduction::prod || r == reduction::sum;
}

element_bound fold(reduction r, const element_bound& a, const element_bound& b) {
  element_bound out;
  out.constant = a.constant && b.constant;
  switch (r) {
    case reduction::max: out.lo = std::max(a.lo, b.lo); out.hi = std::max(a.hi, b.hi); break;
    case reduction::min: out.lo = std::min(a.lo, b.lo); out.hi = std::min(a.hi, b.hi); break;
    case reduction::sum: {
      std::int64_t lo = 0, hi = 0;
      if (a.lo != element_bound::no_lower && b.lo != element_bound::no_lower && !__builtin_add_overflow(a.lo, b.lo, &lo))
        out.lo = lo;
      if (a.hi != element_bound::no_upper && b.hi != element_bound::no_upper && !__builtin_add_overflow(a.hi, b.hi, &hi))
        out.hi = hi;
      break;
    }
    default: {
      const bool known = a.lo != element_bound::no_lower && a.hi != element_bound::no_upper &&
                         b.lo != element_bound::no_lower && b.hi != element_bound::no_upper;
      if (!known) return out;
      std::int64_t lo = element_bound::no_upper, hi = element_bound::no_lower;
      for (auto x : {a.lo, a.hi})
        for (auto y : {b.lo, b.hi}) {
          std::int64_t z = 0;
          if (__builtin_mul_overflow(x, y, &z)) return out;
          lo = std::min(lo, z);
          hi = std::max(hi, z);
        }
      out.lo = lo;
      out.hi = hi;
    }
  }
  return out;
}

template <reduction R>
void reduce(op& o) {
  o.need(2, 1);
  o.out[0].type = (R == reduction::logical_and || R == reduction::logical_or) ? std::optional(element_type::boolean)
                                                                              : o.in[0]->type;
  const auto& data = o.shape(0);
  const auto& axes_shape = o.shape(1);
  if (axes_shape.rank_known() && axes_shape.size() > 1)
    refuse(o, fmt::format("the axes {} must be a scalar or 1-D", to_string(axes_shape)));
  const auto axes = known_integers(o, 1);
  const bool keep = o.l.flag("keep_dims", false);
  if (!data.rank_known()) return;
  if (!axes) {
    if (keep) o.out[0].shape = partial_shape(std::vector<dimension>(data.size()));
    return;
  }
  std::vector<bool> reduced(data.size(), false);
  for (auto a : *axes) reduced[normalize_axis(o, a, data.size())] = true;
  std::vector<dimension> out;
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (!reduced[i]) out.push_back(data[i]);
    else if (keep) out.emplace_back(1);
  }
  o.out[0].shape = partial_shape(std::move(out));
  // Values: each output element folds the input elements that differ only on reduced axes.
  const auto& v = o.value(0);
  if (!v || v->is_real() || !data.is_static() || !carries_values(R)) return;
  const auto d = data.to_static();
  const auto st = strides_of(d);
  std::vector<std::optional<element_bound>> acc;
  std::vector<std::size_t> out_index(v->elements.size());
  std::size_t outputs = 1;
  for (std::size_t i = 0; i < d.size(); ++i)
    if (!reduced[i]) outputs *= static_cast<std::size_t>(d[i]);
  acc.resize(outputs);
  for (std::size_t k = 0; k < v->elements.size(); ++k) {
    std::size_t rest = k, target = 0;
    for (std::size_t i = 0; i < d.size(); ++i) {
      const std::size_t c = rest / st[i];
      rest %= st[i];
      if (!reduced[i]) target = target * static_cast<std::size_t>(d[i]) + c;
    }
    acc[target] = acc[target] ? fold(R, *acc[target], v->elements[k]) : v->elements[k];
  }
  tensor_value r;
  for (auto& a : acc) {
    if (!a) {
      // A reduced dimension of 0: an empty product is 1 and an empty sum 0 (ONNX and OpenVINO alike; a
      // Flatten at axis 0 multiplies the dimensions before it, none); an empty max or min has no value.
      if (R != reduction::prod && R != reduction::sum) return;
      const std::int64_t identity = R == reduction::prod ? 1 : 0;
      a = element_bound{identity, identity, {}, true};
    }
    a->symbol = {};
    r.elements.push_back(*a);
  }
  if (v->elements.size() == 1 && !r.elements.empty()) r.elements[0].symbol = v->elements[0].symbol;
  o.out[0].value = std::move(r);
}

// TopK-1, -3 and -11: values and indices of the data's shape with dimension `axis` set to k, as OpenVINO
// infers it: a known k is the dimension; a k between bounds gives [min(its lower bound, the dimension's),
// min(its upper bound, the dimension's)], unbounded when the dimension is; an unknown k gives [0, the
// dimension's upper bound]. sort is value, index or none. A known k above the dimension's upper bound is
// refused: OpenVINO's shape inference lets it through, but its CPU plugin and ONNX Runtime both refuse it
// when the model runs, and "it reshapes" must mean "it runs".
void top_k(op& o) {
  o.need(2, 2);
  o.out[0].type = o.in[0]->type;
  o.out[1].type = o.l.find("index_element_type") ? o.l.element("index_element_type") : element_type::i32;
  const auto sort = o.l.text("sort", "none");
  if (sort != "value" && sort != "index" && sort != "none")
    refuse(o, fmt::format("sort '{}' is not value, index or none", sort));
  if (o.l.opset == 1 && o.shape(1).rank_known() && o.shape(1).size() != 0)
    refuse(o, "k must be a scalar in TopK-1", fmt::format("its shape is {}", to_string(o.shape(1))));
  const auto& data = o.shape(0);
  const auto& k_shape = o.shape(1);
  if (k_shape.rank_known() && k_shape.size() != 0 && !(k_shape.size() == 1 && k_shape[0].is_static() && k_shape[0].lo() == 1))
    refuse(o, "k must be a scalar", fmt::format("its shape is {}", to_string(k_shape)));
  const auto mode = o.l.text("mode", "max");
  if (mode != "max" && mode != "min") refuse(o, fmt::format("mode '{}' is not max or min", mode));
  if (!data.rank_known()) return;
  if (data.size() == 0) refuse(o, "the data must not be a scalar");
  const auto axis = normalize_axis(o, o.l.integer("axis"), data.size());
  std::vector<dimension> out(data.begin(), data.end());
  const auto& v = o.value(1);
  const auto& d = data[axis];
  if (v && !v->is_real() && v->elements.size() == 1) {
    const auto& k = v->elements[0];
    if (k.hi < 0) refuse(o, fmt::format("k is {}, negative", k.hi));
    if (k.lo > 0 && d.range().is_bounded() && k.lo > d.hi())
      refuse(o,
             fmt::format("k is {}{}, more than axis {} holds ({})", k.exact() ? "" : "at least ", k.lo, axis,
                         to_string(d)),
             "engines refuse a k larger than the axis when the model runs");
    if (k.exact()) {
      out[axis] = dimension_from(k);  // with the symbol of the dimension k was read from, if any
    } else {
      const auto lo = std::max<std::int64_t>(0, std::min(k.lo, d.lo()));
      // an unbounded dimension stays unbounded; else k's upper bound (no_upper is unbounded) caps it
      const auto hi = d.range().is_bounded() ? std::min(d.hi(), k.hi) : interval::unbounded;
      out[axis] = span_dimension(lo, std::max(lo, hi));
    }
  } else {
    out[axis] = span_dimension(0, d.hi());  // unbounded when the dimension is
  }
  o.out[0].shape = partial_shape(out);
  o.out[1].shape = partial_shape(std::move(out));
}

constexpr rule_entry reductions_table[] = {
    {"ReduceMax", 1, reduce<reduction::max>, batch::reduce, reads_values(1)},
    {"ReduceMin", 1, reduce<reduction::min>, batch::reduce, reads_values(1)},
    {"ReduceMean", 1, reduce<reduction::mean>, batch::reduce, reads_values(1)},
    {"ReduceProd", 1, reduce<reduction::prod>, batch::reduce, reads_values(1)},
    {"ReduceSum", 1, reduce<reduction::sum>, batch::reduce, reads_values(1)},
    {"ReduceL1", 4, reduce<reduction::l1>, batch::reduce, reads_values(1)},
    {"ReduceL2", 4, reduce<reduction::l2>, batch::reduce, reads_values(1)},
    {"ReduceLogicalAnd", 1, reduce<reduction::logical_and>, batch::reduce, reads_values(1)},
    {"ReduceLogicalOr", 1, reduce<reduction::logical_or>, batch::reduce, reads_values(1)},
    {"TopK", 1, top_k, batch::top_k, reads_values(1)},
    {"TopK", 3, top_k, batch::top_k, reads_values(1)},
    {"TopK", 11, top_k, batch::top_k, reads_values(1)},
};

}  // namespace

std::span<const rule_entry> reduction_rules() { return reductions_table; }

}  // namespace reshape1::model::detail
