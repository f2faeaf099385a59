// reshape1 CLI: the reshape options shared by `infer` and `run`.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "reshape1/reshape.hpp"

namespace reshape1::cli {

struct reshape_flags {
  std::string special_zero;
  std::string pattern_type;
  std::string empty = "openvino";
  bool sound_bounds = false;
  bool legacy_scalar_pattern = false;

  [[nodiscard]] reshape_options options() const {
    reshape_options o;
    o.empty = empty == "tensorflow" ? empty_rule::tensorflow : empty == "strict" ? empty_rule::strict
                                                                                  : empty_rule::openvino;
    o.sound_bounds = sound_bounds;
    o.legacy_scalar_pattern = legacy_scalar_pattern;
    return o;
  }
  [[nodiscard]] bool zero_copies() const { return special_zero == "true"; }
  /// --pattern-type, i64 when not given. Throws error(unknown_element_type).
  [[nodiscard]] element_type pattern_element_type() const {
    return parse_element_type(pattern_type.empty() ? "i64" : pattern_type);
  }
};

/// --special-zero (required), --pattern-type, --empty-rule, --legacy-scalar-pattern; --sound-bounds
/// only where patterns can be known by bounds.
inline void add_reshape_flags(CLI::App& cmd, reshape_flags& f, bool with_sound_bounds) {
  cmd.add_option("--special-zero", f.special_zero, "true: 0 copies the input dimension; false: 0 is literal")
      ->required()
      ->check(CLI::IsMember({"true", "false"}));
  cmd.add_option("--pattern-type", f.pattern_type, "the pattern's element type (default i64)");
  cmd.add_option("--empty-rule", f.empty, "how -1 is resolved next to a literal 0 (default openvino)")
      ->check(CLI::IsMember({"openvino", "tensorflow", "strict"}));
  if (with_sound_bounds)
    cmd.add_flag("--sound-bounds", f.sound_bounds, "bounds holding -1 or 0 cover every run-time reading");
  cmd.add_flag("--legacy-scalar-pattern", f.legacy_scalar_pattern, "accept a rank-0 pattern holding 1");
}

}  // namespace reshape1::cli
