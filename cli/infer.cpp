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

int run_infer(const infer_args& a, session& s) {
  s.json = a.json;
  s.context = fmt::format("INPUT '{}'", a.input);
  const partial_shape input = parse_shape(a.input);
  const reshape_pattern pattern = load_pattern(a.pattern, a.flags, s);
  s.context.clear();  // inference errors name the pattern element themselves

  const reshape_result r = infer_shape(input, pattern, a.flags.zero_copies(), a.flags.options());
  if (a.json) {
    std::cout << json_text(result_json(r)) << '\n';
  } else {
    std::cout << printable(to_string(r.shape)) << '\n';
    for (const auto& eq : r.symbol_equalities)
      std::cout << printable(fmt::format("{} == {}", eq.input.name(), eq.output.name())) << '\n';
  }
  return exit_ok;
}

}  // namespace

void add_infer(CLI::App& app, session& s) {
  auto args = std::make_shared<infer_args>();
  auto* cmd = app.add_subcommand("infer", "Infer the output shape of Reshape-1");
  cmd->footer(
      "Shapes: '[2,5,5,24]', '[2,?@A,1..10]', '[]' (scalar), '[...]' (unknown rank).\n"
      "Patterns: '[0,-1,4]'; elements known only by bounds: '[2..8,?@A]'; values unknown: '[?,?]'; length\n"
      "unknown: '[...]'; or a 1-D .npy file of any integer dtype.\n"
      "Quote shapes and patterns: [ ] and ? are glob characters to the shell.\n"
      "Use -- before a pattern that starts with '-':  reshape1 infer --special-zero false -- '[]' -1\n"
      "Exit codes: 0 success, 1 invalid input or impossible reshape, 2 usage error.");
  cmd->add_option("INPUT", args->input, "input (data) shape, e.g. '[2,5,5,24]'")->required();
  cmd->add_option("PATTERN", args->pattern,
                  "pattern, e.g. '[0,-1,4]' (a bare value is a rank-0 pattern), or a .npy file")
      ->required();
  add_reshape_flags(*cmd, args->flags, /*with_sound_bounds=*/true);
  cmd->add_flag("--json", args->json, "print one JSON object (errors too, on standard output)");
  cmd->callback([args, &s] {
    s.command = "infer";
    s.exit_code = run_infer(*args, s);
  });
}

}  // namespace reshape1::cli
