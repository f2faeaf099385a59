// reshape1: the data path of Reshape. Reshape never moves an element: the normal path is a view of
// the same buffer with the new shape; a copy, when the caller wants one, is one bulk transfer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>

#include "reshape1/reshape.hpp"
#include "reshape1/tensor.hpp"

namespace reshape1 {

struct copy_options {
  /// Threads for large copies; 0 uses every hardware thread.
  unsigned threads = 0;
  /// Copies smaller than this stay on the calling thread.
  std::uint64_t parallel_threshold = std::uint64_t{16} << 20;
};

/// The same buffer under the inferred shape: O(rank), no allocation, no copy. Throws reshape1::error.
[[nodiscard]] tensor_view reshape(const tensor_view& input, std::span<const std::int64_t> pattern, bool special_zero,
                                  const reshape_options& options = {});

/// Copies `source`'s elements into `destination` (storage_size bytes exactly; strings one by one),
/// checking its capacity before writing anything (error(buffer_too_small)). Large copies use
/// several threads. Element order never changes.
void copy_elements(const tensor_view& source, std::span<std::byte> destination, const copy_options& options = {});
void copy_elements(const tensor_view& source, std::span<std::string> destination);

/// Reshape into the caller's buffer: infers the shape, copies, and returns the output view over it.
[[nodiscard]] tensor_view reshape_copy(const tensor_view& input, std::span<const std::int64_t> pattern,
                                       bool special_zero, std::span<std::byte> destination,
                                       const reshape_options& options = {}, const copy_options& copy = {});

/// Value propagation for graph tools: a Reshape's output holds its input's values, so the data's lower
/// and upper value tensors (the same tensor when the values are known) pass through unchanged under the
/// output shape. Throws error(invalid_argument) when they do not match each other or `output`.
[[nodiscard]] std::pair<tensor_view, tensor_view> propagate_values(const tensor_view& lower, const tensor_view& upper,
                                                                   const shape& output);

}  // namespace reshape1
