// Test helper: a small OpenVINO IR model built in code (layers, edges, the .bin with values packed as
// OpenVINO packs them), and a fixture that writes it to a temporary directory and reads it back.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "reshape1/model/batch.hpp"
#include "reshape1/model/check.hpp"

namespace reshape1::test {

namespace fs = std::filesystem;

/// Packs integer values the way OpenVINO stores them (see pattern_test.cpp for the layouts).
inline std::string pack(element_type t, const std::vector<std::int64_t>& v) {
  std::string out(storage_size(t, v.size()), '\0');
  auto u = [&](std::size_t i) { return static_cast<unsigned>(static_cast<std::uint64_t>(v[i])); };
  for (std::size_t i = 0; i < v.size(); ++i) {
    switch (t) {
      case element_type::u1: out[i / 8] = static_cast<char>(out[i / 8] | ((u(i) & 1) << (7 - i % 8))); break;
      case element_type::u2: out[i / 4] = static_cast<char>(out[i / 4] | ((u(i) & 3) << (6 - 2 * (i % 4)))); break;
      case element_type::u4:
      case element_type::i4: out[i / 2] = static_cast<char>(out[i / 2] | ((u(i) & 15) << (4 * (i % 2)))); break;
      case element_type::u3: {
        const std::size_t g = 3 * (i / 8), k = 7 - i % 8;
        unsigned w = (static_cast<unsigned char>(out[g]) << 8) | static_cast<unsigned char>(out[g + 1]);
        w |= (u(i) & 3) << (2 * k);
        out[g] = static_cast<char>(w >> 8);
        out[g + 1] = static_cast<char>(w & 0xFF);
        out[g + 2] = static_cast<char>(out[g + 2] | (((u(i) >> 2) & 1) << k));
        break;
      }
      case element_type::u6: {
        const std::size_t g = 3 * (i / 4), k = 3 - i % 4;
        unsigned w = (static_cast<unsigned char>(out[g]) << 8) | static_cast<unsigned char>(out[g + 1]);
        w |= (u(i) & 15) << (4 * k);
        out[g] = static_cast<char>(w >> 8);
        out[g + 1] = static_cast<char>(w & 0xFF);
        out[g + 2] = static_cast<char>(out[g + 2] | (((u(i) >> 4) & 3) << (2 * k)));
        break;
      }
      default: {
        const auto bytes = static_cast<std::size_t>(bit_width(t) / 8);
        for (std::size_t b = 0; b < bytes; ++b) out[i * bytes + b] = static_cast<char>((static_cast<std::uint64_t>(v[i]) >> (8 * b)) & 0xFF);
      }
    }
  }
  return out;
}

/// Builds a small IR: layers, edges and the .bin.
class ir_builder {
 public:
  explicit ir_builder(int version = 11) : version_(version) {}

  std::string dims_xml(const std::string& dims) {
    if (dims == "-") return {};
    std::string s;
    std::size_t start = 0;
    const std::string inner = dims.substr(1, dims.size() - 2);
    while (!inner.empty() && start <= inner.size()) {
      const auto comma = inner.find(',', start);
      s += fmt::format("<dim>{}</dim>", inner.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return s;
  }

  /// A layer with input ports 0..n-1 and output ports n..; dims as "[1,2]".
  int layer(const std::string& type, const std::string& data, const std::vector<std::string>& in,
            const std::vector<std::string>& out, const std::string& name = "", int opset = 1) {
    const int id = next_++;
    std::string x = fmt::format("<layer id=\"{}\" name=\"{}\" type=\"{}\" version=\"opset{}\">", id,
                                name.empty() ? fmt::format("{}_{}", type, id) : name, type, opset);
    if (!data.empty()) x += fmt::format("<data {}/>", data);
    int port = 0;
    if (!in.empty()) {
      x += "<input>";
      for (const auto& d : in) x += fmt::format("<port id=\"{}\">{}</port>", port++, dims_xml(d));
      x += "</input>";
    }
    if (!out.empty()) {
      x += "<output>";
      for (const auto& d : out) x += fmt::format("<port id=\"{}\">{}</port>", port++, dims_xml(d));
      x += "</output>";
    }
    layers_ += x + "</layer>\n";
    ports_in_[id] = static_cast<int>(in.size());
    return id;
  }

  /// A Result fed by output 0 of `from`.
  int result(int from, const std::string& dims) {
    const int r = layer("Result", "", {dims}, {});
    edge(from, r, 0);
    return r;
  }

  int parameter(const std::string& dims) { return layer("Parameter", "element_type=\"f32\"", {}, {dims}); }
  /// A named Parameter; with a layout, written in its port's rt_info as OpenVINO writes it.
  int parameter(const std::string& dims, const std::string& name, const std::string& layout = "") {
    const int id = layer("Parameter", "element_type=\"f32\"", {}, {dims}, name);
    if (!layout.empty()) {
      const auto at = layers_.rfind("</port>");
      layers_.insert(at, fmt::format("<rt_info><attribute name=\"layout\" version=\"0\" layout=\"{}\"/></rt_info>", layout));
    }
    return id;
  }

  int constant(element_type t, const std::string& shape_attr, const std::vector<std::int64_t>& values,
               const std::string& out_dims) {
    const auto bytes = pack(t, values);
    const int id = layer("Const",
                         fmt::format("element_type=\"{}\" shape=\"{}\" offset=\"{}\" size=\"{}\"", name(t), shape_attr,
                                     bin_.size(), bytes.size()),
                         {}, {out_dims});
    bin_ += bytes;
    return id;
  }
  int i64(const std::vector<std::int64_t>& v) {
    return constant(element_type::i64, std::to_string(v.size()), v, fmt::format("[{}]", v.size()));
  }
  int scalar(std::int64_t v) { return constant(element_type::i64, "", {v}, "[]"); }

  /// Connects output 0 of `from` to input `port` of `to`.
  void edge(int from, int to, int port) { edge(from, 0, to, port); }
  /// An edge from output `output` of `from` (its port after its inputs').
  void edge(int from, int output, int to, int port) {
    edges_ += fmt::format("<edge from-layer=\"{}\" from-port=\"{}\" to-layer=\"{}\" to-port=\"{}\"/>\n", from,
                          ports_in_[from] + output, to, port);
  }

  int reshape(int data, int pattern, bool special_zero, const std::string& in, const std::string& pattern_dims,
              const std::string& out, const std::string& name = "") {
    const int id = layer("Reshape", fmt::format("special_zero=\"{}\"", special_zero ? "true" : "false"),
                         {in, pattern_dims}, {out}, name);
    edge(data, id, 0);
    edge(pattern, id, 1);
    return id;
  }

  std::string xml() const {
    return fmt::format("<?xml version=\"1.0\"?>\n<net name=\"fixture\" version=\"{}\">\n<layers>\n{}</layers>\n"
                       "<edges>\n{}</edges>\n</net>\n",
                       version_, layers_, edges_);
  }
  const std::string& bin() const { return bin_; }

 private:
  int version_;
  int next_ = 0;
  std::string layers_, edges_, bin_;
  std::map<int, int> ports_in_;
};

/// A model of one StridedSlice-1 of a 2-D Parameter `input`, from `begin` to `end` (two elements each) in
/// steps of 1, with the mask attributes `masks`, its output `out` to a Result.
inline ir_builder strided_slice_model(const std::string& input, std::vector<std::int64_t> begin,
                                      std::vector<std::int64_t> end, const std::string& masks, const std::string& out) {
  ir_builder b;
  const int x = b.parameter(input);
  const int bg = b.i64(begin), en = b.i64(end), st = b.i64({1, 1});
  const int s = b.layer("StridedSlice", masks, {input, "[2]", "[2]", "[2]"}, {out});
  b.edge(x, s, 0);
  b.edge(bg, s, 1);
  b.edge(en, s, 2);
  b.edge(st, s, 3);
  b.result(s, out);
  return b;
}

class ir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("reshape1-ir-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  model::check_report check(const ir_builder& b) { return model::check(load(b.xml(), b.bin())); }
  model::graph load(const std::string& xml, const std::string& bin) {
    std::ofstream(dir_ / "m.xml") << xml;
    std::ofstream(dir_ / "m.bin", std::ios::binary).write(bin.data(), static_cast<std::streamsize>(bin.size()));
    return model::read_ir(dir_ / "m.xml", dir_ / "m.bin");
  }
  fs::path dir_;
};

/// A model of ../shared/ir-models (RESHAPE1_SHARED_MODELS), or an empty path when that folder is absent
/// (the caller skips); in CI (CI set), its absence is a failure.
inline fs::path shared_model(const char* path) {
  const fs::path root = fs::path(RESHAPE1_SHARED_MODELS);
  if (!fs::exists(root)) {
    if (std::getenv("CI") != nullptr) ADD_FAILURE() << "CI is set but " << root << " does not exist";
    return {};
  }
  return root / path;
}

/// A batch report's findings as "kind id, kind id" (by layer id): what the IR batch tests compare.
inline std::string listed_ids(const model::batch_report& r) {
  std::string s;
  for (const auto& f : r.findings) s += fmt::format("{}{} {}", s.empty() ? "" : ", ", model::name(f.issue), f.id);
  return s;
}

}  // namespace reshape1::test
