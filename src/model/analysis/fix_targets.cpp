// Where a choice is written (fix_planner.hpp): the Const a pattern element comes from, or the layers that
// compute a pattern from its input's shape, as plans and then as edits of the graph.
#include "model/analysis/fix_planner.hpp"

#include <algorithm>
#include <numeric>
#include <span>
#include <variant>
#include <tuple>

#include <fmt/format.h>

#include "detail/fail.hpp"
#include "model/ops/rules.hpp"
#include "model/ops/sizes.hpp"
#include "model/options.hpp"
#include "model/text/fix.hpp"
#include "reshape1/model/propagate.hpp"

namespace reshape1::model::detail {
namespace {

using reshape1::detail::fail;

/// The layers a computed rewrite adds (graph edits), named `PREFIX/NAME`, ids from `id` on; their Consts'
/// bytes appended after `base`.
struct added_layers {
  std::string prefix;
  std::int64_t id;
  std::uint64_t base;
  std::vector<graph_edit>& edits;
  std::vector<std::byte>& appended;

  std::int64_t add(std::string name, std::string type, int opset, std::vector<std::pair<std::string, std::string>> attributes,
                   std::vector<std::pair<std::int64_t, std::size_t>> inputs, std::vector<std::int64_t> dims) {
    edits.push_back({.what = graph_edit::kind::add_layer, .name = prefix + "/" + name, .id = id, .type = std::move(type),
                     .opset = opset, .attributes = std::move(attributes), .inputs = std::move(inputs),
                     .output_dims = std::move(dims)});
    return id++;
  }
  /// A Const of i64 values (a scalar of one where `scalar`), its bytes appended.
  std::int64_t constant(std::string name, const std::vector<std::int64_t>& values, bool scalar) {
    const auto at = base + appended.size();
    for (const auto v : values)
      for (std::size_t b = 0; b < 8; ++b)
        appended.push_back(static_cast<std::byte>((static_cast<std::uint64_t>(v) >> (8 * b)) & 0xFF));
    const auto size = values.size() * 8;
    return add(std::move(name), "Const", 1,
               {{"element_type", "i64"}, {"shape", scalar ? std::string() : std::to_string(values.size())},
                {"offset", std::to_string(at)}, {"size", std::to_string(size)}},
               {}, scalar ? std::vector<std::int64_t>{} : std::vector<std::int64_t>{static_cast<std::int64_t>(values.size())});
  }
  /// A Const of `values` (whole numbers for i64), of shape `dims` and type `type` (i64, f32 or f64).
  std::int64_t constant(std::string name, const std::vector<double>& values, const std::vector<std::int64_t>& dims,
                        element_type type) {
    const auto at = base + appended.size();
    const auto put = [&](auto v) {
      const auto* bytes = reinterpret_cast<const std::byte*>(&v);  // (little-endian, as IR's weights are)
      appended.insert(appended.end(), bytes, bytes + sizeof v);
    };
    for (const auto v : values) {
      if (type == element_type::f64)
        put(v);
      else if (type == element_type::f32)
        put(static_cast<float>(v));
      else
        put(static_cast<std::int64_t>(v));
    }
    std::string shape;
    for (const auto d : dims) shape += fmt::format("{}{}", shape.empty() ? "" : ",", d);
    const auto made_id = add(std::move(name), "Const", 1,
                        {{"element_type", std::string(reshape1::name(type))}, {"shape", shape},
                         {"offset", std::to_string(at)}, {"size", std::to_string(base + appended.size() - at)}},
                        {}, dims);
    edits.back().output_type = type;
    return made_id;
  }
};

/// The values a computed rewrite writes, as i64 (`[k]`): each of `terms` (plan `x`'s) read from the shape of
/// `shape_source` (its dims' product, times its factor, divided by its divisor) or a constant, concatenated.
std::int64_t values_from_shape(const fix_plan& x, std::span<const pattern_term> terms, added_layers& made,
                               std::pair<std::int64_t, std::size_t> shape_source) {
  const auto shape = made.add("shape", "ShapeOf", 3, {{"output_type", "i64"}}, {shape_source}, {x.input_rank});
  std::optional<std::int64_t> axis;
  std::vector<std::int64_t> pieces;
  std::vector<std::int64_t> run;  // constant elements not yet written
  const auto flush = [&] {
    if (run.empty()) return;
    pieces.push_back(made.constant(fmt::format("values_{}", pieces.size()), run, false));
    run.clear();
  };
  for (std::size_t k = 0; k < terms.size(); ++k) {
    const auto& t = terms[k];
    if (t.dims.empty()) {
      run.push_back(t.factor);
      continue;
    }
    flush();
    if (!axis) axis = made.constant("axis", {0}, true);
    std::optional<std::int64_t> value;
    for (const auto d : t.dims) {
      const auto index = made.constant(fmt::format("index_{}_{}", k, d), {static_cast<std::int64_t>(d)}, false);
      const auto dim = made.add(fmt::format("dim_{}_{}", k, d), "Gather", 8, {{"batch_dims", "0"}},
                           {{shape, 0}, {index, 0}, {*axis, 0}}, {1});
      value = value ? made.add(fmt::format("product_{}_{}", k, d), "Multiply", 1, {{"auto_broadcast", "numpy"}},
                          {{*value, 0}, {dim, 0}}, {1})
                    : dim;
    }
    if (t.factor != 1) {
      const auto f = made.constant(fmt::format("factor_{}", k), {t.factor}, false);
      value = made.add(fmt::format("scaled_{}", k), "Multiply", 1, {{"auto_broadcast", "numpy"}}, {{*value, 0}, {f, 0}}, {1});
    }
    if (t.divisor != 1) {
      const auto d = made.constant(fmt::format("divisor_{}", k), {t.divisor}, false);
      value = made.add(fmt::format("quotient_{}", k), "Divide", 1, {{"auto_broadcast", "numpy"}, {"m_pythondiv", "true"}},
                  {{*value, 0}, {d, 0}}, {1});
    }
    if (t.multiple != 0) {
      // What the size lacks to be a multiple: (m - d mod m) mod m, remainders of a count by a positive m.
      const auto m = made.constant(fmt::format("multiple_{}", k), {t.multiple}, false);
      const auto numpy = std::pair<std::string, std::string>{"auto_broadcast", "numpy"};
      const auto over = made.add(fmt::format("remainder_{}", k), "FloorMod", 1, {numpy}, {{*value, 0}, {m, 0}}, {1});
      const auto lacks = made.add(fmt::format("lacking_{}", k), "Subtract", 1, {numpy}, {{m, 0}, {over, 0}}, {1});
      value = made.add(fmt::format("to_multiple_{}", k), "FloorMod", 1, {numpy}, {{lacks, 0}, {m, 0}}, {1});
    }
    pieces.push_back(*value);
  }
  flush();
  std::vector<std::pair<std::int64_t, std::size_t>> inputs;
  for (const auto p : pieces) inputs.emplace_back(p, 0);
  return made.add("values", "Concat", 1, {{"axis", "0"}}, std::move(inputs), {static_cast<std::int64_t>(terms.size())});
}

/// `count` (values_from_shape's) in `x.form` (the count, its reciprocal, Bessel's correction...), as the port
/// takes it: a scalar where it is one, in its element type.
std::int64_t in_form(const fix_plan& x, added_layers& made, std::int64_t count) {
  const std::vector<std::int64_t> dims = x.scalar ? std::vector<std::int64_t>{} : std::vector<std::int64_t>{1};
  // The computed values as the port takes them: a scalar where it is one (an empty pattern makes the one
  // value a scalar), converted to its type where that is not i64.
  const auto as_the_port_takes = [&](std::int64_t v, const std::string& prefix) {
    if (x.scalar) {
      const auto none = made.constant(prefix + "scalar_shape", {}, false);
      v = made.add(prefix + "scalar", "Reshape", 1, {{"special_zero", "false"}}, {{v, 0}, {none, 0}}, {});
    }
    if (x.converted) {
      v = made.add(prefix + "converted", "Convert", 1, {{"destination_type", std::string(name(*x.converted))}}, {{v, 0}},
              x.scalar ? std::vector<std::int64_t>{} : std::vector<std::int64_t>{static_cast<std::int64_t>(x.computed.size())});
      made.edits.back().output_type = *x.converted;
    }
    return v;
  };
  // Bessel's correction counts one less, in integers, before the port's type (a float: divisor_choices reads
  // no correction otherwise).
  const auto less = [&] {
    const auto by = made.constant("less_one_by", {1}, false);
    return as_the_port_takes(made.add("less_one", "Subtract", 1, {{"auto_broadcast", "numpy"}}, {{count, 0}, {by, 0}},
                                 {static_cast<std::int64_t>(x.computed.size())}),
                             "less_");
  };
  const auto divide = [&](std::string what, std::int64_t dividend, std::int64_t divisor) {
    const auto v = made.add(std::move(what), "Divide", 1, {{"auto_broadcast", "numpy"}, {"m_pythondiv", "true"}},
                       {{dividend, 0}, {divisor, 0}}, dims);
    if (x.converted) made.edits.back().output_type = *x.converted;
    return v;
  };
  // One in the port's type, to take one over a count (a float: divisor_choices reads no reciprocal otherwise).
  const auto one = [&] {
    auto v = made.constant("one", {1}, x.scalar);
    if (x.converted) {
      v = made.add("one_converted", "Convert", 1, {{"destination_type", std::string(name(*x.converted))}}, {{v, 0}}, dims);
      made.edits.back().output_type = *x.converted;
    }
    return v;
  };
  switch (x.form) {
    case count_form::count: return as_the_port_takes(count, "");
    case count_form::reciprocal: {
      const auto n = as_the_port_takes(count, "");
      return divide("reciprocal", one(), n);
    }
    case count_form::less_one: return less();
    case count_form::reciprocal_less_one: {
      const auto n = less();
      return divide("reciprocal", one(), n);
    }
    case count_form::ratio_less_one: {
      const auto n = as_the_port_takes(count, "");
      return divide("ratio", n, less());
    }
  }
  return count;  // every form is one of the cases
}

}  // namespace

/// Choice `c` for Reshape `l` as a rewrite of the Const that holds its element (directly or through a
/// Concat); nullopt, with `reason`, when the format says that Const cannot take it.
std::optional<fix_plan> fix_planner::target(const fix_site& s, const std::vector<std::int64_t>& within, const layer& l,
                                            const pattern_choice& c, text::fix_reason& reason) const {
  if (!c.computed.empty() || !c.reduction.empty()) {  // no Const is rewritten: new layers compute the pattern
    if (!within.empty()) {
      reason = text::computed_in_body();
      return std::nullopt;
    }
    if (!rewrites(s, within, l)) {
      reason = text::reaches_through_added_layer(l.name);
      return std::nullopt;
    }
    if (!c.reduction.empty()) {  // the layer becomes a reduction: only its axes are added
      fix_plan x;
      x.within = x.holder_within = within;
      x.reshape = x.holder = l.id;
      x.reduction = c.reduction;
      x.axes = c.axes;
      x.why = c.why;
      return x;
    }
    if (c.shape_of && original_.find(c.shape_of->first) == nullptr) {
      // (A layer an earlier rewrite added: its shape is no tensor of the model's.)
      reason = text::shape_values_unknown();
      return std::nullopt;
    }
    if (auto no = refuses_computed(s, l, c.shape_of)) {
      reason = std::move(*no);
      return std::nullopt;
    }
    const auto* from = c.shape_of ? s.g->find(c.shape_of->first) : nullptr;
    const auto& in = from != nullptr ? s.p->outputs[static_cast<std::size_t>(from - s.g->layers().data())][c.shape_of->second].shape
                                     : s.p->input(*s.g, l, 0).shape;
    if (!in.rank_known()) {
      reason = text::shape_values_unknown();
      return std::nullopt;
    }
    fix_plan x;
    x.within = x.holder_within = within;
    x.reshape = x.holder = l.id;
    x.computed = c.computed;
    x.input_rank = static_cast<std::int64_t>(in.size());
    // (A Const computed whole takes the place of its own output.)
    const auto& fed = c.range ? s.p->outputs[static_cast<std::size_t>(&l - s.g->layers().data())][0] : s.p->input(*s.g, l, c.port);
    x.scalar = !c.range && fed.shape.rank_known() && fed.shape.size() == 0 && c.computed.size() == 1;
    if (fed.type && *fed.type != element_type::i64) x.converted = *fed.type;
    x.range = c.range;
    x.shape_of = c.shape_of;
    x.shape_of_name = c.shape_of_name;
    x.port = c.port;
    x.form = c.form;
    x.pads = c.pads;
    x.why = c.why;
    return x;
  }
  const auto origin = origin_of_element(*s.g, *s.p, l, c.port, c.element);
  fix_plan x;
  x.within = x.holder_within = within;
  x.reshape = l.id;
  x.input = input_word(l);
  x.element = c.element;
  x.port = c.port;
  x.old_value = c.old_value;
  x.index = origin.index;
  x.value = c.value;
  x.set_special_zero = c.set_special_zero;
  if (origin.holder != nullptr && origin.consumer != nullptr) {
    x.holder = origin.holder->id;
    x.consumer = origin.consumer->id;
    x.consumer_port = origin.consumer_port;
  }
  for (const auto& [element, value] : c.also) {
    // Written into the same Const as the element, or not at all: one rewrite is one Const's bytes.
    const auto other = origin_of_element(*s.g, *s.p, l, c.port, element);
    if (other.holder != origin.holder || other.consumer != origin.consumer || other.consumer_port != origin.consumer_port ||
        other.path != origin.path) {
      reason = text::held_apart({c.element, x.input}, element);
      return std::nullopt;
    }
    x.also.emplace_back(other.index, value);
  }
  if (auto no = refuses(s, origin, x)) {
    reason = std::move(*no);
    return std::nullopt;
  }
  x.why = held_by(c.why, *site_at(*current_, nullptr, x.holder_within)->g->find(x.holder), origin);
  return x;
}

/// The rewrites that could resolve finding `f`, best first (pattern_choices, each where its value is
/// held); or the reason there are none.
std::vector<fix_plan> fix_planner::plans_for(const batch_finding& f, text::fix_reason& reason) const {
  const auto s = *where(f);
  const auto& l = *s.g->find(f.id);
  std::vector<fix_plan> plans;
  if (sizes() && !runs_.runs[1]) {  // the run at the shapes asked is what the choices are made from
    reason = text::shape_values_unknown();
    return plans;
  }
  if (sizes() && !options_.assume_constant.empty() && l.sources.size() > 1 && l.sources[1]) {
    // A pattern held by a constant the caller vouches for stays as it is (`--assume-constant`): a model
    // that fails at the new sizes with it is not fixed by rewriting it.
    const auto count = s.p->input(*s.g, l, 1).shape;
    const auto elements = count.rank_known() && count.size() == 1 && count[0].is_static() ? count[0].lo() : 0;
    for (std::int64_t e = 0; e < elements; ++e) {
      const auto origin = origin_of_element(*s.g, *s.p, l, 1, static_cast<std::size_t>(e));
      if (origin.holder == nullptr || part_of(origin.holder->type) != op_part::constant) continue;
      const auto id = fmt::format("#{}", origin.holder->id);
      if (std::any_of(options_.assume_constant.begin(), options_.assume_constant.end(),
                      [&](const std::string& a) { return a == origin.holder->name || a == id; })) {
        reason = text::vouched_pattern(origin.holder->name, options_.spelling);
        return plans;
      }
    }
  }
  if (part_of(l.type) != op_part::reshape) {  // an Interpolate's sizes, a slice's bounds, a Gather's positions
    const auto choices = value_choices(*s.g, *s.p, *runs_.runs[1], l, f, kept_values(l), reason);
    // Values not read along the data's axes (a bound check relates to another tensor's size) are refused
    // with check's finding, as the proof refuses what it finds.
    if (choices.empty() && reason.code == "shape_values_unknown") reason = text::refusal(f, proofs_.front().at);
    for (const auto& c : choices)
      if (auto x = target(s, ids_of(f.within), l, c, reason)) plans.push_back(std::move(*x));
    return plans;
  }
  const auto choices = sizes() ? size_pattern_choices(*s.g, *s.p, *runs_.runs[1], l, f, kept_values(l), reason)
                               : pattern_choices(*s.g, *s.p, l, f, reason);
  for (const auto& c : choices)
    if (auto x = target(s, ids_of(f.within), l, c, reason)) plans.push_back(std::move(*x));
  return plans;
}

namespace {

/// The values above 1 that a Reshape from `in` to `out` (both static) copies: a dimension that is, on its own,
/// one output dimension of the same value, where the two are read in groups of equal products.
std::vector<std::int64_t> copied_dimensions(const partial_shape& in, const partial_shape& out) {
  std::vector<std::int64_t> copies;
  for (const auto& g : product_groups(in, out))
    if (g.in_end - g.in_begin == 1 && g.out_end - g.out_begin == 1 && in[g.in_begin].lo() > 1)
      copies.push_back(in[g.in_begin].lo());
  return copies;
}

}  // namespace

std::vector<std::int64_t> fix_planner::kept_values(const layer& except) const {
  std::vector<std::int64_t> values;
  const auto& g = *current_;
  // The values of dimensions that change: a constant that equals one may stand for it (H/2 of a pixel
  // unshuffle's `[1,16,4,6]`), not for a factor that stays.
  // (A tensor the shapes asked leave of unknown rank, after a layer that fails there, counts as changing.)
  const auto moving = runs_.runs[1] ? changing_values(g, runs_.declared(), *runs_.runs[1], {}, true)
                                    : std::vector<std::int64_t>();
  // A Reshape after this one shows nothing at the new sizes where this one fails there (the windows
  // `[-1,7,7,96]` after a window partition), but, beside its -1, which of its elements copy one dimension of
  // its input: those are sizes its program kept (a window's 7), unless a dimension known to change has the
  // value. Not the others: the window reverse's `[1,8,8,7,7,96]` splits the window count.
  std::vector<char> self(g.layers().size(), 0);
  self[static_cast<std::size_t>(&except - g.layers().data())] = 1;
  const auto later = downstream_of(g, self);
  // (What this one feeds has no shape at the new sizes to show: only the sizes before it.)
  auto before = later;
  for (std::size_t i = 0; i < before.size(); ++i) before[i] = before[i] != 0 || self[i] != 0;
  const auto known_moving = runs_.runs[1] ? changing_values(g, runs_.declared(), *runs_.runs[1], before, false)
                                          : std::vector<std::int64_t>();
  for (const auto& l : g.layers()) {
    if (&l == &except || part_of(l.type) != op_part::reshape) continue;
    const auto index = static_cast<std::size_t>(&l - g.layers().data());
    if (later[index] != 0) {
      // Only beside the pattern's -1, which takes what the program computed: a copy in a pattern without one
      // may be a size that changes passed on (`[4,49]` after `[1,49,4]`, where 49 = H/4·W).
      const auto pattern = reshape_pattern_at(g, runs_.declared(), l, nullptr);
      const auto e = pattern.elements();
      if (std::none_of(e.begin(), e.end(), [](const pattern_bound& b) { return b.lo == -1 && b.hi == -1; })) continue;
      for (const auto v : copied_dimensions(runs_.declared().input(g, l, 0).shape, runs_.declared().outputs[index][0].shape))
        if (!std::binary_search(known_moving.begin(), known_moving.end(), v)) values.push_back(v);
      continue;
    }
    const layer_key key{{}, l.id};
    if (probe_ && std::any_of(probe_->findings.begin(), probe_->findings.end(),
                              [&](const batch_finding& f) { return key_of(f) == key; }))
      continue;
    std::vector<bool> constant;
    const auto pattern = reshape_pattern_at(g, runs_.declared(), l, &constant);
    const auto e = pattern.elements();
    for (std::size_t k = 0; k < e.size(); ++k)
      if (e[k].lo == e[k].hi && e[k].lo > 1 && k < constant.size() && constant[k] &&
          !std::binary_search(moving.begin(), moving.end(), e[k].lo))
        values.push_back(e[k].lo);
  }
  return values;
}

namespace {

/// The layers that compute plan `x`'s Range (fix_planner::range_edits) from its count (`count`, `[1]`): its
/// last. A table (counted_range::table) is its values as computed, in the Const's type.
std::int64_t range_layers(const fix_plan& x, added_layers& made, std::int64_t count) {
  if (x.range->table) {
    auto v = count;
    if (x.converted) {
      v = made.add("converted", "Convert", 1, {{"destination_type", std::string(name(*x.converted))}}, {{v, 0}},
                   {static_cast<std::int64_t>(x.computed.size())});
      made.edits.back().output_type = *x.converted;
    }
    // (A table of [1,4], squeezed where it is read, keeps its shape: [1,-1], which names no size.)
    if (x.range->shape.size() == 1) return v;
    const auto shape = made.constant("shape", table_pattern(x.range->shape), false);
    v = made.add("shaped", "Reshape", 1, {{"special_zero", "false"}}, {{v, 0}, {shape, 0}}, x.range->shape);
    if (x.converted) made.edits.back().output_type = *x.converted;
    return v;
  }
  const auto numpy = std::pair<std::string, std::string>{"auto_broadcast", "numpy"};
  // Range-4 counts from 0 by 1 in i64 (its inputs scalars), then the step and the start, in integers, then
  // the Const's type and shape: whole values, exact in every type the Const held them in.
  const auto none = made.constant("count_shape", {}, false);
  const auto n = made.add("count", "Reshape", 1, {{"special_zero", "false"}}, {{count, 0}, {none, 0}}, {});
  const auto zero = made.constant("zero", {0}, true), one = made.constant("one", {1}, true);
  auto v = made.add("range", "Range", 4, {{"output_type", "i64"}}, {{zero, 0}, {n, 0}, {one, 0}}, {-1});
  if (x.range->step != 1) {
    const auto step = made.constant("step", {x.range->step}, true);
    v = made.add("stepped", "Multiply", 1, {numpy}, {{v, 0}, {step, 0}}, {-1});
  }
  if (x.range->start != 0) {
    const auto start = made.constant("start", {x.range->start}, true);
    v = made.add("started", "Add", 1, {numpy}, {{v, 0}, {start, 0}}, {-1});
  }
  if (x.converted) {
    v = made.add("converted", "Convert", 1, {{"destination_type", std::string(name(*x.converted))}}, {{v, 0}}, {-1});
    made.edits.back().output_type = *x.converted;
  }
  const auto shape = made.constant("shape", x.range->shape, false);
  v = made.add("shaped", "Reshape", 1, {{"special_zero", "false"}}, {{v, 0}, {shape, 0}}, x.range->shape);
  if (x.converted) made.edits.back().output_type = *x.converted;
  return v;
}

/// The layers that compute plan `x`'s grid (fix_planner::range_edits) from its counts (`count`, one per axis
/// it counts along): its base plus, for each axis, a Range of its count along it times its slopes, added in
/// the order and the arithmetic check's grid_along verified (i64 for integers, f64 for f64, else f32), then
/// converted to the Const's type. Returns the last.
std::int64_t grid_layers(const fix_plan& x, added_layers& made, std::int64_t count) {
  const auto numpy = std::pair<std::string, std::string>{"auto_broadcast", "numpy"};
  const auto& r = *x.range;
  const auto type = x.converted.value_or(element_type::i64);
  const auto in = is_integer(type) ? element_type::i64 : type == element_type::f64 ? element_type::f64 : element_type::f32;
  auto reduced = r.shape;  // the base's and each slope's
  for (const auto a : r.axes) reduced[a] = 1;
  auto dims = reduced;  // the sum's
  auto v = made.constant("base", r.base, reduced, in);
  const auto axis = made.constant("axis", {0}, true);
  const auto zero = made.constant("zero", {0}, true), one = made.constant("one", {1}, true);
  for (std::size_t e = 0; e < r.axes.size(); ++e) {
    const auto a = r.axes[e];
    const auto index = made.constant(fmt::format("index_{}", e), {static_cast<std::int64_t>(e)}, true);
    const auto n = made.add(fmt::format("count_{}", e), "Gather", 8, {{"batch_dims", "0"}}, {{count, 0}, {index, 0}, {axis, 0}}, {});
    auto t = made.add(fmt::format("range_{}", e), "Range", 4, {{"output_type", "i64"}}, {{zero, 0}, {n, 0}, {one, 0}}, {-1});
    if (in != element_type::i64) {
      t = made.add(fmt::format("converted_{}", e), "Convert", 1, {{"destination_type", std::string(name(in))}}, {{t, 0}}, {-1});
      made.edits.back().output_type = in;
    }
    std::vector<std::int64_t> along(r.shape.size(), 1);
    along[a] = -1;
    const auto shape = made.constant(fmt::format("shape_{}", e), along, false);
    t = made.add(fmt::format("along_{}", e), "Reshape", 1, {{"special_zero", "false"}}, {{t, 0}, {shape, 0}}, along);
    made.edits.back().output_type = in;
    auto sloped = reduced;
    sloped[a] = -1;
    const auto slope = made.constant(fmt::format("slope_{}", e), r.slopes[e], reduced, in);
    t = made.add(fmt::format("sloped_{}", e), "Multiply", 1, {numpy}, {{t, 0}, {slope, 0}}, sloped);
    made.edits.back().output_type = in;
    dims[a] = -1;
    v = made.add(fmt::format("summed_{}", e), "Add", 1, {numpy}, {{v, 0}, {t, 0}}, dims);
    made.edits.back().output_type = in;
  }
  if (type != in) {
    v = made.add("converted", "Convert", 1, {{"destination_type", std::string(name(type))}}, {{v, 0}}, dims);
    made.edits.back().output_type = type;
  }
  return v;
}

}  // namespace

void fix_planner::range_edits(const fix_plan& x, const layer& holder, std::int64_t first_id, std::uint64_t base,
                              std::vector<graph_edit>& edits, std::vector<std::byte>& appended) const {
  if (!x.shape_of) fail(errc::invalid_argument, {}, fmt::format("{}: a range without the tensor it counts", holder.where()), {});
  added_layers made{fmt::format("{}/values", holder.name), first_id, base, edits, appended};
  const auto count = values_from_shape(x, x.computed, made, *x.shape_of);
  const auto v = x.range->axes.empty() ? range_layers(x, made, count) : grid_layers(x, made, count);
  // Every layer that read the Const reads the Range instead.
  const auto at = static_cast<std::size_t>(&holder - original_.layers().data());
  for (const auto& c : original_.layers())
    for (std::size_t port = 0; port < c.sources.size(); ++port)
      if (c.sources[port] && c.sources[port]->layer == at && c.sources[port]->output == 0)
        edits.push_back({.what = graph_edit::kind::set_source, .layer = v, .consumer = c.id, .port = port, .output = 0});
}

void fix_planner::computed_edits(const fix_plan& x, std::int64_t first_id, std::uint64_t base,
                                 std::vector<graph_edit>& edits, std::vector<std::byte>& appended) const {
  const auto& reshape = *original_.find(x.reshape);
  if (x.range) {
    range_edits(x, reshape, first_id, base, edits, appended);
    return;
  }
  if (reshape.sources.empty() || !reshape.sources[0])
    fail(errc::invalid_argument, {}, fmt::format("{}: a {} without its data input", reshape.where(),
                                                 x.reduction.empty() ? "Reshape" : "pooling"), {});
  const std::pair<std::int64_t, std::size_t> data{original_.layers()[reshape.sources[0]->layer].id, reshape.sources[0]->output};
  if (!x.reduction.empty()) {
    // The pooling becomes the reduction over its spatial axes, kept as 1s: its data input, then the axes.
    added_layers made{fmt::format("{}/axes", reshape.name), first_id, base, edits, appended};
    const auto axes = made.constant("values", x.axes, false);
    edits.push_back({.what = graph_edit::kind::replace_layer,
                     .layer = x.reshape,
                     .type = x.reduction,
                     .opset = 1,
                     .attributes = {{"keep_dims", "true"}},
                     .inputs = {data, {axes, 0}}});
    return;
  }
  if (x.pads) {
    // A Pad's begins and ends, which ONNX lists as one input, are two inputs of the IR's (1 and 2); amounts
    // of another type than i64 (an IR's i32 pads) are converted to it.
    const auto half = x.computed.size() / 2;
    const std::span<const pattern_term> all(x.computed);
    auto id = first_id;
    for (const std::size_t port : {1U, 2U}) {
      added_layers made{fmt::format("{}/{}", reshape.name, port == 1 ? "pads_begin" : "pads_end"), id, base, edits, appended};
      auto v = values_from_shape(x, port == 1 ? all.first(half) : all.subspan(half), made, data);
      if (x.converted) {
        v = made.add("converted", "Convert", 1, {{"destination_type", std::string(name(*x.converted))}}, {{v, 0}},
                     {static_cast<std::int64_t>(half)});
        edits.back().output_type = *x.converted;
      }
      edits.push_back({.what = graph_edit::kind::set_source, .layer = v, .consumer = x.reshape, .port = port, .output = 0});
      id = made.id;
    }
    return;
  }
  added_layers made{fmt::format("{}/{}", reshape.name, input_word(reshape)), first_id, base, edits, appended};
  const auto count = values_from_shape(x, x.computed, made, x.shape_of ? *x.shape_of : data);
  const auto values = in_form(x, made, count);
  edits.push_back({.what = graph_edit::kind::set_source, .layer = values, .consumer = x.reshape, .port = x.port, .output = 0});
}

}  // namespace reshape1::model::detail
