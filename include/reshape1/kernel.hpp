// reshape1: the data path of Reshape. Reshape never moves an element: the normal path is a view of
// the same buffer with the new shape; a copy, when the caller wants one, is one bulk transfer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>

#include "reshape1/reshape.hpp"
#include "reshape1/tensor.hpp"

namespace reshape1 {

/// The caller's threads, lent to reshape1: runs `count` chunks of work, calling `chunk(i)` exactly once for
/// every i in [0, count), on any threads and in any order, and returns once every call has returned.
/// The chunks never throw and never wait for one another, so running them one after the other is correct.
/// Wrap a TBB or OpenMP parallel_for, or a runtime's own pool:
///   options.parallel_for = [&pool](std::size_t n, const auto& chunk) { pool.parallel_for(0, n, chunk); };
using parallel_for_fn = std::function<void(std::size_t count, const std::function<void(std::size_t)>& chunk)>;

struct copy_options {
  /// How many chunks a large copy is split into (one per thread); 0: one per hardware thread.
  unsigned threads = 0;
  /// Copies smaller than this stay on the calling thread.
  std::uint64_t parallel_threshold = std::uint64_t{16} << 20;
  /// Runs the chunks of a large copy. Empty: reshape1's own pool, created on the first large copy and kept
  /// (one worker per hardware thread but one; the calling thread runs chunks too).
  parallel_for_fn parallel_for;
};

/// The same buffer under the inferred shape: O(rank), no allocation, no copy. Throws reshape1::error.
[[nodiscard]] tensor_view reshape(const tensor_view& input, std::span<const std::int64_t> pattern, bool special_zero,
                                  const reshape_options& options = {});

/// Copies `source`'s elements into `destination` (storage_size bytes exactly; strings one by one),
/// checking its capacity before writing anything (error(buffer_too_small)). A copy of at least
/// `parallel_threshold` bytes is split into `threads` chunks run by `parallel_for` (or reshape1's pool).
/// Element order never changes.
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
