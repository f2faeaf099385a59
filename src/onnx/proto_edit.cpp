// Edits of an ONNX model's protobuf that fix makes (proto_edit.hpp).
#include "proto_edit.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace reshape1::onnx::detail {

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

std::size_t element_count(const ::onnx::TensorProto& t, std::span<const std::byte> external) {
  const std::size_t width = t.data_type() == ::onnx::TensorProto::INT64 ? 8 : 4;
  if (t.data_location() == ::onnx::TensorProto::EXTERNAL) return external.size() / width;
  if (t.has_raw_data()) return t.raw_data().size() / width;
  return static_cast<std::size_t>(width == 8 ? t.int64_data_size() : t.int32_data_size());
}

void for_each_defined(const ::onnx::GraphProto& g, const std::function<void(const std::string&)>& name) {
  for (const auto& t : g.initializer()) name(t.name());
  for (const auto& v : g.input()) name(v.name());
  for (const auto& n : g.node()) {
    for (const auto& o : n.output()) name(o);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) for_each_defined(a.g(), name);
      for (const auto& sub : a.graphs()) for_each_defined(sub, name);
    }
  }
}

void taken_names(const ::onnx::GraphProto& g, std::set<std::string>& taken) {
  for_each_defined(g, [&](const std::string& n) { taken.insert(n); });
}

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

std::optional<std::vector<std::pair<int, int>>> path_to(const ::onnx::ModelProto& m, const ::onnx::GraphProto* target) {
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

namespace {
/// Every name node `n` reads, added to `read`: its inputs, and in its subgraphs their nodes' and their outputs
/// (which may be names of the graphs around them).
void add_reads(const ::onnx::NodeProto& n, std::set<std::string>& read) {
  read.insert(n.input().begin(), n.input().end());
  const auto body = [&read](const ::onnx::GraphProto& sub) {
    for (const auto& b : sub.node()) add_reads(b, read);
    for (const auto& o : sub.output()) read.insert(o.name());
  };
  for (const auto& a : n.attribute()) {
    if (a.has_g()) body(a.g());
    for (const auto& b : a.graphs()) body(b);
  }
}
}  // namespace

std::set<std::string> read_names(const ::onnx::GraphProto& g) {
  std::set<std::string> read;
  for (const auto& o : g.output()) read.insert(o.name());
  // Nodes come producers first, so one pass from the last reaches every producer; another where one did not.
  for (std::size_t grown = 1; grown != 0;) {
    const auto size = read.size();
    for (int k = g.node_size() - 1; k >= 0; --k) {
      const auto& n = g.node(k);
      if (std::none_of(n.output().begin(), n.output().end(), [&](const std::string& o) { return !o.empty() && read.contains(o); }))
        continue;
      add_reads(n, read);
    }
    grown = read.size() - size;
  }
  read.erase(std::string());
  return read;
}

unread_dropped drop_unread(const ::onnx::GraphProto& file, ::onnx::GraphProto& edited,
                           const std::unordered_map<std::size_t, left_out_field>& left_out) {
  unread_dropped r;
  const auto before = read_names(file);
  const auto after = read_names(edited);
  // What the nodes kept read, bodies included: a node the file left unread may read a tensor the rewrites
  // left unread otherwise, whose node must then stay too.
  std::set<std::string> needed;
  const auto dropped = [&](const std::string& name) {
    return !name.empty() && before.contains(name) && !after.contains(name) && !needed.contains(name);
  };
  // Nodes last first: each node's readers are decided before it.
  for (int k = edited.node_size() - 1; k >= 0; --k) {
    const auto& outputs = edited.node(k).output();
    const auto kept = [&](const std::string& o) { return !o.empty() && (after.contains(o) || needed.contains(o)); };
    if (outputs.empty() || std::any_of(outputs.begin(), outputs.end(), kept) ||
        std::none_of(outputs.begin(), outputs.end(), dropped)) {
      add_reads(edited.node(k), needed);
      continue;
    }
    // (An output the file left unread goes with the node: a Split's other half.)
    for (const auto& o : outputs)
      if (!o.empty()) r.names.insert(o);
    edited.mutable_node()->DeleteSubrange(k, 1);
    r.nodes.push_back(k);
  }
  std::set<std::string> inputs;
  for (const auto& v : edited.input()) inputs.insert(v.name());
  int kept = 0;
  for (int k = 0; k < edited.initializer_size(); ++k) {
    const auto out = left_out.find(static_cast<std::size_t>(k));
    if (out == left_out.end() && !inputs.contains(edited.initializer(k).name()) && dropped(edited.initializer(k).name()))
      continue;
    if (out != left_out.end()) r.left_out.emplace(static_cast<std::size_t>(kept), out->second);
    if (kept != k) edited.mutable_initializer()->SwapElements(kept, k);
    ++kept;
  }
  edited.mutable_initializer()->DeleteSubrange(kept, edited.initializer_size() - kept);
  for (int k = edited.value_info_size() - 1; k >= 0; --k)
    if (dropped(edited.value_info(k).name())) edited.mutable_value_info()->DeleteSubrange(k, 1);
  for (const auto& name : before)
    if (dropped(name)) r.names.insert(name);
  return r;
}

namespace {
/// The int64 tensor a Constant's `value_ints` or `value_int` stands for, read by its type as the lowering
/// reads it: a list 1-D, one value a scalar.
::onnx::TensorProto tensor_of_ints(const ::onnx::AttributeProto& a) {
  ::onnx::TensorProto t;
  t.set_data_type(::onnx::TensorProto::INT64);
  if (a.type() == ::onnx::AttributeProto::INTS) {
    t.add_dims(a.ints_size());
    for (const auto v : a.ints()) t.add_int64_data(v);
  } else {
    t.add_int64_data(a.i());
  }
  return t;
}
/// The attribute of Constant node `n` that the lowering reads an int64 tensor from: its first (as ONNX
/// Runtime reads it), a `value` tensor or a `value_ints` or `value_int` of an integer type; nullptr for a
/// node it reads another way (reals) or refuses.
::onnx::AttributeProto* read_attribute(::onnx::NodeProto& n) {
  if (n.attribute_size() == 0) return nullptr;
  auto* a = n.mutable_attribute(0);
  if (a->name() == "value") return a->has_t() ? a : nullptr;
  const bool typed = a->type() == ::onnx::AttributeProto::INTS || a->type() == ::onnx::AttributeProto::INT;
  return (a->name() == "value_ints" || a->name() == "value_int") && typed ? a : nullptr;
}
}  // namespace

std::optional<holder> holder_of(::onnx::ModelProto& m, const std::string& name, const node_ref& reader, bool edit) {
  for (auto k = reader.path.size() + 1; k-- > 0;) {
    auto* g = graph_at(m, {reader.path.begin(), reader.path.begin() + static_cast<std::ptrdiff_t>(k)});
    if (g == nullptr) continue;
    std::optional<holder> last;
    for (auto& t : *g->mutable_initializer())
      if (t.name() == name) last = holder{&t, name, false, g, nullptr};
    for (auto& n : *g->mutable_node()) {
      if (n.op_type() != "Constant" || n.output_size() != 1 || n.output(0) != name) continue;
      auto* a = read_attribute(n);
      if (a == nullptr) continue;
      if (a->name() == "value") {
        last = holder{a->mutable_t(), name, true, g, nullptr};
      } else if (edit) {
        auto t = tensor_of_ints(*a);
        a->Clear();
        a->set_name("value");
        a->set_type(::onnx::AttributeProto::TENSOR);
        *a->mutable_t() = std::move(t);
        last = holder{a->mutable_t(), name, true, g, nullptr};
      } else {
        auto made = std::make_shared<::onnx::TensorProto>(tensor_of_ints(*a));
        last = holder{made.get(), name, true, g, made};
      }
    }
    if (last) return last;
    if (k > 0)
      for (const auto& v : g->input())
        if (v.name() == name) return std::nullopt;
  }
  return std::nullopt;
}

std::string through_identities(::onnx::ModelProto& m, std::string name, const node_ref& reader) {
  // Each step goes to an earlier node of a graph (a name is given once in a valid model): a file that names
  // in a circle stops after as many steps as it has nodes.
  std::size_t steps = 0;
  for (auto k = reader.path.size() + 1; k-- > 0;) {
    auto* g = graph_at(m, {reader.path.begin(), reader.path.begin() + static_cast<std::ptrdiff_t>(k)});
    if (g == nullptr) continue;
    for (bool found = true; found && steps <= static_cast<std::size_t>(g->node_size());) {
      found = false;
      for (const auto& n : g->node())
        if (n.op_type() == "Identity" && (n.domain().empty() || n.domain() == "ai.onnx") && n.input_size() == 1 &&
            n.output_size() == 1 && n.output(0) == name) {
          name = n.input(0);
          found = true;
          ++steps;
          break;
        }
    }
    if (k > 0)  // a body's input of that name hides the graphs around it
      for (const auto& v : g->input())
        if (v.name() == name) return name;
  }
  return name;
}

std::string unique_name(std::set<std::string>& taken, const std::string& base) {
  std::string name = base;
  for (int k = 2; taken.contains(name); ++k) name = fmt::format("{}_{}", base, k);
  taken.insert(name);
  return name;
}

}  // namespace reshape1::onnx::detail
