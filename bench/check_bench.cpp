// `check` on the largest real model (reading both files, evaluating, inferring) versus only parsing its
// XML with pugixml from memory (target <= 1.5x).
// The model is $RESHAPE1_BENCH_MODEL, else yolo11n from ../shared/ir-models, else the largest shipped one.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <pugixml.hpp>

#include "reshape1/model/check.hpp"

namespace {

std::filesystem::path model() {
  if (const char* env = std::getenv("RESHAPE1_BENCH_MODEL")) return env;
  const std::filesystem::path shared = RESHAPE1_SHARED_MODELS "/yolo11n-int8-ov2025.2/yolo11n.xml";
  if (std::filesystem::exists(shared)) return shared;
  return RESHAPE1_TEST_DATA "/ir-models/face-detection-0200/face-detection-0200.xml";
}

// The floor: pugixml parsing the XML from memory (the file is read once, outside the loop), with the
// same settings as reshape1's reader.
void parse_xml_only(benchmark::State& state) {
  const auto path = model();
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (auto _ : state) {
    pugi::xml_document doc;
    benchmark::DoNotOptimize(doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8));
  }
  state.SetLabel(path.filename().string());
}
BENCHMARK(parse_xml_only)->Unit(benchmark::kMillisecond);

void check_model(benchmark::State& state) {
  const auto path = model();
  for (auto _ : state) {
    const auto m = reshape1::model::read_ir(path, std::filesystem::path(path).replace_extension(".bin"));
    auto report = reshape1::model::check(m);
    benchmark::DoNotOptimize(report);
  }
  state.SetLabel(path.filename().string());
}
BENCHMARK(check_model)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
