// One choice of rewrites for both formats: the same Reshape, written once as an OpenVINO IR and once as an
// ONNX file, gets the same rewrite (or the same refusal) from `fix`. The fixers share how they choose
// (model/analysis/fix_internal.hpp) and differ only in where they write; here the IR's special_zero=false
// is ONNX's allowzero=1, and setting special_zero is clearing allowzero.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstring>
#include <regex>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../../model/ir_builder.hpp"
#include "reshape1/model/fix.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::test {
namespace {

/// A Reshape of a [1,2,3] input by the constant `pattern` to `out`.
struct reshape_case {
  const char* name;
  std::vector<std::int64_t> pattern;
  bool special_zero;
  std::vector<std::int64_t> out;
};

std::string dims_text(const std::vector<std::int64_t>& d) { return fmt::format("[{}]", fmt::join(d, ",")); }

/// A rewrite's reason without the holder it names (a Const's name and id, or an initializer's name), and
/// with ONNX's words for the Reshape's flag turned into OpenVINO's: what is left is the choice itself.
std::string choice_words(std::string why) {
  for (const char* holder : {" (Const '", " (initializer '"})
    if (const auto at = why.rfind(holder); at != std::string::npos) why.erase(at);
  for (const auto& [onnx, ir] : {std::pair{"allowzero set to 0", "special_zero set to true"},
                                 std::pair{"allowzero=1", "special_zero=false"}})
    for (auto at = why.find(onnx); at != std::string::npos; at = why.find(onnx)) why.replace(at, std::strlen(onnx), ir);
  return why;
}

/// What a fix report says, in words that are the same whichever format was fixed: the flag a change set is
/// the Reshape's special_zero (IR) or allowzero (ONNX), as that format's edit names it.
std::string outcome(const model::fix_report& r) {
  const auto flag_set = [](const model::fix_change& c) {
    if (const auto* e = std::get_if<model::ir_edit>(&c.edit)) return e->special_zero_set;
    return std::get<model::onnx_edit>(c.edit).allowzero_cleared;
  };
  std::vector<std::string> changes, refusals;
  for (const auto& c : r.changes)
    changes.push_back(fmt::format("{} -> {}: element {} {} -> {}{}: {}", c.old_pattern, c.new_pattern, c.element,
                                  c.old_value, c.new_value, flag_set(c) ? ", flag set" : "", choice_words(c.why)));
  for (const auto& x : r.refusals) refusals.push_back(choice_words(x.reason));
  return fmt::format("fixed {}\nchanges:\n{}\nrefusals:\n{}\nchecked:\n{}", r.fixed, fmt::join(changes, "\n"),
                     fmt::join(refusals, "\n"), fmt::join(r.checked, "\n"));
}

/// The case as an ONNX model (opset 14, which has allowzero).
std::string onnx_model(const reshape_case& c) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(14);
  auto& g = *m.mutable_graph();
  g.set_name("fixture");
  const auto tensor = [](::onnx::ValueInfoProto& v, const char* name, const std::vector<std::int64_t>& dims) {
    v.set_name(name);
    auto& t = *v.mutable_type()->mutable_tensor_type();
    t.set_elem_type(::onnx::TensorProto::FLOAT);
    for (const auto d : dims) t.mutable_shape()->add_dim()->set_dim_value(d);
  };
  tensor(*g.add_input(), "x", {1, 2, 3});
  tensor(*g.add_output(), "y", c.out);
  auto& shape = *g.add_initializer();
  shape.set_name("shape");
  shape.set_data_type(::onnx::TensorProto::INT64);
  shape.add_dims(static_cast<std::int64_t>(c.pattern.size()));
  for (const auto v : c.pattern) shape.add_int64_data(v);
  auto& node = *g.add_node();
  node.set_op_type("Reshape");
  node.set_name("flat");
  node.add_input("x");
  node.add_input("shape");
  node.add_output("y");
  auto& allowzero = *node.add_attribute();
  allowzero.set_name("allowzero");
  allowzero.set_type(::onnx::AttributeProto::INT);
  allowzero.set_i(c.special_zero ? 0 : 1);
  std::string bytes;
  EXPECT_TRUE(m.SerializeToString(&bytes));
  return bytes;
}

class fix_formats : public ir, public ::testing::WithParamInterface<reshape_case> {};

TEST_P(fix_formats, choose_the_same_rewrite) {
  const auto& c = GetParam();
  ir_builder b;
  const int x = b.parameter("[1,2,3]");
  const int r = b.reshape(x, b.i64(c.pattern), c.special_zero, "[1,2,3]", fmt::format("[{}]", c.pattern.size()),
                          dims_text(c.out), "flat");
  b.result(r, dims_text(c.out));
  (void)load(b.xml(), b.bin());
  const auto from_ir = outcome(onnx::fix(dir_ / "m.xml", {.bin = dir_ / "m.bin"}));
  const auto bytes = onnx_model(c);
  const auto fixed = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "m.onnx");
  EXPECT_EQ(outcome(fixed), from_ir);
  // The model written has the Reshape's allowzero as the change says.
  ASSERT_EQ(fixed.changes.size(), 1u);
  ::onnx::ModelProto written;
  ASSERT_TRUE(written.ParseFromString(std::get<model::onnx_output>(fixed.output).model));
  ASSERT_EQ(written.graph().node(0).attribute_size(), 1);
  EXPECT_EQ(written.graph().node(0).attribute(0).i(), c.special_zero || std::get<model::onnx_edit>(fixed.changes[0].edit).allowzero_cleared ? 0 : 1);
  // Not a comparison of two empty reports: every case here has something to rewrite.
  EXPECT_EQ(from_ir.find("changes:\n\n"), std::string::npos) << from_ir;
}

class fix_formats_refusal : public ir {};

TEST_F(fix_formats_refusal, is_the_same_for_a_model_that_fails_as_given) {
  // [0,-1] with special_zero=false (allowzero=1): the literal 0 leaves -1 nothing to infer, at the declared
  // shapes already. Both fixers refuse it with the same reason; setting the flag would make it run, but as
  // another model than the one given.
  const reshape_case c{"fails_as_given", {0, -1}, false, {1, 6}};
  ir_builder b;
  const int x = b.parameter("[1,2,3]");
  const int r = b.reshape(x, b.i64(c.pattern), c.special_zero, "[1,2,3]", "[2]", dims_text(c.out), "flat");
  b.result(r, dims_text(c.out));
  (void)load(b.xml(), b.bin());
  const auto from_ir = onnx::fix(dir_ / "m.xml", {.bin = dir_ / "m.bin"});
  const auto bytes = onnx_model(c);
  const auto from_onnx = onnx::fix(std::as_bytes(std::span(bytes.data(), bytes.size())), "m.onnx");
  ASSERT_EQ(from_ir.refusals.size(), 1u);
  ASSERT_EQ(from_onnx.refusals.size(), 1u);
  // The layer's id differs between the two files.
  const auto without_id = [](const std::string& s) { return std::regex_replace(s, std::regex(R"( \(id \d+\))"), ""); };
  EXPECT_EQ(without_id(from_onnx.refusals[0].reason), without_id(from_ir.refusals[0].reason));
  EXPECT_EQ(without_id(from_ir.refusals[0].reason),
            "fails at the declared shapes, before any batch changes; fix mends only what another batch breaks: layer "
            "'flat': pattern[1]: cannot infer -1 when another output dimension is 0 and the input [1,2,3] has no "
            "dimension known to be 0");
  EXPECT_FALSE(from_ir.fixed);
  EXPECT_FALSE(from_onnx.fixed);
}

INSTANTIATE_TEST_SUITE_P(
    cases, fix_formats,
    ::testing::Values(
        // 0 copies the batch.
        reshape_case{"copy", {1, 6}, true, {1, 6}},
        // special_zero=false (allowzero=1) and no element that may be 0: 0 with the flag changed.
        reshape_case{"copy_setting_the_flag", {1, 6}, false, {1, 6}},
        reshape_case{"copy_beside_minus_one", {1, -1}, false, {1, 6}},
        reshape_case{"copy_of_three", {1, 2, -1}, false, {1, 2, 3}},
        // The batch folded into one dimension: -1 follows it.
        reshape_case{"folded", {6}, true, {6}},
        // Folded into the first of two: -1 there keeps the batch folded, -1 in the second moves it.
        reshape_case{"folded_with_a_trailing_one", {6, 1}, true, {6, 1}}),
    [](const auto& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace reshape1::test
