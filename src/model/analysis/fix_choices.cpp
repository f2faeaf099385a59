// The values fix tries in a Reshape's pattern: see fix_internal.hpp.
#include <algorithm>
#include <optional>
#include <variant>

#include "model/analysis/batch_internal.hpp"
#include "model/analysis/fix_internal.hpp"
#include "model/ops/rules.hpp"
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

std::vector<pattern_choice> size_pattern_choices(const graph& g, const propagation& declared, const propagation& asked,
                                                 const layer& l, const batch_finding& f, text::fix_reason& reason) {
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
  // The element the finding names (a constant that equals a size), tried first for -1.
  std::optional<std::size_t> named;
  bool pattern_port = false;
  for (const auto& [key, value] : f.args) {
    if (const auto* v = std::get_if<std::int64_t>(&value); v != nullptr && *v >= 0) {
      if (key == "port") pattern_port = *v == 1;
      if (key == "element" && pattern_port) named = static_cast<std::size_t>(*v);
    }
  }
  const bool special_zero = l.flag("special_zero");
  const bool has_zero = std::any_of(e.begin(), e.end(), [](const pattern_bound& b) { return b.lo == 0; });
  const bool has_minus_one = std::any_of(e.begin(), e.end(), [](const pattern_bound& b) { return b.lo == -1; });
  const auto changes = [&](std::size_t k) { return !(now[k].is_static() && in[k].is_static() && now[k].lo() == in[k].lo()); };
  // 0 copies the input's dimension at the same index: where the element holds it and it changes. A literal
  // 0 in a pattern without special_zero would change meaning if special_zero were set: then no copies.
  // Only where the value names that dimension alone: a 12 that is the length L here and also another size
  // (the width where H == W, the channels where C == H, another input's length) may stand for the other
  // one, and a copy would then compute at the new sizes what the program does not (after it, no constant
  // is left for the check to see).
  // (The outputs of Reshapes, this one's and others' that may be rewritten too, and what follows them hold
  // their patterns' values: not sizes the inputs carry.)
  std::vector<char> after;
  const auto alone = [&](std::size_t k) {
    if (after.empty()) {
      std::vector<char> marked(g.layers().size(), 0);
      for (std::size_t i = 0; i < marked.size(); ++i) marked[i] = part_of(g.layers()[i].type) == op_part::reshape;
      after = downstream_of(g, marked);
      for (std::size_t i = 0; i < marked.size(); ++i) after[i] = after[i] || marked[i];
    }
    const auto v = in[k].lo();
    const auto size = now[k].symbol();
    for (std::size_t i = 0; i < g.layers().size(); ++i) {
      if (after[i]) continue;
      for (std::size_t o = 0; o < declared.outputs[i].size() && o < asked.outputs[i].size(); ++o) {
        const auto& d = declared.outputs[i][o].shape;
        const auto& a = asked.outputs[i][o].shape;
        if (!d.rank_known()) continue;
        for (std::size_t j = 0; j < d.size(); ++j) {
          if (!d[j].is_static() || d[j].lo() != v || !a.rank_known() || a.size() != d.size()) continue;
          // Another size: one that stays (C == H), or one of another name (W where H is); a dimension the
          // propagation names no size at (an interval a Slice computed) too: nothing shows it is this one.
          const bool other = a[j].is_static() || !a[j].has_symbol() || a[j].symbol() != size || !size;
          if (other) return false;
        }
      }
    }
    return true;
  };
  std::vector<std::size_t> copies;
  if (special_zero || !has_zero)
    for (std::size_t k = 0; k < e.size() && k < in.size(); ++k)
      if (in[k].is_static() && in[k].lo() > 0 && e[k].lo == in[k].lo() && changes(k) && alone(k) &&
          std::count_if(e.begin(), e.end(), [&](const pattern_bound& b) { return b.lo == e[k].lo; }) == 1)
        copies.push_back(k);  // (a value two elements hold, `[1,8,8,8]` of L = heads = 8, names neither alone)
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
                                set_special_zero ? std::optional(g.format()) : std::nullopt);
    return c;
  };
  std::vector<pattern_choice> choices;
  if (!copies.empty()) choices.push_back(choice(std::nullopt));
  if (!has_minus_one) {
    std::vector<std::size_t> order;
    if (named && *named < e.size()) order.push_back(*named);
    for (std::size_t k = 0; k < e.size(); ++k)
      if (!named || k != *named) order.push_back(k);
    for (const auto k : order)
      if (e[k].lo > 1 && std::find(copies.begin(), copies.end(), k) == copies.end()) choices.push_back(choice(k));
  }
  if (choices.empty()) {
    // The element the finding names, else the first that holds a size-like value (not a 1, 0 or -1).
    auto k = named && *named < e.size() ? *named : std::size_t{0};
    if (!named)
      for (std::size_t i = 0; i < e.size(); ++i)
        if (e[i].lo > 1) {
          k = i;
          break;
        }
    reason = text::needs_computed_pattern(k, e[k].lo);
  }
  return choices;
}

}  // namespace reshape1::model::detail
