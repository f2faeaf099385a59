// `reshape1 fix`: rewrite the Const pattern elements that keep a model from reshaping. Rewrites are data
// (edits of the graph in memory, read_internal.hpp), judged in groups on the edited graph; the model is
// written to text once at the end, read back from those bytes, and proven at every requested batch.
#include "reshape1/model/fix.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

#include "detail/fail.hpp"
#include "io/files.hpp"
#include "model/analysis/batch_internal.hpp"
#include "model/analysis/fix_internal.hpp"
#include "model/ir/read_internal.hpp"
#include "reshape1/model/propagate.hpp"
#include "model/ops/rules.hpp"
#include "model/text/fix.hpp"

namespace reshape1::model {
namespace {

using detail::op_part;
using detail::part_of;
using detail::readers_of;
using detail::same_shapes;
using detail::without_symbols;

namespace fs = std::filesystem;
using reshape1::detail::fail;


std::string batch_name(const dimension& d) { return to_string(d); }

/// A layer of the model: the layers whose bodies hold it, outermost first (empty at the top level), and its
/// id in that body (a body's ids are its own).
struct layer_key {
  std::vector<std::int64_t> within;
  std::int64_t id = 0;
  friend auto operator<=>(const layer_key&, const layer_key&) = default;
};

std::vector<std::int64_t> ids_of(const std::vector<enclosing_layer>& within) {
  std::vector<std::int64_t> ids;
  for (const auto& w : within) ids.push_back(w.id);
  return ids;
}

layer_key key_of(const batch_finding& f) { return {ids_of(f.within), f.id}; }

/// A body of a model (or the model itself) and what a propagation of the model knows there.
struct site {
  const graph* g = nullptr;
  const propagation* p = nullptr;  ///< nullptr when the propagation kept none
};

/// The graph that `within` leads to from `g` (propagated as `p`, or nullptr), or nullopt when a layer on
/// the way is missing or has no body.
std::optional<site> site_at(const graph& g, const propagation* p, const std::vector<std::int64_t>& within) {
  site s{&g, p};
  for (const auto id : within) {
    const auto* l = s.g->find(id);
    if (l == nullptr || !l->body) return std::nullopt;
    s.p = s.p == nullptr ? nullptr : s.p->body(static_cast<std::size_t>(l - s.g->layers().data()));
    s.g = &l->body->network;
  }
  return s;
}

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

/// A pattern's values as the notation, from a propagation (unknown elements as ?).
std::string pattern_text(const graph& g, const propagation& p, const layer& l) {
  return to_string(detail::without_symbols(detail::reshape_pattern_at(g, p, l, nullptr)));
}

/// What one rewrite does: element `index` of Const `holder` becomes `value`, and the Reshape's special_zero
/// may be set. Whether the Const is cloned is decided when the plan becomes edits (see fixer::convert).
struct plan {
  std::vector<std::int64_t> within;  ///< the bodies the Reshape is in (its holder and consumer too)
  std::int64_t reshape = 0;
  std::int64_t holder = 0;
  std::size_t index = 0;
  std::int64_t value = 0;
  std::int64_t old_value = 0;
  bool set_special_zero = false;
  std::int64_t consumer = 0;  ///< the layer the holder feeds on the way to the Reshape, and its input
  std::size_t consumer_port = 0;
  std::string why;
};

/// A plan made concrete: the Const it writes (the holder, or a clone of it for `consumer`) and the bytes
/// that Const then holds. Kept rewrites are the fix: their edits are what is judged, proven and written.
struct rewrite {
  plan p;
  bool clone = false;
  std::int64_t target = 0;
  std::vector<std::byte> bytes;
  fix_change change;
};

/// The bytes of a Const, copied out of the .bin (guarded against a .bin that shrinks while mapped).
std::vector<std::byte> bytes_of(const graph& g, const layer& l) {
  const auto stored = g.const_bytes(l);
  std::vector<std::byte> bytes(stored.size());
  detail::copy_const_bytes(g, stored, bytes);
  return bytes;
}

bool writable_type(element_type t) {
  switch (t) {
    case element_type::i8: case element_type::i16: case element_type::i32: case element_type::i64:
    case element_type::u8: case element_type::u16: case element_type::u32: case element_type::u64: return true;
    default: return false;
  }
}

/// The fix of one model, in rounds. Each round takes the Reshapes that check_batch at a dynamic batch
/// names on the model as rewritten so far, plans one rewrite for each, and judges them together on the
/// graph in memory: the shapes at the declared inputs must not change, and none of those Reshapes may keep
/// a finding. A group that fails is split (the Reshapes that kept a finding apart from the others, or
/// halves), so that one bad rewrite does not cost the others their place; a Reshape alone that fails takes
/// its next plan, or is refused. Rounds go on until none finds a new Reshape. Then the rewritten model is
/// written to text once, read back from those bytes, and proven at every requested batch; a rewritten
/// Reshape that the proof still names loses its rewrite and the rounds resume with its next plan.
/// A judgement makes the current model's propagations the edited one's in place: only the layers downstream
/// of the rewritten Consts and Reshapes run their rules again, and a group that fails puts back what they
/// replaced. The cost is one check_batch, the layers each judgement reaches (in six propagations) and the
/// proof; rounds follow the depth of chained Reshapes, not the model's size: linear in the layers.
class fixer {
 public:
  fixer(const fs::path& xml, const fs::path& bin, const fix_options& options)
      : xml_(xml), bin_(bin), options_(options), original_(read_ir(xml, bin)) {
    if (options_.check_batches.empty()) options_.check_batches = {dimension(1), dimension(2), dimension(8), dimension()};
    std::error_code ec;
    bin_size_ = fs::file_size(bin, ec);
    if (ec) fail(errc::io, {.file = bin.string()}, fmt::format("{}: cannot open: {}", bin.string(), ec.message()), {});
    xml_size_ = fs::file_size(xml, ec);
    if (!ec) xml_time_ = fs::last_write_time(xml, ec);
    declared_ = propagate(original_);
    layer_count_ = original_.layers().size();
    // A clone's id is new in the body that holds it too: above every id of the model and its bodies.
    next_id_ = largest_id(original_);
    for (const auto& l : original_.layers()) original_ids_.push_back(l.id);
  }

  fix_report run() {
    report("checking");
    runs_.runs[0] = declared();  // shares its tensors
    probe_ = detail::check_batch_keeping(original_, request(dimension()), runs_);
    if (probe_->summary.reshapes()) {  // perhaps nothing to do: the model reshapes at every batch
      bool clean = true;
      std::vector<std::string> lines;
      for (const auto& b : options_.check_batches) {
        const auto line = b == dimension() ? probe_->summary_line() : [&] {
          const auto r = check_batch(original_, request(b));
          clean = clean && r.summary.reshapes();
          return r.summary_line();
        }();
        lines.push_back(line);
      }
      if (clean) {
        report_.checked = std::move(lines);
        report_.nothing_to_do = report_.fixed = true;
        return std::move(report_);
      }
    }
    current_.emplace(original_);
    count_consumers();
    do rounds();
    while (!prove());
    return std::move(report_);
  }

 private:
  /// A Reshape to rewrite, with its plans (the first `tried_` of them failed earlier).
  struct candidate {
    layer_key key;
    std::vector<enclosing_layer> within;  ///< the bodies it is in, as reports name them
    std::string name, type;
    std::string pattern;  ///< its pattern as the round found it
    std::vector<plan> plans;
    std::size_t next = 0;
  };

  void report(std::string_view stage, const std::string& batch = "") const {
    if (options_.progress)
      options_.progress({.stage = stage, .layers = layer_count_, .round = round_, .tried = tried_count_,
                         .kept = kept_count_, .batch = batch});
  }

  reshape_request request(const dimension& b) const { return {.batch = b, .layouts = options_.layouts}; }

  void rounds() {
    while (true) {
      // What a round is planned on (after the proof took rewrites back, found again).
      (void)declared();
      if (!probe_) {
        runs_ = {};
        probe_ = detail::check_batch_keeping(*current_, request(dimension()), runs_);
      }
      std::vector<candidate> group;
      std::vector<fix_refusal> unplanned;
      const auto named = [&](const batch_finding& f) {
        return part_of(f.type) == op_part::reshape && f.issue != batch_issue::scales_with_batch &&
               !done_.contains(key_of(f)) && where(f);
      };
      // A Reshape after another one named here waits for a later round: what it is found to do may be the
      // earlier one's doing, and is seen again once that one is rewritten. (A body's Reshape is after what
      // the layer that runs the body is after, and after the Reshapes named before it in that body.)
      std::vector<char> named_here(current_->layers().size(), 0);
      std::map<const graph*, std::vector<char>> named_in_body;
      for (const auto& f : probe_->findings) {
        if (!named(f)) continue;
        named_here[index_of(f.within.empty() ? f.id : f.within.front().id)] = 1;
        if (f.within.empty()) continue;
        const auto s = where(f);
        auto& marks = named_in_body[s->g];
        marks.resize(s->g->layers().size(), 0);
        marks[static_cast<std::size_t>(s->g->find(f.id) - s->g->layers().data())] = 1;
      }
      const auto after = detail::downstream_of(*current_, named_here);
      for (auto& [body, marks] : named_in_body) marks = detail::downstream_of(*body, marks);
      const auto waits = [&](const batch_finding& f) {
        if (after[index_of(f.within.empty() ? f.id : f.within.front().id)]) return true;
        if (f.within.empty()) return false;
        const auto s = where(f);
        return named_in_body[s->g][static_cast<std::size_t>(s->g->find(f.id) - s->g->layers().data())] != 0;
      };
      std::set<layer_key> seen;
      for (const auto& f : probe_->findings) {
        const auto key = key_of(f);
        if (!named(f) || waits(f) || !seen.insert(key).second) continue;
        std::string reason;
        auto plans = plans_for(f, reason);
        const auto skip = std::min(tried_[key], plans.size());
        plans.erase(plans.begin(), plans.begin() + static_cast<std::ptrdiff_t>(skip));
        if (plans.empty()) {
          unplanned.push_back({f.id, f.name, f.type, last_failure_.contains(key) ? last_failure_[key] : reason, f.within});
          continue;
        }
        const auto s = where(f);
        group.push_back({key, f.within, f.name, f.type, pattern_text(*s->g, *s->p, *s->g->find(f.id)), std::move(plans), 0});
      }
      if (group.empty() && unplanned.empty()) return;
      ++round_;
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

  void refuse(const candidate& c, std::string reason) {
    done_.insert(c.key);
    report_.refusals.push_back({c.key.id, c.name, c.type, std::move(reason), c.within});
  }

  /// Where finding `f`'s layer is in the current model, with the propagation there (at the declared
  /// shapes); nullopt when the propagation kept none for its body.
  std::optional<site> where(const batch_finding& f) const {
    auto s = site_at(*current_, &runs_.declared(), ids_of(f.within));
    if (!s || s->p == nullptr || s->g->find(f.id) == nullptr) return std::nullopt;
    return s;
  }

  /// Judges `group`'s current plans together on the model as rewritten so far; keeps them, or splits.
  void attempt(const std::vector<candidate*>& group) {
    tried_count_ += group.size();
    report("judging rewrites");
    auto trial = rewrites_;
    std::optional<graph> next;
    batch_report next_probe;
    detail::batch_undo undo;
    bool in_place = false;  // runs_ are being made next's
    std::string failure;                     // why the group failed: an error's message
    std::optional<std::int64_t> changed;     // or the first layer whose declared shapes it changed
    std::map<layer_key, batch_issue> failing;
    try {
      convert(group, trial);
      const auto [edits, appended] = build(trial);
      next.emplace(detail::graph_editor::edited(original_, edits, weights(appended)));
      // Only the layers the rewrites reach are propagated again, in place: the others keep the current
      // model's results, and a group that fails puts back what it replaced.
      const auto redo = detail::layers_to_redo(*current_, *next);
      in_place = true;
      detail::declared_in_place(*next, runs_, redo, undo);
      changed = first_difference(runs_.declared());
      if (!changed) {
        next_probe = detail::check_batch_in_place(*next, request(dimension()), runs_, redo, undo);
        for (const auto& f : next_probe.findings)
          if (f.issue != batch_issue::scales_with_batch &&
              std::any_of(group.begin(), group.end(), [&](const candidate* c) { return c->key == key_of(f); }))
            failing.emplace(key_of(f), f.issue);
      }
    } catch (const error& e) {
      if (e.code() == errc::io) throw;  // the .bin cannot be read (it changed): not this rewrite's fault
      failure = e.what();
    }
    if (failure.empty() && !changed && failing.empty()) {
      keep(group, std::move(trial), std::move(*next), std::move(next_probe));
      return;
    }
    if (in_place) detail::undo_runs(*current_, runs_, std::move(undo));
    if (group.size() == 1) {
      auto& c = *group[0];
      const auto& x = c.plans[c.next];
      const auto issue = failing.empty() ? batch_issue::fails : failing.begin()->second;
      last_failure_[c.key] = changed           ? text::rewrite_changes_shapes(x.index, x.value, *changed)
                            : !failure.empty() ? failure
                                               : text::rewrite_still_leaves(x.index, x.value, issue, "?");
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
    if (second.size() > 1 && !failing.empty() && failure.empty() && !changed) {  // each alone: they failed together
      for (auto* c : second) attempt({c});
    } else {
      attempt(second);
    }
  }

  /// Adds `group`'s current plans to `trial` as rewrites. A shared Const is cloned for the Reshape that
  /// needs the change, unless every layer it feeds is in the group with the same change: then it is
  /// rewritten in place and stays one Const.
  void convert(const std::vector<candidate*>& group, std::vector<rewrite>& trial) {
    std::map<layer_key, std::vector<const plan*>> by_holder;
    for (const auto* c : group) {
      const auto& x = c->plans[c->next];
      by_holder[{x.within, x.holder}].push_back(&x);
    }
    for (const auto* c : group) {
      const auto& x = c->plans[c->next];
      const auto& body = *site_at(*current_, nullptr, x.within)->g;
      const auto& holder = *body.find(x.holder);
      const auto& sharing = by_holder[{x.within, x.holder}];
      const bool same = std::all_of(sharing.begin(), sharing.end(),
                                    [&](const plan* y) { return y->index == x.index && y->value == x.value; });
      const auto readers = this->readers(x.within, body, holder);
      rewrite r;
      r.p = x;
      r.clone = readers > 1 && !(same && sharing.size() == readers);
      if (r.clone && __builtin_add_overflow(next_id_, 1, &next_id_))
        fail(errc::unsupported, {}, fmt::format("{}: no layer id is left for its copy", holder.where()),
             "give the layers smaller ids");
      r.target = r.clone ? next_id_ : x.holder;
      r.bytes = bytes_of(body, holder);
      const auto width = static_cast<std::size_t>(bit_width(holder.element("element_type")) / 8);
      if (width == 0 || (x.index + 1) * width > r.bytes.size())
        fail(errc::unsupported, {}, fmt::format("{}: its element type is not rewritten", holder.where()), {});
      const auto value = static_cast<std::uint64_t>(x.value);
      for (std::size_t b = 0; b < width; ++b)
        r.bytes[x.index * width + b] = static_cast<std::byte>((value >> (8 * b)) & 0xFF);
      trial.push_back(std::move(r));
    }
  }

  /// The edits of `rewrites`, and the bytes they append to the .bin.
  std::pair<std::vector<detail::graph_edit>, std::vector<std::byte>> build(const std::vector<rewrite>& rewrites) const {
    using kind = detail::graph_edit::kind;
    std::vector<detail::graph_edit> edits;
    std::vector<std::byte> appended;
    std::map<layer_key, std::size_t> written;  // a Const's latest bytes: their place in `appended`
    for (const auto& r : rewrites) {
      const auto& within = r.p.within;
      if (r.clone)
        edits.push_back({.what = kind::clone_layer,
                         .layer = r.p.holder,
                         .name = fmt::format("{}/reshape1_fix_{}", site_at(original_, nullptr, within)->g->find(r.p.holder)->name,
                                             r.p.consumer),
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
                       .text = std::to_string(bin_size_ + at), .within = within});
      edits.push_back({.what = kind::set_attribute, .layer = r.target, .name = "size",
                       .text = std::to_string(r.bytes.size()), .within = within});
      if (r.p.set_special_zero)
        edits.push_back(
            {.what = kind::set_attribute, .layer = r.p.reshape, .name = "special_zero", .text = "true", .within = within});
    }
    return {std::move(edits), std::move(appended)};
  }

  /// The .bin, followed by the new bytes: mapped, not copied.
  std::shared_ptr<const io::detail::mapped_file> weights(const std::vector<std::byte>& appended) const {
    auto w = std::make_shared<const io::detail::mapped_file>(bin_, appended);
    if (w->bytes().size() != bin_size_ + appended.size())
      fail(errc::io, {.file = bin_.string()},
           fmt::format("{}: the file changed size while it was being fixed", bin_.string()),
           "run again once nothing writes to it");
    return w;
  }

  /// The first layer (by id) whose shapes at the declared inputs differ from the original's, or nullopt.
  std::optional<std::int64_t> first_difference(const propagation& p) const {
    std::optional<std::int64_t> first;
    const auto layers = original_.layers();
    for (std::size_t i = 0; i < layers.size(); ++i) {
      if (!same_shapes(declared_->outputs[i], p.outputs[i]) && (!first || layers[i].id < *first)) first = layers[i].id;
    }
    return first;
  }

  /// Keeps `group`'s rewrites: `next` (whose propagations runs_ now hold) becomes the current model.
  void keep(const std::vector<candidate*>& group, std::vector<rewrite> trial, graph next, batch_report next_probe) {
    for (auto k = rewrites_.size(); k < trial.size(); ++k) {
      auto& r = trial[k];
      const layer_key key{r.p.within, r.p.reshape};
      const auto s = site_at(next, &runs_.declared(), r.p.within);
      const auto& l = *s->g->find(r.p.reshape);
      auto& c = r.change;
      c.id = l.id;
      c.name = l.name;
      c.within = enclosing(next, r.p.within);
      c.old_pattern = std::find_if(group.begin(), group.end(), [&](const candidate* x) { return x->key == key; })[0]->pattern;
      c.new_pattern = s->p != nullptr ? pattern_text(*s->g, *s->p, l) : std::string("?");
      c.const_index = r.p.index;
      c.old_value = r.p.old_value;
      c.new_value = r.p.value;
      c.special_zero_set = r.p.set_special_zero;
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
  static void describe(rewrite& r) {
    auto& c = r.change;
    c.const_id = r.target;
    c.cloned_from = r.clone ? std::optional<std::int64_t>(r.p.holder) : std::nullopt;
    c.why = r.clone ? text::cloned_const(r.p.why, r.p.holder) : r.p.why;
  }

  /// How many inputs each layer of the current model feeds.
  void count_consumers() {
    const auto layers = current_->layers();
    consumers_.assign(layers.size(), 0);
    for (const auto& l : layers)
      for (const auto& s : l.sources)
        if (s) ++consumers_[s->layer];
  }
  std::size_t index_of(std::int64_t id) const {
    return static_cast<std::size_t>(current_->find(id) - current_->layers().data());
  }
  /// How many inputs layer `l` of `g`, the body `within` leads to, feeds: counted once a round for the
  /// model's own layers, when asked for a body's (a body is small).
  std::size_t readers(const std::vector<std::int64_t>& within, const graph& g, const layer& l) const {
    return within.empty() ? consumers(l) : readers_of(g, l);
  }
  std::size_t consumers(const layer& l) const {
    return consumers_[static_cast<std::size_t>(&l - current_->layers().data())];
  }

  /// `rewrites` with every clone whose final bytes are those its original ends with (the other Reshapes it
  /// feeds were rewritten the same way in a later round) dropped: its Reshape reads the original again.
  /// A copy: if the proof takes a rewrite back, the others are what they were.
  static std::vector<rewrite> merged_clones(std::vector<rewrite> rewrites) {
    std::map<layer_key, const std::vector<std::byte>*> last;  // a Const's final bytes
    for (const auto& r : rewrites) last[{r.p.within, r.target}] = &r.bytes;
    for (auto& r : rewrites) {
      if (!r.clone) continue;
      const auto it = last.find({r.p.within, r.p.holder});
      if (it == last.end() || *it->second != r.bytes) continue;
      r.clone = false;
      r.target = r.p.holder;
      describe(r);
    }
    return rewrites;
  }

  /// error(io) when the .xml is not as it was when fix read it.
  void check_unchanged() const {
    std::error_code ec;
    const auto size = fs::file_size(xml_, ec);
    const auto time = ec ? fs::file_time_type() : fs::last_write_time(xml_, ec);
    if (ec || size != xml_size_ || time != xml_time_)
      fail(errc::io, {.file = xml_.string()},
           fmt::format("{}: the file changed while it was being fixed", xml_.string()),
           "run again once nothing writes to it");
  }

  /// The .xml's text with `edits`: the original's bytes but for the edited layers and edges.
  std::string rewritten_text(const std::vector<detail::graph_edit>& edits) const {
    check_unchanged();
    const io::detail::mapped_file original_text(xml_);
    return detail::graph_editor::edited_xml(original_, original_text.bytes(), edits);
  }

  const propagation& declared() {
    if (!declared_) {
      if (original_.layers().empty() && !original_ids_.empty()) read_original();
      declared_ = propagate(original_);
    }
    return *declared_;
  }

  /// Writes the rewritten model once, reads it back from those bytes, and proves it at every requested
  /// batch. False when a rewritten Reshape failed the proof: its rewrite is dropped, and rounds resume.
  bool prove() {
    const auto final_rewrites = merged_clones(rewrites_);
    std::vector<detail::graph_edit> edits;
    std::vector<std::byte> appended;
    std::optional<graph> proven;
    std::optional<propagation> proven_prop;
    std::string written;  // the text written once the proof holds: the bytes read back, before parsing
    const auto places = places_of(final_rewrites);
    if (!final_rewrites.empty()) {
      std::tie(edits, appended) = build(final_rewrites);
      // The model as rewritten in memory is not needed any more: the proof reads the text back, and the
      // graph read back keeps that text (parsed in place). Nor is the original once the text is made, but
      // for its shapes at the declared inputs (declared_) and its ids: it is read again if the rounds
      // resume. Each goes before the next copy is made.
      current_.reset();
      runs_ = {};
      probe_.reset();
      auto text = rewritten_text(edits);
      original_ = graph();
      written = text;
      proven.emplace(detail::read_ir_in_memory(std::move(text), xml_.string() + " (rewritten)", weights(appended),
                                               bin_.string() + " (with the new constants)"));
      proven_prop = propagate(*proven);
    }
    const graph& g = proven ? *proven : original_;
    const propagation& at_declared = proven ? *proven_prop : declared();
    std::vector<std::string> checked;
    std::vector<fix_refusal> refusals;
    std::map<layer_key, std::string> dropped;  // rewritten Reshapes the proof still names
    bool all = true;
    if (proven) {
      all = same_shapes_as_declared(g, at_declared, refusals);
      declared_.reset();  // found again if the rounds resume
    }
    for (const auto& b : options_.check_batches) {
      report("proving", batch_name(b));
      // The propagation at the declared shapes is the one made above (shared, not made again), and the
      // one at the requested shapes is what not_scaled compares.
      detail::batch_runs runs;
      runs.runs[0] = at_declared;
      const auto r = detail::check_batch_keeping(g, request(b), runs);
      checked.push_back(r.summary_line());
      all = all && r.summary.reshapes();
      if (all)
        if (auto unscaled = detail::not_scaled(g, at_declared, *runs.runs[1], r, b)) {
          refusals.push_back(std::move(*unscaled));
          all = false;
        }
      judge(r, b, dropped, refusals);
    }
    if (!dropped.empty()) {
      proven_prop.reset();
      proven.reset();
      if (original_.layers().empty()) read_original();
      drop(dropped);
      return false;
    }
    report_.checked = std::move(checked);
    report_.refusals.insert(report_.refusals.end(), refusals.begin(), refusals.end());
    list_changes(final_rewrites, places);
    report_.fixed = all && report_.refusals.empty();
    if (report_.fixed && !report_.changes.empty()) {  // only a proven model is ever written
      report("writing");
      report_.xml = std::move(written);
      report_.appended = std::move(appended);
    }
    return true;
  }

  /// Reads the original again (after the proof freed it), as it was when fix started.
  void read_original() {
    check_unchanged();
    original_ = read_ir(xml_, bin_);
    if (original_.layers().size() != original_ids_.size())
      fail(errc::io, {.file = xml_.string()}, fmt::format("{}: the file changed while it was being fixed", xml_.string()),
           "run again once nothing writes to it");
  }

  /// Whether the model read back (`g`, propagated as `at_declared`) has the original's shapes on every
  /// layer at the declared inputs; a refusal names the first layer that differs.
  bool same_shapes_as_declared(const graph& g, const propagation& at_declared, std::vector<fix_refusal>& refusals) {
    for (std::size_t i = 0; i < original_ids_.size(); ++i) {
      const auto* l = g.find(original_ids_[i]);
      const auto after =
          l == nullptr ? std::span<const tensor>() : at_declared.outputs[static_cast<std::size_t>(l - g.layers().data())];
      if (!same_shapes(declared().outputs[i], after)) {
        refusals.push_back({original_ids_[i], l == nullptr ? std::string() : std::string(l->name),
                            l == nullptr ? std::string() : std::string(l->type),
                            l == nullptr ? text::read_back_lacks_layer() : text::read_back_differs()});
        return false;
      }
    }
    return true;
  }

  /// The proof's findings at batch `b`: a rewritten Reshape it still names goes to `dropped` (its rewrite
  /// is taken back), any other finding is a refusal (once).
  void judge(const batch_report& r, const dimension& b, std::map<layer_key, std::string>& dropped,
             std::vector<fix_refusal>& refusals) const {
    for (const auto& f : r.findings) {
      if (f.issue == batch_issue::scales_with_batch) continue;
      const auto key = key_of(f);
      const auto rewritten = std::find_if(rewrites_.begin(), rewrites_.end(), [&](const rewrite& x) {
        return x.p.reshape == key.id && x.p.within == key.within;
      });
      if (rewritten != rewrites_.end()) {
        const auto& x = rewritten->p;
        dropped.emplace(key, text::rewrite_still_leaves(x.index, x.value, f.issue, batch_name(b)));
        continue;
      }
      const auto known = [&](const std::vector<fix_refusal>& v) {
        return std::any_of(v.begin(), v.end(), [&](const auto& x) { return x.id == f.id && x.within == f.within; });
      };
      if (known(report_.refusals) || known(refusals)) continue;
      refusals.push_back({f.id, f.name, f.type, text::refusal(f, b), f.within});
    }
  }

  /// Takes back the rewrites of the Reshapes the proof still names (each tries its next alternative) and
  /// makes the model the rounds resume from.
  void drop(const std::map<layer_key, std::string>& dropped) {
    for (const auto& [key, why] : dropped) {
      const auto& reshape = key;  // clang 14 (the fuzz preset) cannot capture a structured binding
      std::erase_if(rewrites_, [&reshape](const rewrite& x) { return x.p.reshape == reshape.id && x.p.within == reshape.within; });
      last_failure_[key] = why;
      ++tried_[key];
      done_.erase(key);
    }
    const auto [kept, bytes] = build(rewrites_);
    current_.emplace(detail::graph_editor::edited(original_, kept, weights(bytes)));
    runs_ = {};
    probe_.reset();
    count_consumers();
  }

  /// Where each rewritten Reshape comes in the original's order (producers first): its place, or the
  /// place of the layer whose body holds it followed by its place in that body.
  std::map<layer_key, std::vector<std::size_t>> places_of(const std::vector<rewrite>& rewrites) const {
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
  void list_changes(const std::vector<rewrite>& final_rewrites, const std::map<layer_key, std::vector<std::size_t>>& places) {
    std::vector<std::pair<std::vector<std::size_t>, fix_change>> listed;
    for (const auto& r : final_rewrites) listed.emplace_back(places.at({r.p.within, r.p.reshape}), r.change);
    std::stable_sort(listed.begin(), listed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [place, change] : listed) report_.changes.push_back(std::move(change));
  }

  /// Setting element `index` of Reshape `l`'s pattern to `value` as a rewrite of the Const that holds it
  /// (directly or through a Concat), `why` being the reason; nullopt, with `reason`, when that Const
  /// cannot take it.
  std::optional<plan> target(const site& s, const std::vector<std::int64_t>& within, const layer& l, std::size_t index,
                             std::int64_t old_value, std::int64_t value, std::string_view why,
                             std::string& reason) const {
    const auto origin = detail::origin_of_element(*s.g, *s.p, l, 1, index);
    if (origin.holder == nullptr || part_of(origin.holder->type) != op_part::constant) {
      reason = text::computed_not_const(index, origin.holder != nullptr ? origin.holder->where() : std::string());
      return std::nullopt;
    }
    const auto type = origin.holder->element("element_type");
    if (!writable_type(type)) {
      reason = text::type_not_rewritten(index, origin.holder->where(), name(type));
      return std::nullopt;
    }
    if (value < 0 && !is_signed_integer(type)) {
      reason = text::unsigned_cannot_hold_minus_one(index, origin.holder->where(), name(type));
      return std::nullopt;
    }
    // Every layer between the Const and the Reshape must feed only the next one: a shared Concat or
    // Convert would carry the change to other layers that this report would not list.
    for (const auto* step : origin.path)
      if (readers(within, *s.g, *step) > 1) {
        reason = text::comes_through_shared_layer(index, step->where());
        return std::nullopt;
      }
    plan x;
    x.within = within;
    x.old_value = old_value;
    x.reshape = l.id;
    x.holder = origin.holder->id;
    x.index = origin.index;
    x.value = value;
    x.consumer = origin.consumer->id;
    x.consumer_port = origin.consumer_port;
    x.why = text::held_by_const(why, *origin.holder, origin.through);
    return x;
  }

  /// The rewrites that could resolve finding `f`, best first (pattern_choices, each where its value is
  /// held); or the reason there are none.
  std::vector<plan> plans_for(const batch_finding& f, std::string& reason) const {
    const auto s = *where(f);
    const auto& l = *s.g->find(f.id);
    std::vector<plan> plans;
    for (const auto& c : detail::pattern_choices(*s.g, *s.p, l, f, reason))
      if (auto x = target(s, ids_of(f.within), l, c.element, c.old_value, c.value, c.why, reason)) {
        x->set_special_zero = c.set_special_zero;
        plans.push_back(*x);
      }
    return plans;
  }

  fs::path xml_, bin_;
  fix_options options_;
  graph original_;  ///< freed while the proof runs (read again if the rounds resume)
  std::size_t layer_count_ = 0;
  std::vector<std::int64_t> original_ids_;  ///< the original's layer ids, by index
  std::optional<propagation> declared_;  ///< the original's propagation at its declared inputs
  std::uintmax_t bin_size_ = 0, xml_size_ = 0;
  fs::file_time_type xml_time_{};
  std::int64_t next_id_ = 0;  ///< the last id given to a clone (at first the model's largest)
  std::optional<graph> current_;  ///< the original with the kept rewrites
  std::optional<batch_report> probe_;  ///< and its check_batch at a dynamic batch
  detail::batch_runs runs_;            ///< and that check_batch's propagations (`declared`: at the declared inputs)
  std::vector<std::size_t> consumers_;
  std::vector<rewrite> rewrites_;
  std::size_t kept_ = 0;             ///< rewrites kept in this round
  std::size_t round_ = 0, tried_count_ = 0, kept_count_ = 0;  ///< for the progress display
  std::vector<candidate*> failed_;   ///< candidates whose plan failed in this round
  bool final_ = false;               ///< the round kept nothing: a failed plan is final
  std::set<layer_key> done_;                      ///< Reshapes rewritten or refused
  std::map<layer_key, std::size_t> tried_;        ///< how many of a Reshape's plans failed
  std::map<layer_key, std::string> last_failure_;  ///< and why the last one did
  fix_report report_;
};

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
  return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
}

}  // namespace

fix_report fix(const fs::path& xml, const fs::path& bin, const fix_options& options) {
  if (xml == "-")
    fail(errc::invalid_argument, {},
         "-: fix writes the rewritten model from the bytes of its .xml, which standard input cannot give twice",
         "save the model to a file and give its path");
  fixer f(xml, bin, options);
  return f.run();
}

void check_fix_outputs(const fs::path& in_xml, const fs::path& in_bin, const fs::path& out_xml, const fs::path& out_bin) {
  if (out_xml.extension() != ".xml")
    fail(errc::invalid_argument, {}, fmt::format("{}: the output must end in .xml", out_xml.string()),
         "its weights are written beside it, in .bin");
  for (const auto& out : {out_xml, out_bin}) {
    for (const auto& in : {in_xml, in_bin})
      if (same_file(out, in))
        fail(errc::invalid_argument, {}, fmt::format("{}: is one of the model's own files ({})", out.string(), in.string()),
             "write the fixed model to other files; the input is never modified");
    // A FIFO would block the write until something reads it, and a device or directory cannot hold a model.
    if (const auto kind = io::detail::special_file_kind(out))
      fail(errc::invalid_argument, {}, fmt::format("{}: is {}, not a regular file", out.string(), *kind),
           "fix writes the model to regular files; give another name");
  }
  if (same_file(out_xml, out_bin))
    fail(errc::invalid_argument, {}, fmt::format("{}: the .xml and the .bin are the same file", out_xml.string()),
         "give the .bin another name");
}

void write_fixed(const fix_report& report, const fs::path& in_xml, const fs::path& in_bin, const fs::path& out_xml,
                 const fs::path& out_bin) {
  if (report.xml.empty())
    fail(errc::invalid_argument, {}, "write_fixed: the report changes nothing", "write only a report with changes");
  check_fix_outputs(in_xml, in_bin, out_xml, out_bin);
  const io::detail::mapped_file original(in_bin);
  // An .xml left from an earlier run would point into the new .bin until the new .xml replaces it: remove
  // it first, so that an interrupted run leaves no .xml at all rather than one that reads the wrong bytes.
  std::error_code ec;
  if (fs::is_regular_file(out_xml, ec)) fs::remove(out_xml, ec);
  {
    io::detail::atomic_file out(out_bin);
    // The original bytes are copied by the kernel where it can (on a file system that shares blocks, the
    // copy may take no new space); the new constants follow them.
    out.copy_from(original.fd(), 0, original.bytes(), 1, {});
    out.write(report.appended);
    out.commit();
  }
  io::detail::atomic_file out(out_xml);
  out.write(std::as_bytes(std::span(report.xml.data(), report.xml.size())));
  out.commit();
}

}  // namespace reshape1::model
