// Fuzz target: the shape and pattern notation. Printing then parsing gives back the same shape, and
// printing a parsed pattern is idempotent. Every failure is a reshape1::error.
#include "fuzz_input.hpp"
#include "reshape1/reshape1.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace reshape1;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto s = parse_shape(text);
    const auto printed = to_string(s);
    if (parse_shape(printed) != s) fuzz::invariant_broken("print-then-parse changed the shape " + printed);
  } catch (const error&) {
  }
  const auto types = all_element_types();
  const auto type = types[size == 0 ? 0 : data[0] % types.size()];
  try {
    const auto p = parse_pattern(text, type);
    const auto printed = to_string(p);
    if (printed.front() != '<' && to_string(parse_pattern(printed, type)) != printed)
      fuzz::invariant_broken("printing the pattern " + printed + " is not idempotent");
  } catch (const error&) {
  }
  return 0;
}
