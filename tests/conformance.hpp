// Test helpers: the conformance JSON encoding <-> reshape1 values.
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reshape1/reshape1.hpp"

namespace reshape1::test {

inline std::vector<nlohmann::json> load_jsonl(const std::string& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> cases;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) cases.push_back(nlohmann::json::parse(line));
  return cases;
}

inline dimension dim_from_json(const nlohmann::json& j) {
  if (j.is_number_integer()) {
    const auto v = j.get<std::int64_t>();
    return v == -1 ? dimension() : dimension(v);
  }
  const auto lo = j.at("min").get<std::int64_t>();
  const auto hi = j.at("max").is_null() ? interval::unbounded : j.at("max").get<std::int64_t>();
  const auto symbol = j.contains("symbol") && !j.at("symbol").is_null() ? j.at("symbol").get<std::string>() : "";
  return dimension(interval(lo, hi), symbol);
}

inline partial_shape shape_from_json(const nlohmann::json& j) {
  if (j.is_string()) return partial_shape::dynamic();
  std::vector<dimension> dims;
  for (const auto& d : j) dims.push_back(dim_from_json(d));
  return partial_shape(std::move(dims));
}

/// Little-endian bytes of `values` in element type `t` (whole-byte integer types).
inline std::vector<std::byte> encode(element_type t, const std::vector<nlohmann::json>& values) {
  std::vector<std::byte> out;
  const auto width = static_cast<std::size_t>(bit_width(t) / 8);
  for (const auto& v : values) {
    std::uint64_t raw = v.is_number_unsigned() ? v.get<std::uint64_t>()
                                               : static_cast<std::uint64_t>(v.get<std::int64_t>());
    for (std::size_t b = 0; b < width; ++b) out.push_back(static_cast<std::byte>((raw >> (8 * b)) & 0xFF));
  }
  return out;
}

inline reshape_pattern pattern_from_case(const nlohmann::json& c) {
  const auto& p = c.at("pattern");
  const auto type = c.contains("pattern_element_type") ? parse_element_type(c.at("pattern_element_type").get<std::string>())
                                                      : element_type::i64;
  std::vector<std::string> symbols;
  if (p.contains("pattern_symbols"))
    for (const auto& s : p.at("pattern_symbols")) symbols.push_back(s.is_null() ? "" : s.get<std::string>());
  if (p.contains("scalar")) return reshape_pattern::scalar(p.at("scalar").get<std::int64_t>()).with_element_type(type);
  if (p.contains("unknown_of_shape"))
    return reshape_pattern::unknown(shape_from_json(p.at("unknown_of_shape"))).with_element_type(type);
  if (p.contains("bounds")) {
    std::vector<pattern_bound> bounds;
    for (std::size_t i = 0; i < p.at("bounds").size(); ++i) {
      const auto& b = p.at("bounds")[i];
      bounds.push_back({b[0].is_null() ? 0 : b[0].get<std::int64_t>(),
                        b[1].is_null() ? interval::unbounded : b[1].get<std::int64_t>(),
                        symbols.empty() ? symbol() : symbol(symbols[i])});
    }
    return reshape_pattern::from_bounds(std::move(bounds)).with_element_type(type);
  }
  const auto values = p.at("values").get<std::vector<nlohmann::json>>();
  reshape_pattern pattern;
  if (c.contains("pattern_element_type") && symbols.empty() && bit_width(type) >= 8) {
    // Through the tensor decoder: the bytes a Constant of that type would hold.
    const auto bytes = encode(type, values);
    pattern = reshape_pattern::from_tensor(type, bytes, shape{static_cast<std::int64_t>(values.size())});
  } else {
    std::vector<std::int64_t> v;
    for (const auto& x : values) v.push_back(x.get<std::int64_t>());
    const std::vector<symbol> handles(symbols.begin(), symbols.end());
    pattern = reshape_pattern::from_values(v, handles).with_element_type(type);
  }
  if (p.contains("pattern_shape")) pattern = pattern.with_tensor_shape(shape_from_json(p.at("pattern_shape")));
  return pattern;
}

inline reshape_options options_from_json(const nlohmann::json& o) {
  reshape_options r;
  if (o.contains("sound_bounds")) r.sound_bounds = o.at("sound_bounds").get<bool>();
  if (o.contains("legacy_scalar_pattern")) r.legacy_scalar_pattern = o.at("legacy_scalar_pattern").get<bool>();
  if (o.contains("empty_rule")) {
    const auto e = o.at("empty_rule").get<std::string>();
    r.empty = e == "tensorflow" ? empty_rule::tensorflow : e == "strict" ? empty_rule::strict : empty_rule::openvino;
  }
  return r;
}

}  // namespace reshape1::test
