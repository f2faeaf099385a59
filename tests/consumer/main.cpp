#include <cstdio>
#include <filesystem>

#include <reshape1/io/npy.hpp>
#include <reshape1/model/check.hpp>
#include <reshape1/reshape1.hpp>

int main() {
  const std::vector<std::int64_t> pattern{0, -1, 4};
  const auto out = reshape1::infer_shape(reshape1::shape{2, 5, 5, 24}, pattern, true);
  const auto r = reshape1::infer_shape(reshape1::parse_shape("[1..8,2]"), reshape1::parse_pattern("[-1]"), false);

  std::vector<float> data(1200, 1.0f);
  const auto view = reshape1::reshape(reshape1::tensor_view(data.data(), reshape1::element_type::f32,
                                                            reshape1::shape{2, 5, 5, 24}),
                                      pattern, true);
  const auto file = std::filesystem::temp_directory_path() / "reshape1-consumer.npy";
  reshape1::io::write_npy(file, view);
  const auto back = reshape1::io::read_npy(file);
  std::filesystem::remove(file);

  const bool ok = reshape1::to_string(out) == "[2,150,4]" && reshape1::to_string(r.shape) == "[2..16]" &&
                  reshape1::to_string(back.view().dims()) == "[2,150,4]" && reshape1::model::covered("Reshape", 1) &&
                  !reshape1::model::covered("Reshape", 2);
  std::puts(ok ? "consumer: ok" : "consumer: FAILED");
  return ok ? 0 : 1;
}
