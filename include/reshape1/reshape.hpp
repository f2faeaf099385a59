// reshape1: Reshape-1 shape inference.
//
//   reshape1::infer_shape(input, pattern, special_zero [, options])          partial shapes
//   reshape1::infer_static_shape(input, pattern, special_zero [, options])   static shapes
//
// One algorithm (docs/semantics.md), written once over the dimension type: infer_static_shape is its
// instantiation on plain 64-bit integers.
#pragma once

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reshape1/element_type.hpp"
#include "reshape1/partial_shape.hpp"
#include "reshape1/shape.hpp"
#include "reshape1/symbol.hpp"

namespace reshape1 {

/// How -1 is resolved when another output dimension is a literal 0 (an empty tensor).
enum class empty_rule {
  openvino,    ///< OpenVINO's answer: [0,3] with [0,-1] gives [0,1]
  tensorflow,  ///< zero dimensions are left out of both products: [0,3] with [0,-1] gives [0,3]
  strict,      ///< refuse: the value of -1 is ambiguous (infer_zero)
};

struct reshape_options {
  empty_rule empty = empty_rule::openvino;
  /// Bounds that contain -1 or (with special_zero) 0 without being exactly it are read in every
  /// way they could be at run time, and the result covers all readings.
  bool sound_bounds = false;
  /// Accept a rank-0 pattern holding 1 as a request for a scalar, as older OpenVINO did.
  bool legacy_scalar_pattern = false;
};

/// One pattern element known by its bounds: lo == hi for a known value. Bounds may be negative: they
/// come from arithmetic on other tensors. One encoding of "unknown": `hi == no_upper` means no upper
/// bound, `lo == no_lower` no lower bound. (OpenVINO's bound evaluation writes an unbounded upper as -1;
/// reshape_pattern::from_bounds turns `hi == -1` with `lo >= 0` into no_upper, so nothing else sees it.)
struct pattern_bound {
  static constexpr std::int64_t no_lower = std::numeric_limits<std::int64_t>::min();
  static constexpr std::int64_t no_upper = interval::unbounded;
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  reshape1::symbol symbol{};
  friend bool operator==(const pattern_bound&, const pattern_bound&) = default;
};

/// What is known of a pattern's elements.
enum class pattern_kind {
  values,   ///< every element's value
  bounds,   ///< per-element bounds (a value is a bound with lo == hi)
  unknown,  ///< nothing but the tensor's shape (its length, when that is known)
};

/// The second input of Reshape: a 1-D integer tensor, known by its values, by per-element bounds,
/// by its length only, or not at all.
class reshape_pattern {
 public:
  /// Known values; symbols (optional, one per value, {} for none) come from shape sub-graphs.
  [[nodiscard]] static reshape_pattern from_values(std::span<const std::int64_t> values,
                                                   std::span<const symbol> symbols = {});
  /// Known bounds per element (`hi == -1` with `lo >= 0` is read as no upper bound).
  [[nodiscard]] static reshape_pattern from_bounds(std::vector<pattern_bound> bounds);
  /// Values unknown, length known (any length >= 0: inference refuses one above max_rank).
  [[nodiscard]] static reshape_pattern of_length(std::int64_t length);
  /// Values unknown; `tensor_shape` is the pattern tensor's own shape (`[?]`, `[...]`, `[]`...).
  [[nodiscard]] static reshape_pattern unknown(partial_shape tensor_shape = partial_shape::dynamic());
  /// A rank-0 pattern holding `value` (rejected unless legacy_scalar_pattern).
  [[nodiscard]] static reshape_pattern scalar(std::int64_t value);
  /// A tensor's bytes, decoded exactly from `type` (sub-byte and split-bit types unpacked as
  /// OpenVINO packs them). Unsigned values above int64 are kept and reported by inference.
  /// Throws error(invalid_argument) when `bytes` is not the tensor's storage size, error(too_large)
  /// for more than max_rank elements.
  [[nodiscard]] static reshape_pattern from_tensor(element_type type, std::span<const std::byte> bytes,
                                                   const shape& tensor_shape);

  /// The same pattern declared with another element type (validated by inference).
  [[nodiscard]] reshape_pattern with_element_type(element_type type) const;
  /// The same elements held in a tensor of another shape, e.g. [3,1] (validated by inference).
  [[nodiscard]] reshape_pattern with_tensor_shape(partial_shape tensor_shape) const;

  [[nodiscard]] pattern_kind kind() const noexcept { return kind_; }
  [[nodiscard]] element_type type() const noexcept { return type_; }
  [[nodiscard]] const partial_shape& tensor_shape() const noexcept { return tensor_shape_; }
  /// Elements (values or bounds); empty when the values are unknown.
  [[nodiscard]] std::span<const pattern_bound> elements() const noexcept { return elements_; }
  /// Elements whose unsigned value does not fit int64: (index, value).
  [[nodiscard]] std::span<const std::pair<std::size_t, std::uint64_t>> too_large() const noexcept {
    return too_large_;
  }

  friend bool operator==(const reshape_pattern&, const reshape_pattern&) = default;
  friend reshape_pattern parse_pattern(std::string_view text, element_type type);

 private:
  pattern_kind kind_ = pattern_kind::values;
  element_type type_ = element_type::i64;
  partial_shape tensor_shape_;
  std::vector<pattern_bound> elements_;
  std::vector<std::pair<std::size_t, std::uint64_t>> too_large_;
};

/// Canonical text of a pattern: `[0,-1,4]`, `[-7..0,?@A]`, `[?,?]`, `[...]`, `1` (rank 0).
/// Patterns held in tensors of rank 2 or more have no text form: `<shape [3,1]>`.
[[nodiscard]] std::string to_string(const reshape_pattern& p);
/// Parses the pattern notation. `type` is the declared element type: every literal must fit it
/// (error(value_range)); error(syntax) carries the character offset.
[[nodiscard]] reshape_pattern parse_pattern(std::string_view text, element_type type = element_type::i64);

/// Two symbols that a reshape proves equal: the input side's and the output side's.
struct symbol_equality {
  symbol input;
  symbol output;
  friend bool operator==(const symbol_equality&, const symbol_equality&) = default;
};

struct reshape_result {
  partial_shape shape;
  /// Symbols that the reshape proves equal. Reshape-1 proves at most one equality (the products
  /// on both sides of the element count), so this list holds 0 or 1 entries and never allocates.
  detail::inline_vector<symbol_equality, 1> symbol_equalities;
  friend bool operator==(const reshape_result& a, const reshape_result& b) noexcept {
    const auto x = a.symbol_equalities.span(), y = b.symbol_equalities.span();
    return a.shape == b.shape && std::equal(x.begin(), x.end(), y.begin(), y.end());
  }
};

/// Inference on partial shapes: intervals, symbols, unknown ranks, pattern bounds. Throws
/// reshape1::error. Allocates nothing for input ranks and pattern lengths up to shape::inline_rank
/// (only the result's storage, which is inline up to that rank). Thread-safe.
[[nodiscard]] reshape_result infer_shape(const partial_shape& input, const reshape_pattern& pattern,
                                         bool special_zero, const reshape_options& options = {});

/// The same algorithm on a static input and known i64 pattern values: plain checked 64-bit
/// arithmetic, no heap allocation when the output rank is at most shape::inline_rank. Same answers
/// and messages as infer_shape. Throws reshape1::error. Thread-safe.
[[nodiscard]] shape infer_static_shape(const shape& input, std::span<const std::int64_t> pattern, bool special_zero,
                                       const reshape_options& options = {});

}  // namespace reshape1
