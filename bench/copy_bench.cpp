// Data-path benchmarks. Read them as ratios measured in one run (bench/ratios.py):
//   copy_elements on one thread / std::memcpy on one thread, 256 MiB   (target >= 0.95x throughput)
//   copy_elements on every core / std::memcpy on one thread            (the multi-thread speed-up)
//   reshape of a view: nanoseconds per call, allocations per call       (target 0)
#include <benchmark/benchmark.h>

#include <cstring>
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

void memcpy_256mib(benchmark::State& state) {
  auto& b = shared_buffers();
  for (auto _ : state) {
    std::memcpy(b.to.data(), b.from.data(), big);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * big));
}
BENCHMARK(memcpy_256mib)->Unit(benchmark::kMillisecond)->UseRealTime();

void copy_elements_256mib(benchmark::State& state) {
  auto& b = shared_buffers();
  const reshape1::tensor_view view(b.from.data(), reshape1::element_type::f32,
                                   reshape1::shape{static_cast<std::int64_t>(big / 4)});
  reshape1::copy_options o;
  o.threads = static_cast<unsigned>(state.range(0));
  for (auto _ : state) {
    reshape1::copy_elements(view, b.to, o);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * big));
}
// 1 thread, then 0 = every hardware thread.
BENCHMARK(copy_elements_256mib)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();

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
BENCHMARK(reshape_view);

}  // namespace

BENCHMARK_MAIN();
