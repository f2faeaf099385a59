// Internal: the single way reshape1 fails.
#pragma once

#include <string>

#include "reshape1/error.hpp"

namespace reshape1::detail {

/// Throws reshape1::error. Every failure in the library goes through here.
[[noreturn]] void fail(errc code, location where, std::string message);

}  // namespace reshape1::detail
