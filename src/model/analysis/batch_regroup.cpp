// check --shape (issue 47): a Reshape that groups its input's dimensions otherwise at the shapes asked than at
// the declared ones, though no constant of its pattern is shown to be a size.
#include "model/analysis/batch_internal.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "model/ops/rules.hpp"
#include "model/text/batch.hpp"

namespace reshape1::model::detail {

std::optional<because> regrouped(const graph& g, const propagation& declared, const propagation& asked, std::size_t index,
                                 std::span<const std::string> assumed) {
  const auto& l = g.layers()[index];
  if (part_of(l.type) != op_part::reshape || l.sources.size() < 2 || !l.sources[0] || !l.sources[1] ||
      declared.outputs[index].empty() || asked.outputs[index].empty())
    return std::nullopt;
  // A pattern whose every element is held by a Const the caller vouches for is meant as it is.
  if (const auto& pattern = declared.input(g, l, 1).value; !assumed.empty() && pattern && !pattern->elements.empty()) {
    bool all = true;
    for (std::size_t e = 0; e < pattern->elements.size() && all; ++e) {
      const auto origin = origin_of_element(g, declared, l, 1, e);
      all = origin.holder != nullptr && part_of(origin.holder->type) == op_part::constant && vouched(*origin.holder, assumed);
    }
    if (all) return std::nullopt;
  }
  const std::array<const partial_shape*, 4> shapes{&declared.input(g, l, 0).shape, &declared.outputs[index][0].shape,
                                                   &asked.input(g, l, 0).shape, &asked.outputs[index][0].shape};
  // Prefix products; nullopt where a dimension is not a known positive size or a product passes 2^62.
  const auto prefixes = [](const partial_shape& s) -> std::optional<std::vector<std::int64_t>> {
    if (!s.rank_known()) return std::nullopt;
    std::vector<std::int64_t> p{1};
    for (const auto& d : s) {
      if (!d.is_static() || d.lo() <= 0 || d.lo() > (std::int64_t{1} << 62) / p.back()) return std::nullopt;
      p.push_back(p.back() * d.lo());
    }
    return p;
  };
  std::array<std::vector<std::int64_t>, 4> p;
  for (std::size_t k = 0; k < 4; ++k) {
    auto x = prefixes(*shapes[k]);
    if (!x) return std::nullopt;
    p[k] = std::move(*x);
  }
  const auto& [din, dout, ain, aout] = p;
  if (ain.size() != din.size() || aout.size() != dout.size() || din.back() != dout.back() || ain.back() != aout.back())
    return std::nullopt;
  for (std::size_t i = 0; i < din.size();) {
    // The places (a range: dimensions of 1 repeat a product) where input and output share this product.
    std::size_t i_end = i;
    while (i_end < din.size() && din[i_end] == din[i]) ++i_end;
    const auto j_first = std::find(dout.begin(), dout.end(), din[i]);
    if (j_first != dout.end()) {
      const auto j = static_cast<std::size_t>(j_first - dout.begin());
      std::size_t j_end = j;
      while (j_end < dout.size() && dout[j_end] == din[i]) ++j_end;
      bool kept = false;
      for (std::size_t a = i; a < i_end && !kept; ++a)
        for (std::size_t b = j; b < j_end && !kept; ++b) kept = ain[a] == aout[b];
      if (!kept)
        return because(why::regroups_sizes, i, j)
            .quoting(fmt::format("{} -> {} against {} -> {}",
                                 to_string(without_symbols(*shapes[0])), to_string(without_symbols(*shapes[1])),
                                 to_string(without_symbols(*shapes[2])), to_string(without_symbols(*shapes[3]))));
    }
    i = i_end;
  }
  return std::nullopt;
}

}  // namespace reshape1::model::detail
