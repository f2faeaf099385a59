// What the ONNX reader refuses, each refusal naming what is wrong and where: bytes that are no model, names
// defined twice or never, external data that leaves the model's directory or cannot be read, tensors whose
// values fall short, what ONNX Runtime refuses to load; and read_any telling the formats apart by content.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>

#include <fmt/format.h>

#include "../onnx_test_util.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::test {
namespace {

namespace fs = std::filesystem;

TEST(onnx, refuses_bytes_that_are_not_a_model) {
  const auto m = refusal([] { (void)read_bytes("\x08\x07\x12\xff\xff", "junk.onnx"); }, errc::bad_file);
  EXPECT_EQ(m, "junk.onnx: not an ONNX model: protobuf cannot parse it as a ModelProto");
}

TEST(onnx, refuses_an_input_nothing_computes_naming_the_node) {
  auto bytes = fixture_bytes("allowzero_copy");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_graph()->mutable_node(0)->set_input(1, "nowhere");
  const auto msg = refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  EXPECT_EQ(msg,
            "m.onnx: node 'flat' (Reshape, node 0): input 1 'nowhere' is computed by no node before it, and is no graph "
            "input or initializer");
}

// Protobuf merges a graph given twice in one file: its inputs are then listed twice (found by fuzzing fix,
// whose freeing of the batch dimension took the second listing's shorter shape for the first's).
TEST(onnx, refuses_a_graph_input_listed_twice) {
  auto bytes = fixture_bytes("allowzero_copy");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  auto& again = *m.mutable_graph()->add_input();
  again = m.graph().input(0);
  again.mutable_type()->mutable_tensor_type()->mutable_shape()->clear_dim();
  const auto msg = refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  EXPECT_EQ(msg, fmt::format("m.onnx: graph input '{}' is listed twice", m.graph().input(0).name()));
  const auto twice = m.SerializeAsString();
  EXPECT_EQ(refusal([&] { (void)onnx::fix(std::as_bytes(std::span(twice.data(), twice.size())), "m.onnx"); },
                    errc::bad_file),
            msg);
}

// An initializer's element count is taken as ONNX Runtime takes it, a signed 64-bit product dimension by
// dimension: [3037000500, 3037000500, 0] is refused though the 0 empties it (ONNX Runtime: "Integer overflow").
// Its 4-bit types are read packed two to a value.
TEST(onnx, refuses_an_initializer_whose_dimensions_overflow_and_reads_packed_4_bit_ones) {
  auto bytes = fixture_bytes("allowzero_copy");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  auto& t = *m.mutable_graph()->add_initializer();
  t.set_name("wide");
  t.set_data_type(::onnx::TensorProto::INT8);
  for (const std::int64_t d : {std::int64_t{3037000500}, std::int64_t{3037000500}, std::int64_t{0}}) t.add_dims(d);
  const auto msg = refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  EXPECT_EQ(msg, "m.onnx: tensor 'wide': its dimensions' product passes 2^63 elements");
  t.clear_dims();
  t.set_data_type(22);  // INT4: 3 values, 2 int32_data entries
  t.add_dims(3);
  t.add_int32_data(0x21);
  EXPECT_EQ(refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file),
            "m.onnx: tensor 'wide': 1 values for a tensor of 3 4-bit elements, packed two to a value (2)");
  t.add_int32_data(0x03);
  EXPECT_NO_THROW((void)read_bytes(m.SerializeAsString(), "m.onnx"));
}

// A sparse initializer is read as the dense tensor ONNX Runtime makes of it, and refused as it refuses one (each
// message seen in ONNX Runtime 1.30: "index is out of bounds", values or indices of another shape).
TEST(onnx, reads_sparse_initializers_dense_and_refuses_what_onnx_runtime_refuses) {
  auto bytes = fixture_bytes("sparse_weights");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  EXPECT_NO_THROW((void)read_bytes(m.SerializeAsString(), "m.onnx"));
  auto& w = *m.mutable_graph()->mutable_sparse_initializer(0);
  const auto refused = [&] { return refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file); };
  w.mutable_indices()->set_int64_data(1, 6);
  EXPECT_EQ(refused(), "m.onnx: sparse tensor 'w': index 1 (6) is outside its 6 elements");
  // Coordinates [NNZ, rank]: (0, 0) and (1, 2), then one past the second axis.
  w.mutable_indices()->clear_int64_data();
  w.mutable_indices()->clear_dims();
  for (const std::int64_t v : {0, 0, 1, 2}) w.mutable_indices()->add_int64_data(v);
  w.mutable_indices()->add_dims(2);
  w.mutable_indices()->add_dims(2);
  EXPECT_NO_THROW((void)read_bytes(m.SerializeAsString(), "m.onnx"));
  w.mutable_indices()->set_int64_data(3, 3);
  EXPECT_EQ(refused(), "m.onnx: sparse tensor 'w': index 1 holds 3 on axis 1 of length 3");
  w.mutable_indices()->set_dims(1, 3);
  EXPECT_EQ(refused(), "m.onnx: sparse tensor 'w': its indices are of shape [2,3], where 2 values over 2 dimensions take [2] or [2,2]");
  w.mutable_values()->add_dims(1);
  EXPECT_EQ(refused(), "m.onnx: sparse tensor 'w': its values have rank 2, where a sparse tensor's are 1-D (one for each index)");
}

// A sequence the lowering follows, declared (value_info) as a tensor or as a sequence of another element type: ONNX
// Runtime refuses the model when it loads it (seen in ONNX Runtime 1.30 by a cold attack), and so does reshape1.
TEST(onnx, refuses_a_sequence_declared_as_another_kind) {
  auto bytes = fixture_bytes("sequence_split");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  auto& v = *m.mutable_graph()->add_value_info();
  v.set_name("parts");
  v.mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
  EXPECT_NO_THROW((void)read_bytes(m.SerializeAsString(), "m.onnx"));
  v.mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::INT64);
  EXPECT_EQ(refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file),
            "m.onnx: 'parts' is declared a sequence of i64, and holds f32; ONNX Runtime refuses the model too");
  v.mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
  EXPECT_EQ(refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file),
            "m.onnx: 'parts' is declared a tensor, and is a sequence; ONNX Runtime refuses the model too: declare it as "
            "what computes it gives");
}

// A Loop's body that lists an input twice is refused as the model's graph is (a cold attack ran it in ONNX
// Runtime, which refuses it).
TEST(onnx, refuses_a_body_input_listed_twice) {
  ::onnx::ModelProto m;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"(ir_version: 8 opset_import { domain: "" version: 13 }
    graph { name: "g"
      input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } } } } }
      initializer { name: "trips" data_type: 7 int64_data: [2] }
      node { name: "L" op_type: "Loop" input: ["trips", "", "x"] output: ["y"]
        attribute { name: "body" type: GRAPH g { name: "b"
          input { name: "i" type { tensor_type { elem_type: 7 shape { } } } }
          input { name: "i" type { tensor_type { elem_type: 9 shape { } } } }
          input { name: "a" type { tensor_type { elem_type: 1 } } }
          node { op_type: "Identity" input: "a" output: "a_out" }
          node { op_type: "Identity" input: "i" output: "c_out" }
          output { name: "c_out" type { tensor_type { elem_type: 9 shape { } } } }
          output { name: "a_out" type { tensor_type { elem_type: 1 } } } } } }
      output { name: "y" type { tensor_type { elem_type: 1 } } } })", &m));
  EXPECT_EQ(refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file),
            "m.onnx: node 'L': its body 'b' lists input 'i' twice; a tensor name is defined once in a graph; ONNX "
            "Runtime refuses the model");
}

// A tensor name is defined once in a graph, as ONNX Runtime requires ("Duplicate definition of name"): a node
// output that an earlier node, an initializer or a graph input already defines is refused, naming both. An
// initializer and a Constant node of one name are weights, the last one counts (ONNX Runtime warns).
TEST(onnx, refuses_a_name_defined_twice) {
  const std::string head = R"(ir_version: 8 opset_import { domain: "" version: 13 }
    graph { name: "twice"
      input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } dim { dim_value: 3 } } } } }
      output { name: "y" type { tensor_type { elem_type: 1 } } })";
  const auto error_of = [&](const std::string& rest) {
    ::onnx::ModelProto m;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(head + rest + "}", &m));
    return refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  };
  const std::string hint = "; a tensor name is defined once in a graph; ONNX Runtime refuses the model";
  EXPECT_EQ(error_of(R"(node { name: "a" op_type: "Relu" input: "x" output: "y" }
                        node { name: "b" op_type: "Sigmoid" input: "x" output: "y" })"),
            "m.onnx: node 'b' (Sigmoid, node 1): output 0 'y' is already defined by node 'a' (Relu, node 0)" + hint);
  EXPECT_EQ(error_of(R"(initializer { name: "y" data_type: 1 dims: 1 float_data: 1 }
                        node { name: "b" op_type: "Sigmoid" input: "x" output: "y" })"),
            "m.onnx: node 'b' (Sigmoid, node 0): output 0 'y' is already defined by an initializer" + hint);
  EXPECT_EQ(error_of(R"(node { name: "b" op_type: "Sigmoid" input: "x" output: "x" }
                        node { name: "c" op_type: "Relu" input: "x" output: "y" })"),
            "m.onnx: node 'b' (Sigmoid, node 0): output 0 'x' is already defined by a graph input" + hint);
  // A Constant node of a graph input's name would give the input a default value (ONNX Runtime makes it an
  // initializer): not read, and not said to be refused by ONNX Runtime.
  ::onnx::ModelProto defaulted;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(head + R"(
      node { name: "c" op_type: "Constant" output: "x" attribute { name: "value" type: TENSOR
             t { data_type: 1 dims: [2, 3] float_data: [1, 2, 3, 4, 5, 6] } } }
      node { name: "r" op_type: "Relu" input: "x" output: "y" } })", &defaulted));
  EXPECT_EQ(refusal([&] { (void)read_bytes(defaulted.SerializeAsString(), "m.onnx"); }, errc::unsupported),
            "m.onnx: node 'c' (Constant, node 0): output 0 'x' is already defined by a graph input; a Constant node "
            "that gives a graph input a default value is not read by reshape1");
  // The last of a weight's definitions is what every node reads, one before the last Constant included, as
  // ONNX Runtime makes every Constant node an initializer before it runs anything.
  for (const bool constant_first : {true, false}) {
    const std::string constant = R"(node { name: "c" op_type: "Constant" output: "s" attribute { name: "value"
        type: TENSOR t { data_type: 7 dims: 2 int64_data: [3, -1] } } })";
    const std::string reshape = R"(node { name: "r" op_type: "Reshape" input: ["x", "s"] output: "y" })";
    ::onnx::ModelProto weights;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
        head + R"(initializer { name: "s" data_type: 7 dims: 2 int64_data: [2, -1] })" +
            (constant_first ? constant + reshape : reshape + constant) + "}",
        &weights));
    const auto g = read_bytes(weights.SerializeAsString(), "m.onnx");
    const auto p = model::propagate(g);
    bool found = false;
    for (std::size_t i = 0; i < g.layers().size(); ++i)
      if (g.layers()[i].name == "r" && g.layers()[i].type == "Reshape") {
        found = true;
        EXPECT_EQ(to_string(p.outputs[i][0].shape), "[3,2]") << "the Constant's [3,-1]; first: " << constant_first;
      }
    EXPECT_TRUE(found);
  }
}

// "; " is where a whole message's hint starts: a tensor name holding it stays in the message.
TEST(onnx, a_name_with_a_semicolon_stays_in_the_message) {
  auto bytes = fixture_bytes("allowzero_copy");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_graph()->mutable_node(0)->set_input(1, "no; where");
  try {
    (void)read_bytes(m.SerializeAsString(), "m.onnx");
    ADD_FAILURE() << "no error";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::bad_file);
    EXPECT_EQ(e.hint(), "");
    EXPECT_EQ(std::string(e.what()),
              "m.onnx: node 'flat' (Reshape, node 0): input 1 'no; where' is computed by no node before it, and is no "
              "graph input or initializer");
  }
}

// A model that imports other domains only has its default-domain nodes read at opset 26, as ONNX Runtime 1.30
// reads them (a node that exists only from opset 26 on runs there); one that imports nothing is refused.
TEST(onnx, reads_the_default_domain_at_the_newest_opset_when_only_others_are_imported) {
  auto bytes = fixture_bytes("allowzero_copy");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_opset_import(0)->set_domain("com.example");
  int reshapes = 0;
  const auto g = read_bytes(m.SerializeAsString(), "m.onnx");
  for (const auto& l : g.layers()) {
    if (l.op_type() != "Reshape") continue;
    ++reshapes;
    EXPECT_EQ(l.op_version(), 25);  // Reshape's newest version at or below 26
  }
  EXPECT_GT(reshapes, 0);
  m.clear_opset_import();
  const auto msg = refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  EXPECT_NE(msg.find("imports no operator set: its opset_import is empty"), std::string::npos) << msg;
}

TEST(onnx, refuses_external_data_that_leaves_the_model_directory) {
  const auto msg = refusal([] { (void)read_fixture("external_escape"); }, errc::bad_file);
  EXPECT_NE(msg.find("initializer 'pattern': its external data '../onnx/external_shape.bin' goes up a directory"),
            std::string::npos)
      << msg;
  auto bytes = fixture_bytes("external_data");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_graph()->mutable_initializer(0)->mutable_external_data(0)->set_value("/etc/passwd");
  const auto absolute = refusal([&] { (void)read_bytes(m.SerializeAsString(), (fixtures / "m.onnx").string()); },
                                errc::bad_file);
  EXPECT_NE(absolute.find("is an absolute path"), std::string::npos) << absolute;
}

TEST(onnx, refuses_external_data_reached_through_a_symbolic_link_out) {
  const auto dir = fs::temp_directory_path() / fmt::format("reshape1_onnx_link_{}", ::getpid());
  fs::create_directories(dir / "model");
  fs::copy_file(fixtures / "external_shape.bin", dir / "outside.bin", fs::copy_options::overwrite_existing);
  fs::create_symlink(dir / "outside.bin", dir / "model" / "external_shape.bin");
  const auto msg = refusal([&] { (void)read_bytes(fixture_bytes("external_data"), (dir / "model" / "m.onnx").string()); },
                           errc::bad_file);
  EXPECT_NE(msg.find("leads out of it through a symbolic link"), std::string::npos) << msg;
  // A link that stays inside the directory is followed.
  fs::remove(dir / "model" / "external_shape.bin");
  fs::copy_file(fixtures / "external_shape.bin", dir / "model" / "data.bin");
  fs::create_symlink("data.bin", dir / "model" / "external_shape.bin");
  EXPECT_NO_THROW((void)read_bytes(fixture_bytes("external_data"), (dir / "model" / "m.onnx").string()));
  fs::remove_all(dir);
}

// What ONNX Runtime refuses to load is refused as it reads: InstanceNormalization below rank 3,
// BatchNormalization in inference mode with its training outputs, or in training mode without them.
TEST(onnx, normalisations_onnx_runtime_refuses_are_refused) {
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(fixture_bytes("instance_norm_scale_length")));
  auto* dims = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  dims->mutable_dim()->DeleteSubrange(2, 2);
  const auto rank2 = refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  EXPECT_NE(rank2.find("node 'norm' (InstanceNormalization, node 0): its input has rank 2"), std::string::npos) << rank2;
  ASSERT_TRUE(m.ParseFromString(fixture_bytes("batch_norm_training")));
  m.mutable_graph()->mutable_node(0)->mutable_attribute(0)->set_i(0);
  const auto inference = refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  EXPECT_NE(inference.find("training_mode=0 with 3 outputs"), std::string::npos) << inference;
  ASSERT_TRUE(m.ParseFromString(fixture_bytes("batch_norm_training")));
  m.mutable_graph()->mutable_node(0)->mutable_output()->DeleteSubrange(1, 2);
  m.mutable_graph()->mutable_output()->DeleteSubrange(1, 2);
  const auto training = refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  EXPECT_NE(training.find("training_mode=1 with 1 output"), std::string::npos) << training;
}

// ONNX Runtime checks each node's element types against its version's type parameters when it loads a model
// (src/onnx/op_list.tsv's types column): reshape1 refuses what it refuses, where the types are known, declared or
// carried from the nodes that compute them; and takes what it takes.
TEST(onnx, element_types_onnx_runtime_refuses_are_refused) {
  const auto model = [](const std::string& opset, const std::string& nodes, const std::string& inputs,
                        const std::string& more = "") {
    ::onnx::ModelProto m;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
        "ir_version: 8 opset_import { domain: \"\" version: " + opset + " } graph { name: \"g\" " + nodes + inputs +
            " output { name: \"y\" } " + more + "}",
        &m));
    return m.SerializeAsString();
  };
  const auto input = [](const char* name, int type) {
    return fmt::format(R"(input {{ name: "{}" type {{ tensor_type {{ elem_type: {} shape {{ dim {{ dim_value: 2 }} }} }} }} }} )",
                       name, type);
  };
  const auto refused = [&](const std::string& bytes) {
    return refusal([&] { (void)read_bytes(bytes, "t.onnx"); }, errc::bad_file);
  };
  // An input of a type the version does not take: Relu-13 of int32 (Relu-14 takes it).
  const auto relu = R"(node { name: "r" op_type: "Relu" input: "x" output: "y" } )";
  EXPECT_EQ(refused(model("13", relu, input("x", 6))),
            "t.onnx: node 'r' (Relu, node 0): its input 0 ('x') is of type i32, which Relu-13 does not take there (it "
            "takes bf16, f16, f32, f64); ONNX Runtime refuses the model too: Cast the input to a type the op takes");
  EXPECT_NO_THROW((void)read_bytes(model("14", relu, input("x", 6)), "t.onnx"));
  // Two inputs of one type parameter that differ.
  const auto add = R"(node { name: "a" op_type: "Add" input: ["x", "z"] output: "y" } )";
  EXPECT_NE(refused(model("14", add, input("x", 1) + input("z", 6))).find(
                "its inputs 0 and 1 are of types f32 and i32, where Add-14 takes one type for both"),
            std::string::npos);
  // A type carried from the node that computes it: Shape gives int64, which Relu-13 does not take; a Cast to float
  // is taken, a Cast to int32 not (Cast's `to` gives its output's type).
  const auto shape = R"(node { name: "s" op_type: "Shape" input: "x" output: "s" } )";
  EXPECT_NE(refused(model("13", std::string(shape) + R"(node { name: "r" op_type: "Relu" input: "s" output: "y" } )",
                          input("x", 1)))
                .find("node 'r' (Relu, node 1): its input 0 ('s') is of type i64"),
            std::string::npos);
  EXPECT_NO_THROW((void)read_bytes(
      model("13", std::string(shape) + R"(node { name: "c" op_type: "Cast" input: "s" output: "f" attribute { name: "to" i: 1 type: INT } } )"
                                       R"(node { name: "r" op_type: "Relu" input: "f" output: "y" } )",
            input("x", 1)),
      "t.onnx"));
  EXPECT_NE(refused(model("13", std::string(shape) + R"(node { name: "c" op_type: "Cast" input: "s" output: "f" attribute { name: "to" i: 6 type: INT } } )"
                                                     R"(node { name: "r" op_type: "Relu" input: "f" output: "y" } )",
                          input("x", 1)))
                .find("node 'r' (Relu, node 2): its input 0 ('f') is of type i32"),
            std::string::npos);
  // An output declared of another type than the op gives (value_info here), as ONNX Runtime refuses it.
  EXPECT_NE(refused(model("13", std::string(shape) + R"(node { name: "i" op_type: "Identity" input: "s" output: "y" } )",
                          input("x", 1), R"(value_info { name: "s" type { tensor_type { elem_type: 6 } } })"))
                .find("node 's' (Shape, node 0): its output 0 ('s') is declared of type i32, where Shape-13 gives i64"),
            std::string::npos);
  // Types an attribute or a graph gives: QuantizeLinear's u8 without a zero point, a layer norm's statistics in
  // stash_type's type, an If's output as its branches declare it; If's condition and Loop's trip count checked.
  const auto quantise = R"(node { name: "q" op_type: "QuantizeLinear" input: ["x", "qs"] output: "y" } initializer { name: "qs" data_type: 1 float_data: 1 } )";
  EXPECT_NE(refused(model("13", quantise, input("x", 1), R"(value_info { name: "y" type { tensor_type { elem_type: 1 } } })"))
                .find("its output 0 ('y') is declared of type f32, where QuantizeLinear-13 gives u8"),
            std::string::npos);
  // Each branch an Identity of the outer x (f32), its output declared f32.
  const std::string branch = R"(name: "b" node { op_type: "Identity" input: "x" output: "o" } output { name: "o" type { tensor_type { elem_type: 1 } } })";
  const auto conditional = [&](int condition, int outer) {
    return model("13", fmt::format(R"(node {{ name: "if" op_type: "If" input: "c" output: "r" attribute {{ name: "then_branch" type: GRAPH g {{ {0} }} }} attribute {{ name: "else_branch" type: GRAPH g {{ {0} }} }} }} )"
                                   R"(node {{ name: "i" op_type: "Identity" input: "r" output: "y" }} )",
                                   branch),
                 input("x", 1) + input("c", condition), fmt::format(R"(value_info {{ name: "r" type {{ tensor_type {{ elem_type: {} }} }} }})", outer));
  };
  EXPECT_NO_THROW((void)read_bytes(conditional(9, 1), "t.onnx"));
  EXPECT_NE(refused(conditional(1, 1)).find("its condition (input 0, 'c') is of type f32, where If takes boolean"), std::string::npos);
  EXPECT_NE(refused(conditional(9, 11)).find("its output 0 ('r') is declared of type f64, where If-13 gives f32"), std::string::npos);
  // A graph input whose initializer is of another type.
  EXPECT_NE(refused(model("13", relu, input("x", 6), R"(initializer { name: "x" data_type: 1 dims: 2 float_data: [1, 2] })"))
                .find("graph input 'x' is declared of type i32, and its initializer is of type f32"),
            std::string::npos);
  // A list's members of several types where the list is not of one type (QLinearConcat's inputs in threes).
  const auto quantised = [](const char* name, const char* type, const char* value) {
    return fmt::format(R"(initializer {{ name: "{}" data_type: {} {} }} )", name, type, value);
  };
  const auto concat = R"(node { name: "q" op_type: "QLinearConcat" domain: "com.microsoft" input: ["ys", "yz", "a", "as", "az", "a", "as", "az"] output: "y" attribute { name: "axis" i: 0 type: INT } } )";
  ::onnx::ModelProto m;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      "ir_version: 8 opset_import { domain: \"\" version: 13 } opset_import { domain: \"com.microsoft\" version: 1 } "
      "graph { name: \"g\" " + std::string(concat) + quantised("ys", "1", "float_data: 1") + quantised("yz", "2", "int32_data: 0") +
          quantised("as", "1", "float_data: 1") + quantised("az", "2", "int32_data: 0") +
          R"(input { name: "a" type { tensor_type { elem_type: 2 shape { dim { dim_value: 2 } } } } } output { name: "y" } })",
      &m));
  EXPECT_NO_THROW((void)read_bytes(m.SerializeAsString(), "t.onnx"));
}

// A location that cannot be resolved says why (a loop of links, a name too long), not that it leads out; one
// with a NUL byte is refused as such, the whole message kept; bytes without a directory find no file.
TEST(onnx, external_data_that_cannot_be_resolved_says_why) {
  const auto dir = fs::temp_directory_path() / fmt::format("reshape1_onnx_loop_{}", ::getpid());
  fs::create_directories(dir);
  fs::create_symlink("b.bin", dir / "a.bin");
  fs::create_symlink("a.bin", dir / "b.bin");
  const auto with_location = [](const std::string& location) {
    ::onnx::ModelProto m;
    EXPECT_TRUE(m.ParseFromString(fixture_bytes("external_data")));
    m.mutable_graph()->mutable_initializer(0)->mutable_external_data(0)->set_value(location);
    return m.SerializeAsString();
  };
  const auto in_dir = (dir / "m.onnx").string();
  const auto loop = refusal([&] { (void)read_bytes(with_location("a.bin"), in_dir); }, errc::bad_file);
  EXPECT_NE(loop.find("its external data 'a.bin' cannot be resolved: Too many levels of symbolic links"),
            std::string::npos) << loop;
  const auto long_name = refusal([&] { (void)read_bytes(with_location(std::string(5000, 'n')), in_dir); }, errc::bad_file);
  EXPECT_NE(long_name.find("cannot be resolved: File name too long"), std::string::npos) << long_name.substr(0, 300);
  EXPECT_EQ(long_name.find("symbolic link"), std::string::npos);
  const auto nul = refusal([&] { (void)read_bytes(with_location(std::string("data\0.bin", 9)), in_dir); }, errc::bad_file);
  EXPECT_NE(nul.find("its external data 'data\\x00.bin' holds a NUL byte, which no file name can; reshape1 reads "
                     "external data only from within the model's directory, or the one base_dir=DIR gives"),
            std::string::npos) << nul;
  const auto memory = refusal([&] { (void)read_bytes(fixture_bytes("external_data"), "<ONNX bytes>"); }, errc::bad_file);
  EXPECT_NE(memory.find("but a model read from memory has no directory to find it in"), std::string::npos) << memory;
  fs::remove_all(dir);
}

// fuzz_onnx: dims that promise 2^50 elements, with a few typed values, allocated the whole tensor before
// the values were counted.
TEST(onnx, refuses_a_tensor_whose_values_are_fewer_than_its_shape_before_allocating) {
  auto bytes = fixture_bytes("allowzero_copy");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  auto* t = m.mutable_graph()->mutable_initializer(0);
  t->clear_dims();
  t->add_dims(std::int64_t{1} << 25);
  t->add_dims(std::int64_t{1} << 25);
  const auto msg = refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  EXPECT_EQ(msg, "m.onnx: tensor 'pattern': 2 values for a tensor of 1125899906842624 elements");
}

TEST(onnx, refuses_external_data_shorter_than_its_tensor) {
  auto bytes = fixture_bytes("external_data");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_graph()->mutable_initializer(0)->mutable_external_data(1)->set_value("24");
  const auto msg = refusal([&] { (void)read_bytes(m.SerializeAsString(), (fixtures / "m.onnx").string()); },
                           errc::bad_file);
  EXPECT_NE(msg.find("reads 16 bytes at byte 24, past the end of the file (32 bytes)"), std::string::npos) << msg;
}

TEST(onnx, many_small_tensors_that_hold_no_values_are_refused_without_reserving_their_size) {
  // 20,000 initializers of 4,096 declared elements and no data: a few bytes each in the file, 32 KiB each
  // had their sizes been reserved (640 MB) before the first was found short.
  auto bytes = fixture_bytes("allowzero_copy");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  for (int k = 0; k < 20000; ++k) {
    auto* t = m.mutable_graph()->add_initializer();
    t->set_name(fmt::format("empty{}", k));
    t->set_data_type(::onnx::TensorProto::INT64);
    t->add_dims(4096);
  }
  const auto msg = refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file);
  EXPECT_EQ(msg, "m.onnx: tensor 'empty0': 0 values for a tensor of 4096 elements");
}

TEST(onnx, read_any_tells_the_formats_apart_by_content) {
  const auto dir = fs::temp_directory_path() / fmt::format("reshape1_onnx_any_{}", ::getpid());
  fs::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir / name, std::ios::binary) << bytes;
    return dir / name;
  };
  // An ONNX model named .xml is still read as ONNX.
  const auto g = onnx::read_any(write("model.xml", fixture_bytes("allowzero_copy")));
  EXPECT_EQ(g.format(), model::model_format::onnx);
  EXPECT_NE(refusal([&] { (void)onnx::read_any(write("m.onnx", fixture_bytes("allowzero_copy")), dir / "m.bin"); },
                    errc::invalid_argument)
                .find("model_bin: an ONNX model keeps its weights inside"),
            std::string::npos);
  EXPECT_NE(refusal([&] { (void)onnx::read_any(write("empty.onnx", "")); }, errc::bad_file).find("not a model: an empty file"),
            std::string::npos);
  EXPECT_NE(refusal([&] { (void)onnx::read_any(write("z.onnx", std::string("PK\x03\x04rest", 8))); }, errc::bad_file)
                .find("a zip archive; unpack it first"),
            std::string::npos);
  EXPECT_NE(refusal([&] { (void)onnx::read_any(write("lfs.onnx", "version https://git-lfs.github.com/spec/v1\n")); },
                    errc::bad_file)
                .find("a Git LFS pointer"),
            std::string::npos);
  EXPECT_NE(refusal([&] { (void)onnx::read_any(write("bytes.onnx", std::string("\xff\xfe\x00\x01", 4))); }, errc::bad_file)
                .find("neither XML nor protobuf (it starts with the bytes ff fe 00 01)"),
            std::string::npos);
  EXPECT_NE(refusal([&] { (void)onnx::read_any(write("text.onnx", "# a comment\n\nir_version: 8\ngraph { name: \"g\" }\n")); },
                    errc::bad_file)
                .find("an ONNX model in protobuf's text format; write it as a binary model first"),
            std::string::npos);
  fs::remove_all(dir);
}

// Tensors of strings are read by their shape (no rule reads a string): a classifier's labels picked per sample.
// One that does not hold its strings in string_data, as many as its shape says, is refused as ONNX Runtime
// refuses it.
TEST(onnx, reads_tensors_of_strings_by_their_shape_and_refuses_ones_that_do_not_hold_them) {
  const auto g = read_fixture("string_labels");
  const auto r = model::check(g);
  EXPECT_EQ(r.summary.layers.not_covered, 0u);
  EXPECT_EQ(r.summary.layers.rule_errors, 0u);
  EXPECT_EQ(r.summary.layers.propagated, r.summary.layers.count);
  auto bytes = fixture_bytes("string_labels");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  auto& labels = *m.mutable_graph()->mutable_initializer(0);
  labels.add_string_data("bat");
  EXPECT_EQ(refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file),
            "m.onnx: tensor 'labels': 4 strings for the 3 elements of [3]; ONNX Runtime refuses the model too");
  labels.clear_string_data();
  labels.set_raw_data("catdogowl");
  EXPECT_EQ(refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file),
            "m.onnx: tensor 'labels': a tensor of strings with raw_data; ONNX keeps strings in string_data; ONNX Runtime "
            "refuses the model too");
}

// What a cold attack on string tensors found ONNX Runtime refuses, refused likewise: a string where the CPU
// provider has no kernel for one (Pad), a ConstantOfShape of a string, a Cast to no data type, an initializer of
// another shape than its graph input declares (of any type).
TEST(onnx, refuses_strings_without_a_kernel_casts_to_no_type_and_initializers_of_another_shape) {
  auto bytes = fixture_bytes("string_labels");
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  auto& pick = *m.mutable_graph()->mutable_node(1);
  ASSERT_EQ(pick.op_type(), "Gather");
  pick.set_op_type("Pad");
  pick.set_input(1, "pads");
  auto& pads = *m.mutable_graph()->add_initializer();
  pads.set_name("pads");
  pads.set_data_type(::onnx::TensorProto::INT64);
  pads.add_dims(2);
  pads.add_int64_data(1);
  pads.add_int64_data(1);
  EXPECT_EQ(refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file),
            "m.onnx: node 'pick' (Pad, node 1): its input 0 ('labels') is of type string, which Pad-19 does not take "
            "there (it takes boolean, bf16, f16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64); ONNX Runtime refuses "
            "the model too: Cast the input to a type the op takes");

  ASSERT_TRUE(m.ParseFromString(bytes));
  auto& cast = *m.mutable_graph()->mutable_node(1);
  cast.set_op_type("Cast");
  cast.mutable_input()->RemoveLast();
  auto& to = *cast.add_attribute();
  to.set_name("to");
  to.set_type(::onnx::AttributeProto::INT);
  to.set_i(99);
  EXPECT_EQ(refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file),
            "m.onnx: node 'pick' (Cast, node 1): to is 99, which names no ONNX data type; ONNX Runtime refuses it too: "
            "give the type to cast to");

  ASSERT_TRUE(m.ParseFromString(bytes));
  auto& fill = *m.mutable_graph()->mutable_node(1);
  fill.set_op_type("ConstantOfShape");
  fill.clear_input();
  fill.add_input("last");
  auto& value = *fill.add_attribute();
  value.set_name("value");
  value.set_type(::onnx::AttributeProto::TENSOR);
  value.mutable_t()->set_data_type(::onnx::TensorProto::STRING);
  value.mutable_t()->add_string_data("?");
  EXPECT_EQ(refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file),
            "m.onnx: node 'pick' (ConstantOfShape, node 1): its value is a string; ONNX Runtime has no ConstantOfShape "
            "of strings, and refuses the model");

  ASSERT_TRUE(m.ParseFromString(bytes));
  auto& listed = *m.mutable_graph()->add_input();
  listed.set_name("labels");
  listed.mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::STRING);
  listed.mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(4);
  EXPECT_EQ(refusal([&] { (void)read_bytes(m.SerializeAsString(), "m.onnx"); }, errc::bad_file),
            "m.onnx: graph input 'labels' is declared of shape [4], and its initializer is of shape [3]; ONNX Runtime "
            "refuses the model too: declare the input as its initializer is");
  listed.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("L");
  EXPECT_NO_THROW((void)read_bytes(m.SerializeAsString(), "m.onnx"));
}

}  // namespace
}  // namespace reshape1::test
