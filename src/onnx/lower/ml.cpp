// ONNX's traditional-ML domain (ai.onnx.ml), as scikit-learn's and other converters write it: the encoders and
// scalers of a pipeline (Binarizer, CategoryMapper, Imputer, LabelEncoder, Normalizer, OneHotEncoder, Scaler), the
// feature plumbing (ArrayFeatureExtractor, FeatureVectorizer, CastMap, DictVectorizer, ZipMap) and the models
// (LinearClassifier/Regressor, SVMClassifier/Regressor, the tree ensembles). ONNX Runtime 1.30's CPU kernels decide
// their shapes (docs/onnx.md, "ai.onnx.ml"): each model takes [C] or [N, C] and gives one output row per input row,
// so each is lowered to layers that give that shape and make every output row come from its input row alone (a
// reduction over the features), with the values dropped where no rule computes them. What ONNX Runtime refuses,
// when it loads the node or when it runs it on shapes the graph fixes (a feature count, a rank), is refused here.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {

namespace {

/// Node output i is y, of `rank`: the rank ONNX Runtime's kernel gives it, known to the nodes after it when they are
/// read (a Scaler after an Imputer of a declared [N, C] knows its input is of rank 2).
void ranked(node_context& c, std::size_t i, source y, std::optional<std::size_t> rank) {
  c.output_value(i, {y, rank, nullptr, std::nullopt});
}

/// x's shape with its values dropped, as `to`: a Convert through a string, which no rule reads a value of.
source unknown_values(node_context& c, source x, element_type to) {
  const auto text = converted(c, x, element_type::string);
  return to == element_type::string ? text : converted(c, text, to);
}

/// The number of values attribute `name` holds (ints, floats, strings or a tensor's), 0 where it is absent. A tensor
/// whose dims do not count the values it holds is refused (ONNX Runtime cannot unpack it).
std::int64_t length_of(const node_context& c, std::string_view name) {
  const auto* a = c.attribute(name);
  if (a == nullptr) return 0;
  if (!a->has_t()) return a->ints_size() + a->floats_size() + a->strings_size();
  const auto& t = a->t();
  const auto type = element_of(t.data_type());
  const auto bytes = type && type != element_type::string ? static_cast<std::int64_t>(storage_size(*type, 1)) : 0;
  const std::int64_t held = t.has_raw_data() && bytes > 0
                                ? static_cast<std::int64_t>(t.raw_data().size()) / bytes
                                : t.float_data_size() + t.int32_data_size() + t.int64_data_size() + t.double_data_size() +
                                      t.uint64_data_size() + t.string_data_size();
  std::int64_t n = 1;
  for (const auto d : t.dims())
    if (d < 0 || (d > 0 && n > held / d) || (n *= d) > held)  // counted without passing what it holds
      c.bad(fmt::format("its attribute '{}' is a tensor of dims [{}] holding {} values", name, fmt::join(t.dims(), ","), held));
  if (n != held)
    c.bad(fmt::format("its attribute '{}' is a tensor of dims [{}] holding {} values", name, fmt::join(t.dims(), ","), held));
  return n;
}

/// No bound on a rank (expect_rank's `most`).
constexpr std::size_t any_rank = std::numeric_limits<std::size_t>::max();

/// Input `port`'s rank held to [least, most], as ONNX Runtime holds it (its shape inference when it loads the model,
/// or its kernel when it runs): refused now where the model declares the rank, else by rules of layers on the
/// shape when it is propagated.
void expect_rank(node_context& c, std::size_t port, source x, std::size_t least, std::size_t most) {
  if (const auto rank = c.rank(port)) {
    if (*rank < least || *rank > most)
      c.bad(fmt::format("its input {} has rank {}", port, *rank),
            least == most      ? fmt::format("{} takes a tensor of rank {}", c.node().op_type(), least)
            : most == any_rank ? fmt::format("{} takes a tensor of rank {} or more", c.node().op_type(), least)
                               : fmt::format("{} takes a tensor of rank {} to {}", c.node().op_type(), least, most));
    return;
  }
  const auto rank = c.shape_of(c.shape_of(x));
  if (least > 0) expect_at_least(c, rank, static_cast<std::int64_t>(least));
  if (most != any_rank) expect_at_most(c, rank, static_cast<std::int64_t>(most));
}

/// x with a leading 1 where it has rank 1 ([C] as the one row [1, C]), else as it is: the form ONNX Runtime's kernels
/// read [C] and [N, C] in. A Broadcast, which keeps the values.
source as_rows(node_context& c, source x) {
  const auto shape = c.shape_of(x);
  const auto padded = c.add("Concat", 1, {c.i64({1}), shape}, {{"axis", "0"}});
  // Where [1, shape...] starts: 0 for rank 1, 1 past it for more.
  const auto rank = c.shape_of(shape);
  const auto start = c.add("Minimum", 1, {c.add("Subtract", 1, {rank, c.i64({1})}, numpy), c.i64({1})}, numpy);
  const auto to = c.add("Slice", 8, {padded, start, c.i64({std::numeric_limits<std::int64_t>::max()}), c.i64({1})});
  return c.add("Broadcast", 3, {x, to}, {{"mode", "numpy"}});
}

/// y, computed with values per position along dimension 1 of node input 0 (Scaler's and Imputer's per-feature
/// values; dimension 0 for rank 1). Along dimension 1 that is each row's own. Along a rank-1 input's one dimension,
/// which may be the batch, what a sample gets depends on where it sits and how many there are: there (and where the
/// rank is not known here) y goes through a ScatterNDUpdate of no index, which keeps its shape and which no batching
/// rule decides, so that `check --batch` cannot tell past it.
source per_position(node_context& c, source y) {
  if (const auto rank = c.rank(0); rank && *rank >= 2) return y;
  const auto none = c.add("Concat", 1, {c.i64({0}), shape_slice(c, c.shape_of(y), 1, 0)}, {{"axis", "0"}});
  const auto updates = c.add("Broadcast", 3, {c.add("ConvertLike", 1, {c.f32({0}, true), y}), none}, {{"mode", "numpy"}});
  return c.add("ScatterNDUpdate", 4, {y, c.i64({}, std::vector<std::int64_t>{0, 1}), updates});
}

/// Rows [N, C] reduced over their features, [N, 1]: what every output of a model's row is computed from.
source per_row(node_context& c, source rows) {
  return c.add("ReduceSum", 1, {as_f32(c, rows), c.i64({-1})}, {{"keep_dims", "true"}});
}

/// [N, width] from a row's [N, 1], values dropped, of type `to`.
source widened(node_context& c, source row, std::int64_t width, element_type to) {
  const auto shape = c.add("Concat", 1, {shape_slice(c, c.shape_of(row), 0, 1), c.i64({width})}, {{"axis", "0"}});
  return unknown_values(c, c.add("Broadcast", 3, {row, shape}, {{"mode", "numpy"}}), to);
}

/// A classifier's label of each row, [N]: int64, or string with `classlabels_strings`.
source labels(node_context& c, source row, element_type type) {
  return unknown_values(c, c.add("Squeeze", 1, {row, c.i64({-1})}), type);
}

void expect_post_transform(node_context& c) {
  static const std::set<std::string> known = {"NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT"};
  if (const auto t = c.s("post_transform", "NONE"); !known.contains(t))
    c.bad(fmt::format("post_transform is '{}'", t), "post_transform is NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO or PROBIT");
}

/// The label type of a classifier whose labels are `ints` or `strings` (both: refused as ONNX Runtime refuses them).
element_type label_type(const node_context& c, const char* ints, const char* strings, bool both_allowed = false) {
  const bool i = c.attribute(ints) != nullptr, s = c.attribute(strings) != nullptr;
  if (i && s && !both_allowed)
    c.bad(fmt::format("it has both {} and {}", ints, strings), "its labels are integers or strings, one of them");
  return s ? element_type::string : element_type::i64;
}

/// The rows of input 0 of a model that takes [C] or [N, C] (rank 1 or 2).
source model_rows(node_context& c) {
  const auto x = c.need(0);
  expect_rank(c, 0, x, 1, 2);
  return as_rows(c, x);
}

/// ArrayFeatureExtractor (1): X's elements at the positions Y holds along its last axis (Y of any shape, read
/// flat): X's shape with the last dimension as long as Y holds values, [1, K] for an X of rank 1. ONNX Runtime
/// refuses no indices, and one outside [0, C), when it runs the node: a Gather's rule refuses one past C where it
/// knows both; a negative one, which a Gather reads from the end, is refused where Y is a Const.
void array_feature_extractor(node_context& c) {
  const auto x = c.need(0);
  expect_rank(c, 0, x, 1, any_rank);
  auto indices = c.need(1);
  if (const auto values = c.constant_ints(1)) {
    if (values->empty())
      c.bad("its indices are empty", "ArrayFeatureExtractor takes one index or more (ONNX Runtime fails on none)");
    if (const auto it = std::find_if(values->begin(), values->end(), [](std::int64_t v) { return v < 0; }); it != values->end())
      c.bad(fmt::format("its index {} is negative", *it),
            "ArrayFeatureExtractor's indices are 0 to C - 1 (ONNX Runtime fails on others)");
    indices = c.i64(*values, std::vector<std::int64_t>{static_cast<std::int64_t>(values->size())});
  } else if (c.rank(1) == 0) {
    indices = c.add("Unsqueeze", 1, {indices, c.i64({0})});
  } else if (c.rank(1) != 1) {
    // Read flat: a Reshape (which `check` reports among the model's) only where no other layer flattens it.
    expect_no_zero(c, c.shape_of(indices));
    indices = c.add("Reshape", 1, {indices, c.i64({-1})}, {{"special_zero", "false"}});
  } else {
    expect_no_zero(c, c.shape_of(indices));
  }
  ranked(c, 0, as_rows(c, c.add("Gather", 8, {x, indices, c.i64({-1}, scalar)})),
         c.rank(0) ? std::optional<std::size_t>(std::max<std::size_t>(*c.rank(0), 2)) : std::nullopt);
}

/// Binarizer (1): 1 where X is above `threshold`, else 0, in X's type and shape.
void binarizer(node_context& c) {
  const auto x = c.need(0);
  const auto above = c.add("Greater", 1, {x, like(c, c.f("threshold", 0.0F), x)}, numpy);
  ranked(c, 0, c.add("ConvertLike", 1, {above, x}), c.rank(0));
}

/// What CategoryMapper and LabelEncoder-1 give: int64 for strings, strings for int64 (where X's type is not known
/// here, by the default they are given: default_string says integers are mapped to strings).
element_type category_type(const node_context& c) {
  if (const auto in = c.declared_type(0)) return *in == element_type::string ? element_type::i64 : element_type::string;
  return c.attribute("default_string") != nullptr ? element_type::string : element_type::i64;
}

/// CategoryMapper (1): strings to integers or integers to strings, by the two tables, in X's shape. The output is
/// of the other type than X (by the default given where X's type is not known here).
void category_mapper(node_context& c) {
  const auto* ints = c.attribute("cats_int64s");
  const auto* strings = c.attribute("cats_strings");
  if (ints == nullptr || strings == nullptr)
    c.bad("it lacks cats_int64s or cats_strings", "CategoryMapper needs both tables (ONNX Runtime refuses the node without one)");
  if (ints->ints_size() != strings->strings_size())
    c.bad(fmt::format("cats_int64s holds {} values and cats_strings {}", ints->ints_size(), strings->strings_size()),
          "the two tables are as long as each other");
  ranked(c, 0, unknown_values(c, c.need(0), category_type(c)), c.rank(0));
}

/// Imputer (1): X with one value replaced, in X's shape and type. ONNX Runtime refuses a scalar when it runs the
/// node, and imputed values of the other kind than X.
void imputer(node_context& c) {
  const bool floats = length_of(c, "imputed_value_floats") > 0, ints = length_of(c, "imputed_value_int64s") > 0;
  if (floats == ints)
    c.bad("it has both imputed_value_floats and imputed_value_int64s, or neither",
          "Imputer takes the values to write as one of them");
  if (const auto t = c.declared_type(0); t && (*t == element_type::i64) != ints)
    c.bad(fmt::format("its input is {} and its imputed values {}", name(*t), ints ? "integers" : "floats"),
          "the imputed values are of the input's kind (ONNX Runtime fails on others)");
  const auto x = c.need(0);
  expect_rank(c, 0, x, 1, any_rank);
  // ONNX Runtime writes value k at position k of dimension 1 (0 for rank 1) only where that dimension is as long as
  // the values, else the first everywhere (no refusal).
  const auto values = length_of(c, ints ? "imputed_value_int64s" : "imputed_value_floats");
  const auto y = unknown_values(c, x, c.declared_type(0).value_or(ints ? element_type::i64 : element_type::f32));
  ranked(c, 0, values > 1 ? per_position(c, y) : y, c.rank(0));
}

/// The element type of a LabelEncoder's keys or values, by which attribute gives them (`kind` "keys" or "values").
std::optional<element_type> encoder_type(const node_context& c, const char* kind) {
  std::optional<element_type> type;
  int given = 0;
  for (const auto& [suffix, t] : {std::pair{"strings", element_type::string}, std::pair{"int64s", element_type::i64},
                                  std::pair{"floats", element_type::f32}}) {
    if (c.attribute(fmt::format("{}_{}", kind, suffix)) == nullptr) continue;
    ++given;
    type = t;
  }
  if (c.version() >= 4)
    if (const auto* a = c.attribute(fmt::format("{}_tensor", kind))) {
      if (!a->has_t() || a->t().dims_size() != 1)
        c.bad(fmt::format("its {}_tensor is not 1-D", kind), "the table is a 1-D tensor");
      ++given;
      type = a->has_t() ? element_of(a->t().data_type()) : std::nullopt;
      if (!type) c.bad(fmt::format("its {}_tensor is of no type reshape1 reads", kind));
    }
  if (given != 1)
    c.bad(fmt::format("it sets {} of the {}_* attributes", given, kind),
          fmt::format("LabelEncoder takes one {}_* attribute", kind));
  return type;
}

/// LabelEncoder (1, 2, 4): each element mapped through a table, in X's shape. Version 1 maps strings to integers
/// or back by `classes_strings`; from 2 the keys and values are of the types of the attributes that hold them.
void label_encoder(node_context& c) {
  const auto x = c.need(0);
  if (c.version() == 1) {
    if (c.attribute("classes_strings") == nullptr)
      c.bad("it has no classes_strings", "LabelEncoder-1 needs classes_strings (ONNX Runtime refuses the node without it)");
    return ranked(c, 0, unknown_values(c, x, category_type(c)), c.rank(0));
  }
  const auto keys = encoder_type(c, "keys");
  const auto values = encoder_type(c, "values");
  const auto key_count = c.version() >= 4 && c.attribute("keys_tensor")
                             ? length_of(c, "keys_tensor")
                             : std::max({length_of(c, "keys_strings"), length_of(c, "keys_int64s"), length_of(c, "keys_floats")});
  const auto value_count =
      c.version() >= 4 && c.attribute("values_tensor")
          ? length_of(c, "values_tensor")
          : std::max({length_of(c, "values_strings"), length_of(c, "values_int64s"), length_of(c, "values_floats")});
  if (key_count != value_count)
    c.bad(fmt::format("it has {} keys and {} values", key_count, value_count), "each key has one value");
  if (const auto in = c.declared_type(0); in && keys && *in != *keys)
    c.bad(fmt::format("its input is {} and its keys {}", name(*in), name(*keys)), "the keys are of the input's type");
  if (const auto* d = c.version() >= 4 ? c.attribute("default_tensor") : nullptr) {
    if (!d->has_t() || d->t().dims_size() != 1 || d->t().dims(0) != 1)
      c.bad("its default_tensor is not one value of rank 1", "the default is a tensor of shape [1]");
    if (element_of(d->t().data_type()) != values)
      c.bad("its default_tensor is of another type than its values", "the default is of the values' type");
  }
  ranked(c, 0, unknown_values(c, x, *values), c.rank(0));
}

/// LinearClassifier (1): for each row of [C] or [N, C], its label ([N]) and one score per class ([N, E]): E is the
/// number of intercepts, 2 for one intercept with two labels.
void linear_classifier(node_context& c) {
  const auto type = label_type(c, "classlabels_ints", "classlabels_strings");
  const auto intercepts = length_of(c, "intercepts");
  const auto coefficients = length_of(c, "coefficients");
  const auto labels_given = std::max(length_of(c, "classlabels_ints"), length_of(c, "classlabels_strings"));
  const bool have_labels = c.attribute("classlabels_ints") != nullptr || c.attribute("classlabels_strings") != nullptr;
  if (intercepts == 0) c.bad("it has no intercepts", "LinearClassifier has an intercept per class");
  if (coefficients % intercepts != 0)
    c.bad(fmt::format("it has {} coefficients for {} classes", coefficients, intercepts), "the coefficients are C per class");
  if (intercepts > 1 && !have_labels)
    c.bad(fmt::format("it has {} classes and no labels", intercepts), "classlabels_ints or classlabels_strings names them");
  if (have_labels && intercepts > labels_given)
    c.bad(fmt::format("it has {} classes and {} labels", intercepts, labels_given), "each class has a label");
  if (intercepts == 1 && have_labels && labels_given != 2)
    c.bad(fmt::format("it has one class and {} labels", labels_given), "a binary classifier (one intercept) has 2 labels");
  expect_post_transform(c);
  const auto rows = model_rows(c);
  // ONNX Runtime reads coefficients / E features of each row: it fails on more.
  expect_at_most(c, shape_slice(c, c.shape_of(rows), 1, 2), coefficients / intercepts);
  const auto row = per_row(c, rows);
  ranked(c, 0, labels(c, row, type), 1);
  ranked(c, 1, widened(c, row, intercepts == 1 && labels_given == 2 ? 2 : intercepts, element_type::f32), 2);
}

/// LinearRegressor (1): `targets` values for each row of [C] or [N, C]: [N, targets].
void linear_regressor(node_context& c) {
  const auto targets = c.i("targets", 1);
  if (targets < 1) c.bad(fmt::format("targets is {}", targets), "LinearRegressor gives 1 target or more");
  expect_post_transform(c);
  const auto rows = model_rows(c);
  // ONNX Runtime reads targets x C coefficients: it fails on fewer.
  expect_at_most(c, shape_slice(c, c.shape_of(rows), 1, 2), length_of(c, "coefficients") / targets);
  ranked(c, 0, widened(c, per_row(c, rows), targets, element_type::f32), 2);
}

/// Normalizer (1): each row of [C] or [N, C] divided by its norm: float, X's shape. A row's values meet (the
/// norm is over the row).
void normalizer(node_context& c) {
  const auto norm = c.s("norm", "MAX");
  if (norm != "MAX" && norm != "L1" && norm != "L2")
    c.bad(fmt::format("norm is '{}'", norm), "Normalizer's norm is MAX, L1 or L2");
  const auto x = c.need(0);
  expect_rank(c, 0, x, 1, 2);
  const auto f = as_f32(c, x);
  const auto total = c.add("ReduceSum", 1, {f, c.i64({-1})}, {{"keep_dims", "true"}});
  ranked(c, 0, values_dropped(c, c.add("Divide", 1, {f, total}, numpy)), c.rank(0));
}

/// OneHotEncoder (1): X's shape and one more dimension as long as the categories: float. (With zeros 0, ONNX
/// Runtime fails when it runs the node on a value that is no category: the data decides that.)
void one_hot_encoder(node_context& c) {
  const bool ints = c.attribute("cats_int64s") != nullptr, strings = c.attribute("cats_strings") != nullptr;
  if (ints == strings)
    c.bad("it has both cats_int64s and cats_strings, or neither", "OneHotEncoder takes its categories as one of them");
  const auto categories = length_of(c, ints ? "cats_int64s" : "cats_strings");
  if (categories == 0) c.bad("it has no categories", "OneHotEncoder needs one category or more");
  const auto x = c.need(0);
  const auto shape = c.add("Concat", 1, {c.shape_of(x), c.i64({categories})}, {{"axis", "0"}});
  const auto each = c.add("Unsqueeze", 1, {unknown_values(c, x, element_type::f32), c.i64({-1})});
  ranked(c, 0, c.add("Broadcast", 3, {each, shape}, {{"mode", "numpy"}}),
         c.rank(0) ? std::optional<std::size_t>(*c.rank(0) + 1) : std::nullopt);
}

void expect_kernel(node_context& c) {
  const auto* p = c.attribute("kernel_params");
  if (p == nullptr)
    c.bad("it has no kernel_params",
          fmt::format("{} needs kernel_params (ONNX Runtime refuses the node without them)", c.node().op_type()));
  if (p->floats_size() != 0 && p->floats_size() != 3)
    c.bad(fmt::format("its kernel_params hold {} values", p->floats_size()),
          "kernel_params are none or three (gamma, coef0, degree)");
  static const std::set<std::string> known = {"LINEAR", "POLY", "RBF", "SIGMOID"};
  if (const auto k = c.s("kernel_type", "LINEAR"); !known.contains(k))
    c.bad(fmt::format("kernel_type is '{}'", k), "kernel_type is LINEAR, POLY, RBF or SIGMOID");
  expect_post_transform(c);
}

/// SVMClassifier (1): each row's label ([N]) and scores ([N, E]). With support vectors, E is the number of classes K
/// when `prob_a` gives probabilities, else one score per pair of classes (2 for two classes); without, K.
void svm_classifier(node_context& c) {
  expect_kernel(c);
  const auto type = label_type(c, "classlabels_ints", "classlabels_strings");
  const auto classes = std::max(length_of(c, "classlabels_ints"), length_of(c, "classlabels_strings"));
  if (classes == 0) c.bad("it has no labels", "SVMClassifier needs classlabels_ints or classlabels_strings");
  const auto counts = c.ints("vectors_per_class").value_or(std::vector<std::int64_t>{});
  // Summed within +-2^62 (no overflow whatever the counts; no real model comes near).
  constexpr std::int64_t big = std::int64_t{1} << 62;
  std::int64_t vectors = 0;
  for (const auto v : counts) vectors = std::clamp(vectors + std::clamp(v, -big, big), -big, big);
  const auto coefficients = length_of(c, "coefficients");
  if (coefficients == 0) c.bad("it has no coefficients", "SVMClassifier needs coefficients");
  if (c.attribute("rho") == nullptr) c.bad("it has no rho", "SVMClassifier needs rho (ONNX Runtime refuses the node without it)");
  std::int64_t features = 0, scores = classes;
  if (vectors > 0) {
    if (static_cast<std::int64_t>(counts.size()) != classes)
      c.bad(fmt::format("vectors_per_class has {} counts for {} classes", counts.size(), classes), "each class has a count");
    if (classes > 1 && coefficients / (classes - 1) < vectors)
      c.bad(fmt::format("it has {} coefficients, fewer than (classes - 1) x vectors for {} classes of {} vectors", coefficients,
                        classes, vectors));
    if (length_of(c, "rho") < classes * (classes - 1) / 2)
      c.bad(fmt::format("rho holds {} values, fewer than one per pair of classes ({})", length_of(c, "rho"),
                        classes * (classes - 1) / 2));
    if (length_of(c, "support_vectors") % vectors != 0)
      c.bad(fmt::format("its {} support vector values are no multiple of its {} vectors", length_of(c, "support_vectors"),
                        vectors));
    features = length_of(c, "support_vectors") / vectors;
    scores = length_of(c, "prob_a") > 0 ? classes : classes == 2 ? 2 : classes * (classes - 1) / 2;
  } else {
    features = coefficients / classes;
  }
  const auto rows = model_rows(c);
  // ONNX Runtime fails when it runs the node on rows of another number of features.
  const auto checked = exactly(c, rows, 1, c.i64({features}));
  const auto row = per_row(c, checked);
  ranked(c, 0, labels(c, row, type), 1);
  ranked(c, 1, widened(c, row, scores, element_type::f32), 2);
}

/// SVMRegressor (1): one value for each row: [N, 1].
void svm_regressor(node_context& c) {
  expect_kernel(c);
  const auto supports = c.i("n_supports", 0);
  const auto coefficients = length_of(c, "coefficients");
  if (length_of(c, "rho") == 0) c.bad("it has no rho", "SVMRegressor needs rho");
  if (supports < 0) c.bad(fmt::format("n_supports is {}", supports), "n_supports is 0 or more");
  std::int64_t features = coefficients;
  if (supports > 0) {
    if (length_of(c, "support_vectors") == 0)
      c.bad(fmt::format("it has n_supports {} and no support vectors", supports), "each support vector has its values");
    if (length_of(c, "support_vectors") % supports != 0)
      c.bad(fmt::format("its {} support vector values are no multiple of n_supports ({})", length_of(c, "support_vectors"),
                        supports));
    if (coefficients < supports) c.bad(fmt::format("it has {} coefficients for {} support vectors", coefficients, supports));
    features = length_of(c, "support_vectors") / supports;
  }
  const auto rows = model_rows(c);
  ranked(c, 0, widened(c, per_row(c, exactly(c, rows, 1, c.i64({features}))), 1, element_type::f32), 2);
}

/// Scaler (1): (X - offset) x scale, float, X's shape: one value for all, or one per feature, the features being
/// dimension 1 (dimension 0 of a rank-1 X), as ONNX Runtime reads them.
void scaler(node_context& c) {
  const auto scale = length_of(c, "scale"), offset = length_of(c, "offset");
  if (scale == 0) c.bad("it has no scale", "Scaler needs scale");
  if (scale != offset)
    c.bad(fmt::format("it has {} scales and {} offsets", scale, offset), "scale and offset are as long as each other");
  const auto x = c.need(0);
  expect_rank(c, 0, x, 1, any_rank);
  if (scale > 1) static_cast<void>(exactly(c, as_rows(c, x), 1, c.i64({scale})));
  const auto y = unknown_values(c, x, element_type::f32);
  ranked(c, 0, scale > 1 ? per_position(c, y) : y, c.rank(0));
}

/// Whether the branches `next` (node k to each of next[k]) go round in a circle: ONNX Runtime refuses such a tree
/// when it loads the node (it would walk it for ever).
bool has_cycle(const std::vector<std::vector<std::size_t>>& next) {
  enum class mark : unsigned char { unseen, on_path, done };
  std::vector<mark> state(next.size(), mark::unseen);
  for (std::size_t root = 0; root < next.size(); ++root) {
    if (state[root] != mark::unseen) continue;
    // (node, the index of its next branch to follow): a walk without recursion, as a tree may be deep.
    std::vector<std::pair<std::size_t, std::size_t>> path{{root, 0}};
    state[root] = mark::on_path;
    while (!path.empty()) {
      auto& [node, at] = path.back();
      if (at == next[node].size()) {
        state[node] = mark::done;
        path.pop_back();
        continue;
      }
      const auto to = next[node][at++];
      if (state[to] == mark::on_path) return true;
      if (state[to] == mark::unseen) {
        state[to] = mark::on_path;
        path.emplace_back(to, 0);
      }
    }
  }
  return false;
}

/// A branch's feature index, refused where ONNX Runtime refuses it when it loads the node: negative, or past int32
/// (it reads them as int32). One past C is refused when the rows are propagated (tree_rows).
void expect_feature(const node_context& c, std::int64_t feature) {
  if (feature < 0 || feature > std::numeric_limits<std::int32_t>::max())
    c.bad(fmt::format("a branch reads feature {}", feature), "a feature index is 0 to 2^31 - 1 (ONNX Runtime reads it as int32)");
}

/// A tree ensemble's node table (the attributes `prefix`_treeids, _nodeids, _modes, ...) as ONNX Runtime checks it
/// when it loads the node: every list as long as the modes, each mode known, and each branch's target a node of
/// its tree, not itself, and no circle. Returns the largest feature a branch reads (-1 for none).
std::int64_t checked_nodes(node_context& c) {
  const auto modes = c.attribute("nodes_modes");
  const auto count = modes == nullptr ? 0 : modes->strings_size();
  for (const char* list : {"nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_truenodeids", "nodes_falsenodeids"})
    if (length_of(c, list) != count)
      c.bad(fmt::format("{} holds {} values and nodes_modes {}", list, length_of(c, list), count), "each node has one of each");
  const auto values = std::max(length_of(c, "nodes_values"), length_of(c, "nodes_values_as_tensor"));
  if (values != count) c.bad(fmt::format("nodes_values holds {} values for {} nodes", values, count), "each node has one");
  if (c.attribute("nodes_values") != nullptr && c.attribute("nodes_values_as_tensor") != nullptr)
    c.bad("it has both nodes_values and nodes_values_as_tensor", "a node's threshold is in one of them");
  static const std::set<std::string> known = {"BRANCH_LEQ", "BRANCH_LT",  "BRANCH_GTE", "BRANCH_GT",
                                              "BRANCH_EQ",  "BRANCH_NEQ", "LEAF"};
  const auto list = [&](const char* name) { return c.ints(name).value_or(std::vector<std::int64_t>{}); };
  const auto trees = list("nodes_treeids"), ids = list("nodes_nodeids"), features = list("nodes_featureids");
  const auto yes = list("nodes_truenodeids"), no = list("nodes_falsenodeids");
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> nodes;  // (tree, id) -> position in the lists
  for (int k = 0; k < count; ++k) nodes.emplace(std::pair{trees[k], ids[k]}, static_cast<std::size_t>(k));
  std::vector<std::vector<std::size_t>> next(static_cast<std::size_t>(count));
  std::int64_t widest = -1;
  for (int k = 0; k < count; ++k) {
    const auto& mode = modes->strings(k);
    if (!known.contains(mode)) c.bad(fmt::format("node {} has mode '{}'", k, mode), "a node's mode is BRANCH_LEQ, ..., or LEAF");
    if (mode == "LEAF") continue;
    for (const auto to : {yes[k], no[k]}) {
      const auto it = nodes.find({trees[k], to});
      if (it == nodes.end())
        c.bad(fmt::format("node {} of tree {} branches to node {}, which the tree does not have", ids[k], trees[k], to));
      if (to == ids[k]) c.bad(fmt::format("node {} of tree {} branches to itself", ids[k], trees[k]));
      next[static_cast<std::size_t>(k)].push_back(it->second);
    }
    expect_feature(c, features[k]);
    widest = std::max(widest, features[k]);
  }
  if (has_cycle(next)) c.bad("its branches go round in a circle", "each tree's branches lead from its root to leaves");
  static const std::set<std::string> aggregates = {"SUM", "AVERAGE", "MIN", "MAX"};
  if (const auto a = c.s("aggregate_function", "SUM"); !aggregates.contains(a))
    c.bad(fmt::format("aggregate_function is '{}'", a), "aggregate_function is SUM, AVERAGE, MIN or MAX");
  expect_post_transform(c);
  return widest;
}

/// The leaves' targets (or classes) `prefix`_ids, _treeids, _nodeids, _weights checked against `targets`.
void checked_leaves(node_context& c, const char* prefix, std::int64_t targets) {
  const auto ids = c.ints(fmt::format("{}_ids", prefix)).value_or(std::vector<std::int64_t>{});
  for (const auto id : ids)
    if (id < 0 || id >= targets) c.bad(fmt::format("a leaf's {} id is {}, and there are {}", prefix, id, targets));
  for (const auto& list : {fmt::format("{}_treeids", prefix), fmt::format("{}_nodeids", prefix)})
    if (length_of(c, list) != static_cast<std::int64_t>(ids.size()))
      c.bad(fmt::format("{} holds {} values and {}_ids {}", list, length_of(c, list), prefix, ids.size()));
  const auto weights =
      std::max(length_of(c, fmt::format("{}_weights", prefix)), length_of(c, fmt::format("{}_weights_as_tensor", prefix)));
  if (weights != 0 && weights != static_cast<std::int64_t>(ids.size()))
    c.bad(fmt::format("it has {} leaf weights for {} leaves", weights, ids.size()), "each leaf has one weight, or none has");
}

/// Rows of a tree ensemble, with more features than any branch reads (ONNX Runtime fails when it runs the node on
/// fewer): [N, C], or [C] as the one row [1, C] whose features ONNX Runtime counts as 1 (a branch on another fails),
/// and which must not be empty (ONNX Runtime's process stops on [0]). From version 3 on (TreeEnsemble-5 too) ONNX's
/// shape inference refuses another rank than 2 when the model is loaded, where it knows the rank (a graph input's);
/// past that ONNX Runtime's kernel runs [C] as version 1's does.
source tree_rows(node_context& c, std::int64_t widest) {
  const auto x = c.need(0);
  if (const auto dims = c.declared_input_dims(0); c.version() >= 3 && dims && dims->size() != 2)
    c.bad(fmt::format("its input 0 has rank {}", dims->size()), fmt::format("{} takes a tensor of rank 2", c.node().op_type()));
  expect_rank(c, 0, x, 1, 2);
  // [C, 1] or [N, C, 1]: the features at 1 (1 for rank 1, C for rank 2), the first dimension of a rank-1 x at 0.
  const auto shape = c.add("Concat", 1, {c.shape_of(x), c.i64({1})}, {{"axis", "0"}});
  if (widest >= 0) expect_at_least(c, shape_slice(c, shape, 1, 2), widest + 1);
  const auto rank = c.shape_of(c.shape_of(x));
  expect_at_least(
      c, c.add("Select", 1, {c.add("Equal", 1, {rank, c.i64({1})}, numpy), shape_slice(c, shape, 0, 1), c.i64({1})}, numpy), 1);
  return as_rows(c, x);
}

/// Version 3's `*_as_tensor` tables, which ONNX Runtime reads in the input's type (it fails to unpack another).
void expect_tables_of_input_type(node_context& c) {
  const auto type = c.declared_type(0);
  if (!type) return;
  for (const auto& a : c.node().attribute())
    if (a.name().ends_with("_as_tensor") && a.has_t() && element_of(a.t().data_type()) != type)
      c.bad(fmt::format("{} is not of its input's type ({})", a.name(), name(*type)),
            "ONNX Runtime reads the tables in the input's type");
}

/// TreeEnsembleRegressor (1, 3): `n_targets` values for each row: [N, n_targets].
void tree_ensemble_regressor(node_context& c) {
  expect_tables_of_input_type(c);
  const auto targets = c.i("n_targets", 0);
  if (targets < 1) c.bad(fmt::format("n_targets is {}", targets), "TreeEnsembleRegressor gives 1 target or more");
  const auto widest = checked_nodes(c);
  checked_leaves(c, "target", targets);
  const auto base = std::max(length_of(c, "base_values"), length_of(c, "base_values_as_tensor"));
  if (base != 0 && base != targets)
    c.bad(fmt::format("base_values holds {} values for {} targets", base, targets), "none, or one per target");
  ranked(c, 0, widened(c, per_row(c, tree_rows(c, widest)), targets, element_type::f32), 2);
}

/// TreeEnsembleClassifier (1, 3): each row's label ([N]) and a score per class ([N, classes]).
void tree_ensemble_classifier(node_context& c) {
  expect_tables_of_input_type(c);
  // Both kinds of labels: ONNX Runtime runs it, with the strings.
  const auto type = label_type(c, "classlabels_int64s", "classlabels_strings", true);
  const auto classes = type == element_type::string ? length_of(c, "classlabels_strings") : length_of(c, "classlabels_int64s");
  if (classes == 0) c.bad("it has no labels", "TreeEnsembleClassifier needs classlabels_int64s or classlabels_strings");
  // One string label stops ONNX Runtime's process (an index past its label list).
  if (classes == 1 && type == element_type::string)
    c.bad("it has one label, a string", "ONNX Runtime's process stops on it: give two labels, or integers");
  const auto widest = checked_nodes(c);
  checked_leaves(c, "class", classes);
  const auto base = std::max(length_of(c, "base_values"), length_of(c, "base_values_as_tensor"));
  // ONNX Runtime takes none or one a class; with one or two classes (its binary case) also up to two.
  if (base != 0 && base != classes && !(classes <= 2 && base <= 2))
    c.bad(fmt::format("base_values holds {} values for {} classes", base, classes), "none, or one per class");
  const auto row = per_row(c, tree_rows(c, widest));
  ranked(c, 0, labels(c, row, type), 1);
  ranked(c, 1, widened(c, row, classes, element_type::f32), 2);
}

/// TreeEnsemble's nodes as ONNX Runtime checks them when it loads the node: modes a uint8 tensor of the modes it
/// knows (0 to 7: ONNX's seven, and 7, which ONNX Runtime 1.30 runs too), each branch to a node or (where
/// `nodes_trueleafs`/`nodes_falseleafs` say so) a leaf that exists, and no branches that go round in a circle.
void expect_ensemble_nodes(node_context& c, std::int64_t splits, std::int64_t leaves) {
  if (const auto* modes = c.attribute("nodes_modes"); modes != nullptr) {
    if (!modes->has_t() || modes->t().data_type() != ::onnx::TensorProto::UINT8)
      c.bad("its nodes_modes is not a uint8 tensor", "TreeEnsemble's modes are a uint8 tensor (0 to 6)");
    const auto& t = modes->t();
    for (int k = 0; k < splits; ++k) {
      const auto mode = t.has_raw_data() ? (static_cast<std::size_t>(k) < t.raw_data().size()
                                                ? static_cast<unsigned char>(t.raw_data()[static_cast<std::size_t>(k)])
                                                : 0)
                                         : (k < t.int32_data_size() ? t.int32_data(k) : 0);
      if (mode < 0 || mode > 7)
        c.bad(fmt::format("node {} has mode {}", k, mode),
              "a node's mode is 0 (BRANCH_LEQ) to 6 (BRANCH_MEMBER); ONNX Runtime runs 7 too");
    }
  }
  const auto list = [&](const char* name) { return c.ints(name).value_or(std::vector<std::int64_t>{}); };
  const auto yes = list("nodes_truenodeids"), no = list("nodes_falsenodeids");
  const auto yes_leaf = list("nodes_trueleafs"), no_leaf = list("nodes_falseleafs");
  std::vector<std::vector<std::size_t>> next(static_cast<std::size_t>(splits));
  for (std::size_t k = 0; k < next.size(); ++k)
    for (const auto& [to, leaf] :
         {std::pair{yes[k], k < yes_leaf.size() && yes_leaf[k] != 0}, std::pair{no[k], k < no_leaf.size() && no_leaf[k] != 0}}) {
      if (to < 0 || to >= (leaf ? leaves : splits))
        c.bad(fmt::format("node {} branches to {} {}, and there are {}", k, leaf ? "leaf" : "node", to, leaf ? leaves : splits));
      if (!leaf) next[k].push_back(static_cast<std::size_t>(to));
    }
  if (has_cycle(next)) c.bad("its branches go round in a circle", "each tree's branches lead from its root to leaves");
}

/// TreeEnsemble (5): `n_targets` values for each row of [N, C] (or [C]: tree_rows), of X's type. Its tables are tensors
/// of X's type and integer lists, checked as ONNX Runtime checks them when it loads the node.
void tree_ensemble(node_context& c) {
  const auto targets = c.i("n_targets", 0);
  if (targets < 1) c.bad(fmt::format("n_targets is {}", targets), "TreeEnsemble gives 1 target or more");
  const auto splits = length_of(c, "nodes_splits");
  for (const char* list :
       {"nodes_featureids", "nodes_truenodeids", "nodes_falsenodeids", "nodes_modes", "nodes_trueleafs", "nodes_falseleafs"})
    if (length_of(c, list) != splits)
      c.bad(fmt::format("{} holds {} values for {} nodes", list, length_of(c, list), splits), "each node has one of each");
  if (length_of(c, "leaf_targetids") != length_of(c, "leaf_weights"))
    c.bad(fmt::format("leaf_targetids holds {} values and leaf_weights {}", length_of(c, "leaf_targetids"),
                      length_of(c, "leaf_weights")));
  for (const auto id : c.ints("leaf_targetids").value_or(std::vector<std::int64_t>{}))
    if (id < 0 || id >= targets) c.bad(fmt::format("a leaf's target is {}, and there are {}", id, targets));
  for (const auto root : c.ints("tree_roots").value_or(std::vector<std::int64_t>{}))
    if (root < 0 || root >= splits) c.bad(fmt::format("a tree's root is node {}, and there are {}", root, splits));
  expect_ensemble_nodes(c, splits, length_of(c, "leaf_targetids"));
  if (const auto a = c.i("aggregate_function", 1); a < 0 || a > 3)
    c.bad(fmt::format("aggregate_function is {}", a), "aggregate_function is 0 (average) to 3 (max)");
  if (const auto p = c.i("post_transform", 0); p < 0 || p > 4)
    c.bad(fmt::format("post_transform is {}", p), "post_transform is 0 to 4");
  const auto type = c.declared_type(0);
  for (const char* table : {"nodes_splits", "leaf_weights", "nodes_hitrates", "membership_values"})
    if (const auto* a = c.attribute(table); a != nullptr && a->has_t() && type && element_of(a->t().data_type()) != type)
      c.bad(fmt::format("{} is not of its input's type ({})", table, name(*type)),
            "TreeEnsemble's tables are of its input's type");
  const auto x = c.need(0);
  std::int64_t widest = -1;
  for (const auto f : c.ints("nodes_featureids").value_or(std::vector<std::int64_t>{})) {
    expect_feature(c, f);
    widest = std::max(widest, f);
  }
  const auto wide = widened(c, per_row(c, tree_rows(c, widest)), targets, element_type::f32);
  ranked(c, 0, c.add("ConvertLike", 1, {wide, x}), 2);
}

/// ZipMap (1): a map of label to score for each row of [C] or [N, C] (float), as many labels as C: a sequence of
/// maps, which the rows stand for where the graph gives it out (lowering.hpp, held_values::maps).
void zip_map(node_context& c) {
  const bool ints = c.attribute("classlabels_int64s") != nullptr, strings = c.attribute("classlabels_strings") != nullptr;
  if (ints == strings)
    c.bad("it has both classlabels_int64s and classlabels_strings, or neither", "ZipMap's labels are one of them");
  const auto rows = model_rows(c);
  held_values maps;
  maps.maps = true;
  maps.type = element_type::f32;
  const auto labels = length_of(c, ints ? "classlabels_int64s" : "classlabels_strings");
  maps.items.push_back({exactly(c, rows, 1, c.i64({labels})), 2, nullptr, element_type::f32});
  c.output_held(0, std::move(maps));
}

/// A map graph input: a Parameter of no shape (read.cpp). Its element count, a 1-element i64 no rule knows. A
/// tensor (one the model declares, or a constant) is refused, as ONNX Runtime refuses it.
source map_size(node_context& c, source map) {
  if (c.declared_type(0) || c.rank(0))
    c.bad("its input is a tensor", fmt::format("{} takes a map (ONNX Runtime refuses a tensor)", c.node().op_type()));
  return c.add("ReduceProd", 1, {c.shape_of(map), c.i64({0})}, {{"keep_dims", "true"}});
}

/// CastMap (1): a map of int64 keys as [1, its size] (DENSE) or [1, max_map] (SPARSE), of `cast_to`'s type.
void cast_map(node_context& c) {
  const auto to = c.s("cast_to", "TO_FLOAT");
  const auto type = to == "TO_FLOAT" ? element_type::f32 : to == "TO_STRING" ? element_type::string : element_type::i64;
  if (to != "TO_FLOAT" && to != "TO_STRING" && to != "TO_INT64")
    c.bad(fmt::format("cast_to is '{}'", to), "cast_to is TO_FLOAT, TO_STRING or TO_INT64");
  const auto form = c.s("map_form", "DENSE");
  if (form != "DENSE" && form != "SPARSE") c.bad(fmt::format("map_form is '{}'", form), "map_form is DENSE or SPARSE");
  if (form == "SPARSE" && c.i("max_map", 1) < 1) c.bad(fmt::format("max_map is {}", c.i("max_map", 1)), "max_map is 1 or more");
  const auto map = c.need(0);
  const auto size = map_size(c, map);
  const auto length = form == "DENSE" ? size : c.i64({c.i("max_map", 1)});
  // [length], then [1, length]: a Concat of [1] and a length no rule knows would leave both unknown.
  const auto filled =
      c.add("Broadcast", 3, {c.add("ReduceSum", 1, {size, c.i64({0})}, {{"keep_dims", "false"}}), length}, {{"mode", "numpy"}});
  ranked(c, 0, unknown_values(c, c.add("Unsqueeze", 1, {filled, c.i64({0})}), type), 2);
}

/// DictVectorizer (1): a map as [1, V], V the vocabulary's length, of the map's value type (as the graph input
/// declares it; float where it declares none).
void dict_vectorizer(node_context& c) {
  const bool ints = c.attribute("int64_vocabulary") != nullptr, strings = c.attribute("string_vocabulary") != nullptr;
  if (ints == strings)
    c.bad("it has both int64_vocabulary and string_vocabulary, or neither", "DictVectorizer's vocabulary is one of them");
  const auto map = c.need(0);
  const auto shape = c.i64({1, length_of(c, ints ? "int64_vocabulary" : "string_vocabulary")});
  const auto filled =
      c.add("Broadcast", 3, {c.add("ReduceSum", 1, {map_size(c, map), c.i64({0})}, {{"keep_dims", "false"}}), shape},
            {{"mode", "numpy"}});
  ranked(c, 0, unknown_values(c, filled, c.map_value_type(0).value_or(element_type::f32)), 2);
}

/// FeatureVectorizer (1): each input's rows (everything past dimension 0, read flat; [C] as one row) cut or
/// padded with zeros to its `inputdimensions` length, joined: float [N, the lengths' sum]. ONNX Runtime fails when
/// it runs the node on inputs of different N, or a scalar.
void feature_vectorizer(node_context& c) {
  const auto widths = c.ints("inputdimensions");
  if (!widths) c.bad("it has no inputdimensions", "FeatureVectorizer needs the length of each input's rows");
  if (widths->size() != c.inputs())
    c.bad(fmt::format("it has {} inputs and {} inputdimensions", c.inputs(), widths->size()), "each input has one length");
  std::vector<source> parts;
  for (std::size_t k = 0; k < c.inputs(); ++k) {
    const auto x = c.need(k);
    expect_rank(c, k, x, 1, any_rank);
    const auto rows = as_rows(c, x);
    const auto flat = c.add("ReduceSum", 1, {as_f32(c, rows), c.axes_from(rows, 1)}, {{"keep_dims", "false"}});
    const auto row = c.add("Unsqueeze", 1, {flat, c.i64({-1})});
    if ((*widths)[k] < 0) c.bad(fmt::format("inputdimensions[{}] is {}", k, (*widths)[k]), "a length is 0 or more");
    parts.push_back(widened(c, row, (*widths)[k], element_type::f32));
  }
  ranked(c, 0, parts.size() == 1 ? parts.front() : c.add("Concat", 1, std::move(parts), {{"axis", "1"}}), 2);
}

/// The kind of value each attribute of the domain holds, as ONNX's schemas give it (TreeEnsemble-5 holds some as
/// tensors or integers that the older tree ops hold as lists or strings). ONNX Runtime refuses an attribute of
/// another kind when it loads the node ("Mismatched attribute type").
::onnx::AttributeProto::AttributeType kind_of(std::string_view op, std::string_view attribute) {
  using A = ::onnx::AttributeProto;
  static const std::map<std::string_view, A::AttributeType> kinds = {{"base_values", A::FLOATS},
                                                                     {"class_weights", A::FLOATS},
                                                                     {"coefficients", A::FLOATS},
                                                                     {"imputed_value_floats", A::FLOATS},
                                                                     {"intercepts", A::FLOATS},
                                                                     {"kernel_params", A::FLOATS},
                                                                     {"keys_floats", A::FLOATS},
                                                                     {"nodes_values", A::FLOATS},
                                                                     {"offset", A::FLOATS},
                                                                     {"prob_a", A::FLOATS},
                                                                     {"prob_b", A::FLOATS},
                                                                     {"rho", A::FLOATS},
                                                                     {"scale", A::FLOATS},
                                                                     {"support_vectors", A::FLOATS},
                                                                     {"target_weights", A::FLOATS},
                                                                     {"values_floats", A::FLOATS},
                                                                     {"cats_int64s", A::INTS},
                                                                     {"class_ids", A::INTS},
                                                                     {"class_nodeids", A::INTS},
                                                                     {"class_treeids", A::INTS},
                                                                     {"classlabels_int64s", A::INTS},
                                                                     {"classlabels_ints", A::INTS},
                                                                     {"imputed_value_int64s", A::INTS},
                                                                     {"inputdimensions", A::INTS},
                                                                     {"int64_vocabulary", A::INTS},
                                                                     {"keys_int64s", A::INTS},
                                                                     {"leaf_targetids", A::INTS},
                                                                     {"nodes_falseleafs", A::INTS},
                                                                     {"nodes_falsenodeids", A::INTS},
                                                                     {"nodes_featureids", A::INTS},
                                                                     {"nodes_missing_value_tracks_true", A::INTS},
                                                                     {"nodes_nodeids", A::INTS},
                                                                     {"nodes_treeids", A::INTS},
                                                                     {"nodes_trueleafs", A::INTS},
                                                                     {"nodes_truenodeids", A::INTS},
                                                                     {"target_ids", A::INTS},
                                                                     {"target_nodeids", A::INTS},
                                                                     {"target_treeids", A::INTS},
                                                                     {"tree_roots", A::INTS},
                                                                     {"values_int64s", A::INTS},
                                                                     {"vectors_per_class", A::INTS},
                                                                     {"cats_strings", A::STRINGS},
                                                                     {"classes_strings", A::STRINGS},
                                                                     {"classlabels_strings", A::STRINGS},
                                                                     {"keys_strings", A::STRINGS},
                                                                     {"string_vocabulary", A::STRINGS},
                                                                     {"values_strings", A::STRINGS},
                                                                     {"base_values_as_tensor", A::TENSOR},
                                                                     {"class_weights_as_tensor", A::TENSOR},
                                                                     {"default_tensor", A::TENSOR},
                                                                     {"keys_tensor", A::TENSOR},
                                                                     {"leaf_weights", A::TENSOR},
                                                                     {"membership_values", A::TENSOR},
                                                                     {"nodes_hitrates_as_tensor", A::TENSOR},
                                                                     {"nodes_splits", A::TENSOR},
                                                                     {"nodes_values_as_tensor", A::TENSOR},
                                                                     {"target_weights_as_tensor", A::TENSOR},
                                                                     {"values_tensor", A::TENSOR},
                                                                     {"default_float", A::FLOAT},
                                                                     {"replaced_value_float", A::FLOAT},
                                                                     {"threshold", A::FLOAT},
                                                                     {"default_int64", A::INT},
                                                                     {"max_map", A::INT},
                                                                     {"n_supports", A::INT},
                                                                     {"n_targets", A::INT},
                                                                     {"one_class", A::INT},
                                                                     {"replaced_value_int64", A::INT},
                                                                     {"targets", A::INT},
                                                                     {"zeros", A::INT},
                                                                     {"cast_to", A::STRING},
                                                                     {"default_string", A::STRING},
                                                                     {"kernel_type", A::STRING},
                                                                     {"map_form", A::STRING},
                                                                     {"multi_class", A::INT},
                                                                     {"norm", A::STRING}};
  const bool ensemble = op == "TreeEnsemble";
  if (attribute == "nodes_modes") return ensemble ? A::TENSOR : A::STRINGS;
  if (attribute == "nodes_hitrates") return ensemble ? A::TENSOR : A::FLOATS;
  if (attribute == "post_transform" || attribute == "aggregate_function") return ensemble ? A::INT : A::STRING;
  const auto it = kinds.find(attribute);
  return it == kinds.end() ? A::UNDEFINED : it->second;
}

/// A translation run after the node's attributes are held to their kinds.
template <translation f>
void kinds_checked(node_context& c) {
  for (const auto& a : c.node().attribute()) {
    const auto kind = kind_of(c.node().op_type(), a.name());
    if (kind != ::onnx::AttributeProto::UNDEFINED && a.type() != ::onnx::AttributeProto::UNDEFINED && a.type() != kind)
      c.bad(fmt::format("its attribute '{}' is of kind {}, where {} takes {}", a.name(),
                        ::onnx::AttributeProto::AttributeType_Name(a.type()), c.node().op_type(),
                        ::onnx::AttributeProto::AttributeType_Name(kind)),
            "ONNX Runtime refuses the node too");
  }
  f(c);
}

}  // namespace

std::optional<element_type> ml_output_type(const node_context& c, int k) {
  const auto& op = c.node().op_type();
  if (k == 0 && (op == "LinearClassifier" || op == "SVMClassifier"))
    return label_type(c, "classlabels_ints", "classlabels_strings");
  if (k == 0 && op == "TreeEnsembleClassifier") return label_type(c, "classlabels_int64s", "classlabels_strings", true);
  if (k == 0 && (op == "CategoryMapper" || (op == "LabelEncoder" && c.version() == 1))) return category_type(c);
  if (k == 0 && op == "LabelEncoder") return encoder_type(c, "values");
  if (k == 0 && op == "TreeEnsemble") return c.declared_type(0);
  return std::nullopt;
}

std::span<const onnx_entry> ml_rows() {
  static const std::vector<onnx_entry> rows = {
      {"ArrayFeatureExtractor", 1, kinds_checked<array_feature_extractor>, "ai.onnx.ml"},
      {"Binarizer", 1, kinds_checked<binarizer>, "ai.onnx.ml"},
      {"CastMap", 1, kinds_checked<cast_map>, "ai.onnx.ml"},
      {"CategoryMapper", 1, kinds_checked<category_mapper>, "ai.onnx.ml"},
      {"DictVectorizer", 1, kinds_checked<dict_vectorizer>, "ai.onnx.ml"},
      {"FeatureVectorizer", 1, kinds_checked<feature_vectorizer>, "ai.onnx.ml"},
      {"Imputer", 1, kinds_checked<imputer>, "ai.onnx.ml"},
      {"LabelEncoder", 1, kinds_checked<label_encoder>, "ai.onnx.ml"},
      {"LabelEncoder", 2, kinds_checked<label_encoder>, "ai.onnx.ml"},
      {"LabelEncoder", 4, kinds_checked<label_encoder>, "ai.onnx.ml"},
      {"LinearClassifier", 1, kinds_checked<linear_classifier>, "ai.onnx.ml"},
      {"LinearRegressor", 1, kinds_checked<linear_regressor>, "ai.onnx.ml"},
      {"Normalizer", 1, kinds_checked<normalizer>, "ai.onnx.ml"},
      {"OneHotEncoder", 1, kinds_checked<one_hot_encoder>, "ai.onnx.ml"},
      {"SVMClassifier", 1, kinds_checked<svm_classifier>, "ai.onnx.ml"},
      {"SVMRegressor", 1, kinds_checked<svm_regressor>, "ai.onnx.ml"},
      {"Scaler", 1, kinds_checked<scaler>, "ai.onnx.ml"},
      {"TreeEnsemble", 5, kinds_checked<tree_ensemble>, "ai.onnx.ml"},
      {"TreeEnsembleClassifier", 1, kinds_checked<tree_ensemble_classifier>, "ai.onnx.ml"},
      {"TreeEnsembleClassifier", 3, kinds_checked<tree_ensemble_classifier>, "ai.onnx.ml"},
      {"TreeEnsembleRegressor", 1, kinds_checked<tree_ensemble_regressor>, "ai.onnx.ml"},
      {"TreeEnsembleRegressor", 3, kinds_checked<tree_ensemble_regressor>, "ai.onnx.ml"},
      {"ZipMap", 1, kinds_checked<zip_map>, "ai.onnx.ml"},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
