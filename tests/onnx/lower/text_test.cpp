// The rows of src/onnx/lower/text.cpp: one case a row (rows_test.cpp runs them as onnx/lower_rows), then what
// ONNX Runtime refuses of them (each refusal seen in ONNX Runtime 1.30 with a model of the node; the shapes against
// it in tests/property/op_truth_index.py, text_shape).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "lowering_case.hpp"

namespace reshape1::test {

namespace {
/// TfIdfVectorizer's attributes: unigrams and bigrams of a pool of 4 + 3 pairs, written at positions up to 9.
std::string tfidf(const char* mode = "TF", std::vector<std::int64_t> indexes = {0, 1, 2, 3, 4, 5, 9}) {
  return attr_s("mode", mode) + attr_i("min_gram_length", 1) + attr_i("max_gram_length", 2) + attr_i("max_skip_count", 0) +
         attr_ints("ngram_counts", {0, 4}) + attr_ints("ngram_indexes", indexes) +
         attr_ints("pool_int64s", {2, 3, 5, 4, 5, 6, 7, 8, 6, 7});
}
}  // namespace

std::vector<lowering_case> text_cases() {
  return {
      {"RegexFullMatch", 20, "x:string[2,3]", "x", "y", attr_s("pattern", "a+"), "Convert", "[2,3]"},
      // Broadcast as numpy's.
      {"StringConcat", 20, "a:string[2,1] b:string[3]", "a,b", "y", "", "Convert,Convert,Add,Convert", "[2,3]"},
      // [1, C] without stopwords: the input's shape (its first dimension held to 1).
      {"StringNormalizer", 10, "x:string[1,4]", "x", "y", attr_s("case_change_action", "LOWER"), "VariadicSplit,Convert",
       "[1,4]"},
      // The pieces: the input's shape and the most pieces any string gave; their counts: the input's shape.
      {"StringSplit", 20, "x:string[2,2]", "x", "y,z", attr_s("delimiter", ","),
       "Convert,ShapeOf,ShapeOf,Squeeze,Range,ReduceSum,Range,Multiply,Unsqueeze,Gather,Convert", "[2,2,?] [2,2]"},
      // [B, C] -> [B, K], K = the largest position + 1.
      {"TfIdfVectorizer", 9, "x:i64[2,6]", "x", "y", tfidf(), "Convert,ReduceSum,ShapeOf,Slice,Concat,Broadcast", "[2,10]"},
      {"MurmurHash3", 1, "x:string[3,1]", "x", "y", "", "Convert,Convert", "[3,1]", "com.microsoft"},
  };
}

namespace {

TEST(lower_text, shapes_of_the_other_forms) {
  // TfIdfVectorizer of [C]: [K].
  EXPECT_EQ(refused_when_read({"TfIdfVectorizer", 9, "x:i64[12]", "x", "y", tfidf(), "", ""}), "");
  EXPECT_EQ(refusals({"TfIdfVectorizer", 9, "x:i64[12]", "x", "y", tfidf(), "", ""}), "");
}

TEST(lower_text, refusals) {
  expect_refused_with({"RegexFullMatch", 20, "x:string[2]", "x", "y", "", "", ""}, "it has no pattern");
  expect_refused_with({"RegexFullMatch", 20, "x:f32[2]", "x", "y", attr_s("pattern", "a"), "", ""},
                      "is of type f32, where RegexFullMatch takes strings");
  expect_refused_with({"StringNormalizer", 10, "x:string[2]", "x", "y", attr_s("case_change_action", "TITLE"), "", ""},
                      "case_change_action is 'TITLE'");
  expect_refused_with({"StringNormalizer", 10, "x:string[1,2,3]", "x", "y", "", "", ""}, "its input has rank 3");
  expect_refused_with({"StringNormalizer", 10, "x:string[2,4]", "x", "y", "", "", ""}, "the first not 1");
  expect_refused_with({"TfIdfVectorizer", 9, "x:i64[2,6]", "x", "y", tfidf("XX"), "", ""}, "mode is 'XX'");
  // Fewer positions than n-grams: ONNX Runtime's process stops on it.
  expect_refused_with({"TfIdfVectorizer", 9, "x:i64[2,6]", "x", "y", tfidf("TF", {0, 1, 2}), "", ""},
                      "its pool holds 7 n-grams and ngram_indexes 3 positions");
  expect_refused_with({"TfIdfVectorizer", 9, "x:i64[2,6]", "x", "y", tfidf("TF", {0, 1, 2, 3, 4, 5, -9}), "", ""},
                      "a value of ngram_indexes is negative");
  // One past the largest position would overflow.
  expect_refused_with({"TfIdfVectorizer", 9, "x:i64[2,6]", "x", "y",
                       tfidf("TF", {0, 1, 2, 3, 4, 5, std::numeric_limits<std::int64_t>::max()}), "", ""},
                      "a value of ngram_indexes is the largest int64");
  expect_refused_with({"TfIdfVectorizer", 9, "x:i64[1,2,6]", "x", "y", tfidf(), "", ""}, "its input has rank 3");
  expect_refused_with({"TfIdfVectorizer", 9, "x:i64[]", "x", "y", tfidf(), "", ""}, "its input has rank 0");
  auto twice = tfidf();
  twice.replace(twice.find("ints: [2, 3, 5, 4,"), 18, "ints: [2, 3, 5, 2,");
  expect_refused_with({"TfIdfVectorizer", 9, "x:i64[2,6]", "x", "y", twice, "", ""}, "the pool holds the 1-gram at 3 twice");
  // Strings against a pool of integers: ONNX Runtime runs it (zeros); more positions than n-grams too.
  EXPECT_EQ(refused_when_read({"TfIdfVectorizer", 9, "x:string[2,6]", "x", "y", tfidf(), "", ""}), "");
  EXPECT_EQ(refused_when_read({"TfIdfVectorizer", 9, "x:i64[2,6]", "x", "y", tfidf("TF", {0, 1, 2, 3, 4, 5, 9, 11}), "", ""}), "");
  auto short_counts = tfidf();
  short_counts.replace(short_counts.find("ints: [0, 4]"), 12, "ints: [0]");
  expect_refused_with({"TfIdfVectorizer", 9, "x:i64[2,6]", "x", "y", short_counts, "", ""},
                      "ngram_counts holds 1 starts, fewer than max_gram_length (2)");
  // A graph input [N, C] whose N is not the number 1: ONNX Runtime's shape inference refuses it.
  expect_refused_with({"StringNormalizer", 10, "x:string[?,4]", "x", "y", "", "", ""}, "the first not 1");
  auto uneven = tfidf();
  uneven.replace(uneven.find("ints: [0, 4]"), 12, "ints: [0, 3]");
  expect_refused_with({"TfIdfVectorizer", 9, "x:i64[2,6]", "x", "y", uneven, "", ""}, "the 2-grams of the pool take 7 entries");
}

}  // namespace

}  // namespace reshape1::test
