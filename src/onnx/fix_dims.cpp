// Which declared dims fix frees (onnx/fix.cpp): each tensor's shape at two probes (two batches, or two samples
// of the new sizes) tells which of its dims follow what changes; those become a dim_param or are cleared, in
// the top graph, its If branches and every Loop's and Scan's body (ONNX Runtime holds a body's outputs to the
// dims they declare).
#include "fix_dims.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "model/ops/rules.hpp"
#include "model/text/fix.hpp"
#include "proto_edit.hpp"
#include "reshape1/model/propagate.hpp"

namespace reshape1::onnx::detail {
namespace {

using model::detail::op_part;
using model::detail::part_of;

/// The declared dims of `v`, a tensor that `names` binds to an output of a graph propagated at the two
/// probes (batches, or samples of the new sizes) as `a_at` and `b_at`: a dim that differs between them
/// becomes what `as` says (a dim_param, or cleared), each listed in `freed` as `kind`. Whether any changed.
bool free_declared(::onnx::ValueInfoProto& v, const std::unordered_map<std::string, model::source>& names,
                   const model::propagation& a_at, const model::propagation& b_at, const std::string& kind,
                   const dim_freeing& how, std::vector<std::string>& freed) {
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
    // New sizes: one that is another value than declared, the same at both samples, is that value where
    // every new size was asked as a value; otherwise it may still follow one (a Slice's end up to a size
    // that the samples both pass): cleared.
    if (!x.is_static() || !y.is_static()) continue;
    auto* d = shape->mutable_dim(k);
    if (x.lo() == y.lo()) {
      if (how.sizes_as_values && d->has_dim_value() && d->dim_value() != x.lo()) {
        const bool values = *how.sizes_as_values;
        if (values) {
          d->set_dim_value(x.lo());
        } else {
          d->clear_dim_value();
        }
        freed.push_back(model::text::freed_dimension(kind, v.name(), static_cast<std::size_t>(k), !values));
        changed = true;
      }
      continue;
    }
    if (const auto param = how.as(x.lo(), y.lo())) {
      if (d->has_dim_param() && d->dim_param() == *param) continue;
      d->set_dim_param(*param);
      freed.push_back(model::text::freed_dimension(kind, v.name(), static_cast<std::size_t>(k), false));
    } else {
      if (!d->has_dim_value() && !d->has_dim_param()) continue;
      d->clear_dim_value();
      d->clear_dim_param();
      freed.push_back(model::text::freed_dimension(kind, v.name(), static_cast<std::size_t>(k), true));
    }
    changed = true;
  }
  return changed;
}

}  // namespace

std::optional<std::size_t> parameter_named(const model::graph& g, const std::string& name) {
  std::optional<std::size_t> layer;
  for (std::size_t i = 0; i < g.layers().size(); ++i)
    if (part_of(g.layers()[i].type) == op_part::parameter && g.layers()[i].name == name) layer = i;
  return layer;
}

bool free_outputs(::onnx::ModelProto& m, const ::onnx::ModelProto& lowered, const model::graph& g,
                  const std::unordered_map<std::string, model::source>& names,
                  const std::vector<detail::body_names>& bodies, const std::vector<model::input_shape>& at_a,
                  const std::vector<model::input_shape>& at_b, const dim_freeing& how, std::vector<std::string>& freed) {
  bool changed = false;
  const auto pa = model::propagate(g, at_a);
  const auto pb = model::propagate(g, at_b);
  const auto update = [&](::onnx::ValueInfoProto& v, const std::unordered_map<std::string, model::source>& bound,
                          const model::propagation& a, const model::propagation& b, const std::string& kind) {
    changed = free_declared(v, bound, a, b, kind, how, freed) || changed;
  };
  // The top graph and its If branches, which are lowered into it, so their tensors were propagated too.
  std::vector<std::pair<int, int>> path;
  inlined_graphs(m, path, [&](::onnx::GraphProto& in, const std::vector<std::pair<int, int>>& at) {
    for (auto& v : *in.mutable_output()) update(v, names, pa, pb, at.empty() ? "output" : "branch output");
    for (auto& v : *in.mutable_value_info()) update(v, names, pa, pb, at.empty() ? "value_info" : "branch value_info");
  });
  // Each body, a graph of its own, propagated (at its last iteration) inside the layer that runs it.
  for (const auto& body : bodies) {
    const model::propagation* a = &pa;
    const model::propagation* b = &pb;
    for (const auto layer : body.layers) {
      a = a == nullptr ? nullptr : a->body(layer);
      b = b == nullptr ? nullptr : b->body(layer);
    }
    if (a == nullptr || b == nullptr) continue;
    // The body, and the If branches inside it, which are lowered into it.
    const auto body_at = path_to(lowered, body.graph);
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

}  // namespace reshape1::onnx::detail
