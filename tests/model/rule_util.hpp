// Test helpers: run one shape rule of the table on hand-made input tensors, as propagation would.
#pragma once

#include <gtest/gtest.h>

#include <charconv>
#include <string>
#include <utility>
#include <vector>

#include "model/rules.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/propagate.hpp"

namespace reshape1::test {

/// A tensor known by its shape only.
inline model::tensor of(std::string_view shape_text, std::optional<element_type> type = element_type::f32) {
  return {parse_shape(shape_text), type, std::nullopt};
}

/// A tensor whose integer values are known (a 1-D tensor of their count unless a shape is given).
inline model::tensor values(std::vector<std::int64_t> v, std::string_view shape_text = "") {
  model::tensor t;
  t.shape = shape_text.empty() ? partial_shape{dimension(static_cast<std::int64_t>(v.size()))} : parse_shape(shape_text);
  t.type = element_type::i64;
  model::tensor_value value;
  for (auto x : v) value.elements.push_back({x, x, {}, true});
  t.value = std::move(value);
  return t;
}

inline model::tensor reals(std::vector<double> v) {
  model::tensor t;
  t.shape = partial_shape{dimension(static_cast<std::int64_t>(v.size()))};
  t.type = element_type::f32;
  t.value = model::tensor_value{{}, std::move(v)};
  return t;
}

/// Runs the rule of (type, opset) on `inputs` with <data> attributes `attributes`, for `outputs` outputs.
inline std::vector<model::tensor> run(std::string type, int opset,
                                      const std::vector<std::pair<std::string, std::string>>& attributes,
                                      const std::vector<model::tensor>& inputs, std::size_t outputs = 1) {
  static const model::graph empty;
  model::layer l;
  l.id = 7;
  l.name = "op";
  l.type = type;
  l.opset = opset;
  const std::string version = "opset" + std::to_string(opset);
  l.version = version;
  // What the layer views (a graph's storage when read from a file).
  std::vector<model::attribute> list;
  std::vector<std::vector<std::int64_t>> integers(attributes.size());
  std::vector<std::vector<double>> reals(attributes.size());
  for (std::size_t k = 0; k < attributes.size(); ++k) {
    const auto& [name, text] = attributes[k];
    model::attribute a;
    a.name = name;
    a.text = text;
    if (text == "true" || text == "1") a.boolean = true;
    if (text == "false" || text == "0") a.boolean = false;
    // Lists of integers and of reals, as the reader parses them.
    a.is_integers = a.is_reals = true;
    std::string_view rest = text;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      std::string_view item = rest.substr(0, comma);
      while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
      std::int64_t i = 0;
      double d = 0;
      const auto ri = std::from_chars(item.data(), item.data() + item.size(), i);
      const auto rd = std::from_chars(item.data(), item.data() + item.size(), d);
      if (ri.ec != std::errc() || ri.ptr != item.data() + item.size()) a.is_integers = false;
      else integers[k].push_back(i);
      if (rd.ec != std::errc() || rd.ptr != item.data() + item.size()) a.is_reals = false;
      else reals[k].push_back(d);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    a.integers = integers[k];
    a.reals = reals[k];
    list.push_back(a);
  }
  l.attributes = list;
  const std::vector<model::port> input_ports(inputs.size()), output_ports(outputs);
  const std::vector<std::optional<model::source>> sources(inputs.size());
  l.inputs = input_ports;
  l.sources = sources;
  l.outputs = output_ports;
  std::vector<const model::tensor*> in;
  for (const auto& t : inputs) in.push_back(&t);
  std::vector<model::tensor> out(outputs);
  const auto rule = model::detail::find_rule(l.type, opset);
  if (rule == nullptr) throw std::logic_error("no rule for " + type);
  model::detail::op o{empty, l, in, out};
  rule(o);
  return out;
}

inline std::string shape_of(const std::vector<model::tensor>& out, std::size_t i = 0) {
  return to_string(out.at(i).shape);
}

/// The rule refuses its inputs with error(invalid_shape) (or another code) naming the layer.
template <class F>
void expect_refused(F f, const std::string& part, errc code = errc::invalid_shape) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing: " << part;
  } catch (const error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find("layer 'op' (id 7): "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

}  // namespace reshape1::test
