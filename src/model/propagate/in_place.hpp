// Internal: propagation in place, for fix's rounds. A graph edited by a few rewrites is propagated again by
// running only the layers an edit can change, into the propagation of the graph before; what that replaces
// is kept, so that a rewrite that fails is undone without propagating the whole graph again.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "reshape1/model/graph.hpp"
#include "reshape1/model/propagate.hpp"

namespace reshape1::model::detail {

/// What a propagation in place replaced, to put it back.
struct undo_log {
  struct saved {
    std::size_t layer = 0, output = 0;
    tensor before;
  };
  std::size_t layers = 0;  ///< how many layers the propagation had
  std::vector<saved> outputs;
  std::vector<bool> follows_inputs;
  std::vector<lost_information> lost;
  std::vector<std::shared_ptr<const propagation>> bodies;
};

/// How propagate_in_place's `redo` marks a layer (0: it keeps its results).
inline constexpr char redo_if_inputs_changed = 1;  ///< it reads an edited layer: run when its inputs changed
inline constexpr char redo_always = 2;             ///< it is edited (or new): run

/// Makes `p`, the propagation of a graph that `g` is an edit of (the same layers at the same indices, and
/// perhaps more after them) at the same `given` shapes, g's propagation: only the layers `redo` marks run
/// their rules (those that changed, and the layers that read one of them, when what they read came out
/// different: the others' inputs and attributes are what they were, so their results are too). What they
/// replace goes to `undo`.
/// One difference from a whole propagation: the budget for nested bodies counts only the bodies run again,
/// so a model past it may come out more exact.
void propagate_in_place(const graph& g, std::span<const input_shape> given, propagation& p,
                        std::span<const char> redo, undo_log& undo, std::string_view names = {});
/// Puts back what propagate_in_place replaced: `p` is again the propagation of `before`.
void undo_in_place(const graph& before, propagation& p, undo_log&& undo);

}  // namespace reshape1::model::detail
