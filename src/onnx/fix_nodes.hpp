// Internal: the nodes and initializers ONNX's fix inserts to compute a value from a tensor's shape.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <onnx/onnx_pb.h>

#include "model/analysis/fix_internal.hpp"
#include "model/analysis/fix_planner.hpp"

namespace reshape1::onnx::detail {

/// The nodes and initializers that compute a pattern (or a layer's sizes or bounds) from a shape, each named
/// `BASE/WORD/WHAT` (a name the graph does not give yet), for fix to insert before the layer.
class pattern_nodes {
 public:
  pattern_nodes(::onnx::GraphProto& g, std::set<std::string>& taken, std::string base, std::string_view word)
      : g_(g), taken_(taken), base_(std::move(base)), word_(word) {}

  /// A node `op` of `inputs`: its output's name, after `what`.
  std::string node(std::string_view op, std::vector<std::string> inputs, std::string_view what);
  /// An integer attribute of the node made last.
  void attribute(std::string_view name, std::int64_t value);
  /// An int64 initializer of `values` (added to the graph): its name.
  std::string constant(std::string_view what, const std::vector<std::int64_t>& values);
  /// An int64 scalar initializer of `value`: its name.
  std::string scalar(std::string_view what, std::int64_t value);
  /// An initializer of `values` (whole numbers for INT64) of shape `dims`, of ONNX data type `type` (INT64,
  /// FLOAT or DOUBLE): its name.
  std::string tensor(std::string_view what, const std::vector<double>& values, const std::vector<std::int64_t>& dims,
                     int type);
  /// `terms` computed from the shape of the tensor `data` (Shape, Gather, Mul, Div, Concat; Mod and Sub for a
  /// pad to a multiple; runs of values that stay as one initializer): the name of the result.
  std::string computed(const std::string& data, std::span<const model::detail::pattern_term> terms);

  std::vector<::onnx::NodeProto> nodes;

 private:
  std::string name(std::string_view what);

  ::onnx::GraphProto& g_;
  std::set<std::string>& taken_;
  std::string base_;
  std::string_view word_;
};

/// The nodes that compute plan `p`'s Range (fix's apply_range) from its count (`count`, `[1]`): its
/// output; nullopt where the Const's type has no ONNX name. A table (counted_range::table) is `count`
/// itself, cast to the Const's type.
std::optional<std::string> range_nodes(pattern_nodes& made, const model::detail::fix_plan& p, const std::string& count);

/// The nodes that compute plan `p`'s grid (fix's apply_range) from its counts (`count`, one per axis it counts
/// along): its base plus, for each axis, a Range of its count along it times its slopes, added in the
/// order and the arithmetic check's grid_along verified (int64 for integers, double for double, else
/// float), then cast to the Const's type: its output; nullopt where that type has no ONNX name.
std::optional<std::string> grid_nodes(pattern_nodes& made, const model::detail::fix_plan& p, const std::string& count);

}  // namespace reshape1::onnx::detail
