// check_batch at new sizes (issue 47, item 2): the constants a fixed-shape export may have written where
// the program computed a size. A model exported at 224x224 that views a tensor as [1,49,768] holds 49 = 7·7,
// which is 8·8 at 256x256: where the constant still fits (no layer fails), the model runs and computes
// something else. reshape1 cannot see what the source program computed, so a constant that equals, at the
// declared shapes, a size that changes (a dimension, or a product of adjacent dimensions, of a tensor whose
// shape changes) is a finding that cannot tell, naming both; `--assume-constant` vouches for one.
#include "model/analysis/batch_internal.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <numeric>
#include <optional>
#include <span>
#include <unordered_map>

#include <fmt/format.h>

#include "model/options.hpp"
#include "model/ops/rules.hpp"
#include "model/ops/sizes.hpp"
#include "model/text/batch.hpp"

namespace reshape1::model::detail {

void add_changing(const partial_shape& d, const partial_shape& a, std::optional<std::size_t> batch_axis,
                  std::string_view name, std::unordered_map<std::int64_t, size_source>& sizes, bool scaled_too) {
  if (!d.rank_known() || d.size() == 0) return;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (d[i].is_static() && d[i].lo() == 1) continue;  // a product from a 1 is the one after it, named so
    std::int64_t product = 1;
    std::optional<std::int64_t> at_asked = 1;
    bool changes = false;
    for (std::size_t j = i; j < d.size(); ++j) {
      // Products stay at most largest_size (2^40), so none overflows: a factor is checked before it is taken.
      if (!d[j].is_static() || d[j].lo() == 0 || d[j].lo() > largest_size / product) break;
      product *= d[j].lo();
      // The batch is the batch analysis's: a channel count is not a size because it sits beside N.
      changes = changes || (j != batch_axis && !same_at(d, a, j));
      if (at_asked && a.rank_known() && a.size() == d.size() && a[j].is_static() && a[j].lo() <= largest_size / std::max<std::int64_t>(*at_asked, 1))
        at_asked = *at_asked * a[j].lo();
      else
        at_asked.reset();
      if (!changes || product <= 1) continue;
      const size_source source{&d, name, i, j, at_asked, size_source::scale::none, {}};
      sizes.try_emplace(product, source);
      if (i != j || !scaled_too) continue;
      // Half and twice a dimension (a crop to the middle, an upsampled size): the usual factor, rounded
      // both ways.
      const auto scaled = [&](std::int64_t value, size_source::scale how, auto f) {
        if (value <= 1 || value > largest_size) return;
        auto x = source;
        x.how = how;
        x.asked = at_asked ? std::optional<std::int64_t>(f(*at_asked)) : std::nullopt;
        sizes.try_emplace(value, x);
      };
      scaled(product / 2, size_source::scale::half_down, [](std::int64_t x) { return x / 2; });
      scaled((product + 1) / 2, size_source::scale::half_up, [](std::int64_t x) { return (x + 1) / 2; });
      scaled(product * 2, size_source::scale::twice, [](std::int64_t x) { return x * 2; });
    }
  }
}

namespace {

/// Every size that changes, of every tensor of the graph.
std::unordered_map<std::int64_t, size_source> changing_sizes(const graph& g, const propagation& declared,
                                                           const propagation& asked,
                                                           std::span<const std::vector<batch_carrier>> carriers,
                                                           bool scaled) {
  std::unordered_map<std::int64_t, size_source> sizes;
  for (const auto index : g.order())
    for (std::size_t o = 0; o < declared.outputs[index].size() && o < asked.outputs[index].size(); ++o)
      add_changing(declared.outputs[index][o].shape, asked.outputs[index][o].shape, batch_axis(carriers, index, o),
                   g.layers()[index].name, sizes, scaled);
  return sizes;
}

struct baked {
  std::size_t port = 0, element = 0;
  std::int64_t value = 0;
  size_source equals;  ///< a copy: the sizes of one layer's data are made for it alone
  std::string holder;  ///< the Const's name, "" when it is not one Const's element
  std::optional<std::int64_t> holder_id;
  std::string constant;  ///< the constant as the model holds it (`16`, `0.0625`)
  std::string_view relation = "equals";  ///< how it is the size: equals it, is its reciprocal, is one less
};

/// The sizes on one layer's path: what its inputs hold, then the layers before them, nearest first, looked at
/// only as far as a constant needs; then, for a constant read as a size, the sizes of the model's other
/// inputs (a length the program had, though no data of that input reaches the layer). Not those of tensors
/// in other branches: a box's 4 coordinates would be taken for a feature map 4 high in the next head.
class upstream_sizes {
 public:
  upstream_sizes(const graph& g, const propagation& declared, const propagation& asked,
                 std::span<const std::vector<batch_carrier>> carriers, const std::unordered_map<std::int64_t, size_source>& all,
                 const layer& l, std::size_t data, bool scaled)
      : g_(g), declared_(declared), asked_(asked), carriers_(carriers), all_(all), l_(l), data_(data), scaled_(scaled) {}

  /// The nearest size upstream that is `v`; else, where `anywhere`, a size of a model input that is `v` (a
  /// dimension or a product of adjacent ones, not half or twice one); null when there is none.
  [[nodiscard]] const size_source* find(std::int64_t v, bool anywhere) {
    const auto* near = upstream(v, false);
    if (near != nullptr || !anywhere || !all_.contains(v)) return near;
    if (!elsewhere_) {
      elsewhere_.emplace();
      for (const auto index : g_.order())
        if (part_of(g_.layers()[index].type) == op_part::parameter)
          for (std::size_t o = 0; o < declared_.outputs[index].size() && o < asked_.outputs[index].size(); ++o)
            add_changing(declared_.outputs[index][o].shape, asked_.outputs[index][o].shape,
                         batch_axis(carriers_, index, o), g_.layers()[index].name, *elsewhere_, false);
    }
    const auto it = elsewhere_->find(v);
    return it != elsewhere_->end() ? &it->second : nullptr;
  }

  /// The nearest size upstream that is `v` and a dimension or a product of adjacent ones, not half or twice
  /// one (a position one less than a size: 1 would be one less than half of 4, but 6 of `cat(x, x)[:, 6]` is
  /// one less than x's 7 all the same); null when there is none.
  [[nodiscard]] const size_source* find_plain(std::int64_t v) { return upstream(v, true); }

 private:
  const size_source* upstream(std::int64_t v, bool plain) {
    if (!all_.contains(v)) return nullptr;  // no tensor of the model has it
    if (visited_.empty()) {
      // Made only for a constant some tensor's size equals: most layers never walk their path.
      visited_.assign(g_.layers().size(), 0);
      const auto push = [&](std::size_t p) {
        if (p < l_.sources.size() && l_.sources[p] && visited_[l_.sources[p]->layer] == 0) {
          visited_[l_.sources[p]->layer] = 1;
          queue_.push_back(l_.sources[p]->layer);
        }
      };
      // Half and twice a size only of the data the layer reads: further up they would match too much.
      if (data_ < l_.sources.size() && l_.sources[data_]) {
        const auto& s = *l_.sources[data_];
        add_changing(declared_.outputs[s.layer][s.output].shape, asked_.outputs[s.layer][s.output].shape,
                     batch_axis(carriers_, s.layer, s.output), g_.layers()[s.layer].name, seen_, scaled_);
        add_changing(declared_.outputs[s.layer][s.output].shape, asked_.outputs[s.layer][s.output].shape,
                     batch_axis(carriers_, s.layer, s.output), g_.layers()[s.layer].name, plain_, false);
      }
      push(data_);
      for (std::size_t p = 0; p < l_.sources.size(); ++p) push(p);
    }
    auto& found = plain ? plain_ : seen_;
    for (;;) {
      if (const auto it = found.find(v); it != found.end()) return &it->second;
      if (queue_.empty()) return nullptr;
      const auto index = queue_.front();
      queue_.pop_front();
      const auto& l = g_.layers()[index];
      for (std::size_t o = 0; o < declared_.outputs[index].size() && o < asked_.outputs[index].size(); ++o)
        for (auto* sizes : {&seen_, &plain_})
          add_changing(declared_.outputs[index][o].shape, asked_.outputs[index][o].shape, batch_axis(carriers_, index, o),
                       l.name, *sizes, false);
      for (const auto& s : l.sources)
        if (s && visited_[s->layer] == 0) {
          visited_[s->layer] = 1;
          queue_.push_back(s->layer);
        }
    }
  }

  const graph& g_;
  const propagation& declared_;
  const propagation& asked_;
  std::span<const std::vector<batch_carrier>> carriers_;
  const std::unordered_map<std::int64_t, size_source>& all_;
  const layer& l_;
  std::size_t data_;
  bool scaled_;
  std::unordered_map<std::int64_t, size_source> seen_;
  std::unordered_map<std::int64_t, size_source> plain_;  // seen_ without half and twice the data's dimensions
  std::deque<std::size_t> queue_;
  std::vector<char> visited_;
  std::optional<std::unordered_map<std::int64_t, size_source>> elsewhere_;
};

/// Whether element `e` (value `v`) of a slice's end is at or past the end of its axis both at the declared
/// shapes and at the shapes asked: it is clamped to the axis at both, so the slice is the same whatever
/// size it stands for.
bool ends_past_both(const graph& g, const propagation& declared, const propagation& asked, const layer& l,
                    std::size_t port, std::size_t e, std::int64_t v) {
  const auto placed = placed_inputs(l);
  const auto end = std::find_if(placed.begin(), placed.end(),
                                [&](const placed_input& p) { return p.port == port && p.kind == placement::end; });
  if (end == placed.end()) return false;
  std::int64_t axis = static_cast<std::int64_t>(e);
  if (end->axes_port && *end->axes_port < l.sources.size() && l.sources[*end->axes_port]) {
    const auto& axes = declared.input(g, l, *end->axes_port).value;
    if (!axes || axes->is_real() || e >= axes->elements.size() || !axes->elements[e].exact()) return false;
    axis = axes->elements[e].lo;
  }
  const auto& d = declared.input(g, l, 0).shape;
  const auto& a = asked.input(g, l, 0).shape;
  if (!d.rank_known() || !a.rank_known() || d.size() != a.size()) return false;
  if (axis < 0) axis += static_cast<std::int64_t>(d.size());
  if (axis < 0 || static_cast<std::size_t>(axis) >= d.size()) return false;
  const auto k = static_cast<std::size_t>(axis);
  return d[k].is_static() && a[k].is_static() && v >= d[k].lo() && v >= a[k].lo();
}

/// How a real constant may stand for a size n: the size, its reciprocal and, after a sum or a mean of a
/// moment's terms, Bessel's correction (torch's unbiased var and std divide by one less than the count,
/// n-1, or scale a mean by n/(n-1)) and the roots a standard deviation or a root mean square takes of the
/// count or of its correction. These are read only after such a reduction: 255 in x/255 is no count.
struct real_reading {
  std::string_view relation;  ///< as the finding says it: "the constant 48 <relation> H·W (49)"
  double (*size_of)(double);  ///< the size a constant would stand for, to be rounded
  double (*constant_of)(double);  ///< the constant that stands for size n, to compare with the one held
  double least = 2;  ///< the least size read so: a correction of 1 (n = 2) is too common a constant
  /// A correction: read only of the count of the elements the reduction before it reduces (a 6 after a
  /// mean over 7x7 is hard-sigmoid's, not one less than 7).
  bool corrects = false;
  /// The root the constant takes of the size (or of one less), where it does: a root that is a small whole
  /// number makes too common a constant (0.5 is 1/√4, 1/3 is 1/√(10-1)) to be read so.
  double (*root_of)(double) = nullptr;
};

std::span<const real_reading> real_readings(bool after_reduction) {
  static constexpr real_reading all[] = {
      {"equals", [](double r) { return r; }, [](double n) { return n; }, 2, false},
      {"is the reciprocal of", [](double r) { return 1 / r; }, [](double n) { return 1 / n; }, 2, false},
      {"is one less than", [](double r) { return r + 1; }, [](double n) { return n - 1; }, 3, true},
      {"is the reciprocal of one less than", [](double r) { return 1 / r + 1; }, [](double n) { return 1 / (n - 1); }, 3, true},
      {"is n/(n-1) for n =", [](double r) { return r / (r - 1); }, [](double n) { return n / (n - 1); }, 3, true},
      // Under a square root: a standard deviation corrected after the root.
      {"is the square root of n/(n-1) for n =", [](double r) { return r * r / (r * r - 1); },
       [](double n) { return std::sqrt(n / (n - 1)); }, 3, true},
      {"is one over the square root of one less than", [](double r) { return 1 / (r * r) + 1; },
       [](double n) { return 1 / std::sqrt(n - 1); }, 3, true, [](double n) { return std::sqrt(n - 1); }},
      {"is the square root of one less than", [](double r) { return r * r + 1; }, [](double n) { return std::sqrt(n - 1); },
       3, true, [](double n) { return std::sqrt(n - 1); }},
      // A divisor (n-1)/n: the mean of squares over it is times n/(n-1).
      {"is (n-1)/n for n =", [](double r) { return 1 / (1 - r); }, [](double n) { return (n - 1) / n; }, 3, true},
      // A root of a sum of squares over the root of its count, or times one over it: a root mean square.
      {"is the square root of", [](double r) { return r * r; }, [](double n) { return std::sqrt(n); }, 3, true,
       [](double n) { return std::sqrt(n); }},
      {"is one over the square root of", [](double r) { return 1 / (r * r); }, [](double n) { return 1 / std::sqrt(n); }, 3,
       true, [](double n) { return std::sqrt(n); }},
      // The log of a mean of exponentials: a log-sum-exp less the log of the count (or of its correction).
      {"is the logarithm of", [](double r) { return std::exp(r); }, [](double n) { return std::log(n); }, 3, true},
      {"is the logarithm of one less than", [](double r) { return std::exp(r) + 1; }, [](double n) { return std::log(n - 1); },
       3, true},
  };
  return after_reduction ? std::span<const real_reading>(all) : std::span<const real_reading>(all).first(2);
}

/// A count of elements a reduction reduces, as a size a constant may stand for.
struct reduced_size {
  std::int64_t count = 0;
  size_source source;
};
std::vector<reduced_size> reduction_sizes(const graph& g, const propagation& declared, const propagation& asked,
                                          const layer& last, bool moments) {
  // The steps from `last` back; for moments, one of them reduces a moment's terms (a log-sum-exp taken over
  // W, then over H, sums exponentials at each step).
  const auto steps = reduction_steps(g, last);
  if (moments && std::none_of(steps.begin(), steps.end(),
                              [&](const layer* r) { return reduces_data(g, declared, *r, reduced_data::moments); }))
    return {};
  // Each step's own count, the extents it reduces of its input at the declared shapes, and at the shapes asked.
  struct step_count {
    std::int64_t count = 1;
    std::optional<std::int64_t> asked = 1;
    std::string extents;
    bool changes = false;  ///< some extent it reduces is another at the shapes asked (8·18 asked as 12·12 too)
  };
  std::vector<step_count> own;
  for (const auto* r : steps) {
    if (r->sources.size() < 2 || !r->sources[0]) break;
    const auto& in = declared.input(g, *r, 0).shape;
    const auto& now = asked.input(g, *r, 0).shape;
    const auto axes = in.is_static() ? reduced_axes(g, declared, *r, in.size()) : std::nullopt;
    if (!axes) break;
    std::vector<bool> summed(in.size(), false);
    for (const auto a : *axes) summed[a] = true;
    bool read = true;
    step_count c;
    const bool comparable = now.rank_known() && now.size() == in.size();
    for (std::size_t k = 0; k < in.size() && read; ++k) {
      if (!summed[k]) continue;
      const auto extent = in[k].lo();
      read = extent >= 1 && c.count <= largest_size / extent;
      if (!read) break;
      c.count *= extent;
      c.extents += fmt::format("{}{}", c.extents.empty() ? "" : "·", extent);
      c.changes = c.changes || !(comparable && now[k].is_static() && now[k].lo() == extent);
      if (c.asked && comparable && now[k].is_static() && now[k].lo() >= 1 && *c.asked <= largest_size / now[k].lo())
        c.asked = *c.asked * now[k].lo();
      else
        c.asked.reset();
    }
    if (!read) break;
    own.push_back(std::move(c));
  }
  // Every run of consecutive steps (W, H and H·W of a sum over W, then over H), where its count changes.
  std::vector<reduced_size> out;
  for (std::size_t i = 0; i < own.size(); ++i) {
    std::int64_t product = 1;
    std::optional<std::int64_t> at_asked = 1;
    std::string extents, names;
    bool changes = false;
    for (std::size_t j = i; j < own.size(); ++j) {
      changes = changes || own[j].changes;
      if (product > largest_size / own[j].count) break;
      product *= own[j].count;
      at_asked = at_asked && own[j].asked && *at_asked <= largest_size / std::max<std::int64_t>(*own[j].asked, 1)
                     ? std::optional<std::int64_t>(*at_asked * *own[j].asked)
                     : std::nullopt;
      // Named from the first step on, as the data flows.
      extents = extents.empty() ? own[j].extents : fmt::format("{}·{}", own[j].extents, extents);
      names = names.empty() ? fmt::format("'{}'", steps[j]->name) : fmt::format("'{}' then {}", steps[j]->name, names);
      if (product <= 1 || !changes) continue;
      reduced_size x;
      x.count = product;
      x.source.name = steps[j]->name;
      x.source.asked = at_asked;
      x.source.counted = fmt::format("{}, the elements {} {}", extents, names, i == j ? "reduces" : "reduce");
      out.push_back(std::move(x));
    }
  }
  return out;
}

/// The sum or mean (sums_or_averages) that the operand of `l` other than input `port` is, moved or
/// converted at most (a few steps that carry values and compute none: Reshape, Transpose, Convert); null
/// where there is none.
const layer* plain_reduction(const graph& g, const layer& l, std::size_t port) {
  if (l.sources.size() != 2 || port > 1 || !l.sources[1 - port]) return nullptr;
  const layer* x = &g.layers()[l.sources[1 - port]->layer];
  for (int hops = 0; hops < 4 && x != nullptr; ++hops) {
    if (sums_or_averages(*x)) return x;
    const auto part = part_of(x->type);
    if (!(part == op_part::passes_values || part == op_part::reshape || permutes_axes(*x)) || x->sources.empty() || !x->sources[0])
      return nullptr;
    x = &g.layers()[x->sources[0]->layer];
  }
  return nullptr;
}

/// The counts a constant input `port` of `l` may be read of: the elements the sum or mean before it reduces
/// (`any`), and those of a moment's reduction before it (`moments`), each with their steps.
struct counts_before {
  std::vector<reduced_size> any, moments;
};
counts_before reduction_counts(const graph& g, const propagation& declared, const propagation& asked, const layer& l,
                               std::size_t port) {
  counts_before c;
  if (const auto* nearest = reduction_before(g, declared, l, port, reduced_data::anything))
    c.any = reduction_sizes(g, declared, asked, *nearest, false);
  if (const auto* moment = reduction_before(g, declared, l, port, reduced_data::moments))
    c.moments = reduction_sizes(g, declared, asked, *moment, true);
  return c;
}

/// The size among `counts` that is `n`; null where there is none.
const size_source* count_among(const std::vector<reduced_size>& counts, std::int64_t n) {
  const auto it = std::find_if(counts.begin(), counts.end(), [n](const reduced_size& c) { return c.count == n; });
  return it != counts.end() ? &it->source : nullptr;
}

/// Whether every element of `v` is the same constant (a scalar, or a per-channel tensor written with one
/// value throughout, as a correction broadcast to `[1,C]`).
bool one_constant_value(const tensor_value& v) {
  if (v.is_real()) {
    for (std::size_t i = 0; i < v.reals.size(); ++i)
      if (!v.real_constant(i) || !(v.reals[i] == v.reals[0])) return false;
    return true;
  }
  return !v.elements.empty() && std::all_of(v.elements.begin(), v.elements.end(), [&](const element_bound& b) {
    return b.exact() && b.constant && b == v.elements[0];
  });
}

/// The layer a real value comes from: its Const through Converts and the like (value_holder), and through one
/// function of that Const alone (sqrt(225), exp(2.708...): an export folds the count behind it), which is
/// what a user vouches for; else the layer that computes it.
std::size_t real_holder(const graph& g, std::size_t index) {
  const auto h = value_holder(g, index);
  const auto& x = g.layers()[h];
  const auto* row = find_entry(x.type, x.opset);
  if (row == nullptr || row->batch.fn != batch::pointwise || x.sources.size() != 1 || !x.sources[0]) return h;
  const auto inner = value_holder(g, x.sources[0]->layer);
  return part_of(g.layers()[inner].type) == op_part::constant ? inner : h;
}

/// baked_in_port for a real constant `v`.
void baked_real(const graph& g, const propagation& declared, const propagation& asked, const layer& l,
                std::size_t port, const tensor_value& v, upstream_sizes& sizes, std::span<const std::string> assumed, std::vector<baked>& found) {
  // A real constant: only one value of an elementwise op (a mean written as sum/49, sum·(1/49), or
  // sum/(7·7) computed from constants; a scalar, or a tensor of that one value) or of a Range (a grid
  // counted in floats), not one computed from a dimension. Its Const, maybe through Converts (an IR
  // compressed to f16 decompresses its weights so), is named where there is one.
  const bool one_value = one_constant_value(v);
  // A model output that is one real constant (a count written out beside a mean) is compared too.
  const bool written_out = part_of(l.type) == op_part::result;
  if (!(elementwise_arithmetic(l.type) || (counts_range(l) && v.reals.size() == 1) || (written_out && one_value))) return;
  const layer* holder = &g.layers()[real_holder(g, l.sources[port]->layer)];
  const bool one_const = part_of(holder->type) == op_part::constant;
  if (one_const && (holder->auxiliary || vouched(*holder, assumed))) return;
  const auto& feeder = *holder;
  // As close as the Const's type holds a size or its reciprocal: f16 keeps 11 bits, bf16 8 (a value
  // computed from constants: as f32 holds it).
  const auto type = one_const && feeder.find("element_type") != nullptr ? feeder.text("element_type", "f32") : std::string_view("f32");
  const double tolerance = type == "f16" ? 1e-3 : type == "bf16" ? 8e-3 : type == "f32" ? 1e-6 : 1e-9;
  // Corrections are read only of a moment's reduction (of squares, products, cubes or absolute values):
  // (x - mean)/255 on a map 256 wide is no variance. A count or its reciprocal, of any reduction's
  // elements too (a mean over C and W: 3·14, no product of adjacent dimensions).
  auto [reduced, counts] = written_out ? counts_before() : reduction_counts(g, declared, asked, l, port);
  // A sum or mean that is the other operand itself, moved or converted at most, is corrected as a moment
  // is (a sum over n-1, a mean times n/(n-1)): no data comes between them, as it does in (x - mean)/255.
  if (const auto* plain = written_out ? nullptr : plain_reduction(g, l, port)) {
    auto more = reduction_sizes(g, declared, asked, *plain, false);
    counts.insert(counts.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  // A tensor of several values is read element by element only as the counts of the reductions before it
  // (a mean's divisor, a correction, one per channel): a table of weights would hold any size by chance.
  if (!one_value && counts.empty() && reduced.empty()) return;
  for (std::size_t e = 0; e < (one_value ? 1 : v.reals.size()); ++e) {
    const double r = v.reals[e];
    // NaN or an infinity: no size, and no integer to convert to; a computed element is no constant.
    if (!std::isfinite(r) || r == 0.0 || !v.real_constant(e)) continue;
    for (const auto& reading : real_readings(!counts.empty())) {
      const double x = reading.size_of(r);
      if (!std::isfinite(x)) continue;
      const double n = std::round(x);
      if (n < reading.least || n > static_cast<double>(largest_size)) continue;
      const auto* count = count_among(reading.corrects ? counts : reduced, static_cast<std::int64_t>(n));
      if ((reading.corrects || !one_value) && count == nullptr) continue;
      const double expected = reading.constant_of(n);
      if (std::abs(r - expected) > tolerance * std::abs(expected)) continue;
      if (const double root = reading.root_of != nullptr ? reading.root_of(n) : 0; root <= 4 && root == std::round(root) && root > 0)
        continue;
      // (A range's limit, as an integer one, may be a size no data of its path carries.)
      const auto* equals = one_value ? sizes.find(static_cast<std::int64_t>(n), counts_range(l) || written_out) : nullptr;
      if (equals == nullptr) equals = count;
      if (equals != nullptr) {
        found.push_back({port, e, static_cast<std::int64_t>(n), *equals, one_const ? std::string(feeder.name) : std::string(),
                         one_const ? std::optional<std::int64_t>(feeder.id) : std::nullopt, fmt::format("{}", r),
                         reading.relation});
        return;
      }
    }
  }
}

/// baked_in_port for an integer constant `v`.
void baked_integer(const graph& g, const propagation& declared, const propagation& asked, const layer& l,
                   std::size_t port, const tensor_value& v, upstream_sizes& sizes, std::span<const std::string> assumed,
                   std::vector<baked>& found) {
  // Integers: an elementwise op's only when one value (a divisor, maybe spread over channels), the others'
  // every element.
  const bool arithmetic = elementwise_arithmetic(l.type);
  if (arithmetic && !one_constant_value(v)) return;
  // An integer mean divides by its count, an integer variance by one less, as real ones do.
  const auto [reduced, counts] = arithmetic ? reduction_counts(g, declared, asked, l, port) : counts_before();
  // An index or a bound may be the last index along a size (x[:, -1] written as H - 1).
  const bool index = holds_positions(l, port);
  // Indices into a shape (Gather(Shape(x), 2)) name dimensions, not positions along one: data some of whose
  // elements were computed from shapes. A table of constants is indexed by position, as a tensor is.
  if (const auto& data = declared.input(g, l, 0).value; index && data && !data->is_real() &&
      (std::any_of(data->elements.begin(), data->elements.end(), [](const element_bound& b) { return !b.constant; }) ||
       (!l.sources.empty() && l.sources[0] && gives_dimensions(g.layers()[l.sources[0]->layer]))))
    return;
  // An elementwise op's one value is looked at once.
  for (std::size_t e = 0; e < (arithmetic ? 1 : v.elements.size()); ++e) {
    const auto& b = v.elements[e];
    if (!b.exact() || !b.constant || b.lo < (index ? 1 : 2)) continue;
    // A size (a pattern's element, a repeat count, a range's limit) may come from another input's shape that
    // no data of the layer's path carries. A position or a divisor is looked for only along the path.
    const auto* equals = b.lo >= 2 ? sizes.find(b.lo, !index && !arithmetic) : nullptr;
    if (equals == nullptr && b.lo >= 2) equals = count_among(reduced, b.lo);
    std::string_view relation = "equals";
    if (equals == nullptr && index && b.lo < largest_size) {
      // One less than a dimension, not than half of one: 1 would be one less than half of 4.
      equals = sizes.find_plain(b.lo + 1);
      relation = "is one less than";
    }
    if (const auto* count = b.lo < largest_size ? count_among(counts, b.lo + 1) : nullptr; equals == nullptr && count != nullptr) {
      equals = sizes.find(b.lo + 1, false);
      if (equals == nullptr) equals = count;
      relation = "is one less than";
    }
    if (equals == nullptr) continue;
    if (relation == "equals" && ends_past_both(g, declared, asked, l, port, e, b.lo)) continue;
    const auto origin = origin_of_element(g, declared, l, port, e);
    // reshape1's own constants (an axis an ONNX lowering writes as a split's lengths) stand for attributes.
    if (origin.holder != nullptr && origin.holder->auxiliary && l.auxiliary) continue;
    if (origin.holder != nullptr && vouched_value(g, *origin.holder, assumed)) continue;
    baked x{port, e, b.lo + (relation == "equals" ? 0 : 1), *equals, {}, std::nullopt, fmt::format("{}", b.lo), relation};
    if (origin.holder != nullptr && part_of(origin.holder->type) == op_part::constant) {
      x.holder = origin.holder->name;
      x.holder_id = origin.holder->id;
    }
    found.push_back(std::move(x));
  }
}

/// The constant elements of input `port` of `l` that equal a size that changes.
void baked_in_port(const graph& g, const propagation& declared, const propagation& asked, const layer& l,
                   std::size_t port, upstream_sizes& sizes, std::span<const std::string> assumed,
                   std::vector<baked>& found) {
  if (port >= l.sources.size() || !l.sources[port]) return;
  const auto& v = declared.input(g, l, port).value;
  if (!v) return;
  if (v->is_real())
    baked_real(g, declared, asked, l, port, *v, sizes, assumed, found);
  else
    baked_integer(g, declared, asked, l, port, *v, sizes, assumed, found);
}

/// The axes of the data (input 0) whose size changes between the declared shapes and the shapes asked.
std::vector<bool> changing_axes(const graph& g, const propagation& declared, const propagation& asked, const layer& l,
                                std::optional<std::size_t> batch) {
  const auto& d = declared.input(g, l, 0).shape;
  const auto& a = asked.input(g, l, 0).shape;
  std::vector<bool> r(d.rank_known() ? d.size() : 0, false);
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = i != batch && !same_at(d, a, i);
  return r;
}

/// A constant placed along an axis whose size changes: where it is, and the Const that holds it.
struct placed {
  std::size_t port = 0, element = 0, axis = 0;
  std::int64_t value = 0;
  std::string holder;
  std::optional<std::int64_t> holder_id;
};

/// Whether Pad `l`'s 0 along axis `zero` (of extent `extent` at the declared shapes) may be a pad to a multiple
/// that the extent is already: the layer pads another axis at one end only, by an amount p that is what that
/// axis lacks to be a multiple of some M above p that divides `extent` too (Swin pads H and W to its window,
/// by 0 where a size is a multiple of it), that is where gcd(extent of that axis + p, `extent`) > p; p a
/// constant.
bool may_pad_to_multiple(const graph& g, const propagation& declared, const layer& l, std::size_t zero, std::int64_t extent) {
  if (!pads(l) || l.sources.size() < 3 || !l.sources[0] || !l.sources[1] || !l.sources[2]) return false;
  const auto& data = declared.input(g, l, 0).shape;
  const auto& begins = declared.input(g, l, 1).value;
  const auto& ends = declared.input(g, l, 2).value;
  if (!data.rank_known() || !begins || !ends || begins->is_real() || ends->is_real() ||
      begins->elements.size() != data.size() || ends->elements.size() != data.size())
    return false;
  for (std::size_t b = 0; b < data.size(); ++b) {
    const auto &x = begins->elements[b], &y = ends->elements[b];
    // (A pad computed from a size beside a constant 0 is a program that computes its pads: it would compute
    // that one too.)
    if (b == zero || !x.exact() || !y.exact() || !x.constant || !y.constant || !data[b].is_static() ||
        (x.lo != 0) == (y.lo != 0))
      continue;
    const auto p = x.lo + y.lo;
    std::int64_t padded = 0;
    if (p > 0 && !__builtin_add_overflow(data[b].lo(), p, &padded) && std::gcd(padded, extent) > p) return true;
  }
  return false;
}

/// A constant that places something at an absolute position along an axis whose size changes: an
/// Interpolate to a fixed size, a Pad by fixed amounts, a Slice or StridedSlice that ends inside the axis
/// or starts past its second element. A fixed-shape export writes these where the program computed them
/// from the size (TF's SAME padding, a crop to the middle, an upsampling to twice the input), and nothing in
/// the graph says which: cannot tell.
std::optional<placed> placed_on_changing_axis(const graph& g, const propagation& declared, const propagation& asked,
                                              const layer& l, std::optional<std::size_t> batch,
                                              std::span<const std::string> assumed, bool batch_only) {
  const auto axes_changing = changing_axes(g, declared, asked, l, batch);
  if (std::none_of(axes_changing.begin(), axes_changing.end(), [](bool b) { return b; })) return std::nullopt;
  const auto& extent = declared.input(g, l, 0).shape;
  const auto constant_at = [&](std::size_t port) -> const tensor_value* {
    if (port >= l.sources.size() || !l.sources[port]) return nullptr;
    const auto& v = declared.input(g, l, port).value;
    if (!v || v->is_real()) return nullptr;
    return &*v;
  };
  const auto check = [&](const placed_input& in, auto absolute) -> std::optional<placed> {
    // (`absolute(value, extent, axis)`: whether the value places something there.)
    const auto* v = constant_at(in.port);
    if (v == nullptr) return std::nullopt;
    const auto axes = placed_axes(g, declared, l, in, v->elements.size(), axes_changing.size());
    for (std::size_t e = 0; e < v->elements.size(); ++e) {
      const auto& b = v->elements[e];
      if (!axes[e] || !axes_changing[*axes[e]] || !b.exact() || !b.constant) continue;
      if (e < in.ignored.size() && in.ignored[e]) continue;
      const auto& x = extent[*axes[e]];
      if (!x.is_static() || !absolute(b.lo, x.lo(), *axes[e])) continue;
      const auto origin = origin_of_element(g, declared, l, in.port, e);
      if (origin.holder != nullptr && origin.holder->auxiliary && l.auxiliary) continue;
      if (origin.holder != nullptr && vouched_value(g, *origin.holder, assumed)) continue;
      placed p{in.port, e, *axes[e], b.lo, {}, std::nullopt};
      if (origin.holder != nullptr && part_of(origin.holder->type) == op_part::constant) {
        p.holder = origin.holder->name;
        p.holder_id = origin.holder->id;
      }
      return p;
    }
    return std::nullopt;
  };
  const auto inputs = placed_inputs(l);
  // An amount of 0 on a changing axis counts where the layer adds or cuts nothing at all (then it is there
  // only because the size asked for it elsewhere), or where it may be a pad to a multiple the extent is
  // already (may_pad_to_multiple); a negative amount crops: a fixed position too.
  bool all_zero = std::any_of(inputs.begin(), inputs.end(), [](const placed_input& in) { return in.kind == placement::amount; });
  for (const auto& in : inputs) {
    if (in.kind != placement::amount) continue;
    const auto* v = constant_at(in.port);
    all_zero = all_zero && v != nullptr &&
               std::all_of(v->elements.begin(), v->elements.end(), [](const element_bound& b) { return b.exact() && b.lo == 0; });
  }
  for (const auto& in : inputs) {
    const auto p = check(in, [&](std::int64_t v, std::int64_t x, std::size_t axis) {
      switch (in.kind) {
        case placement::size:
          return true;
        case placement::amount:
          return v != 0 || (!batch_only && (all_zero || (x > 0 && may_pad_to_multiple(g, declared, l, axis, x))));
        case placement::begin:
          return v >= 2 && v < x;
        case placement::end:
          return v >= 1 && v < x;
      }
      return false;
    });
    if (p) return p;
  }
  return std::nullopt;
}

}  // namespace

/// `7·7, dimensions 1..2 of 'conv' [1,7,7,768]`, `half (rounded down) of dimension 2 of ...`.
std::string describe(const size_source& s) {
  if (!s.counted.empty()) return s.counted;
  const auto& d = *s.shape;
  std::string dims;
  if (s.from == s.to) {
    dims = fmt::format("dimension {}", s.from);
  } else {
    for (std::size_t j = s.from; j <= s.to; ++j) dims += fmt::format("{}{}", j == s.from ? "" : "·", d[j].lo());
    dims += fmt::format(", dimensions {}..{}", s.from, s.to);
  }
  constexpr std::array<std::string_view, 4> how{"", "half (rounded down) of ", "half (rounded up) of ", "twice "};
  return fmt::format("{}{} of '{}' {}", how[static_cast<std::size_t>(s.how)], dims, s.name, to_string(without_symbols(d)));
}

std::string asked_text(const size_source& s) { return s.asked ? fmt::format("{}", *s.asked) : std::string("unknown"); }

std::optional<std::size_t> batch_axis(std::span<const std::vector<batch_carrier>> carriers, std::size_t index, std::size_t o) {
  if (index >= carriers.size() || o >= carriers[index].size()) return std::nullopt;
  const auto& c = carriers[index][o];
  return c.state == batch_carrier::kind::one ? std::optional(c.axis) : std::nullopt;
}

bool same_at(const partial_shape& declared, const partial_shape& asked, std::size_t d) {
  return asked.rank_known() && asked.size() == declared.size() && asked[d].is_static() && asked[d].lo() == declared[d].lo();
}

bool vouched(const layer& holder, std::span<const std::string> assumed) {
  const auto id = fmt::format("#{}", holder.id);
  return std::any_of(assumed.begin(), assumed.end(), [&](const std::string& a) { return a == holder.name || a == id; });
}

void set_reason(batch_finding& f, const because& reason) {
  f.code = text::code_name(reason.code);
  f.args = text::args_of(reason);
  f.what = text::sentence(reason);
}

batch_finding size_finding(const layer& l, std::size_t index) {
  batch_finding f;
  f.issue = batch_issue::cannot_tell;
  f.layer = index;
  f.id = l.id;
  f.name = l.name;
  f.type = l.op_type();
  f.opset = l.op_version();
  return f;
}

namespace {

/// An Interpolate whose output keeps its size along an axis where its input's changes: however its sizes
/// or scales are computed (scales as a fixed size divided by the input's), the result is one size only.
bool fixed_resize(const graph& g, const propagation& declared, const propagation& asked, std::size_t index,
                  std::span<const std::string> assumed, std::vector<batch_finding>& out) {
  const auto& l = g.layers()[index];
  if (!resizes(l) || l.sources.empty() || !l.sources[0] || declared.outputs[index].empty() ||
      asked.outputs[index].empty())
    return false;
  // Sizes the caller vouches for (`--assume-constant`) are meant to stay: a resize to a fixed size.
  for (const auto& in : placed_inputs(l)) {
    const auto origin = origin_of_element(g, declared, l, in.port, 0);
    if (origin.holder != nullptr && part_of(origin.holder->type) == op_part::constant && vouched(*origin.holder, assumed))
      return false;
  }
  const auto kept = kept_axes(g, declared, asked, index);
  if (kept.empty()) return false;
  auto f = size_finding(l, index);
  set_reason(f, because(why::resize_to_fixed_size, kept[0], declared.outputs[index][0].shape[kept[0]].lo()));
  text::give_hint(f, text::resize_to_fixed_size_hint());
  out.push_back(std::move(f));
  return true;
}

/// A layer whose shape rule reads an input's values (its row's value ports: a Reshape's pattern, an
/// Interpolate's sizes, a Pad's amounts...) that are unknown at the shapes asked: its output's shape is
/// whatever those values are, and nothing shows they follow the new sizes (a size computed through an op
/// that carries no values, or a constant hidden behind one). An input the layer does not have is not one.
bool unknown_shape_value(const graph& g, const propagation& asked, std::size_t index, std::vector<batch_finding>& out) {
  const auto& l = g.layers()[index];
  const auto* row = find_entry(l.type, l.opset);
  if (row == nullptr || row->values == reads_all_values) return false;
  // Only where the unknown values leave the output's shape undecided: a rank or a dimension that neither a
  // symbol nor a bound ties to anything (an If whose branches agree decides its shape without its condition).
  const auto undecided = [](const tensor& t) {
    return !t.shape.rank_known() || std::any_of(t.shape.begin(), t.shape.end(), [](const dimension& d) {
             return !d.has_symbol() && d.range().is_unknown();
           });
  };
  if (std::none_of(asked.outputs[index].begin(), asked.outputs[index].end(), undecided)) return false;
  for (std::size_t port = 0; port < l.sources.size(); ++port) {
    if (!l.sources[port] || !reads_value(row->values, port) || asked.input(g, l, port).value) continue;
    auto f = size_finding(l, index);
    set_reason(f, because(why::size_value_unknown, port));
    text::give_hint(f, text::size_value_unknown_hint());
    out.push_back(std::move(f));
    return true;
  }
  return false;
}

}  // namespace


std::vector<std::optional<std::size_t>> placed_axes(const graph& g, const propagation& declared, const layer& l,
                                                    const placed_input& in, std::size_t elements, std::size_t rank) {
  std::vector<std::optional<std::size_t>> r(elements);
  const auto within = [&](std::int64_t a) -> std::optional<std::size_t> {
    if (a < 0) a += static_cast<std::int64_t>(rank);
    if (a >= 0 && static_cast<std::size_t>(a) < rank) return static_cast<std::size_t>(a);
    return std::nullopt;
  };
  if (in.axes) {  // from an attribute (Interpolate-1's), whose axes are not counted from the end
    for (std::size_t i = 0; i < elements && i < in.axes->size(); ++i)
      if ((*in.axes)[i] >= 0) r[i] = within((*in.axes)[i]);
    return r;
  }
  // An axes input the layer does not have: element i is axis i.
  auto axes_port = in.axes_port;
  if (axes_port && (*axes_port >= l.sources.size() || !l.sources[*axes_port])) axes_port.reset();
  if (!axes_port) {
    for (std::size_t i = 0; i < elements; ++i) r[i] = within(static_cast<std::int64_t>(i));
    return r;
  }
  // An axes input whose values are not known places nothing.
  const auto& v = declared.input(g, l, *axes_port).value;
  if (!v || v->is_real()) return r;
  for (std::size_t i = 0; i < elements && i < v->elements.size(); ++i)
    if (v->elements[i].exact()) r[i] = within(v->elements[i].lo);
  return r;
}

namespace {

/// Layer `l` (at `index`), whose constants baked_sizes does not search: a body (nothing shows its sizes are
/// not written down), or an op without a rule on values that follow the inputs (its outputs are unknown, so
/// nothing shows that it, or anything after it, computes at the new sizes what it computes at the declared
/// ones). nullopt for any other layer.
std::optional<batch_finding> unsearched(const propagation& asked, const layer& l, std::size_t index) {
  if (l.body != nullptr) {
    auto f = size_finding(l, index);
    set_reason(f, because(why::sizes_in_body));
    return f;
  }
  if (find_entry(l.type, l.opset) == nullptr && index < asked.follows_inputs.size() && asked.follows_inputs[index]) {
    auto f = size_finding(l, index);
    set_reason(f, because(why::no_rule, l.opset).quoting(std::string(l.type)));
    return f;
  }
  return std::nullopt;
}

/// The finding of layer `l` (at `index`) whose constants `found` equal sizes that change: the first named,
/// the others counted.
batch_finding baked_finding(const layer& l, std::size_t index, const std::vector<baked>& found, option_spelling spelling) {
  const auto& b = found.front();
  auto f = size_finding(l, index);
  const because reason =
      because(why::baked_size, b.port, b.element, b.value)
          .quoting(fmt::format("the constant {} {} {} at the declared shapes, which is {} at the shapes asked",
                               b.constant, b.relation, describe(b.equals), asked_text(b.equals)));
  set_reason(f, reason);
  if (found.size() > 1) f.what += fmt::format(" ({} more such elements)", found.size() - 1);
  if (b.holder_id) {
    f.source_id = b.holder_id;
    f.source = b.holder;
  }
  text::give_hint(f, text::vouch_hint(spelling, b.holder, b.holder_id));
  return f;
}

/// What the findings of the Consts share, made at the first Const met where a size changes: which layers
/// read an input as data, the sizes that change (with where each is a dimension, and their values in
/// order) and each Const's readers.
struct constant_scan {
  std::vector<char> data, indexed, sized;  // sized: read as a value by a layer's shape rule (a pattern, an extent)
  std::vector<char> from_inputs;           // an input, or computed from one
  std::unordered_map<std::int64_t, size_source> plain;
  std::vector<std::int64_t> changing;
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> readers;
  tensors_by_shape shaped;

  void make(const graph& g, const propagation& declared, const propagation& asked,
            std::span<const std::vector<batch_carrier>> carriers) {
    data = read_as_data(g, declared, readers, indexed, sized);
    std::vector<char> inputs(g.layers().size(), 0);
    for (std::size_t k = 0; k < g.layers().size(); ++k) inputs[k] = part_of(g.layers()[k].type) == op_part::parameter ? 1 : 0;
    from_inputs = downstream_of(g, inputs);
    for (std::size_t k = 0; k < g.layers().size(); ++k) from_inputs[k] = static_cast<char>(from_inputs[k] | inputs[k]);
    // (Dimensions and their products only: a count is no half or twice of one. Not of a tensor whose rank
    // the shapes asked leave unknown, after a layer that fails there: its sizes are not shown to change.)
    for (const auto i : g.order())
      for (std::size_t o = 0; o < declared.outputs[i].size() && o < asked.outputs[i].size(); ++o)
        if (asked.outputs[i][o].shape.rank_known())
          add_changing(declared.outputs[i][o].shape, asked.outputs[i][o].shape, batch_axis(carriers, i, o),
                       g.layers()[i].name, plain, false);
    shaped = shapes_of(g, declared, asked);
    for (const auto& [value, source] : plain) changing.push_back(value);
    std::sort(changing.begin(), changing.end());
  }
};

/// The finding of Const `index` whose values stand for sizes that change: a counted range, a counted grid or
/// an extent spread over another operand.
std::optional<batch_finding> constant_finding(const graph& g, const propagation& declared, const propagation& asked,
                                              std::span<const std::vector<batch_carrier>> carriers, std::size_t index,
                                              const constant_scan& scan, std::span<const std::string> assumed,
                                              option_spelling spelling) {
  if (declared.outputs[index].empty()) return std::nullopt;
  if (scan.indexed[index] == 0)
    return scan.sized[index] != 0 ? apart_table_finding(g, declared, asked, carriers, index, scan.shaped, assumed, spelling)
                                  : std::nullopt;
  if (auto f = shape_table_finding(g, declared, asked, carriers, index, scan.shaped, assumed, spelling)) return f;
  // (Read as data too, by a Cast beside the Expand: the reading as a shape is looked at all the same.)
  if (scan.sized[index] != 0)
    if (auto f = apart_table_finding(g, declared, asked, carriers, index, scan.shaped, assumed, spelling)) return f;
  if (scan.data[index] == 0) return std::nullopt;
  // (Its values are read only where an extent is a size that changes: a count's or a grid's must be.)
  const auto& shape = declared.outputs[index][0].shape;
  if (!shape.is_static() || std::none_of(shape.begin(), shape.end(), [&](const dimension& d) {
        return d.lo() >= 2 && std::binary_search(scan.changing.begin(), scan.changing.end(), d.lo());
      }))
    return std::nullopt;
  const auto t = const_with_values(g, declared, index);
  if (auto f = counted_range_finding(g, index, t, scan.plain, assumed, spelling)) return f;
  if (auto f = counted_grid_finding(g, declared, asked, index, t, scan.plain, scan.changing, assumed, spelling)) return f;
  return spread_extent_finding(g, declared, asked, index, scan.readers[index], scan.plain, assumed, spelling);
}

/// The finding of a value placed on an axis whose size changes (placed_on_changing_axis).
batch_finding placed_finding(const layer& l, std::size_t index, const placed& p, option_spelling spelling) {
  auto f = size_finding(l, index);
  set_reason(f, because(why::placed_on_size, p.port, p.element, p.axis, p.value));
  if (p.holder_id) {
    f.source_id = p.holder_id;
    f.source = p.holder;
  }
  text::give_hint(f, text::vouch_hint(spelling, p.holder, p.holder_id));
  return f;
}

}  // namespace

std::vector<batch_finding> baked_sizes(const graph& g, const propagation& declared, const propagation& asked,
                                       std::span<const std::vector<batch_carrier>> carriers,
                                       std::span<const std::string> assumed, option_spelling spelling, bool batch_only) {
  std::vector<batch_finding> out;
  const bool scaled = !batch_only;
  const auto sizes = changing_sizes(g, declared, asked, carriers, scaled);
  constant_scan scan;  // (made once a size changes)
  constant_ones ones;  // (made at the first layer that is not a Const)
  for (const auto index : g.order()) {
    const auto& l = g.layers()[index];
    if (part_of(l.type) == op_part::constant) {
      if (sizes.empty()) continue;
      if (scan.data.empty()) scan.make(g, declared, asked, carriers);
      if (auto f = constant_finding(g, declared, asked, carriers, index, scan, assumed, spelling)) out.push_back(std::move(*f));
      continue;
    }
    if (auto f = unsearched(asked, l, index)) {
      out.push_back(std::move(*f));
      continue;
    }
    if (ones.axes.empty()) ones = ones_of_constants(g, declared, asked, carriers, assumed);
    auto spread = spread_at_size_1(g, declared, asked, carriers, index, ones, assumed);
    if (!spread) spread = spread_over_size_1(g, declared, asked, index, scan.plain, assumed);
    if (spread) {
      text::give_hint(*spread, text::vouch_hint(spelling, spread->source, spread->source_id));
      out.push_back(std::move(*spread));
      continue;
    }
    kernel_covers(g, declared, asked, index, assumed, spelling, out);
    if (!out.empty() && out.back().layer == index) continue;
    const auto& first = l.sources.empty() ? std::nullopt : l.sources[0];
    const auto batch = first ? batch_axis(carriers, first->layer, first->output) : std::nullopt;
    if (const auto p = placed_on_changing_axis(g, declared, asked, l, batch, assumed, batch_only)) {
      out.push_back(placed_finding(l, index, *p, spelling));
      continue;
    }
    if (fixed_resize(g, declared, asked, index, assumed, out)) continue;
    if (fixed_crop(g, declared, asked, index, batch, assumed, spelling, out)) continue;
    std::vector<baked> found;
    // A model output that is integer constants (an image's size, a grid's extent written out) is a size too,
    // where one of its elements equals one that changes: what the program computed there is not in the file.
    static constexpr std::array<std::size_t, 1> written_out{0};
    const auto ports = sizes.empty()                                ? std::span<const std::size_t>()
                       : part_of(l.type) == op_part::result ? std::span<const std::size_t>(written_out)
                                                                    : size_ports(l);
    for (const auto port : ports) {
      // The data the constant is about (looked at first): an elementwise op's other input, any other op's first.
      if (!declared.input(g, l, port).value) continue;
      upstream_sizes upstream(g, declared, asked, carriers, sizes, l, elementwise_arithmetic(l.type) ? 1 - port : 0, scaled);
      baked_in_port(g, declared, asked, l, port, upstream, assumed, found);
    }
    if (!found.empty()) {
      out.push_back(baked_finding(l, index, found, spelling));
      continue;
    }
    const bool valued = !declared.outputs[index].empty() && declared.outputs[index][0].value;
    if (valued && !sizes.empty() && scan.data.empty()) scan.make(g, declared, asked, carriers);
    if (auto f = valued && !sizes.empty() && scan.sized[index] != 0 && scan.from_inputs[index] == 0
                     ? computed_table_finding(g, declared, asked, carriers, index, scan.shaped, out, assumed, spelling)
                     : std::nullopt) {
      out.push_back(std::move(*f));
      continue;
    }
    if (auto f = valued ? computed_range_finding(g, declared, index, scan.plain, assumed, spelling) : std::nullopt) {
      out.push_back(std::move(*f));
      continue;
    }
    if (!sizes.empty() && scan.data.empty()) scan.make(g, declared, asked, carriers);
    if (auto f = !sizes.empty() && !valued && scan.from_inputs[index] == 0
                     ? range_length_finding(g, declared, asked, carriers, index, assumed, spelling)
                     : std::nullopt) {
      out.push_back(std::move(*f));
      continue;
    }
    // No constant shown to be a size (`8` of `[1,8,7,8,7,96]` is H/7): the Reshape may still regroup its
    // dimensions otherwise at the new sizes. Else the values that decide the shape may still be unknown.
    if (auto reason = regrouped(g, declared, asked, index, assumed)) {
      auto f = size_finding(l, index);
      set_reason(f, *reason);
      text::give_hint(f, text::regroup_hint(spelling));
      out.push_back(std::move(f));
      continue;
    }
    (void)unknown_shape_value(g, asked, index, out);
  }
  return out;
}

}  // namespace reshape1::model::detail
