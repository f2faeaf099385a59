// The checks both fixers' proofs make beyond check_batch's verdict (fix_internal.hpp).
#include <utility>

#include "model/analysis/fix_internal.hpp"
#include "model/text/fix.hpp"

namespace reshape1::model::detail {

bool same_shape(const partial_shape& a, const partial_shape& b) {
  if (a.rank_known() != b.rank_known()) return false;
  if (!a.rank_known()) return true;
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k].lo() != b[k].lo() || a[k].hi() != b[k].hi()) return false;
  return true;
}

bool same_shapes(std::span<const tensor> before, std::span<const tensor> after) {
  if (before.size() != after.size()) return false;
  for (std::size_t o = 0; o < before.size(); ++o)
    if (!same_shape(before[o].shape, after[o].shape)) return false;
  return true;
}

bool same_shapes(std::span<const tensor> before, std::span<const tensor> after, std::size_t read) {
  if (after.size() > before.size() || after.size() < std::min(read, before.size())) return false;
  for (std::size_t o = 0; o < std::min(read, before.size()); ++o)
    if (!same_shape(before[o].shape, after[o].shape)) return false;
  return true;
}

std::vector<std::size_t> outputs_read(const graph& g) {
  std::vector<std::size_t> read(g.layers().size(), 0);
  for (const auto& l : g.layers())
    for (const auto& s : l.sources)
      if (s) read[s->layer] = std::max(read[s->layer], s->output + 1);
  return read;
}

std::optional<fix_refusal> not_scaled(const graph& g, const propagation& reference, const propagation& at,
                                      const batch_report& r, const dimension& b) {
  if (!b.is_static() || r.carriers.empty()) return std::nullopt;
  const auto layers = g.layers();
  for (std::size_t i = 0; i < layers.size(); ++i) {
    for (std::size_t o = 0; o < layers[i].outputs.size(); ++o) {
      const auto& c = r.carriers[i][o];
      const auto& d = reference.outputs[i][o].shape;
      const auto& s = at.outputs[i][o].shape;
      if (c.state == batch_carrier::kind::unknown || c.state == batch_carrier::kind::several || !d.rank_known()) continue;
      std::vector<dimension> want(d.begin(), d.end());
      if (c.state == batch_carrier::kind::one) {
        if (c.axis >= want.size()) continue;
        std::int64_t scaled = 0;
        if (__builtin_mul_overflow(b.lo(), c.factor, &scaled)) continue;
        want[c.axis] = dimension(scaled);
      }
      if (!same_shape(partial_shape(std::move(want)), s))
        return refused(layers[i].id, std::string(layers[i].name), std::string(layers[i].type),
                       text::not_scaled(b, o, s, d));
    }
  }
  return std::nullopt;
}

}  // namespace reshape1::model::detail
