// The batching rules the registry rows name. Each reads how its inputs hold the batch and the layer's
// attributes and (exact, batch-independent) input values, and answers for every N >= 1; shapes come from
// the propagations at the sample batches, which the analysis also uses to check every answer.
#include "model/ops/batching.hpp"

#include <algorithm>
#include <set>

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

std::optional<std::int64_t> prefix_product(std::span<const partial_shape* const> shapes, std::size_t end) {
  std::optional<std::int64_t> r;
  for (const auto* s : shapes) {
    if (!s->rank_known() || s->size() < end) return std::nullopt;
    std::int64_t p = 1;
    for (std::size_t i = 0; i < end; ++i) {
      if (!(*s)[i].is_static() || __builtin_mul_overflow(p, (*s)[i].lo(), &p)) return std::nullopt;
    }
    if (r && *r != p) return std::nullopt;
    r = p;
  }
  return r;
}

std::optional<std::int64_t> batch_op::in_prefix(std::size_t port, std::size_t end) const {
  std::array<const partial_shape*, batch_samples.size()> s{};
  for (std::size_t k = 0; k < s.size(); ++k) s[k] = &in_shape(port, k);
  return prefix_product(s, end);
}

std::optional<std::int64_t> batch_op::out_prefix(std::size_t output, std::size_t end) const {
  std::array<const partial_shape*, batch_samples.size()> s{};
  for (std::size_t k = 0; k < s.size(); ++k) s[k] = &out_shape(output, k);
  return prefix_product(s, end);
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
namespace {

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
                  std::initializer_list<std::size_t> params, batch_issue issue = batch_issue::mixes_samples) {
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
                          std::initializer_list<std::size_t> params, batch_issue issue = batch_issue::mixes_samples) {
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

}  // namespace

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

void over_axes_input(batch_op& o) {
  const auto r = o.in_rank(0);
  if (!r) return o.cannot_tell(why::data_rank_unknown);
  const auto axes = axes_input(o, 1, *r);
  if (!axes) return o.cannot_tell(why::normalised_axes_unknown);
  unary_except(o, *axes, why::batch_on_normalised_axis, {1});
}

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

void concat(batch_op& o) {
  const auto r = o.out_rank(0);
  if (!r) return o.cannot_tell(why::output_rank_unknown);
  const auto axis = axis_in(o.l.integer("axis"), *r);
  if (!axis) return o.cannot_tell(why::axis_out_of_range);
  const batch_state* first = nullptr;
  for (std::size_t p = 0; p < o.in.size(); ++p) {
    if (!o.data_ok(p) || !o.batched(p)) continue;
    const auto& s = o.in[p];
    if (s.axis == *axis) {
      // Every such input is reported: each may come from its own Reshape to blame.
      o.mixes(p, {why::concatenates_along_batch, p, s.axis});
      continue;
    }
    if (first != nullptr && (s.axis != first->axis || s.factor != first->factor))
      return o.mixes(p, why::inputs_at_different_axes);
    first = &s;
  }
  if (first != nullptr && o.faults.empty()) o.keep(0, *first, first->axis);
}

void split(batch_op& o) {
  const auto r = o.in_rank(0);
  if (!r) return o.cannot_tell(why::data_rank_unknown);
  const auto v = o.ints(1);
  if (!v || v->size() != 1) return o.cannot_tell(why::axis_unknown);
  const auto axis = axis_in((*v)[0], *r);
  if (!axis) return o.cannot_tell(why::axis_out_of_range);
  const auto* s = o.sole(0, {1, 2});
  if (s == nullptr) return;
  if (s->axis == *axis && o.out.size() > 1)
    return o.drops(0, {why::splits_batch, std::size_t{0}, s->axis});
  keep_all(o, *s, s->axis);
}

void gather(batch_op& o) {
  const auto rd = o.in_rank(0), ri = o.in_rank(1);
  if (!rd || !ri) return o.cannot_tell(why::an_input_rank_unknown);
  const auto av = o.ints(2);
  if (!av || av->size() != 1) return o.cannot_tell(why::axis_unknown);
  const auto axis = axis_in((*av)[0], *rd);
  if (!axis) return o.cannot_tell(why::axis_out_of_range);
  auto bd = o.l.opset >= 7 ? o.l.integer("batch_dims", 0) : 0;
  if (bd < 0) bd += static_cast<std::int64_t>(*ri);
  if (!o.params_ok({2}) || !o.data_ok(0)) return;
  if (o.in[1].is(kind::size_value) || o.in[1].is(kind::per_image))
    return o.cannot_tell(why::indices_from_batch_size);
  const bool data = o.batched(0), indices = o.batched(1);
  if (data && indices) {
    const auto& d = o.in[0];
    const auto& i = o.in[1];
    if (bd >= 1 && d.axis == 0 && i.axis == 0 && d.factor == i.factor && *axis > 0) return o.keep(0, d, 0);
    return o.cannot_tell(why::data_and_indices_batched);
  }
  if (data) {
    const auto& d = o.in[0];
    if (d.axis == *axis)
      return o.drops(0, {why::gathers_batch_with_fixed_indices, std::size_t{0}, d.axis});
    if (bd > 0) return o.cannot_tell(why::batch_dims_without_batched_indices);
    return o.keep(0, d, d.axis < *axis ? d.axis : d.axis - 1 + *ri);
  }
  const auto& i = o.in[1];
  if (bd != 0) return o.cannot_tell(why::batch_dims_without_batched_data);
  o.keep(0, i, *axis + i.axis);
}

void strided_slice(batch_op& o) {
  const auto r = o.in_rank(0);
  if (!r) return o.cannot_tell(why::data_rank_unknown);
  const auto* s = o.sole(0, {1, 2, 3});
  if (s == nullptr) return;
  const auto bits = [&](std::string_view name) {
    std::vector<bool> m;
    if (const auto* a = o.l.find(name); a != nullptr && a->is_integers)
      for (const auto x : a->integers) m.push_back(x != 0);
    return m;
  };
  const auto new_axis = bits("new_axis_mask"), shrink = bits("shrink_axis_mask"), ellipsis = bits("ellipsis_mask");
  const auto bit = [](const std::vector<bool>& m, std::size_t i) { return i < m.size() && m[i]; };
  const auto begin = o.ints(1);
  if (!begin) return o.cannot_tell(why::begin_length_unknown);
  const auto strides = o.ints(3);
  std::size_t in_axis = 0, out_axis = 0;
  std::optional<std::size_t> spec;  // the slice entry that covers the batch axis
  for (std::size_t j = 0; j < begin->size() && in_axis <= s->axis; ++j) {
    if (bit(ellipsis, j)) {
      if (in_axis <= s->axis) return o.cannot_tell(why::ellipsis_before_batch);
    }
    if (bit(new_axis, j)) {
      ++out_axis;
      continue;
    }
    if (in_axis == s->axis) {
      if (bit(shrink, j))
        return o.drops(0, {why::takes_one_index_of_batch, std::size_t{0}, s->axis});
      spec = j;
      break;
    }
    if (!bit(shrink, j)) ++out_axis;
    ++in_axis;
  }
  if (!spec) out_axis += s->axis - in_axis;  // past the slice entries, axes map one to one
  std::int64_t stride = 1;
  if (spec && o.l.inputs.size() > 3) {
    if (!strides || *spec >= strides->size()) return o.cannot_tell(why::strides_unknown);
    stride = (*strides)[*spec];
  }
  const auto& in0 = o.in_shape(0);
  const auto& out0 = o.out_shape(0);
  const bool whole = out0.rank_known() && out_axis < out0.size() && out0[out_axis].range() == in0[s->axis].range();
  if (stride < 0)
    return o.mixes(0, {why::reverses_batch, std::size_t{0}, s->axis});
  if (stride != 1 || !whole)
    return o.drops(0, {why::slices_batch, std::size_t{0}, s->axis});
  o.keep(0, *s, out_axis);
}

void slice(batch_op& o) {
  const auto r = o.in_rank(0);
  if (!r) return o.cannot_tell(why::data_rank_unknown);
  const auto* s = o.sole(0, {1, 2, 3, 4});
  if (s == nullptr) return;
  const auto start = o.ints(1);
  if (!start) return o.cannot_tell(why::start_length_unknown);
  std::vector<std::size_t> axes;
  if (o.l.inputs.size() > 4) {
    const auto v = axes_input(o, 4, *r);
    if (!v) return o.cannot_tell(why::axes_unknown);
    axes = *v;
  } else {
    for (std::size_t a = 0; a < start->size(); ++a) axes.push_back(a);
  }
  const auto it = std::find(axes.begin(), axes.end(), s->axis);
  if (it == axes.end()) return o.keep(0, *s, s->axis);
  const auto steps = o.ints(3);
  const auto j = static_cast<std::size_t>(it - axes.begin());
  if (!steps || j >= steps->size()) return o.cannot_tell(why::steps_unknown);
  if ((*steps)[j] < 0) return o.mixes(0, {why::reverses_batch, std::size_t{0}, s->axis});
  const auto& out0 = o.out_shape(0);
  const bool whole = out0.rank_known() && s->axis < out0.size() && out0[s->axis].range() == o.in_shape(0)[s->axis].range();
  if ((*steps)[j] != 1 || !whole)
    return o.drops(0, {why::slices_batch, std::size_t{0}, s->axis});
  o.keep(0, *s, s->axis);
}

void transpose(batch_op& o) {
  const auto r = o.in_rank(0);
  if (!r) return o.cannot_tell(why::data_rank_unknown);
  const auto* s = o.sole(0, {1});
  if (s == nullptr) return;
  const auto perm = o.ints(1);
  if (!perm) return o.cannot_tell(why::permutation_unknown);
  if (perm->empty()) return o.keep(0, *s, *r - 1 - s->axis);
  for (std::size_t j = 0; j < perm->size(); ++j)
    if (axis_in((*perm)[j], *r) == s->axis) return o.keep(0, *s, j);
  o.cannot_tell(why::permutation_misses_batch);
}

void squeeze(batch_op& o) {
  const auto r = o.in_rank(0);
  if (!r) return o.cannot_tell(why::data_rank_unknown);
  const auto* s = o.sole(0, {1});
  if (s == nullptr) return;
  std::size_t removed = 0;
  if (o.l.inputs.size() > 1) {
    const auto axes = axes_input(o, 1, *r);
    if (!axes) return o.cannot_tell(why::axes_unknown);
    if (std::find(axes->begin(), axes->end(), s->axis) != axes->end())
      return o.drops(0, {why::removes_batch, std::size_t{0}, s->axis});
    removed = static_cast<std::size_t>(std::count_if(axes->begin(), axes->end(), [&](std::size_t a) { return a < s->axis; }));
  } else {
    // Without axes every dimension of 1 goes: the batch itself when N·factor is 1.
    if (s->factor == 1)
      return o.mixes(0, {why::squeeze_without_axes, std::size_t{0}, s->axis});
    for (std::size_t a = 0; a < s->axis; ++a) {
      const auto& d = o.in_shape(0)[a];
      if (!d.is_static()) return o.cannot_tell(why::dimension_before_batch_may_be_1);
      if (d.lo() == 1) ++removed;
    }
  }
  o.keep(0, *s, s->axis - removed);
}

void unsqueeze(batch_op& o) {
  const auto r = o.out_rank(0);
  if (!r) return o.cannot_tell(why::output_rank_unknown);
  const auto* s = o.sole(0, {1});
  if (s == nullptr) return;
  const auto axes = axes_input(o, 1, *r);
  if (!axes) return o.cannot_tell(why::axes_unknown);
  const std::set<std::size_t> inserted(axes->begin(), axes->end());
  std::size_t seen = 0;
  for (std::size_t j = 0; j < *r; ++j) {
    if (inserted.contains(j)) continue;
    if (seen++ == s->axis) return o.keep(0, *s, j);
  }
  o.cannot_tell(why::axes_do_not_fit);
}

void reshape(batch_op& o) {
  const auto* s = o.sole(0, {1});
  if (s == nullptr) return;
  const auto in_prefix = o.in_prefix(0, s->axis);
  const auto& target = o.out_carrier(0);
  // Every output dimension must be known: one that is not may hold part of the batch too.
  const auto& out0 = o.out_shape(0);
  if (target.state == batch_carrier::kind::unknown || !out0.rank_known() ||
      std::any_of(out0.begin(), out0.end(), [](const dimension& d) { return !d.is_static(); }))
    return o.cannot_tell(why::output_dimensions_unknown);
  if (target.state != batch_carrier::kind::one)
    return o.fault(batch_issue::swallows_batch, 0, {why::folded_into_fixed_dimensions, std::size_t{0}, s->axis});
  const auto out_prefix = o.out_prefix(0, target.axis);
  if (!in_prefix || !out_prefix) return o.cannot_tell(why::prefix_not_static);
  if (*in_prefix != *out_prefix)
    return o.fault(batch_issue::swallows_batch, 0,
                   {why::interleaves_samples, target.axis, target.factor, *out_prefix, *in_prefix});
  o.out[0] = s->regrouped(target.axis, target.factor, static_cast<std::size_t>(&o.l - o.g.layers().data()));
}

void shape_of(batch_op& o) {
  if (o.batched(0)) o.out[0] = batch_state{kind::size_value, 0, 1, true};
  else if (!o.in.empty() && o.in[0].is(kind::per_image)) o.cannot_tell(why::post_processing_shape);
}

/// Broadcast and Tile of a shared value over a shape that holds the batch: every sample gets the same
/// slice, which is what each would get alone.
bool spread(batch_op& o) {
  if (o.any_batched() || !o.in[0].is(kind::shared)) return false;
  const auto& target = o.out_carrier(0);
  const auto r = o.in_rank(0), ro = o.out_rank(0);
  if (target.state != batch_carrier::kind::one || !r || !ro || *r > *ro) {
    o.cannot_tell(why::spread_without_axis);
    return true;
  }
  const auto lead = *ro - *r;
  if (target.axis >= lead) {
    const auto& d = o.in_shape(0)[target.axis - lead];
    if (!d.is_static() || d.lo() != 1) {
      o.cannot_tell(why::spread_dimension_not_1);
      return true;
    }
  }
  o.out[0] = batch_state::batched_at(target.axis, target.factor);
  return true;
}

void broadcast(batch_op& o) {
  if (spread(o)) return;
  const auto* s = o.sole(0, {1, 2});
  if (s == nullptr) return;
  const auto r = o.in_rank(0), ro = o.out_rank(0);
  if (!r || !ro || *r > *ro) return o.cannot_tell(why::ranks_unknown);
  const auto mode = o.l.text("mode", "numpy");
  if (mode == "explicit") {
    const auto mapping = o.ints(2);
    if (!mapping || s->axis >= mapping->size()) return o.cannot_tell(why::axes_mapping_unknown);
    return o.keep(0, *s, static_cast<std::size_t>((*mapping)[s->axis]));
  }
  if (mode != "numpy" && mode != "bidirectional") return o.cannot_tell(because(why::mode_not_followed).quoting(std::string(mode)));
  o.keep(0, *s, s->axis + (*ro - *r));
}

void tile(batch_op& o) {
  if (spread(o)) return;
  const auto* s = o.sole(0, {1});
  if (s == nullptr) return;
  const auto r = o.in_rank(0), ro = o.out_rank(0);
  const auto repeats = o.ints(1);
  if (!r || !ro || !repeats) return o.cannot_tell(why::repeats_unknown);
  const auto axis = s->axis + (*ro - *r);
  const auto lead = *ro - repeats->size();
  if (axis >= lead && (*repeats)[axis - lead] != 1)
    return o.mixes(0, {why::repeats_batch, std::size_t{0}, s->axis});
  o.keep(0, *s, axis);
}

void pad(batch_op& o) {
  // The pad value (port 3) is data: written into every sample's padding, a value of the batch size there
  // gives a sample another result in a batch than alone.
  const auto* s = o.sole(0, {1, 2});
  if (s == nullptr) return;
  const auto begin = o.ints(1), end = o.ints(2);
  if (!begin || !end || s->axis >= begin->size() || s->axis >= end->size())
    return o.cannot_tell(why::pads_unknown);
  if ((*begin)[s->axis] != 0 || (*end)[s->axis] != 0)
    return o.mixes(0, {why::pads_batch, std::size_t{0}, s->axis});
  o.keep(0, *s, s->axis);
}

void interpolate(batch_op& o) {
  const auto* s = o.sole(0, {1, 2, 3});
  if (s == nullptr) return;
  for (std::size_t k = 0; k < batch_samples.size(); ++k) {
    const auto& in0 = o.in_shape(0, k);
    const auto& out0 = o.out_shape(0, k);
    if (!out0.rank_known() || s->axis >= out0.size()) return o.cannot_tell(why::output_rank_unknown);
    if (out0[s->axis].range() == in0[s->axis].range()) continue;
    // Interpolation (linear, cubic, area) computes each output row from neighbouring rows: across the
    // batch axis, from neighbouring samples. Nearest copies whole rows: to N·k rows it repeats each sample
    // in place with most coordinate modes (kept) and picks across samples with others (align_corners), which
    // is not followed here, so it is no finding either way; to any other count it leaves samples out.
    const auto& c = o.out_carrier(0);
    if (const auto* mode = o.l.find("mode"); mode != nullptr && mode->text == "nearest" &&
        c.state == batch_carrier::kind::one && c.axis == s->axis && s->factor > 0 && c.factor % s->factor == 0)
      return o.cannot_tell({why::resizes_batch_nearest, std::size_t{0}, s->axis});
    return o.mixes(0, {why::resizes_batch, std::size_t{0}, s->axis});
  }
  o.keep(0, *s, s->axis);
}

void shuffle_channels(batch_op& o) { along_axis_attribute(o, 1, why::batch_on_shuffled_axis, {}); }

void region_yolo(batch_op& o) {
  const auto r = o.in_rank(0);
  if (!r) return o.cannot_tell(why::data_rank_unknown);
  std::vector<std::size_t> forbidden;
  for (std::size_t a = 1; a < *r; ++a) forbidden.push_back(a);
  unary_except(o, forbidden, why::batch_on_cell_axis, {});
}

void detection(batch_op& o) {
  // Every input that holds the batch must hold one image per index of its axis 0: the op's own
  // per-image loop then keeps each image's results apart (its image-id column or slot).
  bool any = false;
  for (std::size_t p = 0; p < o.in.size(); ++p) {
    if (!o.data_ok(p) || !o.batched(p)) continue;
    const auto& s = o.in[p];
    if (s.axis != 0 || s.factor != 1)
      o.mixes(p, s.factor == 1 ? because(why::expects_image_per_index, p, s.axis)
                             : because(why::expects_image_per_index_folded, p, s.axis, s.factor));
    any = true;
  }
  if (!any || !o.faults.empty()) return;
  const auto index = static_cast<std::size_t>(&o.l - o.g.layers().data());
  for (auto& x : o.out) {
    x.k = kind::per_image;
    x.origin = index;
  }
}

void roi(batch_op& o) {
  // Boxes that post-processing gave per image (with their image index) select from the batched features.
  if (!o.batched(0) || o.in[0].axis != 0 || o.in[0].factor != 1)
    return o.cannot_tell(why::feature_map_not_per_image);
  for (std::size_t p = 1; p < o.in.size(); ++p)
    if (!o.in[p].is(kind::per_image))
      return o.cannot_tell({why::not_per_image_input, p});
  for (auto& x : o.out) {
    x.k = kind::per_image;
    x.origin = o.in[1].origin;
  }
}

void ctc_greedy_decoder(batch_op& o) {
  // Data [T, N, C] and mask [T, N] give [N, T, 1, 1].
  for (std::size_t p = 0; p < 2 && p < o.in.size(); ++p) {
    if (!o.data_ok(p)) return;
    if (!o.batched(p)) return o.cannot_tell({why::input_not_batched, p});
    if (o.in[p].axis != 1 || o.in[p].factor != o.in[0].factor)
      return o.mixes(p, {why::scans_time_along_batch, p, o.in[p].axis});
  }
  o.keep(0, o.in[0], 0);
}

void ctc_greedy_decoder_seq_len(batch_op& o) {
  // Data [N, T, C] and lengths [N] give [N, T] and [N].
  if (!o.params_ok({2})) return;
  for (std::size_t p = 0; p < 2 && p < o.in.size(); ++p) {
    if (!o.data_ok(p)) return;
    if (!o.batched(p)) return o.cannot_tell({why::input_not_batched, p});
    if (o.in[p].axis != 0 || o.in[p].factor != o.in[0].factor)
      return o.mixes(p, {why::scans_time_along_batch, p, o.in[p].axis});
  }
  keep_all(o, o.in[0], 0);
}

void recurrent(batch_op& o) {
  // The data and the states hold the batch at axis 0 (X [N, T, I] or [N, I], H and C [N, ...], the
  // sequence lengths [N]); the weights are shared. The outputs hold it at axis 0.
  const batch_state* first = nullptr;
  for (std::size_t p = 0; p < o.in.size(); ++p) {
    if (!o.data_ok(p) || !o.batched(p)) continue;
    const auto& s = o.in[p];
    if (s.axis != 0)
      return o.mixes(p, {why::recurrence_along_batch, p, s.axis});
    if (first != nullptr && s.factor != first->factor) return o.mixes(p, why::factors_differ);
    first = &s;
  }
  if (first != nullptr) keep_all(o, *first, 0);
}

void gather_elements(batch_op& o) {
  if (!o.data_ok(0) || !o.data_ok(1)) return;
  const auto r = o.in_rank(0);
  if (!r) return o.cannot_tell(why::data_rank_unknown);
  const auto axis = axis_in(o.l.integer("axis"), *r);
  if (!axis) return o.cannot_tell(why::axis_out_of_range);
  if (!o.batched(0) || !o.batched(1) || o.in[0].axis != o.in[1].axis || o.in[0].factor != o.in[1].factor)
    return o.cannot_tell(why::indices_at_another_axis);
  if (o.in[0].axis == *axis)
    return o.mixes(0, {why::gathers_along_batch, std::size_t{0}, *axis});
  o.keep(0, o.in[0], o.in[0].axis);
}

void gather_nd(batch_op& o) {
  if (!o.data_ok(0) || !o.data_ok(1)) return;
  const auto bd = o.l.integer("batch_dims", 0);
  if (bd >= 1 && o.batched(0) && o.batched(1) && o.in[0].axis == 0 && o.in[1].axis == 0 &&
      o.in[0].factor == o.in[1].factor)
    return o.keep(0, o.in[0], 0);
  o.cannot_tell(why::gather_nd_batch_dims);
}

void scatter_update(batch_op& o) {
  // Data, indices, updates, axis: with the batch before the axis in the data and in the updates, and
  // shared indices, each sample is updated alone.
  if (!o.params_ok({1, 3}) || !o.data_ok(0) || !o.data_ok(2)) return;
  const auto r = o.in_rank(0);
  const auto v = o.ints(3);
  if (!r || !v || v->size() != 1) return o.cannot_tell(why::axis_unknown);
  const auto axis = axis_in((*v)[0], *r);
  if (!axis) return o.cannot_tell(why::axis_out_of_range);
  if (o.batched(0) && o.in[0].axis == *axis)
    return o.mixes(0, {why::writes_along_batch, std::size_t{0}, *axis});
  if (o.batched(0) && o.batched(2) && o.in[0].axis < *axis && o.in[2].axis == o.in[0].axis &&
      o.in[2].factor == o.in[0].factor)
    return o.keep(0, o.in[0], o.in[0].axis);
  o.cannot_tell(why::updates_at_another_axis);
}

void scatter_elements_update(batch_op& o) {
  if (!o.params_ok({3}) || !o.data_ok(0) || !o.data_ok(1) || !o.data_ok(2)) return;
  const auto r = o.in_rank(0);
  const auto v = o.ints(3);
  if (!r || !v || v->size() != 1) return o.cannot_tell(why::axis_unknown);
  const auto axis = axis_in((*v)[0], *r);
  if (!axis) return o.cannot_tell(why::axis_out_of_range);
  for (std::size_t p = 0; p < 3; ++p)
    if (!o.batched(p) || o.in[p].axis != o.in[0].axis || o.in[p].factor != o.in[0].factor)
      return o.cannot_tell(why::scatter_inputs_at_other_axes);
  if (o.in[0].axis == *axis)
    return o.mixes(0, {why::writes_along_batch, std::size_t{0}, *axis});
  o.keep(0, o.in[0], o.in[0].axis);
}

void non_zero(batch_op& o) {
  // Its output lists coordinates, the batch index among them: per-image results, each row tagged.
  const auto* s = o.sole(0, {});
  if (s == nullptr) return;
  if (s->factor != 1) return o.cannot_tell(why::batch_folded);
  const auto index = static_cast<std::size_t>(&o.l - o.g.layers().data());
  o.out[0].k = kind::per_image;
  o.out[0].origin = index;
}

namespace {
void subgraph(batch_op& o, bool loop) {
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
      {batch::batch_norm, "batch_norm"},
      {batch::spatial, "spatial"},
      {batch::pooling, "pooling"},
      {batch::softmax, "softmax"},
      {batch::mvn, "mvn"},
      {batch::over_axes_input, "over_axes_input"},
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
