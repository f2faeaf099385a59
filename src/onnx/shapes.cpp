// `reshape1 shapes MODEL`: every tensor a layer computes and the shape propagation gives it; for an ONNX
// model, a copy whose graph outputs and value_info hold those shapes, so that tools that show only what a
// file declares (Netron) show them.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "../detail/fail.hpp"
#include "../io/files.hpp"
#include "../model/options.hpp"
#include "lowering.hpp"
#include "output.hpp"
#include "skim.hpp"
#include "model/analysis/batch_internal.hpp"
#include "model/analysis/fix_ir.hpp"
#include "model/ops/rules.hpp"
#include "model/propagate/engine.hpp"
#include "reshape1/model/shapes.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::onnx {
namespace {

namespace fs = std::filesystem;
using model::source;
using reshape1::detail::fail;

/// What propagation names a dimension it leaves unknown: a prefix no model's name starts with (a control
/// character), so that no such name is one of the model's; they are all renamed after the tensors.
constexpr std::string_view unnamed = "\x1f";

/// The sizes that keep their names in a body (an ONNX Loop's or Scan's, an IR TensorIterator's or Loop's):
/// those of the tensors the layer is given (the same at every iteration). A size the body computes may
/// change from one iteration to the next (a carried value that grows), so propagation's name for it holds
/// within one iteration only.
using stable_sizes = std::shared_ptr<const std::unordered_set<symbol>>;

/// A tensor to list: its name, the layer output that computes it, and (ONNX) the graph that declares it and
/// the node whose output it is (none for a graph input). `in` is the graph `at` indexes (the model's, or a
/// body) and `by` what propagation knows there (none for a body propagation never reached); `within` are
/// the layers whose bodies hold it, outermost first, and `stable` the sizes that keep their names there
/// (none: the model's graph, where all do).
struct listed {
  std::string name;
  source at;
  ::onnx::GraphProto* graph = nullptr;
  const ::onnx::NodeProto* node = nullptr;
  std::size_t output = 0;  ///< which of the node's outputs
  const model::graph* in = nullptr;
  const model::propagation* by = nullptr;
  std::vector<model::enclosing_layer> within{};
  stable_sizes stable{};
};

/// A body of a TensorIterator or Loop layer (lowered from ONNX, or read from an IR) as propagation left it:
/// the graph, what propagation knows there (at the hull of its iterations' shapes: subgraph.cpp joins what
/// the back edges feed until it stops changing), for ONNX the layer output each of its tensor names binds
/// to, the layers around it, and the sizes that keep their names in it.
struct body_view {
  const model::graph* network = nullptr;
  const model::propagation* known = nullptr;
  const std::unordered_map<std::string, source>* names = nullptr;
  std::vector<model::enclosing_layer> within;
  stable_sizes stable;
};

/// The body of layer `index` of `outer` (a TensorIterator or Loop), or nullopt for a layer without one. A
/// size keeps its name in the body when one of the layer's inputs carries it and it keeps it in `outer`.
std::optional<body_view> inside(const body_view& outer, std::size_t index) {
  const auto& l = outer.network->layers()[index];
  if (!l.body) return std::nullopt;
  body_view v{&l.body->network, outer.known != nullptr ? outer.known->body(index) : nullptr, nullptr, outer.within, {}};
  auto stable = std::make_shared<std::unordered_set<symbol>>();
  for (std::size_t i = 0; outer.known != nullptr && i < l.inputs.size(); ++i)
    for (const auto& d : outer.known->input(*outer.network, l, i).shape.dims())
      if (d.has_symbol() && (!outer.stable || outer.stable->contains(d.symbol()))) stable->insert(d.symbol());
  v.stable = std::move(stable);
  v.within.push_back({l.id, std::string(l.name), std::string(l.type)});
  return v;
}

/// Each body the lowering recorded, by the ONNX graph it was lowered from: its layers found by following
/// the Loop and TensorIterator layers that lead to it from the model's graph.
std::unordered_map<const ::onnx::GraphProto*, body_view> body_views(const model::graph& g, const model::propagation& p,
                                                                    const std::vector<detail::body_names>& bodies) {
  std::unordered_map<const ::onnx::GraphProto*, body_view> out;
  for (const auto& b : bodies) {
    std::optional<body_view> v = body_view{&g, &p, nullptr, {}, {}};
    for (const auto index : b.layers)
      if (v) v = inside(*v, index);  // the lowering's own record: a layer on the way always holds a body
    if (!v) continue;
    v->names = &b.names;
    out.emplace(b.graph, std::move(*v));
  }
  return out;
}

std::string op_of(const model::layer& l) { return fmt::format("{}-{}", l.op_type(), l.op_version()); }

/// The names a model's inputs, outputs and value_info give dimensions (its subgraphs' too): the names
/// reshape1 gives must not be one of them.
void dim_params(const ::onnx::GraphProto& g, std::set<std::string>& out) {
  const auto add = [&](const ::onnx::ValueInfoProto& v) {
    if (!v.type().has_tensor_type()) return;
    for (const auto& d : v.type().tensor_type().shape().dim())
      if (d.has_dim_param()) out.insert(d.dim_param());
  };
  for (const auto& v : g.input()) add(v);
  for (const auto& v : g.output()) add(v);
  for (const auto& v : g.value_info()) add(v);
  for (const auto& n : g.node())
    for (const auto& a : n.attribute()) {
      if (a.has_g()) dim_params(a.g(), out);
      for (const auto& sub : a.graphs()) dim_params(sub, out);
    }
}

/// The tensors of `g` the lowering computes, in file order: its inputs (a body's are what the node gives
/// it), then each node's outputs (a Constant node's aside: a value the file holds, as an initializer); an
/// If's branches where the If is, when the lowering inlined them (a constant condition inlines only the
/// branch it takes); a Loop's or Scan's body after the node's outputs. `at` is `g` as lowered.
void list_graph(::onnx::GraphProto& g, const body_view& at,
                const std::unordered_map<const ::onnx::GraphProto*, body_view>& bodies, std::set<std::string>& seen,
                std::vector<listed>& out) {
  const auto add = [&](const std::string& name, const ::onnx::NodeProto* node, std::size_t output) {
    if (name.empty()) return;
    const auto it = at.names->find(name);
    if (it == at.names->end() || !seen.insert(name).second) return;
    out.push_back({name, it->second, &g, node, output, at.network, at.known, at.within, at.stable});
  };
  std::set<std::string_view> weights;  // an initializer may be an input too (IR version 3 and before)
  for (const auto& t : g.initializer()) weights.insert(t.name());
  for (const auto& in : g.input())
    if (!weights.contains(in.name())) add(in.name(), nullptr, 0);
  for (auto& n : *g.mutable_node()) {
    const bool onnx_domain = detail::default_domain(n);
    if (onnx_domain && n.op_type() == "Constant") continue;  // a value the file holds, as an initializer is
    // An output that passes its input on (Identity, Dropout's output, a Reduce over no axes) is bound to what
    // computed that input: listed all the same, as the node's.
    for (int k = 0; k < n.output_size(); ++k) add(n.output(k), &n, static_cast<std::size_t>(k));
    if (!onnx_domain) continue;
    for (auto& a : *n.mutable_attribute()) {
      if (!a.has_g()) continue;
      if (n.op_type() == "If") {
        list_graph(*a.mutable_g(), at, bodies, seen, out);
      } else if (const auto body = bodies.find(&a.g()); body != bodies.end()) {
        list_graph(*a.mutable_g(), body->second, bodies, seen, out);
      }
    }
  }
}

/// The tensors of an IR's graph `at`: each layer's output ports, Consts (weights) and Results (no outputs)
/// aside; a TensorIterator's or Loop's body after the layer's outputs.
void list_ir(const body_view& at, std::vector<listed>& out) {
  const auto layers = at.network->layers();
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto& l = layers[i];
    if (model::detail::part_of(l) == model::detail::op_part::constant) continue;
    for (std::size_t o = 0; o < l.outputs.size(); ++o)
      out.push_back({fmt::format("{}:{}", l.name, l.outputs[o].id), source{i, o}, nullptr, nullptr, 0, at.network,
                     at.known, at.within, at.stable});
    if (const auto body = inside(at, i)) list_ir(*body, out);
  }
}

/// A name made from a tensor's that reads back in the shape notation (`?@conv_out_2`): characters other
/// than letters, digits and `_` become `_`, and one that starts with a digit gets `_` in front.
std::string identifier(std::string_view tensor) {
  std::string out;
  for (const char c : tensor) out += std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])) != 0) out.insert(out.begin(), '_');
  return out;
}

/// `message` with each symbol propagation named written as the report names it, and those the report does
/// not name (propagation's own, `unnamed`...) as a plain `?`: a rule's message names the shapes it refused.
/// A symbol is the word after an `@` (letters, digits, `_`, `.`, and `unnamed`'s first character).
std::string renamed_in(const std::string& message, const std::unordered_map<symbol, symbol>& renamed) {
  std::unordered_map<std::string_view, std::string_view> to;
  for (const auto& [from, name] : renamed) to.emplace(from.name(), name.name());
  const auto word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == unnamed[0];
  };
  std::string out;
  for (std::size_t at = 0; at < message.size();) {
    if (message[at] != '@') {
      out += message[at++];
      continue;
    }
    auto end = at + 1;
    while (end < message.size() && word(message[end])) ++end;
    const auto name = std::string_view(message).substr(at + 1, end - at - 1);
    if (const auto it = to.find(name); it != to.end()) out += fmt::format("@{}", it->second);
    else if (!name.starts_with(unnamed)) out += message.substr(at, end - at);
    at = end;
  }
  return out;
}

/// How an ONNX node is named in the report: `Type-N` with N the since_version of the schema the model's
/// opset runs (op_list.hpp), or the op type alone for one the list does not hold at that opset.
std::string onnx_op(const ::onnx::NodeProto& n, int opset) {
  if (!detail::default_domain(n)) return fmt::format("{}.{}", n.domain(), n.op_type());
  const auto* schema = detail::schema_at("ai.onnx", n.op_type(), opset);
  return schema == nullptr ? n.op_type() : fmt::format("{}-{}", n.op_type(), schema->since);
}

/// The report's tensors from a propagation that named every unknown dimension. A name the model or the
/// caller gives (`names`) stays, as does one `seeded` (a model's input dim_param that is not notation);
/// every other (propagation's `unnamed`..., a Parameter's `x.1`) becomes the tensor's and axis's where it
/// first appears (`conv_2`), unless that is taken (then `conv_2_2`, ...). `declared` (ONNX) gives each
/// tensor's declaration; an IR's is its port's. `opset` is an ONNX model's default one.
model::shapes_report report_of(const model::graph& g, const model::propagation& p, const std::vector<listed>& tensors,
                               const std::set<std::string>& names, std::unordered_map<symbol, symbol> renamed,
                               const std::vector<std::optional<partial_shape>>* declared = nullptr, int opset = 0) {
  model::shapes_report r;
  auto taken = names;
  for (const auto& [from, to] : renamed) taken.insert(std::string(to.name()));
  const auto rename = [&](const dimension& d, const std::string& tensor, std::size_t axis) -> dimension {
    if (!d.has_symbol() || names.contains(std::string(d.symbol().name()))) return d;
    auto [it, fresh] = renamed.try_emplace(d.symbol());
    if (fresh) {
      const auto base = identifier(tensor);
      auto name = fmt::format("{}_{}", base, axis);
      for (std::size_t k = 2; taken.contains(name); ++k) name = fmt::format("{}_{}_{}", base, axis, k);
      taken.insert(name);
      it->second = symbol(name);
    }
    return dimension(d.range(), it->second);
  };
  const model::tensor unreached;  // a body propagation never ran through: nothing known
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    const auto& t = tensors[k];
    const auto& in = t.in != nullptr ? *t.in : g;
    const auto* by = t.in != nullptr ? t.by : &p;
    const auto& l = in.layers()[t.at.layer];
    const auto& known = by != nullptr ? by->outputs[t.at.layer][t.at.output] : unreached;
    model::tensor_shape s;
    s.name = t.name;
    s.id = l.id;
    s.layer = std::string(l.name);
    s.op = op_of(l);
    s.output = g.format() == model::model_format::ir ? static_cast<std::size_t>(l.outputs[t.at.output].id) : t.at.output;
    s.within = t.within;
    if (t.node != nullptr) {
      // The node's own name (its first output's when it has none, as the lowering names its layers); an
      // output bound to another node's tensor is still this node's.
      const auto& own = t.node->name().empty() ? t.node->output(0) : t.node->name();
      if (own != l.name) {
        s.layer = own;
        s.op = onnx_op(*t.node, opset);
      }
      s.output = t.output;
    } else if (const auto parameter = model::detail::op_part::parameter;
               t.graph != nullptr && model::detail::part_of(l) != parameter && !l.sources.empty() && l.sources[0] &&
               model::detail::part_of(in.layers()[l.sources[0]->layer]) == parameter) {
      // A Scan's scan input: its shape is the slice's, which the body reads through a Squeeze of the scan
      // axis; the tensor is the body Parameter's.
      const auto& param = in.layers()[l.sources[0]->layer];
      s.id = param.id;
      s.layer = std::string(param.name);
      s.op = op_of(param);
      s.output = 0;
    }
    if (known.shape.rank_known()) {
      std::vector<dimension> dims;
      for (std::size_t d = 0; d < known.shape.size(); ++d) {
        const auto& dim = known.shape[d];
        dims.push_back(t.stable && dim.has_symbol() && !t.stable->contains(dim.symbol()) ? dimension(dim.range())
                                                                                          : rename(dim, t.name, d));
      }
      s.shape = partial_shape(dims);
    }
    // ONNX's type of the tensor where the reader knows it (declared, or as the op list says the node gives it):
    // a translation may compute in another (Reciprocal of f16 divides an f32 one); else what propagation gives.
    const auto& onnx_type = l.outputs[t.at.output].type;
    s.type = g.format() == model::model_format::onnx && onnx_type ? onnx_type : known.type ? known.type : onnx_type;
    if (declared != nullptr) s.declared = (*declared)[k];
    else if (l.outputs[t.at.output].declared) s.declared = l.outputs[t.at.output].shape();
    ++r.summary.tensors;
    if (s.shape.rank_known()) ++r.summary.rank_known;
    if (s.shape.is_static()) ++r.summary.all_static;
    r.tensors.push_back(std::move(s));
  }
  // In the file's order (propagation meets them in its own).
  const auto layers = g.layers();
  std::vector<const model::lost_information*> lost;
  for (const auto& x : p.lost) lost.push_back(&x);
  std::stable_sort(lost.begin(), lost.end(), [](const auto* a, const auto* b) { return a->layer < b->layer; });
  for (const auto* x : lost) {
    const auto& l = layers[x->layer];
    r.gaps.push_back({l.id, std::string(l.name), op_of(l), x->not_covered, renamed_in(x->reason, renamed)});
  }
  return r;
}

/// Writes `s` into `v`'s type: a number where the dimension is one; else the name the model or the caller
/// gives it; else, when the inputs are the declared ones (`as_declared`), what the file declares there (a
/// number or a name: its claim stands where propagation knows less; at other input shapes it need not
/// hold); else the name reshape1 gave it. A tensor of unknown rank is left as declared at the declared
/// input shapes, and declares no shape at others; one of unknown type gets no new entry.
void write_shape(::onnx::ValueInfoProto& v, const model::tensor_shape& s, const std::set<std::string>& own,
                 bool as_declared) {
  if (v.has_type() && !v.type().has_tensor_type()) return;  // a sequence or an optional: not a tensor's shape
  if (!s.shape.rank_known()) {
    // At other input shapes, a declaration past a layer propagation cannot pass need not hold: none is made.
    if (!as_declared && v.has_type()) v.mutable_type()->mutable_tensor_type()->clear_shape();
    return;
  }
  auto* tt = v.mutable_type()->mutable_tensor_type();
  if (tt->elem_type() == 0) {
    const auto type = s.type ? detail::onnx_type_of(*s.type) : std::nullopt;
    if (!type) return;
    tt->set_elem_type(*type);
  }
  const auto old = tt->has_shape() ? std::optional(tt->shape()) : std::nullopt;
  const bool same_rank = as_declared && old && old->dim_size() == static_cast<int>(s.shape.size());
  auto* shape = tt->mutable_shape();
  shape->clear_dim();
  for (std::size_t d = 0; d < s.shape.size(); ++d) {
    const auto& dim = s.shape[d];
    auto* out = shape->add_dim();
    if (dim.is_static()) {
      out->set_dim_value(dim.lo());
      continue;
    }
    const auto name = std::string(dim.symbol().name());
    if (!name.empty() && !own.contains(name)) {
      out->set_dim_param(name);
      continue;
    }
    if (same_rank) {
      const auto& was = old->dim(static_cast<int>(d));
      if (was.has_dim_value() && was.dim_value() >= dim.lo() && was.dim_value() <= dim.hi()) {
        out->set_dim_value(was.dim_value());
        continue;
      }
      if (was.has_dim_param() && !was.dim_param().empty()) {
        out->set_dim_param(was.dim_param());
        continue;
      }
    }
    if (!name.empty()) out->set_dim_param(name);
  }
}

/// The names reshape1 gave: the report's dimension names the model and the caller do not use.
std::set<std::string> own_names(const model::shapes_report& r, const std::set<std::string>& taken) {
  std::set<std::string> own;
  for (const auto& t : r.tensors)
    for (const auto& d : t.shape.dims())
      if (d.has_symbol() && !taken.contains(std::string(d.symbol().name()))) own.insert(std::string(d.symbol().name()));
  return own;
}

/// The names the caller gives sizes (`?@H`).
void asked_names(const model::shapes_options& options, std::set<std::string>& out) {
  for (const auto& [name, shape] : options.shapes)
    for (const auto& d : shape.dims())
      if (d.has_symbol()) out.insert(std::string(d.symbol().name()));
}

/// Each listed tensor's shape (`r`'s, in `tensors`' order) written into the graphs of `m` that declare them:
/// the graph outputs and value_info (an entry added where the tensor has none and a rank and a type are
/// known); the graph inputs too when the inputs were `reshaped`. `own` are the names reshape1 gave.
void declare_shapes(::onnx::ModelProto& m, const std::vector<listed>& tensors, const model::shapes_report& r,
                    const std::set<std::string>& own, bool reshaped) {
  // Each graph's declarations by name, made once (a RepeatedPtrField keeps its elements where they are as it grows).
  std::unordered_map<const ::onnx::GraphProto*, std::unordered_map<std::string, ::onnx::ValueInfoProto*>> inputs_outputs, infos;
  const auto index = [&](::onnx::GraphProto& graph) {
    if (infos.contains(&graph)) return;
    auto& io = inputs_outputs[&graph];
    auto& vi = infos[&graph];
    for (auto* list : {graph.mutable_input(), graph.mutable_output()})
      for (auto& x : *list) io.emplace(x.name(), &x);
    for (auto& x : *graph.mutable_value_info()) vi.emplace(x.name(), &x);
  };
  std::set<std::string> outputs, top_inputs;
  std::unordered_map<std::string, ::onnx::ValueInfoProto*> top_outputs;
  for (auto& o : *m.mutable_graph()->mutable_output()) {
    outputs.insert(o.name());
    top_outputs.emplace(o.name(), &o);
  }
  for (const auto& in : m.graph().input()) top_inputs.insert(in.name());
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    auto& graph = *tensors[k].graph;
    const auto& name = tensors[k].name;
    const auto& t = r.tensors[k];
    index(graph);
    ::onnx::ValueInfoProto* v = nullptr;
    if (const auto it = inputs_outputs[&graph].find(name); it != inputs_outputs[&graph].end()) {
      // An input keeps its declaration unless the caller gave it a shape: the file then declares the shape
      // its tensors were computed from. (An input the graph also gives out keeps it too; its output's is
      // written.)
      v = it->second;
      if (&graph == m.mutable_graph() && !reshaped && top_inputs.contains(name)) {
        if (!outputs.contains(name)) continue;
        v = top_outputs.at(name);
      }
    } else if (const auto at = infos[&graph].find(name); at != infos[&graph].end()) {
      v = at->second;
    } else {
      // A value_info entry is added only with what it must hold: a rank and an element type.
      if (!t.shape.rank_known() || !t.type || !detail::onnx_type_of(*t.type)) continue;
      v = graph.add_value_info();
      v->set_name(name);
      infos[&graph].emplace(name, v);
    }
    // A body's own declarations are not kept where propagation knows less: they need not hold at every
    // iteration (a carried value declared [N,2] that is transposed at each).
    const bool as_declared = !reshaped && t.within.empty();
    write_shape(*v, t, own, as_declared);
    // A graph output the file also lists in value_info: both say the same.
    if (const auto at = infos[&graph].find(name); at != infos[&graph].end() && at->second != v)
      write_shape(*at->second, t, own, as_declared);
  }
}

/// Each listed tensor's declaration as its graph has it (an output that passes its input on has its own).
std::vector<std::optional<partial_shape>> declarations_of(const std::vector<listed>& tensors) {
  std::vector<std::optional<partial_shape>> out;
  std::unordered_map<const ::onnx::GraphProto*, std::unordered_map<std::string_view, const ::onnx::ValueInfoProto*>> declaring;
  for (const auto& t : tensors) {
    auto [it, fresh] = declaring.try_emplace(t.graph);
    if (fresh)
      for (const auto* list : {&t.graph->input(), &t.graph->output(), &t.graph->value_info()})
        for (const auto& v : *list) it->second.emplace(v.name(), &v);
    const auto v = it->second.find(t.name);
    const auto dims = v == it->second.end() ? std::nullopt : detail::declared_dims(v->second->type(), true);
    out.push_back(dims ? std::optional(partial_shape(*dims)) : std::nullopt);
  }
  return out;
}

/// The names the graph inputs' dim_params give sizes the reader has no symbol for (`batch-size`, torch's
/// `s0 + 1` are not notation): at the declared shapes, the size each names keeps that name all the same.
std::unordered_map<symbol, symbol> input_names(const ::onnx::GraphProto& g,
                                               const std::unordered_map<std::string, source>& names,
                                               const model::propagation& p) {
  std::unordered_map<symbol, symbol> out;
  for (const auto& in : g.input()) {
    const auto it = names.find(in.name());
    if (it == names.end() || !in.type().tensor_type().has_shape()) continue;
    const auto& shape = p.outputs[it->second.layer][it->second.output].shape;
    const auto& dims = in.type().tensor_type().shape();
    if (!shape.rank_known() || static_cast<int>(shape.size()) != dims.dim_size()) continue;
    for (int d = 0; d < dims.dim_size(); ++d) {
      const auto& param = dims.dim(d).dim_param();
      const auto& dim = shape[static_cast<std::size_t>(d)];
      if (!param.empty() && !model::detail::reads_as_symbol(param) && dim.has_symbol() && !dim.is_static())
        out.try_emplace(dim.symbol(), symbol(param));
    }
  }
  return out;
}

model::shapes_report shapes_onnx(std::span<const std::byte> bytes, const std::string& file, const fs::path& directory,
                                 const model::shapes_options& options) {
  detail::check_model_size(bytes, file);
  // Constant nodes' values are left out too unless the model is written back (put_back restores only
  // initializers).
  const auto skimmed = detail::skim(bytes, file, {.constants = !options.copy});
  // Where nothing is left out, protobuf parses a private copy (a mapping's parse is not guarded).
  std::unique_ptr<std::byte[]> copy;
  if (skimmed.bytes.empty()) {
    copy.reset(new std::byte[bytes.size()]);  // left uninitialised: the copy fills it
    io::detail::guarded_copy(copy.get(), bytes.data(), bytes.size(), file);
  }
  ::onnx::ModelProto m;
  detail::parse_model(skimmed.bytes.empty() ? std::span<const std::byte>(copy.get(), bytes.size())
                                            : std::as_bytes(std::span(skimmed.bytes)),
                      file, m);
  std::unordered_map<std::string, source> names;
  std::vector<detail::body_names> bodies;
  const auto left_out = detail::left_out_of(m, skimmed);
  // The tensors of a function's body are the graph's once inlined: listed and written as the graph's.
  detail::inline_functions(m, file);
  const auto g = detail::lower(m, file, directory, options.spelling, &names, &bodies, &left_out);
  const auto inputs = model::detail::requested_shapes(g, options.shapes, options.spelling);
  const auto p = model::detail::propagate_naming(g, inputs, unnamed);

  std::set<std::string> taken;
  dim_params(m.graph(), taken);
  asked_names(options, taken);
  std::set<std::string> seen;
  std::vector<listed> tensors;
  const auto views = body_views(g, p, bodies);
  list_graph(*m.mutable_graph(), {&g, &p, &names, {}, {}}, views, seen, tensors);
  std::unordered_map<symbol, symbol> seeded;
  if (options.shapes.empty()) seeded = input_names(m.graph(), names, p);
  const auto declarations = declarations_of(tensors);
  auto r = report_of(g, p, tensors, taken, std::move(seeded), &declarations, detail::default_opset(m, file));

  if (!options.copy) return r;
  declare_shapes(m, tensors, r, own_names(r, taken), !options.shapes.empty());
  std::string written;
  if (!m.SerializeToString(&written)) fail(errc::io, {.file = file}, "protobuf cannot serialise the model with its shapes");
  model::onnx_output with_shapes;
  with_shapes.model = skimmed.bytes.empty()
                          ? std::move(written)
                          : detail::put_back(std::as_bytes(std::span(written)), bytes, skimmed.left_out, file);
  r.output = std::move(with_shapes);
  return r;
}

model::shapes_report shapes_ir(const fs::path& file, const fs::path& bin, const model::shapes_options& options) {
  const auto weights = model::weights_of(file, bin, options.spelling);
  const auto g = model::read_ir(file, weights);
  const auto inputs = model::detail::requested_shapes(g, options.shapes, options.spelling);
  const auto p = model::detail::propagate_naming(g, inputs, unnamed);
  std::set<std::string> names;  // an IR names no dimension: only the caller's are kept
  asked_names(options, names);
  std::vector<listed> tensors;
  list_ir({&g, &p, nullptr, {}, {}}, tensors);
  auto r = report_of(g, p, tensors, names, {});
  if (options.copy) {
    const io::detail::mapped_file xml(file);
    r.output = model::ir_output{model::detail::xml_with_shapes(g, xml.bytes(), p, inputs), {}, weights};
  }
  return r;
}

}  // namespace

model::shapes_report shapes(const fs::path& file, const model::shapes_options& options) {
  if (!options.base_dir.empty()) model::detail::refuse_base_dir_for_file(options.spelling);
  if (file == "-")
    fail(errc::invalid_argument, {}, "shapes reads the model from its file, not from standard input",
         "save the model and give its path");
  if (format_of(file) == model::model_format::ir) return shapes_ir(file, options.bin, options);
  if (!options.bin.empty()) model::detail::refuse_for_format(options.spelling, model::detail::option::bin, "onnx");
  const io::detail::mapped_file data(file);
  return shapes_onnx(data.bytes(), file.string(), detail::directory_of(file), options);
}

model::shapes_report shapes(std::span<const std::byte> bytes, const std::string& name,
                            const model::shapes_options& options) {
  if (!options.bin.empty()) model::detail::refuse_for_format(options.spelling, model::detail::option::bin, "onnx");
  return shapes_onnx(bytes, name, options.base_dir.empty() ? fs::path(name).parent_path() : options.base_dir, options);
}

void check_shapes_output(const fs::path& in, const fs::path& bin, const fs::path& out, model::option_spelling spelling) {
  if (format_of(in) == model::model_format::onnx) {
    if (!bin.empty()) model::detail::refuse_for_format(spelling, model::detail::option::bin, "onnx");
    detail::check_onnx_output(in, out, detail::shapes_words);
    return;
  }
  model::detail::check_ir_outputs(in, model::weights_of(in, bin, spelling), out, fs::path(out).replace_extension(".bin"),
                                  detail::shapes_words.model, detail::shapes_words.command);
}

void write_shapes(const model::shapes_report& report, const fs::path& in, const fs::path& out) {
  if (!report.output)
    fail(errc::invalid_argument, {}, "the report has no copy of the model to write",
         "ask shapes for one (shapes_options::copy)");
  if (const auto* ir = std::get_if<model::ir_output>(&*report.output))
    model::detail::write_ir(*ir, in, out, fs::path(out).replace_extension(".bin"), detail::shapes_words.model,
                            detail::shapes_words.command);
  else
    detail::write_onnx(std::get<model::onnx_output>(*report.output), in, out, detail::shapes_words);
}

}  // namespace reshape1::onnx
