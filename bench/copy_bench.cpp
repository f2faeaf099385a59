// Data-path benchmarks. Read them as ratios measured in one run (bench/ratios.py):
//   copy_elements over N threads / memcpy split over the same N threads, 256 MiB, for N = 1, 2 and every
//   hardware thread (target >= 0.95x each): the limit is what N threads of this machine can copy, measured
//   with a team of N threads started before the loop, each copying one cache-line-aligned slice.
//   copy_elements with the caller's threads (copy_options::parallel_for running on that same team).
//   reshape of a view: nanoseconds per call, allocations per call (target 0).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "alloc_counter.hpp"
#include "reshape1/kernel.hpp"

namespace {

constexpr std::size_t big = std::size_t{256} << 20;

struct buffers {
  std::vector<std::byte> from = std::vector<std::byte>(big, std::byte{1});
  std::vector<std::byte> to = std::vector<std::byte>(big, std::byte{2});  // touched: no page faults in the loop
};

buffers& shared_buffers() {
  static buffers b;
  return b;
}

// N threads (the caller and N - 1 started once) that run jobs together: member m runs chunks m, m + N, ...
class team {
 public:
  explicit team(unsigned n) : n_(n) {
    for (unsigned m = 1; m < n; ++m) workers_.emplace_back([this, m] { loop(m); });
  }
  team(const team&) = delete;
  team& operator=(const team&) = delete;
  ~team() {
    stop_ = true;
    generation_.fetch_add(1);
    generation_.notify_all();
    for (auto& t : workers_) t.join();
  }

  void run(std::size_t count, const std::function<void(std::size_t)>& chunk) {
    chunk_ = &chunk;
    count_ = count;
    pending_.store(n_ - 1);
    generation_.fetch_add(1);
    generation_.notify_all();
    for (std::size_t i = 0; i < count; i += n_) chunk(i);
    for (unsigned p = pending_.load(); p != 0; p = pending_.load()) pending_.wait(p);
  }

 private:
  void loop(unsigned m) {
    std::uint64_t seen = 0;
    for (;;) {
      generation_.wait(seen);
      seen = generation_.load();
      if (stop_) return;
      for (std::size_t i = m; i < count_; i += n_) (*chunk_)(i);
      if (pending_.fetch_sub(1) == 1) pending_.notify_one();
    }
  }

  unsigned n_;
  const std::function<void(std::size_t)>* chunk_ = nullptr;
  std::size_t count_ = 0;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<unsigned> pending_{0};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> workers_;
};

// The limit: memcpy of the same bytes in the same slices as copy_elements (cache-line-aligned, one per thread).
void memcpy_split(benchmark::State& state, unsigned threads) {
  auto& b = shared_buffers();
  team t(threads);
  const std::size_t slice = (big / threads + 63) / 64 * 64;
  const std::size_t count = (big + slice - 1) / slice;
  const std::function<void(std::size_t)> chunk = [&](std::size_t i) {
    std::memcpy(b.to.data() + i * slice, b.from.data() + i * slice, std::min(slice, big - i * slice));
  };
  for (auto _ : state) {
    t.run(count, chunk);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * big));
}

// copy_elements on reshape1's own pool (the default), or on the caller's team through parallel_for.
void copy_elements(benchmark::State& state, unsigned threads, bool callers_threads) {
  auto& b = shared_buffers();
  const reshape1::tensor_view view(b.from.data(), reshape1::element_type::f32,
                                   reshape1::shape{static_cast<std::int64_t>(big / 4)});
  reshape1::copy_options o;
  o.threads = threads;
  std::unique_ptr<team> t;
  if (callers_threads) {
    t = std::make_unique<team>(threads);
    o.parallel_for = [&t](std::size_t count, const std::function<void(std::size_t)>& chunk) { t->run(count, chunk); };
  }
  reshape1::copy_elements(view, b.to, o);  // the pool starts here, before the timed loop
  for (auto _ : state) {
    reshape1::copy_elements(view, b.to, o);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * big));
}

void reshape_view(benchmark::State& state) {
  std::vector<float> data(2 * 5 * 5 * 24);
  const reshape1::tensor_view in(data.data(), reshape1::element_type::f32, reshape1::shape{2, 5, 5, 24});
  const std::vector<std::int64_t> pattern{0, -1, 4};
  const long before = g_allocations.load();
  for (auto _ : state) {
    auto out = reshape1::reshape(in, pattern, true);
    benchmark::DoNotOptimize(out);
  }
  state.counters["allocs_per_call"] =
      benchmark::Counter(static_cast<double>(g_allocations.load() - before), benchmark::Counter::kAvgIterations);
}

}  // namespace

int main(int argc, char** argv) {
  // 1 thread, 2 threads, and every hardware thread (the same as 2 on a 2-core machine: run once).
  const std::set<unsigned> counts{1u, 2u, std::max(1u, std::thread::hardware_concurrency())};
  for (const unsigned n : counts) {
    const std::string suffix = "/threads:" + std::to_string(n);
    benchmark::RegisterBenchmark(("memcpy_split_256mib" + suffix).c_str(), memcpy_split, n)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("copy_elements_256mib" + suffix).c_str(), copy_elements, n, false)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    if (n > 1)
      benchmark::RegisterBenchmark(("copy_elements_callers_threads_256mib" + suffix).c_str(), copy_elements, n, true)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
  }
  benchmark::RegisterBenchmark("reshape_view", reshape_view);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
