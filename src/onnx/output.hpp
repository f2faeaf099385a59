// Internal: writing an ONNX model the library made (fix's fixed model, shapes' copy) by fix -o's rules.
#pragma once

#include <filesystem>
#include <string_view>

#include "reshape1/model/fix.hpp"

namespace reshape1::onnx::detail {

/// How the messages about an output name what is written.
struct output_words {
  std::string_view model;    ///< "the fixed model"
  std::string_view example;  ///< "fixed.onnx"
  std::string_view command;  ///< "fix"
};
inline constexpr output_words fix_words{"the fixed model", "fixed.onnx", "fix"};
inline constexpr output_words shapes_words{"the model with its shapes", "shapes.onnx", "shapes"};

/// Refuses an output `out` for a model made from `in`: not ending in .onnx, the input itself or one of its
/// external data files, or a FIFO, device or directory. error(invalid_argument).
void check_onnx_output(const std::filesystem::path& in, const std::filesystem::path& out, const output_words& words);
/// Writes `made` to `out` after check_onnx_output, its external data brought beside it first, through a
/// temporary file renamed into place.
void write_onnx(const model::onnx_output& made, const std::filesystem::path& in, const std::filesystem::path& out,
                const output_words& words);

}  // namespace reshape1::onnx::detail
