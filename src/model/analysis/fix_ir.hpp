// Internal: the IR's part of `reshape1 fix`, which onnx::fix (the entry point that reads either format)
// calls for an OpenVINO IR.
#pragma once

#include <filesystem>

#include "reshape1/model/fix.hpp"

namespace reshape1::model::detail {

/// fix on an IR: `xml` (not "-"), its weights `bin`. options.batch_name and base_dir are the caller's to
/// refuse.
[[nodiscard]] fix_report fix_ir(const std::filesystem::path& xml, const std::filesystem::path& bin,
                                const fix_options& options);

/// check_fix_output for an IR: `out_xml` ends in .xml; neither it nor `out_bin` is one of the model's files,
/// nor anything but a regular file; they differ.
void check_ir_outputs(const std::filesystem::path& in_xml, const std::filesystem::path& in_bin,
                      const std::filesystem::path& out_xml, const std::filesystem::path& out_bin);

/// write_fixed for an IR: `out_bin` first, then `out_xml`.
void write_ir(const ir_output& fixed, const std::filesystem::path& in_xml, const std::filesystem::path& out_xml,
              const std::filesystem::path& out_bin);

}  // namespace reshape1::model::detail
