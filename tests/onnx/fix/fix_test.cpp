// ONNX's fix: each rewrite written into a copy of the file, the copy equal to the original with the listed
// edits, bodies and branches rewritten as the top graph, and a model it cannot prove left unwritten. fix --shape
// (new sizes rather than a new batch) is in new_sizes_test.cpp.
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "../onnx_test_util.hpp"
#include "../../test_util.hpp"
#include "../../fix_parts.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::test {
namespace {

/// The original model with a fix report's edits applied by hand: what the fixed file must equal.
::onnx::ModelProto with_edits(::onnx::ModelProto m, const model::fix_report& r) {
  auto& g = *m.mutable_graph();
  for (const auto& c : r.changes) {
    if (onnx_edit(c).cloned_from) {
      for (const auto& t : g.initializer())
        if (t.name() == *onnx_edit(c).cloned_from) {
          auto copy = t;
          copy.set_name(onnx_edit(c).tensor);
          *g.add_initializer() = copy;
          break;
        }
      g.mutable_node(static_cast<int>(c.id))->set_input(1, onnx_edit(c).tensor);
    }
    for (auto& t : *g.mutable_initializer()) {
      if (t.name() != onnx_edit(c).tensor) continue;
      if (t.has_raw_data()) {
        std::memcpy(t.mutable_raw_data()->data() + c.element * 8, &c.new_value, 8);
      } else {
        t.set_int64_data(static_cast<int>(c.element), c.new_value);
      }
    }
  }
  for (const auto& f : r.freed()) {
    // "<kind> '<name>' dimension <k>[ cleared]"
    const auto kind = f.substr(0, f.find(' '));
    const auto name = f.substr(f.find('\'') + 1, f.rfind('\'') - f.find('\'') - 1);
    const auto k = std::stoi(f.substr(f.find("dimension ") + 10));
    auto* list = kind == "input" ? g.mutable_input() : kind == "output" ? g.mutable_output() : g.mutable_value_info();
    for (auto& v : *list)
      if (v.name() == name) {
        auto* d = v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(k);
        d->clear_dim_value();
        if (f.ends_with("cleared")) {
          d->clear_dim_param();
        } else {
          d->set_dim_param("N");
        }
      }
  }
  return m;
}

TEST(onnx_fix, the_fixed_file_is_the_original_with_the_listed_edits) {
  for (const auto& path : {fs::path(RESHAPE1_TEST_DATA) / "onnx-models/ultraface-rfb-320/version-RFB-320_simplified.onnx",
                           fixtures / "shared_initializer.textproto", fixtures / "constant_node_shape.textproto"}) {
    SCOPED_TRACE(path.string());
    const auto bytes = path.extension() == ".onnx" ? slurp(path) : fixture_bytes(path.stem().string());
    const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), path.string());
    ASSERT_TRUE(r.fixed);
    ASSERT_FALSE(onnx_output(r).model.empty());
    ::onnx::ModelProto original, fixed;
    ASSERT_TRUE(original.ParseFromString(bytes));
    ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model));
    // A Constant node's value is edited in the node: compare the rest as edited, and the node apart.
    if (path.stem() == "constant_node_shape") {
      EXPECT_EQ(r.changes.size(), 1u);
      const auto& value = fixed.graph().node(0).attribute(0).t();
      EXPECT_EQ(value.int64_data(0), 0);
      original.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_t()->set_int64_data(0, 0);
    }
    std::string diff;
    google::protobuf::util::MessageDifferencer d;
    d.ReportDifferencesToString(&diff);
    EXPECT_TRUE(d.Compare(with_edits(original, r), fixed)) << diff;
    // Nothing but the edits changed: the model was written field for field, so serialising the edited
    // original gives the same bytes; and where the file is protobuf's own serialisation (the shipped
    // UltraFace), every byte outside the edits is the file's.
    EXPECT_EQ(with_edits(original, r).SerializeAsString(), onnx_output(r).model);
    if (path.extension() == ".onnx") {
      ::onnx::ModelProto again;
      ASSERT_TRUE(again.ParseFromString(bytes));
      EXPECT_EQ(again.SerializeAsString(), bytes);
    }
  }
}

// A Constant node may write an int64 tensor as value_ints (or a scalar as value_int): it is a constant
// like a `value` tensor, read as one and rewritten where it is held. The node then holds the tensor as its
// value (ONNX Runtime reads both alike); nothing else in the file changes.
TEST(onnx_fix, a_constant_of_value_ints_is_rewritten_in_its_node) {
  const auto bytes = fixture_bytes("constant_ints_shape");
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "constant_ints_shape.onnx");
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? std::string() : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(onnx_edit(r.changes[0]).tensor, "pattern");
  EXPECT_EQ(r.changes[0].old_value, 1);
  EXPECT_EQ(r.changes[0].new_value, 0);
  ::onnx::ModelProto original, fixed;
  ASSERT_TRUE(original.ParseFromString(bytes));
  ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model));
  const auto& node = fixed.graph().node(0);
  ASSERT_EQ(node.attribute_size(), 1);
  EXPECT_EQ(node.attribute(0).name(), "value");
  const auto& t = node.attribute(0).t();
  EXPECT_EQ(t.data_type(), ::onnx::TensorProto::INT64);
  ASSERT_EQ(t.dims_size(), 1);
  EXPECT_EQ(t.dims(0), 2);
  EXPECT_EQ(std::vector<std::int64_t>(t.int64_data().begin(), t.int64_data().end()), (std::vector<std::int64_t>{0, -1}));
  // The rest is the original with its batch freed.
  *original.mutable_graph()->mutable_node(0) = node;
  std::string diff;
  google::protobuf::util::MessageDifferencer d;
  d.ReportDifferencesToString(&diff);
  EXPECT_TRUE(d.Compare(with_edits(original, r), fixed)) << diff;
  // The check it was fixed for: before, the batch is swallowed; after, it is kept.
  const auto check = [](const std::string& b) {
    return model::check_batch(read_bytes(b, "m.onnx"), {.batch = dimension(4)}).summary.verdict();
  };
  EXPECT_EQ(check(bytes), model::batch_verdict::no);
  EXPECT_EQ(check(onnx_output(r).model), model::batch_verdict::yes);
  // With a second value after it, which ONNX Runtime ignores: the first is rewritten and stays first.
  ::onnx::ModelProto both;
  ASSERT_TRUE(both.ParseFromString(bytes));
  auto* second = both.mutable_graph()->mutable_node(0)->add_attribute();
  second->set_name("value");
  second->set_type(::onnx::AttributeProto::TENSOR);
  second->mutable_t()->set_data_type(::onnx::TensorProto::INT64);
  second->mutable_t()->add_dims(2);
  for (const auto v : {1, 6}) second->mutable_t()->add_int64_data(v);
  const auto both_bytes = both.SerializeAsString();
  const auto again = onnx::fix(std::as_bytes(std::span(both_bytes.data(), both_bytes.size())), "both.onnx");
  ASSERT_TRUE(again.fixed);
  ::onnx::ModelProto fixed_both;
  ASSERT_TRUE(fixed_both.ParseFromString(onnx_output(again).model));
  const auto& first = fixed_both.graph().node(0).attribute(0);
  EXPECT_EQ(first.name(), "value");
  EXPECT_EQ(std::vector<std::int64_t>(first.t().int64_data().begin(), first.t().int64_data().end()),
            (std::vector<std::int64_t>{0, -1}));
  EXPECT_EQ(check(onnx_output(again).model), model::batch_verdict::yes);
}

TEST(onnx_fix, reports_its_progress_as_the_ir_fix_does) {
  const auto bytes = fixture_bytes("shared_initializer");
  std::vector<std::string> stages;
  std::size_t last_round = 0, kept = 0;
  model::fix_options options;
  options.progress = [&](const model::fix_progress& p) {
    if (stages.empty() || stages.back() != p.stage) stages.emplace_back(p.stage);
    last_round = p.round;
    kept = p.kept;
  };
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "shared.onnx", options);
  ASSERT_TRUE(r.fixed);
  const std::vector<std::string> expected{"checking", "judging rewrites", "proving", "writing"};
  EXPECT_EQ(stages, expected);
  EXPECT_EQ(last_round, 2u) << "the second Reshape waits a round for the first";
  EXPECT_EQ(kept, 2u);
}

// A tensor name given twice (two initializers, or an initializer and a Constant node) is the last one, as
// the reader and ONNX Runtime take it ("the model will use the latest encountered initializer"): fix
// rewrites that one, where it rewrote the first and then said the layer still failed.
TEST(onnx_fix, a_name_given_twice_is_rewritten_where_the_reader_takes_it) {
  const std::string head = R"(ir_version: 8 opset_import { domain: "" version: 13 }
    graph { name: "twice"
      input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 3 } dim { dim_value: 2 } } } } }
      output { name: "y" type { tensor_type { elem_type: 1 } } }
      initializer { name: "s" data_type: 7 dims: 2 int64_data: [2, -1] }
      node { name: "r" op_type: "Reshape" input: ["x", "s"] output: ["y"] })";
  for (const auto& [what, second, constant] :
       {std::tuple<std::string, std::string, bool>{"an initializer",
                                                   R"(initializer { name: "s" data_type: 7 dims: 2 int64_data: [3, -1] })", false},
        {"a Constant node", R"(node { name: "c" op_type: "Constant" output: ["s"] attribute { name: "value" type: TENSOR
                                  t { data_type: 7 dims: 2 int64_data: [3, -1] } } })", true}}) {
    ::onnx::ModelProto m;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(head + second + "}", &m)) << what;
    if (constant) m.mutable_graph()->mutable_node()->SwapElements(0, 1);  // the Constant before the Reshape
    const auto bytes = m.SerializeAsString();
    const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "twice.onnx");
    ASSERT_TRUE(r.fixed) << what << ": " << (r.refusals.empty() ? "" : r.refusals[0].reason);
    ASSERT_EQ(r.changes.size(), 1u) << what;
    EXPECT_EQ(r.changes[0].old_pattern, "[3,-1]") << what;
    EXPECT_EQ(r.changes[0].new_pattern, "[0,-1]") << what;
    ::onnx::ModelProto fixed;
    ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model)) << what;
    const auto& first = fixed.graph().initializer(0);
    EXPECT_EQ(std::vector<std::int64_t>(first.int64_data().begin(), first.int64_data().end()),
              (std::vector<std::int64_t>{2, -1}))
        << what << ": the first definition, which nothing reads, is left as it was";
  }
}

TEST(onnx_fix, a_shared_initializer_rewritten_alike_for_every_reader_stays_one_tensor) {
  // Both Reshapes need pattern[0] = 0: the first one's copy, made while the second waited for it, is
  // merged back once the second is rewritten the same way.
  const auto bytes = fixture_bytes("shared_initializer");
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "shared.onnx");
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 2u);
  for (const auto& c : r.changes) {
    EXPECT_EQ(onnx_edit(c).tensor, "pattern") << c.name;
    EXPECT_FALSE(onnx_edit(c).cloned_from) << c.name;
  }
  EXPECT_EQ(r.changes[0].name, "first");
  EXPECT_EQ(r.changes[0].new_pattern, "[0,3,2]");
  ::onnx::ModelProto fixed;
  ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model));
  EXPECT_EQ(fixed.graph().initializer_size(), 1);
}

TEST(onnx_fix, a_shared_initializer_is_cloned_for_the_reshape_that_needs_it) {
  // The pattern is also a value of the graph (an Identity makes it an output): the Reshape gets a copy,
  // and the Identity still reads [1,3,2].
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(fixture_bytes("shared_initializer")));
  auto& second = *m.mutable_graph()->mutable_node(2);
  second.set_op_type("Identity");
  second.clear_input();
  second.add_input("pattern");
  for (auto& out : *m.mutable_graph()->mutable_output())  // the Identity gives the pattern's type
    if (out.name() == second.output(0)) out.mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::INT64);
  m.mutable_graph()->mutable_node(1)->set_output(0, "y2");  // the Relu's output is an output of its own
  auto* relu_out = m.mutable_graph()->add_output();
  relu_out->set_name("y2");
  relu_out->mutable_type()->mutable_tensor_type()->set_elem_type(1);
  const auto text = m.SerializeAsString();
  const auto r = onnx::fix(std::as_bytes(std::span(text.data(), text.size())), "shared.onnx");
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(onnx_edit(r.changes[0]).tensor, "pattern_for_first");
  EXPECT_EQ(onnx_edit(r.changes[0]).cloned_from, "pattern");
  EXPECT_EQ(r.changes[0].new_pattern, "[0,3,2]");
  ::onnx::ModelProto fixed;
  ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model));
  ASSERT_EQ(fixed.graph().initializer_size(), 2);
  EXPECT_EQ(fixed.graph().initializer(0).name(), "pattern");
  EXPECT_EQ(fixed.graph().initializer(0).int64_data(0), 1);
  EXPECT_EQ(fixed.graph().initializer(1).name(), "pattern_for_first");
  EXPECT_EQ(fixed.graph().initializer(1).int64_data(0), 0);
  EXPECT_EQ(fixed.graph().node(0).input(1), "pattern_for_first");
  EXPECT_EQ(fixed.graph().node(2).input(0), "pattern");
}

TEST(onnx_fix, a_pattern_in_external_data_is_written_into_the_fixed_model) {
  const auto bytes = fixture_bytes("external_pattern");
  // Named as if it lay in tests/data/onnx, beside its data file.
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), (fixtures / "external_pattern.onnx").string());
  ASSERT_TRUE(r.fixed);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].old_pattern, "[1,-1]");
  EXPECT_EQ(r.changes[0].new_pattern, "[0,-1]");
  EXPECT_NE(r.changes[0].why.find("now written in the model rather than its external data"), std::string::npos)
      << r.changes[0].why;
  ::onnx::ModelProto fixed;
  ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model));
  const auto& t = fixed.graph().initializer(0);
  EXPECT_NE(t.data_location(), ::onnx::TensorProto::EXTERNAL);
  EXPECT_EQ(t.external_data_size(), 0);
  ASSERT_EQ(t.raw_data().size(), 16u);
  std::int64_t v[2];
  std::memcpy(v, t.raw_data().data(), 16);
  EXPECT_EQ(v[0], 0);
  EXPECT_EQ(v[1], -1);
  // Read anywhere: the fixed model needs no data file any more.
  const auto again = model::check_batch(read_bytes(onnx_output(r).model, "/nonexistent/fixed.onnx"), {.batch = dimension(4)});
  EXPECT_EQ(again.summary.verdict(), model::batch_verdict::yes) << again.summary_line();
}

TEST(onnx_fix, the_declared_dims_of_if_branches_follow_the_batch) {
  // Each branch declares its output and a tensor inside it at batch 1.
  const auto branch = [](const char* name, const char* op) {
    return fmt::format(R"(
      name: "{0}" node {{ name: "{0}_a" op_type: "{1}" input: ["x"] output: ["{0}_t"] }}
      node {{ name: "{0}_b" op_type: "Neg" input: ["{0}_t"] output: ["{0}_out"] }}
      value_info {{ name: "{0}_t" type {{ tensor_type {{ elem_type: 1 shape {{ dim {{ dim_value: 1 }} dim {{ dim_value: 3 }} }} }} }} }}
      output {{ name: "{0}_out" type {{ tensor_type {{ elem_type: 1 shape {{ dim {{ dim_value: 1 }} dim {{ dim_value: 3 }} }} }} }} }})",
                       name, op);
  };
  const auto text = fmt::format(R"(
    ir_version: 8 opset_import {{ domain: "" version: 13 }}
    graph {{
      name: "branches"
      input {{ name: "x" type {{ tensor_type {{ elem_type: 1 shape {{ dim {{ dim_value: 1 }} dim {{ dim_value: 3 }} }} }} }} }}
      input {{ name: "flag" type {{ tensor_type {{ elem_type: 9 shape {{ }} }} }} }}
      node {{ name: "choose" op_type: "If" input: ["flag"] output: ["y"]
        attribute {{ name: "then_branch" type: GRAPH g {{ {} }} }}
        attribute {{ name: "else_branch" type: GRAPH g {{ {} }} }} }}
      output {{ name: "y" type {{ tensor_type {{ elem_type: 1 shape {{ dim {{ dim_value: 1 }} dim {{ dim_value: 3 }} }} }} }} }}
    }})",
                                branch("then", "Relu"), branch("else", "Abs"));
  ::onnx::ModelProto m;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m));
  const auto bytes = m.SerializeAsString();
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "branches.onnx");
  ASSERT_TRUE(r.fixed);
  EXPECT_TRUE(r.changes.empty());
  const auto freed = fmt::format("{}", fmt::join(r.freed(), "; "));
  for (const auto* want : {"input 'x' dimension 0", "output 'y' dimension 0", "branch output 'then_out' dimension 0",
                           "branch value_info 'then_t' dimension 0", "branch output 'else_out' dimension 0",
                           "branch value_info 'else_t' dimension 0"})
    EXPECT_NE(freed.find(want), std::string::npos) << want << " in " << freed;
  ::onnx::ModelProto fixed;
  ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model));
  for (const auto& a : fixed.graph().node(0).attribute()) {
    EXPECT_EQ(a.g().output(0).type().tensor_type().shape().dim(0).dim_param(), "N") << a.name();
    EXPECT_EQ(a.g().value_info(0).type().tensor_type().shape().dim(0).dim_param(), "N") << a.name();
    EXPECT_EQ(a.g().output(0).type().tensor_type().shape().dim(1).dim_value(), 3) << a.name();
  }
}

TEST(onnx_fix, the_declared_dims_of_loop_and_scan_bodies_follow_the_batch) {
  // A Loop body and a Scan body declare batch 1 in their inputs, outputs and a value_info: ONNX Runtime
  // sizes a Scan body's outputs from them, and fails at batch 2 if they stay.
  const auto bytes = fixture_bytes("body_dims");
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "body_dims.onnx");
  ASSERT_TRUE(r.fixed);
  EXPECT_TRUE(r.changes.empty());
  const auto freed = fmt::format("{}", fmt::join(r.freed(), "; "));
  EXPECT_EQ(freed,
            "input 'x' dimension 0; output 'steps' dimension 0; Loop 'repeat' body input 'acc' dimension 0; "
            "Loop 'repeat' body output 'acc_out' dimension 0; Loop 'repeat' body value_info 'sum' dimension 0; "
            "Scan 'running' body input 'step_in' dimension 0; Scan 'running' body output 'step_out' dimension 0");
  ::onnx::ModelProto fixed, original;
  ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model));
  ASSERT_TRUE(original.ParseFromString(bytes));
  const auto dims = [](const ::onnx::ValueInfoProto& v) {
    std::string s;
    for (const auto& d : v.type().tensor_type().shape().dim())
      s += (s.empty() ? "" : ",") + (d.has_dim_param() ? d.dim_param() : std::to_string(d.dim_value()));
    return s;
  };
  const auto& loop = fixed.graph().node(0).attribute(0).g();
  EXPECT_EQ(dims(loop.input(2)), "N,4,3");
  EXPECT_EQ(dims(loop.output(1)), "N,4,3");
  EXPECT_EQ(dims(loop.value_info(0)), "N,4,3");
  EXPECT_EQ(dims(loop.input(0)), "");  // the iteration number, a scalar: unchanged
  const auto& scan = fixed.graph().node(1).attribute(3).g();
  EXPECT_EQ(dims(scan.input(0)), "N,3");
  EXPECT_EQ(dims(scan.output(0)), "N,3");
  // Nothing else changed: the original with those dims set is the fixed model.
  for (auto* v : {original.mutable_graph()->mutable_input(0), original.mutable_graph()->mutable_output(0)})
    v->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("N");
  auto& ol = *original.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g();
  for (auto* v : {ol.mutable_input(2), ol.mutable_output(1), ol.mutable_value_info(0)})
    v->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("N");
  auto& os = *original.mutable_graph()->mutable_node(1)->mutable_attribute(3)->mutable_g();
  for (auto* v : {os.mutable_input(0), os.mutable_output(0)})
    v->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("N");
  EXPECT_EQ(fixed.SerializeAsString(), original.SerializeAsString());
}

TEST(onnx_fix, rewrites_a_reshape_inside_a_loop_or_scan_body) {
  // scan_reshape: the shape is an initializer of the Scan's body. loop_captured: the Loop's body reads it
  // by name from the top graph, where it is rewritten (and the node keeps reading it by that name).
  struct expected_fix {
    const char* fixture;
    const char* tensor;
    const char* pattern;
    std::int64_t body_layer;  // the Reshape's id in the body
    const char* within;       // the layer that runs the body
  };
  for (const auto& e : {expected_fix{"scan_reshape", "split_shape", "[0,2,3]", 4, "steps"},
                        expected_fix{"loop_captured", "flat_shape", "[0,6]", 5, "repeat"}}) {
    SCOPED_TRACE(e.fixture);
    const auto bytes = fixture_bytes(e.fixture);
    const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), std::string(e.fixture) + ".onnx");
    ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
    ASSERT_EQ(r.changes.size(), 1u);
    const auto& c = r.changes[0];
    EXPECT_EQ(onnx_edit(c).tensor, e.tensor);
    EXPECT_EQ(c.new_pattern, e.pattern);
    EXPECT_EQ(c.id, e.body_layer);
    ASSERT_EQ(c.within.size(), 1u);
    EXPECT_EQ(c.within[0].name, e.within);
    // The tensor is rewritten where it is: in the body's initializers, or in the top graph's.
    ::onnx::ModelProto fixed;
    ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model));
    const ::onnx::TensorProto* t = nullptr;
    for (const auto& i : fixed.graph().initializer())
      if (i.name() == e.tensor) t = &i;
    for (const auto& n : fixed.graph().node())
      for (const auto& a : n.attribute())
        if (a.has_g())
          for (const auto& i : a.g().initializer())
            if (i.name() == e.tensor) t = &i;
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->int64_data(0), 0);
  }
  // A body input named as a tensor around the body hides it: the Reshape reads the input (a shape the
  // Loop carries from that tensor, here unchanged). fix does not follow a carried value back to where it
  // starts, so it leaves the Reshape alone rather than name the outer tensor as the one it reads.
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(fixture_bytes("loop_captured")));
  auto& loop = *m.mutable_graph()->mutable_node(1);
  loop.add_input("flat_shape");  // a second carried value: the shape, passed on unchanged
  loop.add_output("shape_out");
  auto& body = *loop.mutable_attribute(0)->mutable_g();
  auto* in = body.add_input();
  in->set_name("flat_shape");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(7);
  auto* pass = body.add_node();
  pass->set_name("pass");
  pass->set_op_type("Identity");
  pass->add_input("flat_shape");
  pass->add_output("shape_next");
  auto* out = body.add_output();
  out->set_name("shape_next");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(7);
  const auto text = m.SerializeAsString();
  const auto r = onnx::fix(std::as_bytes(std::span(text.data(), text.size())), "hidden.onnx");
  EXPECT_FALSE(r.fixed);
  EXPECT_TRUE(r.changes.empty());
}

TEST(onnx_fix, a_shape_a_body_reads_from_outside_is_copied_when_the_graph_reads_it_too) {
  // loop_captured_shared: the body's Reshape reads a copy of the shape, made in the top graph (the Loop
  // then passes the copy in), and the graph's own reader keeps [1,6].
  const auto text = fixture_bytes("loop_captured_shared");
  const auto r = onnx::fix(std::as_bytes(std::span(text.data(), text.size())), "captured.onnx");
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(onnx_edit(r.changes[0]).tensor, "flat_shape_for_flat");
  EXPECT_EQ(onnx_edit(r.changes[0]).cloned_from, "flat_shape");
  EXPECT_EQ(r.changes[0].new_pattern, "[0,6]");
  ASSERT_EQ(r.changes[0].within.size(), 1u);
  EXPECT_EQ(r.changes[0].within[0].name, "repeat");
  ::onnx::ModelProto fixed;
  ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model));
  std::map<std::string, std::int64_t> first;
  for (const auto& i : fixed.graph().initializer())
    if (i.int64_data_size() > 0) first[i.name()] = i.int64_data(0);
  EXPECT_EQ(first["flat_shape"], 1);
  EXPECT_EQ(first["flat_shape_for_flat"], 0);
  EXPECT_EQ(fixed.graph().node(1).attribute(0).g().node(1).input(1), "flat_shape_for_flat");
  EXPECT_EQ(fixed.graph().node(2).input(0), "flat_shape");  // the Cast
}

// Two chained Reshapes plan alike in a Scan's body and in the top graph: the second is judged with the
// first one's rewrite, not on its own.
TEST(onnx_fix, chained_reshapes_in_a_body_are_planned_as_in_the_top_graph) {
  const auto chain = [](bool in_body) {
    const std::string nodes = R"(
      node { name: "r1" op_type: "Reshape" input: ["IN", "s1"] output: ["a"] }
      node { name: "r2" op_type: "Reshape" input: ["a", "s2"] output: ["b"] })";
    const std::string shapes = R"(
      initializer { name: "s1" data_type: 7 dims: [2] int64_data: [1, -1] }
      initializer { name: "s2" data_type: 7 dims: [2] int64_data: [1, 6] })";
    const auto replaced = [](std::string text, const std::string& with) {
      return text.replace(text.find("IN"), 2, with);
    };
    const std::string text =
        in_body ? R"(
      ir_version: 8 opset_import { domain: "" version: 13 }
      graph {
        name: "chain"
        input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 1 } dim { dim_value: 4 } dim { dim_value: 6 } } } } }
        node { name: "steps" op_type: "Scan" input: ["x"] output: ["ys"]
          attribute { name: "num_scan_inputs" type: INT i: 1 }
          attribute { name: "scan_input_axes" type: INTS ints: [1] }
          attribute { name: "scan_output_axes" type: INTS ints: [1] }
          attribute { name: "body" type: GRAPH g {
            name: "body"
            input { name: "step" type { tensor_type { elem_type: 1 shape { dim { dim_value: 1 } dim { dim_value: 6 } } } } })" +
                      shapes + replaced(nodes, "step") + R"(
            output { name: "b" type { tensor_type { elem_type: 1 } } } } } }
        output { name: "ys" type { tensor_type { elem_type: 1 } } }
      })"
                : R"(
      ir_version: 8 opset_import { domain: "" version: 13 }
      graph {
        name: "chain"
        input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 1 } dim { dim_value: 6 } } } } })" +
                      shapes + replaced(nodes, "x") + R"(
        output { name: "b" type { tensor_type { elem_type: 1 } } }
      })";
    ::onnx::ModelProto m;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m));
    const auto bytes = m.SerializeAsString();
    return onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "chain.onnx");
  };
  const auto top = chain(false);
  const auto body = chain(true);
  ASSERT_TRUE(top.fixed);
  ASSERT_TRUE(body.fixed);
  ASSERT_EQ(top.changes.size(), body.changes.size());
  for (std::size_t k = 0; k < top.changes.size(); ++k) {
    EXPECT_EQ(body.changes[k].name, top.changes[k].name);
    EXPECT_EQ(body.changes[k].new_pattern, top.changes[k].new_pattern);
    EXPECT_EQ(body.changes[k].within.size(), 1u);
  }
}

// An If inside a Loop's body is lowered into the body: its branches' declared dims follow the batch too.
TEST(onnx_fix, the_declared_dims_of_if_branches_inside_a_body_follow_the_batch) {
  const auto branch = [](const char* name, const char* op) {
    return fmt::format(R"(
      name: "{0}" node {{ name: "{0}_a" op_type: "{1}" input: ["acc"] output: ["{0}_out"] }}
      output {{ name: "{0}_out" type {{ tensor_type {{ elem_type: 1 shape {{ dim {{ dim_value: 1 }} dim {{ dim_value: 3 }} }} }} }} }})",
                       name, op);
  };
  const auto text = fmt::format(R"(
    ir_version: 8 opset_import {{ domain: "" version: 13 }}
    graph {{
      name: "loop_if"
      input {{ name: "x" type {{ tensor_type {{ elem_type: 1 shape {{ dim {{ dim_value: 1 }} dim {{ dim_value: 3 }} }} }} }} }}
      input {{ name: "flag" type {{ tensor_type {{ elem_type: 9 shape {{ }} }} }} }}
      initializer {{ name: "trips" data_type: 7 int64_data: [2] }}
      initializer {{ name: "go" data_type: 9 int32_data: [1] }}
      node {{ name: "repeat" op_type: "Loop" input: ["trips", "go", "x"] output: ["y"]
        attribute {{ name: "body" type: GRAPH g {{
          name: "body"
          input {{ name: "i" type {{ tensor_type {{ elem_type: 7 shape {{ }} }} }} }}
          input {{ name: "c" type {{ tensor_type {{ elem_type: 9 shape {{ }} }} }} }}
          input {{ name: "acc" type {{ tensor_type {{ elem_type: 1 }} }} }}
          node {{ name: "keep_going" op_type: "Identity" input: ["c"] output: ["c_out"] }}
          node {{ name: "choose" op_type: "If" input: ["flag"] output: ["acc_out"]
            attribute {{ name: "then_branch" type: GRAPH g {{ {} }} }}
            attribute {{ name: "else_branch" type: GRAPH g {{ {} }} }} }}
          output {{ name: "c_out" type {{ tensor_type {{ elem_type: 9 shape {{ }} }} }} }}
          output {{ name: "acc_out" type {{ tensor_type {{ elem_type: 1 }} }} }} }} }} }}
      output {{ name: "y" type {{ tensor_type {{ elem_type: 1 }} }} }}
    }})",
                                branch("then", "Relu"), branch("else", "Neg"));
  ::onnx::ModelProto m;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m));
  const auto bytes = m.SerializeAsString();
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "loop_if.onnx");
  const auto freed = fmt::format("{}", fmt::join(r.freed(), "; "));
  for (const auto* want : {"Loop 'repeat' body branch output 'then_out' dimension 0",
                           "Loop 'repeat' body branch output 'else_out' dimension 0"})
    EXPECT_NE(freed.find(want), std::string::npos) << want << " in " << freed;
}

TEST(onnx_fix, a_pattern_that_fails_gets_minus_one_where_the_checks_hold) {
  // [1,6] after an Unsqueeze that puts the batch at axis 1: 0 would copy the 1 in front of it. The
  // finding names no element (the pattern fails), so -1 is tried at each element in turn.
  for (const auto& [name, want] : {std::pair{"batch_moves", "[-1,6]"}, std::pair{"fold_rows", "[-1,3]"}}) {
    SCOPED_TRACE(name);
    const auto bytes = fixture_bytes(name);
    const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), std::string(name) + ".onnx");
    ASSERT_TRUE(r.fixed);
    ASSERT_EQ(r.changes.size(), 1u);
    EXPECT_EQ(r.changes[0].new_pattern, want);
    EXPECT_NE(r.changes[0].why.find("folds the declared batch"), std::string::npos) << r.changes[0].why;
  }
}

TEST(onnx_fix, rewrites_a_reshape_inside_an_if_branch) {
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(fixture_bytes("if_branches")));
  // As written: the else branch reads the top graph's initializer 'pin'. Then with its shape held by a
  // Constant node inside the branch.
  ::onnx::ModelProto inner = m;
  auto& g = *inner.mutable_graph();
  const auto pin = g.initializer(1);
  ASSERT_EQ(pin.name(), "pin");
  g.mutable_initializer()->RemoveLast();
  auto* else_branch = g.mutable_node(0)->mutable_attribute(1)->mutable_g();
  ::onnx::NodeProto constant;
  constant.set_name("pin_node");
  constant.set_op_type("Constant");
  constant.add_output("pin");
  auto* value = constant.add_attribute();
  value->set_name("value");
  value->set_type(::onnx::AttributeProto::TENSOR);
  *value->mutable_t() = pin;
  value->mutable_t()->clear_name();
  *else_branch->add_node() = constant;
  else_branch->mutable_node()->SwapElements(0, 1);  // the Constant first
  for (const auto* model : {&m, &inner}) {
    const auto bytes = model->SerializeAsString();
    const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "if.onnx");
    ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
    ASSERT_EQ(r.changes.size(), 1u);
    EXPECT_EQ(r.changes[0].name, "else_flat");
    EXPECT_EQ(onnx_edit(r.changes[0]).tensor, "pin");
    EXPECT_EQ(r.changes[0].new_pattern, "[0,-1]");
    ::onnx::ModelProto fixed;
    ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model));
    EXPECT_EQ(fixed.graph().node_size(), model->graph().node_size());
    const auto back = model::check_batch(read_bytes(onnx_output(r).model, "fixed.onnx"), {.batch = dimension(4)});
    EXPECT_EQ(back.summary.verdict(), model::batch_verdict::yes) << back.summary_line();
  }
}

TEST(onnx_fix, takes_the_batch_axis_from_a_layout) {
  // Time-major [T,N,C] = [5,1,4], made batch-first and flattened as [1,20]: with the layout, the batch is
  // axis 1, the Reshape's 1 becomes 0, and the input's dimension 1 is freed.
  ::onnx::ModelProto m;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"(ir_version: 8
    opset_import { domain: "" version: 13 }
    graph {
      name: "time_major"
      input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 5 } dim { dim_value: 1 } dim { dim_value: 4 } } } } }
      initializer { name: "pattern" data_type: 7 dims: 2 int64_data: [1, 20] }
      node { name: "batch_first" op_type: "Transpose" input: ["x"] output: ["t"] attribute { name: "perm" type: INTS ints: [1, 0, 2] } }
      node { name: "flat" op_type: "Reshape" input: ["t", "pattern"] output: ["y"] }
      output { name: "y" type { tensor_type { elem_type: 1 shape { dim { dim_value: 1 } dim { dim_value: 20 } } } } }
    })", &m));
  const auto bytes = m.SerializeAsString();
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "tnc.onnx", {.layouts = {{"x", "TNC"}}});
  ASSERT_TRUE(r.fixed);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].new_pattern, "[0,20]");
  ASSERT_FALSE(r.freed().empty());
  EXPECT_EQ(r.freed()[0], "input 'x' dimension 1");
  // Without it, axis 0 (T) is taken for the batch, and [1,20] cannot follow it.
  EXPECT_FALSE(onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "tnc.onnx").fixed);
  const auto wrong = [&] {
    (void)onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "tnc.onnx", {.layouts = {{"y", "NC"}}});
  };
  EXPECT_THROW(wrong(), error);
}

TEST(onnx_fix, rewrites_branch_reshapes_that_share_their_shape_and_a_constant_condition_if) {
  // Both branches flatten with one initializer [1,-1]: both need the same rewrite, made once in it.
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(fixture_bytes("if_branches")));
  m.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g()->mutable_node(0)->set_input(1, "pin");
  {
    const auto bytes = m.SerializeAsString();
    const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "shared.onnx");
    ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
    ASSERT_EQ(r.changes.size(), 2u);
    EXPECT_EQ(r.changes[0].name, "then_flat");
    EXPECT_EQ(r.changes[1].name, "else_flat");
    for (const auto& c : r.changes) {
      EXPECT_EQ(onnx_edit(c).tensor, "pin") << c.name;
      EXPECT_FALSE(onnx_edit(c).cloned_from) << c.name;
    }
    // The ids are those of the fixed model's layers, as check gives them.
    const auto g = read_bytes(onnx_output(r).model, "fixed.onnx");
    for (const auto& c : r.changes) {
      ASSERT_NE(g.find(c.id), nullptr) << c.name;
      EXPECT_EQ(g.find(c.id)->name, c.name);
    }
  }
  // A constant condition: the If's output is the then branch's Reshape's, inlined.
  ::onnx::ModelProto constant = m;
  auto* flag = constant.mutable_graph()->add_initializer();
  flag->set_name("flag");
  flag->set_data_type(::onnx::TensorProto::BOOL);
  flag->add_int32_data(1);
  constant.mutable_graph()->mutable_input()->RemoveLast();  // flag is no input any more
  const auto bytes = constant.SerializeAsString();
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "constant.onnx");
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].name, "then_flat");
}

TEST(onnx_fix, refuses_what_it_cannot_prove_and_writes_nothing) {
  const auto bytes = fixture_bytes("allowzero_literal");
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "allowzero.onnx");
  EXPECT_FALSE(r.fixed);
  EXPECT_TRUE(onnx_output(r).model.empty());
  ASSERT_FALSE(r.refusals.empty());
  EXPECT_EQ(r.refusals[0].name, "flat");
  EXPECT_THROW(onnx::write_fixed(r, "allowzero.onnx", "out.onnx"), error);
}

// An If whose condition is a constant passes its branches' value on: the lowering folds it, so the checks
// see the pattern as 'p', yet the Reshape reads the If's output 'q'. Rewriting 'p' would not change what
// the node reads in the file, so the refusal names both tensors and the port.
TEST(onnx_fix, a_pattern_reaching_its_node_through_an_if_is_refused_naming_the_tensor_the_node_reads) {
  const auto bytes = fixture_bytes("fix_pattern_through_if");
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "through_if.onnx");
  EXPECT_FALSE(r.fixed);
  EXPECT_TRUE(r.changes.empty());
  ASSERT_EQ(r.refusals.size(), 1u);
  const auto& refusal = r.refusals[0];
  EXPECT_EQ(refusal.name, "rs");
  EXPECT_EQ(refusal.code, "does_not_feed");
  const model::reason_args expected{{"port", std::int64_t{1}}, {"tensor", std::string("p")},
                                    {"node", std::string("rs")}, {"read", std::string("q")}};
  EXPECT_EQ(refusal.args, expected);
  EXPECT_NE(refusal.reason.find("reads 'q'"), std::string::npos) << refusal.reason;
  EXPECT_TRUE(onnx_output(r).model.empty());
}

}  // namespace
}  // namespace reshape1::test
