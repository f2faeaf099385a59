// Test helpers shared by the unit tests.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <cstddef>
#include <string>
#include <vector>

#include "reshape1/reshape1.hpp"

namespace reshape1::test {

/// Asserts that `f` throws reshape1::error with exactly this code, message and pattern indices.
inline void expect_error(const std::function<void()>& f, errc code, const std::string& message,
                         const std::vector<std::size_t>& indices = {}) {
  try {
    f();
    ADD_FAILURE() << "expected error " << name(code) << ": " << message;
  } catch (const error& e) {
    EXPECT_EQ(name(e.code()), name(code));
    EXPECT_EQ(std::string(e.what()), message);
    EXPECT_EQ(e.where().indices, indices);
  }
}

/// Asserts that `f` throws reshape1::error with this code and a message containing `part`; returns it.
inline std::optional<error> expect_error_containing(const std::function<void()>& f, errc code,
                                                    const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; wanted " << name(code) << " with: " << part;
  } catch (const error& e) {
    EXPECT_EQ(name(e.code()), name(code)) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    return e;
  }
  return std::nullopt;
}

/// Options with sound bounds (O1) on.
inline reshape_options sound() {
  reshape_options o;
  o.sound_bounds = true;
  return o;
}

/// Text in, text out: the canonical output shape, or "error:<code>".
inline std::string infer_text(const std::string& input, const std::string& pattern, bool special_zero,
                              const reshape_options& options = {}, element_type type = element_type::i64) {
  try {
    return to_string(infer_shape(parse_shape(input), parse_pattern(pattern, type), special_zero, options).shape);
  } catch (const error& e) {
    return "error:" + std::string(name(e.code()));
  }
}

/// n bytes that differ from position to position (and with the seed): copies of them show any byte
/// moved, lost or written twice.
inline std::vector<std::byte> pattern_bytes(std::size_t n, unsigned seed) {
  std::vector<std::byte> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::byte>((i * 131 + seed * 7 + 17) & 0xFF);
  return b;
}

}  // namespace reshape1::test
