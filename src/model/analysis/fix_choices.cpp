// The values fix tries in a Reshape's pattern: see fix_internal.hpp.
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>
#include <set>
#include <variant>

#include <fmt/format.h>

#include "model/analysis/batch_internal.hpp"
#include "model/analysis/fix_internal.hpp"
#include "model/ops/rules.hpp"
#include "model/ops/sizes.hpp"
#include "model/text/fix.hpp"

namespace reshape1::model::detail {

namespace {

/// The choices for element `i`, which writes the declared batch, of pattern `e` (`constant`: which
/// elements only constants went into).
std::vector<pattern_choice> for_batch_element(model_format format, bool special_zero, std::span<const pattern_bound> e,
                                              const std::vector<bool>& constant, std::size_t i, text::fix_reason& reason) {
  const auto exact = [&](std::size_t k) { return e[k].lo == e[k].hi; };
  if (i >= e.size() || !exact(i)) {
    reason = text::shape_values_unknown();
    return {};
  }
  std::vector<std::size_t> zeros, minus_ones;
  for (std::size_t k = 0; k < e.size(); ++k) {
    if (exact(k) && e[k].lo == 0) zeros.push_back(k);
    if (exact(k) && e[k].lo == -1) minus_ones.push_back(k);
  }
  // -1 infers the batch only when every other element is a value that does not move with it.
  bool others_fixed = true;
  for (std::size_t k = 0; k < e.size(); ++k)
    if (k != i && (!exact(k) || (k < constant.size() && !constant[k]) || e[k].lo < -1)) others_fixed = false;
  const auto declared = e[i].lo;
  std::vector<pattern_choice> choices;
  if (special_zero) {
    choices.push_back({i, declared, 0, false, text::zero_copies_batch(i, declared)});
  } else if (zeros.empty() && std::all_of(e.begin(), e.end(), [](const pattern_bound& b) { return b.lo > 0 || b.hi < 0; })) {
    choices.push_back({i, declared, 0, true, text::zero_copies_batch(i, declared, format)});
  }
  if (minus_ones.empty() && others_fixed) choices.push_back({i, declared, -1, false, text::minus_one_infers_batch(i, declared)});
  if (choices.empty()) {
    if (!minus_ones.empty() && !zeros.empty())
      reason = text::literal_zero_with_minus_one(zeros[0], format);
    else if (!minus_ones.empty())
      reason = text::maybe_zero_with_minus_one(minus_ones[0], format);
    else
      reason = text::not_fixed_without_special_zero(format);
  }
  return choices;
}

}  // namespace

std::vector<pattern_choice> pattern_choices(const graph& g, const propagation& p, const layer& l,
                                            const batch_finding& f, text::fix_reason& reason) {
  if (f.issue == batch_issue::fails_at_declared) {  // broken before any batch changes: no value mends that
    reason = text::fails_as_given(f);
    return {};
  }
  std::vector<bool> constant;
  const auto pattern = reshape_pattern_at(g, p, l, &constant);
  const auto e = pattern.elements();
  if (f.pattern_index) return for_batch_element(g.format(), l.flag("special_zero"), e, constant, *f.pattern_index, reason);
  // No element writes the batch: it is folded into another dimension (`[101,512]` for 1 x 101 x 512).
  std::vector<pattern_choice> choices;
  const auto minus_one = std::find_if(e.begin(), e.end(), [](const pattern_bound& b) { return b.lo == -1 && b.hi == -1; });
  if (minus_one != e.end()) {
    reason = text::minus_one_folds_batch(static_cast<std::size_t>(minus_one - e.begin()), g.format() == model_format::onnx);
    return choices;
  }
  if (f.issue != batch_issue::fails) {
    reason = text::pattern_folds_batch();
    return choices;
  }
  if (pattern.kind() == pattern_kind::unknown) {
    reason = text::shape_values_unknown();
    return choices;
  }
  for (std::size_t i = 0; i < e.size(); ++i)
    if (e[i].lo == e[i].hi && e[i].lo > 0) choices.push_back({i, e[i].lo, -1, false, text::minus_one_infers_folded(i, e[i].lo)});
  if (choices.empty()) reason = text::no_element_follows_batch();
  return choices;
}

std::vector<std::int64_t> changing_values(const graph& g, const propagation& declared, const propagation& asked,
                                          std::span<const char> skip, bool unknown_changes) {
  std::vector<std::int64_t> values;
  for (std::size_t i = 0; i < g.layers().size() && i < declared.outputs.size() && i < asked.outputs.size(); ++i) {
    if (i < skip.size() && skip[i] != 0) continue;
    for (std::size_t o = 0; o < declared.outputs[i].size() && o < asked.outputs[i].size(); ++o) {
      const auto& d = declared.outputs[i][o].shape;
      const auto& a = asked.outputs[i][o].shape;
      if (!d.rank_known()) continue;
      const bool unknown = !a.rank_known() || a.size() != d.size();
      if (unknown && !unknown_changes) continue;
      for (std::size_t j = 0; j < d.size(); ++j)
        if (d[j].is_static() && (unknown || !a[j].is_static() || a[j].lo() != d[j].lo())) values.push_back(d[j].lo());
    }
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

std::string terms_text(std::span<const pattern_term> terms) { return terms_text(terms, {}); }

std::string terms_text(std::span<const pattern_term> terms, std::string_view source) {
  const auto shape = source.empty() ? std::string("shape") : fmt::format("shape('{}')", source);
  std::string out = "[";
  for (std::size_t k = 0; k < terms.size(); ++k) {
    const auto& t = terms[k];
    if (k > 0) out += ',';
    std::string product;
    for (const auto d : t.dims) product += fmt::format("{}{}[{}]", product.empty() ? "" : "*", shape, d);
    if (product.empty())
      product = std::to_string(t.factor);
    else if (t.factor != 1)
      product += fmt::format("*{}", t.factor);
    out += product;
    if (t.divisor != 1) out += fmt::format("/{}", t.divisor);
  }
  return out + "]";
}

namespace {

/// The output pattern `e` gives at the declared shapes `in` (its 0s copied, its -1 inferred), and where its
/// -1 is; nullopt, with `bad` the element to blame, when it gives none.
struct output_at_declared {
  std::vector<std::int64_t> values;
  std::optional<std::size_t> inferred;
};
std::optional<output_at_declared> output_of(const partial_shape& in, std::span<const std::int64_t> e, bool special_zero,
                                            std::size_t& bad) {
  bad = 0;
  std::int64_t elements = 1;
  for (std::size_t i = 0; i < in.size(); ++i)
    if (!in[i].is_static() || in[i].lo() <= 0 || __builtin_mul_overflow(elements, in[i].lo(), &elements)) return std::nullopt;
  output_at_declared r{{e.begin(), e.end()}, std::nullopt};
  auto& out = r.values;
  std::int64_t known = 1;
  for (std::size_t k = 0; k < out.size(); ++k) {
    bad = k;
    if (out[k] == 0 && special_zero) {
      if (k >= in.size()) return std::nullopt;
      out[k] = in[k].lo();
    }
    if (out[k] == -1 && !r.inferred) {
      r.inferred = k;
      continue;
    }
    if (out[k] <= 0 || __builtin_mul_overflow(known, out[k], &known)) return std::nullopt;
  }
  if (r.inferred) {
    bad = *r.inferred;
    if (elements % known != 0) return std::nullopt;
    out[*r.inferred] = elements / known;
  } else if (known != elements) {
    bad = 0;
    return std::nullopt;
  }
  return r;
}

/// computed_terms' reading of one pattern, group by group: the input's dimensions `in[i0, i)` and the
/// output's elements `out[k0, k)` of equal products.
class term_reading {
 public:
  term_reading(const partial_shape& in, const partial_shape& now, output_at_declared out,
               std::span<const std::int64_t> e, std::span<const std::int64_t> stays, std::span<const char> sole,
               text::fix_reason& reason)
      : in_(in), now_(now), out_(std::move(out.values)), inferred_(out.inferred), e_(e), stays_(stays), sole_(sole),
        reason_(reason), terms_(out_.size()) {}

  /// Every group read, then no element left that another reading could give the same size.
  std::optional<std::vector<pattern_term>> read() {
    // Groups of equal products, smallest first; a 1 on either side joins the group it starts.
    std::size_t i = 0, k = 0;
    while (i < in_.size() || k < out_.size()) {
      const auto i0 = i, k0 = k;
      std::int64_t a = i < in_.size() ? in_[i++].lo() : 1;
      std::int64_t b = k < out_.size() ? out_[k++] : 1;
      while (a != b) {
        if (a < b && i < in_.size()) {
          a *= in_[i++].lo();  // (no overflow: every partial product divides the element count)
        } else if (b < a && k < out_.size()) {
          b *= out_[k++];
        } else {
          return unreadable(k0);
        }
      }
      if (!group(i0, i, k0, k)) return std::nullopt;
    }
    if (!one_reading()) return std::nullopt;
    return std::move(terms_);
  }

 private:
  std::nullopt_t unreadable(std::size_t k) {
    reason_ = text::needs_computed_pattern(k, k < e_.size() ? e_[k] : 0);
    return std::nullopt;
  }
  [[nodiscard]] bool changes(std::size_t x) const { return !(now_[x].is_static() && now_[x].lo() == in_[x].lo()); }
  [[nodiscard]] bool minus_one_in(std::size_t k0, std::size_t k) const {
    return inferred_ && *inferred_ >= k0 && *inferred_ < k;
  }

  bool group(std::size_t i0, std::size_t i, std::size_t k0, std::size_t k) {
    std::vector<std::size_t> moving;
    for (auto x = i0; x < i; ++x)
      if (changes(x)) moving.push_back(x);
    // A 1 that changes starts its group unless dimensions above 1 hold it inside (`[1,6,1,14]` as `[1,84]`):
    // then which of the pattern's 1s stands for it (`[1,6,1,1,14]`: before or after W?) nothing shows.
    for (const auto x : moving)
      if (in_[x].lo() == 1 && x == i0) {
        reason_ = text::changing_one(x);
        return false;
      }
    // Every element is written as it is at the declared shapes (a 0 or -1 too: the pattern has neither
    // then), and the one that follows the sizes that change as computed below.
    for (auto y = k0; y < k; ++y) terms_[y].factor = out_[y];
    if (moving.empty()) return true;  // the group's constants stay
    if (k == k0) return (void)unreadable(k0), false;
    const auto y = follower(i0, i, k0, k, moving);
    if (!y || !sure(*y, i0, i, moving)) return false;
    followers_.emplace_back(*y, moving);
    std::int64_t fixed = 1, kept = 1;
    for (auto x = i0; x < i; ++x)
      if (!changes(x)) fixed *= in_[x].lo();
    for (auto z = k0; z < k; ++z)
      if (z != *y) kept *= out_[z];
    auto& t = terms_[*y];
    t = {moving, fixed, kept};
    if (t.factor % t.divisor == 0) t = {moving, t.factor / t.divisor, 1};
    return true;
  }

  /// The one element of the group that follows the sizes that change: the others stay.
  std::optional<std::size_t> follower(std::size_t i0, std::size_t i, std::size_t k0, std::size_t k,
                                      const std::vector<std::size_t>& moving) {
    // The elements that stay: those the group's dimensions that stay hold on their own (row by row, the
    // last elements lie in the last dimensions when their product divides those dimensions': the 4 of
    // `[1,-1,4]` on `[1,30,40,12]`; likewise the first), and values the model's other Reshapes keep.
    std::vector<char> stay(k - k0, 0);
    const auto held = [&](bool from_end) {
      std::int64_t dims = 1, held_product = 1;
      for (std::size_t n = 0; n < i - i0; ++n) {
        const auto x = from_end ? i - 1 - n : i0 + n;
        if (changes(x)) break;
        dims *= in_[x].lo();
      }
      for (std::size_t n = 0; n + 1 < k - k0; ++n) {  // one element at least is left to follow
        const auto y = from_end ? k - 1 - n : k0 + n;
        if (dims % (held_product * out_[y]) != 0) break;
        held_product *= out_[y];
        stay[y - k0] = 1;
      }
    };
    // (Only where the pattern's -1 is in the group: it shows which element the program inferred. Without
    // it, `[1,8,32]` of `[1,T=4,64]` may as well be 8 groups of T·8 as T·2 rows of 32.)
    const bool minus_one_here = minus_one_in(k0, k);
    if (minus_one_here) {
      held(true);
      held(false);
    }
    for (auto y = k0; y < k; ++y)
      if (out_[y] == 1 || std::find(stays_.begin(), stays_.end(), out_[y]) != stays_.end()) stay[y - k0] = 1;
    std::vector<std::size_t> follows;
    for (auto y = k0; y < k; ++y)
      if (stay[y - k0] == 0) follows.push_back(y);
    // The pattern's -1, in this group, is what the program inferred: the element that follows.
    if (minus_one_here && follows.empty() && out_[*inferred_] > 1) follows.push_back(*inferred_);
    if (follows.empty() && k - k0 == 1) follows.push_back(k0);  // a group of 1s: its one element
    if (follows.size() == 1 && !(minus_one_here && follows[0] != *inferred_)) return follows[0];
    if (moving.size() == 1 && i - i0 == 1) {
      reason_ = text::split_not_read(i0, in_[i0].lo(), std::vector<std::int64_t>(out_.begin() + static_cast<std::ptrdiff_t>(k0),
                                                                                 out_.begin() + static_cast<std::ptrdiff_t>(k)));
      return std::nullopt;
    }
    return unreadable(k0);
  }

  /// Whether element `y` surely follows the dimensions `moving` and no other of the same value.
  bool sure(std::size_t y, std::size_t i0, std::size_t i, const std::vector<std::size_t>& moving) {
    // A dimension whose value another size has too may be that one (H where W == H: `view(1,3,w,-1)` reads
    // as a copy of H; `view(1,s,-1)` of another input's length S == T as a copy of T): no reading is sure,
    // unless the element that follows takes the product of every dimension of the input with that value
    // (`[1,192]` of `[1,3,8,8]`), the same whichever is which, and either is the pattern's -1 or the pattern
    // has none (a program that wrote another size there would not run at other sizes, the product of the
    // elements no longer the input's).
    // (Only a flattening is sure: one element above 1 in the whole pattern, `[1,192]`; `[1,2,6]` of
    // `[1,H=2,2,3]` may be `view(1,2,3h)`.)
    const auto above_one = std::count_if(out_.begin(), out_.end(), [](std::int64_t v) { return v > 1; });
    for (const auto x : moving) {
      if (x < sole_.size() && sole_[x] != 0) continue;
      bool whole = (!inferred_ || *inferred_ == y) && above_one == 1;
      for (std::size_t z = 0; z < in_.size() && whole; ++z)
        if (in_[z].lo() == in_[x].lo() && (z < i0 || z >= i)) whole = false;
      if (!whole) return (void)unreadable(y), false;
    }
    return true;
  }

  /// No element with the value of one that follows may be read as following instead.
  bool one_reading() {
    // Another element with the same value may be the one that follows (`[7,7,8,6]` of N = C = 7: view(c,n,..)
    // reads as a copy of N; `[1,10,10]` of C·H = W): neither reading is sure. Unless it follows too, the same
    // named size as this one (`[1,8,7,8,7,96]` of a square map asked as `?@S` twice: either reading is S/7).
    // (Where the sizes are asked as values, one value is one size: the model is then only for those.)
    const auto same_size = [&](const std::vector<std::size_t>& a, const std::vector<std::size_t>& b) {
      if (a.size() != 1 || b.size() != 1) return false;
      const auto &x = now_[a[0]], &y = now_[b[0]];
      return (x.has_symbol() && y.has_symbol() && x.symbol() == y.symbol()) ||
             (x.is_static() && y.is_static() && x.lo() == y.lo());
    };
    for (const auto& [y, dims] : followers_)
      for (std::size_t z = 0; z < out_.size(); ++z) {
        if (z == y || out_[z] != out_[y]) continue;
        const auto other = std::find_if(followers_.begin(), followers_.end(), [&](const auto& f) { return f.first == z; });
        if (other == followers_.end() || !same_size(dims, other->second) || terms_[z].factor != terms_[y].factor ||
            terms_[z].divisor != terms_[y].divisor)
          return (void)unreadable(y), false;
      }
    return true;
  }

  const partial_shape& in_;
  const partial_shape& now_;
  std::vector<std::int64_t> out_;
  std::optional<std::size_t> inferred_;
  std::span<const std::int64_t> e_, stays_;
  std::span<const char> sole_;
  text::fix_reason& reason_;
  std::vector<pattern_term> terms_;
  std::vector<std::pair<std::size_t, std::vector<std::size_t>>> followers_;  // each element that follows, and its dims
};

}  // namespace

std::optional<std::vector<pattern_term>> computed_terms(const partial_shape& in, const partial_shape& now,
                                                        std::span<const std::int64_t> e, bool special_zero,
                                                        std::span<const std::int64_t> stays, std::span<const char> sole,
                                                        text::fix_reason& reason) {
  std::size_t bad = 0;
  std::optional<output_at_declared> out;
  if (in.rank_known() && now.rank_known() && in.size() == now.size() && !e.empty()) out = output_of(in, e, special_zero, bad);
  if (!out) {
    reason = text::needs_computed_pattern(bad, bad < e.size() ? e[bad] : 0);
    return std::nullopt;
  }
  return term_reading(in, now, std::move(*out), e, stays, sole, reason).read();
}

namespace {

/// Reshape `l` gives back a shape its data had before (a window reverse `[1,8,8,7,7,96]` of the windows'
/// grid, the `[1,56,56,96]` after it of the map): the pattern computed from the shape of the nearest tensor
/// before it, on its data's path, whose declared shape is the Reshape's output, each dimension that changes
/// there read from it. Nullopt when there is none, none of its dimensions changes, or two that change have
/// one value at the declared shapes and are not one size.
std::optional<pattern_choice> restored(const graph& g, const propagation& declared, const propagation& asked, const layer& l) {
  const auto self = static_cast<std::size_t>(&l - g.layers().data());
  if (declared.outputs[self].empty() || l.sources.empty() || !l.sources[0]) return std::nullopt;
  const auto& out = declared.outputs[self][0].shape;
  if (!out.rank_known() || !std::all_of(out.begin(), out.end(), [](const dimension& d) { return d.is_static(); }))
    return std::nullopt;
  std::vector<char> seen(g.layers().size(), 0);
  std::deque<std::size_t> queue{l.sources[0]->layer};
  seen[l.sources[0]->layer] = 1;
  while (!queue.empty()) {
    const auto index = queue.front();
    queue.pop_front();
    const auto& at = g.layers()[index];
    for (std::size_t o = 0; o < declared.outputs[index].size() && o < asked.outputs[index].size(); ++o) {
      const auto& d = declared.outputs[index][o].shape;
      const auto& a = asked.outputs[index][o].shape;
      if (!d.rank_known() || d.size() != out.size() || !a.rank_known() || a.size() != d.size()) continue;
      bool same = true, changes = false;
      for (std::size_t k = 0; k < d.size() && same; ++k) {
        same = d[k].is_static() && d[k].lo() == out[k].lo();
        changes = changes || !(a[k].is_static() && a[k].lo() == d[k].lo());
      }
      if (!same || !changes) continue;
      // Two dimensions of one value that change as different sizes (H == W at the declared shape): the
      // program may have written either where the other is (`view(1,3,w,-1)` of a square map).
      for (std::size_t k = 0; k < d.size(); ++k)
        for (std::size_t j = 0; j < d.size(); ++j) {
          const auto moves = [&](std::size_t i) { return !(a[i].is_static() && a[i].lo() == d[i].lo()); };
          if (j == k || d[j].lo() != d[k].lo() || !moves(k) || !moves(j)) continue;
          const bool one = (a[k].has_symbol() && a[j].has_symbol() && a[k].symbol() == a[j].symbol()) ||
                           (a[k].is_static() && a[j].is_static() && a[k].lo() == a[j].lo());
          if (!one) return std::nullopt;
        }
      pattern_choice c;
      for (std::size_t k = 0; k < d.size(); ++k)
        c.computed.push_back(a[k].is_static() && a[k].lo() == d[k].lo() ? pattern_term{{}, d[k].lo(), 1} : pattern_term{{k}, 1, 1});
      c.shape_of = std::pair(at.id, o);
      c.shape_of_name = std::string(at.name);
      c.why = text::computed_from_tensor(terms_text(c.computed, c.shape_of_name), at.name);
      return c;
    }
    for (const auto& s : at.sources)
      if (s && seen[s->layer] == 0 && part_of(g.layers()[s->layer].type) != op_part::constant) {
        seen[s->layer] = 1;
        queue.push_back(s->layer);
      }
  }
  return std::nullopt;
}

}  // namespace

namespace {

/// The model's Reshapes (and `also`, a layer whose constant is read) and every layer after them: their
/// outputs hold their constants' values, not sizes the inputs carry.
std::vector<char> at_or_after_reshapes(const graph& g, const layer* also = nullptr) {
  std::vector<char> marked(g.layers().size(), 0);
  for (std::size_t i = 0; i < marked.size(); ++i)
    marked[i] = part_of(g.layers()[i].type) == op_part::reshape || &g.layers()[i] == also;
  auto after = downstream_of(g, marked);
  for (std::size_t i = 0; i < marked.size(); ++i) after[i] = after[i] || marked[i];
  return after;
}

/// Which dimensions of a Reshape's input (`in` at the declared shapes, `now` at the sizes asked) are a size
/// that changes and that the value names alone: no dimension of a layer before the Reshapes (`after`) has
/// that value at the declared shapes unless it is that same size at the sizes asked.
std::vector<char> sole_sizes(const graph& g, const propagation& declared, const propagation& asked,
                             const partial_shape& in, const partial_shape& now, const std::vector<char>& after) {
  const auto alone = [&](std::size_t k) {
    const auto v = in[k].lo();
    const auto size = now[k].symbol();
    for (std::size_t i = 0; i < g.layers().size(); ++i) {
      if (after[i]) continue;
      for (std::size_t o = 0; o < declared.outputs[i].size() && o < asked.outputs[i].size(); ++o) {
        const auto& d = declared.outputs[i][o].shape;
        const auto& a = asked.outputs[i][o].shape;
        // (A tensor whose values are known is a constant or a shape computed: its length is a count of
        // dimensions or of values, not a size of the data: the pattern `[1,8,4,7]` of a map 4 high.)
        if (!d.rank_known() || declared.outputs[i][o].value) continue;
        for (std::size_t j = 0; j < d.size(); ++j) {
          if (!d[j].is_static() || d[j].lo() != v || !a.rank_known() || a.size() != d.size()) continue;
          // Another size: one that stays (C == H), or one of another name (W where H is), or of another value
          // where the sizes are asked as values; a dimension the propagation names no size at (an interval
          // a Slice computed) too: nothing shows it is this one.
          const bool same = (size && a[j].has_symbol() && a[j].symbol() == size) ||
                            (now[k].is_static() && a[j].is_static() && a[j].lo() == now[k].lo());
          if (!same) return false;
        }
      }
    }
    return true;
  };
  const auto changes = [&](std::size_t k) { return !(now[k].is_static() && in[k].is_static() && now[k].lo() == in[k].lo()); };
  std::vector<char> sole(in.size(), 0);
  for (std::size_t k = 0; k < in.size(); ++k) sole[k] = in[k].is_static() && in[k].lo() > 0 && changes(k) && alone(k);
  return sole;
}

/// The choices that write reading `terms` of pattern `e` (on input `in`): 0 in the elements that copy their
/// input's dimension, -1 in the one element left that follows the sizes, last the pattern computed.
std::vector<pattern_choice> choices_of_reading(model_format format, std::span<const pattern_bound> e,
                                               const partial_shape& in, const std::vector<pattern_term>& terms,
                                               bool special_zero, text::fix_reason& reason) {
  const bool has_zero = std::any_of(e.begin(), e.end(), [](const pattern_bound& b) { return b.lo == 0; });
  const bool has_minus_one = std::any_of(e.begin(), e.end(), [](const pattern_bound& b) { return b.lo == -1; });
  std::vector<std::size_t> copies, others;  // elements that follow a size: a copy of the same index, or not
  for (std::size_t k = 0; k < terms.size(); ++k) {
    const auto& t = terms[k];
    if (t.dims.empty()) continue;
    const bool copy = t.dims.size() == 1 && t.dims[0] == k && t.factor == 1 && t.divisor == 1 && (special_zero || !has_zero) &&
                      e[k].lo == in[k].lo() &&
                      // (a value two elements hold, `[1,8,8,8]` of L = heads = 8, names neither alone)
                      std::count_if(e.begin(), e.end(), [&](const pattern_bound& b) { return b.lo == e[k].lo; }) == 1;
    (copy ? copies : others).push_back(k);
  }
  // No element follows a size, or the one that does is the pattern's -1 already: nothing is baked.
  if (copies.empty() && (others.empty() || (others.size() == 1 && e[others[0]].lo == -1))) {
    reason = text::kept_by_reading(terms_text(terms));
    return {};
  }
  const bool set_special_zero = !copies.empty() && !special_zero;
  const auto choice = [&](std::optional<std::size_t> minus_one) {
    pattern_choice c;
    const auto first = minus_one ? *minus_one : copies.front();
    c.element = first;
    c.old_value = e[first].lo;
    c.value = minus_one ? -1 : 0;
    c.set_special_zero = set_special_zero;
    for (const auto k : copies)
      if (k != first) c.also.emplace_back(k, 0);
    c.why = text::follows_sizes(copies, minus_one ? std::optional(std::pair(*minus_one, e[*minus_one].lo)) : std::nullopt,
                                set_special_zero ? std::optional(format) : std::nullopt);
    return c;
  };
  std::vector<pattern_choice> choices;
  if (others.empty()) choices.push_back(choice(std::nullopt));
  // -1 infers the one element left exactly: the others are copies or values that stay.
  if (others.size() == 1 && !has_minus_one) choices.push_back(choice(others[0]));
  // Last: the pattern computed from the input's shape, when no 0 or -1 above is judged to keep the sizes.
  if (!others.empty()) {
    pattern_choice c;
    c.why = text::computed_from_shape(terms_text(terms));
    c.computed = terms;
    choices.push_back(std::move(c));
  }
  return choices;
}

}  // namespace

std::vector<pattern_choice> size_pattern_choices(const graph& g, const propagation& declared, const propagation& asked,
                                                 const layer& l, const batch_finding& f,
                                                 std::span<const std::int64_t> stays, text::fix_reason& reason) {
  if (f.issue == batch_issue::fails_at_declared) {
    reason = text::fails_as_given(f);
    return {};
  }
  std::vector<bool> constant;
  const auto pattern = reshape_pattern_at(g, declared, l, &constant);
  const auto e = pattern.elements();
  const auto& in = declared.input(g, l, 0).shape;
  const auto& now = asked.input(g, l, 0).shape;
  const bool exact = std::all_of(e.begin(), e.end(), [](const pattern_bound& b) { return b.lo == b.hi; }) &&
                     std::all_of(constant.begin(), constant.end(), [](bool c) { return c; });
  if (e.empty() || !exact || !in.rank_known() || !now.rank_known() || now.size() != in.size()) {
    reason = text::shape_values_unknown();
    return {};
  }
  const bool special_zero = l.flag("special_zero");
  // 0 copies the input's dimension at the same index: where the element holds it and it changes. A literal
  // 0 in a pattern without special_zero would change meaning if special_zero were set: then no copies.
  // Only where the value names that dimension alone: a 12 that is the length L here and also another size
  // (the width where H == W, the channels where C == H, another input's length) may stand for the other
  // one, and a copy would then compute at the new sizes what the program does not (after it, no constant
  // is left for the check to see).
  const auto after = at_or_after_reshapes(g);
  // The pattern read as its input's dimensions grouped: which elements follow the sizes that change, and
  // how. Every choice below writes that reading, or none is made (a 0 or -1 the judges find to run may
  // still be another reading: `-1` in place of the 7 of `[1,7,8,6,4]`, the chunks of H/7).
  std::vector<std::int64_t> values;
  for (const auto& b : e) values.push_back(b.lo);
  text::fix_reason unread;
  const auto terms = computed_terms(in, now, values, special_zero, stays, sole_sizes(g, declared, asked, in, now, after), unread);
  if (!terms) {
    if (auto c = restored(g, declared, asked, l)) return {std::move(*c)};
    reason = std::move(unread);
    return {};
  }
  // A value the reading keeps that is a size that changes elsewhere (another input's length T == C) may
  // stand for it: nothing here can compute it, so nothing is written. (Before any Reshape, as for sole_sizes.)
  std::optional<std::vector<std::int64_t>> changing;
  for (std::size_t k = 0; k < terms->size(); ++k) {
    const auto v = (*terms)[k].factor;
    if (!(*terms)[k].dims.empty() || v <= 1) continue;
    if (!changing) changing = changing_values(g, declared, asked, after, false);
    if (std::binary_search(changing->begin(), changing->end(), v)) {
      reason = text::kept_value_is_a_size(k, v);
      return {};
    }
  }
  return choices_of_reading(g.format(), e, in, *terms, special_zero, reason);
}

namespace {

/// The values an input places along the data's axes as fix reads them (an Interpolate's sizes, a slice's
/// begins or ends): each one's value and the axis of the data it is placed on, and whether it follows the
/// axis' extent, which changes between the declared shapes and the shapes asked (a bound below 2, or one a
/// mask ignores, is a constant that stays).
struct placed_sizes {
  std::size_t port = 0;
  placement kind = placement::size;
  std::size_t rank = 0;  ///< the data's
  std::vector<std::int64_t> values;
  std::vector<std::size_t> axes;
  std::vector<char> moving;
};

/// The values of `l` that finding `f` names (its `port`), where the port places sizes, begins or ends, each
/// is a known value on a known axis of static extent, and one of those follows an axis that changes; nullopt
/// otherwise. (Pad's amounts are not read so: a pad to a multiple is computed with a remainder.)
std::optional<placed_sizes> read_sizes(const graph& g, const propagation& declared, const propagation& asked,
                                       const layer& l, const batch_finding& f) {
  const auto port = finding_port(f);
  const auto inputs = placed_inputs(l);
  const auto in = std::find_if(inputs.begin(), inputs.end(),
                               [&](const placed_input& x) { return port && x.port == *port && x.kind != placement::amount; });
  if (in == inputs.end() || l.sources.empty() || !l.sources[0]) return std::nullopt;
  const auto& v = declared.input(g, l, in->port).value;
  const auto& data = declared.input(g, l, 0).shape;
  const auto& now = asked.input(g, l, 0).shape;
  if (!v || v->is_real() || !data.rank_known() || !now.rank_known() || now.size() != data.size()) return std::nullopt;
  const auto axes = placed_axes(g, declared, l, *in, v->elements.size(), data.size());
  placed_sizes r{in->port, in->kind, data.size(), {}, {}, {}};
  const auto same_extent = [&](std::size_t a) { return now[a].is_static() && now[a].lo() == data[a].lo(); };
  for (std::size_t e = 0; e < v->elements.size(); ++e) {
    const auto& b = v->elements[e];
    if (!b.exact() || !axes[e] || !data[*axes[e]].is_static()) return std::nullopt;
    const auto a = *axes[e];
    const bool bound = in->kind != placement::size;
    // (A bound past every extent, Python's "to the end" exported as 2^31-1 or 2^63-1, stays too.)
    const bool fixed = bound && (b.lo < 2 || b.lo >= std::numeric_limits<std::int32_t>::max() ||
                                 (e < in->ignored.size() && in->ignored[e]));
    r.values.push_back(b.lo);
    r.axes.push_back(a);
    r.moving.push_back(!fixed && !same_extent(a));
  }
  if (std::none_of(r.moving.begin(), r.moving.end(), [](char m) { return m != 0; })) return std::nullopt;
  return r;
}

/// The sizes `s` read from `other` (`other_now` at the shapes asked), the shape of a tensor met where the
/// output's axes are at `at`: one along an axis that stays where it has that extent, else the constant; one
/// that changes where `other` has it and changes there too (not along `joined`, a Concat's axis). Fewer
/// than `s` holds where one that changes is not there.
std::vector<pattern_term> sizes_read_from(const placed_sizes& s, const partial_shape& other, const partial_shape& other_now,
                                          const std::vector<std::size_t>& at, std::optional<std::size_t> joined) {
  std::vector<pattern_term> terms;
  for (std::size_t e = 0; e < s.values.size(); ++e) {
    const auto j = at[s.axes[e]];
    const bool has = other[j].is_static() && other[j].lo() == s.values[e];
    if (s.moving[e] == 0) {
      terms.push_back(has ? pattern_term{{j}, 1, 1} : pattern_term{{}, s.values[e], 1});
    } else if (has && j != joined && !(other_now[j].is_static() && other_now[j].lo() == s.values[e])) {
      terms.push_back({{j}, 1, 1});
    } else {
      break;
    }
  }
  return terms;
}

/// Where the axes of a tensor (at `at` in it) are after Transpose `c` of it; nullopt where its order is not
/// known.
std::optional<std::vector<std::size_t>> permuted(const graph& g, const propagation& declared, const layer& c,
                                                 const std::vector<std::size_t>& at) {
  const auto rank = at.size();
  const auto& perm = declared.input(g, c, 1).value;
  if (!perm || perm->is_real() || perm->elements.size() != rank) return std::nullopt;
  std::vector<std::size_t> to(rank, rank);
  for (std::size_t j = 0; j < rank; ++j)
    for (std::size_t a = 0; a < rank; ++a)
      if (perm->elements[j].exact() && perm->elements[j].lo == static_cast<std::int64_t>(at[a])) to[a] = j;
  if (std::find(to.begin(), to.end(), rank) != to.end()) return std::nullopt;
  return to;
}

/// Each layer that reads the first output of each layer, with the first input it reads it at.
std::vector<std::vector<std::pair<std::size_t, std::size_t>>> first_output_readers(const graph& g) {
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> readers(g.layers().size());
  for (std::size_t c = 0; c < g.layers().size(); ++c) {
    std::set<std::size_t> seen;
    const auto& sources = g.layers()[c].sources;
    for (std::size_t k = 0; k < sources.size(); ++k)
      if (sources[k] && sources[k]->output == 0 && sources[k]->layer < readers.size() && seen.insert(sources[k]->layer).second)
        readers[sources[k]->layer].emplace_back(c, k);
  }
  return readers;
}

/// What met_tensors looks for and has tried.
struct meeting {
  const graph& g;
  const propagation &declared, &asked;
  std::size_t index;  ///< the layer whose output is followed
  const placed_sizes& s;
  std::vector<char> after;  ///< the layers downstream of it
  std::set<std::pair<std::size_t, std::size_t>> tried{};
};

/// The other operands of `c` (elementwise arithmetic or a Concat that reads the followed tensor, its axes
/// at `at`, at input `read_at`) from whose shapes every size `m.s` places is read: `found` gets each.
template <class Found>
void meet_at(meeting& m, const layer& c, std::size_t read_at, const std::vector<std::size_t>& at, Found& found) {
  const auto rank = m.s.rank;
  std::optional<std::size_t> joined;  // a Concat's axis, along which the extents need not meet
  const bool concat = part_of(c.type) == op_part::concat;
  if (concat) {
    auto j = c.integer("axis", 0);
    if (j < 0) j += static_cast<std::int64_t>(rank);
    if (j < 0 || static_cast<std::size_t>(j) >= rank) return;
    joined = static_cast<std::size_t>(j);
  } else if (!elementwise_arithmetic(c.type)) {
    return;
  }
  for (std::size_t k = 0; k < c.sources.size(); ++k) {
    const auto& x = c.sources[k];
    // (Only a tensor computed before the layer: a file lists the nodes that compute its shape first.)
    if (!x || k == read_at || x->layer >= m.index || m.after[x->layer] != 0 || !m.tried.emplace(x->layer, x->output).second)
      continue;
    const auto& other = m.declared.input(m.g, c, k).shape;
    const auto& other_now = m.asked.input(m.g, c, k).shape;
    // Arithmetic aligns the last axes of a tensor of lower rank with the other's (a grid of columns added
    // to a map); a Concat joins tensors of one rank.
    if (!other.rank_known() || other.size() < rank || (concat && other.size() != rank) || !other_now.rank_known() ||
        other_now.size() != other.size())
      continue;
    auto aligned = at;
    for (auto& j : aligned) j += other.size() - rank;
    // Elementwise arithmetic broadcasts a 1: a tensor that may be 1 where the output is not meets it
    // all the same, and its extents are not the output's.
    bool may_broadcast = false;
    for (std::size_t e = 0; e < m.s.axes.size(); ++e)
      may_broadcast = may_broadcast || (!concat && m.s.moving[e] != 0 && other_now[aligned[m.s.axes[e]]].lo() < 2);
    if (may_broadcast) continue;
    if (auto terms = sizes_read_from(m.s, other, other_now, aligned, joined); terms.size() == m.s.values.size())
      found(std::move(terms), x->layer, x->output);
  }
}

/// Where the output of layer `index` meets another tensor: through Transposes (an IR converted from NHWC
/// turns the map before the skip connection's Add) and layers that keep its shape, up to eight layers on, an
/// operand of elementwise arithmetic or a Concat (but along its axis) whose other operand is of the same
/// rank, computed before the layer (its shape must not be computed from the layer's own output, and a file
/// lists a node's inputs first), has, at the declared shapes, every size `s` places along an axis that
/// changes, changing there too, and (for arithmetic, which broadcasts a 1) is 2 at least there at the
/// shapes asked. `found` gets each such tensor (a layer's index and output) and
/// the sizes read from its shape (one along an axis that stays where it has that extent, else the constant).
/// Sizes only: a slice's output meets its extent, end less begin, not its bounds.
template <class Found>
void met_tensors(const graph& g, const propagation& declared, const propagation& asked, std::size_t index,
                 const placed_sizes& s, Found found) {
  std::vector<char> self(g.layers().size(), 0);
  self[index] = 1;
  meeting m{g, declared, asked, index, s, downstream_of(g, self)};
  const auto readers = first_output_readers(g);
  // A tensor the output becomes: its layer, and where each of the output's axes lies in it.
  struct reached {
    std::size_t layer;
    std::vector<std::size_t> at;
  };
  std::vector<reached> frontier{{index, {}}};
  for (std::size_t a = 0; a < s.rank; ++a) frontier[0].at.push_back(a);
  for (std::size_t depth = 0; depth < 8 && !frontier.empty(); ++depth) {
    std::vector<reached> next;
    for (const auto& t : frontier)
      for (const auto& [c_index, read_at] : readers[t.layer]) {
        const auto& c = g.layers()[c_index];
        if (permutes_axes(c) && read_at == 0) {
          if (auto at = permuted(g, declared, c, t.at)) next.push_back({c_index, std::move(*at)});
          continue;
        }
        // A layer whose output has, at the declared shapes, the shape of what it reads (an activation, a
        // bias, a 1x1 convolution) passes the extents on: the tensor it meets may be after it. (Where it
        // does not at other sizes, the meeting fails there and the checks refuse the reading.)
        const auto& from = declared.input(g, c, read_at).shape;
        const auto& to = declared.outputs[c_index].empty() ? from : declared.outputs[c_index][0].shape;
        if (from.is_static() && to.is_static() && to == from && !c.auxiliary) next.push_back({c_index, t.at});
        meet_at(m, c, read_at, t.at, found);
      }
    frontier = std::move(next);
  }
}

}  // namespace

bool reads_placed(const layer& l, const batch_finding& f) {
  if (f.code != "placed_on_size" && f.code != "baked_size") return false;
  const auto port = finding_port(f);
  const auto inputs = placed_inputs(l);
  return port && std::any_of(inputs.begin(), inputs.end(),
                             [&](const placed_input& x) { return x.port == *port && x.kind != placement::amount; });
}

std::vector<pattern_choice> placed_size_choices(const graph& g, const propagation& declared, const propagation& asked,
                                                const layer& l, const batch_finding& f, text::fix_reason& reason) {
  reason = text::shape_values_unknown();
  const auto s = read_sizes(g, declared, asked, l, f);
  if (!s) return {};
  std::vector<pattern_choice> choices;
  const auto choice = [&](std::vector<pattern_term> terms, std::optional<std::pair<std::int64_t, std::size_t>> from,
                          std::string from_name) {
    pattern_choice c;
    c.port = s->port;
    c.computed = std::move(terms);
    const auto what = s->kind == placement::size ? "sizes" : s->kind == placement::begin ? "begins" : "ends";
    c.why = from ? text::sizes_computed_from_tensor(what, terms_text(c.computed, from_name), from_name)
                 : text::sizes_computed_from_shape(what, terms_text(c.computed));
    c.shape_of = from;
    c.shape_of_name = std::move(from_name);
    choices.push_back(std::move(c));
  };
  // (A slice's output meets its extent, end less begin, not its bounds.)
  if (s->kind == placement::size)
    met_tensors(g, declared, asked, static_cast<std::size_t>(&l - g.layers().data()), *s,
              [&](std::vector<pattern_term> terms, std::size_t layer, std::size_t output) {
                const auto& from = g.layers()[layer];
                choice(std::move(terms), std::pair<std::int64_t, std::size_t>(from.id, output), std::string(from.name));
              });
  // The own input's extents: an upsampling (or downsampling) by a whole factor. A size along an axis that
  // stays is that axis' extent where it equals it (the channels an upsampling keeps: a constant left there
  // would equal a size of the model), else the constant.
  const auto& data = declared.input(g, l, 0).shape;
  std::vector<pattern_term> terms;
  for (std::size_t e = 0; e < s->values.size(); ++e) {
    const auto a = s->axes[e];
    const auto value = s->values[e], extent = data[a].lo();
    if (s->moving[e] == 0) {
      const bool copy = extent == value && s->kind == placement::size;  // (a bound that stays stays as it is)
      terms.push_back(copy ? pattern_term{{a}, 1, 1} : pattern_term{{}, value, 1});
    } else if (value > 0 && extent > 0 && value % extent == 0) {
      terms.push_back({{a}, value / extent, 1});
    } else if (value > 0 && extent > 0 && extent % value == 0) {
      terms.push_back({{a}, 1, extent / value});
    } else {
      if (choices.empty()) reason = text::size_not_a_whole_ratio(e, value, a, extent);
      return choices;
    }
  }
  choice(std::move(terms), std::nullopt, {});
  return choices;
}

namespace {

/// The choice that feeds input 1 `terms` read from the shape of output `output` of `from` (a tensor met),
/// explained by `why(terms as text, from's name)`.
template <class Why>
pattern_choice read_from_met(const layer& from, std::size_t output, std::vector<pattern_term> terms, Why why) {
  const std::string name(from.name);
  pattern_choice c;
  c.port = 1;
  c.computed = std::move(terms);
  c.why = why(terms_text(c.computed, name), name);
  c.shape_of = std::pair<std::int64_t, std::size_t>(from.id, output);
  c.shape_of_name = name;
  return c;
}

}  // namespace

bool reads_divisor(const layer& l, const batch_finding& f) {
  return f.code == "baked_size" && finding_port(f) == 1 && (divides(l) || multiplies(l));
}

std::vector<pattern_choice> divisor_choices(const graph& g, const propagation& declared, const propagation& asked,
                                            const layer& l, const batch_finding& f, text::fix_reason& reason) {
  reason = text::shape_values_unknown();
  if (!reads_divisor(l, f) || l.sources.size() < 2 || !l.sources[0]) return {};
  const auto& v = declared.input(g, l, 1).value;
  if (!v) return {};
  std::int64_t n = 0;
  const bool reciprocal = multiplies(l);
  if (v->is_real()) {  // whole values only, or (a Multiply's) one over a whole value: a fraction is no count
    if (v->reals.size() != 1 || !v->real_constant(0)) return {};
    auto r = v->reals[0];
    if (reciprocal) {
      // A reciprocal held as a float: 1/n rounds to within a part in 10^7 of it (a double's, 10^15).
      if (!(r > 0 && r <= 0.5)) return {};
      const auto whole = std::round(1 / r);
      if (!(whole <= 1e15) || std::abs(1 / whole - r) > 1e-6 * r) return {};
      r = whole;
    }
    if (!(r >= 2 && r <= 4e18) || r != std::round(r)) return {};
    n = static_cast<std::int64_t>(r);
  } else if (reciprocal) {  // an integer product times a count is no mean
    return {};
  } else {
    if (v->elements.size() != 1 || !v->elements[0].exact()) return {};
    n = v->elements[0].lo;
  }
  if (n < 2) return {};
  // The dividend is a sum over adjacent axes of a tensor, one of them changing, whose product the divisor is:
  // a mean, the count of the elements summed. (A divisor that merely equals some extent upstream may be a
  // literal: a stride, a box's corners.)
  const auto& sum = g.layers()[l.sources[0]->layer];
  if (!sums_over_axes(sum) || sum.sources.size() < 2 || !sum.sources[0]) return {};
  const auto& in = declared.input(g, sum, 0).shape;
  const auto& now = asked.input(g, sum, 0).shape;
  const auto& axes = declared.input(g, sum, 1).value;
  if (!in.is_static() || !now.rank_known() || now.size() != in.size() || !axes || axes->is_real() || axes->elements.empty())
    return {};
  std::vector<std::size_t> summed;
  for (const auto& e : axes->elements) {
    auto x = e.lo;
    if (!e.exact()) return {};
    if (x < 0) x += static_cast<std::int64_t>(in.size());
    if (x < 0 || static_cast<std::size_t>(x) >= in.size()) return {};
    summed.push_back(static_cast<std::size_t>(x));
  }
  std::sort(summed.begin(), summed.end());
  std::int64_t product = 1;
  bool changes = false;
  for (std::size_t k = 0; k < summed.size(); ++k) {
    if ((k > 0 && summed[k] != summed[k - 1] + 1) || product > n / std::max<std::int64_t>(in[summed[k]].lo(), 1)) return {};
    product *= in[summed[k]].lo();
    changes = changes || !(now[summed[k]].is_static() && now[summed[k]].lo() == in[summed[k]].lo());
  }
  if (product != n || !changes) return {};
  const auto& from = *sum.sources[0];
  auto c = read_from_met(g.layers()[from.layer], from.output, {pattern_term{summed, 1, 1}},
                         reciprocal ? text::reciprocal_from_tensor : text::divisor_from_tensor);
  c.reciprocal = reciprocal;
  return {std::move(c)};
}

bool reads_extents(const layer& l, const batch_finding& f) {
  return f.code == "baked_size" && finding_port(f) == 1 && extends(l).has_value();
}

std::vector<pattern_choice> extent_choices(const graph& g, const propagation& declared, const propagation& asked,
                                           const layer& l, const batch_finding& f, text::fix_reason& reason) {
  reason = text::shape_values_unknown();
  const auto how = extends(l);
  if (!how || !reads_extents(l, f)) return {};
  const auto& in = declared.input(g, l, 0).shape;
  const auto& v = declared.input(g, l, 1).value;
  if (!in.is_static() || !v || v->is_real() || v->elements.size() != in.size()) return {};
  const bool repeats = *how == extension::repeats;
  // The output's extents, read as sizes (those the values make where the data is 1 are the ones that move),
  // and the value each other axis keeps: a Tile's repeat, or for a broadcast 1 where the data has the
  // extent itself (1 takes the data's, whatever it is at the new sizes).
  placed_sizes s;
  s.port = 1;
  s.rank = in.size();
  std::vector<std::int64_t> kept(in.size());
  for (std::size_t a = 0; a < in.size(); ++a) {
    if (!v->elements[a].exact()) return {};
    const auto x = v->elements[a].lo, e = in[a].lo();
    const bool spread = e == 1 && x >= 2;
    if (!spread && repeats && x != 1) return {};  // a Tile of an axis above 1: how it follows a size is not read
    s.values.push_back(spread ? x : std::max(e, x));
    s.axes.push_back(a);
    s.moving.push_back(spread);
    kept[a] = repeats || x != e ? x : 1;
  }
  if (std::none_of(s.moving.begin(), s.moving.end(), [](char m) { return m != 0; })) return {};
  std::vector<pattern_choice> choices;
  met_tensors(g, declared, asked, static_cast<std::size_t>(&l - g.layers().data()), s,
              [&](std::vector<pattern_term> terms, std::size_t layer, std::size_t output) {
                if (!choices.empty()) return;
                for (std::size_t a = 0; a < terms.size(); ++a)
                  if (s.moving[a] == 0) terms[a] = pattern_term{{}, kept[a], 1};
                choices.push_back(read_from_met(g.layers()[layer], output, std::move(terms), [&](const std::string& text, const std::string& name) {
                  return text::sizes_computed_from_tensor(repeats ? "repeats" : "shape values", text, name);
                }));
              });
  return choices;
}

bool reads_limit(const layer& l, const batch_finding& f) {
  return f.code == "baked_size" && finding_port(f) == 1 && counts_range(l);
}

std::vector<pattern_choice> limit_choices(const graph& g, const propagation& declared, const propagation& asked,
                                          const layer& l, const batch_finding& f, text::fix_reason& reason) {
  reason = text::shape_values_unknown();
  if (!reads_limit(l, f) || l.sources.size() < 3) return {};
  // A count from 0 by a whole step: its extent is the limit over the step, and the limit that extent times it.
  std::array<std::int64_t, 3> v{};
  for (std::size_t port = 0; port < 3; ++port) {
    const auto& x = declared.input(g, l, port).value;
    if (!x) return {};
    if (x->is_real()) {  // a range of floats: whole values only
      if (x->reals.size() != 1 || !x->real_constant(0)) return {};
      const auto r = x->reals[0];
      if (!(r >= -4e18 && r <= 4e18) || r != static_cast<double>(static_cast<std::int64_t>(r))) return {};
      v[port] = static_cast<std::int64_t>(r);
    } else {
      if (x->elements.size() != 1 || !x->elements[0].exact()) return {};
      v[port] = x->elements[0].lo;
    }
  }
  // (Not a structured binding: clang 14, the WebAssembly build's, captures none in a lambda.)
  const auto start = v[0], limit = v[1], step = v[2];
  if (start != 0 || step < 1 || limit / step < 2 || limit % step != 0) return {};  // (no 2·step: it may overflow)
  placed_sizes s;
  s.port = 1;
  s.rank = 1;
  s.values = {limit / step};
  s.axes = {0};
  s.moving = {1};
  std::vector<pattern_choice> choices;
  met_tensors(g, declared, asked, static_cast<std::size_t>(&l - g.layers().data()), s,
              [&](std::vector<pattern_term> terms, std::size_t layer, std::size_t output) {
                if (!choices.empty()) return;
                terms[0].factor *= step;
                choices.push_back(read_from_met(g.layers()[layer], output, std::move(terms), text::limit_from_tensor));
              });
  return choices;
}

bool reads_positions(const layer& l, const batch_finding& f) {
  return f.code == "baked_size" && finding_port(f) == 1 && gather_counts_back(l).has_value();
}

std::vector<pattern_choice> last_position_choices(const graph& g, const propagation& declared, const propagation& asked,
                                                  const layer& l, const batch_finding& f, text::fix_reason& reason) {
  reason = text::shape_values_unknown();
  const auto counts_back = gather_counts_back(l);
  if (!counts_back || !reads_positions(l, f) || l.sources.size() < 3) return {};
  const auto& data = declared.input(g, l, 0).shape;
  const auto& now = asked.input(g, l, 0).shape;
  const auto& positions = declared.input(g, l, 1).value;
  const auto& axis_value = declared.input(g, l, 2).value;
  if (!data.rank_known() || !now.rank_known() || data.size() != now.size() || !positions || positions->is_real() ||
      !axis_value || axis_value->is_real() || axis_value->elements.size() != 1 || !axis_value->elements[0].exact())
    return {};
  auto axis = axis_value->elements[0].lo;
  if (axis < 0) axis += static_cast<std::int64_t>(data.size());
  if (axis < 0 || static_cast<std::size_t>(axis) >= data.size()) return {};
  const auto a = static_cast<std::size_t>(axis);
  // Only along an axis that changes: elsewhere the position stays what it is.
  if (!data[a].is_static() || (now[a].is_static() && now[a].lo() == data[a].lo())) return {};
  const auto last = data[a].lo() - 1;
  // The size check relates the position to must be this axis' extent, and that extent no other size's (on a
  // square map `x[:, :, w - 1]` is the same 6 as `h - 1`; a length that stays beside it may be the one meant).
  // (A position equal to another size, 6 where a size of the model is 6, may stand for that size.)
  if (!sole_sizes(g, declared, asked, data, now, at_or_after_reshapes(g, &l))[a]) return {};
  const auto size = std::find_if(f.args.begin(), f.args.end(), [](const auto& x) { return x.first == "size"; });
  if (size == f.args.end() || !std::holds_alternative<std::int64_t>(size->second) ||
      std::get<std::int64_t>(size->second) != last + 1)
    return {};
  std::vector<std::size_t> elements;
  for (std::size_t e = 0; e < positions->elements.size(); ++e)
    if (positions->elements[e].exact() && positions->elements[e].lo == last && last >= 1) elements.push_back(e);
  if (elements.empty()) return {};
  if (!*counts_back) {
    reason = text::no_negative_positions(elements[0], l.op_type(), l.op_version());
    return {};
  }
  pattern_choice c;
  c.element = elements[0];
  c.old_value = last;
  c.value = -1;
  for (std::size_t k = 1; k < elements.size(); ++k) c.also.emplace_back(elements[k], -1);
  c.why = text::names_last_position(elements, last, a, data[a].lo());
  return {c};
}

bool reads_k(const layer& l, const batch_finding& f) {
  return f.code == "baked_size" && finding_port(f) == 1 && keeps_k_along(l).has_value();
}

std::vector<pattern_choice> k_choices(const graph& g, const propagation& declared, const propagation& asked,
                                      const layer& l, const batch_finding& f, text::fix_reason& reason) {
  reason = text::shape_values_unknown();
  const auto along = keeps_k_along(l);
  if (!along || !reads_k(l, f)) return {};
  const auto& data = declared.input(g, l, 0).shape;
  const auto& now = asked.input(g, l, 0).shape;
  const auto& k = declared.input(g, l, 1).value;
  if (!data.rank_known() || !now.rank_known() || data.size() != now.size() || !k || k->is_real() ||
      k->elements.size() != 1 || !k->elements[0].exact())
    return {};
  auto axis = *along;
  if (axis < 0) axis += static_cast<std::int64_t>(data.size());
  if (axis < 0 || static_cast<std::size_t>(axis) >= data.size()) return {};
  const auto a = static_cast<std::size_t>(axis);
  // The whole axis, which changes: any other k (the top 100 of the anchors) is a count the program chose. And
  // no other size's extent: on a square map `topk(h)` along W is the same 8 as `topk(w)`.
  if (!data[a].is_static() || k->elements[0].lo != data[a].lo() || (now[a].is_static() && now[a].lo() == data[a].lo()) ||
      !sole_sizes(g, declared, asked, data, now, at_or_after_reshapes(g, &l))[a])
    return {};
  pattern_choice c;
  c.port = 1;
  c.computed = {{{a}, 1, 1}};
  c.why = text::k_is_the_axis(terms_text(c.computed), k->elements[0].lo, a);
  return {c};
}

namespace {

/// Each reading of a value input other than a Reshape's pattern: whether a finding names its input, and its
bool reads_window(const layer& l, const batch_finding& f) {
  return f.code == "kernel_covers_size" && global_reduction(l).has_value();
}

/// A pooling whose window is, at the declared shapes, the whole of every spatial axis (one output along
/// each, no padding, no dilation), one of them changing: the global pooling the program meant, written as
/// the reduction over those axes. One that covers only some axes, pads, or has a second output that a layer
/// reads (MaxPool-8's indices, which no reduction gives) is refused.
std::vector<pattern_choice> window_choices(const graph& g, const propagation& declared, const propagation&,
                                           const layer& l, const batch_finding& f, text::fix_reason& reason) {
  reason = text::shape_values_unknown();
  const auto reduction = global_reduction(l);
  const auto window = window_of(l);
  if (!reduction || !window || !reads_window(l, f) || l.sources.empty() || !l.sources[0]) return {};
  const auto self = static_cast<std::size_t>(&l - g.layers().data());
  const auto& in = declared.input(g, l, 0).shape;
  const auto& out = declared.outputs[self].empty() ? partial_shape::dynamic() : declared.outputs[self][0].shape;
  const auto& k = window->kernel;
  if (!in.rank_known() || in.size() != k.size() + 2 || !out.rank_known() || out.size() != in.size()) return {};
  const auto zeros = [&](std::string_view name) {
    const auto v = l.integers(name, {});
    return std::all_of(v.begin(), v.end(), [](std::int64_t x) { return x == 0; });
  };
  const auto ones = l.integers("dilations", {});
  const auto pad = l.text("auto_pad", "explicit");
  std::vector<std::int64_t> axes;
  for (std::size_t a = 0; a < k.size(); ++a) {
    const auto x = a + 2;
    if (!in[x].is_static() || in[x].lo() != k[a] || !out[x].is_static() || out[x].lo() != 1) {
      reason = text::window_not_whole(x);
      return {};
    }
    axes.push_back(static_cast<std::int64_t>(x));
  }
  if (!zeros("pads_begin") || !zeros("pads_end") || (pad != "explicit" && pad != "valid" && pad != "notset") ||
      !std::all_of(ones.begin(), ones.end(), [](std::int64_t d) { return d == 1; })) {
    reason = text::window_not_whole(std::nullopt);
    return {};
  }
  // A MaxPool-8's indices (ONNX's MaxPool is read as one) no reduction gives: it is one only where no layer
  // reads them, and the reduction leaves them out.
  const auto read_past_first = std::any_of(g.layers().begin(), g.layers().end(), [&](const layer& x) {
    return std::any_of(x.sources.begin(), x.sources.end(),
                       [&](const auto& s) { return s && s->layer == self && s->output != 0; });
  });
  if (read_past_first) {
    reason = text::window_not_whole(std::nullopt);
    return {};
  }
  pattern_choice c;
  c.reduction = std::string(*reduction);
  c.axes = axes;
  c.why = text::global_window(c.reduction, axes);
  return {std::move(c)};
}

/// choices. (reads_placed last: it is the widest.)
using reads_fn = bool (*)(const layer&, const batch_finding&);
using choices_fn = std::vector<pattern_choice> (*)(const graph&, const propagation&, const propagation&, const layer&,
                                                   const batch_finding&, text::fix_reason&);
constexpr std::pair<reads_fn, choices_fn> readings[] = {
    {reads_positions, last_position_choices}, {reads_k, k_choices},         {reads_extents, extent_choices},
    {reads_limit, limit_choices},             {reads_divisor, divisor_choices}, {reads_window, window_choices},
    {reads_placed, placed_size_choices},
};

}  // namespace

bool reads_values(const layer& l, const batch_finding& f) {
  return std::any_of(std::begin(readings), std::end(readings), [&](const auto& r) { return r.first(l, f); });
}

std::vector<pattern_choice> value_choices(const graph& g, const propagation& declared, const propagation& asked,
                                          const layer& l, const batch_finding& f, text::fix_reason& reason) {
  for (const auto& [reads, choices] : readings)
    if (reads(l, f)) return choices(g, declared, asked, l, f, reason);
  reason = text::shape_values_unknown();
  return {};
}

}  // namespace reshape1::model::detail
