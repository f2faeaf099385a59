// reshape1 CLI: subcommand registration. Each subcommand lives in its own file.
#pragma once

#include <CLI/CLI.hpp>

namespace reshape1::cli {

/// Exit codes: 0 success, 1 invalid input (or a check that found problems), 2 usage error.
inline constexpr int exit_ok = 0;
inline constexpr int exit_invalid = 1;
inline constexpr int exit_usage = 2;

/// Adds `infer` to `app`; the callback stores its exit code in `exit_code`.
void add_infer(CLI::App& app, int& exit_code);
/// Adds `run`.
void add_run(CLI::App& app, int& exit_code);
/// Adds `check`.
void add_check(CLI::App& app, int& exit_code);

}  // namespace reshape1::cli
