// What an op reads as a size, and where it places something: see sizes.hpp.
#include "model/ops/sizes.hpp"

#include <algorithm>
#include <string>

#include "model/ops/batching.hpp"
#include "model/ops/rules.hpp"

namespace reshape1::model::detail {

std::span<const std::size_t> size_ports(const layer& l) {
  const auto* e = first_entry(l.type);
  if (e == nullptr) return {};
  if (l.type == "Interpolate" && l.opset >= 11) {
    static constexpr std::size_t sizes_only[] = {1};
    return sizes_only;
  }
  return e->sizes;
}

bool elementwise_arithmetic(std::string_view type) {
  const auto* e = first_entry(type);
  return e != nullptr && e->arithmetic;
}

bool holds_positions(const layer& l, std::size_t port) {
  return (l.type == "Gather" && port == 1) || ((l.type == "Slice" || l.type == "StridedSlice") && (port == 1 || port == 2));
}

std::vector<placed_input> placed_inputs(const layer& l) {
  if (l.type == "Interpolate") {
    if (l.text("shape_calculation_mode", "sizes") != "sizes") return {};
    placed_input sizes{1, placement::size, std::nullopt, {}, {}};
    if (l.opset >= 11) {
      sizes.axes_port = 2;
    } else if (l.opset >= 4) {
      sizes.axes_port = 3;
    } else if (const auto* a = l.find("axes"); a != nullptr && a->is_integers) {
      // Interpolate-1 names its axes in an attribute: element i of its target shape is axis axes[i].
      const auto listed = l.integers("axes");
      sizes.axes.emplace(listed.begin(), listed.end());
    }
    return {sizes};
  }
  if (pads(l)) return {{1, placement::amount, std::nullopt, {}, {}}, {2, placement::amount, std::nullopt, {}, {}}};
  if (l.type == "StridedSlice") {
    // Element i is axis i where no mask inserts or removes one; a begin or end its mask ignores is none.
    const auto mask = [&](std::string_view name) {
      const auto* a = l.find(name);
      return a != nullptr && a->is_integers ? l.integers(name) : std::span<const std::int64_t>();
    };
    const auto any = [](std::span<const std::int64_t> m) {
      return std::any_of(m.begin(), m.end(), [](std::int64_t b) { return b != 0; });
    };
    if (any(mask("ellipsis_mask")) || any(mask("new_axis_mask")) || any(mask("shrink_axis_mask"))) return {};
    const auto flags = [](std::span<const std::int64_t> m) {
      std::vector<bool> r;
      for (const auto b : m) r.push_back(b != 0);
      return r;
    };
    return {{1, placement::begin, std::nullopt, {}, flags(mask("begin_mask"))},
            {2, placement::end, std::nullopt, {}, flags(mask("end_mask"))}};
  }
  if (l.type == "Slice") {
    const std::optional<std::size_t> axes = l.sources.size() > 4 ? std::optional<std::size_t>(4) : std::nullopt;
    return {{1, placement::begin, axes, {}, {}}, {2, placement::end, axes, {}, {}}};
  }
  return {};
}

std::optional<window_source> window_of(const layer& l) {
  if (l.type == "AvgPool" || l.type == "MaxPool") {
    const auto* a = l.find("kernel");
    if (a == nullptr || !a->is_integers) return std::nullopt;
    const auto k = l.integers("kernel");
    return window_source{{k.begin(), k.end()}, std::nullopt, 0};
  }
  if (l.type == "Convolution") return window_source{{}, 1, 2};       // weights [C_out, C_in, k...]
  if (l.type == "GroupConvolution") return window_source{{}, 1, 3};  // weights [G, C_out/G, C_in/G, k...]
  return std::nullopt;
}

std::optional<std::string_view> global_reduction(const layer& l) {
  if (l.type == "AvgPool") return "ReduceMean";
  if (l.type == "MaxPool") return "ReduceMax";
  return std::nullopt;
}

std::string_view input_word(const layer& l) {
  return part_of(l.type) == op_part::reshape ? "pattern"
         : resizes(l)                        ? "sizes"
         : keeps_k_along(l)                  ? "k"
         : extends(l)                        ? "extents"
         : counts_range(l)                   ? "limit"
         : divides(l)                        ? "divisor"
         : multiplies(l)                     ? "factor"
         : gather_counts_back(l)             ? "indices"
         : global_reduction(l)               ? "window"
         : pads(l)                           ? "pads"
         : part_of(l.type) == op_part::constant ? "values"
                                             : "bounds";
}

bool permutes_axes(const layer& l) { return l.type == "Transpose"; }

bool moves_ones(const layer& l) {
  return l.type == "Unsqueeze" || l.type == "Squeeze" || part_of(l.type) == op_part::reshape;
}

bool resizes(const layer& l) { return l.type == "Interpolate"; }

bool pads(const layer& l) { return l.type == "Pad"; }

bool slices(const layer& l) { return l.type == "Slice" || l.type == "StridedSlice"; }

bool gives_dimensions(const layer& l) { return l.type == "ShapeOf"; }

bool counts_range(const layer& l) { return l.type == "Range"; }

bool divides(const layer& l) { return l.type == "Divide"; }

bool multiplies(const layer& l) { return l.type == "Multiply"; }

bool sums_over_axes(const layer& l) { return l.type == "ReduceSum"; }

bool sums_or_averages(const layer& l) {
  return l.type == "ReduceSum" || l.type == "ReduceMean" || l.type == "ReduceL2" || l.type == "ReduceL1";
}

bool averages(const layer& l) { return l.type == "ReduceMean"; }

bool reduces_squares(const layer& l, bool squared) {
  return l.type == "ReduceL2" || ((l.type == "ReduceSum" || l.type == "ReduceMean") && squared);
}

bool squares(const layer& l, bool same_operands, std::optional<double> exponent) {
  return (l.type == "Multiply" && same_operands) || l.type == "SquaredDifference" || (l.type == "Power" && exponent == 2.0);
}

bool reduces_moment(const layer& l, bool formed) {
  return l.type == "ReduceL2" || l.type == "ReduceL1" || ((l.type == "ReduceSum" || l.type == "ReduceMean") && formed);
}

bool forms_moment(const layer& l, bool same_operands, bool data_operands, std::optional<double> exponent) {
  return squares(l, same_operands, exponent) || (l.type == "Multiply" && data_operands) ||
         (l.type == "Power" && exponent.has_value()) || l.type == "Abs" || l.type == "Exp";
}

bool carries_values(const layer& l) {
  const auto* e = first_entry(l.type);
  if (e == nullptr) return false;
  return e->arithmetic || e->batch.fn == &batch::pointwise || e->part == op_part::passes_values || e->part == op_part::reshape ||
         e->part == op_part::concat || permutes_axes(l);
}

std::optional<extension> extends(const layer& l) {
  if (l.type == "Tile") return extension::repeats;
  if (l.type == "Broadcast" && l.opset >= 3 && l.text("mode", "numpy") == "bidirectional") return extension::broadcast;
  return std::nullopt;
}

bool takes_shape(const layer& l, std::size_t port) { return l.type == "Broadcast" && port == 1; }

std::optional<std::int64_t> keeps_k_along(const layer& l) {
  if (l.type != "TopK") return std::nullopt;
  return l.integer("axis");
}

std::optional<bool> gather_counts_back(const layer& l) {
  if (l.type != "Gather") return std::nullopt;
  // An ONNX Gather below version 11 takes positions from 0 only, though it is lowered to Gather-8.
  return l.opset >= 8 && (l.find("onnx_version") == nullptr || l.op_version() >= 11);
}

}  // namespace reshape1::model::detail
