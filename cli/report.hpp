// reshape1 CLI: text and JSON output of results and errors.
#pragma once

#include <nlohmann/json.hpp>

#include "reshape1/reshape1.hpp"

namespace reshape1::cli {

/// The conformance dimension encoding: an integer for a static dimension without symbol,
/// {"min", "max" (null when unbounded), "symbol"} otherwise; "[...]" for an unknown rank.
nlohmann::ordered_json dims_json(const partial_shape& s);
nlohmann::ordered_json result_json(const reshape_result& r);
nlohmann::ordered_json error_json(const error& e, const std::string& message);

}  // namespace reshape1::cli
