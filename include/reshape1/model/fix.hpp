// reshape1::model: what `reshape1 fix` reports, for an OpenVINO IR and an ONNX model alike: the Reshape
// patterns it rewrote so that the model reshapes to another batch, the layers it left alone, and the
// proof. fix itself is in reshape1/onnx.hpp, the component that reads and writes both formats.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "reshape1/model/batch.hpp"
#include "reshape1/model/graph.hpp"
#include "reshape1/partial_shape.hpp"

namespace reshape1::model {

/// Where fix is, for a progress display (fix_options::progress).
struct fix_progress {
  std::string_view stage;   ///< "checking", "judging rewrites", "proving", "writing"
  std::size_t layers = 0;   ///< the model's layers
  std::size_t round = 0;    ///< the current round of rewrites (from 1), 0 before the first
  std::size_t tried = 0;    ///< rewrites judged so far (one judged in a group counts once)
  std::size_t kept = 0;     ///< rewrites kept so far
  std::string_view batch;   ///< "proving": the batch being checked ("8", "?"), "" otherwise
  std::string_view shapes;  ///< "proving" new sizes: the shapes being checked ("x=[1,3,64,96]"), "" otherwise
  /// "judging rewrites": how many of the round's rewrites have been judged, of how many it plans (a
  /// rewrite judged again, alone after its group failed, is not counted twice: at most round_rewrites).
  std::size_t round_tried = 0, round_rewrites = 0;
  /// "proving": the batch's (or shapes') place among those checked (from 1), and their number.
  std::size_t batch_index = 0, batches = 0;
};

struct fix_options {
  /// The batches the fixed model must reshape to (`?` is a dynamic batch). Empty: 1, 2, 8 and ?, unless
  /// `shapes` are given.
  std::vector<dimension> check_batches{};
  /// New sizes (`fix --shape`): shapes by input name, as check_batch's request takes them (`?`, intervals,
  /// named sizes `?@H`; an empty name is the only input of a one-input model). Given: fix rewrites the
  /// Reshape patterns that keep the model from computing at these sizes what it computes at the declared
  /// ones (sizes an export wrote as constants) with 0 and -1, and proves the result at them and at
  /// `check_shapes`; check_batches must then be empty (error(invalid_argument)).
  std::vector<std::pair<std::string, partial_shape>> shapes{};
  /// With `shapes`: samples the fixed model is checked at too, each some inputs' shapes by name (the others at the
  /// first default sample). Empty: two, where the sizes that change are their declared sizes times 2 and 3
  /// in turn, then 3 and 4, each moved on until no two sizes are equal at a sample (where their intervals
  /// allow).
  std::vector<std::vector<std::pair<std::string, partial_shape>>> check_shapes{};
  /// Constants the caller vouches are meant to stay as they are at every size, as check_batch's request
  /// takes them (reshape_request::assume_constant).
  std::vector<std::string> assume_constant{};
  /// Layouts by input name, as for check_batch: the dimension named N is the batch (an ONNX model without
  /// one: the axis holding the first input's batch dim_param, or 0).
  std::vector<std::pair<std::string, std::string>> layouts{};
  /// Called at each stage and each group of rewrites judged (from the calling thread; keep it cheap).
  /// `layers` counts the layers of the model as read (for ONNX, as lowered).
  std::function<void(const fix_progress&)> progress{};
  /// An IR's weights: empty for the .xml's path with .bin (model::weights_of). An ONNX model has none:
  /// error(invalid_argument) when given.
  std::filesystem::path bin{};
  /// ONNX: the dim_param the batch becomes in the graph's inputs, outputs and value_info; none is "N". An
  /// IR declares no names: error(invalid_argument) when given, as for an empty name.
  std::optional<std::string> batch_name{};
  /// For an ONNX model in memory: the directory its external data is looked for in (as onnx::read's
  /// base_dir). error(invalid_argument) for a model read from a file, whose data lies beside it.
  std::filesystem::path base_dir{};
  /// How the report's hints and the errors name these fields: as the API's (`check_batches=[...]`) or as the
  /// command line's flags (`--check-batch ...`).
  option_spelling spelling = option_spelling::api;
};

/// Where an IR's rewrite wrote its value: the Const `const_id` (a clone of `cloned_from` when that one fed
/// other layers too); `special_zero_set` when the Reshape's special_zero went from false to true.
struct ir_edit {
  std::int64_t const_id = 0;  ///< JSON `const`; 0 for a pattern computed from the input's shape
  std::optional<std::int64_t> cloned_from;
  bool special_zero_set = false;
};

/// Where an ONNX model's rewrite wrote its value: the tensor `tensor` (an initializer, or a Constant node's
/// value; a copy of `cloned_from` when other nodes share that one); `allowzero_cleared` when the Reshape's
/// allowzero went from 1 to 0, so that 0 copies the batch.
struct onnx_edit {
  std::string tensor;
  std::optional<std::string> cloned_from;
  bool allowzero_cleared = false;
};

/// One rewritten Reshape pattern: element `element` of its pattern went from `old_value` (the declared
/// batch) to `new_value` (0 copies the batch; -1 where 0 cannot be written or does not keep it).
struct fix_change {
  /// The Reshape's id, as findings give it (for ONNX its node's index in the top graph; a node of an If
  /// branch is numbered after the top graph's nodes); in a body, its id there, with `within`.
  std::int64_t id = 0;
  std::string name;
  /// The layer's op type: "Reshape"; with new sizes also an IR's "Interpolate" or an ONNX "Resize", whose
  /// sizes fix computes (then the patterns below are those sizes).
  std::string type = "Reshape";
  std::string old_pattern, new_pattern;  ///< the Reshape's pattern before and after, in the notation
  std::size_t element = 0;
  std::int64_t old_value = 0, new_value = 0;
  /// New sizes: the pattern computed from the shape of the Reshape's input (`shape`), in the notation
  /// `[1,2,24,shape[2],shape[3]]`, by layers fix adds (IR: ShapeOf-3, Gather-8, Multiply-1, Divide-1,
  /// Concat-1; ONNX: Shape, Gather, Mul, Div, Concat); "" when one element was rewritten (then `element`,
  /// `old_value` and `new_value` say which; they are 0 here).
  std::string computed;
  std::string why;
  /// The bodies the Reshape is in, outermost first; empty at the top level. An IR's Const is in the same
  /// body, but for a pattern the body takes unchanged from around it (then `ir_edit::const_id` is of that graph).
  std::vector<enclosing_layer> within{};
  /// What the format wrote: the file's own words for it.
  std::variant<ir_edit, onnx_edit> edit{};
};

/// A layer that keeps the model from reshaping and that fix left alone, with the reason: `code` as docs/cli.md
/// lists them for `fix` (`computed_not_const`, `batch_finding`...), `args` what it names.
struct fix_refusal : finding {
  std::string reason;  ///< the sentence, written from the code and its args
};

/// What fix writes for an IR: the .xml's text, and the bytes appended to the original .bin (`bin`).
struct ir_output {
  std::string xml;
  std::vector<std::byte> appended;
  std::filesystem::path bin;  ///< the weights the model was read with
};

/// What fix writes for an ONNX model: the file's bytes. `freed`: the declared dimensions that became the
/// batch's dim_param, `input 'x' dimension 0` (inputs, then outputs, then value_info), or were cleared
/// (they hold N·k): `value_info 'y' dimension 1 cleared`.
struct onnx_output {
  std::string model;
  std::vector<std::string> freed;
};

struct fix_report {
  /// The model already reshapes at every checked batch: nothing is rewritten (nor freed).
  bool nothing_to_do = false;
  /// The fixed model, read back from the bytes to be written, reshapes at every checked batch, has the
  /// original's shapes at the declared inputs, and at each numeric batch those shapes with the batch scaled.
  bool fixed = false;
  std::vector<fix_change> changes;
  std::vector<fix_refusal> refusals;
  /// `reshapes to batch B: ...` for each checked batch, on the fixed model (on the model itself when
  /// nothing changed).
  std::vector<std::string> checked;
  /// What the format writes: empty unless `fixed` and something changed (a model not proven at every
  /// checked batch is never written, even when some rewrites were kept: `changes` then lists them).
  std::variant<ir_output, onnx_output> output{};

  /// Whether there is a fixed model to write.
  [[nodiscard]] bool writes() const noexcept;
  /// The files write_fixed writes for output `out`, in the order a reader should be told of them: an IR's
  /// .xml and its .bin beside it; an ONNX model's file.
  [[nodiscard]] std::vector<std::filesystem::path> files(const std::filesystem::path& out) const;
  /// The freed dimensions (ONNX); empty for an IR, whose inputs declare no names.
  [[nodiscard]] std::span<const std::string> freed() const noexcept;
};

// The entry points (fix, check_fix_output, write_fixed) read and write either format, so they are in the
// component that reads both: reshape1/onnx.hpp.

}  // namespace reshape1::model
