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
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "../detail/fail.hpp"
#include "../io/files.hpp"
#include "lowering.hpp"
#include "proto_edit.hpp"

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
// Nor a few large Constants called many times, nor names that grow with each call inside a call.
constexpr std::size_t max_inlined_bytes = std::size_t{256} << 20;
// Calls within calls, and subgraphs within them, are followed by recursion: a file of many small functions,
// each calling the next, must not overflow the stack. Exporters nest a function per module, a few deep.
constexpr std::size_t max_nesting = 256;

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

// The domains whose nodes reshape1 never reads as calls. ONNX Runtime 1.30 calls no function of the default
// domain or ai.onnx.ml (a function named Relu leaves Relu a Relu; one named Gelu at opset 17 is "No Op
// registered"; an ai.onnx.ml op it does not know is refused). In its own domains it calls a function only
// where its schema registry has no op of the name, and that registry holds schemas of ops it has no CPU kernel
// for (BiasSoftmax, Rfft: found by a cold attack), which reshape1's op list does not know: a node there is left
// to its translation, or not covered, rather than read as a call ONNX Runtime might not make.
bool never_calls(std::string_view d) {
  return d.empty() || d == "ai.onnx" || d == "ai.onnx.ml" || d == "com.microsoft" || d == "com.microsoft.nchwc" ||
         d == "com.ms.internal.nhwc";
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
  /// The names the function defines: its inputs and outputs, and those its nodes and their subgraphs define.
  std::set<std::string> scope;
};

/// How many nodes a call inlines to (its subgraphs' nodes counted), and about how many bytes they serialise
/// to, each at most one past its limit.
struct inlined_size {
  std::size_t nodes = 0, bytes = 0;
};

class inliner {
 public:
  inliner(::onnx::ModelProto& m, const std::string& file) : file_(file) {
    for (const auto& f : m.functions()) define(f);
    if (functions_.empty()) return;
    // ONNX Runtime refuses a recursive function even where nothing calls it.
    for (const auto& [id, f] : functions_) {
      std::vector<const function_def*> stack;
      (void)size_of(f, stack);
    }
    collect_names(m.graph());
  }

  [[nodiscard]] bool any() const noexcept { return !functions_.empty(); }

  /// Replaces each call in `g` (and in the subgraphs of its nodes) by the function's nodes, in place:
  /// the other nodes keep their objects (a reader holds pointers to their tensors).
  void graph(::onnx::GraphProto& g, std::vector<const function_def*>& stack) {
    const nesting guard(*this);
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
      const auto needs = size_of(*f, stack);
      if (inlined_ + needs.nodes > max_inlined_nodes || inlined_bytes_ + needs.bytes > max_inlined_bytes) too_many();
      inlined_bytes_ += needs.bytes;
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
  std::set<std::string, std::less<>> names_;       // every tensor name of the model, and those made here
  std::set<std::string, std::less<>> node_names_;
  std::size_t inlined_ = 0;
  std::size_t depth_ = 0;  // graphs and calls being inlined, one inside the other
  std::size_t inlined_bytes_ = 0;  // the bytes of the nodes inlined and of the names made
  std::map<const function_def*, inlined_size> sizes_;
  std::unordered_map<std::string, std::size_t> next_suffix_;
  std::set<const function_def*> checked_;  // the functions check_body has passed  // fresh's: the next suffix to try for a base

  [[noreturn]] void bad(const std::string& what, std::string hint = {}) const {
    fail(errc::bad_file, {.file = file_}, fmt::format("{}: {}", file_, what), std::move(hint));
  }

  void define(const ::onnx::FunctionProto& f) {
    function_def d{&f, {f.domain(), f.name(), unknown_string(f, function_overload)}, {}, {}};
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
    d.scope.insert(f.input().begin(), f.input().end());
    d.scope.insert(f.output().begin(), f.output().end());
    for (const auto& n : f.node()) {
      d.scope.insert(n.output().begin(), n.output().end());
      for (const auto& a : n.attribute()) {
        if (a.has_g()) taken_names(a.g(), d.scope);
        for (const auto& sg : a.graphs()) taken_names(sg, d.scope);
      }
    }
    // A function defined twice: ONNX Runtime 1.30 calls the last definition (found by a cold attack).
    const auto id = d.id;
    functions_.insert_or_assign(id, std::move(d));
  }

  /// The local function node `n` calls, or nullptr. A node of a function's domain and name with an overload
  /// no function has is refused, as ONNX Runtime refuses it (it has no such op either).
  [[nodiscard]] const function_def* callee(const ::onnx::NodeProto& n) const {
    if (functions_.empty() || never_calls(n.domain())) return nullptr;
    const auto overload = unknown_string(n, node_overload);
    const auto it = functions_.find({n.domain(), n.op_type(), overload});
    if (it != functions_.end()) return &it->second;
    std::string others;
    for (const auto& [id, f] : functions_)
      if (std::get<0>(id) == n.domain() && std::get<1>(id) == n.op_type())
        others += fmt::format("{}'{}'", others.empty() ? "" : ", ", io::detail::escaped(std::get<2>(id)));
    if (!others.empty())
      bad(fmt::format("node '{}' calls {}.{} with overload '{}'; the model defines it with overload {}",
                      io::detail::escaped(n.name().empty() ? n.op_type() : n.name()), n.domain(), n.op_type(),
                      io::detail::escaped(overload), others),
          "ONNX Runtime refuses the model too");
    return nullptr;
  }

  void collect_names(const ::onnx::GraphProto& g) {
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
  std::string fresh(std::set<std::string, std::less<>>& taken, const std::string& base) {
    auto name = base;
    // Many calls of one name (node names need not be unique) ask for one base again and again: each asks on
    // from the suffix the one before took, not from 1, lest the asking grow as the square of the calls.
    auto& next = next_suffix_[base];
    for (std::size_t k = std::max<std::size_t>(next, 1); taken.contains(name); ++k) {
      name = fmt::format("{}_{}", base, k);
      next = k + 1;
    }
    inlined_bytes_ += 2 * name.size();  // the name, and its copy among those taken
    if (inlined_bytes_ > max_inlined_bytes) too_many();
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
    /// While a graph the call passes as an attribute is bound: the names it defines itself, and the function's
    /// (its inputs, outputs, and what its nodes compute). Another name the graph reads is one of the graph
    /// around the call, where the caller wrote it, and ONNX Runtime reads it there: it keeps its name.
    const std::set<std::string>* passed = nullptr;

    std::string rename(inliner& in, const std::string& name) {
      if (passed != nullptr && !names.contains(name) && !f.scope.contains(name) && !passed->contains(name)) return name;
      const auto [it, fresh_name] = names.try_emplace(name);
      if (fresh_name) it->second = name.empty() ? std::string() : in.fresh(in.names_, fmt::format("{}/{}", prefix, name));
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
        // A graph the call passes is read inside the function: a name the function defines is the function's,
        // as ONNX Runtime reads it (checked: a `t` of the function's and one of the caller's).
        if (copy->has_g() || copy->graphs_size() > 0) {
          std::set<std::string> own;
          if (copy->has_g()) taken_names(copy->g(), own);
          for (const auto& g : copy->graphs()) taken_names(g, own);
          const auto* before = std::exchange(b.passed, &own);
          if (copy->has_g()) bind_graph(*copy->mutable_g(), b);
          for (auto& g : *copy->mutable_graphs()) bind_graph(g, b);
          b.passed = before;
        }
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
    const nesting guard(*this);
    const auto& fp = *f.proto;
    const auto call_name = io::detail::escaped(call.name().empty() ? call.op_type() : call.name());
    if (std::find(stack.begin(), stack.end(), &f) != stack.end()) recursive(call_name, f, stack);
    // ONNX lets a call leave trailing outputs out; ONNX Runtime 1.30 refuses it ("output index 1 is out of
    // range"), and reshape1 gives no shapes to a model it refuses.
    if (call.input_size() > fp.input_size() || call.output_size() != fp.output_size())
      bad(fmt::format("node '{}' calls function {} with {} inputs and {} outputs; it has {} and {}", call_name,
                      id_text(f.id), call.input_size(), call.output_size(), fp.input_size(), fp.output_size()),
          "ONNX Runtime refuses a call of more inputs or of other outputs than its function's");
    binding b{call, f, call.name().empty() ? fp.name() : call.name(), {}, nullptr};
    // The function's inputs the call leaves out are optional inputs left out ("").
    for (int i = 0; i < fp.input_size(); ++i) b.names[fp.input(i)] = i < call.input_size() ? call.input(i) : std::string();
    if (checked_.insert(&f).second) check_body(f);
    for (int k = 0; k < fp.output_size(); ++k)
      if (!call.output(k).empty()) b.names[fp.output(k)] = call.output(k);  // one the call leaves out is an inner tensor
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
  }

  /// Refuses a function ONNX Runtime refuses: an output that is an input or that no node computes, a node that
  /// reads a tensor neither an input of the function's nor computed by one of its nodes. Once per function.
  void check_body(const function_def& f) const {
    const auto& fp = *f.proto;
    const std::set<std::string, std::less<>> inputs(fp.input().begin(), fp.input().end());
    std::set<std::string, std::less<>> produced;
    for (const auto& n : fp.node()) produced.insert(n.output().begin(), n.output().end());
    for (int k = 0; k < fp.output_size(); ++k) {
      const auto& formal = fp.output(k);
      if (inputs.contains(formal))
        bad(fmt::format("function {}: output {} '{}' is one of its inputs", id_text(f.id), k, io::detail::escaped(formal)),
            "ONNX Runtime refuses the model too: compute the output by a node (an Identity)");
      if (!produced.contains(formal))
        bad(fmt::format("function {}: output {} '{}' is computed by none of its nodes", id_text(f.id), k,
                        io::detail::escaped(formal)),
            "ONNX Runtime refuses the model too");
    }
    for (const auto& n : fp.node())
      for (const auto& in : n.input())
        if (!in.empty() && !inputs.contains(in) && !produced.contains(in))
          bad(fmt::format("function {}: node '{}' reads '{}', which is none of the function's inputs and which none "
                          "of its nodes computes",
                          id_text(f.id), io::detail::escaped(n.name().empty() ? n.op_type() : n.name()),
                          io::detail::escaped(in)),
              "a function reads only its inputs and what its nodes compute; ONNX Runtime refuses the model too");
  }

  /// One more level of graphs and calls for as long as it lives; past max_nesting, error(unsupported).
  struct nesting {
    inliner& in;
    explicit nesting(inliner& i) : in(i) {
      if (++in.depth_ > max_nesting)
        fail(errc::unsupported, {.file = in.file_},
             fmt::format("{}: the model's local functions and their subgraphs nest more than {} deep", in.file_,
                         max_nesting),
             "reshape1 reads functions that call one another, and graphs inside them, to that depth");
    }
    ~nesting() { --in.depth_; }
    nesting(const nesting&) = delete;
    nesting& operator=(const nesting&) = delete;
  };

  [[noreturn]] void too_many() const {
    fail(errc::unsupported, {.file = file_},
         fmt::format("{}: the model's local functions inline to more than {} nodes or {} MiB", file_,
                     max_inlined_nodes, max_inlined_bytes >> 20),
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

  inlined_size size_of(const function_def& f, std::vector<const function_def*>& stack) {
    if (const auto it = sizes_.find(&f); it != sizes_.end()) return it->second;
    const nesting guard(*this);
    if (std::find(stack.begin(), stack.end(), &f) != stack.end()) recursive(f.proto->name(), f, stack);
    stack.push_back(&f);
    inlined_size total;
    const auto count = [&](const auto& self, const ::onnx::NodeProto& n) -> void {
      const auto* g = callee(n);
      if (g != nullptr && std::find(stack.begin(), stack.end(), g) != stack.end())
        recursive(io::detail::escaped(n.name().empty() ? n.op_type() : n.name()), *g, stack);
      const auto own = g != nullptr ? size_of(*g, stack) : inlined_size{1, n.ByteSizeLong()};
      total.nodes = std::min(total.nodes + own.nodes, max_inlined_nodes + 1);
      total.bytes = std::min(total.bytes + own.bytes, max_inlined_bytes + 1);
      for (const auto& a : n.attribute()) {
        const nesting inner(*this);
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
  // The definitions stay: a model written from this one (fix -o, shapes -o) calls none of them, and ONNX
  // Runtime, which checks them all as it loads it, checks what it checked in the original.
}

}  // namespace reshape1::onnx::detail
