"""Per-op truth for the ai.onnx.ml ops: ArrayFeatureExtractor, Binarizer, CategoryMapper, FeatureVectorizer, Imputer,
LabelEncoder (1, 2, 4), LinearClassifier, LinearRegressor, Normalizer, OneHotEncoder, SVMClassifier, SVMRegressor,
Scaler, TreeEnsembleClassifier and TreeEnsembleRegressor (1, 3) and TreeEnsemble (5). Loaded by op_truth.py's main()
(FAMILIES and KNOWN). Each case is one node of the domain ai.onnx.ml, read at an ai.onnx.ml import of 1 to 5 (the
number op_truth.py prints after the op's name), beside ai.onnx 17.

Left out: CastMap and DictVectorizer (their input is a map: onnxruntime-node feeds tensors only, and no ONNX op makes a
map from tensors, SequenceAt refusing ZipMap's seq(map)) and ZipMap (its output is a sequence of maps: ONNX Runtime
runs it, but onnxruntime-node cannot hand it back, "Non tensor type is temporarily not supported", and reshape1
answers tensor shapes only).

Inputs are fed by shapes.js: floats and doubles in [-2, 2), integers in [0, 7], strings of a few letters. No case
depends on those values (OneHotEncoder's zeros=0 is drawn only with categories that hold every value the feed can
give, or an empty input), so every refusal is one the shapes and attributes decide.

Each family's docstring says what it draws (valid), which invalid cases it makes and what ONNX Runtime 1.30 does
with them ("at load": InferenceSession.create refuses; "when run": session.run refuses). ONNX Runtime's refusals of
the kinds listed in KNOWN (an element type ONNX allows and ONNX Runtime has no kernel for) are not counted as
disagreements whatever reshape1 does. Never drawn: cases that stop ONNX Runtime's process (see ml_features and
ml_trees).
"""
from op_truth import Case, with_intent, flt, i, ints, shape, string, strings
from op_truth import DOUBLE, FLOAT, INT32, INT64, STRING

ML = "ai.onnx.ml"
DEFAULT_OPSET = 17  # the ai.onnx import beside ai.onnx.ml
INT16 = 5
POST = ["NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT"]


class MLCase(Case):
    """A single-node case of the domain ai.onnx.ml, imported at version `ml`, beside ai.onnx DEFAULT_OPSET."""

    def __init__(self, op, ml, inputs, attrs="", outputs=1):
        super().__init__(op, DEFAULT_OPSET, inputs, attrs, outputs, domain=ML, domain_version=ml)


def floats(name, values):
    return f'attribute {{ name: "{name}" type: FLOATS floats: {[round(float(v), 3) for v in values]} }} '


def tensor(name, elem_type, values):
    """A 1-D TENSOR attribute of `values` in the field of its type."""
    if elem_type == STRING:
        data = " ".join(f'string_data: "{v}"' for v in values)
    elif elem_type in (FLOAT, DOUBLE):
        data = f'{"float_data" if elem_type == FLOAT else "double_data"}: {[round(float(v), 3) for v in values]}'
    elif elem_type == INT64:
        data = f"int64_data: {[int(v) for v in values]}"
    else:  # int32, int16, uint8: int32_data
        data = f"int32_data: {[int(v) for v in values]}"
    return f'attribute {{ name: "{name}" type: TENSOR t {{ data_type: {elem_type} dims: {len(values)} {data} }} }} '


def typed(t, dims):
    return ("typed", t, dims)


def _ml(rng, versions, bad):
    """An ai.onnx.ml import among `versions`; 6 (which ONNX Runtime 1.30 refuses at load: "Current official support
    for domain ai.onnx.ml is till opset 5") when bad says "import"."""
    return 6 if bad == "import" else rng.choice(versions)


def _draw_bad(rng, rate, kinds):
    return rng.choice(kinds) if rng.random() < rate else None


# ---------------------------------------------------------------------------------------------------------- transforms

def ml_transforms(rng):
    """Binarizer (float, rank 0 to 3, X's shape), Imputer (float or int64 by imputed_value_floats or _int64s, rank 1
    to 3, imputed values of length 1, of the stride or of any other: all run), Scaler (float, double, int32 or int64,
    rank 1 to 3, to float; scale and offset of length 1 or of ONNX Runtime's stride, which is dims[1] at rank 2 and
    above, dims[0] at rank 1) and Normalizer (float, double, int32 or int64, rank 1 or 2, to float; norm MAX, L1, L2 or
    none). Invalid: an ai.onnx.ml import of 6 (refused at load); Imputer of rank 0 (when run: "Empty input
    dimensions."), with both kinds of imputed values (at load) or with the kind X is not (when run: "Empty value of
    imputed values."); Scaler of rank 0 (when run), with scale and offset of other lengths (at load), or of the last
    axis' length where it is not dims[1], or of another length (when run: "Either both scale and offset can be of
    feature size (S) or 1"); Normalizer of rank 0 or 3 (when run) or an unknown norm (at load); Binarizer of double,
    int32 or int64, which ONNX allows and ONNX Runtime has no kernel for (at load: KNOWN)."""
    op = rng.choice(["Binarizer", "Imputer", "Scaler", "Normalizer"])
    if op == "Binarizer":
        bad = _draw_bad(rng, 0.1, ["import", "type"])
        s = shape(rng, rng.randint(0, 3), zero=0.08)
        t = rng.choice([DOUBLE, INT32, INT64]) if bad == "type" else FLOAT
        attrs = flt("threshold", rng.choice([-1.0, 0.0, 0.5])) if rng.random() < 0.6 else ""
        return with_intent(MLCase(op, _ml(rng, [1, 2, 3, 4, 5], bad), [typed(t, s)], attrs), bad)
    if op == "Imputer":
        bad = _draw_bad(rng, 0.15, ["import", "rank", "both", "kind"])
        s = shape(rng, 0 if bad == "rank" else rng.randint(1, 3), zero=0.08)
        t = rng.choice([FLOAT, INT64])
        stride = (s[0] if len(s) == 1 else s[1]) if s else 1
        n = rng.choice([1, 1, max(stride, 1), rng.randint(1, 5)])
        kind = t if bad != "kind" else (INT64 if t == FLOAT else FLOAT)
        if kind == FLOAT:
            attrs = floats("imputed_value_floats", [rng.uniform(-2, 2) for _ in range(n)])
            attrs += flt("replaced_value_float", rng.choice([0.0, 1.0, -1.5])) if rng.random() < 0.8 else ""
        else:
            attrs = ints("imputed_value_int64s", [rng.randint(-3, 9) for _ in range(n)])
            attrs += i("replaced_value_int64", rng.randint(0, 7)) if rng.random() < 0.8 else ""
        if bad == "both":
            attrs += (ints("imputed_value_int64s", [1]) if kind == FLOAT else floats("imputed_value_floats", [1.0]))
        return with_intent(MLCase(op, _ml(rng, [1, 2, 3, 4, 5], bad), [typed(t, s)], attrs), bad)
    if op == "Scaler":
        bad = _draw_bad(rng, 0.18, ["import", "rank", "offset", "last", "length"])
        s = shape(rng, 0 if bad == "rank" else rng.randint(1, 3), zero=0.08)
        t = rng.choice([FLOAT, FLOAT, DOUBLE, INT32, INT64])
        stride = (s[0] if len(s) == 1 else s[1]) if s else 1
        n = rng.choice([1, stride]) if stride else 1
        if bad == "last" and len(s) >= 2 and s[-1] not in (1, s[1]):
            n = s[-1]
        elif bad == "length" and stride != 2:
            n = 2
        elif bad in ("last", "length"):
            bad = None  # no length of the kind is wrong here: a valid case
        m = n + 1 if bad == "offset" else n
        attrs = floats("scale", [rng.uniform(0.5, 2) for _ in range(n)])
        attrs += floats("offset", [rng.uniform(-1, 1) for _ in range(m)])
        return with_intent(MLCase(op, _ml(rng, [1, 2, 3, 4, 5], bad), [typed(t, s)], attrs), bad)
    bad = _draw_bad(rng, 0.15, ["import", "rank", "norm"])
    s = shape(rng, rng.choice([0, 3]) if bad == "rank" else rng.randint(1, 2), zero=0.08)
    t = rng.choice([FLOAT, FLOAT, DOUBLE, INT32, INT64])
    attrs = ""
    if rng.random() < 0.8 or bad == "norm":
        attrs = string("norm", "L3" if bad == "norm" else rng.choice(["MAX", "L1", "L2"]))
    return with_intent(MLCase(op, _ml(rng, [1, 2, 3, 4, 5], bad), [typed(t, s)], attrs), bad)


# ------------------------------------------------------------------------------------------------------------ encoders

def _words(rng, n):
    return rng.sample(["a", "b", "ab", "c", "ba", "", " ", "a,b", "cc", "abc"], n)


def _keys(rng, kind, n):
    if kind == STRING:
        return _words(rng, n)
    if kind == INT64:
        return rng.sample(range(-2, 10), n)
    return rng.sample([-1.5, -1.0, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0], n)


KEY_FIELDS = {STRING: "strings", INT64: "int64s", FLOAT: "floats"}


def _list_attr(name, kind, values):
    if kind == STRING:
        return strings(name, values)
    if kind == INT64:
        return ints(name, values)
    return floats(name, values)


def ml_encoders(rng):
    """CategoryMapper (string to int64 or int64 to string, X's shape, rank 0 to 3), LabelEncoder 1 (at import 1:
    classes_strings, string to int64 or back), 2 (at import 2 or 3: keys and values of strings, int64s or floats, the
    input of the keys' type, the output of the values') and 4 (at import 4 or 5: the same, or keys_tensor / values_tensor
    of double, int64 or string, values int16 with string keys (ONNX Runtime has no kernel for int16 values of other
    keys, nor for double keys to float values), default_tensor sometimes), all X's shape at rank 0 to 3, and
    OneHotEncoder (int64, float, double or string X, rank 0 to 3, categories of X's kind, 1 to 6 with repeats: X's shape
    and [K]; zeros=0 only where no value can miss). Invalid: an import of 6 (at load); CategoryMapper's cats of other
    lengths, or a float X (at load); LabelEncoder without classes_strings at 1, keys_* at import 1, keys and values of
    other lengths, an X not of the keys' type, a default_tensor of 2 values (all at load); OneHotEncoder with both kinds
    of categories or none (at load), or of int32, which ONNX allows and ONNX Runtime has no kernel for (KNOWN)."""
    op = rng.choice(["CategoryMapper", "LabelEncoder", "LabelEncoder", "OneHotEncoder"])
    s = shape(rng, rng.randint(0, 3), zero=0.08)
    if op == "CategoryMapper":
        bad = _draw_bad(rng, 0.12, ["import", "lengths", "type"])
        n = rng.randint(1, 5)
        attrs = strings("cats_strings", _words(rng, n)) + ints("cats_int64s", rng.sample(range(10), n + (bad == "lengths")))
        if rng.random() < 0.4:
            attrs += string("default_string", "zz") + i("default_int64", rng.randint(-3, 3))
        t = FLOAT if bad == "type" else rng.choice([STRING, INT64])
        return with_intent(MLCase(op, _ml(rng, [1, 2, 3, 4, 5], bad), [typed(t, s)], attrs), bad)
    if op == "LabelEncoder":
        version = rng.choice([1, 2, 4])
        if version == 1:
            bad = _draw_bad(rng, 0.12, ["import", "classes", "keys"])
            t = rng.choice([STRING, INT64])
            attrs = "" if bad == "classes" else strings("classes_strings", _words(rng, rng.randint(1, 5)))
            if bad == "keys":
                attrs += strings("keys_strings", ["a"]) + ints("values_int64s", [1])
            if rng.random() < 0.4:
                attrs += string("default_string", "zz") + i("default_int64", 7)
            return with_intent(MLCase(op, _ml(rng, [1], bad), [typed(t, s)], attrs), bad)
        bad = _draw_bad(rng, 0.15, ["import", "lengths", "type"] + (["default"] if version == 4 else []))
        n = rng.randint(1, 5)
        key_kind = rng.choice([STRING, INT64, FLOAT])
        value_kind = rng.choice([STRING, INT64, FLOAT])
        x_type = key_kind
        keys = _keys(rng, key_kind, n)
        values = _keys(rng, value_kind, rng.randint(1, 5) if bad == "lengths" else n)
        if bad == "lengths" and len(values) == n:
            values = values[:-1] if n > 1 else values * 2
        if version == 4 and rng.random() < 0.4:
            # Tensors: keys double, int64 or string, values among those ONNX Runtime has a kernel for with them
            # (int16 values with string keys only; double keys to double, int64 or string).
            key_t = rng.choice([DOUBLE, INT64, STRING])
            value_t = rng.choice({DOUBLE: [DOUBLE, INT64, STRING], INT64: [DOUBLE, INT64, STRING],
                                  STRING: [DOUBLE, INT64, STRING, INT16]}[key_t])
            keys = _keys(rng, {DOUBLE: FLOAT}.get(key_t, key_t), n)
            values = _keys(rng, {DOUBLE: FLOAT, INT16: INT64}.get(value_t, value_t), len(values))
            attrs = tensor("keys_tensor", key_t, keys) + tensor("values_tensor", value_t, values)
            x_type = key_t
            default_t = value_t
        else:
            attrs = (_list_attr(f"keys_{KEY_FIELDS[key_kind]}", key_kind, keys)
                     + _list_attr(f"values_{KEY_FIELDS[value_kind]}", value_kind, values))
            default_t = value_kind
            if rng.random() < 0.3:
                attrs += {STRING: string("default_string", "zz"), INT64: i("default_int64", 9),
                          FLOAT: flt("default_float", 0.5)}[value_kind]
        if version == 4 and (bad == "default" or rng.random() < 0.2):
            default = {STRING: ["dflt"], FLOAT: [0.5], DOUBLE: [0.5], INT64: [3], INT16: [3]}[default_t]
            attrs += tensor("default_tensor", default_t, default * (2 if bad == "default" else 1))
        if bad == "type":
            x_type = rng.choice([t for t in (STRING, INT64, FLOAT) if t != x_type])
        return with_intent(MLCase(op, _ml(rng, [2, 3] if version == 2 else [4, 5], bad), [typed(x_type, s)], attrs), bad)
    bad = _draw_bad(rng, 0.12, ["import", "both", "none", "type"])
    t = INT32 if bad == "type" else rng.choice([INT64, INT64, FLOAT, DOUBLE, STRING])
    zeros = rng.random() < 0.3
    if t == STRING:
        cats = [rng.choice(["a", "b", "ab", "c", ""]) for _ in range(rng.randint(1, 6))]
        attrs = strings("cats_strings", cats)
        zeros = zeros and 0 in s  # no string feed can be sure to hit a category
        other = ints("cats_int64s", [1])
    else:
        # The values the feed can give: int64/int32 in [0, 7]; floats and doubles in [-2, 2), cast to -2..1.
        every = list(range(0, 8)) if t in (INT64, INT32) else list(range(-2, 2))
        cats = every + rng.sample(range(-3, 10), rng.randint(0, 2)) if zeros else \
            [rng.randint(-2, 8) for _ in range(rng.randint(1, 6))]
        attrs = ints("cats_int64s", cats)
        other = strings("cats_strings", ["a"])
    if bad == "both":
        attrs += other
    elif bad == "none":
        attrs = ""
    if zeros:
        attrs += i("zeros", 0)
    elif rng.random() < 0.3:
        attrs += i("zeros", 1)
    return with_intent(MLCase("OneHotEncoder", _ml(rng, [1, 2, 3, 4, 5], bad), [typed(t, s)], attrs), bad)


# ------------------------------------------------------------------------------------------------------------ features

def ml_features(rng):
    """ArrayFeatureExtractor (X float, double, int32, int64 or string of rank 1 to 3; indices an int64 initializer of
    rank 0 to 2 in [0, C), C X's last axis: X's shape with the last axis the indices' count, [1, K] for a 1-D X) and
    FeatureVectorizer (1 to 3 inputs of one type among int32, int64, float, double, rank 1 to 3, of one batch N (dim
    0; rank 1 counts as N = 1), inputdimensions 0 to 6 each: [N, their sum]). Invalid: an import of 6 (at load);
    ArrayFeatureExtractor of rank 0, an index of C or -1 (every index when C is 0) or no index (when run);
    FeatureVectorizer with another count of inputdimensions than inputs or inputs of other batches (when run),
    inputs of two types (at load), a rank-0 input (when run). An empty batch (N = 0) is drawn with one input only: with
    two or more, ONNX Runtime's process stops ("terminate called without an active exception")."""
    if rng.random() < 0.5:
        bad = _draw_bad(rng, 0.15, ["import", "rank", "index", "empty"])
        s = shape(rng, 0 if bad == "rank" else rng.randint(1, 3), zero=0.08)
        c = s[-1] if s else 1
        t = rng.choice([FLOAT, FLOAT, DOUBLE, INT32, INT64, STRING])
        idims = rng.choice([[], [rng.randint(1, 4)], [rng.randint(1, 2), rng.randint(1, 3)]])
        count = 1
        for d in idims:
            count *= d
        if bad == "empty":
            idims, count = [0], 0
        values = [rng.randrange(c) if c else 0 for _ in range(count)]
        if c == 0 and not bad:
            bad = "zero"  # every index is out of range of an empty last axis (when run)
        if bad == "index" and values:
            values[rng.randrange(count)] = rng.choice([c, -1])
        return with_intent(MLCase("ArrayFeatureExtractor", _ml(rng, [1, 2, 3, 4, 5], bad),
                                  [typed(t, s), ("ints", values, idims)]), bad)
    bad = _draw_bad(rng, 0.15, ["import", "count", "batch", "types", "rank"])
    t = rng.choice([FLOAT, FLOAT, DOUBLE, INT32, INT64])
    k = rng.randint(1, 3)
    # An empty batch (N = 0) with two inputs or more stops ONNX Runtime's process ("terminate called without an
    # active exception": its output iterator passes the end): N = 0 is drawn with one input only.
    n = 0 if rng.random() < 0.06 and k == 1 and bad not in ("count", "batch", "types") else rng.randint(1, 3)
    inputs = []
    for j in range(k):
        rank = rng.randint(1, 3) if n == 1 else rng.randint(2, 3)
        dims = [n] + [rng.randint(0 if rng.random() < 0.08 else 1, 4) for _ in range(rank - 1)]
        if rank == 1:
            dims = [rng.randint(1, 4)]
        inputs.append(dims)
    if bad == "batch":
        j = rng.randrange(k)
        inputs[j] = [n + 1] + inputs[j][1:] if len(inputs[j]) > 1 else [2, inputs[j][0]]
        if k == 1:
            inputs.append([n + 2, 2])
    elif bad == "rank":
        inputs[rng.randrange(len(inputs))] = []
    types = [t] * len(inputs)
    if bad == "types" and len(inputs) > 1:
        types[-1] = rng.choice([x for x in (FLOAT, DOUBLE, INT32, INT64) if x != t])
    elif bad == "types":
        inputs.append(list(inputs[0]))
        types.append(rng.choice([x for x in (FLOAT, DOUBLE, INT32, INT64) if x != t]))
    dims = [rng.randint(0, 6) for _ in range(len(inputs) + (rng.choice([-1, 1]) if bad == "count" else 0))]
    if not dims:
        dims = [2, 2]
    return with_intent(MLCase("FeatureVectorizer", _ml(rng, [1, 2, 3, 4, 5], bad),
                              [typed(tt, d) for tt, d in zip(types, inputs)], ints("inputdimensions", dims)), bad)


# -------------------------------------------------------------------------------------------------------------- linear

def _labels(rng, count, use_strings):
    if use_strings:
        return strings("classlabels_strings", [f"c{k}" for k in range(count)])
    return ints("classlabels_ints", rng.sample(range(-3, 20), count))


def ml_linear(rng):
    """LinearClassifier (X float, double, int32 or int64 of [C] or [N, C]; E classes by its intercepts, 1 to 4, labels
    int64 or string of that count, or two with one intercept (binary: scores [N, 2]), or none with one intercept;
    coefficients E * F with F >= C; post_transform and multi_class drawn: labels [N] and scores [N, E], [1] and [1, E]
    for a 1-D X) and LinearRegressor (X float of [C] or [N, C]; targets 1 to 3 or none; coefficients T * F, F >= C;
    intercepts of T values or not: [N, T]). Invalid: an import of 6 (at load); LinearClassifier of rank 0 or 3 (at
    load, ONNX's inference), coefficients that are no multiple of E, more intercepts than labels, one intercept and 3
    labels, both kinds of labels, an unknown post_transform, no intercepts (all at load), F < C (when run:
    "coefficients size (9) is less than class_count (3) * num_features (4)"); LinearRegressor of rank 0 or 3, F < C
    (when run), targets 0 or an unknown post_transform (at load), or of double, int32 or int64, which ONNX allows and
    ONNX Runtime has no kernel for (KNOWN)."""
    if rng.random() < 0.55:
        bad = _draw_bad(rng, 0.2, ["import", "rank", "multiple", "intercepts", "binary", "both", "post", "none",
                                   "features"])
        s = shape(rng, rng.choice([0, 3]) if bad == "rank" else rng.randint(1, 2), zero=0.08)
        c = s[-1] if s else 1
        t = rng.choice([FLOAT, FLOAT, DOUBLE, INT32, INT64])
        e = rng.randint(2, 4) if bad == "multiple" else rng.randint(1, 4)  # any count is a multiple of 1
        f = max(c + (rng.randint(1, 2) if rng.random() < 0.3 else 0), 1)
        if bad == "features":
            f = c - 1 if c > 1 else f
            if c <= 1:
                s, c = (s[:-1] + [f + 1]) if s else [f + 1], f + 1
        use_strings = rng.random() < 0.4
        if bad == "binary":
            e = 1
        if e == 1:
            labels = 3 if bad == "binary" else rng.choice([2, 2, 0])  # two labels, or none (labels 0 and 1)
        else:
            labels = e + (1 if rng.random() < 0.2 else 0)  # more labels than intercepts run (E: the intercepts)
        if bad == "both" and not labels:
            labels = 2
        no_intercepts = bad == "none" and rng.random() < 0.5
        if bad == "none" and not no_intercepts:
            e, labels = max(e, 2), 0  # several classes and no labels
        if bad == "intercepts":
            e = max(labels, 1) + 1
        attrs = floats("coefficients", [rng.uniform(-1, 1) for _ in range(e * f + (1 if bad == "multiple" else 0))])
        if not no_intercepts:
            attrs += floats("intercepts", [rng.uniform(-1, 1) for _ in range(e)])
        if labels:
            attrs += _labels(rng, labels, use_strings)
        if bad == "both":
            attrs += _labels(rng, max(labels, 2), not use_strings)
        if rng.random() < 0.5 or bad == "post":
            attrs += string("post_transform", "SIGMOID" if bad == "post" else rng.choice(POST))
        if rng.random() < 0.3:
            attrs += i("multi_class", rng.randint(0, 1))
        return with_intent(MLCase("LinearClassifier", _ml(rng, [1, 2, 3, 4, 5], bad), [typed(t, s)], attrs, outputs=2), bad)
    bad = _draw_bad(rng, 0.15, ["import", "rank", "features", "targets", "post", "type"])
    s = shape(rng, rng.choice([0, 3]) if bad == "rank" else rng.randint(1, 2), zero=0.08)
    c = s[-1] if s else 1
    t = rng.choice([DOUBLE, INT32, INT64]) if bad == "type" else FLOAT
    targets = rng.randint(1, 3)
    f = max(c + (rng.randint(1, 2) if rng.random() < 0.3 else 0), 1)
    if bad == "features" and c > 1:
        f = c - 1
    elif bad == "features":
        s, f = (s[:-1] if s else []) + [3], 2
    attrs = floats("coefficients", [rng.uniform(-1, 1) for _ in range(targets * f)])
    if bad == "targets":
        attrs += i("targets", 0)
    elif targets > 1 or rng.random() < 0.5:
        attrs += i("targets", targets)
    if rng.random() < 0.5:
        attrs += floats("intercepts", [rng.uniform(-1, 1) for _ in range(rng.choice([targets, targets, 1, 3]))])
    if rng.random() < 0.4 or bad == "post":
        attrs += string("post_transform", "SIGMOID" if bad == "post" else rng.choice(POST))
    return with_intent(MLCase("LinearRegressor", _ml(rng, [1, 2, 3, 4, 5], bad), [typed(t, s)], attrs), bad)


# ----------------------------------------------------------------------------------------------------------------- svm

KERNELS = ["LINEAR", "POLY", "RBF", "SIGMOID"]


def _kernel(rng, bad):
    attrs = string("kernel_type", rng.choice(KERNELS)) if rng.random() < 0.8 else ""
    if bad == "params":
        return attrs + (floats("kernel_params", [0.1]) if rng.random() < 0.5 else "")
    return attrs + floats("kernel_params", [rng.choice([0.1, 0.5]), rng.choice([0.0, 1.0]), rng.choice([1.0, 2.0, 3.0])])


def ml_svm(rng):
    """SVMClassifier (X float, double, int32 or int64 of [C] or [N, C]; K labels, int64 or string: SVC mode with 1 or 2
    support vectors per class, K 2 to 4, coefficients (K-1)V, rho K(K-1)/2, prob_a and prob_b sometimes; or linear
    mode, K 1 to 4, coefficients K * C, rho 1; kernel_params of 3 values, kernel_type and post_transform drawn: labels
    [N] and scores [N, E], E = K with probabilities or in linear mode, else 2 for K = 2 and K(K-1)/2 above) and
    SVMRegressor (X float of [C] or [N, C]; n_supports 0 (linear: coefficients C) to 3, support vectors of C values,
    coefficients n_supports; one_class sometimes: [N, 1]). Invalid: an import of 6 (at load); rank 0 or 3, or C other
    than the support vectors' (or linear coefficients') length (when run: "Invalid input for SVMClassifier: expected
    feature_count=4, actual num_features=3..."); kernel_params absent or of 1 value, vectors_per_class of another count
    than the labels, too few coefficients or rho, support vectors not a multiple of their count (all at load);
    SVMRegressor of double, int32 or int64 (no kernel: KNOWN)."""
    if rng.random() < 0.6:
        bad = _draw_bad(rng, 0.2, ["import", "rank", "features", "params", "vectors", "coefficients", "rho",
                                   "support"])
        linear = rng.random() < 0.35 and bad not in ("vectors", "coefficients", "rho", "support")
        s = shape(rng, rng.choice([0, 3]) if bad == "rank" else rng.randint(1, 2), zero=0.06)
        c = s[-1] if s else 2
        f = c + (rng.choice([-1, 1]) if c > 1 else 1) if bad == "features" else c
        t = rng.choice([FLOAT, FLOAT, DOUBLE, INT32, INT64])
        k = rng.randint(1, 4) if linear else rng.randint(2, 4)
        if c == 0 and linear and k == 1 and not bad:
            # C = 0 in linear mode: 1 coefficient, which ONNX Runtime reads as 1 // K features (when run, for K = 1)
            bad = "zero"
        attrs = _kernel(rng, bad)
        if linear:
            attrs += floats("coefficients", [rng.uniform(-1, 1) for _ in range(max(k * f, 1))])
            attrs += floats("rho", [0.1])
        else:
            per_class = [rng.randint(1, 2) for _ in range(k)]
            v = sum(per_class)
            attrs += ints("vectors_per_class", per_class + ([1] if bad == "vectors" else []))
            attrs += floats("support_vectors", [rng.uniform(-1, 1) for _ in range(v * f + (1 if bad == "support" else 0))])
            attrs += floats("coefficients", [rng.uniform(-1, 1) for _ in range((k - 1) * v - (1 if bad == "coefficients" else 0))])
            attrs += floats("rho", [0.1] * (k * (k - 1) // 2 - (1 if bad == "rho" else 0)))
            if rng.random() < 0.4:
                pairs = k * (k - 1) // 2
                attrs += floats("prob_a", [1.0] * pairs) + floats("prob_b", [0.5] * pairs)
        attrs += _labels(rng, k, rng.random() < 0.4)
        if rng.random() < 0.4:
            attrs += string("post_transform", rng.choice(POST))
        return with_intent(MLCase("SVMClassifier", _ml(rng, [1, 2, 3, 4, 5], bad), [typed(t, s)], attrs, outputs=2), bad)
    bad = _draw_bad(rng, 0.2, ["import", "rank", "features", "params", "coefficients", "rho", "support", "type"])
    s = shape(rng, rng.choice([0, 3]) if bad == "rank" else rng.randint(1, 2), zero=0.06)
    c = s[-1] if s else 2
    f = c + (rng.choice([-1, 1]) if c > 1 else 1) if bad == "features" else c
    t = rng.choice([DOUBLE, INT32, INT64]) if bad == "type" else FLOAT
    v = rng.randint(0, 3)
    if bad in ("coefficients", "support") and v == 0:
        v = 2
    if c == 0 and not bad:
        bad = "zero"  # no support vector values (at load), or linear coefficients of 1 value for 0 features (when run)
    attrs = _kernel(rng, bad) + i("n_supports", v)
    if v:
        attrs += floats("support_vectors", [rng.uniform(-1, 1) for _ in range(v * f + (1 if bad == "support" else 0))])
        attrs += floats("coefficients", [rng.uniform(-1, 1) for _ in range(v - (1 if bad == "coefficients" else 0))])
    else:
        attrs += floats("coefficients", [rng.uniform(-1, 1) for _ in range(max(f, 1))])
    if bad != "rho":
        attrs += floats("rho", [0.2])
    if rng.random() < 0.3:
        attrs += i("one_class", 1)
    if rng.random() < 0.3:
        attrs += string("post_transform", rng.choice(POST))
    return with_intent(MLCase("SVMRegressor", _ml(rng, [1, 2, 3, 4, 5], bad), [typed(t, s)], attrs), bad)


# --------------------------------------------------------------------------------------------------------------- trees

MODES = ["BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ"]


def _forest(rng, c, trees):
    """Nodes of `trees` random trees of depth up to 3 over features [0, c): rows [tree, node, feature, value, mode,
    true, false] (leaves: LEAF, children 0)."""
    rows = []
    for tree in range(trees):
        count = [0]

        def build(depth):
            node = count[0]
            count[0] += 1
            if depth == 0 or (node and rng.random() < 0.35):
                rows.append([tree, node, 0, 0.0, "LEAF", 0, 0])
                return node
            row = [tree, node, rng.randrange(c) if c else 0, round(rng.uniform(-2, 2), 2), rng.choice(MODES), 0, 0]
            rows.append(row)
            row[5] = build(depth - 1)
            row[6] = build(depth - 1)
            return node

        build(rng.randint(1, 3))
    return rows


def ml_trees(rng):
    """TreeEnsembleRegressor and TreeEnsembleClassifier (version 1 at imports 1-2, 3 at 3-4; X of [C] or [N, C], float
    or double, the classifier int32 and int64 too; 1 to 3 random trees of depth up to 3 over features [0, C); regressor:
    n_targets 1 to 3, 1 or 2 weights a leaf: [N, n_targets]; classifier: K int64 labels (1 to 4) or string labels (2 to
    4), class ids in [0, K): labels [N], scores [N, K]; aggregate_function, post_transform, base_values drawn) and
    TreeEnsemble (import 5; X float or double [N, C]; the same trees with leaves as their own list, splits and weights
    tensors of X's type: [N, n_targets]). Invalid: rank 0 or 3 (when run; TreeEnsemble's rank 1 or 3 at load), a
    target or class id of the count (at load: "At least one value (5) in target/class ids is greater or equal to the
    target/class count (2)."), a feature id past C (when run: "One path in the graph requests feature 7 but input
    tensor has 3 features."; so every C = 0 with a branch), a nodes_* attribute one short, base_values of count + 1
    (ONNX Runtime takes 2 for a classifier of 1 class), an unknown node mode, import 5 for the old trees or 4 for
    TreeEnsemble, import 6 (all at load), TreeEnsemble's tree_roots out of range or splits of another type than X (at
    load). ONNX Runtime's quirks the draws follow: version 3 refuses a 1-D X at load (ONNX's inference wants rank 2:
    drawn one time in five, as invalid); version 1 reads a 1-D X [C] as one row of ONE feature, so its trees branch on
    feature 0 (a feature id above 0 is refused when run). Never drawn: a 1-D X of 0 values with version 1 (ONNX
    Runtime's process dies, SIGSEGV), a TreeEnsembleClassifier with one string label (it aborts: an assertion of
    std::vector::operator[]), TreeEnsemble's BRANCH_MEMBER."""
    which = rng.choice(["TreeEnsembleRegressor", "TreeEnsembleClassifier", "TreeEnsemble"])
    if which == "TreeEnsemble":
        return _tree5(rng)
    classifier = which == "TreeEnsembleClassifier"
    bad = _draw_bad(rng, 0.2, ["import", "rank", "target", "feature", "length", "base", "mode", "deprecated"])
    version = rng.choice([1, 3])
    rank = rng.choice([0, 3]) if bad == "rank" else (rng.randint(1, 2) if version == 1 else rng.choice([1, 2, 2, 2, 2]))
    if version == 3 and rank == 1 and not bad:
        bad = "rank1"  # version 3 takes [N, C] only (at load, ONNX's inference)
    # A 1-D X of 0 values stops ONNX Runtime's process (SIGSEGV, version 1) where a tree branches: never drawn.
    s = [rng.randint(1, 5)] if rank == 1 else shape(rng, rank, zero=0.06)
    # Version 1 reads a 1-D X [C] as one row of ONE feature (a feature id above 0: "One path in the graph requests
    # feature 2 but input tensor has 1 features." when run): its trees branch on feature 0 only.
    c = 1 if rank == 1 else (s[-1] if s else 2)
    ml = 5 if bad == "deprecated" else _ml(rng, [1, 2] if version == 1 else [3, 4], bad)
    if classifier:
        t = rng.choice([FLOAT, FLOAT, DOUBLE, INT32, INT64])
    else:
        t = rng.choice([FLOAT, FLOAT, DOUBLE])
    rows = _forest(rng, c, rng.randint(1, 3))
    branches = [r for r in rows if r[4] != "LEAF"]
    if bad == "feature" and branches:
        rng.choice(branches)[2] = c + rng.randint(0, 2)
    elif c == 0 and branches and not bad:
        bad = "zero"  # a branch reads feature 0 of none (when run)
    if bad == "mode":
        rng.choice(rows)[4] = "BRANCH_FOO"
    columns = list(zip(*rows))
    names = ["nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_values", "nodes_modes",
             "nodes_truenodeids", "nodes_falsenodeids"]
    short = rng.choice([0, 1, 2, 3, 4, 5, 6]) if bad == "length" else None
    attrs = ""
    for k, (name, column) in enumerate(zip(names, columns)):
        column = list(column)[:-1] if k == short else list(column)
        if not column:
            continue
        if name == "nodes_values":
            if version == 3 and rng.random() < 0.3 and t in (FLOAT, DOUBLE):
                attrs += tensor("nodes_values_as_tensor", t, column)
            else:
                attrs += floats(name, column)
        elif name == "nodes_modes":
            attrs += strings(name, column)
        else:
            attrs += ints(name, column)
    if classifier:
        use_strings = rng.random() < 0.4
        count = rng.randint(2, 4) if use_strings else rng.randint(1, 4)
    else:
        count = rng.randint(1, 3)
    leaves = [r for r in rows if r[4] == "LEAF"]
    targets = []
    for r in leaves:
        for _ in range(rng.randint(1, 2)):
            targets.append((r[0], r[1], rng.randrange(count), round(rng.uniform(-1, 1), 2)))
    if bad == "target":
        j = rng.randrange(len(targets))
        targets[j] = targets[j][:2] + (count,) + targets[j][3:]
    prefix = "class" if classifier else "target"
    tree_ids, node_ids, ids, weights = (list(x) for x in zip(*targets))
    attrs += ints(f"{prefix}_treeids", tree_ids) + ints(f"{prefix}_nodeids", node_ids) + ints(f"{prefix}_ids", ids)
    if version == 3 and rng.random() < 0.3 and t in (FLOAT, DOUBLE):
        attrs += tensor(f"{prefix}_weights_as_tensor", t, weights)
    else:
        attrs += floats(f"{prefix}_weights", weights)
    if classifier:
        attrs += (strings("classlabels_strings", [f"k{j}" for j in range(count)]) if use_strings
                  else ints("classlabels_int64s", rng.sample(range(-2, 20), count)))
    else:
        attrs += i("n_targets", count)
    if bad == "base" or rng.random() < 0.3:  # one a target or class (at load: "base_values should have 0 or 3 values.")
        # A classifier of 1 class takes 2 (ONNX Runtime's binary case): 3 are refused.
        extra = (2 if classifier and count == 1 else 1) if bad == "base" else 0
        attrs += floats("base_values", [0.1 * j for j in range(count + extra)])
    if rng.random() < 0.4:
        attrs += string("post_transform", rng.choice(POST))
    if rng.random() < 0.3 and not classifier:
        attrs += string("aggregate_function", rng.choice(["SUM", "AVERAGE", "MIN", "MAX"]))
    return with_intent(MLCase(which, ml, [typed(t, s)], attrs, outputs=2 if classifier else 1), bad)


def _tree5(rng):
    bad = _draw_bad(rng, 0.2, ["import", "version", "rank", "target", "feature", "modes", "roots", "type"])
    s = shape(rng, rng.choice([1, 3]) if bad == "rank" else 2, zero=0.06)
    c = s[-1] if len(s) > 1 else (s[0] if s else 2)
    t = rng.choice([FLOAT, DOUBLE])
    n_targets = rng.randint(1, 3)
    nodes = []  # [feature, split, mode, true, trueleaf, false, falseleaf]
    leaves = []  # [target, weight]
    roots = []

    def build(depth, root=False):
        if not root and (depth == 0 or rng.random() < 0.35):
            leaves.append([rng.randrange(n_targets), round(rng.uniform(-1, 1), 2)])
            return len(leaves) - 1, 1
        node = [rng.randrange(c) if c else 0, round(rng.uniform(-2, 2), 2), rng.randint(0, 5), 0, 0, 0, 0]
        nodes.append(node)
        index = len(nodes) - 1
        node[3], node[4] = build(depth - 1)
        node[5], node[6] = build(depth - 1)
        return index, 0

    for _ in range(rng.randint(1, 3)):
        roots.append(build(rng.randint(1, 3), root=True)[0])
    if c == 0 and not bad:
        bad = "zero"  # every tree branches on feature 0 of none (when run)
    if bad == "target":
        rng.choice(leaves)[0] = n_targets
    if bad == "feature":
        rng.choice(nodes)[0] = c + rng.randint(0, 2)
    if bad == "roots":
        roots[rng.randrange(len(roots))] = len(nodes) + rng.randint(0, 2)
    columns = [list(x) for x in zip(*nodes)]
    modes = columns[2] + ([0] if bad == "modes" else [])
    split_t = (DOUBLE if t == FLOAT else FLOAT) if bad == "type" else t
    attrs = (ints("nodes_featureids", columns[0]) + tensor("nodes_splits", split_t, columns[1])
             + tensor("nodes_modes", 2, modes) + ints("nodes_truenodeids", columns[3])
             + ints("nodes_trueleafs", columns[4]) + ints("nodes_falsenodeids", columns[5])
             + ints("nodes_falseleafs", columns[6]) + ints("leaf_targetids", [x[0] for x in leaves])
             + tensor("leaf_weights", t, [x[1] for x in leaves]) + ints("tree_roots", roots)
             + i("n_targets", n_targets))
    if rng.random() < 0.4:
        attrs += i("aggregate_function", rng.randint(0, 3))
    if rng.random() < 0.4:
        attrs += i("post_transform", rng.randint(0, 4))
    ml = 4 if bad == "version" else _ml(rng, [5], bad)
    return with_intent(MLCase("TreeEnsemble", ml, [typed(t, s)], attrs), bad)


FAMILIES = {"ml_transforms": ml_transforms, "ml_encoders": ml_encoders, "ml_features": ml_features,
            "ml_linear": ml_linear, "ml_svm": ml_svm, "ml_trees": ml_trees}

# The element types ONNX allows that ONNX Runtime 1.30 has no kernel for: it refuses them at load ("Could not find an
# implementation for Binarizer(1) node"); reshape1 may shape them as ONNX's spec says.
_NO_KERNEL = "Could not find an implementation for "
KNOWN = [(op, _NO_KERNEL, why) for op, why in [
    ("Binarizer", "double, int32 or int64 X: ONNX Runtime's kernel is float only"),
    ("Imputer", "double or int32 X: ONNX Runtime's kernel is float and int64 only"),
    ("OneHotEncoder", "int32 X: ONNX Runtime has int64, float, double and string kernels"),
    ("LinearRegressor", "double, int32 or int64 X: ONNX Runtime's kernel is float only"),
    ("SVMRegressor", "double, int32 or int64 X: ONNX Runtime's kernel is float only"),
    ("TreeEnsembleRegressor", "int32 or int64 X: ONNX Runtime's kernel is float and double only"),
    ("LabelEncoder", "int32 keys or values (LabelEncoder-4): no kernel"),
]]
