// Internal: what check_batch and fix share.
#pragma once

#include <cstddef>
#include <vector>

#include "reshape1/model/graph.hpp"
#include "reshape1/model/propagate.hpp"

namespace reshape1::model::detail {

/// Where one element of a layer's input comes from.
struct element_origin {
  const layer* holder = nullptr;   ///< the Const that holds the element, or the layer that computes it
  std::size_t index = 0;           ///< the element's index in the holder (for a Const)
  const layer* through = nullptr;  ///< the Concat the element went through, if any
  const layer* consumer = nullptr;  ///< the layer the holder feeds on the way (the Reshape or a Concat)
  std::size_t consumer_port = 0;    ///< and its input port
  std::vector<const layer*> path;   ///< the layers between the holder and the layer asked about
};

/// Follows element `index` of input `port` of `l` back to the Const that holds it, through Concats of 1-D
/// tensors and the ops that keep element positions (Convert, Squeeze, Unsqueeze).
element_origin origin_of_element(const graph& g, const propagation& p, const layer& l, std::size_t port,
                                 std::size_t index);

/// For each layer (by index): whether it reads, directly or through others, a layer `marked` marks. fix
/// makes a Reshape after another one the checks name wait: what it is found to do may be that one's doing.
std::vector<char> downstream_of(const graph& g, const std::vector<char>& marked);

}  // namespace reshape1::model::detail
