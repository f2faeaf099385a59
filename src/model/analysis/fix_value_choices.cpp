// The values fix tries in an input other than a Reshape's pattern (an Interpolate's sizes, a slice's bounds,
// a Gather's positions, TopK's k, a Tile's or Broadcast's extents, a Range's limit, a divisor or factor, a
// pooling's window), read from the tensors they meet: see fix_internal.hpp. A Reshape's are in
// fix_choices.cpp.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <set>
#include <variant>

#include "model/analysis/batch_internal.hpp"
#include "model/analysis/fix_internal.hpp"
#include "model/ops/rules.hpp"
#include "model/ops/sizes.hpp"
#include "model/text/fix.hpp"

namespace reshape1::model::detail {

namespace {

/// The values an input places along the data's axes as fix reads them (an Interpolate's sizes, a slice's
/// begins or ends): each one's value and the axis of the data it is placed on, and whether it follows the
/// axis' extent, which changes between the declared shapes and the shapes asked (a bound below 2, or one a
/// mask ignores, is a constant that stays).
struct placed_sizes {
  std::size_t port = 0;
  placement kind = placement::size;
  std::size_t rank = 0;  ///< the data's
  std::vector<std::int64_t> values;
  std::vector<std::size_t> axes;
  std::vector<char> moving;
};

/// The values of `l` that finding `f` names (its `port`), where the port places sizes, begins or ends, each
/// is a known value on a known axis of static extent, and one of those follows an axis that changes; nullopt
/// otherwise. (Pad's amounts are not read so: a pad to a multiple is computed with a remainder.)
std::optional<placed_sizes> read_sizes(const graph& g, const propagation& declared, const propagation& asked,
                                       const layer& l, const batch_finding& f) {
  const auto port = finding_port(f);
  const auto inputs = placed_inputs(l);
  const auto in = std::find_if(inputs.begin(), inputs.end(),
                               [&](const placed_input& x) { return port && x.port == *port && x.kind != placement::amount; });
  if (in == inputs.end() || l.sources.empty() || !l.sources[0]) return std::nullopt;
  const auto& v = declared.input(g, l, in->port).value;
  const auto& data = declared.input(g, l, 0).shape;
  const auto& now = asked.input(g, l, 0).shape;
  if (!v || v->is_real() || !data.rank_known() || !now.rank_known() || now.size() != data.size()) return std::nullopt;
  const auto axes = placed_axes(g, declared, l, *in, v->elements.size(), data.size());
  placed_sizes r{in->port, in->kind, data.size(), {}, {}, {}};
  const auto same_extent = [&](std::size_t a) { return now[a].is_static() && now[a].lo() == data[a].lo(); };
  for (std::size_t e = 0; e < v->elements.size(); ++e) {
    const auto& b = v->elements[e];
    if (!b.exact() || !axes[e] || !data[*axes[e]].is_static()) return std::nullopt;
    const auto a = *axes[e];
    const bool bound = in->kind != placement::size;
    // (A bound past every extent, Python's "to the end" exported as 2^31-1 or 2^63-1, stays too.)
    const bool fixed = bound && (b.lo < 2 || b.lo >= std::numeric_limits<std::int32_t>::max() ||
                                 (e < in->ignored.size() && in->ignored[e]));
    r.values.push_back(b.lo);
    r.axes.push_back(a);
    r.moving.push_back(!fixed && !same_extent(a));
  }
  if (std::none_of(r.moving.begin(), r.moving.end(), [](char m) { return m != 0; })) return std::nullopt;
  return r;
}

/// Where an axis of the tensor followed is in a tensor it became, where it is in none (an axis of 1 dropped).
constexpr std::size_t unmapped = std::numeric_limits<std::size_t>::max();

/// The sizes `s` read from `other` (`other_now` at the shapes asked), the shape of a tensor met where the
/// output's axes are at `at`: one along an axis that stays where it has that extent, else the constant; one
/// that changes where `other` has it and changes there too (not along `joined`, a Concat's axis). Fewer
/// than `s` holds where one that changes is not there.
std::vector<pattern_term> sizes_read_from(const placed_sizes& s, const partial_shape& other, const partial_shape& other_now,
                                          const std::vector<std::size_t>& at, std::optional<std::size_t> joined) {
  std::vector<pattern_term> terms;
  for (std::size_t e = 0; e < s.values.size(); ++e) {
    const auto j = at[s.axes[e]];
    if (j == unmapped) {  // an axis of 1 the walk dropped: it stays, as the constant
      if (s.moving[e] != 0) break;
      terms.push_back(pattern_term{{}, s.values[e], 1});
      continue;
    }
    const bool has = other[j].is_static() && other[j].lo() == s.values[e];
    if (s.moving[e] == 0) {
      terms.push_back(has ? pattern_term{{j}, 1, 1} : pattern_term{{}, s.values[e], 1});
    } else if (has && j != joined && !(other_now[j].is_static() && other_now[j].lo() == s.values[e])) {
      terms.push_back({{j}, 1, 1});
    } else {
      break;
    }
  }
  return terms;
}

/// Where the axes of a tensor (at `at` in it) are after Transpose `c` of it; nullopt where its order is not
/// known.
std::optional<std::vector<std::size_t>> permuted(const graph& g, const propagation& declared, const layer& c,
                                                 const std::vector<std::size_t>& at) {
  const auto& perm = declared.input(g, c, 1).value;
  const auto& in = declared.input(g, c, 0).shape;
  if (!perm || perm->is_real() || !in.rank_known() || perm->elements.size() != in.size()) return std::nullopt;
  const auto rank = in.size();
  std::vector<std::size_t> to(at.size(), rank);
  for (std::size_t a = 0; a < at.size(); ++a) {
    if (at[a] == unmapped) to[a] = unmapped;
    for (std::size_t j = 0; j < rank; ++j)
      if (perm->elements[j].exact() && perm->elements[j].lo == static_cast<std::int64_t>(at[a])) to[a] = j;
  }
  if (std::find(to.begin(), to.end(), rank) != to.end()) return std::nullopt;
  return to;
}

/// Each layer that reads the first output of each layer, with the first input it reads it at.
std::vector<std::vector<std::pair<std::size_t, std::size_t>>> first_output_readers(const graph& g) {
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> readers(g.layers().size());
  for (std::size_t c = 0; c < g.layers().size(); ++c) {
    std::set<std::size_t> seen;
    const auto& sources = g.layers()[c].sources;
    for (std::size_t k = 0; k < sources.size(); ++k)
      if (sources[k] && sources[k]->output == 0 && sources[k]->layer < readers.size() && seen.insert(sources[k]->layer).second)
        readers[sources[k]->layer].emplace_back(c, k);
  }
  return readers;
}

/// What met_tensors looks for and has tried.
struct meeting {
  const graph& g;
  const propagation &declared, &asked;
  std::size_t index;  ///< the layer whose output is followed
  std::size_t before;  ///< a tensor met is computed before this layer (the file lists its nodes in order)
  bool far;            ///< passed_on's layers are followed, and computed_before's walk back
  const placed_sizes& s;
  std::vector<char> after;  ///< the layers downstream of it
  std::set<std::pair<std::size_t, std::size_t>> tried{};
  /// A tensor met that would have given the sizes but may be 1 at the shapes asked, where arithmetic
  /// spreads it (`?` holds 1): the reading is refused, and the refusal says to ask from 2.
  std::optional<std::size_t> may_be_1{};
};

/// `x`, or the tensor it is computed from by layers of one input that keep its shape at the declared shapes
/// and at the shapes asked (an activation), where `x` is computed only after layer `m.before`: the tensor
/// met is its shape all the same, and one computed before the new layers that read it.
std::optional<source> computed_before(const meeting& m, source x) {
  for (std::size_t step = 0; step < 8; ++step) {
    const auto& l = m.g.layers()[x.layer];
    if (x.layer < m.before || part_of(l.type) == op_part::parameter) return x;
    if (!m.far || l.sources.size() != 1 || !l.sources[0] || x.output != 0 || m.declared.outputs[x.layer].empty() ||
        m.asked.outputs[x.layer].empty())
      return std::nullopt;
    const auto& from = m.declared.input(m.g, l, 0).shape;
    const auto& from_now = m.asked.input(m.g, l, 0).shape;
    if (!from.is_static() || from != m.declared.outputs[x.layer][0].shape || !from_now.rank_known() ||
        from_now != m.asked.outputs[x.layer][0].shape)
      return std::nullopt;
    x = *l.sources[0];
  }
  return std::nullopt;
}

/// The other operands of `c` (elementwise arithmetic or a Concat that reads the followed tensor, of rank
/// `rank`, its axes at `at`, at input `read_at`) from whose shapes every size `m.s` places is read: `found`
/// gets each.
template <class Found>
void meet_at(meeting& m, const layer& c, std::size_t read_at, std::size_t rank, const std::vector<std::size_t>& at,
             Found& found) {
  std::optional<std::size_t> joined;  // a Concat's axis, along which the extents need not meet
  const bool concat = part_of(c.type) == op_part::concat;
  if (concat) {
    auto j = c.integer("axis", 0);
    if (j < 0) j += static_cast<std::int64_t>(rank);
    if (j < 0 || static_cast<std::size_t>(j) >= rank) return;
    joined = static_cast<std::size_t>(j);
  } else if (!elementwise_arithmetic(c.type)) {
    return;
  }
  for (std::size_t k = 0; k < c.sources.size(); ++k) {
    if (!c.sources[k] || k == read_at) continue;
    // (Only a tensor computed before the layer, or a graph input: a file lists the nodes that compute its
    // shape first.)
    const auto x = computed_before(m, *c.sources[k]);
    if (!x || m.after[x->layer] != 0 || !m.tried.emplace(x->layer, x->output).second) continue;
    const auto& other = m.declared.outputs[x->layer][x->output].shape;
    const auto& other_now = m.asked.outputs[x->layer][x->output].shape;
    // Arithmetic aligns the last axes of a tensor of lower rank with the other's (a grid of columns added
    // to a map); a Concat joins tensors of one rank.
    if (!other.rank_known() || other.size() < rank || (concat && other.size() != rank) || !other_now.rank_known() ||
        other_now.size() != other.size())
      continue;
    auto aligned = at;
    for (auto& j : aligned)
      if (j != unmapped) j += other.size() - rank;
    // Elementwise arithmetic broadcasts a 1: a tensor that may be 1 where the output is not meets it
    // all the same, and its extents are not the output's.
    bool may_broadcast = false;
    for (std::size_t e = 0; e < m.s.axes.size(); ++e) {
      const auto j = aligned[m.s.axes[e]];
      may_broadcast = may_broadcast || (!concat && m.s.moving[e] != 0 && j != unmapped && other_now[j].lo() < 2);
    }
    if (may_broadcast) {
      if (!m.may_be_1) m.may_be_1 = x->layer;
      continue;
    }
    if (auto terms = sizes_read_from(m.s, other, other_now, aligned, joined); terms.size() == m.s.values.size())
      found(std::move(terms), x->layer, x->output);
  }
}

/// A tensor the followed output becomes: its layer, its rank, and where each of the output's axes lies in
/// it (unmapped: nowhere).
struct reached {
  std::size_t layer;
  std::size_t rank;
  std::vector<std::size_t> at;
};

/// Where the axes `t` follows are in the output of layer `c`, which reads `t` at input `read_at` and gives
/// each of them on (the moving ones, `s.moving`, keeping their extent): a layer that keeps its input's shape
/// keeps them, one that only adds or removes 1s keeps their order, a Gather of them as indices puts them at its axis, a
/// broadcast (arithmetic, a bidirectional Broadcast) aligns them with its output's last axes, a Concat
/// along another axis keeps them; nullopt for any other layer. (met_tensors permutes them through a Transpose.)
std::optional<reached> passed_on(const meeting& m, const reached& t, std::size_t c_index, std::size_t read_at) {
  const auto& g = m.g;
  const auto& c = g.layers()[c_index];
  if (c.auxiliary || m.declared.outputs[c_index].empty()) return std::nullopt;
  const auto& from = m.declared.input(g, c, read_at).shape;
  const auto& to = m.declared.outputs[c_index][0].shape;
  if (!from.is_static() || !to.is_static() || from.size() != t.rank) return std::nullopt;
  // The moving axes must keep their extent in the output.
  const auto keeps = [&](const std::vector<std::size_t>& at) {
    for (std::size_t e = 0; e < m.s.axes.size(); ++e) {
      const auto a = m.s.axes[e];
      if (m.s.moving[e] != 0 && (at[a] == unmapped || t.at[a] == unmapped || to[at[a]].lo() != from[t.at[a]].lo()))
        return false;
    }
    return true;
  };
  const auto result = [&](std::vector<std::size_t> at) -> std::optional<reached> {
    if (!keeps(at)) return std::nullopt;
    return reached{c_index, to.size(), std::move(at)};
  };
  if (to == from) return result(t.at);  // an activation, a bias, a 1x1 convolution
  if (moves_ones(c) && read_at == 0) {
    // Each dimension of the input above 1 is the next one of the output above 1.
    std::vector<std::size_t> where(from.size(), unmapped);
    std::size_t o = 0;
    for (std::size_t i = 0; i < from.size(); ++i) {
      if (from[i].lo() == 1) continue;
      while (o < to.size() && to[o].lo() == 1) ++o;
      if (o >= to.size() || to[o].lo() != from[i].lo()) return std::nullopt;
      where[i] = o++;
    }
    for (; o < to.size(); ++o)
      if (to[o].lo() != 1) return std::nullopt;
    std::vector<std::size_t> at(t.at.size(), unmapped);
    for (std::size_t a = 0; a < at.size(); ++a)
      if (t.at[a] != unmapped) at[a] = where[t.at[a]];
    return result(std::move(at));
  }
  if (gather_counts_back(c) && read_at == 1) {  // indices: they take the place of the data's axis
    const auto& data = m.declared.input(g, c, 0).shape;
    const auto& axis = m.declared.input(g, c, 2).value;
    if (!data.rank_known() || !axis || axis->is_real() || axis->elements.size() != 1 || !axis->elements[0].exact() ||
        c.integer("batch_dims", 0) != 0)
      return std::nullopt;
    auto first = axis->elements[0].lo;
    if (first < 0) first += static_cast<std::int64_t>(data.size());
    if (first < 0 || static_cast<std::size_t>(first) >= data.size() || to.size() != data.size() - 1 + from.size())
      return std::nullopt;
    auto at = t.at;
    for (auto& j : at)
      if (j != unmapped) j += static_cast<std::size_t>(first);
    return result(std::move(at));
  }
  const bool spreads = (elementwise_arithmetic(c.type) || (extends(c) == extension::broadcast && read_at == 0));
  if (spreads && to.size() >= from.size()) {
    auto at = t.at;
    for (auto& j : at)
      if (j != unmapped) j += to.size() - from.size();
    return result(std::move(at));
  }
  if (part_of(c.type) == op_part::concat && to.size() == from.size()) return result(t.at);  // (keeps: not its axis)
  return std::nullopt;
}

/// Where the output of layer `index` meets another tensor: through Transposes (an IR converted from NHWC
/// turns the map before the skip connection's Add), layers that keep its shape, and (where `far`) layers
/// that pass its axes on otherwise (passed_on), up to eight layers on, an operand of elementwise arithmetic
/// or a Concat (but along its axis) whose other operand is of the same rank, computed before the layer
/// (its shape must not be computed from the layer's own output, and a file lists a node's inputs first),
/// has, at the declared shapes, every size `s` places along an axis that changes, changing there too, and
/// (for arithmetic, which broadcasts a 1) is 2 at least there at the shapes asked. `found` gets each such
/// tensor (a layer's index and output) and the sizes read from its shape (one along an axis that stays
/// where it has that extent, else the constant). Sizes, or a slice's ends where it starts at 0 by steps of
/// 1: its output meets its extent, end less begin. Met tensors are computed before layer `before` (the
/// layer itself where it is not given).
/// Returns the first tensor skipped as one that may be 1 at the shapes asked (meeting::may_be_1), if any.
template <class Found>
std::optional<std::size_t> met_tensors(const graph& g, const propagation& declared, const propagation& asked,
                                       std::size_t index, const placed_sizes& s, Found found, bool far = false,
                                       std::optional<std::size_t> before = std::nullopt) {
  std::vector<char> self(g.layers().size(), 0);
  self[index] = 1;
  meeting m{g, declared, asked, index, before.value_or(index), far, s, downstream_of(g, self)};
  const auto readers = first_output_readers(g);
  std::vector<reached> frontier{{index, s.rank, {}}};
  for (std::size_t a = 0; a < s.rank; ++a) frontier[0].at.push_back(a);
  for (std::size_t depth = 0; depth < 8 && !frontier.empty(); ++depth) {
    std::vector<reached> next;
    for (const auto& t : frontier)
      for (const auto& [c_index, read_at] : readers[t.layer]) {
        const auto& c = g.layers()[c_index];
        if (permutes_axes(c) && read_at == 0) {
          if (auto at = permuted(g, declared, c, t.at)) next.push_back({c_index, t.rank, std::move(*at)});
          continue;
        }
        if (far) {
          if (auto on = passed_on(m, t, c_index, read_at)) next.push_back(std::move(*on));
        } else {
          // A layer whose output has, at the declared shapes, the shape of what it reads (an activation, a
          // bias, a 1x1 convolution) passes the extents on: the tensor it meets may be after it. (Where it
          // does not at other sizes, the meeting fails there and the checks refuse the reading.)
          const auto& from = declared.input(g, c, read_at).shape;
          const auto& to = declared.outputs[c_index].empty() ? from : declared.outputs[c_index][0].shape;
          if (from.is_static() && to.is_static() && to == from && !c.auxiliary) next.push_back({c_index, t.rank, t.at});
        }
        meet_at(m, c, read_at, t.rank, t.at, found);
      }
    frontier = std::move(next);
  }
  return m.may_be_1;
}

}  // namespace

bool reads_placed(const layer& l, const batch_finding& f) {
  if (f.code != "placed_on_size" && f.code != "baked_size") return false;
  const auto port = finding_port(f);
  const auto inputs = placed_inputs(l);
  return port && std::any_of(inputs.begin(), inputs.end(),
                             [&](const placed_input& x) { return x.port == *port && x.kind != placement::amount; });
}

bool from_the_start(const graph& g, const propagation& declared, const layer& l) {
  const auto inputs = placed_inputs(l);
  const auto begin = std::find_if(inputs.begin(), inputs.end(), [](const placed_input& x) { return x.kind == placement::begin; });
  if (begin == inputs.end() || begin->port >= l.sources.size() || !l.sources[begin->port]) return false;
  const auto all = [&](std::size_t port, std::int64_t want, const std::vector<bool>& ignored) {
    const auto& v = declared.input(g, l, port).value;
    if (!v || v->is_real()) return false;
    for (std::size_t e = 0; e < v->elements.size(); ++e)
      if (!(e < ignored.size() && ignored[e]) && !(v->elements[e].exact() && v->elements[e].lo == want)) return false;
    return true;
  };
  // (Slice-8's steps and StridedSlice's strides are both input 3.)
  const bool steps = l.sources.size() > 3 && l.sources[3];
  return all(begin->port, 0, begin->ignored) && (!steps || all(3, 1, {}));
}

std::vector<pattern_choice> placed_size_choices(const graph& g, const propagation& declared, const propagation& asked,
                                                const layer& l, const batch_finding& f, text::fix_reason& reason) {
  reason = text::shape_values_unknown();
  const auto s = read_sizes(g, declared, asked, l, f);
  if (!s) return {};
  std::vector<pattern_choice> choices;
  const auto choice = [&](std::vector<pattern_term> terms, std::optional<std::pair<std::int64_t, std::size_t>> from,
                          std::string from_name) {
    pattern_choice c;
    c.port = s->port;
    c.computed = std::move(terms);
    const auto what = s->kind == placement::size ? "sizes" : s->kind == placement::begin ? "begins" : "ends";
    c.why = from ? text::sizes_computed_from_tensor(what, terms_text(c.computed, from_name), from_name)
                 : text::sizes_computed_from_shape(what, terms_text(c.computed));
    c.shape_of = from;
    c.shape_of_name = std::move(from_name);
    choices.push_back(std::move(c));
  };
  // (A slice's output meets its extent, end less begin, not its bounds: its ends are that extent only where
  // it starts at the first element and steps by one, a crop back to a size, `x[..., :w]` after a pad.)
  if (s->kind == placement::size || (s->kind == placement::end && from_the_start(g, declared, l)))
    met_tensors(g, declared, asked, static_cast<std::size_t>(&l - g.layers().data()), *s,
              [&](std::vector<pattern_term> terms, std::size_t layer, std::size_t output) {
                const auto& from = g.layers()[layer];
                choice(std::move(terms), std::pair<std::int64_t, std::size_t>(from.id, output), std::string(from.name));
              });
  // The own input's extents: an upsampling (or downsampling) by a whole factor. A size along an axis that
  // stays is that axis' extent where it equals it (the channels an upsampling keeps: a constant left there
  // would equal a size of the model), else the constant.
  const auto& data = declared.input(g, l, 0).shape;
  std::vector<pattern_term> terms;
  for (std::size_t e = 0; e < s->values.size(); ++e) {
    const auto a = s->axes[e];
    const auto value = s->values[e], extent = data[a].lo();
    if (s->moving[e] == 0) {
      const bool copy = extent == value && s->kind == placement::size;  // (a bound that stays stays as it is)
      terms.push_back(copy ? pattern_term{{a}, 1, 1} : pattern_term{{}, value, 1});
    } else if (value > 0 && extent > 0 && value % extent == 0) {
      terms.push_back({{a}, value / extent, 1});
    } else if (value > 0 && extent > 0 && extent % value == 0) {
      terms.push_back({{a}, 1, extent / value});
    } else {
      if (choices.empty()) reason = text::size_not_a_whole_ratio(e, value, a, extent);
      return choices;
    }
  }
  choice(std::move(terms), std::nullopt, {});
  return choices;
}


bool reads_divisor(const layer& l, const batch_finding& f) {
  // A divisor is input 1; a factor either input (a product is the same either way round: Mul(1/n, sum)).
  const auto port = finding_port(f);
  return f.code == "baked_size" && l.sources.size() == 2 &&
         ((port == 1 && (divides(l) || multiplies(l))) || (port == 0 && multiplies(l)));
}

namespace {

/// Whether every reader of `l`'s output divides it by n-1 (`n` the count), a scalar: a mean of squares times
/// n is half of Bessel's correction, rewritten only with its other half.
bool only_corrected(const graph& g, const propagation& declared, const layer& l, double n) {
  const auto index = static_cast<std::size_t>(&l - g.layers().data());
  bool any = false;
  for (const auto& reader : g.layers())
    for (std::size_t p = 0; p < reader.sources.size(); ++p) {
      const auto& s = reader.sources[p];
      if (!s || s->layer != index) continue;
      if (p != 0 || !divides(reader) || reader.sources.size() < 2 || !reader.sources[1]) return false;
      const auto& v = declared.input(g, reader, 1).value;
      const bool by_less = v && ((v->is_real() && v->reals.size() == 1 && std::abs(v->reals[0] - (n - 1)) <= 1e-6 * (n - 1)) ||
                                 (!v->is_real() && v->elements.size() == 1 && v->elements[0].exact() &&
                                  static_cast<double>(v->elements[0].lo) == n - 1));
      if (!by_less) return false;
      any = true;
    }
  return any;
}

/// The form in which the real `r` is the count `n` of the elements `sum` reduces, for the Divide or Multiply
/// `l` (`direct`: `sum` is its other input): a mean written as a sum over n or times 1/n, a sum written as a mean
/// times n, and, where `sum` reduces squares, Bessel's correction of a variance a few steps after it (over
/// n-1, times 1/(n-1), times n/(n-1)); nullopt for none. A reciprocal held as a float rounds to within a part
/// in 10^7 of it.
std::optional<count_form> real_count_form(const graph& g, const propagation& declared, const layer& l, const layer& sum,
                                          bool direct, bool squares, double r, std::int64_t n) {
  const auto near = [&](double expected) { return std::abs(r - expected) <= 1e-6 * std::abs(expected); };
  const auto x = static_cast<double>(n);
  // A correction of a few elements is too like a literal (1/(3-1) is a half) to be rewritten; nor is one of
  // a root (ReduceL2 is a norm, whose correction would be 1/√(n-1)): check names both, fix refuses them.
  const bool corrects = squares && n >= 5 && (sums_over_axes(sum) || averages(sum));
  // An unbiased variance is a sum of squares over n-1, or a mean of them times n/(n-1); a mean first scaled
  // on its way (by n, as torch writes it) counts as a sum. A mean over n-1 or a sum times n/(n-1) is no
  // variance fix knows.
  const bool as_sum = sums_over_axes(sum) || (averages(sum) && !direct);
  if (divides(l)) {
    if (direct && sums_over_axes(sum) && r == x) return count_form::count;
    if (corrects && as_sum && near(x - 1)) return count_form::less_one;
    return std::nullopt;
  }
  if (direct && sums_over_axes(sum) && near(1 / x)) return count_form::reciprocal;
  if (corrects && direct && averages(sum) && near(x) && only_corrected(g, declared, l, x)) return count_form::count;
  if (corrects && as_sum && near(1 / (x - 1))) return count_form::reciprocal_less_one;
  if (corrects && averages(sum) && direct && near(x / (x - 1))) return count_form::ratio_less_one;
  return std::nullopt;
}

/// The input of `x` that carries data when `x` scales it by a value (a constant or computed from shapes, not
/// data): a Divide's input 0 over a value, a Multiply's other input where one of its two is a value; else
/// nullopt.
std::optional<std::size_t> scaled_input(const graph& g, const propagation& declared, const layer& x) {
  if (x.sources.size() != 2 || !x.sources[0] || !x.sources[1]) return std::nullopt;
  if ((multiplies(x) || divides(x)) && declared.input(g, x, 1).value.has_value()) return 0;
  if (multiplies(x) && declared.input(g, x, 0).value.has_value()) return 1;
  return std::nullopt;
}

/// Whether input `data` of `l` (the one that is not the constant) is the reduction `sum`, or it multiplied or
/// divided by a value (torch's mean of squares times n, before the correction, a count fix may have computed
/// already), through Converts: a variance plain to see. Check names a correction a few value-carrying steps
/// after a reduction of squares; fix rewrites only these (`Div(var * x, 111)` is no variance over 111).
bool plainly_after(const graph& g, const propagation& declared, const layer& l, std::size_t data, const layer& sum) {
  const layer* x = data >= l.sources.size() || !l.sources[data] ? nullptr : &g.layers()[l.sources[data]->layer];
  for (int hops = 0; hops < 4 && x != nullptr; ++hops) {
    if (x == &sum) return true;
    auto next = scaled_input(g, declared, *x);
    if (!next && part_of(x->type) == op_part::passes_values) next = 0;
    if (!next) return false;
    x = *next >= x->sources.size() || !x->sources[*next] ? nullptr : &g.layers()[x->sources[*next]->layer];
  }
  return false;
}

/// The model output (a Result) that the constant input `port` of `l` holds is also, through layers that pass
/// values on (an Identity, a Convert), from its Const; null where there is none.
const layer* written_out_too(const graph& g, const layer& l, std::size_t port) {
  if (port >= l.sources.size() || !l.sources[port]) return nullptr;
  std::vector<std::size_t> frontier{value_holder(g, l.sources[port]->layer)};
  for (int hops = 0; hops < 8 && !frontier.empty(); ++hops) {
    std::vector<std::size_t> next;
    for (const auto& reader : g.layers())
      for (const auto& s : reader.sources)
        if (s && std::find(frontier.begin(), frontier.end(), s->layer) != frontier.end()) {
          if (part_of(reader.type) == op_part::result) return &reader;
          if (part_of(reader.type) == op_part::passes_values)
            next.push_back(static_cast<std::size_t>(&reader - g.layers().data()));
        }
    frontier = std::move(next);
  }
  return nullptr;
}

}  // namespace

std::vector<pattern_choice> divisor_choices(const graph& g, const propagation& declared, const propagation& asked,
                                            const layer& l, const batch_finding& f, text::fix_reason& reason) {
  reason = text::shape_values_unknown();
  if (!reads_divisor(l, f) || !l.sources[0] || !l.sources[1]) return {};
  // The constant's input, and the other, the data's.
  const auto port = *finding_port(f);
  // A count written out as well (a mean and its count returned): the output keeps the declared value.
  if (const auto* out = written_out_too(g, l, port)) {
    reason = text::constant_written_out(f.source.empty() ? std::string(g.layers()[l.sources[port]->layer].name) : f.source,
                                        out->name);
    return {};
  }
  const std::size_t data = 1 - port;
  const auto& v = declared.input(g, l, port).value;
  if (!v) return {};
  // The sum or mean whose count the constant is: the data itself for a mean written as a sum over the count
  // (a divisor that merely equals some extent upstream may be a literal: a stride, a box's corners), or a
  // few elementwise steps before for Bessel's correction.
  auto* squares = reduction_before(g, declared, l, port, reduced_data::squares);
  if (squares != nullptr && !plainly_after(g, declared, l, data, *squares)) squares = nullptr;
  const auto* sum = squares != nullptr ? squares : reduction_before(g, declared, l, port, reduced_data::anything);
  if (sum == nullptr) return {};
  const auto counted = reduced_count(g, declared, asked, *sum);
  if (!counted) return {};
  const auto& summed = counted->axes;
  const auto n = counted->count;
  const bool direct = &g.layers()[l.sources[data]->layer] == sum;
  // Squares reduced in steps (over W, then over H) are a variance's as those reduced at once.
  const bool squared = sum == squares ||
                       (counted->first != sum && reduces_data(g, declared, *counted->first, reduced_data::squares) &&
                        plainly_after(g, declared, l, data, *sum));
  std::optional<count_form> form;
  if (v->is_real()) {
    if (v->reals.size() != 1 || !v->real_constant(0)) return {};
    form = real_count_form(g, declared, l, *sum, direct, squared, v->reals[0], n);
  } else if (divides(l) && direct && sums_over_axes(*sum) && v->elements.size() == 1 && v->elements[0].exact() &&
             v->elements[0].lo == n) {
    form = count_form::count;  // an integer sum over its count (an integer product times a count is no mean)
  }
  if (!form) return {};
  // What a lowering made in front of the reduction (ONNX ReduceSumSquare's square, ReduceLogSumExp's
  // exponential: a step of one input) has that input's shape: the count is read from that tensor of the file.
  auto from = *counted->first->sources[0];
  for (int hops = 0; hops < 2; ++hops) {
    const auto& x = g.layers()[from.layer];
    const auto one_input = [&](const auto& s) {
      return s && s->layer == x.sources[0]->layer && s->output == x.sources[0]->output;
    };
    if (!x.auxiliary || x.sources.empty() || !x.sources[0] || !std::all_of(x.sources.begin(), x.sources.end(), one_input))
      break;
    from = *x.sources[0];
  }
  const auto why = *form == count_form::count && divides(l) ? text::divisor_from_tensor
                 : *form == count_form::reciprocal          ? text::reciprocal_from_tensor
                 : *form == count_form::count               ? text::count_from_tensor
                                                            : text::bessel_from_tensor;
  auto c = read_from_met(port, g.layers()[from.layer], from.output, {pattern_term{summed, 1, 1}},
                         [&](const std::string& terms, const std::string& source) { return why(form_text(*form, terms), source); });
  c.form = *form;
  return {std::move(c)};
}

bool reads_extents(const layer& l, const batch_finding& f) {
  return f.code == "baked_size" && finding_port(f) == 1 && extends(l).has_value();
}

std::vector<pattern_choice> extent_choices(const graph& g, const propagation& declared, const propagation& asked,
                                           const layer& l, const batch_finding& f, text::fix_reason& reason) {
  reason = text::shape_values_unknown();
  const auto how = extends(l);
  if (!how || !reads_extents(l, f)) return {};
  const auto& in = declared.input(g, l, 0).shape;
  const auto& v = declared.input(g, l, 1).value;
  if (!in.is_static() || !v || v->is_real() || v->elements.size() != in.size()) return {};
  const bool repeats = *how == extension::repeats;
  // The output's extents, read as sizes (those the values make where the data is 1 are the ones that move),
  // and the value each other axis keeps: a Tile's repeat, or for a broadcast 1 where the data has the
  // extent itself (1 takes the data's, whatever it is at the new sizes).
  placed_sizes s;
  s.port = 1;
  s.rank = in.size();
  std::vector<std::int64_t> kept(in.size());
  for (std::size_t a = 0; a < in.size(); ++a) {
    if (!v->elements[a].exact()) return {};
    const auto x = v->elements[a].lo, e = in[a].lo();
    const bool spread = e == 1 && x >= 2;
    if (!spread && repeats && x != 1) return {};  // a Tile of an axis above 1: how it follows a size is not read
    s.values.push_back(spread ? x : std::max(e, x));
    s.axes.push_back(a);
    s.moving.push_back(spread);
    kept[a] = repeats || x != e ? x : 1;
  }
  if (std::none_of(s.moving.begin(), s.moving.end(), [](char m) { return m != 0; })) return {};
  std::vector<pattern_choice> choices;
  met_tensors(g, declared, asked, static_cast<std::size_t>(&l - g.layers().data()), s,
              [&](std::vector<pattern_term> terms, std::size_t layer, std::size_t output) {
                if (!choices.empty()) return;
                for (std::size_t a = 0; a < terms.size(); ++a)
                  if (s.moving[a] == 0) terms[a] = pattern_term{{}, kept[a], 1};
                choices.push_back(read_from_met(s.port, g.layers()[layer], output, std::move(terms), [&](const std::string& text, const std::string& name) {
                  return text::sizes_computed_from_tensor(repeats ? "repeats" : "shape values", text, name);
                }));
              },
              true);
  return choices;
}

bool reads_limit(const layer& l, const batch_finding& f) {
  return f.code == "baked_size" && finding_port(f) == 1 && counts_range(l);
}

std::vector<pattern_choice> limit_choices(const graph& g, const propagation& declared, const propagation& asked,
                                          const layer& l, const batch_finding& f, text::fix_reason& reason) {
  reason = text::shape_values_unknown();
  if (!reads_limit(l, f) || l.sources.size() < 3) return {};
  // A count from 0 by a whole step: its extent is the limit over the step, and the limit that extent times it.
  std::array<std::int64_t, 3> v{};
  for (std::size_t port = 0; port < 3; ++port) {
    const auto& x = declared.input(g, l, port).value;
    if (!x) return {};
    if (x->is_real()) {  // a range of floats: whole values only
      if (x->reals.size() != 1 || !x->real_constant(0)) return {};
      const auto r = x->reals[0];
      if (!(r >= -4e18 && r <= 4e18) || r != static_cast<double>(static_cast<std::int64_t>(r))) return {};
      v[port] = static_cast<std::int64_t>(r);
    } else {
      if (x->elements.size() != 1 || !x->elements[0].exact()) return {};
      v[port] = x->elements[0].lo;
    }
  }
  // (Not a structured binding: clang 14, the WebAssembly build's, captures none in a lambda.)
  const auto start = v[0], limit = v[1], step = v[2];
  if (start != 0 || step < 1 || limit / step < 2 || limit % step != 0) return {};  // (no 2·step: it may overflow)
  placed_sizes s;
  s.port = 1;
  s.rank = 1;
  s.values = {limit / step};
  s.axes = {0};
  s.moving = {1};
  std::vector<pattern_choice> choices;
  met_tensors(g, declared, asked, static_cast<std::size_t>(&l - g.layers().data()), s,
              [&](std::vector<pattern_term> terms, std::size_t layer, std::size_t output) {
                if (!choices.empty()) return;
                terms[0].factor *= step;
                choices.push_back(read_from_met(s.port, g.layers()[layer], output, std::move(terms), text::limit_from_tensor));
              });
  return choices;
}

bool reads_positions(const layer& l, const batch_finding& f) {
  return f.code == "baked_size" && finding_port(f) == 1 && gather_counts_back(l).has_value();
}

std::vector<pattern_choice> last_position_choices(const graph& g, const propagation& declared, const propagation& asked,
                                                  const layer& l, const batch_finding& f, text::fix_reason& reason) {
  reason = text::shape_values_unknown();
  const auto counts_back = gather_counts_back(l);
  if (!counts_back || !reads_positions(l, f) || l.sources.size() < 3) return {};
  const auto& data = declared.input(g, l, 0).shape;
  const auto& now = asked.input(g, l, 0).shape;
  const auto& positions = declared.input(g, l, 1).value;
  const auto& axis_value = declared.input(g, l, 2).value;
  if (!data.rank_known() || !now.rank_known() || data.size() != now.size() || !positions || positions->is_real() ||
      !axis_value || axis_value->is_real() || axis_value->elements.size() != 1 || !axis_value->elements[0].exact())
    return {};
  auto axis = axis_value->elements[0].lo;
  if (axis < 0) axis += static_cast<std::int64_t>(data.size());
  if (axis < 0 || static_cast<std::size_t>(axis) >= data.size()) return {};
  const auto a = static_cast<std::size_t>(axis);
  // Only along an axis that changes: elsewhere the position stays what it is.
  if (!data[a].is_static() || (now[a].is_static() && now[a].lo() == data[a].lo())) return {};
  const auto last = data[a].lo() - 1;
  // The size check relates the position to must be this axis' extent, and that extent no other size's (on a
  // square map `x[:, :, w - 1]` is the same 6 as `h - 1`; a length that stays beside it may be the one meant).
  // (A position equal to another size, 6 where a size of the model is 6, may stand for that size.)
  if (!sole_sizes(g, declared, asked, data, now, at_or_after_reshapes(g, &l))[a]) return {};
  const auto size = std::find_if(f.args.begin(), f.args.end(), [](const auto& x) { return x.first == "size"; });
  if (size == f.args.end() || !std::holds_alternative<std::int64_t>(size->second) ||
      std::get<std::int64_t>(size->second) != last + 1)
    return {};
  std::vector<std::size_t> elements;
  for (std::size_t e = 0; e < positions->elements.size(); ++e)
    if (positions->elements[e].exact() && positions->elements[e].lo == last && last >= 1) elements.push_back(e);
  if (elements.empty()) return {};
  if (!*counts_back) {
    reason = text::no_negative_positions(elements[0], l.op_type(), l.op_version());
    return {};
  }
  pattern_choice c;
  c.element = elements[0];
  c.old_value = last;
  c.value = -1;
  for (std::size_t k = 1; k < elements.size(); ++k) c.also.emplace_back(elements[k], -1);
  c.why = text::names_last_position(elements, last, a, data[a].lo());
  return {c};
}

bool reads_k(const layer& l, const batch_finding& f) {
  return f.code == "baked_size" && finding_port(f) == 1 && keeps_k_along(l).has_value();
}

std::vector<pattern_choice> k_choices(const graph& g, const propagation& declared, const propagation& asked,
                                      const layer& l, const batch_finding& f, text::fix_reason& reason) {
  reason = text::shape_values_unknown();
  const auto along = keeps_k_along(l);
  if (!along || !reads_k(l, f)) return {};
  const auto& data = declared.input(g, l, 0).shape;
  const auto& now = asked.input(g, l, 0).shape;
  const auto& k = declared.input(g, l, 1).value;
  if (!data.rank_known() || !now.rank_known() || data.size() != now.size() || !k || k->is_real() ||
      k->elements.size() != 1 || !k->elements[0].exact())
    return {};
  auto axis = *along;
  if (axis < 0) axis += static_cast<std::int64_t>(data.size());
  if (axis < 0 || static_cast<std::size_t>(axis) >= data.size()) return {};
  const auto a = static_cast<std::size_t>(axis);
  // The whole axis, which changes: any other k (the top 100 of the anchors) is a count the program chose. And
  // no other size's extent: on a square map `topk(h)` along W is the same 8 as `topk(w)`.
  if (!data[a].is_static() || k->elements[0].lo != data[a].lo() || (now[a].is_static() && now[a].lo() == data[a].lo()) ||
      !sole_sizes(g, declared, asked, data, now, at_or_after_reshapes(g, &l))[a])
    return {};
  pattern_choice c;
  c.port = 1;
  c.computed = {{{a}, 1, 1}};
  c.why = text::k_is_the_axis(terms_text(c.computed), k->elements[0].lo, a);
  return {c};
}

namespace {

/// Whether `f` is check's finding that a pooling's window takes the whole input along an axis.
bool reads_window(const layer& l, const batch_finding& f) {
  return (f.code == "kernel_covers_size" || f.code == "window_spans_size" || f.code == "window_tiles_size") &&
         global_reduction(l).has_value();
}

/// A pooling whose window is, at the declared shapes, the whole of every spatial axis (one output along
/// each, no padding, no dilation), one of them changing: the global pooling the program meant, written as
/// the reduction over those axes. One that covers only some axes, pads, or has a second output that a layer
/// reads (MaxPool-8's indices, which no reduction gives) is refused.
std::vector<pattern_choice> window_choices(const graph& g, const propagation& declared, const propagation&,
                                           const layer& l, const batch_finding& f, text::fix_reason& reason) {
  reason = text::shape_values_unknown();
  const auto reduction = global_reduction(l);
  const auto window = window_of(l);
  if (!reduction || !window || !reads_window(l, f) || l.sources.empty() || !l.sources[0]) return {};
  const auto self = static_cast<std::size_t>(&l - g.layers().data());
  const auto& in = declared.input(g, l, 0).shape;
  const auto& out = declared.outputs[self].empty() ? partial_shape::dynamic() : declared.outputs[self][0].shape;
  const auto& k = window->kernel;
  if (!in.rank_known() || in.size() != k.size() + 2 || !out.rank_known() || out.size() != in.size()) return {};
  const auto zeros = [&](std::string_view name) {
    const auto v = l.integers(name, {});
    return std::all_of(v.begin(), v.end(), [](std::int64_t x) { return x == 0; });
  };
  const auto ones = l.integers("dilations", {});
  const auto pad = l.text("auto_pad", "explicit");
  std::vector<std::int64_t> axes;
  for (std::size_t a = 0; a < k.size(); ++a) {
    const auto x = a + 2;
    if (!in[x].is_static() || in[x].lo() != k[a] || !out[x].is_static() || out[x].lo() != 1) {
      reason = text::window_not_whole(x);
      return {};
    }
    axes.push_back(static_cast<std::int64_t>(x));
  }
  if (!zeros("pads_begin") || !zeros("pads_end") || (pad != "explicit" && pad != "valid" && pad != "notset") ||
      !std::all_of(ones.begin(), ones.end(), [](std::int64_t d) { return d == 1; })) {
    reason = text::window_not_whole(std::nullopt);
    return {};
  }
  // A MaxPool-8's indices (ONNX's MaxPool is read as one) no reduction gives: it is one only where no layer
  // reads them, and the reduction leaves them out.
  if (outputs_read(g)[self] > 1) {
    reason = text::window_not_whole(std::nullopt);
    return {};
  }
  pattern_choice c;
  c.reduction = std::string(*reduction);
  c.axes = axes;
  c.why = text::global_window(c.reduction, axes);
  return {std::move(c)};
}

bool reads_range(const layer& l, const batch_finding& f) {
  return (f.code == "counted_range" || f.code == "counted_grid" || f.code == "spread_along_size") && part_of(l.type) == op_part::constant;
}

/// Whether a count up by `step` (above 0) from `start`, `count` values, starts at a value a Range of another
/// count may keep: below half the count, and at most two steps above 0 (RoBERTa's positions from 2) or half a
/// step below it (yolov5's cells from -0.5). A start further out may follow the size, which one size does not
/// show: a centered grid `j - (W-1)/2`, `linspace(-1, 1, W)`, a shift by W/4 (a cold attack's wrong fixes).
bool start_kept(double start, double step, double count) {
  return 2 * std::abs(start) < count * step && (start >= 0 ? start <= 2 * step : -start <= step / 2);
}

/// A grid's sizes (check's `counted_grid`), each axis it counts along, or nullopt (with `reason`) where it
/// is not one or counts down along one, or starts at half its extent or further there (range_choices).
std::optional<placed_sizes> grid_sizes(const graph& g, const propagation& declared, const propagation& asked,
                                       const tensor& t, counted_range& range, text::fix_reason& reason) {
  const auto grid = grid_along(t, changing_values(g, declared, asked, {}, false));
  if (!grid) return std::nullopt;
  placed_sizes s;
  s.rank = t.shape.size();
  for (std::size_t e = 0; e < grid->axes.size(); ++e) {
    const auto a = grid->axes[e];
    const auto extent = t.shape[a].lo();
    for (std::size_t r = 0; r < grid->base.size(); ++r) {
      const auto slope = grid->slopes[e][r];
      if (slope < 0 || (slope > 0 && !start_kept(grid->base[r], slope, static_cast<double>(extent)))) {
        reason = text::grid_not_read(a, extent);
        return std::nullopt;
      }
    }
    s.values.push_back(extent);
    s.axes.push_back(a);
    s.moving.push_back(1);
  }
  for (std::size_t a = 0; a < t.shape.size(); ++a) range.shape.push_back(t.shape[a].lo());
  range.axes = grid->axes;
  range.base = grid->base;
  range.slopes = grid->slopes;
  return s;
}

/// A Const that counts along one axis (check's `counted_range`: `position_ids[:, :L]`, `arange(h)` folded at
/// one size) read as the count of a tensor its readers' outputs meet along that axis (through Gathers of
/// it, Unsqueezes, broadcasts: passed_on), computed before its first reader: that tensor's extent there,
/// from which a Range counts as the Const did.
std::vector<pattern_choice> range_choices(const graph& g, const propagation& declared, const propagation& asked,
                                          const layer& l, const batch_finding& f, text::fix_reason& reason) {
  reason = text::shape_values_unknown();
  const auto index = static_cast<std::size_t>(&l - g.layers().data());
  if (!reads_range(l, f) || declared.outputs[index].empty()) return {};
  const auto t = const_with_values(g, declared, index);
  counted_range range;
  placed_sizes s;
  if (f.code == "counted_grid" || f.code == "spread_along_size") {
    auto grid = grid_sizes(g, declared, asked, t, range, reason);
    if (!grid) return {};
    s = std::move(*grid);
  } else {
    const auto counted = counts_along(t);
    if (!counted) return {};
    // A start that follows the size as the count does (a count down from L-1, a shift by L) is no constant
    // the Range may keep: only counts up from a start below half the count are read (0, RoBERTa's 2).
    if (counted->step < 0 || !start_kept(static_cast<double>(counted->start), static_cast<double>(counted->step),
                                         static_cast<double>(counted->count))) {
      reason = text::range_not_read(counted->count, counted->start, counted->step);
      return {};
    }
    s.rank = t.shape.size();
    s.values = {counted->count};
    s.axes = {counted->axis};
    s.moving = {1};
    range.start = counted->start;
    range.step = counted->step;
    for (std::size_t a = 0; a < t.shape.size(); ++a)
      range.shape.push_back(a == counted->axis ? -1 : t.shape[a].lo());
  }
  // The new layers go before the first layer that reads the Const: what they read is computed before it.
  const auto first = first_reader(g, index);
  std::vector<pattern_choice> choices;
  const auto may_be_1 = met_tensors(
      g, declared, asked, index, s,
      [&](std::vector<pattern_term> terms, std::size_t layer, std::size_t output) {
        if (!choices.empty()) return;
        choices.push_back(read_from_met(0, g.layers()[layer], output, std::move(terms),
                                        range.axes.empty()             ? text::range_from_tensor
                                        : f.code == "counted_grid" ? text::grid_from_tensor
                                                                   : text::spread_from_tensor));
        choices.back().range = range;
      },
      true, first);
  if (choices.empty() && may_be_1) reason = text::met_may_be_one(std::string(g.layers()[*may_be_1].name));
  return choices;
}

/// Each reading of a value input other than a Reshape's pattern: whether a finding names its input, and its
/// choices. (reads_placed last: it is the widest.)
using reads_fn = bool (*)(const layer&, const batch_finding&);
using choices_fn = std::vector<pattern_choice> (*)(const graph&, const propagation&, const propagation&, const layer&,
                                                   const batch_finding&, text::fix_reason&);
constexpr std::pair<reads_fn, choices_fn> readings[] = {
    {reads_positions, last_position_choices}, {reads_k, k_choices},         {reads_extents, extent_choices},
    {reads_limit, limit_choices},             {reads_divisor, divisor_choices}, {reads_window, window_choices},
    {reads_range, range_choices},             {reads_table, table_choices},
    {reads_placed, placed_size_choices},
};

}  // namespace

std::size_t first_reader(const graph& g, std::size_t index) {
  std::size_t first = g.layers().size();
  for (std::size_t c = 0; c < g.layers().size(); ++c)
    for (const auto& x : g.layers()[c].sources)
      if (x && x->layer == index) first = std::min(first, c);
  return first;
}

bool reads_values(const layer& l, const batch_finding& f) {
  return reads_pads(l, f) ||
         std::any_of(std::begin(readings), std::end(readings), [&](const auto& r) { return r.first(l, f); });
}

std::vector<pattern_choice> value_choices(const graph& g, const propagation& declared, const propagation& asked,
                                          const layer& l, const batch_finding& f, std::span<const std::int64_t> stays,
                                          text::fix_reason& reason) {
  // (A pad to a multiple rounds up to a window that the model's other Reshapes keep: only it reads `stays`.)
  if (reads_pads(l, f)) return pad_choices(g, declared, asked, l, f, stays, reason);
  for (const auto& [reads, choices] : readings)
    if (reads(l, f)) return choices(g, declared, asked, l, f, reason);
  reason = text::shape_values_unknown();
  return {};
}

}  // namespace reshape1::model::detail
