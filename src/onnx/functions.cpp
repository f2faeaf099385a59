// An ONNX model's local functions (ModelProto.functions, IR version 8 on) inlined into the graphs that call
// them, as ONNX Runtime inlines them before it runs a model: each call becomes the function's nodes, their
// inner tensors renamed under the call's name, their attribute references bound to the call's attributes.
// ONNX's own FunctionExpandHelper (Debian's ONNX 1.12) is meant for the functions of registered schemas: it
// looks the called op up in the schema registry and dereferences what it finds, which a local function does
// not have, and it renames neither the tensors that subgraphs of the body read nor their attribute references.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "../detail/fail.hpp"
#include "../io/files.hpp"
#include "lowering.hpp"
#include "op_list.hpp"

namespace reshape1::onnx::detail {
namespace {

using reshape1::detail::fail;

// Fields of onnx.proto newer than Debian's ONNX 1.12, whose generated classes keep them as unknown fields.
constexpr int node_overload = 8;              // NodeProto.overload (IR version 10)
constexpr int function_attribute_proto = 11;  // FunctionProto.attribute_proto: attribute defaults (IR version 9)
constexpr int function_overload = 13;         // FunctionProto.overload (IR version 10)

// Calls that call calls multiply: a few functions, each calling the next twice, make a small file of
// billions of nodes. No model reshape1 reads comes near this many.
constexpr std::size_t max_inlined_nodes = 1'000'000;

/// The payloads of the length-delimited fields `number` among those `m`'s generated class does not know, in
/// the file's order. (The native build's classes keep them as a field set, the WebAssembly build's lite ones
/// as their bytes: read as bytes either way.)
template <class Message>
std::vector<std::string> unknown_fields(const Message& m, int number) {
  std::string bytes;
  const auto& unknown = m.unknown_fields();
  if constexpr (std::is_same_v<std::decay_t<decltype(unknown)>, std::string>) bytes = unknown;
  else unknown.SerializeToString(&bytes);
  using wire = google::protobuf::internal::WireFormatLite;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
  std::vector<std::string> r;
  for (auto tag = in.ReadTag(); tag != 0; tag = in.ReadTag()) {
    if (wire::GetTagFieldNumber(tag) == number && wire::GetTagWireType(tag) == wire::WIRETYPE_LENGTH_DELIMITED) {
      if (!wire::ReadBytes(&in, &r.emplace_back())) break;
    } else if (!wire::SkipField(&in, tag)) {
      break;
    }
  }
  return r;
}

/// A string field `m`'s class does not know: its last occurrence, as protobuf keeps a singular field's.
template <class Message>
std::string unknown_string(const Message& m, int number) {
  auto all = unknown_fields(m, number);
  return all.empty() ? std::string() : std::move(all.back());
}

// The domains whose ops ONNX Runtime takes from its own registry: a local function there is never called
// (checked in ONNX Runtime 1.30: a function named Relu in the default domain leaves Relu a Relu, one named Gelu
// at opset 17 is "No Op registered").
bool standard_domain(std::string_view d) {
  return d.empty() || d == "ai.onnx" || d == "ai.onnx.ml" || d == "ai.onnx.preview.training";
}

using function_id = std::tuple<std::string, std::string, std::string>;  // domain, name, overload

std::string id_text(const function_id& id) {
  const auto& [domain, name, overload] = id;
  return overload.empty() ? fmt::format("{}.{}", domain, name) : fmt::format("{}.{} (overload '{}')", domain, name, overload);
}

struct function_def {
  const ::onnx::FunctionProto* proto = nullptr;
  function_id id;
  std::unordered_map<std::string, ::onnx::AttributeProto> defaults;  ///< attribute_proto, by name
};

class inliner {
 public:
  inliner(::onnx::ModelProto& m, const std::string& file) : file_(file) {
    for (const auto& o : m.opset_import())
      if (!standard_domain(o.domain())) imported_[o.domain()] = static_cast<int>(o.version());
    for (const auto& f : m.functions()) define(f);
    if (functions_.empty()) return;
    taken_names(m.graph());
  }

  [[nodiscard]] bool any() const noexcept { return !functions_.empty(); }

  /// Replaces each call in `g` (and in the subgraphs of its nodes) by the function's nodes, in place:
  /// the other nodes keep their objects (a reader holds pointers to their tensors).
  void graph(::onnx::GraphProto& g, std::vector<const function_def*>& stack) {
    const int count = g.node_size();
    std::vector<::onnx::NodeProto*> order;
    std::vector<::onnx::NodeProto*> calls;
    order.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
      auto* n = g.mutable_node(i);
      const auto* f = callee(*n);
      if (f == nullptr) {
        subgraphs(*n, stack);
        order.push_back(n);
        continue;
      }
      // The size is counted before anything is copied: a file of a few calls can stand for billions of nodes.
      if (inlined_ + size_of(*f, stack) > max_inlined_nodes) too_many();
      std::vector<::onnx::NodeProto> body;
      expand(*n, *f, body, stack);
      for (auto& b : body) {
        auto* added = g.add_node();
        *added = std::move(b);
        order.push_back(added);
      }
      calls.push_back(n);
    }
    if (calls.empty()) return;
    // Puts the nodes in `order`, the calls after them, by swapping the field's pointers (no node moves),
    // then drops the calls.
    std::unordered_map<const ::onnx::NodeProto*, int> at;
    for (int i = 0; i < g.node_size(); ++i) at[&g.node(i)] = i;
    order.insert(order.end(), calls.begin(), calls.end());
    auto& nodes = *g.mutable_node();
    for (int k = 0; k < static_cast<int>(order.size()); ++k) {
      const int from = at.at(order[static_cast<std::size_t>(k)]);
      if (from == k) continue;
      at[&nodes.Get(k)] = from;
      nodes.SwapElements(k, from);
      at[order[static_cast<std::size_t>(k)]] = k;
    }
    nodes.DeleteSubrange(g.node_size() - static_cast<int>(calls.size()), static_cast<int>(calls.size()));
  }

 private:
  const std::string& file_;
  std::map<function_id, function_def> functions_;
  std::unordered_map<std::string, int> imported_;  // the versions of the other domains the model imports
  std::set<std::string, std::less<>> names_;       // every tensor name of the model, and those made here
  std::set<std::string, std::less<>> node_names_;
  std::size_t inlined_ = 0;
  std::map<const function_def*, std::size_t> sizes_;

  [[noreturn]] void bad(const std::string& what, std::string hint = {}) const {
    fail(errc::bad_file, {.file = file_}, fmt::format("{}: {}", file_, what), std::move(hint));
  }

  void define(const ::onnx::FunctionProto& f) {
    function_def d{&f, {f.domain(), f.name(), unknown_string(f, function_overload)}, {}};
    for (const auto& bytes : unknown_fields(f, function_attribute_proto)) {
      ::onnx::AttributeProto a;
      if (!a.ParseFromString(bytes))
        bad(fmt::format("function {}: an attribute default (attribute_proto) is not an AttributeProto", id_text(d.id)));
      d.defaults[a.name()] = std::move(a);
    }
    const auto repeated = [&](const auto& list, std::string_view what) {
      std::set<std::string_view> seen;
      for (const auto& name : list)
        if (!name.empty() && !seen.insert(name).second)
          bad(fmt::format("function {} lists '{}' twice among its {}", id_text(d.id), io::detail::escaped(name), what),
              "ONNX names each of a function's inputs and outputs once; ONNX Runtime refuses the model too");
    };
    repeated(f.input(), "inputs");
    repeated(f.output(), "outputs");
    const auto id = d.id;
    if (!functions_.emplace(id, std::move(d)).second)
      bad(fmt::format("function {} is defined twice", id_text(id)),
          "a model defines each (domain, name, overload) once; ONNX Runtime refuses the model too");
  }

  /// The local function node `n` calls, or nullptr: ONNX Runtime runs an op its registry has in place of a
  /// function of the same name.
  [[nodiscard]] const function_def* callee(const ::onnx::NodeProto& n) const {
    if (functions_.empty() || standard_domain(n.domain())) return nullptr;
    if (n.domain() == "com.microsoft") {
      const auto v = imported_.find(n.domain());
      if (schema_at(n.domain(), n.op_type(), v != imported_.end() ? v->second : 1) != nullptr) return nullptr;
    }
    const auto it = functions_.find({n.domain(), n.op_type(), unknown_string(n, node_overload)});
    return it == functions_.end() ? nullptr : &it->second;
  }

  void taken_names(const ::onnx::GraphProto& g) {
    const auto graph_names = [&](const auto& self, const ::onnx::GraphProto& at) -> void {
      for (const auto& v : at.input()) names_.insert(v.name());
      for (const auto& v : at.output()) names_.insert(v.name());
      for (const auto& v : at.value_info()) names_.insert(v.name());
      for (const auto& t : at.initializer()) names_.insert(t.name());
      for (const auto& n : at.node()) {
        node_names_.insert(n.name());
        for (const auto& s : n.input()) names_.insert(s);
        for (const auto& s : n.output()) names_.insert(s);
        for (const auto& a : n.attribute()) {
          if (a.has_g()) self(self, a.g());
          for (const auto& sg : a.graphs()) self(self, sg);
        }
      }
    };
    graph_names(graph_names, g);
  }

  /// `base`, or `base_1`, `base_2`...: the first of them no name of the model has.
  static std::string fresh(std::set<std::string, std::less<>>& taken, const std::string& base) {
    auto name = base;
    for (std::size_t k = 1; taken.contains(name); ++k) name = fmt::format("{}_{}", base, k);
    taken.insert(name);
    return name;
  }

  void subgraphs(::onnx::NodeProto& n, std::vector<const function_def*>& stack) {
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) graph(*a.mutable_g(), stack);
      for (auto& g : *a.mutable_graphs()) graph(g, stack);
    }
  }

  /// One call's nodes: a copy of the function's, each tensor named in the body renamed (the function's
  /// inputs and outputs to the call's), each attribute reference bound.
  struct binding {
    const ::onnx::NodeProto& call;
    const function_def& f;
    std::string prefix;
    std::unordered_map<std::string, std::string> names;

    std::string& rename(inliner& in, const std::string& name) {
      const auto [it, fresh_name] = names.try_emplace(name);
      if (fresh_name) it->second = name.empty() ? std::string() : fresh(in.names_, fmt::format("{}/{}", prefix, name));
      return it->second;
    }
  };

  /// Renames the tensors of node `n` (of the body, or of a subgraph of it) and binds its attribute references:
  /// to the call's attribute of that name, else to the function's default, else none (the op's own default).
  void bind(::onnx::NodeProto& n, binding& b) {
    for (auto& s : *n.mutable_input()) s = b.rename(*this, s);
    for (auto& s : *n.mutable_output()) s = b.rename(*this, s);
    google::protobuf::RepeatedPtrField<::onnx::AttributeProto> bound;
    for (auto& a : *n.mutable_attribute()) {
      if (!a.ref_attr_name().empty()) {
        const ::onnx::AttributeProto* given = nullptr;
        for (const auto& c : b.call.attribute())
          if (c.name() == a.ref_attr_name()) given = &c;
        if (given == nullptr)
          if (const auto d = b.f.defaults.find(a.ref_attr_name()); d != b.f.defaults.end()) given = &d->second;
        if (given == nullptr) continue;
        auto* copy = bound.Add();
        *copy = *given;
        copy->set_name(a.name());
        continue;
      }
      if (a.has_g()) bind_graph(*a.mutable_g(), b);
      for (auto& g : *a.mutable_graphs()) bind_graph(g, b);
      *bound.Add() = std::move(a);
    }
    n.mutable_attribute()->Swap(&bound);
  }

  void bind_graph(::onnx::GraphProto& g, binding& b) {
    for (auto* list : {g.mutable_input(), g.mutable_output(), g.mutable_value_info()})
      for (auto& v : *list) v.set_name(b.rename(*this, v.name()));
    for (auto& t : *g.mutable_initializer()) t.set_name(b.rename(*this, t.name()));
    for (auto& n : *g.mutable_node()) {
      bind(n, b);
      n.set_name(fresh(node_names_, fmt::format("{}/{}", b.prefix, n.name().empty() ? n.op_type() : n.name())));
    }
  }

  void expand(const ::onnx::NodeProto& call, const function_def& f, std::vector<::onnx::NodeProto>& out,
              std::vector<const function_def*>& stack) {
    const auto& fp = *f.proto;
    const auto call_name = io::detail::escaped(call.name().empty() ? call.op_type() : call.name());
    if (std::find(stack.begin(), stack.end(), &f) != stack.end()) recursive(call_name, f, stack);
    if (call.input_size() > fp.input_size() || call.output_size() > fp.output_size())
      bad(fmt::format("node '{}' calls function {} with {} inputs and {} outputs; it has {} and {}", call_name,
                      id_text(f.id), call.input_size(), call.output_size(), fp.input_size(), fp.output_size()),
          "ONNX Runtime refuses the model too");
    binding b{call, f, call.name().empty() ? fp.name() : call.name(), {}};
    // The function's inputs the call leaves out are optional inputs left out ("").
    for (int i = 0; i < fp.input_size(); ++i) b.names[fp.input(i)] = i < call.input_size() ? call.input(i) : std::string();
    std::set<std::string, std::less<>> produced;
    for (const auto& n : fp.node())
      for (const auto& s : n.output()) produced.insert(s);
    std::vector<std::pair<std::string, std::string>> passed;  // a function output that is one of its inputs
    for (int k = 0; k < fp.output_size() && k < call.output_size(); ++k) {
      const auto& formal = fp.output(k);
      if (call.output(k).empty()) continue;  // an output the call leaves out is an inner tensor
      if (!produced.contains(formal)) {
        const auto in = std::find(fp.input().begin(), fp.input().end(), formal);
        if (in == fp.input().end())
          bad(fmt::format("function {}: output {} '{}' is computed by none of its nodes", id_text(f.id), k,
                          io::detail::escaped(formal)),
              "ONNX Runtime refuses the model too");
        passed.emplace_back(b.names.at(formal), call.output(k));
        continue;
      }
      if (std::find(fp.input().begin(), fp.input().end(), formal) != fp.input().end())
        bad(fmt::format("function {}: '{}' is both an input and an output of its node '{}'", id_text(f.id),
                        io::detail::escaped(formal), call_name),
            "a tensor is defined once; ONNX Runtime refuses the model too");
      b.names[formal] = call.output(k);
    }
    stack.push_back(&f);
    for (const auto& inner : fp.node()) {
      ::onnx::NodeProto n = inner;
      bind(n, b);
      n.set_name(fresh(node_names_, fmt::format("{}/{}", b.prefix, inner.name().empty() ? inner.op_type() : inner.name())));
      if (const auto* g = callee(n)) {
        expand(n, *g, out, stack);
        continue;
      }
      subgraphs(n, stack);
      add(out, std::move(n));
    }
    stack.pop_back();
    for (const auto& [from, to] : passed) {
      ::onnx::NodeProto n;
      n.set_op_type("Identity");
      n.set_name(fresh(node_names_, fmt::format("{}/Identity", b.prefix)));
      n.add_input(from);
      n.add_output(to);
      add(out, std::move(n));
    }
  }

  [[noreturn]] void too_many() const {
    fail(errc::unsupported, {.file = file_},
         fmt::format("{}: the model's local functions inline to more than {} nodes", file_, max_inlined_nodes),
         "reshape1 reads a model whose calls of its functions come to fewer nodes");
  }

  void add(std::vector<::onnx::NodeProto>& out, ::onnx::NodeProto&& n) {
    if (++inlined_ > max_inlined_nodes) too_many();
    out.push_back(std::move(n));
  }

  [[noreturn]] void recursive(const std::string& call, const function_def& f, const std::vector<const function_def*>& stack) const {
    std::string path;
    for (const auto* s : stack) path += id_text(s->id) + " -> ";
    bad(fmt::format("node '{}' calls function {}, which is already being called ({}{})", call, id_text(f.id), path,
                    id_text(f.id)),
        "ONNX forbids recursive functions; ONNX Runtime refuses the model too");
  }

  /// How many nodes a call of `f` inlines to (its subgraphs' nodes counted), at most max_inlined_nodes + 1.
  std::size_t size_of(const function_def& f, std::vector<const function_def*>& stack) {
    if (const auto it = sizes_.find(&f); it != sizes_.end()) return it->second;
    if (std::find(stack.begin(), stack.end(), &f) != stack.end()) recursive(f.proto->name(), f, stack);
    stack.push_back(&f);
    std::size_t total = 0;
    const auto count = [&](const auto& self, const ::onnx::NodeProto& n) -> void {
      const auto* g = callee(n);
      if (g != nullptr && std::find(stack.begin(), stack.end(), g) != stack.end())
        recursive(io::detail::escaped(n.name().empty() ? n.op_type() : n.name()), *g, stack);
      total = std::min(total + (g != nullptr ? size_of(*g, stack) : 1), max_inlined_nodes + 1);
      for (const auto& a : n.attribute()) {
        if (a.has_g())
          for (const auto& m : a.g().node()) self(self, m);
        for (const auto& sg : a.graphs())
          for (const auto& m : sg.node()) self(self, m);
      }
    };
    for (const auto& n : f.proto->node()) count(count, n);
    stack.pop_back();
    sizes_[&f] = total;
    return total;
  }
};

}  // namespace

void inline_functions(::onnx::ModelProto& m, const std::string& file) {
  inliner in(m, file);
  if (!in.any()) return;
  std::vector<const function_def*> stack;
  in.graph(*m.mutable_graph(), stack);
  // Every call is inlined, so the functions are called no more; a model written from this one leaves them out.
  m.clear_functions();
}

}  // namespace reshape1::onnx::detail
