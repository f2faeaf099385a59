// Test helpers: run one shape rule of the table on hand-made input tensors, as propagation would.
#pragma once

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <charconv>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "model/ops/rules.hpp"
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
  t.value.emplace();
  t.value->reals = std::move(v);
  return t;
}

/// The registry rows (type, opset) that run_layer has run to an output: registry_test.cpp checks, with
/// RESHAPE1_ROW_COVERAGE set, that every row of the registry is among them.
inline std::set<std::pair<std::string, int>>& rows_run() {
  static std::set<std::pair<std::string, int>> rows;
  return rows;
}

/// The declared value inputs (type, opset, input) that a rule test has shown to matter: without that one
/// input's value, an output's shape or element type changed (or the rule refused). registry_test.cpp checks,
/// with RESHAPE1_ROW_COVERAGE set, that every input a row declares is among them: a declaration can be too
/// wide as well as too narrow.
inline std::set<std::tuple<std::string, int, std::size_t>>& values_shown() {
  static std::set<std::tuple<std::string, int, std::size_t>> shown;
  return shown;
}

namespace rule_run {
inline std::vector<model::tensor> apply(const model::graph& g, const model::layer& l,
                                        const model::detail::rule_entry& e, const std::vector<model::tensor>& inputs,
                                        std::size_t outputs) {
  std::vector<const model::tensor*> in;
  for (const auto& t : inputs) in.push_back(&t);
  std::vector<model::tensor> out(outputs);
  model::detail::op o{g, l, in, out};
  e.fn(o);
  return out;
}

/// Whether two runs' outputs have the same shapes (symbols included) and element types.
inline bool same_shapes(const std::vector<model::tensor>& a, const std::vector<model::tensor>& b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i].shape == b[i].shape) || a[i].type != b[i].type) return false;
  return true;
}
}  // namespace rule_run

/// Runs the row of layer `l` (a layer of `g`, or made by run()) on `inputs`, for `outputs` outputs, and
/// checks the row's value_ports: run again with the values of every input the row does not declare taken
/// away, each output must keep its shape and element type. A refusal is not checked that way: it has no
/// shapes to compare, and with fewer values a rule may rightly refuse less. Each declared input whose value
/// alone changes an output is noted in values_shown().
inline std::vector<model::tensor> run_layer(const model::graph& g, const model::layer& l,
                                            const std::vector<model::tensor>& inputs, std::size_t outputs = 1) {
  const auto* e = model::detail::find_entry(l.type, l.opset);
  if (e == nullptr) throw std::logic_error(fmt::format("no rule for {}-{}", l.type, l.opset));
  auto out = rule_run::apply(g, l, *e, inputs, outputs);
  rows_run().emplace(std::string(l.type), l.opset);
  auto stripped = inputs;
  std::vector<std::size_t> taken;
  for (std::size_t k = 0; k < stripped.size(); ++k) {
    if (!stripped[k].value) continue;
    if (model::detail::reads_value(e->values, k)) {
      if (e->values == model::detail::reads_all_values) continue;
      auto one = inputs;
      one[k].value.reset();
      bool changed = true;
      try {
        changed = !rule_run::same_shapes(rule_run::apply(g, l, *e, one, outputs), out);
      } catch (const error&) {
      }
      if (changed) values_shown().emplace(std::string(l.type), l.opset, k);
      continue;
    }
    stripped[k].value.reset();
    taken.push_back(k);
  }
  if (taken.empty()) return out;
  const auto row = fmt::format("{}-{} without the values of inputs [{}], which it does not declare", l.type, l.opset,
                               fmt::join(taken, ","));
  try {
    const auto again = rule_run::apply(g, l, *e, stripped, outputs);
    for (std::size_t i = 0; i < outputs; ++i) {
      EXPECT_TRUE(again[i].shape == out[i].shape)
          << row << ": output " << i << " is " << to_string(again[i].shape) << ", not " << to_string(out[i].shape);
      EXPECT_TRUE(again[i].type == out[i].type) << row << ": output " << i << " changes its element type";
    }
  } catch (const error& x) {
    ADD_FAILURE() << row << ": refused, where it ran with them: " << x.what();
  }
  return out;
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
  return run_layer(empty, l, inputs, outputs);
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
