// check_batch, stage 3 (batch_scope.hpp lists them): samples a Reshape interleaves, followed until they are
// put back or misused.
#include "model/analysis/batch_scope.hpp"

#include <algorithm>
#include <charconv>
#include <array>
#include <cctype>
#include <deque>
#include <map>
#include <set>
#include <fmt/format.h>
#include "detail/assert.hpp"
#include "detail/fail.hpp"
#include "io/files.hpp"
#include "model/analysis/batch_internal.hpp"
#include "model/options.hpp"
#include "model/ops/rules.hpp"
#include "model/text/batch.hpp"

namespace reshape1::model::batch_analysis {

/// A Reshape that interleaves samples (`[3,-1]` of `[N,3]`) changes no element and no order: whether the
/// batch keeps its meaning depends on what reads the result. Its output becomes `folded` and the finding
/// waits for a layer that is shown to misuse it (misuses_fold) or a model output that holds it; a Reshape
/// back to a shape that holds the batch whole gives the batch back (follow_fold). A Reshape whose pattern
/// writes the declared batch keeps its own finding (find_replaced_swallows).
bool scope::folds(std::size_t index, const std::vector<batch_state>& in, detail::batch_op& op) {
  const auto& l = layers_[index];
  if (part_of(l.type) != op_part::reshape || op.faults.size() != 1 || replaced_.contains(index) || in.empty() ||
      !in[0].is(kind::batched) || states_[index].size() != 1)
    return false;
  const auto& x = op.faults.front();
  if (x.issue != batch_issue::swallows_batch || x.reason.code != why::interleaves_samples) return false;
  auto s = in[0];
  s.k = kind::folded;
  s.origin = index;
  states_[index][0] = s;
  folds_.insert_or_assign(index, x.reason);
  return true;
}

/// A layer with a folded input (the samples interleaved by the Reshape `origin`). A Reshape, Squeeze or
/// Convert keeps the elements in their order: where its output holds the batch whole again at every
/// sample batch (the prefix before the batch is the folded input's), the batch is back as it was before
/// the fold; otherwise it is still folded. An elementwise layer whose other inputs are one value each, or
/// the same fold of the same shape, keeps it folded; ShapeOf reads only its shape. Any other layer reads
/// the samples interleaved: where its own rule, run as if the folded axis held the batch, finds that it
/// mixes or drops along it, the fold is a "no" named by that layer; otherwise it cannot tell.
void scope::follow_fold(std::size_t index, const std::vector<batch_state>& in, const detail::rule_entry* entry,
                        const std::optional<because>& lost_why) {
  const auto& l = layers_[index];
  const auto port = static_cast<std::size_t>(
      std::find_if(in.begin(), in.end(), [](const batch_state& s) { return s.is(kind::folded); }) - in.begin());
  const auto& fold = in[port];
  if (lost_why) return set_unknown(index, *lost_why);
  const auto part = part_of(l.type);
  const bool others_plain = std::all_of(in.begin(), in.end(), [&](const batch_state& s) {
    return &s == &fold || s.is(kind::shared) || s.is(kind::size_value);
  });
  if ((part == op_part::reshape || part == op_part::passes_values) && port == 0 && others_plain &&
      states_[index].size() == 1) {
    states_[index][0] = unfolded(index, fold);
    return;
  }
  if (entry != nullptr && entry->batch.fn == &detail::batch::shape_of) {
    states_[index].assign(states_[index].size(), batch_state{kind::size_value, 0, 1, true});
    return;
  }
  if (entry != nullptr && (entry->batch.fn == &detail::batch::pointwise || entry->batch.fn == &detail::batch::select ||
                          entry->batch.fn == &detail::batch::first_input || entry->batch.fn == &detail::batch::prelu) &&
      keeps_fold_elementwise(l, in, fold)) {
    states_[index].assign(states_[index].size(), fold);
    return;
  }
  const auto& c = input_carrier(l, port);
  if (entry != nullptr && !vouched_for(l) && !l.body && part != op_part::if_merge && c.state == batch_carrier::kind::one) {
    // The layer's own rule, as if the folded tensor held the batch at the axis that grows with N: along
    // that axis each line holds elements of several samples, so a layer that combines or drops along it
    // is shown to misuse the fold.
    auto pretend = in;
    pretend[port] = batch_state::batched_at(c.axis, c.factor);
    std::vector<batch_state> out(states_[index].size());
    detail::batch_op op{g_, l, pretend, out, runs_.at_samples, carriers_[index], &sizes_, {}, {}, {}, {}, {}, {}, {}};
    op.alike_alone = [](std::size_t) -> std::optional<bool> { return std::nullopt; };
    op.asked_like_samples = [](std::size_t) { return false; };
    try {
      entry->batch.fn(op);
    } catch (const error&) {
      op.faults.clear();
    }
    for (const auto& x : op.faults) {
      if (x.port.value_or(0) != port || x.issue == batch_issue::swallows_batch) continue;
      misuses_fold(fold.origin, index, x.reason, text::reads_interleaved(port, c.axis));
      set_all(index, kind::broken);
      return;
    }
  }
  set_unknown(index, because(why::reads_interleaved, port, fold.origin < layers_.size() ? layers_[fold.origin].id : -1)
                         .quoting(fold.origin < layers_.size() ? std::string(layers_[fold.origin].name) : std::string()));
}

/// Whether an elementwise layer keeps input `fold`'s order: every other input is one value at every sample
/// batch (a scalar, or a tensor of ones' shape), or the same fold with the same shape.
bool scope::keeps_fold_elementwise(const layer& l, const std::vector<batch_state>& in, const batch_state& fold) const {
  for (std::size_t p = 0; p < in.size(); ++p) {
    const auto& s = in[p];
    if (&s == &fold) continue;
    for (std::size_t k = 0; k < samples.size(); ++k) {
      const auto& shape = runs_.at_samples[k]->input(g_, l, p).shape;
      if (!shape.rank_known()) return false;
      if (s.is(kind::folded)) {
        if (s.origin != fold.origin ||
            to_string(without_symbols(shape)) != to_string(without_symbols(runs_.at_samples[k]->input(g_, l, 0).shape)))
          return false;
        continue;
      }
      if (!s.is(kind::shared)) return false;
      if (!std::all_of(shape.begin(), shape.end(), [](const dimension& d) { return d.is_static() && d.lo() == 1; }))
        return false;
    }
  }
  // The folded inputs themselves must agree in shape with the output (no broadcast of a fold).
  for (std::size_t k = 0; k < samples.size(); ++k)
    for (std::size_t p = 0; p < in.size(); ++p) {
      if (!in[p].is(kind::folded)) continue;
      const auto& a = runs_.at_samples[k]->input(g_, l, p).shape;
      for (const auto& t : runs_.at_samples[k]->outputs[index_of(l)]) {
        if (!a.rank_known() || !t.shape.rank_known() || t.shape.size() < a.size()) return false;
        const auto extra = t.shape.size() - a.size();
        for (std::size_t d = 0; d < extra; ++d)
          if (!t.shape[d].is_static() || t.shape[d].lo() != 1) return false;
        for (std::size_t d = 0; d < a.size(); ++d)
          if (!a[d].is_static() || !t.shape[extra + d].is_static() || a[d].lo() != t.shape[extra + d].lo()) return false;
      }
    }
  return true;
}

/// The state of a Reshape's (Squeeze's, Convert's) output whose input is `fold`: the batch back whole
/// when the output holds it in one dimension behind as many elements as the fold's own input held before
/// it (as a Reshape straight from that input would), otherwise still folded.
batch_state scope::unfolded(std::size_t index, const batch_state& fold) const {
  const auto& c = carrier(index, 0);
  if (c.state != batch_carrier::kind::one || fold.origin >= layers_.size()) return fold;
  std::array<const partial_shape*, samples.size()> before{}, after{};
  for (std::size_t k = 0; k < samples.size(); ++k) {
    before[k] = &runs_.at_samples[k]->input(g_, layers_[fold.origin], 0).shape;
    after[k] = &runs_.at_samples[k]->outputs[index][0].shape;
    if (!after[k]->rank_known() || after[k]->size() != after[0]->size()) return fold;
  }
  for (std::size_t d = 0; d < after[0]->size(); ++d)
    if (!detail::known_at_samples(after, d, &sizes_)) return fold;
  const auto in_prefix = detail::prefix_product(before, fold.axis, &sizes_);
  const auto out_prefix = detail::prefix_product(after, c.axis, &sizes_);
  if (!in_prefix || !out_prefix || *in_prefix != *out_prefix) return fold;
  batch_state before_fold = fold;
  before_fold.k = kind::batched;
  before_fold.origin = no_layer;
  return before_fold.regrouped(c.axis, c.factor, fold.origin);
}

/// Layer (or model output) `user` is shown to misuse the samples the Reshape `fold` interleaved: that
/// Reshape swallows the batch, its finding naming both.
void scope::misuses_fold(std::size_t fold, std::size_t user, const because& reason, const std::string& there) {
  if (fold >= layers_.size()) return;
  const auto it = folds_.find(fold);
  // A folded state comes only from folds(), which records the fold's reason.
  RESHAPE1_ASSERT(it != folds_.end());
  const auto& l = layers_[user];
  // A model output says what it gets by itself; a layer is named, with what it does there.
  const auto what = part_of(l.type) == op_part::result
                        ? text::sentence(reason)
                        : text::then_at(l, text::joined(text::sentence(reason), there));
  add_swallow(fold, reason, text::joined(text::sentence(it->second), what), l.id);
  misusers_.insert(user);
}

}  // namespace reshape1::model::batch_analysis
