// `check`'s cost on the largest real models against the floor of parsing their XML with pugixml from memory.
// Target: reading the model (.xml and .bin) and propagating through every layer (values included) at most
// 2x the pugixml parse. The stages are timed apart to show where the time goes:
//   parse_xml_only     pugixml on the XML already in memory (the floor)
//   read_ir            mapping both files, parsing, building the typed graph, checking every Const
//   read_and_propagate read_ir + propagate()            <- the target
//   check              read_ir + propagate() + check()  (what `reshape1 check` does, without printing)
// The models are $RESHAPE1_BENCH_MODEL, else person-vehicle-bike-detection-2004 and yolo11n from
// ../shared/ir-models, else the largest shipped one. After the table, one line per model gives the absolute
// times and the ratios, in CPU time (steadier than wall time on a shared machine; single-threaded code).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <pugixml.hpp>

#include "reshape1/model/check.hpp"

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> models() {
  if (const char* env = std::getenv("RESHAPE1_BENCH_MODEL")) return {env};
  std::vector<fs::path> found;
  for (const char* m : {"omz-person-vehicle-bike-detection-2004-fp16/person-vehicle-bike-detection-2004.xml",
                        "yolo11n-int8-ov2025.2/yolo11n.xml"}) {
    const fs::path p = fs::path(RESHAPE1_SHARED_MODELS) / m;
    if (fs::exists(p)) found.push_back(p);
  }
  if (found.empty()) found.push_back(RESHAPE1_TEST_DATA "/ir-models/face-detection-0200/face-detection-0200.xml");
  return found;
}

fs::path bin_of(const fs::path& xml) { return fs::path(xml).replace_extension(".bin"); }

void parse_xml_only(benchmark::State& state, const fs::path& xml) {
  std::ifstream in(xml, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (auto _ : state) {
    pugi::xml_document doc;
    benchmark::DoNotOptimize(doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8));
  }
}

void read_ir(benchmark::State& state, const fs::path& xml) {
  for (auto _ : state) {
    auto g = reshape1::model::read_ir(xml, bin_of(xml));
    benchmark::DoNotOptimize(g);
  }
}

void read_and_propagate(benchmark::State& state, const fs::path& xml) {
  for (auto _ : state) {
    const auto g = reshape1::model::read_ir(xml, bin_of(xml));
    auto p = reshape1::model::propagate(g);
    benchmark::DoNotOptimize(p);
  }
}

void check(benchmark::State& state, const fs::path& xml) {
  for (auto _ : state) {
    const auto g = reshape1::model::read_ir(xml, bin_of(xml));
    auto report = reshape1::model::check(g);
    benchmark::DoNotOptimize(report);
  }
}

/// The console table, then the ratios with the absolute times they come from.
class ratio_reporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& r : runs)
      if (r.aggregate_name.empty() || r.aggregate_name == "median")
        ms_[r.run_name.function_name] = r.GetAdjustedCPUTime() * 1e3 / benchmark::GetTimeUnitMultiplier(r.time_unit);
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    for (const auto& xml : models()) {
      const auto name = xml.filename().string();
      auto t = [&](const char* stage) { return ms_[std::string(stage) + "/" + name]; };
      const double floor = t("parse_xml_only");
      std::printf("%s: pugixml parse %.2f ms; read_ir %.2f ms (%.2fx); read+propagate %.2f ms (%.2fx, target <= 2x); "
                  "check %.2f ms (%.2fx)\n",
                  name.c_str(), floor, t("read_ir"), t("read_ir") / floor, t("read_and_propagate"),
                  t("read_and_propagate") / floor, t("check"), t("check") / floor);
    }
  }

 private:
  std::map<std::string, double> ms_;
};

}  // namespace

int main(int argc, char** argv) {
  for (const auto& xml : models()) {
    const auto name = xml.filename().string();
    benchmark::RegisterBenchmark(("parse_xml_only/" + name).c_str(), parse_xml_only, xml)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("read_ir/" + name).c_str(), read_ir, xml)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("read_and_propagate/" + name).c_str(), read_and_propagate, xml)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("check/" + name).c_str(), check, xml)->Unit(benchmark::kMillisecond);
  }
  // The console gets the ratios beside the times; another format (bench/ratios.py asks for JSON) gets
  // Google Benchmark's own reporter, so that its output stays parseable.
  bool console = true;
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]).starts_with("--benchmark_format=") &&
        std::string_view(argv[i]) != "--benchmark_format=console")
      console = false;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  ratio_reporter reporter;
  if (console) {
    benchmark::RunSpecifiedBenchmarks(&reporter);
  } else {
    benchmark::RunSpecifiedBenchmarks();
  }
  benchmark::Shutdown();
  return 0;
}
