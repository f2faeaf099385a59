// Detection heads: PriorBox-1 and PriorBoxClustered-1 ([2, 4 * H * W * priors per cell]),
// DetectionOutput-1 ([1, 1, boxes, 7]), NonMaxSuppression-9 (data-dependent: exact only when nothing is
// left to the data, an interval otherwise) and CTCGreedyDecoder-1 ([N, T, 1, 1]).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "../rules.hpp"

namespace reshape1::model::detail {
namespace {

dimension times(const dimension& a, std::int64_t k) {
  return map_dimension(a, [&](std::int64_t x) {
    std::int64_t y = 0;
    return __builtin_mul_overflow(x, k, &y) ? interval::unbounded - 1 : y;
  });
}

dimension product(const dimension& a, const dimension& b) {
  if (a.is_static()) return times(b, a.lo());
  if (b.is_static()) return times(a, b.lo());
  std::int64_t lo = 0, hi = 0;
  if (__builtin_mul_overflow(a.lo(), b.lo(), &lo)) return dimension();
  if (!a.range().is_bounded() || !b.range().is_bounded() || __builtin_mul_overflow(a.hi(), b.hi(), &hi))
    hi = interval::unbounded;
  return span_dimension(lo, hi);
}

/// The [2, 4 * H * W * priors] output of both prior-box ops; H and W come from input 0's values.
void prior_output(op& o, std::int64_t priors) {
  o.need(2, 1);
  o.out[0].type = o.declared_type(0) ? o.declared_type(0) : std::optional(element_type::f32);
  const auto size = shape_from_value(o, 0);
  if (size && size->size() != 2) refuse(o, fmt::format("the layer size has {} values, not 2", size->size()));
  dimension cells = size && o.value(0) ? product((*size)[0], (*size)[1]) : dimension();
  o.out[0].shape = partial_shape{dimension(2), o.value(0) ? times(cells, 4 * priors) : dimension()};
}

/// The aspect ratios PriorBox uses: 1, then each other one (and its inverse with flip), without repeats.
std::size_t aspect_ratio_count(const std::vector<double>& ratios, bool flip) {
  std::vector<double> kept{1.0};
  auto add = [&](double r) {
    if (std::none_of(kept.begin(), kept.end(), [&](double k) { return std::fabs(k - r) < 1e-6; })) kept.push_back(r);
  };
  for (double r : ratios) {
    add(r);
    if (flip && r != 0) add(1.0 / r);
  }
  return kept.size();
}

// PriorBox-1: priors per cell from the sizes, aspect ratios and densities.
void prior_box(op& o) {
  const auto ratios = aspect_ratio_count(o.l.reals("aspect_ratio"), o.l.flag("flip", false));
  const auto min_size = o.l.reals("min_size");
  const auto max_size = o.l.find("max_size") ? o.l.reals("max_size") : std::vector<double>{};
  const auto fixed_size = o.l.find("fixed_size") ? o.l.reals("fixed_size") : std::vector<double>{};
  const auto fixed_ratio = o.l.find("fixed_ratio") ? o.l.reals("fixed_ratio") : std::vector<double>{};
  const auto density = o.l.find("density") ? o.l.reals("density") : std::vector<double>{};
  const bool scale_all = o.l.flag("scale_all_sizes", true);
  auto n = static_cast<std::int64_t>(scale_all ? ratios * min_size.size() + max_size.size()
                                               : ratios + min_size.size() - 1);
  if (!fixed_size.empty()) n = static_cast<std::int64_t>(ratios * fixed_size.size());
  for (double d : density) {
    if (!(d >= 0 && d <= 1e4)) refuse(o, fmt::format("the density {} is not between 0 and 10000", d));
    const auto rounded = static_cast<std::int64_t>(d);
    const auto extra = rounded * rounded - 1;
    n += static_cast<std::int64_t>(fixed_ratio.empty() ? ratios : fixed_ratio.size()) * extra;
  }
  if (n <= 0 || n > (std::int64_t{1} << 40)) refuse(o, fmt::format("the attributes give {} prior boxes per cell", n));
  prior_output(o, n);
}

// PriorBoxClustered-1: one prior per (width, height) pair.
void prior_box_clustered(op& o) {
  const auto widths = o.l.reals("width");
  const auto heights = o.l.reals("height");
  if (widths.size() != heights.size() || widths.empty())
    refuse(o, fmt::format("{} widths and {} heights; they must be as many, and not none", widths.size(),
                          heights.size()));
  prior_output(o, static_cast<std::int64_t>(widths.size()));
}

// DetectionOutput-1: [1, 1, N * keep_top_k (or N * top_k * classes, or N * priors * classes), 7].
void detection_output(op& o) {
  o.need(3, 1);
  o.out[0].type = o.in[0]->type;
  const auto& boxes = o.shape(0);
  const auto& proposals = o.shape(2);
  const auto keep = o.l.integers("keep_top_k");
  const auto top_k = o.l.integer("top_k", -1);
  const auto classes = o.l.integer("num_classes");
  if (classes <= 0) refuse(o, fmt::format("num_classes is {}", classes));
  const dimension n = boxes.rank_known() && boxes.size() > 0 ? boxes[0] : dimension();
  dimension count;
  if (!keep.empty() && keep[0] > 0) {
    count = times(n, keep[0]);
  } else if (std::int64_t k = 0; top_k > 0 && !__builtin_mul_overflow(top_k, classes, &k)) {
    count = times(n, k);
  } else if (proposals.rank_known() && proposals.size() == 3) {
    const std::int64_t box_size = o.l.flag("normalized", false) ? 4 : 5;
    const auto priors = map_dimension(proposals[2], [&](std::int64_t x) { return x / box_size; });
    count = times(product(n, priors), classes);
  }
  o.out[0].shape = partial_shape{dimension(1), dimension(1), count, dimension(7)};
}

// NonMaxSuppression-9: selected_indices and selected_scores [K, 3], valid_outputs [1]; K is at most
// batches * classes * min(boxes, max_output_boxes_per_class).
void non_max_suppression(op& o) {
  o.need(2, 3);
  const auto& boxes = o.shape(0);
  const auto& scores = o.shape(1);
  o.out[0].type = o.l.element("output_type");
  o.out[1].type = o.in[1]->type;
  o.out[2].type = o.out[0].type;
  if (boxes.rank_known() && (boxes.size() != 3 || (boxes[2].is_static() && boxes[2].lo() != 4)))
    refuse(o, fmt::format("the boxes {} must be [batches, boxes, 4]", to_string(boxes)));
  if (scores.rank_known() && scores.size() != 3)
    refuse(o, fmt::format("the scores {} must be [batches, classes, boxes]", to_string(scores)));
  dimension selected;
  if (boxes.rank_known() && scores.rank_known()) {
    (void)merge(o, boxes[0], scores[0], "the batches of the boxes and the scores");
    (void)merge(o, boxes[1], scores[2], "the boxes of the boxes and the scores");
    dimension per_class = boxes[1];
    std::int64_t max_out = 0;
    const auto limit = o.in.size() > 2 ? known_integers(o, 2) : std::optional<std::vector<std::int64_t>>(std::vector<std::int64_t>{0});
    if (limit && limit->size() == 1) {
      max_out = std::max<std::int64_t>((*limit)[0], 0);
      per_class = per_class.range().is_bounded() ? span_dimension(std::min(per_class.lo(), max_out), std::min(per_class.hi(), max_out))
                                                 : span_dimension(std::min(per_class.lo(), max_out), max_out);
    }
    const auto most = product(product(boxes[0], scores[1]), per_class);
    selected = span_dimension(0, most.range().is_bounded() ? most.hi() : interval::unbounded);
  }
  o.out[0].shape = partial_shape{selected, dimension(3)};
  o.out[1].shape = partial_shape{selected, dimension(3)};
  o.out[2].shape = partial_shape{dimension(1)};
}

// CTCGreedyDecoder-1: data [T, N, C] and the mask [T, N] give [N, T, 1, 1].
void ctc_greedy_decoder(op& o) {
  o.need(2, 1);
  o.out[0].type = o.in[0]->type;
  const auto& data = o.shape(0);
  const auto& mask = o.shape(1);
  if (data.rank_known() && data.size() != 3) refuse(o, fmt::format("the data {} must be [T, N, C]", to_string(data)));
  if (mask.rank_known() && mask.size() != 2) refuse(o, fmt::format("the mask {} must be [T, N]", to_string(mask)));
  dimension t, n;
  if (data.rank_known()) {
    t = data[0];
    n = data[1];
  }
  if (mask.rank_known()) {
    t = merge(o, t, mask[0], "the time dimension of the data and the mask");
    n = merge(o, n, mask[1], "the batch dimension of the data and the mask");
  }
  o.out[0].shape = partial_shape{n, t, dimension(1), dimension(1)};
}

constexpr rule_entry table[] = {
    {"PriorBox", 1, prior_box},
    {"PriorBoxClustered", 1, prior_box_clustered},
    {"DetectionOutput", 1, detection_output},
    {"NonMaxSuppression", 9, non_max_suppression},
    {"CTCGreedyDecoder", 1, ctc_greedy_decoder},
};

}  // namespace

std::span<const rule_entry> detection_rules() { return table; }

}  // namespace reshape1::model::detail
