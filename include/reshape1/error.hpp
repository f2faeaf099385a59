// reshape1: the one error type. Every failure has a stable code, a location and a message
// in the grammar `where: what[; hint]`.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace reshape1 {

/// Stable error codes. The names (see name()) are part of the interface: tools match on them.
enum class errc {
  // Reshape-1 validation, in the order the checks run (docs/semantics.md, "Validation").
  pattern_type,       ///< the pattern's element type is not an integer type
  pattern_rank,       ///< the pattern tensor is not 1-D
  invalid_value,      ///< a pattern value or bound pair is below -1, or does not fit int64
  multiple_infer,     ///< more than one -1
  copy_out_of_range,  ///< special_zero copies an input dimension that does not exist
  overflow,           ///< an element count or product of dimensions does not fit int64
  infer_zero,         ///< -1 cannot be inferred because another output dimension is 0
  not_divisible,      ///< no value of -1 keeps the element count
  count_mismatch,     ///< input and output element counts differ
  scalar_pattern,     ///< a rank-0 pattern
  // Text, arguments and values.
  syntax,                ///< malformed shape or pattern text
  unknown_element_type,  ///< an element type name reshape1 does not know
  value_range,           ///< a literal that does not fit its declared element type
  invalid_shape,         ///< a shape that cannot exist (negative or empty-interval dimension)
  invalid_argument,      ///< an API argument that breaks a documented precondition
  // Tensors and files.
  buffer_too_small,  ///< a destination buffer smaller than the data to copy into it
  io,                ///< the operating system refused (open, read, write, rename); its message is appended
  bad_file,          ///< a file that is not what its header or format says
  unsupported,       ///< a valid file or value that reshape1 does not handle (e.g. a complex dtype)
  too_large,         ///< a rank or pattern length above max_rank (2^20), refused before allocating
};

/// The code's stable name, e.g. "multiple_infer".
[[nodiscard]] std::string_view name(errc code) noexcept;

/// Where an error is: pattern indices, a character offset in a text, or a file and byte offset.
struct location {
  std::vector<std::size_t> indices{};  ///< pattern indices involved, in ascending order
  std::optional<std::size_t> offset{};  ///< character offset in a text, or byte offset in `file`
  std::string file{};                   ///< the file involved, if any
  friend bool operator==(const location&, const location&) = default;
};

/// The one exception type. `what()` is the whole message, `where: what; hint`; `hint()` is the part
/// after "; " (what to do about it), "" when there is none.
class error : public std::runtime_error {
 public:
  error(errc code, location where, const std::string& message, std::string hint = {});
  [[nodiscard]] errc code() const noexcept { return code_; }
  [[nodiscard]] const location& where() const noexcept { return where_; }
  [[nodiscard]] const std::string& hint() const noexcept { return hint_; }

 private:
  errc code_;
  location where_;
  std::string hint_;
};

}  // namespace reshape1
