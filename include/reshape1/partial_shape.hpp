// reshape1: a shape that may have an unknown rank, interval dimensions and symbols.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "reshape1/dimension.hpp"
#include "reshape1/shape.hpp"

namespace reshape1 {

class partial_shape {
 public:
  /// The scalar shape `[]`.
  partial_shape() = default;
  explicit partial_shape(std::vector<dimension> dims) : dims_(std::move(dims)) {}
  partial_shape(std::initializer_list<dimension> dims) : dims_(dims) {}
  explicit partial_shape(const shape& s);
  /// `[...]`: the rank is unknown.
  [[nodiscard]] static partial_shape dynamic();

  [[nodiscard]] bool rank_known() const noexcept { return rank_known_; }
  /// The rank; 0 when the rank is unknown (check rank_known() first).
  [[nodiscard]] std::size_t size() const noexcept { return dims_.size(); }
  [[nodiscard]] const dimension& operator[](std::size_t i) const { return dims_[i]; }
  [[nodiscard]] const std::vector<dimension>& dims() const noexcept { return dims_; }
  [[nodiscard]] auto begin() const noexcept { return dims_.begin(); }
  [[nodiscard]] auto end() const noexcept { return dims_.end(); }
  /// Known rank and every dimension static.
  [[nodiscard]] bool is_static() const noexcept;
  /// The static shape; throws error(invalid_argument) when !is_static().
  [[nodiscard]] shape to_static() const;

  friend bool operator==(const partial_shape&, const partial_shape&) = default;

 private:
  std::vector<dimension> dims_;
  bool rank_known_ = true;
};

/// Canonical text: `[2,?@A,1..10]`, `[]`, `[...]`.
[[nodiscard]] std::string to_string(const partial_shape& s);
/// `5`, `?`, `2..8`, `2..`, `..8`, each optionally followed by `@name`.
[[nodiscard]] std::string to_string(const dimension& d);
/// Parses the notation of docs/semantics.md; `-1` is accepted as `?`. Throws error(syntax) with
/// the character offset of what is wrong.
[[nodiscard]] partial_shape parse_shape(std::string_view text);

}  // namespace reshape1
