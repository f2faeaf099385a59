// `reshape1 fix model.onnx`: the Reshape patterns that write the declared batch as a constant get 0 (or
// -1) in their initializer or Constant node, cloned when other nodes share it; the graph inputs' batch and
// every declared dim that carries it become the dim_param N (a folded N·k is cleared); then the file, read
// back from the bytes that will be written, must reshape at every checked batch.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "../detail/fail.hpp"
#include "../io/files.hpp"
#include "model/analysis/batch_internal.hpp"
#include "model/analysis/fix_internal.hpp"
#include "../model/options.hpp"
#include "model/ops/rules.hpp"
#include "model/text/fix.hpp"
#include "lowering.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/propagate.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::onnx {
namespace {

namespace fs = std::filesystem;
using reshape1::detail::fail;
using model::detail::op_part;
using model::detail::part_of;

/// The batches at which the batch axis of each tensor is found: N·k at both, for one k.
constexpr std::int64_t probe_a = 1009, probe_b = 1013;

/// Where a pattern's value is stored: an initializer, or the `value` of a Constant node.
struct holder {
  ::onnx::TensorProto* tensor = nullptr;
  std::string name;        ///< the tensor's name (the Constant node's output)
  bool constant_node = false;
};

/// The values of an int64 or int32 pattern tensor from the bytes the reader made of it (raw little-endian,
/// whether the file holds them in raw_data, the typed field or an external file); nullopt when it kept
/// none (a tensor too large for a rule to read) or the tensor has another type.
std::optional<std::vector<std::int64_t>> values_of(const ::onnx::TensorProto& t, std::span<const std::byte> bytes) {
  std::uint64_t count = 1;
  for (const auto d : t.dims())
    if (d < 0 || __builtin_mul_overflow(count, static_cast<std::uint64_t>(d), &count)) return std::nullopt;
  const auto read = [&]<class T>(T) -> std::optional<std::vector<std::int64_t>> {
    if (count * sizeof(T) != bytes.size()) return std::nullopt;
    std::vector<std::int64_t> v(count);
    for (std::size_t k = 0; k < count; ++k) {
      T x;
      std::memcpy(&x, bytes.data() + k * sizeof(T), sizeof(T));
      v[k] = x;
    }
    return v;
  };
  if (t.data_type() == ::onnx::TensorProto::INT64) return read(std::int64_t{});
  if (t.data_type() == ::onnx::TensorProto::INT32) return read(std::int32_t{});
  return std::nullopt;
}

/// A tensor held in an external file, written into the model itself (raw_data) from the bytes the reader
/// read: the fixed model holds a rewritten tensor, and the data file stays as it is for the tensors that
/// are not rewritten (and for the original model, which may share it).
void write_inline(::onnx::TensorProto& t, std::span<const std::byte> bytes) {
  t.clear_external_data();
  t.set_data_location(::onnx::TensorProto::DEFAULT);
  t.set_raw_data(bytes.data(), bytes.size());
}

void set_value(::onnx::TensorProto& t, std::size_t element, std::int64_t value) {
  if (t.data_type() == ::onnx::TensorProto::INT64) {
    if (t.has_raw_data()) {
      std::memcpy(t.mutable_raw_data()->data() + element * 8, &value, 8);
    } else {
      t.set_int64_data(static_cast<int>(element), value);
    }
  } else {
    const auto v = static_cast<std::int32_t>(value);
    if (t.has_raw_data()) {
      std::memcpy(t.mutable_raw_data()->data() + element * 4, &v, 4);
    } else {
      t.set_int32_data(static_cast<int>(element), v);
    }
  }
}

/// How many values an int64 or int32 tensor holds: in `external` (its bytes, when an external file holds
/// them), else in the file (raw_data or its typed field).
std::size_t element_count(const ::onnx::TensorProto& t, std::span<const std::byte> external) {
  const std::size_t width = t.data_type() == ::onnx::TensorProto::INT64 ? 8 : 4;
  if (t.data_location() == ::onnx::TensorProto::EXTERNAL) return external.size() / width;
  if (t.has_raw_data()) return t.raw_data().size() / width;
  return static_cast<std::size_t>(width == 8 ? t.int64_data_size() : t.int32_data_size());
}

/// How many node inputs of the graph (subgraphs included) name each tensor.
void count_uses(const ::onnx::GraphProto& g, std::unordered_map<std::string, std::size_t>& uses) {
  for (const auto& node : g.node()) {
    for (const auto& i : node.input()) ++uses[i];
    for (const auto& a : node.attribute()) {
      if (a.has_g()) count_uses(a.g(), uses);
      for (const auto& sub : a.graphs()) count_uses(sub, uses);
    }
  }
}

/// Every name the graph (subgraphs included) gives a tensor: initializers, inputs and node outputs.
void taken_names(const ::onnx::GraphProto& g, std::set<std::string>& taken) {
  for (const auto& t : g.initializer()) taken.insert(t.name());
  for (const auto& v : g.input()) taken.insert(v.name());
  for (const auto& n : g.node()) {
    for (const auto& o : n.output()) taken.insert(o);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) taken_names(a.g(), taken);
      for (const auto& sub : a.graphs()) taken_names(sub, taken);
    }
  }
}

/// Where a node is: its index in the top graph, or in an If branch reached through `path` (each step a
/// node index and the index of the branch's attribute), so that refs sort in the file's order. An If's
/// branches are lowered into the graph itself, so their Reshapes are rewritten as the top graph's are.
/// It is what fix keys a Reshape by across rounds: the ids of a branch's layers move when a round adds an
/// initializer (a copy of a shared one), its nodes do not.
struct node_ref {
  std::vector<std::pair<int, int>> path;
  int index = 0;
  friend auto operator<=>(const node_ref&, const node_ref&) = default;
};

/// The graph `path` leads to.
::onnx::GraphProto* graph_at(::onnx::ModelProto& m, const std::vector<std::pair<int, int>>& path) {
  auto* g = m.mutable_graph();
  for (const auto& [node, attribute] : path) {
    if (node >= g->node_size() || attribute >= g->node(node).attribute_size() || !g->node(node).attribute(attribute).has_g())
      return nullptr;
    g = g->mutable_node(node)->mutable_attribute(attribute)->mutable_g();
  }
  return g;
}

::onnx::NodeProto* node_at(::onnx::ModelProto& m, const node_ref& r) {
  auto* g = graph_at(m, r.path);
  return g == nullptr || r.index >= g->node_size() ? nullptr : g->mutable_node(r.index);
}

/// Each graph the lowering put into the top one: the top graph and its If branches, nested ones too.
void inlined_graphs(::onnx::ModelProto& m, std::vector<std::pair<int, int>>& path,
                    const std::function<void(::onnx::GraphProto&, const std::vector<std::pair<int, int>>&)>& visit) {
  auto* g = graph_at(m, path);
  if (g == nullptr) return;
  visit(*g, path);
  for (int k = 0; k < g->node_size(); ++k) {
    const auto& node = g->node(k);
    if (node.op_type() != "If" || !(node.domain().empty() || node.domain() == "ai.onnx")) continue;
    for (int a = 0; a < node.attribute_size(); ++a) {
      if (!node.attribute(a).has_g()) continue;
      path.emplace_back(k, a);
      inlined_graphs(m, path, visit);
      path.pop_back();
    }
  }
}

/// The path to the graph `target` (a Loop's or Scan's body), searched through every graph attribute.
std::optional<std::vector<std::pair<int, int>>> path_to(::onnx::ModelProto& m, const ::onnx::GraphProto* target) {
  std::vector<std::pair<int, int>> path;
  const auto search = [&](auto& self, const ::onnx::GraphProto& g) -> bool {
    if (&g == target) return true;
    for (int k = 0; k < g.node_size(); ++k)
      for (int a = 0; a < g.node(k).attribute_size(); ++a) {
        if (!g.node(k).attribute(a).has_g()) continue;
        path.emplace_back(k, a);
        if (self(self, g.node(k).attribute(a).g())) return true;
        path.pop_back();
      }
    return false;
  };
  if (!search(search, m.graph())) return std::nullopt;
  return path;
}

/// The node of type `op` whose first output the layer `layer` computes, in the graph at `start` (the top
/// graph, or a body) or one of its If branches; `names` binds that graph's tensor names to its layers.
/// (An If whose condition is a constant binds its outputs to its branch's layers: the type tells them apart.)
std::optional<node_ref> locate(::onnx::ModelProto& m, std::vector<std::pair<int, int>> start,
                               const std::unordered_map<std::string, model::source>& names, std::size_t layer,
                               std::string_view op) {
  std::optional<node_ref> found;
  std::vector<std::pair<int, int>>& path = start;
  inlined_graphs(m, path, [&](::onnx::GraphProto& g, const std::vector<std::pair<int, int>>& at) {
    for (int k = 0; k < g.node_size() && !found; ++k) {
      if (g.node(k).output_size() == 0 || g.node(k).op_type() != op) continue;
      const auto it = names.find(g.node(k).output(0));
      if (it != names.end() && it->second.layer == layer) found = node_ref{at, k};
    }
  });
  return found;
}

/// One planned rewrite, kept as data: element `index` of `tensor` (an initializer or a Constant node's
/// value) becomes `value` where node `reader` (the Reshape, or the Concat on the way) reads it at `port`.
/// Each round applies the plans kept so far to a copy of the original, in the order they were made, so a
/// plan the checks reject is taken back by leaving it out.
struct edit {
  node_ref node;             ///< the Reshape node
  std::size_t element = 0;   ///< the pattern element the plan sets
  std::string tensor;
  node_ref reader;
  std::size_t port = 0;
  std::size_t index = 0;
  std::int64_t old_value = 0, value = 0;
  bool clear_allowzero = false;     ///< the Reshape's allowzero becomes 0 (0 then copies the batch)
  std::vector<std::byte> external;  ///< the tensor's bytes when an external file holds them: written inline
  std::string old_pattern, new_pattern, why;
  std::vector<model::enclosing_layer> within;  ///< the bodies the Reshape is in, when it is in one
  std::int64_t id = 0;                         ///< its id there, as the checks give it
};

/// Where a Reshape the checks name is, in the lowered model: the model's graph or a Loop's or Scan's body
/// (`within` non-empty), what propagation knows there, the tensor names that graph binds, and where it is
/// in the file.
struct site {
  const model::graph* graph = nullptr;
  const model::propagation* prop = nullptr;
  const std::unordered_map<std::string, model::source>* names = nullptr;
  std::vector<std::pair<int, int>> path;
  std::vector<model::enclosing_layer> within;
  std::size_t layer = 0;  ///< the Reshape's index in `graph`
  std::size_t outermost = 0;  ///< the index in the model's graph of the layer it is in (itself at the top)
};

std::string pattern_text(const std::vector<std::optional<std::int64_t>>& v) {
  std::vector<std::string> parts;
  for (const auto& x : v) parts.push_back(x ? std::to_string(*x) : std::string("?"));
  return fmt::format("[{}]", fmt::join(parts, ","));
}

class onnx_fixer {
 public:
  onnx_fixer(std::span<const std::byte> bytes, const fs::path& file, const fix_options& options)
      : file_(file), options_(options) {
    if (options_.check_batches.empty()) options_.check_batches = {dimension(1), dimension(2), dimension(8), dimension()};
    if (options_.batch_name.empty())
      fail(errc::invalid_argument, {},
           fmt::format("{}: an empty name for the batch's dim_param", model::detail::spell(model::detail::option::batch_name)),
           fmt::format("give a name, e.g. {}", model::detail::spell(model::detail::option::batch_name, {}, "N")));
    detail::parse_model(bytes, file.string(), original_);
  }

  fix_report run() {
    fix_report report;
    std::vector<model::batch_report> before;  // the checks of the model as given, at every batch
    const bool freed = rounds(report, before);
    if (report.changes.empty() && !freed && report.refusals.empty()) {
      report.nothing_to_do = true;
      for (const auto& r : before) report.checked.push_back(r.summary_line());
      report.fixed = std::all_of(before.begin(), before.end(),
                                 [](const auto& r) { return r.summary.verdict() == model::batch_verdict::yes; });
      return report;
    }
    prove(report);
    return report;
  }

 private:
  /// Rounds: a Reshape downstream of one that breaks the batch is only judged once that one is fixed (a
  /// channel shuffle's second Reshape), so each round plans for the Reshapes the checks name. A Reshape
  /// still named with its plan applied loses the plan, and the next round tries its next alternative (0,
  /// then -1; or -1 at each element of a pattern that folds the batch). Every round adds or drops a plan,
  /// and each alternative is tried once: the rounds end. The first round, on the model as given, checks
  /// every batch (`before`); a round after one that changed something checks a dynamic batch only, whose
  /// sample batches find what the checked batches would (the IR fix's rounds judge there too), and, when
  /// that changes nothing, every batch on the same model. The rounds end with one that checked every batch
  /// and changed nothing: its model, with its declared dims freed, becomes model_. Whether dims were freed.
  bool rounds(fix_report& report, std::vector<model::batch_report>& before) {
    std::vector<edit> edits;
    const std::vector<dimension> dynamic_only{dimension()};
    bool every_batch = true;
    for (bool first = true;; first = false) {
      auto [m, changes, stale] = apply(edits);
      for (auto k = stale.rbegin(); k != stale.rend(); ++k) edits.erase(edits.begin() + static_cast<std::ptrdiff_t>(*k));
      if (!stale.empty()) continue;  // a plan named a copy that a dropped plan made: planned again on what is left
      names_.clear();
      bodies_.clear();
      const auto g = detail::lower(m, file_.string(), file_.parent_path(), &names_, &bodies_);
      std::vector<dimension> at = every_batch ? options_.check_batches : dynamic_only;
      auto last = checks(g, at, std::nullopt);
      std::optional<model::propagation> p;
      const auto prop = [&]() -> const model::propagation& {
        if (!p) p = model::propagate(g);
        return *p;
      };
      if (first) {
        before = last;
        remember_declared(g, prop());
      }
      // Planned from the dynamic batch's report, then (when that changes nothing) from every batch's.
      std::vector<std::pair<node_ref, const model::batch_finding*>> waiting;
      bool changed = false;
      for (;;) {
        changed = plan_round(m, g, prop, at, last, edits, report, waiting);
        if (changed || every_batch) break;
        at = options_.check_batches;
        last = checks(g, at, std::move(last.front()));
        every_batch = true;
      }
      every_batch = !changed;
      if (changed) continue;
      for (const auto& [ref, f] : waiting)
        refuse(report, *f, why_not_[ref].empty() ? model::text::after_unfixed_reshape() : why_not_[ref]);
      // Each change names its Reshape by its id in this, the final model (as the refusals do).
      for (std::size_t k = 0; k < changes.size(); ++k) name_change(m, g, edits[k], changes[k]);
      report.changes = std::move(changes);
      // The declared dims follow the rewritten model (this round's graph): where its tensors hold the batch
      // now.
      const bool freed = free_dims(m, g, before.front(), report);
      bodies_.clear();  // its graphs are m's, which moves now
      model_ = std::move(m);
      return freed;
    }
  }

  /// check_batch of `g` at each of `batches`; `dynamic` is the report at a dynamic batch when it is made.
  std::vector<model::batch_report> checks(const model::graph& g, std::span<const dimension> batches,
                                          std::optional<model::batch_report> dynamic) const {
    std::vector<model::batch_report> r;
    for (const auto& b : batches)
      r.push_back(b == dimension() && dynamic ? *std::exchange(dynamic, std::nullopt)
                                              : model::check_batch(g, {.batch = b, .layouts = options_.layouts}));
    return r;
  }

  /// The shape of each tensor of the original model at its declared inputs, and the layer that makes it.
  struct declared_tensor {
    partial_shape shape;
    std::int64_t id = 0;
    std::string layer, type;
  };

  /// What the proof compares the fixed model with: the original `g`, propagated as `p`, by tensor name.
  void remember_declared(const model::graph& g, const model::propagation& p) {
    for (const auto& [name, at] : names_) {
      const auto& l = g.layers()[at.layer];
      declared_.emplace(name, declared_tensor{p.outputs[at.layer][at.output].shape, l.id, std::string(l.name),
                                              std::string(l.type)});
    }
  }

  /// The proof: the bytes that will be written, read back, must reshape at every checked batch, compute
  /// the original's shapes at the original's declared inputs, and carry the batch where check_batch says
  /// (fix_proof.cpp). `report.model` holds those bytes when it holds.
  void prove(fix_report& report) const {
    std::string out;
    if (!model_.SerializeToString(&out)) fail(errc::io, {.file = file_.string()}, "protobuf cannot serialise the fixed model");
    ::onnx::ModelProto back;
    detail::parse_model(std::as_bytes(std::span(out.data(), out.size())), file_.string() + " (fixed)", back);
    std::unordered_map<std::string, model::source> names;
    const auto fixed = detail::lower(back, file_.string() + " (fixed)", file_.parent_path(), &names);
    // The fixed model at the original's declared inputs: its inputs' batch is the dim_param now.
    std::vector<model::input_shape> inputs;
    std::set<std::size_t> seen;
    for (const auto& [name, at] : names)
      if (const auto it = declared_.find(name); it != declared_.end() &&
          part_of(fixed.layers()[at.layer].type) == op_part::parameter && seen.insert(at.layer).second)
        inputs.push_back({at.layer, it->second.shape});
    const auto reference = model::propagate(fixed, inputs);
    bool all = same_shapes_as_declared(fixed, names, reference, report);
    for (const auto& b : options_.check_batches) {
      model::detail::batch_runs runs;
      const auto r = model::detail::check_batch_keeping(fixed, {.batch = b, .layouts = options_.layouts}, runs);
      report.checked.push_back(r.summary_line());
      all = all && r.summary.verdict() == model::batch_verdict::yes && runs.runs[1];
      if (all)
        if (auto unscaled = model::detail::not_scaled(fixed, reference, *runs.runs[1], r, b)) {
          report.refusals.push_back(std::move(*unscaled));
          all = false;
        }
    }
    report.fixed = all && report.refusals.empty();
    if (report.fixed) report.model = std::move(out);
  }

  /// Whether every tensor of the original has, in the fixed model `g` (whose tensors `names` binds,
  /// propagated at the original's declared inputs as `p`), the shape it had; a refusal names the first
  /// that does not, in the order of the fixed model's layers.
  bool same_shapes_as_declared(const model::graph& g, const std::unordered_map<std::string, model::source>& names,
                               const model::propagation& p, fix_report& report) const {
    const std::pair<const std::string, declared_tensor>* lost = nullptr;  // the first (by id) it lacks
    std::optional<std::size_t> first;  // the fixed model's first layer whose tensor differs
    for (const auto& entry : declared_) {
      const auto it = names.find(entry.first);
      if (it == names.end()) {
        if (lost == nullptr || entry.second.id < lost->second.id) lost = &entry;
      } else if (!model::detail::same_shape(entry.second.shape, p.outputs[it->second.layer][it->second.output].shape) &&
                 (!first || it->second.layer < *first)) {
        first = it->second.layer;
      }
    }
    if (lost != nullptr) {
      const auto& was = lost->second;
      report.refusals.push_back({was.id, was.layer, was.type, model::text::read_back_lacks_tensor(lost->first)});
      return false;
    }
    if (!first) return true;
    const auto& l = g.layers()[*first];
    report.refusals.push_back({l.id, std::string(l.name), std::string(l.type), model::text::read_back_differs()});
    return false;
  }

  /// One round's plans, from the reports `last` (at the batches `at`) of the model `m` lowered as `g`: each Reshape they name
  /// gets its next plan (added to `edits`), loses the one it has, waits (in `waiting`) behind another
  /// one named, or is refused, as are the findings fix cannot rewrite. Whether `edits` changed.
  bool plan_round(::onnx::ModelProto& m, const model::graph& g, const std::function<const model::propagation&()>& prop,
                  std::span<const dimension> at, const std::vector<model::batch_report>& last,
                  std::vector<edit>& edits, fix_report& report,
                  std::vector<std::pair<node_ref, const model::batch_finding*>>& waiting) {
    report.refusals.clear();
    waiting.clear();
    bool changed = false;
    // The Reshape nodes a check names (of the top graph, an If branch or a body), with their first
    // finding and where they are.
    std::map<node_ref, std::pair<const model::batch_finding*, site>> named;
    for (std::size_t k = 0; k < last.size(); ++k)
      for (const auto& f : last[k].findings) {
        const bool reshape =
            part_of(f.type) == op_part::reshape && (f.pattern_index || f.issue == model::batch_issue::fails);
        std::string lost;
        auto where = reshape ? site_of(m, g, prop, f, lost) : std::nullopt;
        const auto node = where ? locate(m, where->path, *where->names, where->layer, "Reshape") : std::nullopt;
        if (node) {
          named.emplace(*node, std::pair{&f, std::move(*where)});
        } else if (f.issue != model::batch_issue::scales_with_batch) {
          // A node that lowers to a Reshape (Flatten, a grouped Conv's weights) is not one fix rewrites.
          refuse(report, f,
                 !f.pattern_index || part_of(f.type) != op_part::reshape ? model::text::refusal(f, at[k])
                 : !lost.empty()                                          ? lost
                                                                          : model::text::reshape_not_found());
        }
      }
    // A Reshape after another one named here may be named for that one's doing: its plan is kept, and
    // a pattern that folds the batch waits for a later round. A pattern element that writes the declared
    // batch is the Reshape's own doing, and is planned at once. (A body's Reshape is after what its Loop
    // or Scan is after.)
    std::vector<char> named_here(g.layers().size(), 0);
    std::map<const model::graph*, std::vector<char>> after_in_body;  // the same within each body
    for (const auto& entry : named) {
      const auto& w = entry.second.second;
      named_here[w.outermost] = 1;
      if (w.within.empty()) continue;
      auto& marks = after_in_body[w.graph];
      marks.resize(w.graph->layers().size(), 0);
      marks[w.layer] = 1;
    }
    const auto after = model::detail::downstream_of(g, named_here);
    for (auto& [body, marks] : after_in_body) marks = model::detail::downstream_of(*body, marks);
    for (auto& [ref, entry] : named) {
      const auto& node = ref;  // clang 14 (the fuzz preset) cannot capture a structured binding
      const auto* f = entry.first;
      auto& where = entry.second;
      const bool waits =
          after[where.outermost] != 0 || (!where.within.empty() && after_in_body[where.graph][where.layer] != 0);
      const auto active = std::find_if(edits.begin(), edits.end(), [&node](const edit& e) { return e.node == node; });
      if (active != edits.end() || (waits && !f->pattern_index)) {
        if (waits) {
          waiting.emplace_back(ref, f);
          continue;
        }
        why_not_[ref] = model::text::rewrite_left(active->element, active->value, f->what);
        ++tried_[ref];
        edits.erase(active);
        changed = true;
        continue;
      }
      if (where.prop == nullptr) where.prop = &prop();
      if (auto e = plan(where, m, ref, *f)) {
        edits.push_back(std::move(*e));
        changed = true;
      } else {
        refuse(report, *f, why_not_[ref]);
      }
    }
    return changed;
  }

  void refuse(fix_report& report, const model::batch_finding& f, std::string reason) {
    for (const auto& x : report.refusals)
      if (x.id == f.id && x.within == f.within) return;
    report.refusals.push_back({f.id, f.name, f.type, std::move(reason), f.within});
  }

  /// The initializer or Constant node that holds the tensor `name` as node `reader` sees it: in its own
  /// graph, else in the graphs around it, as ONNX scopes names (a branch's or a body's tensors are not
  /// seen from outside it; a body's input of that name hides the ones around it).
  static std::optional<holder> holder_of(::onnx::ModelProto& m, const std::string& name, const node_ref& reader) {
    for (auto k = reader.path.size() + 1; k-- > 0;) {
      auto* g = graph_at(m, {reader.path.begin(), reader.path.begin() + static_cast<std::ptrdiff_t>(k)});
      if (g == nullptr) continue;
      for (auto& t : *g->mutable_initializer())
        if (t.name() == name) return holder{&t, name, false};
      for (auto& n : *g->mutable_node())
        if (n.op_type() == "Constant" && n.output_size() == 1 && n.output(0) == name)
          for (auto& a : *n.mutable_attribute())
            if (a.name() == "value" && a.has_t()) return holder{a.mutable_t(), name, true};
      if (k > 0)
        for (const auto& v : g->input())
          if (v.name() == name) return std::nullopt;
    }
    return std::nullopt;
  }

  /// Where the Reshape finding `f` names is in the lowered model `g` (of `m`): in the model's graph, or in
  /// the body its `within` leads to, with that body's names and propagation; nullopt when fix cannot
  /// follow it there.
  std::optional<site> site_of(::onnx::ModelProto& m, const model::graph& g,
                              const std::function<const model::propagation&()>& prop, const model::batch_finding& f,
                              std::string& why) {
    if (!f.within.empty())
      why = model::text::body_not_followed(f.within.back());
    site s;
    s.graph = &g;
    s.names = &names_;
    s.within = f.within;
    if (!f.within.empty()) {
      const model::propagation* p = &prop();
      std::vector<std::size_t> layers;
      for (const auto& w : f.within) {
        const auto* l = s.graph->find(w.id);
        if (l == nullptr || !l->body || p == nullptr) return std::nullopt;
        const auto index = static_cast<std::size_t>(l - s.graph->layers().data());
        if (layers.empty()) s.outermost = index;
        layers.push_back(index);
        p = p->body(index);
        s.graph = &l->body->network;
      }
      const auto record = std::find_if(bodies_.begin(), bodies_.end(),
                                       [&](const detail::body_names& b) { return b.layers == layers; });
      if (record == bodies_.end() || p == nullptr) return std::nullopt;
      const auto path = path_to(m, record->graph);
      if (!path) return std::nullopt;
      s.names = &record->names;
      s.path = *path;
      s.prop = p;
    }
    const auto* reshape = s.graph->find(f.id);
    if (reshape == nullptr) return std::nullopt;
    s.layer = static_cast<std::size_t>(reshape - s.graph->layers().data());
    if (f.within.empty()) s.outermost = s.layer;
    return s;
  }

  /// Names change `c` as the final round's graph `g` (of `m`) numbers edit `e`'s Reshape: its id, and for
  /// one in a body, the Loop and Scan layers around it.
  void name_change(::onnx::ModelProto& m, const model::graph& g, const edit& e, fix_change& c) const {
    const auto* n = node_at(m, e.node);
    if (n == nullptr || n->output_size() == 0) return;
    if (e.within.empty()) {
      if (const auto it = names_.find(n->output(0)); it != names_.end()) c.node = g.layers()[it->second.layer].id;
      return;
    }
    // The body that holds the node: the record whose graph is the longest prefix of the node's path.
    for (auto k = e.node.path.size() + 1; k-- > 1;) {
      const auto* body = graph_at(m, {e.node.path.begin(), e.node.path.begin() + static_cast<std::ptrdiff_t>(k)});
      const auto record = std::find_if(bodies_.begin(), bodies_.end(),
                                       [&](const detail::body_names& b) { return b.graph == body; });
      if (record == bodies_.end()) continue;
      const auto it = record->names.find(n->output(0));
      if (it == record->names.end()) return;
      const model::graph* at = &g;
      std::vector<model::enclosing_layer> within;
      for (const auto index : record->layers) {
        const auto& l = at->layers()[index];
        within.push_back({l.id, std::string(l.name), std::string(l.type)});
        at = &l.body->network;
      }
      c.node = at->layers()[it->second.layer].id;
      c.within = std::move(within);
      return;
    }
  }

  /// The original with `edits` applied in order, what each did, and the edits that could not apply (their
  /// tensor was a copy that an edit since dropped had made).
  std::tuple<::onnx::ModelProto, std::vector<fix_change>, std::vector<std::size_t>> apply(const std::vector<edit>& edits) const {
    ::onnx::ModelProto m = original_;
    std::vector<fix_change> changes;
    std::vector<std::size_t> stale;
    // Counted once, and kept up to date as copies are made: each edit looking through the whole model
    // made a round's cost grow with the edits times the nodes.
    std::unordered_map<std::string, std::size_t> uses;
    count_uses(m.graph(), uses);
    std::set<std::string> taken;
    taken_names(m.graph(), taken);
    for (std::size_t k = 0; k < edits.size(); ++k) {
      const auto& e = edits[k];
      // An edit planned on a model that is not the one these edits make (a copy another edit made, since
      // dropped; a tensor another edit of its round copied or wrote inline first) is planned again.
      auto h = holder_of(m, e.tensor, e.reader);
      auto* const found = node_at(m, e.reader);
      const bool external = h && h->tensor->data_location() == ::onnx::TensorProto::EXTERNAL;
      if (!h || found == nullptr || e.port >= static_cast<std::size_t>(found->input_size()) ||
          found->input(static_cast<int>(e.port)) != e.tensor || external != !e.external.empty() ||
          e.index >= element_count(*h->tensor, e.external)) {
        stale.push_back(k);
        continue;
      }
      auto& reader = *found;
      // A tensor other nodes read too is cloned for this one: they may need it as it is.
      std::optional<std::string> cloned_from;
      if (uses[h->name] > 1) {
        auto* copy = m.mutable_graph()->add_initializer();
        *copy = *h->tensor;
        const auto clone_name =
            unique_name(taken, fmt::format("{}_for_{}", h->name, reader.name().empty() ? reader.output(0) : reader.name()));
        --uses[h->name];
        ++uses[clone_name];
        copy->set_name(clone_name);
        cloned_from = h->name;
        reader.set_input(static_cast<int>(e.port), clone_name);
        h = holder{copy, clone_name, false};
      }
      if (external) write_inline(*h->tensor, e.external);
      set_value(*h->tensor, e.index, e.value);
      fix_change c;
      if (auto* n = node_at(m, e.node)) {
        c.name = n->name().empty() && n->output_size() > 0 ? n->output(0) : n->name();
        if (e.clear_allowzero)
          for (auto& a : *n->mutable_attribute())
            if (a.name() == "allowzero") a.set_i(0);
      }
      c.allowzero_cleared = e.clear_allowzero;
      c.old_pattern = e.old_pattern;
      c.new_pattern = e.new_pattern;
      c.tensor = h->name;
      c.cloned_from = cloned_from;
      c.element = e.index;
      c.old_value = e.old_value;
      c.new_value = e.value;
      c.why = model::text::held_by_tensor(e.why, h->constant_node, h->name, !e.external.empty());
      c.within = e.within;
      c.node = e.id;
      changes.push_back(std::move(c));
    }
    return {std::move(m), std::move(changes), std::move(stale)};
  }

  /// The next plan for the Reshape node `at` that a check names with `f`, made where `s` says it is in
  /// the lowered model `m`; nullopt when none is left, with the reason in why_not_.
  std::optional<edit> plan(const site& s, ::onnx::ModelProto& m, const node_ref& at, const model::batch_finding& f) {
    const auto& g = *s.graph;
    const auto& p = *s.prop;
    const auto& node = *node_at(m, at);
    auto& why_not = why_not_[at];
    const auto* reshape = g.find(f.id);
    if (node.input_size() < 2 || reshape == nullptr || part_of(reshape->type) != op_part::reshape) {
      why_not = model::text::no_shape_input();
      return std::nullopt;
    }
    // The pattern as propagation knows it, for the change's patterns before and after.
    std::vector<std::optional<std::int64_t>> pattern;
    if (const auto& v = p.input(g, *reshape, 1).value; v && !v->is_real())
      for (const auto& e : v->elements) pattern.push_back(e.exact() ? std::optional(e.lo) : std::nullopt);
    std::string reason;
    const auto alternatives = model::detail::pattern_choices(g, p, *reshape, f, reason);
    if (alternatives.empty() && why_not.empty()) why_not = std::move(reason);
    for (auto& k = tried_[at]; k < alternatives.size(); ++k)
      if (auto e = target(s, m, *reshape, at, pattern, alternatives[k])) {
        e->within = f.within;
        e->id = f.id;
        return e;
      }
    return std::nullopt;
  }

  /// `a` as a rewrite of the tensor that holds its pattern element; nullopt (with the reason in why_not_)
  /// when that is not a tensor of the file that fix can rewrite.
  std::optional<edit> target(const site& s, ::onnx::ModelProto& m, const model::layer& reshape, const node_ref& at,
                             std::vector<std::optional<std::int64_t>> pattern, const model::detail::pattern_choice& a) {
    const auto& g = *s.graph;
    auto& why_not = why_not_[at];
    const auto no = [&](std::string why) -> std::optional<edit> {
      why_not = std::move(why);
      return std::nullopt;
    };
    const auto element = a.element;
    // Where the element comes from: the tensor itself, or a tensor a Concat (or Unsqueeze, Cast...) put
    // into it.
    const auto origin = model::detail::origin_of_element(g, *s.prop, reshape, 1, element);
    // In a body, a tensor of the graph around it that the body reads by name comes in as a Parameter of
    // the body's own (named as the tensor).
    const bool read_from_outside =
        origin.holder != nullptr && !s.within.empty() && part_of(origin.holder->type) == op_part::parameter;
    if (origin.holder == nullptr || (part_of(origin.holder->type) != op_part::constant && !read_from_outside))
      return no(model::text::computed_not_tensor(element));
    const bool initializer = origin.holder->find("onnx_initializer") != nullptr;
    if (!read_from_outside && !initializer &&
        (origin.holder->auxiliary || origin.holder->find("onnx_constant") == nullptr))
      return no(model::text::constant_not_in_file(element, origin.holder->name));
    const std::string held(origin.holder->name);
    // Every node between the tensor and the Reshape must feed only the next one: a shared Concat or Cast
    // would carry the change to nodes this report would not list.
    for (const auto* step : origin.path)
      if (model::detail::readers_of(g, *step) > 1)
        return no(model::text::comes_through_shared_node(element, step->name));
    // The node that reads the tensor: the Reshape, or the Concat on the way.
    const auto* consumer = origin.consumer == nullptr ? &reshape : origin.consumer;
    const auto reader_at =
        consumer->auxiliary ? std::nullopt
                            : locate(m, s.path, *s.names, static_cast<std::size_t>(consumer - g.layers().data()),
                                     consumer->op_type());
    if (!reader_at) return no(model::text::reaches_through_added_layer(held));
    const auto h = holder_of(m, held, *reader_at);
    if (!h)
      return no(model::text::not_a_tensor_the_node_sees(element, held));
    if (read_from_outside && h->tensor->data_location() == ::onnx::TensorProto::EXTERNAL)
      return no(model::text::external_read_in_body(element, held));
    // The value it holds now: the Const's bytes, or for a tensor read from outside the body, the values its
    // Parameter there carries (the lowering gives it the outer constant's).
    const auto bytes = read_from_outside ? std::span<const std::byte>() : g.const_bytes(*origin.holder);
    std::optional<std::int64_t> old_value;
    if (!read_from_outside) {
      if (const auto values = values_of(*h->tensor, bytes); values && origin.index < values->size())
        old_value = (*values)[origin.index];
    } else if (const auto& v = s.prop->outputs[static_cast<std::size_t>(origin.holder - g.layers().data())][0].value;
               v && !v->is_real() && origin.index < v->elements.size() && v->elements[origin.index].exact() &&
               (h->tensor->data_type() == ::onnx::TensorProto::INT64 ||
                h->tensor->data_type() == ::onnx::TensorProto::INT32) &&
               origin.index < element_count(*h->tensor, {})) {
      old_value = v->elements[origin.index].lo;
    }
    if (!old_value) return no(model::text::values_not_read(held));
    const auto& reader = *node_at(m, *reader_at);
    const auto port = origin.consumer == nullptr ? std::size_t{1} : origin.consumer_port;
    if (port >= static_cast<std::size_t>(reader.input_size()) || reader.input(static_cast<int>(port)) != held)
      return no(model::text::does_not_feed(held, port, reader.name()));
    edit e;
    e.element = element;
    e.tensor = held;
    e.node = at;
    e.reader = *reader_at;
    e.port = port;
    e.index = origin.index;
    e.old_value = *old_value;
    e.value = a.value;
    e.clear_allowzero = a.set_special_zero;
    if (h->tensor->data_location() == ::onnx::TensorProto::EXTERNAL) e.external.assign(bytes.begin(), bytes.end());
    e.old_pattern = pattern_text(pattern);
    pattern[element] = a.value;
    e.new_pattern = pattern_text(pattern);
    e.why = origin.through != nullptr ? model::text::through_concat(a.why, origin.through->name) : a.why;
    return e;
  }

  /// `base`, or `base_2`, `base_3`... : the first that `taken` does not hold; it is taken then.
  static std::string unique_name(std::set<std::string>& taken, const std::string& base) {
    std::string name = base;
    for (int k = 2; taken.contains(name); ++k) name = fmt::format("{}_{}", base, k);
    taken.insert(name);
    return name;
  }

  /// The declared dims of `v`, a tensor that `names` binds to an output of a graph propagated at the probe
  /// batches as `a_at` and `b_at`: a dim that is N at both becomes the dim_param, one that is N·k (k > 1) is
  /// cleared, each listed in `report.freed` as `kind`. Whether any changed.
  bool free_declared(::onnx::ValueInfoProto& v, const std::unordered_map<std::string, model::source>& names,
                     const model::propagation& a_at, const model::propagation& b_at, const std::string& kind,
                     fix_report& report) const {
    const auto it = names.find(v.name());
    if (it == names.end() || !v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return false;
    const auto& a = a_at.outputs[it->second.layer][it->second.output].shape;
    const auto& b = b_at.outputs[it->second.layer][it->second.output].shape;
    auto* shape = v.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (!a.rank_known() || !b.rank_known() || a.size() != b.size() ||
        a.size() != static_cast<std::size_t>(shape->dim_size()))
      return false;
    bool changed = false;
    for (int k = 0; k < shape->dim_size(); ++k) {
      const auto& x = a[static_cast<std::size_t>(k)];
      const auto& y = b[static_cast<std::size_t>(k)];
      // Unknown at a probe (another dynamic dimension): left as declared. Equal at both: no batch in it.
      if (!x.is_static() || !y.is_static() || x.lo() == y.lo()) continue;
      auto* d = shape->mutable_dim(k);
      const bool carries = x.lo() % probe_a == 0 && y.lo() % probe_b == 0 && x.lo() / probe_a == y.lo() / probe_b;
      if (carries && x.lo() == probe_a) {
        if (d->has_dim_param() && d->dim_param() == options_.batch_name) continue;
        d->set_dim_param(options_.batch_name);
        report.freed.push_back(model::text::freed_dimension(kind, v.name(), static_cast<std::size_t>(k), false));
      } else {
        if (!d->has_dim_value() && !d->has_dim_param()) continue;
        d->clear_dim_value();
        d->clear_dim_param();
        report.freed.push_back(model::text::freed_dimension(kind, v.name(), static_cast<std::size_t>(k), true));
      }
      changed = true;
    }
    return changed;
  }

  /// The graph inputs' batch becomes the dim_param; in the outputs and value_info, a dim that is N at
  /// the probe batches becomes it too and one that is N·k (k > 1) is cleared; likewise in the inputs,
  /// outputs and value_info of each Loop's and Scan's body (ONNX Runtime holds a body's outputs to the
  /// dims they declare). `g` is `m` lowered, with names_ and bodies_. Returns whether anything changed.
  bool free_dims(::onnx::ModelProto& m, const model::graph& g, const model::batch_report& plan, fix_report& report) {
    bool changed = false;
    auto& graph = *m.mutable_graph();
    std::vector<model::input_shape> at_a, at_b;
    for (const auto& in : plan.inputs) {
      if (!in.batch_index || !in.declared.rank_known()) continue;
      for (auto& v : *graph.mutable_input()) {
        if (v.name() != in.name || !v.type().tensor_type().has_shape() ||
            v.type().tensor_type().shape().dim_size() <= static_cast<int>(*in.batch_index))
          continue;
        auto* d = v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(static_cast<int>(*in.batch_index));
        if (d->has_dim_param() && d->dim_param() == options_.batch_name) continue;
        d->set_dim_param(options_.batch_name);
        report.freed.push_back(model::text::freed_dimension("input", in.name, *in.batch_index, false));
        changed = true;
      }
      // The Parameter in the rewritten graph (a cloned initializer may have moved the layers after it).
      std::optional<std::size_t> layer;
      for (std::size_t i = 0; i < g.layers().size(); ++i)
        if (part_of(g.layers()[i].type) == op_part::parameter && g.layers()[i].name == in.name) layer = i;
      if (!layer) continue;
      std::vector<dimension> dims(in.declared.begin(), in.declared.end());
      dims[*in.batch_index] = dimension(probe_a);
      at_a.push_back({*layer, partial_shape(dims)});
      dims[*in.batch_index] = dimension(probe_b);
      at_b.push_back({*layer, partial_shape(dims)});
    }
    const auto pa = model::propagate(g, at_a);
    const auto pb = model::propagate(g, at_b);
    const auto update = [&](::onnx::ValueInfoProto& v, const std::unordered_map<std::string, model::source>& names,
                            const model::propagation& a, const model::propagation& b, const std::string& kind) {
      changed = free_declared(v, names, a, b, kind, report) || changed;
    };
    // The top graph and its If branches, which are lowered into it, so their tensors were propagated too.
    std::vector<std::pair<int, int>> path;
    inlined_graphs(m, path, [&](::onnx::GraphProto& in, const std::vector<std::pair<int, int>>& at) {
      for (auto& v : *in.mutable_output()) update(v, names_, pa, pb, at.empty() ? "output" : "branch output");
      for (auto& v : *in.mutable_value_info()) update(v, names_, pa, pb, at.empty() ? "value_info" : "branch value_info");
    });
    // Each body, a graph of its own, propagated (at its last iteration) inside the layer that runs it.
    for (const auto& body : bodies_) {
      const model::propagation* a = &pa;
      const model::propagation* b = &pb;
      for (const auto layer : body.layers) {
        a = a == nullptr ? nullptr : a->body(layer);
        b = b == nullptr ? nullptr : b->body(layer);
      }
      if (a == nullptr || b == nullptr) continue;
      // The body, and the If branches inside it, which are lowered into it.
      const auto body_at = path_to(m, body.graph);
      if (!body_at) continue;
      auto start = *body_at;
      inlined_graphs(m, start, [&](::onnx::GraphProto& in, const std::vector<std::pair<int, int>>& where) {
        const bool branch = where.size() > body_at->size();
        const auto kind = [&](const char* what) {
          return fmt::format("{} '{}' body {}{}", body.op, body.node, branch ? "branch " : "", what);
        };
        if (!branch)
          for (auto& v : *in.mutable_input()) update(v, body.names, *a, *b, kind("input"));
        for (auto& v : *in.mutable_output()) update(v, body.names, *a, *b, kind("output"));
        for (auto& v : *in.mutable_value_info()) update(v, body.names, *a, *b, kind("value_info"));
      });
    }
    return changed;
  }

  fs::path file_;
  fix_options options_;
  ::onnx::ModelProto original_;
  ::onnx::ModelProto model_;  ///< the original with the edits kept, once the rounds end
  std::unordered_map<std::string, declared_tensor> declared_;  ///< the original's tensors, for the proof
  std::unordered_map<std::string, model::source> names_;  ///< each tensor's layer output, in this round's graph
  std::vector<detail::body_names> bodies_;                ///< each Loop's and Scan's body's, likewise
  std::map<node_ref, std::string> why_not_;  ///< why a Reshape's last alternative failed
  std::map<node_ref, std::size_t> tried_;    ///< how many of a Reshape's alternatives failed
};

}  // namespace

fix_report fix(const fs::path& file, const fix_options& options) {
  const io::detail::mapped_file data(file);
  // A mapped file may shrink while it is read: the parse reads a private copy.
  std::vector<std::byte> bytes(data.bytes().size());
  io::detail::guarded_copy(bytes.data(), data.bytes().data(), bytes.size(), file.string());
  return onnx_fixer(bytes, file, options).run();
}

fix_report fix(std::span<const std::byte> bytes, const std::string& name, const fix_options& options) {
  return onnx_fixer(bytes, name, options).run();
}

namespace {
/// The external data files a model's tensors name (subgraphs included).
void external_locations(const ::onnx::GraphProto& g, std::set<std::string>& out) {
  for (const auto& t : g.initializer())
    if (t.data_location() == ::onnx::TensorProto::EXTERNAL)
      for (const auto& e : t.external_data())
        if (e.key() == "location") out.insert(e.value());
  for (const auto& n : g.node())
    for (const auto& a : n.attribute()) {
      if (a.has_g()) external_locations(a.g(), out);
      for (const auto& sub : a.graphs()) external_locations(sub, out);
    }
}

/// Puts each external data file beside a model written to another directory: a hard link where the file
/// system allows it, else a copy. A different file already there is refused, not replaced.
void bring_external_data(const std::string& model, const fs::path& in, const fs::path& out) {
  ::onnx::ModelProto m;
  if (!m.ParseFromString(model)) return;
  std::set<std::string> locations;
  external_locations(m.graph(), locations);
  if (locations.empty()) return;
  const auto from = in.parent_path().empty() ? fs::path(".") : in.parent_path();
  const auto to = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  std::error_code ec;
  if (fs::equivalent(from, to, ec)) return;
  for (const auto& location : locations) {
    const auto source = from / location;
    const auto target = to / location;
    if (fs::exists(target, ec)) {
      const io::detail::mapped_file a(source), b(target);
      if (a.bytes().size() == b.bytes().size() &&
          std::memcmp(a.bytes().data(), b.bytes().data(), a.bytes().size()) == 0)
        continue;
      fail(errc::invalid_argument, {.file = target.string()},
           fmt::format("{}: the fixed model's external data '{}' would replace a different file there", target.string(),
                       location),
           "write the fixed model to another directory, or beside the original");
    }
    fs::create_directories(target.parent_path(), ec);
    fs::create_hard_link(source, target, ec);
    if (ec) {
      ec.clear();
      fs::copy_file(source, target, ec);
      if (ec)
        fail(errc::io, {.file = target.string()},
             fmt::format("{}: cannot copy the external data {} there: {}", target.string(), source.string(), ec.message()),
             {});
    }
  }
}
}  // namespace

void check_fix_output(const fs::path& in, const fs::path& out) {
  if (out.extension() != ".onnx")
    fail(errc::invalid_argument, {}, fmt::format("{}: the output of an ONNX model must end in .onnx", out.string()),
         "write e.g. fixed.onnx");
  std::error_code ec;
  if (fs::exists(out, ec) && fs::equivalent(in, out, ec))
    fail(errc::invalid_argument, {.file = out.string()},
         fmt::format("{}: the output is the model itself", out.string()),
         "write the fixed model to another file; the input is never modified");
  // A FIFO would block the write until something reads it, and a device or directory cannot hold a model.
  if (const auto kind = io::detail::special_file_kind(out))
    fail(errc::invalid_argument, {}, fmt::format("{}: is {}, not a regular file", out.string(), *kind),
         "fix writes the model to a regular file; give another name");
}

void write_fixed(const fix_report& report, const fs::path& in, const fs::path& out) {
  if (report.model.empty())
    fail(errc::invalid_argument, {}, "the report has no fixed model to write", "write only a report whose fixed is true");
  check_fix_output(in, out);
  // The data first: a model written without it would point at nothing.
  bring_external_data(report.model, in, out);
  io::detail::atomic_file file(out);
  file.write(std::as_bytes(std::span(report.model.data(), report.model.size())));
  file.commit();
}

}  // namespace reshape1::onnx
