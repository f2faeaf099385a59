// `reshape1 fix model.onnx`: the planner's rounds (model/analysis/fix_planner.hpp) on the model lowered
// from the file, with ONNX's part. A Reshape pattern element that writes the declared batch as a constant
// gets 0 (or -1) in its initializer or Constant node, copied when other nodes share it; the graph inputs'
// batch and every declared dim that carries it become the dim_param N (a folded N·k is cleared); then the
// file, read back from the bytes that will be written, is proven at every checked batch.
#include <algorithm>
#include <climits>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>
#include <variant>

#include <fmt/format.h>

#include "../detail/fail.hpp"
#include "../io/files.hpp"
#include "../model/options.hpp"
#include "fix_dims.hpp"
#include "fix_nodes.hpp"
#include "lowering.hpp"
#include "output.hpp"
#include "proto_edit.hpp"
#include "skim.hpp"
#include "model/analysis/fix_ir.hpp"
#include "model/analysis/fix_planner.hpp"
#include "model/ops/rules.hpp"
#include "model/text/fix.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/propagate.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::onnx {
namespace {

namespace fs = std::filesystem;
using reshape1::detail::fail;
using detail::output_words;
using model::detail::op_part;
using model::detail::part_of;
using model::detail::layer_key;
using model::fix_change;
using model::fix_options;
using model::fix_report;

/// The batches at which the batch axis of each tensor is found: N·k at both, for one k.
using detail::holder;
using detail::write_inline;
using detail::set_value;
using detail::element_count;
using detail::taken_names;
using detail::node_ref;
using detail::graph_at;
using detail::node_at;
using detail::inlined_graphs;
using detail::path_to;
using detail::locate;
using detail::read_names;
using detail::holder_of;
using detail::unique_name;
using detail::pattern_nodes;
using detail::for_input_dim;
using detail::parameter_named;

constexpr std::int64_t probe_a = 1009, probe_b = 1013;

/// The tensor names of a graph the lowering made, and where that graph is in the file.
struct names_site {
  const model::graph* g = nullptr;
  const model::propagation* p = nullptr;  ///< nullptr when the propagation kept none
  const std::unordered_map<std::string, model::source>* names = nullptr;
  std::vector<std::pair<int, int>> path;  ///< the graph's path in the file (the top graph's is empty)
};

/// The model as the file gives it, lowered with its tensor names: what the planner starts from. (A base
/// of the fixer, so that it is made before the planner, which takes the lowered graph.)
struct onnx_source {
  onnx_source(std::span<const std::byte> bytes, detail::skimmed_model skimmed, const fs::path& file,
              const fs::path& directory, const fix_options& options)
      : file_(file), directory_(directory), spelling_(options.spelling), batch_name_(options.batch_name.value_or("N")),
        source_(bytes),
        skimmed_(std::move(skimmed)) {
    if (batch_name_.empty())
      fail(errc::invalid_argument, {},
           fmt::format("{}: an empty name for the batch's dim_param", model::detail::spell(spelling_, model::detail::option::batch_name)),
           fmt::format("give a name, e.g. {}", model::detail::spell(spelling_, model::detail::option::batch_name, {}, "N")));
    // Both entry points refused a file protobuf cannot read whole (check_model_size) before skimming it.
    detail::parse_model(skimmed_.bytes.empty() ? bytes : std::as_bytes(std::span(skimmed_.bytes)), file.string(), proto_);
    const auto left_out = left_out_of(proto_);
    // The fixed model is written from proto_: with its functions inlined, as it is read.
    detail::inline_functions(proto_, file.string());
    lowered_.emplace(detail::lower(proto_, file.string(), directory_, spelling_, &names_, &bodies_, &left_out));
    weights_size_ = largest_weights(*lowered_);
  }

  /// The initializers of `m` parsed without their raw_data, with its length: proto_'s by skimmed_'s indices,
  /// an edit's by `written_left_out_`'s (initializers it dropped move the later ones back).
  [[nodiscard]] detail::left_out_raw left_out_of(const ::onnx::ModelProto& m) const {
    if (&m == &proto_) return detail::left_out_of(m, skimmed_);
    detail::skimmed_model edited;
    edited.left_out = written_left_out_;
    return detail::left_out_of(m, edited);
  }

  /// The most bytes the Consts of `g` or of one of its bodies address.
  static std::size_t largest_weights(const model::graph& g) {
    auto r = model::detail::graph_editor::weights(g).second.size();
    for (const auto& l : g.layers())
      if (l.body) r = std::max(r, largest_weights(l.body->network));
    return r;
  }

  fs::path file_;
  fs::path directory_;  ///< where the external data is (none, empty, for a model given as bytes)
  model::option_spelling spelling_;  ///< how messages name the options
  std::string batch_name_;  ///< the dim_param the batch becomes
  /// The file's bytes, and what of them was parsed: the large weights are left out of proto_ and of every
  /// edit of it (skim.hpp), and put back from `source_` into the fixed model's bytes at the end.
  std::span<const std::byte> source_;
  detail::skimmed_model skimmed_;
  /// The weights left out of the parse, by their initializers' indices in the last edit written (which
  /// drops initializers its rewrites left unread).
  std::unordered_map<std::size_t, detail::left_out_field> written_left_out_;
  /// The file as parsed. Never changed: the lookups below take protobuf's mutable pointers, which is why
  /// it is mutable; every edit is made on a copy.
  mutable ::onnx::ModelProto proto_;
  std::unordered_map<std::string, model::source> names_;  ///< each tensor's layer output in the lowered graph
  std::vector<detail::body_names> bodies_;                ///< each Loop's and Scan's body's, likewise
  std::optional<model::graph> lowered_;                   ///< moved into the planner
  std::size_t weights_size_ = 0;  ///< the most bytes the Consts of the graph or of one of its bodies address
};

class onnx_fixer final : private onnx_source, public model::detail::fix_planner {
 public:
  onnx_fixer(std::span<const std::byte> bytes, detail::skimmed_model skimmed, const fs::path& file,
             const fs::path& directory, const fix_options& options)
      : onnx_source(bytes, std::move(skimmed), file, directory, options),
        fix_planner(std::move(*lowered_), {.check_batches = options.check_batches, .shapes = options.shapes,
                                           .check_shapes = options.check_shapes,
                                           .assume_constant = options.assume_constant, .layouts = options.layouts,
                                           .progress = options.progress, .spelling = options.spelling}) {}

  fix_report result() {
    auto r = run();
    fix_report out;
    out.nothing_to_do = r.nothing_to_do;
    out.fixed = r.fixed;
    out.refusals = std::move(r.refusals);
    out.checked = std::move(r.checked);
    auto& written = out.output.emplace<model::onnx_output>();
    // What read_back last made: the proof read the file back only with rewrites or dims to free.
    if (!r.changes.empty() || frees_) written.freed = std::move(freed_);
    for (const auto& c : r.changes) {
      std::vector<std::int64_t> within;
      for (const auto& w : c.within) within.push_back(w.id);
      out.changes.push_back(changes_.at({within, c.id}));
    }
    if (accepted_) {
      if (skimmed_.bytes.empty()) {
        written.model = std::move(written_);
      } else {
        written.model = detail::put_back(std::as_bytes(std::span(written_)), source_, written_left_out_, file_.string());
        // What the proof read back is written_ with the weights' lengths: the model written must skim to
        // exactly those bytes, its weights to those lengths.
        const auto again = detail::skim(std::as_bytes(std::span(written.model)), file_.string(), {.any_share = true});
        bool same = again.bytes == written_ && again.left_out.size() == written_left_out_.size();
        for (const auto& [index, field] : written_left_out_) {
          const auto it = again.left_out.find(index);
          same = same && it != again.left_out.end() && it->second.length == field.length;
        }
        if (!same) internal("the weights put back do not read back as the model the proof read");
      }
      written_ = std::string();
    }
    return out;
  }

 private:
  // ---- what the planner asks ----

  /// A Reshape node of the file, not a Reshape the lowering added (Flatten's, a grouped Conv's weights').
  bool rewrites(const model::detail::fix_site& s, const std::vector<std::int64_t>& within,
                const model::layer& l) const override {
    // A Const computed whole (a Range, from opset 11): an initializer or a Constant node's output of the top
    // graph, which no body reads by name and the graph does not give out.
    if (part_of(l.type) == op_part::constant) {
      const auto name = within.empty() && !l.auxiliary ? tensor_named({l.id, 0}) : std::nullopt;
      const auto& outputs = proto_.graph().output();
      return name && detail::default_opset(proto_, file_.string()) >= 11 && !read_in_a_body(proto_.graph(), *name) &&
             std::none_of(outputs.begin(), outputs.end(), [&](const ::onnx::ValueInfoProto& o) { return o.name() == *name; });
    }
    const auto file = names_at(original_, nullptr, within);
    const auto node = file ? reader_of(*file, *s.g, l) : std::nullopt;
    if (!node) return false;
    const auto& n = *node_at(proto_, *node);
    return n.op_type() == "Reshape" || (n.op_type() == "Resize" && n.input_size() > 3 && !n.input(3).empty()) ||
           (n.op_type() == "Slice" && n.input_size() > 2) || (n.op_type() == "Gather" && n.input_size() > 1) ||
           ((n.op_type() == "TopK" || n.op_type() == "Tile" || n.op_type() == "Expand") && n.input_size() > 1) ||
           (n.op_type() == "Range" && n.input_size() > 2) ||
           ((n.op_type() == "Div" || n.op_type() == "Mul") && n.input_size() > 1) || n.op_type() == "AveragePool" ||
           n.op_type() == "MaxPool" ||
           // (Pad-18's axes list fewer amounts than the rank: its pads are not rewritten.)
           (n.op_type() == "Pad" && n.input_size() > 1 && !n.input(1).empty() && (n.input_size() < 4 || n.input(3).empty()));
  }

  /// The input of node `n` that the layer it is lowered to reads at `port`: a Resize's sizes are its fourth
  /// input and its Interpolate's second; a Slice's steps and axes are in the other order in Slice-8.
  static int input_of(const ::onnx::NodeProto& n, std::size_t port) {
    if (n.op_type() == "Resize" && port == 1) return 3;
    if (n.op_type() == "Slice" && (port == 3 || port == 4)) return port == 3 ? 4 : 3;
    return static_cast<int>(port);
  }

  std::optional<model::text::fix_reason> refuses(const model::detail::fix_site& s, const model::detail::element_origin& origin,
                                     model::detail::fix_plan& x) const override {
    const model::text::element_ref element{x.element, x.input};
    // In a body, a tensor of the graph around it that the body reads by name comes in as a Parameter of
    // the body's own (named as the tensor).
    const bool captured =
        origin.holder != nullptr && !x.within.empty() && part_of(origin.holder->type) == op_part::parameter;
    if (origin.holder == nullptr || origin.consumer == nullptr ||
        (part_of(origin.holder->type) != op_part::constant && !captured))
      return model::text::computed_not_tensor(element);
    if (!captured && origin.holder->find("onnx_initializer") == nullptr &&
        (origin.holder->auxiliary || origin.holder->find("onnx_constant") == nullptr))
      return model::text::constant_not_in_file(element, origin.holder->name);
    const std::string held(origin.holder->name);
    // Every node between the tensor and the Reshape must feed only the next one: a shared Concat or Cast
    // would carry the change to nodes this report would not list.
    for (const auto* step : origin.path)
      if (readers(x.within, *s.g, *step) > 1) return model::text::comes_through_shared_node(element, step->name);
    const auto file = names_at(original_, nullptr, x.within);
    const auto reader = file ? reader_of(*file, *s.g, *origin.consumer) : std::nullopt;
    if (!reader) return model::text::reaches_through_added_layer(held);
    const auto h = holder_of(proto_, held, *reader, false);
    if (!h) return model::text::not_a_tensor_the_node_sees(element, held);
    const bool external = h->tensor->data_location() == ::onnx::TensorProto::EXTERNAL;
    if (captured && external) return model::text::external_read_in_body(element, held);
    const auto type = h->tensor->data_type();
    const auto count = element_count(*h->tensor, external ? s.g->const_bytes(*origin.holder) : std::span<const std::byte>());
    if ((type != ::onnx::TensorProto::INT64 && type != ::onnx::TensorProto::INT32) || origin.index >= count ||
        std::any_of(x.also.begin(), x.also.end(), [&](const auto& a) { return a.first >= count; }))
      return model::text::values_not_read(held);
    const auto& node = *node_at(proto_, *reader);
    // (An Identity between them is no node of the lowered graph: the value reaches the node through it.)
    if (x.consumer_port >= static_cast<std::size_t>(node.input_size()))
      return model::text::does_not_feed(held, x.consumer_port, node.name(), "");
    if (const auto read = detail::through_identities(proto_, node.input(static_cast<int>(x.consumer_port)), *reader);
        read != held)
      return model::text::does_not_feed(held, x.consumer_port, node.name(), read);
    if (captured) return outside(s, *origin.holder, held, x);
    return std::nullopt;
  }

  /// Plan `x` for a body's Reshape whose element the body reads by name from the graph around it, through
  /// its Parameter `param`: it becomes a rewrite of that graph's initializer or Constant (`held`), which the
  /// layer running the body feeds to `param`; nullopt when it is one, else why it cannot be.
  std::optional<model::text::fix_reason> outside(const model::detail::fix_site& s, const model::layer& param, const std::string& held,
                                     model::detail::fix_plan& x) const {
    const model::text::element_ref element{x.element, x.input};
    if (model::detail::readers_of(*s.g, param) > 1) return model::text::comes_through_shared_node(element, held);
    const auto* src = held_outside(s, param, x);
    if (src == nullptr) return model::text::not_a_tensor_the_node_sees(element, held);
    if (src->auxiliary || src->name != held) return model::text::computed_not_tensor(element);
    return std::nullopt;
  }

  std::optional<model::text::fix_reason> refuses_computed(
      const model::detail::fix_site& s, const model::layer& l,
      const std::optional<std::pair<std::int64_t, std::size_t>>& shape_of) const override {
    const auto file = names_at(original_, nullptr, {});
    const auto node = file && part_of(l.type) != op_part::constant ? reader_of(*file, *s.g, l) : std::nullopt;
    if (part_of(l.type) != op_part::constant &&
        (!node || node_at(proto_, *node)->input_size() <= input_of(*node_at(proto_, *node), 1)))
      return model::text::pattern_not_an_input();
    if (shape_of && !tensor_named(*shape_of)) {
      const auto* from = original_.find(shape_of->first);
      return model::text::shape_not_a_tensor(from != nullptr ? from->name : std::string_view());
    }
    return std::nullopt;
  }

  /// The file's name for output `source.second` of the layer with id `source.first` in the lowered original
  /// (a layer the lowering added for a node's inner step has none).
  std::optional<std::string> tensor_named(const std::pair<std::int64_t, std::size_t>& source) const {
    const auto* l = original_.find(source.first);
    if (l == nullptr) return std::nullopt;
    const auto index = static_cast<std::size_t>(l - original_.layers().data());
    for (const auto& [name, at] : names_)
      if (at.layer == index && at.output == source.second) return name;
    return std::nullopt;
  }

  std::string held_by(std::string_view why, const model::layer&,
                      const model::detail::element_origin& origin) const override {
    return origin.through != nullptr ? model::text::through_concat(why, origin.through->name) : std::string(why);
  }

  /// The bytes the lowering kept for `g` (each body has its own), then zeros up to appended_from(), then
  /// the new ones: a copy (the lowering keeps only small tensors' bytes).
  std::pair<std::shared_ptr<const void>, std::span<const std::byte>> weights(
      const model::graph& g, const std::vector<std::byte>& appended) const override {
    const auto kept = model::detail::graph_editor::weights(g).second;
    auto w = std::make_shared<std::vector<std::byte>>(kept.begin(), kept.end());
    w->resize(weights_size_);
    w->insert(w->end(), appended.begin(), appended.end());
    return {w, std::span<const std::byte>(*w)};
  }
  std::uint64_t appended_from() const override { return weights_size_; }

  std::string clone_name(const model::layer& holder, std::int64_t consumer) const override {
    return fmt::format("{}_for_{}", holder.name, consumer);
  }

  bool rewrites_declarations(const model::batch_report& probe) override {
    ::onnx::ModelProto m = proto_;
    std::vector<std::string> freed;
    frees_ = sizes() ? free_size_dims(m, proto_, original_, names_, bodies_, freed)
                     : free_dims(m, proto_, original_, names_, bodies_, probe.inputs, freed);
    return frees_;
  }

  /// The original with `rewrites` made on a copy of the file, its declared dims freed, written, and read
  /// back from those bytes.
  model::graph read_back(const std::vector<model::detail::fix_rewrite>& rewrites, const std::vector<model::detail::graph_edit>&,
                         const std::vector<std::byte>&) override {
    ::onnx::ModelProto m = proto_;
    std::set<std::string> taken;
    taken_names(m.graph(), taken);
    changes_.clear();
    inserted_.clear();
    removed_.clear();
    std::vector<std::pair<layer_key, node_ref>> reshapes;
    for (const auto& r : rewrites) {
      auto at = apply(m, r, taken, reshapes);
      reshapes.emplace_back(layer_key{r.p.within, r.p.reshape}, std::move(at));
    }
    drop_unread(m, reshapes);
    // The declared dims follow the rewritten model: where its tensors hold the batch now. Each change
    // names its Reshape by its id there, as the refusals of the proof do.
    {
      std::unordered_map<std::string, model::source> names;
      std::vector<detail::body_names> bodies;
      const auto left_out = left_out_of(m);
      const auto g = detail::lower(m, file_.string(), directory_, spelling_, &names, &bodies, &left_out);
      for (const auto& [key, node] : reshapes) name_change(m, g, names, bodies, node, changes_[key]);
      freed_.clear();
      (void)(sizes() ? free_size_dims(m, m, g, names, bodies, freed_) : free_dims(m, m, g, names, bodies, original_inputs(), freed_));
    }
    written_.clear();
    if (!m.SerializeToString(&written_)) fail(errc::io, {.file = file_.string()}, "protobuf cannot serialise the fixed model");
    ::onnx::ModelProto back;
    detail::parse_model(std::as_bytes(std::span(written_.data(), written_.size())), file_.string() + " (fixed)", back);
    names_back_.clear();
    const auto left_out = left_out_of(back);
    return detail::lower(back, file_.string() + " (fixed)", directory_, spelling_, &names_back_, nullptr, &left_out);
  }

  /// The original's declared inputs, for the model read back: its inputs' batch (or new sizes) are
  /// dim_params now.
  std::vector<model::input_shape> original_inputs_of(const model::graph& g) override {
    std::vector<model::input_shape> inputs;
    std::set<std::size_t> seen;
    for (const auto& [name, at] : names_back_) {
      const auto it = names_.find(name);
      if (it != names_.end() && part_of(g.layers()[at.layer].type) == op_part::parameter && seen.insert(at.layer).second)
        inputs.push_back({at.layer, shape_of(declared(), it->second)});
    }
    return inputs;
  }

  static const partial_shape& shape_of(const model::propagation& p, const model::source& at) {
    return p.outputs[at.layer][at.output].shape;
  }

  /// The first tensor of the original that the model read back lacks (by the original's ids), else the
  /// first (in the order of the model read back) whose shape differs.
  std::optional<model::fix_refusal> differs(const model::graph& g, const model::propagation& at_declared) override {
    const std::pair<const std::string, model::source>* lost = nullptr;
    std::optional<std::size_t> first;
    for (const auto& entry : names_) {
      // The rewrites left it unread (dropped), or took it from its node, which nothing read it from (removed).
      if (dropped_.contains(entry.first) || removed_.contains(entry.first)) continue;
      const auto it = names_back_.find(entry.first);
      const auto id = original_.layers()[entry.second.layer].id;
      if (it == names_back_.end()) {
        if (lost == nullptr || id < original_.layers()[lost->second.layer].id) lost = &entry;
      } else if (!model::detail::same_shape(shape_of(declared(), entry.second), shape_of(at_declared, it->second)) &&
                 (!first || it->second.layer < *first)) {
        first = it->second.layer;
      }
    }
    if (lost != nullptr) {
      const auto& l = original_.layers()[lost->second.layer];
      return model::detail::refused(l.id, std::string(l.name), std::string(l.type),
                                    model::text::read_back_lacks_tensor(lost->first));
    }
    if (!first) return std::nullopt;
    const auto& l = g.layers()[*first];
    return model::detail::refused(l.id, std::string(l.name), std::string(l.type), model::text::read_back_differs());
  }

  model::graph reread() override {
    const auto left_out = left_out_of(proto_);
    return detail::lower(proto_, file_.string(), directory_, spelling_, nullptr, nullptr, &left_out);
  }

  void accept(model::fix_report&) override { accepted_ = true; }

  // ---- the file ----

  /// The graph `within` leads to in `top` (propagated as `p`, or nullptr), with its tensor names and its
  /// path in the file; nullopt when fix cannot follow it there.
  std::optional<names_site> names_at(const model::graph& top, const model::propagation* p,
                                     const std::vector<std::int64_t>& within) const {
    names_site s{&top, p, &names_, {}};
    std::vector<std::size_t> layers;
    for (const auto id : within) {
      const auto* l = s.g->find(id);
      if (l == nullptr || !l->body) return std::nullopt;
      const auto index = static_cast<std::size_t>(l - s.g->layers().data());
      layers.push_back(index);
      s.p = s.p == nullptr ? nullptr : s.p->body(index);
      s.g = &l->body->network;
    }
    if (within.empty()) return s;
    const auto record = std::find_if(bodies_.begin(), bodies_.end(),
                                     [&](const detail::body_names& b) { return b.layers == layers; });
    if (record == bodies_.end()) return std::nullopt;
    const auto path = path_to(proto_, record->graph);
    if (!path) return std::nullopt;
    s.names = &record->names;
    s.path = *path;
    return s;
  }

  /// The graph of the original `within` leads to.
  const model::graph* site_at(const std::vector<std::int64_t>& within) const {
    const auto s = names_at(original_, nullptr, within);
    return s ? s->g : nullptr;
  }

  /// The node of the file that layer `l`, of `g` (the graph of `s`, or an edit of it), is: the Reshape,
  /// or the Concat that reads the value.
  std::optional<node_ref> reader_of(const names_site& s, const model::graph& g, const model::layer& l) const {
    if (l.auxiliary) return std::nullopt;
    return locate(proto_, s.path, *s.names, static_cast<std::size_t>(&l - g.layers().data()), l.op_type());
  }

  /// Rewrite `r` made in `m` (a copy of the file; `taken` holds its names): the value written where the
  /// reader node sees the tensor, or in a copy of it that the node reads instead; the change it is goes to
  /// changes_. Returns where the Reshape node is.
  node_ref apply(::onnx::ModelProto& m, const model::detail::fix_rewrite& r, std::set<std::string>& taken,
                 std::vector<std::pair<layer_key, node_ref>>& placed) {
    if (!r.p.reduction.empty()) return apply_reduction(m, r, taken);
    if (r.p.range) return apply_range(m, r, taken, placed);
    if (!r.p.computed.empty()) return apply_computed(m, r, taken, placed);
    const auto s = names_at(original_, &declared(), r.p.within);
    const auto* reshape = s ? s->g->find(r.p.reshape) : nullptr;
    if (reshape == nullptr || s->p == nullptr) internal("its Reshape is not found again");
    const auto origin = model::detail::origin_of_element(*s->g, *s->p, *reshape, r.p.port, r.p.element);
    const auto reader = shifted(origin.consumer != nullptr ? reader_of(*s, *s->g, *origin.consumer) : std::nullopt);
    const auto node = shifted(reader_of(*s, *s->g, *reshape));
    if (!reader || !node || origin.holder == nullptr) internal("its nodes are not found again");
    const std::string held(origin.holder->name);
    // A clone copies the value into an initializer of its own: the Constant node stays as the file has it.
    auto h = holder_of(m, held, *reader, !r.clone);
    if (!h) internal(fmt::format("'{}' is not found again", held));
    const bool external = h->tensor->data_location() == ::onnx::TensorProto::EXTERNAL;
    const auto holder_graph = site_at(r.p.holder_within);
    const auto* const_layer = holder_graph != nullptr ? holder_graph->find(r.p.holder) : nullptr;
    const auto bytes = const_layer != nullptr ? holder_graph->const_bytes(*const_layer) : std::span<const std::byte>();
    std::optional<std::string> cloned_from;
    if (r.clone) {  // in the graph that holds the tensor, read by this node only
      auto& reader_node = *node_at(m, *reader);
      auto* copy = h->graph->add_initializer();
      *copy = *h->tensor;
      const auto name = unique_name(
          taken, fmt::format("{}_for_{}", held, reader_node.name().empty() ? reader_node.output(0) : reader_node.name()));
      copy->set_name(name);
      reader_node.set_input(static_cast<int>(origin.consumer_port), name);
      cloned_from = held;
      h = holder{copy, name, false, h->graph, nullptr};
    }
    if (external) write_inline(*h->tensor, bytes);
    set_value(*h->tensor, origin.index, r.p.value);
    for (const auto& [index, value] : r.p.also) set_value(*h->tensor, index, value);  // in the same tensor
    auto& reshape_node = *node_at(m, *node);
    if (r.p.set_special_zero)
      for (auto& a : *reshape_node.mutable_attribute())
        if (a.name() == "allowzero") a.set_i(0);
    auto& c = changes_[{r.p.within, r.p.reshape}];
    c.name = reshape_node.name().empty() && reshape_node.output_size() > 0 ? reshape_node.output(0) : reshape_node.name();
    c.type = reshape_node.op_type();
    c.edit = model::onnx_edit{h->name, cloned_from, r.p.set_special_zero};
    c.old_pattern = r.change.old_pattern;
    c.new_pattern = r.change.new_pattern;
    c.element = origin.index;
    c.old_value = r.p.old_value;
    c.new_value = r.p.value;
    c.why = model::text::held_by_tensor(r.p.why, h->constant_node, h->name, external);
    c.within = r.change.within;
    c.id = r.p.reshape;
    return *node;
  }

  /// Reduction rewrite `r` made in `m`: the AveragePool or MaxPool node whose window is the whole input
  /// becomes GlobalAveragePool or GlobalMaxPool, which take the whole of every spatial axis and keep it as 1
  /// (the reduction the judged edit made of its layer), without the window's attributes. A MaxPool's
  /// indices output goes too: the plan made a reduction only where nothing reads it. A MaxPool of integers
  /// (int8, uint8 from opset 12), which GlobalMaxPool does not take, becomes ReduceMax over the spatial axes,
  /// kept (its axes an attribute before opset 18, an initializer named from `taken` from then on).
  node_ref apply_reduction(::onnx::ModelProto& m, const model::detail::fix_rewrite& r, std::set<std::string>& taken) {
    const auto s = names_at(original_, &declared(), r.p.within);
    const auto* pool = s ? s->g->find(r.p.reshape) : nullptr;
    const auto node = shifted(pool != nullptr ? reader_of(*s, *s->g, *pool) : std::nullopt);
    auto* g = node ? graph_at(m, node->path) : nullptr;
    if (g == nullptr || node->index >= g->node_size()) internal("its node is not found again");
    auto& n = *g->mutable_node(node->index);
    const auto was = n.op_type();
    if (was != "AveragePool" && was != "MaxPool") internal("its node is no AveragePool or MaxPool");
    const auto type = s->p != nullptr ? s->p->input(*s->g, *pool, 0).type : std::nullopt;
    const bool real = type == element_type::f32 || type == element_type::f16 || type == element_type::f64;
    n.set_op_type(was == "AveragePool" ? "GlobalAveragePool" : real ? "GlobalMaxPool" : "ReduceMax");
    n.clear_attribute();
    for (int k = 1; k < n.output_size(); ++k) removed_.insert(n.output(k));
    if (n.output_size() > 1) n.mutable_output()->DeleteSubrange(1, n.output_size() - 1);
    if (n.op_type() == "ReduceMax") {
      auto* keep = n.add_attribute();
      keep->set_name("keepdims");
      keep->set_type(::onnx::AttributeProto::INT);
      keep->set_i(1);
      if (detail::default_opset(m, file_.string()) < 18) {
        auto* axes = n.add_attribute();
        axes->set_name("axes");
        axes->set_type(::onnx::AttributeProto::INTS);
        for (const auto a : r.p.axes) axes->add_ints(a);
      } else {
        auto* t = g->add_initializer();
        t->set_name(unique_name(taken, fmt::format("{}/axes", n.name().empty() ? n.output(0) : n.name())));
        t->set_data_type(::onnx::TensorProto::INT64);
        t->add_dims(static_cast<std::int64_t>(r.p.axes.size()));
        for (const auto a : r.p.axes) t->add_int64_data(a);
        n.add_input(t->name());
      }
    }
    auto& c = changes_[{r.p.within, r.p.reshape}];
    c.name = n.name().empty() ? n.output(0) : n.name();
    c.type = was;
    c.edit = model::onnx_edit{n.output(0), std::nullopt, false};
    c.old_pattern = r.change.old_pattern;
    c.new_pattern = n.op_type();
    c.computed = n.op_type();
    c.why = r.p.why;
    c.within = r.change.within;
    c.id = r.p.reshape;
    return *node;
  }

  /// Whether a node of a body of `g`'s nodes (at any depth) reads the tensor `name`.
  static bool read_in_a_body(const ::onnx::GraphProto& g, const std::string& name) {
    const auto reads = [&](const ::onnx::GraphProto& body, const auto& self) -> bool {
      for (const auto& n : body.node()) {
        if (&body != &g && std::find(n.input().begin(), n.input().end(), name) != n.input().end()) return true;
        for (const auto& a : n.attribute()) {
          if (a.has_g() && self(a.g(), self)) return true;
          for (const auto& b : a.graphs())
            if (self(b, self)) return true;
        }
      }
      return false;
    };
    return reads(g, reads);
  }

  /// Range rewrite `r` made in `m`: the Const (an initializer, or a Constant node's output) computed as a
  /// Range of the count read from a tensor's shape, from its start by its step, cast and shaped as it was:
  /// nodes inserted before the first node that reads it, and every node that read it reads them instead (the
  /// Const is then unread, and dropped). Returns where the last of them is.
  node_ref apply_range(::onnx::ModelProto& m, const model::detail::fix_rewrite& r, std::set<std::string>& taken,
                       std::vector<std::pair<layer_key, node_ref>>& placed) {
    const auto held = tensor_named({r.p.reshape, 0});
    const auto from = r.p.shape_of ? tensor_named(*r.p.shape_of) : std::nullopt;
    if (!held || !from || !r.p.range) internal("the range's tensors are not found again");
    auto* g = m.mutable_graph();
    int at = -1;
    for (int k = 0; k < g->node_size() && at < 0; ++k)
      if (std::find(g->node(k).input().begin(), g->node(k).input().end(), *held) != g->node(k).input().end()) at = k;
    if (at < 0) internal("no node reads the range");
    pattern_nodes made(*g, taken, *held, "values");
    const auto count = made.computed(*from, r.p.computed);
    const auto v = r.p.range->axes.empty() ? detail::range_nodes(made, r.p, count) : detail::grid_nodes(made, r.p, count);
    if (!v) internal("the constant's type has no ONNX name");
    const auto added = static_cast<int>(made.nodes.size());
    insert_before(*g, {}, at, made.nodes, placed, nullptr);
    for (int k = at + added; k < g->node_size(); ++k)
      for (int i = 0; i < g->node(k).input_size(); ++i)
        if (g->node(k).input(i) == *held) g->mutable_node(k)->set_input(i, *v);
    record_change(r, *held, "Const", *v);
    return node_ref{{}, at + added - 1};
  }

  /// `nodes` inserted into `g` (the graph `path` leads to) before its node `at` (protobuf appends, then each
  /// new node is swapped down into place); the nodes of `placed`, and `also`, after them move on, and
  /// inserted_ records it.
  void insert_before(::onnx::GraphProto& g, const std::vector<std::pair<int, int>>& path, int at,
                     std::vector<::onnx::NodeProto>& nodes, std::vector<std::pair<layer_key, node_ref>>& placed,
                     node_ref* also) {
    for (auto& n : nodes) {
      *g.add_node() = std::move(n);
      for (int k = g.node_size() - 1; k > at + static_cast<int>(&n - nodes.data()); --k) g.mutable_node()->SwapElements(k, k - 1);
    }
    const insertion made_here{path, at, static_cast<int>(nodes.size())};
    for (auto& [key, x] : placed) made_here.shift(x);
    if (also != nullptr) made_here.shift(*also);
    inserted_.push_back(made_here);
  }

  /// The change rewrite `r` made (on the layer or Const named `name`, of `type`), its new value the tensor
  /// `tensor`.
  void record_change(const model::detail::fix_rewrite& r, const std::string& name, const std::string& type,
                     const std::string& tensor) {
    auto& c = changes_[{r.p.within, r.p.reshape}];
    c.name = name;
    c.type = type;
    c.edit = model::onnx_edit{tensor, std::nullopt, false};
    c.old_pattern = r.change.old_pattern;
    c.new_pattern = r.change.new_pattern;
    c.computed = r.change.computed;
    c.why = r.p.why;
    c.within = r.change.within;
    c.id = r.p.reshape;
  }

  /// Whether the tensor `name` of the graph `s` is a scalar, as propagated.
  static bool scalar_input(const names_site& s, const std::string& name) {
    const auto it = s.names->find(name);
    if (it == s.names->end() || s.p == nullptr) return false;
    const auto& shape = s.p->outputs[it->second.layer][it->second.output].shape;
    return shape.rank_known() && shape.size() == 0;
  }

  /// Computed rewrite `r` made in `m`: nodes that compute the pattern from the shape of the Reshape's data
  /// input (Shape, Gather, Mul, Div, Concat, their constants as initializers), inserted just before the
  /// Reshape node, which reads the Concat's output as its shape. The nodes of `placed` after them move on.
  node_ref apply_computed(::onnx::ModelProto& m, const model::detail::fix_rewrite& r, std::set<std::string>& taken,
                          std::vector<std::pair<layer_key, node_ref>>& placed) {
    const auto s = names_at(original_, &declared(), r.p.within);
    const auto* reshape = s ? s->g->find(r.p.reshape) : nullptr;
    auto node = shifted(reshape != nullptr ? reader_of(*s, *s->g, *reshape) : std::nullopt);
    auto* g = node ? graph_at(m, node->path) : nullptr;
    if (g == nullptr || node->index >= g->node_size() ||
        g->node(node->index).input_size() <= input_of(g->node(node->index), r.p.port))
      internal("its node is not found again");
    const auto reshape_node = g->node(node->index);
    const auto& op = reshape_node.op_type();
    const auto word = op == "Reshape" ? "pattern" : op == "Resize" ? "sizes" : op == "TopK" ? "k"
                    : op == "Tile" || op == "Expand" ? "extents"
                    : op == "Range"                  ? "limit"
                    : op == "Div"                    ? "divisor"
                    : op == "Mul"                    ? "factor"
                    : op == "Pad"                    ? "pads"
                                                     : "bounds";
    const std::string base = reshape_node.name().empty() ? reshape_node.output(0) : reshape_node.name();
    std::string data = reshape_node.input(0);
    if (r.p.shape_of) {
      const auto named = tensor_named(*r.p.shape_of);
      if (!named) internal("the tensor its pattern is computed from has no name");
      data = *named;
    }
    pattern_nodes made(*g, taken, base, word);
    const auto count = made.computed(data, r.p.computed);
    const bool scalar = scalar_input(*s, reshape_node.input(input_of(reshape_node, r.p.port)));
    const auto& was = s->p->input(*s->g, *reshape, r.p.port).type;
    // The computed values as the input takes them.
    const auto as_the_input_takes = [&](std::string values, std::string_view prefix) {
      // A scalar input (a Range's limit, a divisor) stays one: the computed values are a 1-D tensor.
      if (scalar)
        values = made.node("Reshape", {values, made.constant(fmt::format("{}scalar_shape", prefix), {})}, fmt::format("{}scalar", prefix));
      // A Slice's bounds, axes and steps are one type, as a Range's start, limit and step are: where they are
      // not int64 (int32 bounds, a Range of floats), the computed ones are cast to theirs.
      if (was && *was != reshape1::element_type::i64) {
        const auto to = detail::onnx_type_of(*was);
        if (!to) internal("its input's type has no ONNX name");
        values = made.node("Cast", {values}, fmt::format("{}{}", prefix, *was == reshape1::element_type::i32 ? "values_i32" : "values_cast"));
        made.attribute("to", *to);
      }
      return values;
    };
    // Bessel's correction counts one less, in integers, before the input's type (a float: see divisor_choices).
    const auto less = [&] {
      return as_the_input_takes(made.node("Sub", {count, made.constant("less_one_by", {1})}, "less_one"), "less_");
    };
    std::string pattern;
    switch (r.p.form) {
      case model::detail::count_form::count: pattern = as_the_input_takes(count, ""); break;
      case model::detail::count_form::reciprocal:  // (a float: see divisor_choices)
        pattern = made.node("Reciprocal", {as_the_input_takes(count, "")}, "reciprocal");
        break;
      case model::detail::count_form::less_one: pattern = less(); break;
      case model::detail::count_form::reciprocal_less_one: pattern = made.node("Reciprocal", {less()}, "reciprocal"); break;
      case model::detail::count_form::ratio_less_one: {
        const auto n = as_the_input_takes(count, "");
        pattern = made.node("Div", {n, less()}, "ratio");
        break;
      }
    }
    // Inserted before the Reshape, which moves on past them.
    insert_before(*g, node->path, node->index, made.nodes, placed, &*node);
    g->mutable_node(node->index)->set_input(input_of(reshape_node, r.p.port), pattern);
    record_change(r, base, reshape_node.op_type(), pattern);
    return *node;
  }

  /// What the rewrites left unread in `m`'s top graph, dropped (detail::drop_unread); `reshapes` follow their
  /// nodes, and the large initializers left out of the parse their indices.
  void drop_unread(::onnx::ModelProto& m, std::vector<std::pair<layer_key, node_ref>>& reshapes) {
    auto dropped = detail::drop_unread(proto_.graph(), *m.mutable_graph(), skimmed_.left_out);
    for (const int k : dropped.nodes)  // last first: the indices below one dropped still name their nodes
      for (auto& [key, x] : reshapes) {
        if (x.path.empty() && x.index > k) --x.index;
        if (!x.path.empty() && x.path.front().first > k) --x.path.front().first;
      }
    written_left_out_ = std::move(dropped.left_out);
    dropped_ = std::move(dropped.names);
  }

  /// Nodes inserted into a copy of the file, `added` of them at `at` in the graph `path` leads to: the
  /// nodes found in the file (proto_) after them are further on in the copy.
  struct insertion {
    std::vector<std::pair<int, int>> path;
    int at = 0, added = 0;
    void shift(node_ref& x) const {
      if (x.path == path && x.index >= at) x.index += added;
      if (x.path.size() > path.size() && std::equal(path.begin(), path.end(), x.path.begin()) && x.path[path.size()].first >= at)
        x.path[path.size()].first += added;
    }
  };
  /// Node `x` of the file as it is in the copy read_back is writing.
  std::optional<node_ref> shifted(std::optional<node_ref> x) const {
    if (x)
      for (const auto& i : inserted_) i.shift(*x);
    return x;
  }

  [[noreturn]] void internal(const std::string& what) const {
    // What the rounds judged was found in the file when it was planned: not finding it again is a bug.
    fail(errc::unsupported, {.file = file_.string()},
         fmt::format("{}: fix cannot write a rewrite it judged: {}", file_.string(), what), "please report this with the model");
  }

  /// Names change `c` as `g` (`m` lowered, with its `names` and `bodies`) numbers the Reshape `node`: its
  /// id, and for one in a body, the Loop and Scan layers around it.
  static void name_change(::onnx::ModelProto& m, const model::graph& g,
                          const std::unordered_map<std::string, model::source>& names,
                          const std::vector<detail::body_names>& bodies, const node_ref& node, fix_change& c) {
    const auto* n = node_at(m, node);
    if (n == nullptr || n->output_size() == 0) return;
    if (c.within.empty()) {
      if (const auto it = names.find(n->output(0)); it != names.end()) c.id = g.layers()[it->second.layer].id;
      return;
    }
    // The body that holds the node: the record whose graph is the longest prefix of the node's path.
    for (auto k = node.path.size() + 1; k-- > 1;) {
      const auto* body = graph_at(m, {node.path.begin(), node.path.begin() + static_cast<std::ptrdiff_t>(k)});
      const auto record =
          std::find_if(bodies.begin(), bodies.end(), [&](const detail::body_names& b) { return b.graph == body; });
      if (record == bodies.end()) continue;
      const auto it = record->names.find(n->output(0));
      if (it == record->names.end()) return;
      const model::graph* at = &g;
      std::vector<model::enclosing_layer> within;
      for (const auto index : record->layers) {
        const auto& l = at->layers()[index];
        within.push_back({l.id, std::string(l.name), std::string(l.type)});
        at = &l.body->network;
      }
      c.id = at->layers()[it->second.layer].id;
      c.within = std::move(within);
      return;
    }
  }



  /// The graph inputs' batch becomes the dim_param; in the outputs and value_info, a dim that is N at
  /// the probe batches becomes it too and one that is N·k (k > 1) is cleared; likewise in the inputs,
  /// outputs and value_info of each Loop's and Scan's body (ONNX Runtime holds a body's outputs to the
  /// dims they declare). `g` is `lowered` (the same as `m`, or the file `m` is a copy of) lowered, with
  /// its `names` and `bodies`; `inputs` say where the inputs hold the batch. Each dim freed is listed in
  /// `freed`. Returns whether anything changed.
  bool free_dims(::onnx::ModelProto& m, const ::onnx::ModelProto& lowered, const model::graph& g,
                 const std::unordered_map<std::string, model::source>& names,
                 const std::vector<detail::body_names>& bodies, const std::vector<model::input_report>& inputs,
                 std::vector<std::string>& freed) const {
    bool changed = false;
    std::vector<model::input_shape> at_a, at_b;
    for (const auto& in : inputs) {
      if (!in.batch_index || !in.declared.rank_known()) continue;
      for_input_dim(m, in.name, *in.batch_index, [&](::onnx::TensorShapeProto_Dimension& d) {
        if (d.has_dim_param() && d.dim_param() == batch_name_) return;
        d.set_dim_param(batch_name_);
        freed.push_back(model::text::freed_dimension("input", in.name, *in.batch_index, false));
        changed = true;
      });
      const auto layer = parameter_named(g, in.name);
      if (!layer) continue;
      std::vector<dimension> dims(in.declared.begin(), in.declared.end());
      dims[*in.batch_index] = dimension(probe_a);
      at_a.push_back({*layer, partial_shape(dims)});
      dims[*in.batch_index] = dimension(probe_b);
      at_b.push_back({*layer, partial_shape(dims)});
    }
    // A dim that is N at both probes becomes the batch's dim_param; one that is N·k (k > 1) is cleared.
    detail::dim_freeing batch;
    batch.as = [&](std::int64_t x, std::int64_t y) -> std::optional<std::string> {
      const bool carries = x % probe_a == 0 && y % probe_b == 0 && x / probe_a == y / probe_b;
      return carries && x == probe_a ? std::optional(batch_name_) : std::nullopt;
    };
    return detail::free_outputs(m, lowered, g, names, bodies, at_a, at_b, batch, freed) || changed;
  }



  /// New sizes: each input dim of a size that changes becomes its dim_param (free_size::name); in the
  /// outputs and value_info (the bodies' too, as free_dims), a dim that is one such size at both samples
  /// becomes its dim_param and one that changes otherwise (H·W, H/2) is cleared. Arguments as free_dims'.
  bool free_size_dims(::onnx::ModelProto& m, const ::onnx::ModelProto& lowered, const model::graph& g,
                      const std::unordered_map<std::string, model::source>& names,
                      const std::vector<detail::body_names>& bodies, std::vector<std::string>& freed) const {
    bool changed = false;
    std::vector<model::input_shape> at_a, at_b;
    for (const auto& in : original_inputs()) {
      if (!in.declared.rank_known()) continue;
      std::vector<dimension> a(in.declared.begin(), in.declared.end()), b = a;
      bool any = false;
      for (const auto& size : free_sizes())
        for (const auto& [input, axis] : size.dims) {
          if (input != in.name || axis >= a.size()) continue;
          a[axis] = dimension(size.samples[0]);
          b[axis] = dimension(size.samples[1]);
          any = true;
          for_input_dim(m, in.name, axis, [&, at = axis](::onnx::TensorShapeProto_Dimension& d) {
            if (size.fixed) {  // asked as one value: declared as it
              if (d.has_dim_value() && d.dim_value() == size.samples[0]) return;
              d.set_dim_value(size.samples[0]);
            } else {
              if (d.has_dim_param() && d.dim_param() == size.name) return;
              d.set_dim_param(size.name);
            }
            freed.push_back(model::text::freed_dimension("input", in.name, at, false));
            changed = true;
          });
        }
      if (!any) continue;
      const auto layer = parameter_named(g, in.name);
      if (!layer) continue;
      at_a.push_back({*layer, partial_shape(a)});
      at_b.push_back({*layer, partial_shape(b)});
    }
    // Two sizes with the same samples are told apart by neither: the first is named (they are declared
    // alike only where the model makes them equal).
    detail::dim_freeing by_size;
    by_size.as = [&](std::int64_t x, std::int64_t y) -> std::optional<std::string> {
      for (const auto& size : free_sizes())
        if (size.samples[0] == x && size.samples[1] == y) return size.name;
      return std::nullopt;
    };
    by_size.sizes_as_values =
        std::all_of(free_sizes().begin(), free_sizes().end(), [](const auto& f) { return f.fixed; });
    return detail::free_outputs(m, lowered, g, names, bodies, at_a, at_b, by_size, freed) || changed;
  }


  std::map<layer_key, fix_change> changes_;  ///< what read_back made of each rewrite, by its Reshape
  std::vector<insertion> inserted_;
  std::set<std::string> removed_;  ///< outputs the last edit written took from their nodes (a MaxPool's indices)
  std::set<std::string> dropped_;  ///< the tensors the last edit written dropped (drop_unread)            ///< the nodes read_back inserted so far, in order
  std::vector<std::string> freed_;            ///< and the declared dims it freed
  std::string written_;                       ///< and the bytes it read back
  std::unordered_map<std::string, model::source> names_back_;  ///< the tensor names of the model read back
  bool frees_ = false;                        ///< the original has declared dims to free
  bool accepted_ = false;                     ///< the proof holds: written_ is the fixed model
};

fix_report fix_onnx_file(const fs::path& file, const fix_options& options) {
  const io::detail::mapped_file data(file);
  // The large weights are left out of the parse and copied from the mapping into the fixed model at the
  // end (guarded: a mapped file may shrink while it is read). Where none is, protobuf parses the whole
  // file: a private copy of it, for the same reason.
  detail::check_model_size(data.bytes(), file.string());
  auto skimmed = detail::skim(data.bytes(), file.string());
  if (!skimmed.bytes.empty()) return onnx_fixer(data.bytes(), std::move(skimmed), file, detail::directory_of(file), options).result();
  std::vector<std::byte> bytes(data.bytes().size());
  io::detail::guarded_copy(bytes.data(), data.bytes().data(), bytes.size(), file.string());
  return onnx_fixer(bytes, {}, file, detail::directory_of(file), options).result();
}

}  // namespace

namespace {

/// check_fix_input, and the format it found.
model::model_format checked_input(const fs::path& file, const fix_options& options) {
  // fix proves the file it rewrites and keeps the rest of it (an IR's .bin, an ONNX model's external data)
  // beside the output: it needs the model's own files, whichever format standard input would hold.
  if (file == "-")
    fail(errc::invalid_argument, {}, "fix reads the model from its file, not from standard input",
         "save the model and give its path");
  const auto format = format_of(file);
  if (format == model::model_format::onnx && !options.bin.empty())
    model::detail::refuse_for_format(options.spelling, model::detail::option::bin, "onnx");
  if (format == model::model_format::ir && options.batch_name)
    model::detail::refuse_for_format(options.spelling, model::detail::option::batch_name, "ir");
  if (!options.base_dir.empty()) model::detail::refuse_base_dir_for_file(options.spelling);
  model::detail::check_fix_options(options);
  if (format == model::model_format::ir) (void)model::weights_of(file, options.bin, options.spelling);
  return format;
}

}  // namespace

void check_fix_input(const fs::path& file, const fix_options& options) { (void)checked_input(file, options); }

fix_report fix(const fs::path& file, const fix_options& options) {
  if (checked_input(file, options) == model::model_format::onnx) return fix_onnx_file(file, options);
  return model::detail::fix_ir(file, model::weights_of(file, options.bin, options.spelling), options);
}

fix_report fix(std::span<const std::byte> bytes, const std::string& name, const fix_options& options) {
  if (!options.bin.empty()) model::detail::refuse_for_format(options.spelling, model::detail::option::bin, "onnx");
  model::detail::check_fix_options(options);
  detail::check_model_size(bytes, name);
  return onnx_fixer(bytes, detail::skim(bytes, name), name,
                    options.base_dir.empty() ? fs::path(name).parent_path() : options.base_dir, options)
      .result();
}

void check_fix_output(const fs::path& in, const fs::path& bin, const fs::path& out, model::option_spelling spelling) {
  if (format_of(in) == model::model_format::onnx) {
    if (!bin.empty()) model::detail::refuse_for_format(spelling, model::detail::option::bin, "onnx");
    detail::check_onnx_output(in, out, detail::fix_words);
    return;
  }
  model::detail::check_ir_outputs(in, model::weights_of(in, bin, spelling), out, fs::path(out).replace_extension(".bin"));
}

void write_fixed(const fix_report& report, const fs::path& in, const fs::path& out) {
  if (!report.writes())
    fail(errc::invalid_argument, {}, "the report has no fixed model to write", "write only a report whose fixed is true");
  if (const auto* ir = std::get_if<model::ir_output>(&report.output))
    model::detail::write_ir(*ir, in, out, fs::path(out).replace_extension(".bin"));
  else
    detail::write_onnx(std::get<model::onnx_output>(report.output), in, out, detail::fix_words);
}

}  // namespace reshape1::onnx
