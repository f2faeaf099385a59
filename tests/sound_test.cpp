// Option O1 (sound bounds) is sound: on generated partial inputs and pattern bounds, every concrete
// instance (a static input and pattern values inside the bounds, equal values for equal symbols) whose
// static answer is valid lies inside the sound answer, and the sound answer's symbols and equalities
// hold in it.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "test_util.hpp"

namespace reshape1::test {
namespace {

struct generator {
  std::mt19937_64 rng{20261122};
  std::int64_t pick(std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); }
  bool chance(int percent) { return pick(0, 99) < percent; }
  symbol maybe_symbol() { return chance(25) ? symbol(std::string(1, static_cast<char>('A' + pick(0, 2)))) : symbol(); }

  partial_shape input() {
    if (chance(5)) return partial_shape::dynamic();
    partial_shape s;
    for (auto rank = pick(0, 4); rank > 0; --rank) {
      const auto lo = chance(30) ? 0 : pick(0, 4);
      const auto hi = chance(15) ? interval::unbounded : lo + (chance(40) ? 0 : pick(0, 4));
      s.push_back(dimension(lo, hi, maybe_symbol()));
    }
    return s;
  }

  reshape_pattern pattern() {
    std::vector<pattern_bound> bounds;
    for (auto n = pick(0, 4); n > 0; --n) {
      const auto lo = chance(20) ? -1 : pick(-1, 4);
      const auto hi = chance(10) ? pattern_bound::no_upper : lo + (chance(40) ? 0 : pick(0, 4));
      bounds.push_back({lo, hi, maybe_symbol()});
    }
    return reshape_pattern::from_bounds(std::move(bounds));
  }
};

/// A concrete instance: values for the input's dimensions and the pattern's elements.
struct instance {
  std::vector<std::int64_t> input;
  std::vector<std::int64_t> pattern;
  std::map<std::string, std::int64_t, std::less<>> symbols;
};

std::int64_t value_in(generator& g, std::int64_t lo, std::int64_t hi) {
  const std::int64_t top = hi == interval::unbounded ? lo + 6 : hi;
  if (g.chance(30)) return g.chance(50) ? lo : top;  // the ends, where empty tensors and -1 live
  return g.pick(lo, top);
}

std::optional<instance> instantiate(generator& g, const partial_shape& in, const reshape_pattern& p) {
  instance x;
  // Symbols first: one value inside every range that carries the symbol.
  std::map<std::string, std::pair<std::int64_t, std::int64_t>, std::less<>> ranges;
  auto narrow = [&](symbol s, std::int64_t lo, std::int64_t hi) {
    if (!s) return;
    auto [it, added] = ranges.try_emplace(std::string(s.name()), lo, hi);
    if (!added) it->second = {std::max(it->second.first, lo), std::min(it->second.second, hi)};
  };
  if (in.rank_known())
    for (const auto& d : in) narrow(d.symbol(), d.lo(), d.hi());
  for (const auto& b : p.elements()) narrow(b.symbol, std::max<std::int64_t>(b.lo, 0), b.hi);  // a dimension
  for (const auto& [name, r] : ranges) {
    if (r.first > r.second) return std::nullopt;
    x.symbols[name] = value_in(g, r.first, r.second);
  }
  auto value = [&](symbol s, std::int64_t lo, std::int64_t hi) {
    return s ? x.symbols.at(std::string(s.name())) : value_in(g, lo, hi);
  };
  if (in.rank_known()) {
    for (const auto& d : in) x.input.push_back(value(d.symbol(), d.lo(), d.hi()));
  } else {
    for (auto rank = g.pick(0, 4); rank > 0; --rank) x.input.push_back(value_in(g, 0, 5));
  }
  for (const auto& b : p.elements()) x.pattern.push_back(value(b.symbol, b.lo, b.hi));
  return x;
}

std::string describe(const partial_shape& in, const reshape_pattern& p, bool sz, const reshape_options& o) {
  return fmt::format("{} . {} special_zero={} empty_rule={}", to_string(in), to_string(p), sz, static_cast<int>(o.empty));
}

TEST(sound_bounds, every_valid_instance_lies_inside_the_sound_answer) {
  generator g;
  constexpr int cases = 30000;
  constexpr int instances = 7;
  int checked = 0;
  for (int k = 0; k < cases; ++k) {
    const auto in = g.input();
    const auto p = g.pattern();
    const bool sz = g.chance(50);
    reshape_options o;
    o.empty = static_cast<empty_rule>(g.pick(0, 2));
    o.sound_bounds = true;
    std::optional<reshape_result> sound;
    try {
      sound = infer_shape(in, p, sz, o);
    } catch (const error&) {
    }
    reshape_options concrete_options = o;
    concrete_options.sound_bounds = false;
    for (int t = 0; t < instances; ++t) {
      const auto x = instantiate(g, in, p);
      if (!x) break;
      shape out;
      try {
        out = infer_static_shape(shape(x->input), x->pattern, sz, concrete_options);
      } catch (const error&) {
        continue;  // an invalid instance constrains nothing
      }
      ++checked;
      ASSERT_TRUE(sound) << "sound answer is an error, but the instance " << to_string(shape(x->input)) << " . ["
                         << fmt::format("{}", fmt::join(x->pattern, ",")) << "] gives " << to_string(out) << " for "
                         << describe(in, p, sz, o);
      const auto& s = sound->shape;
      bool inside = !s.rank_known() || s.size() == out.size();
      for (std::size_t i = 0; inside && s.rank_known() && i < s.size(); ++i) {
        inside = s[i].range().contains(out[i]);
        if (inside && s[i].has_symbol()) {
          const auto it = x->symbols.find(s[i].symbol().name());
          inside = it != x->symbols.end() && it->second == out[i];
        }
      }
      for (const auto& eq : sound->symbol_equalities)
        inside = inside && x->symbols.at(std::string(eq.input.name())) == x->symbols.at(std::string(eq.output.name()));
      ASSERT_TRUE(inside) << "instance " << to_string(shape(x->input)) << " . ["
                          << fmt::format("{}", fmt::join(x->pattern, ",")) << "] gives " << to_string(out)
                          << ", outside the sound answer " << to_string(s)
                          << (sound->symbol_equalities.empty() ? "" : " (with a symbol equality)") << " for "
                          << describe(in, p, sz, o);
    }
  }
  EXPECT_GT(checked, cases);  // most cases have valid instances
}

TEST(sound_bounds, the_cases_found_by_the_differential_run) {
  // (a) A copy out of range in the literal reading no longer hides a valid -1 reading.
  EXPECT_EQ(infer_text("[]", "[-1..0]", true, sound()), "[1]");
  EXPECT_EQ(infer_text("[2]", "[0,-1..0]", true, sound()), "[2,1]");
  // (b) Instances that are empty: the -1 is 1 beside a 0 on both sides, 0 beside an empty input.
  EXPECT_EQ(infer_text("[0,?@A]", "[0,-1]", false), "[0,?@A]");  // OpenVINO's answer, by default
  EXPECT_EQ(infer_text("[0,?@A]", "[0,-1]", false, sound()), "[0,1]");
  EXPECT_EQ(infer_text("[?]", "[-1,0]", false), "error:infer_zero");
  EXPECT_EQ(infer_text("[?]", "[-1,0]", false, sound()), "[1,0]");
  EXPECT_EQ(infer_text("[?,4611686018427387904,2]", "[-1]", false), "error:overflow");
  EXPECT_EQ(infer_text("[?,4611686018427387904,2]", "[-1]", false, sound()), "[0]");
  // No equality that an empty instance breaks: [0,3] with [0,49] is valid (both empty).
  const auto r = infer_shape(parse_shape("[?,?@A]"), parse_pattern("[0,1..@P]"), true, sound());
  EXPECT_EQ(to_string(r.shape), "[?,1..@P]");
  EXPECT_TRUE(r.symbol_equalities.empty());
  EXPECT_EQ(infer_shape(parse_shape("[?,?@A]"), parse_pattern("[0,1..@P]"), true).symbol_equalities.size(), 1u);
}

}  // namespace
}  // namespace reshape1::test
