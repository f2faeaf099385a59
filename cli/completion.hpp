// reshape1 CLI: shell completion scripts, generated from the tool's own subcommands and options.
#pragma once

#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace reshape1::cli {

/// The completion script for `shell` ("bash" or "zsh") of every subcommand and option of `app`.
[[nodiscard]] std::string completion_script(const CLI::App& app, std::string_view shell);

/// Adds `--completion SHELL`, which prints that script and exits.
void add_completion(CLI::App& app);

}  // namespace reshape1::cli
