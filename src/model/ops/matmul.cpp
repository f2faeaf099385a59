// MatMul-1: [..., M, K] x [..., K, N] = [broadcast batch..., M, N], with transpose_a/transpose_b and 1-D
// operands (a vector is [1, K] on the left and [K, 1] on the right; the added 1 is removed again).
#include <fmt/format.h>

#include "model/ops/rules.hpp"

namespace reshape1::model::detail {
namespace {

void matmul(op& o) {
  o.need(2, 1);
  o.out[0].type = o.in[0]->type;
  auto a = o.shape(0);
  auto b = o.shape(1);
  if (!a.rank_known() || !b.rank_known()) return;
  if (a.size() == 0 || b.size() == 0) refuse(o, "MatMul does not take scalars");
  const bool vector_a = a.size() == 1, vector_b = b.size() == 1;
  std::vector<dimension> da(a.begin(), a.end()), db(b.begin(), b.end());
  if (vector_a) da.insert(da.begin(), dimension(1));
  if (vector_b) db.push_back(dimension(1));
  if (o.l.flag("transpose_a", false) && !vector_a) std::swap(da[da.size() - 1], da[da.size() - 2]);
  if (o.l.flag("transpose_b", false) && !vector_b) std::swap(db[db.size() - 1], db[db.size() - 2]);
  (void)merge(o, da.back(), db[db.size() - 2],
              fmt::format("the inner dimensions of {} and {}", to_string(o.shape(0)), to_string(o.shape(1))));
  const partial_shape batch_a(std::vector<dimension>(da.begin(), da.end() - 2));
  const partial_shape batch_b(std::vector<dimension>(db.begin(), db.end() - 2));
  const auto batch = broadcast(o, batch_a, batch_b);
  std::vector<dimension> out(batch.begin(), batch.end());
  if (!vector_a) out.push_back(da[da.size() - 2]);
  if (!vector_b) out.push_back(db.back());
  o.out[0].shape = partial_shape(std::move(out));
}

constexpr rule_entry matmul_table[] = {{"MatMul", 1, matmul, batch::matmul, no_values}};

}  // namespace

std::span<const rule_entry> matmul_rules() { return matmul_table; }

}  // namespace reshape1::model::detail
