// check --shape (issue 47): a crop or pad whose bounds are computed from the input's shape and a constant, and that
// keeps a fixed extent where the input's changes (ONNX's CenterCropPad to a target an export wrote for one size).
#include "model/analysis/batch_internal.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "model/options.hpp"
#include "model/ops/sizes.hpp"
#include "model/text/batch.hpp"

namespace reshape1::model::detail {
namespace {

constexpr std::size_t crop_bounds[] = {1, 2};  // a slice's begins and ends, a pad's amounts before and after

/// How `n` is the extent `x` ("the whole of the", "half (rounded down) of the", ...); empty where it is none of these.
std::string extent_relation(std::int64_t n, std::int64_t x) {
  if (n == x) return "the whole of the";
  if (n == x / 2) return "half (rounded down) of the";
  if (n == (x + 1) / 2) return "half (rounded up) of the";
  if (n == 2 * x) return "twice the";
  return {};
}

/// The Consts a layer's input `port` is computed from, through layers whose values propagation knows (a
/// shape, arithmetic on it), and whether any such layer came between: a Const read directly is a fixed
/// bound, which placed_on_changing_axis looks at. Lowering-added Consts (a 2 to halve by) are no sizes.
std::pair<std::vector<std::size_t>, bool> constants_behind(const graph& g, const propagation& declared, const layer& l,
                                                           std::span<const std::size_t> ports) {
  std::vector<std::size_t> found;
  bool computed = false;
  std::vector<char> seen(g.layers().size(), 0);
  std::vector<std::size_t> todo;
  for (const auto p : ports)
    if (p < l.sources.size() && l.sources[p] && std::exchange(seen[l.sources[p]->layer], 1) == 0)
      todo.push_back(l.sources[p]->layer);
  while (!todo.empty()) {
    const auto at = todo.back();
    todo.pop_back();
    const auto& x = g.layers()[at];
    if (part_of(x.type) == op_part::constant) {
      if (!x.auxiliary) found.push_back(at);
      continue;
    }
    // (Only values: the data a ShapeOf reads is not where its values come from.)
    if (declared.outputs[at].empty() || !declared.outputs[at][0].value) continue;
    computed = true;
    if (gives_dimensions(x)) continue;
    for (const auto& s : x.sources)
      if (s && std::exchange(seen[s->layer], 1) == 0) todo.push_back(s->layer);
  }
  return {found, computed};
}

}  // namespace

std::vector<std::size_t> kept_axes(const graph& g, const propagation& declared, const propagation& asked, std::size_t index) {
  const auto& l = g.layers()[index];
  std::vector<std::size_t> kept;
  if (l.sources.empty() || !l.sources[0] || declared.outputs[index].empty() || asked.outputs[index].empty()) return kept;
  const auto& din = declared.input(g, l, 0).shape;
  const auto& ain = asked.input(g, l, 0).shape;
  const auto& dout = declared.outputs[index][0].shape;
  const auto& aout = asked.outputs[index][0].shape;
  if (!din.rank_known() || !dout.rank_known() || !aout.rank_known() || din.size() != dout.size() || aout.size() != dout.size())
    return kept;
  for (std::size_t axis = 0; axis < din.size(); ++axis)
    if (!same_at(din, ain, axis) && dout[axis].is_static() && aout[axis].is_static() && dout[axis].lo() == aout[axis].lo())
      kept.push_back(axis);
  return kept;
}

bool fixed_crop(const graph& g, const propagation& declared, const propagation& asked, std::size_t index,
                std::optional<std::size_t> batch, std::span<const std::string> assumed, option_spelling spelling,
                std::vector<batch_finding>& out) {
  const auto& l = g.layers()[index];
  if (!slices(l) && !pads(l)) return false;
  const auto kept = kept_axes(g, declared, asked, index);
  if (kept.empty()) return false;
  const auto rank = declared.outputs[index][0].shape.size();
  const auto behind = [&](const layer& x) { return constants_behind(g, declared, x, crop_bounds); };
  std::optional<std::pair<std::vector<std::size_t>, bool>> mine;
  for (const auto axis : kept) {
    // (An extent of 1 is the last token's, `x[:, L-1:L]`: a size no less than any other's, and no sign of one.)
    const auto n = declared.outputs[index][0].shape[axis].lo();
    if (axis == batch || n < 2) continue;
    if (!mine) mine = behind(l);
    if (!mine->second) return false;
    for (const auto k : mine->first) {
      const auto* c = &g.layers()[k];
      if (vouched(*c, assumed) || declared.outputs[k].empty()) continue;
      const auto& v = declared.outputs[k][0].value;
      if (!v || v->is_real() ||
          std::none_of(v->elements.begin(), v->elements.end(), [&](const element_bound& b) { return b.exact() && b.lo == n; }))
        continue;
      // The extent the target is compared with is the data's before the crops and pads computed from the same
      // Const (CenterCropPad pads, then slices what it padded: the slice's input is the target's size already).
      const layer* data = &l;
      while (data->sources[0]) {
        const auto& before = g.layers()[data->sources[0]->layer];
        if ((!slices(before) && !pads(before)) || before.sources.empty() || !before.sources[0]) break;
        const auto them = behind(before).first;
        if (std::find(them.begin(), them.end(), k) == them.end()) break;
        data = &before;
      }
      const auto& extent = declared.input(g, *data, 0).shape;
      if (!extent.rank_known() || extent.size() != rank || !extent[axis].is_static()) continue;
      const auto how = extent_relation(n, extent[axis].lo());
      if (how.empty()) continue;
      auto f = size_finding(l, index);
      set_reason(f, because(why::crop_to_fixed_size, axis, n)
                        .quoting(fmt::format("the constant '{}', which holds {}, {} input's extent there at the declared shapes",
                                             c->name, n, how)));
      f.source = c->name;
      f.source_id = c->id;
      text::give_hint(f, text::vouch_hint(spelling, std::string(c->name), c->id));
      out.push_back(std::move(f));
      return true;
    }
  }
  return false;
}

}  // namespace reshape1::model::detail
