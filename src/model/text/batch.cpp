// The sentences of `check --batch`: see batch.hpp.
#include "model/text/batch.hpp"

#include <algorithm>
#include <iterator>
#include <vector>

#include <fmt/args.h>
#include <fmt/format.h>

#include "detail/assert.hpp"
#include "model/options.hpp"
#include "model/ops/rules.hpp"

namespace reshape1::model::text {

using detail::why;

namespace {

struct form_row {
  why code;
  std::string_view name;  ///< the code as JSON and Python spell it: the enumerator's own name
  sentence_form form;
};

/// Every reason's sentence, in the order of the codes (a code is its row's index).
constexpr form_row forms[] = {
    {why::data_rank_unknown, "data_rank_unknown", {"the data's rank is unknown", 0}},
    {why::output_rank_unknown, "output_rank_unknown", {"the output's rank is unknown", 0}},
    {why::an_input_rank_unknown, "an_input_rank_unknown", {"an input's rank is unknown", 0}},
    {why::input_rank_unknown, "input_rank_unknown", {"input {}'s rank is unknown", 1, false, "port"}},
    {why::ranks_unknown, "ranks_unknown", {"the ranks are not known", 0}},
    {why::axis_unknown, "axis_unknown", {"its axis is not known", 0}},
    {why::axis_out_of_range, "axis_out_of_range", {"its axis is out of range", 0}},
    {why::axes_unknown, "axes_unknown", {"its axes are not known", 0}},
    {why::axes_do_not_fit, "axes_do_not_fit", {"its axes do not fit the data", 0}},
    {why::normalised_axes_unknown, "normalised_axes_unknown", {"the axes it normalises over are not known", 0}},
    {why::accumulated_axis_unknown, "accumulated_axis_unknown", {"the axis it accumulates along is not known", 0}},
    {why::reduced_axes_unknown, "reduced_axes_unknown", {"the axes it reduces are not known", 0}},
    {why::iteration_axis_unknown, "iteration_axis_unknown", {"its iteration axis is not known", 0}},
    {why::concatenation_axis_unknown, "concatenation_axis_unknown", {"its concatenation axis is not known", 0}},
    {why::axes_mapping_unknown, "axes_mapping_unknown", {"its axes mapping is not known", 0}},
    {why::permutation_unknown, "permutation_unknown", {"its permutation is not known", 0}},
    {why::permutation_misses_batch, "permutation_misses_batch", {"its permutation does not name the batch axis", 0}},
    {why::begin_length_unknown, "begin_length_unknown", {"the length of its begin input is not known", 0}},
    {why::start_length_unknown, "start_length_unknown", {"the length of its start input is not known", 0}},
    {why::strides_unknown, "strides_unknown", {"its strides are not known", 0}},
    {why::steps_unknown, "steps_unknown", {"its steps are not known", 0}},
    {why::repeats_unknown, "repeats_unknown", {"its repeats are not known", 0}},
    {why::pads_unknown, "pads_unknown", {"its pads are not known", 0}},
    {why::output_dimensions_unknown, "output_dimensions_unknown", {"the output's dimensions are not all known at the sample batches", 0}},
    {why::prefix_not_static, "prefix_not_static", {"the dimensions before the batch are not static", 0}},
    {why::dimension_before_batch_may_be_1, "dimension_before_batch_may_be_1", {"a dimension before the batch may or may not be 1", 0}},
    {why::ellipsis_before_batch, "ellipsis_before_batch", {"an ellipsis before the batch axis is not followed", 0}},
    {why::pdpd_broadcasting, "pdpd_broadcasting", {"PDPD broadcasting is not followed by the batch analysis", 0}},
    {why::mode_not_followed, "mode_not_followed", {"mode {} is not followed", 0, true, "mode"}},
    {why::einsum_form_not_followed, "einsum_form_not_followed",
     {"an equation with an ellipsis or without an output is not followed by the batch analysis", 0}},
    {why::equation_does_not_fit, "equation_does_not_fit", {"the equation does not fit the inputs", 0}},
    {why::label_repeats, "label_repeats", {"the batch's label {1} repeats within input {0} (a diagonal)", 1, true, "port,label"}},
    {why::indices_from_batch_size, "indices_from_batch_size", {"its indices are computed from the batch size", 0}},
    {why::data_and_indices_batched, "data_and_indices_batched", {"both the data and the indices hold the batch", 0}},
    {why::batch_dims_without_batched_indices, "batch_dims_without_batched_indices", {"batch_dims is set but the indices do not hold the batch", 0}},
    {why::batch_dims_without_batched_data, "batch_dims_without_batched_data", {"batch_dims is set but the data does not hold the batch", 0}},
    {why::indices_at_another_axis, "indices_at_another_axis", {"the data and the indices do not hold the batch at the same axis", 0}},
    {why::gather_nd_batch_dims, "gather_nd_batch_dims",
     {"the data and the indices do not both hold the batch in a batch dimension of the op", 0}},
    {why::updates_at_another_axis, "updates_at_another_axis",
     {"the data and the updates do not hold the batch at the same axis before the scatter axis", 0}},
    {why::scatter_inputs_at_other_axes, "scatter_inputs_at_other_axes",
     {"the data, indices and updates do not all hold the batch at the same axis", 0}},
    {why::batch_folded, "batch_folded", {"the batch is folded with other elements", 0}},
    {why::parameter_holds_samples, "parameter_holds_samples", {"input {} is a parameter of the op but holds per-sample data", 1, false, "port"}},
    {why::batched_parameter, "batched_parameter", {"input {} is a parameter but holds the batch", 1, false, "port"}},
    {why::another_batched_input, "another_batched_input", {"input {} holds the batch too, which this op's rule does not follow", 1, false, "port"}},
    {why::shape_value_as_data, "shape_value_as_data", {"input {} is a value computed from shapes that hold the batch, used as data", 1, false, "port"}},
    {why::post_processing_input, "post_processing_input", {"input {} holds post-processing results, which this op's rule does not follow", 1, false, "port"}},
    {why::post_processing_meets_samples, "post_processing_meets_samples", {"post-processing results meet per-sample data", 0}},
    {why::post_processing_shape, "post_processing_shape", {"the shape of post-processing results depends on the data", 0}},
    {why::post_processing_in_body, "post_processing_in_body", {"post-processing results enter its body", 0}},
    {why::not_per_image_input, "not_per_image_input", {"input {} does not come from per-image post-processing", 1, false, "port"}},
    {why::input_not_batched, "input_not_batched", {"input {} does not hold the batch", 1, false, "port"}},
    {why::feature_map_not_per_image, "feature_map_not_per_image", {"the feature map does not hold one image per index of dimension 0", 0}},
    {why::spread_without_axis, "spread_without_axis", {"its output's size follows the batch, but no single axis holds it", 0}},
    {why::spread_dimension_not_1, "spread_dimension_not_1", {"the data's dimension under the batch is not 1", 0}},
    {why::trip_count_from_batch, "trip_count_from_batch", {"input {} (the trip count) depends on the batch: data-dependent control flow", 1, false, "port"}},
    {why::condition_from_batch, "condition_from_batch",
     {"input {} (the execution condition) depends on the batch: data-dependent control flow", 1, false, "port"}},
    {why::body_not_propagated, "body_not_propagated", {"its body was not propagated at every sample batch", 0}},
    {why::carried_value_differs, "carried_value_differs",
     {"a value carried to the next iteration holds the batch differently from its first value", 0}},
    {why::body_condition_per_sample, "body_condition_per_sample", {"the body's condition depends on the samples: data-dependent control flow", 0}},
    {why::body_cannot_tell, "body_cannot_tell", {"its body cannot tell (see the findings inside it)", 0}},
    {why::if_merge_inputs, "if_merge_inputs", {"IfMerge needs a condition and two branch values", 0}},
    {why::branch_condition_per_sample, "branch_condition_per_sample",
     {"the condition depends on per-sample data: each sample may take another branch", 0}},
    {why::branches_differ, "branches_differ",
     {"the two branches hold the batch differently: which one runs decides what the output is", 0}},
    {why::branch_may_follow_batch_size, "branch_may_follow_batch_size",
     {"its condition is computed from the batch size and may change with it: a sample run in a batch may "
      "take another branch than it takes alone", 0}},
    {why::resizes_batch_nearest, "resizes_batch_nearest",
     {"input {} holds the batch in dimension {}, which this layer resizes by nearest neighbours: whether each "
      "output row takes its own sample's rows depends on the scale and the coordinate mode, which the batch "
      "analysis does not follow", 2, false, "port,axis"}},
    {why::no_batching_rule, "no_batching_rule", {"{1}-{0} has no batching rule that follows per-sample data", 1, true, "version,type"}},
    {why::no_rule, "no_rule", {"{1}-{0} has no rule: reshape1 does not know what it does", 1, true, "version,type"}},
    {why::reads_no_sample, "reads_no_sample", {"its output's size follows the batch, but it reads no sample's data", 0}},
    {why::answer_contradicted, "answer_contradicted",
     {"its batching rule's answer does not match the shapes propagated at the sample batches", 0}},
    {why::not_propagated_at_samples, "not_propagated_at_samples", {"its output shapes could not be propagated at the sample batches", 0}},
    {why::fails_at_sample_batch, "fails_at_sample_batch",
     {"it fails at the batch of {0} samples that the analysis runs the model at to tell its samples apart ({1}), so "
      "nothing shows how it treats each sample", 1, true, "sample_batch,message"}},
    {why::rule_refused, "rule_refused", {"{}", 0, true, "message"}},
    {why::assumed_axes_differ, "assumed_axes_differ", {"its inputs hold the batch at different axes, which {} does not cover", 0, true, "option"}},
    {why::assumed_without_batch, "assumed_without_batch", {"it reads values computed from the batch size", 0}},
    {why::slice_whole_at_asked, "slice_whole_at_asked",
     {"input {} holds the batch in dimension {}, which this layer keeps whole at the batch asked but slices to part "
      "of its range at the larger batches the analysis follows the batch at, so the layers after it cannot be "
      "followed", 2, false, "port,axis"}},
    {why::reads_interleaved, "reads_interleaved",
     {"input {0} holds the samples interleaved by the Reshape '{2}' (id {1}), and nothing shows whether this layer "
      "keeps them apart or mixes them", 2, true, "port,reshape_id,reshape"}},
    {why::shape_differs_at_asked, "shape_differs_at_asked",
     {"its output {} has another shape at the batch asked than at the larger batches the analysis follows the "
      "batch at (its shape is computed from the batch size), so those do not show what the layers after it do", 1, false, "output"}},
    {why::size_value_parameter_unproven, "size_value_parameter_unproven",
     {"input {} is a parameter computed from the batch size, and nothing shows that it is the same at every "
      "batch asked as at batch 1, where each sample is alone", 1, false, "port"}},
    {why::baked_size, "baked_size",
     {"input {} element {} may stand for the size {}: {}", 3, true, "port,element,size,equals"}},
    {why::placed_on_size, "placed_on_size",
     {"input {0} element {1} is the constant {3} along axis {2}, whose size changes: a fixed size, amount or "
      "bound there may stand for one computed from the size", 4, false, "port,element,axis,value"}},
    {why::kernel_covers_size, "kernel_covers_size",
     {"its window is {1} along axis {0}, the whole input there at the declared shapes, and that axis is {2} at "
      "the shapes asked", 2, true, "axis,window,asked"}},
    {why::window_spans_size, "window_spans_size",
     {"its window reaches across {1} along axis {0} with its padding and dilation, so one output takes the "
      "whole input there ({2}) at the declared shapes, and that axis is {3} at the shapes asked", 3, true,
      "axis,window,size,asked"}},
    {why::window_tiles_size, "window_tiles_size",
     {"its window and stride, {1} along axis {0}, cut the whole input there ({2}) into {3} bins at the declared "
      "shapes, as adaptive pooling does, and that axis is {4} at the shapes asked", 4, true,
      "axis,window,size,bins,asked"}},
    {why::sizes_in_body, "sizes_in_body",
     {"its body is not searched for sizes written as constants, so nothing shows it computes at the new sizes "
      "what it computes at the declared ones", 0}},
    {why::sizes_not_proven, "sizes_not_proven",
     {"its dimension {} is asked as {}: every layer propagates over it, but propagation over an interval or a "
      "symbol shows only that some of its sizes fit, not that each does", 1, true, "dimension,asked"}},
    {why::resize_to_fixed_size, "resize_to_fixed_size",
     {"its output is {1} along axis {0} both at the declared shapes and at the shapes asked, where its input's "
      "size there changes: a size written for one input size may stand for one that follows it", 2, false,
      "axis,size"}},
    {why::crop_to_fixed_size, "crop_to_fixed_size",
     {"its output is {1} along axis {0} both at the declared shapes and at the shapes asked, where its input's "
      "size there changes, and its bounds are computed from {2}: a target written for one size may stand for one "
      "that follows it", 2, true, "axis,size,constant"}},
    {why::shape_table, "shape_table",
     {"its {0} values are the whole shape of a tensor at the declared shapes, {1}: a shape the program read from "
      "its input may have been written as a constant", 1, true, "count,tensor"}},
    {why::shape_table_part, "shape_table_part",
     {"its {0} values are the last dimensions of a tensor at the declared shapes but for its dimensions of 1, {1}: "
      "a shape the program read from a tensor may have been written as a constant", 1, true, "count,tensor"}},
    {why::shape_table_count, "shape_table_count",
     {"the {0} elements of the output it shapes are as many as {1}: a count the program made of a tensor's size "
      "may have been written as a constant", 1, true, "count,equals"}},
    {why::counted_range, "counted_range",
     {"its values count from {2} by {3} along axis {0}, {1} of them, and that count {4}: a range the program "
      "computed for one size may stand for one that follows it", 4, true, "axis,count,start,step,equals"}},
    {why::counted_grid, "counted_grid",
     {"its values follow their indices along {} of its axes, as a grid of positions does: {}: a grid the program "
      "computed for one size may stand for one that follows it", 1, true, "axes,along"}},
    {why::spread_along_size, "spread_along_size",
     {"its values stay the same along {} of its axes, each as long as a size that changes: {}: a constant spread "
      "over one size (an Expand folded at export) may stand for one spread over the size that follows it", 1, true,
      "axes,along"}},
    {why::spread_extent, "spread_extent",
     {"its extent along axis {0}, {1}, is what {2}: a constant made for one size may hold one value per element "
      "of that size, and stand for one that follows it", 2, true, "axis,extent,spread"}},
    {why::spread_at_size_1, "spread_at_size_1",
     {"its input {0} is a constant 1 long along output axis {1}, which it spreads over a size of 1 at the declared "
      "shapes ({2}): one size of 1 cannot show whether the program made that constant for the size (a range or "
      "grid computed at a size of 1), to stand for one that follows it", 2, true, "port,axis,spread"}},
    {why::spread_over_size_1, "spread_over_size_1",
     {"its input {0} is computed from constants alone and {2} long along output axis {1}, where it spreads them "
      "over an input {3}: the output keeps the constants' extent where the program may have made one value per "
      "element of that size", 3, true,
      "port,axis,extent,spread"}},
    {why::size_value_unknown, "size_value_unknown",
     {"the values of its input {} decide its output's shape, and reshape1 does not know them at the shapes "
      "asked: nothing shows they follow the new sizes rather than stand for the declared ones", 1, false, "port"}},
    {why::regroups_sizes, "regroups_sizes",
     {"its first {1} output dimensions hold its first {0} input dimensions at the declared shapes but not at "
      "the shapes asked ({2}): a pattern written for one size may stand for values computed from it", 2, true,
      "input_dimensions,output_dimensions,shapes"}},
    {why::size_value_as_data, "size_value_as_data",
     {"input {} is a value computed from the batch size ({}) that changes with it, used as data: each "
      "sample's result depends on N", 1, true, "port,path"}},
    {why::branch_from_batch_size, "branch_from_batch_size",
     {"its condition is computed from the batch size ({}) and changes with it: a sample run in a batch "
      "takes another branch than it takes alone", 0, true, "path"}},
    {why::size_value_as_parameter, "size_value_as_parameter",
     {"input {} is computed from the batch size ({}) and sets the output's shape, which at batch 1 is not "
      "one sample's share of the batched output: each sample's result depends on N", 1, true, "port,path"}},
    {why::size_value_as_parameter_value, "size_value_as_parameter_value",
     {"input {} is computed from the batch size ({}) and is the same in every batch but not at batch 1: it "
      "picks other values for a sample alone than for the same sample in a batch", 1, true, "port,path"}},
    {why::broadcast_pairs_samples, "broadcast_pairs_samples",
     {"inputs {} and {} hold the batch at different axes ({} and {} of the output): broadcasting pairs "
      "each sample of one with every sample of the other", 4, false, "port,other_port,axis,other_axis"}},
    {why::batch_in_channels, "batch_in_channels", {"the batch is in dimension 1, the channels, which take per-channel parameters", 0}},
    {why::batch_on_spatial_axis, "batch_on_spatial_axis",
     {"input {} holds the batch in dimension {}, which this layer uses as its channels or a spatial axis", 2, false, "port,axis"}},
    {why::batch_on_pooled_axis, "batch_on_pooled_axis", {"input {} holds the batch in dimension {}, a pooled axis", 2, false, "port,axis"}},
    {why::batch_on_softmax_axis, "batch_on_softmax_axis",
     {"input {} holds the batch in dimension {}, which this layer uses as its softmax axis", 2, false, "port,axis"}},
    {why::batch_on_normalised_axis, "batch_on_normalised_axis",
     {"input {} holds the batch in dimension {}, which this layer uses as an axis it normalises over", 2, false, "port,axis"}},
    {why::batch_on_accumulated_axis, "batch_on_accumulated_axis",
     {"input {} holds the batch in dimension {}, which this layer accumulates along", 2, false, "port,axis"}},
    {why::batch_on_shuffled_axis, "batch_on_shuffled_axis",
     {"input {} holds the batch in dimension {}, which this layer uses as the axis it shuffles", 2, false, "port,axis"}},
    {why::batch_on_cell_axis, "batch_on_cell_axis",
     {"input {} holds the batch in dimension {}, which this layer uses as an axis of its cells", 2, false, "port,axis"}},
    {why::reduces_batch, "reduces_batch", {"input {} holds the batch in dimension {}, which this layer reduces", 2, false, "port,axis"}},
    {why::contracts_batch, "contracts_batch", {"input {} holds the batch in dimension {}, its contraction axis", 2, false, "port,axis"}},
    {why::product_axes_differ, "product_axes_differ",
     {"both inputs hold the batch, at different axes of the product ({} and {}): every sample of one "
      "meets every sample of the other", 2, false, "axis,other_axis"}},
    {why::sums_over_batch, "sums_over_batch",
     {"input {} holds the batch in dimension {} (label {}), which the equation sums over", 2, true, "port,axis,label"}},
    {why::labels_differ, "labels_differ",
     {"two inputs hold the batch under different labels: every sample of one meets every sample of the "
      "other", 0}},
    {why::concatenates_along_batch, "concatenates_along_batch",
     {"input {} holds the batch in dimension {}, the concatenation axis: the inputs are joined whole, not "
      "sample by sample", 2, false, "port,axis"}},
    {why::inputs_at_different_axes, "inputs_at_different_axes", {"two inputs hold the batch at different axes", 0}},
    {why::reverses_batch, "reverses_batch", {"input {} holds the batch in dimension {}, which this layer reverses", 2, false, "port,axis"}},
    {why::squeeze_without_axes, "squeeze_without_axes",
     {"input {} holds the batch in dimension {}, which a Squeeze without axes removes at batch 1", 2, false, "port,axis"}},
    {why::repeats_batch, "repeats_batch",
     {"input {} holds the batch in dimension {}, which this layer repeats: the copies of all samples "
      "follow each other", 2, false, "port,axis"}},
    {why::pads_batch, "pads_batch", {"input {} holds the batch in dimension {}, which this layer pads", 2, false, "port,axis"}},
    {why::resizes_batch, "resizes_batch", {"input {} holds the batch in dimension {}, which this layer resizes", 2, false, "port,axis"}},
    {why::expects_image_per_index, "expects_image_per_index",
     {"input {} holds the batch in dimension {}, where this layer expects one image per index of "
      "dimension 0", 2, false, "port,axis"}},
    {why::expects_image_per_index_folded, "expects_image_per_index_folded",
     {"input {} holds the batch in dimension {} (N·{}), where this layer expects one image per index of "
      "dimension 0", 3, false, "port,axis,factor"}},
    {why::scans_time_along_batch, "scans_time_along_batch", {"input {} holds the batch in dimension {}, where the decoder scans time", 2, false, "port,axis"}},
    {why::recurrence_along_batch, "recurrence_along_batch",
     {"input {} holds the batch in dimension {}, which the recurrence does not keep apart (it scans or "
      "mixes along it)", 2, false, "port,axis"}},
    {why::factors_differ, "factors_differ", {"inputs hold the batch with different factors", 0}},
    {why::gathers_along_batch, "gathers_along_batch", {"input {} holds the batch in dimension {}, which this layer gathers along", 2, false, "port,axis"}},
    {why::writes_along_batch, "writes_along_batch", {"input {} holds the batch in dimension {}, which this layer writes along", 2, false, "port,axis"}},
    {why::iterates_along_batch, "iterates_along_batch", {"input {} holds the batch in dimension {}, which the body iterates along", 2, false, "port,axis"}},
    {why::concatenates_iterations, "concatenates_iterations",
     {"its output {} concatenates the iterations along dimension {}, which holds the batch", 2, false, "output,axis"}},
    {why::batch_on_top_k_axis, "batch_on_top_k_axis",
     {"input {} holds the batch in dimension {}, which this layer uses as the axis it selects the top k "
      "along", 2, false, "port,axis"}},
    {why::splits_batch, "splits_batch",
     {"input {} holds the batch in dimension {}, which this layer splits: each output gets some of the "
      "samples", 2, false, "port,axis"}},
    {why::gathers_batch_with_fixed_indices, "gathers_batch_with_fixed_indices",
     {"input {} holds the batch in dimension {}, which this layer gathers along with indices that do not "
      "follow the batch", 2, false, "port,axis"}},
    {why::takes_one_index_of_batch, "takes_one_index_of_batch",
     {"input {} holds the batch in dimension {}, which this layer takes one index of", 2, false, "port,axis"}},
    {why::slices_batch, "slices_batch", {"input {} holds the batch in dimension {}, which this layer slices to part of its range", 2, false, "port,axis"}},
    {why::removes_batch, "removes_batch", {"input {} holds the batch in dimension {}, which this layer removes", 2, false, "port,axis"}},
    {why::folded_into_fixed_dimensions, "folded_into_fixed_dimensions",
     {"input {} holds the batch in dimension {}, and no single dimension of the output follows it: the "
      "batch is folded into dimensions the pattern fixes", 2, false, "port,axis"}},
    {why::interleaves_samples, "interleaves_samples",
     {"its output holds the batch in dimension {} (N·{}) behind {} elements where the input has {}: the "
      "batch is not the outermost factor, so samples are interleaved", 4, false,
      "axis,factor,elements_before,input_elements_before"}},
    {why::replaces_batch, "replaces_batch", {"pattern[{}] is {}, the declared batch, written as a constant", 2, false, "pattern_index,value"}},
    // sentence() writes the batch dimension N for a factor of 1, and "as a dimension of its own" for a
    // batch_axis of -1 (an output without one).
    {why::output_batch_elsewhere, "output_batch_elsewhere",
     {"the model output '{4}' (id {0}) gets the batch in dimension {1} as N·{2}, not in dimension {3}, its batch axis",
      4, true, "output_id,axis,factor,batch_axis,output_name"}},
    {why::output_size_value, "output_size_value",
     {"the model output '{1}' (id {0}) is a value computed from the shapes of batched tensors", 1, true,
      "output_id,output_name"}},
    {why::output_size_value_varies, "output_size_value_varies",
     {"the model output '{1}' (id {0}) is a value computed from the shapes of batched tensors, which changes with N",
      1, true, "output_id,output_name"}},
    {why::output_interleaved, "output_interleaved",
     {"the model output '{1}' (id {0}) gets the samples interleaved, not one after the other along a dimension of "
      "its own", 1, true, "output_id,output_name"}},
    {why::output_per_image, "output_per_image",
     {"the model output '{1}' (id {0}) holds post-processing results for every image, each kept apart by its "
      "image index: its size grows with the batch, which is expected", 1, true, "output_id,output_name"}},
};

constexpr bool every_code_in_order() {
  for (std::size_t k = 0; k < std::size(forms); ++k)
    if (static_cast<std::size_t>(forms[k].code) != k) return false;
  return std::size(forms) == static_cast<std::size_t>(last_reason) + 1;
}
static_assert(every_code_in_order(), "the table lists every reason once, in the order of the codes");

}  // namespace

sentence_form form_of(why code) noexcept { return forms[static_cast<std::size_t>(code)].form; }

std::string_view code_name(why code) noexcept { return forms[static_cast<std::size_t>(code)].name; }

reason_args args_of(const detail::because& b) {
  const auto f = form_of(b.code);
  reason_args args;
  std::string_view names = f.names;
  for (std::size_t k = 0; !names.empty(); ++k) {
    const auto comma = names.find(',');
    const auto key = names.substr(0, comma);
    names = comma == std::string_view::npos ? std::string_view() : names.substr(comma + 1);
    if (k >= b.count)
      args.emplace_back(std::string(key), b.quoted);
    else if (!(b.code == why::output_batch_elsewhere && key == "batch_axis" && b.numbers[k] < 0))
      args.emplace_back(std::string(key), b.numbers[k]);  // an output without a batch axis has none to name
  }
  return args;
}

std::string sentence(const detail::because& b) {
  const auto f = form_of(b.code);
  // A reason made with other numbers than its sentence names is a bug in the rule that made it.
  RESHAPE1_ASSERT(b.count == f.numbers && b.quoted.empty() != f.quotes);
  if (b.code == why::output_batch_elsewhere) {
    const auto batch_axis = b.numbers[3];
    return fmt::format("the model output '{}' (id {}) gets the batch in dimension {} as {}, not {}", b.quoted,
                       b.numbers[0], b.numbers[1], batch_dimension(b.numbers[2]),
                       batch_axis >= 0 ? fmt::format("in dimension {}, its batch axis", batch_axis)
                                       : std::string("as a dimension of its own"));
  }
  fmt::dynamic_format_arg_store<fmt::format_context> args;
  for (std::size_t k = 0; k < b.count; ++k) args.push_back(b.numbers[k]);
  if (f.quotes) args.push_back(b.quoted);
  return fmt::vformat(f.form, args);
}

std::string joined(std::string_view a, std::string_view b) { return fmt::format("{}; {}", a, b); }

reason_text joined_hint(reason_text first, const reason_text& then) {
  if (then.text.empty()) return first;
  first.text = joined(first.text, then.text);
  first.args.emplace_back("then", then.code);
  for (const auto& [key, value] : then.args) first.args.emplace_back("then_" + key, value);
  return first;
}

namespace {
// Every hint code: those of check (a Reshape's), then those of check --batch and --shape, in the order their
// functions are declared.
constexpr std::string_view hint_code_list[] = {"error_hint",         "change_declaration", "rewrite_pattern_element",
                                               "see_check",          "feed_body_batch",    "slice_to_end",
                                               "not_translated",     "copy_batch",         "batch_own_dimension",
                                               "follow_size_back",   "give_dynamic_sizes", "batch_size_not_a_value",
                                               "compute_per_sample", "select_whole_batch", "vouch_op",
                                               "give_output_layout", "keep_batch_apart",   "output_holds_data",
                                               "give_input_layout",  "compute_pattern",    "vouch_constant",
                                               "compute_from_shape", "global_pool",        "window_from_shape",
                                               "adaptive_pool",      "resize_from_shape",  "compute_size_value",
                                               "ask_running_sizes",  "ask_step_multiples", "ask_size_alone"};
}  // namespace

std::span<const std::string_view> hint_codes() noexcept { return hint_code_list; }

std::string batch_dimension(std::int64_t factor) { return factor == 1 ? "N" : fmt::format("N·{}", factor); }

std::string constant(const layer& c) {
  if (c.find("onnx_initializer") != nullptr) return fmt::format("initializer '{}'", c.name);
  if (c.find("onnx_constant") != nullptr) return fmt::format("a constant of node '{}'", c.name);
  return fmt::format("Const '{}' (id {})", c.name, c.id);
}

std::string holder(const layer& l) {
  if (detail::part_of(l.type) == detail::op_part::constant) return constant(l);
  return fmt::format("computed by {} '{}' (id {})", l.type, l.name, l.id);
}

std::string value_path(std::span<const layer* const> path) {
  std::string r;
  for (std::size_t k = 0; k < path.size(); ++k) {
    if (k > 0) r += " → ";
    r += fmt::format("{} '{}'", path[k]->op_type(), path[k]->name);
  }
  return r;
}

std::string origin(const detail::element_origin& o) {
  if (o.holder == nullptr) return {};
  if (detail::part_of(o.holder->type) == detail::op_part::constant && o.through != nullptr)
    return fmt::format("{} through Concat '{}' (id {})", constant(*o.holder), o.through->name, o.through->id);
  return holder(*o.holder);
}

std::string body_input_source(const layer& src, std::size_t port, const layer& outer) {
  const auto what = detail::part_of(src.type) == detail::op_part::constant ? std::string("Const")
                                                                           : fmt::format("computed by {}", src.type);
  return fmt::format("{} '{}' (id {}), input {} of {} '{}' (id {}), which does not follow the batch", what, src.name,
                     src.id, port, outer.type, outer.name, outer.id);
}

reason_text body_input_hint(const layer& failing, std::size_t port, const layer& outer) {
  return {"feed_body_batch",
          {{"layer_id", failing.id}, {"port", static_cast<std::int64_t>(port)}, {"outer_id", outer.id}},
          fmt::format("give {} '{}' (id {}) in the body its batch: feed input {} of {} '{}' from a model input, or "
                      "broadcast it to the batch (a Broadcast to the data's ShapeOf)",
                      failing.type, failing.name, failing.id, port, outer.type, outer.name)};
}

std::string replaced_batch(std::size_t index, std::int64_t value) {
  return sentence({why::replaces_batch, index, value});
}

std::string replaced_batch_stays(std::size_t index, std::int64_t value,
                                 std::optional<std::pair<std::size_t, std::int64_t>> moved) {
  auto s = fmt::format("{}: the output's dimension {} stays {}", replaced_batch(index, value), index, value);
  if (moved) s += " and " + batch_goes(moved);
  return s;
}

std::string replaced_batch_undecided() {
  return "no layer after it is shown to misuse that dimension, but one cannot tell whether it keeps each sample apart";
}

std::string batch_goes(std::optional<std::pair<std::size_t, std::int64_t>> moved) {
  if (!moved) return "the batch goes into other dimensions";
  return fmt::format("the batch goes into dimension {} ({})", moved->first, batch_dimension(moved->second));
}

std::string replaced_batch_swallows(std::size_t index, std::int64_t value, std::string_view moved,
                                    std::string_view consequence) {
  return fmt::format("{} and {}; {}", replaced_batch_stays(index, value, std::nullopt), moved, consequence);
}

std::string then_at(const layer& l, std::string_view what) {
  return fmt::format("then at {} '{}' (id {}): {}", l.op_type(), l.name, l.id, what);
}

reason_text copy_batch_hint(std::size_t index, bool special_zero, bool has_minus_one) {
  // `write` names the rewrite: 0 (special_zero is set), 0 with special_zero set, or -1 (or 0 with it set).
  const std::string_view write = special_zero ? "0" : has_minus_one ? "0_special_zero" : "-1_or_0_special_zero";
  return {"copy_batch",
          {{"pattern_index", static_cast<std::int64_t>(index)}, {"write", std::string(write)}},
          fmt::format("pattern[{}]: {}", index,
                      special_zero    ? "use 0 to copy the batch"
                      : has_minus_one ? "use 0 with special_zero=true to copy the batch"
                                      : "use -1, or 0 with special_zero=true, to follow the batch")};
}

reason_text own_dimension_hint(std::size_t axis, bool special_zero) {
  return {"batch_own_dimension",
          {{"pattern_index", static_cast<std::int64_t>(axis)}, {"special_zero", std::int64_t{special_zero}}},
          fmt::format("keep the batch in a dimension of its own: copy it with 0 at pattern[{}]{}", axis,
                      special_zero ? "" : " (with special_zero=true)")};
}

std::string upstream_reshape(const layer& reshape, std::optional<std::pair<std::int64_t, std::size_t>> replaced) {
  return fmt::format("the Reshape '{}' (id {}) upstream {}", reshape.name, reshape.id,
                     replaced ? fmt::format("writes the declared batch {} as a constant at pattern[{}]",
                                            replaced->first, replaced->second)
                              : std::string("folds the batch into another dimension"));
}

reason_text in_reshape(const layer& reshape, reason_text hint) {
  hint.args.emplace_back("reshape_id", reshape.id);
  hint.args.emplace_back("reshape", std::string(reshape.name));
  hint.text = fmt::format("in the Reshape '{}' (id {}), {}", reshape.name, reshape.id, hint.text);
  return hint;
}

reason_text see_check_hint(option_spelling s) { return {"see_check", {}, detail::plain_check(s)}; }

reason_text follow_back_hint(option_spelling s) {
  // Only the command line draws the path (--dot has no keyword).
  return {"follow_size_back",
          {},
          fmt::format("an input of this layer keeps a size the new shapes should change: follow it back{} to the constant "
                      "or Reshape that fixes it",
                      s == option_spelling::command_line ? " (--dot FILE draws the path)" : "")};
}

reason_text dynamic_dims_hint(option_spelling s, const std::vector<input_report>& inputs) {
  std::string listed;
  for (const auto& in : inputs) {
    if (!in.requested.rank_known()) {
      listed += fmt::format("{}'{}' (rank unknown)", listed.empty() ? "" : ", ", in.name);
      continue;
    }
    bool dynamic = false;
    for (std::size_t d = 0; d < in.requested.size(); ++d)
      dynamic = dynamic || ((!in.batch_index || d != *in.batch_index) && !in.requested[d].is_static());
    if (dynamic) listed += fmt::format("{}'{}' {}", listed.empty() ? "" : ", ", in.name, to_string(in.requested));
  }
  if (listed.empty()) return {};
  return {"give_dynamic_sizes",
          {{"inputs", listed}},
          fmt::format("the shapes here follow the inputs' other dynamic dimensions ({}): give them sizes with {}", listed,
                      detail::spell(s, detail::option::shape))};
}

reason_text size_value_hint() {
  return {"batch_size_not_a_value",
          {},
          "the batch size is read as a value here, so what each sample gets depends on how many run with it; "
          "compute the value from a dimension that does not hold the batch, or from a constant"};
}

reason_text rule_hint(option_spelling s, batch_issue issue, const layer& l) {
  switch (issue) {
    case batch_issue::mixes_samples:
      return {"compute_per_sample",
              {},
              "make the layer compute within each sample: change its axes, or keep the batch in an axis it treats one "
              "index at a time (axis 0 for most ops)"};
    case batch_issue::drops_samples:
      return {"select_whole_batch",
              {},
              "select along another axis, or over the whole batch axis (a full-range slice, indices that follow the "
              "batch)"};
    case batch_issue::cannot_tell:
      return {"vouch_op",
              {{"op", std::string(l.op_type())}, {"version", std::int64_t{l.op_version()}}},
              fmt::format("if every {}-{} layer keeps each sample apart, vouch for it with {}", l.op_type(), l.op_version(),
                          detail::spell(s, detail::option::assume_kept, {}, l.op_type()))};
    default: return {};
  }
}

reason_text slice_whole_at_asked_hint() {
  return {"slice_to_end",
          {},
          "an end past every batch (the largest int64, as a slice with no end exports) keeps the whole batch at "
          "every batch, and lets the analysis follow it"};
}

reason_text not_covered_hint(option_spelling s, const layer& l) {
  const auto* why = l.find("not_covered");
  return {"not_translated",
          {{"op", std::string(l.op_type())}, {"version", std::int64_t{l.op_version()}}},
          fmt::format("{}, so its outputs' shapes are unknown and vouching for it with {} cannot help; 'reshape1 "
                      "check --list-ops --format onnx' lists the ops reshape1 translates",
                      why != nullptr && !why->text.empty()
                          ? why->text
                          : fmt::format("reshape1 does not translate {}-{}", l.op_type(), l.op_version()),
                      detail::spell(s, detail::option::assume_kept))};
}

std::string reads_interleaved(std::size_t port, std::size_t axis) {
  return fmt::format("there, along dimension {} of its input {}, each line holds elements of several samples "
                     "interleaved, and this layer mixes them", axis, port);
}

reason_text reads_interleaved_hint(std::string_view fold, std::int64_t id) {
  return {"keep_batch_apart",
          {{"reshape_id", id}, {"reshape", std::string(fold)}},
          fmt::format("reshape1 follows interleaved samples only through elementwise layers and Reshapes; keep the "
                      "batch in a dimension of its own in the Reshape '{}' (id {}), or put it back before this layer",
                      fold, id)};
}

reason_text output_batch_elsewhere_hint() {
  return {"give_output_layout", {}, "give the output's layout (its N) if its batch axis is another one, or move the batch there"};
}

reason_text output_size_value_hint() { return {"output_holds_data", {}, "an output should hold data, one slice per sample"}; }

reason_text guessed_batch_hint(option_spelling s, const input_report& in, std::int64_t common,
                               std::optional<std::size_t> elsewhere) {
  std::string advice;
  if (elsewhere) {
    std::string layout;
    for (std::size_t k = 0; k < in.declared.size(); ++k)
      layout += fmt::format("{}{}", k == 0 ? "[" : ",", k == *elsewhere ? "N" : "?");
    layout += "]";
    advice = fmt::format("if its batch is dimension {}, say so with {}", *elsewhere,
                         detail::spell(s, detail::option::layout, in.name, layout));
  } else {
    advice = fmt::format("say where its batch is with {}", detail::spell(s, detail::option::layout, in.name, "LAYOUT"));
  }
  reason_args args{{"input_id", in.id}, {"input", in.name}, {"declared", in.declared[0].lo()}, {"common", common}};
  if (elsewhere) args.emplace_back("axis", static_cast<std::int64_t>(*elsewhere));
  return {"give_input_layout", std::move(args),
          fmt::format("input '{}' (id {}) has {} at dimension 0, taken as its batch for want of a layout, where the "
                      "other inputs have {}: {}",
                      in.name, in.id, in.declared[0].lo(), common, advice)};
}

std::string other_rank_note(option_spelling s, const input_report& in) {
  return fmt::format("{} gives input '{}' (id {}) rank {} ({}); it is declared with rank {} ({})",
                     detail::spell(s, detail::option::shape), in.name, in.id, in.requested.size(), to_string(in.requested),
                     in.declared.size(), to_string(detail::without_symbols(in.declared)));
}

std::string onnx_static_batch_note(const input_report& in, std::size_t batch_index, std::int64_t declared) {
  return fmt::format("input '{}' declares its batch (dimension {}) as {}: ONNX Runtime refuses another batch until "
                     "that dimension is a dim_param",
                     in.name, batch_index, declared);
}

std::string target(const std::optional<dimension>& batch) {
  return batch ? fmt::format("batch {}", to_string(*batch)) : std::string("the given shapes");
}

std::string failing_at(const std::optional<dimension>& batch) {
  return batch ? to_string(*batch) : std::string("the given shapes");
}

namespace {
/// "a", "a and b", "a, b and c".
std::string and_listed(const std::vector<std::string>& items) {
  std::string list;
  for (std::size_t t = 0; t < items.size(); ++t)
    list += fmt::format("{}{}", t == 0 ? "" : t + 1 == items.size() ? " and " : ", ", items[t]);
  return list;
}
}  // namespace

reason_text regroup_hint(option_spelling s) {
  return {"compute_pattern",
          {},
          fmt::format("write the pattern with 0 and -1, or compute it from the input's shape, so that each output "
                      "dimension follows the sizes it is made of; a pattern meant to stay as it is can be vouched for "
                      "with {}",
                      detail::spell(s, detail::option::assume_constant))};
}

reason_text vouch_hint(option_spelling s, const std::string& holder, std::optional<std::int64_t> id) {
  constexpr std::string_view export_it = "export the model with this value computed from the input's shape";
  if (!id) return {"compute_from_shape", {}, fmt::format("{}, or vouch for the constants it is computed from", export_it)};
  const auto name = holder.empty() ? fmt::format("#{}", *id) : holder;
  return {"vouch_constant",
          {{"constant_id", *id}, {"constant", name}},
          fmt::format("if it is meant to stay as it is at every size, vouch for it with {}; otherwise {}",
                      detail::spell(s, detail::option::assume_constant, {}, name), export_it)};
}

namespace {

/// How the user vouches for the window of layer `name` (id `id`): by its name, or #ID where it has none.
std::string vouch_for_window(option_spelling s, const std::string& name, std::int64_t id) {
  return fmt::format("if the window is meant to stay as it is at every size, vouch for it with {}",
                     detail::spell(s, detail::option::assume_constant, {}, name.empty() ? fmt::format("#{}", id) : name));
}

/// What a window's hint names: the layer, as vouch_for_window names it.
reason_args window_args(const std::string& name, std::int64_t id) {
  return {{"layer_id", id}, {"layer", name.empty() ? fmt::format("#{}", id) : name}};
}

}  // namespace

reason_text global_window_hint(option_spelling s, const std::string& name, std::int64_t id) {
  return {"global_pool", window_args(name, id),
          fmt::format("a window as large as the input at one size is global pooling only at that size: write it as a "
                      "reduction over the axis (ReduceMean, GlobalAveragePool), or give the model its declared size; {}",
                      vouch_for_window(s, name, id))};
}

reason_text window_tiles_hint(option_spelling s, const std::string& name, std::int64_t id) {
  return {"adaptive_pool", window_args(name, id),
          fmt::format("adaptive pooling to a fixed number of bins (PSPNet's, a spatial pyramid's) exported at one size "
                      "has its window and stride computed from that size: export the model with adaptive pooling kept "
                      "as an op that follows the size, or give the model its declared size; {}",
                      vouch_for_window(s, name, id))};
}

reason_text window_spans_hint(option_spelling s, const std::string& name, std::int64_t id) {
  return {"window_from_shape", window_args(name, id),
          fmt::format("a window that reaches across the whole input at one size may have had its kernel, padding or "
                      "dilation computed from that size: export the model with them computed from the input's shape, or "
                      "give the model its declared size; {}",
                      vouch_for_window(s, name, id))};
}

reason_text resize_to_fixed_size_hint() {
  return {"resize_from_shape", {}, "export the model with the size computed from the input's shape, or resize by scales alone"};
}

reason_text size_value_unknown_hint() {
  return {"compute_size_value",
          {},
          "compute the value from the input's shape with ops whose values reshape1 follows (ShapeOf, Gather, "
          "Concat, arithmetic, Convert)"};
}

reason_text member_fails_hint() {
  return {"ask_running_sizes",
          {},
          "the model does not run at every size asked: ask for the sizes it runs at (often the multiples of "
          "its stride), one at a time"};
}

reason_text runs_at_step_hint(std::int64_t step, const std::vector<std::string>& tried) {
  return {"ask_step_multiples",
          {{"step", step}, {"tried", and_listed(tried)}},
          fmt::format("the model runs only at some sizes: at multiples of {} it runs ({}); ask for the "
                      "sizes it runs at, one at a time",
                      step, and_listed(tried))};
}

reason_text sizes_not_proven_hint(const std::vector<std::string>& tried) {
  return {"ask_size_alone",
          {{"tried", and_listed(tried)}},
          fmt::format("it runs at {}; to be sure of a size, ask for it alone", and_listed(tried))};
}

}  // namespace reshape1::model::text

namespace reshape1::model {

std::string batch_report::summary_line() const {
  std::string line = fmt::format("reshapes to {}: ", target);
  const auto count = [](std::size_t n, std::string_view one, std::string_view many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
  };
  std::vector<std::string> parts;
  if (summary.failing_at_declared != 0)
    parts.push_back(count(summary.failing_at_declared, "layer fails at the declared shapes",
                          "layers fail at the declared shapes"));
  if (summary.fails != 0) parts.push_back(count(summary.fails, "layer fails", "layers fail"));
  if (summary.swallows_batch != 0) {
    const bool reshapes_only = std::all_of(findings.begin(), findings.end(), [](const batch_finding& f) {
      return f.issue != batch_issue::swallows_batch || detail::part_of(f.type) == detail::op_part::reshape;
    });
    parts.push_back(reshapes_only ? count(summary.swallows_batch, "Reshape swallows the batch", "Reshapes swallow the batch")
                                  : count(summary.swallows_batch, "layer swallows the batch", "layers swallow the batch"));
  }
  if (summary.mixes_samples != 0) parts.push_back(count(summary.mixes_samples, "layer mixes samples", "layers mix samples"));
  if (summary.drops_samples != 0) parts.push_back(count(summary.drops_samples, "layer drops samples", "layers drop samples"));
  if (summary.loses_batch != 0) parts.push_back(count(summary.loses_batch, "output loses the batch", "outputs lose the batch"));
  switch (summary.verdict()) {
    case batch_verdict::yes: line += "yes"; break;
    case batch_verdict::no: line += "no:"; break;
    case batch_verdict::cannot_tell:
      line += "cannot tell:";
      parts.push_back(count(summary.cannot_tell, "layer cannot be decided", "layers cannot be decided"));
      break;
  }
  for (std::size_t i = 0; i < parts.size(); ++i) line += (i == 0 ? " " : ", ") + parts[i];
  if (summary.scales_with_batch != 0)
    line += fmt::format(" ({} output{} grow{} with the batch, as post-processing does)", summary.scales_with_batch,
                        summary.scales_with_batch == 1 ? "" : "s", summary.scales_with_batch == 1 ? "s" : "");
  return line;
}

}  // namespace reshape1::model
