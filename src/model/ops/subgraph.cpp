// TensorIterator-1 and Loop-5: their bodies are propagated like a model, from the tensors the port map
// gives their Parameters. A sliced input gives the body part_size of its axis per iteration; an invariant
// input gives the whole tensor (values too); an input whose Parameter a back edge feeds starts from the
// outer tensor and is joined with what the body gives back, until the shapes stop changing (a few rounds,
// then the dimensions that still change become dynamic). An output is the body Result's tensor at the last
// iteration (joined with the value a back edge's Result started from, where the loop may run no iteration),
// or, with an axis, the iterations' tensors concatenated along it: the per-iteration dimension times the
// iteration count when it is known, an interval when only bounds are, dynamic otherwise.
// TensorIterator counts iterations from its sliced inputs ((|end - start| + 1) / part_size, negative start
// and end counted from the dimension's size); Loop from its trip count and execution conditions. A body
// layer whose rule refuses its inputs makes the TensorIterator or Loop refuse them too.
#include <algorithm>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "detail/fail.hpp"
#include "model/ops/rules.hpp"
#include "model/propagate/engine.hpp"

namespace reshape1::model::detail {
namespace {

/// Rounds of propagation through a body with back edges before the shapes that still change are widened.
constexpr int max_rounds = 4;
/// Body layers one propagation of a model may run through, nested bodies and rounds included. Past it (a
/// pathological nesting of bodies with back edges), a fed-back Parameter starts unknown and its body is
/// propagated once: the work stays linear in the model's size.
constexpr std::size_t layer_budget = 250'000;

/// The budget's use, per thread, since propagate() began.
thread_local std::size_t budget_used = 0;

/// Iterations as bounds (hi == interval::unbounded: no upper bound).
struct count {
  std::int64_t lo = 0, hi = interval::unbounded;
  [[nodiscard]] bool exact() const { return lo == hi; }
};

std::size_t body_index(const graph& body, std::int64_t id) {
  return static_cast<std::size_t>(body.find(id) - body.layers().data());
}

/// The smallest shape that holds both (the hull of each dimension; the symbol kept where both agree).
partial_shape join(const partial_shape& a, const partial_shape& b) {
  if (!a.rank_known() || !b.rank_known() || a.size() != b.size()) {
    return a.rank_known() && b.rank_known() ? partial_shape::dynamic() : (a.rank_known() ? b : a);
  }
  std::vector<dimension> dims;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) {
      dims.push_back(a[i]);
    } else {
      dims.emplace_back(interval(std::min(a[i].lo(), b[i].lo()), std::max(a[i].hi(), b[i].hi())));
    }
  }
  return partial_shape(std::move(dims));
}

/// The dimensions of `a` that differ from `b` become dynamic (a rank that differs: the rank too).
partial_shape widen(const partial_shape& a, const partial_shape& b) {
  if (!a.rank_known() || !b.rank_known() || a.size() != b.size()) return partial_shape::dynamic();
  std::vector<dimension> dims;
  for (std::size_t i = 0; i < a.size(); ++i) dims.push_back(a[i] == b[i] ? a[i] : dimension());
  return partial_shape(std::move(dims));
}

/// d times the iteration count.
dimension repeated(const dimension& d, const count& n) {
  std::int64_t lo = 0, hi = interval::unbounded;
  if (__builtin_mul_overflow(d.lo(), n.lo, &lo) || lo >= interval::unbounded) return dimension();
  if (d.range().is_bounded() && n.hi != interval::unbounded &&
      (__builtin_mul_overflow(d.hi(), n.hi, &hi) || hi >= interval::unbounded))
    hi = interval::unbounded;
  if (!d.range().is_bounded() || n.hi == interval::unbounded) hi = interval::unbounded;
  return span_dimension(lo, hi);
}

/// (|end - start| + 1) / part_size, nullopt when a step overflows (start and end come from the file).
std::optional<std::int64_t> span_count(std::int64_t start, std::int64_t end, std::int64_t part_size, bool inclusive) {
  std::int64_t diff = 0;
  if (__builtin_sub_overflow(end, start, &diff) || diff == std::numeric_limits<std::int64_t>::min()) return std::nullopt;
  diff = diff < 0 ? -diff : diff;
  if (inclusive && __builtin_add_overflow(diff, 1, &diff)) return std::nullopt;
  return diff / part_size;
}

/// TensorIterator: the iterations a sliced input of dimension `d` gives.
count slices(const dimension& d, const port_mapping& m) {
  auto at = [&](std::int64_t n) -> std::optional<std::int64_t> {
    std::int64_t start = m.start, end = m.end;
    if ((start < 0 && __builtin_add_overflow(start, n, &start)) || (end < 0 && __builtin_add_overflow(end, n, &end)))
      return std::nullopt;
    return span_count(start, end, m.part_size, true);
  };
  if (d.is_static()) {
    const auto n = at(d.lo());
    return n ? count{*n, *n} : count{};
  }
  // The defaults (the whole axis) are monotonic in the dimension; other bounds are left unknown.
  if (m.start == 0 && m.end == -1)
    return {d.lo() / m.part_size, d.range().is_bounded() ? d.hi() / m.part_size : interval::unbounded};
  return {};
}

struct body_run {
  const subgraph* sub = nullptr;
  std::vector<std::optional<tensor>> given;  // per body layer
  std::vector<bool> follows;                 // per body layer: for a Parameter, whether it follows the model's inputs
  std::vector<std::size_t> back_targets;     // body Parameters a back edge feeds
  count iterations;
  bool iterations_known = false;  // set by sliced inputs (TensorIterator)
};

/// The tensors the port map gives the body Parameters.
body_run prepare(op& o) {
  body_run run;
  run.sub = o.l.body.get();
  if (run.sub == nullptr) refuse(o, fmt::format("{} has no <body>", o.l.type));
  const graph& body = run.sub->network;
  run.given.resize(body.layers().size());
  run.follows.assign(body.layers().size(), true);
  for (const auto& e : run.sub->back_edges) run.back_targets.push_back(body_index(body, e.to_layer));
  for (const auto& m : run.sub->inputs) {
    const auto param = body_index(body, m.internal_layer);
    if (m.external_port == -1) {  // Loop's current_iteration: the declared shape; a counter, not data
      run.follows[param] = false;
      continue;
    }
    const auto k = port_index(o.l.inputs, m.external_port);
    if (!k || *k >= o.in.size()) continue;
    if (o.follows != nullptr && *k < o.l.sources.size() && o.l.sources[*k])
      run.follows[param] = (*o.follows)[o.l.sources[*k]->layer];
    const tensor& outer = *o.in[*k];
    tensor t;
    t.type = outer.type;
    if (m.axis) {
      const auto& s = outer.shape;
      if (o.l.type == "TensorIterator" && !run.iterations_known) {
        run.iterations = {};  // unknown until a sliced input of known rank counts them
        run.iterations_known = true;
      }
      if (s.rank_known()) {
        const auto a = normalize_axis(o, *m.axis, s.size(), fmt::format("the sliced axis of input {}", m.external_port));
        std::vector<dimension> dims(s.begin(), s.end());
        if (dims[a].is_static() && dims[a].lo() < m.part_size)
          refuse(o, fmt::format("input {} has {} along its sliced axis, less than part_size {}", m.external_port,
                                dims[a].lo(), m.part_size));
        dims[a] = dimension(m.part_size);
        t.shape = partial_shape(std::move(dims));
        if (o.l.type == "TensorIterator") {
          const auto n = slices(s[a], m);
          if (n.exact() && run.iterations.exact() && n.lo != run.iterations.lo)
            refuse(o, fmt::format("the sliced inputs give {} and {} iterations", run.iterations.lo, n.lo));
          if (!run.iterations.exact()) run.iterations = n;
        }
      }
    } else {
      // An invariant input keeps its values; a fed-back one starts with them too, kept only when the body
      // gives the same values back (iterate checks it): a condition carried through unchanged, say.
      t.shape = outer.shape;
      t.value = outer.value;
    }
    run.given[param] = std::move(t);
  }
  return run;
}

/// Propagates through the body until the back edges' shapes are stable.
std::shared_ptr<const propagation> iterate_shapes(body_run& run) {
  const graph& body = run.sub->network;
  std::vector<const tensor*> pointers(run.given.size(), nullptr);
  auto once = [&] {
    for (std::size_t i = 0; i < run.given.size(); ++i) pointers[i] = run.given[i] ? &*run.given[i] : nullptr;
    return std::make_shared<const propagation>(propagate_graph(body, pointers, &run.follows));
  };
  if (budget_used >= layer_budget) {
    for (const auto& e : run.sub->back_edges) {
      const auto param = body_index(body, e.to_layer);
      if (!run.given[param]) run.given[param] = tensor{};
      run.given[param]->shape = partial_shape::dynamic();
    }
  }
  auto p = once();
  budget_used += body.layers().size();
  const auto refused = [&] {
    return std::any_of(p->lost.begin(), p->lost.end(), [](const lost_information& x) { return !x.not_covered; });
  };
  for (int round = 0; !run.sub->back_edges.empty() && !refused(); ++round) {
    bool changed = false;
    for (const auto& e : run.sub->back_edges) {
      const auto& result = body.layers()[body_index(body, e.from_layer)];
      const auto param = body_index(body, e.to_layer);
      if (!run.given[param]) run.given[param] = tensor{body.layers()[param].outputs.empty()
                                                            ? partial_shape::dynamic()
                                                            : body.layers()[param].outputs[0].shape(), std::nullopt, std::nullopt};
      auto& current = run.given[param]->shape;
      const auto& next = p->input(body, result, 0).shape;
      auto joined = join(current, next);
      if (round >= max_rounds) joined = widen(current, joined);
      if (!(joined == current)) {
        current = std::move(joined);
        changed = true;
      }
    }
    if (!changed) break;
    if (budget_used >= layer_budget || round > max_rounds + 2) {
      // Out of rounds or of budget while the shapes still change: what is fed back is unknown.
      for (const auto& e : run.sub->back_edges) run.given[body_index(body, e.to_layer)]->shape = partial_shape::dynamic();
      p = once();
      budget_used += body.layers().size();
      break;
    }
    p = once();
    budget_used += body.layers().size();
  }
  return p;
}

/// iterate_shapes, with the values a back edge feeds: a fed-back Parameter starts with its input's values,
/// which hold at every iteration when the body gives the same values back (by induction); where it does
/// not, the body is propagated again without them (each try drops at least one, and none is tried once
/// the layer budget is spent).
std::shared_ptr<const propagation> iterate(body_run& run) {
  const graph& body = run.sub->network;
  for (;;) {
    // Out of budget, no second try: nested bodies would each multiply the work (the budget's promise).
    if (budget_used >= layer_budget)
      for (const auto& e : run.sub->back_edges)
        if (auto& given = run.given[body_index(body, e.to_layer)]) given->value.reset();
    auto start = run.given;  // iterate_shapes widens what it is given: a second try starts afresh
    auto p = iterate_shapes(run);
    bool held = true;
    for (const auto& e : run.sub->back_edges) {
      const auto param = body_index(body, e.to_layer);
      if (!start[param] || !start[param]->value) continue;
      const auto& back = p->input(body, body.layers()[body_index(body, e.from_layer)], 0).value;
      if (back == start[param]->value) continue;
      start[param]->value.reset();
      held = false;
    }
    if (held) return p;
    run.given = std::move(start);
  }
}

/// The Loop's iteration count from its trip count, its execution condition and the body's condition.
count loop_iterations(const op& o, const body_run& run, const propagation& p) {
  const graph& body = run.sub->network;
  const auto trip = known_integers(o, 0);
  const auto first = known_integers(o, 1);
  std::optional<std::int64_t> again;  // the body's condition, when known
  for (const auto& m : run.sub->outputs) {
    if (m.purpose != "execution_condition") continue;
    const auto& v = p.input(body, body.layers()[body_index(body, m.internal_layer)], 0).value;
    const auto values = exact_values(v);
    if (values && values->size() == 1) again = (*values)[0] != 0 ? 1 : 0;
    if (v && v->is_real() && v->reals.size() == 1) again = v->reals[0] != 0 ? 1 : 0;
  }
  const bool bounded = trip && trip->size() == 1 && (*trip)[0] >= 0;
  const std::int64_t most = bounded ? (*trip)[0] : interval::unbounded;
  if (first && first->size() == 1 && (*first)[0] == 0) return {0, 0};
  const bool starts = first && first->size() == 1 && (*first)[0] != 0;
  // A for loop: as many iterations as its trip count, which may be 0 where its value is unknown (an
  // infinite one where there is no trip count).
  if (again && *again == 1 && starts) return {bounded ? most : 0, most};
  if (again && *again == 0) return {starts ? std::min<std::int64_t>(1, most) : 0, std::min<std::int64_t>(1, most)};
  return {0, most};
}

void subgraph_op(op& o) {
  const bool loop = o.l.type == "Loop";
  if (loop) {
    o.need(2, 0);
    for (std::size_t i = 0; i < 2; ++i) {
      const auto& s = o.shape(i);
      if (s.rank_known() && s.size() != 0 && !(s.size() == 1 && s[0].range().contains(1)))
        refuse(o, fmt::format("the {} {} must be a scalar or hold one element", i == 0 ? "trip count" : "execution condition",
                              to_string(s)));
    }
  }
  auto run = prepare(o);
  auto p = iterate(run);
  if (o.body != nullptr) *o.body = p;
  // A body layer that refuses its inputs makes the layer fail, as in OpenVINO (after a reshape, say).
  // Its hint is the body layer's, given apart: the body layer's name may hold "; ".
  for (const auto& x : p->lost) {
    if (x.not_covered) continue;
    reshape1::detail::fail(errc::invalid_shape, {},
                           fmt::format("{}: in its body, {}", o.l.where(), reshape1::detail::without_hint(x.message, x.hint)),
                           x.hint);
  }
  const graph& body = run.sub->network;
  count n = run.iterations;
  if (loop) {
    n = loop_iterations(o, run, *p);
  } else if (!run.iterations_known) {
    // No sliced input: a concatenated output's own start and end give the count.
    for (const auto& m : run.sub->outputs)
      if (m.axis) {
        if (const auto c = span_count(m.start, m.end, m.part_size, false)) n = {*c, *c};
        break;
      }
  }
  // What a back edge's Result starts from outside: its Parameter's input. A loop that may run no iteration
  // gives that value back as it came (ONNX Runtime: a Loop whose trip count is 0 returns its carried inputs).
  const auto initial = [&](std::int64_t result) -> const tensor* {
    for (const auto& e : run.sub->back_edges) {
      if (e.from_layer != result) continue;
      for (const auto& m : run.sub->inputs) {
        if (m.internal_layer != e.to_layer || m.external_port == -1 || m.axis) continue;
        const auto k = port_index(o.l.inputs, m.external_port);
        if (k && *k < o.in.size()) return o.in[*k];
      }
    }
    return nullptr;
  };
  for (const auto& m : run.sub->outputs) {
    if (m.external_port == -1) continue;
    const auto j = port_index(o.l.outputs, m.external_port);
    if (!j || *j >= o.out.size()) continue;
    const auto& value = p->input(body, body.layers()[body_index(body, m.internal_layer)], 0);
    auto& out = o.out[*j];
    out.type = value.type;
    if (!m.axis) {
      const auto* before = n.lo == 0 ? initial(m.internal_layer) : nullptr;
      out.shape = before != nullptr ? join(before->shape, value.shape) : value.shape;
      continue;
    }
    const auto& s = value.shape;
    if (!s.rank_known()) continue;
    std::vector<dimension> dims(s.begin(), s.end());
    if (dims.empty()) {  // scalars are concatenated into a 1-D tensor
      if (*m.axis != 0)
        refuse(o, fmt::format("output {} concatenates scalars along axis {}", m.external_port, *m.axis), "it must be 0");
      dims.emplace_back(1);
    }
    const auto a = normalize_axis(o, *m.axis, dims.size(), fmt::format("the concatenation axis of output {}", m.external_port));
    dims[a] = repeated(dims[a], n);
    out.shape = partial_shape(std::move(dims));
  }
}

// IfMerge-1 (the ONNX reader's, for an If whose condition is not a constant): the value of one of two
// branches, inputs 1 and 2, as input 0 (a boolean scalar) chooses at run time. Its shape is what both
// allow: a dimension they agree on, the hull of two that differ, unknown rank for two ranks.
void branch_merge(op& o) {
  o.need(3, 1);
  auto& out = o.out[0];
  // A condition known by now (computed from shapes, as exporters write `if x.dim() == 2`) chooses.
  if (const auto& c = o.value(0); c && !c->is_real() && c->elements.size() == 1 && c->elements[0].exact()) {
    out = *o.in[c->elements[0].lo != 0 ? 1 : 2];
    return;
  }
  const auto& a = o.shape(1);
  const auto& b = o.shape(2);
  out.type = o.in[1]->type == o.in[2]->type ? o.in[1]->type : std::nullopt;
  if (o.value(1) && o.value(1) == o.value(2)) out.value = o.value(1);
  if (!a.rank_known() || !b.rank_known() || a.size() != b.size()) return;  // unknown rank
  std::vector<dimension> dims;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) {
      dims.push_back(a[i]);
    } else {
      dims.emplace_back(interval(std::min(a[i].lo(), b[i].lo()), std::max(a[i].hi(), b[i].hi())));
    }
  }
  out.shape = partial_shape(std::move(dims));
}

constexpr rule_entry subgraph_table[] = {
    {"IfMerge", 1, branch_merge, batch::branch_merge, reads_values(0)},
    {"TensorIterator", 1, subgraph_op, batch::tensor_iterator, reads_all_values},
    {"Loop", 5, subgraph_op, batch::loop, reads_all_values},
};

}  // namespace

std::span<const rule_entry> subgraph_rules() { return subgraph_table; }

void reset_body_budget() noexcept { budget_used = 0; }

}  // namespace reshape1::model::detail
