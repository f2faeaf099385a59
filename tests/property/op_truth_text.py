"""Per-op truth for the ops on text (src/onnx/lower/text.cpp): RegexFullMatch, StringConcat, StringNormalizer,
StringSplit, TfIdfVectorizer and com.microsoft's MurmurHash3. Loaded by op_truth.py's main() (FAMILIES and KNOWN).
Their inputs are strings (shapes.js feeds random words of a few letters, spaces and commas) or integers; where the
data decides an output's length (StringSplit's pieces, the strings StringNormalizer keeps) any length reshape1
leaves open agrees (op_truth.agrees).

Each family's docstring says what it draws (valid), which invalid cases it makes and what ONNX Runtime 1.30 does
with them.
"""
from op_truth import Case, with_intent, broadcastable, i, ints, shape, string, strings
from op_truth import DOUBLE, FLOAT, INT32, INT64, MS, STRING, UINT32



def _typed(t, dims):
    return ("typed", t, dims)


def text_string_ops(rng):
    """RegexFullMatch-20 (a bool of x's shape, rank 0 to 3; no pattern: refused at load), StringConcat-20 (two
    broadcastable inputs; about one in ten that do not broadcast: refused when run), StringSplit-20 (x's shape and
    the most pieces, which the data decides; the counts of x's shape; delimiter and maxsplit drawn), MurmurHash3 (x
    of the types it hashes, uint32 or int32 by `positive`). Invalid: RegexFullMatch without pattern, or of a float
    input."""
    op = rng.choice(["RegexFullMatch", "StringConcat", "StringSplit", "MurmurHash3"])
    s = shape(rng, rng.randint(0, 3), zero=0.08)
    if op == "RegexFullMatch":
        bad = rng.choice(["pattern", "type"]) if rng.random() < 0.1 else None
        attrs = "" if bad == "pattern" else string("pattern", rng.choice(["a+", "[ab ]*", "a.*c", ".*,.*", ""]))
        return with_intent(Case(op, 20, [_typed(FLOAT if bad == "type" else STRING, s)], attrs), bad)
    if op == "StringConcat":
        other = broadcastable(rng, s)
        return Case(op, 20, [_typed(STRING, s), _typed(STRING, other)])
    if op == "StringSplit":
        attrs = ""
        if rng.random() < 0.6:
            attrs += string("delimiter", rng.choice([",", " ", "ab"]))
        if rng.random() < 0.4:
            attrs += i("maxsplit", rng.randint(1, 3))
        case = Case(op, 20, [_typed(STRING, s)], attrs, outputs=2)
        case.data_decides = {(0, len(s))}
        return case
    t = rng.choice([STRING, STRING, INT32, INT64, FLOAT, DOUBLE, UINT32])
    attrs = i("positive", rng.randint(0, 1)) if rng.random() < 0.5 else ""
    if rng.random() < 0.3:
        attrs += i("seed", rng.randint(0, 9))
    return Case(op, 1, [_typed(t, s)], attrs, domain=MS)


def text_normalizer(rng):
    """StringNormalizer-10 of [C] or [1, C] (C >= 1), stopwords and case_change_action drawn, with locale "C" (ONNX
    Runtime builds the locale when it loads the node: its default, en_US.UTF-8, is missing on a machine without it).
    Invalid: rank 0 or 3, or [2, C] (refused when run), an unknown case_change_action (refused at load), C = 0 (when
    run: a known disagreement; [1, 0] is not drawn, as ONNX Runtime's message for it is the one for [2, C])."""
    c = rng.randint(1, 6)
    s = rng.choice([[c], [1, c]])
    bad = rng.choice(["rank", "first", "action", "empty"]) if rng.random() < 0.15 else None
    if bad == "rank":
        s = rng.choice([[], [1, 1, c]])
    elif bad == "first":
        s = [2, c]
    elif bad == "empty":
        s = [0]
    attrs = string("locale", "C")
    if rng.random() < 0.6:
        attrs += strings("stopwords", rng.sample(["a", "b", "ab", "c", ""], rng.randint(1, 3)))
    if rng.random() < 0.6 or bad == "action":
        attrs += string("case_change_action", "TITLE" if bad == "action" else rng.choice(["LOWER", "UPPER", "NONE"]))
    if rng.random() < 0.3:
        attrs += i("is_case_sensitive", rng.randint(0, 1))
    case = Case("StringNormalizer", 10, [_typed(STRING, s)], attrs)
    case.data_decides = {(0, len(s) - 1)}
    return with_intent(case, bad)


def text_tfidf(rng):
    """TfIdfVectorizer-9 of [C] or [B, C], int64, int32 or strings against a pool of their kind: 1- to
    3-grams, ngram_counts from the pool, ngram_indexes positions up to 12 (output [K] or [B, K], K the largest + 1),
    weights sometimes. Invalid: rank 0 or 3 (refused at load), an unknown mode, fewer positions than n-grams (ONNX Runtime's process stops:
    never sent to it, refused by reshape1 before), B = 0 (refused when run: known)."""
    most = rng.randint(1, 3)
    least = rng.randint(1, most)
    counts, pool = [], []
    for n in range(1, most + 1):
        counts.append(len(pool))
        pool += [rng.randint(0, 7) for _ in range(n * rng.randint(0 if n < most else 1, 3))]
    grams = sum((((counts[k + 1] if k + 1 < len(counts) else len(pool)) - counts[k]) // (k + 1)) for k in range(len(counts)))
    # A pool drawn with an n-gram twice: ONNX Runtime refuses it at load.
    indexes = rng.sample(range(13), grams)
    use_strings = rng.random() < 0.4
    t = STRING if use_strings else rng.choice([INT64, INT32])
    s = rng.choice([[rng.randint(0, 8)], [rng.randint(1, 3), rng.randint(0, 6)]])
    bad = rng.choice(["rank", "mode", "batch"]) if rng.random() < 0.12 else None
    if bad == "rank":
        s = rng.choice([[], [1, 2, 3]])
    elif bad == "batch":
        s = [0, rng.randint(1, 4)]
    attrs = (string("mode", "XX" if bad == "mode" else rng.choice(["TF", "IDF", "TFIDF"])) + i("min_gram_length", least)
             + i("max_gram_length", most) + i("max_skip_count", rng.randint(0, 2)) + ints("ngram_counts", counts)
             + ints("ngram_indexes", indexes))
    attrs += strings("pool_strings", [f"w{v}" for v in pool]) if use_strings else ints("pool_int64s", pool)
    if rng.random() < 0.3:
        attrs += f'attribute {{ name: "weights" type: FLOATS floats: {[1.0] * grams} }} '
    return with_intent(Case("TfIdfVectorizer", 9, [_typed(t, s)], attrs), bad)


FAMILIES = {"text_string_ops": text_string_ops, "text_normalizer": text_normalizer, "text_tfidf": text_tfidf}

KNOWN = [
    ("StringNormalizer", "Single dimension value must be greater than 0",
     "[0] (or [1, 0]): ONNX Runtime refuses an input without strings when it runs the node; reshape1 gives the empty "
     "output (no rule of its layers refuses a 0 length)"),
    ("TfIdfVectorizer", "with B > 0",
     "[0, C]: ONNX Runtime refuses an empty batch when it runs the node; reshape1 gives [0, K]"),
]
