#include <iostream>
#include <reshape1/reshape1.hpp>

int main() {
  using namespace reshape1;
  const std::vector<std::int64_t> pattern{0, -1, 4};  // static shapes: no heap up to rank 8
  std::cout << to_string(infer_static_shape(shape{2, 5, 5, 24}, pattern, /*special_zero=*/true)) << '\n';
  const auto r = infer_shape(parse_shape("[?@A,?@B,768]"), parse_pattern("[?@A,?@C,12,64]"), false);
  const auto& eq = r.symbol_equalities[0];
  std::cout << to_string(r.shape) << ", " << eq.input.name() << " == " << eq.output.name() << '\n';
  try {
    (void)infer_shape(parse_shape("[2,3]"), parse_pattern("[4,-1]"), false);
  } catch (const error& e) {
    std::cout << name(e.code()) << ": " << e.what() << '\n';
  }
}
