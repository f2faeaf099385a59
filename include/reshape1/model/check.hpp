// reshape1::model: the checks of `reshape1 check`: every Reshape layer on its own, and every layer's
// propagated output shapes against the ones the IR declares. Findings are data; the CLI renders them.
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
#include "reshape1/model/graph.hpp"
#include "reshape1/model/propagate.hpp"
#include "reshape1/partial_shape.hpp"
#include "reshape1/reshape.hpp"

namespace reshape1::model {

/// A value a finding's reason names: a number (a port, an axis, a factor, a layer's id) or a text (an op
/// type, a layer's name, a shape, an error's message).
using reason_value = std::variant<std::int64_t, std::string>;
/// What a finding's reason names, each under its name (`port`, `axis`, `factor`...): its numbers first,
/// then its text. A name ending in `_id` is a layer's id.
using reason_args = std::vector<std::pair<std::string, reason_value>>;

/// A reason as data: a stable snake_case code and the values it names (JSON `{"code", "args"}`).
struct coded_reason {
  std::string code;
  reason_args args;
  friend bool operator==(const coded_reason&, const coded_reason&) = default;
};

/// The error a Reshape's inference raised (JSON `error`).
struct reshape_error {
  errc code = errc::invalid_shape;
  std::string message;  ///< reshape1's message
};

/// A Reshape layer's verdict: inference fails (error), the declared output cannot be what the layer
/// computes (shape_mismatch, the same meaning as layer_issue::shape_mismatch), or the two agree but the
/// declared output is less precise than what can be inferred (refinable).
enum class verdict { ok, error, shape_mismatch, refinable };
[[nodiscard]] std::string_view name(verdict v) noexcept;

/// A TensorIterator or Loop whose body holds the layer a finding is about.
struct enclosing_layer {
  std::int64_t id = 0;
  std::string name, type;
  friend bool operator==(const enclosing_layer&, const enclosing_layer&) = default;
};

/// What every finding says, whichever answer it belongs to (reshape_finding and layer_finding of check,
/// batch_finding of check_batch, fix_refusal of fix): the layer, and why as a stable snake_case code with
/// the values it names (JSON `code` and `args`). Each kind adds what it alone says, its sentence among it.
struct finding {
  std::int64_t id = 0;
  std::string name, type;
  std::vector<enclosing_layer> within;  ///< the bodies it is in, outermost first; empty at the top level
  std::string code;
  reason_args args;
};

/// What the checker says of one Reshape layer, at the shapes propagated to it (`type` "Reshape"). `code`
/// says why the verdict: `ok`; for an error its errc's name (name(errc)); for a shape_mismatch
/// `declared_cannot_be`, for refinable `can_be_declared_as` (args: `declared`, `inferred`).
struct reshape_finding : finding {
  verdict result = verdict::ok;
  std::optional<reshape_error> error;  ///< for verdict::error
  partial_shape input;       ///< the data input (symbols removed)
  reshape_pattern pattern = reshape_pattern::unknown();  ///< as far as it is known (symbols removed)
  bool pattern_known = false;  ///< false when its values could not be evaluated
  bool special_zero = false;
  partial_shape declared;
  std::optional<partial_shape> inferred;  ///< nullopt on error
  std::vector<std::string> warnings;
  /// Each warning as a code and the values it names, in the order of `warnings` (docs/cli.md lists them).
  std::vector<coded_reason> warning_codes;
  bool blocks_reshape = false;  ///< a hard-coded dimension keeps the model from being reshaped
  std::string hint;             ///< a change that resolves the verdict or the warnings, "" if none
  /// The hint as a stable code and the values it names (docs/cli.md lists them); "" and none without a hint.
  std::string hint_code;
  reason_args hint_args;
};

/// What the whole-model self-check says of one layer output (or of a layer that lost information).
enum class layer_issue {
  shape_mismatch,  ///< the propagated and declared shapes cannot both hold
  refinable,       ///< they agree, but the declared shape is static where only an interval can be derived
                   ///< (a data-dependent size the IR writes down)
  not_covered,     ///< no rule for the layer's (type, version): its outputs are unknown
  rule_error,      ///< the layer's rule refuses its propagated inputs
};
[[nodiscard]] std::string_view name(layer_issue i) noexcept;

/// `code`: `declared_cannot_be` (shape_mismatch), `declared_more_precise` (refinable: the declaration static
/// where only an interval is derived), `no_rule` (not_covered), or the errc's name of a rule_error
/// (name(errc)); `args` what it names (`port`, `declared`, `propagated`; `type`, `opset`).
struct layer_finding : finding {
  layer_issue issue = layer_issue::shape_mismatch;
  int opset = 0;
  std::int64_t port = -1;  ///< the output port (-1 for not_covered and rule_error)
  partial_shape declared = partial_shape::dynamic();
  partial_shape propagated = partial_shape::dynamic();
  std::string message;  ///< for not_covered and rule_error
};

struct reshape_summary {
  std::size_t count = 0, ok = 0, errors = 0, shape_mismatches = 0, refinable = 0, blocking = 0;
};

struct layer_summary {
  std::size_t count = 0;
  std::size_t propagated = 0;  ///< layers whose outputs all have a known rank
  std::size_t shape_mismatches = 0, refinable = 0, not_covered = 0, rule_errors = 0;
};

struct check_summary {
  reshape_summary reshapes;
  layer_summary layers;
  /// Whether check should exit 1: a Reshape error or shape_mismatch, a layer shape_mismatch or rule_error.
  [[nodiscard]] bool failed() const noexcept {
    return reshapes.errors + reshapes.shape_mismatches + layers.shape_mismatches + layers.rule_errors != 0;
  }
};

struct check_report {
  std::vector<reshape_finding> reshapes;
  std::vector<layer_finding> layers;  ///< in topological order
  check_summary summary;
};

/// The agreement of a declared and a propagated shape: nullopt when they agree exactly enough,
/// shape_mismatch or refinable otherwise (see docs/cli.md).
[[nodiscard]] std::optional<layer_issue> compare(const partial_shape& declared, const partial_shape& propagated);

/// Propagates through the model and checks every Reshape and every layer output, inside the bodies of
/// TensorIterator and Loop layers too (their layers are counted in the summaries).
[[nodiscard]] check_report check(const graph& g);
[[nodiscard]] check_report check(const graph& g, const propagation& p);

}  // namespace reshape1::model
