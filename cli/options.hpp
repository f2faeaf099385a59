// reshape1 CLI: the reshape options shared by `infer` and `run`, and the validators that make a bad option
// value a usage error (exit 2) before anything runs.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "reshape1/reshape.hpp"

namespace reshape1::cli {

struct reshape_flags {
  std::string special_zero;  // "true" or "false" once validated
  std::string pattern_type;  // empty when not given
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
  /// --pattern-type, i64 when not given (the value was validated by CLI11).
  [[nodiscard]] element_type pattern_element_type() const {
    return parse_element_type(pattern_type.empty() ? "i64" : pattern_type);
  }
};

/// Accepts an OpenVINO element type name (f32, u4, ...).
CLI::Validator element_type_name();
/// Accepts a static shape in the notation ([2,3]).
CLI::Validator static_shape_text();
/// Accepts true/false/1/0 in any case, as OpenVINO's IR reader does, and normalises it to true or false.
CLI::Validator ir_boolean();
/// Refuses an empty value.
CLI::Validator non_empty();

/// --special-zero (required; true/false/1/0 in any case, as IR files write it), --pattern-type,
/// --empty-rule, --legacy-scalar-pattern; --sound-bounds only where patterns can be known by bounds.
void add_reshape_flags(CLI::App& cmd, reshape_flags& f, bool with_sound_bounds);

/// Whether PATTERN names a .npy file rather than being written in the notation: it ends in .npy.
[[nodiscard]] bool names_a_file(const std::string& pattern);

/// The pattern given as PATTERN: the notation, or a 1-D .npy file of any integer dtype (whose dtype is the
/// element type: --pattern-type with it is a usage error). Sets s.context to the argument it reads.
[[nodiscard]] reshape_pattern load_pattern(const std::string& pattern, const reshape_flags& f, session& s);

}  // namespace reshape1::cli
