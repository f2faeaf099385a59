// The checks of `reshape1 check`: each Reshape layer at the shapes propagated to it (verdicts, hard-coded
// dimensions, hints that work), and every layer output's propagated shape against the declared one.
#include "reshape1/model/check.hpp"

#include <algorithm>

#include "detail/checked.hpp"
#include "model/ops/rules.hpp"
#include "model/text/check.hpp"

namespace reshape1::model {
namespace {

using detail::op_part;
using detail::part_of;
using detail::without_symbols;


/// -1 when the ranks or a dimension cannot match; 1 when `declared` is less precise somewhere; 0 otherwise.
int reshape_compare(const partial_shape& declared, const partial_shape& inferred) {
  if (!declared.rank_known()) return inferred.rank_known() ? 1 : 0;
  if (!inferred.rank_known()) return 0;
  if (declared.size() != inferred.size()) return -1;
  int r = 0;
  for (std::size_t i = 0; i < declared.size(); ++i) {
    const auto& d = declared[i].range();
    const auto& f = inferred[i].range();
    if (!d.intersects(f)) return -1;
    if (d != f && d.lo() <= f.lo() && f.hi() <= d.hi()) r = 1;
  }
  return r;
}

interval count_of(const partial_shape& s) { return reshape1::detail::count_interval(s).value_or(interval()); }

/// A Reshape's output as propagation computed it; nullopt, with f's error set, when its rule refused. A
/// Reshape whose version has no row (not_covered: propagation knows nothing of it) is still inferred as
/// Reshape-1 here.
std::optional<partial_shape> computed_output(const propagation& p, std::size_t index, const lost_information* lost,
                                             const partial_shape& input, const reshape_pattern& pattern,
                                             reshape_finding& f) {
  const auto refused = [&f](errc code, const std::string& message, const std::string& hint) {
    f.result = verdict::error;
    f.code = name(code);
    f.error = reshape_error{code, message};
    text::give_hint(f, text::error_hint(hint));
    return std::optional<partial_shape>();
  };
  if (lost == nullptr) return without_symbols(p.outputs[index][0].shape);
  if (!lost->not_covered) return refused(lost->code, lost->reason, lost->hint);
  try {
    return without_symbols(infer_shape(input, pattern, f.special_zero).shape);
  } catch (const error& e) {
    return refused(e.code(), e.what(), e.hint());
  }
}

/// The length of a pattern none of whose values is known (a Const too long for propagation to carry its
/// values, 0 when some value is known or the length is not). 64 bits wherever size_t is 32: a pattern's length
/// comes from a dimension.
std::uint64_t unread_length(const reshape_pattern& p) {
  const auto& s = p.tensor_shape();
  if (p.kind() == pattern_kind::values || !s.rank_known() || s.size() != 1 || !s[0].is_static()) return 0;
  const auto e = p.elements();
  if (std::any_of(e.begin(), e.end(), [](const pattern_bound& b) { return b.lo == b.hi; })) return 0;
  return static_cast<std::uint64_t>(s[0].lo());
}

/// A warning, in words and as its code.
void warn(reshape_finding& f, text::reason_text w) {
  f.warning_codes.push_back(w.coded());
  f.warnings.push_back(std::move(w.text));
}

/// The verdict on Reshape layer `index` of g, from what propagation computed for it (its output, or why its
/// rule refused: `lost`), with the pattern's warnings and a hint that works.
reshape_finding check_reshape(const graph& g, const propagation& p, std::size_t index, const lost_information* lost) {
  const auto& l = g.layers()[index];
  reshape_finding f;
  f.id = l.id;
  f.name = l.name;
  f.type = l.type;
  f.code = "ok";
  f.special_zero = l.flag("special_zero");
  f.declared = l.outputs.empty() ? partial_shape::dynamic() : l.outputs[0].shape();
  const partial_shape& input = p.input(g, l, 0).shape;
  f.input = without_symbols(input);

  std::vector<bool> constant;
  const auto pattern = detail::reshape_pattern_at(g, p, l, &constant);
  f.pattern_known = pattern.kind() != pattern_kind::unknown;
  f.pattern = detail::without_symbols(pattern);

  const auto out = computed_output(p, index, lost, input, pattern, f);
  if (out) {
    const auto& inferred = *out;
    f.inferred = inferred;
    // An output the model does not declare (ONNX without value_info) has nothing to compare.
    const int c = l.outputs.empty() || !l.outputs[0].declared ? 0 : reshape_compare(f.declared, inferred);
    if (c != 0) {
      // The verdict's reason is its code; its sentence is the hint (the declaration to change).
      const auto why = c < 0 ? text::declared_cannot_be(f.declared, inferred) : text::can_be_declared_as(f.declared, inferred);
      f.result = c < 0 ? verdict::shape_mismatch : verdict::refinable;
      f.code = why.code;
      f.args = why.args;
      text::give_hint(f, text::declaration_hint(why));
    }
    if (input.rank_known() && f.declared.rank_known() && !count_of(input).intersects(count_of(f.declared)))
      warn(f, text::counts_never_match(f.input, dimension(count_of(input)), f.declared, dimension(count_of(f.declared))));
  }

  // Warnings about the pattern itself.
  const auto elements = pattern.elements();
  if (const auto n = unread_length(pattern); n > static_cast<std::uint64_t>(detail::max_value_elements))
    warn(f, text::pattern_not_read(n, static_cast<std::uint64_t>(detail::max_value_elements)));
  const bool data_path = !l.sources.empty() && l.sources[0] && p.follows_inputs[l.sources[0]->layer];
  const bool has_minus_one =
      std::any_of(elements.begin(), elements.end(), [](const pattern_bound& e) { return e.lo == -1 && e.hi == -1; });
  const text::dimension_fix fix{.special_zero = f.special_zero, .has_minus_one = has_minus_one};
  std::optional<std::size_t> first_fix;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const auto& b = elements[i];
    if (b.lo < b.hi && ((b.lo <= -1 && b.hi >= -1) || (f.special_zero && b.lo <= 0 && b.hi >= 0)))
      warn(f, text::bounds_include_special(i, b.lo, b.hi, b.lo <= -1 && b.hi >= -1));
    const bool literal = b.lo == b.hi && b.lo > 0 && i < constant.size() && constant[i];
    if (!literal || !data_path || !input.rank_known() || i >= input.size()) continue;
    bool blocks = false;
    if (!input[i].is_static()) {
      warn(f, text::hard_codes_dynamic(i, b.lo, dimension(input[i].range()), fix));
      blocks = true;
    } else if (i == 0 && input[0].lo() == b.lo) {
      warn(f, text::hard_codes_batch(b.lo, fix));
      blocks = true;
    }
    if (blocks && !first_fix) first_fix = i;
    f.blocks_reshape = f.blocks_reshape || blocks;
  }
  if (f.hint.empty() && first_fix) text::give_hint(f, text::pattern_fix_hint(*first_fix, fix));
  return f;
}

}  // namespace

std::string_view name(verdict v) noexcept {
  switch (v) {
    case verdict::ok: return "ok";
    case verdict::error: return "error";
    case verdict::shape_mismatch: return "shape_mismatch";
    case verdict::refinable: return "refinable";
  }
  return "ok";
}

std::string_view name(layer_issue i) noexcept {
  switch (i) {
    case layer_issue::shape_mismatch: return "shape_mismatch";
    case layer_issue::refinable: return "refinable";
    case layer_issue::not_covered: return "not_covered";
    case layer_issue::rule_error: return "rule_error";
  }
  return "shape_mismatch";
}

std::optional<layer_issue> compare(const partial_shape& declared, const partial_shape& propagated) {
  if (!declared.rank_known() || !propagated.rank_known()) return std::nullopt;
  if (declared.size() != propagated.size()) return layer_issue::shape_mismatch;
  bool refinable = false;
  for (std::size_t i = 0; i < declared.size(); ++i) {
    const auto& d = declared[i].range();
    const auto& f = propagated[i].range();
    if (!d.intersects(f)) return layer_issue::shape_mismatch;
    if (d.is_static() && !f.is_static()) refinable = true;  // a data-dependent size the IR writes down
  }
  return refinable ? std::optional(layer_issue::refinable) : std::nullopt;
}

check_report check(const graph& g) { return check(g, propagate(g)); }

namespace {

/// The checks of one graph (the model, or a body at the shapes propagated into it), then of its bodies.
void check_graph(const graph& g, const propagation& p, std::vector<enclosing_layer>& within, check_report& report) {
  auto& s = report.summary.layers;
  const auto layers = g.layers();
  s.count += layers.size();
  std::vector<const lost_information*> lost(layers.size(), nullptr);
  for (const auto& x : p.lost) lost[x.layer] = &x;
  for (const auto index : g.order()) {
    const auto& l = layers[index];
    const auto base = [&](layer_issue issue) {
      layer_finding f;
      f.issue = issue;
      f.id = l.id;
      f.name = l.name;
      f.type = l.op_type();
      f.opset = l.op_version();
      f.within = within;
      return f;
    };
    if (lost[index] != nullptr) {
      const auto& x = *lost[index];
      auto f = base(x.not_covered ? layer_issue::not_covered : layer_issue::rule_error);
      f.code = x.not_covered ? "no_rule" : std::string(name(x.code));
      if (x.not_covered) f.args = {{"type", f.type}, {"opset", std::int64_t{f.opset}}};
      f.message = x.message;
      ++(x.not_covered ? s.not_covered : s.rule_errors);
      report.layers.push_back(std::move(f));
      continue;
    }
    bool all_known = true;
    for (std::size_t k = 0; k < l.outputs.size(); ++k) {
      const auto& propagated = p.outputs[index][k].shape;
      all_known = all_known && propagated.rank_known();
      if (!l.outputs[k].declared) continue;
      const auto issue = compare(l.outputs[k].shape(), propagated);
      if (!issue) continue;
      auto f = base(*issue);
      f.port = l.outputs[k].id;
      f.declared = l.outputs[k].shape();
      f.propagated = without_symbols(propagated);
      // A layer's refinable is the opposite of a Reshape's: the declaration the more precise.
      const auto why = *issue == layer_issue::shape_mismatch ? text::declared_cannot_be(f.declared, f.propagated)
                                                             : text::declared_more_precise(f.declared, f.propagated);
      f.code = why.code;
      f.args = {{"port", f.port}, {"declared", to_string(f.declared)}, {"propagated", to_string(f.propagated)}};
      ++(*issue == layer_issue::shape_mismatch ? s.shape_mismatches : s.refinable);
      report.layers.push_back(std::move(f));
    }
    if (all_known) ++s.propagated;
  }
  for (std::size_t index = 0; index < layers.size(); ++index) {
    const auto& l = layers[index];
    if (part_of(l.type) != op_part::reshape || l.auxiliary) continue;
    auto f = check_reshape(g, p, index, lost[index]);
    f.within = within;
    auto& r = report.summary.reshapes;
    ++r.count;
    switch (f.result) {
      case verdict::ok: ++r.ok; break;
      case verdict::error: ++r.errors; break;
      case verdict::shape_mismatch: ++r.shape_mismatches; break;
      case verdict::refinable: ++r.refinable; break;
    }
    if (f.blocks_reshape) ++r.blocking;
    report.reshapes.push_back(std::move(f));
  }
  // The bodies, at the shapes their TensorIterator or Loop propagated into them.
  for (const auto index : g.order()) {
    const auto* inner = p.body(index);
    const auto& l = layers[index];
    if (inner == nullptr || !l.body) continue;
    within.push_back({l.id, std::string(l.name), std::string(l.type)});
    check_graph(l.body->network, *inner, within, report);
    within.pop_back();
  }
}

}  // namespace

check_report check(const graph& g, const propagation& p) {
  check_report report;
  std::vector<enclosing_layer> within;
  check_graph(g, p, within, report);
  return report;
}

}  // namespace reshape1::model
