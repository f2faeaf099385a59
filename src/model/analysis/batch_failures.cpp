// check_batch, stage 1 (batch_scope.hpp lists them): the layers that fail at the batch asked, and the
// Reshapes whose pattern writes the declared batch as a constant.
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

batch_finding scope::finding(batch_issue issue, const layer& l) const {
  batch_finding f;
  f.issue = issue;
  f.layer = index_of(l);
  f.id = l.id;
  f.name = l.name;
  f.type = l.op_type();
  f.opset = l.op_version();
  f.within = within_;
  return f;
}

/// Reshapes whose pattern writes the declared batch as a constant where the input has the batch.
void scope::find_replaced() {
  if (carriers_.empty()) return;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    const auto& l = layers_[i];
    if (part_of(l.type) != op_part::reshape || l.inputs.size() < 2) continue;
    const auto& input = declared_.input(g_, l, 0).shape;
    // Which input dimension holds the batch: from the carriers, or for a direct input, its batch index.
    std::optional<std::size_t> axis;
    const auto& c = input_carrier(l, 0);
    if (c.state == batch_carrier::kind::one) axis = c.axis;
    if (!axis) continue;
    if (!input.rank_known() || *axis >= input.size() || !input[*axis].is_static()) continue;
    std::vector<bool> constant;
    const auto pattern = detail::reshape_pattern_at(g_, declared_, l, &constant);
    const auto elements = pattern.elements();
    if (*axis >= elements.size() || *axis >= constant.size() || !constant[*axis]) continue;
    const auto& e = elements[*axis];
    if (e.lo != e.hi || e.lo <= 0 || e.lo != input[*axis].lo()) continue;
    const bool special_zero = l.flag("special_zero");
    const bool has_minus_one =
        std::any_of(elements.begin(), elements.end(), [](const pattern_bound& b) { return b.lo == -1 && b.hi == -1; });
    replaced_batch r;
    r.index = *axis;
    r.value = e.lo;
    r.origin = origin_of_element(g_, declared_, l, 1, *axis);
    r.hint = text::copy_batch_hint(*axis, special_zero, has_minus_one);
    replaced_[i] = r;
  }
}

void scope::find_failures(const propagation& p, const std::string& at) {
  std::vector<bool> failed_before(layers_.size(), false);
  for (const auto& x : declared_.lost) failed_before[x.layer] = true;
  for (const auto& x : p.lost) {
    if (x.not_covered || failed_before[x.layer] || finding_for(x.layer, batch_issue::fails)) continue;
    const auto& l = layers_[x.layer];
    auto f = finding(batch_issue::fails, l);
    f.code = name(x.code);
    f.at = at;
    set_message(f, x);
    if (part_of(l.type) == op_part::reshape && l.inputs.size() >= 2) {
      if (const auto it = replaced_.find(x.layer); it != replaced_.end()) {
        f.what = text::joined(f.what, text::replaced_batch(it->second.index, it->second.value));
        text::give_hint(f, it->second.hint);
        f.pattern_index = it->second.index;
        set_source(f, it->second.origin);
      } else {
        set_pattern_source(f, l);
      }
    }
    if (l.body) explain_body_failure(f, l, x.layer, p);
    if (f.hint.empty()) text::give_hint(f, text::follow_back_hint(spelling()));
    found_.push_back(std::move(f));
  }
}

/// A TensorIterator or Loop that fails because a layer of its body does: when that layer meets an input
/// that follows the batch and one from outside the body that does not (an initial state, a Const), name
/// where the latter comes from, in the model (its ids are the model's, not the body's).
void scope::explain_body_failure(batch_finding& f, const layer& l, std::size_t index, const propagation& p) const {
  const auto* inner = p.body(index);
  const auto* before = declared_.body(index);
  if (inner == nullptr || before == nullptr) return;
  const auto& body = l.body->network;
  for (const auto& y : inner->lost) {
    if (y.not_covered) continue;
    const auto& bl = body.layers()[y.layer];
    const auto changed = [&](std::size_t port) {
      return to_string(without_symbols(inner->input(body, bl, port).shape)) !=
             to_string(without_symbols(before->input(body, bl, port).shape));
    };
    bool any_changed = false;
    for (std::size_t port = 0; port < bl.inputs.size(); ++port) any_changed = any_changed || changed(port);
    if (!any_changed) return;
    for (std::size_t port = 0; port < bl.inputs.size(); ++port) {
      if (changed(port) || port >= bl.sources.size() || !bl.sources[port]) continue;
      const auto& param = body.layers()[bl.sources[port]->layer];
      // An input of the body: find the port of `l` that feeds it.
      for (const auto& m : l.body->inputs) {
        if (m.internal_layer != param.id || m.external_port < 0) continue;
        const auto outer = detail::port_index(l.inputs, m.external_port);
        if (!outer || *outer >= l.sources.size() || !l.sources[*outer]) continue;
        const auto& src = layers_[l.sources[*outer]->layer];
        f.source_id = src.id;
        f.source = text::body_input_source(src, *outer, l);
        text::give_hint(f, text::body_input_hint(bl, *outer, l));
        return;
      }
    }
    return;
  }
}

/// The pattern as a whole: its Const, or the layer that computes it.
void scope::set_pattern_source(batch_finding& f, const layer& l) const {
  if (l.sources.size() < 2 || !l.sources[1]) return;
  const auto& src = layers_[l.sources[1]->layer];
  f.source_id = src.id;
  f.source = text::holder(src);
}

void scope::set_source(batch_finding& f, const element_origin& o) const {
  if (o.holder == nullptr) return;
  f.source_id = o.holder->id;
  f.source = text::origin(o);
}

/// A layer that fails downstream of a Reshape already reported: name it as the cause.
void scope::explain_failures() {
  for (auto& f : found_) {
    if (f.issue != batch_issue::fails || f.cause_id || replaced_.contains(f.layer)) continue;
    std::deque<std::size_t> queue{f.layer};
    std::set<std::size_t> seen{f.layer};
    while (!queue.empty() && !f.cause_id) {
      const auto& l = layers_[queue.front()];
      queue.pop_front();
      for (const auto& s : l.sources) {
        if (!s || !seen.insert(s->layer).second) continue;
        const auto& src = layers_[s->layer];
        if (part_of(src.type) == op_part::reshape && (replaced_.contains(s->layer) ||
                                      std::any_of(found_.begin(), found_.end(), [&](const auto& x) {
                                        return x.layer == s->layer && x.issue == batch_issue::swallows_batch;
                                      }))) {
          f.cause_id = src.id;
          const auto it = replaced_.find(s->layer);
          const auto replaced =
              it != replaced_.end() ? std::optional(std::pair(it->second.value, it->second.index)) : std::nullopt;
          f.what = text::joined(f.what, text::upstream_reshape(src, replaced));
          if (it != replaced_.end()) text::give_hint(f, text::in_reshape(src, it->second.hint));
          break;
        }
        queue.push_back(s->layer);
      }
    }
  }
}

}  // namespace reshape1::model::batch_analysis
