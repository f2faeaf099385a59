// Fuzz target: inference on a partial shape, a pattern (values, bounds, symbols, unknown, or the bytes of
// a tensor of any integer element type) and options, all decoded from the fuzz bytes. Invariants:
// - a static result of a static input has the input's element count;
// - the static fast path agrees with the general path (shape, or error code);
// - with sound bounds, every run-time reading of the bounds lands inside the result;
// - results print and parse back; every failure is a reshape1::error.
#include <algorithm>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "detail/inference.hpp"
#include "fuzz_input.hpp"
#include "reshape1/reshape1.hpp"

namespace {

using namespace reshape1;

partial_shape make_input(fuzz::input& in) {
  if (in.below(8) == 0) return partial_shape::dynamic();
  std::vector<dimension> dims(in.below(7));
  for (auto& d : dims) {
    const std::string symbol = in.below(4) == 0 ? std::string(1, static_cast<char>('A' + in.below(3))) : "";
    switch (in.below(4)) {
      case 0:
      case 1: {
        const auto v = in.interesting();
        d = dimension(v < 0 ? interval() : interval(v), symbol);
        break;
      }
      case 2: {
        const auto lo = static_cast<std::int64_t>(in.below(6));
        const auto span = static_cast<std::int64_t>(in.below(20));
        d = dimension(interval(lo, span == 19 ? interval::unbounded : lo + span), symbol);
        break;
      }
      default: d = dimension(interval(), symbol);
    }
  }
  return partial_shape(std::move(dims));
}

reshape_pattern make_pattern(fuzz::input& in) {
  const auto n = in.below(7);
  switch (in.below(6)) {
    case 0: {
      std::vector<std::int64_t> values(n);
      std::vector<symbol> symbols(n);
      for (auto& v : values) v = in.interesting();
      const bool with_symbols = in.flag();
      for (auto& s : symbols) s = with_symbols && in.flag() ? symbol(std::string(1, static_cast<char>('A' + in.below(4)))) : symbol();
      return reshape_pattern::from_values(values, with_symbols ? std::span<const symbol>(symbols)
                                                               : std::span<const symbol>());
    }
    case 1: {
      std::vector<pattern_bound> bounds(n);
      for (auto& b : bounds) {
        b.lo = in.interesting();
        b.hi = in.flag() ? interval::unbounded : in.interesting();
        if (in.below(4) == 0) b.symbol = std::string(1, static_cast<char>('A' + in.below(4)));
      }
      return reshape_pattern::from_bounds(std::move(bounds));
    }
    case 2: return reshape_pattern::of_length(static_cast<std::int64_t>(n));
    case 3: return reshape_pattern::unknown(in.flag() ? partial_shape::dynamic() : partial_shape{dimension()});
    case 4: return reshape_pattern::scalar(in.interesting());
    default: {
      std::vector<element_type> integer;
      for (auto t : all_element_types())
        if (is_integer(t)) integer.push_back(t);
      const auto t = integer[in.below(integer.size())];
      std::vector<std::byte> bytes(storage_size(t, n));
      for (auto& b : bytes) b = static_cast<std::byte>(in.byte());
      return reshape_pattern::from_tensor(t, bytes, shape{static_cast<std::int64_t>(n)});
    }
  }
}

std::string answer(const std::function<std::string()>& f) {
  try {
    return f();
  } catch (const error& e) {
    return "error:" + std::string(name(e.code()));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::input in(data, size);
  const partial_shape input = make_input(in);
  const reshape_pattern pattern = make_pattern(in);
  const bool special_zero = in.flag();
  reshape_options options;
  options.empty = static_cast<empty_rule>(in.below(3));
  options.legacy_scalar_pattern = in.flag();

  std::optional<reshape_result> result;  // empty when the general path fails
  const auto general = answer([&] {
    result = infer_shape(input, pattern, special_zero, options);
    return to_string(result->shape);
  });

  // infer_shape hands plain problems to the static instantiation: the partial instantiation, asked
  // directly, gives the same shape or the same error, message included (when it is not plain, this
  // is the same call again).
  const auto with_message = [](const std::function<std::string()>& f) {
    try {
      return f();
    } catch (const error& e) {
      return "error:" + std::string(name(e.code())) + ": " + e.what();
    }
  };
  const auto partial = with_message([&] { return to_string(detail::infer_shape_partial(input, pattern, special_zero, options).shape); });
  const auto public_answer = with_message([&] { return to_string(infer_shape(input, pattern, special_zero, options).shape); });
  if (partial != public_answer) fuzz::invariant_broken("partial instantiation " + partial + " != infer_shape " + public_answer);

  // The fast path on the same question: the same shape, or the same error code.
  const bool plain_input = input.is_static() && std::none_of(input.begin(), input.end(), [](const dimension& d) {
    return d.has_symbol();
  });
  const auto elements = pattern.elements();
  const bool plain_pattern = pattern.kind() == pattern_kind::values && pattern.too_large().empty() &&
                             pattern.tensor_shape().rank_known() && pattern.tensor_shape().size() == 1 &&
                             std::none_of(elements.begin(), elements.end(), [](const auto& b) { return static_cast<bool>(b.symbol); });
  if (plain_input && plain_pattern) {
    std::vector<std::int64_t> values;
    for (const auto& b : elements) values.push_back(b.lo);
    const auto fast = answer([&] { return to_string(infer_static_shape(input.to_static(), values, special_zero, options)); });
    if (fast != general) fuzz::invariant_broken("fast path " + fast + " != general " + general);
  }
  if (!result) return 0;

  if (parse_shape(general) != result->shape) fuzz::invariant_broken("result does not round-trip: " + general);
  if (input.is_static() && result->shape.is_static() &&
      input.to_static().element_count() != result->shape.to_static().element_count())
    fuzz::invariant_broken("element count changed: " + to_string(input) + " -> " + general);

  // Sound bounds: pick one run-time instance (a value inside each input dimension and each pattern
  // element's bounds); when that static reshape is valid, its output must lie inside the sound result.
  // Symbols are left out here (tests/sound_test.cpp instantiates them consistently).
  const bool symbol_free_input = input.rank_known() && std::none_of(input.begin(), input.end(), [](const dimension& d) {
    return d.has_symbol();
  });
  const bool symbol_free_pattern =
      std::none_of(elements.begin(), elements.end(), [](const auto& b) { return static_cast<bool>(b.symbol); });
  if (pattern.kind() == pattern_kind::bounds && symbol_free_input && symbol_free_pattern) {
    reshape_options sound_options = options;
    sound_options.sound_bounds = true;
    reshape_result sound;
    try {
      sound = infer_shape(input, pattern, special_zero, sound_options);
    } catch (const error&) {
      return 0;
    }
    auto pick = [&](std::int64_t lo, std::int64_t hi) -> std::optional<std::int64_t> {
      if (hi == pattern_bound::no_upper) hi = lo > INT64_MAX - 64 ? INT64_MAX : lo + 64;
      if (hi < lo) return std::nullopt;
      const auto width = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
      return lo + static_cast<std::int64_t>(width < 64 ? in.below(static_cast<std::size_t>(width) + 1) : in.below(64));
    };
    std::vector<std::int64_t> dims, values;
    for (const auto& d : input) {
      const auto v = pick(d.lo(), d.hi());
      if (!v) return 0;
      dims.push_back(*v);
    }
    for (const auto& b : elements) {
      const auto v = pick(std::max<std::int64_t>(b.lo, -1), b.hi);
      if (!v) return 0;
      values.push_back(*v);
    }
    shape concrete;
    try {
      concrete = infer_static_shape(shape(dims), values, special_zero, options);
    } catch (const error&) {
      return 0;
    }
    const auto& s = sound.shape;
    bool inside = !s.rank_known() || s.size() == concrete.size();
    for (std::size_t i = 0; inside && s.rank_known() && i < s.size(); ++i) inside = s[i].range().contains(concrete[i]);
    if (!inside)
      fuzz::invariant_broken("instance " + to_string(shape(dims)) + " gives " + to_string(concrete) +
                             ", outside the sound result " + to_string(s) + " for " + to_string(input) + " . " +
                             to_string(pattern));
  }
  return 0;
}

