// Internal: the edits fix makes to a graph, applied in memory (edit.cpp) and to an IR's .xml text
// (model/ir/write.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "reshape1/model/graph.hpp"

namespace reshape1::model::detail {

/// One change to an IR model in memory. fix plans its rewrites as a list of these: it judges them on the
/// graph edited() gives and writes the same list with edited_xml(), so what is proven is what is written.
struct graph_edit {
  enum class kind {
    set_attribute,  ///< `layer`'s <data> attribute `name` becomes `text` (it is added when missing)
    clone_layer,    ///< a copy of Const `layer`, id `id` and name `name`, feeds input `port` of `consumer`
    /// a new layer, id `id` and name `name`, of type `type` (`opset`), with `attributes`, reading `inputs`
    /// (each a layer id, possibly of a layer added before it, and that layer's output), and one output of
    /// `output_type` and `output_dims`; placed just before the layer that the next set_source feeds
    add_layer,
    set_source,  ///< input `port` of `consumer` reads output `output` of layer `layer` instead
    /// `layer` becomes a layer of type `type` (`opset`) with `attributes` only, reading `inputs` (its own
    /// inputs' sources, or layers added before it), its first output as it was and its others, which no
    /// layer may read, gone: a pooling rewritten as a reduction (a MaxPool-8's unread indices dropped). The
    /// layers added just before it are placed before it.
    replace_layer,
  };
  kind what = kind::set_attribute;
  std::int64_t layer = 0;
  std::string name{};
  std::string text{};
  std::int64_t id = 0;
  std::int64_t consumer = 0;
  std::size_t port = 0;
  std::string type{};
  int opset = 0;
  std::vector<std::pair<std::string, std::string>> attributes{};
  std::vector<std::pair<std::int64_t, std::size_t>> inputs{};
  element_type output_type = element_type::i64;
  std::vector<std::int64_t> output_dims{};
  std::size_t output = 0;
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
