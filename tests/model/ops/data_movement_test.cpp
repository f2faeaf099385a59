// Concat, Gather, StridedSlice, Broadcast, Tile, Transpose, VariadicSplit, Pad, ScatterUpdate.
#include <cstdint>
#include <limits>

#include "rule_util.hpp"

namespace reshape1::test {
namespace {

using model::detail::exact_values;

TEST(data_movement, concat) {
  EXPECT_EQ(shape_of(run("Concat", 1, {{"axis", "1"}}, {of("[2,3]"), of("[2,?]"), of("[?,4]")})), "[2,7..]");
  const auto v = run("Concat", 1, {{"axis", "0"}}, {values({1, 2}), values({-1})});
  EXPECT_EQ(exact_values(v[0].value), (std::vector<std::int64_t>{1, 2, -1}));
  expect_refused([] { (void)run("Concat", 1, {{"axis", "1"}}, {of("[2,3]"), of("[3,3]")}); },
                 "input 1 dimension 0: 2 and 3 cannot be equal");
  expect_refused([] { (void)run("Concat", 1, {{"axis", "0"}}, {of("[2,3]"), of("[3]")}); }, "of another rank");
}

TEST(data_movement, gather) {
  EXPECT_EQ(shape_of(run("Gather", 8, {{"batch_dims", "0"}}, {of("[5,6,7]"), of("[2,3]", element_type::i64), values({1}, "[]")})),
            "[5,2,3,7]");
  EXPECT_EQ(shape_of(run("Gather", 8, {{"batch_dims", "1"}}, {of("[5,6,7]"), of("[5,3]", element_type::i64), values({1}, "[]")})),
            "[5,3,7]");
  const auto v = run("Gather", 1, {}, {values({2, 3, 4}), values({-1, 0}), values({0}, "[]")});
  EXPECT_EQ(exact_values(v[0].value), (std::vector<std::int64_t>{4, 2}));
  expect_refused([] { (void)run("Gather", 8, {}, {of("[5]"), of("[2]", element_type::i64), values({1}, "[]")}); },
                 "axis 1 is out of range for rank 1");
  // In an IR, an index past the axis gives zeros (Gather-8's spec): the shape stands. ONNX Runtime refuses
  // it (the ONNX fixture size_gather_past_axis).
  EXPECT_EQ(shape_of(run("Gather", 8, {}, {of("[5,6]"), values({7}), values({1}, "[]")})), "[5,1]");
  // Indices are integers (T_IND): a real index has no meaning, whatever its value.
  expect_refused([] { (void)run("Gather", 8, {}, {of("[5,6]"), of("[2]", element_type::f32), values({1}, "[]")}); },
                 "indices (input 1) is f32, not an integer type");
}

TEST(data_movement, strided_slice) {
  const std::vector<std::pair<std::string, std::string>> plain = {{"begin_mask", "0"}, {"end_mask", "0"}};
  EXPECT_EQ(shape_of(run("StridedSlice", 1, plain, {of("[10,8]"), values({2, 1}), values({8, -1}), values({2, 1})})),
            "[3,6]");
  EXPECT_EQ(shape_of(run("StridedSlice", 1, plain, {of("[10]"), values({-1}), values({-11}), values({-3})})), "[4]");
  EXPECT_EQ(shape_of(run("StridedSlice", 1, {{"shrink_axis_mask", "1"}, {"new_axis_mask", "0,1"}},
                         {of("[10,8]"), values({3, 0}), values({4, 0}), values({1, 1})})),
            "[1,8]");
  EXPECT_EQ(shape_of(run("StridedSlice", 1, {{"ellipsis_mask", "1"}},
                         {of("[2,3,4]"), values({0, 1}), values({0, 3}), values({1, 1})})),
            "[2,3,2]");
  const auto v = run("StridedSlice", 1, plain, {values({1, 3, 8, 14}), values({2}), values({4}), values({1})});
  EXPECT_EQ(exact_values(v[0].value), (std::vector<std::int64_t>{8, 14}));
  expect_refused([] { (void)run("StridedSlice", 1, {}, {of("[4]"), values({0}), values({4}), values({0})}); },
                 "strides[0] is 0");
  expect_refused([] { (void)run("StridedSlice", 1, {{"shrink_axis_mask", "1"}}, {of("[4]"), values({4}), values({5})}); },
                 "outside the dimension 4");
}

TEST(data_movement, broadcast_tile_transpose) {
  EXPECT_EQ(shape_of(run("Broadcast", 3, {{"mode", "numpy"}}, {of("[3,1]"), values({2, 3, 4})})), "[2,3,4]");
  EXPECT_EQ(shape_of(run("Broadcast", 3, {{"mode", "bidirectional"}}, {of("[3,1]"), values({4})})), "[3,4]");
  const auto v = run("Broadcast", 3, {{"mode", "numpy"}}, {values({7}, "[]"), values({3})});
  EXPECT_EQ(exact_values(v[0].value), (std::vector<std::int64_t>{7, 7, 7}));
  EXPECT_EQ(shape_of(run("Tile", 1, {}, {of("[2,3]"), values({2, 1, 2})})), "[2,2,6]");
  EXPECT_EQ(shape_of(run("Transpose", 1, {}, {of("[2,3,4]"), values({2, 0, 1})})), "[4,2,3]");
  EXPECT_EQ(shape_of(run("Transpose", 1, {}, {of("[2,3,4]"), values({})})), "[4,3,2]");
  expect_refused([] { (void)run("Broadcast", 3, {{"mode", "numpy"}}, {of("[3]"), values({4})}); }, "do not broadcast");
  expect_refused([] { (void)run("Broadcast", 3, {{"mode", "numpy"}}, {of("[3]"), values({1})}); },
                 "the data [3] does not broadcast to the target [1]");
  expect_refused([] { (void)run("Tile", 1, {}, {of("[2]"), values({-1})}); }, "the repeat -1 is negative");
  // Repeats are a 1-D integer tensor, as the spec says; not a matrix of them, nor reals.
  expect_refused([] { (void)run("Tile", 1, {}, {of("[2,3]"), of("[1,2]", element_type::i64)}); },
                 "repeats (input 1) must be a 1-D tensor, got shape [1,2]");
  expect_refused([] { (void)run("Tile", 1, {}, {of("[2,3]"), of("[2]", element_type::f32)}); },
                 "repeats (input 1) is f32, not an integer type");
  // Lowered from ONNX (which takes one repeat per dimension, no fewer and no more): another count is refused.
  EXPECT_EQ(shape_of(run("Tile", 1, {{"onnx_exact_repeats", "true"}}, {of("[2,3]"), values({2, 1})})), "[4,3]");
  expect_refused([] { (void)run("Tile", 1, {{"onnx_exact_repeats", "true"}}, {of("[2,3]"), values({2, 1, 2})}); },
                 "3 repeats for an input of rank 2");
  expect_refused([] { (void)run("Tile", 1, {{"onnx_exact_repeats", "true"}}, {of("[2,3]"), of("[1]", element_type::i64)}); },
                 "1 repeat for an input of rank 2");
  // A size no tensor can have is refused, as Concat and Pad refuse theirs; an unbounded interval stays so.
  expect_refused([] { (void)run("Tile", 1, {}, {of("[4]"), values({std::int64_t{1} << 62})}); },
                 "dimension 0 ([4]) times its repeat 4611686018427387904 overflows");
  EXPECT_EQ(shape_of(run("Tile", 1, {}, {of("[2..]"), values({3})})), "[6..]");
  expect_refused([] { (void)run("Transpose", 1, {}, {of("[2,3]"), values({0, 0})}); }, "not a permutation");
}

TEST(data_movement, split_pad_scatter) {
  const auto parts = run("VariadicSplit", 1, {}, {of("[2,10]"), values({1}, "[]"), values({3, -1})}, 2);
  EXPECT_EQ(shape_of(parts, 0), "[2,3]");
  EXPECT_EQ(shape_of(parts, 1), "[2,7]");
  EXPECT_EQ(shape_of(run("Pad", 1, {{"pad_mode", "constant"}}, {of("[1,3,4]"), values({0, 1, 2}), values({0, 1, -1})})),
            "[1,5,5]");
  const auto s = run("ScatterUpdate", 3, {}, {values({0, 0, 0, 0}), values({1, 3}), values({5, 6}), values({0}, "[]")});
  EXPECT_EQ(exact_values(s[0].value), (std::vector<std::int64_t>{0, 5, 0, 6}));
  expect_refused([] { (void)run("VariadicSplit", 1, {}, {of("[10]"), values({0}, "[]"), values({3, 3})}, 2); },
                 "do not add up to the dimension 10");
  expect_refused([] { (void)run("Pad", 1, {}, {of("[2]"), values({-2}), values({-1})}); }, "is negative");
  expect_refused(
      [] { (void)run("ScatterUpdate", 3, {}, {values({0, 0}), values({2}), values({1}), values({0}, "[]")}); },
      "the index 2 is outside the dimension 2");
}


TEST(data_movement, gather_7_has_batch_dims) {
  EXPECT_EQ(shape_of(run("Gather", 7, {{"batch_dims", "1"}}, {of("[5,6,7]"), of("[5,3]", element_type::i64), values({2}, "[]")})),
            "[5,6,3]");
  EXPECT_EQ(shape_of(run("Gather", 7, {{"batch_dims", "-1"}}, {of("[5,6,7]"), of("[5,3]", element_type::i64), values({1}, "[]")})),
            "[5,3,7]");
  const auto v = run("Gather", 7, {}, {values({2, 3, 4}), values({2, 0}), values({0}, "[]")});
  EXPECT_EQ(exact_values(v[0].value), (std::vector<std::int64_t>{4, 2}));
  expect_refused([] { (void)run("Gather", 7, {{"batch_dims", "3"}}, {of("[5,6,7]"), of("[5,3]", element_type::i64), values({2}, "[]")}); },
                 "batch_dims 3 must be within the indices' rank 2 and not above axis 2");
  expect_refused([] { (void)run("Gather", 7, {{"batch_dims", "2"}}, {of("[5,6,7]"), of("[5,3]", element_type::i64), values({2}, "[]")}); },
                 "batch dimension 1: 6 and 3 cannot be equal");
  expect_refused([] { (void)run("Gather", 7, {{"batch_dims", "1"}}, {of("[5,6,7]"), of("[4,3]", element_type::i64), values({1}, "[]")}); },
                 "batch dimension 0: 5 and 4 cannot be equal");
}

TEST(data_movement, split_cuts_shapes_and_values) {
  const auto parts = run("Split", 1, {{"num_splits", "3"}}, {of("[2,12,?]"), values({1}, "[]")}, 3);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(shape_of(parts, i), "[2,4,?]");
  EXPECT_EQ(shape_of(run("Split", 1, {{"num_splits", "2"}}, {of("[3..9]"), values({0}, "[]")}, 2)), "[2..4]");
  const auto v = run("Split", 1, {{"num_splits", "2"}}, {values({1, 2, 3, 4}), values({-1}, "[]")}, 2);
  EXPECT_EQ(exact_values(v[0].value), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(exact_values(v[1].value), (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(shape_of(run("Split", 1, {{"num_splits", "2"}}, {of("[4,4]"), of("[]")}, 2), 1), "[?,?]");
  expect_refused([] { (void)run("Split", 1, {{"num_splits", "3"}}, {of("[2,10]"), values({1}, "[]")}, 3); },
                 "dimension 1 (10) does not split into 3 equal parts");
  expect_refused([] { (void)run("Split", 1, {{"num_splits", "2"}}, {of("[2,10]"), values({1}, "[]")}, 3); },
                 "num_splits is 2 but the layer has 3 outputs");
  expect_refused([] { (void)run("Split", 1, {{"num_splits", "2"}}, {of("[2,10]"), values({2}, "[]")}, 2); },
                 "axis 2 is out of range for rank 2");
  expect_refused([] { (void)run("Split", 1, {{"num_splits", "2"}}, {of("[2,10]"), values({0, 1})}, 2); },
                 "the axis must be a scalar");
}

// Lowered from ONNX's Split-18 num_outputs (onnx_last_smaller): parts of ceil(d / n), the last what remains,
// of one element at least (ONNX Runtime's check).
TEST(data_movement, split_with_a_smaller_last_part) {
  const std::vector<std::pair<std::string, std::string>> three{{"num_splits", "3"}, {"onnx_last_smaller", "true"}};
  const auto parts = run("Split", 1, three, {of("[2,7]"), values({1}, "[]")}, 3);
  EXPECT_EQ(shape_of(parts, 0), "[2,3]");
  EXPECT_EQ(shape_of(parts, 1), "[2,3]");
  EXPECT_EQ(shape_of(parts, 2), "[2,1]");
  const auto v = run("Split", 1, three, {values({1, 2, 3, 4, 5}), values({0}, "[]")}, 3);
  EXPECT_EQ(exact_values(v[2].value), (std::vector<std::int64_t>{5}));
  EXPECT_EQ(shape_of(run("Split", 1, three, {of("[9]"), values({0}, "[]")}, 3), 2), "[3]");
  // An interval: ceil(d / 3) for the first parts, 1 up to that for the last.
  const auto i = run("Split", 1, three, {of("[3..10]"), values({0}, "[]")}, 3);
  EXPECT_EQ(shape_of(i, 0), "[1..4]");
  EXPECT_EQ(shape_of(i, 2), "[1..4]");
  expect_refused([&] { (void)run("Split", 1, three, {of("[4]"), values({0}, "[]")}, 3); },
                 "dimension 0 (4) in 3 parts of 2 leaves 0 for the last");
  expect_refused([&] { (void)run("Split", 1, three, {of("[2]"), values({0}, "[]")}, 3); },
                 "dimension 0 (2) holds fewer elements than the 3 parts");
}

TEST(data_movement, broadcast_1_modes) {
  EXPECT_EQ(shape_of(run("Broadcast", 1, {{"mode", "numpy"}}, {of("[3,1]"), values({2, 3, 4})})), "[2,3,4]");
  EXPECT_EQ(shape_of(run("Broadcast", 1, {{"mode", "explicit"}}, {of("[3]"), values({2, 3, 4}), values({1})})),
            "[2,3,4]");
  EXPECT_EQ(shape_of(run("Broadcast", 1, {{"mode", "pdpd"}, {"axis", "1"}}, {of("[3,1]"), values({2, 3, 4})})),
            "[2,3,4]");
  EXPECT_EQ(shape_of(run("Broadcast", 1, {{"mode", "pdpd"}}, {of("[4]"), values({2, 3, 4})})), "[2,3,4]");
  const auto v = run("Broadcast", 1, {{"mode", "numpy"}}, {values({7}, "[]"), values({2})});
  EXPECT_EQ(exact_values(v[0].value), (std::vector<std::int64_t>{7, 7}));
  expect_refused([] { (void)run("Broadcast", 1, {{"mode", "bidirectional"}}, {of("[3]"), values({3})}); },
                 "mode 'bidirectional' is not numpy, explicit or pdpd");
  expect_refused([] { (void)run("Broadcast", 1, {{"mode", "pdpd"}, {"axis", "0"}}, {of("[3]"), values({2, 3})}); },
                 "data dimension 0: 3 and 2 cannot be equal");
  expect_refused([] { (void)run("Broadcast", 1, {{"mode", "explicit"}}, {of("[3]"), values({2, 3}), values({0})}); },
                 "a mapped dimension: 3 and 2 cannot be equal");
  expect_refused([] { (void)run("Broadcast", 3, {{"mode", "pdpd"}}, {of("[3]"), values({3})}); },
                 "mode 'pdpd' is Broadcast-1's");
}

TEST(data_movement, pad_12_crops_and_checks_reflect_pads) {
  EXPECT_EQ(shape_of(run("Pad", 12, {{"pad_mode", "constant"}}, {of("[1,3,4]"), values({0, -1, 2}), values({0, 1, -3})})),
            "[1,3,3]");
  EXPECT_EQ(shape_of(run("Pad", 12, {{"pad_mode", "reflect"}}, {of("[1,3,?]"), values({0, 2, 5}), values({0, 2, 5})})),
            "[1,7,10..]");
  EXPECT_EQ(shape_of(run("Pad", 12, {{"pad_mode", "symmetric"}}, {of("[3]"), values({3}), values({3})})), "[9]");
  expect_refused([] { (void)run("Pad", 12, {{"pad_mode", "reflect"}}, {of("[3]"), values({3}), values({0})}); },
                 "the pad 3 of dimension 0 (3) is too large for reflect padding");
  expect_refused([] { (void)run("Pad", 12, {{"pad_mode", "symmetric"}}, {of("[3]"), values({0}), values({4})}); },
                 "too large for symmetric padding");
  expect_refused([] { (void)run("Pad", 12, {{"pad_mode", "wrap"}}, {of("[3]"), values({0}), values({4})}); },
                 "pad_mode 'wrap'");
  expect_refused([] { (void)run("Pad", 12, {}, {of("[3,3]"), values({0}), values({1})}); }, "pads of lengths 1 and 1");
}

TEST(data_movement, depth_to_space_space_to_depth_shuffle_channels) {
  EXPECT_EQ(shape_of(run("DepthToSpace", 1, {{"mode", "blocks_first"}, {"block_size", "2"}}, {of("[1,12,5,?]")})),
            "[1,3,10,?]");
  EXPECT_EQ(shape_of(run("DepthToSpace", 1, {{"mode", "depth_first"}, {"block_size", "2"}}, {of("[2,16,2,3,4]")})),
            "[2,2,4,6,8]");
  EXPECT_EQ(shape_of(run("SpaceToDepth", 1, {{"mode", "blocks_first"}, {"block_size", "2"}}, {of("[1,3,10,?]")})),
            "[1,12,5,?]");
  EXPECT_EQ(shape_of(run("SpaceToDepth", 1, {{"mode", "depth_first"}, {"block_size", "3"}}, {of("[1,2,9,6]")})),
            "[1,18,3,2]");
  EXPECT_EQ(shape_of(run("ShuffleChannels", 1, {{"axis", "1"}, {"group", "3"}}, {of("[1,12,5,5]")})), "[1,12,5,5]");
  EXPECT_EQ(shape_of(run("ShuffleChannels", 1, {{"axis", "-1"}, {"group", "2"}}, {of("[?,4]")})), "[?,4]");
  expect_refused([] { (void)run("DepthToSpace", 1, {{"mode", "blocks_first"}, {"block_size", "2"}}, {of("[1,6,5,5]")}); },
                 "the channels (6) is not a multiple of 4");
  expect_refused([] { (void)run("DepthToSpace", 1, {{"mode", "sideways"}, {"block_size", "2"}}, {of("[1,8,5,5]")}); },
                 "mode 'sideways'");
  expect_refused([] { (void)run("DepthToSpace", 1, {{"mode", "blocks_first"}, {"block_size", "2"}}, {of("[1,8]")}); },
                 "must have rank 3 or more");
  expect_refused([] { (void)run("SpaceToDepth", 1, {{"mode", "blocks_first"}, {"block_size", "2"}}, {of("[1,3,5,4]")}); },
                 "spatial dimension 2 (5) is not a multiple of 2");
  expect_refused([] { (void)run("SpaceToDepth", 1, {{"mode", "blocks_first"}, {"block_size", "0"}}, {of("[1,3,4,4]")}); },
                 "block_size is 0");
  expect_refused([] { (void)run("ShuffleChannels", 1, {{"axis", "1"}, {"group", "5"}}, {of("[1,12]")}); },
                 "dimension 1 (12) is not a multiple of group 5");
  expect_refused([] { (void)run("ShuffleChannels", 1, {{"axis", "2"}, {"group", "1"}}, {of("[1,12]")}); },
                 "axis 2 is out of range for rank 2");
}

TEST(data_movement, slice_8_clamps_like_python) {
  // start, stop, step and axes: dimension 0 from 1 to 9 by 2 (1, 3, 5, 7), dimension 2 from -3 to the end.
  EXPECT_EQ(shape_of(run("Slice", 8, {},
                         {of("[10,8,6]"), values({1, -3}), values({9, 100}), values({2, 1}), values({0, 2})})),
            "[4,8,3]");
  // Without axes: the first ones, in order; a negative step walks back (8, 5, 2).
  EXPECT_EQ(shape_of(run("Slice", 8, {}, {of("[10,8]"), values({0, 1}), values({5, 8}), values({1, 3})})), "[5,3]");
  EXPECT_EQ(shape_of(run("Slice", 8, {}, {of("[10]"), values({8}), values({1}), values({-3})})), "[3]");
  EXPECT_EQ(shape_of(run("Slice", 8, {}, {of("[10]"), values({20}), values({30}), values({1})})), "[0]");
  // A dynamic dimension sliced from the start by a known amount keeps an upper bound.
  EXPECT_EQ(shape_of(run("Slice", 8, {}, {of("[?,4]"), values({0}), values({2}), values({1}), values({0})})),
            "[..2,4]");
  // Unknown start: the rank, and the sliced axis at most its extent.
  EXPECT_EQ(shape_of(run("Slice", 8, {},
                         {of("[10,8]"), of("[1]", element_type::i64), values({2}), values({1}), values({0})})),
            "[..10,8]");
  const auto v = run("Slice", 8, {}, {values({1, 3, 8, 14}), values({1}), values({3}), values({1}), values({0})});
  EXPECT_EQ(shape_of(v), "[2]");
  EXPECT_EQ(model::detail::exact_values(v[0].value), (std::vector<std::int64_t>{3, 8}));
  expect_refused([] { (void)run("Slice", 8, {}, {of("[10]"), values({0}), values({5}), values({0})}); },
                 "step[0] is 0");
  // start, stop, step and axes are 1-D integer tensors: a [1,1] start is refused even when its value is known.
  expect_refused([] { (void)run("Slice", 8, {}, {of("[10,8]"), values({0}, "[1,1]"), values({5}), values({1})}); },
                 "start (input 1) must be a 1-D tensor, got shape [1,1]");
  expect_refused([] { (void)run("Slice", 8, {}, {of("[10,8]"), values({0}), of("[1]", element_type::f32), values({1})}); },
                 "stop (input 2) is f32, not an integer type");
  expect_refused([] {
    (void)run("Slice", 8, {}, {of("[10,8]"), values({0, 0}), values({5, 5}), values({1, 1}), values({1, -1})});
  }, "axis 1 is sliced twice");
}

TEST(data_movement, slice_8_starts_a_backward_slice_before_the_first_element_at_it) {
  // x[-4::-2] of 3 elements: ONNX's Slice and OpenVINO's Slice-8 clamp the start to element 0 and take it
  // (ONNX Runtime: 1); Python and StridedSlice take nothing.
  EXPECT_EQ(shape_of(run("Slice", 8, {}, {of("[3]"), values({-4}), values({-100}), values({-2})})), "[1]");
  EXPECT_EQ(shape_of(run("StridedSlice", 1, {{"begin_mask", "0"}, {"end_mask", "0"}},
                         {of("[3]"), values({-4}), values({-100}), values({-2})})),
            "[0]");
  // Of an empty dimension, nothing either way.
  EXPECT_EQ(shape_of(run("Slice", 8, {}, {of("[0]"), values({-4}), values({-100}), values({-2})})), "[0]");
}

TEST(data_movement, a_sliced_interval_holds_every_length_its_sizes_give) {
  // x[2:-5:-1] of n elements takes 1, 3, 3, 2, 0 of n = 1, 3, 4, 5, 7: not the lengths at the ends alone.
  EXPECT_EQ(shape_of(run("Slice", 8, {}, {of("[1..7]"), values({2}), values({-5}), values({-1})})), "[..3]");
  // x[-3:2] takes 1, 2, 2, 1, 0 of n = 1, 2, 3, 4, 5.
  EXPECT_EQ(shape_of(run("Slice", 8, {}, {of("[1..5]"), values({-3}), values({2}), values({1})})), "[..2]");
  // A length that only grows or only shrinks: its ends (x[1:] of 2..9 is 1..8).
  EXPECT_EQ(shape_of(run("Slice", 8, {}, {of("[2..9]"), values({1}), values({100}), values({1})})), "[1..8]");
  // From an empty dimension: x[-3:-3:-1] takes none of 0 elements, then 1 of 1 and 2 (element 0: the start
  // clamps to it, the end to before it), then none.
  EXPECT_EQ(shape_of(run("Slice", 8, {}, {of("[0..3]"), values({-3}), values({-3}), values({-1})})), "[..1]");
  EXPECT_EQ(shape_of(run("Slice", 8, {}, {of("[?]"), values({-3}), values({-3}), values({-1})})), "[..1]");
  // A start of INT64_MIN stepping backwards: element 0 of any size from 1 (no overflow on the way).
  EXPECT_EQ(shape_of(run("Slice", 8, {}, {of("[1..5]"), values({std::numeric_limits<std::int64_t>::min()}),
                                          values({std::numeric_limits<std::int64_t>::min()}), values({-1})})),
            "[1]");
  // Unbounded and shrinking: x[-10:-2:-1] takes 1 element of 1, none from 2 on.
  EXPECT_EQ(shape_of(run("Slice", 8, {}, {of("[1..]"), values({-10}), values({-2}), values({-1})})), "[..1]");
}

// RandomUniform-8: the shape its input holds, of output_type; no values (each run draws others).
TEST(data_movement, random_uniform_has_the_shape_asked_and_no_values) {
  const std::vector<std::pair<std::string, std::string>> attributes{{"output_type", "f32"}, {"global_seed", "0"}, {"op_seed", "0"}};
  const auto r = run("RandomUniform", 8, attributes, {values({2, 0, 3}), reals({0.0}), reals({1.0})});
  EXPECT_EQ(shape_of(r), "[2,0,3]");
  EXPECT_EQ(r[0].type, element_type::f32);
  EXPECT_FALSE(r[0].value);
  // A shape known by its length only: that many dimensions, unknown.
  EXPECT_EQ(shape_of(run("RandomUniform", 8, {{"output_type", "i64"}}, {of("[2]", element_type::i64), reals({0.0}), reals({5.0})})),
            "[?,?]");
  EXPECT_EQ(run("RandomUniform", 8, {{"output_type", "i64"}}, {values({1}), reals({0.0}), reals({5.0})})[0].type, element_type::i64);
  expect_refused([&] { (void)run("RandomUniform", 8, attributes, {values({2, -1}), reals({0.0}), reals({1.0})}); },
                 "the output shape's element 1 is -1, a negative extent");
  expect_refused([&] { (void)run("RandomUniform", 8, attributes, {of("[2,2]", element_type::i64), reals({0.0}), reals({1.0})}); },
                 "the output shape [2,2] must be 1-D");
  expect_refused([&] { (void)run("RandomUniform", 8, attributes, {values({2}), reals({1.0}), reals({1.0})}); },
                 "the least value 1 is not below the greatest 1");
  expect_refused([&] { (void)run("RandomUniform", 8, attributes, {values({2}), of("[2]"), reals({1.0})}); },
                 "the least value [2] must be a scalar or of one element");
  expect_refused([] { (void)run("RandomUniform", 8, {{"output_type", "boolean"}}, {values({2}), reals({0.0}), reals({1.0})}); },
                 "output_type 'boolean' is not i32, i64, f16, bf16, f32 or f64");
}

}  // namespace
}  // namespace reshape1::test
