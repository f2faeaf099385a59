// Reading an ONNX model against the floor of parsing it with protobuf. Target: reading it (parse, lowering
// every node, the graph) and propagating through every layer at most 2x protobuf's ParseFromArray of the
// same bytes. Both start from the file's bytes in memory:
//   parse_only          ::onnx::ModelProto::ParseFromArray (the floor: any reader of the file pays it)
//   read                reshape1::onnx::read (the parse, then the lowering into a graph)
//   read_and_propagate  read + propagate()   <- the target
//   check_batch         read + check --batch 4
//   check_shape         read + check --shape with the input's height and width named: at most 1.5x check_batch
//   check               read + check (every Reshape, every layer against its declaration)
//   shapes              reshape1 shapes: read, propagate with every size named, list every tensor: at most 1.2x check
//   shapes_copy         shapes and the bytes of the copy that declares every tensor's shape (shapes -o, not written)
// The models are $RESHAPE1_BENCH_ONNX, else the largest shared ONNX model (PaddleOCR's recogniser, 10.8 MB,
// 765 nodes) and the shipped simplified UltraFace.
#include <benchmark/benchmark.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdlib>
#include <span>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "reshape1/model/propagate.hpp"
#include "named_sizes.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/onnx.hpp"

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> models() {
  if (const char* env = std::getenv("RESHAPE1_BENCH_ONNX")) return {env};
  std::vector<fs::path> found;
  const fs::path shared = fs::path(RESHAPE1_SHARED_ONNX) / "paddleocr-v4-rec-opset9" / "ch_PP-OCRv4_rec_infer.onnx";
  if (fs::exists(shared)) found.push_back(shared);
  found.push_back(RESHAPE1_TEST_DATA "/onnx-models/ultraface-rfb-320/version-RFB-320_simplified.onnx");
  return found;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void parse_only(benchmark::State& state, const std::string& bytes) {
  for (auto _ : state) {
    ::onnx::ModelProto m;
    if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) state.SkipWithError("not a model");
    benchmark::DoNotOptimize(m);
  }
}

void read_only(benchmark::State& state, const std::string& bytes) {
  for (auto _ : state) {
    auto g = reshape1::onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), "bench.onnx");
    benchmark::DoNotOptimize(g);
  }
}

void read_and_propagate(benchmark::State& state, const std::string& bytes) {
  for (auto _ : state) {
    const auto g = reshape1::onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), "bench.onnx");
    auto p = reshape1::model::propagate(g);
    benchmark::DoNotOptimize(p);
  }
}

void check_batch(benchmark::State& state, const std::string& bytes) {
  for (auto _ : state) {
    const auto g = reshape1::onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), "bench.onnx");
    auto r = reshape1::model::check_batch(g, {.batch = reshape1::dimension(4)});
    benchmark::DoNotOptimize(r);
  }
}

void check_shape(benchmark::State& state, const std::string& bytes) {
  const auto request = bench::at_named_sizes(reshape1::onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), "bench.onnx"));
  for (auto _ : state) {
    const auto g = reshape1::onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), "bench.onnx");
    auto r = reshape1::model::check_batch(g, request);
    benchmark::DoNotOptimize(r);
  }
}

void check(benchmark::State& state, const std::string& bytes) {
  for (auto _ : state) {
    const auto g = reshape1::onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), "bench.onnx");
    auto r = reshape1::model::check(g);
    benchmark::DoNotOptimize(r);
  }
}

void shapes(benchmark::State& state, const std::string& bytes, bool copy) {
  for (auto _ : state) {
    auto r = reshape1::onnx::shapes(std::as_bytes(std::span(bytes.data(), bytes.size())), "bench.onnx", {.copy = copy});
    benchmark::DoNotOptimize(r);
  }
}

void shapes_only(benchmark::State& state, const std::string& bytes) { shapes(state, bytes, false); }
void shapes_copy(benchmark::State& state, const std::string& bytes) { shapes(state, bytes, true); }

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> kept;
  kept.reserve(8);
  for (const auto& path : models()) {
    const auto& bytes = kept.emplace_back(slurp(path));
    const auto model = path.stem().string();
    for (const auto& [stage, f] : {std::pair{"onnx_parse_only", &parse_only}, std::pair{"onnx_read", &read_only},
                                   std::pair{"onnx_read_and_propagate", &read_and_propagate},
                                   std::pair{"onnx_check_batch", &check_batch}, std::pair{"onnx_check_shape", &check_shape},
                                   std::pair{"onnx_check", &check}, std::pair{"onnx_shapes", &shapes_only},
                                   std::pair{"onnx_shapes_copy", &shapes_copy}}) {
      benchmark::RegisterBenchmark((std::string(stage) + "/" + model).c_str(), f, bytes)
          ->Unit(benchmark::kMillisecond)
          ->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); });
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
