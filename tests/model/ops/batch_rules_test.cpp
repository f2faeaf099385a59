// The batching rules, one small model per case: an op that breaks the batch (selects, drops or mixes
// samples along it) is never "yes"; its twin that keeps the batch (the same op on another axis, a
// full-range slice) is "yes"; an op without a rule is "cannot tell" until --assume-kept vouches for it.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <tuple>

#include "../ir_builder.hpp"
#include "model/ops/rules.hpp"
#include "reshape1/model/batch.hpp"

namespace reshape1::test {
namespace {

using model::batch_verdict;

class batch_rules : public ir {
 protected:
  model::batch_report at4(const ir_builder& b, std::vector<std::string> assume_kept = {}) {
    graph_ = load(b.xml(), b.bin());
    return model::check_batch(graph_, {.batch = dimension(4), .assume_kept = std::move(assume_kept)});
  }
  model::graph graph_;
};

/// Gather-8 of `indices` along `axis` on a [1,3,4] input.
ir_builder gather(const std::vector<std::int64_t>& indices, std::int64_t axis, const std::string& out) {
  ir_builder b;
  const int x = b.parameter("[1,3,4]");
  const int i = b.i64(indices);
  const int a = b.scalar(axis);
  const int g = b.layer("Gather", "batch_dims=\"0\"",
                        {"[1,3,4]", fmt::format("[{}]", indices.size()), "[]"}, {out}, "", 8);
  b.edge(x, g, 0);
  b.edge(i, g, 1);
  b.edge(a, g, 2);
  b.result(g, out);
  return b;
}

TEST_F(batch_rules, gather_along_the_batch_drops_samples) {
  // Index 0 on the batch axis: only image 0 goes on (person-vehicle-bike-detection-2004's heads).
  auto rep = at4(gather({0}, 0, "[1,3,4]"));
  EXPECT_EQ(listed_ids(rep), "drops_samples 3");
  EXPECT_EQ(rep.summary.verdict(), batch_verdict::no);
  EXPECT_EQ(rep.findings.at(0).axis, 0u);
  EXPECT_FALSE(rep.findings.at(0).hint.empty());
  // [0,0,0]: three copies of image 0.
  EXPECT_EQ(listed_ids(at4(gather({0, 0, 0}, 0, "[3,3,4]"))), "drops_samples 3");
  // The twin: the same Gather along axis 1 keeps every sample.
  rep = at4(gather({0, 2}, 1, "[1,2,4]"));
  EXPECT_EQ(listed_ids(rep), "");
  EXPECT_EQ(rep.summary.verdict(), batch_verdict::yes);
}

/// StridedSlice-1 of a [2,3] input with begin/end on axis 0 and the given masks.
ir_builder strided(std::int64_t begin, std::int64_t end, const std::string& masks, const std::string& out) {
  return strided_slice_model("[2,3]", {begin, 0}, {end, 0}, masks, out);
}

TEST_F(batch_rules, strided_slice_of_part_of_the_batch_drops_samples) {
  EXPECT_EQ(listed_ids(at4(strided(0, 1, "begin_mask=\"0,1\" end_mask=\"0,1\"", "[1,3]"))), "drops_samples 4");
  // The full range (both bounds masked on axis 0) keeps it.
  EXPECT_EQ(listed_ids(at4(strided(0, 1, "begin_mask=\"1,1\" end_mask=\"1,1\"", "[2,3]"))), "");
}

/// A layer `type` with attributes `data` on a [1,6] input, its outputs `outs`, each to a Result; extra inputs
/// are i64 constants [v], or the scalars 2 (-100) and 1 (-101).
ir_builder unary(const std::string& type, const std::string& data, const std::vector<int>& extra_inputs_i64_axis,
                 const std::vector<std::string>& outs, int opset = 1) {
  ir_builder b;
  const int x = b.parameter("[1,6]");
  std::vector<std::string> ins{"[1,6]"};
  std::vector<int> consts;
  for (const auto v : extra_inputs_i64_axis) {
    const bool scalar = v == -100 || v == -101;  // the scalar 2 or 1
    consts.push_back(scalar ? b.scalar(v == -100 ? 2 : 1) : b.i64({v}));
    ins.push_back(scalar ? "[]" : "[1]");
  }
  const int l = b.layer(type, data, ins, outs, "", opset);
  b.edge(x, l, 0);
  for (std::size_t i = 0; i < consts.size(); ++i) b.edge(consts[i], l, static_cast<int>(i) + 1);
  b.result(l, outs[0]);
  return b;
}

TEST_F(batch_rules, ops_along_the_batch_break_it_and_their_twins_keep_it) {
  // TopK along the batch keeps k of the samples; along axis 1, k of each sample's values.
  EXPECT_EQ(listed_ids(at4(unary("TopK", "axis=\"0\" mode=\"max\" sort=\"value\"", {-101}, {"[1,6]", "[1,6]"}, 11))),
            "drops_samples 2");
  EXPECT_EQ(listed_ids(at4(unary("TopK", "axis=\"1\" mode=\"max\" sort=\"value\"", {-100}, {"[1,2]", "[1,2]"}, 11))), "");
  // Softmax over the batch normalises across samples.
  EXPECT_EQ(listed_ids(at4(unary("SoftMax", "axis=\"0\"", {}, {"[1,6]"}, 8))), "mixes_samples 1");
  EXPECT_EQ(listed_ids(at4(unary("SoftMax", "axis=\"1\"", {}, {"[1,6]"}, 8))), "");
  // ReduceMean and MVN over the batch.
  EXPECT_EQ(listed_ids(at4(unary("ReduceMean", "keep_dims=\"true\"", {0}, {"[1,6]"}))), "mixes_samples 2");
  EXPECT_EQ(listed_ids(at4(unary("ReduceMean", "keep_dims=\"true\"", {1}, {"[1,1]"}))), "");
  const std::string mvn = "eps=\"1e-5\" normalize_variance=\"true\" eps_mode=\"inside_sqrt\"";
  EXPECT_EQ(listed_ids(at4(unary("MVN", mvn, {0}, {"[1,6]"}, 6))), "mixes_samples 2");
  EXPECT_EQ(listed_ids(at4(unary("MVN", mvn, {1}, {"[1,6]"}, 6))), "");
}

// CumSum along the batch adds each sample to those before it; along axis 1, within each sample.
TEST_F(batch_rules, cumsum_along_the_batch_mixes_samples) {
  const auto cumsum = [](std::int64_t axis) {
    ir_builder b;
    const int x = b.parameter("[1,6]");
    const int a = b.scalar(axis);
    const int l = b.layer("CumSum", "exclusive=\"false\" reverse=\"false\"", {"[1,6]", "[]"}, {"[1,6]"}, "", 3);
    b.edge(x, l, 0);
    b.edge(a, l, 1);
    b.result(l, "[1,6]");
    return b;
  };
  const auto mixed = at4(cumsum(0));
  EXPECT_EQ(listed_ids(mixed), "mixes_samples 2");
  ASSERT_EQ(mixed.findings.size(), 1u);
  EXPECT_EQ(mixed.findings[0].code, "batch_on_accumulated_axis");
  EXPECT_EQ(listed_ids(at4(cumsum(-1))), "");
  EXPECT_EQ(at4(cumsum(1)).summary.verdict(), batch_verdict::yes);
}

// ConvertLike takes only the element type of its second input: a constant converted like a batched tensor
// does not hold the batch (the translations of Celu, Shrink, MatMulNBits... make such constants).
TEST_F(batch_rules, convert_like_takes_only_the_type_of_its_second_input) {
  ir_builder b;
  const int x = b.parameter("[1,6]");
  const int k = b.scalar(2);
  const int like = b.layer("ConvertLike", "", {"[]", "[1,6]"}, {"[]"});
  b.edge(k, like, 0);
  b.edge(x, like, 1);
  const int add = b.layer("Add", "auto_broadcast=\"numpy\"", {"[1,6]", "[]"}, {"[1,6]"});
  b.edge(x, add, 0);
  b.edge(like, add, 1);
  b.result(add, "[1,6]");
  EXPECT_EQ(listed_ids(at4(b)), "");
  EXPECT_EQ(at4(b).summary.verdict(), batch_verdict::yes);
}

// Interpolate along the batch: linear interpolation computes rows from neighbouring samples (no); nearest to
// twice the rows repeats each sample in place or not depending on the coordinate mode (cannot tell); nearest
// to a fixed count leaves samples out (no).
TEST_F(batch_rules, interpolate_along_the_batch) {
  // `calc` "sizes" takes [2] rows whatever the batch; "scales" takes 2 rows per row (the f32 bits of 2).
  const auto resize = [](const std::string& mode, const std::string& calc, const std::string& out) {
    ir_builder b;
    const int x = b.parameter("[1,6]");
    const int n = calc == "sizes" ? b.i64({2}) : b.constant(element_type::f32, "1", {0x40000000}, "[1]");  // 2.0f
    const int a = b.i64({0});
    const int r = b.layer("Interpolate",
                          fmt::format("mode=\"{}\" shape_calculation_mode=\"{}\" coordinate_transformation_mode="
                                      "\"asymmetric\" nearest_mode=\"floor\"", mode, calc),
                          {"[1,6]", "[1]", "[1]"}, {out}, "", 11);
    b.edge(x, r, 0);
    b.edge(n, r, 1);
    b.edge(a, r, 2);
    b.result(r, out);
    return b;
  };
  EXPECT_EQ(listed_ids(at4(resize("linear_onnx", "scales", "[2,6]"))), "mixes_samples 3");
  EXPECT_EQ(listed_ids(at4(resize("nearest", "sizes", "[2,6]"))), "mixes_samples 3");
  const auto twice = at4(resize("nearest", "scales", "[2,6]"));
  EXPECT_EQ(listed_ids(twice), "cannot_tell 3") << (twice.findings.empty() ? "" : twice.findings[0].what);
  EXPECT_EQ(twice.summary.verdict(), batch_verdict::cannot_tell);
}

TEST_F(batch_rules, split_along_the_batch_drops_samples) {
  ir_builder b;
  const int x = b.parameter("[2,6]");
  const int axis = b.scalar(0);
  const int s = b.layer("Split", "num_splits=\"2\"", {"[2,6]", "[]"}, {"[1,6]", "[1,6]"});
  b.edge(x, s, 0);
  b.edge(axis, s, 1);
  b.result(s, "[1,6]");
  EXPECT_EQ(listed_ids(at4(b)), fmt::format("drops_samples {}", s));

  ir_builder c;
  const int y = c.parameter("[1,6]");
  const int axis1 = c.scalar(1);
  const int s1 = c.layer("Split", "num_splits=\"2\"", {"[1,6]", "[]"}, {"[1,3]", "[1,3]"});
  c.edge(y, s1, 0);
  c.edge(axis1, s1, 1);
  c.result(s1, "[1,3]");
  EXPECT_EQ(listed_ids(at4(c)), "");
}

TEST_F(batch_rules, matmul_contracting_over_the_batch_mixes_samples) {
  // x^T · x sums over x's rows, the samples.
  ir_builder b;
  const int x = b.parameter("[1,4]");
  const int m = b.layer("MatMul", "transpose_a=\"true\" transpose_b=\"false\"", {"[1,4]", "[1,4]"}, {"[4,4]"});
  b.edge(x, m, 0);
  b.edge(x, m, 1);
  b.result(m, "[4,4]");
  EXPECT_EQ(listed_ids(at4(b)), fmt::format("mixes_samples {}", m));
  // x · w: each row (sample) on its own.
  ir_builder c;
  const int y = c.parameter("[1,4]");
  const int w = c.constant(element_type::f32, "4,3", std::vector<std::int64_t>(12, 0), "[4,3]");
  const int m2 = c.layer("MatMul", "transpose_a=\"false\" transpose_b=\"false\"", {"[1,4]", "[4,3]"}, {"[1,3]"});
  c.edge(y, m2, 0);
  c.edge(w, m2, 1);
  c.result(m2, "[1,3]");
  EXPECT_EQ(listed_ids(at4(c)), "");
}

TEST_F(batch_rules, two_batches_broadcast_at_different_axes_mix_samples) {
  ir_builder b;
  const int x = b.parameter("[1,1]", "x");
  const int y = b.parameter("[1,1]", "y", "[C,N]");
  const int add = b.layer("Add", "", {"[1,1]", "[1,1]"}, {"[1,1]"});
  b.edge(x, add, 0);
  b.edge(y, add, 1);
  b.result(add, "[1,1]");
  EXPECT_EQ(listed_ids(at4(b)), fmt::format("mixes_samples {}", add));
}

TEST_F(batch_rules, a_concat_along_the_batch_with_a_constant_mixes_samples) {
  // [x; c] at batch 1 per sample, [x1..xN; c] at N: not the samples' results one after the other.
  ir_builder b;
  const int x = b.parameter("[1,3]");
  const int c = b.constant(element_type::f32, "1,3", {0, 0, 0}, "[1,3]");
  const int cat = b.layer("Concat", "axis=\"0\"", {"[1,3]", "[1,3]"}, {"[2,3]"});
  b.edge(x, cat, 0);
  b.edge(c, cat, 1);
  b.result(cat, "[2,3]");
  EXPECT_EQ(listed_ids(at4(b)), fmt::format("mixes_samples {}", cat));
}

TEST_F(batch_rules, a_concat_of_folded_tensors_along_the_fold_mixes_samples) {
  // Two flattens of x by `pattern`, concatenated along dimension 1; returns the builder and the ids of
  // the two Reshapes.
  const auto model = [](std::int64_t first) {
    ir_builder b;
    const int x = b.parameter("[1,2,3]");
    const int r1 = b.reshape(x, b.i64({first, -1}), true, "[1,2,3]", "[2]", "[1,6]");
    const int r2 = b.reshape(x, b.i64({first, -1}), true, "[1,2,3]", "[2]", "[1,6]");
    const int cat = b.layer("Concat", "axis=\"1\"", {"[1,6]", "[1,6]"}, {"[1,12]"});
    b.edge(r1, cat, 0);
    b.edge(r2, cat, 1);
    b.result(cat, "[1,12]");
    return std::tuple(b, r1, r2);
  };
  // [1,-1] keeps 1 where the batch was: each output holds all samples in dimension 1, and the Concat along
  // it puts all of one after all of the other. Both Reshapes are to blame.
  const auto [b, r1, r2] = model(1);
  const auto rep = at4(b);
  EXPECT_EQ(listed_ids(rep), fmt::format("swallows_batch {}, swallows_batch {}", r1, r2));
  EXPECT_EQ(rep.summary.verdict(), batch_verdict::no);
  // The twin: [0,-1] keeps the batch in dimension 0, and the Concat along 1 joins each sample's rows.
  EXPECT_EQ(listed_ids(at4(std::get<0>(model(0)))), "");
}

TEST_F(batch_rules, a_constant_batch_reaching_an_output) {
  // [1,-1] keeps 1 where the batch was: the output holds all samples in one row.
  ir_builder b;
  const int x = b.parameter("[1,3,2]");
  const int r = b.reshape(x, b.i64({1, -1}), false, "[1,3,2]", "[2]", "[1,6]");
  b.result(r, "[1,6]");
  const auto rep = at4(b);
  EXPECT_EQ(listed_ids(rep), fmt::format("swallows_batch {}", r));
  EXPECT_EQ(rep.summary.verdict(), batch_verdict::no);
}

TEST_F(batch_rules, a_layer_that_fails_at_the_declared_shapes_is_no) {
  // [5,-1] on [1,3,4,4]: 48 elements are not divisible by 5 at any batch; it said "yes" before.
  ir_builder b;
  const int x = b.parameter("[1,3,4,4]");
  const int r = b.reshape(x, b.i64({5, -1}), false, "[1,3,4,4]", "[2]", "[5,10]");
  b.result(r, "[5,10]");
  const auto rep = at4(b);
  EXPECT_EQ(listed_ids(rep), fmt::format("fails_at_declared {}", r));
  EXPECT_EQ(rep.summary.failing_at_declared, 1u);
  EXPECT_EQ(rep.summary.verdict(), batch_verdict::no);
  EXPECT_EQ(rep.summary_line(), "reshapes to batch 4: no: 1 layer fails at the declared shapes");
}

TEST_F(batch_rules, an_op_without_a_rule_cannot_tell_until_vouched_for) {
  ir_builder b;
  const int x = b.parameter("[1,6]");
  const int c = b.layer("MyCustomOp", "", {"[1,6]"}, {"[1,6]"});
  b.edge(x, c, 0);
  b.result(c, "[1,6]");
  auto rep = at4(b);
  EXPECT_EQ(listed_ids(rep), fmt::format("cannot_tell {}", c));
  EXPECT_EQ(rep.summary.verdict(), batch_verdict::cannot_tell);
  EXPECT_NE(rep.findings.at(0).hint.find("assume_kept=[MyCustomOp]"), std::string::npos) << rep.findings.at(0).hint;
  EXPECT_EQ(rep.summary_line(), "reshapes to batch 4: cannot tell: 1 layer cannot be decided");
  // Without a shape rule the layer's outputs are unknown at every batch, so vouching cannot prove it either.
  rep = at4(b, {"MyCustomOp"});
  EXPECT_NE(rep.summary.verdict(), batch_verdict::yes);
}

// A layer whose rule refuses it: the finding's what and hint are the error's (error::hint(), where the
// message's one grammar, `where: what; hint`, is read once), the hint not repeated in what.
TEST_F(batch_rules, a_refused_layer_gives_its_hint_apart) {
  ir_builder b;
  const int x = b.parameter("[1,4]");
  const int axis = b.scalar(1);
  const int split = b.layer("Split", "num_splits=\"0\"", {"[1,4]", "[]"}, {"[1,4]"}, "", 1);
  b.edge(x, split, 0);
  b.edge(axis, split, 1);
  b.result(split, "[1,4]");
  const auto rep = at4(b);
  ASSERT_FALSE(rep.findings.empty());
  const auto& f = rep.findings.at(0);
  EXPECT_TRUE(f.what.ends_with("num_splits is 0")) << f.what;
  EXPECT_EQ(f.hint, "it must be positive");
  EXPECT_EQ(rep.summary.verdict(), batch_verdict::no);
}

// A row without a batching rule would fall back to nothing: every row names one.
TEST(batch_registry, every_row_has_a_batching_rule) {
  for (const auto& e : model::detail::rule_table()) {
    SCOPED_TRACE(fmt::format("{}-{}", e.type, e.opset));
    EXPECT_NE(e.batch.fn, nullptr);
    EXPECT_FALSE(model::batching_rule(e.type, e.opset).empty());
  }
}

// Every row names its op as OpenVINO's specification does (reshape1's own IfMerge aside), with a version
// the IR's opset includes: one in that opset or before it, or the first version for a row older than all.
TEST(batch_registry, every_row_has_a_spec_name) {
  for (const auto& e : model::detail::rule_table()) {
    SCOPED_TRACE(fmt::format("{}-{}", e.type, e.opset));
    const auto spec = model::spec_name(e.type, e.opset);
    if (e.type == "IfMerge") {
      EXPECT_EQ(spec, "");
      continue;
    }
    ASSERT_FALSE(spec.empty());
    const auto dash = spec.rfind('-');
    const int version = std::stoi(spec.substr(dash + 1));
    EXPECT_EQ(spec.substr(0, dash), e.type == "Const" ? "Constant" : std::string(e.type));
    if (version > e.opset) {
      EXPECT_EQ(model::spec_name(e.type, 1), spec);  // the first version: nothing older
    }
  }
  EXPECT_EQ(model::spec_name("MVN", 2), "MVN-1");
  EXPECT_EQ(model::spec_name("MVN", 6), "MVN-6");
  EXPECT_EQ(model::spec_name("Reshape", 1), "Reshape-1");
  EXPECT_EQ(model::spec_name("NoSuchOp", 1), "");
}

// The analyses ask part_of() what an op is instead of comparing names: each op it names is a registry op
// (a misspelt name would make an op silently "other"), and a few ops are what the analyses take them for.
TEST(batch_registry, every_op_part_names_a_registry_op) {
  using model::detail::op_part;
  std::size_t named = 0;
  for (const auto& e : model::detail::rule_table()) {
    if (model::detail::part_of(e.type) == op_part::other) continue;
    ++named;
    EXPECT_EQ(model::detail::find_entry(e.type, e.opset), &e);
  }
  // Parameter, Const, Result, Reshape, Concat (1 row each); Convert, Squeeze, Unsqueeze; TensorIterator,
  // Loop; IfMerge.
  EXPECT_GE(named, 11u);
  for (const auto& [type, part] :
       {std::pair{"Parameter", op_part::parameter}, std::pair{"Const", op_part::constant},
        std::pair{"Result", op_part::result}, std::pair{"Reshape", op_part::reshape}, std::pair{"Concat", op_part::concat},
        std::pair{"Convert", op_part::passes_values}, std::pair{"Squeeze", op_part::passes_values},
        std::pair{"Unsqueeze", op_part::passes_values}, std::pair{"TensorIterator", op_part::runs_body},
        std::pair{"Loop", op_part::runs_body}, std::pair{"IfMerge", op_part::if_merge}}) {
    SCOPED_TRACE(type);
    EXPECT_EQ(model::detail::part_of(type), part);
    bool in_registry = false;
    for (const auto& e : model::detail::rule_table()) in_registry = in_registry || e.type == type;
    EXPECT_TRUE(in_registry);
  }
  EXPECT_EQ(model::detail::part_of("Gather"), op_part::other);
  EXPECT_EQ(model::detail::part_of("reshape"), op_part::other);  // names are case-sensitive, as OpenVINO's
}

}  // namespace
}  // namespace reshape1::test

namespace reshape1::test {
namespace {

// Inside a Loop body: the shipped loop-trip-count model with its body's Unsqueeze turned into a ReduceSum
// (keep_dims) over axis `axis` of the accumulator [N,4]. Over axis 0 the body sums the samples: the
// finding is the body layer's, with the Loop in `within`; over axis 1 each sample is reduced alone.
class batch_bodies : public ir {
 protected:
  model::batch_report loop_reducing_over(std::int64_t axis) {
    const auto model = fs::path(RESHAPE1_TEST_DATA) / "models" / "loop-trip-count";
    std::ifstream xin(model / "model.xml");
    std::string xml((std::istreambuf_iterator<char>(xin)), std::istreambuf_iterator<char>());
    const std::string from = R"(name="step" type="Unsqueeze" version="opset1">)";
    const auto at = xml.find(from);
    EXPECT_NE(at, std::string::npos);
    xml.replace(at, from.size(), R"(name="step" type="ReduceSum" version="opset1"><data keep_dims="true"/>)");
    std::ifstream bin_in(model / "model.bin", std::ios::binary);
    std::string bin((std::istreambuf_iterator<char>(bin_in)), std::istreambuf_iterator<char>());
    bin.replace(21, 8, pack(element_type::i64, {axis}));  // step_axis, the Const at offset 21
    graph_ = load(xml, bin);
    return model::check_batch(graph_, {.batch = dimension(4)});
  }
  model::graph graph_;
};

TEST_F(batch_bodies, a_loop_body_that_reduces_over_the_batch_mixes_samples) {
  const auto rep = loop_reducing_over(0);
  ASSERT_EQ(rep.findings.size(), 1u) << listed_ids(rep);
  const auto& f = rep.findings[0];
  EXPECT_EQ(f.issue, model::batch_issue::mixes_samples);
  EXPECT_EQ(f.type, "ReduceSum");
  ASSERT_EQ(f.within.size(), 1u);
  EXPECT_EQ(f.within[0], (model::enclosing_layer{3, "accumulate", "Loop"}));
  EXPECT_EQ(rep.summary.verdict(), model::batch_verdict::no);

  const auto twin = loop_reducing_over(1);
  EXPECT_EQ(listed_ids(twin), "");
  EXPECT_EQ(twin.summary.verdict(), model::batch_verdict::yes);
}

// The TensorIterator fixture with its initial hidden state h0 a Const [1,8] instead of an input: at batch
// 4 the body's LSTMCell meets X [4,16] and H [1,8] and fails. The finding names the body layer within the
// TensorIterator's message, and the value behind it with the model's id, not a body-local one.
TEST_F(batch_bodies, an_outer_constant_initial_state_is_named) {
  const auto model = fs::path(RESHAPE1_TEST_DATA) / "models" / "tensor-iterator-lstm";
  std::ifstream xin(model / "model.xml");
  std::string xml((std::istreambuf_iterator<char>(xin)), std::istreambuf_iterator<char>());
  std::ifstream bin_in(model / "model.bin", std::ios::binary);
  std::string bin((std::istreambuf_iterator<char>(bin_in)), std::istreambuf_iterator<char>());
  const std::string from =
      R"(<layer id="1" name="h0" type="Parameter" version="opset1"><data shape="1,8" element_type="f32"/>)";
  const auto at = xml.find(from);
  ASSERT_NE(at, std::string::npos);
  xml.replace(at, from.size(),
              fmt::format(R"(<layer id="1" name="h0" type="Const" version="opset1"><data element_type="f32" )"
                          R"(shape="1,8" offset="{}" size="32"/>)",
                          bin.size()));
  bin += std::string(32, '\0');
  graph_ = load(xml, bin);
  const auto rep = model::check_batch(graph_, {.batch = dimension(4)});
  ASSERT_EQ(listed_ids(rep), "fails 3");
  const auto& f = rep.findings[0];
  EXPECT_NE(f.what.find("in its body, layer 'cell' (id 8)"), std::string::npos) << f.what;
  EXPECT_EQ(f.source_id, 1);
  EXPECT_EQ(f.source, "Const 'h0' (id 1), input 1 of TensorIterator 'lstm' (id 3), which does not follow the batch");
  EXPECT_NE(f.hint.find("LSTMCell 'cell' (id 8)"), std::string::npos) << f.hint;
}

}  // namespace
}  // namespace reshape1::test
