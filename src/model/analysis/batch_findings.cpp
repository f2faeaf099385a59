// check_batch, stage 4 (batch_scope.hpp lists them): what the states prove at the model outputs, and which
// Reshape findings a "no" keeps.
#include "model/analysis/batch_scope.hpp"

#include <algorithm>
#include <charconv>
#include <array>
#include <cctype>
#include <deque>
#include <map>
#include <set>
#include <fmt/format.h>
#include "detail/fail.hpp"
#include "io/files.hpp"
#include "model/analysis/batch_internal.hpp"
#include "model/options.hpp"
#include "model/ops/rules.hpp"
#include "model/text/batch.hpp"

namespace reshape1::model::batch_analysis {

text::reason_text scope::swallow_hint(std::size_t reshape) const {
  if (const auto it = replaced_.find(reshape); it != replaced_.end()) return it->second.hint;
  const auto& r = layers_[reshape];
  const auto& in = input_carrier(r, 0);
  const auto axis = in.state == batch_carrier::kind::one ? in.axis : 0;
  return text::own_dimension_hint(axis, r.flag("special_zero"));
}

/// A Reshape that swallows the batch: by itself (its output interleaves samples or fixes the batch), or
/// because a later layer or output misuses the axis it moved the batch to. The finding's code and args are
/// what proves it: the reason of the layer or output `used_by` names when there is one (its args name
/// that layer's input), else the Reshape's own.
void scope::add_swallow(std::size_t reshape, const because& reason, const std::string& what,
                        std::optional<std::int64_t> used_by) {
  const bool first = swallowed_.insert(reshape).second;
  if (finding_for(reshape, batch_issue::fails)) return;
  if (auto* f = finding_for(reshape, batch_issue::swallows_batch)) {
    // The replaced batch's own finding, made before the layers after it were followed: the first layer
    // found to misuse the batch it moved is what proves the "no", so the finding names it.
    if (first && used_by && !f->used_by_id && replaced_.contains(reshape)) {
      f->what = text::joined(f->what, what);
      f->used_by_id = used_by;
      set_reason(*f, reason);
    }
    return;
  }
  const auto& l = layers_[reshape];
  auto f = finding(batch_issue::swallows_batch, l);
  set_reason(f, reason);
  f.what = what;
  f.used_by_id = used_by;
  text::give_hint(f, swallow_hint(reshape));
  const auto& out = states_.empty() || states_[reshape].empty() ? batch_state{} : states_[reshape][0];
  const auto moved =
      text::batch_goes(out.is(kind::batched) ? std::optional(std::pair(out.axis, out.factor)) : std::nullopt);
  if (const auto it = replaced_.find(reshape); it != replaced_.end()) {
    f.pattern_index = it->second.index;
    if (!used_by) set_reason(f, {why::replaces_batch, it->second.index, it->second.value});
    f.what = text::replaced_batch_swallows(it->second.index, it->second.value, moved, what);
    set_source(f, it->second.origin);
  } else {
    if (used_by && !out.is(kind::folded)) f.what = text::joined(moved, what);
    set_pattern_source(f, l);
  }
  found_.push_back(std::move(f));
}

/// A replaced batch that does not fail: the -1 takes the batch into another dimension. Reported here,
/// before the layers after it are followed (their misuse of that dimension is then told in this finding);
/// drop_harmless_replaced takes it back where everything after it is shown to keep each sample apart.
void scope::find_replaced_swallows() {
  for (const auto& [index, r] : replaced_) {
    if (finding_for(index, batch_issue::fails)) continue;
    const auto& l = layers_[index];
    const auto& in = input_carrier(l, 0);
    const auto& out = carrier(index, 0);
    // The -1 took exactly what the constant left out (a transpose of a dimension of 1 written as a
    // Reshape): the batch only moved, with the same factor, and keeps its meaning.
    if (out.state == batch_carrier::kind::one && out.factor == in.factor) continue;
    auto f = finding(batch_issue::swallows_batch, l);
    set_reason(f, {why::replaces_batch, r.index, r.value});
    f.what = text::replaced_batch_stays(
        r.index, r.value,
        out.state == batch_carrier::kind::one ? std::optional(std::pair(out.axis, out.factor)) : std::nullopt);
    text::give_hint(f, r.hint);
    f.pattern_index = r.index;
    set_source(f, r.origin);
    found_.push_back(std::move(f));
  }
}

/// A "no" must name what breaks: a replaced batch whose Reshape no later layer or output was found to
/// misuse (no add_swallow for it), and after which every layer's state is decided and unbroken and no
/// finding sits, only moved the batch and let the layers after it put it back (a fold into the channels
/// for a per-channel normalisation, undone by a Reshape computed from Shape): its finding is dropped.
/// Where a layer after it cannot tell (and nothing after it fails, misuses or is a "no"), what it did to
/// the batch is not shown to break anything: its finding becomes cannot tell, naming the moved batch
/// (`fix` still rewrites its pattern). Where anything after it fails or is a "no", it stays.
void scope::drop_harmless_replaced() {
  // Decided over the findings as they stand, before any is dropped: whether one finding goes must not
  // depend on whether another went first.
  std::vector<layer_findings> layer_has_finding(layers_.size(), layer_findings::none);
  for (const auto& f : found_)
    layer_has_finding[f.layer] = f.issue == batch_issue::cannot_tell && layer_has_finding[f.layer] != layer_findings::a_no
                                     ? layer_findings::cannot_tell_only
                                     : layer_findings::a_no;
  std::vector<batch_finding> kept;
  kept.reserve(found_.size());
  for (auto& f : found_) {
    switch (after_replaced(f, layer_has_finding)) {
      case replaced_outcome::harmless: continue;
      case replaced_outcome::undecided:
        f.issue = batch_issue::cannot_tell;
        f.what = text::joined(f.what, text::replaced_batch_undecided());
        break;
      case replaced_outcome::stays: break;
    }
    kept.push_back(std::move(f));
  }
  found_ = std::move(kept);
}

scope::replaced_outcome scope::after_replaced(const batch_finding& f, const std::vector<layer_findings>& layer_has_finding) const {
  if (f.issue != batch_issue::swallows_batch || !replaced_.contains(f.layer) || swallowed_.contains(f.layer))
    return replaced_outcome::stays;
  const auto& own = states_[f.layer];
  if (own.empty() || !own[0].is(kind::batched)) return replaced_outcome::stays;
  std::vector<char> marked(layers_.size(), 0);
  marked[f.layer] = 1;
  const auto after = detail::downstream_of(g_, marked);
  bool undecided = false;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    if (!after[i]) continue;
    // An If whose branches hold the batch differently because this Reshape moved it in one of them: where
    // that branch runs, the If's output has the batch where the other branch does not put it. That is
    // the Reshape's doing, not something undecided after it.
    if (part_of(layers_[i].type) == op_part::if_merge)
      if (const auto it = unknown_.find(i);
          it != unknown_.end() && it->second.first && it->second.first->code == why::branches_differ)
        return replaced_outcome::stays;
    for (const auto& x : states_[i]) {
      if (x.is(kind::broken)) return replaced_outcome::stays;
      undecided = undecided || x.is(kind::unknown);
    }
    // A layer found to misuse the batch, blamed on another Reshape (the first one that moved it: the
    // other branch of an If that holds it alike), is shown to misuse this one's too.
    if ((nested_.contains(i) && !nested_.at(i).empty()) || layer_has_finding[i] == layer_findings::a_no || misusers_.contains(i))
      return replaced_outcome::stays;
    undecided = undecided || layer_has_finding[i] == layer_findings::cannot_tell_only;
  }
  return undecided ? replaced_outcome::undecided : replaced_outcome::harmless;
}

/// The batch axis of a model output: its layout's N, otherwise dimension 0; none for a scalar.
std::optional<std::size_t> scope::output_axis(const layer& result) const {
  const auto& shape = runs_.at_samples[0]->input(g_, result, 0).shape;
  const auto rank = shape.rank_known() ? std::optional(shape.size()) : std::nullopt;
  if (!result.inputs.empty() && !result.inputs[0].layout.empty()) {
    try {
      return batch_index_of(result.inputs[0].layout, rank);
    } catch (const error&) {
      // A layout that does not fit: dimension 0, as for an output without one.
    }
  }
  if (rank && *rank == 0) return std::nullopt;
  return 0;
}

/// Each model output must hold the batch at its batch axis, or be shared by all samples.
void scope::check_outputs() {
  for (const auto index : g_.order()) {
    const auto& l = layers_[index];
    if (part_of(l.type) != op_part::result || l.sources.empty() || !l.sources[0]) continue;
    const auto& s = states_[l.sources[0]->layer][l.sources[0]->output];
    const auto axis = output_axis(l);
    switch (s.k) {
      case kind::shared:
      case kind::broken: break;
      case kind::batched: {
        if (axis && *axis == s.axis) break;
        const auto reason = because(why::output_batch_elsewhere, l.id, s.axis, s.factor,
                                    axis ? static_cast<std::int64_t>(*axis) : -1)
                                .quoting(std::string(l.name));
        const auto what = text::sentence(reason);
        if (s.moved_by != no_layer) {
          add_swallow(s.moved_by, reason, what, l.id);
          misusers_.insert(index);
        } else {
          auto f = finding(batch_issue::loses_batch, l);
          set_reason(f, reason);
          f.what = what;
          text::give_hint(f, text::output_batch_elsewhere_hint());
          f.axis = s.axis;
          found_.push_back(std::move(f));
        }
        break;
      }
      case kind::size_value: {
        auto f = finding(s.varies ? batch_issue::loses_batch : batch_issue::cannot_tell, l);
        set_message(f, because(s.varies ? why::output_size_value_varies : why::output_size_value, l.id)
                           .quoting(std::string(l.name)));
        text::give_hint(f, text::output_size_value_hint());
        found_.push_back(std::move(f));
        break;
      }
      case kind::folded:
        misuses_fold(s.origin, index, because(why::output_interleaved, l.id).quoting(std::string(l.name)), {});
        break;
      case kind::per_image: {
        if (s.origin == no_layer || finding_for(s.origin, batch_issue::scales_with_batch)) break;
        const auto& o = layers_[s.origin];
        auto f = finding(batch_issue::scales_with_batch, o);
        set_message(f, because(why::output_per_image, l.id).quoting(std::string(l.name)));
        f.used_by_id = l.id;
        found_.push_back(std::move(f));
        break;
      }
      case kind::unknown: {
        const auto origin = s.origin;
        auto it = unknown_.find(origin);
        if (origin == no_layer || it == unknown_.end() || it->second.second) break;
        it->second.second = true;
        // One layer, one finding: a Reshape already found to swallow the batch is not also undecided.
        if (finding_for(origin, batch_issue::swallows_batch) || finding_for(origin, batch_issue::mixes_samples) ||
            finding_for(origin, batch_issue::drops_samples))
          break;
        auto f = finding(batch_issue::cannot_tell, layers_[origin]);
        set_message(f, *it->second.first);
        f.used_by_id = l.id;
        text::give_hint(f, undecided_hint(layers_[origin], *it->second.first));
        found_.push_back(std::move(f));
        break;
      }
    }
  }
}

/// The bodies the batch analysis did not enter (their TensorIterator or Loop fails, or reads no
/// batch): their Reshapes that hard-code the batch are still reported.
void scope::replaced_in_bodies() {
  for (const auto index : g_.order()) {
    const auto& l = layers_[index];
    if (!l.body || nested_.contains(index)) continue;
    const auto inner = runs_.body(index);
    if (!inner || !inner->analysed()) continue;
    auto path = within_;
    path.push_back({l.id, std::string(l.name), std::string(l.type)});
    scope body(l.body->network, *inner, std::move(path), nullptr, request_);
    body.find_replaced();
    body.find_replaced_swallows();
    body.replaced_in_bodies();
    nested_[index] = body.findings();
  }
}

/// The findings of a body, its nested bodies' after their layers. A layer that runs at none of the
/// batches the answer is about has none (idle_layers).
std::vector<batch_finding> scope::findings() const {
  const auto idle = idle_layers();
  std::vector<batch_finding> out;
  for (const auto index : g_.order()) {
    if (idle[index] != 0) continue;
    for (const auto& f : found_)
      if (f.layer == index) out.push_back(f);
    if (const auto it = nested_.find(index); it != nested_.end()) out.insert(out.end(), it->second.begin(), it->second.end());
  }
  return out;
}

/// The condition of IfMerge `l` when it is known and the same at the batch asked and at every sample
/// batch: the branch taken at all of them.
std::optional<bool> scope::condition_everywhere(const layer& l) const {
  if (l.sources.empty() || !l.sources[0]) return std::nullopt;
  const auto s = *l.sources[0];
  std::vector<const propagation*> at{&target_};
  if (runs_.analysed()) at.insert(at.end(), runs_.at_samples.begin(), runs_.at_samples.end());
  std::optional<bool> taken;
  for (const auto* p : at) {
    const auto v = detail::exact_values(p->outputs[s.layer][s.output].value);
    if (!v || v->size() != 1 || (taken && *taken != ((*v)[0] != 0))) return std::nullopt;
    taken = (*v)[0] != 0;
  }
  return taken;
}

/// Per layer, whether it runs at none of the batches the answer is about: it reaches the outputs only
/// through an If's branch whose condition chooses the other one at the batch asked and at every sample
/// batch (`x.view(1, -1) if n == 1 else x.view(n, -1)`: the first branch runs alone only, where writing
/// 1 is right). Batch 1 is the reference each sample is compared with, not a batch answered about. A
/// layer that reaches no output at all is not idle: what it does is reported as before.
std::vector<char> scope::idle_layers() const {
  const auto reach = [&](bool honour_conditions) {
    std::vector<char> live(layers_.size(), 0);
    const auto order = g_.order();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const auto& l = layers_[*it];
      if (part_of(l.type) == op_part::result) live[*it] = 1;
      if (live[*it] == 0) continue;
      const auto taken = honour_conditions && part_of(l.type) == op_part::if_merge && l.sources.size() == 3
                             ? condition_everywhere(l)
                             : std::nullopt;
      for (std::size_t i = 0; i < l.sources.size(); ++i)
        if (l.sources[i] && (!taken || i == 0 || i == (*taken ? 1u : 2u))) live[l.sources[i]->layer] = 1;
    }
    return live;
  };
  if (std::none_of(layers_.begin(), layers_.end(), [](const layer& l) { return part_of(l.type) == op_part::if_merge; }))
    return std::vector<char>(layers_.size(), 0);
  const auto any = reach(false);
  const auto taken = reach(true);
  std::vector<char> idle(layers_.size(), 0);
  for (std::size_t i = 0; i < idle.size(); ++i) idle[i] = any[i] != 0 && taken[i] == 0 ? 1 : 0;
  return idle;
}

}  // namespace reshape1::model::batch_analysis
