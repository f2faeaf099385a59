// reshape1::onnx: ONNX models read with ONNX's own library and lowered to the operations reshape1's
// model layer knows, so that `check`, `check --batch` and propagation work on them as on an OpenVINO IR.
// A separate component: embedders of the core and of the IR reader need no protobuf.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reshape1/model/fix.hpp"
#include "reshape1/model/graph.hpp"
#include "reshape1/partial_shape.hpp"

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
/// The same for a model in memory; `name` is used in messages. External data is looked for in `base_dir`,
/// or when that is empty in the name's directory. A name without one ("<ONNX bytes>") and no base_dir
/// leave the model no directory: external data is refused (error(bad_file)), as reading whatever file of
/// the working directory the bytes name would be.
[[nodiscard]] model::graph read(std::span<const std::byte> bytes, const std::string& name,
                                const std::filesystem::path& base_dir = {});

/// Whether these first bytes of a file look like an ONNX model (a protobuf ModelProto) rather than XML.
[[nodiscard]] bool looks_like_onnx(std::span<const std::byte> head) noexcept;

/// The format a file's content says it is (standard input, "-", is read as an IR). A file that is neither
/// is error(bad_file) saying what it looks like (empty, a Git LFS pointer, an archive, ...).
[[nodiscard]] model::model_format format_of(const std::filesystem::path& file);

/// Reads a model file of either format, told apart by its content rather than its name: an OpenVINO IR
/// (.xml; its weights are `bin`, or the file with .bin when `bin` is empty) or an ONNX model (`bin` must
/// then be empty: error(invalid_argument)). A file that is neither is error(bad_file) saying what it looks
/// like (empty, a Git LFS pointer, an archive, ...).
[[nodiscard]] model::graph read_any(const std::filesystem::path& file, const std::filesystem::path& bin = {},
                                    const std::filesystem::path& base_dir = {});

struct fix_options {
  /// The batches the fixed model must reshape to (`?` is a dynamic batch). Empty: 1, 2, 8 and ?.
  std::vector<dimension> check_batches{};
  /// The dim_param the batch becomes in the graph's inputs, outputs and value_info.
  std::string batch_name = "N";
  /// Layouts by input name, as for check_batch: the dimension named N is the batch (otherwise the axis
  /// holding the first input's batch dim_param, or 0).
  std::vector<std::pair<std::string, std::string>> layouts{};
  /// Called at each stage and each group of rewrites judged, as for the IR fix (from the calling thread;
  /// keep it cheap). `layers` counts the layers of the model as lowered.
  std::function<void(const model::fix_progress&)> progress{};
  /// For a model in memory: the directory its external data is looked for in (as `read`'s base_dir).
  /// error(invalid_argument) for a model read from a file, whose data lies beside it.
  std::filesystem::path base_dir{};
};

/// One rewritten Reshape shape: element `element` of the tensor `tensor` (an initializer, or a Constant
/// node's value) went from `old_value` (the declared batch) to `new_value` (0 copies the batch, with
/// allowzero cleared where it was 1; -1 where 0 cannot be written or does not keep the batch).
struct fix_change {
  /// The Reshape's id, as findings give it: its node's index in the top graph (a node of an If branch is
  /// numbered after the top graph's nodes); in a Loop's or Scan's body, its id there, with `within`.
  std::int64_t node = 0;
  std::string name;
  std::string old_pattern, new_pattern;
  std::string tensor;                      ///< the tensor that now holds the new value
  std::optional<std::string> cloned_from;  ///< the shared tensor it is a copy of, if any
  std::size_t element = 0;
  std::int64_t old_value = 0, new_value = 0;
  bool allowzero_cleared = false;  ///< the Reshape's allowzero went from 1 to 0, so that 0 copies the batch
  std::string why;
  std::vector<model::enclosing_layer> within{};  ///< the Loop and Scan bodies it is in, outermost first
};

struct fix_report {
  /// Nothing to rewrite and nothing to free: the model already runs at every checked batch.
  bool nothing_to_do = false;
  /// The fixed model, read back from its bytes, reshapes at every checked batch, has the original's shapes
  /// at the original's declared inputs, and at each numeric batch those shapes with the batch scaled.
  bool fixed = false;
  std::vector<fix_change> changes;
  std::vector<model::fix_refusal> refusals;  ///< ids are node indices
  /// The declared dimensions that became the dim_param, `input 'x' dimension 0` (inputs, then outputs, then
  /// value_info), or were cleared (they hold N·k): `value_info 'y' dimension 1 cleared`.
  std::vector<std::string> freed;
  /// `reshapes to batch B: ...` for each checked batch, on the fixed model (on the model itself when
  /// nothing changed).
  std::vector<std::string> checked;
  /// The fixed file's bytes: empty unless `fixed` and something changed.
  std::string model;
};

/// `reshape1 fix` for an ONNX file: rewrites the Reshape shapes that write the declared batch as a
/// constant (cloning a tensor other nodes share), gives the inputs' batch and every declared dimension
/// that carries it the dim_param, and proves the result: the bytes that would be written, read back,
/// must reshape at every checked batch. Writes nothing.
[[nodiscard]] fix_report fix(const std::filesystem::path& file, const fix_options& options = {});
/// The same for a model in memory (`name` in messages; external data is looked for in its directory, and
/// refused when the name has none, as `read` does).
[[nodiscard]] fix_report fix(std::span<const std::byte> bytes, const std::string& name, const fix_options& options = {});

/// The checks write_fixed makes before it writes anything, for a caller to make before fix's analysis too:
/// `out` ends in .onnx, is not the model `in`, and is not a directory, a FIFO, a device or anything else
/// that is not a regular file. error(invalid_argument) naming `out` and what is wrong with it.
void check_fix_output(const std::filesystem::path& in, const std::filesystem::path& out);

/// Writes `report.model` to `out` through a temporary file renamed into place. A model with external data
/// written to another directory gets its data files beside it first (hard-linked, or copied; a different
/// file already there is refused). Rewritten tensors are always inline. error(invalid_argument) when there
/// is nothing to write or check_fix_output refuses `out`; error(io) from the system.
void write_fixed(const fix_report& report, const std::filesystem::path& in, const std::filesystem::path& out);

/// Every (op_type, since_version) of the default ONNX domain reshape1 translates, sorted.
[[nodiscard]] std::vector<std::pair<std::string_view, int>> covered_ops();

}  // namespace reshape1::onnx
