// OpenVINO IR reading and the Reshape checker: hand-made fixtures for every verdict, warning, evaluated
// op and pattern element type; the real models; and malformed models.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <random>
#include <type_traits>

#include <fmt/format.h>

#include "io/files.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/model/fix.hpp"
#include "../../test_util.hpp"
#include "../ir_builder.hpp"

namespace reshape1::test {
namespace {

namespace fs = std::filesystem;

std::string shown(const std::optional<partial_shape>& s) { return s ? to_string(*s) : std::string("-"); }

model::reshape_finding only(const model::check_report& r) {
  EXPECT_EQ(r.reshapes.size(), 1u);
  return r.reshapes.at(0);
}

TEST_F(ir, ok_for_a_flatten_with_special_zero) {
  ir_builder b(10);
  const int x = b.parameter("[2,3,4]");
  b.reshape(x, b.i64({0, -1}), true, "[2,3,4]", "[2]", "[2,12]");
  const auto& f = only(check(b));
  EXPECT_EQ(f.result, model::verdict::ok);
  EXPECT_EQ(to_string(f.pattern), "[0,-1]");
  EXPECT_EQ(shown(f.inferred), "[2,12]");
  EXPECT_TRUE(f.warnings.empty());
  EXPECT_FALSE(f.blocks_reshape);
}

// Every kind of finding (check's, check_batch's, fix's refusals) is a model::finding: the layer, a code and
// what it names. A Reshape's says it is one.
TEST_F(ir, a_reshape_finding_is_a_finding_of_a_reshape) {
  static_assert(std::is_base_of_v<model::finding, model::reshape_finding>);
  static_assert(std::is_base_of_v<model::finding, model::layer_finding>);
  static_assert(std::is_base_of_v<model::finding, model::batch_finding>);
  static_assert(std::is_base_of_v<model::finding, model::fix_refusal>);
  ir_builder b(10);
  const int x = b.parameter("[2,3,4]");
  b.reshape(x, b.i64({0, -1}), true, "[2,3,4]", "[2]", "[2,12]");
  const model::finding& f = only(check(b));
  EXPECT_EQ(f.type, "Reshape");
  EXPECT_EQ(f.code, "ok");
  EXPECT_TRUE(f.args.empty());
}

TEST_F(ir, error_when_inference_fails) {
  ir_builder b;
  const int x = b.parameter("[2,3]");
  b.reshape(x, b.i64({-1, -1}), false, "[2,3]", "[2]", "[6,1]");
  const auto r = check(b);
  const auto& f = only(r);
  EXPECT_EQ(f.result, model::verdict::error);
  EXPECT_EQ(f.code, "multiple_infer");
  ASSERT_TRUE(f.error);
  EXPECT_EQ(f.error->code, errc::multiple_infer);
  EXPECT_EQ(f.error->message, "pattern[0] and pattern[1]: only one -1 is allowed; give the other dimensions explicitly");
  EXPECT_EQ(r.summary.reshapes.errors, 1u);
}

TEST_F(ir, mismatch_when_the_declared_output_cannot_be_right) {
  ir_builder b;
  const int x = b.parameter("[2,3]");
  b.reshape(x, b.i64({0, -1}), true, "[2,3]", "[2]", "[2,7]");
  const auto& f = only(check(b));
  EXPECT_EQ(f.result, model::verdict::shape_mismatch);
  EXPECT_EQ(shown(f.inferred), "[2,3]");
  EXPECT_EQ(f.hint, "the declared output [2,7] cannot be [2,3]");
  EXPECT_EQ(f.code, "declared_cannot_be");
  EXPECT_EQ(f.args, (model::reason_args{{"declared", "[2,7]"}, {"inferred", "[2,3]"}}));
}

TEST_F(ir, refinable_when_the_declared_output_is_less_precise) {
  ir_builder b;
  const int x = b.parameter("[2,3]");
  b.reshape(x, b.i64({0, -1}), true, "[2,3]", "[2]", "[2,-1]");
  const auto& f = only(check(b));
  EXPECT_EQ(f.result, model::verdict::refinable);
  EXPECT_EQ(to_string(f.declared), "[2,?]");
  EXPECT_EQ(f.hint, "the output can be declared as [2,3]");
  EXPECT_EQ(f.code, "can_be_declared_as");
  EXPECT_EQ(f.args, (model::reason_args{{"declared", "[2,?]"}, {"inferred", "[2,3]"}}));
}

TEST_F(ir, hard_coded_batch_warns_only_on_the_data_path) {
  ir_builder b;
  const int x = b.parameter("[1,3,4]");
  b.reshape(x, b.i64({1, -1}), true, "[1,3,4]", "[2]", "[1,12]", "data");
  const int w = b.constant(element_type::i64, "1,3,4", std::vector<std::int64_t>(12, 1), "[1,3,4]");
  b.reshape(w, b.i64({1, -1}), true, "[1,3,4]", "[2]", "[1,12]", "weights");
  const auto r = check(b);
  ASSERT_EQ(r.reshapes.size(), 2u);
  EXPECT_EQ(r.reshapes[0].warnings,
            std::vector<std::string>{"pattern[0] hard-codes the batch (1): the model cannot be reshaped to another "
                                     "batch; use 0 to copy it"});
  EXPECT_TRUE(r.reshapes[0].blocks_reshape);
  EXPECT_TRUE(r.reshapes[1].warnings.empty());
  EXPECT_EQ(r.summary.reshapes.blocking, 1u);
}

TEST_F(ir, hard_coded_dynamic_dimension_warns) {
  ir_builder b;
  const int x = b.parameter("[-1,12]");
  b.reshape(x, b.i64({4, 3, -1}), false, "[-1,12]", "[3]", "[4,3,-1]");
  const auto& f = only(check(b));
  EXPECT_EQ(f.result, model::verdict::ok);
  EXPECT_EQ(shown(f.inferred), "[4,3,?]");
  EXPECT_EQ(f.warnings, std::vector<std::string>{"pattern[0] hard-codes 4 where the input's dimension 0 is dynamic (?); "
                                                 "use 0 with special_zero=true to copy it"});
  const model::reason_args args{{"index", std::int64_t{0}}, {"value", std::int64_t{4}}, {"input_dimension", "?"}};
  EXPECT_EQ(f.warning_codes, (std::vector<model::coded_reason>{{"hard_codes_dynamic", args}}));
}

TEST_F(ir, counts_that_can_never_match_warn) {
  ir_builder b;
  const int x = b.parameter("[2,3..4]");
  const int unknown = b.layer("NonMaxSuppression", "", {"[2]"}, {"[1]"});
  b.edge(b.i64({1, 1}), unknown, 0);
  b.reshape(x, unknown, false, "[2,3..4]", "[1]", "[100]");
  const auto r = check(b);
  const auto& f = only(r);
  // NonMaxSuppression-1 has no rule: its output is unknown, even its rank, and the check says where.
  EXPECT_FALSE(f.pattern_known);
  EXPECT_EQ(to_string(f.pattern), "[...]");
  EXPECT_EQ(shown(f.inferred), "[...]");
  ASSERT_EQ(r.layers.size(), 1u);
  EXPECT_EQ(r.layers[0].issue, model::layer_issue::not_covered);
  EXPECT_EQ(r.layers[0].code, "no_rule");
  EXPECT_EQ(r.layers[0].args, (model::reason_args{{"type", "NonMaxSuppression"}, {"opset", std::int64_t{1}}}));
  EXPECT_EQ(r.layers[0].message, "layer 'NonMaxSuppression_1' (id 1): no shape rule for NonMaxSuppression-1 (version "
                                 "'opset1'); its outputs are unknown");
  EXPECT_EQ(f.result, model::verdict::ok);
  EXPECT_EQ(f.warnings, std::vector<std::string>{"the input [2,3..4] has 6..8 elements but the declared output [100] "
                                                 "has 100: the counts can never match"});
  ASSERT_EQ(f.warning_codes.size(), 1u);
  EXPECT_EQ(f.warning_codes[0].code, "counts_never_match");
  EXPECT_EQ(f.warning_codes[0].args,
            (model::reason_args{{"input", "[2,3..4]"}, {"input_count", "6..8"}, {"declared", "[100]"}, {"declared_count", "100"}}));
}

TEST_F(ir, bounds_that_straddle_zero_warn) {
  ir_builder b;
  const int x = b.parameter("[1..5,4]");
  const int shape = b.layer("ShapeOf", "output_type=\"i64\"", {"[1..5,4]"}, {"[2]"});
  b.edge(x, shape, 0);
  const int minus = b.layer("Subtract", "", {"[2]", "[2]"}, {"[2]"});
  b.edge(shape, minus, 0);
  b.edge(b.i64({1, 0}), minus, 1);
  b.reshape(x, minus, true, "[1..5,4]", "[2]", "[-1,4]");
  const auto& f = only(check(b));
  EXPECT_EQ(to_string(f.pattern), "[..4,4]");
  EXPECT_EQ(f.warnings, std::vector<std::string>{"pattern[0] has the bounds 0..4: at run time it may be 0 (copy), which "
                                                 "the bound does not cover (see --sound-bounds)"});
}

TEST_F(ir, shape_sub_graph_of_the_same_tensor_cancels_exactly) {
  // Flatten all but the first dimension of a dynamic tensor: Concat(Gather(ShapeOf(x), 0), [-1]).
  ir_builder b;
  const int x = b.parameter("[-1,3,4]");
  const int shape = b.layer("ShapeOf", "output_type=\"i64\"", {"[-1,3,4]"}, {"[3]"});
  b.edge(x, shape, 0);
  const int gather = b.layer("Gather", "", {"[3]", "[1]", "[]"}, {"[1]"});
  b.edge(shape, gather, 0);
  b.edge(b.i64({0}), gather, 1);
  b.edge(b.scalar(0), gather, 2);
  const int concat = b.layer("Concat", "axis=\"0\"", {"[1]", "[1]"}, {"[2]"});
  b.edge(gather, concat, 0);
  b.edge(b.i64({-1}), concat, 1);
  b.reshape(x, concat, false, "[-1,3,4]", "[2]", "[-1,12]");
  const auto& f = only(check(b));
  EXPECT_EQ(to_string(f.pattern), "[?,-1]");
  EXPECT_EQ(shown(f.inferred), "[?,12]");
  EXPECT_EQ(f.result, model::verdict::ok);
  EXPECT_TRUE(f.warnings.empty());
}

TEST_F(ir, every_evaluated_op) {
  // [N, H*W] from StridedSlice, Slice, Unsqueeze, Squeeze, ReduceProd, Convert, Multiply and Divide.
  ir_builder b;
  const int x = b.parameter("[2,3,4]");
  const int shape = b.layer("ShapeOf", "output_type=\"i32\"", {"[2,3,4]"}, {"[3]"});
  b.edge(x, shape, 0);
  const int first = b.layer("StridedSlice", "begin_mask=\"0\" end_mask=\"0\" shrink_axis_mask=\"1\"",
                            {"[3]", "[1]", "[1]", "[1]"}, {"[]"});
  b.edge(shape, first, 0);
  b.edge(b.i64({0}), first, 1);
  b.edge(b.i64({1}), first, 2);
  b.edge(b.i64({1}), first, 3);
  const int unsq = b.layer("Unsqueeze", "", {"[]", "[1]"}, {"[1]"});
  b.edge(first, unsq, 0);
  b.edge(b.i64({0}), unsq, 1);
  const int rest = b.layer("Slice", "", {"[3]", "[1]", "[1]", "[1]", "[1]"}, {"[2]"}, "", 8);
  b.edge(shape, rest, 0);
  b.edge(b.i64({1}), rest, 1);
  b.edge(b.i64({INT64_MAX}), rest, 2);
  b.edge(b.i64({1}), rest, 3);
  b.edge(b.i64({0}), rest, 4);
  const int prod = b.layer("ReduceProd", "keep_dims=\"true\"", {"[2]", "[1]"}, {"[1]"});
  b.edge(rest, prod, 0);
  b.edge(b.i64({0}), prod, 1);
  const int doubled = b.layer("Multiply", "", {"[1]", "[]"}, {"[1]"});
  b.edge(prod, doubled, 0);
  b.edge(b.scalar(2), doubled, 1);
  const int halved = b.layer("Divide", "", {"[1]", "[]"}, {"[1]"});
  b.edge(doubled, halved, 0);
  b.edge(b.scalar(2), halved, 1);
  const int concat = b.layer("Concat", "axis=\"0\"", {"[1]", "[1]"}, {"[2]"});
  b.edge(unsq, concat, 0);
  b.edge(halved, concat, 1);
  const int convert = b.layer("Convert", "destination_type=\"i64\"", {"[2]"}, {"[2]"});
  b.edge(concat, convert, 0);
  const int squeezed_one = b.layer("Squeeze", "", {"[1]"}, {"[]"});
  b.edge(b.i64({5}), squeezed_one, 0);
  (void)squeezed_one;
  b.reshape(x, convert, false, "[2,3,4]", "[2]", "[2,12]");
  const auto& f = only(check(b));
  EXPECT_TRUE(f.pattern_known);
  EXPECT_EQ(to_string(f.pattern), "[2,12]");
  EXPECT_EQ(f.result, model::verdict::ok);
  EXPECT_TRUE(f.warnings.empty()) << f.warnings.at(0);  // derived from the shape, not hard-coded
}

TEST_F(ir, every_pattern_element_type) {
  for (auto t : all_element_types()) {
    if (!is_integer(t)) continue;
    ir_builder b(t == element_type::u3 ? 10 : 11);
    const bool one_bit = t == element_type::u1;
    const int x = b.parameter(one_bit ? "[1,1]" : "[6]");
    const std::vector<std::int64_t> values = one_bit ? std::vector<std::int64_t>{1, 1} : std::vector<std::int64_t>{2, 3};
    b.reshape(x, b.constant(t, "2", values, "[2]"), false, one_bit ? "[1,1]" : "[6]", "[2]", one_bit ? "[1,1]" : "[2,3]");
    const auto& f = only(check(b));
    EXPECT_EQ(f.result, model::verdict::ok) << name(t) << ": " << (f.error ? f.error->message : f.code);
    EXPECT_EQ(to_string(f.pattern), one_bit ? "[1,1]" : "[2,3]") << name(t);
  }
  ir_builder b;
  const int x = b.parameter("[6]");
  const std::string two_floats(8, '\0');
  b.reshape(x, b.constant(element_type::f32, "2", {0, 0}, "[2]"), false, "[6]", "[2]", "[2,3]");
  const auto& f = only(check(b));
  EXPECT_EQ(f.result, model::verdict::error);
  EXPECT_EQ(f.error->code, errc::pattern_type);
}

TEST_F(ir, both_ir_versions_and_interval_dimensions) {
  for (int version : {10, 11}) {
    ir_builder b(version);
    const int x = b.parameter("[1..8,16]");
    b.reshape(x, b.i64({0, 4, -1}), true, "[1..8,16]", "[3]", "[1..8,4,4]");
    const auto& f = only(check(b));
    EXPECT_EQ(f.result, model::verdict::ok);
    EXPECT_EQ(to_string(f.input), "[1..8,16]");
    EXPECT_EQ(shown(f.inferred), "[1..8,4,4]");
  }
}

// ---- the real models ---------------------------------------------------------------------------

struct model_expectation {
  fs::path xml;
  std::size_t reshapes, ok, blocking;
};

void expect_model(const model_expectation& m) {
  SCOPED_TRACE(m.xml.string());
  const auto model = model::read_ir(m.xml, fs::path(m.xml).replace_extension(".bin"));
  const auto r = model::check(model);
  const auto& s = r.summary.reshapes;
  EXPECT_EQ(s.count, m.reshapes);
  EXPECT_EQ(s.ok, m.ok);
  EXPECT_EQ(s.errors + s.shape_mismatches + s.refinable, m.reshapes - m.ok);
  EXPECT_EQ(s.blocking, m.blocking);
  for (const auto& f : r.reshapes) {
    EXPECT_TRUE(f.pattern_known) << f.name;
    EXPECT_EQ(shown(f.inferred), to_string(f.declared)) << f.name;
  }
}

TEST(ir_models, face_detection_0200) {
  // 21 weight reshapes (their input is constant: no batch warning) and 8 computed patterns, all of
  // which the evaluator resolves from ShapeOf: nothing is hard-coded.
  expect_model({fs::path(RESHAPE1_TEST_DATA) / "ir-models/face-detection-0200/face-detection-0200.xml", 29, 29, 0});
  const auto model = model::read_ir(fs::path(RESHAPE1_TEST_DATA) / "ir-models/face-detection-0200/face-detection-0200.xml",
                                 fs::path(RESHAPE1_TEST_DATA) / "ir-models/face-detection-0200/face-detection-0200.bin");
  const auto r = model::check(model);
  const auto it = std::find_if(r.reshapes.begin(), r.reshapes.end(), [](const auto& f) { return f.id == 1104; });
  ASSERT_NE(it, r.reshapes.end());
  EXPECT_EQ(to_string(it->pattern), "[1344,-1]");  // ReduceProd(Gather(ShapeOf)) concatenated with -1
}

TEST(ir_models, face_detection_retail_0005) {
  // Its four Const patterns write the batch as 1 ([1,-1], [1,-1,2]) on the data path: each one blocks
  // reshaping the model to another batch.
  expect_model({fs::path(RESHAPE1_TEST_DATA) / "ir-models/face-detection-retail-0005/other.xml", 4, 4, 4});
}

TEST(ir_models, shared_models_when_present) {
  const fs::path shared = fs::path(RESHAPE1_SHARED_MODELS);
  if (!fs::exists(shared)) {
    // CI always has ../shared beside the clone: there, its absence is a failure, not a skip.
    if (std::getenv("CI") != nullptr) FAIL() << "CI is set but " << shared << " does not exist";
    GTEST_SKIP() << "no " << shared;
  }
  // SSD flatten [0,-1] and [0,-1,2] with special_zero: nothing hard-coded.
  expect_model({shared / "omz-face-detection-adas-0001-fp16-mo2021.2/face-detection-adas-0001.xml", 16, 16, 0});
  // Concat(Const -1, Gather(ShapeOf(weights))) evaluates to [-1,512]: derived, not hard-coded.
  expect_model({shared / "omz-head-pose-estimation-adas-0001-fp16-int8-mo2021.1/head-pose-estimation-adas-0001.xml",
                3, 3, 0});
  // One weights reshape: constant input, no warning.
  expect_model({shared / "omz-landmarks-regression-retail-0009-fp16-int8/landmarks-regression-retail-0009.xml", 1, 1, 0});
  // Ultralytics exports write the batch as 1 in every pattern.
  expect_model({shared / "yolov8n-int8-ov2024.1-onnx/yolov8n.xml", 5, 5, 5});
  expect_model({shared / "yolov8n-int8-320-ov2025.4/yolov8n.xml", 5, 5, 5});
  expect_model({shared / "yolo11n-int8-ov2025.2/yolo11n.xml", 8, 8, 8});
}

TEST_F(ir, a_hand_edited_layer_in_a_real_model_is_one_shape_mismatch) {
  // Convolution 332 (3x3, stride 2, pads 1) on [1,3,300,300] gives [1,24,150,150]; declare 151 instead.
  const fs::path base = fs::path(RESHAPE1_TEST_DATA) / "ir-models/face-detection-retail-0005";
  std::ifstream in(base / "other.xml", std::ios::binary);
  std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto layer = xml.find("name=\"332\" type=\"Convolution\"");
  ASSERT_NE(layer, std::string::npos);
  const auto out = xml.find("<output>", layer);
  const auto dim = xml.find("<dim>150</dim>", out);
  xml.replace(dim, 14, "<dim>151</dim>");
  std::ifstream bin_in(base / "other.bin", std::ios::binary);
  const std::string bin((std::istreambuf_iterator<char>(bin_in)), std::istreambuf_iterator<char>());
  const auto r = model::check(load(xml, bin));
  ASSERT_EQ(r.layers.size(), 1u);  // the layers after it follow the computed shape, not the declared one
  const auto& f = r.layers[0];
  EXPECT_EQ(f.issue, model::layer_issue::shape_mismatch);
  EXPECT_EQ(f.id, 8);
  EXPECT_EQ(f.type, "Convolution");
  EXPECT_EQ(f.port, 2);
  EXPECT_EQ(to_string(f.declared), "[1,24,151,150]");
  EXPECT_EQ(to_string(f.propagated), "[1,24,150,150]");
  EXPECT_TRUE(r.summary.failed());
}

// ---- hostile reading (issue 12, item 4) ---------------------------------------------------------

TEST_F(ir, special_zero_spellings) {
  // true/false/1/0 in any case are read; anything else, and a missing attribute, is refused: OpenVINO's
  // reader would silently keep its default (docs/cli.md, deviations).
  for (const char* spelling : {"true", "True", "TRUE", "1"}) {
    ir_builder b;
    const int x = b.parameter("[2,3]");
    const int id = b.reshape(x, b.i64({0, -1}), true, "[2,3]", "[2]", "[2,3]");
    std::string xml = b.xml();
    xml.replace(xml.find("special_zero=\"true\""), 19, fmt::format("special_zero=\"{}\"", spelling));
    const auto r = model::check(load(xml, b.bin()));
    EXPECT_EQ(only(r).result, model::verdict::ok) << spelling << ": " << only(r).code;
    EXPECT_TRUE(only(r).special_zero) << spelling << " " << id;
  }
  for (const char* spelling : {"false", "FALSE", "0"}) {
    ir_builder b;
    const int x = b.parameter("[2,3]");
    b.reshape(x, b.i64({3, 2}), false, "[2,3]", "[2]", "[3,2]");
    std::string xml = b.xml();
    xml.replace(xml.find("special_zero=\"false\""), 20, fmt::format("special_zero=\"{}\"", spelling));
    EXPECT_FALSE(only(model::check(load(xml, b.bin()))).special_zero) << spelling;
  }
  ir_builder b;
  const int x = b.parameter("[2,3]");
  b.reshape(x, b.i64({0, -1}), true, "[2,3]", "[2]", "[2,3]");
  const std::string xml = b.xml();
  auto with = [&](const std::string& attribute) {
    std::string t = xml;
    return t.replace(t.find("special_zero=\"true\""), 19, attribute);
  };
  expect_error_containing([&] { (void)load(with("special_zero=\"yes\""), b.bin()); }, errc::bad_file,
                          "layer 'Reshape_2' (id 2): attribute 'special_zero' is 'yes'; write true, false, 1 or 0");
  expect_error_containing([&] { (void)load(with("special_zero=\"\""), b.bin()); }, errc::bad_file,
                          "attribute 'special_zero' is ''");
  expect_error_containing([&] { (void)load(with("other=\"1\""), b.bin()); }, errc::bad_file,
                          "layer 'Reshape_2' (id 2): missing attribute 'special_zero' in <data>");
}

// Every <data> attribute is parsed once when read: a list of integers, a list of reals, or neither;
// spaces around the items are allowed, an empty item or a space between two numbers is not.
TEST_F(ir, attribute_lists_are_parsed_once_when_read) {
  ir_builder b;
  b.layer("Foo",
          "a=\"1, 2,3\" b=\" 7 \" c=\"\" d=\"0.5,2\" e=\"1,,2\" f=\"1 2\" g=\"numpy\" h=\"1,\" i=\"-3,+4\" "
          "j=\"1e3, -2.5 \" k=\"true\" l=\"\t4,\n5\r\" m=\"12abc\"",
          {}, {"[2,3]"});
  const auto g = load(b.xml(), b.bin());
  const auto& l = g.layers()[0];
  const auto ints = [&](const char* n) {
    const auto* a = l.find(n);
    return a != nullptr && a->is_integers ? std::vector<std::int64_t>(a->integers.begin(), a->integers.end())
                                          : std::vector<std::int64_t>{-999};
  };
  EXPECT_EQ(ints("a"), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(ints("b"), (std::vector<std::int64_t>{7}));
  EXPECT_EQ(ints("c"), (std::vector<std::int64_t>{}));
  EXPECT_EQ(ints("l"), (std::vector<std::int64_t>{4, 5}));
  for (const char* n : {"d", "e", "f", "g", "h", "i", "j", "k", "m"}) EXPECT_FALSE(l.find(n)->is_integers) << n;
  EXPECT_EQ(l.reals("d"), (std::vector<double>{0.5, 2}));
  EXPECT_EQ(l.reals("j"), (std::vector<double>{1000, -2.5}));
  EXPECT_EQ(l.reals("a"), (std::vector<double>{1, 2, 3}));
  for (const char* n : {"e", "f", "g", "h", "i", "k", "m"}) EXPECT_FALSE(l.find(n)->is_reals) << n;
  EXPECT_TRUE(l.flag("k"));
  EXPECT_EQ(l.find("g")->text, "numpy");
  EXPECT_EQ(to_string(l.outputs[0].shape()), "[2,3]");
}

TEST_F(ir, nothing_on_the_pattern_port_cannot_be_read) {
  ir_builder b;
  const int x = b.parameter("[2,3]");
  const int r = b.layer("Reshape", "special_zero=\"false\"", {"[2,3]", "[1]"}, {"[6]"});
  b.edge(x, r, 0);
  expect_error_containing([&] { (void)load(b.xml(), b.bin()); }, errc::bad_file,
                          "layer 'Reshape_1' (id 1): nothing is connected to input port 1; the model cannot be read");
}

TEST_F(ir, a_reshape_that_feeds_its_own_pattern_cannot_be_read) {
  ir_builder b;
  const int x = b.parameter("[2,3]");
  const int r = b.layer("Reshape", "special_zero=\"false\"", {"[2,3]", "[1]"}, {"[6]"});
  b.edge(x, r, 0);
  b.edge(r, r, 1);
  expect_error_containing([&] { (void)load(b.xml(), b.bin()); }, errc::bad_file,
                          "layer 'Reshape_1' (id 1): the layer feeds its own input; the model cannot be read");
}

TEST_F(ir, a_cycle_cannot_be_read) {
  // Reshape -> ShapeOf -> Reshape's pattern.
  ir_builder b;
  const int x = b.parameter("[2,3]");
  const int r = b.layer("Reshape", "special_zero=\"false\"", {"[2,3]", "[2]"}, {"[2,3]"});
  const int shape = b.layer("ShapeOf", "output_type=\"i64\"", {"[2,3]"}, {"[2]"}, "", 3);
  b.edge(x, r, 0);
  b.edge(r, shape, 0);
  b.edge(shape, r, 1);
  expect_error_containing([&] { (void)load(b.xml(), b.bin()); }, errc::bad_file,
                          "the layer is on a cycle of edges; the model cannot be read");
}

TEST_F(ir, a_two_dimensional_const_pattern_is_pattern_rank) {
  ir_builder b;
  const int x = b.parameter("[2,3]");
  b.reshape(x, b.constant(element_type::i64, "1,2", {3, 2}, "[1,2]"), false, "[2,3]", "[1,2]", "[3,2]");
  const auto r = check(b);
  EXPECT_EQ(only(r).result, model::verdict::error);
  EXPECT_EQ(only(r).code, "pattern_rank");
  EXPECT_EQ(r.summary.layers.rule_errors, 1u);  // the self-check names the same layer
  EXPECT_TRUE(r.summary.failed());
}

TEST_F(ir, a_u64_pattern_value_of_two_to_the_64_minus_1_is_invalid_value) {
  ir_builder b;
  const int x = b.parameter("[2,3]");
  b.reshape(x, b.constant(element_type::u64, "2", {2, -1}, "[2]"), false, "[2,3]", "[2]", "[2,3]");
  const auto r = check(b);
  EXPECT_EQ(only(r).result, model::verdict::error);
  EXPECT_EQ(only(r).code, "invalid_value");
  EXPECT_NE(only(r).error->message.find("pattern[1]"), std::string::npos) << only(r).error->message;
}

TEST_F(ir, const_values_of_every_integer_type_reach_the_pattern) {
  // A Const's values are decoded as reshape_pattern::from_tensor decodes them, for each integer type.
  for (const auto t : {element_type::i4, element_type::i8, element_type::i16, element_type::i32, element_type::i64,
                       element_type::u4, element_type::u8, element_type::u16, element_type::u32, element_type::u64}) {
    SCOPED_TRACE(name(t));
    const bool is_signed = t == element_type::i4 || t == element_type::i8 || t == element_type::i16 ||
                           t == element_type::i32 || t == element_type::i64;
    const std::vector<std::int64_t> v = is_signed ? std::vector<std::int64_t>{3, -1} : std::vector<std::int64_t>{3, 2};
    ir_builder b;
    const int x = b.parameter("[2,3]");
    const int c = b.constant(t, "2", v, "[2]");
    b.reshape(x, c, false, "[2,3]", "[2]", "[3,2]");
    const auto g = load(b.xml(), b.bin());
    const auto p = model::propagate(g);
    const auto& out = p.outputs[static_cast<std::size_t>(c)];
    ASSERT_TRUE(out[0].value);
    std::vector<std::int64_t> got;
    for (const auto& e : out[0].value->elements) {
      EXPECT_EQ(e.lo, e.hi);
      got.push_back(e.lo);
    }
    EXPECT_EQ(got, v);
    EXPECT_EQ(to_string(p.outputs[2][0].shape), "[3,2]");
  }
}

TEST_F(ir, a_bin_that_shrinks_after_it_is_read_is_a_clean_error) {
  // A .bin over 1 MiB is mapped, and propagation reads the Consts' values from the mapping: when the file
  // is cut short meanwhile (rewritten in place by another program), the reads fault. They are guarded:
  // error(io) naming the file, not a crash (SIGBUS).
  ir_builder b;
  const int x = b.parameter("[2,3]");
  const int c = b.i64({3, -1});
  const int r = b.reshape(x, c, false, "[2,3]", "[2]", "[3,2]");
  std::string bin = b.bin();
  bin.resize(std::size_t{2} << 20, '\0');  // large enough to be mapped; the Const stays at offset 0
  // Cut short the moment it is mapped: before the reader has read anything of it.
  io::detail::on_mapped([](const fs::path& p) { fs::resize_file(p, 0); });
  const auto g = load(b.xml(), bin);
  io::detail::on_mapped({});
  for (const auto& run : std::vector<std::function<void()>>{[&] { (void)model::propagate(g); },
                                                           [&] { (void)model::check(g); }}) {
    try {
      run();
      ADD_FAILURE() << "no error";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::io);
      EXPECT_NE(std::string(e.what()).find("m.bin: the file became shorter while it was being read"), std::string::npos)
          << e.what();
    }
  }
  // The same model read again, whole, propagates.
  const auto whole = load(b.xml(), bin);
  EXPECT_EQ(to_string(model::propagate(whole).outputs[static_cast<std::size_t>(r)][0].shape), "[3,2]");
  (void)c;
}

TEST_F(ir, a_git_lfs_pointer_instead_of_the_weights) {
  ir_builder b;
  const int x = b.parameter("[2,3]");
  b.reshape(x, b.i64({-1}), false, "[2,3]", "[1]", "[6]");
  const std::string pointer =
      "version https://git-lfs.github.com/spec/v1\n"
      "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 2106088\n";
  expect_error_containing([&] { (void)load(b.xml(), pointer); }, errc::bad_file,
                          "m.bin: a Git LFS pointer file, not the weights; fetch them with 'git lfs pull'");
}

TEST_F(ir, hints_that_work) {
  // For each case, the hint's change, applied, keeps the layer correct at another batch.
  struct row {
    std::vector<std::int64_t> pattern;
    bool special_zero;
    std::string hint;
    std::vector<std::int64_t> fixed;
    bool fixed_special_zero;
  };
  for (const auto& c : std::vector<row>{
           {{1, 144, -1}, false, "pattern[0]: use 0 with special_zero=true to copy it", {0, 144, -1}, true},
           {{1, 144, 400}, false, "pattern[0]: use -1, or 0 with special_zero=true", {-1, 144, 400}, false},
           {{1, 144, -1}, true, "pattern[0]: use 0 to copy it", {0, 144, -1}, true},
           {{1, 144, 400}, true, "pattern[0]: use 0 to copy it, or -1", {0, 144, 400}, true}}) {
    ir_builder b;
    const int x = b.parameter("[1,144,20,20]");
    const std::string out = fmt::format("[1,144,{}]", 400);
    b.reshape(x, b.i64(c.pattern), c.special_zero, "[1,144,20,20]", fmt::format("[{}]", c.pattern.size()), out);
    const auto& f = only(check(b));
    EXPECT_TRUE(f.blocks_reshape);
    EXPECT_EQ(f.hint, c.hint);
    EXPECT_EQ(to_string(infer_shape(partial_shape{dimension(2), dimension(144), dimension(20), dimension(20)},
                                    reshape_pattern::from_values(c.fixed), c.fixed_special_zero)
                            .shape),
              "[2,144,400]")
        << c.hint;
  }
}

// ---- malformed models --------------------------------------------------------------------------

TEST_F(ir, malformed_models_get_one_clear_error_each) {
  ir_builder good;
  const int x = good.parameter("[2,3]");
  good.reshape(x, good.i64({-1}), false, "[2,3]", "[1]", "[6]");
  const std::string xml = good.xml();
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = xml;
    const auto at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  expect_error_containing([&] { (void)load("this is not xml <", good.bin()); }, errc::bad_file, "not well-formed XML");
  expect_error_containing([&] { (void)load("<model/>", good.bin()); }, errc::bad_file, "there is no <net> element");
  expect_error_containing([&] { (void)load(replaced("version=\"11\"", "version=\"7\""), good.bin()); }, errc::unsupported,
                     "IR version 7 is not supported");
  expect_error_containing([&] { (void)load(replaced(" type=\"Reshape\"", ""), good.bin()); }, errc::bad_file,
                     "layer 'Reshape_2' (id 2): missing attribute 'type'");
  expect_error_containing([&] { (void)load(replaced("to-layer=\"2\" to-port=\"1\"", "to-layer=\"9\" to-port=\"1\""), good.bin()); },
                     errc::bad_file, "layer 9 does not exist");
  expect_error_containing([&] { (void)load(replaced("to-layer=\"2\" to-port=\"1\"", "to-layer=\"2\" to-port=\"5\""), good.bin()); },
                     errc::bad_file, "layer 'Reshape_2' (id 2) has no input port 5");
  expect_error_containing([&] { (void)load(replaced("<layer id=\"1\"", "<layer id=\"0\""), good.bin()); }, errc::bad_file,
                     "id 0 is used by an earlier layer too");
  expect_error_containing([&] { (void)load(replaced("<dim>6</dim>", "<dim>six</dim>"), good.bin()); }, errc::bad_file,
                     "layer 'Reshape_2' (id 2): port 2: 'six' is not a dimension");
  expect_error_containing([&] { (void)load(replaced("element_type=\"i64\"", "element_type=\"int64\""), good.bin()); },
                     errc::unknown_element_type, "layer 'Const_1' (id 1): element type 'int64' is unknown");
  expect_error_containing([&] { (void)load(replaced("size=\"8\"", "size=\"16\""), good.bin() + std::string(8, '\0')); },
                     errc::bad_file, "size 16 does not match a i64 tensor of shape [1] (8 bytes)");
  // A shape whose storage no 64-bit size can hold: said on the layer, not as a bare sum.
  expect_error_containing([&] { (void)load(replaced("shape=\"1\"", "shape=\"2147483648,2147483648\""), good.bin()); },
                          errc::bad_file,
                          "layer 'Const_1' (id 1): attribute 'shape' holds 4611686018427387904 elements of i64, more than 2^64 bytes");
  expect_error_containing([&] { (void)load(replaced(" offset=\"0\"", ""), good.bin()); }, errc::bad_file,
                     "missing attribute 'offset' in <data>");
  expect_error_containing([&] { (void)load(xml, good.bin().substr(0, 4)); }, errc::bad_file,
                     "layer 'Const_1' (id 1) reads 8 bytes at byte 0, past the end of the file (4 bytes)");
  expect_error_containing([&] { (void)load(replaced("offset=\"0\"", "offset=\"18446744073709551615\""), good.bin()); },
                     errc::bad_file, "attribute 'offset' is '18446744073709551615', not a byte count below 2^63");
  expect_error_containing([&] { (void)model::read_ir(dir_ / "none.xml", dir_ / "none.bin"); }, errc::io, "cannot open");
  std::ofstream(dir_ / "only.xml") << xml;
  expect_error_containing([&] { (void)model::read_ir(dir_ / "only.xml", dir_ / "only.bin"); }, errc::io, "only.bin: cannot open");
}

}  // namespace
}  // namespace reshape1::test
