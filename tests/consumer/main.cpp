#include <reshape1/reshape1.hpp>

int main() {
  const std::vector<std::int64_t> pattern{0, -1, 4};
  const auto out = reshape1::infer_shape(reshape1::shape{2, 5, 5, 24}, pattern, true);
  const auto r = reshape1::infer_shape(reshape1::parse_shape("[1..8,2]"), reshape1::parse_pattern("[-1]"), false);
  return reshape1::to_string(out) == "[2,150,4]" && reshape1::to_string(r.shape) == "[2..16]" ? 0 : 1;
}
