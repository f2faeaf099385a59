// Internal: the IR's part of `reshape1 fix`, which onnx::fix (the entry point that reads either format)
// calls for an OpenVINO IR.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "reshape1/model/fix.hpp"
#include "reshape1/model/propagate.hpp"

namespace reshape1::model::detail {

/// fix on an IR: `xml` (not "-"), its weights `bin`. options.batch_name and base_dir are the caller's to
/// refuse.
[[nodiscard]] fix_report fix_ir(const std::filesystem::path& xml, const std::filesystem::path& bin,
                                const fix_options& options);

/// check_fix_output for an IR: `out_xml` ends in .xml; neither it nor `out_bin` is one of the model's files,
/// nor anything but a regular file; they differ. `model` and `command` name what is written and who writes
/// it in the hints (shapes writes "the model with its shapes").
void check_ir_outputs(const std::filesystem::path& in_xml, const std::filesystem::path& in_bin,
                      const std::filesystem::path& out_xml, const std::filesystem::path& out_bin,
                      std::string_view model = "the fixed model", std::string_view command = "fix");

/// `xml`, the text `g` was read from, with every port declaring what `p` gives the tensor (an input port
/// its source's): numbers, -1, intervals; and each Parameter `given` a shape with that shape in its `shape`
/// attribute. A TensorIterator's or Loop's body's ports too, where propagation reached it. What `reshape1
/// shapes -o` writes for an IR.
[[nodiscard]] std::string xml_with_shapes(const graph& g, std::span<const std::byte> xml, const propagation& p,
                                          std::span<const input_shape> given);

/// write_fixed for an IR: `out_bin` first, then `out_xml`.
void write_ir(const ir_output& fixed, const std::filesystem::path& in_xml, const std::filesystem::path& out_xml,
              const std::filesystem::path& out_bin, std::string_view model = "the fixed model",
              std::string_view command = "fix");

}  // namespace reshape1::model::detail
