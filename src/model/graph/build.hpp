// Internal: graphs built layer by layer (build.cpp), which is how the ONNX reader makes its graph.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reshape1/model/graph.hpp"

namespace reshape1::model {
struct graph_storage;  // what a graph's layers view (storage.hpp)
}  // namespace reshape1::model

namespace reshape1::model::detail {

/// A graph built layer by layer rather than read from XML: the ONNX reader lowers each node into one or a
/// few layers with it. Attributes are given as IR texts and parsed as the IR reader parses them, so every
/// rule reads them the same way whichever file they came from.
struct graph_builder {
  struct port_spec {
    std::vector<dimension> dims;
    bool declared = false;
    std::optional<element_type> type;
    std::string layout;
  };
  struct layer_spec {
    std::int64_t id = 0;
    std::string name, type;
    int opset = 1;
    std::vector<std::pair<std::string, std::string>> attributes;
    std::vector<std::optional<source>> inputs;  ///< one per input port: what feeds it
    std::vector<std::string> input_layouts;     ///< the layouts of the first input ports (a Result's: N is its batch)
    std::vector<port_spec> outputs;
    std::shared_ptr<const subgraph> body;
    std::size_t byte = 0;  ///< where the layer's origin starts in the file, for messages
    bool auxiliary = false;
  };

  graph_builder(model_format format, int version, std::string name, std::string file);
  /// Appends a layer; returns its index.
  std::size_t add(layer_spec l);
  void reserve(std::size_t layers) { layers_.reserve(layers); }
  [[nodiscard]] layer_spec& at(std::size_t index) { return layers_[index]; }
  [[nodiscard]] std::size_t size() const noexcept { return layers_.size(); }
  /// The bytes Const layers' `offset` and `size` attributes address, kept alive by `owner`.
  void weights(std::shared_ptr<const void> owner, std::span<const std::byte> bytes);
  /// The graph: every input fed (error(bad_file) naming the layer otherwise), ids unique, layers ordered
  /// producers first (a cycle is error(bad_file)).
  [[nodiscard]] graph build();

 private:
  /// A layer as the graph holds it, its attributes, ports and sources put in `st`.
  static layer built_layer(const layer_spec& spec, std::string_view version, graph_storage& st);
  /// Orders g's layers producers first; error(bad_file) naming `file` for an input nothing feeds, or a cycle.
  static void order(graph& g, const std::string& file);

  model_format format_;
  int version_;
  std::string name_, file_;
  std::vector<layer_spec> layers_;
  std::shared_ptr<const void> weights_owner_;
  std::span<const std::byte> weights_;
};

}  // namespace reshape1::model::detail
