// Shape-inference benchmarks. Read them as ratios measured in one run (bench/ratios.py):
//   static fast path / baseline that only multiplies and divides   (target <= 4x, 0 allocations)
//   partial (intervals and symbols) / static fast path                 (target <= 10x, 0 allocations)
//   infer_shape on a static input / static fast path                    (target <= 8x; infer_shape hands
//     such plain problems to the static instantiation, so this is that hand-over's cost)
#include <benchmark/benchmark.h>

#include <array>

#include "alloc_counter.hpp"
#include "reshape1/reshape1.hpp"

namespace {

void count_allocations(benchmark::State& state, long before) {
  state.counters["allocs_per_call"] =
      benchmark::Counter(static_cast<double>(g_allocations.load() - before), benchmark::Counter::kAvgIterations);
}

// Spec example 2: [2,5,5,24] with [0,-1,4], special_zero true.
void baseline_multiply_divide(benchmark::State& state) {
  std::array<std::int64_t, 4> in{2, 5, 5, 24};
  std::array<std::int64_t, 3> pattern{0, -1, 4};
  const long before = g_allocations.load();
  for (auto _ : state) {
    benchmark::DoNotOptimize(in);
    benchmark::DoNotOptimize(pattern);
    std::int64_t count = 1;
    for (auto d : in) count *= d;
    std::array<std::int64_t, 3> out{in[0], count / (in[0] * pattern[2]), pattern[2]};
    benchmark::DoNotOptimize(out);
  }
  count_allocations(state, before);
}
BENCHMARK(baseline_multiply_divide);

/// The static fast path on `in` with the pattern [0,-1,4], special_zero true.
void static_inference(benchmark::State& state, reshape1::shape in) {
  const std::vector<std::int64_t> pattern{0, -1, 4};
  const long before = g_allocations.load();
  for (auto _ : state) {
    benchmark::DoNotOptimize(in);
    auto out = reshape1::infer_static_shape(in, pattern, true);
    benchmark::DoNotOptimize(out);
  }
  count_allocations(state, before);
}

void infer_static(benchmark::State& state) { static_inference(state, {2, 5, 5, 24}); }
BENCHMARK(infer_static);

// An empty tensor leaves the common lane: the complete static path with the element-count rule.
void infer_static_empty_tensor(benchmark::State& state) { static_inference(state, {2, 0, 5, 24}); }
BENCHMARK(infer_static_empty_tensor);

/// infer_shape on shapes and patterns in the notation.
void general_inference(benchmark::State& state, const char* input, const char* pattern, bool special_zero) {
  const auto in = reshape1::parse_shape(input);
  const auto p = reshape1::parse_pattern(pattern);
  const long before = g_allocations.load();
  for (auto _ : state) {
    auto r = reshape1::infer_shape(in, p, special_zero);
    benchmark::DoNotOptimize(r);
  }
  count_allocations(state, before);
}

void infer_general_on_static_input(benchmark::State& state) {
  general_inference(state, "[2,5,5,24]", "[0,-1,4]", true);
}
BENCHMARK(infer_general_on_static_input);

// Section 5.3: intervals, symbols, cancellation and symbol deduction.
void infer_partial(benchmark::State& state) { general_inference(state, "[?@A,?@B,768]", "[?@A,?@C,12,64]", false); }
BENCHMARK(infer_partial);

// The partial inputs of a transformer's attention heads, as models carry them.
void infer_partial_heads(benchmark::State& state) { general_inference(state, "[?,?,768]", "[0,0,12,64]", true); }
BENCHMARK(infer_partial_heads);

void infer_partial_flatten(benchmark::State& state) { general_inference(state, "[1..8,128,768]", "[-1,768]", false); }
BENCHMARK(infer_partial_flatten);

void infer_partial_intervals(benchmark::State& state) {
  general_inference(state, "[1..8,16..64,6,200..400]", "[16..64,0,-1]", true);
}
BENCHMARK(infer_partial_intervals);

}  // namespace

BENCHMARK_MAIN();
