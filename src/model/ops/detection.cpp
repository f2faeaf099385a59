// Detection heads: PriorBox-1 and PriorBoxClustered-1 ([2, 4 * H * W * priors per cell]),
// DetectionOutput-1 and -8 ([1, 1, boxes, 7]), NonMaxSuppression-5 and -9 (data-dependent: exact only
// when nothing is left to the data, an interval otherwise), CTCGreedyDecoder-1 ([N, T, 1, 1]),
// RegionYolo (opset1), Proposal-1 and -4, ROIPooling (opset2) and ROIAlign-3 and -9.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "model/ops/rules.hpp"

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
    refuse(o, fmt::format("{} widths and {} heights", widths.size(), heights.size()),
           "they must be as many, and not none");
  prior_output(o, static_cast<std::int64_t>(widths.size()));
}

/// DetectionOutput-8 has no num_classes: the class predictions [N, priors * classes] over the priors
/// (the proposals' last dimension over the prior box size) give it; 0 when they cannot.
std::int64_t classes_from_inputs(const op& o) {
  const auto& boxes = o.shape(0);
  const auto& class_preds = o.shape(1);
  const auto& proposals = o.shape(2);
  if (boxes.rank_known() && boxes.size() != 2) refuse(o, fmt::format("the box logits {} must be 2-D", to_string(boxes)));
  if (class_preds.rank_known() && class_preds.size() != 2)
    refuse(o, fmt::format("the class predictions {} must be 2-D", to_string(class_preds)));
  if (proposals.rank_known() && proposals.size() != 3)
    refuse(o, fmt::format("the proposals {} must be 3-D", to_string(proposals)));
  const std::int64_t box_size = o.l.flag("normalized", false) ? 4 : 5;
  std::int64_t priors = 0;
  if (proposals.rank_known() && proposals[2].is_static()) {
    if (proposals[2].lo() % box_size != 0 || proposals[2].lo() == 0)
      refuse(o, fmt::format("the proposals' last dimension {} is not a positive multiple of the prior box size {}",
                            proposals[2].lo(), box_size));
    priors = proposals[2].lo() / box_size;
  }
  if (priors == 0 || !class_preds.rank_known() || !class_preds[1].is_static()) return 0;
  if (class_preds[1].lo() % priors != 0)
    refuse(o, fmt::format("the class predictions' dimension {} is not a multiple of the {} priors", class_preds[1].lo(),
                          priors));
  return class_preds[1].lo() / priors;
}

// DetectionOutput-1 and -8: [1, 1, N * keep_top_k (or N * top_k * classes, or N * priors * classes), 7].
void detection_output(op& o) {
  o.need(3, 1);
  o.out[0].type = o.in[0]->type;
  const auto& boxes = o.shape(0);
  const auto& proposals = o.shape(2);
  const auto keep = o.l.integers("keep_top_k");
  const auto top_k = o.l.integer("top_k", -1);
  const auto classes = o.l.opset >= 8 ? classes_from_inputs(o) : o.l.integer("num_classes");
  if (o.l.opset < 8 && classes <= 0) refuse(o, fmt::format("num_classes is {}", classes));
  if (classes <= 0 && (keep.empty() || keep[0] <= 0)) {  // DetectionOutput-8 with the classes unknown
    o.out[0].shape = partial_shape{dimension(1), dimension(1), dimension(), dimension(7)};
    return;
  }
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

/// A rank check on an input whose rank is known.
void expect_rank(const op& o, std::size_t port, std::size_t rank, const char* what) {
  const auto& s = o.shape(port);
  if (s.rank_known() && s.size() != rank) refuse(o, fmt::format("{} {} must have rank {}", what, to_string(s), rank));
}

// RegionYolo (opset1): with do_softmax, the data [N, C, H, W] flattened from axis to end_axis; without,
// [N, (classes + coords + 1) * len(mask), H, W].
void region_yolo(op& o) {
  o.need(1, 1);
  o.out[0].type = o.in[0]->type;
  const auto& data = o.shape(0);
  expect_rank(o, 0, 4, "the data");
  const auto coords = o.l.integer("coords"), classes = o.l.integer("classes");
  if (coords < 0 || classes < 0) refuse(o, fmt::format("coords {} and classes {} must not be negative", coords, classes));
  if (!data.rank_known()) return;
  if (o.l.flag("do_softmax", true)) {
    const auto first = normalize_axis(o, o.l.integer("axis", 1), 4);
    const auto last = normalize_axis(o, o.l.integer("end_axis", -1), 4, "end_axis");
    if (last < first) refuse(o, fmt::format("end_axis {} is before axis {}", last, first));
    std::vector<dimension> out(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(first));
    dimension flat(1);
    for (std::size_t i = first; i <= last; ++i) flat = product(flat, data[i]);
    out.push_back(flat);
    out.insert(out.end(), data.begin() + static_cast<std::ptrdiff_t>(last + 1), data.end());
    o.out[0].shape = partial_shape(std::move(out));
  } else {
    const auto masks = static_cast<std::int64_t>(o.l.integers("mask", {}).size());
    o.out[0].shape = partial_shape{data[0], dimension((classes + coords + 1) * masks), data[2], data[3]};
  }
}

// Proposal-1 and -4: class probabilities [N, 2K, H, W], box deltas [N, 4K, H, W] and the image shape
// ([3] or [4]) give the boxes [N * post_nms_topn, 5] (and, in -4, their scores [N * post_nms_topn]).
void proposal(op& o) {
  o.need(3, o.l.opset >= 4 ? 2 : 1);
  for (auto& t : o.out) t.type = o.in[0]->type;
  expect_rank(o, 0, 4, "the class probabilities");
  expect_rank(o, 1, 4, "the box deltas");
  expect_rank(o, 2, 1, "the image shape");
  const auto& info = o.shape(2);
  if (info.rank_known() && info[0].is_static() && info[0].lo() != 3 && info[0].lo() != 4)
    refuse(o, fmt::format("the image shape {} must hold 3 or 4 values", to_string(info)));
  const auto top = o.l.integer("post_nms_topn");
  if (top <= 0) refuse(o, fmt::format("post_nms_topn is {}", top), "it must be positive");
  const auto& probs = o.shape(0);
  const auto& deltas = o.shape(1);
  dimension n;
  if (probs.rank_known()) n = probs[0];
  if (deltas.rank_known()) {
    n = merge(o, n, deltas[0], "the batch of the class probabilities and the box deltas");
    if (probs.rank_known()) {
      (void)merge(o, probs[2], deltas[2], "the heights of the class probabilities and the box deltas");
      (void)merge(o, probs[3], deltas[3], "the widths of the class probabilities and the box deltas");
    }
  }
  const auto rows = times(n, top);
  o.out[0].shape = partial_shape{rows, dimension(5)};
  if (o.out.size() > 1) o.out[1].shape = partial_shape{rows};
}

/// pooled_h and pooled_w, both positive.
std::pair<std::int64_t, std::int64_t> pooled_size(const op& o) {
  const auto h = o.l.integer("pooled_h"), w = o.l.integer("pooled_w");
  if (h <= 0 || w <= 0) refuse(o, fmt::format("pooled_h {} and pooled_w {} must be positive", h, w));
  const auto scale = o.l.reals("spatial_scale");
  if (scale.size() != 1 || !(scale[0] > 0))
    refuse(o, fmt::format("spatial_scale is '{}'", o.l.text("spatial_scale", "")), "it must be positive");
  return {h, w};
}

// ROIPooling (opset2): features [N, C, H, W] and boxes [R, 5] give [R, C, pooled_h, pooled_w].
void roi_pooling(op& o) {
  o.need(2, 1);
  o.out[0].type = o.in[0]->type;
  const auto [h, w] = pooled_size(o);
  const auto method = o.l.text("method", "max");
  if (method != "max" && method != "bilinear") refuse(o, fmt::format("method '{}' is not max or bilinear", method));
  expect_rank(o, 0, 4, "the features");
  expect_rank(o, 1, 2, "the boxes");
  const auto& boxes = o.shape(1);
  if (boxes.rank_known() && !boxes[1].range().contains(5))
    refuse(o, fmt::format("the boxes {} must be [R, 5]", to_string(boxes)));
  const dimension c = o.shape(0).rank_known() ? o.shape(0)[1] : dimension();
  const dimension r = boxes.rank_known() ? boxes[0] : dimension();
  o.out[0].shape = partial_shape{r, c, dimension(h), dimension(w)};
}

// ROIAlign-3 and -9: features [N, C, H, W], boxes [R, 4] and batch indices [R] give
// [R, C, pooled_h, pooled_w].
void roi_align(op& o) {
  o.need(3, 1);
  o.out[0].type = o.in[0]->type;
  const auto [h, w] = pooled_size(o);
  const auto mode = o.l.text("mode", "avg");
  if (mode != "avg" && mode != "max") refuse(o, fmt::format("mode '{}' is not avg or max", mode));
  if (o.l.opset >= 9) {
    const auto aligned = o.l.text("aligned_mode", "asymmetric");
    if (aligned != "asymmetric" && aligned != "half_pixel_for_nn" && aligned != "half_pixel")
      refuse(o, fmt::format("aligned_mode '{}' is not asymmetric, half_pixel_for_nn or half_pixel", aligned));
  }
  if (o.l.integer("sampling_ratio", 0) < 0) refuse(o, "sampling_ratio is negative");
  expect_rank(o, 0, 4, "the features");
  expect_rank(o, 1, 2, "the boxes");
  expect_rank(o, 2, 1, "the batch indices");
  const auto& boxes = o.shape(1);
  if (boxes.rank_known() && !boxes[1].range().contains(4))
    refuse(o, fmt::format("the boxes {} must be [R, 4]", to_string(boxes)));
  dimension r = boxes.rank_known() ? boxes[0] : dimension();
  if (o.shape(2).rank_known()) r = merge(o, r, o.shape(2)[0], "the boxes and the batch indices");
  const dimension c = o.shape(0).rank_known() ? o.shape(0)[1] : dimension();
  o.out[0].shape = partial_shape{r, c, dimension(h), dimension(w)};
}

constexpr rule_entry detection_table[] = {
    {"PriorBox", 1, prior_box, batch::cannot_tell, reads_values(0)},
    {"PriorBoxClustered", 1, prior_box_clustered, batch::cannot_tell, reads_values(0)},
    {"DetectionOutput", 1, detection_output, batch::detection, no_values},
    {"DetectionOutput", 8, detection_output, batch::detection, no_values},
    {"NonMaxSuppression", 5, non_max_suppression, batch::detection, reads_values(2)},
    {"NonMaxSuppression", 9, non_max_suppression, batch::detection, reads_values(2)},
    {"RegionYolo", 1, region_yolo, batch::region_yolo, no_values},
    {"Proposal", 1, proposal, batch::detection, no_values},
    {"Proposal", 4, proposal, batch::detection, no_values},
    {"ROIPooling", 2, roi_pooling, batch::roi, no_values},
    {"ROIAlign", 3, roi_align, batch::roi, no_values},
    {"ROIAlign", 9, roi_align, batch::roi, no_values},
    {"CTCGreedyDecoder", 1, ctc_greedy_decoder, batch::ctc_greedy_decoder, no_values},
};

}  // namespace

std::span<const rule_entry> detection_rules() { return detection_table; }

}  // namespace reshape1::model::detail
