// reshape1 CLI: option validators and PATTERN loading, shared by `infer` and `run`.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "options.hpp"
#include "report.hpp"
#include "reshape1/io/npy.hpp"
#include "reshape1/reshape1.hpp"

namespace reshape1::cli {

CLI::Validator element_type_name() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        try {
          (void)parse_element_type(value);
          return {};
        } catch (const error& e) {
          return printable(e.what());
        }
      },
      "TYPE", "an element type");
}

CLI::Validator static_shape_text() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        try {
          (void)parse_shape(value).to_static();
          return {};
        } catch (const error& e) {
          return printable(fmt::format("'{}': {}", value, e.what()));
        }
      },
      "SHAPE", "a static shape");
}

CLI::Validator ir_boolean() {
  // OpenVINO's IR reader takes true/false/1/0 in any case for a boolean attribute; so does this option.
  return CLI::Validator(
      [](std::string& value) -> std::string {
        std::string lower = value;
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
        if (lower == "true" || lower == "1") {
          value = "true";
        } else if (lower == "false" || lower == "0") {
          value = "false";
        } else {
          return printable(fmt::format("'{}' is not a boolean; use true or false (or 1, 0; any case)", value));
        }
        return {};
      },
      "{true,false}", "true or false");
}

CLI::Validator non_empty() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        return value.empty() ? "the value is empty; give a file name" : std::string();
      },
      "FILE", "not empty");
}

void add_reshape_flags(CLI::App& cmd, reshape_flags& f, bool with_sound_bounds) {
  cmd.add_option("--special-zero", f.special_zero, "true: 0 copies the input dimension; false: 0 is literal")
      ->required()
      ->transform(ir_boolean());
  cmd.add_option("--pattern-type", f.pattern_type, "the pattern's element type (default i64)")
      ->check(element_type_name());
  cmd.add_option("--empty-rule", f.empty, "how -1 is resolved next to a literal 0 (default openvino)")
      ->check(CLI::IsMember({"openvino", "tensorflow", "strict"}));
  if (with_sound_bounds)
    cmd.add_flag("--sound-bounds", f.sound_bounds, "bounds holding -1 or 0 cover every run-time reading");
  cmd.add_flag("--legacy-scalar-pattern", f.legacy_scalar_pattern, "accept a rank-0 pattern holding 1");
}

bool names_a_file(const std::string& pattern) {
  if (pattern.size() < 4) return false;
  std::string suffix = pattern.substr(pattern.size() - 4);
  std::transform(suffix.begin(), suffix.end(), suffix.begin(), [](unsigned char c) { return std::tolower(c); });
  return suffix == ".npy";
}

reshape_pattern load_pattern(const std::string& pattern, const reshape_flags& f, session& s) {
  s.context = fmt::format("PATTERN '{}'", pattern);
  if (!names_a_file(pattern)) return parse_pattern(pattern, f.pattern_element_type());
  if (!f.pattern_type.empty())
    throw CLI::ValidationError("--pattern-type",
                               "applies to a pattern written as text; a .npy pattern's dtype is its element type");
  const auto file = io::read_npy(pattern);
  const auto& v = file.view();
  if (v.type() == element_type::string || !is_integer(v.type()))
    return reshape_pattern::unknown(partial_shape(v.dims())).with_element_type(v.type());
  return reshape_pattern::from_tensor(v.type(), v.bytes(), v.dims());
}

}  // namespace reshape1::cli
