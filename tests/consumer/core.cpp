// Uses the core library only (reshape1::reshape1, or pkg-config's reshape1): inference and the version.
#include <cstdio>

#include <reshape1/reshape1.hpp>
#include <reshape1/version.hpp>

int main() {
  const auto r = reshape1::infer_shape(reshape1::parse_shape("[2,5,5,24]"), reshape1::parse_pattern("[0,-1,4]"), true);
  const auto d = reshape1::infer_shape(reshape1::parse_shape("[1..8,2]"), reshape1::parse_pattern("[-1]"), false);
  const bool ok = reshape1::to_string(r.shape) == "[2,150,4]" && reshape1::to_string(d.shape) == "[2..16]" &&
                  reshape1::version() == RESHAPE1_VERSION_STRING;
  std::printf("core %s: %s\n", RESHAPE1_VERSION_STRING, ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
