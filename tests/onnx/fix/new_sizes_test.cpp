// ONNX's fix --shape: new sizes rather than a new batch, on the torch.onnx.export fixtures of tests/data/torch
// (exported at one size): a pattern element that copies a changing size becomes 0, a product of them -1, a
// pattern no 0 or -1 mends is computed from its input's shape, and what it cannot prove is refused with
// nothing written.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "../onnx_test_util.hpp"
#include "../../test_util.hpp"
#include "../../fix_parts.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::test {
namespace {

const fs::path torch_exports = fs::path(RESHAPE1_TEST_DATA) / "torch";

model::fix_options at_sizes(std::string shape) {
  model::fix_options o;
  o.shapes.emplace_back("x", parse_shape(shape));
  return o;
}

/// The dims of graph input or output `name` of a written model, as dim_value or dim_param text.
std::vector<std::string> declared_dims(const model::fix_report& r, const std::string& name) {
  ::onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(onnx_output(r).model));
  std::vector<std::string> dims;
  for (const auto* list : {&m.graph().input(), &m.graph().output()})
    for (const auto& v : *list)
      if (v.name() == name)
        for (const auto& d : v.type().tensor_type().shape().dim())
          dims.push_back(d.has_dim_value() ? std::to_string(d.dim_value()) : d.has_dim_param() ? d.dim_param() : "");
  return dims;
}

TEST(onnx_fix, new_sizes_an_element_that_copies_a_changing_dimension_becomes_0) {
  // view(b, L, heads, -1) exported at L = 12: [1,12,4,-1] on [1,12,16] four times; each 12 becomes 0. The
  // length asked as ?@L is declared L in the input and in the output, whose length follows it.
  const auto r = onnx::fix(torch_exports / "attention_baked.at_a.onnx", at_sizes("[1,?@L,16]"));
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 4u);
  for (const auto& c : r.changes) {
    EXPECT_EQ(c.element, 1u) << c.name;
    EXPECT_EQ(c.old_value, 12) << c.name;
    EXPECT_EQ(c.new_value, 0) << c.name;
  }
  EXPECT_EQ(r.changes.back().new_pattern, "[1,0,16]");
  EXPECT_EQ(declared_dims(r, "x"), (std::vector<std::string>{"1", "L", "16"}));
  EXPECT_EQ(declared_dims(r, "y"), (std::vector<std::string>{"1", "L", "16"}));
  // The proof: at the sizes asked, then at the two samples (12 times 2 and 3).
  ASSERT_EQ(r.checked.size(), 3u);
  EXPECT_EQ(r.checked[1], "at x=[1,24,16]: reshapes to the given shapes: yes");
  EXPECT_EQ(r.checked[2], "at x=[1,36,16]: reshapes to the given shapes: yes");
}

TEST(onnx_fix, new_sizes_a_product_of_changing_sizes_becomes_minus_one) {
  // view(1, c*h*w) at 8x8: [1,192] becomes [1,-1]; H and W unnamed are declared x_2 and x_3, and the
  // output's 3·H·W, which is neither, is cleared.
  const auto r = onnx::fix(torch_exports / "flatten_baked.at_a.onnx", at_sizes("[1,3,?,?]"));
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].old_pattern, "[1,192]");
  EXPECT_EQ(r.changes[0].new_pattern, "[1,-1]");
  EXPECT_EQ(declared_dims(r, "x"), (std::vector<std::string>{"1", "3", "x_2", "x_3"}));
  EXPECT_EQ(declared_dims(r, "y"), (std::vector<std::string>{"1", ""}));
  // H and W differ at each sample (a copy of one where the other belongs would show), and H·W at the two.
  EXPECT_EQ(r.checked[1], "at x=[1,3,16,24]: reshapes to the given shapes: yes");
  EXPECT_EQ(r.checked[2], "at x=[1,3,24,32]: reshapes to the given shapes: yes");
}

TEST(onnx_fix, new_sizes_a_divisor_is_computed_and_a_window_split_is_refused) {
  // sum / (h*w): the divisor 64 counts the elements the sum reduced, H·W, and is computed so; a window
  // partition [1,4,4,4,4,8] holds H/4 and W/4.
  const auto mean = onnx::fix(torch_exports / "mean_by_size.at_a.onnx", at_sizes("[1,4,?,?]"));
  ASSERT_TRUE(mean.fixed) << (mean.refusals.empty() ? "" : mean.refusals[0].reason);
  ASSERT_EQ(mean.changes.size(), 1u);
  EXPECT_EQ(mean.changes[0].name, "/Div");
  EXPECT_EQ(mean.changes[0].computed, "[shape('x')[2]*shape('x')[3]]");
  // (16 = 4 x 4 at the declared shape: which 4 follows H, no other pattern shows.)
  const auto windows = onnx::fix(torch_exports / "window_partition.at_a.onnx", at_sizes("[1,?,?,8]"));
  EXPECT_FALSE(windows.fixed);
  EXPECT_TRUE(onnx_output(windows).model.empty());
  EXPECT_TRUE(std::any_of(windows.refusals.begin(), windows.refusals.end(),
                          [](const model::fix_refusal& x) { return x.name == "/Reshape"; }));
}

// ReduceSumSquare of the deviations times 1/(n-1): the lowering squares them in a step of its own, no tensor
// of the file; the correction is computed from the shape of what the node squares (it was refused, saying
// the shape it would read is no tensor of the file). ONNX Runtime runs the written model as the truth at
// another size (checked when this was written, as size_differential checks its families).
TEST(onnx_fix, new_sizes_a_correction_of_a_reduce_sum_square_reads_the_squared_tensor) {
  const auto bytes = fixture_bytes("size_fix_sum_square_correction");
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "rss.onnx", at_sizes("[1,3,?,?]"));
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].name, "var");
  EXPECT_EQ(r.changes[0].computed, "1/([shape('d')[2]*shape('d')[3]]-1)");
}

// A count that is also returned as an output: check names both (a real constant written out is a size
// too), and fix refuses to compute the divisor, which would leave the output at the declared value (a
// cold attack measured that output at 112 where the program at 12x10 returns 120).
TEST(onnx_fix, new_sizes_a_count_also_written_out_is_refused) {
  const auto bytes = fixture_bytes("size_fix_count_written_out");
  const auto g = read_fixture("size_fix_count_written_out");
  const auto checked = model::check_batch(g, {.shapes = {{"x", parse_shape("[1,3,12,10]")}}});
  EXPECT_EQ(checked.summary.verdict(), model::batch_verdict::cannot_tell) << checked.summary_line();
  EXPECT_TRUE(std::any_of(checked.findings.begin(), checked.findings.end(), [](const model::batch_finding& f) {
    return f.code == "baked_size" && f.what.find("the constant 112 equals 8·14") != std::string::npos && f.name != "mean";
  })) << listed(checked);
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "out.onnx", at_sizes("[1,3,?,?]"));
  EXPECT_FALSE(r.fixed);
  EXPECT_TRUE(onnx_output(r).model.empty());
  ASSERT_FALSE(r.refusals.empty());
  EXPECT_TRUE(std::any_of(r.refusals.begin(), r.refusals.end(), [](const model::fix_refusal& x) {
    return x.code == "constant_written_out" && x.reason.find("output 'area'") != std::string::npos;
  })) << r.refusals[0].reason;
}

// A grid folded at a height of 1 counts along W only: fix could compute it along W, but its one row spreads
// over every height, where the program makes a row each (a cold attack measured the model it wrote differ at
// 6x9). Refused, naming the Add that spreads it; nothing written.
TEST(onnx_fix, new_sizes_a_grid_made_at_a_size_of_1_is_refused) {
  const auto bytes = fixture_bytes("size_grid_at_height_1");
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "grid.onnx", at_sizes("[1,3,?,?,2]"));
  EXPECT_FALSE(r.fixed);
  EXPECT_TRUE(onnx_output(r).model.empty());
  EXPECT_TRUE(std::any_of(r.refusals.begin(), r.refusals.end(), [](const model::fix_refusal& x) {
    return x.name == "add" && x.reason.find("spreads over a size of 1") != std::string::npos;
  })) << (r.refusals.empty() ? "no refusal" : r.refusals[0].reason);
}

TEST(onnx_fix, new_sizes_a_pattern_that_no_0_or_minus_one_mends_is_computed_from_its_input_shape) {
  // A channel shuffle: H and W one place further on in the first pattern, one place back in the second.
  // (ONNX Runtime runs the model written at 16x22 as the same program built at 16x22: checked by hand
  // with tests/onnx/ort/same.js when this was written.)
  const auto bytes = fixture_bytes("size_fix_channel_shuffle");
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "shuffle.onnx", at_sizes("[1,6,?,?]"));
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 2u);
  EXPECT_EQ(r.changes[0].name, "split_groups");
  EXPECT_EQ(r.changes[0].computed, "[1,2,3,shape[2],shape[3]]");
  EXPECT_EQ(r.changes[1].name, "merge_groups");
  EXPECT_EQ(r.changes[1].computed, "[1,6,shape[3],shape[4]]");
  EXPECT_EQ(std::get<model::onnx_edit>(r.changes[1].edit).tensor, "merge_groups/pattern/values");
  EXPECT_EQ(declared_dims(r, "x"), (std::vector<std::string>{"1", "6", "x_2", "x_3"}));
  ASSERT_EQ(r.checked.size(), 3u);
  EXPECT_EQ(r.checked[1], "at x=[1,6,20,42]: reshapes to the given shapes: yes");
  EXPECT_EQ(r.checked[2], "at x=[1,6,30,56]: reshapes to the given shapes: yes");
  // A name made up for an unnamed size gives way to one the user gave (a cold attack's: x_3 twice).
  const auto named = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "shuffle.onnx", at_sizes("[1,6,?@x_3,?]"));
  ASSERT_TRUE(named.fixed);
  EXPECT_EQ(declared_dims(named, "x"), (std::vector<std::string>{"1", "6", "x_3", "x_3_2"}));
}

TEST(onnx_fix, new_sizes_a_window_partition_is_read_from_the_windows_and_proven_at_its_step) {
  // The later [-1,7,7,5] copies the window's 7s, so 4 and 6 are H/7 and W/7; the model written runs only at
  // multiples of 7, where the proof at ? is made (ONNX Runtime runs it as the truth: onnx.torch_sizes).
  const auto bytes = fixture_bytes("size_fix_window_partition");
  const auto model = std::as_bytes(std::span(bytes.data(), bytes.size()));
  const auto r = onnx::fix(model, "windows.onnx", at_sizes("[1,?,?,5]"));
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].computed, "[1,shape[1]/7,7,shape[2]/7,7,5]");
  ASSERT_EQ(r.checked.size(), 3u);
  EXPECT_EQ(r.checked[0], "at x=[1,?,?,5]: at multiples of 7 (it fails at x=[1,29,43,5]): reshapes to the given shapes: "
                          "cannot tell: the sizes are not proven for each multiple");
  // Asked as values, one value is one size: the same reading at exactly those sizes.
  const auto at = onnx::fix(model, "windows.onnx", at_sizes("[1,35,56,5]"));
  ASSERT_TRUE(at.fixed) << (at.refusals.empty() ? "" : at.refusals[0].reason);
  EXPECT_EQ(at.changes[0].computed, "[1,shape[1]/7,7,shape[2]/7,7,5]");
}

TEST(onnx_fix, new_sizes_a_counted_constant_is_computed_as_a_range) {
  // position_ids[:, :L] baked at L = 6 as the initializer [[0..5]]: computed as a Range of x's length (the
  // table's rows meet x in the Add), shaped [1,-1]; the initializer, unread, is dropped (ONNX Runtime runs it
  // at both lengths: onnx.torch_sizes).
  const auto bytes = fixture_bytes("size_fix_position_ids");
  const auto model = std::as_bytes(std::span(bytes.data(), bytes.size()));
  const auto r = onnx::fix(model, "positions.onnx", at_sizes("[1,2..16,4]"));
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].name, "position_ids");
  EXPECT_EQ(r.changes[0].type, "Const");
  EXPECT_EQ(r.changes[0].old_pattern, "[0,1,2,3,4,5]");
  EXPECT_EQ(r.changes[0].computed, "range(shape('x')[1]) as [1,-1]");
  ::onnx::ModelProto fixed;
  ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model));
  std::multiset<std::string> ops;
  for (const auto& n : fixed.graph().node()) ops.insert(n.op_type());
  EXPECT_EQ(ops.count("Range"), 1u);
  for (const auto& t : fixed.graph().initializer()) EXPECT_NE(t.name(), "position_ids");
  const auto gather = std::find_if(fixed.graph().node().begin(), fixed.graph().node().end(),
                                   [](const auto& n) { return n.name() == "position_embedding"; });
  ASSERT_NE(gather, fixed.graph().node().end());
  EXPECT_EQ(gather->input(1), "position_ids/values/shaped");
  // Past the table's 16 rows the Gather fails, as the program's does: nothing is written.
  const auto past = onnx::fix(model, "positions.onnx", at_sizes("[1,2..,4]"));
  EXPECT_FALSE(past.fixed);
  // Asked as `?`, x may be 1 long, which the Add broadcasts against any count: nothing reads the count.
  const auto any = onnx::fix(model, "positions.onnx", at_sizes("[1,?,4]"));
  EXPECT_FALSE(any.fixed);
  ASSERT_FALSE(any.refusals.empty());
  EXPECT_EQ(any.refusals[0].name, "position_ids");
  // ... and the refusal says so, naming the tensor met and what to ask (it gave check's finding alone).
  EXPECT_EQ(any.refusals[0].code, "met_may_be_one");
  EXPECT_NE(any.refusals[0].reason.find("'x'"), std::string::npos) << any.refusals[0].reason;
  EXPECT_NE(any.refusals[0].reason.find("`2..` in place of `?`"), std::string::npos) << any.refusals[0].reason;
  // Counted down from L-1 (a cold attack's: its start follows the length too, and a Range of the new count from
  // 5 wrote a model that differed at length 9): refused with why.
  ::onnx::ModelProto reversed;
  ASSERT_TRUE(reversed.ParseFromString(std::string(bytes.begin(), bytes.end())));
  auto* ids = reversed.mutable_graph()->mutable_initializer(0);
  ASSERT_EQ(ids->name(), "position_ids");
  for (int k = 0; k < 6; ++k) ids->set_int64_data(k, 5 - k);
  const auto text = reversed.SerializeAsString();
  const auto down = onnx::fix(std::as_bytes(std::span(text.data(), text.size())), "reversed.onnx", at_sizes("[1,2..16,4]"));
  EXPECT_FALSE(down.fixed);
  ASSERT_FALSE(down.refusals.empty());
  EXPECT_EQ(down.refusals[0].code, "range_not_read");
}

TEST(onnx_fix, new_sizes_a_counted_constant_above_the_values_propagation_carries_is_read) {
  // The same position_ids at a length of 6,000 (more values than propagation carries, 4,096; raw_data of 48,000
  // bytes, which the parse holds): read, named by check and computed as a Range by fix, as at 6.
  ::onnx::ModelProto m;
  const auto small = fixture_bytes("size_fix_position_ids");
  ASSERT_TRUE(m.ParseFromString(small));
  constexpr std::int64_t length = 6000, rows = 8192;
  auto* g = m.mutable_graph();
  auto* ids = g->mutable_initializer(0);
  ASSERT_EQ(ids->name(), "position_ids");
  ids->set_dims(1, length);
  ids->clear_int64_data();
  std::vector<std::int64_t> counted(length);
  for (std::int64_t k = 0; k < length; ++k) counted[static_cast<std::size_t>(k)] = k;
  ids->set_raw_data(std::string(reinterpret_cast<const char*>(counted.data()), counted.size() * sizeof(std::int64_t)));
  auto* table = g->mutable_initializer(1);
  ASSERT_EQ(table->name(), "table");
  table->set_dims(0, rows);
  table->clear_float_data();
  table->set_raw_data(std::string(static_cast<std::size_t>(rows * 4 * 4), '\0'));
  for (auto* v : {g->mutable_input(0), g->mutable_output(0)})
    v->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_value(length);
  const auto bytes = m.SerializeAsString();
  const auto model = std::as_bytes(std::span(bytes.data(), bytes.size()));
  const auto checked = model::check_batch(read_bytes(bytes, "positions.onnx"), {.shapes = {{"x", parse_shape("[1,7000,4]")}}});
  // (The Add fails there: no, with the table named first.)
  EXPECT_EQ(checked.summary.verdict(), model::batch_verdict::no) << checked.summary_line();
  ASSERT_FALSE(checked.findings.empty());
  EXPECT_EQ(checked.findings[0].code, "counted_range");
  EXPECT_EQ(checked.findings[0].name, "position_ids");
  const auto r = onnx::fix(model, "positions.onnx", at_sizes("[1,2..8192,4]"));
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].name, "position_ids");
  EXPECT_EQ(r.changes[0].computed, "range(shape('x')[1]) as [1,-1]");
}

TEST(onnx_fix, new_sizes_a_pad_to_a_window_is_computed_as_what_the_size_lacks) {
  // Swin's pad of W (18) to a multiple of its window (4, which the windows' `[-1,7,10,4]` keeps): the pads
  // computed as (4-W%4)%4, ONNX's one pads input from Shape, Gather, Mod, Sub and Mod; the window split, its
  // reverses and the crop back to W follow (ONNX Runtime runs it at both sizes: onnx.torch_sizes).
  const auto bytes = fixture_bytes("size_fix_pad_to_window");
  const auto model = std::as_bytes(std::span(bytes.data(), bytes.size()));
  const auto r = onnx::fix(model, "pad.onnx", at_sizes("[1,7,2..,2..]"));
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  const auto pad = std::find_if(r.changes.begin(), r.changes.end(), [](const auto& c) { return c.type == "Pad"; });
  ASSERT_NE(pad, r.changes.end());
  EXPECT_EQ(pad->computed, "[0,0,0,0,0,0,0,(4-shape[3]%4)%4]");
  EXPECT_NE(pad->why.find("a multiple of 4"), std::string::npos) << pad->why;
  ::onnx::ModelProto fixed;
  ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model));
  std::multiset<std::string> ops;
  for (const auto& n : fixed.graph().node()) ops.insert(n.op_type());
  EXPECT_EQ(ops.count("Mod"), 2u);
  EXPECT_EQ(ops.count("Sub"), 1u);
  // Both ends padded (1 and 1, the same extent at the declared shapes): no reading of a pad to a multiple.
  ::onnx::ModelProto both;
  ASSERT_TRUE(both.ParseFromString(std::string(bytes.begin(), bytes.end())));
  auto* pads = both.mutable_graph()->mutable_initializer(0);
  ASSERT_EQ(pads->name(), "c1");
  pads->set_int64_data(3, 1);
  pads->set_int64_data(7, 1);
  const auto text = both.SerializeAsString();
  const auto b = onnx::fix(std::as_bytes(std::span(text.data(), text.size())), "both.onnx", at_sizes("[1,7,2..,2..]"));
  EXPECT_FALSE(b.fixed);
  const auto refused = std::find_if(b.refusals.begin(), b.refusals.end(), [](const auto& x) { return x.type == "Pad"; });
  ASSERT_NE(refused, b.refusals.end());
  EXPECT_EQ(refused->code, "pad_not_read");
  // No Reshape keeps a window (the pad alone): which multiple it rounds to, nothing shows.
  ::onnx::ModelProto alone;
  ASSERT_TRUE(alone.ParseFromString(std::string(bytes.begin(), bytes.end())));
  auto* g = alone.mutable_graph();
  while (g->node_size() > 1) g->mutable_node()->RemoveLast();
  g->mutable_node(0)->set_output(0, "y");
  const auto lone = alone.SerializeAsString();
  const auto a = onnx::fix(std::as_bytes(std::span(lone.data(), lone.size())), "alone.onnx", at_sizes("[1,7,?,?]"));
  EXPECT_FALSE(a.fixed);
  ASSERT_FALSE(a.refusals.empty());
  EXPECT_EQ(a.refusals[0].code, "pad_not_read");
  EXPECT_NE(a.refusals[0].reason.find("kept: none"), std::string::npos) << a.refusals[0].reason;
}

// Over H and W, H padded by 0 at the declared 12 (a multiple of the window already): the crop back to H and W
// after the windows shows that H is padded too, so both are computed. Where the crop cuts W only, H is not
// padded, and its 0 stays.
TEST(onnx_fix, new_sizes_a_pad_of_0_is_read_by_the_crop_back) {
  const auto bytes = fixture_bytes("size_fix_pad_to_window_2d");
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "pad2d.onnx", at_sizes("[1,11,2..,2..]"));
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  const auto pad = std::find_if(r.changes.begin(), r.changes.end(), [](const auto& c) { return c.type == "Pad"; });
  ASSERT_NE(pad, r.changes.end());
  EXPECT_EQ(pad->old_pattern, "[0,0,0,0,0,0,0,2]");
  EXPECT_EQ(pad->computed, "[0,0,0,0,0,0,(4-shape[2]%4)%4,(4-shape[3]%4)%4]");
  // The crop along W only: its starts, ends and axes hold one value each.
  ::onnx::ModelProto w_only;
  ASSERT_TRUE(w_only.ParseFromString(std::string(bytes.begin(), bytes.end())));
  auto* g = w_only.mutable_graph();
  const auto crop = std::find_if(g->node().begin(), g->node().end(), [](const auto& n) { return n.op_type() == "Slice"; });
  ASSERT_NE(crop, g->node().end());
  for (int k = 1; k <= 3; ++k)
    for (auto& t : *g->mutable_initializer())
      if (t.name() == crop->input(k)) {
        const auto last = t.int64_data(1);
        t.clear_int64_data();
        t.add_int64_data(last);
        t.set_dims(0, 1);
      }
  const auto text = w_only.SerializeAsString();
  const auto w = onnx::fix(std::as_bytes(std::span(text.data(), text.size())), "w_only.onnx", at_sizes("[1,11,2..,2..]"));
  const auto kept = std::find_if(w.changes.begin(), w.changes.end(), [](const auto& c) { return c.type == "Pad"; });
  ASSERT_NE(kept, w.changes.end()) << (w.refusals.empty() ? "" : w.refusals[0].reason);
  EXPECT_EQ(kept->computed, "[0,0,0,0,0,0,0,(4-shape[3]%4)%4]");
}

TEST(onnx_fix, new_sizes_a_pooling_window_of_the_whole_map_becomes_global_pooling) {
  // An AveragePool of kernel [6,8] on x [1,3,6,8] becomes GlobalAveragePool, its attributes gone (ONNX
  // Runtime runs it at both sizes: onnx.torch_sizes). A MaxPool likewise GlobalMaxPool, its indices output
  // dropped where nothing reads it; where the graph gives them out, refused: no global pooling gives them.
  const auto bytes = fixture_bytes("size_fix_global_pool");
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "pool.onnx", at_sizes("[1,3,?,?]"));
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].type, "AveragePool");
  EXPECT_EQ(r.changes[0].computed, "GlobalAveragePool");
  ::onnx::ModelProto fixed;
  ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model));
  EXPECT_EQ(fixed.graph().node(0).op_type(), "GlobalAveragePool");
  EXPECT_EQ(fixed.graph().node(0).attribute_size(), 0);
  std::string text(bytes.begin(), bytes.end());
  ::onnx::ModelProto max;
  ASSERT_TRUE(max.ParseFromString(text));
  max.mutable_graph()->mutable_node(0)->set_op_type("MaxPool");
  max.mutable_graph()->mutable_node(0)->add_output("unread_indices");
  const auto maxed = max.SerializeAsString();
  const auto m = onnx::fix(std::as_bytes(std::span(maxed.data(), maxed.size())), "max.onnx", at_sizes("[1,3,?,?]"));
  ASSERT_TRUE(m.fixed) << (m.refusals.empty() ? "" : m.refusals[0].reason);
  EXPECT_EQ(m.changes[0].type, "MaxPool");
  EXPECT_EQ(m.changes[0].computed, "GlobalMaxPool");
  ::onnx::ModelProto fixed_max;
  ASSERT_TRUE(fixed_max.ParseFromString(onnx_output(m).model));
  EXPECT_EQ(fixed_max.graph().node(0).op_type(), "GlobalMaxPool");
  EXPECT_EQ(fixed_max.graph().node(0).attribute_size(), 0);
  EXPECT_EQ(fixed_max.graph().node(0).output_size(), 1);
  // On integers (int8 from opset 12, uint8), which GlobalMaxPool does not take: ReduceMax over the spatial
  // axes, kept; its axes an attribute before opset 18, an initializer from then on (onnx.torch_sizes runs both).
  for (const auto& [fixture, opset18] : {std::pair{"size_fix_global_max_pool_int8", false},
                                         std::pair{"size_fix_global_max_pool_uint8_opset18", true}}) {
    SCOPED_TRACE(fixture);
    const auto ints = fixture_bytes(fixture);
    const auto q = onnx::fix(std::as_bytes(std::span(ints.data(), ints.size())), "q.onnx", at_sizes("[1,3,?,?]"));
    ASSERT_TRUE(q.fixed) << (q.refusals.empty() ? "" : q.refusals[0].reason);
    EXPECT_EQ(q.changes[0].computed, "ReduceMax");
    ::onnx::ModelProto written;
    ASSERT_TRUE(written.ParseFromString(onnx_output(q).model));
    const auto& pool = written.graph().node(1);
    EXPECT_EQ(pool.op_type(), "ReduceMax");
    EXPECT_EQ(pool.input_size(), opset18 ? 2 : 1);
    bool axes_attribute = false;
    for (const auto& a : pool.attribute()) axes_attribute = axes_attribute || a.name() == "axes";
    EXPECT_EQ(axes_attribute, !opset18);
  }
  // The indices given out as a second output of the graph: refused, with the reason.
  *max.mutable_graph()->add_output() = max.graph().output(0);
  max.mutable_graph()->mutable_output(1)->set_name("unread_indices");
  max.mutable_graph()->mutable_output(1)->mutable_type()->mutable_tensor_type()->set_elem_type(7);
  max.mutable_graph()->mutable_output(1)->mutable_type()->mutable_tensor_type()->clear_shape();
  const auto given = max.SerializeAsString();
  const auto out = onnx::fix(std::as_bytes(std::span(given.data(), given.size())), "max.onnx", at_sizes("[1,3,?,?]"));
  EXPECT_FALSE(out.fixed);
  ASSERT_FALSE(out.refusals.empty());
  EXPECT_EQ(out.refusals[0].code, "window_not_whole");
}

// The last position of a sequence, held otherwise than in an initializer the Gather reads: through an
// Identity (the initializer behind it is rewritten; the Identity stays), and as a Constant node's value_int
// (the node then holds -1 as its value tensor). ONNX Runtime runs both at two lengths: onnx.torch_sizes.
TEST(onnx_fix, new_sizes_a_position_through_an_identity_or_in_a_value_int_is_rewritten) {
  {
    const auto bytes = fixture_bytes("size_fix_last_position_identity");
    const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "identity.onnx", at_sizes("[1,?,4]"));
    ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
    ASSERT_EQ(r.changes.size(), 1u);
    EXPECT_EQ(onnx_edit(r.changes[0]).tensor, "last");
    EXPECT_EQ(r.changes[0].new_value, -1);
    ::onnx::ModelProto fixed;
    ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model));
    EXPECT_EQ(fixed.graph().initializer(0).int64_data(0), -1);
    EXPECT_EQ(fixed.graph().node(0).op_type(), "Identity");
    EXPECT_EQ(fixed.graph().node(1).input(1), "last_passed");
  }
  {
    const auto bytes = fixture_bytes("size_fix_last_position_value_int");
    const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "value_int.onnx", at_sizes("[1,?,4]"));
    ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
    ASSERT_EQ(r.changes.size(), 1u);
    EXPECT_EQ(onnx_edit(r.changes[0]).tensor, "last");
    ::onnx::ModelProto fixed;
    ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model));
    const auto& constant = fixed.graph().node(0);
    ASSERT_EQ(constant.attribute_size(), 1);
    EXPECT_EQ(constant.attribute(0).name(), "value");
    EXPECT_EQ(constant.attribute(0).t().dims_size(), 0);  // a scalar, as value_int is
    ASSERT_EQ(constant.attribute(0).t().int64_data_size(), 1);
    EXPECT_EQ(constant.attribute(0).t().int64_data(0), -1);
  }
}

// A refusal of a layer other than a Reshape names the input fix computed as that layer names it.
TEST(onnx_fix, new_sizes_a_refused_resize_is_said_to_compute_its_sizes) {
  // y = Resize(x, sizes [1,8,16,16]) of x [1,2,8,8]: 8 channels out, and 8 is also the height, so the sizes
  // computed as [shape[0],8,shape[2]*2,shape[3]*2] still leave the 8 undecided.
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  const auto value = [](::onnx::ValueInfoProto* v, const char* name, std::vector<std::int64_t> dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(1);
    for (const auto d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
  };
  value(g->add_input(), "x", {1, 2, 8, 8});
  value(g->add_output(), "y", {1, 8, 16, 16});
  auto* sizes = g->add_initializer();
  sizes->set_name("sizes");
  sizes->set_data_type(7);
  sizes->add_dims(4);
  for (const std::int64_t v : {1, 8, 16, 16}) sizes->add_int64_data(v);
  auto* n = g->add_node();
  n->set_op_type("Resize");
  n->set_name("up");
  for (const char* in : {"x", "", "", "sizes"}) n->add_input(in);
  n->add_output("y");
  auto* mode = n->add_attribute();
  mode->set_name("mode");
  mode->set_type(::onnx::AttributeProto::STRING);
  mode->set_s("nearest");
  const auto bytes = m.SerializeAsString();
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "up.onnx", at_sizes("[1,2,?,?]"));
  EXPECT_FALSE(r.fixed);
  ASSERT_EQ(r.refusals.size(), 1u);
  EXPECT_EQ(r.refusals[0].type, "Resize");
  EXPECT_EQ(r.refusals[0].code, "rewrite_still_leaves");
  EXPECT_EQ(r.refusals[0].reason.rfind("computing the sizes as [shape[0],8,shape[2]*2,shape[3]*2] still leaves", 0), 0u)
      << r.refusals[0].reason;
}

TEST(onnx_fix, new_sizes_a_split_by_2_that_blocks_would_export_alike_is_refused) {
  // [1,2,4,2,7,2] of x [1,2,8,14] is a space-to-depth by 2, or H cut in 4 blocks of H/4 beside W's windows
  // of 2: the same constants (a factor both splits hold is no evidence). Nothing else in the model tells.
  const auto bytes = fixture_bytes("size_fix_space_to_depth");
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "blocks.onnx", at_sizes("[1,2,?,?]"));
  EXPECT_FALSE(r.fixed);
  ASSERT_FALSE(r.refusals.empty());
  EXPECT_EQ(r.refusals[0].code, "split_not_read");
}

TEST(onnx_fix, new_sizes_a_reshape_that_gives_back_an_earlier_shape_is_computed_from_it) {
  // The window reverse [1,4,6,7,7,5] is the windows' grid again: computed from the shape of the tensor it
  // gives back. [1,28,42,5], the map, is read from its own input as H/7·7 and W/7·7 (its grid's 4 and 6 are
  // no other size's). ONNX Runtime runs the model written as the truth at B and at A: onnx.torch_sizes.
  const auto bytes = fixture_bytes("size_fix_window_attention");
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "attention.onnx", at_sizes("[1,?,?,5]"));
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 3u);
  EXPECT_EQ(r.changes[0].computed, "[1,shape[1]/7,7,shape[2]/7,7,5]");
  EXPECT_EQ(r.changes[1].name, "unwindows");
  EXPECT_EQ(r.changes[1].computed, "[1,shape('grid')[1],shape('grid')[2],7,7,5]");
  EXPECT_EQ(r.changes[2].computed, "[1,shape[1]*7,shape[3]*7,5]");
  ::onnx::ModelProto fixed;
  ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model));
  std::vector<std::string> shape_inputs;
  for (const auto& n : fixed.graph().node())
    if (n.op_type() == "Shape") shape_inputs.push_back(n.input(0));
  EXPECT_EQ(shape_inputs, (std::vector<std::string>{"x", "t1", "t3"}));
}

TEST(onnx_fix, new_sizes_a_computed_pattern_leaves_nothing_unread_behind) {
  // The old patterns p and q are read by nothing once computed: dropped (ONNX Runtime warns on every load of
  // a model with an initializer no node reads). A large initializer after them (left out of the parse, put
  // back by its index) keeps its bytes; one the file already left unread is the author's and stays.
  ::onnx::ModelProto original;
  ASSERT_TRUE(original.ParseFromString(fixture_bytes("size_fix_channel_shuffle")));
  auto* table = original.mutable_graph()->add_initializer();
  table->set_name("table");
  table->set_data_type(::onnx::TensorProto::FLOAT);
  table->add_dims(40000);
  std::string raw(160000, '\0');
  for (std::size_t k = 0; k < raw.size(); ++k) raw[k] = static_cast<char>(k * 7 % 251);
  table->set_raw_data(raw);
  *original.mutable_graph()->add_initializer() = *table;
  original.mutable_graph()->mutable_initializer()->rbegin()->set_name("unread");
  original.mutable_graph()->mutable_initializer()->rbegin()->clear_raw_data();
  original.mutable_graph()->mutable_initializer()->rbegin()->set_dims(0, 1);
  original.mutable_graph()->mutable_initializer()->rbegin()->add_float_data(1.0F);
  auto* out = original.mutable_graph()->add_node();
  out->set_op_type("Identity");
  out->add_input("table");
  out->add_output("table_out");
  original.mutable_graph()->add_output()->set_name("table_out");
  const auto bytes = original.SerializeAsString();
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "shuffle.onnx", at_sizes("[1,6,?,?]"));
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ::onnx::ModelProto fixed;
  ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model));
  std::vector<std::string> names;
  for (const auto& t : fixed.graph().initializer()) names.push_back(t.name());
  EXPECT_EQ(std::count(names.begin(), names.end(), "p") + std::count(names.begin(), names.end(), "q"), 0);
  EXPECT_EQ(std::count(names.begin(), names.end(), "unread"), 1);
  const auto kept = std::find_if(fixed.graph().initializer().begin(), fixed.graph().initializer().end(),
                                 [](const ::onnx::TensorProto& t) { return t.name() == "table"; });
  ASSERT_NE(kept, fixed.graph().initializer().end());
  EXPECT_EQ(kept->raw_data(), raw);
  // Every name a node reads is the graph's input, an initializer or an earlier node's output.
  std::set<std::string> defined(names.begin(), names.end());
  for (const auto& i : fixed.graph().input()) defined.insert(i.name());
  for (const auto& n : fixed.graph().node()) {
    for (const auto& i : n.input()) EXPECT_TRUE(defined.contains(i)) << n.name() << " reads " << i;
    for (const auto& o : n.output()) defined.insert(o);
  }
}

TEST(onnx_fix, new_sizes_a_node_the_file_left_unread_keeps_what_it_reads) {
  // k's nodes (Cast, Unsqueeze) are unread once k is computed, but an unread Squeeze (the author's, kept) reads
  // the Unsqueeze: both stay (they were dropped, and the model written failed to read back).
  const auto bytes = fixture_bytes("size_fix_k_read_by_an_unread_node");
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "topk.onnx", at_sizes("[1,4,?,?]"));
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ::onnx::ModelProto fixed;
  ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model));
  std::set<std::string> defined{"x"};
  for (const auto& t : fixed.graph().initializer()) defined.insert(t.name());
  std::vector<std::string> kept;
  for (const auto& n : fixed.graph().node()) {
    for (const auto& i : n.input()) EXPECT_TRUE(defined.contains(i)) << n.name() << " reads " << i;
    for (const auto& o : n.output()) defined.insert(o);
    if (n.name() == "t4" || n.name() == "t6" || n.name() == "t8") kept.push_back(n.name());
  }
  EXPECT_EQ(kept, (std::vector<std::string>{"t4", "t6", "t8"}));
  const auto topk = std::find_if(fixed.graph().node().begin(), fixed.graph().node().end(),
                                 [](const ::onnx::NodeProto& n) { return n.op_type() == "TopK"; });
  ASSERT_NE(topk, fixed.graph().node().end());
  EXPECT_NE(topk->input(1), "t6");
}

TEST(onnx_fix, new_sizes_a_node_taken_out_takes_its_unread_outputs_with_it) {
  // The Split that made the pattern's last element goes with it, its unread half too: no tensor is lost (the
  // proof refused: "the fixed model read back has no tensor 'c3b'").
  const auto bytes = fixture_bytes("size_fix_split_half_unread");
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "split.onnx", at_sizes("[1,2,?,?]"));
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ::onnx::ModelProto fixed;
  ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model));
  for (const auto& n : fixed.graph().node()) EXPECT_NE(n.op_type(), "Split") << n.name();
}

TEST(onnx_fix, new_sizes_a_pattern_with_its_batch_computed_gets_minus_one_in_its_constant) {
  // [N, 2, 48], N read from the shape: the 48 becomes -1 in its initializer, N stays computed.
  const auto bytes = fixture_bytes("size_fix_view_batch_computed");
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "view.onnx", at_sizes("[1,2,?,?]"));
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ::onnx::ModelProto fixed;
  ASSERT_TRUE(fixed.ParseFromString(onnx_output(r).model));
  const auto c48 = std::find_if(fixed.graph().initializer().begin(), fixed.graph().initializer().end(),
                                [](const ::onnx::TensorProto& t) { return t.name() == "c48"; });
  ASSERT_NE(c48, fixed.graph().initializer().end());
  ASSERT_EQ(c48->int64_data_size(), 1);
  EXPECT_EQ(c48->int64_data(0), -1);
  EXPECT_TRUE(std::any_of(fixed.graph().node().begin(), fixed.graph().node().end(),
                          [](const ::onnx::NodeProto& n) { return n.op_type() == "Shape"; }));
}

TEST(onnx_fix, new_sizes_a_model_that_takes_them_already_is_left_as_it_is) {
  // Exported with -1 and 0: nothing to rewrite, but the sizes are declared free.
  const auto r = onnx::fix(torch_exports / "flatten_inferred.at_a.onnx", at_sizes("[1,3,?@H,?@W]"));
  ASSERT_TRUE(r.fixed);
  EXPECT_TRUE(r.changes.empty());
  EXPECT_EQ(declared_dims(r, "x"), (std::vector<std::string>{"1", "3", "H", "W"}));
}

TEST(onnx_fix, new_sizes_a_value_that_equals_two_sizes_is_not_copied) {
  // Each ran at every size once copied, and computed what the program does not (a cold attack's, checked
  // in ONNX Runtime): the value is H and W, H and C, L and D, S and T at the declared shapes.
  const std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> cases = {
      {"size_fix_h_equals_w", {{"x", "[1,3,?,?]"}}},
      {"size_fix_c_equals_h", {{"x", "[1,8,?,5]"}}},
      {"size_fix_l_equals_d", {{"x", "[1,?,16]"}}},
      {"size_fix_two_inputs", {{"a", "[1,?,4]"}, {"b", "[1,?,4]"}}},
      {"size_fix_two_inputs", {{"a", "[1,?@S,4]"}, {"b", "[1,?@T,4]"}}},
      // A 1 that changes and a split into factors, each with two readings (a cold attack's wrong fixes).
      {"size_fix_unsqueeze_batch", {{"x", "[?,6,?,?]"}}},
      {"size_fix_unsqueeze_one", {{"x", "[1,6,?,14]"}}},
      {"size_fix_chunks", {{"x", "[1,112,6,4]"}}},
      // Another input's length baked in a pattern, and a size written out as an output (a cold attack's).
      {"size_other_input_length", {{"y", "[1,?]"}}},
      {"size_constant_output", {{"x", "[1,6,?,?]"}}},
  };
  for (const auto& [name, shapes] : cases) {
    SCOPED_TRACE(name);
    model::fix_options o;
    for (const auto& [input, shape] : shapes) o.shapes.emplace_back(input, parse_shape(shape));
    const auto bytes = fixture_bytes(name);
    const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), name + ".onnx", o);
    EXPECT_FALSE(r.fixed);
    EXPECT_TRUE(r.changes.empty());
    EXPECT_TRUE(onnx_output(r).model.empty());
  }
  // Two copies of sizes that differ are one rewrite of the one initializer, both in the file.
  const auto bytes = fixture_bytes("size_fix_identity");
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "identity.onnx", at_sizes("[1,3,?,?]"));
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].new_pattern, "[1,3,0,0,1]");
}

TEST(onnx_fix, new_sizes_of_another_rank_or_a_sample_outside_them_are_refused) {
  const auto flatten = torch_exports / "flatten_baked.at_a.onnx";
  EXPECT_THROW((void)onnx::fix(flatten, at_sizes("[1,3,?,?,5]")), error);
  auto o = at_sizes("[1,3,?,11]");
  o.check_shapes.push_back({{"x", parse_shape("[1,3,8,12]")}});
  EXPECT_THROW((void)onnx::fix(flatten, o), error);
  auto unknown = at_sizes("[1,3,?,?]");
  unknown.check_shapes.push_back({{"y", parse_shape("[1,3,8,12]")}});
  EXPECT_THROW((void)onnx::fix(flatten, unknown), error);
  // Inside an interval the samples are its members, H never W's value at one.
  const auto narrow = onnx::fix(flatten, at_sizes("[1,3,16..17,?]"));
  ASSERT_TRUE(narrow.fixed);
  ASSERT_EQ(narrow.checked.size(), 3u);
  EXPECT_EQ(narrow.checked[1], "at x=[1,3,16,24]: reshapes to the given shapes: yes");
  EXPECT_EQ(narrow.checked[2], "at x=[1,3,17,32]: reshapes to the given shapes: yes");
  // Concrete sizes are declared as their values, and are their own sample.
  const auto r = onnx::fix(flatten, at_sizes("[1,3,16,24]"));
  ASSERT_TRUE(r.fixed);
  EXPECT_EQ(declared_dims(r, "x"), (std::vector<std::string>{"1", "3", "16", "24"}));
  EXPECT_EQ(declared_dims(r, "y"), (std::vector<std::string>{"1", "1152"}));
  EXPECT_EQ(r.checked.size(), 1u);
}

TEST(onnx_fix, new_sizes_a_pattern_vouched_for_stays_as_it_is) {
  // --assume-constant p says the shuffle's [1,2,3,10,14] is meant to stay: fix keeps it (it rewrote it to a
  // computed pattern, and with a -1 in it dropped the vouched initializer: a cold attack's), and the model,
  // which fails at the new sizes with it, is not fixed.
  const auto bytes = fixture_bytes("size_fix_channel_shuffle");
  auto o = at_sizes("[1,6,?,?]");
  o.assume_constant = {"p"};
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "shuffle.onnx", o);
  EXPECT_FALSE(r.fixed);
  EXPECT_TRUE(onnx_output(r).model.empty());
  ASSERT_FALSE(r.refusals.empty());
  EXPECT_EQ(r.refusals[0].name, "split_groups");
  EXPECT_EQ(r.refusals[0].code, "vouched_pattern");
}

TEST(onnx_fix, new_sizes_one_name_is_one_size) {
  // ?@S twice declares H == W in the written model: refused where they differ at the declared shapes (10 and
  // 14), which that model would no longer take (a cold attack's: it was accepted).
  const auto bytes = fixture_bytes("size_fix_channel_shuffle");
  const auto model = std::as_bytes(std::span(bytes.data(), bytes.size()));
  expect_error_containing([&] { (void)onnx::fix(model, "shuffle.onnx", at_sizes("[1,6,?@S,?@S]")); }, errc::invalid_argument,
                          "the size S is dimension 2 of input 'x', 10 at the declared shapes, and dimension 3 of input "
                          "'x', 14: one name is one size");
  // Square at the declared shapes: one name is allowed, and a sample gives it one value.
  const auto flatten = torch_exports / "flatten_baked.at_a.onnx";
  auto square = at_sizes("[1,3,?@S,?@S]");
  EXPECT_TRUE(onnx::fix(flatten, square).fixed);
  square.check_shapes.push_back({{"x", parse_shape("[1,3,12,20]")}});
  expect_error_containing([&] { (void)onnx::fix(flatten, square); }, errc::invalid_argument,
                          "not one of the shapes asked: dimension 2 of input 'x' is 12 and dimension 3 of input 'x' is 20, "
                          "both the size S");
}

TEST(onnx_fix, new_sizes_and_batches_do_not_go_together) {
  auto o = at_sizes("[1,3,?,?]");
  o.check_batches = {dimension(2)};
  EXPECT_THROW((void)onnx::fix(torch_exports / "flatten_baked.at_a.onnx", o), error);
  model::fix_options samples_alone;
  samples_alone.check_shapes.push_back({{"x", parse_shape("[1,3,16,16]")}});
  EXPECT_THROW((void)onnx::fix(torch_exports / "flatten_baked.at_a.onnx", samples_alone), error);
}

// A table of four weights that equal x's declared shape by chance, read whole (a Cast, then a Mul): check cannot
// tell which it is, and fix refuses to compute it as x's shape (a cold attack's wrong fix: ONNX Runtime gives the
// export's results at another size with the weights kept).
TEST(onnx_fix, new_sizes_a_table_read_whole_is_not_computed_as_a_shape) {
  const auto bytes = fixture_bytes("size_shape_table_weights");
  const auto r = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "weights.onnx", at_sizes("[1,5,?,?]"));
  EXPECT_FALSE(r.fixed);
  ASSERT_FALSE(r.refusals.empty());
  EXPECT_EQ(r.refusals[0].name, "weights");
  EXPECT_EQ(r.refusals[0].code, "table_read_whole") << r.refusals[0].reason;
  EXPECT_NE(r.refusals[0].reason.find("Cast 'w'"), std::string::npos) << r.refusals[0].reason;
}

}  // namespace
}  // namespace reshape1::test
