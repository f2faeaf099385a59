// The ONNX table as a whole: each row has one case and each case names a row, each row is at a version of the
// op list, each version ONNX Runtime runs has a row (or is listed as not yet translated), and what a row
// refuses or leaves to "cannot tell" is said. The rows themselves are in src/onnx/lower/table.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lowering_case.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::test {
namespace {

// What the cold attack on the new rows found ONNX Runtime refuses, refused when read.
TEST(lower_table, nodes_onnx_runtime_refuses_are_refused_when_read) {
  const auto says = [](const lowering_case& c, const std::string& words) {
    const auto what = refused_when_read(c);
    EXPECT_NE(what.find(words), std::string::npos) << c.op << ": " << what;
  };
  says({"HannWindow", 17, "n:i64[]=0", "n", "y", "", "", ""}, "its size is 0");
  says({"HannWindow", 17, "n:i64[1]=7", "n", "y", "", "", ""}, "its size has rank 1");
  says({"Conv", 1, "x:f32[1,3,8,8] w:f32[4,3,3,3]=", "x,w", "y", attr_ints("kernel_shape", {5, 5}), "", ""},
       "kernel_shape is not the weights' window");
  says({"Split", 18, "x:f32[2,6] s:i64[2]=2,4", "x,s", "y,z", attr_i("axis", 1) + attr_i("num_outputs", 2), "", ""},
       "it has both a split input and num_outputs");
  says({"Split", 18, "x:f32[2,6]", "x", "y,z", attr_i("axis", 1), "", ""}, "it has neither a split input nor num_outputs");
  says({"CumSum", 11, "x:f32[2,3] a:i64[1,1]=1", "x,a", "y", "", "", ""}, "its axis has rank 2");
  says({"OneHot", 11, "i:i64[2] d:i64[]=0 v:f32[2]=0,1", "i,d,v", "y", "", "", ""}, "its depth is 0");
  says({"OneHot", 11, "i:i64[2] d:f32[]=0.5 v:f32[2]=0,1", "i,d,v", "y", "", "", ""}, "its depth is 0.5");
  says({"OneHot", 11, "i:i64[2] d:i64[]=3 v:f32[3]=0,1,2", "i,d,v", "y", "", "", ""}, "its values hold 3 elements");
  says({"MatMulInteger", 10, "a:u8[3,4] b:u8[4,5] az:u8[3,1]=", "a,b,az", "y", "", "", ""}, "a_zero_point has rank 2");
}

// An attribute the version's schema does not have (op_list.tsv's attributes, from ONNX's own schemas): ONNX's
// checker and ONNX Runtime refuse the model, and the translation would not read it.
TEST(lower_table, an_attribute_the_version_does_not_have_is_refused_when_read) {
  const auto says = [](const lowering_case& c, const std::string& words) {
    const auto what = refused_when_read(c);
    EXPECT_NE(what.find(words), std::string::npos) << c.op << ": " << what;
  };
  // axes became an input at 13.
  says({"ReduceSum", 13, "x:f32[2,3]", "x", "y", attr_ints("axes", {1}), "", ""},
       "it has the attribute 'axes', which ReduceSum-13 does not have (its attributes: keepdims, noop_with_empty_axes)");
  // ceil_mode came at 10; a misspelling is no attribute either; an op with none.
  says({"MaxPool", 8, "x:f32[1,1,9,9]", "x", "y", attr_ints("kernel_shape", {2, 2}) + attr_i("ceil_mode", 1), "", ""},
       "it has the attribute 'ceil_mode', which MaxPool-8 does not have");
  says({"Transpose", 13, "x:f32[2,3]", "x", "y", attr_ints("perms", {1, 0}), "", ""},
       "it has the attribute 'perms', which Transpose-13 does not have (its attributes: perm)");
  says({"Relu", 14, "x:f32[2,3]", "x", "y", attr_i("alpha", 1), "", ""},
       "it has the attribute 'alpha', which Relu-14 does not have (it has none)");
  // At the versions that have them, the same attributes are read: the rows' cases (rows_test.cpp) give them.
  // What ONNX's checker lets pass (a cold attack ran both in ONNX Runtime): a name that starts with `__`, and
  // any attribute of a schema that takes them (LayerNormalization-17).
  EXPECT_EQ(refused_when_read({"Relu", 14, "x:f32[2,3]", "x", "y", attr_i("__tool_note", 1), "", ""}), "");
  EXPECT_EQ(refused_when_read({"LayerNormalization", 17, "x:f32[2,4] s:f32[4]=", "x,s", "y", attr_i("bogus", 1), "", ""}), "");
  // Above 17 and in com.microsoft the lists are ONNX Runtime's (tests/onnx/op_attributes_ort.py asks it):
  // Split's split became an input at 13, and ONNX's checker holds no com.microsoft schema.
  says({"Split", 18, "x:f32[2,6]", "x", "y,z", attr_i("axis", 1) + attr_i("num_outputs", 2) + attr_ints("split", {2, 4}), "", ""},
       "it has the attribute 'split', which Split-18 does not have (its attributes: axis, num_outputs)");
  const lowering_case fused{"FusedMatMul", 1, "a:f32[2,4,3] b:f32[4,5]", "a,b", "y", attr_i("transC", 1), "", "", "com.microsoft"};
  EXPECT_EQ(refused_when_read(fused),
            "t.onnx: node 'n' (FusedMatMul, node 0): it has the attribute 'transC', which com.microsoft.FusedMatMul-1 does not "
            "have (its attributes: alpha, transA, transB, transBatchA, transBatchB); ONNX Runtime refuses the model too: "
            "remove the attribute, or write it as this version of the op reads it");
  // A Constant node is an initializer to ONNX Runtime before any schema is checked: it runs one with more
  // attributes than its value, so that is read too.
  EXPECT_EQ(refused_when_read({"Constant", 13, "", "", "y", attr_f("value_float", 1.5F) + attr_i("bogus", 1), "", ""}), "");
}

// More inputs or outputs than the version's schema takes (op_list.tsv's counts, which ONNX Runtime gave), or
// fewer than it needs: ONNX's checker and ONNX Runtime refuse the model, and the translation would not read them.
TEST(lower_table, inputs_and_outputs_the_version_does_not_take_are_refused_when_read) {
  EXPECT_EQ(refused_when_read({"Squeeze", 11, "x:f32[1,3] a:i64[1]=0", "x,a", "y", "", "", ""}),
            "t.onnx: node 'n' (Squeeze, node 0): it has 2 inputs, where Squeeze-11 takes 1; ONNX's checker and ONNX "
            "Runtime refuse the model too: give the node this version's inputs (some are attributes at other versions)");
  expect_refused_with({"Squeeze", 13, "x:f32[1,3] a:i64[1]=0 b:i64[1]=0", "x,a,b", "y", "", "", ""},
                      "it has 3 inputs, where Squeeze-13 takes 1 to 2");
  expect_refused_with({"Relu", 14, "x:f32[2]", "x", "y,z", "", "", ""}, "it has 2 outputs, where Relu-14 takes 1");
  expect_refused_with({"Add", 14, "x:f32[2]", "x", "y", "", "", ""}, "it has 1 input, where Add-14 takes 2");
  expect_refused_with({"CumProd", 26, "x:f32[2] a:i64[]=0 b:i64[]=0", "x,a,b", "y", "", "", ""}, "where CumProd-26 takes 2");
  // Optional inputs named "" count, as ONNX counts them; a variadic op takes any number above its least.
  EXPECT_EQ(refused_when_read({"Clip", 13, "x:f32[2]", "x,,", "y", "", "", ""}), "");
  EXPECT_EQ(refused_when_read({"Concat", 13, "a:f32[2] b:f32[2] c:f32[2] d:f32[2]", "a,b,c,d", "y", attr_i("axis", 0), "", ""}), "");
  const lowering_case fused{"FusedMatMul", 1, "a:f32[2,4] b:f32[4,5] c:f32[5]", "a,b,c", "y", "", "", "", "com.microsoft"};
  expect_refused_with(fused, "it has 3 inputs, where com.microsoft.FusedMatMul-1 takes 2");
}

// A required input or output left out (named ""), as the checker tells them apart from optional ones
// (op_list.tsv's empty_inputs and empty_outputs, which ONNX Runtime gave): refused when read. A list's (Concat's)
// is refused by its translation: ONNX Runtime fails on it when it runs.
TEST(lower_table, a_required_input_or_output_left_out_is_refused_when_read) {
  EXPECT_EQ(refused_when_read({"Resize", 11, "x:f32[1,1,2,2] s:f32[4]=1,1,2,2", "x,,s", "y", "", "", ""}),
            "t.onnx: node 'n' (Resize, node 0): its input 1 is left out (named \"\"), which Resize-11 requires; ONNX's "
            "checker and ONNX Runtime refuse the model too: name a tensor there");
  EXPECT_EQ(refused_when_read({"Resize", 13, "x:f32[1,1,2,2] s:f32[4]=1,1,2,2", "x,,s", "y", "", "", ""}), "");
  expect_refused_with({"Gemm", 7, "a:f32[2,3] b:f32[3,4]", "a,b,", "y", "", "", ""},
                      "its input 2 is left out (named \"\"), which Gemm-7 requires");
  EXPECT_EQ(refused_when_read({"Gemm", 11, "a:f32[2,3] b:f32[3,4]", "a,b,", "y", "", "", ""}), "");
  expect_refused_with({"TopK", 11, "x:f32[2,5] k:i64[1]=2", "x,k", "v,", "", "", ""},
                      "its output 1 is left out (named \"\"), which TopK-11 requires");
  // LSTM's outputs are all optional; GroupQueryAttention's key and value are optional before required inputs.
  EXPECT_EQ(refused_when_read({"Split", 13, "x:f32[4]", "x", ",b", "", "", ""}), "");
  expect_refused_with({"Concat", 13, "a:f32[2]", "a,", "y", attr_i("axis", 0), "", ""}, "Concat 13 needs input 1");
}

// An optional input listed but left out (named ""), where ONNX Runtime reads it whenever the node lists it and
// fails: Squeeze's axes ("axes_tensor != nullptr"), MaxUnpool's output_shape, a QLinearAdd's zero points (its
// type inference). Leaving it off the end of the list is read as before.
TEST(lower_table, an_optional_input_onnx_runtime_reads_when_listed_is_refused_left_out) {
  expect_refused_with({"Squeeze", 13, "x:f32[1,3,1]", "x,", "y", "", "", ""},
                      "its input 1 (axes) is listed but left out (named \"\")");
  EXPECT_EQ(refused_when_read({"Squeeze", 13, "x:f32[1,3,1]", "x", "y", "", "", ""}), "");
  expect_refused_with({"MaxUnpool", 11, "x:f32[1,1,2,2] i:i64[1,1,2,2]", "x,i,", "y", attr_ints("kernel_shape", {2, 2}) +
                       attr_ints("strides", {2, 2}), "", ""},
                      "its input 2 (output_shape) is listed but left out");
  const lowering_case add{"QLinearAdd", 1, "a:u8[2,3] as:f32[]=1 b:u8[2,3] bs:f32[]=1 cs:f32[]=1 cz:u8[]=0",
                          "a,as,,b,bs,,cs,cz", "y", "", "", "", "com.microsoft"};
  expect_refused_with(add, "its input 2 (A_zero_point) is listed but left out");
}

// A node of an op the default domain has only from a later opset than the model's: ONNX Runtime refuses the
// model ("No Op registered"), so reshape1 refuses it too rather than reading past it as not covered.
TEST(lower_table, an_op_the_model_s_opset_does_not_have_is_refused_when_read) {
  EXPECT_EQ(refused_when_read({"Gelu", 20, "x:f32[2,3]", "x", "y", "", "", "", "ai.onnx", 17}),
            "t.onnx: node 'n' (Gelu, node 0): Gelu does not exist at opset 17, the model's: its first version is 20; "
            "ONNX Runtime refuses the model too: import a newer opset, or write the op as this one's ops");
  // The two versions ONNX deprecated an op at (op_list.tsv's ort column reads deprecated): ONNX Runtime refuses
  // them ("Op registered for Scatter is deprecated in domain_version of 11"); they were read as the version before.
  EXPECT_EQ(refused_when_read({"Scatter", 11, "x:f32[2,3] i:i64[1,2]= u:f32[1,2]=", "x,i,u", "y", "", "", ""}),
            "t.onnx: node 'n' (Scatter, node 0): Scatter is deprecated from opset 11; ONNX Runtime refuses the model too: "
            "write it as the op that replaced it (ScatterElements for Scatter, Resize for Upsample, Slice for Crop and "
            "DynamicSlice), or the arithmetic an experimental op computes (Mul and Add for ImageScaler and Affine)");
  EXPECT_NE(refused_when_read({"Upsample", 10, "x:f32[1,1,2,2] s:f32[4]=1,1,2,2", "x,s", "y", "", "", ""})
                .find("Upsample is deprecated from opset 10"),
            std::string::npos);
  // ONNX's experimental ops, which ONNX Runtime runs at version 1 and refuses from opset 10 (deprecated there).
  expect_refused_with({"ImageScaler", 1, "x:f32[1,3,2,2]", "x", "y", attr_floats("bias", {1, 2, 3}), "", "", "ai.onnx", 10},
                      "ImageScaler is deprecated from opset 10");
  expect_refused_with({"Crop", 1, "x:f32[1,3,4,4]", "x", "y", attr_ints("border", {1, 1, 1, 1}), "", "", "ai.onnx", 12},
                      "Crop is deprecated from opset 10");
  // A default domain imported twice runs at its last import, as ONNX Runtime reads it: Gelu at "" 17 then
  // "ai.onnx" 20 is read, and refused the other way round.
  const auto imported_twice = [](int first, int last) {
    auto bytes = model_of({"Gelu", 20, "x:f32[2,3]", "x", "y", "", "", "", "ai.onnx", first});
    ::onnx::ModelProto m;
    EXPECT_TRUE(m.ParseFromString(bytes));
    auto* again = m.add_opset_import();
    again->set_domain("ai.onnx");
    again->set_version(last);
    bytes = m.SerializeAsString();
    try {
      (void)onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), "t.onnx");
      return std::string();
    } catch (const error& e) {
      return std::string(e.what());
    }
  };
  EXPECT_EQ(imported_twice(17, 20), "");
  EXPECT_NE(imported_twice(20, 17).find("Gelu does not exist at opset 17"), std::string::npos);
  // ONNX's early experimental ops that ONNX Runtime still runs are rows at version 1 (ImageScaler at opset 8, in
  // old zoo models), checked as its kernels check them: ImageScaler needs its bias.
  EXPECT_EQ(refused_when_read({"ImageScaler", 1, "x:f32[1,3,2,2]", "x", "y", attr_floats("bias", {1, 2, 3}), "", "", "ai.onnx", 8}), "");
  expect_refused_with({"ImageScaler", 1, "x:f32[1,3,2,2]", "x", "y", "", "", "", "ai.onnx", 8}, "it has no attribute bias");
}

TEST(lower_table, every_row_has_one_case_and_every_case_names_a_row) {
  std::set<row_key> rows, named;
  for (const auto& row : onnx::detail::onnx_table())
    if (row.fn != nullptr) rows.emplace(row.domain, row.op_type, row.since);
  for (const auto& c : cases()) {
    EXPECT_TRUE(named.emplace(c.domain, c.op, c.since).second) << c.domain << "." << c.op << "-" << c.since << " has two cases";
    EXPECT_TRUE(rows.contains({c.domain, c.op, c.since})) << c.domain << "." << c.op << "-" << c.since << " is no row of the table";
  }
  for (const auto& [domain, op, since] : rows) EXPECT_TRUE(named.contains({domain, op, since})) << domain << "." << op << "-" << since << " has no case";
}

TEST(lower_table, a_row_given_twice_stops_the_process_naming_it) {
  const std::vector<onnx::detail::onnx_entry> one{{"Reshape", 14, nullptr}, {"Abs", 6, nullptr}};
  const std::vector<onnx::detail::onnx_entry> again{{"Reshape", 14, nullptr}};
  const std::vector<onnx::detail::onnx_entry> other{{"Reshape", 14, nullptr, "com.microsoft"}};
  EXPECT_EQ(onnx::detail::assemble({one}).front().op_type, "Abs");  // sorted
  EXPECT_EQ(onnx::detail::assemble({one, other}).size(), 3u);      // another domain's op of the same name
  EXPECT_DEATH((void)onnx::detail::assemble({one, again}), "the ONNX table has two rows for Reshape-14");
}

// Every row is at a version of the op list: a row's since is a schema's since_version, so that the list
// decides which row each model's opset runs.
TEST(lower_table, every_row_is_at_a_version_of_the_op_list) {
  for (const auto& row : onnx::detail::onnx_table()) {
    const auto* schema = onnx::detail::schema_at(row.domain, row.op_type, row.since);
    EXPECT_TRUE(schema != nullptr && schema->since == row.since)
        << row.domain << "." << row.op_type << "-" << row.since << " is no version of src/onnx/op_list.tsv";
  }
}

/// The versions ONNX Runtime runs that have no row yet: each an open item of issue 49, so that the list
/// shrinks as rows are written (a version that gains a row must leave it, and no other may be missing).
const std::set<std::string>& not_yet_translated();

TEST(lower_table, every_version_onnx_runtime_runs_has_a_row) {
  std::set<std::string> missing;
  for (const auto& v : onnx::op_versions())
    if (v.onnx_runtime && !v.translated_from && v.not_translated.empty())
      missing.insert(fmt::format("{}{}-{}", v.domain == "ai.onnx" ? "" : std::string(v.domain) + ".", v.op_type, v.since_version));
  for (const auto& m : missing)
    EXPECT_TRUE(not_yet_translated().contains(m)) << m << " is run by ONNX Runtime and has no row of the ONNX table";
  for (const auto& m : not_yet_translated())
    EXPECT_TRUE(missing.contains(m)) << m << " is listed as not yet translated, but it has a row (or is not in the list)";
}

// A row that leaves its op to "cannot tell" says why in the layer's message.
TEST(lower_table, an_untranslated_row_says_why) {
  std::size_t seen = 0;
  for (const auto& row : onnx::detail::onnx_table()) {
    if (row.fn != nullptr) continue;
    ++seen;
    // As many inputs and outputs as the version needs, at least one of each where it takes one; each input of a
    // type the version takes there (f32 where it does), as ONNX Runtime refuses another when it loads the model.
    const auto* schema = onnx::detail::schema_at(row.domain, row.op_type, row.since);
    ASSERT_NE(schema, nullptr) << row.op_type;
    const auto count = [](const std::optional<onnx::detail::arity>& a) { return a ? std::max(a->least, std::min(a->most, 1)) : 1; };
    std::string tensors, inputs, outputs;
    for (int k = 0; k < count(schema->inputs); ++k) {
      auto type = element_type::f32;
      if (const auto* group = schema->group_of(k, false); group != nullptr && !group->takes(type))
        for (const auto t : all_element_types())
          if (group->takes(t)) {
            type = t;
            break;
          }
      tensors += fmt::format("{}x{}:{}[2]", k == 0 ? "" : " ", k, name(type));
      inputs += fmt::format("{}x{}", k == 0 ? "" : ",", k);
    }
    for (int k = 0; k < count(schema->outputs); ++k) outputs += k == 0 ? "y" : fmt::format(",y{}", k);
    const lowering_case c{std::string(row.op_type), row.since, tensors, inputs, outputs, "", "", "", std::string(row.domain)};
    const auto bytes = model_of(c);
    const auto g = onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), c.op + ".onnx");
    const auto report = model::check(g);
    ASSERT_EQ(report.layers.size(), 1u) << c.op;
    EXPECT_NE(report.layers[0].message.find(std::string(row.why)), std::string::npos) << report.layers[0].message;
  }
  EXPECT_GT(seen, 0u);
}

const std::set<std::string>& not_yet_translated() {
  static const std::set<std::string> versions = {
  };
  return versions;
}

}  // namespace
}  // namespace reshape1::test
