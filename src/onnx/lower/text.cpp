// ONNX's ops on text: RegexFullMatch, StringConcat, StringNormalizer, StringSplit and TfIdfVectorizer, and
// com.microsoft's MurmurHash3 (feature hashing). reshape1
// reads tensors of strings by shape and type, never their values (tensors.cpp), so each op is lowered to layers
// that give its outputs' shapes and make their values unknown (a Convert from a string), and so that a value
// computed from one position of the input comes from that position's layers: the batch analysis then sees
// which outputs a sample's strings reach. What ONNX Runtime refuses when it loads such a node (a missing
// pattern, an unknown mode, n-gram tables that do not add up) is refused here too.
#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {

namespace {

/// Input k as a tensor of strings: refused where the model declares it of another type (ONNX's type constraint
/// for these ops; ONNX Runtime refuses the model when it loads it).
source strings_input(node_context& c, std::size_t k) {
  if (const auto type = c.declared_type(k); type && *type != element_type::string)
    c.bad(fmt::format("its input {} ('{}') is of type {}, where {} takes strings", k, c.node().input(static_cast<int>(k)),
                      name(*type), c.node().op_type()),
          "ONNX Runtime refuses the model too");
  return c.need(k);
}

/// A scalar i64 whose value no rule knows and that every element of x reaches: the length of a dimension that its
/// data decides over the whole tensor (the most pieces any string splits into).
source length_from_all_of(node_context& c, source x) {
  const auto counts = converted(c, x, element_type::i64);
  return c.add("ReduceSum", 1, {counts, c.axes_from(counts, 0)}, {{"keep_dims", "false"}});
}

/// RegexFullMatch (20): whether each string matches `pattern` whole: a bool of the input's shape. ONNX Runtime
/// compiles the pattern with RE2 when it loads the model and refuses one RE2 does not parse; reshape1 has no RE2
/// among its dependencies and does not parse it (a pattern RE2 refuses gets the shape: docs/onnx.md).
void regex_full_match(node_context& c) {
  if (c.attribute("pattern") == nullptr)
    c.bad("it has no pattern", "RegexFullMatch needs the attribute pattern (ONNX Runtime refuses the node without it)");
  c.output(0, converted(c, strings_input(c, 0), element_type::boolean));
}

/// StringConcat (20): the two inputs joined element by element, broadcast as numpy broadcasts.
void string_concat(node_context& c) {
  const auto a = converted(c, strings_input(c, 0), element_type::f32);
  const auto b = converted(c, strings_input(c, 1), element_type::f32);
  c.output(0, converted(c, c.add("Add", 1, {a, b}, numpy), element_type::string));
}

/// StringNormalizer (10): strings of shape [C] or [1, C] with their case changed and the `stopwords` removed. Without
/// stopwords the shape is the input's; with them C becomes a length the data decides (ONNX Runtime keeps one empty
/// string where every one is a stopword). ONNX Runtime refuses another rank, and a first dimension other than 1,
/// when it runs the node.
void string_normalizer(node_context& c) {
  const auto action = c.s("case_change_action", "NONE");
  if (action != "NONE" && action != "LOWER" && action != "UPPER")
    c.bad(fmt::format("case_change_action is '{}'", action), "StringNormalizer takes LOWER, UPPER or NONE");
  auto x = strings_input(c, 0);
  const auto rank = c.rank(0);
  if (rank && *rank != 1 && *rank != 2)
    c.bad(fmt::format("its input has rank {}", *rank), "StringNormalizer takes strings of shape [C] or [1, C]");
  // ONNX Runtime's shape inference refuses a graph input declared [N, C] where N is not the number 1 (a dim_param
  // too); where the graph computes the input, the rule of a split of exactly 1 refuses another first dimension.
  if (const auto dims = c.declared_input_dims(0); dims && dims->size() == 2 && !((*dims)[0].is_static() && (*dims)[0].lo() == 1))
    c.bad(fmt::format("its input is declared of {} dimensions, the first not 1", dims->size()),
          "ONNX Runtime refuses the model too: StringNormalizer takes strings of shape [C] or [1, C]");
  if (rank == 2) x = exactly(c, x, 0, c.i64({1}));
  const auto* stopwords = c.attribute("stopwords");
  if (stopwords == nullptr || stopwords->strings_size() == 0) return c.output(0, converted(c, x, element_type::string));
  const auto length = c.add("Unsqueeze", 1, {length_from_all_of(c, x), c.i64({0})});
  c.output(0, c.add("Slice", 8, {x, c.i64({0}), length, c.i64({1}), c.i64({-1})}));
}

/// StringSplit (20): each string split at `delimiter` (at runs of whitespace without one), at most `maxsplit` times:
/// the pieces (the input's shape and one more dimension, as long as the most pieces of any string, the shorter
/// lists padded with empty strings) and how many each string gave (the input's shape, int64).
void string_split(node_context& c) {
  const auto x = strings_input(c, 0);
  // x's one element on a new last axis, gathered as many times as the most pieces: positions 0 (a Range of that
  // length times 0), so that the rules keep x's dimensions and leave the new one to the data.
  const auto times = c.add("Range", 4, {c.i64({0}, scalar), length_from_all_of(c, x), c.i64({1}, scalar)},
                           {{"output_type", "i64"}});
  const auto zeros = c.add("Multiply", 1, {times, c.i64({0}, scalar)}, numpy);
  c.output(0, c.add("Gather", 8, {c.add("Unsqueeze", 1, {x, c.i64({-1})}), zeros, c.i64({-1}, scalar)}));
  c.output(1, converted(c, x, element_type::i64));
}

/// How many n-grams TfIdfVectorizer's pool holds: `ngram_counts[i]` is where the (i+1)-grams start in the pool,
/// each of i+1 entries. Refused where the table does not add up, or holds an n-gram of a length counted (`least` to
/// `most`) twice, as ONNX Runtime refuses it when it loads the node.
std::size_t ngrams_in_pool(const node_context& c, const std::vector<std::int64_t>& starts, const ::onnx::AttributeProto& pool,
                           std::int64_t least, std::int64_t most) {
  const std::int64_t size = pool.ints_size() + pool.strings_size();
  // ONNX Runtime counts n-grams up to max_gram_length by ngram_counts: it refuses one too short for them.
  if (static_cast<std::int64_t>(starts.size()) < most)
    c.bad(fmt::format("ngram_counts holds {} starts, fewer than max_gram_length ({})", starts.size(), most),
          "ngram_counts gives where each length's n-grams start, from 1 to max_gram_length");
  for (std::size_t i = 0; i < starts.size(); ++i)
    if (starts[i] < 0 || starts[i] > size || (i > 0 && starts[i] < starts[i - 1]))
      c.bad(fmt::format("ngram_counts[{}] is {}, outside the pool of {} or before the start before it", i, starts[i], size),
            "ngram_counts holds where each length's n-grams start in the pool, in increasing order");
  std::int64_t total = 0;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const auto end = i + 1 < starts.size() ? starts[i + 1] : size;  // at or past starts[i], at most size: above
    const auto width = static_cast<std::int64_t>(i) + 1;
    if ((end - starts[i]) % width != 0)
      c.bad(fmt::format("the {}-grams of the pool take {} entries, not a multiple of {}", width, end - starts[i], width));
    total += (end - starts[i]) / width;
    // ONNX Runtime refuses an n-gram the pool holds twice (each has one output position), of the lengths it counts
    // (min_gram_length to max_gram_length; it skips the others).
    if (width < least || width > most) continue;
    std::set<std::vector<std::string>> seen;
    for (auto at = starts[i]; at < end; at += width) {
      std::vector<std::string> gram;
      for (auto k = at; k < at + width; ++k)
        gram.push_back(pool.ints_size() > 0 ? std::to_string(pool.ints(static_cast<int>(k))) : pool.strings(static_cast<int>(k)));
      if (!seen.insert(gram).second)
        c.bad(fmt::format("the pool holds the {}-gram at {} twice", width, at), "each n-gram of the pool is in it once");
    }
  }
  return static_cast<std::size_t>(total);
}

/// TfIdfVectorizer (9): the n-gram counts (or their IDF weights) of each row of [C] or [B, C], strings or integers:
/// [K] or [B, K], K one more than the largest of `ngram_indexes`. Each output row comes from its input row alone.
void tfidf_vectorizer(node_context& c) {
  const auto mode = c.s("mode", "");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
    c.bad(fmt::format("mode is '{}'", mode), "TfIdfVectorizer's mode is TF, IDF or TFIDF");
  const auto least = c.i("min_gram_length"), most = c.i("max_gram_length"), skip = c.i("max_skip_count");
  if (!least || !most || !skip)
    c.bad("it lacks min_gram_length, max_gram_length or max_skip_count", "TfIdfVectorizer needs all three");
  if (*least < 1 || *most < *least || *skip < 0)
    c.bad(fmt::format("its n-grams are {} to {} long, skipping up to {}", *least, *most, *skip),
          "min_gram_length is at least 1 and at most max_gram_length; max_skip_count is not negative");
  const auto indexes = c.ints("ngram_indexes").value_or(std::vector<std::int64_t>{});
  if (indexes.empty()) c.bad("it has no ngram_indexes", "TfIdfVectorizer needs the output position of each n-gram");
  if (std::any_of(indexes.begin(), indexes.end(), [](std::int64_t v) { return v < 0; }))
    c.bad("a value of ngram_indexes is negative", "each n-gram's output position is 0 or more");
  const auto* ints = c.attribute("pool_int64s");
  const auto* strings = c.attribute("pool_strings");
  if ((ints != nullptr) == (strings != nullptr))
    c.bad("it has pool_int64s and pool_strings, or neither", "TfIdfVectorizer's pool is one of them");
  const auto n = ngrams_in_pool(c, c.ints("ngram_counts").value_or(std::vector<std::int64_t>{}), ints != nullptr ? *ints : *strings,
                                *least, *most);
  // ONNX Runtime reads an output position for each n-gram of the pool without checking that there is one: with
  // fewer its process stops. (More are read as more positions: the output is as wide as the largest.)
  if (n > indexes.size())
    c.bad(fmt::format("its pool holds {} n-grams and ngram_indexes {} positions", n, indexes.size()),
          "ngram_indexes gives each n-gram of the pool its output position");
  if (const auto weights = c.floats("weights"); weights && weights->size() != indexes.size())
    c.bad(fmt::format("it has {} weights for {} n-grams", weights->size(), indexes.size()), "weights gives each n-gram one");
  // An input of the other kind than the pool (integers against pool_strings) is run by ONNX Runtime: it matches
  // nothing, and the output is all zeros of the same shape.
  const auto x = c.need(0);
  const auto largest = *std::max_element(indexes.begin(), indexes.end());
  if (largest == std::numeric_limits<std::int64_t>::max())
    c.bad("a value of ngram_indexes is the largest int64", "the output is one wider than the largest position");
  const auto width = largest + 1;
  const auto rank = c.rank(0);
  // A scalar too: ONNX Runtime's shape inference refuses it when the model declares it (its kernel would count it as
  // [1]); where the rank is not declared, the rule of the ReduceSum below refuses one.
  if (rank && (*rank == 0 || *rank > 2))
    c.bad(fmt::format("its input has rank {}", *rank), "TfIdfVectorizer takes [C] or [B, C]");
  const auto rows = c.add("ReduceSum", 1, {converted(c, x, element_type::f32), c.i64({-1})}, {{"keep_dims", "true"}});
  const auto shape = c.add("Concat", 1, {shape_slice(c, c.shape_of(x), 0, -1), c.i64({width})}, {{"axis", "0"}});
  c.output(0, c.add("Broadcast", 3, {rows, shape}, {{"mode", "numpy"}}));
}

/// com.microsoft's MurmurHash3 (1): the hash of each element (a number's bytes, or a string's), of the input's shape:
/// uint32, or int32 with `positive` 0 (types.cpp). Its values go through a string, which drops them: no rule
/// computes a hash.
void murmur_hash3(node_context& c) {
  const auto type = c.i("positive", 1) == 0 ? element_type::i32 : element_type::u32;
  c.output(0, converted(c, converted(c, c.need(0), element_type::string), type));
}

}  // namespace

std::span<const onnx_entry> text_rows() {
  static const std::vector<onnx_entry> rows = {
      {"RegexFullMatch", 20, regex_full_match}, {"StringConcat", 20, string_concat},
      {"StringNormalizer", 10, string_normalizer}, {"StringSplit", 20, string_split},
      {"TfIdfVectorizer", 9, tfidf_vectorizer}, {"MurmurHash3", 1, murmur_hash3, "com.microsoft"},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
