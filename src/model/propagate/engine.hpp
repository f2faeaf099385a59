// Internal: the propagation engine. propagate() (reshape1/model/propagate.hpp) is its public face; the
// analyses, the rules that run a body (ops/subgraph.cpp) and the pass in place (in_place.hpp) use this.
// The core loop runs every layer in topological order through the rule its (type, opset) names; a pass
// that runs only some layers, and keeps what it replaces, plugs in as a layer_pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "reshape1/model/graph.hpp"
#include "reshape1/model/propagate.hpp"

namespace reshape1::model::detail {

struct layer_outputs_access {
  /// Fits `o` to g's layers: those it has keep their tensors, the ones g adds after them get unknown ones,
  /// and those past g's end are dropped (a propagation in place, and its undoing).
  static void fit(layer_outputs& o, const graph& g);
};

/// How many shape rules this thread has run (every layer propagated, bodies included): the unit in which
/// fix's cost is bounded (tests/model/analysis/fix_scale_test.cpp).
[[nodiscard]] std::uint64_t rule_calls() noexcept;

/// Starts a new budget for propagation through nested bodies (called once per propagate(); the budget is
/// the body rules', in ops/subgraph.cpp).
void reset_body_budget() noexcept;

/// Propagation through `g` with tensors given to some Parameters (by layer index; null or past the end:
/// the declared shape): what propagate() does with the shapes it is given, and what TensorIterator and Loop
/// do with their bodies. `given_follows`, when given, says per layer whether a given Parameter's tensor
/// follows the model's inputs (a body Parameter fed by weights does not); Parameters follow them otherwise.
/// With `names` (not empty), every dimension a layer's rule leaves dynamic without a symbol gets one of its
/// own, `names` followed by the layer's index, output and axis: what the batch analysis's sample runs need to
/// tell one unknown dimension from another and follow it (a ShapeOf's element, a Reshape's -1).
propagation propagate_graph(const graph& g, std::span<const tensor* const> given,
                            const std::vector<bool>* given_follows = nullptr, std::string_view names = {});
/// propagate(g, given), naming dimensions as propagate_graph does with `names`.
propagation propagate_naming(const graph& g, std::span<const input_shape> given, std::string_view names);

/// The tensors `given` sets, by layer index (null for a layer given nothing); `store` holds them.
/// error(invalid_argument) for a layer that is not a Parameter or is given two shapes.
[[nodiscard]] std::vector<const tensor*> given_tensors(const graph& g, std::span<const input_shape> given,
                                                       std::vector<tensor>& store);

/// A pass over some of a graph's layers into a propagation that already holds results: the core loop asks it
/// whether each layer runs, and tells it before and after one does.
class layer_pass {
 public:
  virtual ~layer_pass() = default;
  /// Whether layer `index` runs its rule; one that does not keeps what the propagation holds for it (the
  /// pass puts its findings back in order).
  [[nodiscard]] virtual bool runs(std::size_t index) = 0;
  /// Layer `index` is about to run: its outputs are replaced.
  virtual void replacing(std::size_t index) = 0;
  /// Layer `index` ran.
  virtual void ran(std::size_t index) = 0;
};

/// The core loop: propagates `g` into `p` (whose outputs fit g), every layer, or those `pass` runs.
void propagate_into(const graph& g, std::span<const tensor* const> given, const std::vector<bool>* given_follows,
                    propagation& p, layer_pass* pass, std::string_view names);

}  // namespace reshape1::model::detail
