#include "reshape1/version.hpp"

namespace reshape1 {

std::string_view version() noexcept { return RESHAPE1_VERSION_STRING; }

}  // namespace reshape1
