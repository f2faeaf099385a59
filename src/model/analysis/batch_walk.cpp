// check_batch, stage 2 (batch_scope.hpp lists them): each layer's batch state from its batching rule, and
// what the values computed from the batch size do.
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

const batch_carrier& scope::carrier(std::size_t layer, std::size_t output) const {
  static const batch_carrier unknown;
  if (layer >= carriers_.size() || output >= carriers_[layer].size()) return unknown;
  return carriers_[layer][output];
}

const batch_carrier& scope::input_carrier(const layer& l, std::size_t port) const {
  static const batch_carrier unknown;
  if (port >= l.sources.size() || !l.sources[port]) return unknown;
  return carrier(l.sources[port]->layer, l.sources[port]->output);
}

/// The finding's code and args: what its reason names.
void scope::set_reason(batch_finding& f, const because& reason) {
  f.code = text::code_name(reason.code);
  f.args = text::args_of(reason);
}

batch_finding* scope::finding_for(std::size_t layer, batch_issue issue) {
  for (auto& f : found_)
    if (f.layer == layer && f.issue == issue) return &f;
  return nullptr;
}

/// A lost layer's message as a finding's what and hint: the hint is its own field, and the message
/// (error::what(), `what; hint`) ends with it.
void scope::set_message(batch_finding& f, const lost_information& x) {
  text::give_hint(f, text::error_hint(x.hint));
  f.what = reshape1::detail::without_hint(x.message, x.hint);
}

/// A reason as a finding's code, args and what.
void scope::set_message(batch_finding& f, const because& reason) {
  set_reason(f, reason);
  f.what = text::sentence(reason);
}

std::vector<batch_state> scope::states_of_inputs(const layer& l) const {
  std::vector<batch_state> in(l.sources.size());
  for (std::size_t p = 0; p < l.sources.size(); ++p)
    if (l.sources[p]) in[p] = states_[l.sources[p]->layer][l.sources[p]->output];
  return in;
}

void scope::set_unknown(std::size_t index, const because& reason, bool emitted) {
  for (auto& s : states_[index]) {
    s = batch_state{};
    s.k = kind::unknown;
    s.origin = index;
  }
  auto& u = unknown_[index];
  if (!u.first) u = {reason, emitted};
}

void scope::set_all(std::size_t index, kind k) {
  for (auto& s : states_[index]) {
    s = batch_state{};
    s.k = k;
  }
}

/// A layer none of whose inputs holds per-sample data: its outputs are shared when the same at every
/// sample batch, values computed from the batch size when only their values change, and undecided when
/// their size follows the batch although they read no sample. A value computed from the batch size that
/// the sample batches agree on is shared only when batch 1 and the batches asked agree too: the samples
/// are odd primes above 1000, so `N == 1`, `N > 2` or `N % 2` is the same at all three.
void scope::by_value(std::size_t index, const std::vector<batch_state>& in) {
  const bool from_size = std::any_of(in.begin(), in.end(), [](const batch_state& s) { return s.is(kind::size_value); });
  for (std::size_t o = 0; o < states_[index].size(); ++o) {
    const auto& t0 = runs_.at_samples[0]->outputs[index][o];
    bool same_shape = true, same_value = known(t0.value);
    for (std::size_t k = 1; k < samples.size(); ++k) {
      const auto& t = runs_.at_samples[k]->outputs[index][o];
      same_shape = same_shape && to_string(without_symbols(t.shape)) == to_string(without_symbols(t0.shape));
      same_value = same_value && known(t.value) && *t.value == *t0.value;
    }
    auto& s = states_[index][o];
    s = batch_state{};
    if (!same_shape) {
      set_unknown(index, why::reads_no_sample);
      return;
    }
    // A shape the sample batches agree on but the batch asked does not (`w[:max(1, 3 - n // 500)]`: [1] at
    // the samples, [3] at 4): every rule after it would judge a broadcast or a length that is not the
    // one at the batch asked.
    if (to_string(without_symbols(target_.outputs[index][o].shape)) != to_string(without_symbols(t0.shape))) {
      set_unknown(index, because(why::shape_differs_at_asked, o));
      return;
    }
    if (same_value && !from_size) continue;
    // A value each element of which is a size apart from the batch (the length of a [T,N,64] sequence read
    // through its Shape) is the same at every N, whatever it is.
    if (!same_value && free_sizes_only(index, o)) continue;
    const auto beyond = same_value ? agrees_beyond_samples(index, o, *t0.value) : agreement::differs;
    if (beyond == agreement::same) continue;
    s.k = kind::size_value;
    s.origin = index;
    // Known values that differ between the batches compared change with N; unknown ones may.
    s.varies = same_value ? beyond == agreement::differs : known(t0.value);
  }
}

bool scope::free_sizes_only(std::size_t index, std::size_t o) const {
  const auto& v0 = runs_.at_samples[0]->outputs[index][o].value;
  if (!v0 || v0->is_real() || v0->elements.empty()) return false;
  for (std::size_t k = 0; k < samples.size(); ++k) {
    const auto& v = runs_.at_samples[k]->outputs[index][o].value;
    if (!v || v->is_real() || v->elements.size() != v0->elements.size()) return false;
    for (std::size_t e = 0; e < v->elements.size(); ++e) {
      const auto& x = v->elements[e];
      if (x.exact() || !x.symbol || x.symbol != v0->elements[e].symbol || !sizes_.contains(x.symbol)) return false;
    }
  }
  return true;
}

/// A value every element of which is known exactly.
bool scope::known(const std::optional<tensor_value>& v) {
  return v && (v->is_real() || std::all_of(v->elements.begin(), v->elements.end(), [](const element_bound& e) {
                 return e.exact();
               }));
}

/// Whether output `o` of layer `index`, `v` at every sample batch, is `v` at batch 1 (each sample alone,
/// the reference) and at each batch asked too. Proven by a run whose dynamic batch spans 1 and every batch
/// asked and knows the value, or by a static batch asked whose value is batch 1's; refuted by any batch
/// asked (the example batch, the samples when the asked interval holds them) whose value is not. A value
/// the same alone and at the batch asked but another at the samples (`n > 1000`) differs: the layers after
/// it are followed at the samples, where it would steer them otherwise than at the batch asked.
scope::agreement scope::agrees_beyond_samples(std::size_t index, std::size_t o, const tensor_value& v) {
  const auto value_at = [&](const propagation* p) -> const std::optional<tensor_value>& {
    static const std::optional<tensor_value> none;
    return p == nullptr ? none : p->outputs[index][o].value;
  };
  if (const auto& c = value_at(runs_.covering); known(c)) return *c == v ? agreement::same : agreement::differs;
  if (alone() == nullptr) return agreement::unknown;
  const auto& reference = value_at(runs_.at_one);
  if (!known(reference)) return agreement::unknown;
  if (runs_.asked_static) {
    const auto& t = value_at(&target_);
    if (!known(t)) return agreement::unknown;
    return *t == *reference && *reference == v ? agreement::same : agreement::differs;
  }
  if (const auto& e = value_at(runs_.example); known(e) && *e != *reference) return agreement::differs;
  if (runs_.asked_holds_samples && v != *reference) return agreement::differs;
  return agreement::unknown;
}

/// The rule's batched outputs must be N·factor at their axis at every sample batch; shared ones must not
/// change. A rule whose answer the shapes contradict decides nothing.
/// The run at the batch asked must agree too, where its dimension is exact: the sample batches may take
/// another path than the batch asked does (an If on `n < 5` runs one branch at 1009 and the other at 4).
bool scope::consistent(std::size_t index) const {
  const auto asked = asked_batch();
  for (std::size_t o = 0; o < states_[index].size(); ++o) {
    const auto& s = states_[index][o];
    if (!s.is(kind::batched) && !s.is(kind::shared)) continue;
    if (const auto& t = target_.outputs[index][o].shape;
        s.is(kind::batched) && asked && t.rank_known() && s.axis < t.size() && t[s.axis].is_static() &&
        (!asked->is_static() || t[s.axis].lo() != s.factor * asked->lo()))
      return false;
    for (std::size_t k = 0; k < samples.size(); ++k) {
      const auto& shape = runs_.at_samples[k]->outputs[index][o].shape;
      if (!shape.rank_known()) return false;
      if (s.is(kind::batched)) {
        if (s.axis >= shape.size() || !shape[s.axis].is_static() || shape[s.axis].lo() != s.factor * samples[k])
          return false;
      } else if (k > 0 && to_string(without_symbols(shape)) !=
                              to_string(without_symbols(runs_.at_samples[0]->outputs[index][o].shape))) {
        return false;
      }
    }
  }
  return true;
}

/// The batch asked: the requested size of the model's batched inputs' batch dimension (in the model's
/// scope; a body has no inputs of its own to read it from).
std::optional<dimension> scope::asked_batch() const {
  if (inputs_ == nullptr) return std::nullopt;
  for (const auto& in : *inputs_)
    if (in.batch_index && in.requested.rank_known() && *in.batch_index < in.requested.size())
      return in.requested[*in.batch_index];
  return std::nullopt;
}

/// The reasons that name a value computed from the batch size (its path is quoted in the sentence).
bool scope::from_batch_size(why code) noexcept {
  return code == why::size_value_as_data || code == why::branch_from_batch_size ||
         code == why::size_value_as_parameter || code == why::size_value_as_parameter_value;
}

/// A rule's faults become findings: on the layer itself, or on the Reshape that moved the batch to the
/// axis the layer misuses.
void scope::report_faults(std::size_t index, const detail::batch_op& op) {
  const auto& l = layers_[index];
  for (auto x : op.faults) {
    const auto port = x.port.value_or(0);
    if (from_batch_size(x.reason.code))
      x.reason.quoted = text::value_path(size_value_path(l, port));
    const auto s = port < op.in.size() ? op.in[port] : batch_state{};
    if (x.issue == batch_issue::swallows_batch) {
      add_swallow(index, x.reason, text::sentence(x.reason), std::nullopt);
      continue;
    }
    if (s.moved_by != no_layer && s.moved_by != index) {
      add_swallow(s.moved_by, x.reason, text::then_at(l, text::sentence(x.reason)), l.id);
      misusers_.insert(index);
      continue;
    }
    if (finding_for(index, x.issue)) continue;
    auto f = finding(x.issue, l);
    set_message(f, x.reason);
    const bool from_size = from_batch_size(x.reason.code);
    text::give_hint(f, from_size ? text::size_value_hint() : text::rule_hint(spelling(), x.issue, l));
    f.port = x.port;
    if (s.is(kind::batched)) f.axis = s.axis;
    found_.push_back(std::move(f));
  }
}

/// The layers a value computed from the batch size went through to input `port` of `l`, from the layer
/// that read a shape (ShapeOf) to the one that feeds `l`; at most 8, the first and the last kept.
std::vector<const layer*> scope::size_value_path(const layer& l, std::size_t port) const {
  std::vector<const layer*> path;
  const layer* at = &l;
  std::size_t in = port;
  for (std::size_t steps = 0; steps < layers_.size() && in < at->sources.size() && at->sources[in]; ++steps) {
    const auto& src = *at->sources[in];
    const auto& from = layers_[src.layer];
    path.push_back(&from);
    // Follow the first input that holds a value computed from the batch size.
    std::optional<std::size_t> next;
    for (std::size_t p = 0; p < from.sources.size() && !next; ++p)
      if (from.sources[p] && states_[from.sources[p]->layer][from.sources[p]->output].is(kind::size_value)) next = p;
    if (!next) break;
    at = &from;
    in = *next;
  }
  std::reverse(path.begin(), path.end());
  if (path.size() > 8) path.erase(path.begin() + 4, path.end() - 4);
  return path;
}

/// Whether --assume-kept names the layer's op (by its type, or as the file names it).
bool scope::vouched_for(const layer& l) const {
  if (request_ == nullptr) return false;
  const auto& kept = request_->assume_kept;
  return std::find(kept.begin(), kept.end(), l.type) != kept.end() ||
         std::find(kept.begin(), kept.end(), l.op_type()) != kept.end();
}

/// --assume-kept: the caller vouches that the op keeps each sample apart, as an elementwise op does.
void scope::assumed(detail::batch_op& o) const {
  const batch_state* first = nullptr;
  for (const auto& s : o.in)
    if (s.is(kind::batched)) {
      if (first != nullptr && (s.axis != first->axis || s.factor != first->factor))
        return o.cannot_tell(because(why::assumed_axes_differ).quoting(detail::spell(spelling(), detail::option::assume_kept)));
      first = &s;
    }
  if (first == nullptr) return o.cannot_tell(why::assumed_without_batch);
  for (std::size_t i = 0; i < o.out.size(); ++i) o.keep(i, *first, first->axis);
}

/// How every tensor holds the batch, layer by layer, from the inputs' batch axes (`given`: the states of
/// a body's Parameters, by layer index).
void scope::follow_states(const std::vector<batch_state>* given) {
  states_.assign(layers_.size(), {});
  for (std::size_t i = 0; i < layers_.size(); ++i) states_[i].resize(layers_[i].outputs.size());
  sizes_ = runs_.sizes != nullptr ? *runs_.sizes : detail::batch_free_sizes{};
  for (const auto index : g_.order()) {
    follow_layer(index, given);
    trust_sizes(index);
  }
}

void scope::trust_sizes(std::size_t index) {
  for (std::size_t o = 0; o < states_[index].size(); ++o) {
    const auto& s = states_[index][o];
    if (!s.is(kind::shared) && !s.is(kind::batched)) continue;
    std::array<const partial_shape*, samples.size()> at{};
    for (std::size_t k = 0; k < samples.size(); ++k) at[k] = &runs_.at_samples[k]->outputs[index][o].shape;
    if (!at[0]->rank_known()) continue;
    for (std::size_t d = 0; d < at[0]->size(); ++d) {
      const auto sym = (*at[0])[d].symbol();
      if ((s.is(kind::batched) && d == s.axis) || !sym || (*at[0])[d].is_static()) continue;
      if (std::all_of(at.begin(), at.end(), [&](const partial_shape* x) {
            return x->rank_known() && d < x->size() && !(*x)[d].is_static() && (*x)[d].symbol() == sym;
          }))
        sizes_.insert(sym);
    }
  }
}

void scope::follow_layer(std::size_t index, const std::vector<batch_state>* given) {
  {
    const auto& l = layers_[index];
    if (part_of(l.type) == op_part::parameter) {
      seed_parameter(index, given);
      return;
    }
    if (l.outputs.empty()) return;  // a Result: the outputs are checked at the end
    auto in = states_of_inputs(l);
    // An If's branch that runs at none of the batches answered about has no findings (idle_layers): what
    // it would break must not break the If either. The If still answers for its condition.
    if (part_of(l.type) == op_part::if_merge && in.size() == 3)
      if (const auto taken = condition_everywhere(l)) in[*taken ? 2 : 1] = batch_state{};
    if (settled_by_inputs(index, in)) return;
    const auto lost_why = lost_at_samples(index);
    const auto* entry = detail::find_entry(l.type, l.opset);
    if (std::any_of(in.begin(), in.end(), [](const batch_state& s) { return s.is(kind::folded); })) {
      follow_fold(index, in, entry, lost_why);
      return;
    }
    if (lost_why && entry == nullptr) {
      set_unknown(index, *lost_why);
      return;
    }
    const bool vouched = vouched_for(l);
    const bool data = std::any_of(in.begin(), in.end(), [](const batch_state& s) {
      return s.is(kind::batched) || s.is(kind::per_image);
    });
    if (!data && !vouched && (entry == nullptr || !entry->batch.spreads)) {
      by_value(index, in);
      return;
    }
    if (entry == nullptr && !vouched) {
      set_unknown(index, because(why::no_rule, l.opset).quoting(std::string(l.type)));
      return;
    }
    apply_rule(index, in, vouched ? nullptr : entry, lost_why);
  }
}

/// Whether input `port` of `l`, a value computed from the batch size that changes between the sample
/// batches, is the same at batch 1 as at the batch asked: proven by a run whose dynamic batch spans 1 and
/// every batch asked and knows it, or by its value at a static batch asked; refuted by that value, by a
/// dynamic batch asked that holds the sample batches (they differ from each other), or by the example
/// batch; otherwise unknown. Asks for the run at batch 1 when it has not been made (false until then).
/// batch_op::alike_alone says where a rule may take it as shared.
std::optional<bool> scope::alike_alone(const layer& l, std::size_t port) {
  if (port >= l.sources.size() || !l.sources[port]) return false;
  const auto src = *l.sources[port];
  const auto value_at = [&](const propagation* run) -> const std::optional<tensor_value>& {
    static const std::optional<tensor_value> none;
    return run == nullptr ? none : run->outputs[src.layer][src.output].value;
  };
  if (known(value_at(runs_.covering))) return true;
  if (!runs_.asked_static && runs_.asked_holds_samples) return false;
  const auto* one = alone();
  if (one == nullptr) return false;  // the analysis runs again with batch 1
  const auto& reference = value_at(one);
  if (!known(reference)) return std::nullopt;
  if (runs_.asked_static) {
    const auto& asked = value_at(&target_);
    if (!known(asked)) return std::nullopt;
    return *asked == *reference;
  }
  if (const auto& e = value_at(runs_.example); known(e) && *e != *reference) return false;
  return std::nullopt;
}

/// A Parameter's state: the one a body's Parameter is given, or the model input's batch axis.
void scope::seed_parameter(std::size_t index, const std::vector<batch_state>* given) {
  if (states_[index].empty()) return;
  if (given != nullptr) {
    if (index < given->size()) states_[index][0] = (*given)[index];
  } else if (inputs_ != nullptr) {
    for (const auto& in : *inputs_)
      if (in.layer == index && in.batch_index) states_[index][0] = batch_state::batched_at(*in.batch_index, 1);
  }
}

/// Whether the inputs' states decide the layer's without its rule: all shared (the layer's stay
/// shared), one broken or the layer failing (broken), one unknown (unknown likewise).
bool scope::settled_by_inputs(std::size_t index, const std::vector<batch_state>& in) {
  // A layer that fails is broken even when its inputs are shared (a Reshape of constants to a wrong
  // length): the layers after it have nothing to decide.
  if (finding_for(index, batch_issue::fails) || finding_for(index, batch_issue::fails_at_declared) ||
      std::any_of(in.begin(), in.end(), [](const batch_state& s) { return s.is(kind::broken); })) {
    set_all(index, kind::broken);
    return true;
  }
  if (std::all_of(in.begin(), in.end(), [](const batch_state& s) { return s.is(kind::shared); })) return true;
  if (const auto it = std::find_if(in.begin(), in.end(), [](const batch_state& s) { return s.is(kind::unknown); });
      it != in.end()) {
    for (auto& s : states_[index]) s = *it;
    return true;
  }
  return false;
}

/// Why the layer's output shapes are unknown at a sample batch, or nullopt when they are all known.
std::optional<because> scope::lost_at_samples(std::size_t index) const {
  bool lost = false;
  for (std::size_t k = 0; k < samples.size(); ++k)
    for (const auto& t : runs_.at_samples[k]->outputs[index]) lost = lost || !t.shape.rank_known();
  if (!lost) return std::nullopt;
  for (const auto& x : runs_.at_samples[0]->lost)
    if (x.layer == index) {
      // (Where it fails at the shapes asked too, its message is about the layer, not the sample batch.)
      const bool asked_too = std::any_of(target_.lost.begin(), target_.lost.end(),
                                         [&](const auto& t) { return t.layer == index && t.message == x.message; });
      if (asked_too) return because(why::rule_refused).quoting(x.message);
      return because(why::fails_at_sample_batch, samples[0]).quoting(x.message);
    }
  return why::not_propagated_at_samples;
}

/// Runs the layer's batching rule (`entry`; null: the op is vouched for, kept as assume_kept says) and
/// sets its outputs' states from the answer, a body's analysis included.
void scope::apply_rule(std::size_t index, const std::vector<batch_state>& in, const detail::rule_entry* entry,
                       const std::optional<because>& lost_why) {
  const auto& l = layers_[index];
  detail::batch_op op{g_, l, in, states_[index], runs_.at_samples, carriers_[index], &sizes_, {}, {}, {}, {}, {}, {}, {}};
  op.alike_alone = [this, &l](std::size_t port) { return alike_alone(l, port); };
  op.asked_like_samples = [this, &l](std::size_t port) {
    if (port >= l.sources.size() || !l.sources[port] || !runs_.analysed()) return false;
    const auto& asked = target_.outputs[l.sources[port]->layer][l.sources[port]->output].value;
    const auto& sample = runs_.at_samples[0]->outputs[l.sources[port]->layer][l.sources[port]->output].value;
    return known(asked) && known(sample) && *asked == *sample;
  };
  op.alike_value = [this, &l](std::size_t port) -> const tensor_value* {
    if (alike_alone(l, port) != true) return nullptr;
    const auto src = *l.sources[port];
    for (const auto* run : {runs_.covering, runs_.at_one})
      if (run != nullptr && known(run->outputs[src.layer][src.output].value))
        return &*run->outputs[src.layer][src.output].value;
    return nullptr;
  };
  if (l.body) {
    op.body = [this, index, &l](const std::vector<batch_state>& params)
        -> std::optional<std::vector<std::vector<batch_state>>> {
      const auto inner = runs_.body(index);
      if (!inner || !inner->analysed()) return std::nullopt;
      auto path = within_;
      path.push_back({l.id, std::string(l.name), std::string(l.type)});
      scope body(l.body->network, *inner, std::move(path), nullptr, request_);
      body.find_replaced();
      body.find_replaced_swallows();
      body.follow_states(&params);
      wants_one_ = wants_one_ || body.wants_one_;
      nested_[index] = body.findings();
      return std::move(body.states_);
    };
  }
  try {
    if (entry == nullptr)
      assumed(op);
    else
      entry->batch.fn(op);
  } catch (const error& e) {
    op.cannot_tell(because(why::rule_refused).quoting(e.what()));
  }
  if (runs_.asked_static) whole_at_the_batch_asked(index, op);
  if (op.faults.empty() && !lost_why && !l.body) alone_as_in_a_batch(index, in, op);
  if (!lost_why && folds(index, in, op)) return;
  if (!op.faults.empty()) {
    report_faults(index, op);
    set_all(index, kind::broken);
  } else if (lost_why) {
    // A rule may prove a fault without the output shapes (a Split of the batch into halves fails at
    // the odd sample batches); nothing else can be decided from them.
    set_unknown(index, *lost_why);
  } else if (op.undecided) {
    // A body that cannot tell has reported why inside it.
    const bool inside = op.undecided->code == why::body_cannot_tell || op.undecided->code == why::body_not_propagated;
    set_unknown(index, *op.undecided, nested_.contains(index) && inside);
  } else if (!consistent(index)) {
    set_unknown(index, why::answer_contradicted);
  }
}

/// A slice of the batch axis found to drop samples at the sample batches (above 1000) that keeps the
/// whole axis at the batch asked (`x[:1000]` at batch 4) drops none there: not a "no". The layers after it
/// see another shape at the sample batches than the batch would give them, so they cannot be followed.
void scope::whole_at_the_batch_asked(std::size_t index, detail::batch_op& op) const {
  const auto& l = layers_[index];
  const auto it = std::find_if(op.faults.begin(), op.faults.end(), [](const detail::batch_fault& f) {
    return f.issue == batch_issue::drops_samples && f.reason.code == why::slices_batch;
  });
  if (it == op.faults.end() || l.outputs.empty() || op.faults.size() != 1) return;
  const auto port = it->port.value_or(0);
  const auto axis = static_cast<std::size_t>(it->reason.numbers[1]);
  if (port >= l.inputs.size()) return;
  const auto& in = target_.input(g_, l, port).shape;
  const auto& out = target_.outputs[index][0].shape;
  if (!in.rank_known() || !out.rank_known() || in.size() != out.size() || axis >= in.size() ||
      !in[axis].is_static() || !out[axis].is_static() || in[axis].lo() != out[axis].lo())
    return;
  op.faults.clear();
  op.cannot_tell(because(why::slice_whole_at_asked, port, axis));
}

/// What to do about a layer that cannot tell: where the reason is a shape the model's other dynamic
/// dimensions leave unknown, give them sizes (--shape); where the op is already vouched for, nothing more
/// to vouch; otherwise vouch for the op if it keeps samples apart.
text::reason_text scope::undecided_hint(const layer& l, const because& reason) const {
  switch (reason.code) {
    case why::output_dimensions_unknown:
    case why::prefix_not_static:
    case why::dimension_before_batch_may_be_1:
    case why::data_rank_unknown:
    case why::output_rank_unknown:
    case why::an_input_rank_unknown:
    case why::input_rank_unknown:
    case why::ranks_unknown:
    case why::not_propagated_at_samples:
      if (inputs_ != nullptr) {
        if (auto hint = text::dynamic_dims_hint(spelling(), *inputs_); !hint.text.empty()) return hint;
      }
      break;
    case why::assumed_axes_differ:
    case why::assumed_without_batch: return {};  // vouched for already: the sentence says why it is not enough
    case why::slice_whole_at_asked: return text::slice_whole_at_asked_hint();
    case why::reads_interleaved: return text::reads_interleaved_hint(reason.quoted, reason.numbers[1]);
    default: break;
  }
  // An ONNX node reshape1 does not translate has no output shapes: vouching for it would not give them.
  if (g_.format() == model_format::onnx && l.find("not_covered") != nullptr) return text::not_covered_hint(spelling(), l);
  return text::rule_hint(spelling(), batch_issue::cannot_tell, l);
}

/// The run at batch 1, each sample alone; null when it has not been made yet, and then the scope is
/// asked to run again with it (it is made only when a value computed from the batch size needs it).
const propagation* scope::alone() {
  if (runs_.at_one == nullptr) wants_one_ = true;
  return runs_.at_one;
}

/// A layer that reads a value computed from the batch size as a parameter (a Slice's start or end, a
/// Gather's indices, TopK's k, a Resize's scale, an Expand's shape): the sample batches show it there,
/// not at batch 1, where each sample is alone (`k = min(n, 3)` is 3 at every sample batch). Decided
/// layers: each output's shape at batch 1 must be one sample's share of the batched one (or the same,
/// for a shared output). Every such layer: no element of the parameter that is not the batch itself may
/// differ between batch 1 and the batches compared. Where either fails, the parameter makes each
/// sample's result depend on the batch: the layer mixes samples.
void scope::alone_as_in_a_batch(std::size_t index, const std::vector<batch_state>& in, detail::batch_op& op) {
  const auto port = std::find_if(in.begin(), in.end(), [](const batch_state& s) { return s.is(kind::size_value); });
  if (port == in.end() || alone() == nullptr) return;
  const auto p_port = static_cast<std::size_t>(port - in.begin());
  std::optional<bool> shares = true;
  if (!op.undecided) {
    shares = shares_alone(index);
    if (shares == false) {
      op.mixes(p_port, {why::size_value_as_parameter, p_port});
      return;
    }
  }
  for (std::size_t p = 0; p < in.size(); ++p) {
    // Data the same alone as at every batch asked gives each sample what it gets alone there, whatever the
    // samples read; a parameter so does not (batch_op::alike_data).
    const bool alike_data = std::find(op.alike_data.begin(), op.alike_data.end(), p) != op.alike_data.end();
    if (!in[p].is(kind::size_value) || alike_data) continue;
    const auto picks = picks_otherwise_alone(layers_[index], p);
    if (picks == true) {
      op.mixes(p, {why::size_value_as_parameter_value, p});
      return;
    }
    if (!picks) op.cannot_tell({why::size_value_parameter_unproven, p});
  }
  // A shape at batch 1 that is less known than at the samples shows no difference: not proven either way.
  if (!shares.has_value()) op.cannot_tell({why::size_value_parameter_unproven, p_port});
}

/// Whether each output of layer `index` at batch 1 is one sample's share of its batched shape at the
/// sample batches (the same shape, for a shared output): false where a dimension known in both differs,
/// nullopt where the only differences are dimensions one of the runs does not know.
std::optional<bool> scope::shares_alone(std::size_t index) const {
  bool unknown = false;
  for (std::size_t o = 0; o < states_[index].size(); ++o) {
    const auto& s = states_[index][o];
    if (!s.is(kind::batched) && !s.is(kind::shared)) continue;
    const auto& alone = runs_.at_one->outputs[index][o].shape;
    const auto& sample = runs_.at_samples[0]->outputs[index][o].shape;
    if (!alone.rank_known() || !sample.rank_known()) continue;
    std::vector<dimension> share(sample.begin(), sample.end());
    if (s.is(kind::batched)) {
      if (s.axis >= share.size()) continue;
      share[s.axis] = dimension(s.factor);
    }
    const partial_shape expected(std::move(share));
    if (to_string(without_symbols(alone)) == to_string(without_symbols(expected))) continue;
    if (alone.size() != expected.size()) return false;
    for (std::size_t d = 0; d < alone.size(); ++d) {
      if (!alone[d].is_static() || !expected[d].is_static()) unknown = true;
      else if (alone[d].lo() != expected[d].lo()) return false;
    }
  }
  if (unknown) return std::nullopt;
  return true;
}

/// Whether input `port` of `l`, a parameter computed from the batch size, has an element that is not
/// the batch itself (the sample batches agree on it) and is another at batch 1 than at a batch compared
/// (a sample batch, the batch asked, the example batch): `start = min(n - 1, 2)` is 2 in every batch and
/// 0 alone; `index = n % 2` is 1 at the samples and alone but 0 at batch 4. It picks other values for a
/// sample alone than for the same sample in a batch, whatever the output's shape. At a dynamic batch asked
/// the run there must know each such element exactly (then it is the same at every batch asked): the
/// samples, batch 1 and the example batch cannot show `n == 4` in `1..8`; nullopt when it does not.
std::optional<bool> scope::picks_otherwise_alone(const layer& l, std::size_t port) const {
  const auto& alone = runs_.at_one->input(g_, l, port).value;
  if (!known(alone) || alone->is_real()) return false;
  const auto elements_of = [&](const propagation* run) -> const std::vector<element_bound>* {
    if (run == nullptr) return nullptr;
    const auto& v = run->input(g_, l, port).value;
    if (!known(v) || v->is_real() || v->elements.size() != alone->elements.size()) return nullptr;
    return &v->elements;
  };
  std::array<const std::vector<element_bound>*, samples.size()> at{};
  for (std::size_t k = 0; k < samples.size(); ++k)
    if ((at[k] = elements_of(runs_.at_samples[k])) == nullptr) return false;
  const auto* asked = elements_of(runs_.asked_static ? &target_ : nullptr);
  const auto* example = elements_of(runs_.example);
  const auto& over = target_.input(g_, l, port).value;  // over every batch asked, for a dynamic one
  const bool over_fits = over && !over->is_real() && over->elements.size() == alone->elements.size();
  bool unproven = false;
  for (std::size_t e = 0; e < alone->elements.size(); ++e) {
    const auto v = (*at[0])[e].lo;
    if (std::any_of(at.begin(), at.end(), [&](const auto* x) { return (*x)[e].lo != v; })) continue;  // the batch
    const auto one = alone->elements[e].lo;
    if (v != one || (asked != nullptr && (*asked)[e].lo != one) || (example != nullptr && (*example)[e].lo != one))
      return true;
    if (!runs_.asked_static) {
      if (!over_fits || !over->elements[e].exact()) unproven = true;
      else if (over->elements[e].lo != one) return true;
    }
  }
  if (unproven) return std::nullopt;
  return false;
}

}  // namespace reshape1::model::batch_analysis
