// reshape1 CLI: subcommand registration. Each subcommand lives in its own file; app.cpp turns what they
// throw into messages and exit codes, in one place.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace reshape1::cli {

/// Exit codes (docs/cli.md has the table, tests/cli checks it): 0 success, 1 invalid input (or a check
/// that found problems), 2 usage error (or, for check, a model that cannot be read), 3 a bug in reshape1.
inline constexpr int exit_ok = 0;
inline constexpr int exit_invalid = 1;
inline constexpr int exit_usage = 2;
inline constexpr int exit_internal = 3;
/// `check --batch`: no rule decides whether the model keeps its meaning.
inline constexpr int exit_cannot_tell = 4;

/// The state a subcommand shares with main: which subcommand ran, which argument it was reading when an
/// error was thrown, and how errors are printed.
struct session {
  std::string command;  // "infer", "run", "check"
  std::string context;  // e.g. "PATTERN '[1,2'"; empty when the error names its own place
  bool json = false;    // errors as a JSON object on standard output (infer --json)
  int exit_code = exit_ok;
};

/// Adds `infer` to `app`. Its callback throws reshape1::error (or CLI::ParseError for a bad option value
/// found late) and leaves its exit code in `s`.
void add_infer(CLI::App& app, session& s);
/// Adds `run`.
void add_run(CLI::App& app, session& s);
/// Adds `check`.
void add_check(CLI::App& app, session& s);
/// Adds `fix`.
void add_fix(CLI::App& app, session& s);
/// Adds `shapes`.
void add_shapes(CLI::App& app, session& s);

/// The tool: parses `argv` (argv[0] is the program), runs the subcommand, prints what it prints, and returns
/// its exit code. Throws nothing. Called once per process by the program, once per command by the
/// WebAssembly module.
int main(int argc, char** argv);

}  // namespace reshape1::cli
