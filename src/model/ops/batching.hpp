// Internal: the batching rules of the op registry. Each row of the rule table names one: given how each
// input holds the batch, it says how each output holds it, or that the layer breaks the batch (mixes or
// drops samples), or that it cannot tell. The contract (docs/batch.md): a rule's answer must hold for every
// batch N >= 1; the analysis (analysis/batch_walk.cpp) checks each answer against the shapes propagated at
// three batches.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "reshape1/model/batch.hpp"
#include "reshape1/model/graph.hpp"
#include "reshape1/model/propagate.hpp"

namespace reshape1::model::detail {

inline constexpr std::size_t no_layer = std::numeric_limits<std::size_t>::max();

/// How one tensor holds the batch.
struct batch_state {
  enum class kind : std::uint8_t {
    shared,      ///< the same for every sample and every N (constants, inputs without a batch)
    batched,     ///< axis `axis` is N·factor, sample i at [i·factor, (i+1)·factor)
    size_value,  ///< a value computed from shapes that hold the batch (ShapeOf): it holds no sample's data
    per_image,   ///< post-processing results whose length depends on the data, each image's kept apart
    unknown,     ///< cannot tell; `origin` is the layer that could not
    broken,      ///< downstream of a finding that already says no
    /// the elements of a batched tensor in their order, under a shape that interleaves samples (a Reshape
    /// [3,-1] of [N,3]): `origin` is that Reshape, and axis, factor, moved_by and home are the batched
    /// state of its input, which a later Reshape to a shape that holds the batch again gives back. Only the
    /// analysis sets and reads it; rules never see it.
    folded,
  };
  kind k = kind::shared;
  std::size_t axis = 0;
  std::int64_t factor = 1;
  /// For size_value: whether its value is known to change with N (false: it may).
  bool varies = true;
  /// For batched: the first Reshape that moved the batch out of the axis (or factor) it had, if any; a
  /// layer that later misuses that axis is blamed on it.
  std::size_t moved_by = no_layer;
  std::size_t home = 0;  ///< for moved_by: the axis the batch had before that Reshape
  /// For unknown, per_image and folded: the layer the state comes from.
  std::size_t origin = no_layer;

  [[nodiscard]] bool is(kind x) const noexcept { return k == x; }
  [[nodiscard]] static batch_state batched_at(std::size_t axis, std::int64_t factor) {
    batch_state s;
    s.k = kind::batched;
    s.axis = axis;
    s.factor = factor;
    return s;
  }
  /// The state after Reshape `by` regroups the batch into `new_axis` with `new_factor`: it remembers the
  /// first Reshape that moved the batch, and forgets it once the batch is back where it was, whole (what
  /// follows is no longer that Reshape's doing).
  [[nodiscard]] batch_state regrouped(std::size_t new_axis, std::int64_t new_factor, std::size_t by) const {
    batch_state r = *this;
    r.axis = new_axis;
    r.factor = new_factor;
    if ((new_axis != axis || new_factor != factor) && r.moved_by == no_layer) {
      r.moved_by = by;
      r.home = axis;
    }
    if (r.moved_by != no_layer && r.factor == 1 && r.axis == r.home) r.moved_by = no_layer;
    return r;
  }
  [[nodiscard]] batch_state moved_to(std::size_t new_axis) const {
    batch_state s = *this;
    s.axis = new_axis;
    return s;
  }
};

/// The symbols of the model inputs' dimensions other than the batch, where the sample batches give them
/// one (the request's, or the one a Parameter gives each dynamic dimension): sizes apart from the batch,
/// which do not change with N. A dimension that carries one of them at every sample batch does not hold
/// the batch, though it is not static. Symbols that other layers make (a body's Parameter given a dimension
/// without one) are not among them: nothing says those do not change with N.
using batch_free_sizes = std::unordered_set<symbol>;

/// A product of dimensions that the sample batches agree on: a constant times sizes that do not change
/// with N (`120·W`), the sizes by symbol id, sorted.
struct size_product {
  std::int64_t constant = 1;
  std::vector<std::uintptr_t> sizes;
  [[nodiscard]] bool is_constant() const noexcept { return sizes.empty(); }
  friend bool operator==(const size_product&, const size_product&) = default;
};

/// Whether dimension `d` is known at every sample batch in `shapes`: static at each (it may be N·k), or
/// the same size apart from the batch at each (one symbol of `sizes`, which may be null: none).
[[nodiscard]] bool known_at_samples(std::span<const partial_shape* const> shapes, std::size_t d,
                                    const batch_free_sizes* sizes);

/// The product of dimensions [begin, end) of each shape, when every one is known (known_at_samples) and
/// the products agree.
[[nodiscard]] std::optional<size_product> span_product(std::span<const partial_shape* const> shapes, std::size_t begin,
                                                       std::size_t end, const batch_free_sizes* sizes);

/// The product of dimensions [0, end) of each shape, when every one is known (known_at_samples) and the
/// products agree.
[[nodiscard]] std::optional<size_product> prefix_product(std::span<const partial_shape* const> shapes, std::size_t end,
                                                         const batch_free_sizes* sizes);

/// The batch values the analysis propagates at: distinct primes, far from any size a model writes down,
/// so that N·k cannot be mistaken for a constant dimension.
inline constexpr std::array<std::int64_t, 3> batch_samples = {1009, 1013, 1019};

/// Why a rule (or the analysis) finds that a layer mixes, drops or swallows samples, or cannot tell: the
/// finding's reason as data. The sentence each code stands for is written in model/text/batch.cpp, the one
/// place the batch analysis writes English; `because` carries what the sentence names: its numbers, then
/// its one quoted text (a sentence may name them in another order: "the label {1} ... input {0}").
enum class why : std::uint8_t {
  // The layer cannot tell: what the rule does not know or does not follow.
  data_rank_unknown, output_rank_unknown, an_input_rank_unknown, input_rank_unknown, ranks_unknown,
  axis_unknown, axis_out_of_range, axes_unknown, axes_do_not_fit, normalised_axes_unknown, accumulated_axis_unknown, reduced_axes_unknown,
  iteration_axis_unknown, concatenation_axis_unknown, axes_mapping_unknown, permutation_unknown,
  permutation_misses_batch, begin_length_unknown, start_length_unknown, strides_unknown, steps_unknown,
  repeats_unknown, pads_unknown, output_dimensions_unknown, prefix_not_static, dimension_before_batch_may_be_1,
  ellipsis_before_batch, pdpd_broadcasting, mode_not_followed, einsum_form_not_followed, equation_does_not_fit,
  label_repeats, indices_from_batch_size, data_and_indices_batched, batch_dims_without_batched_indices,
  batch_dims_without_batched_data, indices_at_another_axis, gather_nd_batch_dims, updates_at_another_axis,
  scatter_inputs_at_other_axes, batch_folded, parameter_holds_samples, batched_parameter, another_batched_input,
  shape_value_as_data, post_processing_input, post_processing_meets_samples, post_processing_shape,
  post_processing_in_body, not_per_image_input, input_not_batched, feature_map_not_per_image, spread_without_axis,
  spread_dimension_not_1, trip_count_from_batch, condition_from_batch, body_not_propagated, carried_value_differs,
  body_condition_per_sample, body_cannot_tell, if_merge_inputs, branch_condition_per_sample, branches_differ,
  branch_may_follow_batch_size, resizes_batch_nearest,
  no_batching_rule,
  // ... and what the analysis itself cannot decide (analysis/batch_walk.cpp, batch_fold.cpp).
  no_rule, reads_no_sample, answer_contradicted, not_propagated_at_samples, fails_at_sample_batch, rule_refused, assumed_axes_differ,
  assumed_without_batch, slice_whole_at_asked, reads_interleaved, shape_differs_at_asked,
  size_value_parameter_unproven,
  // ... and at new sizes, a size the export may have written as a constant (analysis/batch_sizes.cpp).
  baked_size, placed_on_size, kernel_covers_size, window_spans_size, window_tiles_size, sizes_in_body, sizes_not_proven, resize_to_fixed_size, crop_to_fixed_size, shape_table,
  shape_table_part, shape_table_count,
  counted_range, counted_grid, spread_along_size, spread_extent, spread_at_size_1, spread_over_size_1, size_value_unknown, regroups_sizes,
  // The layer mixes samples.
  size_value_as_data, branch_from_batch_size, size_value_as_parameter, size_value_as_parameter_value,
  broadcast_pairs_samples, batch_in_channels, batch_on_spatial_axis, batch_on_pooled_axis,
  batch_on_softmax_axis, batch_on_normalised_axis, batch_on_accumulated_axis, batch_on_shuffled_axis, batch_on_cell_axis, reduces_batch,
  contracts_batch, product_axes_differ, sums_over_batch, labels_differ, concatenates_along_batch,
  inputs_at_different_axes, reverses_batch, squeeze_without_axes, repeats_batch, pads_batch, resizes_batch,
  expects_image_per_index, expects_image_per_index_folded, scans_time_along_batch, recurrence_along_batch,
  factors_differ, gathers_along_batch, writes_along_batch, iterates_along_batch, concatenates_iterations,
  // The layer drops samples.
  batch_on_top_k_axis, splits_batch, gathers_batch_with_fixed_indices, takes_one_index_of_batch, slices_batch,
  removes_batch,
  // A Reshape swallows the batch.
  folded_into_fixed_dimensions, interleaves_samples,
  // What the analysis finds at a Reshape's pattern and at the model's outputs (analysis/batch_failures.cpp,
  // batch_findings.cpp).
  replaces_batch, output_batch_elsewhere, output_size_value, output_size_value_varies, output_interleaved,
  output_per_image,
};

/// A reason and what its sentence names: up to four numbers (ports, axes, factors, counts) and one quoted
/// text (an attribute's value, an einsum label, an error's message).
struct because {
  why code = why::data_rank_unknown;
  std::uint8_t count = 0;  ///< how many of `numbers` the sentence names
  std::array<std::int64_t, 4> numbers{};
  std::string quoted;

  because(why c) : code(c) {}  // NOLINT(google-explicit-constructor): a reason that names nothing
  template <std::integral... N>
    requires(sizeof...(N) >= 1 && sizeof...(N) <= 4)
  because(why c, N... n) : code(c), count(sizeof...(N)), numbers{static_cast<std::int64_t>(n)...} {}
  /// The reason, quoting `text` after its numbers.
  [[nodiscard]] because quoting(std::string text) && {
    quoted = std::move(text);
    return std::move(*this);
  }
};

/// One fault a rule found: the input port whose batch it breaks, and how.
struct batch_fault {
  batch_issue issue = batch_issue::mixes_samples;
  std::optional<std::size_t> port;  ///< the input that holds the batch the layer breaks
  because reason;
};

/// What a batching rule sees of one layer, and where it writes its answer.
struct batch_op {
  const graph& g;
  const layer& l;
  std::span<const batch_state> in;  ///< one per input port
  std::span<batch_state> out;       ///< one per output, all shared on entry
  /// The propagations at the three sample batches (inputs and outputs of this layer are known there).
  std::array<const propagation*, batch_samples.size()> at{};
  /// Per output: the dimension that is N·k at every sample batch, as the analysis found it.
  std::span<const batch_carrier> carriers;
  /// The sizes that do not change with N (null: none is known).
  const batch_free_sizes* sizes = nullptr;
  /// For TensorIterator and Loop: analyses the body with these states for its Parameters (by body layer
  /// index); returns the states of its layers' outputs, or nullopt when the body was not propagated.
  std::function<std::optional<std::vector<std::vector<batch_state>>>(const std::vector<batch_state>&)> body;
  /// Whether input `port`, a value computed from the batch size that changes with N, is the same at batch 1
  /// (each sample alone) as at the batch asked (`max(N, 4)` at 4): read as data, it then gives each sample
  /// what it gets alone (true), or not (false), or nothing shows which (nullopt). Only a data input may be
  /// taken so: a shape or a bound equal at 1 and N does not scale with the batch. Null: always false.
  std::function<std::optional<bool>(std::size_t)> alike_alone;
  /// Whether input `port` has at the batch asked the value the sample batches agree on (an If's condition
  /// `n < 5` does not: true at 4, false at 1009), so that what the rule reads at the samples holds there.
  /// Null: always.
  std::function<bool(std::size_t)> asked_like_samples;
  /// The value of input `port` where alike_alone finds it the same at batch 1 and every batch asked, its
  /// elements known exactly; null otherwise (and when the function is null).
  std::function<const tensor_value*(std::size_t)> alike_value;

  std::vector<batch_fault> faults;
  std::optional<because> undecided;  ///< set by cannot_tell(): why the rule cannot tell
  /// The inputs data_ok took as data the same alone as at the batch asked (alike_alone): read elementwise,
  /// what the sample batches hold there steers nothing. A parameter alike alone is not among them: the same
  /// value acts on another batch (a reversal of the batch axis is nothing alone and reverses a batch).
  std::vector<std::size_t> alike_data;

  // ---- what the rule reads ----
  [[nodiscard]] const partial_shape& in_shape(std::size_t port, std::size_t sample = 0) const;
  [[nodiscard]] const partial_shape& out_shape(std::size_t output, std::size_t sample = 0) const;
  [[nodiscard]] std::optional<std::size_t> in_rank(std::size_t port) const;
  [[nodiscard]] std::optional<std::size_t> out_rank(std::size_t output) const;
  /// The exact integers of input `port`, the same at every sample batch; nullopt otherwise.
  [[nodiscard]] std::optional<std::vector<std::int64_t>> ints(std::size_t port) const;
  [[nodiscard]] bool batched(std::size_t port) const { return port < in.size() && in[port].is(batch_state::kind::batched); }
  [[nodiscard]] bool any_batched() const;
  /// The product of dimensions [0, end) of input `port` (output `output`), when known and the same at
  /// every sample batch (prefix_product).
  [[nodiscard]] std::optional<size_product> in_prefix(std::size_t port, std::size_t end) const;
  [[nodiscard]] std::optional<size_product> out_prefix(std::size_t output, std::size_t end) const;
  /// The dimensions of output `output` not known at every sample batch (known_at_samples); nullopt when
  /// its rank is not known there.
  [[nodiscard]] std::optional<std::vector<std::size_t>> out_unknown(std::size_t output) const;
  /// Which dimension of output `output` is N·k at every sample batch.
  [[nodiscard]] const batch_carrier& out_carrier(std::size_t output) const;

  // ---- what the rule answers ----
  void keep(std::size_t output, const batch_state& s, std::size_t axis) {
    if (output < out.size()) out[output] = s.moved_to(axis);
  }
  void fault(batch_issue issue, std::size_t port, because reason) {
    faults.push_back({issue, port, std::move(reason)});
  }
  void mixes(std::size_t port, because reason) { fault(batch_issue::mixes_samples, port, std::move(reason)); }
  void drops(std::size_t port, because reason) { fault(batch_issue::drops_samples, port, std::move(reason)); }
  void cannot_tell(because reason) {
    if (!undecided) undecided = std::move(reason);
  }
  /// Inputs that are parameters of the op (axes, bounds, weights): shared or size values are fine (the
  /// shapes at the sample batches show what they do); per-sample data there is more than a rule can tell.
  bool params_ok(std::initializer_list<std::size_t> ports);
  /// Data inputs that are not batched: shared is fine; a size value used as data makes each sample's result
  /// depend on N (mixes, or cannot tell when it may not vary); post-processing results: cannot tell.
  bool data_ok(std::size_t port);
  /// The only batched data input, at `port`, when every other input is a parameter; else a fault.
  [[nodiscard]] const batch_state* sole(std::size_t port, std::initializer_list<std::size_t> params);
};

using batch_rule = void (*)(batch_op&);

/// A registry row's batching: its rule, and whether the rule also runs when no input is batched (an op
/// that spreads a shared value over a shape that holds the batch: Broadcast, Tile).
struct batching {
  batch_rule fn = nullptr;
  bool spreads = false;
  constexpr batching() = default;
  constexpr batching(batch_rule f, bool s = false) : fn(f), spreads(s) {}  // NOLINT: rows name a rule
};

/// The rules the rows use; each says what it decides where it is defined (batching.cpp for ops that compute
/// on data, batching_data.cpp for ops that move, select and index it), and docs/batch.md
/// gives the property every one of them must keep.
namespace batch {
void source(batch_op&);          ///< Parameter, Const: set by the analysis
void output(batch_op&);          ///< Result: checked by the analysis against the output's batch axis
void pointwise(batch_op&);       ///< NumPy broadcasting of all inputs
void select(batch_op&);          ///< Select: pointwise, but a condition alike alone and in the batch reads one side
void first_input(batch_op&);     ///< the output follows input 0; the others are parameters
void prelu(batch_op&);           ///< PReLU: as first_input; where the slope lies is the spread analyses' (batch_spread.cpp)
void batch_norm(batch_op&);      ///< per-channel parameters; the channel axis must not hold the batch
void spatial(batch_op&);         ///< convolutions, DepthToSpace...: only axis 0 may hold the batch
void pooling(batch_op&);         ///< axes 0 and 1 may hold the batch
void softmax(batch_op&);         ///< the `axis` attribute mixes
void mvn(batch_op&);             ///< MVN-2 (attributes) and MVN-6 (axes input)
void over_axes_input(batch_op&); ///< NormalizeL2, LRN: axes input 1 mixes, the shape stays
void cumulative(batch_op&);      ///< CumSum: the axis input 1 mixes, the shape stays
void convert_like(batch_op&);    ///< ConvertLike: input 0's batch; input 1 gives only a type
void reduce(batch_op&);          ///< Reduce*: axes input 1 mixes; keep_dims
void top_k(batch_op&);           ///< along the batch: drops samples
void matmul(batch_op&);
void einsum(batch_op&);
void concat(batch_op&);
void split(batch_op&);           ///< Split, VariadicSplit
void gather(batch_op&);
void strided_slice(batch_op&);
void slice(batch_op&);
void transpose(batch_op&);
void squeeze(batch_op&);
void unsqueeze(batch_op&);
void reshape(batch_op&);
void shape_of(batch_op&);
void broadcast(batch_op&);
void tile(batch_op&);
void pad(batch_op&);
void interpolate(batch_op&);
void shuffle_channels(batch_op&);
void region_yolo(batch_op&);
void detection(batch_op&);       ///< DetectionOutput, NonMaxSuppression, Proposal: per-image results
void roi(batch_op&);             ///< ROIPooling, ROIAlign: rows follow per-image boxes
void ctc_greedy_decoder(batch_op&);
void ctc_greedy_decoder_seq_len(batch_op&);
void recurrent(batch_op&);       ///< *Sequence and *Cell: batch at axis 0 of the data and states
void gather_elements(batch_op&);
void gather_nd(batch_op&);
void scatter_update(batch_op&);
void scatter_elements_update(batch_op&);
void non_zero(batch_op&);
void tensor_iterator(batch_op&);
void loop(batch_op&);            ///< also: its trip count and condition must not depend on the samples
void branch_merge(batch_op&);    ///< IfMerge (ONNX If): both branches must hold the batch alike
void cannot_tell(batch_op&);     ///< ops no rule decides (PriorBox on batched data, Range, ScatterNDUpdate, RandomUniform)
}  // namespace batch

/// The name of a batching rule (the function's, as `--list-ops --json` prints it), "" for none.
[[nodiscard]] std::string_view batch_rule_name(batch_rule f) noexcept;

}  // namespace reshape1::model::detail
