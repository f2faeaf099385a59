// onnx::shapes: every tensor's propagated shape, the names given to the sizes a model does not name, and the
// copy of an ONNX model that declares them.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <map>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "../onnx_test_util.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/model/shapes.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::test {
namespace {

std::string model_of(const std::string& text) {
  ::onnx::ModelProto m;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m));
  return m.SerializeAsString();
}

model::shapes_report shapes_of(const std::string& bytes, model::shapes_options options = {}) {
  options.copy = true;
  return onnx::shapes(std::as_bytes(std::span(bytes.data(), bytes.size())), "<test>", options);
}

std::map<std::string, std::string> listed(const model::shapes_report& r) {
  std::map<std::string, std::string> out;
  for (const auto& t : r.tensors) out[t.name] = to_string(t.shape);
  return out;
}

/// The dims a graph of the written copy declares for each tensor: numbers, names, or "?".
std::map<std::string, std::string> declared(const ::onnx::GraphProto& g) {
  std::map<std::string, std::string> out;
  for (const auto* list : {&g.input(), &g.output(), &g.value_info()})
    for (const auto& v : *list) {
      if (!v.type().tensor_type().has_shape()) {
        out[v.name()] = "no shape";
        continue;
      }
      std::string s = "[";
      for (const auto& d : v.type().tensor_type().shape().dim())
        s += (s.size() > 1 ? "," : "") + (d.has_dim_value() ? std::to_string(d.dim_value()) : d.has_dim_param() ? d.dim_param() : "?");
      out[v.name()] = s + "]";
    }
  return out;
}

::onnx::ModelProto written(const model::shapes_report& r) {
  ::onnx::ModelProto m;
  EXPECT_TRUE(r.output.has_value());
  EXPECT_TRUE(m.ParseFromString(std::get<model::onnx_output>(*r.output).model));
  return m;
}

constexpr const char* flatten_model = R"(
ir_version: 8
opset_import { domain: "" version: 14 }
graph {
  name: "g"
  input { name: "x" type { tensor_type { elem_type: 1 shape { dim { } dim { dim_value: 4 } } } } }
  initializer { name: "two" data_type: 7 dims: 2 int64_data: [-1, 2] }
  node { name: "act" op_type: "Relu" input: ["x"] output: ["y"] }
  node { name: "fold" op_type: "Reshape" input: ["y", "two"] output: ["z"] }
  output { name: "z" type { tensor_type { elem_type: 1 } } }
}
)";

TEST(shapes, a_size_the_model_does_not_name_is_named_after_the_tensor_and_axis_where_it_first_appears) {
  const auto r = shapes_of(model_of(flatten_model));
  EXPECT_EQ(listed(r), (std::map<std::string, std::string>{{"x", "[?@x_0,4]"}, {"y", "[?@x_0,4]"}, {"z", "[?@z_0,2]"}}));
  ASSERT_EQ(r.tensors.size(), 3U);
  EXPECT_EQ(r.tensors[1].op, "Relu-14");  // the version opset 14 runs (translated as Relu-6)
  EXPECT_EQ(r.tensors[1].layer, "act");
  EXPECT_FALSE(r.tensors[2].declared.has_value());  // declared with no shape
  EXPECT_EQ(r.summary.tensors, 3U);
  EXPECT_EQ(r.summary.rank_known, 3U);
  EXPECT_EQ(r.summary.all_static, 0U);
  // The copy declares them: y in a value_info of its own, z's output given a shape; the input as it was.
  const auto d = declared(written(r).graph());
  EXPECT_EQ(d.at("x"), "[?,4]");
  EXPECT_EQ(d.at("y"), "[x_0,4]");
  EXPECT_EQ(d.at("z"), "[z_0,2]");
}

TEST(shapes, the_shapes_given_are_propagated_and_the_copy_declares_them_on_its_inputs) {
  model::shapes_options options;
  options.shapes = {{"x", parse_shape("[?@B,4]")}};
  const auto r = shapes_of(model_of(flatten_model), options);
  EXPECT_EQ(listed(r).at("z"), "[?@z_0,2]");
  EXPECT_EQ(listed(r).at("y"), "[?@B,4]");
  const auto d = declared(written(r).graph());
  EXPECT_EQ(d.at("x"), "[B,4]");
  EXPECT_EQ(d.at("y"), "[B,4]");

  options.shapes = {{"x", parse_shape("[6,4]")}};
  const auto fixed = declared(written(shapes_of(model_of(flatten_model), options)).graph());
  EXPECT_EQ(fixed.at("x"), "[6,4]");
  EXPECT_EQ(fixed.at("z"), "[12,2]");

  options.shapes = {{"nope", parse_shape("[6,4]")}};
  try {
    (void)shapes_of(model_of(flatten_model), options);
    FAIL() << "an input the model does not have";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("no input named 'nope'"), std::string::npos) << e.what();
  }
}

TEST(shapes, a_name_the_model_uses_is_not_given_to_another_size) {
  // x_1 names the first dimension: the second, unnamed, cannot be x_1 too.
  const auto r = shapes_of(model_of(R"(
ir_version: 8
opset_import { domain: "" version: 14 }
graph {
  name: "g"
  input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_param: "x_1" } dim { } } } } }
  node { name: "act" op_type: "Relu" input: ["x"] output: ["y"] }
  output { name: "y" type { tensor_type { elem_type: 1 } } }
}
)"));
  EXPECT_EQ(listed(r).at("y"), "[?@x_1,?@x_1_2]");
  EXPECT_EQ(declared(written(r).graph()).at("y"), "[x_1,x_1_2]");
}

TEST(shapes, where_propagation_knows_less_the_files_declaration_stays_at_the_declared_shapes_only) {
  // NonZero's count is data: propagation gives an interval; the file says 7.
  const auto bytes = model_of(R"(
ir_version: 8
opset_import { domain: "" version: 14 }
graph {
  name: "g"
  input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 3 } dim { dim_value: 4 } } } } }
  node { name: "where" op_type: "NonZero" input: ["x"] output: ["i"] }
  output { name: "i" type { tensor_type { elem_type: 7 shape { dim { dim_value: 2 } dim { dim_value: 7 } } } } }
}
)");
  const auto r = shapes_of(bytes);
  EXPECT_EQ(listed(r).at("i"), "[2,..12@i_1]");  // at most every element
  EXPECT_EQ(declared(written(r).graph()).at("i"), "[2,7]");
  model::shapes_options options;
  options.shapes = {{"x", parse_shape("[5,4]")}};
  EXPECT_EQ(declared(written(shapes_of(bytes, options)).graph()).at("i"), "[2,i_1]");
}

TEST(shapes, an_op_without_a_rule_is_a_gap_and_its_outputs_get_no_value_info) {
  const auto r = shapes_of(model_of(R"(
ir_version: 8
opset_import { domain: "" version: 14 }
opset_import { domain: "com.example" version: 1 }
graph {
  name: "g"
  input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } dim { dim_value: 3 } } } } }
  node { name: "mystery" op_type: "Mystery" domain: "com.example" input: ["x"] output: ["m"] }
  node { name: "act" op_type: "Relu" input: ["m"] output: ["y"] }
  output { name: "y" type { tensor_type { elem_type: 1 } } }
}
)"));
  ASSERT_EQ(r.gaps.size(), 1U);
  EXPECT_TRUE(r.gaps[0].not_covered);
  EXPECT_EQ(r.gaps[0].name, "mystery");
  EXPECT_EQ(listed(r).at("m"), "[...]");
  EXPECT_EQ(r.summary.rank_known, 1U);
  const auto d = declared(written(r).graph());
  EXPECT_FALSE(d.contains("m"));      // nothing known: no entry added
  EXPECT_EQ(d.at("y"), "no shape");  // declared with no shape, and still so
}

// The element type a tensor has in ONNX, where a translation computes in another: Reciprocal of f16 divides an
// f32 one by it, a QuantizeLinear-13 of no zero point gives u8. The copy declares ONNX's, which ONNX Runtime
// holds it to.
TEST(shapes, a_tensor_has_the_element_type_onnx_gives_it_in_the_copy_too) {
  const auto r = shapes_of(model_of(R"(
ir_version: 8
opset_import { domain: "" version: 13 }
graph {
  name: "g"
  input { name: "x" type { tensor_type { elem_type: 10 shape { dim { dim_value: 2 } } } } }
  initializer { name: "qs" data_type: 1 float_data: 1 }
  node { name: "inv" op_type: "Reciprocal" input: ["x"] output: ["r"] }
  node { name: "up" op_type: "Cast" input: ["r"] output: ["f"] attribute { name: "to" i: 1 type: INT } }
  node { name: "q" op_type: "QuantizeLinear" input: ["f", "qs"] output: ["y"] }
  output { name: "y" }
}
)"));
  std::map<std::string, std::string> types;
  for (const auto& t : r.tensors) types[t.name] = t.type ? std::string(name(*t.type)) : "?";
  EXPECT_EQ(types.at("r"), "f16");
  EXPECT_EQ(types.at("f"), "f32");
  EXPECT_EQ(types.at("y"), "u8");
  bool seen = false;
  const auto copy = written(r);
  for (const auto& v : copy.graph().value_info()) {
    if (v.name() != "r") continue;
    seen = true;
    EXPECT_EQ(v.type().tensor_type().elem_type(), ::onnx::TensorProto::FLOAT16);
  }
  EXPECT_TRUE(seen);
}

TEST(shapes, a_node_one_of_whose_layers_fails_has_unknown_outputs) {
  // GroupNormalization-18 is lowered to a few layers, the last a Reshape to the input's shape: with 6
  // channels in 4 groups the inner Reshape fails, and the node's output is not [2,6,4] (it does not run).
  const auto r = shapes_of(model_of(R"(
ir_version: 8
opset_import { domain: "" version: 18 }
graph {
  name: "g"
  input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } dim { dim_value: 6 } dim { dim_value: 4 } } } } }
  initializer { name: "s" data_type: 1 dims: 4 float_data: [1,1,1,1] }
  initializer { name: "b" data_type: 1 dims: 4 float_data: [0,0,0,0] }
  node { name: "gn" op_type: "GroupNormalization" input: ["x","s","b"] output: ["y"] attribute { name: "num_groups" i: 4 type: INT } }
  node { name: "act" op_type: "Relu" input: ["y"] output: ["z"] }
  output { name: "z" type { tensor_type { elem_type: 1 } } }
}
)"));
  ASSERT_EQ(r.gaps.size(), 1U);
  EXPECT_FALSE(r.gaps[0].not_covered);
  EXPECT_EQ(r.gaps[0].name, "gn");
  EXPECT_EQ(listed(r).at("y"), "[...]");
  EXPECT_EQ(listed(r).at("z"), "[...]");
}

TEST(shapes, an_if_branch_tensor_is_declared_in_its_branch) {
  const auto r = shapes_of(fixture_bytes("if_branches"));
  EXPECT_EQ(listed(r).at("t"), "[1,6]");
  EXPECT_EQ(listed(r).at("e"), "[1,6]");
  const auto m = written(r);
  const auto& node = m.graph().node(0);
  ASSERT_EQ(node.op_type(), "If");
  for (const auto& a : node.attribute()) {
    const auto d = declared(a.g());
    EXPECT_EQ(d.at(a.name() == "then_branch" ? "t" : "e"), "[1,6]") << a.name();
  }
  EXPECT_EQ(declared(m.graph()).at("y"), "[1,6]");
}

/// The graph attribute `name` of `node`.
const ::onnx::GraphProto& body_of(const ::onnx::NodeProto& node, const std::string& name = "body") {
  for (const auto& a : node.attribute())
    if (a.name() == name && a.has_g()) return a.g();
  ADD_FAILURE() << node.name() << " has no graph " << name;
  static const ::onnx::GraphProto none;
  return none;
}

TEST(shapes, a_loop_body_is_listed_after_its_node_and_declared_in_the_body) {
  const auto r = shapes_of(fixture_bytes("loop_scan"));
  std::vector<std::string> order;
  for (const auto& t : r.tensors) order.push_back(t.name);
  EXPECT_EQ(order, (std::vector<std::string>{"x", "total", "steps", "i", "c", "acc", "c_out", "acc_out", "seen"}));
  for (const auto& t : r.tensors) {
    if (t.name == "x" || t.name == "total" || t.name == "steps") {
      EXPECT_TRUE(t.within.empty()) << t.name;
      continue;
    }
    ASSERT_EQ(t.within.size(), 1U) << t.name;
    EXPECT_EQ(t.within[0].name, "accumulate");
  }
  EXPECT_EQ(listed(r).at("acc"), "[?@N,2,3]");  // the batch named outside keeps its name in the body
  EXPECT_EQ(listed(r).at("seen"), "[?@N,2,3]");
  const auto body = declared(body_of(written(r).graph().node(0)));
  EXPECT_EQ(body.at("acc"), "[N,2,3]");
  EXPECT_EQ(body.at("acc_out"), "[N,2,3]");
  EXPECT_EQ(body.at("seen"), "[N,2,3]");
  EXPECT_EQ(body.at("i"), "[]");
}

TEST(shapes, a_size_that_changes_from_one_iteration_to_the_next_is_not_named) {
  // The carried value grows by x's width at each iteration: within one iteration its width is one size,
  // but a name declared for it would claim one size for all of them.
  const auto r = shapes_of(fixture_bytes("loop_growing"));
  EXPECT_EQ(listed(r).at("acc"), "[?@N,?]");
  EXPECT_EQ(listed(r).at("acc_out"), "[?@N,2..]");
  EXPECT_EQ(listed(r).at("s_wide"), "[?@N,2..]");   // in the nested Loop's body, from the carried value
  EXPECT_EQ(listed(r).at("inner_steps"), "[2,?@N,1]");
  const auto m = written(r);
  const auto& outer = body_of(m.graph().node(0));
  EXPECT_EQ(declared(outer).at("acc"), "[N,?]");
  const ::onnx::NodeProto* inner = nullptr;
  for (const auto& n : outer.node())
    if (n.op_type() == "Loop") inner = &n;
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(declared(body_of(*inner)).at("s_wide"), "[N,?]");
  EXPECT_EQ(declared(body_of(*inner)).at("s_sum"), "[N,1]");
  for (const auto& t : r.tensors)
    if (t.name == "s_sum") {
      ASSERT_EQ(t.within.size(), 2U);
      EXPECT_EQ(t.within[0].name, "grow");
      EXPECT_EQ(t.within[1].name, "inner");
    }
}

TEST(shapes, a_loop_that_may_run_no_iteration_gives_its_carried_value_back_as_it_came) {
  // No iteration at batch 1 (the trip count is N - 1): the output is x's [N,2] there, the body's [N,1] else.
  const auto r = shapes_of(fixture_bytes("loop_maybe_none"));
  EXPECT_EQ(listed(r).at("y"), "[?@N,1..2@y_1]");
  EXPECT_EQ(listed(r).at("a"), "[?@N,1..2]");
  EXPECT_EQ(listed(r).at("a_out"), "[?@N,1]");
}

TEST(shapes, a_bodys_own_declaration_is_not_kept_where_propagation_knows_less) {
  // The carried value is transposed at each iteration, [N,2] then [2,N]: the body declares it [N,2], which
  // holds at the first iteration only. Propagation knows [?,?]; the copy declares that, not the file's claim.
  constexpr const char* swapped = R"(
ir_version: 8
opset_import { domain: "" version: 13 }
graph {
  name: "g"
  input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_param: "N" } dim { dim_value: 2 } } } } }
  initializer { name: "trips" data_type: 7 int64_data: [3] }
  node {
    name: "swap" op_type: "Loop" input: ["trips", "", "x"] output: ["y"]
    attribute { name: "body" type: GRAPH g {
      name: "b"
      input { name: "i" type { tensor_type { elem_type: 7 shape { } } } }
      input { name: "c" type { tensor_type { elem_type: 9 shape { } } } }
      input { name: "a" type { tensor_type { elem_type: 1 shape { dim { dim_param: "N" } dim { dim_value: 2 } } } } }
      node { name: "keep_going" op_type: "Identity" input: ["c"] output: ["c_out"] }
      node { name: "turn" op_type: "Transpose" input: ["a"] output: ["a_out"] attribute { name: "perm" type: INTS ints: [1, 0] } }
      value_info { name: "a_out" type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } dim { dim_param: "N" } } } } }
      output { name: "c_out" type { tensor_type { elem_type: 9 shape { } } } }
      output { name: "a_out" type { tensor_type { elem_type: 1 } } } } }
  }
  output { name: "y" type { tensor_type { elem_type: 1 } } }
}
)";
  const auto r = shapes_of(model_of(swapped));
  EXPECT_EQ(listed(r).at("a"), "[?,?]");
  const auto body = declared(body_of(written(r).graph().node(0)));
  EXPECT_EQ(body.at("a"), "[?,?]");
  EXPECT_EQ(body.at("a_out"), "[?,?]");
}

TEST(shapes, a_scan_input_is_listed_as_the_bodys_parameter_at_its_slice) {
  const auto r = shapes_of(fixture_bytes("scan_reshape"));
  for (const auto& t : r.tensors)
    if (t.name == "step") {
      EXPECT_EQ(t.op, "Parameter-1");
      EXPECT_EQ(t.layer, "step");
      EXPECT_EQ(to_string(t.shape), "[1,6]");  // x [1,4,6] scanned along axis 1: the slice without it
    }
  EXPECT_EQ(declared(body_of(written(r).graph().node(0))).at("parts"), "[1,2,3]");
}

/// An IR copy `shapes -o` wrote, read back (`again`): each port declares what `copy`, the report it was
/// written from, gives its tensor (IR ports hold no names: the bounds).
void expect_declared_as_propagated(const model::shapes_report& again, const model::shapes_report& copy) {
  ASSERT_EQ(again.tensors.size(), copy.tensors.size());
  for (std::size_t k = 0; k < again.tensors.size(); ++k) {
    const auto& t = again.tensors[k];
    ASSERT_TRUE(t.declared.has_value()) << t.name;
    ASSERT_EQ(t.declared->size(), copy.tensors[k].shape.size()) << t.name;
    for (std::size_t d = 0; d < t.declared->size(); ++d)
      EXPECT_EQ((*t.declared)[d].range(), copy.tensors[k].shape[d].range()) << t.name << " axis " << d;
  }
}

TEST(shapes, an_ir_lists_every_port_and_its_copy_declares_them_on_its_ports) {
  const fs::path xml = fs::path(RESHAPE1_TEST_DATA) / "models" / "concat-batch-const" / "model.xml";
  const auto r = onnx::shapes(xml);
  EXPECT_FALSE(r.output.has_value());  // none asked for
  ASSERT_FALSE(r.tensors.empty());
  for (const auto& t : r.tensors) EXPECT_NE(t.name.find(':'), std::string::npos) << t.name;

  // At a dynamic batch: the ports say -1 where the batch goes, the Parameter's shape attribute `?`.
  model::shapes_options options;
  options.copy = true;
  options.shapes = {{"", parse_shape("[?,8]")}};
  const auto dir = fs::temp_directory_path() / "reshape1_shapes_ir";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto out = dir / "copy.xml";
  onnx::check_shapes_output(xml, {}, out);
  const auto copy = onnx::shapes(xml, options);
  ASSERT_TRUE(copy.output.has_value());
  ASSERT_TRUE(std::holds_alternative<model::ir_output>(*copy.output));
  onnx::write_shapes(copy, xml, out);
  EXPECT_EQ(slurp(dir / "copy.bin"), slurp(xml.parent_path() / "model.bin"));
  // Read back: every port declares what propagation gives it, and the input takes the shape given.
  const auto again = onnx::shapes(out);
  expect_declared_as_propagated(again, copy);
  EXPECT_FALSE(again.tensors[0].shape[0].is_static());
  const auto check = model::check(model::read_ir(out, dir / "copy.bin"));
  EXPECT_EQ(check.summary.layers.shape_mismatches, 0U);
  fs::remove_all(dir);
}

TEST(shapes, an_ir_loop_body_is_listed_and_its_copy_declares_the_body_ports) {
  const fs::path xml = fs::path(RESHAPE1_TEST_DATA) / "models" / "loop-trip-count" / "model.xml";
  model::shapes_options options;
  options.copy = true;
  options.shapes = {{"", parse_shape("[?,4]")}};
  const auto dir = fs::temp_directory_path() / "reshape1_shapes_ir_loop";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto out = dir / "copy.xml";
  const auto copy = onnx::shapes(xml, options);
  std::size_t in_body = 0;
  for (const auto& t : copy.tensors) {
    if (t.within.empty()) continue;
    ++in_body;
    ASSERT_EQ(t.within.size(), 1U) << t.name;
    EXPECT_EQ(t.within[0].name, "accumulate");
    EXPECT_EQ(t.within[0].type, "Loop");
  }
  EXPECT_EQ(in_body, 5U);  // acc, i, next, flat, step: the body's Consts and Results aside
  onnx::write_shapes(copy, xml, out);
  // Read back: the body's ports declare what propagation gives them (the batch as -1), as the top graph's do.
  const auto again = onnx::shapes(out);
  expect_declared_as_propagated(again, copy);
  for (const auto& t : again.tensors) {
    if (t.name == "step:2") {
      EXPECT_EQ(to_string(*t.declared), "[?,1,4]");
    }
  }
  fs::remove_all(dir);
}

TEST(shapes, a_report_without_a_copy_writes_nothing) {
  const fs::path xml = fs::path(RESHAPE1_TEST_DATA) / "models" / "concat-batch-const" / "model.xml";
  const auto out = fs::temp_directory_path() / "reshape1_shapes_none.xml";
  fs::remove(out);
  try {
    onnx::write_shapes(onnx::shapes(xml), xml, out);
    FAIL() << "a report without a copy";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
  }
  EXPECT_FALSE(fs::exists(out));
  try {
    onnx::check_shapes_output(xml, {}, xml);
    FAIL() << "the input itself";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("the model with its shapes"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace reshape1::test
