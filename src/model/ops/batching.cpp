// The batching rules the registry rows name. Each reads how its inputs hold the batch and the layer's
// attributes and (exact, batch-independent) input values, and answers for every N >= 1; shapes come from
// the propagations at the sample batches, which the analysis also uses to check every answer.
#include "model/ops/batching.hpp"

#include <algorithm>
#include <set>

#include "model/ops/batching_helpers.hpp"
#include "model/ops/rules.hpp"

namespace reshape1::model::detail {

using kind = batch_state::kind;

// ---- batch_op ------------------------------------------------------------------------------------

const partial_shape& batch_op::in_shape(std::size_t port, std::size_t sample) const {
  return at[sample]->input(g, l, port).shape;
}

const partial_shape& batch_op::out_shape(std::size_t output, std::size_t sample) const {
  const auto index = static_cast<std::size_t>(&l - g.layers().data());
  return at[sample]->outputs[index][output].shape;
}

std::optional<std::size_t> batch_op::in_rank(std::size_t port) const {
  if (port >= l.inputs.size()) return std::nullopt;
  const auto& s = in_shape(port);
  return s.rank_known() ? std::optional(s.size()) : std::nullopt;
}

std::optional<std::size_t> batch_op::out_rank(std::size_t output) const {
  if (output >= l.outputs.size()) return std::nullopt;
  const auto& s = out_shape(output);
  return s.rank_known() ? std::optional(s.size()) : std::nullopt;
}

std::optional<std::vector<std::int64_t>> batch_op::ints(std::size_t port) const {
  if (port >= l.inputs.size()) return std::nullopt;
  auto first = exact_values(at[0]->input(g, l, port).value);
  if (!first) return std::nullopt;
  for (std::size_t k = 1; k < at.size(); ++k)
    if (exact_values(at[k]->input(g, l, port).value) != first) return std::nullopt;
  return first;
}

bool batch_op::any_batched() const {
  return std::any_of(in.begin(), in.end(), [](const batch_state& s) { return s.is(kind::batched); });
}

bool known_at_samples(std::span<const partial_shape* const> shapes, std::size_t d, const batch_free_sizes* sizes) {
  if (shapes.empty()) return false;
  const auto& first = (*shapes.front())[d];
  return std::all_of(shapes.begin(), shapes.end(), [&](const partial_shape* s) {
    if (!s->rank_known() || d >= s->size()) return false;
    const auto& x = (*s)[d];
    if (x.is_static()) return true;
    return sizes != nullptr && x.symbol() && x.symbol() == first.symbol() && sizes->contains(x.symbol());
  });
}

std::optional<size_product> span_product(std::span<const partial_shape* const> shapes, std::size_t begin,
                                         std::size_t end, const batch_free_sizes* sizes) {
  std::optional<size_product> r;
  for (const auto* s : shapes) {
    if (!s->rank_known() || s->size() < end) return std::nullopt;
    size_product p;
    for (std::size_t i = begin; i < end; ++i) {
      const auto& d = (*s)[i];
      if (d.is_static()) {
        if (__builtin_mul_overflow(p.constant, d.lo(), &p.constant)) return std::nullopt;
      } else if (known_at_samples(shapes, i, sizes)) {
        p.sizes.push_back(d.symbol().id());
      } else {
        return std::nullopt;
      }
    }
    std::sort(p.sizes.begin(), p.sizes.end());
    if (r && *r != p) return std::nullopt;
    r = std::move(p);
  }
  return r;
}

std::optional<size_product> prefix_product(std::span<const partial_shape* const> shapes, std::size_t end,
                                           const batch_free_sizes* sizes) {
  return span_product(shapes, 0, end, sizes);
}

std::optional<size_product> batch_op::in_prefix(std::size_t port, std::size_t end) const {
  std::array<const partial_shape*, batch_samples.size()> s{};
  for (std::size_t k = 0; k < s.size(); ++k) s[k] = &in_shape(port, k);
  return prefix_product(s, end, sizes);
}

std::optional<size_product> batch_op::out_prefix(std::size_t output, std::size_t end) const {
  std::array<const partial_shape*, batch_samples.size()> s{};
  for (std::size_t k = 0; k < s.size(); ++k) s[k] = &out_shape(output, k);
  return prefix_product(s, end, sizes);
}

std::optional<std::vector<std::size_t>> batch_op::out_unknown(std::size_t output) const {
  std::array<const partial_shape*, batch_samples.size()> s{};
  for (std::size_t k = 0; k < s.size(); ++k) {
    s[k] = &out_shape(output, k);
    if (!s[k]->rank_known() || s[k]->size() != s[0]->size()) return std::nullopt;
  }
  std::vector<std::size_t> r;
  for (std::size_t d = 0; d < s[0]->size(); ++d)
    if (!known_at_samples(s, d, sizes)) r.push_back(d);
  return r;
}

const batch_carrier& batch_op::out_carrier(std::size_t output) const {
  static const batch_carrier unknown;
  return output < carriers.size() ? carriers[output] : unknown;
}

bool batch_op::params_ok(std::initializer_list<std::size_t> ports) {
  for (const auto p : ports) {
    if (p >= in.size()) continue;
    if (in[p].is(kind::batched) || in[p].is(kind::per_image)) {
      cannot_tell({why::parameter_holds_samples, p});
      return false;
    }
  }
  return true;
}

bool batch_op::data_ok(std::size_t port) {
  if (port >= in.size()) return true;
  switch (in[port].k) {
    case kind::shared:
    case kind::batched: return true;
    case kind::size_value: {
      const auto alike = in[port].varies && alike_alone ? alike_alone(port) : std::optional<bool>(false);
      if (in[port].varies && alike == true) {  // what each sample gets alone, at the batch asked
        alike_data.push_back(port);
        return true;
      }
      if (in[port].varies && alike == false)
        mixes(port, {why::size_value_as_data, port});
      else
        cannot_tell({why::shape_value_as_data, port});
      return false;
    }
    case kind::per_image:
      cannot_tell({why::post_processing_input, port});
      return false;
    default: return false;
  }
}

const batch_state* batch_op::sole(std::size_t port, std::initializer_list<std::size_t> params) {
  if (!params_ok(params)) return nullptr;
  if (!data_ok(port)) return nullptr;
  for (std::size_t p = 0; p < in.size(); ++p) {
    if (p == port || std::find(params.begin(), params.end(), p) != params.end()) continue;
    if (!data_ok(p)) return nullptr;
    if (in[p].is(kind::batched)) {
      cannot_tell({why::another_batched_input, p});
      return nullptr;
    }
  }
  return batched(port) ? &in[port] : nullptr;
}

namespace batch {

std::optional<std::size_t> axis_in(std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r) return std::nullopt;
  return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

/// Every output keeps input 0's batch at the same axis (ops whose outputs have input 0's shape or rank).
void keep_all(batch_op& o, const batch_state& s, std::size_t axis) {
  for (std::size_t i = 0; i < o.out.size(); ++i) o.keep(i, s, axis);
}

/// A single-data op whose `forbidden` axes mix elements across: the batch there mixes samples.
void unary_except(batch_op& o, const std::vector<std::size_t>& forbidden, why role,
                  std::initializer_list<std::size_t> params, batch_issue issue) {
  const auto* s = o.sole(0, params);
  if (s == nullptr) return;
  if (std::find(forbidden.begin(), forbidden.end(), s->axis) != forbidden.end()) {
    o.fault(issue, 0, {role, std::size_t{0}, s->axis});
    return;
  }
  keep_all(o, *s, s->axis);
}

/// A single-data op that computes along the axis its `axis` attribute names (required when `fallback`
/// is nullopt).
void along_axis_attribute(batch_op& o, std::optional<std::int64_t> fallback, why role,
                          std::initializer_list<std::size_t> params, batch_issue issue) {
  const auto r = o.in_rank(0);
  if (!r) return o.cannot_tell(why::data_rank_unknown);
  const auto axis = axis_in(fallback ? o.l.integer("axis", *fallback) : o.l.integer("axis"), *r);
  if (!axis) return o.cannot_tell(why::axis_out_of_range);
  unary_except(o, {*axis}, role, params, issue);
}

/// Axes given as values of input `port`, normalised for `rank`; nullopt when unknown.
std::optional<std::vector<std::size_t>> axes_input(batch_op& o, std::size_t port, std::size_t rank) {
  const auto v = o.ints(port);
  if (!v) return std::nullopt;
  std::vector<std::size_t> r;
  for (const auto a : *v)
    if (const auto x = axis_in(a, rank)) r.push_back(*x);
  return r;
}

void source(batch_op&) {}
void output(batch_op&) {}

void pointwise(batch_op& o) {
  const auto rank = o.out_rank(0);
  if (!rank) return o.cannot_tell(why::output_rank_unknown);
  if (o.l.text("auto_broadcast", "numpy") == "pdpd")
    return o.cannot_tell(why::pdpd_broadcasting);
  const batch_state* first = nullptr;
  std::size_t first_port = 0, aligned = 0;
  bool per_image = false;
  for (std::size_t p = 0; p < o.in.size(); ++p) {
    if (o.in[p].is(kind::per_image)) {
      per_image = true;
      continue;
    }
    if (!o.data_ok(p)) return;
    if (!o.batched(p)) continue;
    const auto r = o.in_rank(p);
    if (!r || *r > *rank) return o.cannot_tell({why::input_rank_unknown, p});
    const auto a = o.in[p].axis + (*rank - *r);
    if (first == nullptr) {
      first = &o.in[p];
      first_port = p;
      aligned = a;
    } else if (a != aligned || o.in[p].factor != first->factor) {
      return o.mixes(p, {why::broadcast_pairs_samples, first_port, p, aligned, a});
    }
  }
  if (per_image) {
    // Post-processing results scaled or compared with constants keep their rows.
    if (first != nullptr) return o.cannot_tell(why::post_processing_meets_samples);
    for (auto& s : o.out) {
      s.k = kind::per_image;
      for (const auto& x : o.in)
        if (x.is(kind::per_image)) s.origin = x.origin;
    }
    return;
  }
  if (first != nullptr) keep_all(o, *first, aligned);
}

void select(batch_op& o) {
  // A condition computed from the batch size that is the same alone as at every batch asked, and all true
  // (or all false), reads the same side for a sample alone as in the batch: the other side reaches no
  // sample's result there (`Where(n < 3, x, float(n))` at 2), whatever it holds.
  if (o.in.size() == 3 && o.in[0].is(kind::size_value) && o.alike_value) {
    const auto* v = o.alike_value(0);
    if (v != nullptr && !v->is_real() && !v->elements.empty()) {
      const auto& e = v->elements;
      const bool all_true = std::all_of(e.begin(), e.end(), [](const element_bound& b) { return b.exact() && b.lo != 0; });
      const bool all_false = std::all_of(e.begin(), e.end(), [](const element_bound& b) { return b.exact() && b.lo == 0; });
      if (all_true || all_false) {
        const std::size_t unread = all_true ? 2 : 1;
        std::vector<batch_state> in(o.in.begin(), o.in.end());
        in[unread] = batch_state{};
        batch_op read = o;
        read.in = in;
        pointwise(read);
        o.faults = std::move(read.faults);
        o.undecided = std::move(read.undecided);
        o.alike_data = std::move(read.alike_data);
        o.alike_data.push_back(unread);  // it reaches no sample, alone or at the batch asked
        return;
      }
    }
  }
  pointwise(o);
}

void first_input(batch_op& o) {
  const auto* s = o.sole(0, {});
  for (std::size_t p = 1; p < o.in.size() && s != nullptr; ++p)
    if (o.in[p].is(kind::batched)) return o.cannot_tell({why::batched_parameter, p});
  if (s != nullptr) keep_all(o, *s, s->axis);
}

// (Its own rule, so that the analyses that place a constant in the output know the op: OpenVINO lays a 1-D
// slope as long as the channels along them, and NumPy's broadcast lines every other up from the right.)
void prelu(batch_op& o) { first_input(o); }

void convert_like(batch_op& o) {
  // Input 1 gives only its element type: its values, and so its batch, do not reach the output.
  if (!o.data_ok(0) || !o.batched(0)) return;
  keep_all(o, o.in[0], o.in[0].axis);
}

void batch_norm(batch_op& o) {
  // BatchNormInference-1 takes (gamma, beta, data, mean, variance); -5 takes the data first.
  const std::size_t data = o.l.opset >= 5 ? 0 : 2;
  for (std::size_t p = 0; p < o.in.size(); ++p)
    if (p != data && !o.params_ok({p})) return;
  if (!o.batched(data)) return;
  const auto& s = o.in[data];
  if (s.axis == 1) return o.mixes(data, why::batch_in_channels);
  keep_all(o, s, s.axis);
}

void spatial(batch_op& o) {
  const auto r = o.in_rank(0);
  if (!r) return o.cannot_tell(why::data_rank_unknown);
  std::vector<std::size_t> forbidden;
  for (std::size_t a = 1; a < *r; ++a) forbidden.push_back(a);
  std::initializer_list<std::size_t> params = {1, 2, 3, 4};
  unary_except(o, forbidden, why::batch_on_spatial_axis, params);
}

void pooling(batch_op& o) {
  const auto r = o.in_rank(0);
  if (!r) return o.cannot_tell(why::data_rank_unknown);
  std::vector<std::size_t> forbidden;
  for (std::size_t a = 2; a < *r; ++a) forbidden.push_back(a);
  const auto* s = o.sole(0, {1});
  if (s == nullptr) return;
  if (std::find(forbidden.begin(), forbidden.end(), s->axis) != forbidden.end())
    return o.mixes(0, {why::batch_on_pooled_axis, std::size_t{0}, s->axis});
  o.keep(0, *s, s->axis);
  // MaxPool-8's indices count positions from axis `axis` on: from the batch axis or before it, they
  // count other samples' elements, so each sample's indices depend on where it sits.
  if (o.out.size() > 1) {
    const auto from = axis_in(o.l.integer("axis", 0), *r);
    if (from && *from > s->axis)
      o.keep(1, *s, s->axis);
    else
      o.out[1] = batch_state{kind::size_value, 0, 1, true};
  }
}

void softmax(batch_op& o) { along_axis_attribute(o, 1, why::batch_on_softmax_axis, {}); }

void mvn(batch_op& o) {
  const auto r = o.in_rank(0);
  if (!r) return o.cannot_tell(why::data_rank_unknown);
  std::vector<std::size_t> axes;
  if (o.l.opset >= 6) {
    const auto v = axes_input(o, 1, *r);
    if (!v) return o.cannot_tell(why::normalised_axes_unknown);
    axes = *v;
  } else if (const auto* attr = o.l.find("reduction_axes"); attr != nullptr && attr->is_integers && !attr->integers.empty()) {
    for (const auto a : attr->integers)
      if (const auto x = axis_in(a, *r)) axes.push_back(*x);
  } else {
    for (std::size_t a = o.l.flag("across_channels", false) ? 1 : 2; a < *r; ++a) axes.push_back(a);
  }
  unary_except(o, axes, why::batch_on_normalised_axis, {1});
}

/// The data's shape kept, its elements mixed along the axes input 1 holds: `unknown` when those are not
/// known, `mixes` when the batch is among them.
void along_axes_input(batch_op& o, why unknown, why mixes) {
  const auto r = o.in_rank(0);
  if (!r) return o.cannot_tell(why::data_rank_unknown);
  const auto axes = axes_input(o, 1, *r);
  if (!axes) return o.cannot_tell(unknown);
  unary_except(o, *axes, mixes, {1});
}

void over_axes_input(batch_op& o) { along_axes_input(o, why::normalised_axes_unknown, why::batch_on_normalised_axis); }
void cumulative(batch_op& o) { along_axes_input(o, why::accumulated_axis_unknown, why::batch_on_accumulated_axis); }

void reduce(batch_op& o) {
  const auto r = o.in_rank(0);
  if (!r) return o.cannot_tell(why::data_rank_unknown);
  const auto axes = axes_input(o, 1, *r);
  if (!axes) return o.cannot_tell(why::reduced_axes_unknown);
  const auto* s = o.sole(0, {1});
  if (s == nullptr) return;
  if (std::find(axes->begin(), axes->end(), s->axis) != axes->end())
    return o.mixes(0, {why::reduces_batch, std::size_t{0}, s->axis});
  const bool keep = o.l.flag("keep_dims", false);
  const auto before = static_cast<std::size_t>(std::count_if(axes->begin(), axes->end(), [&](std::size_t a) { return a < s->axis; }));
  o.keep(0, *s, keep ? s->axis : s->axis - before);
}

void top_k(batch_op& o) {
  along_axis_attribute(o, std::nullopt, why::batch_on_top_k_axis, {1}, batch_issue::drops_samples);
}

void matmul(batch_op& o) {
  const auto ra = o.in_rank(0), rb = o.in_rank(1);
  if (!ra || !rb || *ra == 0 || *rb == 0) return o.cannot_tell(why::an_input_rank_unknown);
  if (!o.data_ok(0) || !o.data_ok(1)) return;
  const bool ta = o.l.flag("transpose_a", false), tb = o.l.flag("transpose_b", false);
  const std::size_t nba = *ra > 2 ? *ra - 2 : 0, nbb = *rb > 2 ? *rb - 2 : 0, nb = std::max(nba, nbb);
  std::optional<std::size_t> target;
  const batch_state* first = nullptr;
  for (std::size_t p = 0; p < 2; ++p) {
    if (!o.batched(p)) continue;
    const auto& s = o.in[p];
    const auto r = p == 0 ? *ra : *rb;
    std::optional<std::size_t> axis;  // in the output; nullopt: the contraction axis
    if (r == 1) {
      axis.reset();
    } else if (s.axis < r - 2) {
      axis = s.axis + nb - (p == 0 ? nba : nbb);
    } else {
      const bool last = s.axis == r - 1;
      const bool transposed = p == 0 ? ta : tb;
      // A's rows (M) are its second-last axis, B's columns (P) its last; transposing swaps them.
      const bool contraction = p == 0 ? (last != transposed) : (last == transposed);
      if (!contraction) axis = p == 0 ? nb : nb + (*ra > 1 ? 1 : 0);
    }
    if (!axis) return o.mixes(p, {why::contracts_batch, p, s.axis});
    if (first != nullptr && (*axis != *target || s.factor != first->factor))
      return o.mixes(p, {why::product_axes_differ, *target, *axis});
    first = &s;
    target = axis;
  }
  if (first != nullptr) o.keep(0, *first, *target);
}

void einsum(batch_op& o) {
  const auto eq = std::string(o.l.text("equation", ""));
  const auto arrow = eq.find("->");
  if (arrow == std::string::npos || eq.find("...") != std::string::npos)
    return o.cannot_tell(why::einsum_form_not_followed);
  std::vector<std::string> terms;
  std::string term;
  for (const char c : eq.substr(0, arrow)) {
    if (c == ',') {
      terms.push_back(term);
      term.clear();
    } else if (c != ' ') {
      term += c;
    }
  }
  terms.push_back(term);
  std::string result;
  for (const char c : eq.substr(arrow + 2))
    if (c != ' ') result += c;
  std::optional<std::size_t> target;
  const batch_state* first = nullptr;
  for (std::size_t p = 0; p < o.in.size(); ++p) {
    if (!o.data_ok(p) || !o.batched(p)) continue;
    const auto& s = o.in[p];
    if (p >= terms.size() || s.axis >= terms[p].size()) return o.cannot_tell(why::equation_does_not_fit);
    const char label = terms[p][s.axis];
    if (std::count(terms[p].begin(), terms[p].end(), label) != 1)
      return o.cannot_tell(because(why::label_repeats, p).quoting(std::string(1, label)));
    const auto at = result.find(label);
    if (at == std::string::npos)
      return o.mixes(p, because(why::sums_over_batch, p, s.axis).quoting(std::string(1, label)));
    if (first != nullptr && (at != *target || s.factor != first->factor))
      return o.mixes(p, why::labels_differ);
    first = &s;
    target = at;
  }
  if (first != nullptr) o.keep(0, *first, *target);
}

namespace {
/// A TensorIterator that maps its body over the batch (ONNX's Scan-8 runs its body on each batch entry so):
/// each input that holds the batch sliced along it one entry at a time, forwards, the others the same for
/// every sample and read whole, no value carried from one iteration to the next, and every output the
/// iterations' results concatenated forwards along an axis. Each iteration then sees one sample and gives
/// that sample's part of each output, whatever the body does: the outputs hold the batch along their
/// concatenation axis. False (nothing decided) for any other iteration.
bool maps_over_batch(batch_op& o) {
  const auto& body = *o.l.body;
  if (!body.back_edges.empty()) return false;
  const auto forwards = [](const model::port_mapping& m) {
    return m.start == 0 && m.end == -1 && m.stride == 1 && m.part_size == 1;
  };
  const batch_state* sliced = nullptr;
  for (const auto& m : body.inputs) {
    const auto port = m.external_port < 0 ? std::nullopt : port_index(o.l.inputs, m.external_port);
    if (!port || *port >= o.in.size()) return false;
    const auto& s = o.in[*port];
    // Sliced, an input the same for every sample would pair its parts with the samples by position.
    if (s.is(kind::shared) && !m.axis) continue;
    const auto r = o.in_rank(*port);
    const auto a = m.axis && r ? axis_in(*m.axis, *r) : std::nullopt;
    if (!s.is(kind::batched) || !a || *a != s.axis || s.factor != 1 || !forwards(m)) return false;
    sliced = &s;
  }
  if (sliced == nullptr) return false;
  for (const auto& m : body.outputs) {
    const auto port = port_index(o.l.outputs, m.external_port);
    const auto r = port ? o.out_rank(*port) : std::nullopt;
    const auto a = m.axis && r ? axis_in(*m.axis, *r) : std::nullopt;
    if (!a || !forwards(m)) return false;
  }
  for (const auto& m : body.outputs) {
    const auto port = *port_index(o.l.outputs, m.external_port);
    o.keep(port, *sliced, *axis_in(*m.axis, *o.out_rank(port)));
  }
  return true;
}

void subgraph(batch_op& o, bool loop) {
  if (!loop && maps_over_batch(o)) return;
  const auto& body = *o.l.body;
  const auto& inner = body.network;
  const auto layers = inner.layers();
  std::vector<batch_state> params(layers.size());
  const auto body_index = [&](std::int64_t id) -> std::optional<std::size_t> {
    const auto* x = inner.find(id);
    return x == nullptr ? std::nullopt : std::optional(static_cast<std::size_t>(x - layers.data()));
  };
  // Loop's trip count and condition (inputs 0 and 1) decide how often the body runs.
  if (loop) {
    for (std::size_t p = 0; p < 2 && p < o.in.size(); ++p)
      if (!o.in[p].is(kind::shared))
        return o.cannot_tell({p == 0 ? why::trip_count_from_batch : why::condition_from_batch, p});
  }
  for (const auto& m : body.inputs) {
    const auto b = body_index(m.internal_layer);
    if (!b) continue;
    if (m.purpose == "current_iteration" || m.external_port < 0) continue;
    const auto port = port_index(o.l.inputs, m.external_port);
    if (!port || *port >= o.in.size()) continue;
    auto s = o.in[*port];
    if (s.is(kind::per_image)) return o.cannot_tell(why::post_processing_in_body);
    if (s.is(kind::batched) && m.axis) {
      const auto r = o.in_rank(*port);
      const auto a = r ? axis_in(*m.axis, *r) : std::nullopt;
      if (!a) return o.cannot_tell(why::iteration_axis_unknown);
      if (*a == s.axis)
        return o.mixes(*port, {why::iterates_along_batch, *port, s.axis});
    }
    params[*b] = s;
  }
  const auto states = o.body(params);
  if (!states) return o.cannot_tell(why::body_not_propagated);
  const auto result_state = [&](std::int64_t id) -> std::optional<batch_state> {
    const auto b = body_index(id);
    if (!b) return std::nullopt;
    const auto& res = layers[*b];
    if (res.sources.empty() || !res.sources[0]) return std::nullopt;
    return (*states)[res.sources[0]->layer][res.sources[0]->output];
  };
  for (const auto& e : body.back_edges) {
    const auto from = result_state(e.from_layer);
    const auto to = body_index(e.to_layer);
    if (!from || !to) continue;
    const auto& was = params[*to];
    if (from->k != was.k || (from->is(kind::batched) && (from->axis != was.axis || from->factor != was.factor)))
      return o.cannot_tell(why::carried_value_differs);
  }
  for (const auto& m : body.outputs) {
    const auto r = result_state(m.internal_layer);
    if (m.purpose == "execution_condition") {
      if (r && !r->is(kind::shared)) return o.cannot_tell(why::body_condition_per_sample);
      continue;
    }
    const auto port = port_index(o.l.outputs, m.external_port);
    if (!port || *port >= o.out.size() || !r) continue;
    if (r->is(kind::unknown) || r->is(kind::broken)) return o.cannot_tell(why::body_cannot_tell);
    if (r->is(kind::batched) && m.axis) {
      const auto rank = o.out_rank(*port);
      const auto a = rank ? axis_in(*m.axis, *rank) : std::nullopt;
      if (!a) return o.cannot_tell(why::concatenation_axis_unknown);
      if (*a == r->axis)
        return o.mixes(0, {why::concatenates_iterations, *port, r->axis});
    }
    o.out[*port] = *r;
    o.out[*port].moved_by = no_layer;
    o.out[*port].origin = no_layer;
  }
}
}  // namespace

void tensor_iterator(batch_op& o) { subgraph(o, false); }
void loop(batch_op& o) { subgraph(o, true); }

void branch_merge(batch_op& o) {
  if (o.in.size() < 3) return o.cannot_tell(why::if_merge_inputs);
  if (!o.in[0].is(kind::shared) && !o.in[0].is(kind::size_value))
    return o.cannot_tell(why::branch_condition_per_sample);
  // A condition computed from the batch size (`if x.size(0) == 1`) that the analysis could not prove the
  // same at batch 1 and at the batches asked: a sample batched may take the branch it would not take alone.
  if (o.in[0].is(kind::size_value)) {
    // The same at batch 1 as at the batch asked, the condition still may choose another branch at the
    // sample batches the analysis follows: cannot tell, not mixes.
    const auto alike = o.alike_alone ? o.alike_alone(0) : std::optional<bool>(false);
    if (o.in[0].varies && alike == false) return o.mixes(0, why::branch_from_batch_size);
    // Alike alone and at the batch asked, it takes the same branch for a sample alone as in the batch there.
    if (alike == true) o.alike_data.push_back(0);
    return o.cannot_tell(why::branch_may_follow_batch_size);
  }
  // A condition with the same value at every sample batch, and at the batch asked, chooses one branch for
  // every N; one the batch asked does not share takes another branch there than the one followed here.
  if (const auto c = o.ints(0); c && c->size() == 1) {
    if (o.asked_like_samples && !o.asked_like_samples(0)) return o.cannot_tell(why::branch_may_follow_batch_size);
    o.out[0] = o.in[(*c)[0] != 0 ? 1 : 2];
    return;
  }
  const auto& a = o.in[1];
  const auto& b = o.in[2];
  const bool same = a.k == b.k && (!a.is(kind::batched) || (a.axis == b.axis && a.factor == b.factor));
  if (!same)
    return o.cannot_tell(why::branches_differ);
  if (a.is(kind::shared)) return;
  o.out[0] = a;
}

void cannot_tell(batch_op& o) {
  o.cannot_tell(because(why::no_batching_rule, o.l.opset).quoting(std::string(o.l.type)));
}

}  // namespace batch

std::string_view batch_rule_name(batch_rule f) noexcept {
  static const std::pair<batch_rule, std::string_view> names[] = {
      {batch::source, "source"},
      {batch::output, "output"},
      {batch::pointwise, "pointwise"},
      {batch::select, "select"},
      {batch::first_input, "first_input"},
      {batch::prelu, "prelu"},
      {batch::batch_norm, "batch_norm"},
      {batch::spatial, "spatial"},
      {batch::pooling, "pooling"},
      {batch::softmax, "softmax"},
      {batch::mvn, "mvn"},
      {batch::over_axes_input, "over_axes_input"},
      {batch::cumulative, "cumulative"},
      {batch::convert_like, "convert_like"},
      {batch::reduce, "reduce"},
      {batch::top_k, "top_k"},
      {batch::matmul, "matmul"},
      {batch::einsum, "einsum"},
      {batch::concat, "concat"},
      {batch::split, "split"},
      {batch::gather, "gather"},
      {batch::strided_slice, "strided_slice"},
      {batch::slice, "slice"},
      {batch::transpose, "transpose"},
      {batch::squeeze, "squeeze"},
      {batch::unsqueeze, "unsqueeze"},
      {batch::reshape, "reshape"},
      {batch::shape_of, "shape_of"},
      {batch::broadcast, "broadcast"},
      {batch::tile, "tile"},
      {batch::pad, "pad"},
      {batch::interpolate, "interpolate"},
      {batch::shuffle_channels, "shuffle_channels"},
      {batch::region_yolo, "region_yolo"},
      {batch::detection, "detection"},
      {batch::roi, "roi"},
      {batch::ctc_greedy_decoder, "ctc_greedy_decoder"},
      {batch::ctc_greedy_decoder_seq_len, "ctc_greedy_decoder_seq_len"},
      {batch::recurrent, "recurrent"},
      {batch::gather_elements, "gather_elements"},
      {batch::gather_nd, "gather_nd"},
      {batch::scatter_update, "scatter_update"},
      {batch::scatter_elements_update, "scatter_elements_update"},
      {batch::non_zero, "non_zero"},
      {batch::tensor_iterator, "tensor_iterator"},
      {batch::loop, "loop"},
      {batch::branch_merge, "branch_merge"},
      {batch::cannot_tell, "cannot_tell"},
  };
  for (const auto& [fn, name] : names)
    if (fn == f) return name;
  return {};
}

}  // namespace reshape1::model::detail
