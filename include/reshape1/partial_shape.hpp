// reshape1: a shape that may have an unknown rank, interval dimensions and symbols.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reshape1/detail/inline_vector.hpp"
#include "reshape1/dimension.hpp"
#include "reshape1/shape.hpp"

namespace reshape1 {

/// OpenVINO's PartialShape: a list of dimensions, or an unknown rank (`[...]`). Ranks up to
/// shape::inline_rank live inside the object. A moved-from partial shape is the scalar shape `[]`.
class partial_shape {
 public:
  /// The scalar shape `[]`.
  partial_shape() noexcept = default;
  /// `partial_shape{2, {1, 10}, dimension(768, "C")}` is `[2,1..10,768@C]`.
  partial_shape(std::initializer_list<dimension> dims);
  explicit partial_shape(std::span<const dimension> dims);
  explicit partial_shape(const std::vector<dimension>& dims) : partial_shape(std::span<const dimension>(dims)) {}
  /// A static shape is a partial shape whose dimensions are all known.
  partial_shape(const shape& s);  // NOLINT: widening, never loses information
  partial_shape(const partial_shape&) = default;
  partial_shape(partial_shape&& o) noexcept : dims_(std::move(o.dims_)), rank_known_(std::exchange(o.rank_known_, true)) {}
  partial_shape& operator=(const partial_shape&) = default;
  partial_shape& operator=(partial_shape&& o) noexcept {
    dims_ = std::move(o.dims_);
    rank_known_ = std::exchange(o.rank_known_, true);
    return *this;
  }
  ~partial_shape() = default;
  /// `[...]`: the rank is unknown.
  [[nodiscard]] static partial_shape dynamic() noexcept;

  /// The rank, or nullopt when it is unknown.
  [[nodiscard]] std::optional<std::size_t> rank() const noexcept {
    return rank_known_ ? std::optional<std::size_t>(dims_.size()) : std::nullopt;
  }
  [[nodiscard]] bool rank_known() const noexcept { return rank_known_; }
  /// The number of dimensions held: the rank when it is known, 0 when it is not.
  [[nodiscard]] std::size_t size() const noexcept { return dims_.size(); }
  [[nodiscard]] const dimension& operator[](std::size_t i) const noexcept { return dims_.data()[i]; }
  [[nodiscard]] std::span<const dimension> dims() const noexcept { return dims_.span(); }
  [[nodiscard]] const dimension* begin() const noexcept { return dims_.data(); }
  [[nodiscard]] const dimension* end() const noexcept { return dims_.data() + dims_.size(); }
  /// Appends a dimension (a shape of unknown rank stays so). Throws error(too_large) past max_rank.
  void push_back(const dimension& d) {
    if (dims_.size() >= max_rank) [[unlikely]]
      refuse_rank();  // throws
    dims_.push_back(d);
  }
  /// Known rank and every dimension static.
  [[nodiscard]] bool is_static() const noexcept;
  /// The static shape; throws error(invalid_argument) when !is_static().
  [[nodiscard]] shape to_static() const;

  friend bool operator==(const partial_shape& a, const partial_shape& b) noexcept;

 private:
  friend struct detail::shape_access;
  void refuse_rank() const;
  detail::inline_vector<dimension, shape::inline_rank> dims_;
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
