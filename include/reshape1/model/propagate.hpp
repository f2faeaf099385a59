// reshape1::model: shape propagation through every layer of a model, as OpenVINO's shape inference does
// after model.reshape(), on partial shapes, with the values of small integer tensors on shape paths.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reshape1/error.hpp"
#include "reshape1/model/graph.hpp"
#include "reshape1/partial_shape.hpp"
#include "reshape1/reshape.hpp"

namespace reshape1::model {

/// One element of a known tensor: its bounds (no_lower / no_upper when unbounded), the symbol of the
/// dimension it was read from (ShapeOf), and whether only constants went into it (a hard-coded value).
struct element_bound {
  static constexpr std::int64_t no_lower = std::numeric_limits<std::int64_t>::min();
  static constexpr std::int64_t no_upper = std::numeric_limits<std::int64_t>::max();
  std::int64_t lo = no_lower;
  std::int64_t hi = no_upper;
  decltype(pattern_bound::symbol) symbol;  ///< the same symbol type as a pattern's bounds and dimensions
  bool constant = false;
  [[nodiscard]] bool exact() const noexcept { return lo == hi; }
  friend bool operator==(const element_bound&, const element_bound&) = default;
};

/// The elements of a small tensor in row-major order: integer bounds, or (for real constants) `reals`.
struct tensor_value {
  std::vector<element_bound> elements;
  std::vector<double> reals;  ///< set instead of `elements` for a floating-point Const
  /// Per real, whether a dimension went into it (element_bound::constant, the other way round): a real
  /// computed from a ShapeOf, converted to f32 and scaled, is not a hard-coded value. Empty: none did.
  std::vector<bool> reals_computed;
  [[nodiscard]] bool real_constant(std::size_t i) const noexcept { return i >= reals_computed.size() || !reals_computed[i]; }
  /// Appends a real, and whether only constants went into it.
  void push_real(double x, bool constant) {
    if (!constant && reals_computed.size() < reals.size()) reals_computed.resize(reals.size(), false);
    reals.push_back(x);
    if (!reals_computed.empty() || !constant) reals_computed.push_back(!constant);
  }
  [[nodiscard]] bool is_real() const noexcept { return !reals.empty() && elements.empty(); }
  friend bool operator==(const tensor_value&, const tensor_value&) = default;
};

/// What propagation knows of one output port.
struct tensor {
  partial_shape shape = partial_shape::dynamic();
  std::optional<element_type> type;
  std::optional<tensor_value> value;
};

/// Why a layer's outputs are unknown: no rule for its (type, version), or its rule refused the inputs.
struct lost_information {
  std::size_t layer = 0;  ///< index into graph::layers()
  bool not_covered = false;
  errc code = errc::unsupported;
  std::string message;  ///< the whole message, `where: what; hint` (error::what())
  std::string hint;     ///< its hint alone (error::hint()), "" when it has none
  std::string reason;   ///< the message without the layer it names in front: the rule's own `what; hint`
};

namespace detail {
struct layer_outputs_access;  // fix's propagation in place grows and shrinks it with its graph
}

/// Every layer's output tensors: outputs[layer index][output index]. They are held in blocks of layers
/// that copies share until one of them writes (the non-const operator[] copies the block first).
class layer_outputs {
 public:
  layer_outputs() = default;
  /// An unknown tensor for each output of each layer of g.
  explicit layer_outputs(const graph& g);
  [[nodiscard]] std::span<const tensor> operator[](std::size_t layer) const noexcept {
    const auto& b = *blocks_[layer / block_layers];
    return {b.data() + (first_[layer] - first_[layer / block_layers * block_layers]), first_[layer + 1] - first_[layer]};
  }
  /// Layer `layer`'s tensors to write: its block is copied first when another layer_outputs shares it.
  [[nodiscard]] std::span<tensor> operator[](std::size_t layer);
  /// The number of layers.
  [[nodiscard]] std::size_t size() const noexcept { return first_.empty() ? 0 : first_.size() - 1; }

 private:
  friend struct detail::layer_outputs_access;
  static constexpr std::size_t block_layers = 64;
  std::vector<std::shared_ptr<std::vector<tensor>>> blocks_;  // block k: layers [k·64, (k+1)·64)
  std::vector<std::size_t> first_;  // layer i's tensors are [first_[i], first_[i + 1]) counted over all blocks
};

struct propagation {
  layer_outputs outputs;
  /// Per layer: whether a Parameter is among its ancestors (or itself).
  std::vector<bool> follows_inputs;
  /// Every layer whose outputs became unknown by itself (not because an input was unknown), in order.
  std::vector<lost_information> lost;
  /// For a TensorIterator or Loop: what propagation knows inside its body (at the last iteration it
  /// propagated). Empty when the graph has no such layer; else one per layer, null for the others.
  std::vector<std::shared_ptr<const propagation>> bodies;
  [[nodiscard]] const tensor& input(const graph& g, const layer& l, std::size_t port) const;
  /// The body propagation of layer `layer` (index into graph::layers()), or nullptr.
  [[nodiscard]] const propagation* body(std::size_t layer) const noexcept;
};

/// Propagates from the shapes each Parameter declares. Never throws for a well-read graph: rule
/// failures become `lost` entries.
[[nodiscard]] propagation propagate(const graph& g);

/// A shape given to a Parameter in place of the one it declares (what model.reshape() does).
struct input_shape {
  std::size_t layer = 0;  ///< index into graph::layers() of a Parameter
  partial_shape shape;    ///< its dynamic dimensions keep their symbols; the others get one each
};

/// Propagates with some Parameters' shapes replaced. error(invalid_argument) when an entry names a
/// layer that is not a Parameter, or the same Parameter twice.
[[nodiscard]] propagation propagate(const graph& g, std::span<const input_shape> inputs);

/// Whether a rule exists for this (type, opset version).
[[nodiscard]] bool covered(std::string_view type, int opset) noexcept;

/// The batching rule of (type, opset version), as `check --list-ops --json` names it ("pointwise",
/// "reshape", ..., "cannot_tell" for the ops whose rule always says it cannot tell), "" when not covered.
[[nodiscard]] std::string_view batching_rule(std::string_view type, int opset) noexcept;
/// The op's name in OpenVINO's operation specification: `MVN-1` for MVN at opset 2 (the IR writes the
/// opset an op version came into; the specification numbers the version), `Constant-1` for Const; "" for
/// a covered op that OpenVINO does not specify, or one not covered.
[[nodiscard]] std::string spec_name(std::string_view type, int opset);
/// Every (type, opset version) with a rule, sorted by type, then version.
[[nodiscard]] std::vector<std::pair<std::string_view, int>> covered_ops();

}  // namespace reshape1::model
