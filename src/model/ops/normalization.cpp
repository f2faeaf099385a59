// Normalisation: BatchNormInference-1 and -5, MVN (opset2: the first MVN), LRN-1, GroupNormalization-12
// and LogSoftmax-5. Each gives its data input's shape; the rules check what the parameters must match.
#include <fmt/format.h>

#include "model/ops/rules.hpp"

namespace reshape1::model::detail {
namespace {

/// The output is the data input's shape and type.
void keep_data(op& o, std::size_t data) {
  o.out[0].shape = o.shape(data);
  o.out[0].type = o.in[data]->type;
}

/// A per-channel parameter: 1-D, of the data's channel count; returns the channel count merged with it.
dimension channel_parameter(const op& o, std::size_t port, const dimension& channels, const char* what) {
  const auto& s = o.shape(port);
  if (!s.rank_known()) return channels;
  if (s.size() != 1) refuse(o, fmt::format("{} {} must be 1-D, one value per channel", what, to_string(s)));
  return merge(o, channels, s[0], fmt::format("the channels of the data and of {}", what));
}

/// The data of a normalisation over channels: rank at least 2, channels at dimension 1.
dimension channels_of(const op& o, std::size_t data) {
  const auto& s = o.shape(data);
  if (!s.rank_known()) return dimension();
  if (s.size() < 2) refuse(o, fmt::format("the data {} must have rank 2 or more (batch and channels)", to_string(s)));
  return s[1];
}

// BatchNormInference-5: data, gamma, beta, mean, variance; BatchNormInference-1: gamma, beta, data, mean,
// variance. epsilon is not negative.
void batch_norm(op& o) {
  o.need(5, 1);
  const std::size_t data = o.l.opset >= 5 ? 0 : 2;
  const std::size_t gamma = o.l.opset >= 5 ? 1 : 0;
  const std::size_t beta = o.l.opset >= 5 ? 2 : 1;
  const auto epsilon = o.l.reals("epsilon");
  if (epsilon.size() != 1 || !(epsilon[0] >= 0))
    refuse(o, fmt::format("epsilon is '{}'", o.l.text("epsilon", "")), "it must be one number, not negative");
  auto c = channels_of(o, data);
  c = channel_parameter(o, gamma, c, "gamma");
  c = channel_parameter(o, beta, c, "beta");
  c = channel_parameter(o, 3, c, "mean");
  (void)channel_parameter(o, 4, c, "variance");
  keep_data(o, data);
  if (o.out[0].shape.rank_known()) {
    std::vector<dimension> dims(o.out[0].shape.begin(), o.out[0].shape.end());
    dims[1] = merge(o, dims[1], c, "the channels");
    o.out[0].shape = partial_shape(std::move(dims));
  }
}

// MVN (opset2): the shape; reduction_axes, when given, name the data's dimensions.
void mvn(op& o) {
  o.need(1, 1);
  keep_data(o, 0);
  const auto eps = o.l.reals("eps");
  if (eps.size() != 1) refuse(o, fmt::format("eps is '{}', not one number", o.l.text("eps", "")));
  const auto& s = o.shape(0);
  if (!s.rank_known()) return;
  for (auto a : o.l.integers("reduction_axes", {})) (void)normalize_axis(o, a, s.size(), "reduction axis");
}

// LRN-1: data and axes; the axes are within the data's rank, each once; the output is the data's shape.
void lrn(op& o) {
  o.need(2, 1);
  keep_data(o, 0);
  const auto& axes_shape = o.shape(1);
  if (axes_shape.rank_known() && axes_shape.size() != 1)
    refuse(o, fmt::format("the axes {} must be 1-D", to_string(axes_shape)));
  const auto size = o.l.integer("size");
  if (size <= 0) refuse(o, fmt::format("size is {}", size), "it must be positive");
  const auto axes = known_integers(o, 1);
  const auto& s = o.shape(0);
  if (!axes || !s.rank_known()) return;
  std::vector<bool> seen(s.size(), false);
  for (auto a : *axes) {
    if (a < 0 || static_cast<std::size_t>(a) >= s.size())
      refuse(o, fmt::format("axis {} is out of range for rank {}", a, s.size()));
    if (seen[static_cast<std::size_t>(a)]) refuse(o, fmt::format("axis {} is given twice", a));
    seen[static_cast<std::size_t>(a)] = true;
  }
}

// GroupNormalization-12: data [N, C, ...], scale [C], bias [C]; num_groups divides C.
void group_normalization(op& o) {
  o.need(3, 1);
  const auto groups = o.l.integer("num_groups");
  if (groups <= 0) refuse(o, fmt::format("num_groups is {}", groups), "it must be positive");
  const auto epsilon = o.l.reals("epsilon");
  if (epsilon.size() != 1 || !(epsilon[0] >= 0))
    refuse(o, fmt::format("epsilon is '{}'", o.l.text("epsilon", "")), "it must be one number, not negative");
  auto c = channels_of(o, 0);
  c = channel_parameter(o, 1, c, "scale");
  c = channel_parameter(o, 2, c, "bias");
  if (c.is_static() && c.lo() % groups != 0)
    refuse(o, fmt::format("{} channels do not split into num_groups {} groups", c.lo(), groups));
  keep_data(o, 0);
  if (o.out[0].shape.rank_known()) {
    std::vector<dimension> dims(o.out[0].shape.begin(), o.out[0].shape.end());
    dims[1] = merge(o, dims[1], c, "the channels");
    o.out[0].shape = partial_shape(std::move(dims));
  }
}

// LogSoftmax-5: the shape; axis within [-rank, rank).
void log_softmax(op& o) {
  o.need(1, 1);
  keep_data(o, 0);
  const auto axis = o.l.integer("axis");
  if (o.shape(0).rank_known()) (void)normalize_axis(o, axis, o.shape(0).size());
}

constexpr rule_entry normalization_table[] = {
    {"BatchNormInference", 1, batch_norm, batch::batch_norm, no_values},
    {"BatchNormInference", 5, batch_norm, batch::batch_norm, no_values},
    {"MVN", 2, mvn, batch::mvn, no_values},
    {"LRN", 1, lrn, batch::over_axes_input, no_values},
    {"GroupNormalization", 12, group_normalization, batch::spatial, no_values},
    {"LogSoftmax", 5, log_softmax, batch::softmax, no_values},
};

}  // namespace

std::span<const rule_entry> normalization_rules() { return normalization_table; }

}  // namespace reshape1::model::detail
