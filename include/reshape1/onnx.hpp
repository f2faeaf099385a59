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
#include "reshape1/model/shapes.hpp"
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
[[nodiscard]] model::graph read(const std::filesystem::path& file,
                                model::option_spelling spelling = model::option_spelling::api);
/// The same for a model in memory; `name` is used in messages. External data is looked for in `base_dir`,
/// or when that is empty in the name's directory. A name without one ("<ONNX bytes>") and no base_dir
/// leave the model no directory: external data is refused (error(bad_file)), as reading whatever file of
/// the working directory the bytes name would be.
[[nodiscard]] model::graph read(std::span<const std::byte> bytes, const std::string& name,
                                const std::filesystem::path& base_dir = {},
                                model::option_spelling spelling = model::option_spelling::api);

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
                                    const std::filesystem::path& base_dir = {},
                                    model::option_spelling spelling = model::option_spelling::api);

/// `reshape1 fix` on a model of either format, told apart by content as read_any does: rewrites the Reshape
/// patterns that write the declared batch as a constant (cloning a constant other layers share) and proves
/// the result (docs/cli.md, `fix`). An IR's rewrites go into its Consts, their bytes appended to the .bin,
/// and the rewritten .xml is read back with them for the proof. An ONNX model's go into its initializers
/// and Constant nodes; its inputs' batch and every declared dimension that carries it become the dim_param
/// `batch_name`, and the bytes that would be written, read back, must reshape at every checked batch.
/// Writes nothing. The file is read twice (not "-": error(invalid_argument)); an IR's weights are
/// `options.bin`, or beside it (model::weights_of).
[[nodiscard]] model::fix_report fix(const std::filesystem::path& file, const model::fix_options& options = {});
/// The same for an ONNX model in memory (`name` in messages; external data is looked for in
/// `options.base_dir`, or the name's directory, and refused when the name has none, as `read` does). The
/// bytes are read as ONNX (an IR is fixed from its files); `options.bin` is refused.
[[nodiscard]] model::fix_report fix(std::span<const std::byte> bytes, const std::string& name,
                                    const model::fix_options& options = {});

/// The checks fix makes before it reads the model (it looks only at the file's first bytes, for its format),
/// for a caller to make before its own: `file` is not "-",
/// and the options fit its format (fix_options::bin only for an IR, batch_name only for ONNX, base_dir for neither),
/// an IR's weights are there. error(invalid_argument), or as format_of and model::weights_of refuse.
void check_fix_input(const std::filesystem::path& file, const model::fix_options& options);

/// The checks write_fixed makes before it writes anything, for a caller to make before fix's analysis too:
/// `out` ends in the model's extension (.xml, .onnx); neither it nor, for an IR, the .bin beside it is one
/// of the model's files (`in`, and an IR's weights `bin`, empty for beside the .xml), nor a directory, a
/// FIFO, a device or anything else that is not a regular file (a regular file is replaced; a missing one is
/// created). error(invalid_argument) naming the output and what is wrong with it (and its options as
/// `spelling` writes them).
void check_fix_output(const std::filesystem::path& in, const std::filesystem::path& bin,
                      const std::filesystem::path& out, model::option_spelling spelling = model::option_spelling::api);

/// Writes the fixed model to `out` (report.files(out)), each file through a temporary file renamed into
/// place. An IR: the .bin first (the original bytes, then the new ones), then the .xml, so an interrupted
/// run never leaves an .xml pointing into a missing or short .bin. An ONNX model with external data written
/// to another directory gets its data files beside it first (hard-linked, or copied; a different file
/// already there is refused); rewritten tensors are always inline. error(invalid_argument) when there is
/// nothing to write or check_fix_output refuses `out`; error(io) from the system.
void write_fixed(const model::fix_report& report, const std::filesystem::path& in, const std::filesystem::path& out);

/// `reshape1 shapes` on a model of either format (told apart by content): every tensor a layer computes and
/// the shape propagation gives it, from the declared inputs or `options.shapes`; with `options.copy`, also
/// a copy of the model that declares those shapes (shapes_report::output). Errors as read_any's, and
/// check_batch's for `options.shapes`; the file is not "-" (error(invalid_argument)).
[[nodiscard]] model::shapes_report shapes(const std::filesystem::path& file, const model::shapes_options& options = {});
/// The same for an ONNX model in memory (`name` in messages; external data as for `read`).
[[nodiscard]] model::shapes_report shapes(std::span<const std::byte> bytes, const std::string& name,
                                          const model::shapes_options& options = {});

/// The checks write_shapes makes before it writes anything, for a caller to make before the analysis too:
/// check_fix_output's (for an IR, `out` ends in .xml and the .bin beside it is written too; `bin` is the
/// model's weights, empty for beside it, and refused for ONNX).
void check_shapes_output(const std::filesystem::path& in, const std::filesystem::path& bin,
                         const std::filesystem::path& out, model::option_spelling spelling = model::option_spelling::api);

/// Writes the copy of the model with its shapes (report.output) to `out`, as write_fixed writes a fixed
/// model (through temporary files; an IR's .bin, the original bytes, then its .xml; an ONNX model's
/// external data brought beside it). error(invalid_argument) for a report without a copy or when
/// check_shapes_output refuses `out`; error(io).
void write_shapes(const model::shapes_report& report, const std::filesystem::path& in, const std::filesystem::path& out);

/// One version of an ONNX operator in reshape1's list: every schema version of ONNX's default domain up to
/// opset 26, and the com.microsoft ops ONNX Runtime's CPU provider runs.
struct op_version {
  std::string_view domain;  ///< "ai.onnx" (the default domain) or "com.microsoft"
  std::string_view op_type;
  int since_version = 0;
  bool onnx_runtime = false;  ///< ONNX Runtime runs it (with a kernel, or through ONNX's function body)
  /// The since_version of the translation that covers it; nullopt when there is none.
  std::optional<int> translated_from;
  /// When reshape1 leaves it to "cannot tell": why (its outputs depend on data no rule reads), or "" when
  /// there is no translation yet.
  std::string_view not_translated;
};

/// The list, sorted by domain, op_type, since_version.
[[nodiscard]] std::vector<op_version> op_versions();

}  // namespace reshape1::onnx
