// Reading an ONNX model with ONNX's own protobuf classes (onnx_proto, which stays inside reshape1::onnx)
// and lowering it into the graph every check works on: graph inputs become Parameters, initializers and
// Constant nodes Consts, nodes registry ops (lower/), graph outputs Results.
#include "reshape1/onnx.hpp"

#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <limits>
#include <tuple>
#include <memory>
#include <set>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "../detail/fail.hpp"
#include "../io/files.hpp"
#include "../model/options.hpp"
#include "skim.hpp"
#include "model/ir/read_internal.hpp"
#include "model/ops/rules.hpp"
#include "lowering.hpp"

namespace reshape1::onnx {
namespace {

using model::source;
using model::detail::graph_builder;
using model::detail::op_part;
using model::detail::part_of;
using reshape1::detail::fail;
namespace fs = std::filesystem;

/// protobuf refuses messages of 2 GiB or more: larger models keep their tensors in external files.
constexpr std::uint64_t max_model_bytes = (std::uint64_t{1} << 31) - 1;

// `what` names nodes, tensors and graphs, whose names may hold "; " (where a message in one piece has its
// hint): it is never split.
[[noreturn]] void bad(const std::string& file, const std::string& what) {
  reshape1::detail::fail(errc::bad_file, {.file = file}, fmt::format("{}: {}", file, what), {});
}

/// The layout that names axis k the batch (`[D0,N,D2]`) when a tensor type holds the model's batch
/// dim_param there and k is not 0; "" otherwise (axis 0 is the batch by default).
std::string batch_layout(const ::onnx::TypeProto& type, const std::string& batch_param) {
  if (batch_param.empty() || !type.has_tensor_type() || !type.tensor_type().has_shape()) return {};
  const auto& shape = type.tensor_type().shape();
  for (int k = 1; k < shape.dim_size(); ++k)
    if (shape.dim(k).has_dim_param() && shape.dim(k).dim_param() == batch_param) {
      std::string layout = "[";
      for (int j = 0; j < shape.dim_size(); ++j)
        layout += fmt::format("{}{}", j == 0 ? "" : ",", j == k ? std::string("N") : fmt::format("D{}", j));
      return layout + "]";
    }
  return {};
}

/// A tensor's `location` must stay inside the model's directory (ONNX's own loader was fooled by `..`
/// and absolute paths: CVE-2024-27318); symbolic links are followed before the comparison.
}  // namespace

namespace detail {

std::optional<std::vector<dimension>> declared_dims(const ::onnx::TypeProto& type, bool names) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return std::nullopt;
  std::vector<dimension> dims;
  for (const auto& d : type.tensor_type().shape().dim()) {
    if (d.has_dim_value() && d.dim_value() >= 0) dims.emplace_back(d.dim_value());
    else if (names && d.has_dim_param() && model::detail::reads_as_symbol(d.dim_param())) dims.emplace_back(interval(0, interval::unbounded), symbol(d.dim_param()));
    else dims.emplace_back();
  }
  return dims;
}

std::string dims_text(const std::vector<dimension>& dims) {
  std::string s;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i != 0) s += ",";
    s += dims[i].is_static() ? fmt::format("{}", dims[i].lo()) : dims[i].has_symbol() ? to_string(dims[i]) : "-1";
  }
  return s;
}

std::optional<element_type> element_of(int t) noexcept {
  using T = ::onnx::TensorProto;
  switch (t) {
    case T::FLOAT: return element_type::f32;
    case T::UINT8: return element_type::u8;
    case T::INT8: return element_type::i8;
    case T::UINT16: return element_type::u16;
    case T::INT16: return element_type::i16;
    case T::INT32: return element_type::i32;
    case T::INT64: return element_type::i64;
    case T::BOOL: return element_type::boolean;
    case T::FLOAT16: return element_type::f16;
    case T::DOUBLE: return element_type::f64;
    case T::UINT32: return element_type::u32;
    case T::UINT64: return element_type::u64;
    case T::BFLOAT16: return element_type::bf16;
    case T::STRING: return element_type::string;  // read without its values: no rule reads a string
    default: break;
  }
  // The narrow types of ONNX 1.14 and later, by number (Debian's ONNX 1.12 names none of them). Those OpenVINO
  // has: FLOAT8E4M3FN and FLOAT8E5M2 (the FNUZ variants, 18 and 20, differ in bias and NaN: none), UINT4,
  // INT4, FLOAT4E2M1 and FLOAT8E8M0.
  switch (t) {
    case 17: return element_type::f8e4m3;
    case 19: return element_type::f8e5m2;
    case 21: return element_type::u4;
    case 22: return element_type::i4;
    case 23: return element_type::f4e2m1;
    case 24: return element_type::f8e8m0;
    default: return std::nullopt;
  }
}

std::string version_name(const ::onnx::NodeProto& node, const listed_op& schema) {
  return schema.domain == "ai.onnx" ? fmt::format("{}-{}", node.op_type(), schema.since)
                                    : fmt::format("{}.{}-{}", schema.domain, node.op_type(), schema.since);
}

std::string onnx_type_name(int onnx_type) {
  const auto t = element_of(onnx_type);
  return t ? std::string(name(*t)) : fmt::format("ONNX data type {}", onnx_type);
}

std::optional<int> onnx_type_of(element_type t) noexcept {
  for (int k = 1; k < 64; ++k)
    if (element_of(k) == t) return k;
  return std::nullopt;
}

const graph_lowering::known* graph_lowering::find(const std::string& name) const {
  const auto it = names_.find(name);
  if (it != names_.end()) return &it->second;
  return outer ? outer(name) : nullptr;
}

void graph_lowering::bind(const std::string& name, known k) {
  if (!k.rank)
    if (const auto it = declared_ranks.find(name); it != declared_ranks.end()) k.rank = it->second;
  if (!k.type && k.constant != nullptr) k.type = element_of(k.constant->data_type());
  if (!k.type)
    if (const auto it = declared_types.find(name); it != declared_types.end()) k.type = it->second;
  names_[name] = k;
}

std::optional<graph_lowering::known> graph_lowering::own_binding(std::string_view name) const {
  const auto it = names_.find(name);
  return it == names_.end() ? std::nullopt : std::optional(it->second);
}

void graph_lowering::rebind(std::string_view name, std::optional<known> k) {
  if (k) names_[name] = std::move(*k);
  else names_.erase(name);
}

source graph_lowering::add(std::string_view type, int opset, std::vector<source> in, node_context::attributes a,
                           std::size_t outputs, const std::string& name) {
  graph_builder::layer_spec l;
  l.id = next_id++;
  l.name = name;
  l.type = type;
  l.opset = opset;
  l.attributes = std::move(a);
  for (const auto& s : in) l.inputs.emplace_back(s);
  l.outputs.resize(outputs);
  return source{b_.add(std::move(l)), 0};
}

void graph_lowering::initializers(const ::onnx::GraphProto& g) {
  for (const auto& t : g.initializer()) {
    const auto s = constant(t, t.name());
    auto& held = b_.at(s.layer).attributes;  // an initializer, not a constant of a node
    held.back() = {"onnx_initializer", "true"};
    bind(t.name(), {s, static_cast<std::size_t>(t.dims_size()), &t, std::nullopt});
  }
  // Sparse ones are named by their values (ONNX's convention); ONNX Runtime makes them dense when it loads the model.
  for (const auto& t : g.sparse_initializer()) {
    const auto s = sparse_constant(t, t.values().name());
    b_.at(s.layer).attributes.back() = {"onnx_initializer", "true"};
    bind(t.values().name(), {s, static_cast<std::size_t>(t.dims_size()), nullptr, element_of(t.values().data_type())});
  }
}

std::vector<int> graph_lowering::lowering_order(const ::onnx::GraphProto& g) const {
  struct definition {
    std::string what;
    bool weight = false;
  };
  std::unordered_map<std::string_view, definition> defined;
  for (const auto& t : g.initializer()) defined[t.name()] = {"an initializer", true};
  for (const auto& t : g.sparse_initializer()) defined[t.values().name()] = {"a sparse initializer", true};
  for (const auto& in : g.input())
    if (!defined.contains(in.name())) defined[in.name()] = {"a graph input", false};
  std::unordered_map<std::string_view, int> last_constant;  // a weight's name given twice: its last Constant
  for (int index = 0; index < g.node_size(); ++index) {
    const auto& node = g.node(index);
    const bool constant = node.op_type() == "Constant" && (node.domain().empty() || node.domain() == "ai.onnx");
    for (int k = 0; k < node.output_size(); ++k) {
      const auto& name = node.output(k);
      if (name.empty()) continue;
      const auto what = fmt::format("node '{}' ({}, node {})", io::detail::escaped(node.name().empty() ? name : node.name()),
                                    node.op_type(), index);
      const auto [it, fresh] = defined.try_emplace(name, definition{what, constant});
      if (fresh) continue;
      if (constant && it->second.weight) {
        last_constant[name] = index;
        continue;
      }
      const auto where = fmt::format("{}: node '{}' ({}, node {}): output {} '{}' is already defined by {}", file_,
                                     io::detail::escaped(node.name().empty() ? name : node.name()), node.op_type(), index,
                                     k, io::detail::escaped(name), it->second.what);
      // ONNX Runtime makes a Constant node an initializer, the default value of a graph input of its name.
      if (constant)
        reshape1::detail::fail(errc::unsupported, {.file = file_}, where,
                               "a Constant node that gives a graph input a default value is not read by reshape1");
      reshape1::detail::fail(errc::bad_file, {.file = file_}, where,
                             "a tensor name is defined once in a graph; ONNX Runtime refuses the model");
    }
  }
  std::vector<int> order;
  order.reserve(static_cast<std::size_t>(g.node_size()));
  for (int index = 0; index < g.node_size(); ++index)
    if (g.node(index).output_size() == 1 && last_constant.contains(g.node(index).output(0)) &&
        last_constant.at(g.node(index).output(0)) == index)
      order.push_back(index);
  for (int index = 0; index < g.node_size(); ++index)
    if (g.node(index).output_size() != 1 || !last_constant.contains(g.node(index).output(0)) ||
        (g.node(index).op_type() != "Constant"))
      order.push_back(index);
  return order;
}

namespace {

/// ONNX's checker and ONNX Runtime refuse a node of the default domain with an attribute its schema does
/// not have: often one of another version of the op (ReduceSum's `axes` is an input from version 13 on),
/// which the translation would not read. Checked where the op list names the version's attributes (not
/// for a schema that takes any, as LayerNormalization-17's); a name that starts with `__` is one ONNX's
/// checker leaves to the tools that write it.
void refuse_unknown_attributes(const node_context& c, const ::onnx::NodeProto& node, const listed_op* schema) {
  if (schema == nullptr || !schema->attributes) return;
  const bool standard = schema->domain == "ai.onnx";
  for (const auto& a : node.attribute()) {
    if (a.name().starts_with("__") || schema->has_attribute(a.name())) continue;
    std::string names;
    for (const char ch : *schema->attributes) names += ch == ',' ? std::string(", ") : std::string(1, ch);
    c.bad(fmt::format("it has the attribute '{}', which {} does not have ({})", a.name(), version_name(node, *schema),
                      names.empty() ? "it has none" : "its attributes: " + names),
          fmt::format("{} the model too: remove the attribute, or write it as this version of the op reads it{}",
                      // ONNX's checker skips the nodes of a domain it holds no schemas of.
                      standard ? "ONNX's checker and ONNX Runtime refuse" : "ONNX Runtime refuses",
                      standard ? " (some became inputs)" : ""));
  }
}

/// ONNX's checker and ONNX Runtime refuse a node with more inputs or outputs than its version's schema takes
/// (often those of another version: Squeeze-11 with an axes input, which is Squeeze-13's), or fewer than it
/// needs, optional ones counted whether given or named "". Checked where the op list says how many.
void refuse_wrong_arity(const node_context& c, const ::onnx::NodeProto& node, const listed_op* schema) {
  if (schema == nullptr) return;
  const auto range = [](const arity& a) {
    return a.least == a.most                          ? fmt::format("{}", a.least)
           : a.most == std::numeric_limits<int>::max() ? fmt::format("{} or more", a.least)
                                                       : fmt::format("{} to {}", a.least, a.most);
  };
  const bool standard = schema->domain == "ai.onnx";
  const auto refusers = standard ? "ONNX's checker and ONNX Runtime refuse" : "ONNX Runtime refuses";
  const auto version = version_name(node, *schema);
  for (const auto& [what, count, allowed] : {std::tuple{"input", node.input_size(), schema->inputs},
                                             std::tuple{"output", node.output_size(), schema->outputs}}) {
    if (!allowed) continue;
    if (!allowed->holds(count))
      c.bad(fmt::format("it has {} {}{}, where {} takes {}", count, what, count == 1 ? "" : "s", version, range(*allowed)),
            fmt::format("{} the model too: give the node this version's {}s (some are attributes at other versions)",
                        refusers, what));
    // A required one left out (named ""): the checker refuses it before anything reads the node.
    for (int k = 0; k < count; ++k)
      if ((what == std::string_view("input") ? node.input(k) : node.output(k)).empty() && !allowed->may_be_empty(k))
        c.bad(fmt::format("its {} {} is left out (named \"\"), which {} requires", what, k, version),
              fmt::format("{} the model too: name a tensor there", refusers));
  }
}

}  // namespace

graph_lowering::looked_up graph_lowering::look_up(const ::onnx::NodeProto& node) const {
  const auto domain = listed_domain(node.domain());
  const bool default_domain = domain == "ai.onnx";
  const bool ml = domain == "ai.onnx.ml";
  // Another domain's version is the one the model imports of it; ONNX Runtime reads a node of a domain the model
  // imports no version of at that domain's newest version: com.microsoft's 1, ai.onnx.ml's 5.
  const auto imported = domain_versions.find(node.domain());
  const int opset = default_domain                     ? opset_
                    : imported != domain_versions.end() ? imported->second
                    : ml                                ? newest_ml_opset
                                                        : 1;
  const auto& op = node.op_type();
  const auto qualified = default_domain ? op : fmt::format("{}.{}", node.domain(), op);
  if (default_domain && opset > newest_opset)
    return {nullptr, opset, fmt::format("the model's opset {} is above {}, the newest reshape1 knows", opset, newest_opset)};
  if (ml && opset > newest_ml_opset)
    return {nullptr, opset,
            fmt::format("the model imports version {} of ai.onnx.ml, above {}, the newest reshape1 knows", opset, newest_ml_opset)};
  if (!default_domain && !ml && domain != "com.microsoft")
    return {nullptr, opset,
            fmt::format("{}: reshape1 translates ONNX's default domain, ai.onnx.ml and com.microsoft only", qualified)};
  if (domain == "com.microsoft" && opset != 1)
    return {nullptr, opset, fmt::format("{}: the model imports version {} of com.microsoft, which has version 1 only",
                                        qualified, opset)};
  const auto* schema = schema_at(domain, op, opset);
  // The list holds every version of the default domain's operators up to newest_opset (the experimental
  // ones ONNX Runtime still runs too), so an op it has only from a later opset is one ONNX Runtime refuses
  // ("No Op registered"). An op it does not have at all is only not covered. (ONNX's experimental ops of its
  // first opsets that ONNX Runtime runs, ImageScaler and Crop among them, are in the list at version 1.)
  if (schema == nullptr && default_domain && schema_at(domain, op, newest_opset) != nullptr)
    return {nullptr, opset,
            fmt::format("{} does not exist at opset {}, the model's: its first version is {}", op, opset,
                        first_version(domain, op)),
            "ONNX Runtime refuses the model too: import a newer opset, or write the op as this one's ops"};
  if (schema == nullptr)
    return {nullptr, opset, fmt::format("{} is no operator of domain {} at version {} that reshape1 knows", qualified, domain, opset)};
  if (schema->ort == ort_runs::deprecated)
    return {nullptr, schema->since, fmt::format("{} is deprecated from opset {}", qualified, schema->since),
            ml ? "ONNX Runtime refuses the model too: write it as ai.onnx.ml.TreeEnsemble, which replaced it, or import "
                 "version 4 of ai.onnx.ml"
               : "ONNX Runtime refuses the model too: write it as the op that replaced it (ScatterElements for Scatter, "
                 "Resize for Upsample, Slice for Crop and DynamicSlice), or the arithmetic an experimental op computes "
                 "(Mul and Add for ImageScaler and Affine)"};
  const auto* entry = find_translation(domain, op, schema->since);
  if (entry == nullptr)
    return {nullptr, schema->since,
            schema->ort == ort_runs::no
                ? fmt::format("{}-{} has no translation (ONNX Runtime does not run it either)", qualified, schema->since)
                : fmt::format("{}-{} has no translation yet", qualified, schema->since),
            {}, schema};
  if (entry->fn == nullptr)
    return {entry, schema->since, fmt::format("{}-{}: {}", qualified, schema->since, entry->why), {}, schema};
  return {entry, schema->since, {}, {}, schema};
}

void graph_lowering::refuse_as_loaded(const node_context& c, const looked_up& row) {
  if (!row.refusal_hint.empty()) c.bad(row.why, row.refusal_hint);
  refuse_unknown_attributes(c, c.node(), row.schema);
  refuse_wrong_arity(c, c.node(), row.schema);
  refuse_wrong_types(c, row.schema);
}

void graph_lowering::check_not_run(const ::onnx::GraphProto& g) {
  for (int index = 0; index < g.node_size(); ++index) {
    const auto& node = g.node(index);
    const auto row = look_up(node);
    node_context c(*this, node, static_cast<std::size_t>(index), row.version);
    refuse_as_loaded(c, row);
    check_graphs(c);
  }
}

namespace {
/// Why node `c` is not covered where it reads a sequence or an optional the lowering follows as a tensor: every op
/// but those that take one (lower/sequence.cpp, Identity) and the ops ONNX lets hold one (Loop, Scan, If's
/// branches, SequenceMap), which reshape1 follows only as tensors. nullopt where it reads none.
std::optional<std::string> reads_held_as_tensor(const node_context& c) {
  static const std::set<std::string_view> take_held = {"Identity", "SequenceAt", "SequenceErase", "SequenceInsert",
                                                       "SequenceLength", "ConcatFromSequence", "SequenceMap", "Optional",
                                                       "OptionalHasElement", "OptionalGetElement"};
  const auto& node = c.node();
  const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
  for (std::size_t k = 0; k < c.inputs(); ++k)
    if (const auto* v = c.input_value(k); v != nullptr && v->held != nullptr && v->held->maps)
      return fmt::format("its input {} ('{}') is a sequence of maps, which reshape1 follows only to the graph's outputs", k,
                         node.input(static_cast<int>(k)));
    else if (v != nullptr && v->held != nullptr && !(default_domain && take_held.contains(node.op_type())))
      return fmt::format("its input {} ('{}') is {}, which reshape1 follows only through the sequence and optional ops", k,
                         node.input(static_cast<int>(k)), v->held->optional ? "an optional" : "a sequence");
  return std::nullopt;
}
}  // namespace

void graph_lowering::lower_nodes(const ::onnx::GraphProto& g, bool top) {
  if (!top) initializers(g);
  for (const int index : lowering_order(g)) {
    const auto& node = g.node(index);
    const auto first_layer = b_.size();
    const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
    const auto row = look_up(node);
    const auto* entry = row.entry;
    node_context c(*this, node, static_cast<std::size_t>(index), row.version);
    refuse_as_loaded(c, row);
    if (entry == nullptr || entry->fn == nullptr) c.not_covered(row.why);
    else if (const auto why = reads_held_as_tensor(c)) c.not_covered(*why);
    else entry->fn(c);
    infer_output_types(c, row.schema);
    // An If inlines its branches: their nodes keep the layers they lowered to; the If's own are the merges.
    const bool inlines = node.op_type() == "If" && entry != nullptr && entry->fn != nullptr;
    std::optional<std::size_t> own;  // the layer that computes the node's first output, if the node added it
    for (int k = 0; k < node.output_size(); ++k) {
      if (node.output(k).empty()) continue;
      const auto* produced = find(node.output(k));
      if (produced == nullptr) c.bad(fmt::format("its translation does not produce output {}", k));
      const auto at = produced->at.layer;
      if (k == 0 && at >= first_layer && (!inlines || part_of(b_.at(at).type) == op_part::if_merge)) own = at;
    }
    if (own && top) b_.at(*own).id = index;
    for (auto layer = first_layer; layer < b_.size(); ++layer)
      if (!inlines || part_of(b_.at(layer).type) == op_part::if_merge) b_.at(layer).auxiliary = !own || layer != *own;
    // Findings name the node's op as the file does (layer::op_type); an inlined branch's layers keep theirs.
    const auto op = default_domain ? node.op_type() : fmt::format("{}.{}", node.domain(), node.op_type());
    for (auto layer = first_layer; layer < b_.size(); ++layer) {
      auto& a = b_.at(layer).attributes;
      if (std::any_of(a.begin(), a.end(), [](const auto& x) { return x.first == "onnx_op"; })) continue;
      a.emplace_back("onnx_op", op);
      a.emplace_back("onnx_version", std::to_string(c.version()));
    }
  }
}

}  // namespace detail

namespace {

using detail::declared_dims;
using detail::dims_text;
using detail::graph_lowering;
using detail::node_context;

}  // namespace

int detail::default_opset(const ::onnx::ModelProto& m, const std::string& file) {
  // A domain imported twice ("" and "ai.onnx", or "" twice) runs at its last import, as ONNX Runtime reads it.
  std::optional<int> last;
  for (const auto& o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") last = static_cast<int>(o.version());
  if (last) return *last;
  if (m.opset_import_size() == 0 && m.ir_version() < 3) return 1;  // before opset_import existed
  // Imports of other domains only (a model of com.microsoft nodes): ONNX Runtime reads the default domain's
  // nodes at the newest opset it knows, 26 for 1.30, as reshape1 does. No import at all it refuses.
  if (m.opset_import_size() > 0) return newest_opset;
  bad(file, "the model imports no operator set: its opset_import is empty (every model from IR version 3 names "
            "the opsets it uses; ONNX Runtime refuses it too)");
}

namespace {
using detail::default_opset;

struct model_reader {
  std::string file;
  fs::path directory;
  model::option_spelling spelling = model::option_spelling::api;  // how a hint names --base-dir
  int opset = 0;
  std::vector<std::byte> weights;
  std::unordered_map<std::string, source>* names = nullptr;  // where each tensor's name ends up, if asked
  std::vector<detail::body_names>* bodies = nullptr;          // and each body's, likewise
  std::unordered_map<std::string, int> domains{};              // the versions of the other domains imported
  const detail::left_out_raw* left_out = nullptr;              // initializers parsed without their raw_data

  void lower_graph(const ::onnx::GraphProto& g, graph_builder& b, bool top);
  /// The graph inputs as Parameters (a weight also listed as an input is its initializer); returns the
  /// batch's dim_param, which axis 0 of the first input holds (none below the top graph).
  std::string add_inputs(const ::onnx::GraphProto& g, graph_builder& b, detail::graph_lowering& lw, bool top) const;
  /// The size of tensor `t`'s data in its external file, which must lie inside the model's directory and
  /// hold it; with `into`, the bytes too. `what` names the tensor in messages.
  std::uint64_t external_data(const ::onnx::TensorProto& t, const std::string& what, std::vector<std::byte>* into) const;
};

std::uint64_t model_reader::external_data(const ::onnx::TensorProto& t, const std::string& what,
                                          std::vector<std::byte>* into) const {
  std::string location;
  std::uint64_t offset = 0;
  std::optional<std::uint64_t> length;
  for (const auto& e : t.external_data()) {
    const auto number = [&] {
      std::uint64_t v = 0;
      const auto& s = e.value();
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc() || end != s.data() + s.size())
        bad(file, fmt::format("{}: external_data {} is '{}', not a byte count", what, e.key(), s));
      return v;
    };
    if (e.key() == "location") location = e.value();
    if (e.key() == "offset") offset = number();
    if (e.key() == "length") length = number();
  }
  const auto path = detail::external_path(directory, location, file, t.name(), spelling);
  const io::detail::mapped_file data(path);
  const auto bytes = data.bytes();
  const auto n = length.value_or(offset <= bytes.size() ? bytes.size() - offset : 0);
  if (offset > bytes.size() || n > bytes.size() - offset)
    fail(errc::bad_file, {.offset = offset, .file = path.string()},
         fmt::format("{}: {} reads {} bytes at byte {}, past the end of the file ({} bytes)", path.string(), what, n,
                     offset, bytes.size()),
         {});
  if (into != nullptr) {
    into->assign(n, std::byte{0});
    io::detail::guarded_copy(into->data(), bytes.data() + offset, n, path.string());
  }
  return n;
}

std::string model_reader::add_inputs(const ::onnx::GraphProto& g, graph_builder& b, detail::graph_lowering& lw,
                                     bool top) const {
  std::unordered_map<std::string_view, const ::onnx::TensorProto*> initializers;
  for (const auto& t : g.initializer()) initializers.emplace(t.name(), &t);
  // An input's batch axis is where it holds the dim_param that axis 0 of the first input holds.
  std::string batch_param;
  bool first = true;
  std::unordered_set<std::string_view> inputs;
  for (const auto& in : g.input()) {
    // Protobuf merges a message given twice, so a file can list an input twice; ONNX names each value once.
    if (!inputs.insert(in.name()).second) bad(file, fmt::format("graph input '{}' is listed twice", in.name()));
    if (const auto w = initializers.find(in.name()); w != initializers.end()) {
      // A weight listed as an input (IR version < 4), or the input's default: of its type, as ONNX Runtime asks.
      const auto declared = in.type().has_tensor_type() ? in.type().tensor_type().elem_type() : 0;
      const auto& weight = *w->second;
      if (declared != 0 && declared != weight.data_type())
        bad(file, fmt::format("graph input '{}' is declared of type {}, and its initializer is of type {}; ONNX Runtime "
                              "refuses the model too: give the input its initializer's type",
                              in.name(), detail::onnx_type_name(declared), detail::onnx_type_name(weight.data_type())));
      // Its declared shape too, where it gives one: each number the initializer's (ONNX Runtime: "Shape of
      // initializer e does not match").
      if (in.type().has_tensor_type() && in.type().tensor_type().has_shape()) {
        const auto& shape = in.type().tensor_type().shape();
        bool differs = shape.dim_size() != weight.dims_size();
        for (int k = 0; !differs && k < shape.dim_size(); ++k)
          differs = shape.dim(k).has_dim_value() && shape.dim(k).dim_value() != weight.dims(k);
        if (differs)
          bad(file, fmt::format("graph input '{}' is declared of shape [{}], and its initializer is of shape [{}]; ONNX "
                                "Runtime refuses the model too: declare the input as its initializer is",
                                in.name(), dims_text(*declared_dims(in.type(), false)), fmt::join(weight.dims(), ",")));
      }
      continue;
    }
    graph_builder::layer_spec l;
    l.id = lw.next_id++;
    l.name = in.name();
    l.type = "Parameter";
    l.opset = 1;
    auto& out = l.outputs.emplace_back();
    // A sequence or an optional the graph takes: its tensors' declared type and shape stand for it, so that the
    // batch they hold is seen where the nodes that read it (not covered: its contents are the caller's) lead.
    const auto* type = &in.type();
    const bool held = type->has_sequence_type() || type->has_optional_type();
    while (type->has_sequence_type() || type->has_optional_type())
      type = type->has_sequence_type() ? &type->sequence_type().elem_type() : &type->optional_type().elem_type();
    const auto dims = declared_dims(*type, top);
    // A map (ai.onnx.ml's CastMap and DictVectorizer read one): a Parameter of no shape, its values' type kept for them.
    if (type->has_map_type() && type->map_type().value_type().has_tensor_type())
      if (const auto t = detail::element_of(type->map_type().value_type().tensor_type().elem_type()))
        l.attributes.emplace_back("onnx_map_values", std::string(reshape1::name(*t)));
    if (type->has_tensor_type()) {
      if (const auto t = detail::element_of(type->tensor_type().elem_type())) {
        out.type = t;
        l.attributes.emplace_back("element_type", std::string(reshape1::name(*t)));
      }
    }
    if (dims) {
      out.dims = *dims;
      out.declared = true;
      const auto& shape = type->tensor_type().shape();
      if (top && first && shape.dim_size() > 0 && shape.dim(0).has_dim_param()) batch_param = shape.dim(0).dim_param();
      if (top && !first) out.layout = batch_layout(*type, batch_param);
      l.attributes.emplace_back("shape", dims_text(*dims));
    }
    first = false;
    const auto rank = dims ? std::optional(dims->size()) : std::nullopt;
    const auto element = out.type;
    const auto at = source{b.add(std::move(l)), 0};
    if (held) {
      detail::held_values unfollowed;
      unfollowed.optional = in.type().has_optional_type();
      unfollowed.followed = false;
      unfollowed.type = element;
      lw.bind(in.name(), {at, std::nullopt, nullptr, std::nullopt, std::make_shared<const detail::held_values>(std::move(unfollowed))});
    } else {
      lw.bind(in.name(), {at, rank, nullptr, element});
    }
  }
  return batch_param;
}

void model_reader::lower_graph(const ::onnx::GraphProto& g, graph_builder& b, bool top) {
  graph_lowering lw(file, opset, b, weights);
  lw.domain_versions = domains;
  lw.bodies = bodies;
  if (top) lw.left_out = left_out;
  lw.external = [this](const ::onnx::TensorProto& t, const std::string& what, std::vector<std::byte>* into) {
    return external_data(t, what, into);
  };

  for (const auto* list : {&g.value_info(), &g.output()})
    for (const auto& v : *list) {
      if (const auto dims = declared_dims(v.type())) lw.declared_ranks[v.name()] = dims->size();
      if (v.type().has_tensor_type())
        if (const auto t = detail::element_of(v.type().tensor_type().elem_type())) lw.declared_types[v.name()] = *t;
    }
  const auto node_count = static_cast<std::int64_t>(g.node_size());
  lw.next_id = node_count;  // a node's own layer takes the node's index as its id; the others follow
  b.reserve(static_cast<std::size_t>(2 * g.node_size() + g.initializer_size() + g.input_size() + g.output_size()));

  const auto batch_param = add_inputs(g, b, lw, top);
  lw.initializers(g);

  lw.lower_nodes(g, true);

  // Declared shapes: graph outputs and value_info, on the layer outputs that compute them.
  // A sequence or an optional the lowering follows, declared as another kind or of another element type: ONNX
  // Runtime refuses the model when it loads it. (A tensor declared as a sequence is not checked: a node reshape1
  // does not follow may well give one.)
  const auto declared_kind = [&](const ::onnx::ValueInfoProto& v, const detail::held_values& held) {
    if (!held.followed || !v.has_type() || v.type().value_case() == ::onnx::TypeProto::VALUE_NOT_SET) return;
    const char* kind = held.optional ? "an optional" : "a sequence";
    const bool same = held.optional ? v.type().has_optional_type() : v.type().has_sequence_type();
    if (!same)
      bad(file, fmt::format("'{}' is declared {}, and is {}; ONNX Runtime refuses the model too: declare it as what "
                            "computes it gives", v.name(), v.type().has_tensor_type() ? "a tensor" : "of another kind", kind));
    const auto& inner = held.optional ? v.type().optional_type().elem_type() : v.type().sequence_type().elem_type();
    if (inner.has_tensor_type() && inner.tensor_type().elem_type() != 0 && held.type)
      if (const auto t = detail::element_of(inner.tensor_type().elem_type()); t && *t != *held.type)
        bad(file, fmt::format("'{}' is declared {} of {}, and holds {}; ONNX Runtime refuses the model too", v.name(), kind,
                              reshape1::name(*t), reshape1::name(*held.type)));
  };
  const auto declare = [&](const ::onnx::ValueInfoProto& v) {
    if (lw.inlined.contains(v.name())) return;  // a branch's own tensor, which this graph declares nothing of
    const auto* k = lw.find(v.name());
    if (k != nullptr && k->held != nullptr) declared_kind(v, *k->held);
    if (k == nullptr || k->constant != nullptr || k->held != nullptr) return;
    auto& out = b.at(k->at.layer).outputs[k->at.output];
    if (part_of(b.at(k->at.layer).type) == op_part::parameter) return;
    if (const auto dims = declared_dims(v.type(), top)) {
      out.dims = *dims;
      out.declared = true;
    }
    if (v.type().has_tensor_type())
      if (const auto t = detail::element_of(v.type().tensor_type().elem_type())) out.type = t;
  };
  for (const auto& v : g.value_info()) declare(v);
  for (const auto& v : g.output()) declare(v);
  lw.type_outputs();
  for (const auto& v : g.output()) {
    const auto* k = lw.find(v.name());
    if (k == nullptr) bad(file, fmt::format("graph output '{}' is not computed by any node", v.name()));
    // A sequence or an optional the graph gives out: reshape1 answers for tensors, so it cannot tell past it.
    const auto at = lw.opaque_of(*k, "a graph output that is a sequence or an optional", v.name());
    graph_builder::layer_spec l;
    l.id = lw.next_id++;
    l.name = v.name();
    l.type = "Result";
    l.opset = 1;
    l.inputs.emplace_back(at);
    if (top) l.input_layouts.push_back(batch_layout(v.type(), batch_param));
    b.add(std::move(l));
  }
  if (names != nullptr) lw.export_names(*names);
}

/// Refuses a file protobuf cannot read whole.
void check_size(std::span<const std::byte> bytes, const std::string& file) {
  if (bytes.size() > max_model_bytes)
    fail(errc::unsupported, {.file = file},
         fmt::format("{}: {} bytes", file, bytes.size()),
         "protobuf reads ONNX files below 2 GiB, larger models keep their tensors in external data files");
}

/// Parses a file's bytes as a ModelProto.
void parse(std::span<const std::byte> bytes, const std::string& file, ::onnx::ModelProto& m) {
  check_size(bytes, file);
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                                static_cast<int>(bytes.size()));
  stream.SetRecursionLimit(256);  // nested subgraphs: deep enough for real models, not for a stack overflow
  if (!m.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage())
    bad(file, "not an ONNX model: protobuf cannot parse it as a ModelProto");
  if (!m.has_graph()) bad(file, "not an ONNX model: it has no graph");
}

/// About how many bytes the top graph's kept tensors (initializers and Constant values small enough for a
/// rule or an analysis to read: kept_for_rules) take, counting only the data the file holds (typed fields at
/// 8 bytes a value): the weights vector is sized for them at once rather than copied each time it grows.
std::size_t kept_bytes(const ::onnx::GraphProto& g) {
  std::size_t total = 0;
  const auto add = [&](const ::onnx::TensorProto& t) {
    std::uint64_t count = 1;
    for (const auto d : t.dims())
      if (d < 0 || __builtin_mul_overflow(count, static_cast<std::uint64_t>(d), &count)) return;
    if (!detail::kept_shape(t, count)) return;
    // The values the file holds, not the count its dims claim: a tensor that declares more than it holds
    // is refused later, and must not make this reserve memory first.
    const auto held = static_cast<std::size_t>(t.float_data_size() + t.int32_data_size() + t.int64_data_size() +
                                               t.double_data_size() + t.uint64_data_size());
    total += t.has_raw_data() ? t.raw_data().size() : std::min(static_cast<std::size_t>(count), held) * 8;
  };
  for (const auto& t : g.initializer()) add(t);
  for (const auto& n : g.node())
    if (n.op_type() == "Constant")
      for (const auto& a : n.attribute())
        if (a.has_t()) add(a.t());
  return total;
}

/// `mapping`: the file `bytes` are a mapping of, when they are one.
model::graph read_model(std::span<const std::byte> bytes, const std::string& file, const fs::path& directory,
                        const io::detail::mapped_file* mapping, model::option_spelling spelling) {
  // The weights are parsed by their length only (skim.hpp): neither copied nor read, so that reading a
  // model costs little more than its graph. The limit is the file's, as protobuf's parse of it would be.
  check_size(bytes, file);
  const auto skimmed = detail::skim(bytes, file, {.constants = true});
  // Where nothing is left out, protobuf parses a private copy: its parse of a mapping is not guarded, and
  // a file that shrinks under it would fault.
  const bool mapped = mapping != nullptr && mapping->mapped();
  std::unique_ptr<std::byte[]> copy;
  if (skimmed.bytes.empty() && mapped) copy = mapping->copy();
  const auto parsed = !skimmed.bytes.empty() ? std::as_bytes(std::span(skimmed.bytes))
                      : mapped            ? std::span<const std::byte>(copy.get(), bytes.size())
                                          : bytes;
  // The parsed model lives only as long as the lowering: in an arena, its many small messages and strings
  // are allocated in a few blocks and freed at once.
  google::protobuf::ArenaOptions options;
  options.start_block_size = std::clamp<std::size_t>(parsed.size() / 2, 4096, std::size_t{1} << 24);
  options.max_block_size = std::size_t{1} << 24;
  google::protobuf::Arena arena(options);
  auto* m = google::protobuf::Arena::CreateMessage<::onnx::ModelProto>(&arena);
  parse(parsed, file, *m);
  const auto left_out = detail::left_out_of(*m, skimmed);
  detail::inline_functions(*m, file);
  return detail::lower(*m, file, directory, spelling, nullptr, nullptr, &left_out);
}

}  // namespace

void detail::parse_model(std::span<const std::byte> bytes, const std::string& file, ::onnx::ModelProto& m) {
  parse(bytes, file, m);
}

void detail::check_model_size(std::span<const std::byte> bytes, const std::string& file) { check_size(bytes, file); }

detail::left_out_raw detail::left_out_of(const ::onnx::ModelProto& m, const skimmed_model& skimmed) {
  left_out_raw out;
  for (const auto& [index, field] : skimmed.left_out)
    if (index < static_cast<std::size_t>(m.graph().initializer_size()))
      out.emplace(&m.graph().initializer(static_cast<int>(index)), field.length);
  for (const auto& [at, field] : skimmed.constants_left_out) {
    const auto [node, attribute] = at;
    if (node >= static_cast<std::size_t>(m.graph().node_size())) continue;
    const auto& n = m.graph().node(static_cast<int>(node));
    if (attribute < static_cast<std::size_t>(n.attribute_size()))
      out.emplace(&n.attribute(static_cast<int>(attribute)).t(), field.length);
  }
  return out;
}

model::graph detail::lower(const ::onnx::ModelProto& m, const std::string& file, const fs::path& directory,
                           model::option_spelling spelling, std::unordered_map<std::string, source>* names, std::vector<body_names>* bodies,
                           const left_out_raw* left_out) {
  model_reader r{file, directory, spelling, default_opset(m, file), {}, names, bodies, {}, left_out};
  for (const auto& o : m.opset_import())
    if (!o.domain().empty() && o.domain() != "ai.onnx") r.domains[o.domain()] = static_cast<int>(o.version());
  graph_builder b(model::model_format::onnx, static_cast<int>(m.ir_version()), m.graph().name(), file);
  r.weights.reserve(kept_bytes(m.graph()));
  r.lower_graph(m.graph(), b, true);
  auto weights = std::make_shared<std::vector<std::byte>>(std::move(r.weights));
  b.weights(weights, std::span<const std::byte>(*weights));
  return b.build();
}

fs::path detail::external_path(const fs::path& directory, const std::string& location, const std::string& file,
                               const std::string& tensor, model::option_spelling spelling) {
  const fs::path relative(location);
  const auto refuse = [&](std::string_view why) {
    fail(errc::bad_file, {.file = file},
         fmt::format("{}: initializer '{}': its external data '{}' {}", file, io::detail::escaped(tensor),
                     io::detail::escaped(location), why),
         fmt::format("reshape1 reads external data only from within the model's directory, or the one {} gives",
                     model::detail::usage_of(spelling, model::detail::option::base_dir)));
  };
  if (location.find('\0') != std::string::npos) refuse("holds a NUL byte, which no file name can");
  if (location.empty()) refuse("is an empty location");
  // A model read from memory (standard input, bytes) lies in no directory: a file its tensors name could
  // be anything the process can read, so it is refused unless the caller says where the model lies.
  if (directory.empty())
    fail(errc::bad_file, {.file = file},
         fmt::format("{}: initializer '{}': its data is in the external file '{}', but a model read from memory has no "
                     "directory to find it in",
                     file, io::detail::escaped(tensor), io::detail::escaped(location)),
         fmt::format("read the model from its file, or give the directory its data lies in with {}",
                     model::detail::usage_of(spelling, model::detail::option::base_dir)));
  if (relative.is_absolute() || relative.has_root_name() || relative.has_root_directory()) refuse("is an absolute path");
  for (const auto& part : relative)
    if (part == "..") refuse("goes up a directory");
  std::error_code ec;
  const auto base = fs::weakly_canonical(directory, ec);
  if (ec) refuse(fmt::format("cannot be looked for: the model's directory cannot be resolved ({})", ec.message()));
  const auto target = fs::weakly_canonical(directory / relative, ec);
  // A loop of symbolic links, a name too long for the system: said as such, not as a link that leads out.
  if (ec) refuse(fmt::format("cannot be resolved: {}", ec.message()));
  const auto [b, t] = std::mismatch(base.begin(), base.end(), target.begin(), target.end());
  if (b != base.end()) refuse("leads out of it through a symbolic link");
  return target;
}

fs::path detail::directory_of(const fs::path& file) { return file.parent_path().empty() ? fs::path(".") : file.parent_path(); }

model::graph read(const fs::path& file, model::option_spelling spelling) {
  const io::detail::mapped_file data(file);
  return read_model(data.bytes(), file.string(), detail::directory_of(file), &data, spelling);
}

model::graph read(std::span<const std::byte> bytes, const std::string& name, const fs::path& base_dir,
                  model::option_spelling spelling) {
  return read_model(bytes, name, base_dir.empty() ? fs::path(name).parent_path() : base_dir, nullptr, spelling);
}

std::vector<op_version> op_versions() {
  std::vector<op_version> out;
  for (const auto& listed : detail::op_list()) {
    op_version v{listed.domain, listed.op_type, listed.since,
                 listed.ort != detail::ort_runs::no && listed.ort != detail::ort_runs::deprecated, std::nullopt, {}};
    if (const auto* row = detail::find_translation(listed.domain, listed.op_type, listed.since)) {
      if (row->fn != nullptr) v.translated_from = row->since;
      else v.not_translated = row->why;
    }
    out.push_back(v);
  }
  return out;
}

namespace {
/// What a file of another well-known kind is, from its first bytes; nullopt for none of them.
std::optional<std::string> known_other(std::span<const std::byte> head) {
  const auto starts = [&](std::string_view magic) {
    return head.size() >= magic.size() && std::memcmp(head.data(), magic.data(), magic.size()) == 0;
  };
  if (head.empty()) return "an empty file";
  if (starts("version https://git-lfs")) return "a Git LFS pointer, not the model; fetch it with 'git lfs pull'";
  if (starts("PK\x03\x04")) return "a zip archive; unpack it first";
  if (starts("\x1f\x8b")) return "a gzip file; unpack it first";
  if (starts("\x89PNG") || starts("\xff\xd8\xff")) return "an image";
  if (starts("\x93NUMPY")) return "a .npy tensor";
  // ONNX's text format: its first field, after any blank or `#` comment lines.
  std::string_view text(reinterpret_cast<const char*>(head.data()), head.size());
  for (;;) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0) text.remove_prefix(1);
    if (text.empty() || text.front() != '#') break;
    const auto eol = text.find('\n');
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol);
  }
  for (const std::string_view field : {"ir_version", "opset_import", "producer_name", "graph {", "graph{"})
    if (text.starts_with(field))
      return "an ONNX model in protobuf's text format; write it as a binary model first (protobuf's TextFormat "
             "parser, or onnx.save in Python)";
  return std::nullopt;
}

/// What a file that is neither an IR nor an ONNX model looks like.
std::string looks_like(std::span<const std::byte> head) {
  if (auto known = known_other(head)) return *known;
  std::string shown;
  for (std::size_t i = 0; i < std::min<std::size_t>(head.size(), 8); ++i)
    shown += fmt::format("{}{:02x}", i == 0 ? "" : " ", static_cast<unsigned>(head[i]));
  return fmt::format("neither XML nor protobuf (it starts with the bytes {})", shown);
}

/// The format bytes hold (read_any's standard input, format_of's first bytes).
model::model_format format_of_bytes(std::span<const std::byte> bytes, const std::string& file) {
  std::array<std::byte, 1024> first{};  // copied guarded: the bytes may be a mapping of standard input's file
  const auto got = std::min(bytes.size(), first.size());
  io::detail::guarded_copy(first.data(), bytes.data(), got, file);
  const auto head = std::span<const std::byte>(first.data(), got);
  std::size_t skip = 0;  // XML may start with a byte order mark or white space
  if (got >= 3 && std::memcmp(head.data(), "\xef\xbb\xbf", 3) == 0) skip = 3;
  while (skip < got && std::isspace(static_cast<unsigned char>(head[skip])) != 0) ++skip;
  if (skip < got && head[skip] == std::byte{'<'}) return model::model_format::ir;
  if (looks_like_onnx(head) && !known_other(head)) return model::model_format::onnx;
  fail(errc::bad_file, {.offset = 0, .file = file}, fmt::format("{}: not a model: {}", file, looks_like(head)),
       "give an OpenVINO IR .xml or an .onnx file");
}
}  // namespace

model::model_format format_of(const fs::path& file) {
  if (file == "-") return model::model_format::ir;  // standard input cannot be looked at twice: read_any reads it
  std::array<std::byte, 1024> head{};  // enough for a comment line before a text-format model's first field
  std::size_t got = 0;
  {
    const io::detail::mapped_file data(file);
    got = std::min(head.size(), data.bytes().size());
    io::detail::guarded_copy(head.data(), data.bytes().data(), got, file.string());
  }
  return format_of_bytes(std::span<const std::byte>(head.data(), got), file.string());
}

model::graph read_any(const fs::path& file, const fs::path& bin, const fs::path& base_dir,
                      model::option_spelling spelling) {
  if (file != "-" && !base_dir.empty()) model::detail::refuse_base_dir_for_file(spelling);
  if (file == "-") {
    // Standard input is read once, whole: its bytes say which format it is.
    const io::detail::mapped_file data(file);
    const auto bytes = data.bytes();
    if (format_of_bytes(bytes, "standard input") == model::model_format::ir) {
      if (!base_dir.empty()) model::detail::refuse_for_format(spelling, model::detail::option::base_dir, "ir");
      const auto weights = model::weights_of(file, bin, spelling);  // --bin is needed: nothing lies beside standard input
      std::string xml(bytes.size(), '\0');
      io::detail::guarded_copy(xml.data(), bytes.data(), bytes.size(), "standard input");
      return model::detail::read_ir_in_memory(std::move(xml), "-", std::make_shared<const io::detail::mapped_file>(weights),
                                              weights.string());
    }
    if (!bin.empty()) model::detail::refuse_for_format(spelling, model::detail::option::bin, "onnx");
    return read_model(bytes, "standard input", base_dir, &data, spelling);
  }
  if (format_of(file) == model::model_format::ir) {
    return model::read_ir(file, model::weights_of(file, bin, spelling));
  }
  if (!bin.empty()) model::detail::refuse_for_format(spelling, model::detail::option::bin, "onnx");
  return read(file, spelling);
}

bool looks_like_onnx(std::span<const std::byte> head) noexcept {
  // A ModelProto begins with one of its fields: ir_version (field 1, varint: 0x08), opset_import (8,
  // 0x42), producer_name (2, 0x12), ... graph (7, 0x3a). XML begins with '<', a BOM or white space.
  if (head.empty()) return false;
  const auto b = static_cast<unsigned char>(head[0]);
  const unsigned field = b >> 3, wire = b & 7u;
  return field >= 1 && field <= 20 && (wire == 0 || wire == 2);
}

}  // namespace reshape1::onnx
