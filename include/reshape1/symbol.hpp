// reshape1: symbols, the names that mark dimensions known to be equal (`?@A`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace reshape1 {

/// A symbol is a small handle to an interned name: copying and comparing one costs a pointer.
/// `symbol{}` (or an empty name) means "no symbol". Names are interned once per process and kept
/// until it exits; creating a symbol from a name is thread-safe, and so is everything else.
class symbol {
 public:
  constexpr symbol() noexcept = default;
  symbol(std::string_view name);  // NOLINT: a name is a symbol
  symbol(const std::string& name) : symbol(std::string_view(name)) {}  // NOLINT
  template <std::size_t N>
  symbol(const char (&name)[N]) : symbol(std::string_view(name)) {}  // NOLINT: string literals

  /// The name; "" for no symbol.
  [[nodiscard]] std::string_view name() const noexcept { return name_ ? std::string_view(*name_) : std::string_view(); }
  [[nodiscard]] explicit operator bool() const noexcept { return name_ != nullptr; }
  /// A number that identifies the symbol within this process (0 for none): for hashing and for
  /// ordering that need not be alphabetical. Not stable across processes.
  [[nodiscard]] std::uintptr_t id() const noexcept { return reinterpret_cast<std::uintptr_t>(name_); }
  friend bool operator==(symbol, symbol) noexcept = default;

 private:
  const std::string* name_ = nullptr;
};

}  // namespace reshape1

template <>
struct std::hash<reshape1::symbol> {
  std::size_t operator()(reshape1::symbol s) const noexcept { return std::hash<std::uintptr_t>()(s.id()); }
};
