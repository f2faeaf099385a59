// Graphs built layer by layer rather than read from XML (the ONNX reader lowers its nodes with it).
#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "detail/fail.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/graph.hpp"
#include "model/graph/build.hpp"
#include "model/graph/storage.hpp"

namespace reshape1::model {

using reshape1::detail::fail;

detail::graph_builder::graph_builder(model_format format, int version, std::string name, std::string file)
    : format_(format), version_(version), name_(std::move(name)), file_(std::move(file)) {}

std::size_t detail::graph_builder::add(layer_spec l) {
  layers_.push_back(std::move(l));
  return layers_.size() - 1;
}

void detail::graph_builder::weights(std::shared_ptr<const void> owner, std::span<const std::byte> bytes) {
  weights_owner_ = std::move(owner);
  weights_ = bytes;
}

graph detail::graph_builder::build() {
  // The specs own every text the layers view: they move into the graph's storage once, and never change.
  struct owned {
    std::vector<layer_spec> specs;
    std::vector<std::string> versions;
  };
  auto texts = std::make_shared<owned>();
  texts->specs = std::move(layers_);
  layers_.clear();
  const auto& specs = texts->specs;
  // One text per opset a layer names (a handful), which the layers view: reserved, so none moves.
  texts->versions.reserve(specs.size());
  std::vector<std::size_t> version_of(specs.size());
  for (std::size_t index = 0; index < specs.size(); ++index) {
    const auto text = "opset" + std::to_string(specs[index].opset);
    const auto known = std::find(texts->versions.begin(), texts->versions.end(), text);
    version_of[index] = static_cast<std::size_t>(known - texts->versions.begin());
    if (known == texts->versions.end()) texts->versions.push_back(text);
  }

  graph g;
  g.format_ = format_;
  g.version_ = version_;
  g.name_ = name_;
  g.xml_file_ = file_;
  g.bin_file_ = file_;
  g.bin_ = weights_owner_;
  g.bin_bytes_ = weights_;
  auto storage = std::make_shared<graph_storage>();
  auto& st = *storage;
  g.layers_.reserve(specs.size());
  g.by_id_.reserve(specs.size());
  std::size_t sources = 0;
  for (const auto& spec : specs) sources += spec.inputs.size();
  st.sources.reserve(sources);
  for (std::size_t index = 0; index < specs.size(); ++index) {
    g.by_id_.emplace_back(specs[index].id, index);
    g.layers_.push_back(built_layer(specs[index], texts->versions[version_of[index]], st));
  }
  std::sort(g.by_id_.begin(), g.by_id_.end());
  for (std::size_t i = 1; i < g.by_id_.size(); ++i)
    if (g.by_id_[i].first == g.by_id_[i - 1].first)
      fail(errc::bad_file, {.file = file_},
           fmt::format("{}: {} has the id of an earlier layer", file_, g.layers_[g.by_id_[i].second].where()), {});
  order(g, file_);
  storage->text = std::move(texts);
  g.storage_ = std::move(storage);
  return g;
}

layer detail::graph_builder::built_layer(const layer_spec& spec, std::string_view version, graph_storage& st) {
  layer l;
  l.id = spec.id;
  l.name = spec.name;
  l.type = spec.type;
  l.version = version;
  l.opset = spec.opset;
  l.byte = spec.byte;
  l.body = spec.body;
  l.auxiliary = spec.auxiliary;
  st.attributes.start();
  for (const auto& [name, text] : spec.attributes) append_attribute(st, name, text);
  l.attributes = st.attributes.run();
  st.ports.start();
  for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
    port& p = st.ports.append();
    p.id = static_cast<std::int64_t>(k);
    p.declared = false;
    if (k < spec.input_layouts.size()) p.layout = spec.input_layouts[k];
  }
  l.inputs = st.ports.run();
  st.ports.start();
  for (std::size_t k = 0; k < spec.outputs.size(); ++k) {
    const auto& o = spec.outputs[k];
    port& p = st.ports.append();
    p.id = static_cast<std::int64_t>(spec.inputs.size() + k);
    p.declared = o.declared;
    p.type = o.type;
    p.layout = o.layout;
    st.dims.start();
    for (const auto& d : o.dims) st.dims.append() = d;
    p.dims = st.dims.run();
  }
  l.outputs = st.ports.run();
  const auto first = st.sources.size();
  for (const auto& s : spec.inputs) st.sources.push_back(s);
  l.sources = {st.sources.data() + first, spec.inputs.size()};
  return l;
}

void detail::graph_builder::order(graph& g, const std::string& file_) {
  // Producers first (Kahn); an input that nothing feeds, or a cycle, is refused naming a layer on it.
  const auto n = g.layers_.size();
  std::vector<std::size_t> pending(n, 0), first(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < g.layers_[i].sources.size(); ++k) {
      const auto& s = g.layers_[i].sources[k];
      if (!s || s->layer >= n || s->output >= g.layers_[s->layer].outputs.size())
        fail(errc::bad_file, {.offset = g.layers_[i].byte, .file = file_},
             fmt::format("{}: {}: nothing computes its input {}", file_, g.layers_[i].where(), k),
             "the model cannot be read");
      ++pending[i];
      ++first[s->layer + 1];
    }
  for (std::size_t i = 0; i < n; ++i) first[i + 1] += first[i];
  std::vector<std::size_t> consumers(first[n]);
  {
    std::vector<std::size_t> next(first.begin(), first.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
      for (const auto& s : g.layers_[i].sources) consumers[next[s->layer]++] = i;
  }
  g.order_.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    if (pending[i] == 0) g.order_.push_back(i);
  for (std::size_t k = 0; k < g.order_.size(); ++k)
    for (std::size_t e = first[g.order_[k]]; e < first[g.order_[k] + 1]; ++e)
      if (--pending[consumers[e]] == 0) g.order_.push_back(consumers[e]);
  if (g.order_.size() != n) {
    const auto& l = g.layers_[static_cast<std::size_t>(
        std::find_if(pending.begin(), pending.end(), [](std::size_t p) { return p != 0; }) - pending.begin())];
    fail(errc::bad_file, {.offset = l.byte, .file = file_},
         fmt::format("{}: {} is on a cycle of tensors", file_, l.where()), "the model cannot be read");
  }
}

}  // namespace reshape1::model
