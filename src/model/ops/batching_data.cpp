// The batching rules of ops that move, select and index data (concatenations, splits, gathers, slices,
// transposes, reshapes, broadcasts, pads, resizes, detection and recurrent ops, scatters): see batching.cpp
// for what a rule answers.
#include <algorithm>
#include <set>

#include "model/ops/batching.hpp"
#include "model/ops/batching_helpers.hpp"
#include "model/ops/rules.hpp"

namespace reshape1::model::detail {

using kind = batch_state::kind;

namespace batch {

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
  // The output's dimensions must be known (static, or a size apart from the batch), but for one after the
  // batch: one sample's elements are as many as alone (the input's dimensions other than the batch do not
  // change with N, as the input holds the batch), so with every other one known that one does not change
  // with N either (the -1 of [N,120,-1] over [N,120,1,X] is X, whatever X is). Two unknown ones may trade
  // a factor N between them, and one before the batch is part of the prefix compared below.
  const auto unknown = o.out_unknown(0);
  if (target.state == batch_carrier::kind::unknown || !unknown || unknown->size() > 1 ||
      (unknown->size() == 1 && (target.state != batch_carrier::kind::one || unknown->front() < target.axis)))
    return o.cannot_tell(why::output_dimensions_unknown);
  if (target.state != batch_carrier::kind::one)
    return o.fault(batch_issue::swallows_batch, 0, {why::folded_into_fixed_dimensions, std::size_t{0}, s->axis});
  const auto out_prefix = o.out_prefix(0, target.axis);
  if (!in_prefix || !out_prefix) return o.cannot_tell(why::prefix_not_static);
  if (*in_prefix != *out_prefix) {
    // Products of sizes apart from the batch that differ as written may still be equal at some sizes (W
    // and 8 at W = 8): only constants prove the samples interleaved.
    if (!in_prefix->is_constant() || !out_prefix->is_constant()) return o.cannot_tell(why::prefix_not_static);
    return o.fault(batch_issue::swallows_batch, 0,
                   {why::interleaves_samples, target.axis, target.factor, out_prefix->constant, in_prefix->constant});
  }
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

}  // namespace batch
}  // namespace reshape1::model::detail
