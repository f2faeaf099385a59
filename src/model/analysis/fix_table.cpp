// New sizes: a Const that is a tensor's whole shape (check's `shape_table`), computed as that shape: see
// fix_internal.hpp. The planner writes it as it writes a counted constant's Range (counted_range::table).
#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "model/analysis/batch_internal.hpp"
#include "model/analysis/fix_internal.hpp"
#include "model/ops/rules.hpp"
#include "model/ops/sizes.hpp"
#include "model/text/fix.hpp"

namespace reshape1::model::detail {

std::vector<std::int64_t> table_pattern(std::span<const std::int64_t> shape) {
  std::vector<std::int64_t> pattern(shape.begin(), shape.end());
  for (auto& d : pattern)
    if (d != 1) d = -1;
  return pattern;
}

bool reads_table(const layer& l, const batch_finding& f) {
  return f.code == "shape_table" && part_of(l.type) == op_part::constant;
}

namespace {

/// The first layer that reads the output of layer `index` otherwise than a shape is read: by index (a Gather's
/// or a Slice's data) or whole as an output's shape (gives_output_shape: an Expand's), or as the input of a
/// Concat, or of a Convert to integers (a table stored as floats) or a Squeeze, that is read so in turn (`depth`
/// of those at most); null when none.
const layer* read_whole(const graph& g, const propagation& declared, std::size_t index, int depth = 4) {
  for (const auto& c : g.layers())
    for (std::size_t port = 0; port < c.sources.size(); ++port) {
      if (!c.sources[port] || c.sources[port]->layer != index) continue;
      const auto at = static_cast<std::size_t>(&c - g.layers().data());
      const auto& out = declared.outputs[at];
      const bool passes = part_of(c.type) == op_part::concat ||
                          (part_of(c.type) == op_part::passes_values && port == 0 && !out.empty() && out[0].type &&
                           is_integer(*out[0].type));
      if (passes && depth > 0) {
        if (const auto* whole = read_whole(g, declared, at, depth - 1)) return whole;
        continue;
      }
      if (gives_output_shape(g, declared, c, port)) continue;  // (an Expand's, a ConstantOfShape's, a Tile's of 1s)
      if (port != 0 || (!slices(c) && !holds_positions(c, 1))) return &c;
    }
  return nullptr;
}

}  // namespace

/// A Const that is the whole shape of a tensor at the declared shapes (check's `shape_table`: `x.shape` folded
/// at export, then indexed), computed instead as that tensor's shape, for every layer that reads it. The
/// tensor: one of that declared shape computed before the Const's first reader, and not from the Const; where
/// several are and any two differ at the shapes asked (or one's rank is unknown there), none, since which one
/// the table stood for one size does not show. Only a table that is indexed (read by Gathers and Slices, through
/// Concats and Converts to integers) or read whole as a shape is read so.
std::vector<pattern_choice> table_choices(const graph& g, const propagation& declared, const propagation& asked, const layer& l,
                                          const batch_finding& f, text::fix_reason& reason) {
  reason = text::shape_values_unknown();
  const auto index = static_cast<std::size_t>(&l - g.layers().data());
  if (!reads_table(l, f) || declared.outputs[index].empty()) return {};
  const auto key = table_values(declared.outputs[index][0].value);
  if (!key) return {};
  // (A table read whole, as weights are, may equal a shape by chance: only one indexed as `x.shape[i]` is one.)
  if (const auto* whole = read_whole(g, declared, index)) {
    reason = text::table_read_whole(std::string(whole->op_type()), std::string(whole->name));
    return {};
  }
  const auto first = first_reader(g, index);
  // The layers computed from the Const (a tensor of its shape made by Expand or ConstantOfShape from it).
  std::vector<char> the_const(g.layers().size(), 0);
  the_const[index] = 1;
  auto from_table = downstream_of(g, the_const);
  from_table[index] = 1;
  std::optional<std::pair<std::size_t, std::size_t>> met;
  std::string met_at;
  for (std::size_t i = 0; i < first; ++i) {
    if (from_table[i] != 0) continue;
    for (std::size_t o = 0; o < declared.outputs[i].size() && o < asked.outputs[i].size(); ++o) {
      const auto& d = declared.outputs[i][o].shape;
      if (!d.is_static() || d.size() != key->size() ||
          !std::equal(d.begin(), d.end(), key->begin(), [](const dimension& x, std::int64_t v) { return x.lo() == v; }))
        continue;
      const auto& a = asked.outputs[i][o].shape;
      const auto at = a.rank_known() ? to_string(a) : std::string("unknown");
      if (met && at != met_at) {
        reason = text::table_tensor_unknown(to_string(d), std::string(g.layers()[met->first].name), met_at,
                                            std::string(g.layers()[i].name), at);
        return {};
      }
      if (!met) {
        met = std::pair(i, o);
        met_at = at;
      }
    }
  }
  if (!met || met_at == "unknown") return {};
  std::vector<pattern_term> terms;
  for (std::size_t k = 0; k < key->size(); ++k) terms.push_back(pattern_term{{k}, 1, 1});
  auto c = read_from_met(0, g.layers()[met->first], met->second, std::move(terms), text::table_from_tensor);
  counted_range table;
  table.table = true;
  for (const auto& d : declared.outputs[index][0].shape) table.shape.push_back(d.lo());
  c.range = std::move(table);
  return {std::move(c)};
}

}  // namespace reshape1::model::detail
