// reshape1 CLI: text and JSON output of results and errors.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "render/reports.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/reshape1.hpp"

namespace reshape1::cli {

using render::json_text;

/// The conformance dimension encoding: an integer for a static dimension without symbol,
/// {"min", "max" (null when unbounded), "symbol"} otherwise; "[...]" for an unknown rank.
nlohmann::ordered_json dims_json(const partial_shape& s);
nlohmann::ordered_json result_json(const reshape_result& r);
nlohmann::ordered_json error_json(const error& e, const std::string& message);
/// The error object of a run that could not allocate what it needed (code `out_of_memory`).
nlohmann::ordered_json out_of_memory_json(const std::string& message);

/// `text` made safe for a terminal: control characters and bytes that are not UTF-8 become \xNN. Use it
/// on everything printed as text that comes from a file or an argument.
[[nodiscard]] std::string printable(std::string_view text);

/// A layer's id in a table: `3/4` for layer 4 in the body of layer 3.
[[nodiscard]] std::string id_path(const std::vector<model::enclosing_layer>& within, std::int64_t id);

/// A table: the head, then each row (cells made printable), each followed by its notes indented by four
/// spaces. Nothing when there are no rows.
void print_table(const std::vector<std::string>& head, std::vector<std::vector<std::string>> rows,
                 const std::vector<std::vector<std::string>>& notes);

}  // namespace reshape1::cli
