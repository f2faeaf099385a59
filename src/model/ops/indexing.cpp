// Indexing by index tensors: GatherND-5 and -8, GatherElements-6, ScatterNDUpdate (opset4, -15) and
// ScatterElementsUpdate-3 and -12.
#include <algorithm>

#include <fmt/format.h>

#include "model/ops/rules.hpp"

namespace reshape1::model::detail {
namespace {

// GatherND-5 and -8: the last dimension k of the indices picks a slice of the data after batch_dims
// shared leading dimensions: batch + indices[batch_dims:-1] + data[batch_dims + k:]. GatherND-5 folds the
// batch dimensions into one (their product), GatherND-8 keeps them.
void gather_nd(op& o) {
  o.need(2, 1);
  o.out[0].type = o.in[0]->type;
  const auto& data = o.shape(0);
  const auto& indices = o.shape(1);
  const auto batch = o.l.integer("batch_dims", 0);
  if (batch < 0) refuse(o, fmt::format("batch_dims is {}, negative", batch));
  const auto b = static_cast<std::size_t>(batch);
  if (data.rank_known() && data.size() == 0) refuse(o, "the data must not be a scalar");
  if (indices.rank_known() && indices.size() == 0) refuse(o, "the indices must not be a scalar");
  if (data.rank_known() && b >= data.size())
    refuse(o, fmt::format("batch_dims {} must be below the data's rank {}", batch, data.size()));
  if (indices.rank_known() && b >= indices.size())
    refuse(o, fmt::format("batch_dims {} must be below the indices' rank {}", batch, indices.size()));
  if (!data.rank_known() || !indices.rank_known()) return;
  const auto& last = indices[indices.size() - 1];
  if (!last.is_static()) return;
  const auto k64 = static_cast<std::uint64_t>(last.lo());  // 64 bits: size_t is 32 in the WebAssembly build
  if (b + k64 > data.size())
    refuse(o, fmt::format("the indices {} pick {} dimensions after {} batch dimensions, more than the data {} has", to_string(indices),
                          k64, b, to_string(data)));
  const auto k = static_cast<std::size_t>(k64);
  // ONNX Runtime refuses an index past its axis; OpenVINO's GatherND leaves it undefined. Where each slice
  // gathered is empty (a dimension of 0 after the indexed ones) ONNX Runtime reads no index, and runs it.
  const bool empty_slices = std::any_of(data.begin() + static_cast<std::ptrdiff_t>(b + k), data.end(),
                                        [](const dimension& d) { return d.is_static() && d.lo() == 0; });
  if (o.g.format() == model_format::onnx && !empty_slices) refuse_index_tuples_past(o, 1, data, b, k);
  std::vector<dimension> out;
  std::vector<dimension> batch_dims;
  for (std::size_t i = 0; i < b; ++i)
    batch_dims.push_back(merge(o, data[i], indices[i], fmt::format("batch dimension {}", i)));
  if (o.l.opset >= 8) {
    out = batch_dims;
  } else if (b > 0) {
    std::int64_t product = 1;
    bool known = true;
    for (const auto& d : batch_dims)
      if (!d.is_static() || __builtin_mul_overflow(product, d.lo(), &product)) known = false;
    out.push_back(known ? dimension(product) : dimension());
  }
  for (std::size_t i = b; i + 1 < indices.size(); ++i) out.push_back(indices[i]);
  for (std::size_t i = b + k; i < data.size(); ++i) out.push_back(data[i]);
  o.out[0].shape = partial_shape(std::move(out));
}

// GatherElements-6: the indices' shape; data and indices have one rank, and agree except on `axis`. Known
// indices outside the axis are refused (the spec allows none; ONNX Runtime refuses them).
void gather_elements(op& o) {
  o.need(2, 1);
  o.out[0].type = o.in[0]->type;
  const auto& data = o.shape(0);
  const auto& indices = o.shape(1);
  const auto axis = o.l.integer("axis");
  if (data.rank_known() && data.size() == 0) refuse(o, "the data must not be a scalar");
  if (indices.rank_known() && indices.size() == 0) refuse(o, "the indices must not be a scalar");
  if (!data.rank_known() || !indices.rank_known()) {
    o.out[0].shape = indices;
    if (data.rank_known()) (void)normalize_axis(o, axis, data.size());
    return;
  }
  if (data.size() != indices.size())
    refuse(o, fmt::format("the data {} and the indices {} differ in rank", to_string(data), to_string(indices)));
  const auto a = normalize_axis(o, axis, data.size());
  refuse_indices_past(o, 1, data[a], a);
  // An empty axis has no index to take, whatever the values (too many to read, or not known).
  if (data[a].is_static() && data[a].lo() == 0 &&
      std::all_of(indices.begin(), indices.end(), [](const dimension& d) { return d.is_static() && d.lo() > 0; }))
    refuse(o, fmt::format("the data's axis {} is empty, and the indices {} take elements from it", a, to_string(indices)));
  std::vector<dimension> out(indices.begin(), indices.end());
  // OpenVINO's GatherElements asks the data and the indices to agree off the axis; ONNX's reads the data only
  // where the indices are (ONNX Runtime runs indices shorter than the data there: the output is theirs).
  const bool onnx = o.g.format() == model_format::onnx;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i == a) continue;
    if (!onnx) out[i] = merge(o, data[i], indices[i], fmt::format("dimension {} of the data and the indices", i));
    else if (indices[i].lo() > data[i].hi())
      refuse(o, fmt::format("dimension {} of the indices, {}, is above the data's, {}", i, to_string(indices[i]),
                            to_string(data[i])));
  }
  o.out[0].shape = partial_shape(std::move(out));
}

// ScatterNDUpdate: the data's shape; updates are indices[:-1] + data[k:], k the indices' last dimension.
// -15 adds reduction (none, sum, sub, prod, min, max), which changes the values only.
void scatter_nd_update(op& o) {
  o.need(3, 1);
  if (o.l.opset >= 15) {
    const auto r = o.l.text("reduction", "none");
    if (r != "none" && r != "sum" && r != "sub" && r != "prod" && r != "min" && r != "max")
      refuse(o, fmt::format("reduction '{}' is not none, sum, sub, prod, min or max", r));
  }
  o.out[0].type = o.in[0]->type;
  o.out[0].shape = o.shape(0);
  const auto& data = o.shape(0);
  const auto& indices = o.shape(1);
  const auto& updates = o.shape(2);
  if (indices.rank_known() && indices.size() == 0) refuse(o, "the indices must not be a scalar");
  if (data.rank_known() && data.size() == 0) refuse(o, "the data must not be a scalar");
  if (!data.rank_known() || !indices.rank_known()) return;
  const auto& last = indices[indices.size() - 1];
  if (!last.is_static()) return;
  const auto k64 = static_cast<std::uint64_t>(last.lo());  // 64 bits: size_t is 32 in the WebAssembly build
  if (k64 > data.size())
    refuse(o, fmt::format("the indices {} address {} dimensions of the rank-{} data", to_string(indices), k64,
                          data.size()));
  const auto k = static_cast<std::size_t>(k64);
  if (o.g.format() == model_format::onnx) refuse_index_tuples_past(o, 1, data, 0, k);
  if (!updates.rank_known()) return;
  std::vector<dimension> expected(indices.begin(), indices.end() - 1);
  for (std::size_t i = k; i < data.size(); ++i) expected.push_back(data[i]);
  if (updates.size() != expected.size())
    refuse(o, fmt::format("the updates {} must have the shape {}", to_string(updates),
                          to_string(partial_shape(expected))));
  for (std::size_t i = 0; i < expected.size(); ++i)
    (void)merge(o, expected[i], updates[i], fmt::format("updates dimension {}", i));
}

// ScatterElementsUpdate-3 and -12: the data's shape; indices and updates have one shape, of the data's
// rank; the axis (input 3) is within it. -12 adds reduction (none, sum, prod, min, max, mean).
void scatter_elements_update(op& o) {
  o.need(4, 1);
  o.out[0].type = o.in[0]->type;
  o.out[0].shape = o.shape(0);
  if (o.l.opset >= 12) {
    const auto r = o.l.text("reduction", "none");
    if (r != "none" && r != "sum" && r != "prod" && r != "min" && r != "max" && r != "mean")
      refuse(o, fmt::format("reduction '{}' is not none, sum, prod, min, max or mean", r));
  }
  const auto& data = o.shape(0);
  const auto& indices = o.shape(1);
  const auto& updates = o.shape(2);
  const auto& axis_shape = o.shape(3);
  if (axis_shape.rank_known() && axis_shape.size() != 0 &&
      !(axis_shape.size() == 1 && axis_shape[0].is_static() && axis_shape[0].lo() == 1))
    refuse(o, "the axis must be a scalar", fmt::format("its shape is {}", to_string(axis_shape)));
  if (indices.rank_known() && updates.rank_known()) {
    if (indices.size() != updates.size())
      refuse(o, fmt::format("the indices {} and the updates {} must have one shape", to_string(indices),
                            to_string(updates)));
    for (std::size_t i = 0; i < indices.size(); ++i)
      (void)merge(o, indices[i], updates[i], fmt::format("dimension {} of the indices and the updates", i));
  }
  if (data.rank_known() && indices.rank_known() && data.size() != indices.size())
    refuse(o, fmt::format("the indices {} must have the data's rank {}", to_string(indices), data.size()));
  const auto axis = known_integers(o, 3);
  if (axis && axis->size() == 1 && data.rank_known()) {
    const auto a = normalize_axis(o, (*axis)[0], data.size());
    if (o.g.format() != model_format::onnx) return;
    refuse_indices_past(o, 1, data[a], a);
    // ONNX Runtime also refuses indices longer than the data off the axis (it writes where they are), which
    // OpenVINO's spec leaves open.
    for (std::size_t i = 0; indices.rank_known() && i < indices.size() && i < data.size(); ++i)
      if (i != a && indices[i].lo() > data[i].hi())
        refuse(o, fmt::format("dimension {} of the indices, {}, is above the data's, {}", i, to_string(indices[i]),
                              to_string(data[i])));
  }
}

constexpr rule_entry indexing_table[] = {
    {"GatherND", 5, gather_nd, batch::gather_nd, no_values},
    {"GatherND", 8, gather_nd, batch::gather_nd, no_values},
    {"GatherElements", 6, gather_elements, batch::gather_elements, no_values},
    {"ScatterNDUpdate", 4, scatter_nd_update, batch::cannot_tell, no_values},
    {"ScatterNDUpdate", 15, scatter_nd_update, batch::cannot_tell, no_values},
    {"ScatterElementsUpdate", 3, scatter_elements_update, batch::scatter_elements_update, no_values},
    {"ScatterElementsUpdate", 12, scatter_elements_update, batch::scatter_elements_update, no_values},
};

}  // namespace

std::span<const rule_entry> indexing_rules() { return indexing_table; }

}  // namespace reshape1::model::detail
