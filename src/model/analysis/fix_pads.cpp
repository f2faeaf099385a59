// New sizes: a Pad's amounts read as a pad to a multiple (fix_internal.hpp, pad_choices).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "model/analysis/batch_internal.hpp"
#include "model/analysis/fix_internal.hpp"
#include "model/ops/rules.hpp"
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
      if (!read) break;
      // Cut short of the padded extent: to the extent before the pad, or this is no crop back.
      read = b.lo == out[*axes[e]].lo() || b.lo == in[*axes[e]].lo();
      cut[*axes[e]] = 1;
    }
    if (!read || std::any_of(padded.begin(), padded.end(), [&](std::size_t a) { return cut[a] == 0; })) continue;
    if (found && *found != cut) return std::nullopt;
    found = std::move(cut);
  }
  return found;
}

/// Whether a Reshape that reads Pad `l`'s output cuts its axis `a` (at the declared shapes) into pieces, one
/// of them `m`: the window partition a pad to the window is for (Swin's
/// `view(B, H/7, 7, W/7, 7, C)` of the padded map). Its axes are read in groups of equal products, as a
/// Reshape lays the elements out.
bool cut_by(const graph& g, const propagation& declared, const layer& l, std::size_t a, std::int64_t m) {
  const auto self = static_cast<std::size_t>(&l - g.layers().data());
  if (declared.outputs[self].empty()) return false;
  const auto& in = declared.outputs[self][0].shape;
  for (const auto& c : g.layers()) {
    const auto index = static_cast<std::size_t>(&c - g.layers().data());
    if (part_of(c.type) != op_part::reshape || c.sources.empty() || !c.sources[0] || c.sources[0]->layer != self ||
        c.sources[0]->output != 0 || declared.outputs[index].empty())
      continue;
    const auto& out = declared.outputs[index][0].shape;
    for (const auto& group : product_groups(in, out)) {
      if (group.in_begin != a || group.in_end - group.in_begin != 1 || group.out_end - group.out_begin < 2) continue;
      for (auto k = group.out_begin; k < group.out_end; ++k)
        if (out[k].lo() == m) return true;
    }
  }
  return false;
}

/// How pad_choices reads one Pad: its amounts, the windows they may round up to, and the terms computed.
class pad_reading {
 public:
  pad_reading(const graph& g, const propagation& declared, const propagation& asked, const layer& l, text::fix_reason& reason)
      : g_(g), declared_(declared), l_(l), data_(declared.input(g, l, 0).shape), now_(asked.input(g, l, 0).shape),
        reason_(reason) {}

  /// Every amount a known constant, the begins (input 1) then the ends (input 2), as ONNX's pads lists them;
  /// the windows `stays` offers. False where the amounts are not all known.
  bool amounts(std::span<const std::int64_t> stays) {
    if (!data_.rank_known() || !now_.rank_known() || data_.size() != now_.size()) return false;
    rank_ = data_.size();
    for (const std::size_t port : {1U, 2U}) {
      const auto& v = declared_.input(g_, l_, port).value;
      if (!v || v->is_real() || v->elements.size() != rank_) return false;
      for (const auto& b : v->elements) {
        if (!b.exact() || !b.constant) return false;
        amounts_.push_back(b.lo);
      }
    }
    for (const auto a : amounts_) terms_.push_back({{}, a, 1});
    // A window is no size that changes, before the pad or after it: a padded extent of one window (W 2 padded
    // to 4, cut as `[1,4]`) or the padded extent itself (H 12 padded by 1 to 13) is a size that follows W,
    // and the cut after it reads it so.
    for (const auto v : stays)
      if (v >= 2) kept_.insert(v);
    for (std::size_t a = 0; a < rank_; ++a) {
      std::int64_t padded = 0;
      if (!changes(a) || !data_[a].is_static()) continue;
      kept_.erase(data_[a].lo());
      if (!__builtin_add_overflow(data_[a].lo(), amounts_[a], &padded) &&
          !__builtin_add_overflow(padded, amounts_[rank_ + a], &padded))
        kept_.erase(padded);
    }
    return true;
  }

  /// The axes padded at the declared shapes, along the axes that change: each by what it lacks to be a
  /// multiple of the one kept window that gives its amount, at the end it pads (Torch's pads to a window,
  /// Swin's or a stride's, add at one end). False, with the reason, where one is not read so.
  bool padded_axes() {
    for (std::size_t a = 0; a < rank_; ++a) {
      const auto begin = amounts_[a], end = amounts_[rank_ + a];
      if (!changes(a) || (begin == 0 && end == 0)) continue;
      if (!data_[a].is_static()) return false;
      const auto extent = data_[a].lo();
      if (begin < 0 || end < 0) return refuse(a, std::min(begin, end), text::pad_doubt::crop);
      if (begin != 0 && end != 0) return refuse(a, end, text::pad_doubt::both_ends);
      const auto amount = begin != 0 ? begin : end;
      // A pad of 1 at one end is also a pad split between both ends, half before rounded down (`F.pad(x,
      // (p // 2, p - p // 2))`), which differs wherever the pad is 2 or more.
      if (amount == 1) return refuse(a, amount, text::pad_doubt::split);
      std::vector<std::int64_t> fits;
      for (const auto m : kept_)
        if ((m - extent % m) % m == amount && cut_by(g_, declared_, l_, a, m)) fits.push_back(m);
      if (fits.size() != 1) return refuse(a, amount, text::pad_doubt::window);
      read(a, begin != 0, fits.front());
      padded_.push_back(a);
      windows_.insert(fits.front());
    }
    return true;
  }

  /// An axis that changes padded by 0, where its extent is a multiple of a window, may be one the program
  /// pads to it at other sizes (Swin pads H and W, by 0 where a size is a multiple already), or one it never
  /// pads (a pad of W only): it is read as padded where the Reshape after the pad cuts it by the window and a
  /// crop back to the size after the windows cuts it too; it keeps its 0 where that crop leaves it alone, or
  /// no window divides it; otherwise it is refused. (A layer that pads nothing at all, which check names only
  /// because a size asks for it elsewhere, is read the same way, with any kept window.) False, with the
  /// reason, where one is refused, or where nothing at all is read.
  bool zero_axes() {
    const auto crop = crop_back(g_, declared_, l_, padded_);
    const auto& candidates = windows_.empty() ? kept_ : windows_;
    std::optional<std::size_t> unread;
    for (std::size_t a = 0; a < rank_; ++a) {
      if (!changes(a) || amounts_[a] != 0 || amounts_[rank_ + a] != 0 || !data_[a].is_static()) continue;
      std::vector<std::int64_t> fits;
      for (const auto m : candidates)
        if (data_[a].lo() % m == 0) fits.push_back(m);
      if (fits.empty() || (crop && (*crop)[a] == 0)) {  // 0 stays: no pad to a window there
        if (!unread) unread = a;
        continue;
      }
      if (!crop || fits.size() != 1 || !cut_by(g_, declared_, l_, a, fits.front())) return refuse(a, 0, text::pad_doubt::zero);
      read(a, at_begin_, fits.front());
    }
    if (!first_ && unread) return refuse(*unread, 0, text::pad_doubt::window);
    return true;
  }

  /// The choice, where an axis was read.
  std::vector<pattern_choice> choice() {
    if (!first_) return {};
    pattern_choice c;
    c.port = 1;
    c.computed = std::move(terms_);
    c.pads = true;
    const auto a = *first_;
    c.why = text::pads_to_multiple(terms_text(c.computed), a, data_[a].lo(), amounts_[a] + amounts_[rank_ + a],
                                   first_multiple_);
    return {std::move(c)};
  }

 private:
  [[nodiscard]] bool changes(std::size_t a) const {
    return !(now_[a].is_static() && data_[a].is_static() && now_[a].lo() == data_[a].lo());
  }
  bool refuse(std::size_t a, std::int64_t amount, text::pad_doubt doubt) {
    reason_ = text::pad_not_read(a, data_[a].lo(), amount, std::vector<std::int64_t>(kept_.begin(), kept_.end()), doubt);
    return false;
  }
  void read(std::size_t a, bool at_begin, std::int64_t m) {
    at_begin_ = at_begin;
    terms_[(at_begin ? 0 : rank_) + a] = {{a}, 1, 1, m};
    if (!first_) {
      first_ = a;
      first_multiple_ = m;
    }
  }

  const graph& g_;
  const propagation& declared_;
  const layer& l_;
  const partial_shape& data_;
  const partial_shape& now_;
  text::fix_reason& reason_;
  std::size_t rank_ = 0;
  std::vector<std::int64_t> amounts_;
  std::set<std::int64_t> kept_, windows_;
  std::vector<pattern_term> terms_;
  std::vector<std::size_t> padded_;
  std::optional<std::size_t> first_;
  std::int64_t first_multiple_ = 0;
  bool at_begin_ = false;
};

}  // namespace

std::vector<pattern_choice> pad_choices(const graph& g, const propagation& declared, const propagation& asked,
                                        const layer& l, const batch_finding& f, std::span<const std::int64_t> stays,
                                        text::fix_reason& reason) {
  reason = text::shape_values_unknown();
  if (!reads_pads(l, f) || l.sources.size() < 3 || !l.sources[0] || !l.sources[1] || !l.sources[2]) return {};
  pad_reading r(g, declared, asked, l, reason);
  if (!r.amounts(stays) || !r.padded_axes() || !r.zero_axes()) return {};
  return r.choice();
}

}  // namespace reshape1::model::detail
