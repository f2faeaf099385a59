// What the lowering cases of tests/onnx/lower/ share: one row's case (a model of one node, the layers it
// lowers to and the shapes propagated to its outputs), how its model is built and read, and each family's
// cases (tests/onnx/lower/<family>_test.cpp, as the rows are in src/onnx/lower/<family>.cpp), which
// rows_test.cpp runs as the suite onnx/lower_rows.
#pragma once

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <ostream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "onnx/lower/families.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/model/propagate.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::test {

/// One row's case: a node of `op` in a model whose opset runs the row's since_version (opset_of).
struct lowering_case {
  std::string op;
  int since;
  /// The tensors around the node: `x:f32[2,3]` is a graph input (`[2,?]`: of a dimension of no size; `m:map[]` one
  /// of map(int64, float)); `w:f32[4,3]=` an initializer of zeros,
  /// `axes:i64[1]=2` one holding those values (`[]`: a scalar).
  std::string tensors;
  std::string inputs;   ///< the node's, comma-separated; an empty one leaves an optional input out
  std::string outputs;  ///< the node's, each also a graph output; an empty one leaves an optional output out
  std::string attributes;
  std::string layers;  ///< what the node lowers to, in order: its layers but Consts (and the model's Parameters, Results)
  std::string shapes;  ///< the propagated shape of each graph output
  std::string domain = "ai.onnx";  ///< the node's (com.microsoft: imported at version 1)
  /// The model's opset, when the row is to be read at a later version than its since (0: opset_of's).
  int opset = 0;
  /// Nodes (protobuf text) before and after the node, for rows that take or give what no graph input or output
  /// of a tensor type is (a sequence, an optional), and the graph's outputs then (comma-separated; "": the node's).
  std::string before = {};
  std::string after = {};
  std::string graph_outputs = {};
};

inline std::string attr_i(const char* name, std::int64_t v) {
  return fmt::format(R"(attribute {{ name: "{}" type: INT i: {} }} )", name, v);
}
inline std::string attr_ints(const char* name, const std::vector<std::int64_t>& v) {
  return fmt::format(R"(attribute {{ name: "{}" type: INTS ints: [{}] }} )", name, fmt::join(v, ", "));
}
inline std::string attr_f(const char* name, float v) {
  return fmt::format(R"(attribute {{ name: "{}" type: FLOAT f: {} }} )", name, v);
}
inline std::string attr_floats(const char* name, const std::vector<float>& v) {
  return fmt::format(R"(attribute {{ name: "{}" type: FLOATS floats: [{}] }} )", name, fmt::join(v, ", "));
}
inline std::string attr_s(const char* name, const char* v) {
  return fmt::format(R"(attribute {{ name: "{}" type: STRING s: "{}" }} )", name, v);
}
inline std::string attr_g(const char* name, const std::string& graph) {
  return fmt::format(R"(attribute {{ name: "{}" type: GRAPH g {{ {} }} }} )", name, graph);
}

inline int onnx_type(const std::string& name) {
  if (name == "f32") return ::onnx::TensorProto::FLOAT;
  if (name == "i64") return ::onnx::TensorProto::INT64;
  if (name == "i32") return ::onnx::TensorProto::INT32;
  if (name == "u8") return ::onnx::TensorProto::UINT8;
  if (name == "bool") return ::onnx::TensorProto::BOOL;
  // The narrow types by number (Debian's ONNX 1.12 names none of them).
  if (name == "f8") return 17;  // FLOAT8E4M3FN
  if (name == "u4") return 21;
  if (name == "i4") return 22;
  // Any other by reshape1's name (i16, boolean...).
  if (const auto t = find_element_type(name))
    if (const auto number = onnx::detail::onnx_type_of(*t)) return *number;
  ADD_FAILURE() << "no element type " << name;
  return 0;
}

inline std::vector<std::string> split(const std::string& s, char by) {
  std::vector<std::string> out;
  std::string piece;
  std::istringstream in(s);
  while (std::getline(in, piece, by)) out.push_back(piece);
  if (!s.empty() && s.back() == by) out.emplace_back();
  return out;
}

/// One tensor of `lowering_case::tensors` added to `g`.
inline void add_tensor(::onnx::GraphProto& g, const std::string& spec) {
  const auto colon = spec.find(':'), open = spec.find('['), close = spec.find(']');
  ASSERT_TRUE(colon != std::string::npos && open != std::string::npos && close != std::string::npos) << spec;
  const auto name = spec.substr(0, colon);
  if (spec.substr(colon + 1, open - colon - 1) == "map") {  // `m:map[]`: a graph input of map(int64, float)
    auto* map = g.add_input();
    map->set_name(name);
    auto* m = map->mutable_type()->mutable_map_type();
    m->set_key_type(::onnx::TensorProto::INT64);
    m->mutable_value_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
    return;
  }
  const auto type = onnx_type(spec.substr(colon + 1, open - colon - 1));
  std::vector<std::int64_t> dims;
  for (const auto& d : split(spec.substr(open + 1, close - open - 1), ',')) dims.push_back(d == "?" ? -1 : std::stoll(d));
  if (spec.find('=', close) == std::string::npos) {
    auto* in = g.add_input();
    in->set_name(name);
    auto* t = in->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    auto* shape = t->mutable_shape();
    for (const auto d : dims) {
      auto* dim = shape->add_dim();
      if (d >= 0) dim->set_dim_value(d);  // `?`: a dimension of no size
    }
    return;
  }
  auto* t = g.add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  std::int64_t count = 1;
  for (const auto d : dims) {
    t->add_dims(d);
    count *= d;
  }
  auto values = split(spec.substr(spec.find('=', close) + 1), ',');
  if (values.empty()) values.assign(static_cast<std::size_t>(count), "0");
  if (type == 21 || type == 22) {  // two to an int32_data entry, the first in the low half
    for (std::size_t k = 0; k < values.size(); k += 2)
      t->add_int32_data((std::stoi(values[k]) & 15) | (k + 1 < values.size() ? (std::stoi(values[k + 1]) & 15) << 4 : 0));
    return;
  }
  for (const auto& v : values) {
    if (type == ::onnx::TensorProto::FLOAT) t->add_float_data(std::stof(v));
    else if (type == ::onnx::TensorProto::INT64) t->add_int64_data(std::stoll(v));
    else t->add_int32_data(std::stoi(v));
  }
}

/// The default domain's opset of the case's model: 7 where that still runs the row's version (the ops in an
/// If's or a Loop's body then have versions ONNX Runtime runs), else the row's version; 17 for a
/// com.microsoft case.
inline int opset_of(const lowering_case& c) {
  if (c.opset != 0) return c.opset;
  if (c.domain != "ai.onnx") return 17;
  const auto* at7 = onnx::detail::schema_at(c.domain, c.op, 7);
  return c.since < 7 && at7 != nullptr && at7->since == c.since ? 7 : c.since;
}

/// What a failing case prints for itself (gtest would dump its bytes).
inline void PrintTo(const lowering_case& c, std::ostream* out) { *out << c.domain << "." << c.op << "-" << c.since; }

/// The model of one node of the case.
inline std::string model_of(const lowering_case& c) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(opset_of(c));
  if (c.domain != "ai.onnx") {
    auto* other = m.add_opset_import();
    other->set_domain(c.domain);
    other->set_version(c.since);
  }
  auto& g = *m.mutable_graph();
  g.set_name(c.op);
  std::istringstream tensors(c.tensors);
  for (std::string spec; tensors >> spec;) add_tensor(g, spec);
  const auto add_nodes = [&](const std::string& text) {
    ::onnx::GraphProto nodes;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &nodes)) << text;
    for (const auto& n : nodes.node()) *g.add_node() = n;
  };
  add_nodes(c.before);
  auto* node = g.add_node();
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(c.attributes, node)) << c.attributes;
  node->set_name("n");
  node->set_op_type(c.op);
  if (c.domain != "ai.onnx") node->set_domain(c.domain);
  for (const auto& in : split(c.inputs, ',')) node->add_input(in);
  for (const auto& out : split(c.outputs, ',')) {
    node->add_output(out);
    if (!out.empty() && c.graph_outputs.empty()) g.add_output()->set_name(out);
  }
  add_nodes(c.after);
  for (const auto& out : split(c.graph_outputs, ','))
    if (!out.empty()) g.add_output()->set_name(out);
  return m.SerializeAsString();
}

/// A row as "domain op since".
using row_key = std::tuple<std::string, std::string, int>;

/// The message a case's model is refused with when read (bad_file), or "" when it is read.
inline std::string refused_when_read(const lowering_case& c) {
  const auto bytes = model_of(c);
  try {
    (void)onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), "t.onnx");
    return "";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::bad_file) << e.what();
    return e.what();
  }
}

/// Expects the case's model refused when read (bad_file) with a message holding `words`.
inline void expect_refused_with(const lowering_case& c, const std::string& words) {
  const auto what = refused_when_read(c);
  EXPECT_NE(what.find(words), std::string::npos) << c.op << " " << c.tensors << ": " << (what.empty() ? "read" : what);
}

/// What `check` says of the case's node when it is not covered ("" when it is covered).
inline std::string not_covered_why(const lowering_case& c) {
  const auto bytes = model_of(c);
  const auto report = model::check(onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), "t.onnx"));
  for (const auto& l : report.layers)
    if (l.issue == model::layer_issue::not_covered) return l.message;
  return "";
}

/// The messages of the layers whose rules refuse the case's model when it is propagated ("" when none does).
inline std::string refusals(const lowering_case& c) {
  const auto bytes = model_of(c);
  const auto g = onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), c.op + ".onnx");
  std::string out;
  for (const auto& lost : model::propagate(g).lost) out += lost.message;
  return out;
}

/// The propagated shape of each graph output of the case's model, space-separated.
inline std::string propagated_shapes(const lowering_case& c) {
  const auto bytes = model_of(c);
  const auto g = onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), c.op + ".onnx");
  const auto p = model::propagate(g);
  std::string shapes;
  for (const auto& l : g.layers())
    if (l.type == "Result") shapes += fmt::format("{}{}", shapes.empty() ? "" : " ", to_string(p.input(g, l, 0).shape));
  return shapes;
}

// Each family's cases, one a row of its file under src/onnx/lower/; cases() is all of them in one list.
std::vector<lowering_case> elementwise_cases();
std::vector<lowering_case> convolution_cases();
std::vector<lowering_case> normalization_cases();
std::vector<lowering_case> matmul_cases();
std::vector<lowering_case> shape_cases();
std::vector<lowering_case> indexing_cases();
std::vector<lowering_case> reduction_cases();
std::vector<lowering_case> resize_cases();
std::vector<lowering_case> recurrent_cases();
std::vector<lowering_case> detection_cases();
std::vector<lowering_case> quantization_cases();
std::vector<lowering_case> control_flow_cases();
std::vector<lowering_case> microsoft_cases();
std::vector<lowering_case> attention_cases();
std::vector<lowering_case> signal_cases();
std::vector<lowering_case> random_cases();
std::vector<lowering_case> text_cases();
std::vector<lowering_case> sequence_cases();
std::vector<lowering_case> ml_cases();
std::vector<lowering_case> cases();

}  // namespace reshape1::test
