// The rounds of `fix`, whatever file the model came from (fix_planner.hpp): rewrites are data (edits of
// the graph in memory, graph/edit.hpp), judged in groups on the edited graph; the format writes the
// model once at the end, reads it back, and the planner proves it at every requested batch.
#include "model/analysis/fix_planner.hpp"

#include <algorithm>
#include <numeric>
#include <variant>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "detail/fail.hpp"
#include "model/analysis/batch_internal.hpp"
#include "model/ops/rules.hpp"
#include "model/ops/sizes.hpp"
#include "model/options.hpp"
#include "model/text/fix.hpp"
#include "reshape1/model/propagate.hpp"

namespace reshape1::model::detail {
namespace {

using reshape1::detail::fail;

/// The layers `within` names in `g`, as the reports name them.
std::vector<enclosing_layer> enclosing(const graph& g, const std::vector<std::int64_t>& within) {
  std::vector<enclosing_layer> r;
  const graph* at = &g;
  for (const auto id : within) {
    const auto* l = at->find(id);
    if (l == nullptr || !l->body) break;
    r.push_back({l->id, std::string(l->name), std::string(l->type)});
    at = &l->body->network;
  }
  return r;
}

/// The largest layer id of `g` and of every body in it.
std::int64_t largest_id(const graph& g) {
  std::int64_t r = 0;
  for (const auto& l : g.layers()) {
    r = std::max(r, l.id);
    if (l.body) r = std::max(r, largest_id(l.body->network));
  }
  return r;
}

/// A pattern's values as the notation, from a propagation (unknown elements as ?); for another layer, the
/// values of its input `port` (an Interpolate's sizes, a Slice's ends).
std::string pattern_text(const graph& g, const propagation& p, const layer& l, std::size_t port = 1) {
  if (part_of(l.type) == op_part::reshape) return to_string(detail::without_symbols(detail::reshape_pattern_at(g, p, l, nullptr)));
  if (const auto w = window_of(l); w && global_reduction(l)) return fmt::format("[{}]", fmt::join(w->kernel, ","));  // a window
  // (A Const computed whole: its own values.)
  const bool own = part_of(l.type) == op_part::constant;
  if (!own && port >= l.sources.size()) return "?";
  const auto index = static_cast<std::size_t>(&l - g.layers().data());
  if (own && (index >= p.outputs.size() || p.outputs[index].empty())) return "?";
  // (A Const's values above those the propagation holds are read from its bytes.)
  const auto read = own && !p.outputs[index][0].value ? detail::const_with_values(g, p, index).value : std::nullopt;
  const auto& v = read ? read : own ? p.outputs[index][0].value : p.input(g, l, port).value;
  if (!v) return "?";
  // The first 16 values, and how many there are where there are more (a grid of 384).
  constexpr std::size_t shown = 16;
  const auto n = v->is_real() ? v->reals.size() : v->elements.size();
  std::string out = "[";
  for (std::size_t k = 0; k < n && k < shown; ++k) {
    if (k != 0) out += ",";
    if (v->is_real())  // a Range's limit counted in floats
      out += fmt::format("{}", v->reals[k]);
    else
      out += v->elements[k].exact() ? std::to_string(v->elements[k].lo) : "?";
  }
  return n > shown ? fmt::format("{},...] ({} values)", out, n) : out + "]";
}

/// A reduction a pooling becomes, in the notation of a change: `ReduceMean over [2,3]`.
std::string reduction_text(const fix_plan& x) { return fmt::format("{} over [{}]", x.reduction, fmt::join(x.axes, ",")); }

/// A Const computed as a Range, in the notation of a change: `range(shape('x')[1])*2+1 as [1,-1]`; a grid,
/// `grid([shape('x')[2],shape('x')[3]] along axes [2,3]) as [1,3,-1,-1,2]`; a table, `[shape('x')[0],...]`.
std::string counted_range_text(const fix_plan& x) {
  const auto& r = *x.range;
  if (r.table) return terms_text(x.computed, x.shape_of_name);
  if (!r.axes.empty()) {
    auto shape = r.shape;
    for (const auto a : r.axes) shape[a] = -1;
    return fmt::format("grid({} along axes [{}]) as [{}]", terms_text(x.computed, x.shape_of_name), fmt::join(r.axes, ","),
                       fmt::join(shape, ","));
  }
  auto count = terms_text(x.computed, x.shape_of_name);
  if (count.size() > 2 && count.front() == '[' && count.back() == ']') count = count.substr(1, count.size() - 2);
  return fmt::format("range({}){}{} as [{}]", count, r.step != 1 ? fmt::format("*{}", r.step) : std::string(),
                     r.start != 0 ? fmt::format("{:+}", r.start) : std::string(), fmt::join(r.shape, ","));
}

/// The input a finding names (a layer's that is not a Reshape), else the pattern's.
std::size_t port_of(const batch_finding& f) { return finding_port(f).value_or(1); }

/// A proof point's line in the report: check_batch's summary, after the shapes it was asked at (new sizes).
/// The step a finding of a proof at new sizes names: the model fails at a member of a size asked as `?` or
/// an interval, and runs at each member tried that is a multiple of the step (try_members).
std::optional<std::int64_t> step_of(const batch_finding& f, std::string_view which = "step") {
  if (f.issue != batch_issue::fails) return std::nullopt;
  for (const auto& [key, value] : f.args)
    if (key == which && std::holds_alternative<std::int64_t>(value)) return std::get<std::int64_t>(value);
  return std::nullopt;
}

/// The least common multiple of the divisors the computed patterns of `rewrites` write (1: none): a model
/// rewritten so runs only at their multiples, and a step that divides it is the rewrite's doing. (A step
/// nothing written explains, a constant left as it was may stand for: `[1,-1,1,4]` of `[1,4·S,1,6]` runs at
/// even sizes and keeps S = 4.)
std::int64_t divisors_of(const std::vector<const fix_plan*>& plans) {
  std::int64_t l = 1;
  for (const auto* x : plans)
    for (const auto& t : x->computed)
      if (t.divisor > 1 && l <= (std::int64_t{1} << 40) / t.divisor) l = std::lcm(l, t.divisor);
  return l;
}

template <class Explained>
std::string line_of(const text::proof_at& at, const batch_report& r, Explained explained) {
  if (at.key == "batch") return r.summary_line();
  // A model that runs only at a step of the sizes asked (a window of 7: the rewrite divides by it) is
  // checked at that step: the member it fails at is named.
  for (const auto& f : r.findings)
    if (const auto step = step_of(f); step && explained(f)) {
      const bool rest = std::all_of(r.findings.begin(), r.findings.end(), [&](const batch_finding& x) {
        return &x == &f || x.code == "sizes_not_proven";
      });
      if (rest)
        return fmt::format("at {}: at multiples of {} (it fails at {}): reshapes to the given shapes: cannot tell: "
                           "the sizes are not proven for each multiple",
                           at.value, *step, f.at);
    }
  // (The proof takes it: said as the whole answer, "cannot tell" beside "wrote" reads as a contradiction.)
  if (!r.findings.empty() &&
      std::all_of(r.findings.begin(), r.findings.end(), [](const batch_finding& x) { return x.code == "sizes_not_proven"; }))
    return fmt::format(
        "at {}: reshapes to the given shapes: cannot tell only as propagation over ? or an interval "
        "does not prove each size (sizes_not_proven); the sizes after are checked one by one",
        at.value);
  return fmt::format("at {}: {}", at.value, r.summary_line());
}

/// The bytes of a Const, copied out of its weights (guarded against a .bin that shrinks while mapped).
std::vector<std::byte> bytes_of(const graph& g, const layer& l) {
  const auto stored = g.const_bytes(l);
  std::vector<std::byte> bytes(stored.size());
  detail::copy_const_bytes(g, stored, bytes);
  return bytes;
}

}  // namespace

std::vector<std::int64_t> ids_of(const std::vector<enclosing_layer>& within) {
  std::vector<std::int64_t> ids;
  for (const auto& w : within) ids.push_back(w.id);
  return ids;
}

layer_key key_of(const batch_finding& f) { return {ids_of(f.within), f.id}; }

/// The graph that `within` leads to from `g` (propagated as `p`, or nullptr), or nullopt when a layer on
/// the way is missing or has no body.
std::optional<fix_site> site_at(const graph& g, const propagation* p, const std::vector<std::int64_t>& within) {
  fix_site s{&g, p};
  for (const auto id : within) {
    const auto* l = s.g->find(id);
    if (l == nullptr || !l->body) return std::nullopt;
    s.p = s.p == nullptr ? nullptr : s.p->body(static_cast<std::size_t>(l - s.g->layers().data()));
    s.g = &l->body->network;
  }
  return s;
}

fix_planner::fix_planner(graph original, const fix_options& options)
    : options_(options), original_(std::move(original)) {
  check_fix_options(options_);
  if (!sizes() && options_.check_batches.empty())
    options_.check_batches = {dimension(1), dimension(2), dimension(8), dimension()};
  declared_ = propagate(original_);
  read_ = outputs_read(original_);
  layer_count_ = original_.layers().size();
  // A clone's id is new in the body that holds it too: above every id of the model and its bodies.
  next_id_ = largest_id(original_);
}

fix_report fix_planner::run() {
  report("checking");
  runs_.runs[0] = declared();  // shares its tensors
  probe_ = check_batch_keeping(original_, request(dimension()), runs_);
  original_inputs_ = probe_->inputs;
  make_proofs();
  declarations_ = rewrites_declarations(*probe_);
  if (clean()) return std::move(report_);
  current_.emplace(original_);
  count_consumers();
  do rounds();
  while (!prove());
  return std::move(report_);
}

bool fix_planner::rewrites(const fix_site&, const std::vector<std::int64_t>&, const layer&) const { return true; }
bool fix_planner::rewrites_declarations(const batch_report&) { return false; }
std::optional<text::fix_reason> fix_planner::refuses_computed(const fix_site&, const layer&,
                                                              const std::optional<std::pair<std::int64_t, std::size_t>>&) const {
  return std::nullopt;
}
std::vector<input_shape> fix_planner::original_inputs_of(const graph&) { return {}; }

bool fix_planner::clean() {
  if (!passes(*probe_) || declarations_) return false;
  std::vector<std::string> lines;
  for (const auto& point : proofs_) {
    // The probe is the check at a dynamic batch, or at the shapes asked (the first point).
    if (sizes() ? &point == &proofs_.front() : point.request.batch == dimension()) {
      lines.push_back(line_of(point.at, *probe_, [](const batch_finding&) { return false; }));
      continue;
    }
    const auto r = check_batch(original_, point.request);
    if (!passes(r)) return false;
    lines.push_back(line_of(point.at, r, [](const batch_finding&) { return false; }));
  }
  report_.checked = std::move(lines);
  report_.nothing_to_do = report_.fixed = true;
  return true;
}

void fix_planner::report(std::string_view stage, const proof_point* point) const {
  if (!options_.progress) return;
  const bool batch = point != nullptr && point->at.key == "batch";
  options_.progress({.stage = stage, .layers = layer_count_, .round = round_, .tried = tried_count_,
                     .kept = kept_count_, .batch = batch ? std::string_view(point->at.value) : std::string_view(),
                     .shapes = point != nullptr && !batch ? std::string_view(point->at.value) : std::string_view(),
                     .round_tried = std::min(tried_count_ - round_first_tried_, round_rewrites_),
                     .round_rewrites = round_rewrites_, .batch_index = point == nullptr ? 0 : batch_index_,
                     .batches = point == nullptr ? 0 : proofs_.size()});
}

reshape_request fix_planner::request(const dimension& b) const {
  if (sizes())
    return {.shapes = options_.shapes, .layouts = options_.layouts, .assume_constant = options_.assume_constant,
            .spelling = options_.spelling};
  return {.batch = b, .layouts = options_.layouts, .assume_constant = options_.assume_constant,
          .spelling = options_.spelling};
}

bool fix_planner::step_explained(const batch_finding& f, const std::vector<candidate*>& also) const {
  if (!sizes()) return false;
  const auto key = key_of(f);
  std::vector<const fix_plan*> plans;
  // (A model read back for the proof numbers its layers anew where rewrites added some: its findings are
  // matched by the layer's name there.)
  for (const auto& r : rewrites_)
    if (r.p.within == key.within && (r.p.reshape == key.id || (!f.name.empty() && r.change.name == f.name)))
      plans.push_back(&r.p);
  for (const auto* c : also)
    if (c->key == key && c->next < c->plans.size()) plans.push_back(&c->plans[c->next]);
  // (Only what this layer's rewrite divides by: a Divide the model already computes a shape with says
  // nothing of a Reshape whose constant makes it fail off a step, nor does another layer's division of a
  // layer that fails off it: an upsampling by two after a computed halving fails at odd sizes where the
  // program, which resized to the map's own size, runs.)
  const auto divisors = divisors_of(plans);
  const auto step = step_of(f), layer_step = step_of(f, "layer_step");
  return (step && divisors % *step == 0) || (!also.empty() && layer_step && divisors % *layer_step == 0);
}

bool fix_planner::passes(const batch_report& r) const {
  if (!sizes()) return r.summary.reshapes();
  return std::all_of(r.findings.begin(), r.findings.end(), [&](const batch_finding& f) {
    return f.code == "sizes_not_proven" || f.issue == batch_issue::scales_with_batch || step_explained(f);
  });
}

void fix_planner::rounds() {
  while (true) {
    // What a round is planned on (after the proof took rewrites back, found again).
    (void)declared();
    if (!probe_) {
      runs_ = {};
      probe_ = check_batch_keeping(*current_, request(dimension()), runs_);
    }
    std::vector<candidate> group;
    std::vector<fix_refusal> unplanned;
    gather(group, unplanned);
    if (group.empty() && unplanned.empty()) return;
    ++round_;
    round_first_tried_ = tried_count_;
    round_rewrites_ = group.size();
    kept_ = 0;
    failed_.clear();
    std::vector<candidate*> all;
    for (auto& c : group) all.push_back(&c);
    if (!all.empty()) attempt(all);
    // A Reshape whose plan failed, or that had none, may have been seen through a Reshape before it that
    // this round rewrote: it is planned again on the model as it now is.
    if (kept_ > 0) continue;
    final_ = true;
    for (auto* c : std::vector<candidate*>(failed_)) {
      ++tried_[c->key];
      if (++c->next < c->plans.size())
        attempt({c});
      else
        refuse(*c, last_failure_[c->key]);
    }
    final_ = false;
    if (kept_ > 0) continue;
    for (auto& x : unplanned) {
      done_.insert({ids_of(x.within), x.id});
      report_.refusals.push_back(std::move(x));
    }
  }
}

void fix_planner::gather(std::vector<candidate>& group, std::vector<fix_refusal>& unplanned) {
  // A Reshape that no rule decides is named only when an element writes the declared batch (the value to
  // change is known); otherwise the proof refuses it, with what keeps it from being decided.
  const auto named = [&](const batch_finding& f) {
    if (done_.contains(key_of(f))) return false;
    // New sizes: an Interpolate to fixed sizes, or a slice to fixed bounds, along axes that change (they are
    // computed), a Gather at the last position of one (it becomes -1), a TopK of the whole of one (its k is
    // computed), a Tile or Expand that spreads its data over one (its repeats or shape are computed), a Range
    // that counts along one (its limit is computed), a Divide by a count of elements (its divisor is) or a
    // Multiply by one over it (its factor is).
    if (part_of(f.type) != op_part::reshape) {
      if (!sizes() || !f.within.empty()) return false;
      const auto s = where(f);
      const auto* l = s ? s->g->find(f.id) : nullptr;
      return l != nullptr && reads_values(*l, f) && rewrites(*s, {}, *l);
    }
    // New sizes: every finding of a Reshape of the model itself (a body's sizes are not searched).
    if (f.issue == batch_issue::scales_with_batch) return false;
    if (sizes() ? !f.within.empty() || f.code == "sizes_not_proven" || step_explained(f)
                : f.issue == batch_issue::cannot_tell && !f.pattern_index)
      return false;
    const auto s = where(f);
    return s && rewrites(*s, ids_of(f.within), *s->g->find(f.id));
  };
  // A Reshape after another one named here waits for a later round: what it is found to do may be the
  // earlier one's doing, and is seen again once that one is rewritten. (A body's Reshape is after what
  // the layer that runs the body is after, and after the Reshapes named before it in that body.)
  // Asked once a finding: the format's answer may search its file.
  const auto& findings = probe_->findings;
  std::vector<char> is_named(findings.size(), 0);
  for (std::size_t k = 0; k < findings.size(); ++k) is_named[k] = named(findings[k]);
  std::vector<char> named_here(current_->layers().size(), 0);
  std::map<const graph*, std::vector<char>> named_in_body;
  const auto index_in = [](const graph& g, std::int64_t id) { return static_cast<std::size_t>(g.find(id) - g.layers().data()); };
  for (std::size_t k = 0; k < findings.size(); ++k) {
    if (!is_named[k]) continue;
    const auto& f = findings[k];
    named_here[index_of(f.within.empty() ? f.id : f.within.front().id)] = 1;
    if (f.within.empty()) continue;
    const auto s = where(f);
    auto& marks = named_in_body[s->g];
    marks.resize(s->g->layers().size(), 0);
    marks[index_in(*s->g, f.id)] = 1;
  }
  const auto after = downstream_of(*current_, named_here);
  for (auto& [body, marks] : named_in_body) marks = downstream_of(*body, marks);
  const auto waits = [&](const batch_finding& f) {
    if (after[index_of(f.within.empty() ? f.id : f.within.front().id)]) return true;
    if (f.within.empty()) return false;
    const auto s = where(f);
    return named_in_body[s->g][index_in(*s->g, f.id)] != 0;
  };
  std::set<layer_key> seen;
  for (std::size_t k = 0; k < findings.size(); ++k) {
    const auto& f = findings[k];
    const auto key = key_of(f);
    if (!is_named[k] || waits(f) || !seen.insert(key).second) continue;
    text::fix_reason reason;
    auto plans = plans_for(f, reason);
    const auto skip = std::min(tried_[key], plans.size());
    plans.erase(plans.begin(), plans.begin() + static_cast<std::ptrdiff_t>(skip));
    if (plans.empty()) {
      unplanned.push_back(refused(f.id, f.name, f.type, last_failure_.contains(key) ? last_failure_[key] : reason, f.within));
      continue;
    }
    const auto s = where(f);
    const auto& l = *s->g->find(f.id);
    for (auto& p : plans) p.input = input_word(l);
    // (A Pad's amounts are its begins then its ends, as ONNX lists them and as they are computed.)
    auto was = pattern_text(*s->g, *s->p, l, plans.front().pads ? 1 : port_of(f));
    if (plans.front().pads) {
      const auto ends = pattern_text(*s->g, *s->p, l, 2);
      if (was.size() > 2 && was.front() == '[' && was.back() == ']' && ends.size() > 2 && ends.front() == '[')
        was = was.substr(0, was.size() - 1) + "," + ends.substr(1);
    }
    group.push_back({key, f.within, f.name, f.type, std::move(was), std::move(plans), 0});
  }
}

void fix_planner::refuse(const candidate& c, text::fix_reason reason) {
  done_.insert(c.key);
  report_.refusals.push_back(refused(c.key.id, c.name, c.type, std::move(reason), c.within));
}

/// Where finding `f`'s layer is in the current model, with the propagation there (at the declared
/// shapes); nullopt when the propagation kept none for its body.
std::optional<fix_site> fix_planner::where(const batch_finding& f) const {
  auto s = site_at(*current_, &runs_.declared(), ids_of(f.within));
  if (!s || s->p == nullptr || s->g->find(f.id) == nullptr) return std::nullopt;
  return s;
}

/// Judges `group`'s current plans together on the model as rewritten so far; keeps them, or splits.
void fix_planner::attempt(const std::vector<candidate*>& group) {
  tried_count_ += group.size();
  report("judging rewrites");
  auto trial = rewrites_;
  std::optional<graph> next;
  batch_report next_probe;
  batch_undo undo;
  bool in_place = false;                 // runs_ are being made next's
  std::optional<text::fix_reason> failure;  // why the group failed: an error
  std::optional<std::int64_t> changed;   // or the first layer whose declared shapes it changed
  std::map<layer_key, batch_issue> failing;
  try {
    convert(group, trial);
    const auto [edits, appended] = build(trial);
    next.emplace(edited(edits, appended));
    // Only the layers the rewrites reach are propagated again, in place: the others keep the current
    // model's results, and a group that fails puts back what it replaced.
    const auto redo = layers_to_redo(*current_, *next);
    in_place = true;
    declared_in_place(*next, runs_, redo, undo);
    changed = first_difference(runs_.declared());
    if (!changed) {
      next_probe = check_batch_in_place(*next, request(dimension()), runs_, redo, undo);
      // A layer that runs only at multiples of a divisor its rewrite writes (a window's 7) is no failure of it.
      const auto stepped = [&](const batch_finding& f) { return step_explained(f, group); };
      for (const auto& f : next_probe.findings)
        if (f.issue != batch_issue::scales_with_batch && !stepped(f) &&
            std::any_of(group.begin(), group.end(), [&](const candidate* c) { return c->key == key_of(f); }))
          failing.emplace(key_of(f), f.issue);
    }
  } catch (const error& e) {
    if (e.code() == errc::io) throw;  // the weights cannot be read (they changed): not this rewrite's fault
    failure = text::rewrite_raises(e.code(), e.what());
  }
  if (!failure && !changed && failing.empty()) {
    keep(group, std::move(trial), std::move(*next), std::move(next_probe));
    return;
  }
  if (in_place) undo_runs(*current_, runs_, std::move(undo));
  failed(group, failing, failure, changed);
}

void fix_planner::failed(const std::vector<candidate*>& group, const std::map<layer_key, batch_issue>& failing,
                         const std::optional<text::fix_reason>& failure, std::optional<std::int64_t> changed) {
  if (group.size() == 1) {
    auto& c = *group[0];
    const auto& x = c.plans[c.next];
    const auto issue = failing.empty() ? batch_issue::fails : failing.begin()->second;
    const auto computed = !x.reduction.empty() ? reduction_text(x)
                          : x.computed.empty() ? std::string()
                                               : terms_text(x.computed, x.shape_of_name);
    last_failure_[c.key] = changed   ? text::rewrite_changes_shapes(x.index, x.value, *changed, computed, x.input)
                           : failure ? *failure
                                     : text::rewrite_still_leaves(x.index, x.value, issue, proofs_.front().at.key == "batch"
                                                                                                 ? text::proof_at{"batch", "?"}
                                                                                                 : proofs_.front().at,
                                                                  computed, x.input);
    if (!final_) {  // judged again in this round's final pass, or planned again in the next round
      failed_.push_back(&c);
      return;
    }
    ++tried_[c.key];
    if (++c.next < c.plans.size()) return attempt(group);
    refuse(c, last_failure_[c.key]);
    return;
  }
  std::vector<candidate*> first, second;
  if (!failing.empty() && failing.size() < group.size()) {
    for (auto* c : group) (failing.contains(c->key) ? second : first).push_back(c);
  } else {
    first.assign(group.begin(), group.begin() + static_cast<std::ptrdiff_t>(group.size() / 2));
    second.assign(group.begin() + static_cast<std::ptrdiff_t>(group.size() / 2), group.end());
  }
  attempt(first);
  if (second.size() > 1 && !failing.empty() && !failure && !changed) {  // each alone: they failed together
    for (auto* c : second) attempt({c});
  } else {
    attempt(second);
  }
}

/// Adds `group`'s current plans to `trial` as rewrites. A shared Const is cloned for the Reshape that
/// needs the change, unless every layer it feeds is in the group with the same change: then it is
/// rewritten in place and stays one Const.
void fix_planner::convert(const std::vector<candidate*>& group, std::vector<fix_rewrite>& trial) {
  std::map<layer_key, std::vector<const fix_plan*>> by_holder;
  for (const auto* c : group) {
    const auto& x = c->plans[c->next];
    if (!x.adds_layers()) by_holder[{x.holder_within, x.holder}].push_back(&x);
  }
  for (const auto* c : group) {
    const auto& x = c->plans[c->next];
    if (x.adds_layers()) {
      // Ids for the layers that compute it, above every id so far (computed_edits adds at most this many).
      // ShapeOf, axis, Concat (a reduction's axes: one); a Pad's two halves, each with its Convert: twice
      // that and two; a pad to a multiple: its multiple, two remainders and a difference; a Range: its count
      // as a scalar (two), its start, limit and step, a step and a start (two each), a Convert and a Reshape
      // with its shape; a grid: its base, and for each axis its index, Gather, Range (three), Convert,
      // Reshape (two), slope, Multiply and Add, and a Convert.
      std::size_t layers = x.pads ? 8 : x.range ? (x.range->axes.empty() ? 15 : 4 + 12 * x.range->axes.size()) : 3;
      for (const auto& t : x.computed) layers += 2 + 3 * t.dims.size() + 4 + (t.multiple != 0 ? 4 : 0);
      fix_rewrite r;
      r.p = x;
      r.target = next_id_ + 1;
      if (__builtin_add_overflow(next_id_, static_cast<std::int64_t>(layers), &next_id_))
        fail(errc::unsupported, {}, "no layer id is left for the layers that compute a pattern", "give the layers smaller ids");
      trial.push_back(std::move(r));
      continue;
    }
    const auto& body = *site_at(*current_, nullptr, x.holder_within)->g;
    const auto& holder = *body.find(x.holder);
    const auto& sharing = by_holder[{x.holder_within, x.holder}];
    const bool same = std::all_of(sharing.begin(), sharing.end(), [&](const fix_plan* y) {
      return y->index == x.index && y->value == x.value && y->also == x.also;
    });
    const auto readers = this->readers(x.holder_within, body, holder);
    fix_rewrite r;
    r.p = x;
    r.clone = readers > 1 && !(same && sharing.size() == readers);
    if (r.clone && __builtin_add_overflow(next_id_, 1, &next_id_))
      fail(errc::unsupported, {}, fmt::format("{}: no layer id is left for its copy", holder.where()),
           "give the layers smaller ids");
    r.target = r.clone ? next_id_ : x.holder;
    r.bytes = bytes_of(body, holder);
    const auto width = static_cast<std::size_t>(bit_width(holder.element("element_type")) / 8);
    const auto write = [&](std::size_t index, std::int64_t v) {
      if (width == 0 || (index + 1) * width > r.bytes.size())
        fail(errc::unsupported, {}, fmt::format("{}: its element type is not rewritten", holder.where()), {});
      const auto value = static_cast<std::uint64_t>(v);
      for (std::size_t b = 0; b < width; ++b)
        r.bytes[index * width + b] = static_cast<std::byte>((value >> (8 * b)) & 0xFF);
    };
    write(x.index, x.value);
    for (const auto& [index, v] : x.also) write(index, v);
    trial.push_back(std::move(r));
  }
}

/// The edits of `rewrites`, and the bytes they append to the weights.
std::pair<std::vector<graph_edit>, std::vector<std::byte>> fix_planner::build(const std::vector<fix_rewrite>& rewrites) const {
  using kind = graph_edit::kind;
  std::vector<graph_edit> edits;
  std::vector<std::byte> appended;
  std::map<layer_key, std::size_t> written;  // a Const's latest bytes: their place in `appended`
  const auto base = appended_from();
  for (const auto& r : rewrites) {
    const auto& within = r.p.holder_within;
    if (r.p.adds_layers()) {
      computed_edits(r.p, r.target, base, edits, appended);
      continue;
    }
    if (r.clone)
      edits.push_back({.what = kind::clone_layer,
                       .layer = r.p.holder,
                       .name = clone_name(*site_at(original_, nullptr, within)->g->find(r.p.holder), r.p.consumer),
                       .id = r.target,
                       .consumer = r.p.consumer,
                       .port = r.p.consumer_port,
                       .within = within});
    std::size_t at = appended.size();
    if (const auto it = written.find({within, r.target});
        it != written.end() && it->second + r.bytes.size() <= appended.size() &&
        std::equal(r.bytes.begin(), r.bytes.end(), appended.begin() + static_cast<std::ptrdiff_t>(it->second))) {
      at = it->second;  // the same bytes as the Const's last rewrite (one Const rewritten for two Reshapes)
    } else {
      appended.insert(appended.end(), r.bytes.begin(), r.bytes.end());
    }
    written[{within, r.target}] = at;
    edits.push_back({.what = kind::set_attribute, .layer = r.target, .name = "offset",
                     .text = std::to_string(base + at), .within = within});
    edits.push_back({.what = kind::set_attribute, .layer = r.target, .name = "size",
                     .text = std::to_string(r.bytes.size()), .within = within});
    if (r.p.set_special_zero)
      edits.push_back(
          {.what = kind::set_attribute, .layer = r.p.reshape, .name = "special_zero", .text = "true", .within = r.p.within});
  }
  return {std::move(edits), std::move(appended)};
}

graph fix_planner::edited(const std::vector<graph_edit>& edits, const std::vector<std::byte>& appended) const {
  // Made once for each set of bytes the edited graphs read (an IR's bodies read its .bin, as it does).
  std::map<const std::byte*, std::pair<std::shared_ptr<const void>, std::span<const std::byte>>> made;
  return graph_editor::edited(original_, edits, [&](const graph& g) {
    const auto* key = graph_editor::weights(g).second.data();
    const auto it = made.find(key);
    return it != made.end() ? it->second : made.emplace(key, weights(g, appended)).first->second;
  });
}

/// The first layer (by id) whose shapes at the declared inputs differ from the original's, or nullopt. An
/// output that no layer of the original reads is not compared: a rewrite may drop it (a MaxPool's indices,
/// which the reduction it becomes does not give).
std::optional<std::int64_t> fix_planner::first_difference(const propagation& p) const {
  std::optional<std::int64_t> first;
  const auto layers = original_.layers();
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if ((!first || layers[i].id < *first) && !same_shapes(declared_->outputs[i], p.outputs[i], read_[i]))
      first = layers[i].id;
  }
  return first;
}

/// Keeps `group`'s rewrites: `next` (whose propagations runs_ now hold) becomes the current model.
void fix_planner::keep(const std::vector<candidate*>& group, std::vector<fix_rewrite> trial, graph next,
                       batch_report next_probe) {
  for (auto k = rewrites_.size(); k < trial.size(); ++k) {
    auto& r = trial[k];
    const layer_key key{r.p.within, r.p.reshape};
    const auto s = site_at(next, &runs_.declared(), r.p.within);
    const auto& l = *s->g->find(r.p.reshape);
    auto& c = r.change;
    c.id = l.id;
    c.name = l.name;
    c.type = l.type;
    c.within = enclosing(next, r.p.within);
    c.old_pattern = std::find_if(group.begin(), group.end(), [&](const candidate* x) { return x->key == key; })[0]->pattern;
    c.new_pattern = s->p != nullptr ? pattern_text(*s->g, *s->p, l, r.p.port) : std::string("?");
    c.element = r.p.index;
    c.old_value = r.p.old_value;
    c.new_value = r.p.value;
    if (!r.p.computed.empty())
      c.computed = c.new_pattern = r.p.range ? counted_range_text(r.p) : form_text(r.p.form, terms_text(r.p.computed, r.p.shape_of_name));
    if (!r.p.reduction.empty()) {  // (the layer in `next` is the reduction already)
      c.computed = c.new_pattern = reduction_text(r.p);
      if (const auto* was = site_at(original_, nullptr, r.p.within)->g->find(r.p.reshape)) c.type = was->type;
    }
    describe(r);
  }
  for (const auto* c : group) done_.insert(c->key);
  kept_ += group.size();
  kept_count_ += group.size();
  rewrites_ = std::move(trial);
  current_.emplace(std::move(next));
  probe_ = std::move(next_probe);
  count_consumers();
}

/// The change's Const and why, as the rewrite now stands (a clone may be merged back at the end).
void fix_planner::describe(fix_rewrite& r) {
  auto& c = r.change;
  c.edit = ir_edit{!r.p.adds_layers() ? r.target : 0, r.clone ? std::optional<std::int64_t>(r.p.holder) : std::nullopt,
                   r.p.set_special_zero};
  c.why = r.clone ? text::cloned_const(r.p.why, r.p.holder) : r.p.why;
}

/// How many inputs each layer of the current model feeds.
void fix_planner::count_consumers() {
  const auto layers = current_->layers();
  consumers_.assign(layers.size(), 0);
  for (const auto& l : layers)
    for (const auto& s : l.sources)
      if (s) ++consumers_[s->layer];
}

std::size_t fix_planner::index_of(std::int64_t id) const {
  return static_cast<std::size_t>(current_->find(id) - current_->layers().data());
}

// Counted once a round for the model's own layers, when asked for a body's (a body is small).
std::size_t fix_planner::readers(const std::vector<std::int64_t>& within, const graph& g, const layer& l) const {
  return within.empty() ? consumers_[static_cast<std::size_t>(&l - current_->layers().data())] : readers_of(g, l);
}

const layer* fix_planner::held_outside(const fix_site& site, const layer& param, fix_plan& x) const {
  if (x.within.empty() || part_of(param.type) != op_part::parameter || site.g->find(param.id) != &param) return nullptr;
  std::vector<std::int64_t> around(x.within.begin(), x.within.end() - 1);
  const auto outer = site_at(*current_, nullptr, around);
  const auto* runs = outer ? outer->g->find(x.within.back()) : nullptr;
  if (runs == nullptr || !runs->body || &runs->body->network != site.g) return nullptr;
  const auto& body = *runs->body;
  const auto mapping = std::find_if(body.inputs.begin(), body.inputs.end(),
                                    [&](const port_mapping& m) { return m.internal_layer == param.id; });
  const bool carried = std::any_of(body.back_edges.begin(), body.back_edges.end(),
                                   [&](const back_edge& e) { return e.to_layer == param.id; });
  if (mapping == body.inputs.end() || mapping->axis || carried) return nullptr;
  const auto port = port_index(runs->inputs, mapping->external_port);
  if (!port || *port >= runs->sources.size() || !runs->sources[*port]) return nullptr;
  const auto& src = outer->g->layers()[runs->sources[*port]->layer];
  if (part_of(src.type) != op_part::constant) return nullptr;
  x.holder_within = std::move(around);
  x.holder = src.id;
  x.consumer = runs->id;
  x.consumer_port = *port;
  return &src;
}

/// `rewrites` with every clone whose final bytes are those its original ends with (the other Reshapes it
/// feeds were rewritten the same way in a later round) dropped: its Reshape reads the original again.
/// A copy: if the proof takes a rewrite back, the others are what they were.
std::vector<fix_rewrite> fix_planner::merged_clones(std::vector<fix_rewrite> rewrites) {
  std::map<layer_key, const std::vector<std::byte>*> last;  // a Const's final bytes
  for (const auto& r : rewrites) last[{r.p.holder_within, r.target}] = &r.bytes;
  for (auto& r : rewrites) {
    if (!r.clone) continue;
    const auto it = last.find({r.p.holder_within, r.p.holder});
    if (it == last.end() || *it->second != r.bytes) continue;
    r.clone = false;
    r.target = r.p.holder;
    describe(r);
  }
  return rewrites;
}

const propagation& fix_planner::declared() {
  if (!declared_) {
    if (original_.layers().empty() && layer_count_ > 0) original_ = reread();
    declared_ = propagate(original_);
  }
  return *declared_;
}

/// Writes the rewritten model once, reads it back, and proves it at every requested batch. False when a
/// rewritten Reshape failed the proof: its rewrite is dropped, and rounds resume.
bool fix_planner::prove() {
  const auto final_rewrites = merged_clones(rewrites_);
  const auto places = places_of(final_rewrites);
  std::optional<graph> proven;
  std::optional<propagation> proven_prop, reference;
  std::vector<input_shape> original_shapes;
  std::vector<fix_refusal> refusals;
  bool all = true;
  if (!final_rewrites.empty() || declarations_) {
    const auto [edits, appended] = build(final_rewrites);
    // The model as rewritten in memory is not needed any more: the proof reads the model back. Nor is
    // the original once it is written, but for its shapes at the declared inputs (declared_): the format
    // may free it, and it is read again if the rounds resume.
    current_.reset();
    runs_ = {};
    probe_.reset();
    proven.emplace(read_back(final_rewrites, edits, appended));
    proven_prop = propagate(*proven);
    original_shapes = original_inputs_of(*proven);
    if (!original_shapes.empty()) reference = propagate(*proven, original_shapes);
    if (auto d = differs(*proven, reference ? *reference : *proven_prop)) {
      refusals.push_back(std::move(*d));
      all = false;
    }
    declared_.reset();  // found again if the rounds resume
  }
  const graph& g = proven ? *proven : original_;
  const propagation& at_declared = proven ? *proven_prop : declared();
  // What not_scaled compares with: the model read back at the original's declared inputs.
  const propagation& original_inputs = reference ? *reference : at_declared;
  std::vector<std::string> checked;
  std::map<layer_key, text::fix_reason> dropped;  // rewritten Reshapes the proof still names
  batch_index_ = 0;
  for (const auto& point : proofs_) {
    ++batch_index_;
    report("proving", &point);
    // The propagation at the declared shapes is the one made above (shared, not made again), and the
    // one at the requested shapes is what not_scaled compares.
    batch_runs runs;
    runs.runs[0] = at_declared;
    if (sizes() && reference) {
      // New sizes are dim_params in the model read back: the sizes it is checked against are the original's.
      runs.runs[0] = *reference;
      runs.declared_inputs = original_shapes;
    }
    const auto r = check_batch_keeping(g, point.request, runs);
    checked.push_back(line_of(point.at, r, [&](const batch_finding& f) { return step_explained(f); }));
    all = all && passes(r) && runs.runs[1];
    if (all && !sizes())
      if (auto unscaled = not_scaled(g, original_inputs, *runs.runs[1], r, *point.request.batch)) {
        refusals.push_back(std::move(*unscaled));
        all = false;
      }
    judge(r, point.at, dropped, refusals);
  }
  if (!dropped.empty()) {
    proven_prop.reset();
    proven.reset();
    if (original_.layers().empty()) original_ = reread();
    drop(dropped);
    return false;
  }
  report_.checked = std::move(checked);
  report_.refusals.insert(report_.refusals.end(), refusals.begin(), refusals.end());
  list_changes(final_rewrites, places);
  report_.fixed = all && report_.refusals.empty();
  if (report_.fixed && (!report_.changes.empty() || declarations_)) {  // only a proven model is ever written
    report("writing");
    accept(report_);
  }
  return true;
}

/// The proof's findings at batch `b`: a rewritten Reshape it still names goes to `dropped` (its rewrite
/// is taken back), any other finding is a refusal (once).
void fix_planner::judge(const batch_report& r, const text::proof_at& at, std::map<layer_key, text::fix_reason>& dropped,
                        std::vector<fix_refusal>& refusals) const {
  for (const auto& f : r.findings) {
    if (f.issue == batch_issue::scales_with_batch || (sizes() && (f.code == "sizes_not_proven" || step_explained(f))))
      continue;
    const auto key = key_of(f);
    const auto rewritten = std::find_if(rewrites_.begin(), rewrites_.end(), [&](const fix_rewrite& x) {
      return x.p.reshape == key.id && x.p.within == key.within;
    });
    if (rewritten != rewrites_.end()) {
      const auto& x = rewritten->p;
      dropped.emplace(key, text::rewrite_still_leaves(x.index, x.value, f.issue, at, {}, x.input));
      continue;
    }
    const auto known = [&](const std::vector<fix_refusal>& v) {
      return std::any_of(v.begin(), v.end(), [&](const auto& x) { return x.id == f.id && x.within == f.within; });
    };
    if (known(report_.refusals) || known(refusals)) continue;
    refusals.push_back(refused(f.id, f.name, f.type, text::refusal(f, at), f.within));
  }
}

/// Takes back the rewrites of the Reshapes the proof still names (each tries its next alternative) and
/// makes the model the rounds resume from.
void fix_planner::drop(const std::map<layer_key, text::fix_reason>& dropped) {
  for (const auto& [key, why] : dropped) {
    const auto& reshape = key;  // clang 14 (the fuzz preset) cannot capture a structured binding
    std::erase_if(rewrites_, [&reshape](const fix_rewrite& x) {
      return x.p.reshape == reshape.id && x.p.within == reshape.within;
    });
    last_failure_[key] = why;
    ++tried_[key];
    done_.erase(key);
  }
  const auto [kept, bytes] = build(rewrites_);
  current_.emplace(edited(kept, bytes));
  runs_ = {};
  probe_.reset();
  count_consumers();
}

/// Where each rewritten Reshape comes in the original's order (producers first): its place, or the
/// place of the layer whose body holds it followed by its place in that body.
std::map<layer_key, std::vector<std::size_t>> fix_planner::places_of(const std::vector<fix_rewrite>& rewrites) const {
  std::map<layer_key, std::vector<std::size_t>> r;
  for (const auto& x : rewrites) {
    auto& place = r[{x.p.within, x.p.reshape}];
    const graph* at = &original_;
    std::vector<std::int64_t> path = x.p.within;
    path.push_back(x.p.reshape);
    for (const auto id : path) {
      const auto* l = at->find(id);
      if (l == nullptr) break;
      const auto index = static_cast<std::size_t>(l - at->layers().data());
      place.push_back(static_cast<std::size_t>(std::find(at->order().begin(), at->order().end(), index) - at->order().begin()));
      if (!l->body) break;
      at = &l->body->network;
    }
  }
  return r;
}

/// The report's changes, in the model's order (`places`), whichever round kept them.
void fix_planner::list_changes(const std::vector<fix_rewrite>& final_rewrites,
                               const std::map<layer_key, std::vector<std::size_t>>& places) {
  std::vector<std::pair<std::vector<std::size_t>, fix_change>> listed;
  for (const auto& r : final_rewrites) listed.emplace_back(places.at({r.p.within, r.p.reshape}), r.change);
  std::stable_sort(listed.begin(), listed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [place, change] : listed) report_.changes.push_back(std::move(change));
}


}  // namespace reshape1::model::detail
