// reshape1::model: will a model reshape to another batch (or to other input shapes), and will every layer
// keep its meaning? The analysis behind `reshape1 check --batch N` and `--shape NAME=SHAPE`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "reshape1/error.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/model/graph.hpp"
#include "reshape1/model/propagate.hpp"
#include "reshape1/partial_shape.hpp"

namespace reshape1::model {

/// What to reshape the model to, as `model.reshape(...)` / `ov::set_batch` would be asked.
struct reshape_request {
  /// The new batch (a number, `?`, or an interval), set at the batch index of every input that has one.
  /// nullopt: only `shapes` change.
  std::optional<dimension> batch{};
  /// New shapes by Parameter name; an empty name stands for the only Parameter of a one-input model.
  std::vector<std::pair<std::string, partial_shape>> shapes{};
  /// Layouts by Parameter name (`NCHW`, `[N,C,H,W]`, `TN`, `...C`): the dimension named N is the batch.
  std::vector<std::pair<std::string, std::string>> layouts{};
  /// Op types the caller vouches for (`--assume-kept TYPE`): each output of such a layer holds the batch
  /// at the axis and factor its first batched input holds it, as an elementwise op would.
  std::vector<std::string> assume_kept{};
  /// Constants the caller vouches are meant to stay as they are at every size (`--assume-constant NAME`):
  /// by name (an ONNX initializer's or Constant's output, an IR Const's) or `#ID`. At new sizes, a constant
  /// that equals a size that changes is a finding unless vouched for (see check_batch).
  std::vector<std::string> assume_constant{};
  /// How the report's hints and the errors name these fields: as the API's (`layouts['x']=NCHW`) or as the
  /// command line's flags (`--layout x=NCHW`).
  option_spelling spelling = option_spelling::api;
};

/// Where an input's batch index comes from.
enum class batch_source {
  layout_option,    ///< a layout the caller gave (`--layout`)
  layout_in_model,  ///< the layout in the port's rt_info
  first_dimension,  ///< no layout: dimension 0
  none,             ///< rank 0, unknown rank, or a layout without N: the input has no batch
};
[[nodiscard]] std::string_view name(batch_source s) noexcept;

struct input_report {
  std::size_t layer = 0;  ///< index into graph::layers()
  std::int64_t id = 0;
  std::string name;
  partial_shape declared;
  partial_shape requested;  ///< the shape propagation starts from
  std::optional<std::size_t> batch_index;
  batch_source source = batch_source::none;
  std::string layout;  ///< the layout used, "" when none
};

/// How a tensor holds the batch N, found by propagating with N at several values: a dimension carries
/// the batch when it is N·k for one known k at every value.
struct batch_carrier {
  enum class kind {
    unknown,  ///< a rank or a dimension could not be propagated
    none,     ///< no dimension carries the batch
    one,      ///< exactly one dimension does: the tensor keeps the batch
    several,  ///< more than one does
  };
  kind state = kind::unknown;
  std::size_t axis = 0;     ///< for `one`: the dimension
  std::int64_t factor = 0;  ///< for `one`: k in N·k
  friend bool operator==(const batch_carrier&, const batch_carrier&) = default;
};

enum class batch_issue {
  fails,              ///< shape inference fails at the new shapes: OpenVINO would refuse the reshape
  swallows_batch,     ///< a Reshape folds the batch into other factors, or a constant replaces it, and a
                      ///< later layer or a model output depends on it: every layer runs, with wrong meaning
  scales_with_batch,  ///< not a fault: a data-dependent output (post-processing) whose size grows with N,
                      ///< each image's results kept apart (an image-id column, a per-image slot)
  mixes_samples,      ///< a layer computes across the batch axis (reduces, sorts, normalises, contracts,
                      ///< scans, pads or concatenates along it), or meets two batches at different axes
  drops_samples,      ///< a layer selects along the batch axis with indices or bounds that do not follow it
  loses_batch,        ///< a model output does not hold the batch at its batch axis
  fails_at_declared,  ///< the layer's rule already fails at the declared shapes
  cannot_tell,        ///< no rule decides: an op without a batching rule, an unknown value that decides it,
                      ///< data-dependent control flow
};
[[nodiscard]] std::string_view name(batch_issue i) noexcept;

/// The answer of check_batch: `yes` only when proven for every batch of the request.
enum class batch_verdict { yes, no, cannot_tell };
[[nodiscard]] std::string_view name(batch_verdict v) noexcept;


/// `code`: for `fails` and `fails_at_declared` the error code's name (name(errc)), else the reason
/// (`reduces_batch`, `replaces_batch`, `output_batch_elsewhere`...); `args` what it names (for `fails`:
/// nothing; `what` gives the message).
struct batch_finding : finding {
  batch_issue issue = batch_issue::fails;
  std::size_t layer = 0;  ///< index into the layers of its graph (the model's, or the body `within` names)
  int opset = 0;
  std::string what;          ///< what happens, naming the layer, dimensions and values involved
  std::string hint;          ///< a change that resolves it, "" when there is none to give
  /// The hint as a stable code and the values it names (docs/cli.md, "Hint codes", lists them); "" and none without a hint.
  std::string hint_code;
  reason_args hint_args;
  std::string at;            ///< for `fails`: the batch it fails at ("8", "?", or the example batch 2)
  /// Where the offending value comes from: the Const that holds it, or the layer that computes it.
  std::optional<std::int64_t> source_id;
  std::string source;
  /// For `swallows_batch` and `scales_with_batch`: the layer (or model output) that uses the dimension.
  std::optional<std::int64_t> used_by_id;
  /// For a `fails` that follows from a Reshape upstream that hard-codes or folds the batch.
  std::optional<std::int64_t> cause_id;
  /// For a Reshape: the pattern element that writes the declared batch as a constant where the input
  /// has the batch (what `reshape1 fix` rewrites).
  std::optional<std::size_t> pattern_index;
  /// For mixes_samples and drops_samples: the input port, and the axis of it that holds the batch.
  std::optional<std::size_t> port, axis;
};

/// A model output at the new shapes.
struct output_report {
  std::size_t layer = 0;  ///< the Result layer, index into graph::layers()
  std::int64_t id = 0;
  std::string name;
  partial_shape declared;  ///< as propagated at the declared shapes
  partial_shape reshaped;  ///< as propagated at the new shapes
  batch_carrier batch;     ///< how it holds the batch (unknown when no input has a batch index)
};

struct batch_summary {
  std::size_t fails = 0, swallows_batch = 0, scales_with_batch = 0;
  std::size_t mixes_samples = 0, drops_samples = 0, loses_batch = 0, cannot_tell = 0;
  /// Layers whose rule already fails at the declared shapes (each a fails_at_declared finding).
  std::size_t failing_at_declared = 0;
  /// no: some finding proves a violation; cannot_tell: none does, but some layer could not be decided.
  [[nodiscard]] batch_verdict verdict() const noexcept {
    if (fails + swallows_batch + mixes_samples + drops_samples + loses_batch + failing_at_declared != 0)
      return batch_verdict::no;
    return cannot_tell != 0 ? batch_verdict::cannot_tell : batch_verdict::yes;
  }
  /// The verdict is yes.
  [[nodiscard]] bool reshapes() const noexcept { return verdict() == batch_verdict::yes; }
};

struct batch_report {
  std::string target;  ///< "batch 8", "batch ?", or "the given shapes"
  std::vector<input_report> inputs;
  std::vector<output_report> outputs;
  std::vector<batch_finding> findings;  ///< in topological order of their layers
  batch_summary summary;
  /// Per layer of the model and output: how it holds the batch (empty when the batch does not change).
  std::vector<std::vector<batch_carrier>> carriers;
  /// What the verdict does not say but a user needs to know: for an ONNX model, the inputs that declare
  /// a static batch other than the one asked for, which ONNX Runtime refuses until the dimension is
  /// freed (a dim_param). Never a reason for "no".
  std::vector<std::string> notes;
  /// `reshapes to batch 8: yes`, `reshapes to batch 8: no: 3 layers fail, 2 Reshapes swallow the batch`, or
  /// `reshapes to batch 8: cannot tell: 1 layer has no batching rule`.
  [[nodiscard]] std::string summary_line() const;
};

/// A batch as `--batch` and Python's `batch=` take it (also each of `--check-batch` and `check_batches`):
/// a number, `?` or `-1` for a dynamic batch, an interval `1..8`. error(syntax) for "" ("WHERE: an empty
/// batch") or a text that is not a batch ("WHERE: not a batch"), `where` naming the option and the value
/// as the caller spells them (`--batch x`, `batch x`): one parser, so the command line and Python refuse
/// the same texts with the same words.
[[nodiscard]] dimension parse_batch(std::string_view text, std::string_view where);

/// Propagates the model at the requested shapes and says what breaks. Where a size other than the batch
/// changes (an image's height, a sequence's length), a constant the model reads as a size, bound, count or
/// index (a Reshape's pattern, a Slice's end, a scalar divisor, a pooling window) that equals, at the
/// declared shapes, a size that changes cannot tell: a fixed-shape export may have written it where the
/// program computed it. error(invalid_argument) for a request that names no input of the model, names one
/// twice, gives a layout that does not fit the input's rank, gives a shape whose batch disagrees with
/// `batch`, or vouches for a constant the model does not have.
[[nodiscard]] batch_report check_batch(const graph& g, const reshape_request& request);

/// The index of the batch (N) in a layout written as OpenVINO writes them (`NCHW`, `[N,C,H,W]`, `...N`),
/// for a shape of the given rank; nullopt when the layout has no N. error(invalid_argument) for a layout
/// that cannot be read or does not fit the rank.
[[nodiscard]] std::optional<std::size_t> batch_index_of(std::string_view layout, std::optional<std::size_t> rank);

}  // namespace reshape1::model
