// check_batch (`reshape1 check --batch N` / `--shape` / `--layout`): hand-made models for each finding
// (a layer that fails, a Reshape that swallows the batch, an undone batch-major flatten that is fine),
// inputs whose batches sit at different indices, layouts, and requests that cannot be met.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../../fix_parts.hpp"
#include "../ir_builder.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/fix.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::test {
namespace {

using model::batch_carrier;
using model::batch_issue;

/// "fails 5, swallows_batch 3": each finding's kind and layer id, in report order.
class batch : public ir {
 protected:
  model::batch_report at(const ir_builder& b, const model::reshape_request& request) {
    graph_ = load(b.xml(), b.bin());
    return model::check_batch(graph_, request);
  }
  static model::reshape_request batch_of(std::int64_t n) { return {.batch = dimension(n)}; }
  static model::reshape_request dynamic_batch() { return {.batch = dimension()}; }

  /// The hand-made TensorIterator's files (tests/data/models/tensor-iterator-lstm), with its step's pattern
  /// [0,-1] (i64, at offset 0 of the .bin, its only copy there) written as [1,-1].
  struct files {
    std::string xml, bin;
  };
  static files tensor_iterator_writing_batch_1() {
    const auto model = fs::path(RESHAPE1_TEST_DATA) / "models" / "tensor-iterator-lstm";
    files f;
    std::ifstream in(model / "model.xml", std::ios::binary);
    f.xml.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    std::ifstream b(model / "model.bin", std::ios::binary);
    f.bin.assign(std::istreambuf_iterator<char>(b), std::istreambuf_iterator<char>());
    EXPECT_EQ(f.bin.find(step_pattern()), 0u);
    EXPECT_EQ(f.bin.rfind(step_pattern()), 0u);
    f.bin[0] = 1;
    return f;
  }
  static std::string step_pattern() { return std::string(8, '\0') + std::string(8, '\xff'); }  // i64 [0,-1]

  /// Writes `f` as m.xml and m.bin, which must not reshape to batch 2, and fixes it: one change, to the
  /// TensorIterator's step (body id 4).
  model::fix_report fix_the_step(const files& f) {
    std::ofstream(dir_ / "m.xml", std::ios::binary) << f.xml;
    std::ofstream(dir_ / "m.bin", std::ios::binary).write(f.bin.data(), static_cast<std::streamsize>(f.bin.size()));
    EXPECT_FALSE(model::check_batch(model::read_ir(dir_ / "m.xml", dir_ / "m.bin"), batch_of(2)).summary.reshapes());
    auto fixed = onnx::fix(dir_ / "m.xml", {.bin = dir_ / "m.bin"});
    EXPECT_TRUE(fixed.fixed) << (fixed.refusals.empty() ? "" : fixed.refusals[0].reason);
    EXPECT_EQ(fixed.changes.size(), 1u);
    for (const auto& c : fixed.changes) {
      EXPECT_EQ(c.id, 4);
      EXPECT_EQ(c.within, (std::vector<model::enclosing_layer>{{3, "lstm", "TensorIterator"}}));
      EXPECT_EQ(c.new_pattern, "[0,-1]");
    }
    return fixed;
  }

  model::graph graph_;
};


// A pattern constant that writes the declared batch: at another batch the counts differ and the Reshape
// fails, naming the Const and a fix that works (this pattern has no -1, so -1 is one).
TEST_F(batch, a_constant_batch_fails) {
  ir_builder b;
  const int x = b.parameter("[1,4,8]");
  const int c = b.i64({1, 32});
  const int r = b.reshape(x, c, false, "[1,4,8]", "[2]", "[1,32]");
  b.result(r, "[1,32]");
  const auto rep = at(b, batch_of(4));
  EXPECT_EQ(listed_ids(rep), fmt::format("fails {}", r));
  const auto& f = rep.findings.at(0);
  EXPECT_EQ(f.code, name(errc::count_mismatch));
  EXPECT_EQ(f.at, "4");
  EXPECT_EQ(f.source_id, c);
  EXPECT_EQ(f.source, fmt::format("Const 'Const_{}' (id {})", c, c));
  EXPECT_NE(f.what.find("pattern[0] is 1, the declared batch, written as a constant"), std::string::npos) << f.what;
  EXPECT_EQ(f.hint, "pattern[0]: use -1, or 0 with special_zero=true, to follow the batch");
  EXPECT_FALSE(rep.summary.reshapes());
  EXPECT_EQ(rep.summary_line(), "reshapes to batch 4: no: 1 layer fails");

  // A dynamic batch: OpenVINO's shape inference accepts ? (it may be 1), so the report shows where an
  // example batch, 2, fails.
  const auto dyn = at(b, dynamic_batch());
  EXPECT_EQ(listed_ids(dyn), fmt::format("fails {}", r));
  EXPECT_EQ(dyn.findings.at(0).at, "2");
  EXPECT_EQ(dyn.summary_line(), "reshapes to batch ?: no: 1 layer fails");

  // At the declared batch nothing changes.
  const auto same = at(b, batch_of(1));
  EXPECT_EQ(listed_ids(same), "");
  EXPECT_EQ(same.summary_line(), "reshapes to batch 1: yes");
}

// The SwinIR case: [1,-1,8,8] on [N,180,8,8]. The -1 takes the batch into the channels: the Reshape runs,
// the convolution after it fails (its weights have 180 input channels) and names the Reshape as cause.
TEST_F(batch, a_minus_one_that_swallows_the_batch_before_a_convolution) {
  ir_builder b;
  const int x = b.parameter("[1,180,8,8]");
  const int r = b.reshape(x, b.i64({1, -1, 8, 8}), false, "[1,180,8,8]", "[4]", "[1,180,8,8]");
  const int w = b.constant(element_type::f32, "16,180,3,3", std::vector<std::int64_t>(16 * 180 * 9, 0),
                           "[16,180,3,3]");
  const int conv = b.layer("Convolution",
                           "strides=\"1,1\" dilations=\"1,1\" pads_begin=\"1,1\" pads_end=\"1,1\" auto_pad=\"explicit\"",
                           {"[1,180,8,8]", "[16,180,3,3]"}, {"[1,16,8,8]"});
  b.edge(r, conv, 0);
  b.edge(w, conv, 1);
  b.result(conv, "[1,16,8,8]");
  const auto rep = at(b, batch_of(4));
  EXPECT_EQ(listed_ids(rep), fmt::format("swallows_batch {}, fails {}", r, conv));
  const auto& s = rep.findings.at(0);
  EXPECT_EQ(s.what, "pattern[0] is 1, the declared batch, written as a constant: the output's dimension 0 stays 1 "
                    "and the batch goes into dimension 1 (N·180)");
  EXPECT_EQ(s.hint, "pattern[0]: use 0 with special_zero=true to copy the batch");
  const auto& f = rep.findings.at(1);
  EXPECT_EQ(f.cause_id, r);
  EXPECT_EQ(f.code, name(errc::invalid_shape));
  EXPECT_EQ(rep.summary_line(), "reshapes to batch 4: no: 1 layer fails, 1 Reshape swallows the batch");
}

// A -1 that folds the batch with another dimension before a layer that computes across that dimension:
// nothing fails, the results are wrong. No constant is involved, so the finding comes from the use.
TEST_F(batch, a_fold_used_across_the_batch_swallows_it) {
  ir_builder b;
  const int x = b.parameter("[1,6,4]");
  const int r = b.reshape(x, b.i64({-1, 4}), false, "[1,6,4]", "[2]", "[6,4]");
  const int sm = b.layer("SoftMax", "axis=\"0\"", {"[6,4]"}, {"[6,4]"});
  b.edge(r, sm, 0);
  const int out = b.result(sm, "[6,4]");
  const auto rep = at(b, batch_of(3));
  EXPECT_EQ(listed_ids(rep), fmt::format("swallows_batch {}", r));
  const auto& f = rep.findings.at(0);
  EXPECT_EQ(f.used_by_id, sm);
  EXPECT_EQ(f.what, fmt::format("the batch goes into dimension 0 (N·6); then at SoftMax 'SoftMax_{}' (id {}): input 0 "
                                "holds the batch in dimension 0, which this layer uses as its softmax axis",
                                sm, sm));
  EXPECT_EQ(f.hint, "keep the batch in a dimension of its own: copy it with 0 at pattern[0] (with special_zero=true)");
  ASSERT_EQ(rep.outputs.size(), 1u);
  EXPECT_EQ(rep.outputs[0].id, out);
  EXPECT_EQ(to_string(rep.outputs[0].reshaped), "[18,4]");
  EXPECT_EQ(rep.outputs[0].batch, (batch_carrier{batch_carrier::kind::one, 0, 6}));

  // Over the last axis instead, nothing computes across samples, and the output [N·6,4] holds each sample's
  // six rows one after the other: the concatenation of the batch-1 outputs along dimension 0, its batch axis.
  ir_builder c;
  const int y = c.parameter("[1,6,4]");
  const int r2 = c.reshape(y, c.i64({-1, 4}), false, "[1,6,4]", "[2]", "[6,4]");
  const int sm2 = c.layer("SoftMax", "axis=\"1\"", {"[6,4]"}, {"[6,4]"});
  c.edge(r2, sm2, 0);
  const int out2 = c.result(sm2, "[6,4]");
  const auto rep2 = at(c, batch_of(3));
  EXPECT_EQ(listed_ids(rep2), "");
  EXPECT_EQ(rep2.summary.verdict(), model::batch_verdict::yes);
  EXPECT_EQ(rep2.outputs.at(0).id, out2);
}

// The batch-major flatten of the issue: [-1,3] on [N,1126,3], a Softmax over the last axis, and a Reshape
// whose pattern ShapeOf computes back to [N,1126,3]. Correct at every batch: no finding.
TEST_F(batch, an_undone_batch_major_flatten_is_not_a_finding) {
  ir_builder b;
  const int x = b.parameter("[1,1126,3]");
  const int flat = b.reshape(x, b.i64({-1, 3}), false, "[1,1126,3]", "[2]", "[1126,3]");
  const int sm = b.layer("SoftMax", "axis=\"1\"", {"[1126,3]"}, {"[1126,3]"});
  b.edge(flat, sm, 0);
  const int shape = b.layer("ShapeOf", "output_type=\"i64\"", {"[1,1126,3]"}, {"[3]"}, "", 3);
  b.edge(x, shape, 0);
  const int back = b.reshape(sm, shape, false, "[1126,3]", "[3]", "[1,1126,3]");
  b.result(back, "[1,1126,3]");
  for (const auto& request : {batch_of(8), dynamic_batch()}) {
    const auto rep = at(b, request);
    EXPECT_EQ(listed_ids(rep), "");
    EXPECT_TRUE(rep.summary.reshapes());
    ASSERT_EQ(rep.outputs.size(), 1u);
    EXPECT_EQ(rep.outputs[0].batch, (batch_carrier{batch_carrier::kind::one, 0, 1}));
  }
  EXPECT_EQ(to_string(at(b, batch_of(8)).outputs[0].reshaped), "[8,1126,3]");
}

// The samples interleaved: [3,-1] on [N,3] gives [3,N], each row holding elements of several samples. A
// Reshape changes no element and no order, so what matters is what reads the result: elementwise layers keep
// every element where it is, and a Reshape to ShapeOf(x) puts each sample back (yes); a SoftMax along the
// interleaved axis mixes them, and the "no" names the Reshape and the SoftMax that shows it.
TEST_F(batch, interleaved_samples_are_judged_by_what_reads_them) {
  for (const std::string axis : {"", "1"}) {
    ir_builder b;
    const int x = b.parameter("[1,3]");
    const int r = b.reshape(x, b.i64({3, -1}), false, "[1,3]", "[2]", "[3,1]");
    const int two = b.constant(element_type::f32, "", {2}, "[]");
    const int mul = b.layer("Multiply", "", {"[3,1]", "[]"}, {"[3,1]"});
    b.edge(r, mul, 0);
    b.edge(two, mul, 1);
    int last = mul;
    if (!axis.empty()) {
      last = b.layer("SoftMax", "axis=\"" + axis + "\"", {"[3,1]"}, {"[3,1]"});
      b.edge(mul, last, 0);
    }
    const int shape = b.layer("ShapeOf", "output_type=\"i64\"", {"[1,3]"}, {"[2]"}, "", 3);
    b.edge(x, shape, 0);
    const int back = b.reshape(last, shape, false, "[3,1]", "[2]", "[1,3]");
    b.result(back, "[1,3]");
    const auto rep = at(b, batch_of(4));
    if (axis.empty()) {
      EXPECT_EQ(listed_ids(rep), "");
      EXPECT_EQ(rep.summary.verdict(), model::batch_verdict::yes) << rep.summary_line();
    } else {
      EXPECT_EQ(listed_ids(rep), fmt::format("swallows_batch {}", r));
      ASSERT_FALSE(rep.findings.empty());
      EXPECT_EQ(rep.findings[0].used_by_id, last);
      EXPECT_NE(rep.findings[0].what.find("samples are interleaved; then at SoftMax"), std::string::npos)
          << rep.findings[0].what;
    }
  }
}

// A model exported with a dynamic batch can still hard-code it in a pattern: asking for `?` again is not
// "nothing changed".
TEST_F(batch, a_dynamic_batch_declared_is_still_analysed) {
  ir_builder b;
  const int x = b.parameter("[-1,6,4]");
  const int r = b.reshape(x, b.i64({1, -1}), false, "[-1,6,4]", "[2]", "[1,-1]");
  b.result(r, "[1,-1]");
  const auto rep = at(b, dynamic_batch());
  EXPECT_EQ(listed_ids(rep), fmt::format("swallows_batch {}", r));
}

// A Concat of an input and a constant along another axis: at batch 4 the batch dimensions disagree.
TEST_F(batch, a_concat_fails) {
  ir_builder b;
  const int x = b.parameter("[1,8]");
  const int c = b.constant(element_type::f32, "1,8", std::vector<std::int64_t>(8, 0), "[1,8]");
  const int cat = b.layer("Concat", "axis=\"1\"", {"[1,8]", "[1,8]"}, {"[1,16]"}, "joined");
  b.edge(x, cat, 0);
  b.edge(c, cat, 1);
  b.result(cat, "[1,16]");
  const auto rep = at(b, batch_of(4));
  EXPECT_EQ(listed_ids(rep), fmt::format("fails {}", cat));
  const auto& f = rep.findings.at(0);
  EXPECT_EQ(f.code, name(errc::invalid_shape));
  EXPECT_EQ(f.what, fmt::format("layer 'joined' (id {}): input 1 dimension 0: 4 and 1 cannot be equal", cat));
  EXPECT_FALSE(f.cause_id);
}

// Concatenating along the batch axis joins the inputs whole: at batch N the output is x1..xN, x1..xN, where
// the batch-1 runs give x1, x1, x2, x2, ...: samples are mixed. Along another axis each sample stays apart.
TEST_F(batch, a_concat_along_the_batch_mixes_samples) {
  ir_builder b;
  const int x = b.parameter("[1,8]");
  const int cat = b.layer("Concat", "axis=\"0\"", {"[1,8]", "[1,8]"}, {"[2,8]"});
  b.edge(x, cat, 0);
  b.edge(x, cat, 1);
  b.result(cat, "[2,8]");
  const auto rep = at(b, batch_of(4));
  EXPECT_EQ(listed_ids(rep), fmt::format("mixes_samples {}", cat));
  EXPECT_EQ(rep.summary.verdict(), model::batch_verdict::no);
  EXPECT_EQ(rep.findings.at(0).port, 0u);
  EXPECT_EQ(rep.findings.at(0).axis, 0u);
  EXPECT_EQ(rep.summary_line(), "reshapes to batch 4: no: 1 layer mixes samples");

  ir_builder c;
  const int y = c.parameter("[1,8]");
  const int cat2 = c.layer("Concat", "axis=\"1\"", {"[1,8]", "[1,8]"}, {"[1,16]"});
  c.edge(y, cat2, 0);
  c.edge(y, cat2, 1);
  c.result(cat2, "[1,16]");
  EXPECT_EQ(listed_ids(at(c, batch_of(4))), "");
}

// Two inputs whose batches sit at different indices: the layout in the model (rt_info) says where; without
// one, dimension 0; --layout overrides both. The report lists each input and the index used.
TEST_F(batch, two_inputs_with_batches_at_different_indices) {
  ir_builder b;
  const int data = b.parameter("[1,3]", "data");
  const int seq = b.parameter("[5,1]", "seq", "[T,N]");
  b.result(data, "[1,3]");
  b.result(seq, "[5,1]");
  auto rep = at(b, batch_of(4));
  ASSERT_EQ(rep.inputs.size(), 2u);
  EXPECT_EQ(rep.inputs[0].id, data);
  EXPECT_EQ(rep.inputs[0].batch_index, 0u);
  EXPECT_EQ(rep.inputs[0].source, model::batch_source::first_dimension);
  EXPECT_EQ(to_string(rep.inputs[0].requested), "[4,3]");
  EXPECT_EQ(rep.inputs[1].batch_index, 1u);
  EXPECT_EQ(rep.inputs[1].source, model::batch_source::layout_in_model);
  EXPECT_EQ(rep.inputs[1].layout, "[T,N]");
  EXPECT_EQ(to_string(rep.inputs[1].requested), "[5,4]");
  // The output of seq has no layout: its batch axis is dimension 0, and the batch is in dimension 1.
  EXPECT_EQ(listed_ids(rep), "loses_batch 3");
  ASSERT_EQ(rep.outputs.size(), 2u);
  EXPECT_EQ(rep.outputs[1].batch, (batch_carrier{batch_carrier::kind::one, 1, 1}));

  auto request = batch_of(4);
  request.layouts = {{"seq", "NC"}, {"data", "CN"}};
  rep = at(b, request);
  EXPECT_EQ(rep.inputs[0].batch_index, 1u);
  EXPECT_EQ(rep.inputs[0].source, model::batch_source::layout_option);
  EXPECT_EQ(to_string(rep.inputs[0].requested), "[1,4]");
  EXPECT_EQ(to_string(rep.inputs[1].requested), "[4,1]");

  // A layout without N: that input keeps its shape.
  request.layouts = {{"seq", "TC"}};
  rep = at(b, request);
  EXPECT_FALSE(rep.inputs[1].batch_index);
  EXPECT_EQ(rep.inputs[1].source, model::batch_source::none);
  EXPECT_EQ(to_string(rep.inputs[1].requested), "[5,1]");
}

// --shape alone: other input shapes, the batch included where the shape says so.
TEST_F(batch, shapes_without_a_batch) {
  ir_builder b;
  const int x = b.parameter("[1,3,8,8]", "image");
  const int r = b.reshape(x, b.i64({0, -1}), true, "[1,3,8,8]", "[2]", "[1,192]");
  b.result(r, "[1,192]");
  model::reshape_request request;
  request.shapes = {{"", parse_shape("[2,3,16,16]")}};
  const auto rep = at(b, request);
  EXPECT_EQ(rep.target, "the given shapes");
  EXPECT_EQ(listed_ids(rep), "");
  EXPECT_EQ(to_string(rep.outputs.at(0).reshaped), "[2,768]");
  EXPECT_EQ(rep.summary_line(), "reshapes to the given shapes: yes");

  request.shapes = {{"image", parse_shape("[?,3,16..32,16]")}};
  EXPECT_EQ(to_string(at(b, request).outputs.at(0).reshaped), "[?@image.0,768..1536]");
}

TEST_F(batch, requests_that_cannot_be_met) {
  ir_builder b;
  b.parameter("[1,3]", "a");
  b.parameter("[1,3]", "b");
  const auto g = load(b.xml(), b.bin());
  const auto refused = [&](model::reshape_request request, const std::string& message) {
    try {
      (void)model::check_batch(g, request);
      ADD_FAILURE() << "accepted; expected: " << message;
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument);
      EXPECT_EQ(std::string(e.what()), message);
    }
  };
  refused({.shapes = {{"", parse_shape("[2,3]")}}},
          "shapes without a name: the model has 2 inputs ('a', 'b'); write shapes={NAME: SHAPE}");
  refused({.shapes = {{"c", parse_shape("[2,3]")}}},
          "shapes['c']: the model has no input named 'c'; its inputs are 'a', 'b'; use one of those names, or #ID for an "
          "input's id");
  refused({.shapes = {{"a", parse_shape("[2,3]")}, {"a", parse_shape("[3,3]")}}},
          "shapes['a']: given twice; give each input's shape once");
  refused({.batch = dimension(4), .shapes = {{"a", parse_shape("[2,3]")}}},
          "input 'a': shapes gives 2 at the batch index 0, batch gives 4; drop one of them, or make them agree");
  refused({.batch = dimension(0)}, "batch=0: a batch of 0 samples; give a batch of at least 1, or ?");
  refused({.batch = dimension(4), .layouts = {{"a", "NCHW"}}},
          "layouts['a']=NCHW: layout 'NCHW' has 4 dimensions, the shape has 2; give one name per dimension");
  // Agreeing --shape and --batch are fine.
  const auto ok = model::check_batch(g, {.batch = dimension(2), .shapes = {{"a", parse_shape("[2,3]")}}});
  EXPECT_EQ(to_string(ok.inputs[0].requested), "[2,3]");
  EXPECT_EQ(to_string(ok.inputs[1].requested), "[2,3]");
}

// Into bodies: the TensorIterator fixture's body flattens each step [N,1,16] with the pattern [0,-1]. With
// the 0 turned into the constant 1, the step becomes [1,N·16] at batch 4: the body's LSTMCell refuses it (so
// the TensorIterator fails, with the body layer's message) and the body Reshape swallows the batch; fix
// turns the 1 back into 0.
TEST_F(batch, into_a_tensor_iterator_body) {
  const auto model = fs::path(RESHAPE1_TEST_DATA) / "models" / "tensor-iterator-lstm";
  fs::copy_file(model / "model.xml", dir_ / "m.xml");
  std::string bin;
  {
    std::ifstream in(model / "model.bin", std::ios::binary);
    bin.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::string pattern = std::string(8, '\0') + std::string(8, '\xff');  // i64 [0,-1]
  ASSERT_EQ(bin.find(pattern), bin.rfind(pattern));
  ASSERT_NE(bin.find(pattern), std::string::npos);
  bin[bin.find(pattern)] = 1;
  std::ofstream(dir_ / "m.bin", std::ios::binary).write(bin.data(), static_cast<std::streamsize>(bin.size()));
  graph_ = model::read_ir(dir_ / "m.xml", dir_ / "m.bin");

  const auto clean = model::check_batch(model::read_ir(model / "model.xml", model / "model.bin"), batch_of(4));
  EXPECT_EQ(listed_ids(clean), "");

  const auto rep = model::check_batch(graph_, batch_of(4));
  EXPECT_EQ(listed_ids(rep), "fails 3, swallows_batch 4");
  ASSERT_EQ(rep.findings.size(), 2u);
  EXPECT_TRUE(rep.findings[0].within.empty());
  EXPECT_EQ(rep.findings[0].type, "TensorIterator");
  const auto& inner = rep.findings[1];
  ASSERT_EQ(inner.within.size(), 1u);
  EXPECT_EQ(inner.within[0], (model::enclosing_layer{3, "lstm", "TensorIterator"}));
  EXPECT_EQ(inner.type, "Reshape");
  EXPECT_EQ(inner.pattern_index, 0u);
  EXPECT_EQ(inner.what, "pattern[0] is 1, the declared batch, written as a constant: the output's dimension 0 stays 1 "
                        "and the batch goes into dimension 1 (N·16)");

  // fix rewrites the body's Reshape as it would one at the top: 0 again, in the body's own Const (id 3
  // there); the model it writes, read back, reshapes at every checked batch.
  const auto fixed = onnx::fix(dir_ / "m.xml", {.bin = dir_ / "m.bin"});
  EXPECT_TRUE(fixed.fixed) << (fixed.refusals.empty() ? "" : fixed.refusals[0].reason);
  EXPECT_TRUE(fixed.refusals.empty());
  ASSERT_EQ(fixed.changes.size(), 1u);
  const auto& c = fixed.changes[0];
  EXPECT_EQ(c.id, 4);
  EXPECT_EQ(c.within, (std::vector<model::enclosing_layer>{{3, "lstm", "TensorIterator"}}));
  EXPECT_EQ(c.old_pattern, "[1,-1]");
  EXPECT_EQ(c.new_pattern, "[0,-1]");
  EXPECT_EQ(ir_edit(c).const_id, 3);
  EXPECT_FALSE(ir_edit(c).cloned_from.has_value());
  EXPECT_EQ(c.element, 0u);
  EXPECT_EQ(c.old_value, 1);
  EXPECT_EQ(c.new_value, 0);
  EXPECT_FALSE(ir_edit(c).special_zero_set);
  onnx::write_fixed(fixed, dir_ / "m.xml", dir_ / "fixed.xml");
  const auto back = model::read_ir(dir_ / "fixed.xml", dir_ / "fixed.bin");
  for (const auto b : {1, 2, 8}) EXPECT_EQ(listed_ids(model::check_batch(back, batch_of(b))), "") << b;
  const auto& body = back.find(3)->body->network;
  const auto bytes = body.const_bytes(*body.find(3));
  ASSERT_EQ(bytes.size(), 16u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data()), 16), pattern) << "[0,-1] again";
}

// The TensorIterator fixture with its step's pattern held around the body: a Const of the model (id 7,
// written [1,-1]) that the TensorIterator passes in (input port 6) to the body's Parameter 3 at every step.
// fix rewrites that Const, in the model itself, and names the change by the Reshape in the body.
TEST_F(batch, fix_rewrites_a_body_pattern_held_around_the_body) {
  auto [xml, bin] = tensor_iterator_writing_batch_1();
  const auto replace = [&](const std::string& from, const std::string& to) {
    ASSERT_NE(xml.find(from), std::string::npos) << from;
    xml.replace(xml.find(from), from.size(), to);
  };
  const std::string i64x2 = R"(<port id="0" precision="I64"><dim>2</dim></port>)";
  replace(R"(<layer id="3" name="flatten_pattern" type="Const" version="opset1"><data element_type="i64" shape="2" offset="0" size="16"/>)",
          R"(<layer id="3" name="pattern_in" type="Parameter" version="opset1"><data element_type="i64" shape="2"/>)");
  replace(R"(<port id="2" precision="FP32"><dim>1</dim><dim>8</dim></port></input>)",
          R"(<port id="2" precision="FP32"><dim>1</dim><dim>8</dim></port><port id="6" precision="I64"><dim>2</dim></port></input>)");
  replace(R"(<input external_port_id="2" internal_layer_id="2"/>)",
          R"(<input external_port_id="2" internal_layer_id="2"/><input external_port_id="6" internal_layer_id="3"/>)");
  replace(R"(<layer id="4" name="y" type="Result")",
          R"(<layer id="7" name="outer_pattern" type="Const" version="opset1"><data element_type="i64" shape="2" offset="0" size="16"/><output>)" +
              i64x2 + R"(</output></layer><layer id="4" name="y" type="Result")");
  replace(R"(<edge from-layer="2" from-port="0" to-layer="3" to-port="2"/>)",
          R"(<edge from-layer="2" from-port="0" to-layer="3" to-port="2"/><edge from-layer="7" from-port="0" to-layer="3" to-port="6"/>)");
  const auto fixed = fix_the_step({xml, bin});
  ASSERT_EQ(fixed.changes.size(), 1u);
  const auto& c = fixed.changes[0];
  EXPECT_EQ(ir_edit(c).const_id, 7);
  EXPECT_FALSE(ir_edit(c).cloned_from.has_value());
  EXPECT_NE(c.why.find("'outer_pattern'"), std::string::npos) << c.why;
  onnx::write_fixed(fixed, dir_ / "m.xml", dir_ / "fixed.xml");
  const auto back = model::read_ir(dir_ / "fixed.xml", dir_ / "fixed.bin");
  for (const auto b : {1, 2, 8}) EXPECT_EQ(listed_ids(model::check_batch(back, batch_of(b))), "") << b;
  const auto bytes = back.const_bytes(*back.find(7));
  ASSERT_EQ(bytes.size(), 16u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data()), 16), step_pattern()) << "[0,-1] again";
}

// A Const shared inside a body: the TensorIterator fixture's pattern Const (body id 3), written [1,-1], also
// shapes a bias [1,16] that is added to each step. The step's Reshape needs 0, the bias's keeps 1: fix
// gives the step a copy of the Const in the body (its id above every id of the model), re-points the
// body's own edge, and leaves the bias's Reshape reading the original.
TEST_F(batch, fix_clones_a_const_shared_inside_a_body) {
  auto [xml, bin] = tensor_iterator_writing_batch_1();
  const auto bias_at = bin.size();
  bin += std::string(64, '\0');  // f32 [1,16] of zeros
  const auto f16 = R"(<dim>1</dim><dim>16</dim>)";
  const auto layers = fmt::format(
      R"(<layer id="14" name="bias" type="Const" version="opset1"><data element_type="f32" shape="1,16" offset="{}" size="64"/><output><port id="0" precision="FP32">{}</port></output></layer>)"
      R"(<layer id="15" name="bias_flat" type="Reshape" version="opset1"><data special_zero="true"/><input><port id="0" precision="FP32">{}</port><port id="1" precision="I64"><dim>2</dim></port></input><output><port id="2" precision="FP32">{}</port></output></layer>)"
      R"(<layer id="16" name="biased" type="Add" version="opset1"><input><port id="0" precision="FP32">{}</port><port id="1" precision="FP32">{}</port></input><output><port id="2" precision="FP32">{}</port></output></layer>)",
      bias_at, f16, f16, f16, f16, f16, f16);
  const std::string last = R"(<layer id="13" name="c/sink" type="Result" version="opset1"><input><port id="0" precision="FP32"><dim>1</dim><dim>8</dim></port></input></layer>)";
  const std::string step_to_cell = R"(<edge from-layer="4" from-port="2" to-layer="8" to-port="0"/>)";
  ASSERT_NE(xml.find(last), std::string::npos);
  ASSERT_NE(xml.find(step_to_cell), std::string::npos);
  xml.replace(xml.find(last), last.size(), last + layers);
  xml.replace(xml.find(step_to_cell), step_to_cell.size(),
              R"(<edge from-layer="4" from-port="2" to-layer="16" to-port="0"/><edge from-layer="14" from-port="0" to-layer="15" to-port="0"/>)"
              R"(<edge from-layer="3" from-port="0" to-layer="15" to-port="1"/><edge from-layer="15" from-port="2" to-layer="16" to-port="1"/>)"
              R"(<edge from-layer="16" from-port="2" to-layer="8" to-port="0"/>)");
  const auto fixed = fix_the_step({xml, bin});
  ASSERT_EQ(fixed.changes.size(), 1u);
  const auto& c = fixed.changes[0];
  EXPECT_EQ(ir_edit(c).cloned_from, std::optional<std::int64_t>(3));
  EXPECT_EQ(ir_edit(c).const_id, 17) << "above every id of the model and its body";
  EXPECT_EQ(c.new_pattern, "[0,-1]");
  onnx::write_fixed(fixed, dir_ / "m.xml", dir_ / "fixed.xml");
  const auto back = model::read_ir(dir_ / "fixed.xml", dir_ / "fixed.bin");
  for (const auto b : {1, 2, 8}) EXPECT_EQ(listed_ids(model::check_batch(back, batch_of(b))), "") << b;
  const auto& body = back.find(3)->body->network;
  ASSERT_NE(body.find(17), nullptr);
  EXPECT_EQ(body.layers()[body.find(4)->sources[1]->layer].id, 17);
  EXPECT_EQ(body.layers()[body.find(15)->sources[1]->layer].id, 3) << "the bias's Reshape reads the original";
  EXPECT_EQ(back.find(17), nullptr);
}

TEST(batch_layout, index_of_n) {
  EXPECT_EQ(model::batch_index_of("NCHW", 4), 0u);
  EXPECT_EQ(model::batch_index_of("nchw", 4), 0u);
  EXPECT_EQ(model::batch_index_of("[N,C,H,W]", 4), 0u);
  EXPECT_EQ(model::batch_index_of("[ T , N ]", 2), 1u);
  EXPECT_EQ(model::batch_index_of("TN", 2), 1u);
  EXPECT_EQ(model::batch_index_of("NC...", 5), 0u);
  EXPECT_EQ(model::batch_index_of("...N", 3), 2u);
  EXPECT_EQ(model::batch_index_of("...NC", 3), 1u);
  EXPECT_EQ(model::batch_index_of("[...,N,C]", 4), 2u);
  EXPECT_EQ(model::batch_index_of("...N", std::nullopt), std::nullopt);
  EXPECT_EQ(model::batch_index_of("N?HW", 4), 0u);
  EXPECT_EQ(model::batch_index_of("CHW", 3), std::nullopt);
  EXPECT_EQ(model::batch_index_of("[batch,C]", 2), std::nullopt);  // OpenVINO names the batch N
  for (const char* bad : {"", "N C", "[N,C", "[N,,C]", "[N,C,]", "NN", "N...C...", "N1"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW((void)model::batch_index_of(bad, 2), error);
  }
  EXPECT_THROW((void)model::batch_index_of("NCHW", 3), error);
  EXPECT_THROW((void)model::batch_index_of("NCH...W", 3), error);
}

}  // namespace
}  // namespace reshape1::test

namespace reshape1::test {
namespace {

/// ShapeOf → Gather: the batch size N of parameter `x` declared at `declared`, as a scalar (layer id).
int batch_size_of(ir_builder& b, int x, const std::string& declared) {
  const int shape = b.layer("ShapeOf", "output_type=\"i64\"", {declared}, {"[2]"}, "shape", 3);
  b.edge(x, shape, 0);
  const int index = b.scalar(0), axis = b.scalar(0);
  const int n = b.layer("Gather", "batch_dims=\"0\"", {"[2]", "[]", "[]"}, {"[]"}, "n", 8);
  b.edge(shape, n, 0);
  b.edge(index, n, 1);
  b.edge(axis, n, 2);
  return n;
}

/// ShapeOf → Gather → Equal(·, 1) → Select(c, 0, x) on x declared at `declared`: `if x.shape[0] == 1`
/// written as data. Alone a sample is kept; in a batch it becomes 0.
struct size_select {
  ir_builder b;
  int select = 0;
  explicit size_select(const std::string& declared) {
    const int x = b.parameter(declared);
    const int n = batch_size_of(b, x, declared);
    const int one = b.scalar(1);
    const int alone = b.layer("Equal", "auto_broadcast=\"numpy\"", {"[]", "[]"}, {"[]"}, "alone", 1);
    b.edge(n, alone, 0);
    b.edge(one, alone, 1);
    const int zero = b.constant(element_type::f32, "", {0}, "[]");
    select = b.layer("Select", "auto_broadcast=\"numpy\"", {"[]", "[]", declared}, {declared}, "pick", 1);
    b.edge(alone, select, 0);
    b.edge(zero, select, 1);
    b.edge(x, select, 2);
    b.result(select, declared);
  }
};

// The sample batches (odd primes above 1000) all give N == 1 false, as batch 4 does: only batch 1, each
// sample alone, shows that the value changes. Declared at 1, the declared run is batch 1; declared at 2,
// the analysis makes a run at batch 1 for it.
TEST_F(batch, the_batch_size_read_as_data_mixes_samples) {
  for (const std::string declared : {"[1,3]", "[2,3]"}) {
    size_select m(declared);
    const auto rep = at(m.b, batch_of(4));
    EXPECT_EQ(listed_ids(rep), fmt::format("mixes_samples {}", m.select)) << declared;
    ASSERT_EQ(rep.findings.size(), 1u);
    EXPECT_EQ(rep.findings[0].port, 0u);
    EXPECT_NE(rep.findings[0].what.find("ShapeOf 'shape' → Gather 'n' → Equal 'alone'"), std::string::npos)
        << rep.findings[0].what;
    EXPECT_EQ(rep.summary_line(), "reshapes to batch 4: no: 1 layer mixes samples");
    // At batch 1 each sample is alone: nothing changes.
    EXPECT_EQ(at(m.b, batch_of(1)).summary_line(), "reshapes to batch 1: yes") << declared;
  }
  // Asked at the batch it is declared at, 2, the model is still compared with each sample alone.
  size_select m("[2,3]");
  EXPECT_EQ(at(m.b, batch_of(2)).summary_line(), "reshapes to batch 2: no: 1 layer mixes samples");
}

// x [N,3] times rows[:e], rows [3,1] and e = Select(N > 1000, [1], [3]): the factor is the same alone as at
// 3 ([3,1], which scales each sample by another row at 3) and another at the sample batches above 1000
// ([1,1]). The samples do not show what it does at the batch asked: not shared, and it cannot tell. At 2
// and 4 the Multiply fails.
TEST_F(batch, a_shape_from_the_batch_size_unlike_at_the_samples_cannot_tell) {
  ir_builder b;
  const int x = b.parameter("[1,3]");
  const int n = batch_size_of(b, x, "[1,3]");
  const int thousand = b.scalar(1000);
  const int big = b.layer("Greater", "auto_broadcast=\"numpy\"", {"[]", "[]"}, {"[]"}, "big", 1);
  b.edge(n, big, 0);
  b.edge(thousand, big, 1);
  const int one = b.i64({1}), three = b.i64({3});
  const int end = b.layer("Select", "auto_broadcast=\"numpy\"", {"[]", "[1]", "[1]"}, {"[1]"}, "end", 1);
  b.edge(big, end, 0);
  b.edge(one, end, 1);
  b.edge(three, end, 2);
  const int rows = b.constant(element_type::f32, "3,1", {0x3F800000, 0x40000000, 0x40400000}, "[3,1]");
  const int start = b.i64({0}), step = b.i64({1}), axes = b.i64({0});
  const int cut = b.layer("Slice", "", {"[3,1]", "[1]", "[1]", "[1]", "[1]"}, {"[3,1]"}, "cut", 8);
  b.edge(rows, cut, 0);
  b.edge(start, cut, 1);
  b.edge(end, cut, 2);
  b.edge(step, cut, 3);
  b.edge(axes, cut, 4);
  const int mul = b.layer("Multiply", "auto_broadcast=\"numpy\"", {"[1,3]", "[3,1]"}, {"[3,3]"}, "scale", 1);
  b.edge(x, mul, 0);
  b.edge(cut, mul, 1);
  b.result(mul, "[3,3]");
  const auto three_asked = at(b, batch_of(3));
  EXPECT_EQ(three_asked.summary.verdict(), model::batch_verdict::cannot_tell) << three_asked.summary_line();
  ASSERT_FALSE(three_asked.findings.empty());
  EXPECT_EQ(listed_ids(three_asked), fmt::format("cannot_tell {}", cut)) << three_asked.findings[0].what;
  EXPECT_EQ(at(b, batch_of(4)).summary.verdict(), model::batch_verdict::no);
}

// A value computed from the batch size that is the same at every batch (N > 0 for N >= 1) is shared.
TEST_F(batch, a_value_of_the_batch_size_the_same_at_every_batch_is_shared) {
  ir_builder b;
  const int x = b.parameter("[2,3]");
  const int n = batch_size_of(b, x, "[2,3]");
  const int zero = b.scalar(0);
  const int any = b.layer("Greater", "auto_broadcast=\"numpy\"", {"[]", "[]"}, {"[]"}, "any", 1);
  b.edge(n, any, 0);
  b.edge(zero, any, 1);
  const int as_float = b.layer("Convert", "destination_type=\"f32\"", {"[]"}, {"[]"}, "as_float", 1);
  b.edge(any, as_float, 0);
  const int scale = b.layer("Multiply", "auto_broadcast=\"numpy\"", {"[2,3]", "[]"}, {"[2,3]"}, "scale", 1);
  b.edge(x, scale, 0);
  b.edge(as_float, scale, 1);
  b.result(scale, "[2,3]");
  EXPECT_EQ(at(b, batch_of(4)).summary_line(), "reshapes to batch 4: yes");
  EXPECT_EQ(at(b, batch_of(1)).summary_line(), "reshapes to batch 1: yes");
}

// Pad(x, 0, [0, 2], pad value N as f32): the value written into the padding is the batch size, 1 for a sample
// alone and 4 in a batch of 4. The pad value is data, not a parameter: the layer mixes samples.
TEST_F(batch, a_pad_value_of_the_batch_size_mixes_samples) {
  ir_builder b;
  const int x = b.parameter("[2,3]");
  const int n = batch_size_of(b, x, "[2,3]");
  const int value = b.layer("Convert", "destination_type=\"f32\"", {"[]"}, {"[]"}, "value", 1);
  b.edge(n, value, 0);
  const int begin = b.i64({0, 0}), end = b.i64({0, 2});
  const int pad = b.layer("Pad", "pad_mode=\"constant\"", {"[2,3]", "[2]", "[2]", "[]"}, {"[2,5]"}, "pad", 1);
  b.edge(x, pad, 0);
  b.edge(begin, pad, 1);
  b.edge(end, pad, 2);
  b.edge(value, pad, 3);
  b.result(pad, "[2,5]");
  const auto rep = at(b, batch_of(4));
  EXPECT_EQ(listed_ids(rep), fmt::format("mixes_samples {}", pad));
  ASSERT_EQ(rep.findings.size(), 1u);
  EXPECT_EQ(rep.findings[0].port, 3u);
}

// Gather(x, min(N - 1, 2), axis 1): the index is 2 at every sample batch and at 4, 0 at batch 1, and the
// output's shape is the same at all of them. Each sample gets its column 2 in a batch, its column 0 alone.
// The index that is N - 1 itself differs between the sample batches: that one is the batch, and the rule
// decides it (here, along the columns, it cannot tell).
TEST_F(batch, a_parameter_of_the_batch_size_that_picks_other_values_alone_mixes_samples) {
  for (const bool clamped : {true, false}) {
    ir_builder b;
    const int x = b.parameter("[2,3]");
    const int n = batch_size_of(b, x, "[2,3]");
    const int one = b.scalar(1), two = b.scalar(2), axis = b.scalar(1);
    const int last = b.layer("Subtract", "auto_broadcast=\"numpy\"", {"[]", "[]"}, {"[]"}, "last", 1);
    b.edge(n, last, 0);
    b.edge(one, last, 1);
    int index = last;
    if (clamped) {
      index = b.layer("Minimum", "auto_broadcast=\"numpy\"", {"[]", "[]"}, {"[]"}, "clamp", 1);
      b.edge(last, index, 0);
      b.edge(two, index, 1);
    }
    const int pick = b.layer("Gather", "batch_dims=\"0\"", {"[2,3]", "[]", "[]"}, {"[2]"}, "pick", 8);
    b.edge(x, pick, 0);
    b.edge(index, pick, 1);
    b.edge(axis, pick, 2);
    b.result(pick, "[2]");
    const auto rep = at(b, batch_of(4));
    if (clamped) {
      EXPECT_EQ(listed_ids(rep), fmt::format("mixes_samples {}", pick));
      ASSERT_EQ(rep.findings.size(), 1u);
      EXPECT_EQ(rep.findings[0].port, 1u);
      EXPECT_NE(rep.findings[0].what.find("the same in every batch but not at batch 1"), std::string::npos)
          << rep.findings[0].what;
    } else {
      EXPECT_EQ(rep.summary.verdict(), model::batch_verdict::cannot_tell) << rep.summary_line();
    }
  }
}

}  // namespace
}  // namespace reshape1::test

namespace reshape1::test {
namespace {

// At batch 1 each sample is alone: a pattern that writes 1 for a dynamic batch is right there (and fails or
// swallows at 2), so `check --batch 1` says yes, and fix's check at 1 names nothing.
TEST_F(batch, at_batch_1_nothing_mixes_or_swallows) {
  ir_builder b;
  const int x = b.parameter("[-1,2,3]");
  const int r = b.reshape(x, b.i64({1, -1}), false, "[-1,2,3]", "[2]", "[1,-1]");
  b.result(r, "[1,-1]");
  EXPECT_EQ(at(b, batch_of(1)).summary_line(), "reshapes to batch 1: yes");
  const auto two = at(b, batch_of(2));
  EXPECT_EQ(listed_ids(two), fmt::format("swallows_batch {}", r));
}

}  // namespace
}  // namespace reshape1::test
