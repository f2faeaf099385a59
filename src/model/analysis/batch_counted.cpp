// check --shape (issue 47): constants whose values count along a size that changes (`arange(h)`, a grid of
// cell positions folded at export, a table spread over one position), and how their values are read: fix
// computes the counts and grids from the shape (analysis/fix_value_choices.cpp).
#include "model/analysis/batch_internal.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "model/ops/rules.hpp"
#include "model/ops/sizes.hpp"
#include "model/text/batch.hpp"

namespace reshape1::model::detail {

std::optional<counted_values> counts_along(const tensor& t) {
  const auto& shape = t.shape;
  if (!t.value || !shape.is_static()) return std::nullopt;
  std::optional<std::size_t> axis;
  for (std::size_t a = 0; a < shape.size(); ++a) {
    if (shape[a].lo() == 1) continue;
    if (axis) return std::nullopt;
    axis = a;
  }
  const auto& v = *t.value;
  const auto n = v.is_real() ? v.reals.size() : v.elements.size();
  // Three at least: any two values count from the first by their difference.
  if (!axis || n < 3 || static_cast<std::int64_t>(n) != shape[*axis].lo()) return std::nullopt;
  std::vector<std::int64_t> whole(n);
  for (std::size_t k = 0; k < n; ++k) {
    if (v.is_real()) {
      // Whole numbers only, as a float holds them exactly (a grid of cell indices counted in floats).
      const auto r = v.reals[k];
      if (!v.real_constant(k) || !(r >= -9.0e15 && r <= 9.0e15) || r != std::trunc(r)) return std::nullopt;
      whole[k] = static_cast<std::int64_t>(r);
    } else {
      const auto& b = v.elements[k];
      if (!b.exact() || !b.constant || b.lo < -(std::int64_t{1} << 53) || b.lo > (std::int64_t{1} << 53)) return std::nullopt;
      whole[k] = b.lo;
    }
  }
  const auto step = whole[1] - whole[0];
  if (step == 0) return std::nullopt;
  for (std::size_t k = 2; k < n; ++k)
    if (whole[k] - whole[k - 1] != step) return std::nullopt;
  return counted_values{*axis, static_cast<std::int64_t>(n), whole[0], step};
}

tensor const_with_values(const graph& g, const propagation& declared, std::size_t index) {
  auto t = declared.outputs[index][0];
  if (t.value || !t.type || !t.shape.is_static() || part_of(g.layers()[index].type) != op_part::constant) return t;
  std::int64_t count = 1;
  for (const auto& d : t.shape)
    if (d.lo() > max_grid_elements || (count *= d.lo()) > max_grid_elements) return t;
  t.value = const_values(g, g.layers()[index], *t.type, count);
  return t;
}

std::optional<counted_grid> grid_along(const tensor& t, std::span<const std::int64_t> changing) {
  const auto& shape = t.shape;
  if (!t.value || !t.type || !shape.is_static()) return std::nullopt;
  const auto type = *t.type;
  const bool integer = is_integer(type);
  const bool wide = type == element_type::f64;
  if (!integer && !wide && type != element_type::f32 && type != element_type::f16 && type != element_type::bf16)
    return std::nullopt;
  const auto& v = *t.value;
  if (v.is_real() == integer) return std::nullopt;
  const auto rank = shape.size();
  std::vector<std::size_t> dims(rank), stride(rank);
  std::size_t n = 1;
  for (std::size_t a = rank; a-- > 0;) {
    stride[a] = n;
    dims[a] = static_cast<std::size_t>(shape[a].lo());
    n *= dims[a];
  }
  if (n == 0 || n != (v.is_real() ? v.reals.size() : v.elements.size())) return std::nullopt;
  std::vector<double> x(n);
  for (std::size_t k = 0; k < n; ++k) {
    if (v.is_real()) {
      if (!v.real_constant(k) || !std::isfinite(v.reals[k])) return std::nullopt;
      x[k] = v.reals[k];
    } else {
      // (Up to 2^40: every sum and product below is then exact in doubles, as in the i64 fix computes.)
      const auto& b = v.elements[k];
      if (!b.exact() || !b.constant || b.lo < -(std::int64_t{1} << 40) || b.lo > (std::int64_t{1} << 40))
        return std::nullopt;
      x[k] = static_cast<double>(b.lo);
    }
  }
  counted_grid g;
  for (std::size_t a = 0; a < rank; ++a)
    if (dims[a] >= 2 && std::binary_search(changing.begin(), changing.end(), static_cast<std::int64_t>(dims[a])))
      g.axes.push_back(a);
  if (g.axes.empty()) return std::nullopt;
  // The arithmetic of the layers fix writes: f32 rounds each product and sum (C++ computes floats in float
  // here: x86-64's SSE, no excess precision).
  const auto round = [&](double r) { return integer || wide ? r : static_cast<double>(static_cast<float>(r)); };
  std::vector<char> counted(rank, 0);
  std::size_t m = n;
  for (const auto a : g.axes) {
    counted[a] = 1;
    m /= dims[a];
  }
  g.base.resize(m);
  g.slopes.assign(g.axes.size(), std::vector<double>(m));
  // Each flat index's coordinates, counted up as it is.
  std::vector<std::size_t> at(rank, 0);
  const auto step = [&] {
    for (std::size_t a = rank; a-- > 0;) {
      if (++at[a] < dims[a]) return;
      at[a] = 0;
    }
  };
  // The base index of coordinates `at` (the counted axes left out).
  const auto reduced = [&] {
    std::size_t r = 0;
    for (std::size_t a = 0; a < rank; ++a)
      if (counted[a] == 0) r = r * dims[a] + at[a];
    return r;
  };
  for (std::size_t k = 0; k < n; ++k, step()) {
    if (std::any_of(g.axes.begin(), g.axes.end(), [&](std::size_t a) { return at[a] != 0; })) continue;
    const auto r = reduced();
    g.base[r] = x[k];
    for (std::size_t e = 0; e < g.axes.size(); ++e) g.slopes[e][r] = round(x[k + stride[g.axes[e]]] - x[k]);
  }
  // (Three values at least along one axis with a slope: two fit any. Slopes of 0 everywhere, along an axis of
  // three at least, are a constant spread along those axes, yolov5's anchor_grid: the same values at every
  // cell.)
  bool counts = false;
  for (std::size_t e = 0; e < g.axes.size(); ++e)
    counts = counts || (dims[g.axes[e]] >= 3 &&
                        std::any_of(g.slopes[e].begin(), g.slopes[e].end(), [](double s) { return s != 0; }));
  g.spread = std::all_of(g.slopes.begin(), g.slopes.end(), [](const std::vector<double>& s) {
    return std::all_of(s.begin(), s.end(), [](double slope) { return slope == 0; });
  });
  if (!counts && !(g.spread && std::any_of(g.axes.begin(), g.axes.end(), [&](std::size_t a) { return dims[a] >= 3; })))
    return std::nullopt;
  at.assign(rank, 0);
  for (std::size_t k = 0; k < n; ++k, step()) {
    const auto r = reduced();
    double sum = g.base[r];
    for (std::size_t e = 0; e < g.axes.size(); ++e)
      sum = round(sum + round(static_cast<double>(at[g.axes[e]]) * g.slopes[e][r]));
    if (sum != x[k]) return std::nullopt;
  }
  return g;
}

namespace {

/// The finding `code` of Const `l` (at `index`, its values `t`) read as `grid`: each axis it follows, with
/// the size its extent equals.
batch_finding grid_finding(const layer& l, std::size_t index, const tensor& t, const counted_grid& grid,
                           const std::unordered_map<std::int64_t, size_source>& sizes, why code,
                           option_spelling spelling) {
  std::string along;
  for (const auto a : grid.axes) {
    const auto extent = t.shape[a].lo();
    const auto& equals = sizes.at(extent);
    along += fmt::format("{}axis {}, {} long, which equals {} at the declared shapes, which is {} at the shapes asked",
                         along.empty() ? "" : "; ", a, extent, describe(equals), asked_text(equals));
  }
  auto f = size_finding(l, index);
  set_reason(f, because(code, grid.axes.size()).quoting(std::move(along)));
  text::give_hint(f, text::vouch_hint(spelling, std::string(l.name), l.id));
  return f;
}

}  // namespace

std::optional<batch_finding> counted_range_finding(const graph& g, std::size_t index, const tensor& t,
                                                   const std::unordered_map<std::int64_t, size_source>& sizes,
                                                   std::span<const std::string> assumed, option_spelling spelling) {
  const auto& l = g.layers()[index];
  if (l.auxiliary || vouched(l, assumed)) return std::nullopt;
  const auto counted = counts_along(t);
  if (!counted) return std::nullopt;
  const auto equals = sizes.find(counted->count);
  if (equals == sizes.end()) return std::nullopt;
  auto f = size_finding(l, index);
  set_reason(f, because(why::counted_range, counted->axis, counted->count, counted->start, counted->step)
                    .quoting(fmt::format("equals {} at the declared shapes, which is {} at the shapes asked",
                                         describe(equals->second), asked_text(equals->second))));
  text::give_hint(f, text::vouch_hint(spelling, std::string(l.name), l.id));
  return f;
}

namespace {

/// The positions of the output of layer `index`, `n` values of rank 1, that the layers reading it take: a Gather's
/// exactly known indices, a Slice's known begin and end (one step at a time), what is read of a Concat of such
/// vectors at the place it puts them (`depth` Concats at most); every position where another layer reads it.
std::vector<char> positions_read(const graph& g, const propagation& declared, std::size_t index, std::size_t n, int depth = 4) {
  std::vector<char> read(n, 0);
  const auto all = [&] { std::fill(read.begin(), read.end(), 1); };
  const auto exact = [&](const layer& c, std::size_t port) -> std::optional<std::vector<std::int64_t>> {
    if (port >= c.sources.size() || !c.sources[port]) return std::nullopt;
    return exact_values(declared.input(g, c, port).value);
  };
  const auto at = [&](std::int64_t p) { return p < 0 ? p + static_cast<std::int64_t>(n) : p; };
  for (const auto& c : g.layers()) {
    for (std::size_t port = 0; port < c.sources.size(); ++port) {
      if (!c.sources[port] || c.sources[port]->layer != index) continue;
      if (part_of(c.type) == op_part::concat && depth > 0) {
        // Where the Concat puts it: after its inputs before `port`, all vectors of a known length.
        const auto k = static_cast<std::size_t>(&c - g.layers().data());
        const auto& out = declared.outputs[k].empty() ? partial_shape::dynamic() : declared.outputs[k][0].shape;
        std::optional<std::size_t> offset = 0;
        for (std::size_t q = 0; q < port && offset; ++q) {
          const auto& s = c.sources[q] ? declared.input(g, c, q).shape : partial_shape::dynamic();
          offset = s.rank_known() && s.size() == 1 && s[0].is_static()
                       ? std::optional(*offset + static_cast<std::size_t>(s[0].lo()))
                       : std::nullopt;
        }
        if (offset && out.rank_known() && out.size() == 1 && out[0].is_static() &&
            *offset + n <= static_cast<std::size_t>(out[0].lo())) {
          const auto taken = positions_read(g, declared, k, static_cast<std::size_t>(out[0].lo()), depth - 1);
          for (std::size_t p = 0; p < n; ++p) read[p] = static_cast<char>(read[p] | taken[*offset + p]);
          continue;
        }
        all();
        continue;
      }
      if (port != 0 || !holds_positions(c, 1)) {
        all();
        continue;
      }
      if (slices(c)) {
        const auto b = exact(c, 1), e = exact(c, 2);
        const auto step = c.sources.size() > 3 ? exact(c, 3) : std::optional(std::vector<std::int64_t>{1});
        if (!b || !e || !step || b->size() != 1 || e->size() != 1 || step->size() != 1 || (*step)[0] != 1) {
          all();
          continue;
        }
        const auto sn = static_cast<std::int64_t>(n);
        for (auto p = std::clamp<std::int64_t>(at((*b)[0]), 0, sn); p < std::clamp<std::int64_t>(at((*e)[0]), 0, sn); ++p)
          read[static_cast<std::size_t>(p)] = 1;
        continue;
      }
      const auto indices = exact(c, 1);
      if (!indices) {
        all();
        continue;
      }
      for (const auto i : *indices)
        if (const auto p = at(i); p >= 0 && p < static_cast<std::int64_t>(n)) read[static_cast<std::size_t>(p)] = 1;
    }
  }
  return read;
}

}  // namespace

std::optional<std::vector<std::int64_t>> table_values(const std::optional<tensor_value>& v) {
  if (!v || !v->is_real()) return exact_values(v);
  std::vector<std::int64_t> whole;
  for (const double x : v->reals) {
    // (Whole numbers a dimension can be: 2^53 keeps every one exact in a double.)
    if (!(std::abs(x) < 9007199254740992.0) || x != std::floor(x)) return std::nullopt;
    whole.push_back(static_cast<std::int64_t>(x));
  }
  return whole;
}

bool vector_like(const partial_shape& s) {
  if (!s.is_static() || s.size() == 0) return false;
  return std::count_if(s.begin(), s.end(), [](const dimension& d) { return d.lo() != 1; }) <= 1;
}

tensors_by_shape shapes_of(const graph& g, const propagation& declared, const propagation& asked) {
  tensors_by_shape shaped;
  for (const auto i : g.order())
    for (std::size_t o = 0; o < declared.outputs[i].size() && o < asked.outputs[i].size(); ++o) {
      const auto& d = declared.outputs[i][o].shape;
      if (!asked.outputs[i][o].shape.rank_known() || !d.is_static() || d.size() < 2) continue;
      std::vector<std::int64_t> dims;
      for (const auto& x : d) dims.push_back(x.lo());
      shaped[std::move(dims)].emplace_back(i, o);
    }
  return shaped;
}

namespace {
/// A table's tensor as its finding quotes it: `'pool' [1,2,3,4], which is [1,2,5,6] at the shapes asked`.
std::string tensor_at_both(const layer& l, const partial_shape& declared, const partial_shape& asked) {
  return fmt::format("'{}' {}, which is {} at the shapes asked", l.name, to_string(declared),
                     asked.rank_known() ? to_string(without_symbols(asked)) : std::string("unknown"));
}
}  // namespace

std::optional<batch_finding> shape_table_finding(const graph& g, const propagation& declared, const propagation& asked,
                                                 std::span<const std::vector<batch_carrier>> carriers, std::size_t index,
                                                 const tensors_by_shape& shaped, std::span<const std::string> assumed,
                                                 option_spelling spelling, std::span<const char> skip) {
  const auto& l = g.layers()[index];
  if (l.auxiliary || vouched(l, assumed) || declared.outputs[index].empty()) return std::nullopt;
  const auto& own = declared.outputs[index][0].shape;
  const auto key = table_values(declared.outputs[index][0].value);
  if (!key || key->size() < 2 || !vector_like(own)) return std::nullopt;
  // (A table of 1s and 0s is any shape's of ones: no sign of a size.)
  if (std::none_of(key->begin(), key->end(), [](std::int64_t d) { return d >= 2; })) return std::nullopt;
  const auto found = shaped.find(*key);
  if (found == shaped.end()) return std::nullopt;
  std::vector<char> read;
  for (const auto& [i, o] : found->second) {
    if (i < skip.size() && skip[i] != 0) continue;
    const auto& d = declared.outputs[i][o].shape;
    const auto& a = asked.outputs[i][o].shape;
    // (Only a size that changes and that some layer takes from the table: `x.shape[3]` read where only H changes
    // is the same at the shapes asked.)
    // (Positions are read by index only from a vector; a table of [1,4] is read whole, squeezed first.)
    if (read.empty()) read = own.size() == 1 ? positions_read(g, declared, index, d.size()) : std::vector<char>(d.size(), 1);
    const auto batch = batch_axis(carriers, i, o);
    bool changes = false;
    for (std::size_t k = 0; k < d.size(); ++k) changes = changes || (k != batch && read[k] != 0 && !same_at(d, a, k));
    if (!changes) continue;
    auto f = size_finding(l, index);
    set_reason(f, because(why::shape_table, d.size()).quoting(tensor_at_both(g.layers()[i], d, a)));
    text::give_hint(f, text::vouch_hint(spelling, std::string(l.name), l.id));
    return f;
  }
  return std::nullopt;
}

std::optional<std::vector<std::size_t>> table_part_of(std::span<const std::int64_t> key, std::span<const std::int64_t> shape) {
  std::vector<std::int64_t> want;
  for (const auto v : key) {
    if (v < 1) return std::nullopt;
    if (v != 1) want.push_back(v);
  }
  // (The whole shape is shape_table's.)
  if (want.empty() || std::equal(key.begin(), key.end(), shape.begin(), shape.end())) return std::nullopt;
  std::vector<std::size_t> at;  // the shape's dimensions other than 1
  for (std::size_t k = 0; k < shape.size(); ++k)
    if (shape[k] != 1) at.push_back(k);
  if (at.size() < want.size() || (want.size() < 2 && at.size() != want.size())) return std::nullopt;
  const auto off = at.size() - want.size();
  for (std::size_t j = 0; j < want.size(); ++j)
    if (shape[at[off + j]] != want[j]) return std::nullopt;
  at.erase(at.begin(), at.begin() + static_cast<std::ptrdiff_t>(off));
  return at;
}

namespace {

/// apart_table_finding's table, where it is not a tensor's whole shape: the tensor's shape with its dimensions of 1
/// dropped or added, or its last dimensions (two at least; `torch.ones(pooled.shape[2:])`). `skip` as there.
std::optional<batch_finding> part_table_finding(const graph& g, const propagation& declared, const propagation& asked,
                                                std::span<const std::vector<batch_carrier>> carriers, std::size_t index,
                                                const tensors_by_shape& shaped, std::span<const char> skip) {
  const auto& l = g.layers()[index];
  const auto& own = declared.outputs[index][0].shape;
  const auto key = table_values(declared.outputs[index][0].value);
  if (!key || !vector_like(own)) return std::nullopt;
  for (const auto& [shape, tensors] : shaped) {
    const auto at = table_part_of(*key, shape);
    if (!at) continue;
    for (const auto& [i, o] : tensors) {
      if (i < skip.size() && skip[i] != 0) continue;
      const auto& d = declared.outputs[i][o].shape;
      const auto& a = asked.outputs[i][o].shape;
      const auto batch = batch_axis(carriers, i, o);
      bool changes = false;
      for (const auto k : *at) changes = changes || (k != batch && !same_at(d, a, k));
      if (!changes) continue;
      auto f = size_finding(l, index);
      set_reason(f, because(why::shape_table_part, key->size()).quoting(tensor_at_both(g.layers()[i], d, a)));
      return f;
    }
  }
  return std::nullopt;
}

/// The finding of layer `index` whose output has `count` elements where that count is a size that changes of a
/// tensor apart (its whole count or a product of its adjacent dimensions: a count of ones made by
/// `torch.ones(pooled.numel())`, `Expand(1, [24])`); `skip` marks the layers not apart (not_apart).
std::optional<batch_finding> count_finding(const graph& g, const propagation& declared, const propagation& asked,
                                           std::span<const std::vector<batch_carrier>> carriers, std::size_t index,
                                           std::int64_t count, std::span<const char> skip) {
  if (count < 2) return std::nullopt;
  std::unordered_map<std::int64_t, size_source> sizes;
  for (const auto i : g.order()) {
    if (i < skip.size() && skip[i] != 0) continue;
    for (std::size_t o = 0; o < declared.outputs[i].size() && o < asked.outputs[i].size(); ++o)
      if (asked.outputs[i][o].shape.rank_known())
        add_changing(declared.outputs[i][o].shape, asked.outputs[i][o].shape, batch_axis(carriers, i, o), g.layers()[i].name,
                     sizes, false);
  }
  const auto equals = sizes.find(count);
  if (equals == sizes.end()) return std::nullopt;
  auto f = size_finding(g.layers()[index], index);
  set_reason(f, because(why::shape_table_count, count)
                    .quoting(fmt::format("{} at the declared shapes, which is {} at the shapes asked", describe(equals->second),
                                         asked_text(equals->second))));
  return f;
}

}  // namespace

bool gives_output_shape(const graph& g, const propagation& declared, const layer& c, std::size_t port) {
  if (takes_shape(c, port)) return true;
  if (port != 1 || extends(c) != extension::repeats || c.sources.empty() || !c.sources[0]) return false;
  const auto& data = declared.input(g, c, 0).shape;
  return data.is_static() && std::all_of(data.begin(), data.end(), [](const dimension& d) { return d.lo() == 1; });
}

namespace {

/// The layers whose tensors a value of layer `index` is not matched against as a tensor apart: those its readers
/// are computed from (a tensor on its readers' path is matched element by element, as any size read is), the
/// inputs, and those computed from it (the program cannot have read their shape to make it).
std::vector<char> not_apart(const graph& g, std::size_t index) {
  std::vector<char> near(g.layers().size(), 0);
  std::vector<std::size_t> todo;
  for (std::size_t k = 0; k < g.layers().size(); ++k)
    for (const auto& s : g.layers()[k].sources)
      if (s && s->layer == index && near[k] == 0) {
        near[k] = 1;
        todo.push_back(k);
      }
  while (!todo.empty()) {
    const auto k = todo.back();
    todo.pop_back();
    for (const auto& s : g.layers()[k].sources)
      if (s && near[s->layer] == 0) {
        near[s->layer] = 1;
        todo.push_back(s->layer);
      }
  }
  for (std::size_t k = 0; k < g.layers().size(); ++k)
    if (part_of(g.layers()[k].type) == op_part::parameter) near[k] = 1;
  std::vector<char> table(g.layers().size(), 0);
  table[index] = 1;
  const auto from_table = downstream_of(g, table);
  for (std::size_t k = 0; k < g.layers().size(); ++k) near[k] = static_cast<char>(near[k] | from_table[k]);
  return near;
}

}  // namespace

std::optional<batch_finding> apart_table_finding(const graph& g, const propagation& declared, const propagation& asked,
                                                 std::span<const std::vector<batch_carrier>> carriers, std::size_t index,
                                                 const tensors_by_shape& shaped, std::span<const std::string> assumed,
                                                 option_spelling spelling) {
  bool shapes = false;
  for (const auto& c : g.layers())
    for (std::size_t port = 0; port < c.sources.size(); ++port)
      if (const auto& s = c.sources[port]; s && s->layer == index) shapes = shapes || gives_output_shape(g, declared, c, port);
  // (Only as an output's whole shape: a stride or a window of [1,4] is no map 4 wide.)
  if (!shapes) return std::nullopt;
  const auto near = not_apart(g, index);
  if (auto f = shape_table_finding(g, declared, asked, carriers, index, shaped, assumed, spelling, near)) return f;
  const auto& l = g.layers()[index];
  if (l.auxiliary || vouched(l, assumed) || declared.outputs[index].empty()) return std::nullopt;
  auto f = part_table_finding(g, declared, asked, carriers, index, shaped, near);
  if (!f)
    if (const auto key = table_values(declared.outputs[index][0].value); key && vector_like(declared.outputs[index][0].shape)) {
      std::int64_t count = 1;
      for (const auto v : *key) count = v < 1 || count == 0 || v > largest_size / count ? 0 : count * v;
      f = count_finding(g, declared, asked, carriers, index, count, near);
    }
  if (f) text::give_hint(*f, text::vouch_hint(spelling, std::string(l.name), l.id));
  return f;
}

std::optional<batch_finding> computed_table_finding(const graph& g, const propagation& declared, const propagation& asked,
                                                    std::span<const std::vector<batch_carrier>> carriers, std::size_t index,
                                                    const tensors_by_shape& shaped, std::span<const batch_finding> out,
                                                    std::span<const std::string> assumed, option_spelling spelling) {
  if (vouched_value(g, g.layers()[index], assumed)) return std::nullopt;
  std::vector<char> found(g.layers().size(), 0);
  for (const auto& f : out) found[f.layer] = 1;
  std::vector<char> seen(g.layers().size(), 0);
  std::vector<std::size_t> todo{index};
  while (!todo.empty()) {
    const auto k = todo.back();
    todo.pop_back();
    for (const auto& s : g.layers()[k].sources) {
      if (!s || seen[s->layer] != 0) continue;
      if (found[s->layer] != 0) return std::nullopt;
      seen[s->layer] = 1;
      todo.push_back(s->layer);
    }
  }
  return apart_table_finding(g, declared, asked, carriers, index, shaped, assumed, spelling);
}

std::optional<batch_finding> range_length_finding(const graph& g, const propagation& declared, const propagation& asked,
                                                  std::span<const std::vector<batch_carrier>> carriers, std::size_t index,
                                                  std::span<const std::string> assumed, option_spelling spelling) {
  const auto& l = g.layers()[index];
  if (!counts_range(l) || declared.outputs[index].empty() || vouched_value(g, l, assumed)) return std::nullopt;
  const auto& shape = declared.outputs[index][0].shape;
  if (!shape.is_static() || shape.size() != 1) return std::nullopt;
  auto f = count_finding(g, declared, asked, carriers, index, shape[0].lo(), not_apart(g, index));
  if (f) text::give_hint(*f, text::vouch_hint(spelling, "", std::nullopt));
  return f;
}

std::vector<char> read_as_data(const graph& g, const propagation& declared,
                               std::vector<std::vector<std::pair<std::size_t, std::size_t>>>& readers, std::vector<char>& indexed,
                               std::vector<char>& shape_value) {
  readers.assign(g.layers().size(), {});
  indexed.assign(g.layers().size(), 0);
  shape_value.assign(g.layers().size(), 0);
  for (const auto& c : g.layers()) {
    const auto* row = find_entry(c.type, c.opset);
    if (row == nullptr || row->values == reads_all_values) continue;
    for (std::size_t port = 0; port < c.sources.size(); ++port)
      if (c.sources[port] && reads_value(row->values, port)) shape_value[c.sources[port]->layer] = 1;
  }
  std::vector<char> data(g.layers().size(), 0);
  for (std::size_t index = 0; index < g.layers().size(); ++index) {
    const auto& c = g.layers()[index];
    const auto* row = find_entry(c.type, c.opset);
    if (row == nullptr || row->values == reads_all_values) continue;
    if (shape_value[index] != 0 && !declared.outputs[index].empty() && declared.outputs[index][0].value &&
        !declared.outputs[index][0].value->is_real() && declared.outputs[index][0].type &&
        is_integer(*declared.outputs[index][0].type)) {
      for (std::size_t port = 0; port < c.sources.size(); ++port)
        if (c.sources[port] && c.sources[port]->output == 0 && !reads_value(row->values, port))
          indexed[c.sources[port]->layer] = 1;
      continue;
    }
    for (std::size_t port = 0; port < c.sources.size(); ++port) {
      const auto& s = c.sources[port];
      if (!s || s->output != 0 || reads_value(row->values, port)) continue;
      readers[s->layer].emplace_back(index, port);
      if (holds_positions(c, port) && !c.sources.empty() && c.sources[0] && gives_dimensions(g.layers()[c.sources[0]->layer]))
        continue;
      data[s->layer] = 1;
      indexed[s->layer] = 1;
    }
  }
  return data;
}

bool vouched_value(const graph& g, const layer& holder, std::span<const std::string> assumed) {
  if (part_of(holder.type) == op_part::constant) return vouched(holder, assumed);
  if (assumed.empty()) return false;
  std::vector<char> seen(g.layers().size(), 0);
  std::vector<const layer*> todo{&holder};
  bool any = false;
  while (!todo.empty()) {
    const auto* at = todo.back();
    todo.pop_back();
    for (const auto& x : at->sources) {
      if (!x || std::exchange(seen[x->layer], 1) != 0) continue;
      const auto& from = g.layers()[x->layer];
      if (part_of(from.type) != op_part::constant) {
        todo.push_back(&from);
      } else {
        if (!vouched(from, assumed)) return false;
        any = true;
      }
    }
  }
  return any;
}

std::optional<batch_finding> computed_range_finding(const graph& g, const propagation& declared, std::size_t index,
                                                    const std::unordered_map<std::int64_t, size_source>& sizes,
                                                    std::span<const std::string> assumed, option_spelling spelling) {
  const auto& l = g.layers()[index];
  if (sizes.empty() || declared.outputs[index].empty() || !declared.outputs[index][0].value) return std::nullopt;
  for (std::size_t port = 0; port < l.sources.size(); ++port)
    if (l.sources[port] && counts_along(declared.input(g, l, port))) return std::nullopt;
  // (Vouched for where every Const it is computed from is: the finding's hint asks for those.)
  if (vouched_value(g, l, assumed)) return std::nullopt;
  auto f = counted_range_finding(g, index, declared.outputs[index][0], sizes, {}, spelling);
  if (f) text::give_hint(*f, text::vouch_hint(spelling, "", std::nullopt));
  return f;
}

bool spread_lines_up(const graph& g, const propagation& declared, const propagation& asked, std::size_t index,
                     std::span<const std::size_t> axes, std::span<const char> not_shown) {
  const auto& shape = declared.outputs[index][0].shape;
  if (!shape.rank_known()) return false;
  const auto rank = shape.size();
  const auto lines_up = [&](const layer& c, std::size_t port) {
    if (!elementwise_arithmetic(c.type) || c.sources.size() != 2 || port > 1 || !c.sources[1 - port]) return false;
    const auto& od = declared.input(g, c, 1 - port).shape;
    const auto& oa = asked.input(g, c, 1 - port).shape;
    if (!od.rank_known()) return false;
    // (Where the operand is not known at the shapes asked, after a layer that fails there, what it is at the
    // declared shapes says where the constant lies: it is spread along the same extent.)
    const auto& other = *c.sources[1 - port];
    const bool unknown = !oa.rank_known() || oa.size() != od.size() ||
                         (other.layer < not_shown.size() && not_shown[other.layer] != 0);
    const auto r = std::max(rank, od.size());
    for (const auto a : axes) {
      const auto at = a + r - rank;
      if (at < r - od.size()) continue;
      const auto o = at - (r - od.size());
      if (od[o].is_static() && od[o].lo() == shape[a].lo() && (unknown || !same_at(od, oa, o))) return true;
    }
    return false;
  };
  for (const auto& c : g.layers())
    for (std::size_t port = 0; port < c.sources.size(); ++port)
      if (c.sources[port] && c.sources[port]->layer == index && c.sources[port]->output == 0 && lines_up(c, port))
        return true;
  return false;
}

std::optional<batch_finding> counted_grid_finding(const graph& g, const propagation& declared, const propagation& asked,
                                                  std::size_t index, const tensor& t,
                                                  const std::unordered_map<std::int64_t, size_source>& sizes,
                                                  std::span<const std::int64_t> changing,
                                                  std::span<const std::string> assumed, option_spelling spelling) {
  const auto& l = g.layers()[index];
  if (l.auxiliary || vouched(l, assumed)) return std::nullopt;
  const auto grid = grid_along(t, changing);
  if (!grid || (grid->spread && !spread_lines_up(g, declared, asked, index, grid->axes))) return std::nullopt;
  return grid_finding(l, index, t, *grid, sizes, grid->spread ? why::spread_along_size : why::counted_grid, spelling);
}

namespace {

/// The shape a 1-D tensor of known whole values spells (an Expand's target), each value not known exactly
/// unknown; unknown rank where the values are not known.
partial_shape shape_value(const std::optional<tensor_value>& v) {
  if (!v || v->is_real()) return partial_shape();
  std::vector<dimension> dims;
  for (const auto& e : v->elements) dims.push_back(e.exact() && e.lo >= 0 ? dimension(e.lo) : dimension());
  return partial_shape(std::move(dims));
}

/// A spread_extent finding on the Const `l` (layer `index`) that `c` reads: along its axis `axis`, `n` long, the
/// output of `c` keeps n where the program's size, which n equals at the declared shapes, is another; `between`
/// says why that output takes the extent from `l` alone.
batch_finding extent_finding(const layer& l, std::size_t index, const layer& c, std::size_t axis, std::int64_t n,
                             std::string_view between, const size_source& equals, option_spelling spelling) {
  auto f = size_finding(l, index);
  set_reason(f, because(why::spread_extent, axis, n)
                    .quoting(fmt::format("the output of '{}' (id {}) takes from it alone, {}, and {} equals {} at the "
                                         "declared shapes, which is {} at the shapes asked",
                                         c.name, c.id, between, n, describe(equals), asked_text(equals))));
  text::give_hint(f, text::vouch_hint(spelling, std::string(l.name), l.id));
  return f;
}

/// GatherElements' output has its indices' shape: a Const of indices as long as the data along an axis whose
/// size changes (a table of positions made for one size: a flip, a shift) keeps that length at every size.
std::optional<batch_finding> indices_extent_finding(const graph& g, const propagation& declared, const propagation& asked,
                                                    std::size_t index, const layer& c,
                                                    const std::unordered_map<std::int64_t, size_source>& sizes,
                                                    option_spelling spelling) {
  const auto& l = g.layers()[index];
  const auto& shape = declared.outputs[index][0].shape;
  if (c.sources.empty() || !c.sources[0]) return std::nullopt;
  const auto& data = declared.input(g, c, 0).shape;
  const auto& data_now = asked.input(g, c, 0).shape;
  if (!data.rank_known() || !data_now.rank_known() || data.size() != shape.size() || data_now.size() != shape.size())
    return std::nullopt;
  for (std::size_t a = 0; a < shape.size(); ++a) {
    const auto n = shape[a].lo();
    const auto equals = sizes.find(n);
    if (n < 2 || !data[a].is_static() || data[a].lo() != n || same_at(data, data_now, a) || equals == sizes.end()) continue;
    return extent_finding(l, index, c, a, n, "the indices giving the output's shape", equals->second, spelling);
  }
  return std::nullopt;
}

/// An Einsum lines its operands up by their labels, and broadcasts a label of 1 against a longer one: a Const as
/// long as another operand along an axis (taken as the same label, the equation not being followed) where that
/// operand is 1 at the shapes asked keeps its length in the product (`nchw,h->ncw` with a constant `h` of 2,
/// asked at a height of 1).
std::optional<batch_finding> einsum_extent_finding(const graph& g, const propagation& declared, const propagation& asked,
                                                   std::size_t index, const layer& c, std::size_t port,
                                                   const std::unordered_map<std::int64_t, size_source>& sizes,
                                                   option_spelling spelling) {
  const auto& l = g.layers()[index];
  const auto& shape = declared.outputs[index][0].shape;
  for (std::size_t q = 0; q < c.sources.size(); ++q) {
    if (q == port || !c.sources[q]) continue;
    const auto& other = declared.input(g, c, q).shape;
    const auto& other_now = asked.input(g, c, q).shape;
    if (!other.rank_known() || !other_now.rank_known() || other.size() != other_now.size()) continue;
    for (std::size_t a = 0; a < shape.size(); ++a) {
      const auto n = shape[a].lo();
      const auto equals = sizes.find(n);
      if (n < 2 || equals == sizes.end()) continue;
      for (std::size_t o = 0; o < other.size(); ++o) {
        if (!other[o].is_static() || other[o].lo() != n || !other_now[o].is_static() || other_now[o].lo() != 1) continue;
        return extent_finding(
            l, index, c, a, n,
            fmt::format("its other operand {} long there at the declared shapes and 1 at the shapes asked", n),
            equals->second, spelling);
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<batch_finding> spread_extent_finding(const graph& g, const propagation& declared, const propagation& asked,
                                                   std::size_t index,
                                                   std::span<const std::pair<std::size_t, std::size_t>> readers,
                                                   const std::unordered_map<std::int64_t, size_source>& sizes,
                                                   std::span<const std::string> assumed, option_spelling spelling) {
  const auto& l = g.layers()[index];
  if (l.auxiliary || declared.outputs[index].empty() || vouched(l, assumed)) return std::nullopt;
  const auto& shape = declared.outputs[index][0].shape;
  if (!shape.is_static()) return std::nullopt;
  for (const auto& [reader, port] : readers) {
    const auto& c = g.layers()[reader];
    const auto* row = find_entry(c.type, c.opset);
    if (row != nullptr && row->batch.fn == batch::gather_elements && port == 1) {
      if (auto f = indices_extent_finding(g, declared, asked, index, c, sizes, spelling)) return f;
      continue;
    }
    if (row != nullptr && row->batch.fn == batch::einsum) {
      if (auto f = einsum_extent_finding(g, declared, asked, index, c, port, sizes, spelling)) return f;
      continue;
    }
    if (row == nullptr || spread_tail(c) != std::optional<std::size_t>(0) || reads_value(row->values, port)) continue;
    for (std::size_t q = 0; q < c.sources.size(); ++q) {
      // (An Expand's target shape, where its values are known, is the other operand: `Expand(c, shape(x))`.)
      const bool target = q == 1 && port == 0 && c.sources[q] && row->batch.fn == batch::broadcast;
      if (q == port || !c.sources[q] || (reads_value(row->values, q) && !target)) continue;
      const auto [held, r] = program_operand(g, c, q);
      const auto other = target ? shape_value(declared.input(g, c, q).value) : declared.input(g, *held, r).shape;
      const auto other_now = target ? shape_value(asked.input(g, c, q).value) : asked.input(g, *held, r).shape;
      if (!other.rank_known()) continue;
      const auto rank = std::max(shape.size(), other.size());
      const auto first = first_axis_at(c, port, shape, rank);
      for (std::size_t a = 0; a < shape.size() && first + a < rank; ++a) {
        const auto n = shape[a].lo();
        const auto at = first + a;
        if (n < 2) continue;
        // (An axis the operand has not, the constant being of higher rank, is 1 there at every shape: where
        // the operand is the model's data, not another constant, a FakeQuantize's scalar bound beside weights.)
        const bool lacks = at < rank - other.size();
        if (lacks && (target || !asked.follows_inputs[held->sources[r]->layer])) continue;
        const auto o = lacks ? 0 : at - (rank - other.size());
        if (!lacks && !other[o].is_static()) continue;
        // The operand is 1 there at the declared shapes, or it is as long as the constant there and 1 at the
        // shapes asked (a width of 1 asked: the output keeps the constant's n where the program's is 1).
        const bool one_declared = lacks || other[o].lo() == 1;
        const bool one_asked = !lacks && other[o].lo() == n && other_now.rank_known() &&
                               other_now.size() == other.size() && other_now[o].is_static() && other_now[o].lo() == 1;
        if (!one_declared && !one_asked) continue;
        const auto equals = sizes.find(n);
        if (equals == sizes.end()) continue;
        return extent_finding(l, index, c, a, n,
                              fmt::format("its other operand 1 there{}", one_declared ? "" : " at the shapes asked"),
                              equals->second, spelling);
      }
    }
  }
  return std::nullopt;
}

}  // namespace reshape1::model::detail
