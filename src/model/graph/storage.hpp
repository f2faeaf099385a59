// Internal: what a graph's layers view, filled by the IR reader (model/ir/read.cpp), the builder
// (build.cpp) and the editor (edit.cpp), and the parsing of attribute texts they share.
// Every number is parsed once here, with std::from_chars (detail/compat.hpp); nothing downstream re-reads
// text.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "detail/compat.hpp"
#include "reshape1/model/graph.hpp"
#include "model/ops/rules.hpp"

namespace reshape1::model {
namespace detail {

/// A comma-separated list of T ("" is the empty list; spaces around items are allowed) as a new run of
/// `out`; false (and an empty run) when any item is not a T. One pass over the text.
template <class T, class Arena>
bool parse_list(std::string_view text, Arena& out) {
  out.start();
  const char* p = text.data();
  const char* const end = p + text.size();
  const auto skip_spaces = [&] {
    while (p != end && is_space(*p)) ++p;
  };
  skip_spaces();
  if (p == end) return true;  // "" or only spaces: the empty list
  while (true) {              // at an item, spaces before it skipped
    T v{};
    const auto [next, ec] = reshape1::detail::parse_number(p, end, v);
    if (ec != std::errc() || next == p) break;
    out.append() = v;
    p = next;
    skip_spaces();
    if (p == end) return true;
    if (*p != ',') break;
    ++p;
    skip_spaces();
  }
  out.truncate(0);
  return false;
}

inline std::optional<bool> parse_boolean(std::string_view t) {
  auto equals = [&](std::string_view word) {
    return t.size() == word.size() &&
           std::equal(t.begin(), t.end(), word.begin(), [](char a, char b) { return (a | 0x20) == b; });
  };
  if (t == "1" || equals("true")) return true;
  if (t == "0" || equals("false")) return false;
  return std::nullopt;
}

/// An element type as a layer's `element_type` writes it (`f32`: reshape1's own names, all lower case) or
/// as a port's `precision` does (`FP32`: all upper case).
inline std::optional<element_type> precision(std::string_view p) {
  if (p.empty() || !(p[0] >= 'A' && p[0] <= 'Z')) return find_element_type(p);
  static constexpr std::pair<std::string_view, element_type> names[] = {
      {"FP32", element_type::f32}, {"FP16", element_type::f16}, {"FP64", element_type::f64},
      {"BF16", element_type::bf16}, {"I64", element_type::i64},  {"I32", element_type::i32},
      {"I16", element_type::i16},  {"I8", element_type::i8},     {"U64", element_type::u64},
      {"U32", element_type::u32},  {"U16", element_type::u16},   {"U8", element_type::u8},
      {"BOOL", element_type::boolean}, {"U1", element_type::u1}, {"I4", element_type::i4},
      {"U4", element_type::u4}};
  for (const auto& [n, t] : names)
    if (n == p) return t;
  return std::nullopt;
}

/// error(invalid_argument) for an edit that names a layer the model does not have (edit.cpp).
[[noreturn]] void no_such_layer(std::int64_t id);

}  // namespace detail

// ---- What layers view ---------------------------------------------------------------------------------
// A graph's texts view the parsed XML, which the graph keeps; its ports, attributes, integer and real
// lists and input sources live in one array each (per graph: a TensorIterator's or Loop's body has its
// own), which layers view once every layer is read.

/// Elements appended in runs (a layer's ports, an attribute's integers), each run contiguous, in blocks
/// that never move: what is appended stays where it is, so that a layer can view its runs at once.
template <class T>
class arena {
 public:
  /// Starts a run: the elements appended until the next start() are contiguous.
  void start() {
    if (blocks_.empty()) grow(0);
    start_ = blocks_.back().size();
  }
  T& append() {
    auto* b = &blocks_.back();
    if (b->size() == b->capacity()) {  // full: the run moves to a new block
      const auto run = b->size() - start_;
      grow(run);
      auto& old = blocks_[blocks_.size() - 2];
      b = &blocks_.back();
      std::move(old.begin() + static_cast<std::ptrdiff_t>(start_), old.end(), std::back_inserter(*b));
      old.resize(start_);
      start_ = 0;
    }
    return b->emplace_back();
  }
  [[nodiscard]] std::size_t run_size() const { return blocks_.back().size() - start_; }
  /// Drops the run's elements from the n-th on.
  void truncate(std::size_t n) { blocks_.back().resize(start_ + n); }
  [[nodiscard]] std::span<T> run() { return {blocks_.back().data() + start_, run_size()}; }

 private:
  void grow(std::size_t run) { blocks_.emplace_back().reserve(std::max(block, 2 * run)); }
  static constexpr std::size_t block = std::max<std::size_t>(16, 16384 / sizeof(T));
  std::vector<std::vector<T>> blocks_;
  std::size_t start_ = 0;
};

/// What a graph's layers view.
struct graph_storage {
  std::shared_ptr<const void> text;  // the XML text every string_view points into; shared with the bodies
  arena<attribute> attributes;
  arena<std::int64_t> integers;
  arena<double> reals;
  arena<port> ports;
  arena<dimension> dims;
  std::vector<std::optional<source>> sources;
};

/// Appends the attribute `name`=`text` to st's current run, with what its text reads as: a boolean, an
/// integer list (then a real list too; `reals` is filled only for the others), or a real list.
inline void append_attribute(graph_storage& st, std::string_view name, std::string_view text) {
  attribute& at = st.attributes.append();
  at.name = name;
  at.text = text;
  at.boolean = detail::parse_boolean(model::detail::trim(at.text));
  at.is_integers = detail::parse_list<std::int64_t>(at.text, st.integers);
  at.integers = st.integers.run();
  if (at.is_integers) {
    at.is_reals = true;
  } else {
    at.is_reals = detail::parse_list<double>(at.text, st.reals);
    at.reals = st.reals.run();
  }
}

}  // namespace reshape1::model
