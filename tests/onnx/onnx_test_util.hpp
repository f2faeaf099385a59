// What the ONNX suites share: the fixtures of tests/data/onnx (protobuf text, parsed here) and how a model
// is read from its bytes.
#pragma once

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>

#include <fmt/format.h>

#include "reshape1/error.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::test {

namespace fs = std::filesystem;

inline const fs::path fixtures = fs::path(RESHAPE1_TEST_DATA) / "onnx";

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// A fixture's model, serialised.
inline std::string fixture_bytes(const std::string& name) {
  ::onnx::ModelProto m;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(slurp(fixtures / (name + ".textproto")), &m)) << name;
  return m.SerializeAsString();
}

inline model::graph read_bytes(const std::string& bytes, const std::string& name) {
  return onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), name);
}

/// Reads a fixture as if it lay in tests/data/onnx (where its external data is).
inline model::graph read_fixture(const std::string& name) {
  return read_bytes(fixture_bytes(name), (fixtures / (name + ".onnx")).string());
}

/// The message of the error `f` throws, checking its code.
template <class F>
std::string refusal(F f, errc code) {
  try {
    f();
  } catch (const error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

inline std::string listed(const model::batch_report& r) {
  std::string s;
  for (const auto& f : r.findings) s += fmt::format("{}{} {}", s.empty() ? "" : ", ", model::name(f.issue), f.name);
  return s;
}

}  // namespace reshape1::test
