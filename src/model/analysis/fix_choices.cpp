// The values fix tries in a Reshape's pattern (those of other inputs are in fix_value_choices.cpp): see
// fix_internal.hpp.
#include <algorithm>
#include <deque>
#include <optional>

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

std::string form_text(count_form form, const std::string& computed) {
  switch (form) {
    case count_form::count: return computed;
    case count_form::reciprocal: return "1/" + computed;
    case count_form::less_one: return computed + "-1";
    case count_form::reciprocal_less_one: return fmt::format("1/({}-1)", computed);
    case count_form::ratio_less_one: return fmt::format("{0}/({0}-1)", computed);
  }
  return computed;
}

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
    if (t.divisor != 1) product += fmt::format("/{}", t.divisor);
    out += t.multiple == 0 || t.dims.empty() ? product : fmt::format("({0}-{1}%{0})%{0}", t.multiple, product);
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

std::vector<product_group> product_groups(const partial_shape& in, const partial_shape& out) {
  std::vector<product_group> groups;
  const auto positive = [](const dimension& d) { return d.is_static() && d.lo() > 0; };
  if (!in.rank_known() || !out.rank_known() || !std::all_of(in.begin(), in.end(), positive) ||
      !std::all_of(out.begin(), out.end(), positive))
    return groups;
  std::size_t i = 0, k = 0;
  while (i < in.size() && k < out.size()) {
    const auto i0 = i, k0 = k;
    std::int64_t a = in[i++].lo(), b = out[k++].lo();
    while (a != b) {
      // (Partial products stay below the elements' count, which the propagation holds: no overflow.)
      if (a < b && i < in.size())
        a *= in[i++].lo();
      else if (b < a && k < out.size())
        b *= out[k++].lo();
      else
        return groups;
    }
    groups.push_back({i0, i, k0, k});
  }
  return groups;
}

std::vector<char> at_or_after_reshapes(const graph& g, const layer* also) {
  std::vector<char> marked(g.layers().size(), 0);
  for (std::size_t i = 0; i < marked.size(); ++i)
    marked[i] = part_of(g.layers()[i].type) == op_part::reshape || &g.layers()[i] == also;
  auto after = downstream_of(g, marked);
  for (std::size_t i = 0; i < marked.size(); ++i) after[i] = after[i] || marked[i];
  return after;
}

namespace {

/// Whether layer `index` is a Const whose values follow their indices along its axis `axis` (grid_along: a
/// grid of positions, a count), or stay the same along it where it is spread along that size
/// (spread_lines_up; what the layers `after` compute is not shown at `asked`: they follow the Reshape being
/// read), which fix computes from the size its extent is: that extent is the size, not another one of the
/// same value.
bool counts_that_size(const graph& g, const propagation& declared, const propagation& asked,
                      std::span<const char> after, std::size_t index, std::size_t axis) {
  if (part_of(g.layers()[index].type) != op_part::constant || declared.outputs[index].empty()) return false;
  const auto t = const_with_values(g, declared, index);
  const auto extent = t.shape[axis].lo();
  const auto grid = grid_along(t, std::span(&extent, 1));
  if (!grid || std::find(grid->axes.begin(), grid->axes.end(), axis) == grid->axes.end()) return false;
  return !grid->spread || spread_lines_up(g, declared, asked, index, std::span(&axis, 1), after);
}

}  // namespace

std::vector<char> sole_sizes(const graph& g, const propagation& declared, const propagation& asked,
                             const partial_shape& in, const partial_shape& now, const std::vector<char>& after,
                             std::optional<std::pair<std::size_t, std::size_t>> of, bool whole) {
  // Where `in` is a Pad's output, its size before the pad along each axis: at the declared shapes a pad of 0
  // leaves the two one value, and a pattern that read the size before the pad would not run wherever the pad
  // is not 0 (Swin's window partition after its pad to the window reads the padded map).
  const partial_shape* before_pad = nullptr;
  if (of && of->first < g.layers().size()) {
    const auto& pad = g.layers()[of->first];
    if (pads(pad) && !pad.sources.empty() && pad.sources[0]) before_pad = &asked.input(g, pad, 0).shape;
  }
  // (A Const no layer reads, one a rewrite left behind, is no size of anything.)
  std::vector<char> read(g.layers().size(), 0);
  for (const auto& l : g.layers())
    for (const auto& s : l.sources)
      if (s) read[s->layer] = 1;
  const auto alone = [&](std::size_t k) {
    const auto v = in[k].lo();
    const auto size = now[k].symbol();
    const auto unpadded = before_pad != nullptr && before_pad->rank_known() && before_pad->size() == in.size() &&
                                  (*before_pad)[k].has_symbol()
                              ? (*before_pad)[k].symbol()
                              : symbol();
    for (std::size_t i = 0; i < g.layers().size(); ++i) {
      if (after[i] || (read[i] == 0 && part_of(g.layers()[i].type) == op_part::constant)) continue;
      for (std::size_t o = 0; o < declared.outputs[i].size() && o < asked.outputs[i].size(); ++o) {
        const auto& d = declared.outputs[i][o].shape;
        const auto& a = asked.outputs[i][o].shape;
        // (A tensor whose values are known is a constant or a shape computed: its length is a count of
        // dimensions or of values, not a size of the data: the pattern `[1,8,4,7]` of a map 4 high.)
        if (!d.rank_known() || declared.outputs[i][o].value) continue;
        for (std::size_t j = 0; j < d.size(); ++j) {
          if (!d[j].is_static() || d[j].lo() != v || !a.rank_known() || a.size() != d.size()) continue;
          if (of && of->first == i && of->second == o && j == k) continue;
          if (o == 0 && counts_that_size(g, declared, asked, after, i, j)) continue;
          if (whole && a[j].is_static() && a[j].lo() == v) continue;
          // Another size: one that stays (C == H), or one of another name (W where H is), or of another value
          // where the sizes are asked as values; a dimension the propagation names no size at (an interval
          // a Slice computed) too: nothing shows it is this one.
          const bool same = (size && a[j].has_symbol() && a[j].symbol() == size) ||
                            (unpadded && a[j].has_symbol() && a[j].symbol() == unpadded) ||
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

namespace {

/// The choices that write reading `terms` of pattern `e` (on input `in`): 0 in the elements that copy their
/// input's dimension, -1 in the one element left that follows the sizes, last the pattern computed. Only the
/// elements `constant` marks are written: one computed (`x.size(0)` read from the shape) is left as it is,
/// and then no pattern is computed in place of the whole.
std::vector<pattern_choice> choices_of_reading(model_format format, std::span<const pattern_bound> e, const partial_shape& in,
                                               const std::vector<pattern_term>& terms, const std::vector<bool>& constant,
                                               bool special_zero, text::fix_reason& reason) {
  const bool has_zero = std::any_of(e.begin(), e.end(), [](const pattern_bound& b) { return b.lo == 0; });
  const bool has_minus_one = std::any_of(e.begin(), e.end(), [](const pattern_bound& b) { return b.lo == -1; });
  const bool all_constant = std::all_of(constant.begin(), constant.end(), [](bool c) { return c; });
  std::vector<std::size_t> copies, others;  // elements that follow a size: a copy of the same index, or not
  for (std::size_t k = 0; k < terms.size(); ++k) {
    const auto& t = terms[k];
    if (t.dims.empty() || (k < constant.size() && !constant[k])) continue;
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
  if (!others.empty() && all_constant) {
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
  // (Elements computed, not only constants, are read at their declared values too: `x.size(0)` beside the
  // constants of a view exported with a dynamic batch alone. They are left as they are.)
  const bool exact = std::all_of(e.begin(), e.end(), [](const pattern_bound& b) { return b.lo == b.hi; });
  if (e.empty() || !exact || constant.size() != e.size() || !in.rank_known() || !now.rank_known() || now.size() != in.size()) {
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
  const auto source = l.sources.empty() || !l.sources[0] ? std::nullopt
                                                         : std::optional(std::pair(l.sources[0]->layer, l.sources[0]->output));
  const auto terms =
      computed_terms(in, now, values, special_zero, stays,
                     sole_sizes(g, declared, asked, in, now, after, source,
                                std::find(values.begin(), values.end(), -1) == values.end()),
                     unread);
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
      // (Unless the Reshape gives back a shape the model had: the merge after a window reverse, whose
      // windows' grid times the window is that size.)
      if (auto c = restored(g, declared, asked, l)) return {std::move(*c)};
      reason = text::kept_value_is_a_size(k, v);
      return {};
    }
  }
  return choices_of_reading(g.format(), e, in, *terms, constant, special_zero, reason);
}

}  // namespace reshape1::model::detail
