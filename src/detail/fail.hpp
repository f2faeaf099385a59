// Internal: the single way reshape1 fails.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "reshape1/error.hpp"

namespace reshape1::detail {

/// Throws reshape1::error. Every failure in the library goes through here. `message` is
/// `where: what`, `hint` what to do about it.
[[noreturn]] void fail(errc code, location where, std::string message, std::string hint);
/// The same for a message written as `where: what; hint` in one piece.
[[noreturn]] void fail(errc code, location where, std::string message);
/// A whole message (`message; hint`, as error::what() and lost_information::message are) without its
/// hint; as it is when it does not end with "; " and the hint.
[[nodiscard]] std::string_view without_hint(std::string_view whole, std::string_view hint) noexcept;
/// `e`'s message without its hint.
[[nodiscard]] std::string message_of(const error& e);

/// Refuses a rank above max_rank with error(too_large); `what` names the shape ("shape", "input").
void check_rank(std::size_t rank, std::string_view what);

}  // namespace reshape1::detail
