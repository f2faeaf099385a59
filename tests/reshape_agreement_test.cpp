// The static and partial instantiations of the one algorithm give identical answers (shape, or error
// code) on generated inputs: empty tensors, special zeros, -1, invalid values and values near 2^63.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "detail/inference.hpp"
#include "reshape1/reshape1.hpp"

namespace reshape1::test {
namespace {

constexpr std::int64_t max64 = std::numeric_limits<std::int64_t>::max();
constexpr std::array<std::int64_t, 10> huge{std::int64_t{1} << 31, std::int64_t{1} << 32, std::int64_t{1} << 53,
                                            (std::int64_t{1} << 53) + 1, std::int64_t{1} << 62, max64, max64 - 1,
                                            max64 / 3, 3037000499, 27021597764222979};

struct generator {
  std::mt19937_64 rng{20261122};

  std::int64_t pick(std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); }
  bool chance(int percent) { return pick(0, 99) < percent; }

  std::int64_t dim() {
    if (chance(8)) return 0;
    if (chance(5)) return huge[static_cast<std::size_t>(pick(0, huge.size() - 1))];
    return pick(1, 6);
  }

  std::vector<std::int64_t> input() {
    // Ranks up to 10: across shape::inline_rank, where the inline storage hands over to the heap.
    std::vector<std::int64_t> d(static_cast<std::size_t>(chance(90) ? pick(0, 6) : pick(7, 10)));
    for (auto& x : d) x = dim();
    return d;
  }

  std::vector<std::int64_t> pattern(const std::vector<std::int64_t>& in) {
    std::vector<std::int64_t> p(static_cast<std::size_t>(chance(90) ? pick(0, 6) : pick(7, 10)));
    for (std::size_t i = 0; i < p.size(); ++i) {
      const auto r = pick(0, 99);
      if (r < 15) p[i] = -1;
      else if (r < 30) p[i] = 0;
      else if (r < 33) p[i] = -pick(2, 3);
      else if (r < 60 && i < in.size()) p[i] = in[i];
      else if (r < 70 && !in.empty()) p[i] = in[static_cast<std::size_t>(pick(0, in.size() - 1))];
      else p[i] = dim();
    }
    return p;
  }
};

std::string general_answer(const shape& in, const std::vector<std::int64_t>& p, bool sz, const reshape_options& o) {
  try {
    return to_string(detail::infer_shape_partial(partial_shape(in), reshape_pattern::from_values(p), sz, o).shape);
  } catch (const error& e) {
    return "error:" + std::string(name(e.code())) + ": " + e.what();
  }
}

std::string fast_answer(const shape& in, const std::vector<std::int64_t>& p, bool sz, const reshape_options& o) {
  try {
    return to_string(infer_static_shape(in, p, sz, o));
  } catch (const error& e) {
    return "error:" + std::string(name(e.code())) + ": " + e.what();
  }
}

TEST(reshape_agreement, static_instantiation_matches_partial_instantiation_on_generated_inputs) {
  // One algorithm, two instantiations: on plain integers (infer_static_shape) and on dimensions
  // (infer_shape). They must give the same shape or the same error code on every input.
  generator g;
  constexpr int total = 120000;
  int ok = 0, failed = 0;
  for (int k = 0; k < total; ++k) {
    const auto in_dims = g.input();
    const shape in(in_dims);
    const auto p = g.pattern(in_dims);
    const bool sz = g.chance(50);
    reshape_options o;
    o.empty = static_cast<empty_rule>(g.pick(0, 2));
    const auto general = general_answer(in, p, sz, o);
    ASSERT_EQ(fast_answer(in, p, sz, o), general)
        << "input " << to_string(in) << " pattern [" << fmt::format("{}", fmt::join(p, ",")) << "] special_zero " << sz
        << " empty_rule " << static_cast<int>(o.empty);
    ++(general.starts_with("error:") ? failed : ok);
  }
  EXPECT_GT(ok, total / 10);
  EXPECT_GT(failed, total / 10);
}

TEST(reshape_agreement, copies_past_the_64th_pattern_element) {
  // Long inputs and patterns (mostly 1s, so the counts stay small) with copies, -1s and errors on
  // both sides of index 64, where a word-sized mask of the copies would end: the static reading
  // finds its copies in the pattern itself.
  generator g;
  int ok = 0;
  for (int k = 0; k < 6000; ++k) {
    std::vector<std::int64_t> in_dims(static_cast<std::size_t>(g.pick(58, 72)));
    for (auto& x : in_dims) x = g.chance(85) ? 1 : g.dim();
    std::vector<std::int64_t> p(static_cast<std::size_t>(g.pick(58, 74)));
    for (std::size_t i = 0; i < p.size(); ++i) {
      const auto r = g.pick(0, 999);
      p[i] = r < 4 ? -1 : r < 350 ? 0 : r < 352 ? -2 : i < in_dims.size() && r < 700 ? in_dims[i] : 1;
    }
    const shape in(in_dims);
    const bool sz = g.chance(80);
    reshape_options o;
    o.empty = static_cast<empty_rule>(g.pick(0, 2));
    const auto general = general_answer(in, p, sz, o);
    ASSERT_EQ(fast_answer(in, p, sz, o), general)
        << "input " << to_string(in) << " pattern [" << fmt::format("{}", fmt::join(p, ",")) << "] special_zero " << sz;
    ok += general.starts_with("error:") ? 0 : 1;
  }
  EXPECT_GT(ok, 600);
}

TEST(reshape_agreement, near_the_limits) {
  // Hand-picked: products at and across 2^63, exact quotients above 2^53, zeros beside huge values.
  const std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> cases{
      {{27021597764222979}, {3, -1}},
      {{9007199254740995}, {5, -1}},
      {{max64}, {-1}},
      {{max64}, {1, -1, 1}},
      {{0, 4294967296, 4294967296}, {0, -1}},
      {{0, 4294967296, 4294967296}, {0, 4294967296, -1}},
      {{3037000499, 3037000499}, {-1}},
      {{4611686018427387904, 2}, {-1}},
      {{0}, {4294967296, 4294967296, 0}},
      {{5}, {0, 1879048192, 100000000, 1610612736, -1}},
      // Regression: 144 * 2^62 wraps to exactly 0; a wrapped product must never read as a zero dimension.
      {{2, 1, 4, 6, 3, 4611686018427387904}, {5, 0, 4}},
      {{2, 1, 4, 6, 3, 4611686018427387904}, {0, 5, -1}},
  };
  for (const auto& [in_dims, p] : cases)
    for (bool sz : {false, true})
      for (int rule = 0; rule < 3; ++rule) {
        reshape_options o;
        o.empty = static_cast<empty_rule>(rule);
        const shape in(in_dims);
        EXPECT_EQ(fast_answer(in, p, sz, o), general_answer(in, p, sz, o)) << to_string(in);
      }
}

}  // namespace
}  // namespace reshape1::test
