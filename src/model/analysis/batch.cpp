// `check --batch`: propagate at the requested shapes, and with the batch at three sample values to see
// which dimensions carry it (a dimension is N·k when it is k times the sample at every sample), then
// report the layers that fail, the Reshapes that fold or replace the batch where it matters, and the
// post-processing outputs that grow with it.
#include "reshape1/model/batch.hpp"

#include <algorithm>
#include <charconv>
#include <array>
#include <cctype>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "detail/fail.hpp"
#include "io/files.hpp"
#include "model/analysis/batch_internal.hpp"
#include "model/analysis/batch_request.hpp"
#include "model/analysis/batch_scope.hpp"
#include "model/options.hpp"
#include "model/ops/rules.hpp"
#include "model/propagate/in_place.hpp"
#include "model/propagate/engine.hpp"
#include "model/text/batch.hpp"

namespace reshape1::model {
namespace {

// The names the stages share (batch_scope.hpp).
using namespace batch_analysis;  // NOLINT(google-build-using-namespace)

bool any_name_starts_with(const graph& g, std::string_view prefix) {
  return std::any_of(g.layers().begin(), g.layers().end(), [&](const layer& l) {
    return l.name.starts_with(prefix) || (l.body != nullptr && any_name_starts_with(l.body->network, prefix));
  });
}

/// What the sample runs name the dimensions they leave unknown after (propagate_graph): a name no layer's
/// starts with, so that none is a Parameter's `NAME.k` or another's; "" (no names) for a model whose names
/// would not allow one.
std::string sample_names(const graph& g) {
  const std::string prefix = "\x01";
  return any_name_starts_with(g, prefix) ? std::string() : prefix;
}

void body_layer_names(const graph& g, std::unordered_set<std::string_view>& names) {
  for (const auto& l : g.layers()) {
    if (l.body == nullptr) continue;
    for (const auto& b : l.body->network.layers()) names.insert(b.name);
    body_layer_names(l.body->network, names);
  }
}

/// The sizes apart from the batch (batch_free_sizes): the symbols the sample runs give the inputs' other
/// dynamic dimensions, one the same at each. A Parameter names a dynamic dimension `NAME.k`: a body's
/// Parameter with an input's name could give another dimension that input's names, which are then left out.
detail::batch_free_sizes free_sizes(const graph& g, const std::vector<input_report>& inputs, const runs& r) {
  detail::batch_free_sizes sizes;
  std::unordered_set<std::string_view> in_bodies;
  body_layer_names(g, in_bodies);
  for (const auto& in : inputs) {
    std::array<const partial_shape*, samples.size()> at{};
    for (std::size_t k = 0; k < samples.size(); ++k) at[k] = &r.at_samples[k]->outputs[in.layer][0].shape;
    if (!at[0]->rank_known()) continue;
    for (std::size_t d = 0; d < at[0]->size(); ++d) {
      const auto s = (*at[0])[d].symbol();
      if (in.batch_index == d || !s || (*at[0])[d].is_static()) continue;
      const auto name = s.name();
      const auto dot = name.rfind('.');
      if (dot != std::string_view::npos && in_bodies.contains(name.substr(0, dot))) continue;
      if (std::all_of(at.begin(), at.end(), [&](const partial_shape* x) {
            return x->rank_known() && d < x->size() && (*x)[d].symbol() == s && !(*x)[d].is_static();
          }))
        sizes.insert(s);
    }
  }
  return sizes;
}

// ---- carriers --------------------------------------------------------------------------------------

batch_carrier carrier_of(const std::array<const partial_shape*, samples.size()>& at, const detail::batch_free_sizes* sizes) {
  batch_carrier c;
  const auto& first = *at[0];
  if (!first.rank_known()) return c;
  for (const auto* s : at)
    if (!s->rank_known() || s->size() != first.size()) return c;
  bool all_known = true;
  std::size_t carrying = 0;
  for (std::size_t d = 0; d < first.size(); ++d) {
    std::int64_t factor = 0;
    bool carries = true, known = true;
    for (std::size_t k = 0; k < samples.size(); ++k) {
      const auto& dim = (*at[k])[d];
      if (!dim.is_static()) {
        // A size apart from the batch is known not to carry it; any other dimension may.
        known = detail::known_at_samples(at, d, sizes);
        carries = false;
        break;
      }
      const auto v = dim.lo();
      if (v == 0 || v % samples[k] != 0 || (k > 0 && v / samples[k] != factor)) carries = false;
      factor = samples[k] == 0 ? 0 : v / samples[k];
    }
    all_known = all_known && known;
    if (carries) {
      ++carrying;
      c.axis = d;
      c.factor = factor;
    }
  }
  if (carrying == 1) {
    c.state = batch_carrier::kind::one;
  } else if (carrying > 1) {
    c.state = batch_carrier::kind::several;
    c.axis = 0;
    c.factor = 0;
  } else {
    c.state = all_known ? batch_carrier::kind::none : batch_carrier::kind::unknown;
    c.axis = 0;
    c.factor = 0;
  }
  return c;
}

// ---- the analysis ---------------------------------------------------------------------------------------

}  // namespace

namespace batch_analysis {

/// The model's findings, in the order of the layers, each body's right after its TensorIterator or Loop.
std::vector<batch_finding> scope::run(const std::string& target_at, std::optional<std::int64_t> example_at,
                                      std::size_t& failing_at_declared) {
  for (const auto& x : declared_.lost) {
    if (x.not_covered) continue;
    ++failing_at_declared;
    auto f = finding(batch_issue::fails_at_declared, layers_[x.layer]);
    f.code = name(x.code);
    set_message(f, x);
    if (f.hint.empty()) text::give_hint(f, text::see_check_hint(spelling()));
    found_.push_back(std::move(f));
  }
  find_replaced();
  find_failures(target_, target_at);
  if (runs_.example != nullptr && example_at) find_failures(*runs_.example, std::to_string(*example_at));
  if (!carriers_.empty()) {
    find_replaced_swallows();
    follow_states(nullptr);
    check_outputs();
    drop_harmless_replaced();
    replaced_in_bodies();
  }
  explain_failures();
  return findings();
}

void scope::compute_carriers() {
  carriers_.resize(layers_.size());
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    carriers_[i].resize(layers_[i].outputs.size());
    for (std::size_t o = 0; o < layers_[i].outputs.size(); ++o) {
      std::array<const partial_shape*, samples.size()> at{};
      for (std::size_t k = 0; k < samples.size(); ++k) at[k] = &runs_.at_samples[k]->outputs[i][o].shape;
      carriers_[i][o] = carrier_of(at, runs_.sizes);
    }
  }
}

}  // namespace batch_analysis

namespace {


/// A batch index taken as dimension 0 for want of a layout is likely wrong when that dimension holds
/// another size than the other inputs' batches (license-plate-recognition-barrier-0001's `seq_ind [88,1]`
/// beside `data [1,3,24,94]`): every finding such an input reaches says so, and how to set it.
void hint_guessed_batches(const graph& g, batch_report& report, option_spelling spelling) {
  std::map<std::int64_t, std::size_t> sizes;  // the inputs' declared batch sizes, and how many have each
  for (const auto& in : report.inputs)
    if (in.batch_index && in.declared.rank_known() && in.declared[*in.batch_index].is_static())
      ++sizes[in.declared[*in.batch_index].lo()];
  if (sizes.size() < 2) return;
  const auto common = std::max_element(sizes.begin(), sizes.end(), [](const auto& a, const auto& b) {
                        return a.second < b.second;
                      })->first;
  const auto layers = g.layers();
  for (const auto& in : report.inputs) {
    if (in.source != batch_source::first_dimension || !in.declared.rank_known() ||
        in.declared[*in.batch_index].lo() == common)
      continue;
    // Where the batch may be instead: the one dimension that holds the other inputs' batch size.
    std::optional<std::size_t> elsewhere;
    for (std::size_t k = 0; k < in.declared.size(); ++k)
      if (in.declared[k].is_static() && in.declared[k].lo() == common) elsewhere = elsewhere ? std::nullopt : std::optional(k);
    const auto hint = text::guessed_batch_hint(spelling, in, common, elsewhere);
    std::vector<char> reached(layers.size(), 0);
    reached[in.layer] = 1;
    for (const auto i : g.order())
      for (const auto& src : layers[i].sources)
        if (src && reached[src->layer]) reached[i] = 1;
    for (auto& f : report.findings)
      if (f.within.empty() && f.layer < reached.size() && reached[f.layer] &&
          f.issue != batch_issue::scales_with_batch)
        text::give_hint(f, text::joined_hint(hint, {f.hint_code, f.hint_args, f.hint}));
  }
}

/// A batch to try besides the target when the requested batch is dynamic, where a hard-coded batch fails:
/// 2 (3 when the model is declared at 2), within the requested interval; nullopt when none fits.
std::optional<std::int64_t> example_batch(const std::vector<input_report>& inputs) {
  for (const auto& in : inputs) {
    if (!in.batch_index || !in.requested.rank_known()) continue;
    const auto& d = in.requested[*in.batch_index];
    if (d.is_static()) continue;
    const auto declared_batch = in.declared.rank_known() && *in.batch_index < in.declared.size() &&
                                        in.declared[*in.batch_index].is_static()
                                    ? std::optional(in.declared[*in.batch_index].lo())
                                    : std::nullopt;
    std::int64_t w = std::max<std::int64_t>(d.lo(), 2);
    if (declared_batch && w == *declared_batch) ++w;
    if (!d.range().contains(w)) w = std::max<std::int64_t>(d.lo(), 1);
    if (!d.range().contains(w) || (declared_batch && w == *declared_batch)) continue;
    return w;
  }
  return std::nullopt;
}

/// The notes about the inputs: a shape of another rank (allowed, as OpenVINO takes it, but rarely meant:
/// the layers after the input were built for its rank), and an ONNX input whose static batch ONNX
/// Runtime will not let change.
void input_notes(const graph& g, batch_report& report, option_spelling spelling) {
  for (const auto& in : report.inputs)
    if (in.requested.rank_known() && in.declared.rank_known() && in.requested.size() != in.declared.size())
      report.notes.push_back(text::other_rank_note(spelling, in));
  if (g.format() != model_format::onnx) return;
  for (const auto& in : report.inputs) {
    if (!in.batch_index || !in.declared.rank_known() || *in.batch_index >= in.declared.size()) continue;
    const auto& was = in.declared[*in.batch_index];
    const auto& now = in.requested[*in.batch_index];
    if (!was.is_static() || (now.is_static() && now.lo() == was.lo())) continue;
    report.notes.push_back(text::onnx_static_batch_note(in, *in.batch_index, was.lo()));
  }
}

/// Each model output at the declared and the target shapes, and how it holds the batch.
void output_reports(const graph& g, const propagation& declared, const propagation& target, batch_report& report) {
  for (const auto index : g.order()) {
    const auto& l = g.layers()[index];
    if (part_of(l.type) != op_part::result || l.sources.empty() || !l.sources[0]) continue;
    output_report out;
    out.layer = index;
    out.id = l.id;
    out.name = l.name;
    out.declared = detail::with_given_symbols(declared.input(g, l, 0).shape);
    out.reshaped = target.input(g, l, 0).shape;
    const auto& src = *l.sources[0];
    if (src.layer < report.carriers.size() && src.output < report.carriers[src.layer].size())
      out.batch = report.carriers[src.layer][src.output];
    report.outputs.push_back(std::move(out));
  }
}

void count_findings(batch_report& report) {
  for (const auto& f : report.findings) {
    switch (f.issue) {
      case batch_issue::fails: ++report.summary.fails; break;
      case batch_issue::swallows_batch: ++report.summary.swallows_batch; break;
      case batch_issue::scales_with_batch: ++report.summary.scales_with_batch; break;
      case batch_issue::mixes_samples: ++report.summary.mixes_samples; break;
      case batch_issue::drops_samples: ++report.summary.drops_samples; break;
      case batch_issue::loses_batch: ++report.summary.loses_batch; break;
      case batch_issue::cannot_tell: ++report.summary.cannot_tell; break;
      case batch_issue::fails_at_declared: break;  // counted as failing_at_declared
    }
  }
}

/// Run k of `runs` at `given`: made afresh, or, with `undo` (runs are those of a graph g is an edit of, at the
/// same shapes), made g's in place.
const propagation& run_at(const graph& g, detail::batch_runs& runs, std::size_t k, std::span<const input_shape> given,
                          std::span<const char> redo, detail::batch_undo* undo, std::string_view names) {
  auto& slot = runs.runs[k];
  if (undo != nullptr && slot) {
    detail::propagate_in_place(g, given, *slot, redo, undo->logs[k], names);
    undo->in_place[k] = true;
  } else {
    if (undo != nullptr && !undo->replaced[k]) {
      undo->before[k] = std::move(slot);
      undo->replaced[k] = true;
    }
    slot = detail::propagate_naming(g, given, names);
  }
  return *slot;
}

/// Records the shapes the runs in `keep` are made at. With `undo` (the runs are an edited graph's), the runs
/// are reused only at the shapes they were made at (an edit leaves the Parameters alone): any other are
/// set aside in `undo`, to be made afresh.
void keep_request(detail::batch_runs& keep, detail::batch_undo* undo, const std::vector<input_shape>& requested,
                  std::optional<std::int64_t> example) {
  if (undo == nullptr) {
    keep.requested = requested;
    keep.example_batch = example;
    return;
  }
  const bool same = keep.requested.size() == requested.size() && keep.example_batch == example &&
                    std::equal(requested.begin(), requested.end(), keep.requested.begin(),
                               [](const input_shape& a, const input_shape& b) { return a.layer == b.layer && a.shape == b.shape; });
  undo->analysed = true;
  undo->requested = std::exchange(keep.requested, requested);
  undo->example_batch = std::exchange(keep.example_batch, example);
  if (same) return;
  for (std::size_t k = 1; k < keep.runs.size(); ++k) {
    undo->before[k] = std::exchange(keep.runs[k], std::nullopt);
    undo->replaced[k] = true;
  }
}

/// Which runs stand for batch 1 (each sample alone) and cover every batch asked, from the batches the
/// inputs declare and are asked at.
void reference_runs(const std::vector<input_report>& inputs, const propagation& declared, const propagation& target,
                    runs& r) {
  const auto batches = [&](auto shape_of) {
    std::vector<interval> b;
    for (const auto& in : inputs)
      if (in.batch_index) {
        const partial_shape& s = shape_of(in);
        b.push_back(s.rank_known() && *in.batch_index < s.size() ? s[*in.batch_index].range() : interval{});
      }
    return b;
  };
  const auto declared_at = batches([](const input_report& in) -> const partial_shape& { return in.declared; });
  const auto asked = batches([](const input_report& in) -> const partial_shape& { return in.requested; });
  const auto all = [](const std::vector<interval>& b, auto pred) { return std::all_of(b.begin(), b.end(), pred); };
  // The declared run stands for a batch asked about only where the declared shapes are the requested ones
  // but for the batch (a --shape may change other dimensions too).
  const bool declared_alike = std::all_of(inputs.begin(), inputs.end(), [](const input_report& in) {
    if (!in.declared.rank_known() || !in.requested.rank_known() || in.declared.size() != in.requested.size())
      return false;
    for (std::size_t d = 0; d < in.declared.size(); ++d)
      if ((!in.batch_index || d != *in.batch_index) && !(without_symbols(partial_shape{in.declared[d]}) ==
                                                         without_symbols(partial_shape{in.requested[d]})))
        return false;
    return true;
  });
  if (declared_alike && all(declared_at, [](const interval& i) { return i.lo() == 1 && i.hi() == 1; }))
    r.at_one = &declared;
  else if (all(asked, [](const interval& i) { return i.lo() == 1 && i.hi() == 1; })) r.at_one = &target;
  r.asked_static = all(asked, [](const interval& i) { return i.lo() == i.hi(); });
  r.asked_holds_samples = all(asked, [](const interval& i) {
    return std::all_of(samples.begin(), samples.end(), [&](std::int64_t n) { return i.contains(n); });
  });
  if (all(asked, [](const interval& i) { return i.lo() != i.hi() && i.contains(1); })) r.covering = &target;
  bool declared_covers = true;
  for (std::size_t k = 0; k < asked.size(); ++k)
    declared_covers = declared_covers && declared_at[k].lo() != declared_at[k].hi() && declared_at[k].contains(1) &&
                      declared_at[k].lo() <= asked[k].lo() && asked[k].hi() <= declared_at[k].hi();
  if (declared_alike && declared_covers && r.covering == nullptr) r.covering = &declared;
}

/// Whether a size other than the batch changes: an input's rank, or a dimension but its batch, is another
/// in the request than declared.
bool sizes_change(const std::vector<input_report>& inputs) {
  const auto names = named_batch(inputs);
  return std::any_of(inputs.begin(), inputs.end(), [&](const input_report& in) {
    if (!in.declared.rank_known() || !in.requested.rank_known()) return in.declared.rank_known() != in.requested.rank_known();
    if (in.declared.size() != in.requested.size()) return true;
    const auto at = batch_positions(in, names);
    for (std::size_t d = 0; d < in.declared.size(); ++d)
      if (!at[d] && in.declared[d].range() != in.requested[d].range()) return true;
    return false;
  });
}

/// Whether the batch asked is 1 where an input declares it as another known value: there the batch is a size
/// that becomes 1 like any other (the per-sample property compares with batch 1, which cannot show it), and a
/// constant made for the declared batch (`view(8, -1)`, a table 8 rows long) is a size finding.
bool batch_becomes_one(const std::vector<input_report>& inputs) {
  bool from_more = false;
  for (const auto& in : inputs) {
    if (!in.batch_index) continue;
    const auto at = *in.batch_index;
    if (!in.requested.rank_known() || at >= in.requested.size() || !in.requested[at].is_static() ||
        in.requested[at].lo() != 1)
      return false;
    from_more = from_more || (in.declared.rank_known() && at < in.declared.size() && in.declared[at].is_static() &&
                              in.declared[at].lo() >= 2);
  }
  return from_more;
}

/// The constants that may stand for a size that changes, each a finding after the layer's others, in the
/// order of the layers (a layer that already has a finding keeps only that: it fails, or its batch does).
void add_size_findings(const graph& g, const propagation& declared, const propagation& target,
                       const reshape_request& request, batch_report& report) {
  std::vector<std::size_t> position(g.layers().size(), 0);
  for (std::size_t k = 0; k < g.order().size(); ++k) position[g.order()[k]] = k;
  std::unordered_map<std::int64_t, std::size_t> by_id;
  for (std::size_t i = 0; i < g.layers().size(); ++i) by_id.emplace(g.layers()[i].id, i);
  const auto key = [&](const batch_finding& f) {
    if (f.within.empty()) return position[f.layer];
    const auto it = by_id.find(f.within.front().id);
    return it == by_id.end() ? std::size_t{0} : position[it->second];
  };
  std::unordered_set<std::size_t> decided;
  for (const auto& f : report.findings)
    if (f.within.empty() && f.issue != batch_issue::scales_with_batch) decided.insert(f.layer);
  // (At a batch of 1 from a declared batch of more, the batch's axis is among the sizes: no carrier excludes
  // it. Where it is the only size that changes, baked_sizes looks for it alone.)
  const bool one = batch_becomes_one(report.inputs);
  const auto carriers = one ? std::span<const std::vector<batch_carrier>>()
                            : std::span<const std::vector<batch_carrier>>(report.carriers);
  for (auto& f : detail::baked_sizes(g, declared, target, carriers, request.assume_constant, request.spelling,
                                     one && !sizes_change(report.inputs)))
    if (!decided.contains(f.layer)) report.findings.push_back(std::move(f));
  std::stable_sort(report.findings.begin(), report.findings.end(),
                   [&](const batch_finding& a, const batch_finding& b) { return key(a) < key(b); });
}

/// Sizes asked as intervals or symbols (not the batch's) in the request's --shape, tried at members
/// (detail::try_members) unless a layer already fails. A dimension the model declares `?` and the request
/// asks as `?` is asked too: "every length" is the question.
void try_sizes_asked(const graph& g, const propagation& declared, const reshape_request& request, batch_report& report) {
  if (std::any_of(report.findings.begin(), report.findings.end(), [](const batch_finding& f) { return f.issue == batch_issue::fails; }))
    return;
  const auto names = named_batch(report.inputs);
  const auto given = [&](const input_report& in) {
    return std::any_of(request.shapes.begin(), request.shapes.end(), [&](const auto& s) {
      return s.first == in.name || (s.first.empty() && report.inputs.size() == 1);
    });
  };
  std::vector<std::vector<bool>> ranged;
  bool any = false;
  for (const auto& in : report.inputs) {
    auto& r = ranged.emplace_back();
    if (!given(in) || !in.requested.rank_known()) continue;
    const auto at = batch_positions(in, names);
    r.assign(in.requested.size(), false);
    for (std::size_t d = 0; d < r.size(); ++d) {
      r[d] = !at[d] && !in.requested[d].is_static();
      any = any || r[d];
    }
  }
  if (any) detail::try_members(g, declared, report.inputs, ranged, request.assume_constant, request.spelling,
                               report.findings);
}

/// The model: its inputs, the propagations at the declared shapes, the new ones, an example batch (for a
/// dynamic one) and the samples (kept in `keep`; made in place with `undo`), then the scopes.
batch_report analyse(const graph& g, const reshape_request& request, detail::batch_runs& keep,
                     std::span<const char> redo, detail::batch_undo* undo) {
  batch_report report;
  report.inputs = choose_inputs(g, request, keep.declared_inputs);
  check_assumed_constants(g, request);
  const auto& inputs = report.inputs;
  report.target = text::target(request.batch);
  const bool any_batch = std::any_of(inputs.begin(), inputs.end(), [](const auto& in) { return in.batch_index; });
  auto requested = shapes_at(inputs, std::nullopt);
  const auto example = example_batch(inputs);
  keep_request(keep, undo, requested, example);
  // The sample runs name every dimension they leave unknown (sample_names): the analysis follows which of
  // them do not change with N (batch_free_sizes). So does the run at batch 1 made for them (run 6), so that
  // a size read back from a shape ([N, T, -1] of [N, T, 6625]) is as known alone as at the samples.
  const auto names = sample_names(g);
  const auto named = [](std::size_t k) { return (k >= 3 && k < 3 + samples.size()) || k == 6; };
  const auto run = [&](std::size_t k, std::span<const input_shape> given) -> const propagation& {
    return run_at(g, keep, k, given, redo, undo, named(k) ? std::string_view(names) : std::string_view());
  };
  if (undo != nullptr ? !(undo->in_place[0] || undo->replaced[0]) : !keep.runs[0]) run(0, keep.declared_inputs);
  const auto& declared = *keep.runs[0];
  const auto& target = run(1, requested);
  // Whether there is anything to analyse: a new shape, a batch that is not one known value (a model
  // declared with a dynamic batch may still hard-code it), or a batch of several samples even where the model
  // is declared at it (each sample's result is compared with the sample alone, at batch 1, whatever the
  // declared batch: `n == 1` read as data is wrong at a declared batch of 2 too).
  const bool changed = std::any_of(inputs.begin(), inputs.end(), [](const auto& in) {
    return to_string(without_symbols(in.requested)) != to_string(without_symbols(in.declared)) ||
           (in.batch_index && (!in.requested[*in.batch_index].is_static() || in.requested[*in.batch_index].lo() != 1));
  });
  runs r{&declared, &target, example ? &run(2, shapes_at(inputs, example)) : nullptr, {}};
  // At batch 1 every sample is alone: nothing can mix, drop or swallow it, and only a layer that fails
  // there is a finding (a pattern that hard-codes 1 is right at 1, whatever the declared batch).
  const bool one_sample = std::all_of(inputs.begin(), inputs.end(), [](const input_report& in) {
    return !in.batch_index || (in.requested.rank_known() && *in.batch_index < in.requested.size() &&
                               in.requested[*in.batch_index].is_static() && in.requested[*in.batch_index].lo() == 1);
  });
  // A --shape that leaves every batch as declared (one known value) asks about the other sizes only: the
  // batch is no question there, and a pattern written for it (`view(2, -1)` at a declared 2) is right.
  const bool batch_kept = !request.batch && std::all_of(inputs.begin(), inputs.end(), [](const input_report& in) {
    if (!in.batch_index) return true;
    const auto at = *in.batch_index;
    return in.declared.rank_known() && in.requested.rank_known() && at < in.declared.size() && at < in.requested.size() &&
           in.declared[at].is_static() && in.requested[at].is_static() && in.declared[at].lo() == in.requested[at].lo();
  });
  const bool analysed = any_batch && changed && !one_sample && !batch_kept;
  if (analysed) {
    for (std::size_t k = 0; k < samples.size(); ++k) r.at_samples[k] = &run(3 + k, sample_shapes(inputs, samples[k]));
    reference_runs(inputs, declared, target, r);
  }
  const auto sizes = analysed ? free_sizes(g, inputs, r) : detail::batch_free_sizes{};
  r.sizes = &sizes;
  std::optional<scope> top;
  top.emplace(g, r, std::vector<enclosing_layer>{}, &report.inputs, &request);
  report.findings = top->run(text::failing_at(request.batch), example, report.summary.failing_at_declared);
  if (top->wants_one()) {
    // A value computed from the batch size that the samples agree on: compare it with batch 1, then analyse
    // again with that run.
    r.at_one = &run(6, sample_shapes(inputs, 1));
    report.summary.failing_at_declared = 0;
    top.emplace(g, r, std::vector<enclosing_layer>{}, &report.inputs, &request);
    report.findings = top->run(text::failing_at(request.batch), example, report.summary.failing_at_declared);
  } else if (keep.runs[6]) {
    // Not made for this graph: a later analysis in place must not take it for this graph's run.
    if (undo != nullptr && !undo->replaced[6]) {
      undo->before[6] = std::move(keep.runs[6]);
      undo->replaced[6] = true;
    }
    keep.runs[6].reset();
  }
  report.carriers = std::move(*top).carriers();
  if (sizes_change(inputs) || batch_becomes_one(inputs)) add_size_findings(g, declared, target, request, report);
  try_sizes_asked(g, declared, request, report);
  hint_guessed_batches(g, report, request.spelling);
  output_reports(g, declared, target, report);
  input_notes(g, report, request.spelling);
  count_findings(report);
  return report;
}

}  // namespace

namespace detail {
std::vector<char> downstream_of(const graph& g, const std::vector<char>& marked) {
  const auto layers = g.layers();
  std::vector<char> after(layers.size(), 0);
  for (const auto i : g.order())
    for (const auto& src : layers[i].sources)
      if (src && (after[src->layer] || marked[src->layer])) after[i] = 1;
  return after;
}

namespace {
/// Whether a rule reads the same of `a` as of `b`: the same attributes, sources and body. (A Const's
/// bytes are where its offset and size attributes say; the bytes appended for the rewrites kept so far
/// keep their places in every trial, so the same attributes mean the same bytes.)
bool same_layer(const layer& a, const layer& b) {
  const auto same_attributes =
      (a.attributes.data() == b.attributes.data() && a.attributes.size() == b.attributes.size()) ||
      std::equal(a.attributes.begin(), a.attributes.end(), b.attributes.begin(), b.attributes.end(),
                 [](const attribute& x, const attribute& y) { return x.name == y.name && x.text == y.text; });
  // Ports are never edited: a layer whose ports are other views is taken as changed.
  const auto same_ports = a.inputs.data() == b.inputs.data() && a.inputs.size() == b.inputs.size() &&
                          a.outputs.data() == b.outputs.data() && a.outputs.size() == b.outputs.size();
  // An edit inside a body gives the layer that holds it a new body.
  return same_attributes && same_ports && a.id == b.id && a.type == b.type && a.opset == b.opset && a.body == b.body &&
         std::equal(a.sources.begin(), a.sources.end(), b.sources.begin(), b.sources.end(),
                    [](const std::optional<source>& x, const std::optional<source>& y) {
                      return x.has_value() == y.has_value() && (!x || (x->layer == y->layer && x->output == y->output));
                    });
}

}  // namespace

std::vector<char> layers_to_redo(const graph& before, const graph& after) {
  const auto a = before.layers(), b = after.layers();
  std::vector<char> changed(b.size(), 0);
  for (std::size_t i = 0; i < b.size(); ++i) changed[i] = i >= a.size() || !same_layer(a[i], b[i]);
  auto redo = downstream_of(after, changed);
  for (std::size_t i = 0; i < b.size(); ++i)
    redo[i] = changed[i] ? redo_always : redo[i] ? redo_if_inputs_changed : char{0};
  return redo;
}

element_origin origin_of_element(const graph& g, const propagation& p, const layer& l, std::size_t port,
                                 std::size_t index) {
  element_origin o;
  const layer* at = &l;
  std::size_t in = port;
  for (int depth = 0; depth < 64; ++depth) {
    if (in >= at->sources.size() || !at->sources[in]) return o;
    const auto& src = g.layers()[at->sources[in]->layer];
    o.holder = &src;
    o.index = index;
    o.consumer = at;
    o.consumer_port = in;
    if (part_of(src.type) == op_part::constant) return o;
    if (part_of(src.type) == op_part::concat) {
      bool found = false;
      for (std::size_t j = 0; j < src.inputs.size() && !found; ++j) {
        const auto& s = p.input(g, src, j).shape;
        if (!s.rank_known() || s.size() != 1 || !s[0].is_static()) return o;
        const auto length = static_cast<std::uint64_t>(s[0].lo());
        if (index < length) {
          o.through = &src;
          o.path.push_back(&src);
          at = &src;
          in = j;
          found = true;
        } else {
          index -= length;
        }
      }
      if (!found) return o;
      continue;
    }
    if (part_of(src.type) == op_part::passes_values) {
      o.path.push_back(&src);
      at = &src;
      in = 0;
      continue;
    }
    return o;
  }
  return o;
}

}  // namespace detail

std::string_view name(batch_source s) noexcept {
  switch (s) {
    case batch_source::layout_option: return "layout_option";
    case batch_source::layout_in_model: return "layout_in_model";
    case batch_source::first_dimension: return "first_dimension";
    case batch_source::none: return "none";
  }
  return "none";
}

std::string_view name(batch_issue i) noexcept {
  switch (i) {
    case batch_issue::fails: return "fails";
    case batch_issue::swallows_batch: return "swallows_batch";
    case batch_issue::scales_with_batch: return "scales_with_batch";
    case batch_issue::mixes_samples: return "mixes_samples";
    case batch_issue::drops_samples: return "drops_samples";
    case batch_issue::loses_batch: return "loses_batch";
    case batch_issue::fails_at_declared: return "fails_at_declared";
    case batch_issue::cannot_tell: return "cannot_tell";
  }
  return "fails";
}

std::string_view name(batch_verdict v) noexcept {
  switch (v) {
    case batch_verdict::yes: return "yes";
    case batch_verdict::no: return "no";
    case batch_verdict::cannot_tell: return "cannot_tell";
  }
  return "cannot_tell";
}

batch_report check_batch(const graph& g, const reshape_request& request) {
  detail::batch_runs runs;
  return detail::check_batch_keeping(g, request, runs);
}

batch_report detail::check_batch_keeping(const graph& g, const reshape_request& request, batch_runs& runs) {
  detail::check_request(request);
  for (std::size_t k = 1; k < runs.runs.size(); ++k) runs.runs[k].reset();
  return analyse(g, request, runs, {}, nullptr);
}

void detail::declared_in_place(const graph& g, batch_runs& runs, std::span<const char> redo, batch_undo& undo) {
  run_at(g, runs, 0, {}, redo, &undo, {});
}

batch_report detail::check_batch_in_place(const graph& g, const reshape_request& request, batch_runs& runs,
                                          std::span<const char> redo, batch_undo& undo) {
  detail::check_request(request);
  return analyse(g, request, runs, redo, &undo);
}

void detail::undo_runs(const graph& before, batch_runs& runs, batch_undo&& undo) {
  for (std::size_t k = 0; k < runs.runs.size(); ++k) {
    if (undo.in_place[k] && runs.runs[k]) undo_in_place(before, *runs.runs[k], std::move(undo.logs[k]));
    if (undo.replaced[k]) runs.runs[k] = std::move(undo.before[k]);
  }
  if (undo.analysed) {
    runs.requested = std::move(undo.requested);
    runs.example_batch = undo.example_batch;
  }
}

}  // namespace reshape1::model
