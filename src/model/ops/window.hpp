// Internal: the spatial arithmetic Convolution and the pooling ops share (kernel, strides, dilations,
// pads and auto_pad).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "model/ops/rules.hpp"

namespace reshape1::model::detail {

enum class rounding { floor, ceil, ceil_torch };

struct window {
  std::vector<std::int64_t> kernel, strides, dilations, pads_begin, pads_end;
  std::string_view auto_pad;  ///< explicit, notset, valid, same_upper, same_lower
  rounding round = rounding::floor;
  /// A pooling lowered from ONNX, whose engine pools an input shorter than the window (ONNX Runtime: the
  /// output's size is span / stride + 1 with the division truncated toward zero, or rounded up with
  /// ceil_mode, span the padded input less the window; 0 or 1, refused only where negative). OpenVINO
  /// refuses every such input.
  bool onnx_short_input = false;
};

/// The window attributes of a layer with `spatial` spatial dimensions (dilations default to 1).
window read_window(const op& o, std::size_t spatial, std::span<const std::int64_t> kernel);
/// One output spatial dimension from the input's.
dimension window_output(const op& o, const dimension& in, const window& w, std::size_t i);

}  // namespace reshape1::model::detail
