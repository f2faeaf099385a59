// What every translation reads a node through and adds layers with: node_context, over the graph being
// built (graph_lowering, read.cpp). The translations themselves are in the files of their families beside
// this one.
#include <algorithm>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "../../detail/fail.hpp"
#include "model/ops/rules.hpp"
#include "../lowering.hpp"
#include "../proto_edit.hpp"

namespace reshape1::onnx::detail {

namespace {
std::string node_name(const ::onnx::NodeProto& n) {
  if (!n.name().empty()) return n.name();
  return n.output_size() > 0 ? n.output(0) : std::string();
}
}  // namespace

void node_context::bad(const std::string& what, std::string hint) const {
  reshape1::detail::fail(errc::bad_file, {.file = g_.file()},
                         fmt::format("{}: node '{}' ({}, node {}): {}", g_.file(), node_name(node_), node_.op_type(),
                                     index_, what),
                         std::move(hint));
}

std::optional<source> node_context::input(std::size_t i) const {
  const auto* k = input_value(i);
  return k == nullptr ? std::nullopt : std::optional(k->at);
}

source node_context::need(std::size_t i) const {
  const auto s = input(i);
  if (!s) bad(fmt::format("{} {} needs input {}", node_.op_type(), version_, i));
  return *s;
}

const known_value* node_context::input_value(std::size_t i) const {
  if (i >= inputs() || node_.input(static_cast<int>(i)).empty()) return nullptr;
  const auto* k = g_.find(node_.input(static_cast<int>(i)));
  if (k == nullptr)
    bad(fmt::format("input {} '{}' is computed by no node before it, and is no graph input or initializer", i,
                    node_.input(static_cast<int>(i))));
  return k;
}

void node_context::output_value(std::size_t i, known_value v) {
  if (has_output(i)) g_.bind(node_.output(static_cast<int>(i)), std::move(v));
}

void node_context::output_held(std::size_t i, held_values held) {
  if (!has_output(i)) return;
  // The placeholder a name needs: a Const no translation reads (a node that would read the sequence as a tensor is
  // not covered), so that the node has a layer of its own.
  const auto at = i64({0}, std::vector<std::int64_t>{});
  g_.bind(node_.output(static_cast<int>(i)),
          {at, std::nullopt, nullptr, std::nullopt, std::make_shared<const held_values>(std::move(held))});
}

bool node_context::has_output(std::size_t i) const {
  return i < outputs() && !node_.output(static_cast<int>(i)).empty();
}

const ::onnx::AttributeProto* node_context::attribute(std::string_view name) const {
  for (const auto& a : node_.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

std::optional<std::int64_t> node_context::i(std::string_view name) const {
  const auto* a = attribute(name);
  if (a == nullptr) return std::nullopt;
  if (a->type() != ::onnx::AttributeProto::INT && !a->has_i()) bad(fmt::format("attribute '{}' is not an integer", name));
  return a->i();
}

std::int64_t node_context::i(std::string_view name, std::int64_t fallback) const { return i(name).value_or(fallback); }

float node_context::f(std::string_view name, float fallback) const {
  const auto* a = attribute(name);
  if (a == nullptr) return fallback;
  if (a->type() != ::onnx::AttributeProto::FLOAT && !a->has_f()) bad(fmt::format("attribute '{}' is not a float", name));
  return a->f();
}

std::string node_context::s(std::string_view name, std::string_view fallback) const {
  const auto* a = attribute(name);
  if (a == nullptr) return std::string(fallback);
  if (a->type() != ::onnx::AttributeProto::STRING && !a->has_s()) bad(fmt::format("attribute '{}' is not a string", name));
  return a->s();
}

std::optional<std::vector<std::int64_t>> node_context::ints(std::string_view name) const {
  const auto* a = attribute(name);
  if (a == nullptr) return std::nullopt;
  return std::vector<std::int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<std::vector<float>> node_context::floats(std::string_view name) const {
  const auto* a = attribute(name);
  if (a == nullptr) return std::nullopt;
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

std::optional<std::vector<std::int64_t>> node_context::constant_ints(std::size_t i) const {
  if (i >= inputs() || node_.input(static_cast<int>(i)).empty()) return std::nullopt;
  const auto* k = g_.find(node_.input(static_cast<int>(i)));
  if (k == nullptr || k->constant == nullptr) return std::nullopt;
  const auto& t = *k->constant;
  const auto data = g_.tensor_bytes(t, [&] { return fmt::format("input {} of node '{}'", i, node_name(node_)); });
  const auto bytes = data.bytes;
  std::vector<std::int64_t> out;
  const auto read = [&]<class T>(T) {
    for (std::size_t p = 0; p + sizeof(T) <= bytes.size(); p += sizeof(T)) {
      T v;
      std::memcpy(&v, bytes.data() + p, sizeof(T));
      out.push_back(static_cast<std::int64_t>(v));
    }
  };
  switch (t.data_type()) {
    case ::onnx::TensorProto::INT64: read(std::int64_t{}); break;
    case ::onnx::TensorProto::INT32: read(std::int32_t{}); break;
    case ::onnx::TensorProto::INT16: read(std::int16_t{}); break;
    case ::onnx::TensorProto::INT8: read(std::int8_t{}); break;
    case ::onnx::TensorProto::UINT8:
    case ::onnx::TensorProto::BOOL: read(std::uint8_t{}); break;
    default: return std::nullopt;
  }
  return out;
}

std::optional<std::vector<double>> node_context::constant_reals(std::size_t i) const {
  if (i >= inputs() || node_.input(static_cast<int>(i)).empty()) return std::nullopt;
  const auto* k = g_.find(node_.input(static_cast<int>(i)));
  if (k == nullptr || k->constant == nullptr) return std::nullopt;
  const auto& t = *k->constant;
  if (t.data_type() != ::onnx::TensorProto::FLOAT && t.data_type() != ::onnx::TensorProto::DOUBLE) {
    const auto v = constant_ints(i);
    return v ? std::optional(std::vector<double>(v->begin(), v->end())) : std::nullopt;
  }
  const auto data = g_.tensor_bytes(t, [&] { return fmt::format("input {} of node '{}'", i, node_name(node_)); });
  const auto bytes = data.bytes;
  std::vector<double> out;
  const auto read = [&]<class T>(T) {
    for (std::size_t p = 0; p + sizeof(T) <= bytes.size(); p += sizeof(T)) {
      T v;
      std::memcpy(&v, bytes.data() + p, sizeof(T));
      out.push_back(static_cast<double>(v));
    }
  };
  if (t.data_type() == ::onnx::TensorProto::FLOAT) read(float{});
  else read(double{});
  return out;
}

std::optional<std::vector<std::int64_t>> node_context::constant_dims(std::size_t i) const {
  if (i >= inputs() || node_.input(static_cast<int>(i)).empty()) return std::nullopt;
  const auto* k = g_.find(node_.input(static_cast<int>(i)));
  if (k == nullptr || k->constant == nullptr) return std::nullopt;
  return std::vector<std::int64_t>(k->constant->dims().begin(), k->constant->dims().end());
}

std::optional<source> node_context::constant_as(std::size_t i, const std::vector<std::int64_t>& dims) {
  if (i >= inputs() || node_.input(static_cast<int>(i)).empty()) return std::nullopt;
  const auto* k = g_.find(node_.input(static_cast<int>(i)));
  if (k == nullptr || k->constant == nullptr) return std::nullopt;
  std::int64_t count = 1, want = 1;
  for (const auto d : k->constant->dims())
    if (d < 0 || __builtin_mul_overflow(count, d, &count)) return std::nullopt;
  for (const auto d : dims)
    if (d < 0 || __builtin_mul_overflow(want, d, &want)) return std::nullopt;
  if (count != want) return std::nullopt;
  const auto type = element_of(k->constant->data_type());
  if (!type) return std::nullopt;
  if (const auto view = g_.constant_view(k->at, dims, node_name(node_))) return view;
  const bool small = g_.kept_for_rules(*k->constant, static_cast<std::uint64_t>(count));  // what a rule may read
  const auto data =
      g_.tensor_bytes(*k->constant, [&] { return fmt::format("input {} of node '{}'", i, node_name(node_)); }, small);
  return g_.constant_bytes(*type, dims, data.bytes, node_name(node_));
}

std::optional<std::size_t> node_context::rank(std::size_t i) const {
  if (i >= inputs() || node_.input(static_cast<int>(i)).empty()) return std::nullopt;
  const auto* k = g_.find(node_.input(static_cast<int>(i)));
  return k == nullptr ? std::nullopt : k->rank;
}

source node_context::add(std::string_view type, int opset, std::vector<source> in, attributes a, std::size_t outputs) {
  return g_.add(type, opset, std::move(in), std::move(a), outputs, node_name(node_));
}

source node_context::i64(std::vector<std::int64_t> values, std::optional<std::vector<std::int64_t>> dims) {
  const std::vector<std::int64_t> d = dims ? *dims : std::vector<std::int64_t>{static_cast<std::int64_t>(values.size())};
  return g_.constant_bytes(element_type::i64, d, std::as_bytes(std::span(values)), node_name(node_));
}

std::optional<std::int64_t> node_context::known_length(std::size_t i, std::int64_t axis) const {
  const auto dims = constant_dims(i);
  if (!dims) return std::nullopt;
  const auto rank = static_cast<std::int64_t>(dims->size());
  if (axis < -rank || axis >= rank) return std::nullopt;
  return (*dims)[static_cast<std::size_t>(axis < 0 ? axis + rank : axis)];
}

std::optional<std::vector<dimension>> node_context::declared_input_dims(std::size_t i) const {
  const auto* v = input_value(i);
  if (v == nullptr || v->held != nullptr) return std::nullopt;
  const auto& layer = g_.builder().at(v->at.layer);
  if (model::detail::part_of(layer.type) != model::detail::op_part::parameter || v->at.output >= layer.outputs.size() ||
      !layer.outputs[v->at.output].declared)
    return std::nullopt;
  return layer.outputs[v->at.output].dims;
}

std::optional<element_type> node_context::map_value_type(std::size_t i) const {
  const auto* v = input_value(i);
  if (v == nullptr || v->held != nullptr) return std::nullopt;
  for (const auto& [key, value] : g_.builder().at(v->at.layer).attributes)
    if (key == "onnx_map_values") return find_element_type(value);
  return std::nullopt;
}

source node_context::opaque(const known_value& v, const std::string& why) { return g_.opaque_of(v, why, node_name(node_)); }

source node_context::f32(std::vector<float> values, bool scalar) {
  const std::vector<std::int64_t> d = scalar ? std::vector<std::int64_t>{} : std::vector<std::int64_t>{static_cast<std::int64_t>(values.size())};
  return g_.constant_bytes(element_type::f32, d, std::as_bytes(std::span(values)), node_name(node_));
}

source node_context::constant_tensor(const ::onnx::TensorProto& t) { return g_.constant(t, node_name(node_)); }

source node_context::sparse_constant(const ::onnx::SparseTensorProto& t) { return g_.sparse_constant(t, node_name(node_)); }

void node_context::output_constant(std::size_t i, const ::onnx::TensorProto& t) {
  if (!has_output(i)) return;
  g_.bind(node_.output(static_cast<int>(i)),
          {g_.constant(t, node_.output(static_cast<int>(i))), static_cast<std::size_t>(t.dims_size()), &t, std::nullopt});
}

void node_context::output_constant(std::size_t i, ::onnx::TensorProto&& t) {
  if (has_output(i)) output_constant(i, g_.keep(std::move(t)));
}

std::optional<element_type> node_context::constant_type(std::size_t i) const {
  if (i >= inputs() || node_.input(static_cast<int>(i)).empty()) return std::nullopt;
  const auto* k = g_.find(node_.input(static_cast<int>(i)));
  return k == nullptr || k->constant == nullptr ? std::nullopt : element_of(k->constant->data_type());
}

std::optional<element_type> node_context::declared_type(std::size_t i) const {
  if (i >= inputs() || node_.input(static_cast<int>(i)).empty()) return std::nullopt;
  const auto* k = g_.find(node_.input(static_cast<int>(i)));
  return k == nullptr ? std::nullopt : k->type;
}

void node_context::output(std::size_t i, source s) {
  if (!has_output(i)) return;
  g_.bind(node_.output(static_cast<int>(i)), {s, std::nullopt, nullptr, std::nullopt});
}

namespace {
/// The names a subgraph reads from the scopes around it: its nodes' inputs that neither its own inputs,
/// initializers nor nodes define (nested subgraphs included).
void outer_names(const ::onnx::GraphProto& g, std::set<std::string>& out) {
  std::set<std::string> defined;
  for (const auto& v : g.input()) defined.insert(v.name());
  for (const auto& t : g.initializer()) defined.insert(t.name());
  for (const auto& n : g.node()) {
    for (const auto& i : n.input())
      if (!i.empty() && !defined.contains(i)) out.insert(i);
    for (const auto& a : n.attribute()) {
      std::set<std::string> inner;
      if (a.has_g()) outer_names(a.g(), inner);
      for (const auto& sub : a.graphs()) outer_names(sub, inner);
      for (const auto& i : inner)
        if (!defined.contains(i)) out.insert(i);
    }
    for (const auto& o : n.output()) defined.insert(o);
  }
}

/// The tensors `v` stands for: itself, or every tensor a sequence or an optional holds (nested ones too); for one
/// the lowering does not follow, what stands for it (a graph input's Parameter).
void tensors_of(const known_value& v, std::vector<source>& out) {
  if (v.held == nullptr || !v.held->followed) return out.push_back(v.at);
  for (const auto& item : v.held->items) tensors_of(item, out);
}
}  // namespace

void node_context::not_covered(const std::string& why) {
  std::vector<source> in;
  for (std::size_t k = 0; k < inputs(); ++k)
    if (const auto* v = input_value(k)) tensors_of(*v, in);
  // A subgraph (If's branches, Loop's and Scan's bodies) may read any tensor of the graphs around it:
  // those it reads are inputs of the layer too, so that what depends on the batch is seen to.
  std::set<std::string> captured;
  for (const auto& a : node_.attribute()) {
    if (a.has_g()) outer_names(a.g(), captured);
    for (const auto& sub : a.graphs()) outer_names(sub, captured);
  }
  for (const auto& name : captured)
    if (const auto* k = g_.find(name)) tensors_of(*k, in);
  const auto type = node_.domain().empty() || node_.domain() == "ai.onnx"
                        ? fmt::format("onnx.{}", node_.op_type())
                        : fmt::format("{}.{}", node_.domain(), node_.op_type());
  const auto first = add(type, version_, std::move(in), {{"not_covered", why}}, std::max<std::size_t>(outputs(), 1));
  for (std::size_t k = 0; k < outputs(); ++k) output(k, source{first.layer, k});
}

namespace {
/// Every name `g` and the graphs its nodes hold define, as views of the graph's strings.
void defined_names(const ::onnx::GraphProto& g, std::vector<std::string_view>& out) {
  for_each_defined(g, [&](const std::string& n) { out.emplace_back(n); });
}

/// While a subgraph is inlined into the graph being lowered: the declarations (value_info, graph outputs) of the
/// graph around it hidden from the names it defines, which are its own tensors, and its own declarations in force,
/// as ONNX Runtime scopes them (an outer value_info of `t7` says nothing of a branch's own `t7`).
class declarations_scope {
 public:
  declarations_scope(graph_lowering& g, const ::onnx::GraphProto& sub) : g_(g) {
    defined_names(sub, names_);
    // Its own tensors, which the graph's declarations say nothing of (not a name it only declares: a tensor of the
    // graph around it that a value_info of its own names).
    for (const auto name : names_) g_.inlined.insert(name);
    for (const auto* list : {&sub.value_info(), &sub.output()})
      for (const auto& v : *list) names_.emplace_back(v.name());
    for (const auto name : names_) {
      const auto rank = g_.declared_ranks.find(name);
      const auto type = g_.declared_types.find(name);
      saved_.push_back({rank == g_.declared_ranks.end() ? std::nullopt : std::optional(rank->second),
                        type == g_.declared_types.end() ? std::nullopt : std::optional(type->second)});
    }
    for (const auto name : names_) {
      g_.declared_ranks.erase(name);
      g_.declared_types.erase(name);
    }
    for (const auto* list : {&sub.value_info(), &sub.output()})
      for (const auto& v : *list) {
        if (const auto dims = declared_dims(v.type())) g_.declared_ranks[v.name()] = dims->size();
        if (v.type().has_tensor_type())
          if (const auto t = element_of(v.type().tensor_type().elem_type())) g_.declared_types[v.name()] = *t;
      }
  }
  ~declarations_scope() {
    for (const auto name : names_) {
      g_.declared_ranks.erase(name);
      g_.declared_types.erase(name);
    }
    for (std::size_t k = 0; k < names_.size(); ++k) {
      if (saved_[k].first) g_.declared_ranks[names_[k]] = *saved_[k].first;
      if (saved_[k].second) g_.declared_types[names_[k]] = *saved_[k].second;
    }
  }
  declarations_scope(const declarations_scope&) = delete;
  declarations_scope& operator=(const declarations_scope&) = delete;

 private:
  graph_lowering& g_;
  std::vector<std::string_view> names_;
  std::vector<std::pair<std::optional<std::size_t>, std::optional<element_type>>> saved_;
};
}  // namespace

std::vector<known_value> node_context::inline_subgraph(const ::onnx::GraphProto& sub) {
  const declarations_scope scope(g_, sub);
  g_.lower_nodes(sub, false);
  std::vector<known_value> out;
  for (const auto& v : sub.output()) {
    const auto* k = g_.find(v.name());
    if (k == nullptr) bad(fmt::format("its subgraph '{}' has an output '{}' that nothing computes", sub.name(), v.name()));
    out.push_back(*k);
  }
  return out;
}

std::vector<known_value> node_context::run_body(const ::onnx::GraphProto& sub, std::span<const known_value> inputs) {
  std::vector<std::string_view> names;
  defined_names(sub, names);
  std::vector<std::optional<known_value>> before;
  before.reserve(names.size());
  for (const auto name : names) before.push_back(g_.own_binding(name));
  for (std::size_t k = 0; k < inputs.size() && k < static_cast<std::size_t>(sub.input_size()); ++k)
    g_.bind(sub.input(static_cast<int>(k)).name(), inputs[k]);
  auto out = inline_subgraph(sub);
  // (Backwards: a name defined twice gets the binding it had before the first.)
  for (std::size_t k = names.size(); k-- > 0;) g_.rebind(names[k], std::move(before[k]));
  return out;
}

bool node_context::defined_around(const std::string& name) const { return g_.find(name) != nullptr; }

bool node_context::take_mapped_nodes(std::size_t nodes) {
  auto& taken = *g_.mapped_nodes;
  if (nodes > most_mapped_nodes - taken) return false;
  taken += nodes;
  return true;
}

source graph_lowering::opaque_of(const known& v, const std::string& why, const std::string& name) {
  if (v.held == nullptr) return v.at;
  if (v.held->maps) return v.held->items.front().at;  // the rows its maps were made of
  std::vector<source> in;
  tensors_of(v, in);
  return add(v.held->optional ? "onnx.Optional" : "onnx.Sequence", 1, std::move(in), {{"not_covered", why}}, 1, name);
}

void node_context::check_not_run(const ::onnx::GraphProto& sub) { g_.check_not_run(sub); }

node_context::lowered_body node_context::lower_body(const ::onnx::GraphProto& sub, const axes& squeezed,
                                                    const axes& unsqueezed) {
  return g_.lower_body(sub, squeezed, unsqueezed, node_name(node_));
}

node_context::lowered_body node_context::per_entry_body(std::size_t inputs, std::size_t sliced,
                                                        std::shared_ptr<const model::subgraph> inner,
                                                        std::size_t outputs, std::vector<body_names> names) {
  return g_.per_entry_body(inputs, sliced, std::move(inner), outputs, std::move(names), node_name(node_),
                           node_.op_type());
}

source node_context::add_with_body(std::string_view type, int opset, std::vector<source> in,
                                   std::shared_ptr<const model::subgraph> body, std::size_t outputs,
                                   std::vector<body_names> names) {
  const auto first = add(type, opset, std::move(in), {}, outputs);
  g_.builder().at(first.layer).body = std::move(body);
  if (g_.bodies != nullptr)
    for (auto& n : names) {
      if (n.op.empty()) n.op = node_.op_type();  // this node's own body (its nested ones have theirs)
      n.layers.insert(n.layers.begin(), first.layer);
      g_.bodies->push_back(std::move(n));
    }
  return first;
}

source node_context::boolean(bool value) {
  const auto byte = static_cast<std::byte>(value ? 1 : 0);
  return g_.constant_bytes(element_type::boolean, {}, std::span(&byte, 1), node_name(node_));
}

source node_context::shape_of(source x) { return add("ShapeOf", 3, {x}, {{"output_type", "i64"}}); }

source node_context::rank_of(source x) {
  const auto shape_of_shape = shape_of(shape_of(x));
  return add("Squeeze", 1, {shape_of_shape, i64({0})});
}

source node_context::axes_from(source x, std::int64_t from) {
  return add("Range", 4, {i64({from}, std::vector<std::int64_t>{}), rank_of(x), i64({1}, std::vector<std::int64_t>{})},
             {{"output_type", "i64"}});
}

}  // namespace reshape1::onnx::detail
