// Internal: the batch analysis of one graph (the model, or a body), the `scope` of check_batch. Its work
// is in stages, one file each: batch.cpp (the request, the carriers, the runs and the report),
// batch_failures.cpp (layers that fail, Reshapes that write the declared batch), batch_walk.cpp (each
// layer's batch state, from its batching rule), batch_fold.cpp (samples a Reshape interleaves), and
// batch_findings.cpp (what the states prove at the outputs, the findings a "no" keeps).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "detail/fail.hpp"
#include "model/analysis/batch_internal.hpp"
#include "model/ops/batching.hpp"
#include "model/ops/rules.hpp"
#include "model/text/reason.hpp"
#include "reshape1/model/batch.hpp"

namespace reshape1::model::batch_analysis {

using detail::trim;
using detail::op_part;
using detail::part_of;
using detail::without_symbols;

using reshape1::detail::fail;
using detail::element_origin;
using detail::origin_of_element;

inline constexpr const auto& samples = detail::batch_samples;
using kind = detail::batch_state::kind;
using detail::batch_state;
using detail::no_layer;
using detail::because;
using detail::why;

struct replaced_batch {
  std::size_t index = 0;  ///< the pattern element
  std::int64_t value = 0;
  element_origin origin;
  text::reason_text hint;
};

/// The propagations a scope (the model, or a body) is analysed from; samples are null when the batch
/// does not change (then only failures are looked for).
struct runs {
  const propagation* declared = nullptr;
  const propagation* target = nullptr;
  const propagation* example = nullptr;
  std::array<const propagation*, samples.size()> at_samples{};
  /// At batch 1: the reference a value computed from the batch size is compared with (each sample alone
  /// is what a sample's result must equal); null when not made.
  const propagation* at_one = nullptr;
  /// The declared or the requested run when its batch is dynamic over 1 and every batch asked: a value
  /// known exactly there is the same at all of them.
  const propagation* covering = nullptr;
  /// Whether every batch asked is one number (the target run is at it), and whether the batches asked
  /// include the sample batches (a dynamic batch up to them or unbounded).
  bool asked_static = false;
  bool asked_holds_samples = false;
  /// The sizes apart from the batch, as the sample runs name them (null: none).
  const detail::batch_free_sizes* sizes = nullptr;
  [[nodiscard]] bool analysed() const noexcept { return at_samples[0] != nullptr; }
  /// The same runs inside the body of layer `index`; nullopt when one of them did not reach it.
  [[nodiscard]] std::optional<runs> body(std::size_t index) const {
    runs r;
    r.declared = declared->body(index);
    r.target = target->body(index);
    r.example = example != nullptr ? example->body(index) : nullptr;
    r.at_one = at_one != nullptr ? at_one->body(index) : nullptr;
    r.covering = covering != nullptr ? covering->body(index) : nullptr;
    r.asked_static = asked_static;
    r.asked_holds_samples = asked_holds_samples;
    r.sizes = sizes;
    if (r.declared == nullptr || r.target == nullptr) return std::nullopt;
    if (analysed()) {
      for (std::size_t k = 0; k < samples.size(); ++k) r.at_samples[k] = at_samples[k]->body(index);
      if (std::any_of(r.at_samples.begin(), r.at_samples.end(), [](const propagation* p) { return p == nullptr; }))
        r.at_samples = {};  // a sample that did not reach the body: no carriers inside it
    }
    return r;
  }
};

/// The analysis of one graph: the model itself (top) or the body of a TensorIterator or Loop, whose
/// findings carry `within`. Failures and model outputs are looked at on the model only: a layer that fails
/// inside a body fails its TensorIterator or Loop, which is reported with the body layer's message.
class scope {
 public:
  scope(const graph& g, const runs& r, std::vector<enclosing_layer> within, const std::vector<input_report>* inputs,
        const reshape_request* request)
      : g_(g), layers_(g.layers()), runs_(r), declared_(*r.declared), target_(*r.target), within_(std::move(within)),
        inputs_(inputs), request_(request) {
    if (r.analysed()) compute_carriers();
  }

  /// How hints name the options: as the request asks (the API's without one).
  [[nodiscard]] option_spelling spelling() const noexcept {
    return request_ != nullptr ? request_->spelling : option_spelling::api;
  }

  /// The model's findings, in the order of the layers, each body's right after its TensorIterator or Loop.
  std::vector<batch_finding> run(const std::string& target_at, std::optional<std::int64_t> example_at,
                                 std::size_t& failing_at_declared);

  /// Whether a value computed from the batch size needed the run at batch 1, which was not given.
  [[nodiscard]] bool wants_one() const noexcept { return wants_one_; }

  std::vector<std::vector<batch_carrier>> carriers() && { return std::move(carriers_); }
  const std::vector<std::vector<batch_carrier>>& carriers() const& { return carriers_; }

 private:
  std::size_t index_of(const layer& l) const { return static_cast<std::size_t>(&l - layers_.data()); }

  const batch_carrier& carrier(std::size_t layer, std::size_t output) const;
  const batch_carrier& input_carrier(const layer& l, std::size_t port) const;

  void compute_carriers();

  batch_finding finding(batch_issue issue, const layer& l) const;

  /// The finding's code and args: what its reason names.
  static void set_reason(batch_finding& f, const because& reason);

  batch_finding* finding_for(std::size_t layer, batch_issue issue);

  /// Reshapes whose pattern writes the declared batch as a constant where the input has the batch.
  void find_replaced();

  void find_failures(const propagation& p, const std::string& at);

  /// A TensorIterator or Loop that fails because a layer of its body does: when that layer meets an input
  /// that follows the batch and one from outside the body that does not (an initial state, a Const), name
  /// where the latter comes from, in the model (its ids are the model's, not the body's).
  void explain_body_failure(batch_finding& f, const layer& l, std::size_t index, const propagation& p) const;

  /// A lost layer's message as a finding's what and hint: the hint is its own field, and the message
  /// (error::what(), `what; hint`) ends with it.
  static void set_message(batch_finding& f, const lost_information& x);

  /// A reason as a finding's code, args and what.
  static void set_message(batch_finding& f, const because& reason);

  /// The pattern as a whole: its Const, or the layer that computes it.
  void set_pattern_source(batch_finding& f, const layer& l) const;

  void set_source(batch_finding& f, const element_origin& o) const;

  text::reason_text swallow_hint(std::size_t reshape) const;

  /// A Reshape that swallows the batch: by itself (its output interleaves samples or fixes the batch), or
  /// because a later layer or output misuses the axis it moved the batch to.
  void add_swallow(std::size_t reshape, const because& reason, const std::string& what,
                   std::optional<std::int64_t> used_by);

  /// A replaced batch that does not fail: the -1 takes the batch into another dimension. Reported here,
  /// before the layers after it are followed (their misuse of that dimension is then told in this finding);
  /// drop_harmless_replaced takes it back where everything after it is shown to keep each sample apart.
  void find_replaced_swallows();

  /// A "no" must name what breaks: a replaced batch whose Reshape no later layer or output was found to
  /// misuse (no add_swallow for it), and after which every layer's state is decided and unbroken and no
  /// finding sits, only moved the batch and let the layers after it put it back (a fold into the channels
  /// for a per-channel normalisation, undone by a Reshape computed from Shape): its finding is dropped.
  /// Where a layer after it cannot tell (and nothing after it fails, misuses or is a "no"), what it did to
  /// the batch is not shown to break anything: its finding becomes cannot tell, naming the moved batch
  /// (`fix` still rewrites its pattern). Where anything after it fails or is a "no", it stays.
  void drop_harmless_replaced();

  enum class replaced_outcome { stays, harmless, undecided };
  /// What findings a layer has: none, at least one "no", or only cannot tell.
  enum class layer_findings : std::uint8_t { none, a_no, cannot_tell_only };
  replaced_outcome after_replaced(const batch_finding& f, const std::vector<layer_findings>& layer_has_finding) const;

  std::vector<batch_state> states_of_inputs(const layer& l) const;

  void set_unknown(std::size_t index, const because& reason, bool emitted = false);

  void set_all(std::size_t index, kind k);

  /// A layer none of whose inputs holds per-sample data: its outputs are shared when the same at every
  /// sample batch, values computed from the batch size when only their values change, and undecided when
  /// their size follows the batch although they read no sample. A value computed from the batch size that
  /// the sample batches agree on is shared only when batch 1 and the batches asked agree too: the samples
  /// are odd primes above 1000, so `N == 1`, `N > 2` or `N % 2` is the same at all three.
  void by_value(std::size_t index, const std::vector<batch_state>& in);
  /// Whether output `o` of layer `index` holds, at every sample batch, only sizes apart from the batch
  /// (sizes_), the same ones at each.
  [[nodiscard]] bool free_sizes_only(std::size_t index, std::size_t o) const;

  /// A value every element of which is known exactly.
  static bool known(const std::optional<tensor_value>& v);

  enum class agreement : std::uint8_t { same, differs, unknown };
  /// Whether output `o` of layer `index`, `v` at every sample batch, is `v` at batch 1 (each sample alone,
  /// the reference) and at each batch asked too. Proven by a run whose dynamic batch spans 1 and every batch
  /// asked and knows the value, or by a static batch asked whose value is batch 1's; refuted by any batch
  /// asked (the example batch, the samples when the asked interval holds them) whose value is not. A value
  /// the same alone and at the batch asked but another at the samples (`n > 1000`) differs: the layers after
  /// it are followed at the samples, where it would steer them otherwise than at the batch asked.
  agreement agrees_beyond_samples(std::size_t index, std::size_t o, const tensor_value& v);

  /// The rule's batched outputs must be N·factor at their axis at every sample batch; shared ones must not
  /// change. A rule whose answer the shapes contradict decides nothing.
  /// The run at the batch asked must agree too, where its dimension is exact: the sample batches may take
  /// another path than the batch asked does (an If on `n < 5` runs one branch at 1009 and the other at 4).
  bool consistent(std::size_t index) const;

  /// The batch asked: the requested size of the model's batched inputs' batch dimension (in the model's
  /// scope; a body has no inputs of its own to read it from).
  std::optional<dimension> asked_batch() const;

  /// The reasons that name a value computed from the batch size (its path is quoted in the sentence).
  static bool from_batch_size(why code) noexcept;

  /// A rule's faults become findings: on the layer itself, or on the Reshape that moved the batch to the
  /// axis the layer misuses.
  void report_faults(std::size_t index, const detail::batch_op& op);

  /// The layers a value computed from the batch size went through to input `port` of `l`, from the layer
  /// that read a shape (ShapeOf) to the one that feeds `l`; at most 8, the first and the last kept.
  std::vector<const layer*> size_value_path(const layer& l, std::size_t port) const;

  /// Whether --assume-kept names the layer's op (by its type, or as the file names it).
  bool vouched_for(const layer& l) const;

  /// --assume-kept: the caller vouches that the op keeps each sample apart, as an elementwise op does.
  void assumed(detail::batch_op& o) const;

  /// How every tensor holds the batch, layer by layer, from the inputs' batch axes (`given`: the states of
  /// a body's Parameters, by layer index).
  void follow_states(const std::vector<batch_state>* given);
  /// One layer of follow_states.
  void follow_layer(std::size_t index, const std::vector<batch_state>* given);
  /// Adds to sizes_ the dimensions of layer `index`'s outputs that its states show do not change with N: all
  /// of a shared tensor's, and all but the batch axis of a batched one (each sample's share of it is what the
  /// sample alone gives, so its other dimensions are the sample's own).
  void trust_sizes(std::size_t index);

  /// Whether input `port` of `l`, a value computed from the batch size that changes between the sample
  /// batches, is the same at batch 1 as at the batch asked: proven by a run whose dynamic batch spans 1 and
  /// every batch asked and knows it, or by its value at a static batch asked; refuted by that value, by a
  /// dynamic batch asked that holds the sample batches (they differ from each other), or by the example
  /// batch; otherwise unknown. Asks for the run at batch 1 when it has not been made (false until then).
  /// batch_op::alike_alone says where a rule may take it as shared.
  std::optional<bool> alike_alone(const layer& l, std::size_t port);

  /// A Parameter's state: the one a body's Parameter is given, or the model input's batch axis.
  void seed_parameter(std::size_t index, const std::vector<batch_state>* given);

  /// Whether the inputs' states decide the layer's without its rule: all shared (the layer's stay
  /// shared), one broken or the layer failing (broken), one unknown (unknown likewise).
  bool settled_by_inputs(std::size_t index, const std::vector<batch_state>& in);

  /// Why the layer's output shapes are unknown at a sample batch, or nullopt when they are all known.
  std::optional<because> lost_at_samples(std::size_t index) const;

  /// Runs the layer's batching rule (`entry`; null: the op is vouched for, kept as assume_kept says) and
  /// sets its outputs' states from the answer, a body's analysis included.
  void apply_rule(std::size_t index, const std::vector<batch_state>& in, const detail::rule_entry* entry,
                  const std::optional<because>& lost_why);

  /// A Reshape that interleaves samples (`[3,-1]` of `[N,3]`) changes no element and no order: whether the
  /// batch keeps its meaning depends on what reads the result. Its output becomes `folded` and the finding
  /// waits for a layer that is shown to misuse it (misuses_fold) or a model output that holds it; a Reshape
  /// back to a shape that holds the batch whole gives the batch back (follow_fold). A Reshape whose pattern
  /// writes the declared batch keeps its own finding (find_replaced_swallows).
  bool folds(std::size_t index, const std::vector<batch_state>& in, detail::batch_op& op);

  /// A layer with a folded input (the samples interleaved by the Reshape `origin`). A Reshape, Squeeze or
  /// Convert keeps the elements in their order: where its output holds the batch whole again at every
  /// sample batch (the prefix before the batch is the folded input's), the batch is back as it was before
  /// the fold; otherwise it is still folded. An elementwise layer whose other inputs are one value each, or
  /// the same fold of the same shape, keeps it folded; ShapeOf reads only its shape. Any other layer reads
  /// the samples interleaved: where its own rule, run as if the folded axis held the batch, finds that it
  /// mixes or drops along it, the fold is a "no" named by that layer; otherwise it cannot tell.
  void follow_fold(std::size_t index, const std::vector<batch_state>& in, const detail::rule_entry* entry,
                   const std::optional<because>& lost_why);

  /// Whether an elementwise layer keeps input `fold`'s order: every other input is one value at every sample
  /// batch (a scalar, or a tensor of ones' shape), or the same fold with the same shape.
  bool keeps_fold_elementwise(const layer& l, const std::vector<batch_state>& in, const batch_state& fold) const;

  /// The state of a Reshape's (Squeeze's, Convert's) output whose input is `fold`: the batch back whole
  /// when the output holds it in one dimension behind as many elements as the fold's own input held before
  /// it (as a Reshape straight from that input would), otherwise still folded.
  batch_state unfolded(std::size_t index, const batch_state& fold) const;

  /// Layer (or model output) `user` is shown to misuse the samples the Reshape `fold` interleaved: that
  /// Reshape swallows the batch, its finding naming both.
  /// `reason`: what the user does (a layer's fault, or the output's own reason); `there`: how it meets the
  /// interleaved samples (for a layer).
  void misuses_fold(std::size_t fold, std::size_t user, const because& reason, const std::string& there);

  /// A slice of the batch axis found to drop samples at the sample batches (above 1000) that keeps the
  /// whole axis at the batch asked (`x[:1000]` at batch 4) drops none there: not a "no". The layers after it
  /// see another shape at the sample batches than the batch would give them, so they cannot be followed.
  void whole_at_the_batch_asked(std::size_t index, detail::batch_op& op) const;

  /// What to do about a layer that cannot tell: where the reason is a shape the model's other dynamic
  /// dimensions leave unknown, give them sizes (--shape); where the op is already vouched for, nothing more
  /// to vouch; otherwise vouch for the op if it keeps samples apart.
  text::reason_text undecided_hint(const layer& l, const because& reason) const;

  /// The run at batch 1, each sample alone; null when it has not been made yet, and then the scope is
  /// asked to run again with it (it is made only when a value computed from the batch size needs it).
  const propagation* alone();

  /// A layer that reads a value computed from the batch size as a parameter (a Slice's start or end, a
  /// Gather's indices, TopK's k, a Resize's scale, an Expand's shape): the sample batches show it there,
  /// not at batch 1, where each sample is alone (`k = min(n, 3)` is 3 at every sample batch). Decided
  /// layers: each output's shape at batch 1 must be one sample's share of the batched one (or the same,
  /// for a shared output). Every such layer: no element of the parameter that is not the batch itself may
  /// differ between batch 1 and the batches compared. Where either fails, the parameter makes each
  /// sample's result depend on the batch: the layer mixes samples.
  void alone_as_in_a_batch(std::size_t index, const std::vector<batch_state>& in, detail::batch_op& op);

  /// Whether each output of layer `index` at batch 1 is one sample's share of its batched shape at the
  /// sample batches (the same shape, for a shared output): false where a dimension both runs know differs,
  /// nullopt where the only differences are dimensions one of them does not know.
  std::optional<bool> shares_alone(std::size_t index) const;

  /// Whether input `port` of `l`, a parameter computed from the batch size, has an element that is not
  /// the batch itself (the sample batches agree on it) and is another at batch 1 than at a batch compared
  /// (a sample batch, the batch asked, the example batch): `start = min(n - 1, 2)` is 2 in every batch and
  /// 0 alone; `index = n % 2` is 1 at the samples and alone but 0 at batch 4. It picks other values for a
  /// sample alone than for the same sample in a batch, whatever the output's shape. At a dynamic batch asked
  /// the run there must know each such element exactly (then it is the same at every batch asked): the
  /// samples, batch 1 and the example batch cannot show `n == 4` in `1..8`; nullopt when it does not.
  std::optional<bool> picks_otherwise_alone(const layer& l, std::size_t port) const;

  /// The batch axis of a model output: its layout's N, otherwise dimension 0; none for a scalar.
  std::optional<std::size_t> output_axis(const layer& result) const;

  /// Each model output must hold the batch at its batch axis, or be shared by all samples.
  void check_outputs();

  /// The bodies the batch analysis did not enter (their TensorIterator or Loop fails, or reads no
  /// batch): their Reshapes that hard-code the batch are still reported.
  void replaced_in_bodies();

  /// The findings of a body, its nested bodies' after their layers. A layer that runs at none of the
  /// batches the answer is about has none (idle_layers).
  std::vector<batch_finding> findings() const;

  /// The condition of IfMerge `l` when it is known and the same at the batch asked and at every sample
  /// batch: the branch taken at all of them.
  std::optional<bool> condition_everywhere(const layer& l) const;

  /// Per layer, whether it runs at none of the batches the answer is about: it reaches the outputs only
  /// through an If's branch whose condition chooses the other one at the batch asked and at every sample
  /// batch (`x.view(1, -1) if n == 1 else x.view(n, -1)`: the first branch runs alone only, where writing
  /// 1 is right). Batch 1 is the reference each sample is compared with, not a batch answered about. A
  /// layer that reaches no output at all is not idle: what it does is reported as before.
  std::vector<char> idle_layers() const;

  /// A layer that fails downstream of a Reshape already reported: name it as the cause.
  void explain_failures();

  const graph& g_;
  std::span<const layer> layers_;
  runs runs_;
  const propagation& declared_;
  const propagation& target_;
  std::vector<enclosing_layer> within_;
  bool wants_one_ = false;  ///< a value computed from the batch size needs the run at batch 1, not made
  std::vector<std::vector<batch_carrier>> carriers_;
  std::vector<batch_finding> found_;
  std::map<std::size_t, replaced_batch> replaced_;
  std::map<std::size_t, because> folds_;  ///< the Reshapes that interleave samples, and the sentence that says how
  std::set<std::size_t> swallowed_;  ///< the Reshapes a later layer or output was found to misuse the batch of
  std::set<std::size_t> misusers_;   ///< the layers and outputs found to misuse a batch a Reshape moved
  const std::vector<input_report>* inputs_ = nullptr;  ///< the model's inputs (null in a body)
  const reshape_request* request_ = nullptr;
  std::vector<std::vector<batch_state>> states_;        ///< per layer and output, when analysed
  /// The sizes apart from the batch (runs::sizes), and those the layers followed so far showed.
  detail::batch_free_sizes sizes_;
  std::map<std::size_t, std::pair<std::optional<because>, bool>> unknown_;  ///< why a layer cannot tell; reported yet
  std::map<std::size_t, std::vector<batch_finding>> nested_;     ///< the findings of each analysed body
};

}  // namespace reshape1::model::batch_analysis
