// Internal: the request stage of `check --batch` (analysis/batch_request.cpp): the model's inputs as the
// request asks for them, and the shapes each propagation starts from.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_set>
#include <vector>

#include "reshape1/model/batch.hpp"
#include "reshape1/model/graph.hpp"
#include "reshape1/model/propagate.hpp"

namespace reshape1::model::batch_analysis {

/// The model's inputs (`declared`: their shapes when not the ones the model declares), each with its batch
/// index (the request's layout, else the model's, else dimension 0) and the shape the request asks for it.
/// error(invalid_argument) naming the option, in the request's spelling, for a request the model refutes.
std::vector<input_report> choose_inputs(const graph& g, const reshape_request& request,
                                        std::span<const input_shape> declared = {});
/// The names a model gives its batch: each input's declared batch dimension's symbol (an ONNX dim_param).
std::unordered_set<symbol> named_batch(const std::vector<input_report>& inputs);
/// Where an input holds the batch: its batch index, and every dimension it declares with one of `names`.
std::vector<bool> batch_positions(const input_report& in, const std::unordered_set<symbol>& names);
/// The inputs' shapes as requested, with the batch at `batch` where given.
std::vector<input_shape> shapes_at(const std::vector<input_report>& inputs, std::optional<std::int64_t> batch);
/// The inputs' shapes at sample batch `batch` (their other dynamic sizes kept as symbols).
std::vector<input_shape> sample_shapes(const std::vector<input_report>& inputs, std::int64_t batch);
/// error(invalid_argument) for a constant the request vouches for that the model does not have.
void check_assumed_constants(const graph& g, const reshape_request& request);

}  // namespace reshape1::model::batch_analysis
