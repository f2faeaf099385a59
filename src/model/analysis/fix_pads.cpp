// New sizes: a Pad's amounts read as a pad to a multiple (fix_internal.hpp, pad_choices).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "model/analysis/batch_internal.hpp"
#include "model/analysis/fix_internal.hpp"
#include "model/ops/sizes.hpp"
#include "model/text/fix.hpp"

namespace reshape1::model::detail {

bool reads_pads(const layer& l, const batch_finding& f) {
  if (f.code != "placed_on_size") return false;
  const auto port = finding_port(f);
  const auto inputs = placed_inputs(l);
  return port && std::any_of(inputs.begin(), inputs.end(),
                             [&](const placed_input& x) { return x.port == *port && x.kind == placement::amount; });
}

namespace {

/// The axes a crop back after Pad `l` cuts, where there is one: a Slice or StridedSlice downstream of it that
/// starts at 0 by steps of 1 (fix_internal.hpp: from_the_start), on a tensor of the Pad's output shape at the
/// declared shapes, whose end along every axis in `padded` is that axis' extent before the pad (Swin's
/// `x[:, :H, :W, :]` after its windows are folded back); nullopt where there is none, or several disagree.
/// An axis it lists at its whole extent counts as cut: a pad that added nothing there at the declared shapes.
std::optional<std::vector<char>> crop_back(const graph& g, const propagation& declared, const layer& l,
                                           const std::vector<std::size_t>& padded) {
  const auto self = static_cast<std::size_t>(&l - g.layers().data());
  if (declared.outputs[self].empty()) return std::nullopt;
  const auto& in = declared.input(g, l, 0).shape;
  const auto& out = declared.outputs[self][0].shape;
  if (!in.is_static() || !out.is_static()) return std::nullopt;
  std::vector<char> marks(g.layers().size(), 0);
  marks[self] = 1;
  const auto after = downstream_of(g, marks);
  std::optional<std::vector<char>> found;
  for (std::size_t i = 0; i < g.layers().size(); ++i) {
    const auto& c = g.layers()[i];
    if (after[i] == 0 || c.sources.empty() || !c.sources[0] || !from_the_start(g, declared, c)) continue;
    const auto& data = declared.input(g, c, 0).shape;
    if (!data.is_static() || data.size() != out.size() || data.to_static() != out.to_static()) continue;
    const auto inputs = placed_inputs(c);
    const auto end = std::find_if(inputs.begin(), inputs.end(), [](const placed_input& x) { return x.kind == placement::end; });
    if (end == inputs.end() || end->port >= c.sources.size() || !c.sources[end->port]) continue;
    const auto& v = declared.input(g, c, end->port).value;
    if (!v || v->is_real()) continue;
    const auto axes = placed_axes(g, declared, c, *end, v->elements.size(), data.size());
    std::vector<char> cut(data.size(), 0);
    bool read = true;
    for (std::size_t e = 0; e < v->elements.size() && read; ++e) {
      if (e < end->ignored.size() && end->ignored[e]) continue;
      const auto& b = v->elements[e];
      read = axes[e].has_value() && b.exact();
      if (read && b.lo != out[*axes[e]].lo()) {
        // Cut short of the padded extent: to the extent before the pad, or this is no crop back.
        read = b.lo == in[*axes[e]].lo();
        cut[*axes[e]] = 1;
      } else if (read) {
        cut[*axes[e]] = 1;
      }
    }
    if (!read || std::any_of(padded.begin(), padded.end(), [&](std::size_t a) { return cut[a] == 0; })) continue;
    if (found && *found != cut) return std::nullopt;
    found = std::move(cut);
  }
  return found;
}

}  // namespace

std::vector<pattern_choice> pad_choices(const graph& g, const propagation& declared, const propagation& asked,
                                        const layer& l, const batch_finding& f, std::span<const std::int64_t> stays,
                                        text::fix_reason& reason) {
  reason = text::shape_values_unknown();
  if (!reads_pads(l, f) || l.sources.size() < 3 || !l.sources[0] || !l.sources[1] || !l.sources[2]) return {};
  const auto& data = declared.input(g, l, 0).shape;
  const auto& now = asked.input(g, l, 0).shape;
  if (!data.rank_known() || !now.rank_known() || data.size() != now.size()) return {};
  const auto rank = data.size();
  // Every amount a known constant: the begins (input 1) then the ends (input 2), as ONNX's pads lists them.
  std::vector<std::int64_t> amounts;
  for (const std::size_t port : {1U, 2U}) {
    const auto& v = declared.input(g, l, port).value;
    if (!v || v->is_real() || v->elements.size() != rank) return {};
    for (const auto& b : v->elements) {
      if (!b.exact() || !b.constant) return {};
      amounts.push_back(b.lo);
    }
  }
  // The windows a pad to a multiple may round up to: sizes the model's other Reshapes keep at every size.
  std::set<std::int64_t> kept_set;
  for (const auto v : stays)
    if (v >= 2) kept_set.insert(v);
  const auto changes = [&](std::size_t a) { return !(now[a].is_static() && data[a].is_static() && now[a].lo() == data[a].lo()); };
  // A window is no size that changes, before the pad or after it: a padded extent of one window (W 2 padded
  // to 4, cut as `[1,4]`) or the padded extent itself (H 12 padded by 1 to 13) is a size that follows W, and
  // the cut after it reads it so.
  std::set<std::int64_t> sizes;
  for (std::size_t a = 0; a < rank; ++a)
    if (changes(a) && data[a].is_static()) {
      sizes.insert(data[a].lo());
      sizes.insert(data[a].lo() + amounts[a] + amounts[rank + a]);
    }
  for (const auto v : sizes) kept_set.erase(v);
  const std::vector<std::int64_t> kept(kept_set.begin(), kept_set.end());
  std::vector<pattern_term> terms;
  for (const auto a : amounts) terms.push_back({{}, a, 1});
  // The axes padded at the declared shapes, along the axes that change: each by what it lacks to be a
  // multiple of the one kept window that gives its amount, at the end it pads (Torch's pads to a window,
  // Swin's or a stride's, add at one end).
  std::vector<std::size_t> padded;
  std::set<std::int64_t> windows;
  std::optional<std::size_t> first;
  bool at_begin = false;
  for (std::size_t a = 0; a < rank; ++a) {
    const auto begin = amounts[a], end = amounts[rank + a];
    if (!changes(a) || (begin == 0 && end == 0)) continue;
    if (!data[a].is_static()) return {};
    const auto extent = data[a].lo();
    if (begin < 0 || end < 0) {
      reason = text::pad_not_read(a, extent, std::min(begin, end), kept, text::pad_doubt::crop);
      return {};
    }
    if (begin != 0 && end != 0) {
      reason = text::pad_not_read(a, extent, end, kept, text::pad_doubt::both_ends);
      return {};
    }
    const auto amount = begin != 0 ? begin : end;
    std::vector<std::int64_t> fits;
    for (const auto m : kept)
      if (amount > 0 && (m - extent % m) % m == amount) fits.push_back(m);
    if (fits.size() != 1) {
      reason = text::pad_not_read(a, extent, amount, kept, text::pad_doubt::window);
      return {};
    }
    at_begin = begin != 0;
    terms[(at_begin ? 0 : rank) + a] = {{a}, 1, 1, fits.front()};
    padded.push_back(a);
    windows.insert(fits.front());
    if (!first) first = a;
  }
  // An axis that changes padded by 0, where its extent is a multiple of a window, may be one the program pads
  // to it at other sizes (Swin pads H and W, by 0 where a size is a multiple already), or one it never pads
  // (a pad of W only): a crop back to the size after the windows shows which, as it cuts the padded axes
  // and those only; without one, it is refused. (A layer that pads nothing at all, check names only
  // because a size asks for it elsewhere: read the same way, with any kept window.)
  const auto crop = crop_back(g, declared, l, padded);
  const auto& candidates = windows.empty() ? kept_set : windows;
  for (std::size_t a = 0; a < rank; ++a) {
    if (!changes(a) || amounts[a] != 0 || amounts[rank + a] != 0 || !data[a].is_static()) continue;
    const auto extent = data[a].lo();
    std::vector<std::int64_t> fits;
    for (const auto m : candidates)
      if (extent % m == 0) fits.push_back(m);
    if (fits.empty() || (crop && (*crop)[a] == 0)) continue;  // 0 stays: no pad to a window there
    if (!crop || fits.size() != 1) {
      reason = text::pad_not_read(a, extent, 0, kept, text::pad_doubt::zero);
      return {};
    }
    terms[(at_begin ? 0 : rank) + a] = {{a}, 1, 1, fits.front()};
    if (!first) first = a;
  }
  if (!first) return {};
  pattern_choice c;
  c.port = 1;
  c.computed = std::move(terms);
  c.pads = true;
  const auto at = *first;
  const auto& term = c.computed[(at_begin ? 0 : rank) + at];
  c.why = text::pads_to_multiple(terms_text(c.computed), at, data[at].lo(), amounts[at] + amounts[rank + at], term.multiple);
  return {std::move(c)};
}

}  // namespace reshape1::model::detail
