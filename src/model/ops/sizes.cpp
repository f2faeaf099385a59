// What an op reads as a size, and where it places something: see sizes.hpp.
#include "model/ops/sizes.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace reshape1::model::detail {

std::span<const std::size_t> size_ports(std::string_view type) {
  static const std::unordered_map<std::string_view, std::vector<std::size_t>> ports = {
      {"Reshape", {1}},    {"Interpolate", {1, 2}}, {"Slice", {1, 2, 3}}, {"StridedSlice", {1, 2, 3}},
      {"Gather", {1}},     {"Range", {0, 1, 2}},    {"Tile", {1}},        {"Broadcast", {1}},
      {"Pad", {1, 2}},     {"TopK", {1}},           {"VariadicSplit", {2}}, {"ROIAlign", {}},
      {"Multiply", {0, 1}}, {"Divide", {0, 1}},     {"Add", {0, 1}},      {"Subtract", {0, 1}},
      {"Minimum", {0, 1}},  {"Maximum", {0, 1}},    {"FloorMod", {0, 1}}, {"Mod", {0, 1}},
      {"LSTMSequence", {3}}, {"GRUSequence", {2}},  {"RNNSequence", {2}}, {"ReverseSequence", {1}},
      {"OneHot", {1}},      {"Roll", {1}},          {"ConvolutionBackpropData", {2}},
      {"GroupConvolutionBackpropData", {2}},
  };
  const auto it = ports.find(type);
  return it == ports.end() ? std::span<const std::size_t>() : std::span<const std::size_t>(it->second);
}

bool elementwise_arithmetic(std::string_view type) {
  return type == "Multiply" || type == "Divide" || type == "Add" || type == "Subtract" || type == "Minimum" ||
         type == "Maximum" || type == "FloorMod" || type == "Mod";
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
  if (l.type == "Pad") return {{1, placement::amount, std::nullopt, {}, {}}, {2, placement::amount, std::nullopt, {}, {}}};
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

bool resizes(const layer& l) { return l.type == "Interpolate"; }

bool gives_dimensions(const layer& l) { return l.type == "ShapeOf"; }

}  // namespace reshape1::model::detail
