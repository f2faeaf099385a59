// `reshape1 infer INPUT PATTERN --special-zero true|false [options]`
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include "report.hpp"
#include "reshape1/reshape1.hpp"

namespace reshape1::cli {
namespace {

struct infer_args {
  std::string input;
  std::string pattern;
  std::string special_zero;
  std::string pattern_type = "i64";
  std::string empty = "openvino";
  bool sound_bounds = false;
  bool legacy_scalar_pattern = false;
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
    const element_type type = parse_element_type(a.pattern_type);
    what = fmt::format("INPUT '{}'", a.input);
    const partial_shape input = parse_shape(a.input);
    what = fmt::format("PATTERN '{}'", a.pattern);
    const reshape_pattern pattern = parse_pattern(a.pattern, type);
    what.clear();

    reshape_options options;
    options.empty = a.empty == "tensorflow" ? empty_rule::tensorflow
                    : a.empty == "strict"   ? empty_rule::strict
                                            : empty_rule::openvino;
    options.sound_bounds = a.sound_bounds;
    options.legacy_scalar_pattern = a.legacy_scalar_pattern;
    const reshape_result r = infer_shape(input, pattern, a.special_zero == "true", options);
    if (a.json) {
      std::cout << result_json(r).dump() << '\n';
    } else {
      std::cout << to_string(r.shape) << '\n';
      for (const auto& [x, y] : r.symbol_equalities) std::cout << x << " == " << y << '\n';
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
  cmd->add_option("--special-zero", args->special_zero, "true: 0 copies the input dimension; false: 0 is literal")
      ->required()
      ->check(CLI::IsMember({"true", "false"}));
  cmd->add_option("--pattern-type", args->pattern_type, "the pattern's element type (default i64)");
  cmd->add_option("--empty-rule", args->empty, "how -1 is resolved next to a literal 0 (default openvino)")
      ->check(CLI::IsMember({"openvino", "tensorflow", "strict"}));
  cmd->add_flag("--sound-bounds", args->sound_bounds, "bounds holding -1 or 0 cover every run-time reading");
  cmd->add_flag("--legacy-scalar-pattern", args->legacy_scalar_pattern, "accept a rank-0 pattern holding 1");
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback([args, &exit_code] { exit_code = run_infer(*args); });
}

}  // namespace reshape1::cli
