// Propagation in place (in_place.hpp): a layer_pass that runs the layers an edit can change and keeps what
// they replace.
#include "model/propagate/in_place.hpp"

#include <algorithm>
#include <utility>

#include "model/propagate/engine.hpp"

namespace reshape1::model::detail {
namespace {

/// A layer marked as reading an edited one (redo_if_inputs_changed) runs only when a layer it reads is
/// edited (a rule may read a Const's bytes, which its tensor need not hold) or came out different in this
/// pass: a rule is a function of its inputs, its attributes and the Consts it reads, so with the same ones
/// it gives what it gave. Behind a layer that fails both before and after an edit, nothing runs again.
class in_place_pass final : public layer_pass {
 public:
  /// Takes what `p` holds that the pass replaces (its findings, which layers follow the inputs, the bodies)
  /// into `undo`, and fits p to g.
  in_place_pass(const graph& g, propagation& p, std::span<const char> redo, undo_log& undo)
      : g_(g), p_(p), redo_(redo), undo_(undo), changed_(g.layers().size(), 0) {
    const auto layers = g.layers();
    undo.layers = p.outputs.size();
    undo.lost = std::exchange(p.lost, {});
    undo.follows_inputs = p.follows_inputs;
    undo.bodies = p.bodies;
    layer_outputs_access::fit(p.outputs, g);
    if (!p.bodies.empty()) p.bodies.resize(layers.size());
    // The findings the base had, by layer, kept in this propagation's order for the layers not run again.
    for (std::size_t k = 0; k < undo.lost.size(); ++k) base_lost_.emplace_back(undo.lost[k].layer, k);
    std::sort(base_lost_.begin(), base_lost_.end());
    std::size_t saved = 0;  // reserved at once: a growing log would hold up to twice what it needs
    for (std::size_t i = 0; i < std::min(undo.layers, redo.size()); ++i)
      if (redo[i]) saved += layers[i].outputs.size();
    undo.outputs.reserve(saved);
  }

  bool runs(std::size_t index) override {
    const auto& l = g_.layers()[index];
    const bool old = index < undo_.layers;
    const char mark = old && index < redo_.size() ? redo_[index] : 0;
    const bool run = !old || mark == redo_always ||
                     (mark == redo_if_inputs_changed &&
                      std::any_of(l.sources.begin(), l.sources.end(), [&](const std::optional<source>& s) {
                        return s && (changed_[s->layer] != 0 || (s->layer < redo_.size() && redo_[s->layer] == redo_always));
                      }));
    if (!run)
      for (auto it = std::lower_bound(base_lost_.begin(), base_lost_.end(), std::pair<std::size_t, std::size_t>(index, 0));
           it != base_lost_.end() && it->first == index; ++it)
        p_.lost.push_back(undo_.lost[it->second]);
    return run;
  }

  void replacing(std::size_t index) override {
    old_ = index < undo_.layers;
    saved_at_ = undo_.outputs.size();
    followed_ = old_ && p_.follows_inputs[index];
    if (!old_) return;
    // Computed again from nothing, as in a whole propagation; what it replaces is kept.
    const auto out = p_.outputs[index];
    for (std::size_t o = 0; o < out.size(); ++o) undo_.outputs.push_back({index, o, std::exchange(out[o], tensor{})});
    if (index < p_.bodies.size()) p_.bodies[index].reset();
  }

  void ran(std::size_t index) override {
    const auto out = p_.outputs[index];
    bool same = old_ && followed_ == p_.follows_inputs[index];
    for (std::size_t o = 0; same && o < out.size(); ++o) {
      const auto& before = undo_.outputs[saved_at_ + o].before;
      same = out[o].shape == before.shape && out[o].type == before.type && out[o].value == before.value;
    }
    changed_[index] = same ? 0 : 1;
  }

 private:
  const graph& g_;
  propagation& p_;
  std::span<const char> redo_;
  undo_log& undo_;
  std::vector<char> changed_;  ///< the layers whose results this pass changed (or made)
  std::vector<std::pair<std::size_t, std::size_t>> base_lost_;  ///< (layer, index into undo_.lost)
  // The layer running now: whether the base had it, where its saved outputs start, whether it followed
  // the inputs before.
  bool old_ = false, followed_ = false;
  std::size_t saved_at_ = 0;
};

}  // namespace

void propagate_in_place(const graph& g, std::span<const input_shape> given, propagation& p,
                        std::span<const char> redo, undo_log& undo, std::string_view names) {
  std::vector<tensor> store;
  const auto given_to = given_tensors(g, given, store);
  reset_body_budget();
  undo = {};
  in_place_pass pass(g, p, redo, undo);
  propagate_into(g, given_to, nullptr, p, &pass, names);
}

void undo_in_place(const graph& before, propagation& p, undo_log&& undo) {
  for (auto& x : undo.outputs) p.outputs[x.layer][x.output] = std::move(x.before);
  layer_outputs_access::fit(p.outputs, before);
  p.follows_inputs = std::move(undo.follows_inputs);
  p.lost = std::move(undo.lost);
  p.bodies = std::move(undo.bodies);
}

}  // namespace reshape1::model::detail
