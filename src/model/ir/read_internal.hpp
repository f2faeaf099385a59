// Internal: reading a model that is already in memory (fix reads back each rewrite without writing it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "io/files.hpp"
#include "reshape1/model/graph.hpp"

namespace reshape1::model {
struct graph_storage;  // what a graph's layers view (read.cpp)
}  // namespace reshape1::model

namespace reshape1::model::detail {

/// read_ir on a model in memory: `xml` is the .xml's text (parsed in place) and `weights` the .bin's
/// bytes; messages name them `xml_name` and `bin_name`.
[[nodiscard]] graph read_ir_in_memory(std::string xml, const std::string& xml_name,
                                      std::shared_ptr<const io::detail::mapped_file> weights,
                                      const std::string& bin_name);

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

/// One change to an IR model in memory. fix plans its rewrites as a list of these: it judges them on the
/// graph edited() gives and writes the same list with edited_xml(), so what is proven is what is written.
struct graph_edit {
  enum class kind {
    set_attribute,  ///< `layer`'s <data> attribute `name` becomes `text` (it is added when missing)
    clone_layer,    ///< a copy of Const `layer`, id `id` and name `name`, feeds input `port` of `consumer`
  };
  kind what = kind::set_attribute;
  std::int64_t layer = 0;
  std::string name{};
  std::string text{};
  std::int64_t id = 0;
  std::int64_t consumer = 0;
  std::size_t port = 0;
  /// The layers whose bodies hold `layer` (and a clone's `consumer`), outermost first; empty at the top
  /// level. Ids inside a body are that body's own.
  std::vector<std::int64_t> within{};
};

/// What graph_edit works on, with the graph's private parts at hand.
struct graph_editor {
  /// The bytes an edited graph's Consts read, and what keeps them alive, given the graph it is an edit of
  /// (the model, or one of its bodies): for an IR, the .bin's bytes then the new constants after them; an
  /// ONNX lowering keeps bytes per body, so each body gets its own, likewise.
  using weights_for = std::function<std::pair<std::shared_ptr<const void>, std::span<const std::byte>>(const graph&)>;
  /// `g` with `edits` applied in order; its Consts read `weights(g)`. An edit inside a body gives the layer
  /// that holds it a new body, edited likewise (reading `weights` of the body it edits).
  /// error(invalid_argument) for an edit that names no layer of `g` or of that body.
  [[nodiscard]] static graph edited(const graph& g, std::span<const graph_edit> edits, const weights_for& weights);
  /// `xml`, the text `g` was read from, with `edits` applied: each edited layer's element is written again
  /// (a clone right after its original), each re-pointed edge too (in the <edges> of the body that holds
  /// it); every other byte is the original's.
  [[nodiscard]] static std::string edited_xml(const graph& g, std::span<const std::byte> xml,
                                              std::span<const graph_edit> edits);
  /// The bytes `g`'s Consts address, and what keeps them alive.
  [[nodiscard]] static std::pair<std::shared_ptr<const void>, std::span<const std::byte>> weights(const graph& g) {
    return {g.bin_, g.bin_bytes_};
  }
};

}  // namespace reshape1::model::detail
