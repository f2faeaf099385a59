// reshape1::onnx: ONNX models read with ONNX's own library and lowered to the operations reshape1's
// model layer knows, so that `check`, `check --batch` and propagation work on them as on an OpenVINO IR.
// A separate component: embedders of the core and of the IR reader need no protobuf.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reshape1/model/graph.hpp"

namespace reshape1::onnx {

/// Reads an .onnx file and lowers it. Each node becomes the registry op OpenVINO's ONNX frontend would
/// make of it, or a few; the layer that computes a node's first output has the node's index as its id
/// and every layer of a node has the node's name (its first output's name when it has none). A node
/// with no translation (another domain, or a version reshape1 does not cover) becomes a layer no rule
/// covers: `check` reports it, and `check --batch` cannot tell past it.
/// Errors: error(io); error(bad_file) for a file protobuf cannot parse, a node input nothing computes,
/// or external data whose location leaves the model's directory; error(unsupported) for a file of
/// 2 GiB or more (protobuf's limit) and for data types reshape1 has no name for.
[[nodiscard]] model::graph read(const std::filesystem::path& file);
/// The same for a model in memory; `name` is used in messages, and external data is looked for in its
/// directory.
[[nodiscard]] model::graph read(std::span<const std::byte> bytes, const std::string& name);

/// Whether these first bytes of a file look like an ONNX model (a protobuf ModelProto) rather than XML.
[[nodiscard]] bool looks_like_onnx(std::span<const std::byte> head) noexcept;

/// Reads a model file of either format, told apart by its content rather than its name: an OpenVINO IR
/// (.xml; its weights are `bin`, or the file with .bin when `bin` is empty) or an ONNX model (`bin` must
/// then be empty: error(invalid_argument)). A file that is neither is error(bad_file) saying what it looks
/// like (empty, a Git LFS pointer, an archive, ...).
[[nodiscard]] model::graph read_any(const std::filesystem::path& file, const std::filesystem::path& bin = {});

/// Every (op_type, since_version) of the default ONNX domain reshape1 translates, sorted.
[[nodiscard]] std::vector<std::pair<std::string_view, int>> covered_ops();

}  // namespace reshape1::onnx
