// LSTMSequence-5: X [N, L, I], H0 and C0 [N, D, H], lengths [N], W [D, 4H, I], R [D, 4H, H], B [D, 4H]
// give Y [N, D, L, H], Ho and Co [N, D, H]; D is 2 for a bidirectional sequence, else 1.
#include <fmt/format.h>

#include "../rules.hpp"

namespace reshape1::model::detail {
namespace {

void lstm_sequence(op& o) {
  o.need(7, 3);
  for (auto& t : o.out) t.type = o.in[0]->type;
  const auto hidden = o.l.integer("hidden_size");
  if (hidden <= 0 || hidden > (std::int64_t{1} << 60)) refuse(o, fmt::format("hidden_size is {}", hidden));
  const auto direction = o.l.text("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    refuse(o, fmt::format("direction '{}' is not forward, reverse or bidirectional", direction));
  const dimension d(direction == "bidirectional" ? 2 : 1), h(hidden), gates(4 * hidden);
  dimension n, length, input;
  const auto& x = o.shape(0);
  if (x.rank_known()) {
    if (x.size() != 3) refuse(o, fmt::format("X {} must be [N, L, I]", to_string(x)));
    n = x[0];
    length = x[1];
    input = x[2];
  }
  auto expect = [&](std::size_t port, std::vector<dimension> dims, const char* what) {
    const auto& s = o.shape(port);
    if (!s.rank_known()) return;
    if (s.size() != dims.size()) refuse(o, fmt::format("{} {} has rank {}, not {}", what, to_string(s), s.size(), dims.size()));
    for (std::size_t i = 0; i < dims.size(); ++i) dims[i] = merge(o, dims[i], s[i], fmt::format("{} dimension {}", what, i));
    if (port == 1 || port == 2) n = dims[0];
  };
  expect(1, {n, d, h}, "H0");
  expect(2, {n, d, h}, "C0");
  expect(3, {n}, "sequence lengths");
  expect(4, {d, gates, input}, "W");
  expect(5, {d, gates, h}, "R");
  expect(6, {d, gates}, "B");
  o.out[0].shape = partial_shape{n, d, length, h};
  o.out[1].shape = partial_shape{n, d, h};
  o.out[2].shape = partial_shape{n, d, h};
}

constexpr rule_entry table[] = {{"LSTMSequence", 5, lstm_sequence}};

}  // namespace

std::span<const rule_entry> recurrent_rules() { return table; }

}  // namespace reshape1::model::detail
