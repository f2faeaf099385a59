// New sizes: a Const that is a tensor's whole shape (check's `shape_table`), computed as that shape: see
// fix_internal.hpp. The planner writes it as it writes a counted constant's Range (counted_range::table).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

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
  return (f.code == "shape_table" || f.code == "shape_table_part" || f.code == "shape_table_count") &&
         part_of(l.type) == op_part::constant;
}

namespace {

/// The first layer that reads the output of layer `index` otherwise than a shape is read: by index (a Gather's
/// or a Slice's data) or whole as an output's shape (gives_output_shape: an Expand's), or as the input of a
/// Concat, or of a Convert to integers (a table stored as floats), a Squeeze or a Reshape, that is read so in turn (`depth`
/// of those at most); null when none.
const layer* read_whole(const graph& g, const propagation& declared, std::size_t index, int depth = 4) {
  for (const auto& c : g.layers())
    for (std::size_t port = 0; port < c.sources.size(); ++port) {
      if (!c.sources[port] || c.sources[port]->layer != index) continue;
      const auto at = static_cast<std::size_t>(&c - g.layers().data());
      const auto& out = declared.outputs[at];
      const auto part = part_of(c.type);
      const bool passes = part == op_part::concat || ((part == op_part::passes_values || part == op_part::reshape) && port == 0 &&
                                                      !out.empty() && out[0].type && is_integer(*out[0].type));
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

namespace {

/// The ways a table (`key`, finding `code`) is computed from a tensor of declared shape `dims`, each a term per
/// value: `shape_table`, the whole shape; `shape_table_part`, any of its dimensions other than 1 that are the
/// table's values other than 1 in order, a 1 of the table written as 1; `shape_table_count`, the one value other
/// than 1 as any set of its dimensions whose product it is. None where it is no such reading.
std::vector<std::vector<pattern_term>> table_readings(std::string_view code, std::span<const std::int64_t> key,
                                                      std::span<const std::int64_t> dims) {
  std::vector<std::vector<pattern_term>> out;
  const auto literal = [](std::int64_t v) { return pattern_term{{}, v, 1}; };
  if (code == "shape_table") {
    if (!std::equal(key.begin(), key.end(), dims.begin(), dims.end())) return out;
    std::vector<pattern_term> terms;
    for (std::size_t k = 0; k < key.size(); ++k) terms.push_back(pattern_term{{k}, 1, 1});
    out.push_back(std::move(terms));
  } else if (code == "shape_table_part" || code == "shape_table_count") {
    // Every choice of the shape's dimensions other than 1 the table's values could be: in order, one each (part),
    // or any set whose product is the table's one value other than 1 (count). Up to 16 such dimensions.
    std::vector<std::size_t> big;
    for (std::size_t k = 0; k < dims.size(); ++k)
      if (dims[k] != 1) big.push_back(k);
    std::vector<std::int64_t> want;
    for (const auto v : key)
      if (v != 1) want.push_back(v);
    if (big.size() > 16 || want.empty() || std::any_of(key.begin(), key.end(), [](std::int64_t v) { return v < 1; })) return out;
    for (std::uint32_t set = 1; set < (std::uint32_t{1} << big.size()); ++set) {
      std::vector<std::size_t> chosen;
      std::int64_t product = 1;
      for (std::size_t b = 0; b < big.size(); ++b)
        if ((set >> b) & 1U) {
          chosen.push_back(big[b]);
          // (Past the count, it stays past it: no product is taken that could overflow.)
          if (product >= 0) product = dims[big[b]] > want[0] / product + 1 ? -1 : product * dims[big[b]];
        }
      std::vector<pattern_term> terms;
      std::size_t next = 0;
      if (code == "shape_table_part") {
        if (chosen.size() != want.size()) continue;
        bool same = true;
        for (std::size_t j = 0; j < want.size(); ++j) same = same && dims[chosen[j]] == want[j];
        if (!same) continue;
        for (const auto v : key) terms.push_back(v == 1 ? literal(1) : pattern_term{{chosen[next++]}, 1, 1});
      } else {
        if (product != want[0]) continue;
        for (const auto v : key) terms.push_back(v == 1 ? literal(1) : pattern_term{chosen, 1, 1});
      }
      out.push_back(std::move(terms));
    }
  }
  return out;
}

/// `terms` at the shapes asked, `asked` the tensor's shape there: `[1,2,?@x_2,12]`; "unknown" where its rank is.
/// `vague` tells whether a dimension read is neither static nor a symbol there (an interval, `1..`), which two
/// readings may share as text and still differ at.
std::string terms_at(std::span<const pattern_term> terms, const partial_shape& asked, bool& vague) {
  vague = !asked.rank_known();
  if (!asked.rank_known()) return "unknown";
  std::vector<std::string> values;
  for (const auto& t : terms) {
    std::vector<std::string> product;
    for (const auto d : t.dims) {
      vague = vague || d >= asked.size() || (!asked[d].is_static() && !asked[d].symbol());
      product.push_back(d < asked.size() ? to_string(asked[d]) : std::string("?"));
    }
    values.push_back(product.empty() ? std::to_string(t.factor) : fmt::format("{}", fmt::join(product, "·")));
  }
  return fmt::format("[{}]", fmt::join(values, ","));
}

}  // namespace

/// A Const that is a tensor's shape at the declared shapes (check's `shape_table`: `x.shape` folded at export,
/// then indexed; `shape_table_part`, that shape but for its 1s; `shape_table_count`, a product of its
/// dimensions), computed instead from that tensor's shape (table_readings), for every layer that reads it. The
/// tensor: one not computed from the Const, and for a whole shape one computed before the Const's first reader;
/// where several readings are and any two differ at the shapes asked (or may: terms_at's `vague`), none, since
/// which one the table stood for one size does not show. A count of more than one value other than 1 is refused
/// before any reading is looked for (table_count_split).
/// Only a table that is indexed (read by Gathers and Slices, through Concats and Converts to integers) or read
/// whole as a shape is read so.
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
  const auto key_text = fmt::format("[{}]", fmt::join(*key, ","));
  if (f.code == "shape_table_count" && std::count_if(key->begin(), key->end(), [](std::int64_t v) { return v != 1; }) > 1) {
    reason = text::table_count_split(key_text);
    return {};
  }
  const auto first = first_reader(g, index);
  // The layers computed from the Const (a tensor of its shape made by Expand or ConstantOfShape from it).
  std::vector<char> the_const(g.layers().size(), 0);
  the_const[index] = 1;
  auto from_table = downstream_of(g, the_const);
  from_table[index] = 1;
  std::optional<std::pair<std::size_t, std::size_t>> met;
  std::vector<pattern_term> met_terms;
  std::string met_at;
  bool met_vague = false;
  // (A whole shape is read from a tensor the program computed before it; a part or a count, weaker signs, from any
  // tensor, and only where no other reading may be meant.)
  const bool whole = f.code == "shape_table";
  for (std::size_t i = 0; i < (whole ? first : g.layers().size()); ++i) {
    if (from_table[i] != 0) continue;
    for (std::size_t o = 0; o < declared.outputs[i].size() && o < asked.outputs[i].size(); ++o) {
      const auto& d = declared.outputs[i][o].shape;
      if (!d.is_static()) continue;
      std::vector<std::int64_t> dims;
      for (const auto& x : d) dims.push_back(x.lo());
      for (auto& terms : table_readings(f.code, *key, dims)) {
        bool vague = false;
        const auto at = terms_at(terms, asked.outputs[i][o].shape, vague);
        // (Other dimensions read alike as text, `1..` and `1..`, may differ: H or W of a map 4x4 for a count of 4.
        // The same dimensions of two tensors that read alike are taken as the same: a map and its ReLU.)
        // (A layer's two outputs of one shape, a MaxPool's values and indices, are one reading.)
        if (met && met->first == i && terms == met_terms) continue;
        if (met && (at != met_at || ((!whole || terms != met_terms) && (vague || met_vague)))) {
          reason = text::table_tensor_unknown(key_text, terms_text(met_terms, g.layers()[met->first].name), met_at,
                                              terms_text(terms, g.layers()[i].name), at);
          return {};
        }
        if (!met) {
          met = std::pair(i, o);
          met_terms = std::move(terms);
          met_at = at;
          met_vague = vague;
        }
      }
    }
  }
  if (!met || met_at == "unknown") return {};
  auto c = read_from_met(
      0, g.layers()[met->first], met->second, std::move(met_terms),
      [&](const std::string& terms, const std::string& source) { return text::table_from_tensor(f.code, terms, source); });
  counted_range table;
  table.table = true;
  for (const auto& d : declared.outputs[index][0].shape) table.shape.push_back(d.lo());
  c.range = std::move(table);
  return {std::move(c)};
}

}  // namespace reshape1::model::detail
