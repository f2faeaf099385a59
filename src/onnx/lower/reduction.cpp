// ONNX's reductions, CumSum, and the nodes that select along an axis (ArgMax, ArgMin, TopK, all lowered to
// TopK).
// A translation sees the since_version of its row: the version that moves the axes from an attribute to
// an input has a row of its own.
#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

/// Reductions: axes from the attribute (ReduceSum before 13, the others before 18) or the second input;
/// none means every axis (or none at all with noop_with_empty_axes).
/// What a reduction computes around its sum: ReduceSumSquare sums squares, ReduceLogSum takes the log of
/// the sum, ReduceLogSumExp both around exp.
enum class around { none, square, log, log_exp };

template <const char* Type, int AxesInputSince, int Opset = 1, around Around = around::none>
void reduce(node_context& c) {
  auto x = c.need(0);
  if (Around == around::square) x = c.add("Multiply", 1, {x, x}, {{"auto_broadcast", "numpy"}});
  if (Around == around::log_exp) x = c.add("Exp", 1, {x});
  const bool keep = c.i("keepdims", 1) == 1;  // ONNX Runtime keeps the axes for 1 only (2 and -1 drop them)
  std::optional<source> axes;
  if (c.version() < AxesInputSince) {
    if (const auto a = c.ints("axes")) axes = c.i64(*a);
  } else {
    axes = c.input(1);
    // An empty axes tensor is no axes (OpenVINO's reductions read it as "reduce nothing").
    if (const auto v = axes ? c.constant_ints(1) : std::nullopt; v && v->empty()) axes.reset();
    if (!axes && c.i("noop_with_empty_axes", 0) != 0) return c.output(0, c.need(0));
  }
  if (!axes) axes = c.axes_from(x, 0);
  auto y = c.add(Type, Opset, {x, *axes}, {{"keep_dims", keep ? "true" : "false"}});
  if (Around == around::log || Around == around::log_exp) y = c.add("Log", 1, {y});
  c.output(0, y);
}
constexpr char ReduceSum[] = "ReduceSum", ReduceMin[] = "ReduceMin", ReduceProd[] = "ReduceProd",
               ReduceL2[] = "ReduceL2", ReduceL1[] = "ReduceL1";

/// CumSum: OpenVINO's CumSum, whose axis is a scalar; ONNX Runtime also takes a 1-D axis of one element,
/// which is reshaped to one (a Reshape that refuses any other count, as ONNX Runtime does).
source running_sum(node_context& c) {
  // ONNX Runtime's kernels take exclusive and reverse of 0 or 1 only.
  for (const auto* flag : {"exclusive", "reverse"})
    if (const auto v = c.i(flag, 0); v != 0 && v != 1)
      c.bad(fmt::format("{} is {}", flag, v), fmt::format("{}'s {} is 0 or 1", c.node().op_type(), flag));
  auto axis = c.need(1);
  if (const auto r = c.rank(1); r && *r > 1)
    c.bad(fmt::format("its axis has rank {}", *r), fmt::format("{}'s axis is 0-D or 1-D", c.node().op_type()));
  if (const auto r = c.rank(1); !r || *r != 0)
    axis = c.add("Reshape", 1, {axis, c.i64({}, std::vector<std::int64_t>{0})}, {{"special_zero", "false"}});
  return c.add("CumSum", 3, {c.need(0), axis},
               {{"exclusive", c.i("exclusive", 0) != 0 ? "true" : "false"},
                {"reverse", c.i("reverse", 0) != 0 ? "true" : "false"}});
}
void cumsum(node_context& c) { c.output(0, running_sum(c)); }
/// CumProd (26): the products along the axis where CumSum has the sums. OpenVINO has no CumProd: CumSum's
/// layer gives the shape and meets the same elements (along the axis only), and its values, sums, are dropped.
void cumprod(node_context& c) { c.output(0, values_dropped(c, running_sum(c))); }

template <bool Max>
void arg(node_context& c) {
  if (c.i("select_last_index", 0) != 0) return c.not_covered("select_last_index is not covered");
  const auto axis = c.i("axis", 0);
  const auto k = c.add("TopK", 11, {c.need(0), c.i64({1}, std::vector<std::int64_t>{})},
                       {{"axis", fmt::format("{}", axis)}, {"mode", Max ? "max" : "min"}, {"sort", "none"},
                        {"index_element_type", "i64"}},
                       2);
  source y{k.layer, 1};
  if (c.i("keepdims", 1) != 1) y = c.add("Squeeze", 1, {y, c.i64({axis})});
  c.output(0, y);
}
void top_k(node_context& c) {
  const auto k = c.version() < 10 ? c.i64({c.i("k", 1)}, std::vector<std::int64_t>{}) : c.need(1);
  const auto scalar_k = c.version() < 10 ? k : c.add("Squeeze", 1, {k});
  const auto y = c.add("TopK", 11, {c.need(0), scalar_k},
                       {{"axis", fmt::format("{}", c.i("axis", -1))}, {"mode", c.i("largest", 1) != 0 ? "max" : "min"},
                        {"sort", c.i("sorted", 1) != 0 ? "value" : "none"}, {"index_element_type", "i64"}},
                       2);
  c.output(0, y);
  c.output(1, source{y.layer, 1});
}

}  // namespace

std::span<const onnx_entry> reduction_rows() {
  static const std::vector<onnx_entry> rows = {
      {"ReduceMean", 1, reduce<ReduceMean, 18>}, {"ReduceMean", 18, reduce<ReduceMean, 18>},
      {"ReduceMax", 1, reduce<ReduceMax, 18>}, {"ReduceMax", 18, reduce<ReduceMax, 18>},
      {"ReduceMin", 1, reduce<ReduceMin, 18>}, {"ReduceMin", 18, reduce<ReduceMin, 18>},
      {"ReduceProd", 1, reduce<ReduceProd, 18>}, {"ReduceProd", 18, reduce<ReduceProd, 18>},
      {"ReduceSum", 1, reduce<ReduceSum, 13>}, {"ReduceSum", 13, reduce<ReduceSum, 13>},
      {"ReduceL2", 1, reduce<ReduceL2, 18, 4>}, {"ReduceL2", 18, reduce<ReduceL2, 18, 4>},
      {"ReduceL1", 1, reduce<ReduceL1, 18, 4>}, {"ReduceL1", 18, reduce<ReduceL1, 18, 4>},
      {"ReduceSumSquare", 1, reduce<ReduceSum, 18, 1, around::square>},
      {"ReduceSumSquare", 18, reduce<ReduceSum, 18, 1, around::square>},
      {"ReduceLogSum", 1, reduce<ReduceSum, 18, 1, around::log>},
      {"ReduceLogSum", 18, reduce<ReduceSum, 18, 1, around::log>},
      {"ReduceLogSumExp", 1, reduce<ReduceSum, 18, 1, around::log_exp>},
      {"ReduceLogSumExp", 18, reduce<ReduceSum, 18, 1, around::log_exp>}, {"ArgMax", 1, arg<true>},
      {"CumSum", 11, cumsum}, {"CumProd", 26, cumprod},
      {"ArgMin", 1, arg<false>}, {"TopK", 1, top_k}, {"TopK", 10, top_k},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
