// Internal: the rounds of `fix`, whatever file the model came from. The planner finds the Reshapes that keep
// a model from reshaping, plans a rewrite of the Const that holds each one's pattern element, judges them
// in groups as edits of the graph in memory, and proves the result once it is written and read back. A
// format (analysis/fix.cpp for the IR, src/onnx/fix.cpp for ONNX) says which Consts its file can take a
// value in, where the new bytes go, and how the rewritten model is written and read back.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/analysis/batch_internal.hpp"
#include "model/analysis/fix_internal.hpp"
#include "model/graph/edit.hpp"
#include "reshape1/model/fix.hpp"

namespace reshape1::model::detail {

/// A layer of the model: the layers whose bodies hold it, outermost first (empty at the top level), and its
/// id in that body (a body's ids are its own).
struct layer_key {
  std::vector<std::int64_t> within;
  std::int64_t id = 0;
  friend bool operator==(const layer_key&, const layer_key&) = default;
  friend bool operator<(const layer_key& a, const layer_key& b) {
    return a.within != b.within ? a.within < b.within : a.id < b.id;
  }
};

/// A body of a model (or the model itself) and what a propagation of the model knows there.
struct fix_site {
  const graph* g = nullptr;
  const propagation* p = nullptr;  ///< nullptr when the propagation kept none
};

/// The ids of the bodies `within` names, outermost first.
std::vector<std::int64_t> ids_of(const std::vector<enclosing_layer>& within);
/// The layer a finding is about.
layer_key key_of(const batch_finding& f);
/// The graph that `within` leads to from `g` (propagated as `p`, or nullptr), or nullopt when a layer on
/// the way is missing or has no body.
std::optional<fix_site> site_at(const graph& g, const propagation* p, const std::vector<std::int64_t>& within);

/// What one rewrite does: element `index` of Const `holder` becomes `value` (pattern element `element` of
/// the Reshape), and the Reshape's special_zero may be set. Whether the Const is cloned is decided when the
/// plan becomes edits (fix_planner::convert).
struct fix_plan {
  std::vector<std::int64_t> within;  ///< the bodies the Reshape is in
  /// The bodies the holder and its consumer are in: `within`, or (for an ONNX body that reads a tensor of
  /// the graph around it) the start of it.
  std::vector<std::int64_t> holder_within;
  std::int64_t reshape = 0;
  std::size_t element = 0;
  std::int64_t holder = 0;
  std::size_t index = 0;
  std::int64_t value = 0;
  std::int64_t old_value = 0;
  bool set_special_zero = false;
  /// New sizes: other indices of the holder written with it, each with its value.
  std::vector<std::pair<std::size_t, std::int64_t>> also;
  std::int64_t consumer = 0;  ///< the layer the holder feeds on the way to the Reshape, and its input
  std::size_t consumer_port = 0;
  std::string why;
  /// What the reasons call the input rewritten (input_word: "pattern", "sizes", "bounds"...).
  std::string_view input = "pattern";
  /// New sizes: the pattern computed from the Reshape's input shape instead (then no Const is rewritten:
  /// new layers compute it and feed the Reshape's pattern input; holder and index are unused).
  std::vector<pattern_term> computed{};
  std::int64_t input_rank = 0;  ///< and the rank of that input (as propagated: a port may declare no dims)
  /// The port takes a scalar (TopK-1's k, a Range's limit): the computed values, one, are reshaped to one.
  bool scalar = false;
  /// The port's element type where it is not i64 (a Range of floats): the computed values are converted.
  std::optional<element_type> converted{};
  /// ... where it is another tensor's shape that the pattern is computed from (pattern_choice::shape_of).
  std::optional<std::pair<std::int64_t, std::size_t>> shape_of{};
  std::string shape_of_name{};
  std::size_t port = 1;  ///< the input of the layer the computed values feed (pattern_choice::port)
  count_form form = count_form::count;  ///< ... in this form (pattern_choice::form)
  /// The layer becomes this reduction over `axes` instead (pattern_choice::reduction).
  std::string reduction{};
  std::vector<std::int64_t> axes{};
  bool pads = false;  ///< `computed` is a Pad's begins then ends (pattern_choice::pads)
  std::optional<counted_range> range{};  ///< the Const is computed as this Range (pattern_choice::range)
  /// Whether new layers carry the rewrite (a computed pattern, a reduction): then no Const is rewritten.
  [[nodiscard]] bool adds_layers() const { return !computed.empty() || !reduction.empty(); }
};

/// A plan made concrete: the Const it writes (the holder, or a clone of it for `consumer`) and the bytes
/// that Const then holds. Kept rewrites are the fix: their edits are what is judged, proven and written.
struct fix_rewrite {
  fix_plan p;
  bool clone = false;
  std::int64_t target = 0;
  std::vector<std::byte> bytes;
  fix_change change;
};

/// The fix of one model, in rounds. Each round takes the Reshapes that check_batch at a dynamic batch
/// names on the model as rewritten so far, plans one rewrite for each, and judges them together on the
/// graph in memory: the shapes at the declared inputs must not change, and none of those Reshapes may keep
/// a finding. A group that fails is split (the Reshapes that kept a finding apart from the others, or
/// halves), so that one bad rewrite does not cost the others their place; a Reshape alone that fails takes
/// its next plan, or is refused. Rounds go on until none finds a new Reshape. Then the rewritten model is
/// written once, read back, and proven at every requested batch; a rewritten Reshape that the proof still
/// names loses its rewrite and the rounds resume with its next plan.
/// A judgement makes the current model's propagations the edited one's in place: only the layers downstream
/// of the rewritten Consts and Reshapes run their rules again, and a group that fails puts back what they
/// replaced. The cost is one check_batch, the layers each judgement reaches (in six propagations) and the
/// proof; rounds follow the depth of chained Reshapes, not the model's size: linear in the layers.
class fix_planner {
 public:
  fix_planner(const fix_planner&) = delete;
  fix_planner& operator=(const fix_planner&) = delete;
  virtual ~fix_planner() = default;

  /// The fix: `original` is the model as read, `options` as given.
  fix_report run();

 protected:
  fix_planner(graph original, const fix_options& options);

  // What a format says.

  /// Whether the format rewrites Reshape `l` of `site` at all (ONNX: one a node of the file is, not a
  /// Reshape the lowering added); the proof refuses a Reshape it does not.
  [[nodiscard]] virtual bool rewrites(const fix_site& site, const std::vector<std::int64_t>& within,
                                      const layer& l) const;
  /// Why plan `x` (its element held where `origin` says, in `site`, the body x.within leads to) cannot be
  /// made: a layer that computes the element, a type the format does not rewrite, a shared layer on the
  /// way...; nullopt when it can. The format may move the plan's holder to a graph around the body
  /// (x.holder_within, x.holder, x.consumer), where the value is really held.
  [[nodiscard]] virtual std::optional<text::fix_reason> refuses(const fix_site& site, const element_origin& origin,
                                                           fix_plan& x) const = 0;
  /// New sizes: why Reshape `l` of `site` cannot have its pattern computed from its input's shape by layers
  /// added before it (ONNX: a Reshape whose pattern is an attribute); nullopt when it can.
  /// With `shape_of`, the pattern is computed from that tensor's shape (a layer's id and output), which the
  /// format must be able to name (ONNX: a tensor of the file).
  [[nodiscard]] virtual std::optional<text::fix_reason> refuses_computed(
      const fix_site& site, const layer& l, const std::optional<std::pair<std::int64_t, std::size_t>>& shape_of) const;
  /// The reason a rewrite gives: the choice's `why`, with where the value is held (`holder`, the Const
  /// the plan rewrites; `origin`, the way the element comes).
  [[nodiscard]] virtual std::string held_by(std::string_view why, const layer& holder,
                                            const element_origin& origin) const = 0;
  /// The bytes the Consts of `g` (the original or one of its bodies) address, with `appended` from
  /// appended_from() on, and what keeps them alive.
  [[nodiscard]] virtual std::pair<std::shared_ptr<const void>, std::span<const std::byte>> weights(
      const graph& g, const std::vector<std::byte>& appended) const = 0;
  /// Where appended bytes start: past every byte the original's Consts (its bodies' too) address.
  [[nodiscard]] virtual std::uint64_t appended_from() const = 0;
  /// The name of Const `holder`'s copy for layer `consumer`.
  [[nodiscard]] virtual std::string clone_name(const layer& holder, std::int64_t consumer) const = 0;
  /// Whether the format writes a changed file even with no rewrite (ONNX: declared dims that the batch
  /// frees); `probe` is check_batch of the original at a dynamic batch. Then a model that reshapes as it
  /// is still goes to the proof, which reads back what would be written.
  [[nodiscard]] virtual bool rewrites_declarations(const batch_report& probe);
  /// The model the proof runs on: `rewrites` (whose edits are `edits`, which append `appended`) written as
  /// the file will hold them and read back. original_ may be freed meanwhile (reread() gives it back).
  [[nodiscard]] virtual graph read_back(const std::vector<fix_rewrite>& rewrites, const std::vector<graph_edit>& edits,
                                        const std::vector<std::byte>& appended) = 0;
  /// The original's declared input shapes for the model read back (`g`), when its own declared inputs are
  /// not those (ONNX: its batch, or its new sizes, are dim_params now); empty when they are.
  [[nodiscard]] virtual std::vector<input_shape> original_inputs_of(const graph& g);
  /// A refusal naming the first tensor of the original that `g` (read back, propagated at the original's
  /// declared inputs as `at_declared`) does not compute with the shape it had; nullopt when there is none.
  [[nodiscard]] virtual std::optional<fix_refusal> differs(const graph& g, const propagation& at_declared) = 0;
  /// The original, read again after read_back freed it.
  [[nodiscard]] virtual graph reread() = 0;
  /// The proven model goes into the report (what read_back wrote).
  virtual void accept(fix_report& report) = 0;

  /// How the original's inputs carry the batch (check_batch's, at a dynamic batch; with new sizes, at the
  /// shapes asked).
  [[nodiscard]] const std::vector<input_report>& original_inputs() const { return original_inputs_; }
  /// Whether fix rewrites for new sizes (fix_options::shapes) rather than the batch.
  [[nodiscard]] bool sizes() const noexcept { return !options_.shapes.empty(); }
  /// New sizes: one size that changes, as the inputs ask it (a dimension of each input that names it; a
  /// symbol `?@H` is one size wherever it is asked), with what the fixed model declares it as (the
  /// symbol's name, else `INPUT_AXIS`) and two values it takes at the samples the proof checks by default.
  struct free_size {
    std::string name;
    bool fixed = false;  ///< asked as one value: declared as that value, not as a name
    std::vector<std::pair<std::string, std::size_t>> dims;  ///< input name, axis
    std::array<std::int64_t, 2> samples{};
  };
  /// New sizes: each size that changes between the declared shapes and the shapes asked.
  [[nodiscard]] const std::vector<free_size>& free_sizes() const { return free_sizes_; }

  /// The original's propagation at its declared inputs (made again once the proof freed it).
  const propagation& declared();
  /// For plan `x`, whose element its body (`site`) reads through Parameter `param`: the Const that feeds
  /// that Parameter from the graph around the body, through an input of the layer running the body that is
  /// the same at every iteration (not sliced, not carried); the plan is moved there (holder_within, holder,
  /// consumer: the layer running the body, and its input). nullptr, the plan unchanged, when there is none.
  const layer* held_outside(const fix_site& site, const layer& param, fix_plan& x) const;
  /// How many inputs layer `l` of `g`, the body `within` leads to in the current model, feeds.
  [[nodiscard]] std::size_t readers(const std::vector<std::int64_t>& within, const graph& g, const layer& l) const;

  fix_options options_;
  graph original_;  ///< freed while the proof runs (read again if the rounds resume)
  /// outputs_read(original_): per layer, the outputs whose shapes a rewrite must keep (it may drop the others).
  std::vector<std::size_t> read_;

 private:
  /// A Reshape to rewrite, with its plans (the first `tried_` of them failed earlier).
  struct candidate {
    layer_key key;
    std::vector<enclosing_layer> within;  ///< the bodies it is in, as reports name them
    std::string name, type;
    std::string pattern;  ///< its pattern as the round found it
    std::vector<fix_plan> plans;
    std::size_t next = 0;
  };

  /// Where the proof checks: a batch, or (new sizes) the shapes asked and the samples.
  struct proof_point {
    text::proof_at at;
    reshape_request request;
  };
  void report(std::string_view stage, const proof_point* point = nullptr) const;
  /// The proof's points: each of check_batches; or the shapes asked, then each of check_shapes (by
  /// default, the two samples of free_sizes()).
  void make_proofs();
  /// New sizes: every shape and sample asked named by its input's name (a shape given without one is the
  /// only input's, `#ID` the input's with that id), so that a sample can take the place of the shape asked;
  /// error(invalid_argument) for an input the model lacks, another rank, or a sample outside the shape asked.
  void name_shapes_asked();
  /// New sizes: the sizes that change (free_sizes_), each with its two default samples.
  void find_free_sizes();
  /// The two default samples of size `f`, asked as `asked` and declared as `was`.
  void pick_samples(free_size& f, const dimension& asked, const dimension& was) const;
  /// Whether check_batch's report `r` is the answer the fix needs: yes for a batch; for new sizes, no
  /// finding but that the sizes asked as symbols or intervals are not proven for every value.
  [[nodiscard]] bool passes(const batch_report& r) const;
  /// Whether finding `f` fails only off a step that its own layer's rewrite explains: its `step` (with
  /// `also`, the plans a judgement tries, or its `layer_step`: the layer runs there, one after it fails)
  /// divides what the computed values of that layer's kept or tried rewrite divide by (a window partition
  /// computed as `shape[1]/7` fails where the size is no multiple of 7, as its program does).
  [[nodiscard]] bool step_explained(const batch_finding& f, const std::vector<candidate*>& also = {}) const;
  [[nodiscard]] reshape_request request(const dimension& b) const;
  /// The model reshapes at every batch as given: nothing to do.
  [[nodiscard]] bool clean();
  void rounds();
  /// The round's Reshapes to plan (`group`) and the ones with no plan left (`unplanned`).
  void gather(std::vector<candidate>& group, std::vector<fix_refusal>& unplanned);
  void refuse(const candidate& c, text::fix_reason reason);
  [[nodiscard]] std::optional<fix_site> where(const batch_finding& f) const;
  void attempt(const std::vector<candidate*>& group);
  /// After `group` failed: each of its Reshapes alone tries its next plan, or the group is split.
  void failed(const std::vector<candidate*>& group, const std::map<layer_key, batch_issue>& failing,
              const std::optional<text::fix_reason>& failure, std::optional<std::int64_t> changed);
  void convert(const std::vector<candidate*>& group, std::vector<fix_rewrite>& trial);
  [[nodiscard]] std::pair<std::vector<graph_edit>, std::vector<std::byte>> build(
      const std::vector<fix_rewrite>& rewrites) const;
  [[nodiscard]] graph edited(const std::vector<graph_edit>& edits, const std::vector<std::byte>& appended) const;
  [[nodiscard]] std::optional<std::int64_t> first_difference(const propagation& p) const;
  void keep(const std::vector<candidate*>& group, std::vector<fix_rewrite> trial, graph next, batch_report next_probe);
  static void describe(fix_rewrite& r);
  void count_consumers();
  [[nodiscard]] std::size_t index_of(std::int64_t id) const;
  [[nodiscard]] static std::vector<fix_rewrite> merged_clones(std::vector<fix_rewrite> rewrites);
  bool prove();
  void judge(const batch_report& r, const text::proof_at& at, std::map<layer_key, text::fix_reason>& dropped,
             std::vector<fix_refusal>& refusals) const;
  void drop(const std::map<layer_key, text::fix_reason>& dropped);
  [[nodiscard]] std::map<layer_key, std::vector<std::size_t>> places_of(const std::vector<fix_rewrite>& rewrites) const;
  void list_changes(const std::vector<fix_rewrite>& final_rewrites,
                    const std::map<layer_key, std::vector<std::size_t>>& places);
  [[nodiscard]] std::optional<fix_plan> target(const fix_site& s, const std::vector<std::int64_t>& within,
                                               const layer& l, const pattern_choice& c, text::fix_reason& reason) const;
  [[nodiscard]] std::vector<fix_plan> plans_for(const batch_finding& f, text::fix_reason& reason) const;
  /// New sizes: the values the patterns of the current model's Reshapes (but `except`) hold in elements
  /// only constants go into, where no finding of the current probe names the Reshape, and that no tensor
  /// has in a dimension that changes at the shapes asked.
  [[nodiscard]] std::vector<std::int64_t> kept_values(const layer& except) const;
  /// The edits that compute plan `x`'s pattern (layers with ids from `first_id` on, their constants' bytes
  /// appended to `appended`, which starts at `base` in the weights) and feed it to the Reshape.
  void computed_edits(const fix_plan& x, std::int64_t first_id, std::uint64_t base, std::vector<graph_edit>& edits,
                      std::vector<std::byte>& appended) const;
  /// ... for a Const computed as a Range (x.range): the layers that compute it, and every reader of `holder`
  /// fed by them.
  void range_edits(const fix_plan& x, const layer& holder, std::int64_t first_id, std::uint64_t base,
                   std::vector<graph_edit>& edits, std::vector<std::byte>& appended) const;

  std::vector<proof_point> proofs_;
  std::vector<free_size> free_sizes_;
  std::size_t layer_count_ = 0;
  std::vector<input_report> original_inputs_;
  bool declarations_ = false;  ///< the format writes a changed file even with no rewrite
  std::optional<propagation> declared_;  ///< the original's propagation at its declared inputs
  std::int64_t next_id_ = 0;             ///< the last id given to a clone (at first the model's largest)
  std::optional<graph> current_;         ///< the original with the kept rewrites
  std::optional<batch_report> probe_;    ///< and its check_batch at a dynamic batch
  batch_runs runs_;                      ///< and that check_batch's propagations (`declared`: at the declared inputs)
  std::vector<std::size_t> consumers_;
  std::vector<fix_rewrite> rewrites_;
  std::size_t kept_ = 0;  ///< rewrites kept in this round
  std::size_t round_ = 0, tried_count_ = 0, kept_count_ = 0;  ///< for the progress display
  std::size_t round_first_tried_ = 0, round_rewrites_ = 0;    ///< the round's start and size, likewise
  std::size_t batch_index_ = 0;                               ///< the batch being proven (from 1), likewise
  std::vector<candidate*> failed_;  ///< candidates whose plan failed in this round
  bool final_ = false;              ///< the round kept nothing: a failed plan is final
  std::set<layer_key> done_;        ///< Reshapes rewritten or refused
  std::map<layer_key, std::size_t> tried_;        ///< how many of a Reshape's plans failed
  std::map<layer_key, text::fix_reason> last_failure_;  ///< and why the last one did
  fix_report report_;
};

}  // namespace reshape1::model::detail
