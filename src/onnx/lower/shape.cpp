// ONNX's nodes that move data without computing it: Reshape (allowzero is the opposite of special_zero),
// the nodes that read or build shapes, and those that change one (Flatten, Squeeze, Transpose, Concat,
// Split, Slice, Expand, Tile, Pad...). Where ONNX moved an attribute to an input, each form has its row.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {

/// The pattern that flattens x to 2-D at `axis` (Flatten): [1,-1] at 0, [0,-1] at 1, else the product of
/// the dimensions before the axis, then that of the others. Those dimensions are the pieces of a VariadicSplit of the
/// shape ([axis, -1], or [-1, -axis] for a negative axis), whose rule refuses an axis past the rank as ONNX
/// Runtime does (a slice would clamp it).
source flattening_pattern(node_context& c, source x, std::int64_t axis) {
  if (axis == 0) return c.i64({1, -1});
  if (axis == 1) return c.i64({0, -1});
  // The dimensions from the axis on, for a negative one (its magnitude: INT64_MIN's is out of range anyway).
  const auto from_end = axis == std::numeric_limits<std::int64_t>::min() ? std::numeric_limits<std::int64_t>::max() : -axis;
  auto lengths = axis > 0 ? std::vector<std::int64_t>{axis, -1} : std::vector<std::int64_t>{-1, from_end};
  const auto before = c.add("VariadicSplit", 1, {c.shape_of(x), c.i64({0}), c.i64(std::move(lengths))}, {}, 2);
  // Both products, not a -1: of an empty input ([1,0,5,2] at axis -1) the second is 2 all the same, which a
  // -1 next to a 0 cannot say.
  const source after{before.layer, 1};
  return c.add("Concat", 1,
               {c.add("ReduceProd", 1, {before, c.i64({0})}, {{"keep_dims", "true"}}),
                c.add("ReduceProd", 1, {after, c.i64({0})}, {{"keep_dims", "true"}})},
               {{"axis", "0"}});
}

namespace {

/// Marks a Reshape lowered from an ONNX Reshape node: ONNX Runtime refuses a -1 beside another output
/// dimension of 0 ("Product cannot be 0 in combination with -1"), where OpenVINO's rule infers a value
/// (shape_ops.cpp reads the mark). The Reshapes other translations write (Flatten's) keep OpenVINO's rule.
const std::pair<std::string, std::string> onnx_reshape{"onnx_empty_strict", "true"};
void reshape5(node_context& c) {
  const bool allowzero = c.version() >= 14 && c.i("allowzero", 0) != 0;
  c.output(0, c.add("Reshape", 1, {c.need(0), c.need(1)}, {{"special_zero", allowzero ? "false" : "true"}, onnx_reshape}));
}
// Reshape-1: the pattern is the `shape` attribute (0 copies, -1 infers, as from 5 on).
void reshape1(node_context& c) {
  const auto shape = c.ints("shape");
  if (!shape) c.bad("Reshape-1 needs the attribute shape");
  c.output(0, c.add("Reshape", 1, {c.need(0), c.i64(*shape)}, {{"special_zero", "true"}, onnx_reshape}));
}
void shape1(node_context& c) { c.output(0, c.shape_of(c.need(0))); }
void shape15(node_context& c) {
  const auto s = c.shape_of(c.need(0));
  const auto start = c.i("start", 0);
  const auto end = c.i("end");
  if (start == 0 && !end) return c.output(0, s);
  c.output(0, c.add("Slice", 8, {s, c.i64({start}), c.i64({end.value_or(std::numeric_limits<std::int64_t>::max())}), c.i64({1})}));
}
void size(node_context& c) {
  c.output(0, c.add("ReduceProd", 1, {c.shape_of(c.need(0)), c.i64({0})}, {{"keep_dims", "false"}}));
}
void flatten(node_context& c) {
  const auto x = c.need(0);
  const auto axis = c.i("axis", 1);
  c.output(0, c.add("Reshape", 1, {x, flattening_pattern(c, x, axis)}, {{"special_zero", axis == 1 ? "true" : "false"}}));
}
/// Squeeze and Unsqueeze: axes from the attribute (before 13) or the second input.
source axes_input(node_context& c, bool attribute) {
  if (attribute) {
    const auto axes = c.ints("axes");
    if (!axes) c.bad("needs the attribute axes");
    return c.i64(*axes);
  }
  return c.need(1);
}
// An empty list of axes, however given, is read as none by the Squeeze rule for a model from ONNX.
void squeeze1(node_context& c) {
  if (const auto axes = c.ints("axes")) return c.output(0, c.add("Squeeze", 1, {c.need(0), c.i64(*axes)}));
  c.output(0, c.add("Squeeze", 1, {c.need(0)}));
}
void squeeze13(node_context& c) {
  refuse_listed_but_left_out(c, 1, "axes");
  if (const auto axes = c.input(1)) return c.output(0, c.add("Squeeze", 1, {c.need(0), *axes}));
  c.output(0, c.add("Squeeze", 1, {c.need(0)}));
}
void unsqueeze1(node_context& c) { c.output(0, c.add("Unsqueeze", 1, {c.need(0), axes_input(c, true)})); }
void unsqueeze13(node_context& c) { c.output(0, c.add("Unsqueeze", 1, {c.need(0), axes_input(c, false)})); }
void transpose(node_context& c) {
  const auto x = c.need(0);
  if (const auto perm = c.ints("perm")) return c.output(0, c.add("Transpose", 1, {x, c.i64(*perm)}));
  // No perm: the axes reversed.
  const auto rank = c.rank_of(x);
  const auto last = c.add("Subtract", 1, {rank, c.i64({1}, std::vector<std::int64_t>{})}, {{"auto_broadcast", "numpy"}});
  const auto order = c.add("Range", 4, {last, c.i64({-1}, std::vector<std::int64_t>{}), c.i64({-1}, std::vector<std::int64_t>{})},
                           {{"output_type", "i64"}});
  c.output(0, c.add("Transpose", 1, {x, order}));
}
void concat(node_context& c) {
  // Every one of the list is read: ONNX Runtime fails on one left out (named "").
  std::vector<source> in;
  for (std::size_t k = 0; k < c.inputs(); ++k) in.push_back(c.need(k));
  const auto axis = c.i("axis");
  if (!axis) c.bad("Concat needs the attribute axis");
  c.output(0, c.add("Concat", 1, std::move(in), {{"axis", fmt::format("{}", *axis)}}));
}
/// Split: given lengths (attribute before 13, input from 13), or equal parts.
void split(node_context& c) {
  const auto x = c.need(0);
  const auto axis = c.i("axis", 0);
  const auto n = c.outputs();
  std::optional<source> lengths;
  if (c.version() < 13) {
    if (const auto s = c.ints("split")) lengths = c.i64(*s);
  } else {
    lengths = c.input(1);
  }
  // From 18 a Split takes its lengths or num_outputs, one of the two: ONNX Runtime refuses both and neither.
  if (c.version() >= 18 && lengths.has_value() == c.i("num_outputs").has_value())
    c.bad(lengths ? "it has both a split input and num_outputs" : "it has neither a split input nor num_outputs",
          "Split takes one of the two from opset 18");
  const auto axis_const = c.i64({axis}, std::vector<std::int64_t>{});
  // A num_outputs above the node's outputs: ONNX Runtime splits into as many parts as the node has outputs.
  const auto parts_count = std::min(c.i("num_outputs", static_cast<std::int64_t>(n)), static_cast<std::int64_t>(n));
  node_context::attributes parts{{"num_splits", fmt::format("{}", parts_count)}};
  // Split-18's num_outputs: the last part is smaller where the axis does not divide (ONNX's spec).
  if (c.i("num_outputs")) parts.emplace_back("onnx_last_smaller", "true");
  source y = lengths ? c.add("VariadicSplit", 1, {x, axis_const, *lengths}, {}, n)
                     : c.add("Split", 1, {x, axis_const}, std::move(parts), n);
  for (std::size_t k = 0; k < n; ++k) c.output(k, source{y.layer, k});
}
/// ONNX Runtime slices no scalar ("Cannot slice scalars", when it runs): refused where the rank is declared.
source sliced_data(node_context& c) {
  if (const auto r = c.rank(0); r && *r == 0) c.bad("its input is a scalar", "ONNX Runtime slices no scalar");
  return c.need(0);
}
void slice1(node_context& c) {
  const auto starts = c.ints("starts");
  const auto ends = c.ints("ends");
  if (!starts || !ends) c.bad("Slice needs the attributes starts and ends");
  std::vector<std::int64_t> axes = c.ints("axes").value_or(std::vector<std::int64_t>{});
  if (axes.empty())
    for (std::size_t k = 0; k < starts->size(); ++k) axes.push_back(static_cast<std::int64_t>(k));
  c.output(0, c.add("Slice", 8, {sliced_data(c), c.i64(*starts), c.i64(*ends), c.i64(std::vector<std::int64_t>(starts->size(), 1)),
                                 c.i64(axes)}));
}
void slice10(node_context& c) {
  const auto data = sliced_data(c);
  const auto starts = c.need(1);
  std::vector<source> in{data, starts, c.need(2)};
  if (const auto steps = c.input(4)) {
    in.push_back(*steps);
  } else {
    in.push_back(c.add("Broadcast", 3, {c.i64({1}, std::vector<std::int64_t>{}), c.shape_of(starts)}, {{"mode", "numpy"}}));
  }
  if (const auto axes = c.input(3)) in.push_back(*axes);
  c.output(0, c.add("Slice", 8, std::move(in)));
}
// Crop (experimental, ONNX Runtime's version 1): [N, C, H, W] cut to the rows and columns inside `border`
// (left, top, right, bottom), or `scale` (height, width) of them from the top left border. ONNX Runtime's
// checks when it runs: four borders, an input of rank 4, and the window within the map. It reads past its
// lists where a border or a size is negative, or `scale` is not two values: refused here.
void crop_image(node_context& c) {
  const auto border = c.ints("border");
  if (!border || border->size() != 4)
    c.bad(fmt::format("its border has {} values", border ? border->size() : 0), "Crop takes four borders: left, top, right, bottom");
  const auto sizes = c.ints("scale");
  if (sizes && !sizes->empty() && sizes->size() != 2)
    c.bad(fmt::format("its scale has {} values", sizes->size()), "Crop's scale is a height and a width");
  const bool scaled = sizes && !sizes->empty();
  // (Within 2^60, so that the sums of two stay within int64.)
  constexpr std::int64_t most = std::int64_t{1} << 60;
  for (const auto v : *border)
    if (v < 0 || v > most) c.bad(fmt::format("its border holds {}", v), "Crop's borders are from 0 to 2^60");
  if (scaled)
    for (const auto v : *sizes)
      if (v < 0 || v > most) c.bad(fmt::format("its scale holds {}", v), "Crop's sizes are from 0 to 2^60");
  if (const auto r = c.rank(0); r && *r != 4) c.bad(fmt::format("its input has rank {}", *r), "Crop takes [N, C, H, W]");
  const auto x = c.need(0);
  const auto dims = c.shape_of(x);
  static_cast<void>(exactly(c, dims, 0, c.i64({4})));  // of rank 4 where no rank is declared
  const auto map = shape_slice(c, dims, 2, 4);
  const std::vector<std::int64_t> starts{(*border)[1], (*border)[0]};
  const auto ends = scaled ? c.i64({(*border)[1] + (*sizes)[0], (*border)[0] + (*sizes)[1]})
                           : c.add("Subtract", 1, {map, c.i64({(*border)[3], (*border)[2]})}, numpy);
  // The borders within the map, and the window too: what is left between them, or past the window, is no
  // negative extent, which a Broadcast refuses.
  const auto within = [&](source rest) {
    static_cast<void>(c.add("Broadcast", 3, {c.i64({0}, scalar), rest}, {{"mode", "numpy"}}));
  };
  within(c.add("Subtract", 1, {map, c.i64({(*border)[1] + (*border)[3], (*border)[0] + (*border)[2]})}, numpy));
  if (scaled) within(c.add("Subtract", 1, {map, ends}, numpy));
  c.output(0, c.add("Slice", 8, {x, c.i64(starts), ends, c.i64({1, 1}), c.i64({2, 3})}));
}
void expand(node_context& c) {
  c.output(0, c.add("Broadcast", 3, {c.need(0), c.need(1)}, {{"mode", "bidirectional"}}));
}
void tile(node_context& c) {
  // ONNX wants one repeat per input dimension, where OpenVINO's Tile takes any number (it pads the shorter
  // of the two with ones): the attribute tells Tile's rule to refuse any other length.
  c.output(0, c.add("Tile", 1, {c.need(0), c.need(1)}, {{"onnx_exact_repeats", "true"}}));
}
void constant_of_shape(node_context& c) {
  // The value's type decides the output's; its shape does not matter past its one element.
  source value;
  if (const auto* a = c.attribute("value"); a != nullptr && a->has_t()) {
    if (a->t().data_type() == ::onnx::TensorProto::STRING)
      c.bad("its value is a string", "ONNX Runtime has no ConstantOfShape of strings, and refuses the model");
    ::onnx::TensorProto t = a->t();
    t.clear_dims();
    value = c.constant_tensor(t);
  } else {
    value = c.f32({0.0F}, true);
  }
  c.output(0, c.add("Broadcast", 3, {value, c.need(0)}, {{"mode", "numpy"}}));
}
// Range-1: the output has the inputs' element type (a float range counts in floats: 0.5 to 7.2 by 1.5 is 5
// values), as ONNX's Range does; Range-4 would write one output type for every range.
void range(node_context& c) { c.output(0, c.add("Range", 1, {c.need(0), c.need(1), c.need(2)})); }
void range_ms(node_context& c) {
  const auto start = c.need(0);
  const auto delta = c.input(2) ? *c.input(2) : c.add("ConvertLike", 1, {c.i64({1}, std::vector<std::int64_t>{}), start});
  c.output(0, c.add("Range", 1, {start, c.need(1), delta}));
}
void constant(node_context& c) {
  // ONNX Runtime reads a Constant's first attribute, whatever follows it (ONNX's checker allows only one),
  // and reads a value_int(s) or value_float(s) by its declared type: so does reshape1.
  if (c.node().attribute_size() == 0)
    c.bad("it has no attribute", "a Constant holds its value in one attribute: value, value_int(s), value_float(s), "
                                 "value_string(s) or sparse_value");
  const auto& a = c.node().attribute(0);
  if (a.name() == "value") {
    if (!a.has_t()) c.bad("attribute value is not a tensor");
    return c.output_constant(0, a.t());
  }
  // The other forms are the same tensor written shorter: made that tensor, so that a value_ints is a
  // constant to the nodes that read it (a Reshape's pattern, a Gather's indices), named by its output, and
  // one fix can rewrite, as the `value` form is.
  using A = ::onnx::AttributeProto;
  const bool ints = a.name() == "value_ints" || a.name() == "value_int";
  const bool reals = a.name() == "value_floats" || a.name() == "value_float";
  const bool strings = a.name() == "value_strings" || a.name() == "value_string";
  if (a.name() == "sparse_value") {
    if (!a.has_sparse_tensor()) c.bad("attribute sparse_value is not a sparse tensor");
    return c.output(0, c.sparse_constant(a.sparse_tensor()));
  }
  if (!ints && !reals && !strings) return c.not_covered(fmt::format("a Constant of {} is not covered", a.name()));
  const auto list = ints ? A::INTS : reals ? A::FLOATS : A::STRINGS;
  const auto one = ints ? A::INT : reals ? A::FLOAT : A::STRING;
  if (a.type() != list && a.type() != one)
    c.bad(fmt::format("attribute {} is of type {}, not {} or {}", a.name(), A::AttributeType_Name(a.type()),
                      A::AttributeType_Name(one), A::AttributeType_Name(list)));
  ::onnx::TensorProto t;
  t.set_data_type(ints ? ::onnx::TensorProto::INT64 : reals ? ::onnx::TensorProto::FLOAT : ::onnx::TensorProto::STRING);
  if (a.type() == list) t.add_dims(ints ? a.ints_size() : reals ? a.floats_size() : a.strings_size());
  if (strings) {
    if (a.type() == list) t.mutable_string_data()->CopyFrom(a.strings());
    else t.add_string_data(a.s());
  } else if (ints) {
    if (a.type() == list) t.mutable_int64_data()->CopyFrom(a.ints());
    else t.add_int64_data(a.i());
  } else {
    if (a.type() == list) t.mutable_float_data()->CopyFrom(a.floats());
    else t.add_float_data(a.f());
  }
  c.output_constant(0, std::move(t));
}
/// DepthToSpace and SpaceToDepth take [N, C, H, W] (ONNX's shape inference refuses another rank when ONNX
/// Runtime loads the model; OpenVINO's ops take any rank from 3).
void refuse_unless_4d(const node_context& c) {
  if (const auto r = c.rank(0); r && *r != 4)
    c.bad(fmt::format("its input has rank {}", *r), fmt::format("{} takes [N, C, H, W]", c.node().op_type()));
}
void depth_to_space(node_context& c) {
  refuse_unless_4d(c);
  c.output(0, c.add("DepthToSpace", 1, {c.need(0)},
                    {{"mode", c.s("mode", "DCR") == "CRD" ? "depth_first" : "blocks_first"},
                     {"block_size", fmt::format("{}", c.i("blocksize", 1))}}));
}
void space_to_depth(node_context& c) {
  refuse_unless_4d(c);
  c.output(0, c.add("SpaceToDepth", 1, {c.need(0)},
                    {{"mode", "blocks_first"}, {"block_size", fmt::format("{}", c.i("blocksize", 1))}}));
}

// The window functions (BlackmanWindow, HammingWindow, HannWindow): `size` values, of output_datatype
// (f32 by default).
void window_function(node_context& c) {
  // ONNX Runtime takes a scalar size of 1 at least.
  if (const auto r = c.rank(0); r && *r != 0) c.bad(fmt::format("its size has rank {}", *r), "the size is a scalar");
  if (const auto v = c.constant_ints(0); v && v->size() == 1 && (*v)[0] < 1)
    c.bad(fmt::format("its size is {}", (*v)[0]), "a window has 1 value at least");
  const auto size = c.add("Convert", 1, {c.need(0)}, {{"destination_type", "i64"}});
  const auto positions = c.add("Range", 4, {c.i64({0}, scalar), size, c.i64({1}, scalar)}, {{"output_type", "i64"}});
  const auto to = element_of(static_cast<int>(c.i("output_datatype", 1)));
  if (!to) return c.not_covered(fmt::format("a window of ONNX data type {} is not covered", c.i("output_datatype", 1)));
  c.output(0, c.add("Convert", 1, {positions}, {{"destination_type", std::string(name(*to))}}));
}

// Pad-2 (pads attribute) and Pad-11 (pads input, [begin..., end...]).
void pad_with(node_context& c, source pads, std::optional<source> value) {
  const auto halves = c.add("Split", 1, {pads, c.i64({0}, std::vector<std::int64_t>{})}, {{"num_splits", "2"}}, 2);
  const auto mode = c.s("mode", "constant");
  std::vector<source> in{c.need(0), halves, source{halves.layer, 1}};
  if (value) in.push_back(*value);
  c.output(0, c.add("Pad", 1, std::move(in), {{"pad_mode", mode == "edge" ? "edge" : mode == "reflect" ? "reflect" : "constant"}}));
}
void pad2(node_context& c) {
  const auto pads = c.ints("pads");
  if (!pads) c.bad("Pad needs the attribute pads");
  pad_with(c, c.i64(*pads), c.f32({c.f("value", 0.0F)}, true));
}
/// Per-axis amounts (1-D, one for each entry of `axes`, a negative axis counting from x's rank) as a vector
/// of one amount per dimension of x, 0 on the others: what Pad-12 takes.
source over_axes(node_context& c, source x, source axes, source amounts) {
  const auto zeros = c.add("Broadcast", 3, {c.i64({0}, scalar), c.shape_of(c.shape_of(x))}, {{"mode", "numpy"}});
  const auto at = c.add("Convert", 1, {axes}, {{"destination_type", "i64"}});
  return c.add("ScatterUpdate", 3, {zeros, at, c.add("Convert", 1, {amounts}, {{"destination_type", "i64"}}), c.i64({0}, scalar)});
}
/// Pad-11 on: pads [begin..., end...], of every axis, or (from 18) of the axes input's.
void pad11(node_context& c) {
  const auto axes = c.input(3);
  if (!axes) return pad_with(c, c.need(1), c.input(2));
  if (c.version() < 18) c.bad(fmt::format("it has an axes input at version {}", c.version()), "Pad takes axes from version 18");
  // ONNX Runtime pads no axis twice, and takes two pads for each axis.
  if (const auto v = c.constant_ints(3)) {
    const auto r = c.rank(0);
    std::vector<std::int64_t> seen;
    for (const auto a : *v) {
      const auto n = r && a < 0 ? a + static_cast<std::int64_t>(*r) : a;
      if (std::find(seen.begin(), seen.end(), n) != seen.end())
        c.bad(fmt::format("axis {} is given twice in its axes", a), "each axis is padded once");
      seen.push_back(n);
    }
    if (const auto pads = c.constant_ints(1); pads && pads->size() != 2 * v->size())
      c.bad(fmt::format("it has {} pads for {} axes", pads->size(), v->size()), "two pads for each axis, the befores then the afters");
  }
  const auto x = c.need(0);
  const auto halves = c.add("Split", 1, {c.need(1), c.i64({0}, std::vector<std::int64_t>{})}, {{"num_splits", "2"}}, 2);
  const auto mode = c.s("mode", "constant");
  std::vector<source> in{x, over_axes(c, x, *axes, halves), over_axes(c, x, *axes, source{halves.layer, 1})};
  if (const auto value = c.input(2)) in.push_back(*value);
  c.output(0, c.add("Pad", 12, std::move(in), {{"pad_mode", mode == "edge" ? "edge" : mode == "reflect" ? "reflect" : "constant"}}));
}

// CenterCropPad-18: each of `axes` (all by default) padded, then cropped, to the size `shape` gives it, the
// input centred: ONNX's function body (pad by max(size, target) - size, half of it before, rounded down; then
// a slice of target elements from half of what is over, rounded down), which ONNX Runtime runs.
void center_crop_pad(node_context& c) {
  // ONNX's schema takes an int32 shape, but its function body takes the maximum of it and the input's int64
  // shape, which ONNX Runtime's type check of the expanded body refuses ("bound to different types").
  if (c.declared_type(1) == element_type::i32)
    c.bad("its shape (input 1) is int32, which ONNX Runtime refuses when it expands the op's function body",
          "give the shape as int64");
  const auto x = c.need(0);
  const auto target = c.add("Convert", 1, {c.need(1)}, {{"destination_type", "i64"}});
  const auto axes = c.ints("axes");
  const auto rank = c.rank(0);
  if (rank && *rank == 0) c.bad("its input is a scalar", "CenterCropPad takes an input of rank 1 at least");
  if (axes) {
    // ONNX's shape inference refuses an axis out of range or given twice.
    std::vector<std::int64_t> seen;
    for (const auto a : *axes) {
      const auto r = rank ? static_cast<std::int64_t>(*rank) : 0;
      if (rank && (a < -r || a >= r)) c.bad(fmt::format("axis {} is out of range for an input of rank {}", a, r));
      const auto n = rank && a < 0 ? a + r : a;
      if (std::find(seen.begin(), seen.end(), n) != seen.end()) c.bad(fmt::format("axis {} is given twice", a));
      seen.push_back(n);
    }
  }
  // ONNX's shape inference, which ONNX Runtime runs when it loads the model, takes one size for each axis.
  const auto count = axes ? std::optional(axes->size()) : rank;
  if (const auto d = c.constant_dims(1); d && d->size() != 1) c.bad(fmt::format("its shape has rank {}", d->size()), "shape is 1-D");
  if (const auto d = c.constant_dims(1); d && count && static_cast<std::size_t>((*d)[0]) != *count)
    c.bad(fmt::format("its shape holds {} sizes for {} axes", (*d)[0], *count), "one size for each axis");
  const auto sizes = axes ? c.add("Gather", 8, {c.shape_of(x), c.i64(*axes), c.i64({0}, std::vector<std::int64_t>{})}, {{"batch_dims", "0"}})
                          : c.shape_of(x);
  const auto padded = c.add("Maximum", 1, {sizes, target}, numpy);
  const auto two = c.i64({2}, std::vector<std::int64_t>{});
  const auto pad = c.add("Subtract", 1, {padded, sizes}, numpy);
  const auto before = c.add("Divide", 1, {pad, two}, numpy);
  const auto after = c.add("Subtract", 1, {pad, before}, numpy);
  const auto full = [&](source amounts) { return axes ? over_axes(c, x, c.i64(*axes), amounts) : amounts; };
  const auto p = c.add("Pad", 12, {x, full(before), full(after), c.add("ConvertLike", 1, {c.f32({0.0F}, true), x})},
                       {{"pad_mode", "constant"}});
  const auto start = c.add("Divide", 1, {c.add("Subtract", 1, {padded, target}, numpy), two}, numpy);
  const auto stop = c.add("Add", 1, {start, target}, numpy);
  std::vector<source> in{p, start, stop, c.add("Broadcast", 3, {c.i64({1}, std::vector<std::int64_t>{}), c.shape_of(start)}, {{"mode", "numpy"}})};
  if (axes) in.push_back(c.i64(*axes));
  c.output(0, c.add("Slice", 8, std::move(in)));
}

}  // namespace

std::span<const onnx_entry> shape_rows() {
  static const std::vector<onnx_entry> rows = {
      {"Reshape", 1, reshape1}, {"Reshape", 5, reshape5}, {"Reshape", 14, reshape5}, {"Shape", 1, shape1}, {"Shape", 15, shape15},
      {"Size", 1, size}, {"Flatten", 1, flatten}, {"Squeeze", 1, squeeze1}, {"Squeeze", 13, squeeze13},
      {"Unsqueeze", 1, unsqueeze1}, {"Unsqueeze", 13, unsqueeze13}, {"Transpose", 1, transpose},
      {"Concat", 4, concat}, {"Split", 2, split}, {"Split", 13, split}, {"Split", 18, split},
      {"Slice", 1, slice1}, {"Slice", 10, slice10}, {"DynamicSlice", 1, slice10}, {"Crop", 1, crop_image}, {"Expand", 8, expand}, {"Tile", 6, tile},
      {"ConstantOfShape", 9, constant_of_shape}, {"Range", 11, range}, {"Constant", 1, constant},
      {"DepthToSpace", 1, depth_to_space}, {"SpaceToDepth", 1, space_to_depth}, {"Pad", 2, pad2},
      {"Pad", 11, pad11}, {"Pad", 18, pad11},
      // com.microsoft's Range (delta optional, 1 by default) and Pad (as ONNX's Pad-11).
      {"Range", 1, range_ms, "com.microsoft"}, {"Pad", 1, pad11, "com.microsoft"},
      {"BlackmanWindow", 17, window_function}, {"HammingWindow", 17, window_function},
      {"HannWindow", 17, window_function}, {"CenterCropPad", 18, center_crop_pad},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
