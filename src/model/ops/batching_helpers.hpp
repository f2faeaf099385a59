// Internal: what the batching rules share, across the files that hold them (batching.cpp: the rules of
// ops that compute on data; batching_data.cpp: of ops that move, select and index it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

#include "model/ops/batching.hpp"

namespace reshape1::model::detail::batch {

/// `axis` normalised for `rank` (a negative one counts from the end); nullopt when out of range.
std::optional<std::size_t> axis_in(std::int64_t axis, std::size_t rank);

/// Every output keeps input 0's batch at the same axis (ops whose outputs have input 0's shape or rank).
void keep_all(batch_op& o, const batch_state& s, std::size_t axis);

/// A single-data op whose `forbidden` axes mix elements across: the batch there mixes samples.
void unary_except(batch_op& o, const std::vector<std::size_t>& forbidden, why role,
                  std::initializer_list<std::size_t> params, batch_issue issue = batch_issue::mixes_samples);

/// A single-data op that computes along the axis its `axis` attribute names (required when `fallback`
/// is nullopt).
void along_axis_attribute(batch_op& o, std::optional<std::int64_t> fallback, why role,
                          std::initializer_list<std::size_t> params, batch_issue issue = batch_issue::mixes_samples);

/// Axes given as values of input `port`, normalised for `rank`; nullopt when unknown.
std::optional<std::vector<std::size_t>> axes_input(batch_op& o, std::size_t port, std::size_t rank);

}  // namespace reshape1::model::detail::batch
