// The proof both fixers make after check_batch's verdict (fix_proof.cpp): a rewritten model keeps the
// original's shapes at its declared inputs, and every tensor carries the batch where check_batch says.
// The rewrites fix plans keep both by construction, so these are judged here on models made to break them.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "../ir_builder.hpp"
#include "model/analysis/batch_internal.hpp"
#include "model/analysis/fix_internal.hpp"
#include "reshape1/model/propagate.hpp"

namespace reshape1::test {
namespace {

namespace md = model::detail;

/// `g` propagated with its Parameter at index `layer` given `shape`.
model::propagation propagated(const model::graph& g, std::size_t layer, partial_shape shape) {
  const std::vector<model::input_shape> inputs{{layer, std::move(shape)}};
  return model::propagate(g, inputs);
}

class fix_proof : public ir {
 protected:
  /// [1,6] -> ReLU -> Reshape to `pattern` -> Result.
  model::graph relu_and_reshape(const std::vector<std::int64_t>& pattern, const std::string& out) {
    ir_builder b;
    const int x = b.parameter("[1,6]", "x", "NC");
    const int relu = b.layer("ReLU", "", {"[1,6]"}, {"[1,6]"});
    b.edge(x, relu, 0);
    const int r = b.reshape(relu, b.i64(pattern), true, "[1,6]", fmt::format("[{}]", pattern.size()), out);
    b.result(r, out);
    return load(b.xml(), b.bin());
  }

  /// check_batch at `batch`, with its propagation at the requested shapes.
  std::pair<model::batch_report, model::propagation> at(const model::graph& g, std::int64_t batch) {
    md::batch_runs runs;
    auto r = md::check_batch_keeping(g, {.batch = dimension(batch)}, runs);
    EXPECT_TRUE(runs.runs[1].has_value());
    return {std::move(r), std::move(*runs.runs[1])};
  }
};

TEST_F(fix_proof, a_model_whose_tensors_scale_with_the_batch_passes) {
  const auto g = relu_and_reshape({0, 2, 3}, "[1,2,3]");
  const auto declared = model::propagate(g);
  for (const std::int64_t b : {1, 2, 8}) {
    const auto [r, p] = at(g, b);
    ASSERT_TRUE(r.summary.reshapes()) << r.summary_line();
    EXPECT_EQ(md::not_scaled(g, declared, p, r, dimension(b)), std::nullopt) << b;
  }
  // A dynamic batch has no shape to compare with.
  const auto [r, p] = at(g, 2);
  EXPECT_EQ(md::not_scaled(g, declared, p, r, dimension()), std::nullopt);
}

TEST_F(fix_proof, a_tensor_that_does_not_scale_is_named) {
  // The reference says the input was [1,7]: at batch 2 the Parameter's [2,6] is not it with the batch
  // scaled, and it is the first layer that says so.
  const auto g = relu_and_reshape({0, 2, 3}, "[1,2,3]");
  const auto& x = g.layers()[g.order().front()];
  ASSERT_EQ(std::string_view(x.type), "Parameter");
  const auto other = propagated(g, g.order().front(), {dimension(1), dimension(7)});
  const auto [r, p] = at(g, 2);
  const auto refusal = md::not_scaled(g, other, p, r, dimension(2));
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->id, x.id);
  EXPECT_EQ(refusal->type, "Parameter");
  EXPECT_EQ(refusal->reason, "at batch 2 output 0 is [2,6], not its declared [1,7] with the batch scaled");
}

TEST_F(fix_proof, a_tensor_that_carries_no_batch_keeps_its_shape) {
  // The pattern Const carries no batch: a reference in which it had another shape names it.
  const auto g = relu_and_reshape({0, 2, 3}, "[1,2,3]");
  const auto declared = model::propagate(g);
  auto reference = declared;
  std::optional<std::size_t> pattern;
  for (std::size_t i = 0; i < g.layers().size(); ++i)
    if (std::string_view(g.layers()[i].type) == "Const") pattern = i;
  ASSERT_TRUE(pattern.has_value());
  reference.outputs[*pattern][0].shape = partial_shape({dimension(4)});
  const auto [r, p] = at(g, 2);
  const auto refusal = md::not_scaled(g, reference, p, r, dimension(2));
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->id, g.layers()[*pattern].id);
  EXPECT_EQ(refusal->reason, "at batch 2 output 0 is [3], not its declared [4] with the batch scaled");
}

TEST_F(fix_proof, shapes_compare_by_their_dimensions_not_their_symbols) {
  // Two propagations name a dynamic dimension with different symbols: the same shape all the same.
  const auto g = relu_and_reshape({0, 2, 3}, "[1,2,3]");
  const auto input = g.order().front();
  const auto a = propagated(g, input, {dimension(), dimension(6)});
  const auto b = propagated(g, input, {dimension(), dimension(6)});
  for (std::size_t i = 0; i < g.layers().size(); ++i) EXPECT_TRUE(md::same_shapes(a.outputs[i], b.outputs[i])) << i;
  const auto c = propagated(g, input, {dimension(1, 4), dimension(6)});
  EXPECT_FALSE(md::same_shapes(a.outputs[input], c.outputs[input]));
  EXPECT_FALSE(md::same_shape(partial_shape({dimension(1)}), partial_shape({dimension(1), dimension(1)})));
  EXPECT_FALSE(md::same_shape(partial_shape::dynamic(), partial_shape({dimension(1)})));
  EXPECT_TRUE(md::same_shape(partial_shape::dynamic(), partial_shape::dynamic()));
  EXPECT_FALSE(md::same_shapes(a.outputs[input], {}));
}

}  // namespace
}  // namespace reshape1::test
