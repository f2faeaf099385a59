// Data movement: Concat, Gather, StridedSlice, Slice, Broadcast, Tile, Transpose, Split, VariadicSplit, Pad,
// ScatterUpdate, DepthToSpace, SpaceToDepth and ShuffleChannels; and RandomUniform, which makes a tensor of a
// given shape as Broadcast does. Concat, Gather, StridedSlice, Slice, Broadcast, Split and ScatterUpdate also
// move known values.
#include <algorithm>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "model/ops/rules.hpp"

namespace reshape1::model::detail {
namespace {

dimension add(const op& o, const dimension& a, const dimension& b) {
  std::int64_t lo = 0, hi = interval::unbounded;
  if (__builtin_add_overflow(a.lo(), b.lo(), &lo)) refuse(o, "the concatenated dimension overflows");
  if (a.range().is_bounded() && b.range().is_bounded() && __builtin_add_overflow(a.hi(), b.hi(), &hi))
    hi = interval::unbounded;
  return span_dimension(lo, hi);
}

std::int64_t element_count(const shape& s) {
  std::int64_t n = 1;
  for (std::size_t i = 0; i < s.size(); ++i) n *= s[i];
  return n;
}

// Concat-1: equal ranks, equal dimensions except on `axis`, where they add up.
void concat(op& o) {
  if (o.in.empty()) refuse(o, "Concat needs at least one input");
  o.need(1, 1);
  o.out[0].type = o.in[0]->type;
  const partial_shape* known = nullptr;
  for (const auto* t : o.in)
    if (t->shape.rank_known()) {
      known = &t->shape;
      break;
    }
  if (known == nullptr) return;
  const auto axis = normalize_axis(o, o.l.integer("axis"), known->size());
  std::vector<dimension> out(known->begin(), known->end());
  out[axis] = dimension(0);
  for (std::size_t k = 0; k < o.in.size(); ++k) {
    const auto& s = o.shape(k);
    if (!s.rank_known()) {
      out[axis] = dimension();
      continue;
    }
    if (s.size() != out.size())
      refuse(o, fmt::format("input {} has the shape {}, of another rank than {}", k, to_string(s), to_string(*known)));
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = i == axis ? add(o, out[i], s[i])
                         : merge(o, out[i], s[i], fmt::format("input {} dimension {}", k, i));
  }
  o.out[0].shape = partial_shape(std::move(out));
  // Values: every input known, the output small.
  if (!small_count(o.out[0].shape)) return;
  tensor_value v;
  const auto result = o.out[0].shape.to_static();
  std::int64_t outer = 1;
  for (std::size_t i = 0; i < axis; ++i) outer *= result[i];
  bool real = false;
  for (const auto* t : o.in) {
    if (!t->value || !t->shape.is_static()) return;
    real = real || t->value->is_real();
  }
  for (std::int64_t b = 0; b < outer; ++b)
    for (const auto* t : o.in) {
      const auto chunk = static_cast<std::size_t>(element_count(t->shape.to_static()) / std::max<std::int64_t>(outer, 1));
      const auto from = chunk * static_cast<std::size_t>(b);
      for (std::size_t k = from; k < from + chunk; ++k) {
        if (!real) {
          v.elements.push_back(t->value->elements[k]);
        } else if (t->value->is_real()) {
          v.push_real(t->value->reals[k], t->value->real_constant(k));
        } else if (t->value->elements[k].exact()) {
          v.push_real(static_cast<double>(t->value->elements[k].lo), t->value->elements[k].constant);
        } else {
          return;
        }
      }
    }
  o.out[0].value = std::move(v);
}

// Gather-1 (no batch_dims), Gather-7 and Gather-8: data[:axis] + indices[batch_dims:] + data[axis+1:].
void gather(op& o) {
  o.need(3, 1);
  o.out[0].type = o.in[0]->type;
  require_index_input(o, 1, "indices", false);
  require_index_input(o, 2, "axis", false);
  const auto& data = o.shape(0);
  const auto& indices = o.shape(1);
  const auto axis_value = known_integers(o, 2);
  if (!data.rank_known() || !indices.rank_known() || !axis_value) return;
  if (axis_value->size() != 1) refuse(o, "the axis input must hold one value");
  const auto axis = normalize_axis(o, (*axis_value)[0], data.size());
  auto batch = o.l.opset >= 7 ? o.l.integer("batch_dims", 0) : 0;
  if (batch < 0) batch += static_cast<std::int64_t>(indices.size());
  if (batch < 0 || static_cast<std::size_t>(batch) > indices.size() || static_cast<std::size_t>(batch) > axis)
    refuse(o, fmt::format("batch_dims {} must be within the indices' rank {} and not above axis {}",
                          o.l.integer("batch_dims", 0), indices.size(), axis));
  const auto b = static_cast<std::size_t>(batch);
  // OpenVINO's Gather-8 gives zeros for an index outside the axis; ONNX's Gather is refused by ONNX Runtime
  // when the model runs, so a Gather read from an ONNX file refuses a known one.
  if (o.g.format() == model_format::onnx) refuse_indices_past(o, 1, data[axis], axis);
  std::vector<dimension> out;
  for (std::size_t i = 0; i < axis; ++i)
    out.push_back(i < b ? merge(o, data[i], indices[i], fmt::format("batch dimension {}", i)) : data[i]);
  for (std::size_t i = b; i < indices.size(); ++i) out.push_back(indices[i]);
  for (std::size_t i = axis + 1; i < data.size(); ++i) out.push_back(data[i]);
  o.out[0].shape = partial_shape(std::move(out));
  // Values (batch_dims 0): data and indices known, every index in range.
  const auto idx = known_integers(o, 1);
  const auto& v = o.value(0);
  if (b != 0 || !v || !idx || !data.is_static() || !small_count(o.out[0].shape)) return;
  const auto d = data.to_static();
  const std::int64_t n = d[axis];
  std::int64_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < axis; ++i) outer *= d[i];
  for (std::size_t i = axis + 1; i < d.size(); ++i) inner *= d[i];
  std::vector<std::size_t> positions;
  for (std::int64_t x = 0; x < outer; ++x)
    for (auto k : *idx) {
      if (k < -n || k >= n) return;
      if (k < 0) k += n;
      for (std::int64_t y = 0; y < inner; ++y) positions.push_back(static_cast<std::size_t>((x * n + k) * inner + y));
    }
  o.out[0].value = gather_value(*v, positions);
}

/// A list attribute of 0/1 flags, read as a mask (missing entries are 0).
std::vector<bool> mask(const op& o, std::string_view name) {
  std::vector<bool> m;
  for (auto x : o.l.integers(name, {})) m.push_back(x != 0);
  return m;
}

bool bit(const std::vector<bool>& m, std::size_t i) { return i < m.size() && m[i]; }

struct slice_axis {
  std::int64_t start = 0, step = 1, length = 0;
};

/// How a start before the first element reads when stepping backwards: as nothing to take (Python's and
/// StridedSlice's slicing), or as the first element (ONNX's Slice and OpenVINO's Slice-8 clamp a backward
/// start into [0, n - 1]: `x[-4::-2]` of 3 elements is one element there, none in Python).
enum class backward_start { python, first };

/// Slicing of a dimension of size n.
slice_axis slice_of(std::int64_t n, std::int64_t b, std::int64_t e, std::int64_t s, bool no_begin, bool no_end,
                    backward_start before = backward_start::python) {
  slice_axis r;
  r.step = s;
  if (s > 0) {
    b = no_begin ? 0 : (b < 0 ? std::max<std::int64_t>(b + n, 0) : std::min(b, n));
    e = no_end ? n : (e < 0 ? std::max<std::int64_t>(e + n, 0) : std::min(e, n));
    r.start = b;
    r.length = e > b ? (e - b - 1) / s + 1 : 0;
  } else {
    const std::int64_t first = before == backward_start::first ? 0 : -1;
    // min(.., n - 1) last: a dimension of 0 has no element to start from either way.
    b = no_begin ? n - 1 : std::min(b < 0 ? std::max<std::int64_t>(b + n, first) : b, n - 1);
    e = no_end ? -1 : (e < 0 ? std::max<std::int64_t>(e + n, -1) : std::min(e, n - 1));
    r.start = b;
    // b - e <= n + 1; a step of -2^63 has no negation, and takes one element at most.
    r.length = b > e ? (s == std::numeric_limits<std::int64_t>::min() ? 1 : (b - e - 1) / -s + 1) : 0;
  }
  return r;
}

/// How the sliced length moves as the dimension's size n grows: +1 never down, -1 never up, 0 either way
/// (the start and the end are each clamped into the dimension, and one can stop moving while the other
/// goes on: `x[2:-5:-1]` takes 1, 3, 3, 2, 0 elements of 1, 3, 4, 5, 7).
int slice_direction(std::int64_t b, std::int64_t e, std::int64_t s, bool nb, bool ne, backward_start before) {
  if (nb || ne) return 1;  // one end at an edge of the dimension, the other moving no faster
  if (s > 0) return b < 0 && e >= 0 ? 0 : 1;
  if ((b >= 0) != (e >= 0)) return 0;
  if (b >= 0) return 1;
  // Both counted from the end: whichever starts following n first, the length only grows or only shrinks
  // (from n = 1: of an empty dimension there is nothing to take, which sliced() adds on its own). As
  // `first - b <= -1 - e`, without the overflow of -INT64_MIN.
  const std::int64_t first = before == backward_start::first ? 0 : -1;
  return e + (first + 1) <= b ? 1 : -1;
}

/// The sliced length of a dimension that may be an interval: the lengths at its ends where the length
/// moves one way; else every size of a small interval tried, and [0, its largest size] beyond that.
dimension sliced(const dimension& d, std::int64_t b, std::int64_t e, std::int64_t s, bool nb, bool ne,
                 backward_start before = backward_start::python) {
  const auto at = [&](std::int64_t n) { return slice_of(n, b, e, s, nb, ne, before).length; };
  if (d.is_static()) return dimension(at(d.lo()));
  // An empty dimension gives an empty slice, whatever the lengths of the others do: 0 joins their span
  // (a backward slice clamped to element 0 takes one element of every size from 1 on, none of 0).
  if (d.lo() == 0) {
    const auto rest = sliced(dimension(interval(1, d.hi())), b, e, s, nb, ne, before);
    return span_dimension(0, rest.hi());
  }
  const int direction = slice_direction(b, e, s, nb, ne, before);
  if (d.range().is_bounded()) {
    if (direction != 0) return span_dimension(std::min(at(d.lo()), at(d.hi())), std::max(at(d.lo()), at(d.hi())));
    constexpr std::int64_t tried = 4096;
    if (d.hi() - d.lo() > tried) return span_dimension(0, d.hi());
    std::int64_t lo = at(d.lo()), hi = lo;
    for (std::int64_t n = d.lo() + 1; n <= d.hi(); ++n) {
      lo = std::min(lo, at(n));
      hi = std::max(hi, at(n));
    }
    return span_dimension(lo, hi);
  }
  if (direction > 0) {
    // Growing without bound unless the end is a fixed index: then it stops at that end's length.
    const bool stops = s > 0 && !ne && e >= 0 && (nb || b >= 0);
    return span_dimension(at(d.lo()), stops ? at(interval::unbounded - 1) : interval::unbounded);
  }
  return span_dimension(0, direction < 0 ? at(d.lo()) : interval::unbounded);
}

/// The values at the cartesian product of the picked coordinates of each axis.
std::optional<tensor_value> picked_values(const std::optional<tensor_value>& v, const partial_shape& data,
                                          const std::vector<slice_axis>& picks) {
  if (!v || !data.is_static()) return std::nullopt;
  const auto st = strides_of(data.to_static());
  std::vector<std::size_t> positions{0};
  for (std::size_t a = 0; a < data.size(); ++a) {
    std::vector<std::size_t> next;
    for (auto p : positions)
      for (std::int64_t k = 0; k < picks[a].length; ++k)
        next.push_back(p + static_cast<std::size_t>(picks[a].start + k * picks[a].step) * st[a]);
    positions = std::move(next);
  }
  return gather_value(*v, positions);
}

// StridedSlice-1: NumPy slicing with begin/end/new-axis/shrink/ellipsis masks.
void strided_slice(op& o) {
  o.need(3, 1);
  o.out[0].type = o.in[0]->type;
  const auto& data = o.shape(0);
  const auto begin = known_integers(o, 1), end = known_integers(o, 2);
  const auto strides = o.in.size() > 3 ? known_integers(o, 3) : std::optional<std::vector<std::int64_t>>();
  if (!data.rank_known() || !begin || !end || (o.in.size() > 3 && !strides)) return;
  const auto begin_mask = mask(o, "begin_mask"), end_mask = mask(o, "end_mask");
  const auto new_axis = mask(o, "new_axis_mask"), shrink = mask(o, "shrink_axis_mask"),
             ellipsis = mask(o, "ellipsis_mask");
  const std::size_t n = begin->size();
  if (end->size() != n || (strides && strides->size() != n))
    refuse(o, fmt::format("begin, end and strides have {}, {} and {} values", n, end->size(),
                          strides ? strides->size() : n));
  std::size_t consumed = 0, ellipses = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (bit(ellipsis, i)) ++ellipses;
    else if (!bit(new_axis, i)) ++consumed;
  }
  if (ellipses > 1) refuse(o, "more than one ellipsis");
  if (consumed > data.size())
    refuse(o, fmt::format("{} slices for the rank-{} input {}", consumed, data.size(), to_string(data)));
  std::vector<dimension> out;
  // Per data axis: the selected coordinates when static (for values), or nothing.
  std::vector<slice_axis> picks(data.size());
  std::vector<bool> picked_static(data.size(), true);
  std::size_t ax = 0;
  auto whole = [&](std::size_t a) {
    out.push_back(data[a]);
    picks[a] = {0, 1, data[a].lo()};
    picked_static[a] = data[a].is_static();
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (bit(ellipsis, i)) {
      const std::size_t covered = data.size() - consumed;
      for (std::size_t k = 0; k < covered; ++k) whole(ax++);
      continue;
    }
    if (bit(new_axis, i)) {
      out.emplace_back(1);
      continue;
    }
    const std::int64_t s = strides ? (*strides)[i] : 1;
    if (s == 0) refuse(o, fmt::format("strides[{}] is 0", i));
    const auto& d = data[ax];
    if (bit(shrink, i)) {
      const std::int64_t b = (*begin)[i];
      if (d.is_static() && (b >= d.lo() || b < -d.lo()))
        refuse(o, fmt::format("begin[{}] = {} is outside the dimension {}", i, b, d.lo()));
      picks[ax] = {b < 0 ? b + d.lo() : b, 1, 1};
      picked_static[ax] = d.is_static();
      ++ax;
      continue;
    }
    const bool nb = bit(begin_mask, i), ne = bit(end_mask, i);
    if (d.is_static()) picks[ax] = slice_of(d.lo(), (*begin)[i], (*end)[i], s, nb, ne);
    picked_static[ax] = d.is_static();
    out.push_back(sliced(d, (*begin)[i], (*end)[i], s, nb, ne));
    ++ax;
  }
  while (ax < data.size()) whole(ax++);
  o.out[0].shape = partial_shape(std::move(out));
  // Values: the cartesian product of the picked coordinates.
  const auto& v = o.value(0);
  if (!v || !data.is_static() || !small_count(o.out[0].shape) ||
      std::find(picked_static.begin(), picked_static.end(), false) != picked_static.end())
    return;
  o.out[0].value = picked_values(v, data, picks);
}

// Slice-8: start, stop and step for each of `axes` (default: the first ones), clamped like Python's but for
// a backward start before the first element, which is the first element (ONNX's Slice, OpenVINO's Slice-8).
void slice(op& o) {
  o.need(4, 1);
  o.out[0].type = o.in[0]->type;
  for (const auto& [port, what] : {std::pair<std::size_t, std::string_view>{1, "start"}, {2, "stop"}, {3, "step"}, {4, "axes"}})
    require_index_input(o, port, what, true);
  const auto& data = o.shape(0);
  const auto start = known_integers(o, 1), stop = known_integers(o, 2), step = known_integers(o, 3);
  if (!data.rank_known() || !step) return;
  std::vector<std::int64_t> axes;
  if (o.in.size() > 4) {
    const auto a = known_integers(o, 4);
    if (!a) return;
    axes = *a;
  } else {
    for (std::size_t i = 0; i < step->size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  }
  if (!start || !stop) {
    // Bounds computed at run time (a crop to half the width, `shape[3]/2`): the rank and the axes not
    // sliced are known, and a sliced axis keeps at most its extent.
    if (axes.size() != step->size()) return;
    std::vector<dimension> out(data.begin(), data.end());
    std::vector<bool> seen(data.size(), false);
    for (const auto axis : axes) {
      const auto a = normalize_axis(o, axis, data.size());
      if (seen[a]) refuse(o, fmt::format("axis {} is sliced twice", a));
      seen[a] = true;
      out[a] = dimension(0, data[a].hi());
    }
    o.out[0].shape = partial_shape(std::move(out));
    return;
  }
  if (stop->size() != start->size() || step->size() != start->size() || axes.size() != start->size())
    refuse(o, fmt::format("start, stop, step and axes have {}, {}, {} and {} values", start->size(), stop->size(),
                          step->size(), axes.size()));
  std::vector<dimension> out(data.begin(), data.end());
  std::vector<slice_axis> picks(data.size());
  std::vector<bool> seen(data.size(), false);
  for (std::size_t i = 0; i < data.size(); ++i) picks[i] = {0, 1, data[i].lo()};
  for (std::size_t k = 0; k < axes.size(); ++k) {
    const auto a = normalize_axis(o, axes[k], data.size());
    if (seen[a]) refuse(o, fmt::format("axis {} is sliced twice", a));
    seen[a] = true;
    if ((*step)[k] == 0) refuse(o, fmt::format("step[{}] is 0", k));
    if (data[a].is_static())
      picks[a] = slice_of(data[a].lo(), (*start)[k], (*stop)[k], (*step)[k], false, false, backward_start::first);
    out[a] = sliced(data[a], (*start)[k], (*stop)[k], (*step)[k], false, false, backward_start::first);
  }
  o.out[0].shape = partial_shape(std::move(out));
  if (small_count(o.out[0].shape)) o.out[0].value = picked_values(o.value(0), data, picks);
}

/// Broadcast-1's pdpd mode: the data placed at `axis` of the target (-1: aligned to the right), its trailing
/// 1s ignored, every other dimension 1 or the target's.
void pdpd_to_target(const op& o, const partial_shape& data, const partial_shape& target) {
  if (!data.rank_known()) return;
  if (data.size() > target.size())
    refuse(o, fmt::format("the data {} has a higher rank than the target {}", to_string(data), to_string(target)));
  std::size_t used = data.size();
  while (used > 0 && data[used - 1].is_static() && data[used - 1].lo() == 1) --used;
  auto axis = o.l.integer("axis", -1);
  if (axis == -1) axis = static_cast<std::int64_t>(target.size() - data.size());
  if (axis < 0 || static_cast<std::size_t>(axis) + used > target.size())
    refuse(o, fmt::format("axis {} does not place the data {} inside the target {}", o.l.integer("axis", -1),
                          to_string(data), to_string(target)));
  for (std::size_t i = 0; i < used; ++i)
    if (!(data[i].is_static() && data[i].lo() == 1))
      (void)merge(o, data[i], target[static_cast<std::size_t>(axis) + i], fmt::format("data dimension {}", i));
}

// Broadcast-1 (numpy, explicit, pdpd) and Broadcast-3 (numpy, bidirectional, explicit): the target shape
// (bidirectional: both ways); explicit maps the data's dimensions to the target's axes_mapping.
void broadcast_op(op& o) {
  o.need(2, 1);
  o.out[0].type = o.in[0]->type;
  const auto mode = o.l.text("mode", "numpy");
  if (o.l.opset == 1 && mode != "numpy" && mode != "explicit" && mode != "pdpd")
    refuse(o, fmt::format("mode '{}' is not numpy, explicit or pdpd (Broadcast-1)", mode));
  if (o.l.opset != 1 && mode == "pdpd") refuse(o, "mode 'pdpd' is Broadcast-1's", "Broadcast-3 has bidirectional");
  const auto target = shape_from_value(o, 1);
  const auto& data = o.shape(0);
  if (!target) return;
  // A negative extent is no shape: ONNX Runtime refuses an Expand to one. (pdpd's target is its own rule's.)
  if (const auto& v = o.value(1); v && !v->is_real() && mode != "pdpd")
    for (std::size_t i = 0; i < v->elements.size(); ++i)
      if (v->elements[i].hi < 0)
        refuse(o, fmt::format("the target shape's element {} is {}, a negative extent", i, v->elements[i].hi));
  if (mode == "pdpd") {
    pdpd_to_target(o, data, *target);
    o.out[0].shape = *target;
    return;  // values follow NumPy's alignment only
  } else if (mode == "numpy") {
    if (data.rank_known() && data.size() > target->size())
      refuse(o, fmt::format("the data {} has a higher rank than the target {}", to_string(data), to_string(*target)));
    // One way: each data dimension is 1 or the target's.
    const auto both = broadcast(o, data, *target);
    for (std::size_t i = 0; both.rank_known() && i < both.size(); ++i)
      if (both[i].is_static() && (*target)[i].is_static() && both[i].lo() != (*target)[i].lo())
        refuse(o, fmt::format("the data {} does not broadcast to the target {}", to_string(data), to_string(*target)));
    o.out[0].shape = *target;
  } else if (mode == "bidirectional") {
    o.out[0].shape = broadcast(o, data, *target);
  } else if (mode == "explicit") {
    o.need(3, 1);
    const auto mapping = known_integers(o, 2);
    if (mapping && data.rank_known()) {
      if (mapping->size() != data.size())
        refuse(o, fmt::format("axes_mapping has {} values for the rank-{} data", mapping->size(), data.size()));
      for (std::size_t i = 0; i < mapping->size(); ++i) {
        const auto a = normalize_axis(o, (*mapping)[i], target->size(), "axes_mapping value");
        if (!(data[i].is_static() && data[i].lo() == 1)) (void)merge(o, data[i], (*target)[a], "a mapped dimension");
      }
    }
    o.out[0].shape = *target;
    return;
  } else {
    refuse(o, fmt::format("mode '{}' is not numpy, bidirectional or explicit", mode));
  }
  const auto& v = o.value(0);
  if (v && data.is_static() && small_count(o.out[0].shape))
    o.out[0].value = gather_value(*v, broadcast_positions(data.to_static(), o.out[0].shape.to_static()));
}

// Tile-1: each dimension times its repeat, aligned from the right; the longer of the two sets the rank.
// A Tile the ONNX reader lowered (attribute onnx_exact_repeats) takes exactly one repeat per dimension, as
// ONNX's Tile does.
void tile(op& o) {
  o.need(2, 1);
  o.out[0].type = o.in[0]->type;
  require_index_input(o, 1, "repeats", true);
  const auto& data = o.shape(0);
  if (const auto& r = o.shape(1);
      o.l.find("onnx_exact_repeats") != nullptr && data.rank_known() && r.rank_known() && r.size() == 1 &&
      r[0].is_static() && r[0].lo() != static_cast<std::int64_t>(data.size()))
    refuse(o, fmt::format("{} repeat{} for an input of rank {}", r[0].lo(), r[0].lo() == 1 ? "" : "s", data.size()),
           "ONNX's Tile takes one repeat for each dimension of its input");
  const auto repeats = known_integers(o, 1);
  if (!data.rank_known() || !repeats) return;
  for (auto r : *repeats)
    if (r < 0) refuse(o, fmt::format("the repeat {} is negative", r));
  const std::size_t rank = std::max(data.size(), repeats->size());
  std::vector<dimension> out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const dimension d = i + data.size() >= rank ? data[i + data.size() - rank] : dimension(1);
    const std::int64_t r = i + repeats->size() >= rank ? (*repeats)[i + repeats->size() - rank] : 1;
    // A dimension no tensor can have is refused, as Concat and Pad refuse theirs; an interval's upper
    // bound that overflows is no bound.
    std::int64_t lo = 0;
    if (__builtin_mul_overflow(d.lo(), r, &lo))
      refuse(o, fmt::format("dimension {} ({}) times its repeat {} overflows", i, to_string(partial_shape{d}), r));
    out[i] = r == 1 ? d : map_dimension(d, [&](std::int64_t x) {
      std::int64_t y = 0;
      return __builtin_mul_overflow(x, r, &y) ? interval::unbounded : y;
    });
  }
  o.out[0].shape = partial_shape(std::move(out));
}

// Transpose-1: out[i] = data[order[i]]; an empty order reverses.
void transpose(op& o) {
  o.need(2, 1);
  o.out[0].type = o.in[0]->type;
  const auto& data = o.shape(0);
  const auto order = known_integers(o, 1);
  if (!data.rank_known() || !order) return;
  std::vector<std::int64_t> perm = *order;
  if (perm.empty()) {
    for (std::size_t i = data.size(); i-- > 0;) perm.push_back(static_cast<std::int64_t>(i));
  }
  if (perm.size() != data.size())
    refuse(o, fmt::format("the order has {} values for the rank-{} input", perm.size(), data.size()));
  std::vector<bool> seen(data.size(), false);
  std::vector<dimension> out;
  for (auto p : perm) {
    if (p < 0 || static_cast<std::size_t>(p) >= data.size() || seen[static_cast<std::size_t>(p)])
      refuse(o, fmt::format("the order [{}] is not a permutation of 0..{}", fmt::join(perm, ","), data.size() - 1));
    seen[static_cast<std::size_t>(p)] = true;
    out.push_back(data[static_cast<std::size_t>(p)]);
  }
  o.out[0].shape = partial_shape(std::move(out));
}

/// Split and VariadicSplit of a known value: output k holds the elements of the pieces' k-th stretch of
/// `lengths` along axis `a` (shape-computing sub-graphs split a ShapeOf's value, and read what they cut).
void cut_values(op& o, std::size_t a, const std::vector<std::int64_t>& lengths) {
  const auto& data = o.shape(0);
  const auto& v = o.value(0);
  if (!v || !data.is_static() || !small_count(data) || lengths.size() != o.out.size()) return;
  const auto st = data.to_static();
  std::int64_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < a; ++i) outer *= st[i];
  for (std::size_t i = a + 1; i < st.size(); ++i) inner *= st[i];
  std::int64_t start = 0;
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    std::vector<std::size_t> positions;
    for (std::int64_t x = 0; x < outer; ++x)
      for (std::int64_t y = 0; y < lengths[k]; ++y)
        for (std::int64_t z = 0; z < inner; ++z)
          positions.push_back(static_cast<std::size_t>((x * st[a] + start + y) * inner + z));
    o.out[k].value = gather_value(*v, positions);
    start += lengths[k];
  }
}

// VariadicSplit-1: the dimension at `axis` cut into the given lengths (at most one -1 takes the rest).
void variadic_split(op& o) {
  o.need(3, 0);
  const auto& data = o.shape(0);
  const auto axis = known_integers(o, 1);
  const auto lengths = known_integers(o, 2);
  for (auto& t : o.out) t.type = o.in[0]->type;
  if (!data.rank_known() || !axis || !lengths) return;
  if (axis->size() != 1) refuse(o, "the axis input must hold one value");
  const auto a = normalize_axis(o, (*axis)[0], data.size());
  if (lengths->size() != o.out.size())
    refuse(o, fmt::format("{} split lengths for {} outputs", lengths->size(), o.out.size()));
  std::int64_t known = 0, unknown = 0;
  for (auto x : *lengths) {
    if (x == -1) ++unknown;
    else if (x < 0) refuse(o, fmt::format("the split length {} is negative", x));
    else if (__builtin_add_overflow(known, x, &known)) refuse(o, fmt::format("the split lengths [{}] overflow", fmt::join(*lengths, ",")));
  }
  if (unknown > 1) refuse(o, "more than one split length is -1");
  const auto& d = data[a];
  if (d.is_static() && (unknown == 0 ? known != d.lo() : known > d.lo()))
    refuse(o, fmt::format("the split lengths [{}] do not add up to the dimension {}", fmt::join(*lengths, ","), d.lo()));
  for (std::size_t k = 0; k < o.out.size(); ++k) {
    std::vector<dimension> dims(data.begin(), data.end());
    const auto x = (*lengths)[k];
    dims[a] = x != -1 ? dimension(x) : map_dimension(d, [&](std::int64_t n) { return n - known; });
    o.out[k].shape = partial_shape(std::move(dims));
  }
  if (!d.is_static()) return;
  std::vector<std::int64_t> cut(*lengths);
  for (auto& x : cut)
    if (x == -1) x = d.lo() - known;
  cut_values(o, a, cut);
}

// Split-1: the dimension at `axis` cut into num_splits equal parts; values are cut too.
/// A Split the ONNX reader lowered from Split-18's num_outputs (attribute onnx_last_smaller): parts of
/// ceil(d / n) elements, the last one what remains, which ONNX Runtime wants of at least one element (so
/// 7 in 3 is 3, 3, 1; 4 in 3, which would leave the last empty, and fewer elements than parts are refused).
void split_last_smaller(op& o, const partial_shape& data, std::size_t a, std::int64_t parts) {
  const auto& d = data[a];
  const auto ceil = [&](std::int64_t x) { return x / parts + (x % parts != 0 ? 1 : 0); };
  std::vector<dimension> dims(data.begin(), data.end());
  if (d.is_static()) {
    const auto chunk = ceil(d.lo());
    if (d.lo() < parts)
      refuse(o, fmt::format("dimension {} ({}) holds fewer elements than the {} parts", a, d.lo(), parts));
    if (d.lo() - chunk * (parts - 1) < 1)
      refuse(o, fmt::format("dimension {} ({}) in {} parts of {} leaves {} for the last", a, d.lo(), parts, chunk,
                            d.lo() - chunk * (parts - 1)));
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(parts), chunk);
    lengths.back() = d.lo() - chunk * (parts - 1);
    for (std::size_t k = 0; k < o.out.size(); ++k) {
      dims[a] = dimension(lengths[k]);
      o.out[k].shape = partial_shape(dims);
    }
    cut_values(o, a, lengths);
    return;
  }
  const auto hi = d.range().is_bounded() ? ceil(d.hi()) : interval::unbounded;
  const auto lo = ceil(std::max(d.lo(), parts));
  for (std::size_t k = 0; k < o.out.size(); ++k) {
    dims[a] = k + 1 < o.out.size() ? span_dimension(lo, std::max(lo, hi)) : span_dimension(1, std::max<std::int64_t>(1, hi));
    o.out[k].shape = partial_shape(dims);
  }
}

void split(op& o) {
  o.need(2, 1);
  const auto parts = o.l.integer("num_splits");
  if (parts <= 0) refuse(o, fmt::format("num_splits is {}", parts), "it must be positive");
  if (static_cast<std::size_t>(parts) != o.out.size())
    refuse(o, fmt::format("num_splits is {} but the layer has {} outputs", parts, o.out.size()));
  for (auto& t : o.out) t.type = o.in[0]->type;
  const auto& axis_shape = o.shape(1);
  if (axis_shape.rank_known() && axis_shape.size() != 0)
    refuse(o, "the axis must be a scalar", fmt::format("its shape is {}", to_string(axis_shape)));
  const auto& data = o.shape(0);
  const auto axis = known_integers(o, 1);
  if (!data.rank_known()) return;
  if (!axis) {  // the rank is known, the axis is not
    for (auto& t : o.out) t.shape = partial_shape(std::vector<dimension>(data.size()));
    return;
  }
  if (axis->size() != 1) refuse(o, "the axis input must hold one value");
  const auto a = normalize_axis(o, (*axis)[0], data.size());
  const auto& d = data[a];
  if (o.l.find("onnx_last_smaller") != nullptr) return split_last_smaller(o, data, a, parts);
  if (d.is_static() && d.lo() % parts != 0)
    refuse(o, fmt::format("dimension {} ({}) does not split into {} equal parts", a, d.lo(), parts));
  std::vector<dimension> dims(data.begin(), data.end());
  if (d.is_static()) {
    dims[a] = dimension(d.lo() / parts);
  } else {  // the multiples of num_splits within the interval
    const auto lo = d.lo() / parts + (d.lo() % parts != 0 ? 1 : 0);
    const auto hi = d.range().is_bounded() ? d.hi() / parts : interval::unbounded;
    dims[a] = hi < lo ? dimension(lo) : span_dimension(lo, hi);
  }
  for (auto& t : o.out) t.shape = partial_shape(dims);
  if (d.is_static()) cut_values(o, a, std::vector<std::int64_t>(static_cast<std::size_t>(parts), d.lo() / parts));
}

/// block_size to the power of the spatial rank, refused when it overflows or is not positive.
std::int64_t block_volume(const op& o, std::size_t spatial) {
  const auto block = o.l.integer("block_size", 1);
  if (block <= 0) refuse(o, fmt::format("block_size is {}", block), "it must be positive");
  std::int64_t volume = 1;
  for (std::size_t i = 0; i < spatial; ++i)
    if (__builtin_mul_overflow(volume, block, &volume)) refuse(o, "block_size to the spatial rank overflows");
  return volume;
}

/// DepthToSpace and SpaceToDepth: mode blocks_first or depth_first, data [N, C, spatial...].
const partial_shape* space_data(const op& o) {
  o.need(1, 1);
  const auto mode = o.l.text("mode", "");
  if (mode != "blocks_first" && mode != "depth_first")
    refuse(o, fmt::format("mode '{}' is not blocks_first or depth_first", mode));
  const auto& data = o.shape(0);
  if (!data.rank_known()) return nullptr;
  if (data.size() < 3) refuse(o, fmt::format("the data {} must have rank 3 or more", to_string(data)));
  return &data;
}

dimension scaled(const op& o, const dimension& d, std::int64_t k) {
  return map_dimension(d, [&](std::int64_t x) {
    std::int64_t y = 0;
    if (__builtin_mul_overflow(x, k, &y)) refuse(o, "a dimension times block_size overflows");
    return y;
  });
}

/// d / k when k divides d; refused when a static d is not a multiple.
dimension divided(const op& o, const dimension& d, std::int64_t k, std::string_view what) {
  if (d.is_static() && d.lo() % k != 0)
    refuse(o, fmt::format("{} ({}) is not a multiple of {}", what, d.lo(), k));
  if (d.is_static()) return dimension(d.lo() / k);
  const auto lo = d.lo() / k + (d.lo() % k != 0 ? 1 : 0);
  const auto hi = d.range().is_bounded() ? d.hi() / k : interval::unbounded;
  return hi < lo ? dimension(lo) : span_dimension(lo, hi);
}

// DepthToSpace-1: [N, C, D...] to [N, C / b^k, D * b...].
void depth_to_space(op& o) {
  const auto* data = space_data(o);
  o.out[0].type = o.in[0]->type;
  if (data == nullptr) return;
  const auto& d = *data;
  const auto block = o.l.integer("block_size", 1);
  const auto volume = block_volume(o, d.size() - 2);
  std::vector<dimension> out{d[0], divided(o, d[1], volume, "the channels")};
  for (std::size_t i = 2; i < d.size(); ++i) out.push_back(scaled(o, d[i], block));
  o.out[0].shape = partial_shape(std::move(out));
}

// SpaceToDepth-1: [N, C, D...] to [N, C * b^k, D / b...]; each D a multiple of b.
void space_to_depth(op& o) {
  const auto* data = space_data(o);
  o.out[0].type = o.in[0]->type;
  if (data == nullptr) return;
  const auto& d = *data;
  const auto block = o.l.integer("block_size", 1);
  const auto volume = block_volume(o, d.size() - 2);
  std::vector<dimension> out{d[0], scaled(o, d[1], volume)};
  for (std::size_t i = 2; i < d.size(); ++i)
    out.push_back(divided(o, d[i], block, fmt::format("spatial dimension {}", i)));
  o.out[0].shape = partial_shape(std::move(out));
}

// ShuffleChannels-1: the shape; the dimension at `axis` is a multiple of `group`.
void shuffle_channels(op& o) {
  o.need(1, 1);
  o.out[0].type = o.in[0]->type;
  o.out[0].shape = o.shape(0);
  const auto group = o.l.integer("group", 1);
  if (group < 1) refuse(o, fmt::format("group is {}", group), "it must be positive");
  const auto& data = o.shape(0);
  if (!data.rank_known()) return;
  if (data.size() == 0) refuse(o, "the data must not be a scalar");
  const auto a = normalize_axis(o, o.l.integer("axis", 1), data.size());
  if (data[a].is_static() && data[a].lo() % group != 0)
    refuse(o, fmt::format("dimension {} ({}) is not a multiple of group {}", a, data[a].lo(), group));
}

// Pad-1 and Pad-12: each dimension grows by its pads (negative pads crop). With reflect, a pad must be
// below the dimension; with symmetric, at most the dimension.
void pad(op& o) {
  o.need(3, 1);
  o.out[0].type = o.in[0]->type;
  const auto& data = o.shape(0);
  const auto begin = known_integers(o, 1), end = known_integers(o, 2);
  const auto mode = o.l.text("pad_mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect" && mode != "symmetric")
    refuse(o, fmt::format("pad_mode '{}' is not constant, edge, reflect or symmetric", mode));
  if (!data.rank_known()) return;
  if (!begin || !end) {
    // Amounts known only within bounds (a pad to a multiple, `(m - d % m) % m`, of a size not known yet):
    // the data's rank, each dimension grown by as little and as much as its amounts may add.
    const auto& b = o.value(1);
    const auto& e = o.value(2);
    if (!b || !e || b->is_real() || e->is_real() || b->elements.size() != data.size() || e->elements.size() != data.size())
      return;
    std::vector<dimension> out;
    for (std::size_t i = 0; i < data.size(); ++i) {
      const auto &x = b->elements[i], &y = e->elements[i];
      std::int64_t lo = 0, hi = 0;
      const bool bounded = x.lo >= 0 && y.lo >= 0 && x.hi != element_bound::no_upper && y.hi != element_bound::no_upper &&
                           !__builtin_add_overflow(x.lo, y.lo, &lo) && !__builtin_add_overflow(x.hi, y.hi, &hi);
      if (!bounded) {
        out.emplace_back();
        continue;
      }
      out.push_back(hi == 0 ? data[i] : span_dimension(data[i].lo() > interval::unbounded - lo ? interval::unbounded : data[i].lo() + lo,
                                                        !data[i].range().is_bounded() || data[i].hi() > interval::unbounded - hi - 1
                                                            ? interval::unbounded
                                                            : data[i].hi() + hi));
    }
    o.out[0].shape = partial_shape(std::move(out));
    return;
  }
  if (begin->size() != data.size() || end->size() != data.size())
    refuse(o, fmt::format("pads of lengths {} and {} for the rank-{} input", begin->size(), end->size(), data.size()));
  std::vector<dimension> out;
  for (std::size_t i = 0; i < data.size(); ++i) {
    const bool reflect = mode == "reflect", symmetric = mode == "symmetric";
    if ((reflect || symmetric) && data[i].is_static())
      for (auto p : {(*begin)[i], (*end)[i]})
        if (reflect ? p >= data[i].lo() && p > 0 : p > data[i].lo())
          refuse(o, fmt::format("the pad {} of dimension {} ({}) is too large for {} padding", p, i, data[i].lo(),
                                mode));
    std::int64_t extra = 0;
    if (__builtin_add_overflow((*begin)[i], (*end)[i], &extra))
      refuse(o, fmt::format("the pads of dimension {} overflow", i));
    if (data[i].range().is_bounded() && data[i].hi() + extra < 0)
      refuse(o, fmt::format("dimension {} ({}) padded by {} is negative", i, to_string(dimension(data[i].range())),
                            extra));
    out.push_back(extra == 0 ? data[i] : map_dimension(data[i], [&](std::int64_t x) {
      std::int64_t y = 0;
      if (__builtin_add_overflow(x, extra, &y)) refuse(o, fmt::format("dimension {} padded overflows", i));
      return y;
    }));
  }
  o.out[0].shape = partial_shape(std::move(out));
}

// ScatterUpdate-3: the shape of the data; known values are updated along `axis`.
void scatter_update(op& o) {
  o.need(4, 1);
  o.out[0].type = o.in[0]->type;
  o.out[0].shape = o.shape(0);
  const auto& data = o.shape(0);
  const auto axis = known_integers(o, 3);
  if (!data.rank_known() || !axis) return;
  if (axis->size() != 1) refuse(o, "the axis input must hold one value");
  const auto a = normalize_axis(o, (*axis)[0], data.size());
  const auto idx = known_integers(o, 1);
  const auto& v = o.value(0);
  const auto& updates = o.value(2);
  if (!v || !idx || !updates || v->is_real() || updates->is_real() || !data.is_static()) return;
  const auto d = data.to_static();
  std::int64_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < a; ++i) outer *= d[i];
  for (std::size_t i = a + 1; i < d.size(); ++i) inner *= d[i];
  const auto count = static_cast<std::size_t>(outer) * idx->size() * static_cast<std::size_t>(inner);
  if (updates->elements.size() != count) return;
  tensor_value r = *v;
  std::size_t u = 0;
  for (std::int64_t x = 0; x < outer; ++x)
    for (auto k : *idx) {
      if (k < -d[a] || k >= d[a]) refuse(o, fmt::format("the index {} is outside the dimension {}", k, d[a]));
      if (k < 0) k += d[a];
      for (std::int64_t y = 0; y < inner; ++y)
        r.elements[static_cast<std::size_t>((x * d[a] + k) * inner + y)] = updates->elements[u++];
    }
  o.out[0].value = std::move(r);
}

// RandomUniform-8: a tensor of the shape input 0 holds, of output_type, whose values no rule knows (each run
// draws others). The bounds (inputs 1 and 2) are scalars or of one element, the least below the greatest.
void random_uniform(op& o) {
  o.need(3, 1);
  const auto type = o.l.element("output_type");
  if (type != element_type::i32 && type != element_type::i64 && type != element_type::f16 &&
      type != element_type::bf16 && type != element_type::f32 && type != element_type::f64)
    refuse(o, fmt::format("output_type '{}' is not i32, i64, f16, bf16, f32 or f64", name(type)));
  o.out[0].type = type;
  const auto& shape = o.shape(0);
  if (shape.rank_known() && shape.size() != 1)
    refuse(o, fmt::format("the output shape {} must be 1-D", to_string(shape)));
  for (const std::size_t port : {std::size_t{1}, std::size_t{2}}) {
    const auto& s = o.shape(port);
    if (s.rank_known() && (s.size() > 1 || (s.size() == 1 && s[0].is_static() && s[0].lo() != 1)))
      refuse(o, fmt::format("the {} value {} must be a scalar or of one element", port == 1 ? "least" : "greatest",
                            to_string(s)));
  }
  const auto bound = [&](std::size_t port) -> std::optional<double> {
    const auto& v = o.value(port);
    if (!v) return std::nullopt;
    if (v->is_real()) return v->reals.size() == 1 ? std::optional(v->reals[0]) : std::nullopt;
    if (v->elements.size() == 1 && v->elements[0].exact()) return static_cast<double>(v->elements[0].lo);
    return std::nullopt;
  };
  if (const auto lo = bound(1), hi = bound(2); lo && hi && !(*lo < *hi))
    refuse(o, fmt::format("the least value {} is not below the greatest {}", *lo, *hi));
  if (const auto& v = o.value(0); v && !v->is_real())
    for (std::size_t i = 0; i < v->elements.size(); ++i)
      if (v->elements[i].hi < 0)
        refuse(o, fmt::format("the output shape's element {} is {}, a negative extent", i, v->elements[i].hi));
  if (const auto target = shape_from_value(o, 0)) o.out[0].shape = *target;
}

constexpr rule_entry data_movement_table[] = {
    {"Concat", 1, concat, batch::concat, no_values},
    {"Gather", 1, gather, batch::gather, reads_values(2)},
    {"Gather", 7, gather, batch::gather, reads_values(2)},
    {"Gather", 8, gather, batch::gather, reads_values(2)},
    {"StridedSlice", 1, strided_slice, batch::strided_slice, reads_values(1, 2, 3)},
    {"Slice", 8, slice, batch::slice, reads_values(1, 2, 3, 4)},
    {"Broadcast", 1, broadcast_op, {batch::broadcast, true}, reads_values(1)},
    {"Broadcast", 3, broadcast_op, {batch::broadcast, true}, reads_values(1)},
    {"Tile", 1, tile, {batch::tile, true}, reads_values(1)},
    {"Transpose", 1, transpose, batch::transpose, reads_values(1)},
    {"Split", 1, split, batch::split, reads_values(1)},
    {"VariadicSplit", 1, variadic_split, batch::split, reads_values(1, 2)},
    {"Pad", 1, pad, batch::pad, reads_values(1, 2)},
    {"Pad", 12, pad, batch::pad, reads_values(1, 2)},
    {"DepthToSpace", 1, depth_to_space, batch::spatial, no_values},
    {"SpaceToDepth", 1, space_to_depth, batch::spatial, no_values},
    {"ShuffleChannels", 1, shuffle_channels, batch::shuffle_channels, no_values},
    {"ScatterUpdate", 3, scatter_update, batch::scatter_update, no_values},
    {"RandomUniform", 8, random_uniform, batch::cannot_tell, reads_values(0)},
};

}  // namespace

std::span<const rule_entry> data_movement_rules() { return data_movement_table; }

}  // namespace reshape1::model::detail
