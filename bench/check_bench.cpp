// `check`'s cost on the largest real models against the floor of parsing their XML with pugixml from memory.
// Target: reading the model (.xml and .bin) and propagating through every layer (values included) at most
// 2x the pugixml parse. The stages are timed apart to show where the time goes:
//   parse_xml_only     pugixml on the XML already in memory (the floor)
//   parse_and_walk     the floor, then a walk of the parsed document that visits what any reader of the
//                      model must (each layer's attributes, <data>, ports and dims; the edges), touches
//                      each name and value, and builds nothing: what a reader on pugixml's DOM cannot go
//                      below, before it stores anything or propagates
//   read_ir            reading both files, parsing, building the typed graph, checking every Const
//   read_and_propagate read_ir + propagate()            <- the target
//   check              read_ir + propagate() + check()  (what `reshape1 check` does, without printing)
//   check_batch        read_ir + check --batch 4
//   check_shape        read_ir + check --shape with the input's height and width named (?@H, ?@W):
//                      target at most 1.5x check_batch
// Each stage runs under two regimes of the C library's allocator, the same for the floor and for reshape1:
//   fresh   before each run, every freed page goes back to the system (malloc_trim) and glibc's thresholds
//           stay at their defaults, so each run touches new memory, as a `reshape1 check` process does;
//   reused  the allocator keeps what it freed (thresholds raised), so runs after the first reuse memory
//           already mapped, as a long-lived program reading one model after another does.
// Without this choice the floor landed in either regime from one run to the next (glibc raises its
// thresholds after some frees), which made the ratio swing by 3x.
// The models are $RESHAPE1_BENCH_MODEL, else person-vehicle-bike-detection-2004 and yolo11n from
// ../shared/ir-models, else the largest shipped one. After the table, one line per model and regime gives
// the absolute times and the ratios, in CPU time (steadier than wall time on a shared machine;
// single-threaded code).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <malloc.h>

#include <pugixml.hpp>

#include "reshape1/model/batch.hpp"
#include "reshape1/model/check.hpp"
#include "named_sizes.hpp"

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

enum class memory { fresh, reused };
constexpr memory regimes[] = {memory::fresh, memory::reused};
const char* name_of(memory m) { return m == memory::fresh ? "fresh" : "reused"; }

/// Sets the allocator's regime for a benchmark (before its loop).
void use(memory m) {
  if (m == memory::fresh) {
    // glibc's default thresholds, pinned (set explicitly, they no longer rise after large frees).
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024);
  } else {
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);  // glibc's largest: blocks of the models' size come from the heap
    mallopt(M_TRIM_THRESHOLD, 1 << 30);           // and the heap is never trimmed
  }
  malloc_trim(0);
}

/// Runs `run` once per iteration under the regime; in the fresh one, freed pages go back untimed.
template <class Run>
void timed(benchmark::State& state, memory m, Run run) {
  use(m);
  for (auto _ : state) {
    if (m == memory::fresh) {
      state.PauseTiming();
      malloc_trim(0);
      state.ResumeTiming();
    }
    run();
  }
}

std::string text_of(const fs::path& xml) {
  std::ifstream in(xml, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The floor: pugixml's parse of the XML already in memory, with its default options.
void parse(pugi::xml_document& doc, const std::string& text) {
  benchmark::DoNotOptimize(doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8));
}

void parse_xml_only(benchmark::State& state, const fs::path& xml, memory m) {
  const std::string text = text_of(xml);
  timed(state, m, [&] {
    pugi::xml_document doc;
    parse(doc, text);
  });
}

/// The sum of the first byte of each attribute's name and value: reads them as a reader would.
long touch_attributes(const pugi::xml_node& n) {
  long sum = 0;
  for (auto a = n.first_attribute(); a; a = a.next_attribute()) sum += a.name()[0] + a.value()[0];
  return sum;
}

void parse_and_walk(benchmark::State& state, const fs::path& xml, memory m) {
  const std::string text = text_of(xml);
  timed(state, m, [&] {
    pugi::xml_document doc;
    parse(doc, text);
    const auto net = doc.child("net");
    long sum = 0;
    for (auto layer = net.child("layers").first_child(); layer; layer = layer.next_sibling()) {
      sum += touch_attributes(layer);
      for (auto part = layer.first_child(); part; part = part.next_sibling()) {
        const std::string_view name = part.name();
        if (name == "data") sum += touch_attributes(part);
        if (name != "input" && name != "output") continue;
        for (auto port = part.first_child(); port; port = port.next_sibling()) {
          sum += touch_attributes(port);
          for (auto dim = port.first_child(); dim; dim = dim.next_sibling()) sum += dim.name()[0] + dim.child_value()[0];
        }
      }
    }
    for (auto edge = net.child("edges").first_child(); edge; edge = edge.next_sibling()) sum += touch_attributes(edge);
    benchmark::DoNotOptimize(sum);
  });
}

void read_ir(benchmark::State& state, const fs::path& xml, memory m) {
  timed(state, m, [&] {
    auto g = reshape1::model::read_ir(xml, bin_of(xml));
    benchmark::DoNotOptimize(g);
  });
}

void read_and_propagate(benchmark::State& state, const fs::path& xml, memory m) {
  timed(state, m, [&] {
    const auto g = reshape1::model::read_ir(xml, bin_of(xml));
    auto p = reshape1::model::propagate(g);
    benchmark::DoNotOptimize(p);
  });
}

void check(benchmark::State& state, const fs::path& xml, memory m) {
  timed(state, m, [&] {
    const auto g = reshape1::model::read_ir(xml, bin_of(xml));
    auto report = reshape1::model::check(g);
    benchmark::DoNotOptimize(report);
  });
}

void check_batch(benchmark::State& state, const fs::path& xml, memory m) {
  timed(state, m, [&] {
    const auto g = reshape1::model::read_ir(xml, bin_of(xml));
    auto report = reshape1::model::check_batch(g, {.batch = reshape1::dimension(4)});
    benchmark::DoNotOptimize(report);
  });
}

void check_shape(benchmark::State& state, const fs::path& xml, memory m) {
  const auto request = bench::at_named_sizes(reshape1::model::read_ir(xml, bin_of(xml)));
  timed(state, m, [&] {
    const auto g = reshape1::model::read_ir(xml, bin_of(xml));
    auto report = reshape1::model::check_batch(g, request);
    benchmark::DoNotOptimize(report);
  });
}

/// The console table, then the ratios with the absolute times they come from.
class ratio_reporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& r : runs) {
      const double ms = r.GetAdjustedCPUTime() * 1e3 / benchmark::GetTimeUnitMultiplier(r.time_unit);
      if (r.aggregate_name.empty() || r.aggregate_name == "median") median_[r.run_name.function_name] = ms;
      if (r.aggregate_name.empty() || r.aggregate_name == "min") min_[r.run_name.function_name] = ms;
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    for (const auto& [statistic, ms] : {std::pair{"median", &median_}, std::pair{"min", &min_}})
      for (const auto& xml : models())
        for (const auto m : regimes) {
          const auto name = xml.filename().string();
          auto t = [&](const char* stage) { return (*ms)[std::string(stage) + "/" + name + "/" + name_of(m)]; };
          const double floor = t("parse_xml_only");
          if (floor == 0) continue;  // not run (--benchmark_filter)
          std::printf("%s, %s memory, %s: pugixml parse %.2f ms; parse + a walk that builds nothing %.2f ms "
                      "(%.2fx); read_ir %.2f ms (%.2fx); read+propagate %.2f ms (%.2fx, target <= 2x); check %.2f ms "
                      "(%.2fx); check --batch 4 %.2f ms (%.2fx); check --shape H, W %.2f ms (%.2fx check --batch 4, "
                      "target <= 1.5x)\n",
                      name.c_str(), name_of(m), statistic, floor, t("parse_and_walk"), t("parse_and_walk") / floor,
                      t("read_ir"), t("read_ir") / floor, t("read_and_propagate"), t("read_and_propagate") / floor,
                      t("check"), t("check") / floor, t("check_batch"), t("check_batch") / floor, t("check_shape"),
                      t("check_batch") == 0 ? 0.0 : t("check_shape") / t("check_batch"));
        }
  }

 private:
  // CPU time per stage: the median of the repetitions, and their minimum (on a shared machine, other
  // work only ever adds time, so the minimum is the steadier of the two). One run gives both; without
  // repetitions both are the one measurement.
  std::map<std::string, double> median_, min_;
};

}  // namespace

int main(int argc, char** argv) {
  for (const auto& xml : models())
    for (const auto m : regimes) {
      for (const auto& [stage, f] : {std::pair{"parse_xml_only", &parse_xml_only}, std::pair{"parse_and_walk", &parse_and_walk},
                                     std::pair{"read_ir", &read_ir},
                                     std::pair{"read_and_propagate", &read_and_propagate}, std::pair{"check", &check},
                                     std::pair{"check_batch", &check_batch}, std::pair{"check_shape", &check_shape}}) {
        std::string name(stage);
        name.append("/").append(xml.filename().string()).append("/").append(name_of(m));
        benchmark::RegisterBenchmark(name.c_str(), f, xml, m)
            ->Unit(benchmark::kMillisecond)
            ->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); });
      }
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
