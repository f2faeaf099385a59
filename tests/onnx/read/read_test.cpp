// The ONNX reader: a node becomes a layer (its helpers marked), read at its domain's version; dim_params
// become symbols; a reduction's axes are read from where its opset puts them; and the table of ops it
// translates. Loop, Scan and If are in bodies_test.cpp, what it refuses in refusals_test.cpp; the fixtures
// it reads are in tests/data/onnx.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "../onnx_test_util.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::test {
namespace {

TEST(onnx, a_node_is_one_layer_with_its_index_as_id_and_its_helpers_are_marked) {
  const auto g = read_fixture("computed_pattern");
  const auto* reshape = g.find(4);  // node 4, "flat"
  ASSERT_NE(reshape, nullptr);
  EXPECT_EQ(reshape->type, "Reshape");
  EXPECT_EQ(reshape->name, "flat");
  EXPECT_FALSE(reshape->auxiliary);
  EXPECT_TRUE(reshape->flag("special_zero"));  // allowzero absent: 0 copies
  // Gather's axis becomes a Const input of Gather-8, a layer of the node "batch" that is not its own.
  bool helper = false;
  for (const auto& l : g.layers()) helper = helper || (l.name == "batch" && l.auxiliary && l.type == "Const");
  EXPECT_TRUE(helper);
  const auto report = model::check(g);
  ASSERT_EQ(report.reshapes.size(), 1u);
  EXPECT_EQ(report.reshapes[0].name, "flat");
  EXPECT_EQ(report.reshapes[0].result, model::verdict::ok);
  EXPECT_FALSE(report.summary.failed());
}

TEST(onnx, allowzero_is_the_opposite_of_special_zero) {
  const auto g = read_fixture("allowzero_literal");
  EXPECT_FALSE(g.find(0)->flag("special_zero"));
  const auto report = model::check(g);
  ASSERT_EQ(report.reshapes.size(), 1u);
  EXPECT_EQ(report.reshapes[0].result, model::verdict::error);
  EXPECT_EQ(report.reshapes[0].code, "infer_zero");
  EXPECT_EQ(report.reshapes[0].error->code, errc::infer_zero);
}

// A Constant's value is its first attribute, as ONNX Runtime reads it (a second one is ignored), and a
// value_int(s) is read by its declared type: INTS a 1-D tensor, INT a scalar, whatever the name says. An
// attribute of neither type (or none) is refused, as ONNX Runtime refuses it.
TEST(onnx, a_constant_is_its_first_attribute_read_by_its_type) {
  const auto shape_of_y = [](const std::string& attributes, const std::string& consumer) {
    const auto text = fmt::format(R"(
      ir_version: 8 opset_import {{ domain: "" version: 13 }}
      graph {{
        name: "c"
        input {{ name: "x" type {{ tensor_type {{ elem_type: 1 shape {{ dim {{ dim_value: 1 }} dim {{ dim_value: 6 }} dim {{ dim_value: 4 }} }} }} }} }}
        node {{ name: "k" op_type: "Constant" output: ["k"] {} }}
        node {{ name: "r" {} output: ["y"] }}
        output {{ name: "y" type {{ tensor_type {{ elem_type: 1 }} }} }}
      }})",
                                  attributes, consumer);
    ::onnx::ModelProto m;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m));
    const auto g = read_bytes(m.SerializeAsString(), "constant.onnx");
    const auto p = model::propagate(g);
    return to_string(p.input(g, g.layers()[g.order().back()], 0).shape);
  };
  const std::string reshape = R"(op_type: "Reshape" input: ["x", "k"])";
  const std::string gather = R"(op_type: "Gather" input: ["x", "k"] attribute { name: "axis" type: INT i: 1 })";
  EXPECT_EQ(shape_of_y(R"(attribute { name: "value_ints" type: INTS ints: [1, -1] }
                          attribute { name: "value" type: TENSOR t { data_type: 7 dims: 2 int64_data: [4, 6] } })",
                       reshape),
            "[1,24]");
  EXPECT_EQ(shape_of_y(R"(attribute { name: "value" type: TENSOR t { data_type: 7 dims: 2 int64_data: [4, 6] } }
                          attribute { name: "value_ints" type: INTS ints: [1, -1] })",
                       reshape),
            "[4,6]");
  EXPECT_EQ(shape_of_y(R"(attribute { name: "value_int" type: INT i: 5 })", gather), "[1,4]");
  EXPECT_EQ(shape_of_y(R"(attribute { name: "value_int" type: INTS i: 5 })", gather), "[1,0,4]");
  EXPECT_EQ(shape_of_y(R"(attribute { name: "value_ints" type: INT i: 5 ints: [2, 3] })", gather), "[1,4]");
  try {
    (void)shape_of_y(R"(attribute { name: "value_ints" ints: [2, 3] })", gather);
    ADD_FAILURE() << "a value_ints of no type was read";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::bad_file);
    EXPECT_NE(std::string(e.what()).find("attribute value_ints is of type UNDEFINED, not INT or INTS"), std::string::npos)
        << e.what();
  }
  try {
    (void)shape_of_y("", gather);
    ADD_FAILURE() << "a Constant of no attribute was read";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::bad_file);
    EXPECT_NE(std::string(e.what()).find("it has no attribute"), std::string::npos) << e.what();
  }
}

TEST(onnx, a_node_of_another_domain_is_not_covered_and_named) {
  const auto g = read_fixture("custom_domain");
  const auto report = model::check(g);
  ASSERT_EQ(report.summary.layers.not_covered, 1u);
  const auto& f = report.layers[0];
  EXPECT_EQ(f.name, "acc");
  EXPECT_EQ(f.type, "com.example.Scaler");
  EXPECT_EQ(f.id, 2);
  EXPECT_EQ(f.message,
            "layer 'acc' (id 2): com.example.Scaler: reshape1 translates ONNX's default domain, ai.onnx.ml and com.microsoft only; "
            "its outputs are unknown");
  EXPECT_EQ(f.opset, 1);  // the version of com.example the model imports
}

// A com.microsoft node is read at the version of that domain the model imports, and named with it.
TEST(onnx, a_com_microsoft_node_is_translated_at_its_domain_s_version) {
  const auto g = read_fixture("com_microsoft");
  EXPECT_EQ(model::check(g).summary.layers.not_covered, 0u);
  const auto* gelu = g.find(1);
  ASSERT_NE(gelu, nullptr);
  EXPECT_EQ(gelu->type, "Gelu");
  EXPECT_EQ(gelu->op_type(), "com.microsoft.Gelu");
  EXPECT_EQ(gelu->op_version(), 1);
  EXPECT_EQ(model::check_batch(g, {.batch = dimension(4)}).summary.verdict(), model::batch_verdict::yes);
  // Without an import of com.microsoft, ONNX Runtime reads it at version 1 (its only one); another version
  // it does not know.
  auto bytes = fixture_bytes("com_microsoft");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_opset_import()->RemoveLast();
  EXPECT_EQ(model::check(read_bytes(m.SerializeAsString(), "no_import.onnx")).summary.layers.not_covered, 0u);
  auto* v2 = m.add_opset_import();
  v2->set_domain("com.microsoft");
  v2->set_version(2);
  const auto report = model::check(read_bytes(m.SerializeAsString(), "v2.onnx"));
  ASSERT_EQ(report.layers.size(), 1u);
  EXPECT_EQ(report.layers[0].message,
            "layer 'gelu' (id 1): com.microsoft.Gelu: the model imports version 2 of com.microsoft, which has version "
            "1 only; its outputs are unknown");
}

TEST(onnx, findings_name_the_nodes_op_type_and_version) {
  const auto g = read_fixture("constant_node_shape");
  const auto r = model::check_batch(g, {.batch = dimension(4)});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].type, "Reshape");
  EXPECT_EQ(r.findings[0].opset, 13);  // Reshape-13 is what opset 13 runs (translated as Reshape-5: allowzero came at 14)
  EXPECT_EQ(g.find(1)->type, "Reshape");
  EXPECT_EQ(g.find(1)->op_version(), 13);
}

// The axes of a reduction move from an attribute to an input (ReduceSum at 13, the others at 18): each
// form is read at its own opsets. (Translated as one row from version 1, the input form was taken for
// "no axes attribute", every axis reduced.)
TEST(onnx, reductions_read_their_axes_from_the_attribute_or_the_input_by_opset) {
  struct reduction {
    const char* op;
    int opset;
    bool axes_input;
  };
  for (const auto& r : {reduction{"ReduceSum", 11, false}, reduction{"ReduceSum", 13, true},
                        reduction{"ReduceMean", 13, false}, reduction{"ReduceMean", 18, true},
                        reduction{"ReduceMax", 18, true}, reduction{"ReduceMin", 18, true},
                        reduction{"ReduceProd", 18, true}, reduction{"ReduceL1", 18, true},
                        reduction{"ReduceL2", 18, true}}) {
    for (const int keep : {0, 1}) {
      SCOPED_TRACE(fmt::format("{}-{} keepdims={}", r.op, r.opset, keep));
      const auto text = fmt::format(R"(
        ir_version: 8 opset_import {{ domain: "" version: {1} }}
        graph {{
          name: "reduce"
          input {{ name: "x" type {{ tensor_type {{ elem_type: 1 shape {{ dim {{ dim_value: 2 }} dim {{ dim_value: 3 }} dim {{ dim_value: 4 }} }} }} }} }}
          initializer {{ name: "axes" data_type: 7 dims: [1] int64_data: [2] }}
          node {{ name: "r" op_type: "{0}" input: [{2}] output: ["y"] {3}
                 attribute {{ name: "keepdims" type: INT i: {4} }} }}
          output {{ name: "y" type {{ tensor_type {{ elem_type: 1 }} }} }}
        }})",
                                    r.op, r.opset, r.axes_input ? R"("x", "axes")" : R"("x")",
                                    r.axes_input ? "" : R"(attribute { name: "axes" type: INTS ints: [2] })", keep);
      ::onnx::ModelProto m;
      ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m));
      const auto g = read_bytes(m.SerializeAsString(), "reduce.onnx");
      const auto p = model::propagate(g);
      const auto& result = g.layers()[g.order().back()];
      EXPECT_EQ(to_string(p.input(g, result, 0).shape), keep != 0 ? "[2,3,1]" : "[2,3]");
    }
  }
  // An empty axes input: every axis, or none with noop_with_empty_axes.
  for (const auto& [noop, want] : {std::pair{0, "[]"}, std::pair{1, "[2,3,4]"}}) {
    SCOPED_TRACE(fmt::format("noop_with_empty_axes={}", noop));
    const auto text = fmt::format(R"(
      ir_version: 8 opset_import {{ domain: "" version: 13 }}
      graph {{
        name: "reduce"
        input {{ name: "x" type {{ tensor_type {{ elem_type: 1 shape {{ dim {{ dim_value: 2 }} dim {{ dim_value: 3 }} dim {{ dim_value: 4 }} }} }} }} }}
        initializer {{ name: "axes" data_type: 7 dims: [0] }}
        node {{ name: "r" op_type: "ReduceSum" input: ["x", "axes"] output: ["y"]
               attribute {{ name: "keepdims" type: INT i: 0 }} attribute {{ name: "noop_with_empty_axes" type: INT i: {} }} }}
        output {{ name: "y" type {{ tensor_type {{ elem_type: 1 }} }} }}
      }})",
                                  noop);
    ::onnx::ModelProto m;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m));
    const auto g = read_bytes(m.SerializeAsString(), "reduce.onnx");
    const auto p = model::propagate(g);
    EXPECT_EQ(to_string(p.input(g, g.layers()[g.order().back()], 0).shape), want);
  }
}

TEST(onnx, declared_shapes_come_from_outputs_and_value_info_only) {
  const auto g = read_fixture("shared_initializer");
  const auto* relu = g.find(1);
  ASSERT_NE(relu, nullptr);
  EXPECT_FALSE(relu->outputs[0].declared);
  EXPECT_FALSE(relu->outputs[0].shape().rank_known());
  EXPECT_TRUE(g.find(0)->outputs.size() == 1);
}

// A dim_param that reads as a symbol's name is that symbol in the top graph's declarations: reports show it
// and dimensions declared with one name are one size. One that would not read back stays unnamed, and so
// does every dim_param of a body (a Loop's graph may reuse a name for another size).
TEST(onnx, dim_params_are_symbols_where_they_read_as_names) {
  const std::string text = R"pb(
    ir_version: 8
    opset_import { domain: "" version: 13 }
    graph {
      name: "named"
      input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_param: "batch" } dim { dim_param: "seq" } dim { dim_value: 3 } } } } }
      input { name: "y" type { tensor_type { elem_type: 1 shape { dim { dim_param: "batch" } dim { dim_param: "floor(seq/2)" } } } } }
      input { name: "m" type { tensor_type { elem_type: 1 shape { dim { dim_param: "batch" } dim { dim_param: "batch" } } } } }
      input { name: "pts" type { tensor_type { elem_type: 1 shape { dim { dim_param: "batch" } dim { dim_param: "N" } } } } }
      node { name: "r" op_type: "Relu" input: ["x"] output: ["z"] }
      output { name: "z" type { tensor_type { elem_type: 1 shape { dim { dim_param: "batch" } dim { dim_param: "seq" } dim { dim_value: 3 } } } } }
    })pb";
  ::onnx::ModelProto m;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m));
  const auto g = read_bytes(m.SerializeAsString(), "named.onnx");
  const auto r = model::check_batch(g, {.batch = dimension(4)});
  ASSERT_EQ(r.inputs.size(), 4u);
  EXPECT_EQ(to_string(r.inputs[0].declared), "[?@batch,?@seq,3]");
  EXPECT_EQ(to_string(r.inputs[1].declared), "[?@batch,?]");
  EXPECT_EQ(to_string(r.inputs[0].requested), "[4,?@seq,3]");
  // Every dimension named as the batch is the batch, not a size apart from it.
  EXPECT_EQ(to_string(r.inputs[2].requested), "[4,4]");
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(to_string(r.outputs[0].declared), "[?@batch,?@seq,3]");
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::yes) << r.summary_line();
  // A dynamic batch is ?@N, but for a model that names another size N (a point count): then N1.
  const auto dynamic = model::check_batch(g, {.batch = dimension()});
  EXPECT_EQ(to_string(dynamic.inputs[3].requested), "[?@N1,?@N]");
  EXPECT_EQ(to_string(dynamic.inputs[2].requested), "[?@N1,?@N1]");
  // A named dimension given a value in one input's shape has it in the inputs the request leaves as
  // declared: y, m and pts follow x to batch 1 (and y's unnamed dimension stays as declared).
  const auto one = model::check_batch(g, {.shapes = {{"x", parse_shape("[1,7,3]")}}});
  EXPECT_EQ(to_string(one.inputs[1].requested), "[1,?]");
  EXPECT_EQ(to_string(one.inputs[2].requested), "[1,1]");
  EXPECT_EQ(to_string(one.inputs[3].requested), "[1,?@N]");
  EXPECT_EQ(one.summary.verdict(), model::batch_verdict::yes) << one.summary_line();

  auto body = fixture_bytes("loop_body");
  ::onnx::ModelProto loop;
  ASSERT_TRUE(loop.ParseFromString(body));
  auto* acc = loop.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g()->mutable_input(2);
  acc->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param("seq");
  const auto lg = read_bytes(loop.SerializeAsString(), "loop.onnx");
  const auto* repeat = lg.find(0);
  ASSERT_NE(repeat, nullptr);
  ASSERT_NE(repeat->body, nullptr);
  bool seen = false;
  for (const auto& l : repeat->body->network.layers())
    if (l.name == "acc") {
      seen = true;
      EXPECT_EQ(to_string(l.outputs[0].shape()), "[?]");
      ASSERT_NE(l.find("shape"), nullptr);
      EXPECT_EQ(l.find("shape")->text, "-1");
    }
  EXPECT_TRUE(seen);
}

TEST(onnx, a_model_above_opset_26_is_read_but_its_nodes_are_not_covered) {
  auto bytes = fixture_bytes("allowzero_copy");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_opset_import(0)->set_version(25);  // Reshape-25: translated
  EXPECT_EQ(model::check(read_bytes(m.SerializeAsString(), "opset25.onnx")).layers.size(), 0u);
  m.mutable_opset_import(0)->set_version(27);
  const auto g = read_bytes(m.SerializeAsString(), "opset27.onnx");
  const auto r = model::check_batch(g, {.batch = dimension(4)});
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell);
  const auto report = model::check(g);
  ASSERT_EQ(report.layers.size(), 1u);
  EXPECT_EQ(report.layers[0].message,
            "layer 'flat' (id 0): the model's opset 27 is above 26, the newest reshape1 knows; its outputs are unknown");
}

TEST(onnx, an_unnamed_node_takes_its_first_outputs_name) {
  auto bytes = fixture_bytes("allowzero_copy");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_graph()->mutable_node(0)->clear_name();
  const auto g = read_bytes(m.SerializeAsString(), "unnamed.onnx");
  EXPECT_EQ(g.find(0)->name, "y");
}

TEST(onnx, every_table_row_names_a_registry_op_or_a_decomposition) {
  // Each (domain, op_type, since) is listed once, sorted, and the translations cover the ops of the shared
  // models.
  const auto ops = onnx::op_versions();
  ASSERT_FALSE(ops.empty());
  for (std::size_t i = 1; i < ops.size(); ++i)
    EXPECT_LT(std::tie(ops[i - 1].domain, ops[i - 1].op_type, ops[i - 1].since_version),
              std::tie(ops[i].domain, ops[i].op_type, ops[i].since_version));
  for (const char* op : {"Add", "BatchNormalization", "Cast", "Clip", "Concat", "Constant", "ConstantOfShape", "Conv",
                         "Div", "Equal", "Exp", "Flatten", "Gather", "Gemm", "GlobalAveragePool", "HardSigmoid",
                         "Identity", "LSTM", "Log", "MatMul", "MaxPool", "AveragePool", "Mul", "Neg", "Pad", "Pow",
                         "ReduceMean", "Relu", "Reshape", "Shape", "Sigmoid", "Slice", "Softmax", "Split", "Sqrt",
                         "Squeeze", "Sub", "Tanh", "Transpose", "Unsqueeze"}) {
    EXPECT_TRUE(std::any_of(ops.begin(), ops.end(), [&](const auto& e) { return e.op_type == op && e.translated_from; })) << op;
  }
}

}  // namespace
}  // namespace reshape1::test
