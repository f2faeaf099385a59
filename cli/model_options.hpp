// reshape1 CLI: the options of `check` and `fix` declared from the one table the Python functions and the
// docs share (src/model/options.hpp), so that a name, a placeholder or a meaning is written once.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>

#include <CLI/CLI.hpp>

#include "model/options.hpp"

namespace reshape1::cli {

/// Adds the option `key` of `command` (a row of the table) to `cmd`, storing into `into`: a flag for a
/// bool, else an option whose value placeholder and help come from the row.
template <class T>
CLI::Option* add_table_option(CLI::App& cmd, model::detail::option key, std::string_view command, T& into) {
  const auto& row = model::detail::option_of(key, command);
  std::string help(row.help);
  if (row.repeatable) help += " (repeatable)";
  if constexpr (std::is_same_v<T, bool>) {
    return cmd.add_flag(std::string(row.cli), into, help);
  } else {
    auto* o = cmd.add_option(std::string(row.cli), into, help);
    if (!row.cli_value.empty()) o->type_name(std::string(row.cli_value));
    if (row.repeatable) o->allow_extra_args(false);
    // A file option given an empty value (a script's unset "$BIN") is refused, not taken as left out.
    if (row.cli_value == "FILE" || row.cli_value == "DIR") {
      const std::string what = row.cli_value == "FILE" ? "an empty file name" : "an empty directory name";
      o->check(CLI::Validator([what](const std::string& v) { return v.empty() ? what : std::string(); }, "", "not empty"));
    }
    return o;
  }
}

}  // namespace reshape1::cli
