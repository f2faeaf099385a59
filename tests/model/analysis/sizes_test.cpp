// The facts the analysis at new sizes reads from the rules folder (src/model/ops/sizes.cpp), seen through
// check_batch at other shapes on IR models: a slice's end inside a changing axis is a position written down,
// one past the axis at both shapes is not.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../ir_builder.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/batch.hpp"

namespace reshape1::test {
namespace {

class sizes : public ir {
 protected:
  model::batch_report at(const ir_builder& b, const char* shape) {
    graph_ = load(b.xml(), b.bin());
    return model::check_batch(graph_, {.shapes = {{"", parse_shape(shape)}}});
  }
  model::graph graph_;
};

/// x [1,16] cut along axis 1 by a StridedSlice from 0 to `end`.
ir_builder strided_to(std::int64_t end, const std::string& out) {
  return strided_slice_model("[1,16]", {0, 0}, {1, end}, R"(begin_mask="0,0" end_mask="0,0")", out);
}

TEST_F(sizes, a_strided_slice_end_inside_a_changing_axis_is_placed_and_one_past_it_is_not) {
  // 8 of 16: the first half at the declared shape, written down; at 12 the program may want 6.
  auto r = at(strided_to(8, "[1,8]"), "[1,12]");
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell) << r.summary_line();
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].code, "placed_on_size");
  // 16, the whole axis at the declared shape and past it at 12: the whole axis at both, whatever it stands
  // for (it was taken for the size 16, baked_size).
  r = at(strided_to(16, "[1,16]"), "[1,12]");
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::yes) << r.summary_line();
  // At 20 the end 16 cuts inside the axis: a size written down.
  r = at(strided_to(16, "[1,16]"), "[1,20]");
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell) << r.summary_line();
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].code, "baked_size");
}

// Interpolate-11's input 2 names axes, not sizes (Interpolate-4's input 2 is its scales): NHWC data
// [1,4,4,2] scaled by two along axes [1,2], whose 2 equals half of the declared H, is no size written down.
TEST_F(sizes, an_interpolate_s_axes_are_not_sizes) {
  ir_builder b;
  const int x = b.parameter("[1,4,4,2]", "x");
  const int up = b.layer("Interpolate", "mode=\"nearest\" shape_calculation_mode=\"scales\"", {"[1,4,4,2]", "[2]", "[2]"},
                         {"[1,8,8,2]"}, "up", 11);
  b.edge(x, up, 0);
  b.edge(b.constant(element_type::f32, "2", {0x40000000, 0x40000000}, "[2]"), up, 1);  // 2.0f, 2.0f
  b.edge(b.i64({1, 2}), up, 2);
  b.result(up, "[1,8,8,2]");
  const auto r = at(b, "[1,6,6,2]");
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::yes) << (r.findings.empty() ? r.summary_line() : r.findings[0].what);
}

/// x [1,3,6,8] pooled by `type` (AvgPool-1 or MaxPool-8) with the window attributes `window`, to `out`.
ir_builder pooled(const std::string& type, const std::string& window, const std::string& out) {
  ir_builder b;
  const int x = b.parameter("[1,3,6,8]", "x");
  const bool eight = type == "MaxPool";
  const auto attributes = fmt::format(R"({} rounding_type="floor" exclude-pad="true"{})", window,
                                      eight ? R"( index_element_type="i64" axis="0")" : "");
  std::vector<std::string> outs{out};
  if (eight) outs.push_back(out);
  const int pool = b.layer(type, attributes, {"[1,3,6,8]"}, outs, "pool", eight ? 8 : 1);
  b.edge(x, pool, 0);
  b.result(pool, out);
  return b;
}

// A pooling whose window, padded, dilated or placed by auto_pad, reaches across the whole input from one of
// its outputs at the declared shape may have had its kernel, padding or dilation computed from the size:
// at new sizes it cannot tell (window_spans_size), naming how far it reaches. A window short of the input
// is not a finding.
TEST_F(sizes, a_pooling_window_that_reaches_across_the_whole_input_cannot_tell) {
  struct window_case {
    const char* type;
    const char* window;
    const char* out;
    const char* code;  ///< "" for none
    std::int64_t reach = 0;
  };
  const window_case cases[] = {
      // The whole 6x8 map into one output: global pooling written for one size.
      {"AvgPool", R"(kernel="6,8" strides="1,1" pads_begin="0,0" pads_end="0,0" auto_pad="explicit")", "[1,3,1,1]",
       "kernel_covers_size"},
      // Padded: 7 rows of a window padded by one before, one output.
      {"AvgPool", R"(kernel="7,8" strides="1,1" pads_begin="1,0" pads_end="0,0" auto_pad="explicit")", "[1,3,1,1]",
       "window_spans_size", 7},
      // A 2x2 window dilated by 5 and 7 reads the four corners: it spans the map.
      {"MaxPool", R"(kernel="2,2" strides="1,1" dilations="5,7" pads_begin="0,0" pads_end="0,0" auto_pad="explicit")",
       "[1,3,1,1]", "window_spans_size", 6},
      // auto_pad same_upper with the map's own kernel: the middle output's window is the whole map.
      {"MaxPool", R"(kernel="6,8" strides="1,1" dilations="1,1" pads_begin="0,0" pads_end="0,0" auto_pad="same_upper")",
       "[1,3,6,8]", "window_spans_size", 6},
      // A 5x5 window padded by 2 (SPPF) on a map of 6x8: no output's window reaches across it.
      {"MaxPool", R"(kernel="5,5" strides="1,1" dilations="1,1" pads_begin="2,2" pads_end="2,2" auto_pad="explicit")",
       "[1,3,6,8]", ""},
      // 3x3 windows of stride 2 padded by one: each sees a part.
      {"AvgPool", R"(kernel="3,3" strides="2,2" pads_begin="1,1" pads_end="1,1" auto_pad="explicit")", "[1,3,3,4]", ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.window);
    const auto b = pooled(c.type, c.window, c.out);
    const auto r = at(b, "[1,3,12,16]");
    if (*c.code == '\0') {
      EXPECT_EQ(r.summary.verdict(), model::batch_verdict::yes) << (r.findings.empty() ? r.summary_line() : r.findings[0].what);
      continue;
    }
    EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell) << r.summary_line();
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].code, c.code);
    EXPECT_EQ(r.findings[0].name, "pool");
    if (c.reach != 0) {
      EXPECT_EQ(r.findings[0].args,
                (model::reason_args{{"axis", std::int64_t{2}}, {"window", c.reach}, {"size", std::int64_t{6}}, {"asked", "12"}}));
    }
    // At the declared shape nothing changes.
    EXPECT_EQ(at(b, "[1,3,6,8]").summary.verdict(), model::batch_verdict::yes);
    // The hint says how to vouch for the window; vouched for by its layer's name or #ID, it is no finding.
    EXPECT_NE(r.findings[0].hint.find("vouch for it with assume_constant=[pool]"), std::string::npos) << r.findings[0].hint;
    for (const char* vouch : {"pool", "#1"}) {
      SCOPED_TRACE(vouch);
      const auto vouched = model::check_batch(graph_, {.shapes = {{"", parse_shape("[1,3,12,16]")}}, .assume_constant = {vouch}});
      EXPECT_EQ(vouched.summary.verdict(), model::batch_verdict::yes)
          << (vouched.findings.empty() ? vouched.summary_line() : vouched.findings[0].what);
    }
  }
}

// Adaptive pooling exported at one size (PSPNet's bins): windows as wide as their stride cut the 6x8 map into
// 2x2 bins; at 12x16 the same windows make 4x4 (window_tiles_size). An ordinary 2x2 pooling of stride 2
// makes more outputs than its window is wide: no finding.
TEST_F(sizes, adaptive_pooling_written_as_fixed_bins_cannot_tell) {
  const auto bins = pooled("AvgPool", R"(kernel="3,4" strides="3,4" pads_begin="0,0" pads_end="0,0" auto_pad="explicit")",
                           "[1,3,2,2]");
  const auto r = at(bins, "[1,3,12,16]");
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell) << r.summary_line();
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].code, "window_tiles_size");
  EXPECT_EQ(r.findings[0].args, (model::reason_args{{"axis", std::int64_t{2}}, {"window", std::int64_t{3}},
                                                    {"size", std::int64_t{6}}, {"bins", std::int64_t{2}}, {"asked", "12"}}));
  EXPECT_NE(r.findings[0].hint.find("assume_constant=[pool]"), std::string::npos) << r.findings[0].hint;
  EXPECT_EQ(model::check_batch(graph_, {.shapes = {{"", parse_shape("[1,3,12,16]")}}, .assume_constant = {"pool"}})
                .summary.verdict(),
            model::batch_verdict::yes);
  // Padded, the bins are still fewer than a window is wide: (6 + 2 - 4) / 4 + 1 = 2 rows of bins.
  const auto padded = at(pooled("AvgPool", R"(kernel="4,4" strides="4,4" pads_begin="1,1" pads_end="1,1" auto_pad="explicit")",
                                "[1,3,2,2]"),
                         "[1,3,12,16]");
  ASSERT_EQ(padded.findings.size(), 1u) << padded.summary_line();
  EXPECT_EQ(padded.findings[0].code, "window_tiles_size");
  const auto halves = pooled("MaxPool", R"(kernel="2,2" strides="2,2" dilations="1,1" pads_begin="0,0" pads_end="0,0" auto_pad="explicit")",
                             "[1,3,3,4]");
  const auto h = at(halves, "[1,3,12,16]");
  EXPECT_EQ(h.summary.verdict(), model::batch_verdict::yes) << (h.findings.empty() ? h.summary_line() : h.findings[0].what);
}

// A variance whose squares are flattened before they are summed ([1,3,49], axis 2) is still a variance: its
// divisor 48 is one less than the 49 elements summed.
TEST_F(sizes, bessel_s_correction_of_squares_moved_before_the_reduction) {
  ir_builder b;
  const int x = b.parameter("[1,3,7,7]", "x");
  const int sq = b.layer("Multiply", R"(auto_broadcast="numpy")", {"[1,3,7,7]", "[1,3,7,7]"}, {"[1,3,7,7]"}, "squares");
  b.edge(x, sq, 0);
  b.edge(x, sq, 1);
  const int flat = b.reshape(sq, b.i64({0, 0, -1}), true, "[1,3,7,7]", "[3]", "[1,3,49]", "flat");
  const int sum = b.layer("ReduceSum", R"(keep_dims="false")", {"[1,3,49]", "[1]"}, {"[1,3]"}, "sum");
  b.edge(flat, sum, 0);
  b.edge(b.i64({2}), sum, 1);
  const int scale = b.layer("Divide", R"(auto_broadcast="numpy")", {"[1,3]", "[]"}, {"[1,3]"}, "scale");
  b.edge(sum, scale, 0);
  b.edge(b.constant(element_type::f32, "", {std::bit_cast<std::uint32_t>(48.0F)}, "[]"), scale, 1);
  b.result(scale, "[1,3]");
  const auto r = at(b, "[1,3,14,14]");
  EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell) << r.summary_line();
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].name, "scale");
  EXPECT_NE(r.findings[0].what.find("is one less than"), std::string::npos) << r.findings[0].what;
}

// --assume-constant names a constant, or a layer whose window it vouches for; any other layer is refused.
TEST_F(sizes, only_constants_and_windows_can_be_vouched_for) {
  ir_builder b;
  const int x = b.parameter("[1,3,6,8]", "x");
  const int relu = b.layer("Relu", "", {"[1,3,6,8]"}, {"[1,3,6,8]"}, "act");
  b.edge(x, relu, 0);
  b.result(relu, "[1,3,6,8]");
  graph_ = load(b.xml(), b.bin());
  // A layer of that name or id is named with its type; no layer at all, as such.
  for (const auto& [name, said] : std::vector<std::pair<std::string, std::string>>{
           {"act", "'act' (#1) is a Relu layer, which holds no constant or pooling window"},
           {"#1", "'act' (#1) is a Relu layer"},
           {"x", "'x' (#0) is a Parameter layer"},
           {"#0", "'x' (#0) is a Parameter layer"},
           {"#7", "the model has no constant or pooling window named '#7'"},
           {"pool", "the model has no constant or pooling window named 'pool'"}}) {
    SCOPED_TRACE(name);
    try {
      (void)model::check_batch(graph_, {.shapes = {{"", parse_shape("[1,3,12,16]")}}, .assume_constant = {name}});
      ADD_FAILURE() << "a layer with neither a value nor a window was taken";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find(said), std::string::npos) << e.what();
    }
  }
}

// A name that reads as an id (`#0`) while another layer has that id names two layers: --assume-constant and
// --shape refuse it, naming both and how to give each; a layer named after its own id is just that layer.
TEST_F(sizes, a_name_that_is_another_layer_s_id_is_refused) {
  ir_builder b;
  const int x = b.parameter("[1,3,6,8]", "x");
  const int y = b.parameter("[1,3,6,8]", "#0");
  const int add = b.layer("Add", R"(auto_broadcast="numpy")", {"[1,3,6,8]", "[1,3,6,8]"}, {"[1,3,6,8]"}, "sum");
  b.edge(x, add, 0);
  b.edge(y, add, 1);
  const int c = b.constant(element_type::f32, "", {std::bit_cast<std::uint32_t>(2.0F)}, "[]");
  const int scale = b.layer("Multiply", R"(auto_broadcast="numpy")", {"[1,3,6,8]", "[]"}, {"[1,3,6,8]"}, "#4");
  b.edge(add, scale, 0);
  b.edge(c, scale, 1);
  b.result(scale, "[1,3,6,8]");
  graph_ = load(b.xml(), b.bin());
  try {
    (void)model::check_batch(graph_, {.shapes = {{"x", parse_shape("[1,3,12,16]")}, {"#1", parse_shape("[1,3,12,16]")}},
                                      .assume_constant = {"#0"}});
    ADD_FAILURE() << "a name that is another layer's id was taken";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("names two layers, '#0' (#1) by its name and 'x' (#0) by its id"), std::string::npos)
        << e.what();
    EXPECT_EQ(e.hint(), "give #1 for the first, 'x' for the second");
  }
  try {
    (void)model::check_batch(graph_, {.shapes = {{"#0", parse_shape("[1,3,12,16]")}}});
    ADD_FAILURE() << "an input name that is another input's id was taken";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("names two inputs, '#0' (#1) by its name and 'x' (#0) by its id"), std::string::npos)
        << e.what();
  }
  // '#4' is the Multiply's own id: no other layer, so no clash (and it holds no constant).
  try {
    (void)model::check_batch(graph_, {.shapes = {{"x", parse_shape("[1,3,12,16]")}, {"#1", parse_shape("[1,3,12,16]")}},
                                      .assume_constant = {"#4"}});
    ADD_FAILURE() << "a Multiply was vouched for";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("'#4' (#4) is a Multiply layer"), std::string::npos) << e.what();
  }
}

/// x [1,3,7,7], squared where `squared` (x·x), reduced over its 7x7 map by `reduce` (ReduceMean, ReduceSum,
/// or "" for none), then `op` (Multiply or Divide) by the f32 scalar `constant`.
ir_builder scaled(const std::string& reduce, const std::string& op, float constant, bool squared = true) {
  ir_builder b;
  const int x = b.parameter("[1,3,7,7]", "x");
  int data = x;
  std::string dims = "[1,3,7,7]";
  if (!reduce.empty()) {
    int in = x;
    if (squared) {
      in = b.layer("Multiply", R"(auto_broadcast="numpy")", {dims, dims}, {dims}, "squares");
      b.edge(x, in, 0);
      b.edge(x, in, 1);
    }
    data = b.layer(reduce, R"(keep_dims="true")", {dims, "[2]"}, {"[1,3,1,1]"}, "reduce");
    b.edge(in, data, 0);
    b.edge(b.i64({2, 3}), data, 1);
    dims = "[1,3,1,1]";
  }
  const int c = b.constant(element_type::f32, "", {std::bit_cast<std::uint32_t>(constant)}, "[]");
  const int scale = b.layer(op, R"(auto_broadcast="numpy")", {dims, "[]"}, {dims}, "scale");
  b.edge(data, scale, 0);
  b.edge(c, scale, 1);
  b.result(scale, dims);
  return b;
}

// Bessel's correction (torch's unbiased var and std, exported at one size): a sum or a mean over the map
// divided by one less than its count, times the reciprocal of that, times n/(n-1), or a root's correction
// are counts written down, as a divisor equal to the count is. The same constants on data no reduction
// made (x/48 on a 7x7 map: a scale, as x/255 is), or corrections of another count than the one reduced,
// are no finding.
TEST_F(sizes, bessel_s_correction_after_a_reduction_is_a_size_written_down) {
  struct scale_case {
    const char* reduce;
    const char* op;
    float constant;
    const char* relation;  ///< "" for no finding
    bool squared = true;   ///< the reduction reduces x·x
  };
  const scale_case cases[] = {
      {"ReduceMean", "Multiply", 49.0F, "equals"},
      {"ReduceSum", "Divide", 49.0F, "equals"},
      {"ReduceSum", "Divide", 48.0F, "is one less than"},
      {"ReduceSum", "Multiply", 1.0F / 48, "is the reciprocal of one less than"},
      {"ReduceMean", "Multiply", 49.0F / 48, "is n/(n-1) for n ="},
      // A standard deviation corrected after its square root.
      {"ReduceMean", "Multiply", 1.010363F, "is the square root of n/(n-1) for n ="},
      {"ReduceSum", "Multiply", 0.14433756F, "is one over the square root of one less than"},
      // A correction of a count other than the one reduced: hard-sigmoid's 6 after a mean over 7x7 (49).
      {"ReduceMean", "Divide", 6.0F, ""},
      {"ReduceMean", "Multiply", 7.0F / 6, ""},
      // A mean of x itself over one less than its count, or a sum: read as a correction too (a plain sum
      // over n-1 said yes where ONNX Runtime differs); (x - mean)/255 on data is a scale (moment "centered").
      {"ReduceMean", "Divide", 48.0F, "is one less than", false},
      {"", "Divide", 48.0F, ""},
      {"", "Multiply", 49.0F / 48, ""},
      {"ReduceMean", "Multiply", 47.0F / 46, ""},  // the correction of a count the path does not carry
      {"ReduceMean", "Multiply", 2.0F, ""},  // n/(n-1) for n = 2: too common a factor to be read so
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(fmt::format("{} {} {}", c.reduce, c.op, c.constant));
    const auto b = scaled(c.reduce, c.op, c.constant, c.squared);
    const auto r = at(b, "[1,3,14,14]");
    if (*c.relation == '\0') {
      EXPECT_EQ(r.summary.verdict(), model::batch_verdict::yes) << (r.findings.empty() ? r.summary_line() : r.findings[0].what);
      continue;
    }
    EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell) << r.summary_line();
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].code, "baked_size");
    EXPECT_EQ(r.findings[0].name, "scale");
    EXPECT_NE(r.findings[0].what.find(fmt::format(" {} ", c.relation)), std::string::npos) << r.findings[0].what;
    EXPECT_NE(r.findings[0].what.find("the size 49:"), std::string::npos) << r.findings[0].what;
    EXPECT_EQ(at(b, "[1,3,7,7]").summary.verdict(), model::batch_verdict::yes);
  }
}

}  // namespace
}  // namespace reshape1::test

namespace reshape1::test {
namespace {

/// x [1,3,7,7] made into a moment's terms as `kind` says, summed over the 7x7 map (49 elements), then
/// corrected by 48 (`Divide`) or 1/48 (`Multiply`), as an unbiased estimate exported at 7x7 is:
///   "chained"     x·x summed over W, then over H;
///   "covariance"  x times Sigmoid(x) (two data tensors);
///   "abs"         |x|; "cube" x to the power 3;
///   "integer"     x converted to i64, squared, summed, divided by the i64 scalar 48;
///   "per_channel" x·x corrected by a [1,3,1,1] tensor of 1/48 throughout;
///   "centered"    x less its mean over the map, divided by 48 (a scale of data, not of a reduction);
///   "table"       x·x summed, times a [1,3,1,1] tensor of three values none of which is a correction;
///   "one_of_three" x·x corrected by [1/48, 1/2, 2]: channel 0's correction;
///   "channels_width" x·x summed over C and W of a 5x7 map (3·7 = 21 elements, not adjacent), divided by 20;
///   "norm_root"   ReduceL2 of x divided by √48; "norm_rms" ReduceL2 of x times 1/√35 (on a 5x7 map);
///   "norm_half"   ReduceL2 of x times 1/2;
///   "l1"          ReduceL1 of x times 1/48; "ratio" x·x averaged, divided by 48/49;
///   "scaled"      x·x times 1.0 (a converter's), averaged, its square root times √(49/48);
///   "log_sum_exp" Exp of x summed, Log, less log 48.
/// `map` is x's shape (the reductions keep it [1,3,1,1]).
ir_builder moment(const std::string& kind, const std::string& map = "[1,3,7,7]") {
  ir_builder b;
  const std::string one = "[1,3,1,1]";
  const int x = b.parameter(map, "x");
  const auto f32 = [](float v) { return static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(v)); };
  const auto binary = [&](const char* type, int a, int c, const std::string& dims, const std::string& c_dims,
                          const std::string& name) {
    const int l = b.layer(type, R"(auto_broadcast="numpy")", {dims, c_dims}, {dims}, name);
    b.edge(a, l, 0);
    b.edge(c, l, 1);
    return l;
  };
  const auto reduce = [&](int in, std::vector<std::int64_t> axes, const std::string& from, const std::string& to,
                          const std::string& name) {
    const int r = b.layer("ReduceSum", R"(keep_dims="true")", {from, fmt::format("[{}]", axes.size())}, {to}, name);
    b.edge(in, r, 0);
    b.edge(b.i64(axes), r, 1);
    return r;
  };
  const auto scalar = [&](float v) { return b.constant(element_type::f32, "", {f32(v)}, "[]"); };
  if (kind == "norm_root" || kind == "norm_rms" || kind == "norm_half" || kind == "l1") {
    const int r = b.layer(kind == "l1" ? "ReduceL1" : "ReduceL2", R"(keep_dims="true")", {map, "[2]"}, {one}, "sum", 4);
    b.edge(x, r, 0);
    b.edge(b.i64({2, 3}), r, 1);
    const float c = kind == "norm_root" ? std::sqrt(48.0F) : kind == "norm_rms" ? 1.0F / std::sqrt(35.0F) : kind == "norm_half" ? 0.5F : 1.0F / 48;
    b.result(binary(kind == "norm_root" ? "Divide" : "Multiply", r, scalar(c), one, "[]", "scale"), one);
    return b;
  }
  if (kind == "log_sum_exp") {
    const int e = b.layer("Exp", "", {map}, {map}, "exp");
    b.edge(x, e, 0);
    const int log = b.layer("Log", "", {one}, {one}, "log");
    b.edge(reduce(e, {2, 3}, map, one, "sum"), log, 0);
    b.result(binary("Subtract", log, scalar(std::log(48.0F)), one, "[]", "scale"), one);
    return b;
  }
  int terms = 0;
  if (kind == "covariance") {
    const int s = b.layer("Sigmoid", "", {map}, {map}, "sigmoid");
    b.edge(x, s, 0);
    terms = binary("Multiply", x, s, map, map, "terms");
  } else if (kind == "abs") {
    terms = b.layer("Abs", "", {map}, {map}, "terms");
    b.edge(x, terms, 0);
  } else if (kind == "cube") {
    terms = binary("Power", x, b.constant(element_type::f32, "", {f32(3.0F)}, "[]"), map, "[]", "terms");
  } else if (kind == "centered") {
    const int mean = b.layer("ReduceMean", R"(keep_dims="true")", {map, "[2]"}, {one}, "mean");
    b.edge(x, mean, 0);
    b.edge(b.i64({2, 3}), mean, 1);
    const int d = binary("Subtract", x, mean, map, one, "centered");
    b.result(binary("Divide", d, scalar(48.0F), map, "[]", "scale"), map);
    return b;
  } else if (kind == "integer") {
    const int xi = b.layer("Convert", R"(destination_type="i64")", {map}, {map}, "integers");
    b.edge(x, xi, 0);
    terms = b.layer("Multiply", R"(auto_broadcast="numpy")", {map, map}, {map}, "terms");
    b.edge(xi, terms, 0);
    b.edge(xi, terms, 1);
  } else if (kind == "scaled") {
    terms = binary("Multiply", binary("Multiply", x, x, map, map, "squares"), scalar(1.0F), map, "[]", "terms");
  } else {
    terms = binary("Multiply", x, x, map, map, "terms");
  }
  if (kind == "channels_width") {
    // (Built on a 5x7 map, where C·W is no product of adjacent dimensions nor equal to one.)
    const int sum = reduce(terms, {1, 3}, map, "[1,1,5,1]", "sum");
    b.result(binary("Divide", sum, scalar(20.0F), "[1,1,5,1]", "[]", "scale"), "[1,1,5,1]");
    return b;
  }
  if (kind == "scaled") {
    const int mean = b.layer("ReduceMean", R"(keep_dims="true")", {map, "[2]"}, {one}, "mean");
    b.edge(terms, mean, 0);
    b.edge(b.i64({2, 3}), mean, 1);
    const int root = b.layer("Sqrt", "", {one}, {one}, "root");
    b.edge(mean, root, 0);
    b.result(binary("Multiply", root, scalar(std::sqrt(49.0F / 48)), one, "[]", "scale"), one);
    return b;
  }
  if (kind == "ratio") {
    const int mean = b.layer("ReduceMean", R"(keep_dims="true")", {map, "[2]"}, {one}, "sum");
    b.edge(terms, mean, 0);
    b.edge(b.i64({2, 3}), mean, 1);
    b.result(binary("Divide", mean, scalar(48.0F / 49), one, "[]", "scale"), one);
    return b;
  }
  const int sum = kind == "chained" ? reduce(reduce(terms, {3}, map, "[1,3,7,1]", "rows"), {2}, "[1,3,7,1]", one, "sum")
                                    : reduce(terms, {2, 3}, map, one, "sum");
  int scale = 0;
  if (kind == "one_of_three") {
    scale = binary("Multiply", sum, b.constant(element_type::f32, "1,3,1,1", {f32(1.0F / 48), f32(0.5F), f32(2.0F)}, one), one,
                   one, "scale");
  } else if (kind == "integer") {
    scale = binary("Divide", sum, b.scalar(48), one, "[]", "scale");
  } else if (kind == "per_channel") {
    scale = binary("Multiply", sum, b.constant(element_type::f32, "1,3,1,1", {f32(1.0F / 48), f32(1.0F / 48), f32(1.0F / 48)}, one),
                   one, one, "scale");
  } else if (kind == "table") {
    scale = binary("Multiply", sum, b.constant(element_type::f32, "1,3,1,1", {f32(0.5F), f32(2.0F), f32(3.0F)}, one), one, one,
                   "scale");
  } else if (kind == "abs" || kind == "chained") {
    scale = binary("Multiply", sum, b.constant(element_type::f32, "", {f32(1.0F / 48)}, "[]"), one, "[]", "scale");
  } else {
    scale = binary("Divide", sum, b.constant(element_type::f32, "", {f32(48.0F)}, "[]"), one, "[]", "scale");
  }
  b.result(scale, one);
  return b;
}

// An unbiased estimate's correction is one less than the count of the elements its moment sums, however
// that moment is formed: squares summed one axis at a time, a covariance's products, absolute or cubed
// deviations, in integers, or a correction spread over the channels (one value, or one channel's); a count
// of axes that are not adjacent; the roots a norm takes (a standard deviation, a root mean square), a
// norm of absolute values, a divisor (n-1)/n, a log-sum-exp less the log of its count, squares scaled by a
// constant before they are averaged. Each said yes at
// 14x14, where the count is 196 and the file still holds 49's. A constant that scales data less its mean
// ((x - mean)/48), or a tensor of values none of which is a correction, is no such count.
TEST_F(sizes, corrections_of_moments_formed_otherwise_are_sizes_written_down) {
  struct moment_case {
    const char* kind;
    const char* relation;
    const char* size = "the size 49:";
    const char* map = "[1,3,7,7]";
  };
  for (const auto& c : {moment_case{"chained", " is the reciprocal of one less than "}, moment_case{"covariance", " is one less than "},
                        moment_case{"abs", " is the reciprocal of one less than "}, moment_case{"cube", " is one less than "},
                        moment_case{"integer", " is one less than "}, moment_case{"per_channel", " is the reciprocal of one less than "},
                        // Element 0 of the tensor, channel 0's correction.
                        moment_case{"one_of_three", " is the reciprocal of one less than ", "element 0 may stand for the size 49:"},
                        // A count of axes that are not adjacent: the elements the reduction reduces.
                        moment_case{"channels_width", " is one less than 3·7, the elements 'sum' reduces ", "the size 21:",
                                    "[1,3,5,7]"},
                        moment_case{"norm_root", " is the square root of one less than "},
                        moment_case{"norm_rms", " is one over the square root of 5·7, dimensions 2..3 ", "the size 35:", "[1,3,5,7]"},
                        moment_case{"l1", " is the reciprocal of "},
                        moment_case{"ratio", " is (n-1)/n for n = "}, moment_case{"log_sum_exp", " is the logarithm of "},
                        // Squares scaled by a constant are summed as many times.
                        moment_case{"scaled", " is the square root of n/(n-1) for n = ", "element 0 may stand for the size 49:"}}) {
    SCOPED_TRACE(c.kind);
    const auto b = moment(c.kind, c.map);
    const auto r = at(b, "[1,3,14,14]");
    EXPECT_EQ(r.summary.verdict(), model::batch_verdict::cannot_tell) << r.summary_line();
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].code, "baked_size");
    EXPECT_EQ(r.findings[0].name, "scale");
    EXPECT_NE(r.findings[0].what.find(c.relation), std::string::npos) << r.findings[0].what;
    EXPECT_NE(r.findings[0].what.find(c.size), std::string::npos) << r.findings[0].what;
    EXPECT_EQ(at(b, c.map).summary.verdict(), model::batch_verdict::yes);
  }
  for (const auto* kind : {"centered", "table"}) {
    SCOPED_TRACE(kind);
    const auto r = at(moment(kind), "[1,3,14,14]");
    EXPECT_EQ(r.summary.verdict(), model::batch_verdict::yes) << (r.findings.empty() ? r.summary_line() : r.findings[0].what);
  }
  // A root that is a small whole number makes a common constant: a norm over a 1x4 map times 1/2 is no
  // root mean square (1/√4) to be named.
  const auto half = at(moment("norm_half", "[1,3,1,4]"), "[1,3,1,8]");
  EXPECT_EQ(half.summary.verdict(), model::batch_verdict::yes) << (half.findings.empty() ? half.summary_line() : half.findings[0].what);
}

}  // namespace
}  // namespace reshape1::test
