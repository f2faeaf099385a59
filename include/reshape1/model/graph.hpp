// reshape1::model: an OpenVINO IR model (versions 10 and 11) read once into a typed graph.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reshape1/element_type.hpp"
#include "reshape1/partial_shape.hpp"

namespace reshape1::model {

/// One attribute of a layer's <data> element, parsed when the model is read: a list of integers
/// (`"1, 2"`, `"5"`, `""`), a list of reals, a boolean (`true`/`false`/`1`/`0` in any case).
/// Texts, ports and lists view storage that the graph they were read into owns (its copies share it):
/// they stay valid as long as one of them lives.
struct attribute {
  std::string_view name;
  std::string_view text;
  std::optional<bool> boolean;
  bool is_integers = false;  ///< `integers` holds the whole text
  bool is_reals = false;     ///< the text is a list of numbers (true for integer lists too)
  std::span<const std::int64_t> integers;
  std::span<const double> reals;  ///< only for lists that are not all integers (layer::reals converts the others)
};

struct port {
  std::int64_t id = 0;
  std::span<const dimension> dims;  ///< as declared: each a size, `-1` (dynamic) or an interval
  std::optional<element_type> type;  ///< from `precision` or `element_type`, when given
  std::string_view layout;  ///< the port's layout from its rt_info (`[N,C,H,W]`), "" when none is written
  /// Whether the model declares this port's shape. An IR declares every port; an ONNX file declares only
  /// the tensors its graph inputs, outputs and value_info list (the others' `dims` are empty).
  bool declared = true;
  /// The declared shape; of unknown rank when the model does not declare one.
  [[nodiscard]] partial_shape shape() const { return declared ? partial_shape(dims) : partial_shape::dynamic(); }
};

/// Where an input comes from: a layer (index into graph::layers()) and its output (index into outputs).
struct source {
  std::size_t layer = 0;
  std::size_t output = 0;
};

struct subgraph;
namespace detail {
struct graph_builder;
struct graph_editor;
}

class layer {
 public:
  std::int64_t id = 0;
  std::string_view name;
  std::string_view type;
  std::string_view version;  ///< as written: "opset1", "opset8", ...
  int opset = 0;        ///< the N of "opsetN"; 0 when the version is not of that form
  std::size_t byte = 0;  ///< where the <layer> element starts in the .xml
  /// ONNX: a layer reshape1 added to lower a node (a Const pattern, a transpose of LSTM's layout), not the
  /// node's own. `check` lists only the node's own Reshapes; findings on these name the node all the same.
  bool auxiliary = false;
  std::span<const attribute> attributes;
  std::span<const port> inputs;
  std::span<const port> outputs;
  std::span<const std::optional<source>> sources;  ///< one per input: what feeds it (nullopt: nothing)
  std::shared_ptr<const subgraph> body;  ///< TensorIterator and Loop: the <body>, its port map and back edges

  [[nodiscard]] const attribute* find(std::string_view name) const noexcept;
  /// Typed attribute access. A missing or malformed attribute is error(bad_file) naming the layer.
  [[nodiscard]] std::int64_t integer(std::string_view name) const;
  [[nodiscard]] std::int64_t integer(std::string_view name, std::int64_t fallback) const;
  [[nodiscard]] std::span<const std::int64_t> integers(std::string_view name) const;
  [[nodiscard]] std::vector<std::int64_t> integers(std::string_view name, std::vector<std::int64_t> fallback) const;
  [[nodiscard]] std::vector<double> reals(std::string_view name) const;
  [[nodiscard]] bool flag(std::string_view name) const;
  [[nodiscard]] bool flag(std::string_view name, bool fallback) const;
  [[nodiscard]] std::string_view text(std::string_view name, std::string_view fallback) const;
  [[nodiscard]] element_type element(std::string_view name) const;
  /// `layer 'name' (id 12)`.
  [[nodiscard]] std::string where() const;
  /// The op as the model names it: the IR's type; for an ONNX model, the op_type of the node the layer
  /// lowers (`com.microsoft.Gelu` for another domain), and its version (the since_version translated).
  [[nodiscard]] std::string_view op_type() const;
  [[nodiscard]] int op_version() const;
};

/// The file a graph was read from: an OpenVINO IR (.xml and .bin) or an ONNX model lowered to the same
/// operations (one layer per node, or a few for a node OpenVINO also decomposes).
enum class model_format { ir, onnx };

/// The extension of a model file of format `f`: ".xml" (an IR's weights beside it in .bin), ".onnx".
[[nodiscard]] constexpr std::string_view extension_of(model_format f) noexcept {
  return f == model_format::onnx ? ".onnx" : ".xml";
}

/// A model: its layers in file order, each input linked to its source, and a topological order.
/// Every Const's offset and size have been checked against the .bin and against its shape and type.
class graph {
 public:
  [[nodiscard]] model_format format() const noexcept { return format_; }
  /// The IR version (10 or 11); for ONNX, the file's ir_version.
  [[nodiscard]] int version() const noexcept { return version_; }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const std::string& xml_file() const noexcept { return xml_file_; }
  /// The .bin's name, as messages give it (for ONNX, the model file's: its initializers live there).
  [[nodiscard]] const std::string& bin_file() const noexcept { return bin_file_; }
  [[nodiscard]] std::span<const layer> layers() const noexcept { return layers_; }
  /// Layer indices, every producer before its consumers.
  [[nodiscard]] std::span<const std::size_t> order() const noexcept { return order_; }
  [[nodiscard]] const layer* find(std::int64_t id) const noexcept;
  /// The bytes of a Const layer (none when its offset and size do not lie in the weights, as for a layer
  /// of another graph). A .bin over 1 MiB is mapped, not read: if the file shrinks while the
  /// graph lives, reading these bytes faults (SIGBUS). reshape1's own reads of them are guarded and fail
  /// with error(io) instead.
  [[nodiscard]] std::span<const std::byte> const_bytes(const layer& l) const;

 private:
  friend struct graph_reader;
  friend struct detail::graph_builder;
  friend struct detail::graph_editor;
  model_format format_ = model_format::ir;
  int version_ = 0;
  std::string name_, xml_file_, bin_file_;
  std::vector<layer> layers_;
  std::vector<std::size_t> order_;
  std::vector<std::pair<std::int64_t, std::size_t>> by_id_;  // sorted by id
  std::shared_ptr<const void> bin_;
  std::span<const std::byte> bin_bytes_;
  std::shared_ptr<const void> storage_;  // the XML text the string_views view, and the layers' ports, attributes, lists
  std::size_t edges_byte_ = 0;  // where the model's own <edges> starts in the .xml (fix rewrites edges there)
};

/// One <port_map> entry of a TensorIterator or Loop: a port of the layer and the body Parameter (an input)
/// or Result (an output) it maps to. With `axis`, an input is sliced along it (each iteration sees
/// part_size of it) and an output is concatenated along it over the iterations.
struct port_mapping {
  std::int64_t external_port = -1;  ///< the layer's port id; -1 for Loop's current_iteration and condition
  std::int64_t internal_layer = 0;  ///< the id of the body layer
  std::optional<std::int64_t> axis;
  std::int64_t start = 0, end = -1, stride = 1, part_size = 1;
  std::string purpose;  ///< Loop: "current_iteration" or "execution_condition"; "" otherwise
};

/// A <back_edges> entry: the body Result whose value the body Parameter takes at the next iteration.
struct back_edge {
  std::int64_t from_layer = 0;  ///< a Result's id
  std::int64_t to_layer = 0;    ///< a Parameter's id
};

/// The sub-network of a TensorIterator or Loop. Its ids are the body's own; every id in `inputs`,
/// `outputs` and `back_edges` names a body Parameter or Result, and every external port one of the
/// layer's ports (checked when read).
struct subgraph {
  graph network;
  std::vector<port_mapping> inputs, outputs;
  std::vector<back_edge> back_edges;
};

/// How messages name the options a caller gave: as the API's fields, which are Python's keyword arguments
/// (`batch=8`, `shapes['x']=[2,3]`), or as the command line's flags (`--batch 8`, `--shape x=[2,3]`). Every
/// request and read says which (the API's by default); nothing process-wide decides it.
enum class option_spelling { api, command_line };

/// The weights file of the IR `xml`: `bin` when given, else the .xml's path with the extension .bin.
/// error(invalid_argument) for an `xml` of "-" (standard input) without `bin`, and error(io) when the file
/// beside the .xml is not there; both say how to give the weights.
[[nodiscard]] std::filesystem::path weights_of(const std::filesystem::path& xml, const std::filesystem::path& bin,
                                               option_spelling spelling = option_spelling::api);

/// Reads model.xml and its weights. Errors: error(io) for unreadable files; error(bad_file) naming the
/// layer, the attribute or the byte offset (also for a cycle, an input fed twice, and a .bin that is a
/// Git LFS pointer); error(unsupported) for other IR versions; error(unknown_element_type).
[[nodiscard]] graph read_ir(const std::filesystem::path& xml, const std::filesystem::path& bin);

}  // namespace reshape1::model
