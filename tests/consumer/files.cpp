// Uses reshape1::io (a .npy round trip) and reshape1::model (reads and checks the OpenVINO IR model given as argv[1]).
#include <cstdio>
#include <filesystem>
#include <vector>

#include <reshape1/io/npy.hpp>
#include <reshape1/model/check.hpp>
#include <reshape1/model/graph.hpp>
#include <reshape1/reshape1.hpp>

int main(int argc, char** argv) {
  std::vector<float> data(1200, 1.5f);
  const reshape1::tensor_view view(data.data(), reshape1::element_type::f32, reshape1::shape{2, 5, 5, 24});
  const auto file = std::filesystem::temp_directory_path() / "reshape1-consumer.npy";
  reshape1::io::write_npy(file, view);
  const auto back = reshape1::io::read_npy(file);
  std::filesystem::remove(file);
  const auto model = reshape1::model::read_ir(argv[argc - 1], std::filesystem::path(argv[argc - 1]).replace_extension(".bin"));
  const auto report = reshape1::model::check(model);
  const bool ok = argc == 2 && reshape1::to_string(back.view().dims()) == "[2,5,5,24]" && !model.layers().empty() &&
                  reshape1::model::covered("Reshape", 1) && !report.reshapes.empty() && !report.summary.failed();
  std::printf("io and model: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
