// The text notation of shapes and patterns (docs/semantics.md, "Notation"): parsing and canonical
// printing. Parse errors carry the character offset of what is wrong.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "detail/fail.hpp"
#include "reshape1/partial_shape.hpp"
#include "reshape1/reshape.hpp"

namespace reshape1 {
namespace {

constexpr std::string_view dimension_hint =
    "dimensions look like 5, ?, 2..8, 2.., ..8 or -1, optionally followed by @name";
constexpr std::string_view element_hint =
    "pattern elements look like 4, 0, -1, ?, 2..8 or -7..0, optionally followed by @name";

struct number {
  bool negative = false;
  std::uint64_t magnitude = 0;
  std::size_t offset = 0;
  [[nodiscard]] bool fits_int64() const noexcept {
    return negative ? magnitude <= std::uint64_t{1} << 63
                    : magnitude <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  }
  [[nodiscard]] std::int64_t as_int64() const noexcept {
    return negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
  }
  [[nodiscard]] std::string text() const { return fmt::format("{}{}", negative ? "-" : "", magnitude); }
};

class cursor {
 public:
  explicit cursor(std::string_view text) : text_(text) {}

  void skip_spaces() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  [[nodiscard]] bool at_end() const { return pos_ >= text_.size(); }
  [[nodiscard]] char peek() const { return at_end() ? '\0' : text_[pos_]; }
  [[nodiscard]] std::size_t pos() const { return pos_; }
  bool eat(std::string_view s) {
    if (text_.substr(pos_, s.size()) != s) return false;
    pos_ += s.size();
    return true;
  }
  [[nodiscard]] bool at_digit() const { return std::isdigit(static_cast<unsigned char>(peek())) != 0; }

  [[noreturn]] void expected(std::string_view what, std::string_view hint) const { expected_at(pos_, what, hint); }
  [[noreturn]] void expected_at(std::size_t at, std::string_view what, std::string_view hint) const {
    // One byte of the text: a control byte or a byte of a multi-byte character is shown as \xNN, so the
    // message stays printable, valid UTF-8, and whole where it is read as a C string (a NUL would end it).
    const auto byte = at < text_.size() ? static_cast<unsigned char>(text_[at]) : 0;
    std::string found = at >= text_.size() ? std::string("the end of the text")
                        : byte < 0x20 || byte >= 0x7F ? fmt::format("'\\x{:02X}'", byte)
                                                      : fmt::format("'{}'", text_.substr(at, 1));
    detail::fail(errc::syntax, {.offset = at}, fmt::format("offset {}: expected {}, found {}; {}", at, what, found, hint));
  }
  [[noreturn]] void fail_at(std::size_t at, errc code, std::string_view what) const {
    detail::fail(code, {.offset = at}, fmt::format("offset {}: {}", at, what));
  }

  /// An optionally signed decimal integer whose magnitude fits 64 bits.
  number read_number(std::string_view hint) {
    number n;
    n.offset = pos_;
    n.negative = eat("-");
    if (!at_digit()) expected("a digit", hint);
    while (at_digit()) {
      const auto digit = static_cast<std::uint64_t>(peek() - '0');
      if (n.magnitude > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
        while (at_digit()) ++pos_;
        fail_at(n.offset, errc::value_range,
                fmt::format("number {} does not fit 64 bits", text_.substr(n.offset, pos_ - n.offset)));
      }
      n.magnitude = n.magnitude * 10 + digit;
      ++pos_;
    }
    return n;
  }

  /// `@name` if present; no symbol otherwise.
  symbol read_symbol() {
    if (!eat("@")) return {};
    const auto start = pos_;
    auto ident_start = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; };
    if (!ident_start(peek())) expected("a symbol name after '@'", "symbol names are letters, digits and _");
    while (!at_end() && (ident_start(peek()) || std::isdigit(static_cast<unsigned char>(peek())) != 0)) ++pos_;
    return symbol(text_.substr(start, pos_ - start));
  }

  void expect_end() {
    skip_spaces();
    if (!at_end()) expected("the end of the text", "remove what follows");
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

std::int64_t non_negative(const cursor& c, const number& n) {
  if (n.negative) {
    c.fail_at(n.offset, errc::invalid_shape,
              fmt::format("dimension {} is negative; use ? (or -1) for an unknown dimension", n.text()));
  }
  if (!n.fits_int64()) c.fail_at(n.offset, errc::value_range, fmt::format("dimension {} does not fit int64", n.text()));
  return n.as_int64();
}

dimension read_dimension(cursor& c) {
  const auto start = c.pos();
  interval range;
  if (c.eat("?")) {
    range = interval();
  } else if (c.eat("..")) {
    range = interval(0, non_negative(c, c.read_number(dimension_hint)));
  } else if (c.peek() == '-' || c.at_digit()) {
    const number lo = c.read_number(dimension_hint);
    if (lo.negative && lo.magnitude == 1) {
      range = interval();  // OpenVINO IR writes an unknown dimension as -1
    } else {
      const auto lo_value = non_negative(c, lo);
      if (c.eat("..")) {
        if (c.at_digit() || c.peek() == '-') {
          const auto hi_value = non_negative(c, c.read_number(dimension_hint));
          if (hi_value < lo_value)
            c.fail_at(start, errc::invalid_shape,
                      fmt::format("interval {}..{} is empty; the lower bound must not exceed the upper", lo_value,
                                  hi_value));
          range = interval(lo_value, hi_value);
        } else {
          range = interval(lo_value, interval::unbounded);
        }
      } else {
        range = interval(lo_value);
      }
    }
  } else {
    c.expected("a dimension", dimension_hint);
  }
  return dimension(range, c.read_symbol());
}

struct parsed_element {
  pattern_bound bound;
  bool plain_unknown = false;            // a bare `?`
  std::optional<std::uint64_t> too_big;  // a value above int64 (u64 patterns)
  std::size_t offset = 0;
};

/// The range of values an integer element type holds, as [min, max] with max up to 2^64-1.
struct type_range {
  bool has_min_negative;
  std::uint64_t neg_magnitude;  // |min| when negative
  std::uint64_t max;
};

type_range range_of(element_type t) {
  const auto bits = bit_width(t);
  if (is_signed_integer(t)) {
    const auto half = std::uint64_t{1} << (bits - 1);
    return {true, half, half - 1};
  }
  return {false, 0, bits == 64 ? std::numeric_limits<std::uint64_t>::max() : (std::uint64_t{1} << bits) - 1};
}

void check_fits(const number& n, element_type t, std::size_t index) {
  if (!is_integer(t)) {
    if (!n.fits_int64())
      detail::fail(errc::value_range, {.indices = {index}, .offset = n.offset},
                   fmt::format("offset {} (pattern[{}]): value {} does not fit int64", n.offset, index, n.text()));
    return;
  }
  const auto r = range_of(t);
  const bool fits = n.negative ? (r.has_min_negative && n.magnitude <= r.neg_magnitude) || n.magnitude == 0
                               : n.magnitude <= r.max;
  if (!fits) {
    const auto min_text = r.has_min_negative ? fmt::format("-{}", r.neg_magnitude) : std::string("0");
    detail::fail(errc::value_range, {.indices = {index}, .offset = n.offset},
                 fmt::format("offset {} (pattern[{}]): value {} does not fit {} ({}..{}); choose a wider element type",
                             n.offset, index, n.text(), name(t), min_text, r.max));
  }
}

parsed_element read_element(cursor& c, element_type t, std::size_t index) {
  parsed_element e;
  e.offset = c.pos();
  auto bound_value = [&](const number& n) {
    check_fits(n, t, index);
    if (!n.fits_int64())
      detail::fail(errc::value_range, {.indices = {index}, .offset = n.offset},
                   fmt::format("offset {} (pattern[{}]): bound {} does not fit int64", n.offset, index, n.text()));
    return n.as_int64();
  };
  if (c.eat("?")) {
    e.bound = {0, interval::unbounded, {}};
    e.plain_unknown = true;
  } else if (c.eat("..")) {
    e.bound = {0, bound_value(c.read_number(element_hint)), {}};
  } else if (c.peek() == '-' || c.at_digit()) {
    const number lo = c.read_number(element_hint);
    check_fits(lo, t, index);
    if (c.eat("..")) {
      const auto lo_value = bound_value(lo);
      if (c.at_digit() || c.peek() == '-') {
        const auto hi_value = bound_value(c.read_number(element_hint));
        if (hi_value < lo_value)
          detail::fail(errc::syntax, {.indices = {index}, .offset = e.offset},
                       fmt::format("offset {} (pattern[{}]): bounds {}..{} are empty; the lower bound must not "
                                   "exceed the upper",
                                   e.offset, index, lo_value, hi_value));
        e.bound = {lo_value, hi_value, {}};
      } else {
        e.bound = {lo_value, interval::unbounded, {}};
      }
    } else if (lo.fits_int64()) {
      e.bound = {lo.as_int64(), lo.as_int64(), {}};
    } else {
      e.too_big = lo.magnitude;  // a u64 value above int64: inference reports it (invalid_value)
    }
  } else {
    c.expected("a pattern element", element_hint);
  }
  e.bound.symbol = c.read_symbol();
  if (e.bound.symbol) e.plain_unknown = false;
  return e;
}

/// `5`, `?`, `2..`, `..8`, `2..8` (lo may be negative for pattern bounds), then `@symbol`.
std::string range_text(std::int64_t lo, std::int64_t hi, symbol sym) {
  std::string s;
  if (lo == hi) {
    s = fmt::format("{}", lo);
  } else if (hi == interval::unbounded) {
    s = lo == 0 ? "?" : fmt::format("{}..", lo);
  } else if (lo == 0) {
    s = fmt::format("..{}", hi);
  } else {
    s = fmt::format("{}..{}", lo, hi);
  }
  // A name that starts with a control character is one the model analysis gives the dimensions its own runs
  // leave unknown (no text can spell it): it names nothing a reader could look up, so it is left out.
  if (sym && !sym.name().empty() && static_cast<unsigned char>(sym.name().front()) >= 0x20) {
    s += '@';
    s += sym.name();
  }
  return s;
}

std::string bound_text(const pattern_bound& b) { return range_text(b.lo, b.hi, b.symbol); }

}  // namespace

std::string to_string(const dimension& d) { return range_text(d.lo(), d.hi(), d.symbol()); }

std::string to_string(const partial_shape& s) {
  if (!s.rank_known()) return "[...]";
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i != 0) out += ',';
    out += to_string(s[i]);
  }
  out += ']';
  return out;
}

partial_shape parse_shape(std::string_view text) {
  cursor c(text);
  c.skip_spaces();
  if (!c.eat("[")) c.expected("'[' to start a shape", "write a shape as [2,?,1..10], [] or [...]");
  c.skip_spaces();
  if (c.eat("...")) {
    c.skip_spaces();
    if (!c.eat("]")) c.expected("']' after '...'", "a shape of unknown rank is written [...]");
    c.expect_end();
    return partial_shape::dynamic();
  }
  std::vector<dimension> dims;
  if (!c.eat("]")) {
    for (;;) {
      c.skip_spaces();
      if (dims.size() == max_rank)
        detail::fail(errc::too_large, {.offset = c.pos()},
                     fmt::format("offset {}: more than {} dimensions; reshape1 reads shapes of rank up to {}", c.pos(),
                                 max_rank, max_rank));
      dims.push_back(read_dimension(c));
      c.skip_spaces();
      if (c.eat("]")) break;
      if (!c.eat(","))
        c.expected("',' or ']'", c.peek() == '.' ? "dimensions are integers" : "separate dimensions with commas");
    }
  }
  c.expect_end();
  return partial_shape(std::move(dims));
}

reshape_pattern parse_pattern(std::string_view text, element_type type) {
  cursor c(text);
  c.skip_spaces();
  std::vector<parsed_element> elements;
  bool bracketed = true;
  if (c.eat("[")) {
    c.skip_spaces();
    if (c.eat("...")) {
      c.skip_spaces();
      if (!c.eat("]")) c.expected("']' after '...'", "a pattern of unknown length is written [...]");
      c.expect_end();
      return reshape_pattern::unknown(partial_shape::dynamic()).with_element_type(type);
    }
    if (!c.eat("]")) {
      for (;;) {
        c.skip_spaces();
        if (elements.size() == max_rank)
          detail::fail(errc::too_large, {.offset = c.pos()},
                       fmt::format("offset {}: more than {} elements; reshape1 reads patterns of up to {}", c.pos(),
                                   max_rank, max_rank));
        elements.push_back(read_element(c, type, elements.size()));
        c.skip_spaces();
        if (c.eat("]")) break;
        if (!c.eat(","))
          c.expected("',' or ']'", c.peek() == '.' ? "pattern values are integers"
                                                   : "separate pattern elements with commas");
      }
    }
  } else {
    bracketed = false;  // a bare element: a rank-0 pattern
    elements.push_back(read_element(c, type, 0));
  }
  c.expect_end();

  const partial_shape tensor_shape =
      bracketed ? partial_shape{dimension(static_cast<std::int64_t>(elements.size()))} : partial_shape{};
  const bool all_plain_unknown =
      !elements.empty() && std::all_of(elements.begin(), elements.end(), [](const auto& e) { return e.plain_unknown; });
  if (all_plain_unknown) return reshape_pattern::unknown(tensor_shape).with_element_type(type);

  const bool all_values = std::all_of(elements.begin(), elements.end(),
                                      [](const auto& e) { return e.too_big || e.bound.lo == e.bound.hi; });
  std::vector<std::int64_t> values;
  std::vector<symbol> symbols;
  std::vector<pattern_bound> bounds;
  for (const auto& e : elements) {
    values.push_back(e.bound.lo);
    symbols.push_back(e.bound.symbol);
    bounds.push_back(e.bound);
  }
  const bool any_symbol = std::any_of(symbols.begin(), symbols.end(), [](symbol s) { return static_cast<bool>(s); });
  reshape_pattern p = all_values ? reshape_pattern::from_values(values, any_symbol ? std::span<const symbol>(symbols)
                                                                                   : std::span<const symbol>())
                                 : reshape_pattern::from_bounds(std::move(bounds));
  // Values above int64 (u64 patterns) are kept for inference to report as invalid_value.
  for (std::size_t i = 0; i < elements.size(); ++i)
    if (elements[i].too_big) p.too_large_.emplace_back(i, *elements[i].too_big);
  return p.with_tensor_shape(tensor_shape).with_element_type(type);
}

std::string to_string(const reshape_pattern& p) {
  const auto& ts = p.tensor_shape();
  if (p.kind() == pattern_kind::unknown) {
    if (!ts.rank_known()) return "[...]";
    if (ts.size() == 0) return "?";
    if (ts.size() == 1) {
      if (!ts[0].is_static()) return "[...]";
      if (static_cast<std::uint64_t>(ts[0].lo()) > max_rank) return fmt::format("<{} unknown values>", ts[0].lo());
      std::string s = "[";
      for (std::int64_t i = 0; i < ts[0].lo(); ++i) s += i == 0 ? "?" : ",?";
      s += ']';
      return s;
    }
    return fmt::format("<shape {}>", to_string(ts));
  }
  auto element_text = [&](std::size_t i) {
    for (const auto& [index, value] : p.too_large())
      if (index == i) {
        const symbol sym = p.elements()[i].symbol;
        return sym ? fmt::format("{}@{}", value, sym.name()) : fmt::format("{}", value);
      }
    return bound_text(p.elements()[i]);
  };
  if (ts.rank_known() && ts.size() == 0 && p.elements().size() == 1) return element_text(0);
  if (ts.rank_known() && ts.size() == 1) {
    std::string s = "[";
    for (std::size_t i = 0; i < p.elements().size(); ++i) {
      if (i != 0) s += ',';
      s += element_text(i);
    }
    s += ']';
    return s;
  }
  return fmt::format("<shape {}>", to_string(ts));
}

}  // namespace reshape1
