// `check --batch`: propagate at the requested shapes, and with the batch at three sample values to see
// which dimensions carry it (a dimension is N·k when it is k times the sample at every sample), then
// report the layers that fail, the Reshapes that fold or replace the batch where it matters, and the
// post-processing outputs that grow with it.
#include "reshape1/model/batch.hpp"

#include <algorithm>
#include <charconv>
#include <array>
#include <cctype>
#include <deque>
#include <map>
#include <set>

#include <fmt/format.h>

#include "detail/fail.hpp"
#include "io/files.hpp"
#include "model/analysis/batch_internal.hpp"
#include "model/options.hpp"
#include "model/ops/rules.hpp"
#include "model/text/batch.hpp"

namespace reshape1::model {
namespace {

using detail::trim;
using detail::op_part;
using detail::part_of;
using detail::without_symbols;

using reshape1::detail::fail;
using detail::element_origin;
using detail::origin_of_element;

constexpr const auto& samples = detail::batch_samples;
using kind = detail::batch_state::kind;
using detail::batch_state;
using detail::no_layer;
using detail::because;
using detail::why;

std::string lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

[[noreturn]] void bad_request(const std::string& what, const std::string& hint) {
  fail(errc::invalid_argument, {}, what, hint);
}

std::string input_names(const graph& g) {
  std::string names;
  for (const auto& l : g.layers())
    if (part_of(l.type) == op_part::parameter)
      names += fmt::format("{}'{}'", names.empty() ? "" : ", ", io::detail::escaped(l.name));
  return names;
}



// ---- inputs --------------------------------------------------------------------------------------

}  // namespace

dimension parse_batch(std::string_view text, std::string_view where) {
  constexpr std::string_view hint = "give a number such as 8, or ? (or -1) for a dynamic batch";
  if (text.empty()) fail(errc::syntax, {}, fmt::format("{}: an empty batch", where), std::string(hint));
  partial_shape s;
  try {
    s = parse_shape(fmt::format("[{}]", text));
  } catch (const error&) {
  }
  if (!s.rank_known() || s.size() != 1)
    fail(errc::syntax, {}, fmt::format("{}: not a batch", where), std::string(hint));
  return dimension(s[0].range());
}

namespace {

/// The model's inputs (its Parameters), each at its declared shape.
std::vector<input_report> model_inputs(const graph& g) {
  const auto layers = g.layers();
  std::vector<input_report> inputs;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto& l = layers[i];
    if (part_of(l.type) != op_part::parameter || l.outputs.empty()) continue;
    input_report in;
    in.layer = i;
    in.id = l.id;
    in.name = l.name;
    in.declared = detail::parameter_shape(l);
    in.requested = in.declared;
    inputs.push_back(std::move(in));
  }
  return inputs;
}

/// The input an option names: by name, by id (`#12`), or the only one when the name is empty.
input_report& named_input(const graph& g, std::vector<input_report>& inputs, const std::string& name,
                          detail::option option) {
  if (name.empty()) {
    if (inputs.size() != 1)
      bad_request(fmt::format("{} without a name: the model has {} inputs ({})", detail::spell(option), inputs.size(),
                              input_names(g)),
                  fmt::format("write {}", detail::usage_of(option)));
    return inputs[0];
  }
  if (name.size() > 1 && name[0] == '#') {  // by id: #12
    std::int64_t id = 0;
    const auto [end, ec] = std::from_chars(name.data() + 1, name.data() + name.size(), id);
    if (ec == std::errc() && end == name.data() + name.size()) {
      for (auto& in : inputs)
        if (in.id == id) return in;
      bad_request(fmt::format("{}: no input has the id {}; its inputs are {}", detail::spell(option, name), id,
                              input_names(g)),
                  "use one of those names, or #ID for an input's id");
    }
  }
  input_report* match = nullptr;
  for (auto& in : inputs) {
    if (in.name != name) continue;
    if (match != nullptr)
      bad_request(fmt::format("{}: two inputs are named '{}' (ids {} and {})", detail::spell(option, name),
                              io::detail::escaped(name), match->id, in.id),
                  fmt::format("address one by its id: {}", detail::spell(option, fmt::format("#{}", match->id), "...")));
    match = &in;
  }
  if (match != nullptr) return *match;
  bad_request(fmt::format("{}: the model has no input named '{}'; its inputs are {}", detail::spell(option, name),
                          io::detail::escaped(name), input_names(g)),
              "use one of those names, or #ID for an input's id");
}

/// Each input's batch index: from the request's layout, else the layout the model writes, else its
/// dimension 0.
void choose_batch_axes(const graph& g, std::vector<input_report>& inputs, const reshape_request& request) {
  std::set<std::int64_t> seen;  // by id: two inputs may share a name
  for (const auto& [name, layout] : request.layouts) {
    auto& in = named_input(g, inputs, name, detail::option::layout);
    if (!seen.insert(in.id).second)
      bad_request(fmt::format("{}: given twice", detail::spell(detail::option::layout, in.name)),
                  "give each input's layout once");
    try {
      in.batch_index = batch_index_of(layout, in.declared.rank_known() ? std::optional(in.declared.size()) : std::nullopt);
    } catch (const error& e) {
      bad_request(fmt::format("{}: {}", detail::spell(detail::option::layout, in.name, layout), e.what()), "");
    }
    in.layout = layout;
    in.source = in.batch_index ? batch_source::layout_option : batch_source::none;
  }
  for (auto& in : inputs) {
    if (seen.contains(in.id)) continue;
    const auto& written = g.layers()[in.layer].outputs[0].layout;
    if (!written.empty()) {
      try {
        in.batch_index = batch_index_of(written, in.declared.rank_known() ? std::optional(in.declared.size()) : std::nullopt);
        in.layout = written;
        in.source = in.batch_index ? batch_source::layout_in_model : batch_source::none;
        continue;
      } catch (const error&) {
        // A layout in the model that does not fit its shape: fall back to dimension 0, as if none were written.
      }
    }
    if (in.declared.rank_known() && in.declared.size() >= 1) {
      in.batch_index = 0;
      in.source = batch_source::first_dimension;
    }
  }
}

/// The request's shapes; an input whose batch index a new shape (or a dynamic rank) does not have loses
/// it, or is refused when the request's layout or batch needs it. Returns the ids of the inputs shaped.
std::set<std::int64_t> apply_shapes(const graph& g, std::vector<input_report>& inputs, const reshape_request& request) {
  std::set<std::int64_t> seen;
  for (const auto& [name, shape] : request.shapes) {
    auto& in = named_input(g, inputs, name, detail::option::shape);
    if (!seen.insert(in.id).second)
      bad_request(fmt::format("{}: given twice", detail::spell(detail::option::shape, in.name)),
                  "give each input's shape once");
    in.requested = shape;
    if (in.batch_index && (!shape.rank_known() || *in.batch_index >= shape.size())) {
      if (in.source == batch_source::layout_option || request.batch)
        bad_request(fmt::format("{}: the input's batch index is {}, which the new shape does not have",
                                detail::spell(detail::option::shape, in.name, to_string(shape)), *in.batch_index),
                    fmt::format("give a shape of the input's rank, or its layout with {}",
                                detail::spell(detail::option::layout)));
      in.batch_index.reset();
      in.source = batch_source::none;
    }
  }
  // A batch index needs a shape that has it (a layout in the model may name N of a dynamic rank).
  for (auto& in : inputs) {
    if (!in.batch_index || (in.requested.rank_known() && *in.batch_index < in.requested.size())) continue;
    if (in.source == batch_source::layout_option)
      bad_request(fmt::format("{}: the input's shape {} has no dimension {}",
                              detail::spell(detail::option::layout, in.name, in.layout), to_string(in.requested),
                              *in.batch_index),
                  fmt::format("give its shape with {}", detail::usage_of(detail::option::shape)));
    in.batch_index.reset();
    in.source = batch_source::none;
  }
  return seen;
}

/// The request's batch at each input's batch index (`shaped`: the inputs whose shape the request gives,
/// which must agree with it there).
void apply_batch(std::vector<input_report>& inputs, const reshape_request& request, const std::set<std::int64_t>& shaped) {
  if (!request.batch) return;
  if (request.batch->range().hi() == 0 && request.batch->range().lo() == 0)
    bad_request(fmt::format("{}: a batch of 0 samples", detail::spell(detail::option::batch, {}, "0")),
                "give a batch of at least 1, or ?");
  // An interval written from 0 (`0..8`) asks for a batch of 0 among the others; `?` is every batch.
  if (request.batch->range().lo() == 0 && request.batch->range().is_bounded()) {
    const auto hi = request.batch->range().hi();
    bad_request(fmt::format("{}: a batch interval from 0 samples",
                            detail::spell(detail::option::batch, {}, fmt::format("0..{}", hi))),
                fmt::format("give one from 1 (1..{}), or ?", hi));
  }
  // A batch asked of a model none of whose inputs holds one (every layout without N, inputs of rank 0)
  // changes nothing: "yes" would answer a question the model cannot be asked.
  if (!inputs.empty() && std::none_of(inputs.begin(), inputs.end(), [](const input_report& in) { return in.batch_index; })) {
    std::string why;
    for (const auto& in : inputs)
      why += fmt::format("{}'{}' {}", why.empty() ? "" : ", ", io::detail::escaped(in.name),
                         in.layout.empty() ? std::string("has no batch dimension") : fmt::format("has layout {}, without N", in.layout));
    bad_request(fmt::format("{}: no input holds a batch ({})", detail::spell(detail::option::batch, {}, to_string(*request.batch)), why),
                fmt::format("give each batched input a layout with N ({}), or change its shape with {}",
                            detail::spell(detail::option::layout, "NAME", "NCHW"), detail::spell(detail::option::shape)));
  }
  for (auto& in : inputs) {
    if (!in.batch_index) continue;
    auto dims = std::vector<dimension>(in.requested.begin(), in.requested.end());
    auto& d = dims[*in.batch_index];
    if (shaped.contains(in.id) && d.range() != request.batch->range())
      bad_request(fmt::format("input '{}': {} gives {} at the batch index {}, {} gives {}", in.name,
                              detail::spell(detail::option::shape), to_string(dimension(d.range())), *in.batch_index,
                              detail::spell(detail::option::batch), to_string(*request.batch)),
                  "drop one of them, or make them agree");
    d = request.batch->is_static() ? dimension(request.batch->range()) : dimension(request.batch->range(), symbol("N"));
    in.requested = partial_shape(std::move(dims));
  }
}

std::vector<input_report> choose_inputs(const graph& g, const reshape_request& request) {
  auto inputs = model_inputs(g);
  choose_batch_axes(g, inputs, request);
  const auto shaped = apply_shapes(g, inputs, request);
  apply_batch(inputs, request, shaped);
  return inputs;
}

std::vector<input_shape> shapes_at(const std::vector<input_report>& inputs, std::optional<std::int64_t> batch) {
  std::vector<input_shape> r;
  for (const auto& in : inputs) {
    if (!batch || !in.batch_index) {
      r.push_back({in.layer, in.requested});
      continue;
    }
    std::vector<dimension> dims(in.requested.begin(), in.requested.end());
    dims[*in.batch_index] = dimension(*batch);
    r.push_back({in.layer, partial_shape(std::move(dims))});
  }
  return r;
}

// ---- carriers --------------------------------------------------------------------------------------

batch_carrier carrier_of(const std::array<const partial_shape*, samples.size()>& at) {
  batch_carrier c;
  const auto& first = *at[0];
  if (!first.rank_known()) return c;
  for (const auto* s : at)
    if (!s->rank_known() || s->size() != first.size()) return c;
  bool all_known = true;
  std::size_t carrying = 0;
  for (std::size_t d = 0; d < first.size(); ++d) {
    std::int64_t factor = 0;
    bool carries = true, known = true;
    for (std::size_t k = 0; k < samples.size(); ++k) {
      const auto& dim = (*at[k])[d];
      if (!dim.is_static()) {
        known = carries = false;
        break;
      }
      const auto v = dim.lo();
      if (v == 0 || v % samples[k] != 0 || (k > 0 && v / samples[k] != factor)) carries = false;
      factor = samples[k] == 0 ? 0 : v / samples[k];
    }
    all_known = all_known && known;
    if (carries) {
      ++carrying;
      c.axis = d;
      c.factor = factor;
    }
  }
  if (carrying == 1) {
    c.state = batch_carrier::kind::one;
  } else if (carrying > 1) {
    c.state = batch_carrier::kind::several;
    c.axis = 0;
    c.factor = 0;
  } else {
    c.state = all_known ? batch_carrier::kind::none : batch_carrier::kind::unknown;
    c.axis = 0;
    c.factor = 0;
  }
  return c;
}

// ---- the analysis ---------------------------------------------------------------------------------------

struct replaced_batch {
  std::size_t index = 0;  ///< the pattern element
  std::int64_t value = 0;
  element_origin origin;
  std::string hint;
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

  /// The model's findings, in the order of the layers, each body's right after its TensorIterator or Loop.
  std::vector<batch_finding> run(const std::string& target_at, std::optional<std::int64_t> example_at,
                                 std::size_t& failing_at_declared) {
    for (const auto& x : declared_.lost) {
      if (x.not_covered) continue;
      ++failing_at_declared;
      auto f = finding(batch_issue::fails_at_declared, layers_[x.layer]);
      f.code = name(x.code);
      set_message(f, x);
      if (f.hint.empty()) f.hint = detail::plain_check();
      found_.push_back(std::move(f));
    }
    find_replaced();
    find_failures(target_, target_at);
    if (runs_.example != nullptr && example_at) find_failures(*runs_.example, std::to_string(*example_at));
    if (!carriers_.empty()) {
      find_replaced_swallows();
      follow_states(nullptr);
      check_outputs();
      drop_harmless_replaced();
      replaced_in_bodies();
    }
    explain_failures();
    return findings();
  }

  /// Whether a value computed from the batch size needed the run at batch 1, which was not given.
  [[nodiscard]] bool wants_one() const noexcept { return wants_one_; }

  std::vector<std::vector<batch_carrier>> carriers() && { return std::move(carriers_); }
  const std::vector<std::vector<batch_carrier>>& carriers() const& { return carriers_; }

 private:
  std::size_t index_of(const layer& l) const { return static_cast<std::size_t>(&l - layers_.data()); }

  const batch_carrier& carrier(std::size_t layer, std::size_t output) const {
    static const batch_carrier unknown;
    if (layer >= carriers_.size() || output >= carriers_[layer].size()) return unknown;
    return carriers_[layer][output];
  }
  const batch_carrier& input_carrier(const layer& l, std::size_t port) const {
    static const batch_carrier unknown;
    if (port >= l.sources.size() || !l.sources[port]) return unknown;
    return carrier(l.sources[port]->layer, l.sources[port]->output);
  }

  void compute_carriers() {
    carriers_.resize(layers_.size());
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      carriers_[i].resize(layers_[i].outputs.size());
      for (std::size_t o = 0; o < layers_[i].outputs.size(); ++o) {
        std::array<const partial_shape*, samples.size()> at{};
        for (std::size_t k = 0; k < samples.size(); ++k) at[k] = &runs_.at_samples[k]->outputs[i][o].shape;
        carriers_[i][o] = carrier_of(at);
      }
    }
  }

  batch_finding finding(batch_issue issue, const layer& l) const {
    batch_finding f;
    f.issue = issue;
    f.layer = index_of(l);
    f.id = l.id;
    f.name = l.name;
    f.type = l.op_type();
    f.opset = l.op_version();
    f.within = within_;
    return f;
  }

  /// The finding's code and args: what its reason names.
  static void set_reason(batch_finding& f, const because& reason) {
    f.code = text::code_name(reason.code);
    f.args = text::args_of(reason);
  }

  batch_finding* finding_for(std::size_t layer, batch_issue issue) {
    for (auto& f : found_)
      if (f.layer == layer && f.issue == issue) return &f;
    return nullptr;
  }

  /// Reshapes whose pattern writes the declared batch as a constant where the input has the batch.
  void find_replaced() {
    if (carriers_.empty()) return;
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      const auto& l = layers_[i];
      if (part_of(l.type) != op_part::reshape || l.inputs.size() < 2) continue;
      const auto& input = declared_.input(g_, l, 0).shape;
      // Which input dimension holds the batch: from the carriers, or for a direct input, its batch index.
      std::optional<std::size_t> axis;
      const auto& c = input_carrier(l, 0);
      if (c.state == batch_carrier::kind::one) axis = c.axis;
      if (!axis) continue;
      if (!input.rank_known() || *axis >= input.size() || !input[*axis].is_static()) continue;
      std::vector<bool> constant;
      const auto pattern = detail::reshape_pattern_at(g_, declared_, l, &constant);
      const auto elements = pattern.elements();
      if (*axis >= elements.size() || *axis >= constant.size() || !constant[*axis]) continue;
      const auto& e = elements[*axis];
      if (e.lo != e.hi || e.lo <= 0 || e.lo != input[*axis].lo()) continue;
      const bool special_zero = l.flag("special_zero");
      const bool has_minus_one =
          std::any_of(elements.begin(), elements.end(), [](const pattern_bound& b) { return b.lo == -1 && b.hi == -1; });
      replaced_batch r;
      r.index = *axis;
      r.value = e.lo;
      r.origin = origin_of_element(g_, declared_, l, 1, *axis);
      r.hint = text::copy_batch_hint(*axis, special_zero, has_minus_one);
      replaced_[i] = r;
    }
  }

  void find_failures(const propagation& p, const std::string& at) {
    std::vector<bool> failed_before(layers_.size(), false);
    for (const auto& x : declared_.lost) failed_before[x.layer] = true;
    for (const auto& x : p.lost) {
      if (x.not_covered || failed_before[x.layer] || finding_for(x.layer, batch_issue::fails)) continue;
      const auto& l = layers_[x.layer];
      auto f = finding(batch_issue::fails, l);
      f.code = name(x.code);
      f.at = at;
      set_message(f, x);
      if (part_of(l.type) == op_part::reshape && l.inputs.size() >= 2) {
        if (const auto it = replaced_.find(x.layer); it != replaced_.end()) {
          f.what = text::joined(f.what, text::replaced_batch(it->second.index, it->second.value));
          f.hint = it->second.hint;
          f.pattern_index = it->second.index;
          set_source(f, it->second.origin);
        } else {
          set_pattern_source(f, l);
        }
      }
      if (l.body) explain_body_failure(f, l, x.layer, p);
      if (f.hint.empty()) f.hint = text::follow_back_hint();
      found_.push_back(std::move(f));
    }
  }

  /// A TensorIterator or Loop that fails because a layer of its body does: when that layer meets an input
  /// that follows the batch and one from outside the body that does not (an initial state, a Const), name
  /// where the latter comes from, in the model (its ids are the model's, not the body's).
  void explain_body_failure(batch_finding& f, const layer& l, std::size_t index, const propagation& p) const {
    const auto* inner = p.body(index);
    const auto* before = declared_.body(index);
    if (inner == nullptr || before == nullptr) return;
    const auto& body = l.body->network;
    for (const auto& y : inner->lost) {
      if (y.not_covered) continue;
      const auto& bl = body.layers()[y.layer];
      const auto changed = [&](std::size_t port) {
        return to_string(without_symbols(inner->input(body, bl, port).shape)) !=
               to_string(without_symbols(before->input(body, bl, port).shape));
      };
      bool any_changed = false;
      for (std::size_t port = 0; port < bl.inputs.size(); ++port) any_changed = any_changed || changed(port);
      if (!any_changed) return;
      for (std::size_t port = 0; port < bl.inputs.size(); ++port) {
        if (changed(port) || port >= bl.sources.size() || !bl.sources[port]) continue;
        const auto& param = body.layers()[bl.sources[port]->layer];
        // An input of the body: find the port of `l` that feeds it.
        for (const auto& m : l.body->inputs) {
          if (m.internal_layer != param.id || m.external_port < 0) continue;
          const auto outer = detail::port_index(l.inputs, m.external_port);
          if (!outer || *outer >= l.sources.size() || !l.sources[*outer]) continue;
          const auto& src = layers_[l.sources[*outer]->layer];
          f.source_id = src.id;
          f.source = text::body_input_source(src, *outer, l);
          f.hint = text::body_input_hint(bl, *outer, l);
          return;
        }
      }
      return;
    }
  }

  /// A lost layer's message as a finding's what and hint: the hint is its own field, and the message
  /// (error::what(), `what; hint`) ends with it.
  static void set_message(batch_finding& f, const lost_information& x) {
    f.hint = x.hint;
    f.what = reshape1::detail::without_hint(x.message, x.hint);
  }

  /// A reason as a finding's code, args and what.
  static void set_message(batch_finding& f, const because& reason) {
    set_reason(f, reason);
    f.what = text::sentence(reason);
  }

  /// The pattern as a whole: its Const, or the layer that computes it.
  void set_pattern_source(batch_finding& f, const layer& l) const {
    if (l.sources.size() < 2 || !l.sources[1]) return;
    const auto& src = layers_[l.sources[1]->layer];
    f.source_id = src.id;
    f.source = text::holder(src);
  }

  void set_source(batch_finding& f, const element_origin& o) const {
    if (o.holder == nullptr) return;
    f.source_id = o.holder->id;
    f.source = text::origin(o);
  }

  std::string swallow_hint(std::size_t reshape) const {
    if (const auto it = replaced_.find(reshape); it != replaced_.end()) return it->second.hint;
    const auto& r = layers_[reshape];
    const auto& in = input_carrier(r, 0);
    const auto axis = in.state == batch_carrier::kind::one ? in.axis : 0;
    return text::own_dimension_hint(axis, r.flag("special_zero"));
  }

  /// A Reshape that swallows the batch: by itself (its output interleaves samples or fixes the batch), or
  /// because a later layer or output misuses the axis it moved the batch to.
  void add_swallow(std::size_t reshape, const because& reason, const std::string& what,
                   std::optional<std::int64_t> used_by) {
    const bool first = swallowed_.insert(reshape).second;
    if (finding_for(reshape, batch_issue::fails)) return;
    if (auto* f = finding_for(reshape, batch_issue::swallows_batch)) {
      // The replaced batch's own finding, made before the layers after it were followed: the first layer
      // found to misuse the batch it moved is what proves the "no", so the finding names it.
      if (first && used_by && !f->used_by_id && replaced_.contains(reshape)) {
        f->what = text::joined(f->what, what);
        f->used_by_id = used_by;
      }
      return;
    }
    const auto& l = layers_[reshape];
    auto f = finding(batch_issue::swallows_batch, l);
    set_reason(f, reason);
    f.what = what;
    f.used_by_id = used_by;
    f.hint = swallow_hint(reshape);
    const auto& out = states_.empty() || states_[reshape].empty() ? batch_state{} : states_[reshape][0];
    const auto moved =
        text::batch_goes(out.is(kind::batched) ? std::optional(std::pair(out.axis, out.factor)) : std::nullopt);
    if (const auto it = replaced_.find(reshape); it != replaced_.end()) {
      f.pattern_index = it->second.index;
      set_reason(f, {why::replaces_batch, it->second.index, it->second.value});
      f.what = text::replaced_batch_swallows(it->second.index, it->second.value, moved, what);
      set_source(f, it->second.origin);
    } else {
      if (used_by && !out.is(kind::folded)) f.what = text::joined(moved, what);
      set_pattern_source(f, l);
    }
    found_.push_back(std::move(f));
  }

  /// A replaced batch that does not fail: the -1 takes the batch into another dimension. Reported here,
  /// before the layers after it are followed (their misuse of that dimension is then told in this finding);
  /// drop_harmless_replaced takes it back where everything after it is shown to keep each sample apart.
  void find_replaced_swallows() {
    for (const auto& [index, r] : replaced_) {
      if (finding_for(index, batch_issue::fails)) continue;
      const auto& l = layers_[index];
      const auto& in = input_carrier(l, 0);
      const auto& out = carrier(index, 0);
      // The -1 took exactly what the constant left out (a transpose of a dimension of 1 written as a
      // Reshape): the batch only moved, with the same factor, and keeps its meaning.
      if (out.state == batch_carrier::kind::one && out.factor == in.factor) continue;
      auto f = finding(batch_issue::swallows_batch, l);
      set_reason(f, {why::replaces_batch, r.index, r.value});
      f.what = text::replaced_batch_stays(
          r.index, r.value,
          out.state == batch_carrier::kind::one ? std::optional(std::pair(out.axis, out.factor)) : std::nullopt);
      f.hint = r.hint;
      f.pattern_index = r.index;
      set_source(f, r.origin);
      found_.push_back(std::move(f));
    }
  }

  /// A "no" must name what breaks: a replaced batch whose Reshape no later layer or output was found to
  /// misuse (no add_swallow for it), and after which every layer's state is decided and unbroken and no
  /// finding sits, only moved the batch and let the layers after it put it back (a fold into the channels
  /// for a per-channel normalisation, undone by a Reshape computed from Shape): its finding is dropped.
  /// Where a layer after it cannot tell (and nothing after it fails, misuses or is a "no"), what it did to
  /// the batch is not shown to break anything: its finding becomes cannot tell, naming the moved batch
  /// (`fix` still rewrites its pattern). Where anything after it fails or is a "no", it stays.
  void drop_harmless_replaced() {
    // Decided over the findings as they stand, before any is dropped: whether one finding goes must not
    // depend on whether another went first.
    std::vector<layer_findings> layer_has_finding(layers_.size(), layer_findings::none);
    for (const auto& f : found_)
      layer_has_finding[f.layer] = f.issue == batch_issue::cannot_tell && layer_has_finding[f.layer] != layer_findings::a_no
                                       ? layer_findings::cannot_tell_only
                                       : layer_findings::a_no;
    std::vector<batch_finding> kept;
    kept.reserve(found_.size());
    for (auto& f : found_) {
      switch (after_replaced(f, layer_has_finding)) {
        case replaced_outcome::harmless: continue;
        case replaced_outcome::undecided:
          f.issue = batch_issue::cannot_tell;
          f.what = text::joined(f.what, text::replaced_batch_undecided());
          break;
        case replaced_outcome::stays: break;
      }
      kept.push_back(std::move(f));
    }
    found_ = std::move(kept);
  }

  enum class replaced_outcome { stays, harmless, undecided };
  /// What findings a layer has: none, at least one "no", or only cannot tell.
  enum class layer_findings : std::uint8_t { none, a_no, cannot_tell_only };
  replaced_outcome after_replaced(const batch_finding& f, const std::vector<layer_findings>& layer_has_finding) const {
    if (f.issue != batch_issue::swallows_batch || !replaced_.contains(f.layer) || swallowed_.contains(f.layer))
      return replaced_outcome::stays;
    const auto& own = states_[f.layer];
    if (own.empty() || !own[0].is(kind::batched)) return replaced_outcome::stays;
    std::vector<char> marked(layers_.size(), 0);
    marked[f.layer] = 1;
    const auto after = detail::downstream_of(g_, marked);
    bool undecided = false;
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      if (!after[i]) continue;
      // An If whose branches hold the batch differently because this Reshape moved it in one of them: where
      // that branch runs, the If's output has the batch where the other branch does not put it. That is
      // the Reshape's doing, not something undecided after it.
      if (part_of(layers_[i].type) == op_part::if_merge)
        if (const auto it = unknown_.find(i);
            it != unknown_.end() && it->second.first && it->second.first->code == why::branches_differ)
          return replaced_outcome::stays;
      for (const auto& x : states_[i]) {
        if (x.is(kind::broken)) return replaced_outcome::stays;
        undecided = undecided || x.is(kind::unknown);
      }
      // A layer found to misuse the batch, blamed on another Reshape (the first one that moved it: the
      // other branch of an If that holds it alike), is shown to misuse this one's too.
      if ((nested_.contains(i) && !nested_.at(i).empty()) || layer_has_finding[i] == layer_findings::a_no || misusers_.contains(i))
        return replaced_outcome::stays;
      undecided = undecided || layer_has_finding[i] == layer_findings::cannot_tell_only;
    }
    return undecided ? replaced_outcome::undecided : replaced_outcome::harmless;
  }

  std::vector<batch_state> states_of_inputs(const layer& l) const {
    std::vector<batch_state> in(l.sources.size());
    for (std::size_t p = 0; p < l.sources.size(); ++p)
      if (l.sources[p]) in[p] = states_[l.sources[p]->layer][l.sources[p]->output];
    return in;
  }

  void set_unknown(std::size_t index, const because& reason, bool emitted = false) {
    for (auto& s : states_[index]) {
      s = batch_state{};
      s.k = kind::unknown;
      s.origin = index;
    }
    auto& u = unknown_[index];
    if (!u.first) u = {reason, emitted};
  }

  void set_all(std::size_t index, kind k) {
    for (auto& s : states_[index]) {
      s = batch_state{};
      s.k = k;
    }
  }

  /// A layer none of whose inputs holds per-sample data: its outputs are shared when the same at every
  /// sample batch, values computed from the batch size when only their values change, and undecided when
  /// their size follows the batch although they read no sample. A value computed from the batch size that
  /// the sample batches agree on is shared only when batch 1 and the batches asked agree too: the samples
  /// are odd primes above 1000, so `N == 1`, `N > 2` or `N % 2` is the same at all three.
  void by_value(std::size_t index, const std::vector<batch_state>& in) {
    const bool from_size = std::any_of(in.begin(), in.end(), [](const batch_state& s) { return s.is(kind::size_value); });
    for (std::size_t o = 0; o < states_[index].size(); ++o) {
      const auto& t0 = runs_.at_samples[0]->outputs[index][o];
      bool same_shape = true, same_value = known(t0.value);
      for (std::size_t k = 1; k < samples.size(); ++k) {
        const auto& t = runs_.at_samples[k]->outputs[index][o];
        same_shape = same_shape && to_string(without_symbols(t.shape)) == to_string(without_symbols(t0.shape));
        same_value = same_value && known(t.value) && *t.value == *t0.value;
      }
      auto& s = states_[index][o];
      s = batch_state{};
      if (!same_shape) {
        set_unknown(index, why::reads_no_sample);
        return;
      }
      // A shape the sample batches agree on but the batch asked does not (`w[:max(1, 3 - n // 500)]`: [1] at
      // the samples, [3] at 4): every rule after it would judge a broadcast or a length that is not the
      // one at the batch asked.
      if (to_string(without_symbols(target_.outputs[index][o].shape)) != to_string(without_symbols(t0.shape))) {
        set_unknown(index, because(why::shape_differs_at_asked, o));
        return;
      }
      if (same_value && !from_size) continue;
      const auto beyond = same_value ? agrees_beyond_samples(index, o, *t0.value) : agreement::differs;
      if (beyond == agreement::same) continue;
      s.k = kind::size_value;
      s.origin = index;
      // Known values that differ between the batches compared change with N; unknown ones may.
      s.varies = same_value ? beyond == agreement::differs : known(t0.value);
    }
  }

  /// A value every element of which is known exactly.
  static bool known(const std::optional<tensor_value>& v) {
    return v && (v->is_real() || std::all_of(v->elements.begin(), v->elements.end(), [](const element_bound& e) {
                   return e.exact();
                 }));
  }

  enum class agreement : std::uint8_t { same, differs, unknown };
  /// Whether output `o` of layer `index`, `v` at every sample batch, is `v` at batch 1 (each sample alone,
  /// the reference) and at each batch asked too. Proven by a run whose dynamic batch spans 1 and every batch
  /// asked and knows the value, or by a static batch asked whose value is batch 1's; refuted by any batch
  /// asked (the example batch, the samples when the asked interval holds them) whose value is not. A value
  /// the same alone and at the batch asked but another at the samples (`n > 1000`) differs: the layers after
  /// it are followed at the samples, where it would steer them otherwise than at the batch asked.
  agreement agrees_beyond_samples(std::size_t index, std::size_t o, const tensor_value& v) {
    const auto value_at = [&](const propagation* p) -> const std::optional<tensor_value>& {
      static const std::optional<tensor_value> none;
      return p == nullptr ? none : p->outputs[index][o].value;
    };
    if (const auto& c = value_at(runs_.covering); known(c)) return *c == v ? agreement::same : agreement::differs;
    if (alone() == nullptr) return agreement::unknown;
    const auto& reference = value_at(runs_.at_one);
    if (!known(reference)) return agreement::unknown;
    if (runs_.asked_static) {
      const auto& t = value_at(&target_);
      if (!known(t)) return agreement::unknown;
      return *t == *reference && *reference == v ? agreement::same : agreement::differs;
    }
    if (const auto& e = value_at(runs_.example); known(e) && *e != *reference) return agreement::differs;
    if (runs_.asked_holds_samples && v != *reference) return agreement::differs;
    return agreement::unknown;
  }

  /// The rule's batched outputs must be N·factor at their axis at every sample batch; shared ones must not
  /// change. A rule whose answer the shapes contradict decides nothing.
  /// The run at the batch asked must agree too, where its dimension is exact: the sample batches may take
  /// another path than the batch asked does (an If on `n < 5` runs one branch at 1009 and the other at 4).
  bool consistent(std::size_t index) const {
    const auto asked = asked_batch();
    for (std::size_t o = 0; o < states_[index].size(); ++o) {
      const auto& s = states_[index][o];
      if (!s.is(kind::batched) && !s.is(kind::shared)) continue;
      if (const auto& t = target_.outputs[index][o].shape;
          s.is(kind::batched) && asked && t.rank_known() && s.axis < t.size() && t[s.axis].is_static() &&
          (!asked->is_static() || t[s.axis].lo() != s.factor * asked->lo()))
        return false;
      for (std::size_t k = 0; k < samples.size(); ++k) {
        const auto& shape = runs_.at_samples[k]->outputs[index][o].shape;
        if (!shape.rank_known()) return false;
        if (s.is(kind::batched)) {
          if (s.axis >= shape.size() || !shape[s.axis].is_static() || shape[s.axis].lo() != s.factor * samples[k])
            return false;
        } else if (k > 0 && to_string(without_symbols(shape)) !=
                                to_string(without_symbols(runs_.at_samples[0]->outputs[index][o].shape))) {
          return false;
        }
      }
    }
    return true;
  }

  /// The batch asked: the requested size of the model's batched inputs' batch dimension (in the model's
  /// scope; a body has no inputs of its own to read it from).
  std::optional<dimension> asked_batch() const {
    if (inputs_ == nullptr) return std::nullopt;
    for (const auto& in : *inputs_)
      if (in.batch_index && in.requested.rank_known() && *in.batch_index < in.requested.size())
        return in.requested[*in.batch_index];
    return std::nullopt;
  }

  /// The reasons that name a value computed from the batch size (its path is quoted in the sentence).
  static bool from_batch_size(why code) noexcept {
    return code == why::size_value_as_data || code == why::branch_from_batch_size ||
           code == why::size_value_as_parameter || code == why::size_value_as_parameter_value;
  }

  /// A rule's faults become findings: on the layer itself, or on the Reshape that moved the batch to the
  /// axis the layer misuses.
  void report_faults(std::size_t index, const detail::batch_op& op) {
    const auto& l = layers_[index];
    for (auto x : op.faults) {
      const auto port = x.port.value_or(0);
      if (from_batch_size(x.reason.code))
        x.reason.quoted = text::value_path(size_value_path(l, port));
      const auto s = port < op.in.size() ? op.in[port] : batch_state{};
      if (x.issue == batch_issue::swallows_batch) {
        add_swallow(index, x.reason, text::sentence(x.reason), std::nullopt);
        continue;
      }
      if (s.moved_by != no_layer && s.moved_by != index) {
        add_swallow(s.moved_by, x.reason, text::then_at(l, text::sentence(x.reason)), l.id);
        misusers_.insert(index);
        continue;
      }
      if (finding_for(index, x.issue)) continue;
      auto f = finding(x.issue, l);
      set_message(f, x.reason);
      const bool from_size = from_batch_size(x.reason.code);
      f.hint = from_size ? text::size_value_hint() : text::rule_hint(x.issue, l);
      f.port = x.port;
      if (s.is(kind::batched)) f.axis = s.axis;
      found_.push_back(std::move(f));
    }
  }

  /// The layers a value computed from the batch size went through to input `port` of `l`, from the layer
  /// that read a shape (ShapeOf) to the one that feeds `l`; at most 8, the first and the last kept.
  std::vector<const layer*> size_value_path(const layer& l, std::size_t port) const {
    std::vector<const layer*> path;
    const layer* at = &l;
    std::size_t in = port;
    for (std::size_t steps = 0; steps < layers_.size() && in < at->sources.size() && at->sources[in]; ++steps) {
      const auto& src = *at->sources[in];
      const auto& from = layers_[src.layer];
      path.push_back(&from);
      // Follow the first input that holds a value computed from the batch size.
      std::optional<std::size_t> next;
      for (std::size_t p = 0; p < from.sources.size() && !next; ++p)
        if (from.sources[p] && states_[from.sources[p]->layer][from.sources[p]->output].is(kind::size_value)) next = p;
      if (!next) break;
      at = &from;
      in = *next;
    }
    std::reverse(path.begin(), path.end());
    if (path.size() > 8) path.erase(path.begin() + 4, path.end() - 4);
    return path;
  }

  /// Whether --assume-kept names the layer's op (by its type, or as the file names it).
  bool vouched_for(const layer& l) const {
    if (request_ == nullptr) return false;
    const auto& kept = request_->assume_kept;
    return std::find(kept.begin(), kept.end(), l.type) != kept.end() ||
           std::find(kept.begin(), kept.end(), l.op_type()) != kept.end();
  }

  /// --assume-kept: the caller vouches that the op keeps each sample apart, as an elementwise op does.
  static void assumed(detail::batch_op& o) {
    const batch_state* first = nullptr;
    for (const auto& s : o.in)
      if (s.is(kind::batched)) {
        if (first != nullptr && (s.axis != first->axis || s.factor != first->factor))
          return o.cannot_tell(because(why::assumed_axes_differ).quoting(detail::spell(detail::option::assume_kept)));
        first = &s;
      }
    if (first == nullptr) return o.cannot_tell(why::assumed_without_batch);
    for (std::size_t i = 0; i < o.out.size(); ++i) o.keep(i, *first, first->axis);
  }

  /// How every tensor holds the batch, layer by layer, from the inputs' batch axes (`given`: the states of
  /// a body's Parameters, by layer index).
  void follow_states(const std::vector<batch_state>* given) {
    states_.assign(layers_.size(), {});
    for (std::size_t i = 0; i < layers_.size(); ++i) states_[i].resize(layers_[i].outputs.size());
    for (const auto index : g_.order()) {
      const auto& l = layers_[index];
      if (part_of(l.type) == op_part::parameter) {
        seed_parameter(index, given);
        continue;
      }
      if (l.outputs.empty()) continue;  // a Result: the outputs are checked at the end
      auto in = states_of_inputs(l);
      // An If's branch that runs at none of the batches answered about has no findings (idle_layers): what
      // it would break must not break the If either. The If still answers for its condition.
      if (part_of(l.type) == op_part::if_merge && in.size() == 3)
        if (const auto taken = condition_everywhere(l)) in[*taken ? 2 : 1] = batch_state{};
      if (settled_by_inputs(index, in)) continue;
      const auto lost_why = lost_at_samples(index);
      const auto* entry = detail::find_entry(l.type, l.opset);
      if (std::any_of(in.begin(), in.end(), [](const batch_state& s) { return s.is(kind::folded); })) {
        follow_fold(index, in, entry, lost_why);
        continue;
      }
      if (lost_why && entry == nullptr) {
        set_unknown(index, *lost_why);
        continue;
      }
      const bool vouched = vouched_for(l);
      const bool data = std::any_of(in.begin(), in.end(), [](const batch_state& s) {
        return s.is(kind::batched) || s.is(kind::per_image);
      });
      if (!data && !vouched && (entry == nullptr || !entry->batch.spreads)) {
        by_value(index, in);
        continue;
      }
      if (entry == nullptr && !vouched) {
        set_unknown(index, because(why::no_rule, l.opset).quoting(std::string(l.type)));
        continue;
      }
      apply_rule(index, in, vouched ? nullptr : entry, lost_why);
    }
  }

  /// Whether input `port` of `l`, a value computed from the batch size that changes between the sample
  /// batches, is the same at batch 1 as at the batch asked: proven by a run whose dynamic batch spans 1 and
  /// every batch asked and knows it, or by its value at a static batch asked; refuted by that value, by a
  /// dynamic batch asked that holds the sample batches (they differ from each other), or by the example
  /// batch; otherwise unknown. Asks for the run at batch 1 when it has not been made (false until then).
  /// batch_op::alike_alone says where a rule may take it as shared.
  std::optional<bool> alike_alone(const layer& l, std::size_t port) {
    if (port >= l.sources.size() || !l.sources[port]) return false;
    const auto src = *l.sources[port];
    const auto value_at = [&](const propagation* run) -> const std::optional<tensor_value>& {
      static const std::optional<tensor_value> none;
      return run == nullptr ? none : run->outputs[src.layer][src.output].value;
    };
    if (known(value_at(runs_.covering))) return true;
    if (!runs_.asked_static && runs_.asked_holds_samples) return false;
    const auto* one = alone();
    if (one == nullptr) return false;  // the analysis runs again with batch 1
    const auto& reference = value_at(one);
    if (!known(reference)) return std::nullopt;
    if (runs_.asked_static) {
      const auto& asked = value_at(&target_);
      if (!known(asked)) return std::nullopt;
      return *asked == *reference;
    }
    if (const auto& e = value_at(runs_.example); known(e) && *e != *reference) return false;
    return std::nullopt;
  }

  /// A Parameter's state: the one a body's Parameter is given, or the model input's batch axis.
  void seed_parameter(std::size_t index, const std::vector<batch_state>* given) {
    if (states_[index].empty()) return;
    if (given != nullptr) {
      if (index < given->size()) states_[index][0] = (*given)[index];
    } else if (inputs_ != nullptr) {
      for (const auto& in : *inputs_)
        if (in.layer == index && in.batch_index) states_[index][0] = batch_state::batched_at(*in.batch_index, 1);
    }
  }

  /// Whether the inputs' states decide the layer's without its rule: all shared (the layer's stay
  /// shared), one broken or the layer failing (broken), one unknown (unknown likewise).
  bool settled_by_inputs(std::size_t index, const std::vector<batch_state>& in) {
    // A layer that fails is broken even when its inputs are shared (a Reshape of constants to a wrong
    // length): the layers after it have nothing to decide.
    if (finding_for(index, batch_issue::fails) || finding_for(index, batch_issue::fails_at_declared) ||
        std::any_of(in.begin(), in.end(), [](const batch_state& s) { return s.is(kind::broken); })) {
      set_all(index, kind::broken);
      return true;
    }
    if (std::all_of(in.begin(), in.end(), [](const batch_state& s) { return s.is(kind::shared); })) return true;
    if (const auto it = std::find_if(in.begin(), in.end(), [](const batch_state& s) { return s.is(kind::unknown); });
        it != in.end()) {
      for (auto& s : states_[index]) s = *it;
      return true;
    }
    return false;
  }

  /// Why the layer's output shapes are unknown at a sample batch, or nullopt when they are all known.
  std::optional<because> lost_at_samples(std::size_t index) const {
    bool lost = false;
    for (std::size_t k = 0; k < samples.size(); ++k)
      for (const auto& t : runs_.at_samples[k]->outputs[index]) lost = lost || !t.shape.rank_known();
    if (!lost) return std::nullopt;
    for (const auto& x : runs_.at_samples[0]->lost)
      if (x.layer == index) return because(why::rule_refused).quoting(x.message);
    return why::not_propagated_at_samples;
  }

  /// Runs the layer's batching rule (`entry`; null: the op is vouched for, kept as assume_kept says) and
  /// sets its outputs' states from the answer, a body's analysis included.
  void apply_rule(std::size_t index, const std::vector<batch_state>& in, const detail::rule_entry* entry,
                  const std::optional<because>& lost_why) {
    const auto& l = layers_[index];
    detail::batch_op op{g_, l, in, states_[index], runs_.at_samples, carriers_[index], {}, {}, {}, {}, {}, {}, {}};
    op.alike_alone = [this, &l](std::size_t port) { return alike_alone(l, port); };
    op.asked_like_samples = [this, &l](std::size_t port) {
      if (port >= l.sources.size() || !l.sources[port] || !runs_.analysed()) return false;
      const auto& asked = target_.outputs[l.sources[port]->layer][l.sources[port]->output].value;
      const auto& sample = runs_.at_samples[0]->outputs[l.sources[port]->layer][l.sources[port]->output].value;
      return known(asked) && known(sample) && *asked == *sample;
    };
    op.alike_value = [this, &l](std::size_t port) -> const tensor_value* {
      if (alike_alone(l, port) != true) return nullptr;
      const auto src = *l.sources[port];
      for (const auto* run : {runs_.covering, runs_.at_one})
        if (run != nullptr && known(run->outputs[src.layer][src.output].value))
          return &*run->outputs[src.layer][src.output].value;
      return nullptr;
    };
    if (l.body) {
      op.body = [this, index, &l](const std::vector<batch_state>& params)
          -> std::optional<std::vector<std::vector<batch_state>>> {
        const auto inner = runs_.body(index);
        if (!inner || !inner->analysed()) return std::nullopt;
        auto path = within_;
        path.push_back({l.id, std::string(l.name), std::string(l.type)});
        scope body(l.body->network, *inner, std::move(path), nullptr, request_);
        body.find_replaced();
        body.find_replaced_swallows();
        body.follow_states(&params);
        wants_one_ = wants_one_ || body.wants_one_;
        nested_[index] = body.findings();
        return std::move(body.states_);
      };
    }
    try {
      if (entry == nullptr)
        assumed(op);
      else
        entry->batch.fn(op);
    } catch (const error& e) {
      op.cannot_tell(because(why::rule_refused).quoting(e.what()));
    }
    if (runs_.asked_static) whole_at_the_batch_asked(index, op);
    if (op.faults.empty() && !lost_why && !l.body) alone_as_in_a_batch(index, in, op);
    if (!lost_why && folds(index, in, op)) return;
    if (!op.faults.empty()) {
      report_faults(index, op);
      set_all(index, kind::broken);
    } else if (lost_why) {
      // A rule may prove a fault without the output shapes (a Split of the batch into halves fails at
      // the odd sample batches); nothing else can be decided from them.
      set_unknown(index, *lost_why);
    } else if (op.undecided) {
      // A body that cannot tell has reported why inside it.
      const bool inside = op.undecided->code == why::body_cannot_tell || op.undecided->code == why::body_not_propagated;
      set_unknown(index, *op.undecided, nested_.contains(index) && inside);
    } else if (!consistent(index)) {
      set_unknown(index, why::answer_contradicted);
    }
  }

  /// A Reshape that interleaves samples (`[3,-1]` of `[N,3]`) changes no element and no order: whether the
  /// batch keeps its meaning depends on what reads the result. Its output becomes `folded` and the finding
  /// waits for a layer that is shown to misuse it (misuses_fold) or a model output that holds it; a Reshape
  /// back to a shape that holds the batch whole gives the batch back (follow_fold). A Reshape whose pattern
  /// writes the declared batch keeps its own finding (find_replaced_swallows).
  bool folds(std::size_t index, const std::vector<batch_state>& in, detail::batch_op& op) {
    const auto& l = layers_[index];
    if (part_of(l.type) != op_part::reshape || op.faults.size() != 1 || replaced_.contains(index) || in.empty() ||
        !in[0].is(kind::batched) || states_[index].size() != 1)
      return false;
    const auto& x = op.faults.front();
    if (x.issue != batch_issue::swallows_batch || x.reason.code != why::interleaves_samples) return false;
    auto s = in[0];
    s.k = kind::folded;
    s.origin = index;
    states_[index][0] = s;
    folds_.insert_or_assign(index, x.reason);
    return true;
  }

  /// A layer with a folded input (the samples interleaved by the Reshape `origin`). A Reshape, Squeeze or
  /// Convert keeps the elements in their order: where its output holds the batch whole again at every
  /// sample batch (the prefix before the batch is the folded input's), the batch is back as it was before
  /// the fold; otherwise it is still folded. An elementwise layer whose other inputs are one value each, or
  /// the same fold of the same shape, keeps it folded; ShapeOf reads only its shape. Any other layer reads
  /// the samples interleaved: where its own rule, run as if the folded axis held the batch, finds that it
  /// mixes or drops along it, the fold is a "no" named by that layer; otherwise it cannot tell.
  void follow_fold(std::size_t index, const std::vector<batch_state>& in, const detail::rule_entry* entry,
                   const std::optional<because>& lost_why) {
    const auto& l = layers_[index];
    const auto port = static_cast<std::size_t>(
        std::find_if(in.begin(), in.end(), [](const batch_state& s) { return s.is(kind::folded); }) - in.begin());
    const auto& fold = in[port];
    if (lost_why) return set_unknown(index, *lost_why);
    const auto part = part_of(l.type);
    const bool others_plain = std::all_of(in.begin(), in.end(), [&](const batch_state& s) {
      return &s == &fold || s.is(kind::shared) || s.is(kind::size_value);
    });
    if ((part == op_part::reshape || part == op_part::passes_values) && port == 0 && others_plain &&
        states_[index].size() == 1) {
      states_[index][0] = unfolded(index, fold);
      return;
    }
    if (entry != nullptr && entry->batch.fn == &detail::batch::shape_of) {
      states_[index].assign(states_[index].size(), batch_state{kind::size_value, 0, 1, true});
      return;
    }
    if (entry != nullptr && (entry->batch.fn == &detail::batch::pointwise || entry->batch.fn == &detail::batch::select ||
                            entry->batch.fn == &detail::batch::first_input) &&
        keeps_fold_elementwise(l, in, fold)) {
      states_[index].assign(states_[index].size(), fold);
      return;
    }
    const auto& c = input_carrier(l, port);
    if (entry != nullptr && !vouched_for(l) && !l.body && part != op_part::if_merge && c.state == batch_carrier::kind::one) {
      // The layer's own rule, as if the folded tensor held the batch at the axis that grows with N: along
      // that axis each line holds elements of several samples, so a layer that combines or drops along it
      // is shown to misuse the fold.
      auto pretend = in;
      pretend[port] = batch_state::batched_at(c.axis, c.factor);
      std::vector<batch_state> out(states_[index].size());
      detail::batch_op op{g_, l, pretend, out, runs_.at_samples, carriers_[index], {}, {}, {}, {}, {}, {}, {}};
      op.alike_alone = [](std::size_t) -> std::optional<bool> { return std::nullopt; };
      op.asked_like_samples = [](std::size_t) { return false; };
      try {
        entry->batch.fn(op);
      } catch (const error&) {
        op.faults.clear();
      }
      for (const auto& x : op.faults) {
        if (x.port.value_or(0) != port || x.issue == batch_issue::swallows_batch) continue;
        misuses_fold(fold.origin, index, text::then_at(l, text::joined(text::sentence(x.reason), text::reads_interleaved(port, c.axis))));
        set_all(index, kind::broken);
        return;
      }
    }
    set_unknown(index, because(why::reads_interleaved, port, fold.origin < layers_.size() ? layers_[fold.origin].id : -1)
                           .quoting(fold.origin < layers_.size() ? std::string(layers_[fold.origin].name) : std::string()));
  }

  /// Whether an elementwise layer keeps input `fold`'s order: every other input is one value at every sample
  /// batch (a scalar, or a tensor of ones' shape), or the same fold with the same shape.
  bool keeps_fold_elementwise(const layer& l, const std::vector<batch_state>& in, const batch_state& fold) const {
    for (std::size_t p = 0; p < in.size(); ++p) {
      const auto& s = in[p];
      if (&s == &fold) continue;
      for (std::size_t k = 0; k < samples.size(); ++k) {
        const auto& shape = runs_.at_samples[k]->input(g_, l, p).shape;
        if (!shape.rank_known()) return false;
        if (s.is(kind::folded)) {
          if (s.origin != fold.origin ||
              to_string(without_symbols(shape)) != to_string(without_symbols(runs_.at_samples[k]->input(g_, l, 0).shape)))
            return false;
          continue;
        }
        if (!s.is(kind::shared)) return false;
        if (!std::all_of(shape.begin(), shape.end(), [](const dimension& d) { return d.is_static() && d.lo() == 1; }))
          return false;
      }
    }
    // The folded inputs themselves must agree in shape with the output (no broadcast of a fold).
    for (std::size_t k = 0; k < samples.size(); ++k)
      for (std::size_t p = 0; p < in.size(); ++p) {
        if (!in[p].is(kind::folded)) continue;
        const auto& a = runs_.at_samples[k]->input(g_, l, p).shape;
        for (const auto& t : runs_.at_samples[k]->outputs[index_of(l)]) {
          if (!a.rank_known() || !t.shape.rank_known() || t.shape.size() < a.size()) return false;
          const auto extra = t.shape.size() - a.size();
          for (std::size_t d = 0; d < extra; ++d)
            if (!t.shape[d].is_static() || t.shape[d].lo() != 1) return false;
          for (std::size_t d = 0; d < a.size(); ++d)
            if (!a[d].is_static() || !t.shape[extra + d].is_static() || a[d].lo() != t.shape[extra + d].lo()) return false;
        }
      }
    return true;
  }

  /// The state of a Reshape's (Squeeze's, Convert's) output whose input is `fold`: the batch back whole
  /// when the output holds it in one dimension behind as many elements as the fold's own input held before
  /// it (as a Reshape straight from that input would), otherwise still folded.
  batch_state unfolded(std::size_t index, const batch_state& fold) const {
    const auto& c = carrier(index, 0);
    if (c.state != batch_carrier::kind::one || fold.origin >= layers_.size()) return fold;
    std::array<const partial_shape*, samples.size()> before{}, after{};
    for (std::size_t k = 0; k < samples.size(); ++k) {
      before[k] = &runs_.at_samples[k]->input(g_, layers_[fold.origin], 0).shape;
      after[k] = &runs_.at_samples[k]->outputs[index][0].shape;
      if (!after[k]->rank_known() ||
          std::any_of(after[k]->begin(), after[k]->end(), [](const dimension& d) { return !d.is_static(); }))
        return fold;
    }
    const auto in_prefix = detail::prefix_product(before, fold.axis);
    const auto out_prefix = detail::prefix_product(after, c.axis);
    if (!in_prefix || !out_prefix || *in_prefix != *out_prefix) return fold;
    batch_state before_fold = fold;
    before_fold.k = kind::batched;
    before_fold.origin = no_layer;
    return before_fold.regrouped(c.axis, c.factor, fold.origin);
  }

  /// Layer (or model output) `user` is shown to misuse the samples the Reshape `fold` interleaved: that
  /// Reshape swallows the batch, its finding naming both.
  void misuses_fold(std::size_t fold, std::size_t user, const std::string& what) {
    if (fold >= layers_.size()) return;
    const auto it = folds_.find(fold);
    if (it == folds_.end()) return;
    add_swallow(fold, it->second, text::joined(text::sentence(it->second), what), layers_[user].id);
    misusers_.insert(user);
  }

  /// A slice of the batch axis found to drop samples at the sample batches (above 1000) that keeps the
  /// whole axis at the batch asked (`x[:1000]` at batch 4) drops none there: not a "no". The layers after it
  /// see another shape at the sample batches than the batch would give them, so they cannot be followed.
  void whole_at_the_batch_asked(std::size_t index, detail::batch_op& op) const {
    const auto& l = layers_[index];
    const auto it = std::find_if(op.faults.begin(), op.faults.end(), [](const detail::batch_fault& f) {
      return f.issue == batch_issue::drops_samples && f.reason.code == why::slices_batch;
    });
    if (it == op.faults.end() || l.outputs.empty() || op.faults.size() != 1) return;
    const auto port = it->port.value_or(0);
    const auto axis = static_cast<std::size_t>(it->reason.numbers[1]);
    if (port >= l.inputs.size()) return;
    const auto& in = target_.input(g_, l, port).shape;
    const auto& out = target_.outputs[index][0].shape;
    if (!in.rank_known() || !out.rank_known() || in.size() != out.size() || axis >= in.size() ||
        !in[axis].is_static() || !out[axis].is_static() || in[axis].lo() != out[axis].lo())
      return;
    op.faults.clear();
    op.cannot_tell(because(why::slice_whole_at_asked, port, axis));
  }

  /// What to do about a layer that cannot tell: where the reason is a shape the model's other dynamic
  /// dimensions leave unknown, give them sizes (--shape); where the op is already vouched for, nothing more
  /// to vouch; otherwise vouch for the op if it keeps samples apart.
  std::string undecided_hint(const layer& l, const because& reason) const {
    switch (reason.code) {
      case why::output_dimensions_unknown:
      case why::prefix_not_static:
      case why::dimension_before_batch_may_be_1:
      case why::data_rank_unknown:
      case why::output_rank_unknown:
      case why::an_input_rank_unknown:
      case why::input_rank_unknown:
      case why::ranks_unknown:
      case why::not_propagated_at_samples:
        if (inputs_ != nullptr) {
          if (auto hint = text::dynamic_dims_hint(*inputs_); !hint.empty()) return hint;
        }
        break;
      case why::assumed_axes_differ:
      case why::assumed_without_batch: return {};  // vouched for already: the sentence says why it is not enough
      case why::slice_whole_at_asked: return text::slice_whole_at_asked_hint();
      case why::reads_interleaved: return text::reads_interleaved_hint(reason.quoted, reason.numbers[1]);
      default: break;
    }
    // An ONNX node reshape1 does not translate has no output shapes: vouching for it would not give them.
    if (g_.format() == model_format::onnx && l.find("not_covered") != nullptr) return text::not_covered_hint(l);
    return text::rule_hint(batch_issue::cannot_tell, l);
  }

  /// The run at batch 1, each sample alone; null when it has not been made yet, and then the scope is
  /// asked to run again with it (it is made only when a value computed from the batch size needs it).
  const propagation* alone() {
    if (runs_.at_one == nullptr) wants_one_ = true;
    return runs_.at_one;
  }

  /// A layer that reads a value computed from the batch size as a parameter (a Slice's start or end, a
  /// Gather's indices, TopK's k, a Resize's scale, an Expand's shape): the sample batches show it there,
  /// not at batch 1, where each sample is alone (`k = min(n, 3)` is 3 at every sample batch). Decided
  /// layers: each output's shape at batch 1 must be one sample's share of the batched one (or the same,
  /// for a shared output). Every such layer: no element of the parameter that is not the batch itself may
  /// differ between batch 1 and the batches compared. Where either fails, the parameter makes each
  /// sample's result depend on the batch: the layer mixes samples.
  void alone_as_in_a_batch(std::size_t index, const std::vector<batch_state>& in, detail::batch_op& op) {
    const auto port = std::find_if(in.begin(), in.end(), [](const batch_state& s) { return s.is(kind::size_value); });
    if (port == in.end() || alone() == nullptr) return;
    if (!op.undecided) {
      if (const auto p = static_cast<std::size_t>(port - in.begin()); !shares_alone(index)) {
        op.mixes(p, {why::size_value_as_parameter, p});
        return;
      }
    }
    for (std::size_t p = 0; p < in.size(); ++p) {
      // Data the same alone as at every batch asked gives each sample what it gets alone there, whatever the
      // samples read; a parameter so does not (batch_op::alike_data).
      const bool alike_data = std::find(op.alike_data.begin(), op.alike_data.end(), p) != op.alike_data.end();
      if (!in[p].is(kind::size_value) || alike_data) continue;
      const auto picks = picks_otherwise_alone(layers_[index], p);
      if (picks == true) {
        op.mixes(p, {why::size_value_as_parameter_value, p});
        return;
      }
      if (!picks) op.cannot_tell({why::size_value_parameter_unproven, p});
    }
  }

  /// Whether each output of layer `index` at batch 1 is one sample's share of its batched shape at the
  /// sample batches (the same shape, for a shared output).
  bool shares_alone(std::size_t index) const {
    for (std::size_t o = 0; o < states_[index].size(); ++o) {
      const auto& s = states_[index][o];
      if (!s.is(kind::batched) && !s.is(kind::shared)) continue;
      const auto& alone = runs_.at_one->outputs[index][o].shape;
      const auto& sample = runs_.at_samples[0]->outputs[index][o].shape;
      if (!alone.rank_known() || !sample.rank_known()) continue;
      std::vector<dimension> share(sample.begin(), sample.end());
      if (s.is(kind::batched)) {
        if (s.axis >= share.size()) continue;
        share[s.axis] = dimension(s.factor);
      }
      if (to_string(without_symbols(alone)) != to_string(without_symbols(partial_shape(std::move(share))))) return false;
    }
    return true;
  }

  /// Whether input `port` of `l`, a parameter computed from the batch size, has an element that is not
  /// the batch itself (the sample batches agree on it) and is another at batch 1 than at a batch compared
  /// (a sample batch, the batch asked, the example batch): `start = min(n - 1, 2)` is 2 in every batch and
  /// 0 alone; `index = n % 2` is 1 at the samples and alone but 0 at batch 4. It picks other values for a
  /// sample alone than for the same sample in a batch, whatever the output's shape. At a dynamic batch asked
  /// the run there must know each such element exactly (then it is the same at every batch asked): the
  /// samples, batch 1 and the example batch cannot show `n == 4` in `1..8`; nullopt when it does not.
  std::optional<bool> picks_otherwise_alone(const layer& l, std::size_t port) const {
    const auto& alone = runs_.at_one->input(g_, l, port).value;
    if (!known(alone) || alone->is_real()) return false;
    const auto elements_of = [&](const propagation* run) -> const std::vector<element_bound>* {
      if (run == nullptr) return nullptr;
      const auto& v = run->input(g_, l, port).value;
      if (!known(v) || v->is_real() || v->elements.size() != alone->elements.size()) return nullptr;
      return &v->elements;
    };
    std::array<const std::vector<element_bound>*, samples.size()> at{};
    for (std::size_t k = 0; k < samples.size(); ++k)
      if ((at[k] = elements_of(runs_.at_samples[k])) == nullptr) return false;
    const auto* asked = elements_of(runs_.asked_static ? &target_ : nullptr);
    const auto* example = elements_of(runs_.example);
    const auto& over = target_.input(g_, l, port).value;  // over every batch asked, for a dynamic one
    const bool over_fits = over && !over->is_real() && over->elements.size() == alone->elements.size();
    bool unproven = false;
    for (std::size_t e = 0; e < alone->elements.size(); ++e) {
      const auto v = (*at[0])[e].lo;
      if (std::any_of(at.begin(), at.end(), [&](const auto* x) { return (*x)[e].lo != v; })) continue;  // the batch
      const auto one = alone->elements[e].lo;
      if (v != one || (asked != nullptr && (*asked)[e].lo != one) || (example != nullptr && (*example)[e].lo != one))
        return true;
      if (!runs_.asked_static) {
        if (!over_fits || !over->elements[e].exact()) unproven = true;
        else if (over->elements[e].lo != one) return true;
      }
    }
    if (unproven) return std::nullopt;
    return false;
  }

  /// The batch axis of a model output: its layout's N, otherwise dimension 0; none for a scalar.
  std::optional<std::size_t> output_axis(const layer& result) const {
    const auto& shape = runs_.at_samples[0]->input(g_, result, 0).shape;
    const auto rank = shape.rank_known() ? std::optional(shape.size()) : std::nullopt;
    if (!result.inputs.empty() && !result.inputs[0].layout.empty()) {
      try {
        return batch_index_of(result.inputs[0].layout, rank);
      } catch (const error&) {
        // A layout that does not fit: dimension 0, as for an output without one.
      }
    }
    if (rank && *rank == 0) return std::nullopt;
    return 0;
  }

  /// Each model output must hold the batch at its batch axis, or be shared by all samples.
  void check_outputs() {
    for (const auto index : g_.order()) {
      const auto& l = layers_[index];
      if (part_of(l.type) != op_part::result || l.sources.empty() || !l.sources[0]) continue;
      const auto& s = states_[l.sources[0]->layer][l.sources[0]->output];
      const auto axis = output_axis(l);
      switch (s.k) {
        case kind::shared:
        case kind::broken: break;
        case kind::batched: {
          if (axis && *axis == s.axis) break;
          const auto reason = because(why::output_batch_elsewhere, l.id, s.axis, s.factor,
                                      axis ? static_cast<std::int64_t>(*axis) : -1)
                                  .quoting(std::string(l.name));
          const auto what = text::sentence(reason);
          if (s.moved_by != no_layer) {
            add_swallow(s.moved_by, reason, what, l.id);
            misusers_.insert(index);
          } else {
            auto f = finding(batch_issue::loses_batch, l);
            set_reason(f, reason);
            f.what = what;
            f.hint = text::output_batch_elsewhere_hint();
            f.axis = s.axis;
            found_.push_back(std::move(f));
          }
          break;
        }
        case kind::size_value: {
          auto f = finding(s.varies ? batch_issue::loses_batch : batch_issue::cannot_tell, l);
          set_message(f, because(s.varies ? why::output_size_value_varies : why::output_size_value, l.id)
                             .quoting(std::string(l.name)));
          f.hint = text::output_size_value_hint();
          found_.push_back(std::move(f));
          break;
        }
        case kind::folded:
          misuses_fold(s.origin, index, text::sentence(because(why::output_interleaved, l.id).quoting(std::string(l.name))));
          break;
        case kind::per_image: {
          if (s.origin == no_layer || finding_for(s.origin, batch_issue::scales_with_batch)) break;
          const auto& o = layers_[s.origin];
          auto f = finding(batch_issue::scales_with_batch, o);
          set_message(f, because(why::output_per_image, l.id).quoting(std::string(l.name)));
          f.used_by_id = l.id;
          found_.push_back(std::move(f));
          break;
        }
        case kind::unknown: {
          const auto origin = s.origin;
          auto it = unknown_.find(origin);
          if (origin == no_layer || it == unknown_.end() || it->second.second) break;
          it->second.second = true;
          // One layer, one finding: a Reshape already found to swallow the batch is not also undecided.
          if (finding_for(origin, batch_issue::swallows_batch) || finding_for(origin, batch_issue::mixes_samples) ||
              finding_for(origin, batch_issue::drops_samples))
            break;
          auto f = finding(batch_issue::cannot_tell, layers_[origin]);
          set_message(f, *it->second.first);
          f.used_by_id = l.id;
          f.hint = undecided_hint(layers_[origin], *it->second.first);
          found_.push_back(std::move(f));
          break;
        }
      }
    }
  }

  /// The bodies the batch analysis did not enter (their TensorIterator or Loop fails, or reads no
  /// batch): their Reshapes that hard-code the batch are still reported.
  void replaced_in_bodies() {
    for (const auto index : g_.order()) {
      const auto& l = layers_[index];
      if (!l.body || nested_.contains(index)) continue;
      const auto inner = runs_.body(index);
      if (!inner || !inner->analysed()) continue;
      auto path = within_;
      path.push_back({l.id, std::string(l.name), std::string(l.type)});
      scope body(l.body->network, *inner, std::move(path), nullptr, request_);
      body.find_replaced();
      body.find_replaced_swallows();
      body.replaced_in_bodies();
      nested_[index] = body.findings();
    }
  }

  /// The findings of a body, its nested bodies' after their layers. A layer that runs at none of the
  /// batches the answer is about has none (idle_layers).
  std::vector<batch_finding> findings() const {
    const auto idle = idle_layers();
    std::vector<batch_finding> out;
    for (const auto index : g_.order()) {
      if (idle[index] != 0) continue;
      for (const auto& f : found_)
        if (f.layer == index) out.push_back(f);
      if (const auto it = nested_.find(index); it != nested_.end()) out.insert(out.end(), it->second.begin(), it->second.end());
    }
    return out;
  }

  /// The condition of IfMerge `l` when it is known and the same at the batch asked and at every sample
  /// batch: the branch taken at all of them.
  std::optional<bool> condition_everywhere(const layer& l) const {
    if (l.sources.empty() || !l.sources[0]) return std::nullopt;
    const auto s = *l.sources[0];
    std::vector<const propagation*> at{&target_};
    if (runs_.analysed()) at.insert(at.end(), runs_.at_samples.begin(), runs_.at_samples.end());
    std::optional<bool> taken;
    for (const auto* p : at) {
      const auto v = detail::exact_values(p->outputs[s.layer][s.output].value);
      if (!v || v->size() != 1 || (taken && *taken != ((*v)[0] != 0))) return std::nullopt;
      taken = (*v)[0] != 0;
    }
    return taken;
  }

  /// Per layer, whether it runs at none of the batches the answer is about: it reaches the outputs only
  /// through an If's branch whose condition chooses the other one at the batch asked and at every sample
  /// batch (`x.view(1, -1) if n == 1 else x.view(n, -1)`: the first branch runs alone only, where writing
  /// 1 is right). Batch 1 is the reference each sample is compared with, not a batch answered about. A
  /// layer that reaches no output at all is not idle: what it does is reported as before.
  std::vector<char> idle_layers() const {
    const auto reach = [&](bool honour_conditions) {
      std::vector<char> live(layers_.size(), 0);
      const auto order = g_.order();
      for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const auto& l = layers_[*it];
        if (part_of(l.type) == op_part::result) live[*it] = 1;
        if (live[*it] == 0) continue;
        const auto taken = honour_conditions && part_of(l.type) == op_part::if_merge && l.sources.size() == 3
                               ? condition_everywhere(l)
                               : std::nullopt;
        for (std::size_t i = 0; i < l.sources.size(); ++i)
          if (l.sources[i] && (!taken || i == 0 || i == (*taken ? 1u : 2u))) live[l.sources[i]->layer] = 1;
      }
      return live;
    };
    if (std::none_of(layers_.begin(), layers_.end(), [](const layer& l) { return part_of(l.type) == op_part::if_merge; }))
      return std::vector<char>(layers_.size(), 0);
    const auto any = reach(false);
    const auto taken = reach(true);
    std::vector<char> idle(layers_.size(), 0);
    for (std::size_t i = 0; i < idle.size(); ++i) idle[i] = any[i] != 0 && taken[i] == 0 ? 1 : 0;
    return idle;
  }

  /// A layer that fails downstream of a Reshape already reported: name it as the cause.
  void explain_failures() {
    for (auto& f : found_) {
      if (f.issue != batch_issue::fails || f.cause_id || replaced_.contains(f.layer)) continue;
      std::deque<std::size_t> queue{f.layer};
      std::set<std::size_t> seen{f.layer};
      while (!queue.empty() && !f.cause_id) {
        const auto& l = layers_[queue.front()];
        queue.pop_front();
        for (const auto& s : l.sources) {
          if (!s || !seen.insert(s->layer).second) continue;
          const auto& src = layers_[s->layer];
          if (part_of(src.type) == op_part::reshape && (replaced_.contains(s->layer) ||
                                        std::any_of(found_.begin(), found_.end(), [&](const auto& x) {
                                          return x.layer == s->layer && x.issue == batch_issue::swallows_batch;
                                        }))) {
            f.cause_id = src.id;
            const auto it = replaced_.find(s->layer);
            const auto replaced =
                it != replaced_.end() ? std::optional(std::pair(it->second.value, it->second.index)) : std::nullopt;
            f.what = text::joined(f.what, text::upstream_reshape(src, replaced));
            if (it != replaced_.end()) f.hint = text::in_reshape(src, it->second.hint);
            break;
          }
          queue.push_back(s->layer);
        }
      }
    }
  }

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
  std::map<std::size_t, std::pair<std::optional<because>, bool>> unknown_;  ///< why a layer cannot tell; reported yet
  std::map<std::size_t, std::vector<batch_finding>> nested_;     ///< the findings of each analysed body
};

/// A batch index taken as dimension 0 for want of a layout is likely wrong when that dimension holds
/// another size than the other inputs' batches (license-plate-recognition-barrier-0001's `seq_ind [88,1]`
/// beside `data [1,3,24,94]`): every finding such an input reaches says so, and how to set it.
void hint_guessed_batches(const graph& g, batch_report& report) {
  std::map<std::int64_t, std::size_t> sizes;  // the inputs' declared batch sizes, and how many have each
  for (const auto& in : report.inputs)
    if (in.batch_index && in.declared.rank_known() && in.declared[*in.batch_index].is_static())
      ++sizes[in.declared[*in.batch_index].lo()];
  if (sizes.size() < 2) return;
  const auto common = std::max_element(sizes.begin(), sizes.end(), [](const auto& a, const auto& b) {
                        return a.second < b.second;
                      })->first;
  const auto layers = g.layers();
  for (const auto& in : report.inputs) {
    if (in.source != batch_source::first_dimension || !in.declared.rank_known() ||
        in.declared[*in.batch_index].lo() == common)
      continue;
    // Where the batch may be instead: the one dimension that holds the other inputs' batch size.
    std::optional<std::size_t> elsewhere;
    for (std::size_t k = 0; k < in.declared.size(); ++k)
      if (in.declared[k].is_static() && in.declared[k].lo() == common) elsewhere = elsewhere ? std::nullopt : std::optional(k);
    const auto hint = text::guessed_batch_hint(in, common, elsewhere);
    std::vector<char> reached(layers.size(), 0);
    reached[in.layer] = 1;
    for (const auto i : g.order())
      for (const auto& src : layers[i].sources)
        if (src && reached[src->layer]) reached[i] = 1;
    for (auto& f : report.findings)
      if (f.within.empty() && f.layer < reached.size() && reached[f.layer] &&
          f.issue != batch_issue::scales_with_batch)
        f.hint = f.hint.empty() ? hint : text::joined(hint, f.hint);
  }
}

/// A batch to try besides the target when the requested batch is dynamic, where a hard-coded batch fails:
/// 2 (3 when the model is declared at 2), within the requested interval; nullopt when none fits.
std::optional<std::int64_t> example_batch(const std::vector<input_report>& inputs) {
  for (const auto& in : inputs) {
    if (!in.batch_index || !in.requested.rank_known()) continue;
    const auto& d = in.requested[*in.batch_index];
    if (d.is_static()) continue;
    const auto declared_batch = in.declared.rank_known() && *in.batch_index < in.declared.size() &&
                                        in.declared[*in.batch_index].is_static()
                                    ? std::optional(in.declared[*in.batch_index].lo())
                                    : std::nullopt;
    std::int64_t w = std::max<std::int64_t>(d.lo(), 2);
    if (declared_batch && w == *declared_batch) ++w;
    if (!d.range().contains(w)) w = std::max<std::int64_t>(d.lo(), 1);
    if (!d.range().contains(w) || (declared_batch && w == *declared_batch)) continue;
    return w;
  }
  return std::nullopt;
}

/// The notes about the inputs: a shape of another rank (allowed, as OpenVINO takes it, but rarely meant:
/// the layers after the input were built for its rank), and an ONNX input whose static batch ONNX
/// Runtime will not let change.
void input_notes(const graph& g, batch_report& report) {
  for (const auto& in : report.inputs)
    if (in.requested.rank_known() && in.declared.rank_known() && in.requested.size() != in.declared.size())
      report.notes.push_back(text::other_rank_note(in));
  if (g.format() != model_format::onnx) return;
  for (const auto& in : report.inputs) {
    if (!in.batch_index || !in.declared.rank_known() || *in.batch_index >= in.declared.size()) continue;
    const auto& was = in.declared[*in.batch_index];
    const auto& now = in.requested[*in.batch_index];
    if (!was.is_static() || (now.is_static() && now.lo() == was.lo())) continue;
    report.notes.push_back(text::onnx_static_batch_note(in, *in.batch_index, was.lo()));
  }
}

/// Each model output at the declared and the target shapes, and how it holds the batch.
void output_reports(const graph& g, const propagation& declared, const propagation& target, batch_report& report) {
  for (const auto index : g.order()) {
    const auto& l = g.layers()[index];
    if (part_of(l.type) != op_part::result || l.sources.empty() || !l.sources[0]) continue;
    output_report out;
    out.layer = index;
    out.id = l.id;
    out.name = l.name;
    out.declared = without_symbols(declared.input(g, l, 0).shape);
    out.reshaped = target.input(g, l, 0).shape;
    const auto& src = *l.sources[0];
    if (src.layer < report.carriers.size() && src.output < report.carriers[src.layer].size())
      out.batch = report.carriers[src.layer][src.output];
    report.outputs.push_back(std::move(out));
  }
}

void count_findings(batch_report& report) {
  for (const auto& f : report.findings) {
    switch (f.issue) {
      case batch_issue::fails: ++report.summary.fails; break;
      case batch_issue::swallows_batch: ++report.summary.swallows_batch; break;
      case batch_issue::scales_with_batch: ++report.summary.scales_with_batch; break;
      case batch_issue::mixes_samples: ++report.summary.mixes_samples; break;
      case batch_issue::drops_samples: ++report.summary.drops_samples; break;
      case batch_issue::loses_batch: ++report.summary.loses_batch; break;
      case batch_issue::cannot_tell: ++report.summary.cannot_tell; break;
      case batch_issue::fails_at_declared: break;  // counted as failing_at_declared
    }
  }
}

/// Run k of `runs` at `given`: made afresh, or, with `undo` (runs are those of a graph g is an edit of, at the
/// same shapes), made g's in place.
const propagation& run_at(const graph& g, detail::batch_runs& runs, std::size_t k, std::span<const input_shape> given,
                          std::span<const char> redo, detail::batch_undo* undo) {
  auto& slot = runs.runs[k];
  if (undo != nullptr && slot) {
    detail::propagate_in_place(g, given, *slot, redo, undo->logs[k]);
    undo->in_place[k] = true;
  } else {
    if (undo != nullptr && !undo->replaced[k]) {
      undo->before[k] = std::move(slot);
      undo->replaced[k] = true;
    }
    slot = propagate(g, given);
  }
  return *slot;
}

/// The model: its inputs, the propagations at the declared shapes, the new ones, an example batch (for a
/// dynamic one) and the samples (kept in `keep`; made in place with `undo`), then the scopes.
batch_report analyse(const graph& g, const reshape_request& request, detail::batch_runs& keep,
                     std::span<const char> redo, detail::batch_undo* undo) {
  batch_report report;
  report.inputs = choose_inputs(g, request);
  const auto& inputs = report.inputs;
  report.target = text::target(request.batch);
  const bool any_batch = std::any_of(inputs.begin(), inputs.end(), [](const auto& in) { return in.batch_index; });
  auto requested = shapes_at(inputs, std::nullopt);
  const auto example = example_batch(inputs);
  if (undo != nullptr) {
    // The runs are reused only at the shapes they were made at (an edit leaves the Parameters alone).
    const bool same = keep.requested.size() == requested.size() && keep.example_batch == example &&
                      std::equal(requested.begin(), requested.end(), keep.requested.begin(),
                                 [](const input_shape& a, const input_shape& b) { return a.layer == b.layer && a.shape == b.shape; });
    undo->analysed = true;
    undo->requested = std::exchange(keep.requested, requested);
    undo->example_batch = std::exchange(keep.example_batch, example);
    if (!same) {
      for (std::size_t k = 1; k < keep.runs.size(); ++k) {
        undo->before[k] = std::exchange(keep.runs[k], std::nullopt);
        undo->replaced[k] = true;
      }
    }
  } else {
    keep.requested = requested;
    keep.example_batch = example;
  }
  const auto run = [&](std::size_t k, std::span<const input_shape> given) -> const propagation& {
    return run_at(g, keep, k, given, redo, undo);
  };
  if (undo != nullptr ? !(undo->in_place[0] || undo->replaced[0]) : !keep.runs[0]) run(0, {});
  const auto& declared = *keep.runs[0];
  const auto& target = run(1, requested);
  // Whether there is anything to analyse: a new shape, a batch that is not one known value (a model
  // declared with a dynamic batch may still hard-code it), or a batch of several samples even where the model
  // is declared at it (each sample's result is compared with the sample alone, at batch 1, whatever the
  // declared batch: `n == 1` read as data is wrong at a declared batch of 2 too).
  const bool changed = std::any_of(inputs.begin(), inputs.end(), [](const auto& in) {
    return to_string(without_symbols(in.requested)) != to_string(without_symbols(in.declared)) ||
           (in.batch_index && (!in.requested[*in.batch_index].is_static() || in.requested[*in.batch_index].lo() != 1));
  });
  runs r{&declared, &target, example ? &run(2, shapes_at(inputs, example)) : nullptr, {}};
  // At batch 1 every sample is alone: nothing can mix, drop or swallow it, and only a layer that fails
  // there is a finding (a pattern that hard-codes 1 is right at 1, whatever the declared batch).
  const bool one_sample = std::all_of(inputs.begin(), inputs.end(), [](const input_report& in) {
    return !in.batch_index || (in.requested.rank_known() && *in.batch_index < in.requested.size() &&
                               in.requested[*in.batch_index].is_static() && in.requested[*in.batch_index].lo() == 1);
  });
  const bool analysed = any_batch && changed && !one_sample;
  if (analysed) {
    for (std::size_t k = 0; k < samples.size(); ++k) r.at_samples[k] = &run(3 + k, shapes_at(inputs, samples[k]));
    const auto batches = [&](auto shape_of) {
      std::vector<interval> b;
      for (const auto& in : inputs)
        if (in.batch_index) {
          const partial_shape& s = shape_of(in);
          b.push_back(s.rank_known() && *in.batch_index < s.size() ? s[*in.batch_index].range() : interval{});
        }
      return b;
    };
    const auto declared_at = batches([](const input_report& in) -> const partial_shape& { return in.declared; });
    const auto asked = batches([](const input_report& in) -> const partial_shape& { return in.requested; });
    const auto all = [](const std::vector<interval>& b, auto pred) { return std::all_of(b.begin(), b.end(), pred); };
    // The declared run stands for a batch asked about only where the declared shapes are the requested ones
    // but for the batch (a --shape may change other dimensions too).
    const bool declared_alike = std::all_of(inputs.begin(), inputs.end(), [](const input_report& in) {
      if (!in.declared.rank_known() || !in.requested.rank_known() || in.declared.size() != in.requested.size())
        return false;
      for (std::size_t d = 0; d < in.declared.size(); ++d)
        if ((!in.batch_index || d != *in.batch_index) && !(without_symbols(partial_shape{in.declared[d]}) ==
                                                           without_symbols(partial_shape{in.requested[d]})))
          return false;
      return true;
    });
    if (declared_alike && all(declared_at, [](const interval& i) { return i.lo() == 1 && i.hi() == 1; }))
      r.at_one = &declared;
    else if (all(asked, [](const interval& i) { return i.lo() == 1 && i.hi() == 1; })) r.at_one = &target;
    r.asked_static = all(asked, [](const interval& i) { return i.lo() == i.hi(); });
    r.asked_holds_samples = all(asked, [](const interval& i) {
      return std::all_of(samples.begin(), samples.end(), [&](std::int64_t n) { return i.contains(n); });
    });
    if (all(asked, [](const interval& i) { return i.lo() != i.hi() && i.contains(1); })) r.covering = &target;
    bool declared_covers = true;
    for (std::size_t k = 0; k < asked.size(); ++k)
      declared_covers = declared_covers && declared_at[k].lo() != declared_at[k].hi() && declared_at[k].contains(1) &&
                        declared_at[k].lo() <= asked[k].lo() && asked[k].hi() <= declared_at[k].hi();
    if (declared_alike && declared_covers && r.covering == nullptr) r.covering = &declared;
  }
  std::optional<scope> top;
  top.emplace(g, r, std::vector<enclosing_layer>{}, &report.inputs, &request);
  report.findings = top->run(text::failing_at(request.batch), example, report.summary.failing_at_declared);
  if (top->wants_one()) {
    // A value computed from the batch size that the samples agree on: compare it with batch 1, then analyse
    // again with that run.
    r.at_one = &run(6, shapes_at(inputs, 1));
    report.summary.failing_at_declared = 0;
    top.emplace(g, r, std::vector<enclosing_layer>{}, &report.inputs, &request);
    report.findings = top->run(text::failing_at(request.batch), example, report.summary.failing_at_declared);
  } else if (keep.runs[6]) {
    // Not made for this graph: a later analysis in place must not take it for this graph's run.
    if (undo != nullptr && !undo->replaced[6]) {
      undo->before[6] = std::move(keep.runs[6]);
      undo->replaced[6] = true;
    }
    keep.runs[6].reset();
  }
  report.carriers = std::move(*top).carriers();
  hint_guessed_batches(g, report);
  output_reports(g, declared, target, report);
  input_notes(g, report);
  count_findings(report);
  return report;
}

}  // namespace

namespace detail {
std::vector<char> downstream_of(const graph& g, const std::vector<char>& marked) {
  const auto layers = g.layers();
  std::vector<char> after(layers.size(), 0);
  for (const auto i : g.order())
    for (const auto& src : layers[i].sources)
      if (src && (after[src->layer] || marked[src->layer])) after[i] = 1;
  return after;
}

namespace {
/// Whether a rule reads the same of `a` as of `b`: the same attributes, sources and body. (A Const's
/// bytes are where its offset and size attributes say; the bytes appended for the rewrites kept so far
/// keep their places in every trial, so the same attributes mean the same bytes.)
bool same_layer(const layer& a, const layer& b) {
  const auto same_attributes =
      (a.attributes.data() == b.attributes.data() && a.attributes.size() == b.attributes.size()) ||
      std::equal(a.attributes.begin(), a.attributes.end(), b.attributes.begin(), b.attributes.end(),
                 [](const attribute& x, const attribute& y) { return x.name == y.name && x.text == y.text; });
  // Ports are never edited: a layer whose ports are other views is taken as changed.
  const auto same_ports = a.inputs.data() == b.inputs.data() && a.inputs.size() == b.inputs.size() &&
                          a.outputs.data() == b.outputs.data() && a.outputs.size() == b.outputs.size();
  // An edit inside a body gives the layer that holds it a new body.
  return same_attributes && same_ports && a.id == b.id && a.type == b.type && a.opset == b.opset && a.body == b.body &&
         std::equal(a.sources.begin(), a.sources.end(), b.sources.begin(), b.sources.end(),
                    [](const std::optional<source>& x, const std::optional<source>& y) {
                      return x.has_value() == y.has_value() && (!x || (x->layer == y->layer && x->output == y->output));
                    });
}

}  // namespace

std::vector<char> layers_to_redo(const graph& before, const graph& after) {
  const auto a = before.layers(), b = after.layers();
  std::vector<char> changed(b.size(), 0);
  for (std::size_t i = 0; i < b.size(); ++i) changed[i] = i >= a.size() || !same_layer(a[i], b[i]);
  auto redo = downstream_of(after, changed);
  for (std::size_t i = 0; i < b.size(); ++i)
    redo[i] = changed[i] ? redo_always : redo[i] ? redo_if_inputs_changed : char{0};
  return redo;
}

element_origin origin_of_element(const graph& g, const propagation& p, const layer& l, std::size_t port,
                                 std::size_t index) {
  element_origin o;
  const layer* at = &l;
  std::size_t in = port;
  for (int depth = 0; depth < 64; ++depth) {
    if (in >= at->sources.size() || !at->sources[in]) return o;
    const auto& src = g.layers()[at->sources[in]->layer];
    o.holder = &src;
    o.index = index;
    o.consumer = at;
    o.consumer_port = in;
    if (part_of(src.type) == op_part::constant) return o;
    if (part_of(src.type) == op_part::concat) {
      bool found = false;
      for (std::size_t j = 0; j < src.inputs.size() && !found; ++j) {
        const auto& s = p.input(g, src, j).shape;
        if (!s.rank_known() || s.size() != 1 || !s[0].is_static()) return o;
        const auto length = static_cast<std::size_t>(s[0].lo());
        if (index < length) {
          o.through = &src;
          o.path.push_back(&src);
          at = &src;
          in = j;
          found = true;
        } else {
          index -= length;
        }
      }
      if (!found) return o;
      continue;
    }
    if (part_of(src.type) == op_part::passes_values) {
      o.path.push_back(&src);
      at = &src;
      in = 0;
      continue;
    }
    return o;
  }
  return o;
}

}  // namespace detail

std::string_view name(batch_source s) noexcept {
  switch (s) {
    case batch_source::layout_option: return "layout_option";
    case batch_source::layout_in_model: return "layout_in_model";
    case batch_source::first_dimension: return "first_dimension";
    case batch_source::none: return "none";
  }
  return "none";
}

std::string_view name(batch_issue i) noexcept {
  switch (i) {
    case batch_issue::fails: return "fails";
    case batch_issue::swallows_batch: return "swallows_batch";
    case batch_issue::scales_with_batch: return "scales_with_batch";
    case batch_issue::mixes_samples: return "mixes_samples";
    case batch_issue::drops_samples: return "drops_samples";
    case batch_issue::loses_batch: return "loses_batch";
    case batch_issue::fails_at_declared: return "fails_at_declared";
    case batch_issue::cannot_tell: return "cannot_tell";
  }
  return "fails";
}

std::string_view name(batch_verdict v) noexcept {
  switch (v) {
    case batch_verdict::yes: return "yes";
    case batch_verdict::no: return "no";
    case batch_verdict::cannot_tell: return "cannot_tell";
  }
  return "cannot_tell";
}

std::optional<std::size_t> batch_index_of(std::string_view layout, std::optional<std::size_t> rank) {
  const auto text = trim(layout);
  if (text.empty()) bad_request("an empty layout", "write one letter per dimension, e.g. NCHW, or [N,C,H,W]");
  std::vector<std::string> names;
  if (text.front() == '[') {
    if (text.back() != ']') bad_request(fmt::format("layout '{}' has no closing ]", text), "write e.g. [N,C,H,W]");
    auto inner = text.substr(1, text.size() - 2);
    while (!trim(inner).empty()) {
      const auto comma = inner.find(',');
      const auto part = trim(inner.substr(0, comma));
      if (part.empty()) bad_request(fmt::format("layout '{}' has an empty dimension name", text), "write e.g. [N,C,H,W]");
      names.emplace_back(part);
      if (comma == std::string_view::npos) break;
      inner.remove_prefix(comma + 1);
      if (trim(inner).empty()) bad_request(fmt::format("layout '{}' ends with a comma", text), "write e.g. [N,C,H,W]");
    }
  } else {
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text.substr(i).starts_with("...")) {
        names.emplace_back("...");
        i += 2;
      } else if (std::isalpha(static_cast<unsigned char>(text[i])) != 0 || text[i] == '?') {
        names.emplace_back(1, text[i]);
      } else {
        bad_request(fmt::format("layout '{}': '{}' is not a dimension name", text, text[i]),
                    "write one letter per dimension, e.g. NCHW, or names in brackets, e.g. [N,C,H,W]");
      }
    }
  }
  std::optional<std::size_t> ellipsis, n;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto& x = names[i];
    if (x == "...") {
      if (ellipsis) bad_request(fmt::format("layout '{}' has two ellipses", text), "write ... at most once");
      ellipsis = i;
      continue;
    }
    if (x == "?") continue;
    if (!seen.insert(lower(x)).second)
      bad_request(fmt::format("layout '{}' names dimension {} twice", text, x), "give each dimension one name");
    if (lower(x) == "n") n = i;
  }
  const std::size_t named = names.size() - (ellipsis ? 1 : 0);
  if (rank) {
    if (!ellipsis && named != *rank)
      bad_request(fmt::format("layout '{}' has {} dimensions, the shape has {}", text, named, *rank),
                  "give one name per dimension");
    if (ellipsis && named > *rank)
      bad_request(fmt::format("layout '{}' names {} dimensions, the shape has only {}", text, named, *rank),
                  "give at most one name per dimension");
  }
  if (!n) return std::nullopt;
  if (!ellipsis || *n < *ellipsis) return *n;
  if (!rank) return std::nullopt;  // counted from the end of a shape of unknown rank
  return *rank - (names.size() - *n);
}

batch_report check_batch(const graph& g, const reshape_request& request) {
  detail::batch_runs runs;
  return detail::check_batch_keeping(g, request, runs);
}

batch_report detail::check_batch_keeping(const graph& g, const reshape_request& request, batch_runs& runs) {
  detail::check_request(request);
  for (std::size_t k = 1; k < runs.runs.size(); ++k) runs.runs[k].reset();
  return analyse(g, request, runs, {}, nullptr);
}

void detail::declared_in_place(const graph& g, batch_runs& runs, std::span<const char> redo, batch_undo& undo) {
  run_at(g, runs, 0, {}, redo, &undo);
}

batch_report detail::check_batch_in_place(const graph& g, const reshape_request& request, batch_runs& runs,
                                          std::span<const char> redo, batch_undo& undo) {
  detail::check_request(request);
  return analyse(g, request, runs, redo, &undo);
}

void detail::undo_runs(const graph& before, batch_runs& runs, batch_undo&& undo) {
  for (std::size_t k = 0; k < runs.runs.size(); ++k) {
    if (undo.in_place[k] && runs.runs[k]) undo_in_place(before, *runs.runs[k], std::move(undo.logs[k]));
    if (undo.replaced[k]) runs.runs[k] = std::move(undo.before[k]);
  }
  if (undo.analysed) {
    runs.requested = std::move(undo.requested);
    runs.example_batch = undo.example_batch;
  }
}

}  // namespace reshape1::model
