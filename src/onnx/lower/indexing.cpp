// ONNX's nodes that pick or place elements by index (Gather, Scatter, NonZero, Compress, ReverseSequence),
// and those that compare indices: Trilu keeps the elements whose row and column lie in a triangle, EyeLike
// and OneHot put ones where they meet. Most are small graphs of the IR's ops that compute the same indices.
#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

void gather(node_context& c) {
  c.output(0, c.add("Gather", 8, {c.need(0), c.need(1), c.i64({c.i("axis", 0)}, std::vector<std::int64_t>{})},
                    {{"batch_dims", "0"}}));
}
void gather_elements(node_context& c) {
  c.output(0, c.add("GatherElements", 6, {c.need(0), c.need(1)}, {{"axis", fmt::format("{}", c.i("axis", 0))}}));
}
void gather_nd(node_context& c) {
  c.output(0, c.add("GatherND", 8, {c.need(0), c.need(1)}, {{"batch_dims", fmt::format("{}", c.i("batch_dims", 0))}}));
}
void non_zero(node_context& c) { c.output(0, c.add("NonZero", 3, {c.need(0)}, {{"output_type", "i64"}})); }
/// A scatter's reduction as OpenVINO's scatters name it: ONNX's add and mul are sum and prod; max and min
/// (which ONNX adds at 18 and ONNX Runtime runs at 16 too) keep their names. ONNX Runtime's CPU kernels read
/// any other value as none (they run "foo", "" and ScatterElements' "mean" as a plain update), and so does
/// reshape1: the shapes do not depend on it.
std::string scatter_reduction(const node_context& c) {
  const auto r = c.s("reduction", "none");
  return r == "add" ? "sum" : r == "mul" ? "prod" : r == "max" || r == "min" ? r : "none";
}
void scatter_elements(node_context& c) {
  c.output(0, c.add("ScatterElementsUpdate", 12, {c.need(0), c.need(1), c.need(2), c.i64({c.i("axis", 0)}, std::vector<std::int64_t>{})},
                    {{"reduction", scatter_reduction(c)}, {"use_init_val", "true"}}));
}
/// ScatterND: OpenVINO's ScatterNDUpdate; from 16 a reduction, which ScatterNDUpdate-15 takes.
void scatter_nd(node_context& c) {
  const auto reduction = scatter_reduction(c);
  if (reduction == "none") return c.output(0, c.add("ScatterNDUpdate", 4, {c.need(0), c.need(1), c.need(2)}));
  c.output(0, c.add("ScatterNDUpdate", 15, {c.need(0), c.need(1), c.need(2)}, {{"reduction", reduction}}));
}
// Trilu: one triangle of each matrix in the last two axes kept, the rest zero. The mask compares column
// minus row with k, so an axis the batch is folded into keeps a meaning per position, as the batch rules
// then see.
void trilu(node_context& c) {
  const auto x = c.need(0);
  const auto shape = c.shape_of(x);
  const auto dim = [&](std::int64_t axis) {
    return c.add("Gather", 8, {shape, c.i64({axis}, scalar), c.i64({0}, scalar)}, {{"batch_dims", "0"}});
  };
  const auto rows = c.add("Unsqueeze", 1, {c.add("Range", 4, {c.i64({0}, scalar), dim(-2), c.i64({1}, scalar)},
                                                 {{"output_type", "i64"}}),
                                           c.i64({1})});
  const auto cols = c.add("Range", 4, {c.i64({0}, scalar), dim(-1), c.i64({1}, scalar)}, {{"output_type", "i64"}});
  const auto diff = c.add("Subtract", 1, {cols, rows}, {{"auto_broadcast", "numpy"}});
  const auto k = c.input(1) ? *c.input(1) : c.i64({0}, scalar);
  const auto mask = c.add(c.i("upper", 1) != 0 ? "GreaterEqual" : "LessEqual", 1, {diff, k}, {{"auto_broadcast", "numpy"}});
  const auto zero = c.add("Subtract", 1, {x, x}, {{"auto_broadcast", "numpy"}});  // zeros of x's type
  c.output(0, c.add("Select", 1, {mask, x, zero}, {{"auto_broadcast", "numpy"}}));
}

/// A scalar of input i, which ONNX gives as a scalar or as a 1-D tensor of one element (a Reshape to a
/// scalar, which refuses any other count).
source scalar_of(node_context& c, std::size_t i) {
  const auto x = c.need(i);
  if (const auto r = c.rank(i); r && *r == 0) return x;
  return c.add("Reshape", 1, {x, c.i64({}, std::vector<std::int64_t>{0})}, {{"special_zero", "false"}});
}

// OneHot: each index compared with 0..depth-1 along a new axis at `axis`, giving `values`[1] where equal
// and `values`[0] elsewhere; a negative index counts from depth. The indices get the new axis as a 1
// (Unsqueeze: a negative axis counts from the output's rank, as OneHot's does) and 0..depth-1 is shaped to
// lie along it (ones elsewhere, the shape computed from the indices' rank when the graph runs).
void one_hot(node_context& c) {
  const auto axis = c.i("axis", -1);
  const auto rank = c.rank(0);
  if (rank && *rank == 0) c.bad("its indices are a scalar", "OneHot takes indices of rank 1 at least");
  // ONNX Runtime refuses a depth below 1 and values of other than two elements.
  if (const auto depth = c.constant_reals(1); depth && depth->size() == 1 && (*depth)[0] < 1)
    c.bad(fmt::format("its depth is {}", (*depth)[0]), "OneHot's depth is 1 at least");
  if (const auto dims = c.constant_dims(2)) {
    std::int64_t count = 1;
    for (const auto d : *dims) count *= d;
    if (count != 2) c.bad(fmt::format("its values hold {} elements", count), "OneHot's values are [off, on]");
  }
  if (rank && (axis < -static_cast<std::int64_t>(*rank) - 1 || axis > static_cast<std::int64_t>(*rank)))
    c.bad(fmt::format("axis {} is out of range for indices of rank {}", axis, *rank));
  const auto depth = c.add("Convert", 1, {scalar_of(c, 1)}, {{"destination_type", "i64"}});
  auto index = c.add("Convert", 1, {c.need(0)}, {{"destination_type", "i64"}});
  index = c.add("Select", 1, {c.add("Less", 1, {index, c.i64({0}, scalar)}, numpy),
                              c.add("Add", 1, {index, depth}, numpy), index},
                numpy);
  auto positions = c.add("Range", 4, {c.i64({0}, scalar), depth, c.i64({1}, scalar)}, {{"output_type", "i64"}});
  const auto expanded = c.add("Unsqueeze", 1, {index, c.i64({axis})});
  if (axis != -1) {
    const auto out_rank = c.shape_of(c.shape_of(expanded));
    const auto ones = c.add("Broadcast", 3, {c.i64({1}, scalar), out_rank}, {{"mode", "numpy"}});
    const auto at = axis >= 0 ? c.i64({axis}) : c.add("Add", 1, {out_rank, c.i64({axis})}, numpy);
    const auto along = c.add("ScatterUpdate", 3, {ones, at, c.add("Unsqueeze", 1, {depth, c.i64({0})}), c.i64({0}, scalar)});
    positions = c.add("Reshape", 1, {positions, along}, {{"special_zero", "false"}});
  }
  const auto hit = c.add("Equal", 1, {expanded, positions}, numpy);
  const auto values = c.need(2);
  const auto pick = [&](std::int64_t k) {
    return c.add("Gather", 8, {values, c.i64({k}, scalar), c.i64({0}, scalar)}, {{"batch_dims", "0"}});
  };
  c.output(0, c.add("Select", 1, {hit, pick(1), pick(0)}, numpy));
}

// Compress: the elements (or slices along `axis`) whose condition is true, gathered at NonZero's
// positions; without an axis, of the input flattened. A condition longer than the axis has its extra
// entries ignored (as ONNX Runtime does): it is cut to the axis's length first.
void compress(node_context& c) {
  auto x = c.need(0);
  if (const auto r = c.rank(0); r && *r == 0) c.bad("its input is a scalar", "Compress takes an input of rank 1 at least");
  const auto axis = c.i("axis");
  if (!axis) x = c.add("Reshape", 1, {x, c.i64({-1})}, {{"special_zero", "false"}});
  const auto length = c.add("Gather", 8, {c.shape_of(x), c.i64({axis.value_or(0)}), c.i64({0}, scalar)}, {{"batch_dims", "0"}});
  const auto condition = c.add("Slice", 8, {c.need(1), c.i64({0}), length, c.i64({1})});
  const auto positions = c.add("Squeeze", 1, {c.add("NonZero", 3, {condition}, {{"output_type", "i64"}}), c.i64({0})});
  c.output(0, c.add("Gather", 8, {x, positions, c.i64({axis.value_or(0)}, scalar)}, {{"batch_dims", "0"}}));
}

// ReverseSequence: each batch entry's first sequence_lens[b] steps along the time axis reversed, the rest
// kept: an index per (time, batch) position, broadcast over the other axes and gathered along time.
void reverse_sequence(node_context& c) {
  const auto batch_axis = c.i("batch_axis", 1), time_axis = c.i("time_axis", 0);
  if (!((batch_axis == 0 && time_axis == 1) || (batch_axis == 1 && time_axis == 0)))
    c.bad(fmt::format("batch_axis {} and time_axis {}", batch_axis, time_axis), "they are 0 and 1, one each");
  if (const auto r = c.rank(0); r && *r < 2) c.bad(fmt::format("its input has rank {}", *r), "ReverseSequence needs rank 2 at least");
  const auto x = c.need(0);
  const auto shape = c.shape_of(x);
  const auto steps = c.add("Gather", 8, {shape, c.i64({time_axis}, scalar), c.i64({0}, scalar)}, {{"batch_dims", "0"}});
  auto t = c.add("Range", 4, {c.i64({0}, scalar), steps, c.i64({1}, scalar)}, {{"output_type", "i64"}});
  // One length per batch entry: a Reshape to the batch's size refuses any other count (ONNX Runtime refuses
  // it), rather than a broadcast letting one length serve every batch.
  const auto batch = c.add("Gather", 8, {shape, c.i64({batch_axis}), c.i64({0}, scalar)}, {{"batch_dims", "0"}});
  auto lengths = c.add("Reshape", 1, {c.add("Convert", 1, {c.need(1)}, {{"destination_type", "i64"}}), batch},
                       {{"special_zero", "false"}});
  // [time, 1] against [1, batch], or [1, time] against [batch, 1].
  if (time_axis == 0) t = c.add("Unsqueeze", 1, {t, c.i64({1})});
  else lengths = c.add("Unsqueeze", 1, {lengths, c.i64({1})});
  const auto reversed = c.add("Subtract", 1, {c.add("Subtract", 1, {lengths, c.i64({1}, scalar)}, numpy), t}, numpy);
  const auto index = c.add("Select", 1, {c.add("Less", 1, {t, lengths}, numpy), reversed, t}, numpy);
  // Ones for the axes after the first two, then broadcast to the input's shape.
  const auto rest = c.add("Subtract", 1, {c.shape_of(shape), c.i64({2})}, numpy);
  const auto ones = c.add("Broadcast", 3, {c.i64({1}, scalar), rest}, {{"mode", "numpy"}});
  const auto pattern = c.add("Concat", 1, {c.shape_of(index), ones}, {{"axis", "0"}});
  const auto full = c.add("Broadcast", 3, {c.add("Reshape", 1, {index, pattern}, {{"special_zero", "false"}}), shape},
                          {{"mode", "numpy"}});
  c.output(0, c.add("GatherElements", 6, {x, full}, {{"axis", fmt::format("{}", time_axis)}}));
}

// EyeLike: ones where column minus row is k, zeros elsewhere, of the input's 2-D shape; of `dtype` or the
// input's type.
void eye_like(node_context& c) {
  if (const auto r = c.rank(0); r && *r != 2) c.bad(fmt::format("its input has rank {}", *r), "EyeLike takes a 2-D input");
  const auto x = c.need(0);
  const auto shape = c.shape_of(x);
  const auto dim = [&](std::int64_t axis) {
    return c.add("Gather", 8, {shape, c.i64({axis}, scalar), c.i64({0}, scalar)}, {{"batch_dims", "0"}});
  };
  const auto range = [&](source n) {
    return c.add("Range", 4, {c.i64({0}, scalar), n, c.i64({1}, scalar)}, {{"output_type", "i64"}});
  };
  const auto rows = c.add("Unsqueeze", 1, {range(dim(0)), c.i64({1})});
  const auto diagonal = c.add("Equal", 1, {c.add("Subtract", 1, {range(dim(1)), rows}, numpy), c.i64({c.i("k", 0)}, scalar)}, numpy);
  if (const auto dtype = c.i("dtype")) {
    const auto to = element_of(static_cast<int>(*dtype));
    if (!to) return c.not_covered(fmt::format("EyeLike to ONNX data type {} is not covered", *dtype));
    return c.output(0, c.add("Convert", 1, {diagonal}, {{"destination_type", std::string(name(*to))}}));
  }
  c.output(0, c.add("ConvertLike", 1, {diagonal, x}));
}

}  // namespace

std::span<const onnx_entry> indexing_rows() {
  static const std::vector<onnx_entry> rows = {
      {"Gather", 1, gather}, {"GatherElements", 11, gather_elements}, {"GatherND", 11, gather_nd},
      {"NonZero", 9, non_zero}, {"ScatterElements", 11, scatter_elements}, {"ScatterND", 11, scatter_nd},
      {"Trilu", 14, trilu}, {"Trilu", 1, trilu, "com.microsoft"}, {"GatherND", 1, gather_nd, "com.microsoft"},
      {"Scatter", 9, scatter_elements}, {"OneHot", 9, one_hot}, {"OneHot", 11, one_hot}, {"Compress", 9, compress},
      {"Compress", 11, compress}, {"ReverseSequence", 10, reverse_sequence}, {"EyeLike", 9, eye_like},
      untranslated("Unique", 11, "its outputs are as long as the input has distinct values, which only its data decides"),
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
