// reshape1's own threads, for the callers that do not lend theirs (copy_options::parallel_for).
#pragma once

#include <cstddef>
#include <functional>

namespace reshape1::detail {

/// Runs chunk(0) ... chunk(count - 1) on a pool of hardware_concurrency() - 1 workers and the calling
/// thread, returning once all have returned. The pool is created on the first call that needs it and
/// lives until the program ends; calls from several threads at once share it, and the calling thread
/// works on its own chunks, so a call never waits for a worker that another call keeps busy.
void run_chunks(std::size_t count, const std::function<void(std::size_t)>& chunk);

/// The number of worker threads of the pool (0 on a single-core machine, where the caller runs everything).
[[nodiscard]] std::size_t pool_workers() noexcept;

}  // namespace reshape1::detail
