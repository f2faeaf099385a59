// `check --batch`: propagate at the requested shapes, and with the batch at three sample values to see
// which dimensions carry it (a dimension is N·k when it is k times the sample at every sample), then
// report the layers that fail, the Reshapes that fold or replace the batch where it matters, and the
// post-processing outputs that grow with it.
#include "reshape1/model/batch.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <deque>
#include <map>
#include <set>

#include <fmt/format.h>

#include "../detail/fail.hpp"
#include "batch_internal.hpp"
#include "rules.hpp"

namespace reshape1::model {
namespace {

using detail::trim;
using detail::without_symbols;

using reshape1::detail::fail;
using detail::element_origin;
using detail::origin_of_element;

/// The batch values the carriers are computed at: distinct primes, far from any size a model writes down,
/// so that N·k cannot be mistaken for a constant dimension.
constexpr std::array<std::int64_t, 3> samples = {1009, 1013, 1019};

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
    if (l.type == "Parameter") names += fmt::format("{}'{}'", names.empty() ? "" : ", ", l.name);
  return names;
}


std::string dim_text(std::int64_t factor) { return factor == 1 ? "N" : fmt::format("N·{}", factor); }

// ---- inputs --------------------------------------------------------------------------------------

std::vector<input_report> choose_inputs(const graph& g, const reshape_request& request) {
  const auto layers = g.layers();
  std::vector<input_report> inputs;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto& l = layers[i];
    if (l.type != "Parameter" || l.outputs.empty()) continue;
    input_report in;
    in.layer = i;
    in.id = l.id;
    in.name = l.name;
    in.declared = l.outputs[0].shape();
    in.requested = in.declared;
    inputs.push_back(std::move(in));
  }
  const auto find = [&](const std::string& name, std::string_view option) -> input_report& {
    if (name.empty()) {
      if (inputs.size() != 1)
        bad_request(fmt::format("{} without a name: the model has {} inputs ({})", option, inputs.size(),
                                input_names(g)),
                    fmt::format("write {} NAME=...", option));
      return inputs[0];
    }
    for (auto& in : inputs)
      if (in.name == name) return in;
    bad_request(fmt::format("{} {}: the model has no input named '{}'; its inputs are {}", option, name, name,
                            input_names(g)),
                "use one of those names");
  };

  std::set<std::string> seen;
  for (const auto& [name, layout] : request.layouts) {
    auto& in = find(name, "--layout");
    if (!seen.insert(in.name).second)
      bad_request(fmt::format("--layout {}: given twice", in.name), "give each input's layout once");
    try {
      in.batch_index = batch_index_of(layout, in.declared.rank_known() ? std::optional(in.declared.size()) : std::nullopt);
    } catch (const error& e) {
      bad_request(fmt::format("--layout {}={}: {}", in.name, layout, e.what()), "");
    }
    in.layout = layout;
    in.source = in.batch_index ? batch_source::layout_option : batch_source::none;
  }
  for (auto& in : inputs) {
    if (seen.contains(in.name)) continue;
    const auto& written = layers[in.layer].outputs[0].layout;
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

  seen.clear();
  for (const auto& [name, shape] : request.shapes) {
    auto& in = find(name, "--shape");
    if (!seen.insert(in.name).second)
      bad_request(fmt::format("--shape {}: given twice", in.name), "give each input's shape once");
    in.requested = shape;
    if (in.batch_index && (!shape.rank_known() || *in.batch_index >= shape.size())) {
      if (in.source == batch_source::layout_option || request.batch)
        bad_request(fmt::format("--shape {}={}: the input's batch index is {}, which the new shape does not have",
                                in.name, to_string(shape), *in.batch_index),
                    "give a shape of the input's rank, or its layout with --layout");
      in.batch_index.reset();
      in.source = batch_source::none;
    }
  }
  // A batch index needs a shape that has it (a layout in the model may name N of a dynamic rank).
  for (auto& in : inputs) {
    if (!in.batch_index || (in.requested.rank_known() && *in.batch_index < in.requested.size())) continue;
    if (in.source == batch_source::layout_option)
      bad_request(fmt::format("--layout {}={}: the input's shape {} has no dimension {}", in.name, in.layout,
                              to_string(in.requested), *in.batch_index),
                  "give its shape with --shape NAME=SHAPE");
    in.batch_index.reset();
    in.source = batch_source::none;
  }
  if (request.batch) {
    if (request.batch->range().hi() == 0 && request.batch->range().lo() == 0)
      bad_request("--batch 0: a batch of 0 samples", "give a batch of at least 1, or ?");
    for (auto& in : inputs) {
      if (!in.batch_index) continue;
      auto dims = std::vector<dimension>(in.requested.begin(), in.requested.end());
      auto& d = dims[*in.batch_index];
      if (seen.contains(in.name) && d.range() != request.batch->range())
        bad_request(fmt::format("input '{}': --shape gives {} at the batch index {}, --batch gives {}", in.name,
                                to_string(dimension(d.range())), *in.batch_index, to_string(*request.batch)),
                    "drop one of them, or make them agree");
      d = request.batch->is_static() ? dimension(request.batch->range()) : dimension(request.batch->range(), symbol("N"));
      in.requested = partial_shape(std::move(dims));
    }
  }
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

// ---- the axes a layer computes across ---------------------------------------------------------------

/// Exact integer values of input `port` in a propagation.
std::optional<std::vector<std::int64_t>> values(const graph& g, const propagation& p, const layer& l, std::size_t port) {
  if (port >= l.inputs.size()) return std::nullopt;
  return detail::exact_values(p.input(g, l, port).value);
}

std::optional<std::size_t> axis_in(std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r) return std::nullopt;
  return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

struct axis_use {
  std::size_t port = 0;
  std::size_t axis = 0;
  std::string role;  ///< "its channels", "its contraction axis", ...
};

/// The (input, axis) pairs a layer mixes elements across: where the batch must not be. `p` is a
/// propagation that reached the layer (for its axes inputs and ranks).
std::vector<axis_use> non_batch_axes(const graph& g, const propagation& p, const layer& l) {
  std::vector<axis_use> uses;
  const auto rank = [&](std::size_t port) -> std::optional<std::size_t> {
    if (port >= l.inputs.size()) return std::nullopt;
    const auto& s = p.input(g, l, port).shape;
    return s.rank_known() ? std::optional(s.size()) : std::nullopt;
  };
  const auto add_axes = [&](std::size_t port, const std::vector<std::int64_t>& axes, const std::string& role) {
    const auto r = rank(port);
    if (!r) return;
    for (const auto a : axes)
      if (const auto x = axis_in(a, *r)) uses.push_back({port, *x, role});
  };
  const auto& t = l.type;
  if (t == "Convolution" || t == "GroupConvolution" || t == "ConvolutionBackpropData" ||
      t == "GroupConvolutionBackpropData") {
    if (const auto r = rank(0)) {
      if (*r >= 2) uses.push_back({0, 1, "its channels"});
      for (std::size_t a = 2; a < *r; ++a) uses.push_back({0, a, "a spatial axis of its kernel"});
    }
  } else if (t == "MaxPool" || t == "AvgPool") {
    if (const auto r = rank(0))
      for (std::size_t a = 2; a < *r; ++a) uses.push_back({0, a, "a pooled axis"});
  } else if (t == "MatMul") {
    const bool ta = l.flag("transpose_a", false), tb = l.flag("transpose_b", false);
    if (const auto r = rank(0); r && *r >= 1)
      uses.push_back({0, *r == 1 ? 0 : (ta ? *r - 2 : *r - 1), "its contraction axis"});
    if (const auto r = rank(1); r && *r >= 1)
      uses.push_back({1, *r == 1 ? 0 : (tb ? *r - 1 : *r - 2), "its contraction axis"});
  } else if (t == "SoftMax" || t == "LogSoftmax") {
    add_axes(0, {l.integer("axis", 1)}, "its softmax axis");
  } else if (t == "Concat") {
    for (std::size_t port = 0; port < l.inputs.size(); ++port)
      add_axes(port, {l.integer("axis", 0)}, "its concatenation axis");
  } else if (t == "MVN") {
    if (l.opset >= 6) {
      if (const auto v = values(g, p, l, 1)) add_axes(0, *v, "an axis it normalises over");
    } else if (const auto r = rank(0)) {
      for (std::size_t a = l.flag("across_channels", false) ? 1 : 2; a < *r; ++a)
        uses.push_back({0, a, "an axis it normalises over"});
    }
  } else if (t == "NormalizeL2") {
    if (const auto v = values(g, p, l, 1)) add_axes(0, *v, "an axis it normalises over");
  } else if (t.starts_with("Reduce")) {
    if (const auto v = values(g, p, l, 1)) add_axes(0, *v, "an axis it reduces");
  } else if (t == "Interpolate") {
    // The resized axes: those whose output differs from the input.
    if (const auto r = rank(0); r && !l.outputs.empty()) {
      const auto& in = p.input(g, l, 0).shape;
      const auto index = static_cast<std::size_t>(&l - g.layers().data());
      const auto& out = p.outputs[index].empty() ? partial_shape::dynamic() : p.outputs[index][0].shape;
      for (std::size_t a = 0; a < *r; ++a)
        if (out.rank_known() && out.size() == *r && out[a].range() != in[a].range())
          uses.push_back({0, a, "an axis it resizes"});
    }
  }
  return uses;
}

// ---- where values come from --------------------------------------------------------------------------

std::string source_text(const element_origin& o) {
  if (o.holder == nullptr) return {};
  if (o.holder->type == "Const")
    return o.through != nullptr ? fmt::format("Const '{}' (id {}) through Concat '{}' (id {})", o.holder->name,
                                              o.holder->id, o.through->name, o.through->id)
                                : fmt::format("Const '{}' (id {})", o.holder->name, o.holder->id);
  return fmt::format("computed by {} '{}' (id {})", o.holder->type, o.holder->name, o.holder->id);
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
  [[nodiscard]] bool analysed() const noexcept { return at_samples[0] != nullptr; }
  /// The same runs inside the body of layer `index`; nullopt when one of them did not reach it.
  [[nodiscard]] std::optional<runs> body(std::size_t index) const {
    runs r;
    r.declared = declared->body(index);
    r.target = target->body(index);
    r.example = example != nullptr ? example->body(index) : nullptr;
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
  scope(const graph& g, const runs& r, std::vector<enclosing_layer> within)
      : g_(g), layers_(g.layers()), runs_(r), declared_(*r.declared), target_(*r.target), within_(std::move(within)) {
    position_.assign(layers_.size(), 0);
    for (std::size_t k = 0; k < g.order().size(); ++k) position_[g.order()[k]] = k;
    if (r.analysed()) compute_carriers();
  }

  /// The findings, in the order of the layers, each body's right after its TensorIterator or Loop.
  std::vector<batch_finding> run(const std::string& target_at, std::optional<std::int64_t> example_at,
                                 std::size_t& failing_at_declared) {
    const bool top = within_.empty();
    if (top)
      for (const auto& x : declared_.lost)
        if (!x.not_covered) ++failing_at_declared;
    find_replaced();
    if (top) {
      find_failures(target_, target_at);
      if (runs_.example != nullptr && example_at) find_failures(*runs_.example, std::to_string(*example_at));
    }
    if (!carriers_.empty()) {
      find_replaced_swallows();
      find_axis_uses();
      if (top) find_outputs();
    }
    if (top) explain_failures();
    // The bodies, analysed from what each run propagated inside them.
    std::map<std::size_t, std::vector<batch_finding>> nested;
    for (const auto index : g_.order()) {
      const auto& l = layers_[index];
      if (!l.body) continue;
      const auto inner = runs_.body(index);
      if (!inner) continue;
      auto path = within_;
      path.push_back({l.id, std::string(l.name), std::string(l.type)});
      scope body(l.body->network, *inner, std::move(path));
      std::size_t unused = 0;
      nested[index] = body.run(target_at, example_at, unused);
    }
    std::vector<batch_finding> out;
    for (const auto index : g_.order()) {
      for (const auto& f : found_)
        if (f.layer == index) out.push_back(f);
      if (const auto it = nested.find(index); it != nested.end())
        out.insert(out.end(), it->second.begin(), it->second.end());
    }
    return out;
  }

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
    f.type = l.type;
    f.opset = l.opset;
    f.within = within_;
    return f;
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
      if (l.type != "Reshape" || l.inputs.size() < 2) continue;
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
      r.hint = fmt::format("pattern[{}]: {}", *axis,
                           special_zero ? "use 0 to copy the batch"
                                        : (has_minus_one ? "use 0 with special_zero=true to copy the batch"
                                                         : "use -1, or 0 with special_zero=true, to follow the batch"));
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
      f.code = x.code;
      f.at = at;
      const auto semicolon = x.message.find("; ");
      f.what = x.message.substr(0, semicolon);
      if (semicolon != std::string::npos) f.hint = x.message.substr(semicolon + 2);
      if (l.type == "Reshape" && l.inputs.size() >= 2) {
        if (const auto it = replaced_.find(x.layer); it != replaced_.end()) {
          f.what += fmt::format("; pattern[{}] is {}, the declared batch, written as a constant", it->second.index,
                                it->second.value);
          f.hint = it->second.hint;
          f.pattern_index = it->second.index;
          set_source(f, it->second.origin);
        } else {
          set_pattern_source(f, l);
        }
      }
      found_.push_back(std::move(f));
    }
  }

  /// The pattern as a whole: its Const, or the layer that computes it.
  void set_pattern_source(batch_finding& f, const layer& l) const {
    if (l.sources.size() < 2 || !l.sources[1]) return;
    const auto& src = layers_[l.sources[1]->layer];
    f.source_id = src.id;
    f.source = src.type == "Const" ? fmt::format("Const '{}' (id {})", src.name, src.id)
                                   : fmt::format("computed by {} '{}' (id {})", src.type, src.name, src.id);
  }

  void set_source(batch_finding& f, const element_origin& o) const {
    if (o.holder == nullptr) return;
    f.source_id = o.holder->id;
    f.source = source_text(o);
  }

  /// A replaced batch that does not fail: the -1 takes the batch into another dimension.
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
      f.what = fmt::format("pattern[{}] is {}, the declared batch, written as a constant: the output's dimension {} "
                           "stays {}",
                           r.index, r.value, r.index, r.value);
      if (out.state == batch_carrier::kind::one)
        f.what += fmt::format(" and the batch goes into dimension {} ({})", out.axis, dim_text(out.factor));
      f.hint = r.hint;
      f.pattern_index = r.index;
      set_source(f, r.origin);
      found_.push_back(std::move(f));
    }
  }

  /// Walks back from a tensor holding the batch as N·factor to the layer that made it so: the first
  /// Reshape whose input holds the batch differently, or the first other layer none of whose inputs
  /// holds it with the same factor.
  std::size_t origin_of(std::size_t layer, std::size_t output) const {
    const auto want = carrier(layer, output);
    for (std::size_t steps = 0; steps < layers_.size(); ++steps) {
      const auto& l = layers_[layer];
      const auto& here = carrier(layer, output);
      if (l.type == "Reshape") {
        const auto& in = input_carrier(l, 0);
        if (in.state != batch_carrier::kind::one || in.factor != here.factor || in.axis != here.axis) return layer;
      }
      // Back along an input that holds the batch with the same factor; else along one that holds it folded
      // (a Concat of folded inputs adds their factors); a layer with neither made the factor.
      std::optional<std::size_t> next;
      for (std::size_t port = 0; port < l.sources.size() && !next; ++port) {
        const auto& c = input_carrier(l, port);
        if (c.state == batch_carrier::kind::one && c.factor == want.factor && l.sources[port]) next = port;
      }
      for (std::size_t port = 0; port < l.sources.size() && !next && want.factor != 1; ++port) {
        const auto& c = input_carrier(l, port);
        if (c.state == batch_carrier::kind::one && c.factor != 1 && l.sources[port]) next = port;
      }
      if (!next) return layer;
      layer = l.sources[*next]->layer;
      output = l.sources[*next]->output;
    }
    return layer;
  }

  std::string swallow_hint(const layer& r) const {
    const auto& in = input_carrier(r, 0);
    const auto axis = in.state == batch_carrier::kind::one ? in.axis : 0;
    return fmt::format("keep the batch in a dimension of its own: copy it with 0 at pattern[{}]{}", axis,
                       r.flag("special_zero") ? "" : " (with special_zero=true)");
  }

  void add_swallow(std::size_t reshape, const std::string& what, std::int64_t used_by) {
    if (finding_for(reshape, batch_issue::swallows_batch) || finding_for(reshape, batch_issue::fails)) return;
    const auto& l = layers_[reshape];
    auto f = finding(batch_issue::swallows_batch, l);
    f.what = what;
    f.used_by_id = used_by;
    f.hint = swallow_hint(l);
    set_pattern_source(f, l);
    found_.push_back(std::move(f));
  }

  /// Layers that compute across an axis that holds the batch.
  void find_axis_uses() {
    for (const auto index : g_.order()) {
      const auto& l = layers_[index];
      std::vector<axis_use> uses;
      try {
        uses = non_batch_axes(g_, *runs_.at_samples[0], l);
      } catch (const error&) {
        continue;  // a malformed attribute: its rule refuses the layer, which `check` reports
      }
      for (const auto& use : uses) {
        const auto& c = input_carrier(l, use.port);
        if (c.state != batch_carrier::kind::one || c.axis != use.axis) continue;
        // Concatenating along the batch itself joins whole samples; only a folded batch mixes them there.
        if (l.type == "Concat" && c.factor == 1) continue;
        const auto& src = *l.sources[use.port];
        const auto origin = origin_of(src.layer, src.output);
        if (layers_[origin].type == "Reshape") {
          const auto& oc = carrier(origin, 0);
          add_swallow(origin,
                      fmt::format("its output puts the batch into dimension {} ({}), which {} '{}' (id {}) uses as "
                                  "{}: samples are mixed",
                                  oc.state == batch_carrier::kind::one ? oc.axis : c.axis,
                                  dim_text(oc.state == batch_carrier::kind::one ? oc.factor : c.factor), l.type, l.name,
                                  l.id, use.role),
                      l.id);
        } else if (!finding_for(index, batch_issue::swallows_batch) && !finding_for(index, batch_issue::fails)) {
          auto f = finding(batch_issue::swallows_batch, l);
          f.what = fmt::format("input {} holds the batch in dimension {} ({}), which this layer uses as {}: samples "
                               "are mixed",
                               use.port, c.axis, dim_text(c.factor), use.role);
          f.used_by_id = l.id;
          found_.push_back(std::move(f));
        }
        break;
      }
    }
  }

  /// Model outputs whose batch dimension is not N: folded by a Reshape, or grown by post-processing.
  void find_outputs() {
    for (const auto index : g_.order()) {
      const auto& l = layers_[index];
      if (l.type != "Result" || l.sources.empty() || !l.sources[0]) continue;
      const auto& c = input_carrier(l, 0);
      if (c.state != batch_carrier::kind::one || c.factor == 1) continue;
      const auto origin = origin_of(l.sources[0]->layer, l.sources[0]->output);
      const auto& o = layers_[origin];
      if (o.type == "Reshape") {
        add_swallow(origin,
                    fmt::format("the model output '{}' (id {}) gets the batch in dimension {} as {}, not as a "
                                "dimension of its own",
                                l.name, l.id, c.axis, dim_text(c.factor)),
                    l.id);
      } else if (!finding_for(origin, batch_issue::scales_with_batch)) {
        auto f = finding(batch_issue::scales_with_batch, o);
        f.what = fmt::format("the model output '{}' (id {}) has {} in dimension {}: its size grows with the batch "
                             "(post-processing over all samples), which is expected",
                             l.name, l.id, dim_text(c.factor), c.axis);
        f.used_by_id = l.id;
        found_.push_back(std::move(f));
      }
    }
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
          if (src.type == "Reshape" && (replaced_.contains(s->layer) ||
                                        std::any_of(found_.begin(), found_.end(), [&](const auto& x) {
                                          return x.layer == s->layer && x.issue == batch_issue::swallows_batch;
                                        }))) {
            f.cause_id = src.id;
            const auto it = replaced_.find(s->layer);
            f.what += fmt::format("; the Reshape '{}' (id {}) upstream {}", src.name, src.id,
                                  it != replaced_.end()
                                      ? fmt::format("writes the declared batch {} as a constant at pattern[{}]",
                                                    it->second.value, it->second.index)
                                      : std::string("folds the batch into another dimension"));
            if (it != replaced_.end()) f.hint = fmt::format("in the Reshape '{}' (id {}), {}", src.name, src.id, it->second.hint);
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
  std::vector<std::size_t> position_;
  std::vector<std::vector<batch_carrier>> carriers_;
  std::vector<batch_finding> found_;
  std::map<std::size_t, replaced_batch> replaced_;
};

/// The model: its inputs, the propagations at the declared shapes, the new ones, an example batch (for a
/// dynamic one) and the samples, then the scopes.
batch_report analyse(const graph& g, const reshape_request& request) {
  batch_report report;
  report.inputs = choose_inputs(g, request);
  const auto& inputs = report.inputs;
  report.target = request.batch ? fmt::format("batch {}", to_string(*request.batch)) : std::string("the given shapes");
  const bool any_batch = std::any_of(inputs.begin(), inputs.end(), [](const auto& in) { return in.batch_index; });
  const auto declared = propagate(g);
  const auto target = propagate(g, shapes_at(inputs, std::nullopt));
  // Whether there is anything to analyse: a new shape, or a batch that is not one known value (a model
  // declared with a dynamic batch may still hard-code it in a pattern).
  const bool changed = std::any_of(inputs.begin(), inputs.end(), [](const auto& in) {
    return to_string(without_symbols(in.requested)) != to_string(without_symbols(in.declared)) ||
           (in.batch_index && !in.requested[*in.batch_index].is_static());
  });
  // A dynamic batch: also an example batch that is not the declared one, where a hard-coded batch fails.
  std::optional<std::int64_t> example;
  for (const auto& in : inputs) {
    if (!in.batch_index || !in.requested.rank_known()) continue;
    const auto& d = in.requested[*in.batch_index];
    if (d.is_static()) continue;
    const auto declared_batch = in.declared.rank_known() && *in.batch_index < in.declared.size() &&
                                        in.declared[*in.batch_index].is_static()
                                    ? std::optional(in.declared[*in.batch_index].lo())
                                    : std::nullopt;
    // 2 (3 when the model is declared at 2), within the requested interval.
    std::int64_t w = std::max<std::int64_t>(d.lo(), 2);
    if (declared_batch && w == *declared_batch) ++w;
    if (!d.range().contains(w)) w = std::max<std::int64_t>(d.lo(), 1);
    if (!d.range().contains(w) || (declared_batch && w == *declared_batch)) continue;
    example = w;
    break;
  }
  std::optional<propagation> at_example;
  if (example) at_example = propagate(g, shapes_at(inputs, example));
  std::array<propagation, samples.size()> at_samples;
  runs r{&declared, &target, at_example ? &*at_example : nullptr, {}};
  if (any_batch && changed) {
    for (std::size_t k = 0; k < samples.size(); ++k) {
      at_samples[k] = propagate(g, shapes_at(inputs, samples[k]));
      r.at_samples[k] = &at_samples[k];
    }
  }
  scope top(g, r, {});
  report.findings = top.run(request.batch ? to_string(*request.batch) : std::string("the given shapes"), example,
                            report.summary.failing_at_declared);
  report.carriers = std::move(top).carriers();
  for (const auto index : g.order()) {
    const auto& l = g.layers()[index];
    if (l.type != "Result" || l.sources.empty() || !l.sources[0]) continue;
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
  for (const auto& f : report.findings) {
    switch (f.issue) {
      case batch_issue::fails: ++report.summary.fails; break;
      case batch_issue::swallows_batch: ++report.summary.swallows_batch; break;
      case batch_issue::scales_with_batch: ++report.summary.scales_with_batch; break;
    }
  }
  return report;
}

}  // namespace

namespace detail {
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
    if (src.type == "Const") return o;
    if (src.type == "Concat") {
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
    if (src.type == "Convert" || src.type == "Squeeze" || src.type == "Unsqueeze") {
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
  }
  return "fails";
}

std::string batch_report::summary_line() const {
  std::string line = fmt::format("reshapes to {}: ", target);
  if (summary.reshapes()) {
    line += "yes";
  } else {
    line += "no:";
    if (summary.fails != 0)
      line += fmt::format(" {} layer{} fail{}", summary.fails, summary.fails == 1 ? "" : "s", summary.fails == 1 ? "s" : "");
    if (summary.swallows_batch != 0) {
      const bool reshapes_only = std::all_of(findings.begin(), findings.end(), [](const batch_finding& f) {
        return f.issue != batch_issue::swallows_batch || f.type == "Reshape";
      });
      line += fmt::format("{} {} {}{} swallow{} the batch", summary.fails != 0 ? "," : "", summary.swallows_batch,
                          reshapes_only ? "Reshape" : "layer", summary.swallows_batch == 1 ? "" : "s",
                          summary.swallows_batch == 1 ? "s" : "");
    }
  }
  if (summary.scales_with_batch != 0)
    line += fmt::format(" ({} output{} grow{} with the batch, as post-processing does)", summary.scales_with_batch,
                        summary.scales_with_batch == 1 ? "" : "s", summary.scales_with_batch == 1 ? "s" : "");
  return line;
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

batch_report check_batch(const graph& g, const reshape_request& request) { return analyse(g, request); }

}  // namespace reshape1::model
