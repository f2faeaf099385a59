// `reshape1 infer INPUT PATTERN --special-zero true|false [options]`
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include "options.hpp"
#include "report.hpp"
#include "reshape1/reshape1.hpp"

namespace reshape1::cli {
namespace {

struct infer_args {
  std::string input;
  std::string pattern;
  reshape_flags flags;
  bool json = false;
};

int run_infer(const infer_args& a) {
  // `what` names the argument an error belongs to; inference errors name the pattern themselves.
  std::string what;
  auto report = [&](const error& e) {
    const std::string message = what.empty() ? e.what() : fmt::format("{}: {}", what, e.what());
    if (a.json) {
      std::cout << error_json(e, message).dump() << '\n';
    } else {
      std::cerr << "reshape1 infer: " << message << '\n';
    }
    return exit_invalid;
  };
  try {
    what = "--pattern-type";
    const element_type type = a.flags.pattern_element_type();
    what = fmt::format("INPUT '{}'", a.input);
    const partial_shape input = parse_shape(a.input);
    what = fmt::format("PATTERN '{}'", a.pattern);
    const reshape_pattern pattern = parse_pattern(a.pattern, type);
    what.clear();

    const reshape_result r = infer_shape(input, pattern, a.flags.zero_copies(), a.flags.options());
    if (a.json) {
      std::cout << result_json(r).dump() << '\n';
    } else {
      std::cout << to_string(r.shape) << '\n';
      for (const auto& eq : r.symbol_equalities) std::cout << eq.input.name() << " == " << eq.output.name() << '\n';
    }
    return exit_ok;
  } catch (const error& e) {
    return report(e);
  }
}

}  // namespace

void add_infer(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<infer_args>();
  auto* cmd = app.add_subcommand("infer", "Infer the output shape of Reshape-1");
  cmd->footer(
      "Shapes: [2,5,5,24], [2,?@A,1..10], [] (scalar), [...] (unknown rank).\n"
      "Patterns: [0,-1,4]; elements known only by bounds: [2..8,?@A]; values unknown: [?,?]; length "
      "unknown: [...].\n"
      "Use -- before a pattern that starts with '-':  reshape1 infer --special-zero false -- '[]' -1\n"
      "Exit codes: 0 success, 1 invalid input or impossible reshape, 2 usage error.");
  cmd->add_option("INPUT", args->input, "input (data) shape, e.g. [2,5,5,24]")->required();
  cmd->add_option("PATTERN", args->pattern, "pattern, e.g. [0,-1,4]; a bare value is a rank-0 pattern")->required();
  add_reshape_flags(*cmd, args->flags, /*with_sound_bounds=*/true);
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback([args, &exit_code] { exit_code = run_infer(*args); });
}

}  // namespace reshape1::cli
