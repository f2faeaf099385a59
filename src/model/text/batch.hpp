// Internal: the sentences of `check --batch`. The batching rules and the analysis decide with typed values
// (a reason code and the ports, axes and values it names, the layers involved); this is the one place
// they become English: each finding's what, hint and source, the notes and the summary line. A change of
// wording is made here and nowhere else, and reaches the text table, the JSON and Python alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "model/analysis/batch_internal.hpp"
#include "model/ops/batching.hpp"
#include "model/text/reason.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/graph.hpp"

namespace reshape1::model::text {

/// The form of a reason's sentence: a format string, and what it names (how many numbers; whether it
/// quotes a text after them).
struct sentence_form {
  std::string_view form;
  std::uint8_t numbers = 0;
  bool quotes = false;
  /// What the numbers and then the quoted text stand for, comma-separated: a finding's `args` keys.
  std::string_view names{};
};
[[nodiscard]] sentence_form form_of(detail::why code) noexcept;
/// The last reason code, for walking all of them.
inline constexpr auto last_reason = detail::why::output_per_image;
/// A reason's code as JSON and Python spell it (`reduces_batch`).
[[nodiscard]] std::string_view code_name(detail::why code) noexcept;
/// What a reason names, by the names its form gives them: its numbers first, then its quoted text.
[[nodiscard]] reason_args args_of(const detail::because& b);

/// The sentence a rule's reason stands for.
[[nodiscard]] std::string sentence(const detail::because& b);

/// "a; b": a finding's sentence continued with what else is known.
[[nodiscard]] std::string joined(std::string_view a, std::string_view b);

/// How a tensor holds the batch: `N`, or `N·k`.
[[nodiscard]] std::string batch_dimension(std::int64_t factor);

// ---- where a value comes from (a finding's source) ----
/// A Const by name and id, an ONNX initializer by name, a constant an ONNX node holds by its node.
[[nodiscard]] std::string constant(const layer& c);
/// A Const as constant() names it, or "computed by TYPE 'name' (id N)".
[[nodiscard]] std::string holder(const layer& l);
/// The layers a value goes through, first to last: "Shape 'shape' → Gather 'n' → Equal 'eq'".
[[nodiscard]] std::string value_path(std::span<const layer* const> path);
/// The Const that holds a pattern element (through a Concat, when one joins the pattern), or the layer
/// that computes it; "" when unknown.
[[nodiscard]] std::string origin(const detail::element_origin& o);
/// A body's layer fails because an input of its TensorIterator or Loop (`port` of `outer`, fed by `src`)
/// does not follow the batch.
[[nodiscard]] std::string body_input_source(const layer& src, std::size_t port, const layer& outer);
[[nodiscard]] reason_text body_input_hint(const layer& failing, std::size_t port, const layer& outer);

// ---- hints of what cannot be decided ----
/// What to do about a slice of the batch axis that ends between the batch asked and the sample batches.
[[nodiscard]] reason_text slice_whole_at_asked_hint();
/// What to do about an ONNX node reshape1 does not translate (its outputs' shapes are unknown).
[[nodiscard]] reason_text not_covered_hint(option_spelling s, const layer& l);

// ---- Reshapes that hard-code or fold the batch ----
/// Element `index` of a pattern writes the declared batch `value` as a constant.
[[nodiscard]] std::string replaced_batch(std::size_t index, std::int64_t value);
/// Said of a replaced batch after which nothing is shown to break it, but some layer cannot tell.
[[nodiscard]] std::string replaced_batch_undecided();
/// ... and so the output's dimension `index` stays `value`; the batch goes into dimension `axis` (with
/// `factor`) when it goes into one.
[[nodiscard]] std::string replaced_batch_stays(std::size_t index, std::int64_t value,
                                               std::optional<std::pair<std::size_t, std::int64_t>> moved);
/// Where the batch goes after a Reshape that swallows it: dimension `axis` (with `factor`), or other ones.
[[nodiscard]] std::string batch_goes(std::optional<std::pair<std::size_t, std::int64_t>> moved);
/// A swallow by a replaced batch, continued with what it causes: "pattern[i] is v, ...: the output's
/// dimension i stays v and MOVED; CONSEQUENCE".
[[nodiscard]] std::string replaced_batch_swallows(std::size_t index, std::int64_t value, std::string_view moved,
                                                  std::string_view consequence);
/// A layer downstream misuses the axis a Reshape moved the batch to: "then at TYPE 'name' (id N): WHAT".
[[nodiscard]] std::string then_at(const layer& l, std::string_view what);
/// The rewrite of pattern element `index` that copies the batch.
[[nodiscard]] reason_text copy_batch_hint(std::size_t index, bool special_zero, bool has_minus_one);
/// A Reshape that folds the batch: keep it in a dimension of its own, copied at `axis`.
[[nodiscard]] reason_text own_dimension_hint(std::size_t axis, bool special_zero);
/// A failure downstream of a Reshape already reported: what that Reshape does (`replaced`: the declared
/// batch and the pattern element, when it writes it as a constant; else it folds the batch).
[[nodiscard]] std::string upstream_reshape(const layer& reshape,
                                           std::optional<std::pair<std::int64_t, std::size_t>> replaced);
/// ... and the hint: the Reshape's own, its code kept, the Reshape named (`reshape`, `reshape_id`).
[[nodiscard]] reason_text in_reshape(const layer& reshape, reason_text hint);
/// A layer that fails at the declared shapes: the plain check says more.
[[nodiscard]] reason_text see_check_hint(option_spelling s);
/// A failure with nothing upstream to blame: follow the size back.
[[nodiscard]] reason_text follow_back_hint(option_spelling s);

// ---- a rule's findings ----
/// The hint for a layer that cannot tell because shapes are unknown: the inputs whose dimensions other than
/// the batch are dynamic, to be given sizes with --shape; "" when there are none.
[[nodiscard]] reason_text dynamic_dims_hint(option_spelling s, const std::vector<input_report>& inputs);
/// The hint for a value computed from the batch size that reaches data or a branch condition.
[[nodiscard]] reason_text size_value_hint();
/// The hint of a finding a batching rule made, by its kind ("" for the kinds no rule makes).
[[nodiscard]] reason_text rule_hint(option_spelling s, batch_issue issue, const layer& l);

// ---- the model outputs ----
[[nodiscard]] reason_text output_batch_elsewhere_hint();
/// What a layer shown to mix or drop along a folded tensor's axis does: it reads the samples interleaved.
[[nodiscard]] std::string reads_interleaved(std::size_t port, std::size_t axis);
/// What to do about a layer that cannot tell because it reads samples the Reshape `fold` (id) interleaved.
[[nodiscard]] reason_text reads_interleaved_hint(std::string_view fold, std::int64_t id);
[[nodiscard]] reason_text output_size_value_hint();

// ---- the inputs ----
/// An input whose dimension 0 (taken as its batch) holds another size than the other inputs' `common`
/// batch; `elsewhere`: the one dimension that holds `common`, if there is one.
[[nodiscard]] reason_text guessed_batch_hint(option_spelling s, const input_report& in, std::int64_t common,
                                             std::optional<std::size_t> elsewhere);
/// A shape of another rank than the input's.
[[nodiscard]] std::string other_rank_note(option_spelling s, const input_report& in);
/// An ONNX input whose static batch ONNX Runtime will not let change.
[[nodiscard]] std::string onnx_static_batch_note(const input_report& in, std::size_t batch_index, std::int64_t declared);

// ---- new sizes (check --shape) ----
/// A Reshape that regroups its input's dims otherwise at the sizes asked.
[[nodiscard]] reason_text regroup_hint(option_spelling s);
/// A constant that equals a size: vouching names its Const (`holder`, or `#id`); a value computed from
/// constants by other layers (no `id`) has none to name, and only the export can change it.
[[nodiscard]] reason_text vouch_hint(option_spelling s, const std::string& holder, std::optional<std::int64_t> id);
/// A pooling window or convolution kernel as large as its input at the declared shapes, in the layer
/// `name` (id `id`), which the user may vouch for.
[[nodiscard]] reason_text global_window_hint(option_spelling s, const std::string& name, std::int64_t id);
/// The hint of a pooling whose padded or dilated window reaches across the whole input (window_spans_size).
[[nodiscard]] reason_text window_spans_hint(option_spelling s, const std::string& name, std::int64_t id);
/// The hint of a pooling whose window and stride cut the input into a few bins (window_tiles_size).
[[nodiscard]] reason_text window_tiles_hint(option_spelling s, const std::string& name, std::int64_t id);
/// A Resize to a size that stays while its input's changes.
[[nodiscard]] reason_text resize_to_fixed_size_hint();
/// A value read as a size that the propagation does not know at the sizes asked.
[[nodiscard]] reason_text size_value_unknown_hint();
/// A member of the sizes asked at which a layer fails.
[[nodiscard]] reason_text member_fails_hint();
/// A model that runs only at multiples of `step` (at the sizes `tried`).
[[nodiscard]] reason_text runs_at_step_hint(std::int64_t step, const std::vector<std::string>& tried);
/// Sizes asked as a range that were tried at `tried` only.
[[nodiscard]] reason_text sizes_not_proven_hint(const std::vector<std::string>& tried);

/// What a report is about ("batch 8", "the given shapes"), and where a failure is seen ("8", "the given shapes").
[[nodiscard]] std::string target(const std::optional<dimension>& batch);
[[nodiscard]] std::string failing_at(const std::optional<dimension>& batch);

}  // namespace reshape1::model::text
