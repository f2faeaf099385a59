// check --shape at sizes that are 1 at the declared shapes (issue 47): a model exported at a height or a
// length of 1 holds constants one row long where the program made one row per position (`arange(h)` is `[0]`
// at a height of 1), and a layer that spreads them gives every row the same value at a new size instead of
// failing. Which layers carry such a constant's 1s, and where one is spread over a size that changes; and the
// mirror, a value computed from constants spread over an input that becomes 1 at the sizes asked.
#include "model/analysis/batch_internal.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "model/ops/rules.hpp"
#include "model/text/batch.hpp"

namespace reshape1::model::detail {
namespace {

/// The Const a value computed from constants alone is read from: the first Const met going back through its
/// layers' inputs (a Reciprocal, an Unsqueeze, a Convert of it) that the model itself holds (not one the
/// ONNX lowering added); nullptr where none is met within a few layers.
const layer* holding_const(const graph& g, std::size_t index) {
  std::vector<std::size_t> next{index};
  for (std::size_t k = 0; k < next.size() && k < 32; ++k) {
    const auto& l = g.layers()[next[k]];
    if (part_of(l.type) == op_part::constant) {
      if (!l.auxiliary) return &l;
      continue;
    }
    for (const auto& x : l.sources)
      if (x) next.push_back(x->layer);
  }
  return nullptr;
}

/// The axes (bit a for axis a) where a tensor of shape `s` is 1.
std::uint64_t ones_of(const partial_shape& s) {
  std::uint64_t ones = 0;
  if (!s.rank_known() || s.size() > 64) return ones;
  for (std::size_t a = 0; a < s.size(); ++a)
    if (s[a].is_static() && s[a].lo() == 1) ones |= std::uint64_t{1} << a;
  return ones;
}

}  // namespace

std::optional<std::size_t> spread_tail(const layer& l) {
  const auto* row = find_entry(l.type, l.opset);
  if (row == nullptr) return std::nullopt;
  const auto fn = row->batch.fn;
  if (fn == batch::matmul) return 2;
  if (fn == batch::broadcast) {
    const auto mode = l.text("mode", "numpy");
    return mode == "numpy" || mode == "bidirectional" ? std::optional<std::size_t>(0) : std::nullopt;
  }
  if (fn == batch::pointwise || fn == batch::select || fn == batch::prelu)
    return l.text("auto_broadcast", "numpy") == "numpy" ? std::optional<std::size_t>(0) : std::nullopt;
  if (fn == batch::tile || fn == batch::interpolate || fn == batch::slice || fn == batch::strided_slice) return 0;
  return std::nullopt;
}

std::size_t first_axis_at(const layer& l, std::size_t port, const partial_shape& in, std::size_t rank) {
  const auto* row = find_entry(l.type, l.opset);
  if (row != nullptr && row->batch.fn == batch::prelu && port == 1 && in.size() == 1 && rank >= 2 &&
      l.find("onnx_numpy_slope") == nullptr)
    return 1;
  return rank - in.size();
}

std::pair<const layer*, std::size_t> program_operand(const graph& g, const layer& l, std::size_t port) {
  if (port >= l.sources.size() || !l.sources[port]) return {&l, port};
  const auto& b = g.layers()[l.sources[port]->layer];
  const auto* row = b.auxiliary ? find_entry(b.type, b.opset) : nullptr;
  if (row == nullptr || row->batch.fn != batch::broadcast || b.text("mode", "numpy") != "bidirectional" ||
      b.sources.empty() || !b.sources[0])
    return {&l, port};
  return {&b, 0};
}

std::uint64_t constant_ones::of(const propagation& declared, std::size_t index, std::size_t o) const {
  if (o == 0) return axes[index];
  const bool carries = from[index] != from.size() && o < declared.outputs[index].size();
  return carries ? ones_of(declared.outputs[index][o].shape) : 0;
}

constant_ones ones_of_constants(const graph& g, const propagation& declared, const propagation& asked,
                                std::span<const std::vector<batch_carrier>> carriers,
                                std::span<const std::string> assumed) {
  const auto n = g.layers().size();
  constant_ones c{std::vector<std::uint64_t>(n, 0), std::vector<char>(n, 0), std::vector<std::size_t>(n, n)};
  const auto visible = [&](std::size_t layer, std::size_t o) {
    auto carried = c.of(declared, layer, o);
    if (const auto b = batch_axis(carriers, layer, o); b && *b < 64) carried &= ~(std::uint64_t{1} << *b);
    return carried;
  };
  for (const auto index : g.order()) {
    const auto& l = g.layers()[index];
    if (declared.outputs[index].empty()) continue;
    const auto& out = declared.outputs[index][0].shape;
    const auto ones = ones_of(out);
    if (!asked.follows_inputs[index]) {
      const auto* holder = holding_const(g, index);
      if (part_of(l.type) != op_part::parameter && !(holder != nullptr && vouched(*holder, assumed))) {
        c.axes[index] = ones;
        c.from[index] = index;
      }
      continue;
    }
    const auto* row = find_entry(l.type, l.opset);
    const bool lines_up_otherwise = row != nullptr && (row->batch.fn == batch::einsum || row->batch.fn == batch::matmul);
    const auto tail = lines_up_otherwise ? std::nullopt : spread_tail(l);
    if (tail && row != nullptr && out.rank_known() && out.size() >= *tail) {
      for (std::size_t port = 0; port < l.sources.size(); ++port) {
        const auto& s = l.sources[port];
        if (!s || reads_value(row->values, port)) continue;
        const auto carried = c.of(declared, s->layer, s->output);
        if (c.hidden[s->layer] != 0) {
          c.hidden[index] = 1;
          if (c.from[index] == n) c.from[index] = c.from[s->layer];
        }
        if (carried == 0) continue;
        const auto& in = declared.input(g, l, port).shape;
        if (!in.rank_known() || in.size() > out.size()) continue;
        const auto first = first_axis_at(l, port, in, out.size());
        for (std::size_t k = 0; k < in.size() && first + k + *tail < out.size(); ++k)
          if ((carried >> k & 1U) != 0 && (ones >> (first + k) & 1U) != 0) {
            c.axes[index] |= std::uint64_t{1} << (first + k);
            if (c.from[index] == n) c.from[index] = c.from[s->layer];
          }
      }
      continue;
    }
    // Any other layer (MatMul's rows, an Einsum's labels, a Reshape, a reduction...): what it does with the
    // axes it reads is not followed, so every output is taken to carry the constant's 1s at each axis it is 1
    // along. (Not where the input carries them only along its batch: a bias spread over the samples; nor from
    // an input read as values, a pattern or axes: baked_size's.)
    for (std::size_t port = 0; port < l.sources.size(); ++port) {
      const auto& s = l.sources[port];
      if (!s || (row != nullptr && reads_value(row->values, port)) ||
          (visible(s->layer, s->output) == 0 && c.hidden[s->layer] == 0))
        continue;
      c.axes[index] = ones;
      c.from[index] = c.from[s->layer];
      c.hidden[index] = visible(index, 0) == 0 ? 1 : 0;
      break;
    }
  }
  return c;
}

std::optional<batch_finding> spread_at_size_1(const graph& g, const propagation& declared, const propagation& asked,
                                              std::span<const std::vector<batch_carrier>> carriers, std::size_t index,
                                              const constant_ones& ones, std::span<const std::string> assumed) {
  const auto& l = g.layers()[index];
  // (An Einsum lines its inputs up by its labels: taken as spreading any of them along any axis.)
  const auto* row = find_entry(l.type, l.opset);
  const bool einsum = row != nullptr && row->batch.fn == batch::einsum;
  const auto tail = einsum ? std::optional<std::size_t>(0) : spread_tail(l);
  if (!tail || row == nullptr || !asked.follows_inputs[index] || declared.outputs[index].empty() ||
      asked.outputs[index].empty() || vouched(l, assumed))
    return std::nullopt;
  const auto& out_d = declared.outputs[index][0].shape;
  const auto& out_a = asked.outputs[index][0].shape;
  if (!out_d.rank_known() || !out_a.rank_known() || out_d.size() != out_a.size() || out_d.size() < *tail)
    return std::nullopt;
  const auto batch = batch_axis(carriers, index, 0);
  for (std::size_t port = 0; port < l.sources.size(); ++port) {
    // (Not an input read as values: a Broadcast's target shape, a Tile's repeats.)
    const auto& s = l.sources[port];
    const auto carried = s ? ones.of(declared, s->layer, s->output) : 0;
    if (!s || reads_value(row->values, port) || carried == 0) continue;
    const auto& c = declared.input(g, l, port).shape;
    const auto& c_asked = asked.input(g, l, port).shape;
    if (!c.rank_known() || c.size() > out_d.size() || !c_asked.rank_known() || c_asked.size() != c.size()) continue;
    const auto first = einsum ? 0 : first_axis_at(l, port, c, out_d.size());
    for (std::size_t k = 0; k < (einsum ? out_d.size() : c.size()) && first + k + *tail < out_d.size(); ++k) {
      const auto a = first + k;
      // (At the shapes asked a size the request names: another number, or a symbol it gave. An unknown there,
      // after a layer that fails or a -1 that leaves it so, is not shown to be a size.)
      const auto& at = out_a[a];
      // (The input is spread there: 1 at the shapes asked too. One that takes the new size follows it.)
      const bool spread = einsum || ((carried >> k & 1U) != 0 && c_asked[k].is_static() && c_asked[k].lo() == 1);
      if (!spread || a == batch || !out_d[a].is_static() || out_d[a].lo() != 1 || same_at(out_d, out_a, a) ||
          !(at.has_symbol() || (at.is_static() && at.lo() != 1)))
        continue;
      const auto origin = ones.from[s->layer];
      const auto* holder = holding_const(g, origin);
      const auto& named = holder != nullptr ? *holder : g.layers()[origin];
      auto f = size_finding(l, index);
      set_reason(f, because(why::spread_at_size_1, port, a)
                        .quoting(fmt::format("'{}' (id {}); the output is {} at the declared shapes and {} at the shapes asked",
                                             named.name, named.id, to_string(without_symbols(out_d)),
                                             to_string(without_symbols(out_a)))));
      f.source = std::string(named.name);
      f.source_id = named.id;
      return f;
    }
  }
  return std::nullopt;
}

std::optional<batch_finding> spread_over_size_1(const graph& g, const propagation& declared, const propagation& asked,
                                                std::size_t index, const std::unordered_map<std::int64_t, size_source>& sizes,
                                                std::span<const std::string> assumed) {
  const auto& l = g.layers()[index];
  const auto* row = find_entry(l.type, l.opset);
  if (row == nullptr || spread_tail(l) != std::optional<std::size_t>(0) || !asked.follows_inputs[index] ||
      declared.outputs[index].empty() || asked.outputs[index].empty() || vouched(l, assumed))
    return std::nullopt;
  const auto& out_d = declared.outputs[index][0].shape;
  const auto& out_a = asked.outputs[index][0].shape;
  if (!out_d.rank_known() || !out_a.rank_known() || out_d.size() != out_a.size()) return std::nullopt;
  const auto rank = out_d.size();
  for (std::size_t port = 0; port < l.sources.size(); ++port) {
    // An input computed from constants alone (a Const read directly is its own finding: spread_extent).
    const auto& s = l.sources[port];
    if (!s || reads_value(row->values, port) || asked.follows_inputs[s->layer] ||
        part_of(g.layers()[s->layer].type) == op_part::constant || part_of(g.layers()[s->layer].type) == op_part::parameter)
      continue;
    const auto* holder = holding_const(g, s->layer);
    if (holder == nullptr || vouched(*holder, assumed)) continue;
    const auto& c = declared.input(g, l, port).shape;
    if (!c.is_static() || c.size() > rank) continue;
    const auto first = first_axis_at(l, port, c, rank);
    for (std::size_t q = 0; q < l.sources.size(); ++q) {
      if (q == port || !l.sources[q] || reads_value(row->values, q)) continue;
      const auto [held, r] = program_operand(g, l, q);
      const auto& od = declared.input(g, *held, r).shape;
      const auto& oa = asked.input(g, *held, r).shape;
      if (!od.rank_known() || !oa.rank_known() || oa.size() != od.size() || od.size() > rank) continue;
      for (std::size_t k = 0; k < c.size() && first + k < rank; ++k) {
        const auto n = c[k].lo();
        const auto a = first + k;
        if (n < 2) continue;
        // The other input is n long there at the declared shapes and 1 at the shapes asked; or it has no such
        // axis (the constants of higher rank) and n is a size that changes, where that input is the model's
        // data: the output takes n from the constants alone at every shape.
        const bool lacks = a < rank - od.size();
        const auto o = lacks ? 0 : a - (rank - od.size());
        const auto size = lacks ? sizes.find(n) : sizes.end();
        if (lacks ? size == sizes.end() || !asked.follows_inputs[held->sources[r]->layer]
                  : !od[o].is_static() || od[o].lo() != n || !oa[o].is_static() || oa[o].lo() != 1)
          continue;
        auto f = size_finding(l, index);
        const auto where =
            lacks ? fmt::format("that has no such axis (from '{}' (id {}); {} equals {} at the declared shapes, which "
                                "is {} at the shapes asked)",
                                holder->name, holder->id, n, describe(size->second), asked_text(size->second))
                  : fmt::format("that is {} long at the declared shapes and 1 at the shapes asked (from '{}' (id {}); "
                                "input {} is {} at the declared shapes and {} at the shapes asked)",
                                n, holder->name, holder->id, q, to_string(without_symbols(od)),
                                to_string(without_symbols(oa)));
        set_reason(f, because(why::spread_over_size_1, port, a, n).quoting(where));
        f.source = std::string(holder->name);
        f.source_id = holder->id;
        return f;
      }
    }
  }
  return std::nullopt;
}

}  // namespace reshape1::model::detail
