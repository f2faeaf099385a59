// The planner's proof taking a rewrite back (fix_planner.hpp): a Reshape the model read back still names
// loses its rewrite, and the rounds resume with its next value. A rewrite the rounds judged in memory is
// the one written, so the IR and ONNX fixes never reach this on a model; a format of the test's own, whose
// read-back can be told to lose the rewrites, does.
#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "../../fix_parts.hpp"
#include "../ir_builder.hpp"
#include "model/analysis/fix_planner.hpp"
#include "model/graph/edit.hpp"
#include "model/ops/rules.hpp"

namespace reshape1::test {
namespace {

namespace md = model::detail;

/// A format that writes no file: the model "read back" is the original with the edits made in memory, its
/// Consts reading the original's bytes and the new ones after them. The first `lose` read-backs leave
/// every edit out, as a writer that dropped them would.
class memory_format final : public md::fix_planner {
 public:
  memory_format(model::graph g, int lose) : fix_planner(std::move(g), {}), lose_(lose) {}

  int read_backs = 0;
  bool accepted = false;

 private:
  std::optional<model::text::fix_reason> refuses(const md::fix_site&, const md::element_origin& origin,
                                                 md::fix_plan&) const override {
    if (origin.holder == nullptr || md::part_of(origin.holder->type) != md::op_part::constant)
      return model::text::computed_not_const(0, "");
    return std::nullopt;
  }
  std::string held_by(std::string_view why, const model::layer&, const md::element_origin&) const override {
    return std::string(why);
  }
  std::pair<std::shared_ptr<const void>, std::span<const std::byte>> weights(
      const model::graph& g, const std::vector<std::byte>& appended) const override {
    const auto kept = md::graph_editor::weights(g).second;
    auto w = std::make_shared<std::vector<std::byte>>(kept.begin(), kept.end());
    w->insert(w->end(), appended.begin(), appended.end());
    return {w, std::span<const std::byte>(*w)};
  }
  std::uint64_t appended_from() const override { return md::graph_editor::weights(original_).second.size(); }
  std::string clone_name(const model::layer& holder, std::int64_t consumer) const override {
    return fmt::format("{}_for_{}", holder.name, consumer);
  }
  model::graph read_back(const std::vector<md::fix_rewrite>&, const std::vector<md::graph_edit>& edits,
                         const std::vector<std::byte>& appended) override {
    if (++read_backs <= lose_) return original_;
    return md::graph_editor::edited(original_, edits, [&](const model::graph& g) { return weights(g, appended); });
  }
  std::optional<model::fix_refusal> differs(const model::graph&, const model::propagation&) override {
    return std::nullopt;
  }
  model::graph reread() override { return original_; }
  void accept(model::fix_report&) override { accepted = true; }

  int lose_;
};

class fix_planner : public ir {
 protected:
  /// [1,4,8] -> Reshape by the Const [1,32] (special_zero=false) -> Result: its 1 writes the batch. The
  /// planner tries 0 with special_zero set first, then -1.
  model::graph flatten_writing_batch_1() {
    ir_builder b;
    const int x = b.parameter("[1,4,8]");
    const int r = b.reshape(x, b.i64({1, 32}), false, "[1,4,8]", "[2]", "[1,32]");
    b.result(r, "[1,32]");
    return load(b.xml(), b.bin());
  }
};

TEST_F(fix_planner, keeps_its_first_value_when_the_model_read_back_holds_it) {
  memory_format f(flatten_writing_batch_1(), 0);
  const auto r = f.run();
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].new_value, 0);
  EXPECT_TRUE(ir_edit(r.changes[0]).special_zero_set);
  EXPECT_EQ(f.read_backs, 1);
  EXPECT_TRUE(f.accepted);
}

TEST_F(fix_planner, takes_back_a_rewrite_the_model_read_back_lacks_and_tries_the_next_value) {
  memory_format f(flatten_writing_batch_1(), 1);
  const auto r = f.run();
  ASSERT_TRUE(r.fixed) << (r.refusals.empty() ? "" : r.refusals[0].reason);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].new_value, -1) << "0 was taken back; -1 is the next value";
  EXPECT_FALSE(ir_edit(r.changes[0]).special_zero_set);
  EXPECT_EQ(r.changes[0].new_pattern, "[-1,32]");
  EXPECT_EQ(f.read_backs, 2);
  EXPECT_TRUE(f.accepted);
}

TEST_F(fix_planner, refuses_a_reshape_whose_every_value_the_proof_takes_back) {
  memory_format f(flatten_writing_batch_1(), 2);
  const auto r = f.run();
  EXPECT_FALSE(r.fixed);
  EXPECT_TRUE(r.changes.empty());
  ASSERT_EQ(r.refusals.size(), 1u);
  EXPECT_EQ(r.refusals[0].type, "Reshape");
  EXPECT_EQ(r.refusals[0].reason, "rewriting pattern[0] to -1 still leaves the layer failing at batch 2");
  EXPECT_EQ(r.refusals[0].code, "rewrite_still_leaves");
  EXPECT_EQ(r.refusals[0].args, (model::reason_args{{"pattern_index", std::int64_t{0}}, {"value", std::int64_t{-1}},
                                                    {"finding", std::string("fails")}, {"batch", std::string("2")}}));
  EXPECT_EQ(f.read_backs, 2) << "no value left: the last proof is of the model as given";
  EXPECT_FALSE(f.accepted);
}


// computed_terms reads a pattern as its input's dimensions grouped, row by row.
struct computed : ::testing::Test {
  static std::optional<std::string> terms(const std::string& in, const std::string& now, std::vector<std::int64_t> e,
                                          std::vector<std::int64_t> stays = {}, std::vector<char> sole = {},
                                          std::string* code = nullptr) {
    const auto a = parse_shape(in), b = parse_shape(now);
    if (sole.empty()) sole.assign(a.size(), 1);
    model::text::fix_reason why;
    const auto t = md::computed_terms(a, b, e, true, stays, sole, why);
    if (code != nullptr) *code = why.code;
    return t ? std::optional(md::terms_text(*t)) : std::nullopt;
  }
};

TEST_F(computed, copies_a_dimension_that_moves_to_another_place) {
  EXPECT_EQ(terms("[1,6,10,14]", "[1,6,?,?]", {1, 2, 3, 10, 14}), "[1,2,3,shape[2],shape[3]]");
  EXPECT_EQ(terms("[1,3,2,10,14]", "[1,3,2,?,?]", {1, -1, 10, 14}), "[1,6,shape[3],shape[4]]");
}

TEST_F(computed, multiplies_the_dimensions_one_element_holds) {
  // [1,7,7,768] -> [1,49,768] at 8x8 is [1,64,768]; a size that stays is a factor.
  EXPECT_EQ(terms("[1,7,7,768]", "[1,?,?,768]", {1, 49, 768}), "[1,shape[1]*shape[2],768]");
  EXPECT_EQ(terms("[1,3,8,8]", "[1,3,?,?]", {1, 192}), "[1,shape[2]*shape[3]*3]");
}

TEST_F(computed, keeps_the_elements_that_lie_in_dimensions_that_stay) {
  // An SSD head's boxes: [1,-1,4] on [1,30,40,12], the 4 coordinates inside the 12 = 3 anchors x 4.
  EXPECT_EQ(terms("[1,30,40,12]", "[1,?,?,12]", {1, -1, 4}), "[1,shape[1]*shape[2]*3,4]");
  // The first elements likewise: the 6 of [1,6,-1] lies in the 12 of [1,12,8].
  EXPECT_EQ(terms("[1,12,8]", "[1,12,?]", {1, 6, -1}), "[1,6,shape[2]*2]");
  // Only where the pattern's -1 shows which element the program inferred: [1,8,32] of [1,T=4,64] may be 8
  // groups of T*8 as well as T*2 rows of 32.
  EXPECT_EQ(terms("[1,4,64]", "[1,?,64]", {1, 8, 32}), std::nullopt);
}

TEST_F(computed, splits_a_dimension_where_the_other_patterns_show_the_factor_that_stays) {
  // Swin's partition of 56 into 8 windows of 7: the 7 of the later views stays, so 8 is H/7.
  EXPECT_EQ(terms("[1,56,84,96]", "[1,?,?,96]", {1, 8, 7, 12, 7, 96}, {7, 96}),
            "[1,shape[1]/7,7,shape[2]/7,7,96]");
  // (At 56x56 the two 8s are one value: which is H/7 and which W/7, nothing shows; unless they are one
  // named size asked twice, where either reading is S/7.)
  EXPECT_EQ(terms("[1,56,56,96]", "[1,?,?,96]", {1, 8, 7, 8, 7, 96}, {7, 96}), std::nullopt);
  EXPECT_EQ(terms("[1,56,56,96]", "[1,?@H,?@W,96]", {1, 8, 7, 8, 7, 96}, {7, 96}), std::nullopt);
  EXPECT_EQ(terms("[1,56,56,96]", "[1,?@S,?@S,96]", {1, 8, 7, 8, 7, 96}, {7, 96}), "[1,shape[1]/7,7,shape[2]/7,7,96]");
  std::string code;
  EXPECT_EQ(terms("[1,56,84,96]", "[1,?,?,96]", {1, 8, 7, 12, 7, 96}, {}, {}, &code), std::nullopt);
  EXPECT_EQ(code, "split_not_read");
  // Nor does a factor both splits hold: [4,2] of H = 8 beside [7,2] of W = 14 is W/2 windows of 2, or H
  // cut in 4 blocks beside W's windows of 2 (the same constants; ONNX Runtime tells them apart at 12x10).
  EXPECT_EQ(terms("[1,2,8,14]", "[1,2,?,?]", {1, 2, 4, 2, 7, 2}, {}, {}, &code), std::nullopt);
  EXPECT_EQ(code, "split_not_read");
  // 16 = 4 x 4: both factors are values that stay, or neither is: no reading.
  EXPECT_EQ(terms("[1,16,16,8]", "[1,?,?,8]", {1, 4, 4, 4, 4, 8}, {4}, {}, &code), std::nullopt);
  EXPECT_EQ(code, "split_not_read");
}

TEST_F(computed, refuses_a_size_whose_value_is_another_sizes_too_and_groups_that_mix_sizes) {
  std::string code;
  // Two elements of one value, one of them following a size: N = C = 7 (`view(c, n, h, w)`?), C·H = W.
  EXPECT_EQ(terms("[7,7,8,6]", "[?,7,8,6]", {7, 7, 8, 6}, {}, {}, &code), std::nullopt);
  EXPECT_EQ(terms("[1,2,5,10]", "[1,2,?,?]", {1, 10, 10}, {}, {}, &code), std::nullopt);
  // H == W at the declared shape: element 2 may be either.
  EXPECT_EQ(terms("[1,3,8,8]", "[1,3,?,?]", {1, 3, 8, -1}, {}, {1, 1, 0, 0}, &code), std::nullopt);
  EXPECT_EQ(code, "needs_computed_pattern");
  // Two sizes that change regrouped into two elements: [H,W] -> [W,H] at 6x4 is not a grouping.
  EXPECT_EQ(terms("[6,4]", "[?,?]", {4, 6}, {}, {}, &code), std::nullopt);
  EXPECT_EQ(code, "needs_computed_pattern");
}
}  // namespace
}  // namespace reshape1::test
