// What the size analysis needs to know about a sum or mean (analysis/batch_sizes.cpp): what it reduces,
// in how many steps, and whether its terms are squares or a moment's. A fixed-shape export folds the count
// of a mean or a variance into a constant (1/49, 48/47), and only these tell which count it is.
#include "model/analysis/batch_internal.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <unordered_set>
#include <utility>
#include <vector>

#include "model/ops/rules.hpp"
#include "model/ops/sizes.hpp"

namespace reshape1::model::detail {
namespace {

/// The layer input 0 of `x` comes from; null where it has none.
const layer* fed_by(const graph& g, const layer& x) {
  return x.sources.empty() || !x.sources[0] ? nullptr : &g.layers()[x.sources[0]->layer];
}

/// The reduction whose output the reduction `r` reduces further, by a few steps that move or convert values
/// (a sum over W kept as `[N,C,H,1]`, squeezed, then summed over H); null where there is none.
const layer* reduced_before(const graph& g, const layer& r) {
  const layer* s = fed_by(g, r);
  for (int hops = 0; hops < 4 && s != nullptr; ++hops) {
    if (sums_or_averages(*s)) return s;
    if (elementwise_arithmetic(s->type) || !carries_values(*s)) return nullptr;
    s = fed_by(g, *s);
  }
  return nullptr;
}



/// Whether `r` reduces what `what` asks for, itself or, for moments, by a reduction a few steps before it.
bool reduces_in_steps(const graph& g, const propagation& declared, const layer& r, reduced_data what) {
  if (what != reduced_data::moments) return reduces_data(g, declared, r, what);
  const auto steps = reduction_steps(g, r);
  return std::any_of(steps.begin(), steps.end(), [&](const layer* x) { return reduces_data(g, declared, *x, what); });
}

}  // namespace

std::vector<const layer*> reduction_steps(const graph& g, const layer& last) {
  std::vector<const layer*> steps{&last};
  while (steps.size() < 4)
    if (const auto* before = reduced_before(g, *steps.back()))
      steps.push_back(before);
    else
      break;
  return steps;
}

std::optional<std::vector<std::size_t>> reduced_axes(const graph& g, const propagation& declared, const layer& r,
                                                     std::size_t rank) {
  if (r.sources.size() < 2) return std::nullopt;
  const auto& axes = declared.input(g, r, 1).value;
  if (!axes || axes->is_real() || axes->elements.empty()) return std::nullopt;
  std::vector<std::size_t> out;
  for (const auto& e : axes->elements) {
    auto x = e.lo;
    if (x < 0) x += static_cast<std::int64_t>(rank);
    if (!e.exact() || x < 0 || static_cast<std::size_t>(x) >= rank) return std::nullopt;
    out.push_back(static_cast<std::size_t>(x));
  }
  return out;
}

std::size_t value_holder(const graph& g, std::size_t index) {
  for (int hops = 0; hops < 8; ++hops) {
    const auto& x = g.layers()[index];
    if (part_of(x.type) != op_part::passes_values || x.sources.empty() || !x.sources[0]) break;
    index = x.sources[0]->layer;
  }
  return index;
}

/// Whether the reduction `r` (sums_or_averages) reduces what `what` asks for (reduced_data::squares or
/// ::moments): ReduceL2, or a sum or mean of what a layer squares (a variance's `(x - mean)²`) or, for a
/// moment, multiplies by other data, cubes or takes the absolute value of, maybe moved or converted since
/// (a few steps that carry values, each read by its input 0: a Reshape to `[1,C,H·W]`, a Transpose, a Convert).
bool reduces_data(const graph& g, const propagation& declared, const layer& r, reduced_data what) {
  if (what == reduced_data::anything) return true;
  bool made = false;
  const layer* s = fed_by(g, r);
  for (int hops = 0; hops < 4 && s != nullptr && !made; ++hops) {
    const bool two = s->sources.size() >= 2 && s->sources[0] && s->sources[1];
    const bool same = two && s->sources[0]->layer == s->sources[1]->layer && s->sources[0]->output == s->sources[1]->output;
    // Neither operand's values known: data times data, not a scaling.
    const bool data_operands = two && !declared.input(g, *s, 0).value && !declared.input(g, *s, 1).value;
    std::optional<double> exponent;
    if (two) {
      const auto& v = declared.input(g, *s, 1).value;
      if (v && v->is_real() && v->reals.size() == 1) exponent = v->reals[0];
      if (v && !v->is_real() && v->elements.size() == 1 && v->elements[0].exact()) exponent = static_cast<double>(v->elements[0].lo);
    }
    made = what == reduced_data::squares ? squares(*s, same, exponent) : forms_moment(*s, same, data_operands, exponent);
    if (made || !carries_values(*s)) break;
    if (elementwise_arithmetic(s->type)) {
      // Squares or a moment's terms scaled by a constant are still summed as many times (a converter's
      // product by 1.0, half the squares): the walk goes on through the data operand of a product by a
      // constant, or of a quotient by one; any other arithmetic ends it.
      const auto constant = [&](std::size_t port) { return declared.input(g, *s, port).value.has_value(); };
      std::optional<std::size_t> data;
      if (two && multiplies(*s) && constant(0) != constant(1)) data = constant(0) ? 1 : 0;
      if (two && divides(*s) && constant(1) && !constant(0)) data = 0;
      if (!data) break;
      s = &g.layers()[s->sources[*data]->layer];
      continue;
    }
    s = fed_by(g, *s);
  }
  return what == reduced_data::squares ? reduces_squares(r, made) : reduces_moment(r, made);
}

const layer* reduction_before(const graph& g, const propagation& declared, const layer& l, std::size_t port, reduced_data what) {
  std::vector<std::size_t> frontier, next;
  // Each layer once: residual Adds and wide Concats would otherwise multiply the paths at every step.
  std::unordered_set<std::size_t> seen;
  for (std::size_t p = 0; p < l.sources.size(); ++p)
    if (p != port && l.sources[p] && seen.insert(l.sources[p]->layer).second) frontier.push_back(l.sources[p]->layer);
  for (int hops = 0; hops < 6 && !frontier.empty(); ++hops) {
    next.clear();
    for (const auto index : frontier) {
      const auto& x = g.layers()[index];
      if (sums_or_averages(x) && reduces_in_steps(g, declared, x, what)) return &x;
      if (!carries_values(x)) continue;
      for (const auto& s : x.sources)
        if (s && seen.insert(s->layer).second) next.push_back(s->layer);
    }
    std::swap(frontier, next);
  }
  return nullptr;
}

std::optional<reduced_elements> reduced_count(const graph& g, const propagation& declared, const propagation& asked,
                                              const layer& sum) {
  // Each step's axes, from `sum` back to the first; then followed forward from the first step's input, whose
  // axes each step that keeps no dimensions removes from the tensor the next step reduces.
  std::vector<const layer*> steps{&sum};
  for (;;) {
    const auto* before = fed_by(g, *steps.back());
    if (before == nullptr || before->type != sum.type || steps.size() >= 4) break;
    steps.push_back(before);
  }
  const auto* first = steps.back();
  if (first->sources.size() < 2 || !first->sources[0]) return std::nullopt;
  const auto& in = declared.input(g, *first, 0).shape;
  const auto& now = asked.input(g, *first, 0).shape;
  if (!in.is_static() || !now.rank_known() || now.size() != in.size()) return std::nullopt;
  std::vector<std::size_t> at(in.size());  // the first input's axis at each axis of the tensor a step reduces
  for (std::size_t k = 0; k < at.size(); ++k) at[k] = k;
  std::vector<bool> reduced(in.size(), false);
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    const auto& r = **it;
    const auto axes = reduced_axes(g, declared, r, at.size());
    const auto& out = declared.outputs[static_cast<std::size_t>(&r - g.layers().data())];
    if (!axes || out.empty() || !out[0].shape.rank_known()) return std::nullopt;
    std::vector<bool> here(at.size(), false);
    for (const auto a : *axes) {
      if (here[a] || reduced[at[a]]) return std::nullopt;  // an axis given twice, or one of 1 reduced again
      here[a] = true;
      reduced[at[a]] = true;
    }
    // Without keep_dims the axes reduced are gone from what the next step reduces.
    const auto kept = out[0].shape.size();
    if (kept == at.size()) continue;
    if (kept + axes->size() != at.size()) return std::nullopt;
    std::vector<std::size_t> left;
    for (std::size_t k = 0; k < at.size(); ++k)
      if (!here[k]) left.push_back(at[k]);
    at = std::move(left);
  }
  reduced_elements x{first, {}, 1};
  bool changes = false;
  for (std::size_t k = 0; k < in.size(); ++k) {
    if (!reduced[k]) continue;
    const auto extent = in[k].lo();
    if (extent < 1 || x.count > largest_size / extent) return std::nullopt;
    x.axes.push_back(k);
    x.count *= extent;
    changes = changes || !(now[k].is_static() && now[k].lo() == extent);
  }
  if (!changes) return std::nullopt;
  return x;
}

}  // namespace reshape1::model::detail
