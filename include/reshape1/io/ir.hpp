// reshape1::io: OpenVINO IR models (versions 10 and 11), and the checker of their Reshape layers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reshape1/partial_shape.hpp"

namespace reshape1::io {

struct ir_port {
  std::string id;
  partial_shape dims;
};

struct ir_layer {
  std::string id;  ///< as the IR writes it
  std::string name;
  std::string type;
  std::string version;
  std::map<std::string, std::string, std::less<>> data;  ///< the <data> element's attributes
  std::vector<ir_port> inputs;
  std::vector<ir_port> outputs;
  std::size_t byte = 0;  ///< where the <layer> element starts in the .xml
  [[nodiscard]] const ir_port* input(std::string_view port) const;
  [[nodiscard]] const ir_port* output(std::string_view port) const;
};

struct ir_edge {
  std::string from_layer, from_port, to_layer, to_port;
};

/// A parsed model: the XML's layers and edges, with the .bin mapped. Every Const's offset and size have
/// been checked against the .bin's length and against its declared shape and element type.
class ir_model {
 public:
  [[nodiscard]] int version() const noexcept { return version_; }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const std::string& xml_file() const noexcept { return xml_file_; }
  [[nodiscard]] const std::vector<ir_layer>& layers() const noexcept { return layers_; }
  [[nodiscard]] const std::vector<ir_edge>& edges() const noexcept { return edges_; }
  [[nodiscard]] const ir_layer* layer(std::string_view id) const;
  /// The edge that feeds input `port` of layer `id`, if any.
  [[nodiscard]] const ir_edge* edge_to(std::string_view id, std::string_view port) const;
  /// The bytes of a Const layer (checked when the model was read).
  [[nodiscard]] std::span<const std::byte> const_bytes(const ir_layer& layer) const;

 private:
  friend ir_model read_ir(const std::filesystem::path&, const std::filesystem::path&);
  int version_ = 0;
  std::string name_, xml_file_;
  std::vector<ir_layer> layers_;
  std::vector<ir_edge> edges_;
  std::map<std::string, std::size_t, std::less<>> by_id_;
  std::map<std::pair<std::string, std::string>, std::size_t, std::less<>> edge_by_target_;
  std::shared_ptr<const void> bin_;
  std::span<const std::byte> bin_bytes_;
};

/// Reads model.xml and its weights. Errors: error(io) for unreadable files; error(bad_file) naming the
/// layer (name and id), the attribute or the byte offset; error(unsupported) for other IR versions;
/// error(unknown_element_type) for element types OpenVINO does not have.
[[nodiscard]] ir_model read_ir(const std::filesystem::path& xml, const std::filesystem::path& bin);

enum class verdict { ok, error, mismatch, refinable };
[[nodiscard]] std::string_view name(verdict v) noexcept;

/// What the checker says of one Reshape layer. Shapes are in the notation of docs/semantics.md.
struct finding {
  std::string id;
  std::string name;
  verdict result = verdict::ok;
  std::string code;     ///< for verdict::error: the error code's name
  std::string message;  ///< for verdict::error: reshape1's message
  std::string input;    ///< the declared input shape
  std::string pattern;  ///< the pattern as far as it is known
  bool pattern_known = false;  ///< false when its values could not be evaluated
  bool special_zero = false;
  std::string declared;  ///< the declared output shape
  std::string inferred;  ///< reshape1's output shape ("" on error)
  std::vector<std::string> warnings;
  bool blocks_reshape = false;  ///< a hard-coded dimension keeps the model from being reshaped
  std::string hint;
};

struct check_summary {
  std::size_t reshapes = 0, ok = 0, errors = 0, mismatches = 0, refinable = 0, blocking = 0;
};

struct check_report {
  std::vector<finding> findings;
  check_summary summary;
};

/// Checks every Reshape layer of the model (one finding each, never stopping at the first problem).
[[nodiscard]] check_report check_ir(const ir_model& model);

}  // namespace reshape1::io
