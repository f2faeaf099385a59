// ONNX's Upsample and Resize (one Interpolate-11, by scales or by sizes), GridSample and AffineGrid.
#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

std::string resize_mode(const node_context& c) {
  const auto m = c.s("mode", "nearest");
  return m == "linear" || m == "bilinear" ? "linear_onnx" : m == "cubic" ? "cubic" : "nearest";
}
/// Refuses a known scale below `least` (ONNX Runtime: Upsample's scales are at least 1, Resize's above 0).
void refuse_scales_below(const node_context& c, const std::vector<double>& scales, double least, bool inclusive) {
  for (std::size_t k = 0; k < scales.size(); ++k)
    if (!(inclusive ? scales[k] >= least : scales[k] > least))
      c.bad(fmt::format("its scale {} is {}", k, scales[k]),
            inclusive ? fmt::format("{}'s scales are at least {}", c.node().op_type(), least)
                      : fmt::format("{}'s scales are above {}", c.node().op_type(), least));
}
/// Interpolate-11 of x by `scales` or `sizes` (shape_calculation_mode `mode`), over `axes` (every axis when
/// nullopt).
void interpolate(node_context& c, source x, source by, std::string_view mode, std::optional<source> axes = std::nullopt) {
  std::vector<source> in{x, by};
  if (axes) in.push_back(*axes);
  c.output(0, c.add("Interpolate", 11, std::move(in),
                    {{"mode", resize_mode(c)}, {"shape_calculation_mode", std::string(mode)},
                     {"coordinate_transformation_mode", "asymmetric"}, {"nearest_mode", "floor"}}));
}
void interpolate_scales(node_context& c, source x, source scales) { interpolate(c, x, scales, "scales"); }
void upsample7(node_context& c) {
  const auto scales = c.floats("scales");
  if (!scales) c.bad("Upsample needs the attribute scales");
  refuse_scales_below(c, std::vector<double>(scales->begin(), scales->end()), 1.0, true);
  interpolate_scales(c, c.need(0), c.f32(*scales));
}
void upsample9(node_context& c) {
  if (const auto scales = c.constant_reals(1)) refuse_scales_below(c, *scales, 1.0, true);
  interpolate_scales(c, c.need(0), c.need(1));
}
void resize10(node_context& c) {
  if (const auto scales = c.constant_reals(1)) refuse_scales_below(c, *scales, 0.0, false);
  interpolate_scales(c, c.need(0), c.need(1));
}
void resize11(node_context& c) {
  // not_larger and not_smaller scale every axis by one factor, the least or the greatest of the sizes asked
  // over the input's (x [1,3,4] asked [6,1,1] not_larger is [0,1,1] in ONNX Runtime), which the sizes alone
  // do not give.
  if (const auto policy = c.s("keep_aspect_ratio_policy", "stretch"); policy != "stretch")
    return c.not_covered(fmt::format("Resize with keep_aspect_ratio_policy {} is not covered", policy));
  // Resize-18's axes: the scales or sizes name those axes only (negative ones from the end; ONNX Runtime
  // refuses one named twice).
  std::optional<source> axes;
  if (const auto a = c.ints("axes")) {
    const auto r = c.rank(0);
    const auto from_start = [&](std::int64_t v) { return v < 0 && r ? v + static_cast<std::int64_t>(*r) : v; };
    for (std::size_t i = 0; i < a->size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (from_start((*a)[i]) == from_start((*a)[j]))
          c.bad(fmt::format("its axes name axis {} twice", (*a)[i]), "Resize's axes are distinct");
    axes = c.i64(*a);
  }
  const auto scales = c.constant_reals(2);
  const auto sizes = c.input(3);
  // A scales input with values beside sizes: ONNX Runtime refuses the model (one of the two, not both).
  if (sizes && scales && !scales->empty())
    c.bad("it has both scales and sizes", "Resize takes scales or sizes, not both (leave scales out, or give it no values)");
  if (sizes) return interpolate(c, c.need(0), *sizes, "sizes", axes);
  if (scales && scales->empty())
    c.bad("its scales hold no value and it has no sizes", "Resize takes scales or sizes: give one of them values");
  if (scales) refuse_scales_below(c, *scales, 0.0, false);
  interpolate(c, c.need(0), c.need(2), "scales", axes);
}


// GridSample: X [N, C, D1...Dr] sampled at grid [N, D1'...Dr', r]: Y [N, C, D1'...Dr']. Each output element
// of sample n meets X[n] (where the grid points, which only the data says) and grid[n] at its place: X
// summed over its spatial axes plus the grid summed over its last, both one-way broadcast to the other's
// batch, so that a batch of one against another is refused (ONNX Runtime refuses it). The grid's rank is X's
// (its shape split at X's rank), its last dimension r exactly; X 4-D or 5-D (ONNX Runtime's; 4-D only before 20
// and for com.microsoft's), cubic 4-D only.
void grid_sample(node_context& c) {
  const auto x = c.need(0), grid = c.need(1);
  const auto rank = c.rank(0);
  if (rank && *rank != 4 && *rank != 5) c.bad(fmt::format("X is of rank {}", *rank), "X is 4-D or 5-D");
  const bool four_only = c.version() < 20 || c.node().domain() == "com.microsoft";  // ONNX's GridSample-16 and the contrib op
  if (rank && four_only && *rank != 4) c.bad(fmt::format("X is of rank {}", *rank), "this version of GridSample takes a 4-D X");
  const auto mode = c.s("mode", c.version() >= 20 ? "linear" : "bilinear");
  if (rank && *rank == 5 && (mode == "cubic" || mode == "bicubic")) c.bad("it is cubic on a 5-D input", "cubic takes a 4-D input");
  const auto x_rank = c.add("Unsqueeze", 1, {c.rank_of(x), c.i64({0})});
  const auto grid_shape = c.add("VariadicSplit", 1, {c.shape_of(grid), c.i64({0}, std::vector<std::int64_t>{}), x_rank});
  const auto spatial = c.add("Subtract", 1, {x_rank, c.i64({2})}, numpy);
  const auto points = c.add("ReduceSum", 1, {c.add("VariadicSplit", 1, {grid, c.i64({-1}, std::vector<std::int64_t>{}), spatial}), c.i64({-1})},
                            {{"keep_dims", "false"}});
  const auto at = c.add("Unsqueeze", 1, {points, c.i64({1})});  // [N, 1, D1'...]
  const auto image = c.add("ReduceSum", 1, {x, c.axes_from(x, 2)}, {{"keep_dims", "true"}});  // [N, C, 1...]
  const auto x_shape = c.shape_of(x);
  const auto out_spatial = shape_slice(c, grid_shape, 1, -1);
  const auto by_grid = c.add("Concat", 1, {shape_slice(c, grid_shape, 0, 1), shape_slice(c, x_shape, 1, 2), out_spatial}, {{"axis", "0"}});
  const auto by_x = c.add("Concat", 1, {shape_slice(c, x_shape, 0, 2), out_spatial}, {{"axis", "0"}});
  c.output(0, c.add("Add", 1,
                    {c.add("Broadcast", 3, {image, by_grid}, {{"mode", "numpy"}}), c.add("Broadcast", 3, {at, by_x}, {{"mode", "numpy"}})},
                    numpy));
}

// AffineGrid-20: theta [N, r, r + 1] (r = 2 or 3) and size [N, C, D1...Dr] (values): grid [N, D1...Dr, r],
// each sample's points from its own theta.
void affine_grid(node_context& c) {
  const auto theta = c.need(0), size = c.need(1);
  if (const auto r = c.rank(0); r && *r != 3) c.bad(fmt::format("theta is of rank {}", *r), "theta is [N, 2, 3] or [N, 3, 4]");
  // r from the size's length (4 or 6 values less 2); theta [N, r, r + 1] exactly.
  const auto r = c.add("Subtract", 1, {c.shape_of(size), c.i64({2})}, numpy);
  const auto rows = exactly(c, theta, 1, r);
  const auto checked = exactly(c, rows, 2, c.add("Add", 1, {r, c.i64({1})}, numpy));
  const auto per_sample = c.add("ReduceSum", 1, {checked, c.i64({1, 2})}, {{"keep_dims", "false"}});  // [N]
  const auto shape = c.add("Concat", 1, {shape_slice(c, size, 0, 1), shape_slice(c, size, 2, 0), r}, {{"axis", "0"}});
  // [N, 1, ..., 1] of the grid's rank, broadcast one way: theta's batch is the size's N.
  const auto ones = c.add("Broadcast", 3, {c.i64({1}), c.add("Add", 1, {r, c.i64({1})}, numpy)}, {{"mode", "numpy"}});
  const auto column = c.add("Reshape", 1, {per_sample, c.add("Concat", 1, {c.i64({-1}), ones}, {{"axis", "0"}})}, {{"special_zero", "false"}});
  // The size's N is theta's exactly (the broadcast above lets a theta of 1 widen).
  c.output(0, c.add("VariadicSplit", 1,
                    {c.add("Broadcast", 3, {column, shape}, {{"mode", "numpy"}}), c.i64({0}, std::vector<std::int64_t>{}),
                     shape_slice(c, c.shape_of(theta), 0, 1)}));
}

}  // namespace

std::span<const onnx_entry> resize_rows() {
  static const std::vector<onnx_entry> rows = {
      {"Upsample", 7, upsample7}, {"Upsample", 9, upsample9}, {"Resize", 10, resize10}, {"Resize", 11, resize11},
      {"GridSample", 16, grid_sample}, {"GridSample", 20, grid_sample}, {"GridSample", 22, grid_sample},
      {"GridSample", 1, grid_sample, "com.microsoft"}, {"AffineGrid", 20, affine_grid},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
