// The rows of src/onnx/lower/ml.cpp (ai.onnx.ml): one case a row (rows_test.cpp runs them as onnx/lower_rows), then
// the other forms their kernels take and what ONNX Runtime refuses of them (each refusal seen in ONNX Runtime 1.30
// with a model of the node; the shapes against it in tests/property/op_truth_ml.py).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lowering_case.hpp"

namespace reshape1::test {

namespace {
constexpr const char* ml = "ai.onnx.ml";

std::string attr_strings(const char* name, const std::vector<std::string>& v) {
  std::string quoted;
  for (const auto& s : v) quoted += fmt::format("{}\"{}\"", quoted.empty() ? "" : ", ", s);
  return fmt::format(R"(attribute {{ name: "{}" type: STRINGS strings: [{}] }} )", name, quoted);
}

/// A tree of one branch on feature `feature` and two leaves, as TreeEnsembleRegressor/Classifier-1 take it; `leaf`
/// names the leaves' lists (target or class), each leaf giving id `id`.
std::string one_split(const char* leaf, std::int64_t feature = 2, std::int64_t id = 0) {
  return attr_ints("nodes_treeids", {0, 0, 0}) + attr_ints("nodes_nodeids", {0, 1, 2}) +
         attr_ints("nodes_featureids", {feature, 0, 0}) + attr_floats("nodes_values", {0.5F, 0, 0}) +
         attr_strings("nodes_modes", {"BRANCH_LEQ", "LEAF", "LEAF"}) + attr_ints("nodes_truenodeids", {1, 0, 0}) +
         attr_ints("nodes_falsenodeids", {2, 0, 0}) + attr_ints(fmt::format("{}_treeids", leaf).c_str(), {0, 0}) +
         attr_ints(fmt::format("{}_nodeids", leaf).c_str(), {1, 2}) + attr_ints(fmt::format("{}_ids", leaf).c_str(), {id, id}) +
         attr_floats(fmt::format("{}_weights", leaf).c_str(), {1, 2});
}

std::string tensor_attr(const char* name, int type, const std::string& values, std::int64_t count) {
  return fmt::format(R"(attribute {{ name: "{}" type: TENSOR t {{ dims: {} data_type: {} {} }} }} )", name, count, type, values);
}

/// TreeEnsemble-5's tables for one split on feature 1 and two leaves of targets 0 and 1.
std::string ensemble(std::int64_t targets = 2) {
  return attr_i("n_targets", targets) + attr_ints("tree_roots", {0}) + attr_ints("nodes_featureids", {1}) +
         tensor_attr("nodes_splits", 1, "float_data: [0.5]", 1) + tensor_attr("nodes_modes", 2, "int32_data: [0]", 1) +
         attr_ints("nodes_truenodeids", {0}) + attr_ints("nodes_trueleafs", {1}) + attr_ints("nodes_falsenodeids", {1}) +
         attr_ints("nodes_falseleafs", {1}) + attr_ints("leaf_targetids", {0, 1}) +
         tensor_attr("leaf_weights", 1, "float_data: [1, 2]", 2);
}

std::string svm(std::vector<std::int64_t> per_class = {1, 1}) {
  return attr_floats("kernel_params", {0.1F, 0, 3}) + attr_s("kernel_type", "RBF") + attr_ints("classlabels_ints", {4, 7}) +
         attr_ints("vectors_per_class", per_class) + attr_floats("support_vectors", {0, 1, 2, 3, 4, 5}) +
         attr_floats("coefficients", {1, -1}) + attr_floats("rho", {0});
}
}  // namespace

std::vector<lowering_case> ml_cases() {
  return {
      // Along X's last axis, Y read flat: [2,4] with 3 indices -> [2,3].
      {"ArrayFeatureExtractor", 1, "x:f32[2,4] y:i64[3]=0,3,1", "x,y", "z", "",
       "Gather,ShapeOf,Concat,ShapeOf,Subtract,Minimum,Slice,Broadcast", "[2,3]", ml},
      {"Binarizer", 1, "x:f32[2,3]", "x", "y", attr_f("threshold", 0.5F), "ConvertLike,Greater,ConvertLike", "[2,3]", ml},
      {"CategoryMapper", 1, "x:string[2,3]", "x", "y",
       attr_ints("cats_int64s", {1, 2}) + attr_strings("cats_strings", {"a", "b"}), "Convert,Convert", "[2,3]", ml},
      // Each input's rows cut or padded to its length: [2,3] to 2, [2,2,2] (rows of 4) to 5.
      {"FeatureVectorizer", 1, "a:f32[2,3] b:f32[2,2,2]", "a,b", "y", attr_ints("inputdimensions", {2, 5}),
       "ShapeOf,Concat,ShapeOf,Subtract,Minimum,Slice,Broadcast,Convert,ShapeOf,ShapeOf,Squeeze,Range,ReduceSum,Unsqueeze,"
       "ShapeOf,Slice,Concat,Broadcast,Convert,Convert,ShapeOf,Concat,ShapeOf,Subtract,Minimum,Slice,Broadcast,Convert,ShapeOf,"
       "ShapeOf,Squeeze,Range,ReduceSum,Unsqueeze,ShapeOf,Slice,Concat,Broadcast,Convert,Convert,Concat",
       "[2,7]", ml},
      {"Imputer", 1, "x:f32[2,3]", "x", "y", attr_floats("imputed_value_floats", {0}), "Convert,Convert", "[2,3]", ml},
      {"LabelEncoder", 1, "x:string[4]", "x", "y", attr_strings("classes_strings", {"a", "b"}), "Convert,Convert", "[4]", ml},
      {"LabelEncoder", 2, "x:i64[2,2]", "x", "y", attr_ints("keys_int64s", {1, 2}) + attr_floats("values_floats", {0.5F, 1}),
       "Convert,Convert", "[2,2]", ml},
      {"LabelEncoder", 4, "x:string[3]", "x", "y",
       attr_strings("keys_strings", {"a"}) + tensor_attr("values_tensor", 11, "double_data: [2]", 1), "Convert,Convert", "[3]",
       ml},
      // Three classes: labels [N], scores [N, 3].
      {"LinearClassifier", 1, "x:f32[5,2]", "x", "l,s",
       attr_floats("coefficients", {1, 2, 3, 4, 5, 6}) + attr_floats("intercepts", {0, 0, 0}) +
           attr_ints("classlabels_ints", {1, 2, 3}),
       "ShapeOf,Concat,ShapeOf,Subtract,Minimum,Slice,Broadcast,ShapeOf,Slice,Subtract,Broadcast,Convert,ReduceSum,Squeeze,"
       "Convert,Convert,ShapeOf,Slice,Concat,Broadcast,Convert,Convert",
       "[5] [5,3]", ml},
      {"LinearRegressor", 1, "x:f32[5,3]", "x", "y", attr_floats("coefficients", {1, 2, 3, 4, 5, 6}) + attr_i("targets", 2),
       "ShapeOf,Concat,ShapeOf,Subtract,Minimum,Slice,Broadcast,ShapeOf,Slice,Subtract,Broadcast,Convert,ReduceSum,ShapeOf,Slice,"
       "Concat,Broadcast,Convert,Convert",
       "[5,2]", ml},
      {"Normalizer", 1, "x:i64[4,3]", "x", "y", attr_s("norm", "L2"), "Convert,ReduceSum,Divide,Erf", "[4,3]", ml},
      {"OneHotEncoder", 1, "x:i64[2,3]", "x", "y", attr_ints("cats_int64s", {1, 5, 9, 11}),
       "ShapeOf,Concat,Convert,Convert,Unsqueeze,Broadcast", "[2,3,4]", ml},
      // Two classes without prob_a: the one score of their pair, as two.
      {"SVMClassifier", 1, "x:f32[4,3]", "x", "l,s", svm(),
       "ShapeOf,Concat,ShapeOf,Subtract,Minimum,Slice,Broadcast,VariadicSplit,Convert,ReduceSum,Squeeze,Convert,Convert,ShapeOf,"
       "Slice,Concat,Broadcast,Convert,Convert",
       "[4] [4,2]", ml},
      {"SVMRegressor", 1, "x:f32[4,3]", "x", "y",
       attr_floats("kernel_params", {}) + attr_i("n_supports", 2) + attr_floats("support_vectors", {0, 1, 2, 3, 4, 5}) +
           attr_floats("coefficients", {1, -1}) + attr_floats("rho", {0}),
       "ShapeOf,Concat,ShapeOf,Subtract,Minimum,Slice,Broadcast,VariadicSplit,Convert,ReduceSum,ShapeOf,Slice,Concat,Broadcast,"
       "Convert,Convert",
       "[4,1]", ml},
      // Per feature along dimension 1 (ONNX Runtime's), here 3 of [2,3,5].
      {"Scaler", 1, "x:f32[2,3,5]", "x", "y", attr_floats("scale", {1, 2, 3}) + attr_floats("offset", {0, 0, 0}),
       "ShapeOf,Concat,ShapeOf,Subtract,Minimum,Slice,Broadcast,VariadicSplit,Convert,Convert", "[2,3,5]", ml},
      {"TreeEnsemble", 5, "x:f32[6,3]", "x", "y", ensemble(),
       "ShapeOf,Concat,Slice,Subtract,Broadcast,ShapeOf,ShapeOf,Equal,Slice,Select,Subtract,Broadcast,ShapeOf,Concat,ShapeOf,"
       "Subtract,Minimum,Slice,Broadcast,Convert,ReduceSum,ShapeOf,Slice,Concat,Broadcast,Convert,Convert,ConvertLike",
       "[6,2]", ml},
      {"TreeEnsembleClassifier", 1, "x:f32[6,3]", "x", "l,s", one_split("class", 2, 1) + attr_ints("classlabels_int64s", {0, 1}),
       "ShapeOf,Concat,Slice,Subtract,Broadcast,ShapeOf,ShapeOf,Equal,Slice,Select,Subtract,Broadcast,ShapeOf,Concat,ShapeOf,"
       "Subtract,Minimum,Slice,Broadcast,Convert,ReduceSum,Squeeze,Convert,Convert,ShapeOf,Slice,Concat,Broadcast,Convert,"
       "Convert",
       "[6] [6,2]", ml},
      {"TreeEnsembleClassifier", 3, "x:f32[4,3]", "x", "l,s",
       one_split("class", 2, 2) + attr_strings("classlabels_strings", {"a", "b", "c"}),
       "ShapeOf,Concat,Slice,Subtract,Broadcast,ShapeOf,ShapeOf,Equal,Slice,Select,Subtract,Broadcast,ShapeOf,Concat,ShapeOf,"
       "Subtract,Minimum,Slice,Broadcast,Convert,ReduceSum,Squeeze,Convert,ShapeOf,Slice,Concat,Broadcast,Convert,Convert",
       "[4] [4,3]", ml},
      // A sequence of maps, one a row: the rows stand for it at the graph's output.
      {"ZipMap", 1, "x:f32[5,2]", "x", "z", attr_strings("classlabels_strings", {"no", "yes"}),
       "ShapeOf,Concat,ShapeOf,Subtract,Minimum,Slice,Broadcast,VariadicSplit", "[5,2]", ml},
      // A map graph input: [1, its size] (DENSE), [1, V] for the vocabulary.
      {"CastMap", 1, "m:map[]", "m", "y", attr_s("cast_to", "TO_INT64"),
       "ShapeOf,ReduceProd,ReduceSum,Broadcast,Unsqueeze,Convert,Convert", "[1,?]", ml},
      {"DictVectorizer", 1, "m:map[]", "m", "y", attr_ints("int64_vocabulary", {3, 1, 4}),
       "ShapeOf,ReduceProd,ReduceSum,Broadcast,Convert,Convert", "[1,3]", ml},
      {"TreeEnsembleRegressor", 1, "x:f32[6,3]", "x", "y", one_split("target") + attr_i("n_targets", 1),
       "ShapeOf,Concat,Slice,Subtract,Broadcast,ShapeOf,ShapeOf,Equal,Slice,Select,Subtract,Broadcast,ShapeOf,Concat,ShapeOf,"
       "Subtract,Minimum,Slice,Broadcast,Convert,ReduceSum,ShapeOf,Slice,Concat,Broadcast,Convert,Convert",
       "[6,1]", ml},
      {"TreeEnsembleRegressor", 3, "x:f32[6,3]", "x", "y", one_split("target", 1, 1) + attr_i("n_targets", 2),
       "ShapeOf,Concat,Slice,Subtract,Broadcast,ShapeOf,ShapeOf,Equal,Slice,Select,Subtract,Broadcast,ShapeOf,Concat,ShapeOf,"
       "Subtract,Minimum,Slice,Broadcast,Convert,ReduceSum,ShapeOf,Slice,Concat,Broadcast,Convert,Convert",
       "[6,2]", ml},
  };
}

}  // namespace reshape1::test

namespace reshape1::test {
namespace {

lowering_case node(const char* op, int since, const char* tensors, const char* inputs, const char* outputs,
                   std::string attributes) {
  return {op, since, tensors, inputs, outputs, std::move(attributes), "", "", ml};
}

const std::string linear = attr_floats("coefficients", {1, 2, 3, 4, 5, 6}) + attr_floats("intercepts", {0, 0, 0}) +
                           attr_ints("classlabels_ints", {1, 2, 3});

TEST(lower_ml, shapes_of_the_other_forms) {
  // [C] is one row: [1, K] and [1] [1, E].
  EXPECT_EQ(refusals(node("ArrayFeatureExtractor", 1, "x:f32[5] y:i64[2]=4,0", "x,y", "z", "")), "");
  EXPECT_EQ(refusals(node("LinearClassifier", 1, "x:f32[2]", "x", "l,s", linear)), "");
  // One intercept and two labels: two scores.
  EXPECT_EQ(refusals(node(
                "LinearClassifier", 1, "x:f32[3,2]", "x", "l,s",
                attr_floats("coefficients", {1, 2}) + attr_floats("intercepts", {0}) + attr_ints("classlabels_ints", {0, 1}))),
            "");
  // OneHotEncoder of a scalar: [K].
  EXPECT_EQ(refusals(node("OneHotEncoder", 1, "x:i64[]", "x", "y", attr_ints("cats_int64s", {1, 2}))), "");
}

TEST(lower_ml, refusals) {
  // Imports: above 5, and the tree ops deprecated at 5.
  auto six = node("Binarizer", 1, "x:f32[2]", "x", "y", "");
  six.since = 6;
  // Not covered, as an opset above the newest of the default domain (a later ONNX Runtime may run it; 1.30 refuses it).
  EXPECT_NE(refusals(six).find("the model imports version 6 of ai.onnx.ml, above 5"), std::string::npos);
  auto deprecated = node("TreeEnsembleRegressor", 5, "x:f32[6,3]", "x", "y", one_split("target") + attr_i("n_targets", 1));
  EXPECT_NE(refused_when_read(deprecated).find("ai.onnx.ml.TreeEnsembleRegressor is deprecated from opset 5"), std::string::npos);

  expect_refused_with(node("ArrayFeatureExtractor", 1, "x:f32[2,4] y:i64[2]=1,-1", "x,y", "z", ""), "its index -1 is negative");
  expect_refused_with(node("ArrayFeatureExtractor", 1, "x:f32[2,4] y:i64[0]=", "x,y", "z", ""), "its indices are empty");
  expect_refused_with(node("ArrayFeatureExtractor", 1, "x:f32[] y:i64[1]=0", "x,y", "z", ""), "its input 0 has rank 0");
  // Past the last axis: the Gather's rule.
  EXPECT_NE(refusals(node("ArrayFeatureExtractor", 1, "x:f32[2,4] y:i64[1]=4", "x,y", "z", "")), "");
  expect_refused_with(node("CategoryMapper", 1, "x:string[2]", "x", "y",
                           attr_ints("cats_int64s", {1}) + attr_strings("cats_strings", {"a", "b"})),
                      "cats_int64s holds 1 values and cats_strings 2");
  expect_refused_with(node("Imputer", 1, "x:i64[2]", "x", "y", attr_floats("imputed_value_floats", {1})),
                      "its input is i64 and its imputed values floats");
  expect_refused_with(
      node("LabelEncoder", 2, "x:i64[2]", "x", "y", attr_ints("keys_int64s", {1, 2}) + attr_floats("values_floats", {1})),
      "it has 2 keys and 1 values");
  expect_refused_with(
      node("LabelEncoder", 2, "x:string[2]", "x", "y", attr_ints("keys_int64s", {1}) + attr_floats("values_floats", {1})),
      "its input is string and its keys i64");
  expect_refused_with(node("LinearClassifier", 1, "x:f32[2,2,2]", "x", "l,s", linear), "its input 0 has rank 3");
  expect_refused_with(node("LinearClassifier", 1, "x:f32[2,2]", "x", "l,s",
                           attr_floats("coefficients", {1, 2, 3}) + attr_floats("intercepts", {0, 0})),
                      "it has 3 coefficients for 2 classes");
  // More features than the coefficients give a class: ONNX Runtime fails when it runs it.
  EXPECT_NE(refusals(node("LinearClassifier", 1, "x:f32[4,3]", "x", "l,s", linear)), "");
  expect_refused_with(node("Normalizer", 1, "x:f32[2,3]", "x", "y", attr_s("norm", "L3")), "norm is 'L3'");
  expect_refused_with(node("Normalizer", 1, "x:f32[2,3,4]", "x", "y", ""), "its input 0 has rank 3");
  expect_refused_with(node("SVMClassifier", 1, "x:f32[4,3]", "x", "l,s", svm({1, 1, 1})),
                      "vectors_per_class has 3 counts for 2 classes");
  // Rows of another number of features than the support vectors': refused when run.
  EXPECT_NE(refusals(node("SVMClassifier", 1, "x:f32[4,2]", "x", "l,s", svm())), "");
  expect_refused_with(node("SVMRegressor", 1, "x:f32[4,3]", "x", "y",
                           attr_i("n_supports", 2) + attr_floats("coefficients", {1, 1}) + attr_floats("rho", {0})),
                      "it has no kernel_params");
  expect_refused_with(node("Scaler", 1, "x:f32[2,3]", "x", "y", attr_floats("scale", {1, 2})), "it has 2 scales and 0 offsets");
  // Per feature along dimension 1, not the last.
  EXPECT_NE(refusals(node("Scaler", 1, "x:f32[3,4,2]", "x", "y", attr_floats("scale", {1, 2}) + attr_floats("offset", {0, 0}))),
            "");
  EXPECT_EQ(refusals(node("Scaler", 1, "x:f32[3,4,2]", "x", "y",
                          attr_floats("scale", {1, 2, 3, 4}) + attr_floats("offset", {0, 0, 0, 0}))),
            "");
  expect_refused_with(node("TreeEnsembleClassifier", 1, "x:f32[6,3]", "x", "l,s",
                           one_split("class") + attr_strings("classlabels_strings", {"q"})),
                      "it has one label, a string");
  expect_refused_with(
      node("TreeEnsembleRegressor", 1, "x:f32[6,3]", "x", "y", one_split("target", 2, 3) + attr_i("n_targets", 2)),
      "a leaf's target id is 3, and there are 2");
  // A branch on a feature past the rows': refused when run. Version 1 counts a [C] input as one feature.
  EXPECT_NE(refusals(node("TreeEnsembleRegressor", 1, "x:f32[6,2]", "x", "y", one_split("target") + attr_i("n_targets", 1))), "");
  EXPECT_NE(refusals(node("TreeEnsembleRegressor", 1, "x:f32[3]", "x", "y", one_split("target") + attr_i("n_targets", 1))), "");
  EXPECT_EQ(refusals(node("TreeEnsembleRegressor", 1, "x:f32[3]", "x", "y", one_split("target", 0) + attr_i("n_targets", 1))),
            "");
  expect_refused_with(node("TreeEnsembleRegressor", 3, "x:f32[3]", "x", "y", one_split("target", 0) + attr_i("n_targets", 1)),
                      "its input 0 has rank 1");
  expect_refused_with(node("TreeEnsemble", 5, "x:f64[6,3]", "x", "y", ensemble()),
                      "nodes_splits is not of its input's type (f64)");
  expect_refused_with(node("ZipMap", 1, "x:f32[5,2]", "x", "z",
                           attr_ints("classlabels_int64s", {1, 2}) + attr_strings("classlabels_strings", {"a", "b"})),
                      "it has both classlabels_int64s and classlabels_strings");
  // A label per column: refused when run.
  EXPECT_NE(refusals(node("ZipMap", 1, "x:f32[5,3]", "x", "z", attr_ints("classlabels_int64s", {1, 2}))), "");
  expect_refused_with(node("FeatureVectorizer", 1, "a:f32[2,3] b:f32[2,2]", "a,b", "y", attr_ints("inputdimensions", {3})),
                      "it has 2 inputs and 1 inputdimensions");
  // Inputs of another N: refused when run.
  EXPECT_NE(refusals(node("FeatureVectorizer", 1, "a:f32[2,3] b:f32[3,2]", "a,b", "y", attr_ints("inputdimensions", {3, 2}))),
            "");
  expect_refused_with(node("DictVectorizer", 1, "m:map[]", "m", "y", ""),
                      "it has both int64_vocabulary and string_vocabulary, or neither");
  // A tensor where a map is taken.
  expect_refused_with(node("CastMap", 1, "x:f32[2,3]", "x", "y", ""), "its input is a tensor");
  // Attributes of another kind than the schema's, as ONNX Runtime refuses them.
  expect_refused_with(node("Scaler", 1, "x:f32[2,3]", "x", "y", attr_ints("scale", {2}) + attr_ints("offset", {0})),
                      "its attribute 'scale' is of kind INTS, where Scaler takes FLOATS");
  expect_refused_with(node("OneHotEncoder", 1, "x:i64[2]", "x", "y", attr_ints("cats_int64s", {})), "it has no categories");
  // Branches to itself, and round in a circle (the split's true branch back to itself, not to a leaf).
  auto self = one_split("target");
  self.replace(self.find("ints: [1, 0, 0]"), 15, "ints: [0, 0, 0]");
  expect_refused_with(node("TreeEnsembleRegressor", 1, "x:f32[6,3]", "x", "y", self + attr_i("n_targets", 1)),
                      "node 0 of tree 0 branches to itself");
  auto loop = ensemble();
  loop.replace(loop.find("\"nodes_trueleafs\" type: INTS ints: [1]"), 38, "\"nodes_trueleafs\" type: INTS ints: [0]");
  expect_refused_with(node("TreeEnsemble", 5, "x:f32[6,3]", "x", "y", loop), "its branches go round in a circle");
  expect_refused_with(node("TreeEnsembleRegressor", 1, "x:f32[6,3]", "x", "y", one_split("target", -1) + attr_i("n_targets", 1)),
                      "a branch reads feature -1");
  // A rank-1 input ONNX's shape inference does not know (computed by a Scaler) is read, as ONNX Runtime loads it; its
  // kernel then counts one feature, and this tree branches on feature 1: refused when propagated.
  auto computed = node("TreeEnsemble", 5, "x:f32[3]", "t", "y", ensemble());
  computed.before = R"(node { input: "x" output: "t" op_type: "Scaler" domain: "ai.onnx.ml"
                        attribute { name: "scale" type: FLOATS floats: [1] } attribute { name: "offset" type: FLOATS floats: [0] } })";
  EXPECT_EQ(refused_when_read(computed), "");
  EXPECT_NE(refusals(computed), "");
  expect_refused_with(node("TreeEnsemble", 5, "x:f32[3]", "x", "y", ensemble()), "its input 0 has rank 1");
  // base_values: none or one a class, and up to two for one or two classes (each seen in ONNX Runtime).
  const auto classifier = [](std::vector<std::int64_t> labels, std::vector<float> base) {
    return node("TreeEnsembleClassifier", 1, "x:f32[6,3]", "x", "l,s",
                one_split("class") + attr_ints("classlabels_int64s", labels) + attr_floats("base_values", base));
  };
  EXPECT_EQ(refused_when_read(classifier({5}, {0.1F, 0.2F})), "");
  expect_refused_with(classifier({5, 6}, {0.1F, 0.2F, 0.3F}), "base_values holds 3 values for 2 classes");
  expect_refused_with(classifier({5, 6, 7}, {0.1F}), "base_values holds 1 values for 3 classes");
  EXPECT_EQ(refused_when_read(classifier({5, 6, 7}, {0.1F, 0.2F, 0.3F})), "");
  // ONNX Runtime reads feature indices as int32.
  expect_refused_with(
      node("TreeEnsembleRegressor", 3, "x:f32[6,3]", "x", "y", one_split("target", 2147483648LL) + attr_i("n_targets", 1)),
      "a branch reads feature 2147483648");
  // A node of ai.onnx.ml in a model that imports no version of it is read at 5, as ONNX Runtime reads it: the trees
  // deprecated there are refused.
  auto bytes = model_of(node("TreeEnsembleRegressor", 1, "x:f32[6,3]", "x", "y", one_split("target") + attr_i("n_targets", 1)));
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_opset_import()->RemoveLast();
  bytes = m.SerializeAsString();
  try {
    (void)onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), "t.onnx");
    ADD_FAILURE() << "read at version 1";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("ai.onnx.ml.TreeEnsembleRegressor is deprecated from opset 5"), std::string::npos)
        << e.what();
  }
  // A message names the op with its domain.
  expect_refused_with(
      node("LabelEncoder", 1, "x:string[2]", "x", "y", attr_strings("classes_strings", {"a"}) + attr_floats("keys_floats", {1})),
      "which ai.onnx.ml.LabelEncoder-1 does not have");
}

}  // namespace
}  // namespace reshape1::test
