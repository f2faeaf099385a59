// Propagation: every layer in topological order, through the rule its (type, opset) names (engine.hpp).
#include "model/propagate/engine.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "detail/fail.hpp"
#include "model/ops/rules.hpp"

namespace reshape1::model {

namespace {
using detail::op_part;
using detail::part_of;

const tensor& unknown_tensor() {
  static const tensor t;
  return t;
}
}  // namespace

const tensor& propagation::input(const graph& g, const layer& l, std::size_t port) const {
  (void)g;
  if (port >= l.sources.size() || !l.sources[port]) return unknown_tensor();
  return outputs[l.sources[port]->layer][l.sources[port]->output];
}

namespace detail {
void layer_outputs_access::fit(layer_outputs& o, const graph& g) {
    constexpr auto size = layer_outputs::block_layers;
    const auto layers = g.layers();
    const auto kept = std::min(o.size(), layers.size());
    o.first_.resize(kept + 1);
    for (std::size_t i = kept; i < layers.size(); ++i) o.first_.push_back(o.first_.back() + layers[i].outputs.size());
    o.blocks_.resize((layers.size() + size - 1) / size);
    for (std::size_t k = kept / size; k < o.blocks_.size(); ++k) {
      const auto begin = k * size, end = std::min(begin + size, layers.size());
      const auto tensors = o.first_[end] - o.first_[begin];
      auto& b = o.blocks_[k];
      if (!b) {
        b = std::make_shared<std::vector<tensor>>(tensors);
      } else if (b->size() != tensors) {
        if (b.use_count() > 1) b = std::make_shared<std::vector<tensor>>(*b);
        b->resize(tensors);
      }
    }
}
}  // namespace detail

layer_outputs::layer_outputs(const graph& g) { detail::layer_outputs_access::fit(*this, g); }

std::span<tensor> layer_outputs::operator[](std::size_t layer) {
  auto& b = blocks_[layer / block_layers];
  if (b.use_count() > 1) b = std::make_shared<std::vector<tensor>>(*b);
  return {b->data() + (first_[layer] - first_[layer / block_layers * block_layers]), first_[layer + 1] - first_[layer]};
}

bool covered(std::string_view type, int opset) noexcept { return detail::find_rule(type, opset) != nullptr; }

std::string_view batching_rule(std::string_view type, int opset) noexcept {
  const auto* e = detail::find_entry(type, opset);
  return e == nullptr ? std::string_view() : detail::batch_rule_name(e->batch.fn);
}

std::string spec_name(std::string_view type, int opset) {
  return detail::find_entry(type, opset) == nullptr ? std::string() : detail::spec_name(type, opset);
}

std::vector<std::pair<std::string_view, int>> covered_ops() {
  std::vector<std::pair<std::string_view, int>> r;
  for (const auto& e : detail::rule_table()) r.emplace_back(e.type, e.opset);
  return r;
}

propagation propagate(const graph& g) { return propagate(g, {}); }

namespace detail {
std::vector<const tensor*> given_tensors(const graph& g, std::span<const input_shape> given, std::vector<tensor>& store) {
  const auto layers = g.layers();
  store.assign(given.size(), tensor{});
  std::vector<const tensor*> given_to(given.empty() ? 0 : layers.size(), nullptr);
  for (std::size_t k = 0; k < given.size(); ++k) {
    const auto& x = given[k];
    if (x.layer >= layers.size() || part_of(layers[x.layer].type) != op_part::parameter)
      reshape1::detail::fail(errc::invalid_argument, {},
           fmt::format("a shape is given to layer index {}, which is not a Parameter of the model", x.layer));
    if (given_to[x.layer] != nullptr)
      reshape1::detail::fail(errc::invalid_argument, {}, fmt::format("{}: two shapes are given to it", layers[x.layer].where()), {});
    store[k].shape = x.shape;
    given_to[x.layer] = &store[k];
  }
  return given_to;
}
}  // namespace detail

propagation propagate(const graph& g, std::span<const input_shape> given) {
  return detail::propagate_naming(g, given, {});
}

const propagation* propagation::body(std::size_t layer) const noexcept {
  return layer < bodies.size() ? bodies[layer].get() : nullptr;
}

namespace detail {

namespace {
thread_local std::uint64_t calls = 0;

/// A rule's message without the layer it names in front: rules refuse as `layer 'x' (id 3): what; hint`
/// (refuse(), and Reshape's rule around reshape1's own message), and check reports a Reshape's reason
/// without the layer, which its table names already.
std::string reason_of(std::string_view message, const layer& l) {
  const auto where = l.where();
  if (message.size() > where.size() + 1 && message.starts_with(where) && message.substr(where.size(), 2) == ": ")
    message.remove_prefix(where.size() + 2);
  return std::string(message);
}
}  // namespace

std::uint64_t rule_calls() noexcept { return calls; }

namespace {

/// Runs layer `index`'s rule into `out`; a layer without a rule, or whose rule refuses its inputs, is a
/// finding of `p` and leaves its outputs unknown.
void run_rule(const graph& g, std::size_t index, std::span<const tensor* const> inputs, std::span<tensor> out,
              const tensor* given_tensor, propagation& p, std::shared_ptr<const propagation>& body) {
  const auto& l = g.layers()[index];
  const auto fn = find_rule(l.type, l.opset);
  if (fn == nullptr) {
    // An ONNX node without a translation says why (`not_covered` attribute); an IR layer names its op.
    const auto* why = g.format() == model_format::onnx ? l.find("not_covered") : nullptr;
    const std::string unknown = "its outputs are unknown";
    const auto reason = why != nullptr ? fmt::format("{}; {}", why->text, unknown)
                                       : fmt::format("no shape rule for {}-{} (version '{}'); {}", l.type, l.opset,
                                                     l.version, unknown);
    p.lost.push_back({index, true, errc::unsupported, fmt::format("{}: {}", l.where(), reason), unknown, reason});
    return;
  }
  try {
    op o{g,   l, inputs, out, given_tensor != nullptr ? &given_tensor->shape : nullptr, l.body ? &body : nullptr,
         &p.follows_inputs};
    ++calls;
    fn(o);
    if (given_tensor != nullptr && !out.empty()) {  // a body Parameter: its outer tensor's type and values
      if (given_tensor->type) out[0].type = given_tensor->type;
      out[0].value = given_tensor->value;
    }
  } catch (const error& e) {
    // A layer that fails is a finding; a .bin that cannot be read (it shrank while mapped) is not the
    // layer's doing, and nothing after it could be trusted.
    if (e.code() == errc::io) throw;
    std::fill(out.begin(), out.end(), tensor{});
    p.lost.push_back({index, false, e.code(), e.what(), e.hint(), reason_of(e.what(), l)});
  }
}

/// Gives each dynamic dimension of `out` without a symbol one named after `names`, the layer and the place.
void name_dimensions(std::span<tensor> out, std::string_view names, std::size_t index) {
  for (std::size_t o = 0; o < out.size(); ++o) {
    auto& shape = out[o].shape;
    if (!shape.rank_known() ||
        std::all_of(shape.begin(), shape.end(), [](const dimension& d) { return d.is_static() || d.has_symbol(); }))
      continue;
    std::vector<dimension> dims(shape.begin(), shape.end());
    for (std::size_t d = 0; d < dims.size(); ++d)
      if (!dims[d].is_static() && !dims[d].has_symbol())
        dims[d] = dimension(dims[d].range(), symbol(fmt::format("{}{}.{}.{}", names, index, o, d)));
    shape = partial_shape(std::move(dims));
  }
}

}  // namespace

void propagate_into(const graph& g, std::span<const tensor* const> given, const std::vector<bool>* given_follows,
                    propagation& p, layer_pass* pass, std::string_view names) {
  const auto layers = g.layers();
  p.follows_inputs.resize(layers.size(), false);
  std::vector<const tensor*> inputs;
  // ONNX: the layers a node was lowered to stand for the node together. When one of them fails, the
  // node's outputs are unknown, even where its last layer could give a shape without it (a Reshape to
  // the shape of the node's input, after a failed inner Reshape): the node does not run. A failed layer
  // is one with a finding (kept from before by a pass, or new), or one within a failed node.
  const bool nodes = g.format() == model_format::onnx;
  std::vector<char> failed(nodes ? layers.size() : 0, 0);
  const auto within_failed_node = [&](const layer& l) {
    return std::any_of(l.sources.begin(), l.sources.end(), [&](const std::optional<source>& s) {
      if (!s || failed[s->layer] == 0) return false;
      const auto& from = layers[s->layer];
      return from.auxiliary && from.name == l.name && from.op_type() == l.op_type();
    });
  };
  for (const auto index : g.order()) {
    const auto& l = layers[index];
    const auto lost_before = p.lost.size();
    if (pass != nullptr && !pass->runs(index)) {
      if (nodes) failed[index] = p.lost.size() > lost_before || within_failed_node(l);
      continue;
    }
    if (pass != nullptr) pass->replacing(index);
    const auto out = p.outputs[index];
    inputs.clear();
    const tensor* given_tensor = index < given.size() ? given[index] : nullptr;
    bool follows = part_of(l.type) == op_part::parameter &&
                   (given_follows == nullptr || index >= given_follows->size() || (*given_follows)[index]);
    for (std::size_t i = 0; i < l.inputs.size(); ++i) {
      inputs.push_back(&p.input(g, l, i));
      if (l.sources[i]) follows = follows || p.follows_inputs[l.sources[i]->layer];
    }
    p.follows_inputs[index] = follows;
    std::shared_ptr<const propagation> body;  // what a TensorIterator's or Loop's rule saw inside its body
    const bool node_failed = nodes && within_failed_node(l);
    if (node_failed)
      std::fill(out.begin(), out.end(), tensor{});  // the failure is the inner layer's finding, reported once
    else
      run_rule(g, index, inputs, out, given_tensor, p, body);
    if (nodes) failed[index] = node_failed || p.lost.size() > lost_before;
    if (body) {
      if (p.bodies.empty()) p.bodies.resize(layers.size());
      p.bodies[index] = std::move(body);
    }
    for (std::size_t i = 0; i < out.size(); ++i)
      if (!out[i].type) out[i].type = l.outputs[i].type;
    if (!names.empty()) name_dimensions(out, names, index);
    if (pass != nullptr) pass->ran(index);
  }
}

propagation propagate_graph(const graph& g, std::span<const tensor* const> given,
                            const std::vector<bool>* given_follows, std::string_view names) {
  propagation p;
  p.outputs = layer_outputs(g);
  propagate_into(g, given, given_follows, p, nullptr, names);
  return p;
}

propagation propagate_naming(const graph& g, std::span<const input_shape> given, std::string_view names) {
  std::vector<tensor> store;
  const auto given_to = given_tensors(g, given, store);
  reset_body_budget();
  return propagate_graph(g, given_to, nullptr, names);
}

}  // namespace detail

}  // namespace reshape1::model
