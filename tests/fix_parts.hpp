// The format-specific parts of a fix report, for tests that know which format they fixed.
#pragma once

#include <filesystem>
#include <variant>

#include "reshape1/model/fix.hpp"

namespace reshape1::test {

inline const model::ir_edit& ir_edit(const model::fix_change& c) { return std::get<model::ir_edit>(c.edit); }
inline const model::onnx_edit& onnx_edit(const model::fix_change& c) { return std::get<model::onnx_edit>(c.edit); }
inline const model::ir_output& ir_output(const model::fix_report& r) { return std::get<model::ir_output>(r.output); }
inline const model::onnx_output& onnx_output(const model::fix_report& r) {
  return std::get<model::onnx_output>(r.output);
}
/// fix_options with an IR's weights.
inline model::fix_options with_bin(model::fix_options options, const std::filesystem::path& bin) {
  options.bin = bin;
  return options;
}

}  // namespace reshape1::test
