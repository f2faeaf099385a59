// The ONNX ops reshape1 leaves to "cannot tell", each with its reason: values that are not tensors
// (sequences, optionals; strings' ops are in text.cpp). (Random generators have shapes: random.cpp.) A node of
// one of them is not covered: its outputs are unknown, and no answer goes past it.
#include "families.hpp"

namespace reshape1::onnx::detail {

namespace {
constexpr std::string_view sequence = "a sequence of tensors, which reshape1's graphs do not carry";
constexpr std::string_view optional = "an optional value, which reshape1's graphs do not carry";
}  // namespace

std::span<const onnx_entry> opaque_rows() {
  static const std::vector<onnx_entry> rows = {
      untranslated("SequenceAt", 11, sequence), untranslated("SequenceConstruct", 11, sequence),
      untranslated("SequenceEmpty", 11, sequence), untranslated("SequenceErase", 11, sequence),
      untranslated("SequenceInsert", 11, sequence), untranslated("SequenceLength", 11, sequence),
      untranslated("SequenceMap", 17, sequence), untranslated("SplitToSequence", 11, sequence),
      untranslated("ConcatFromSequence", 11, sequence), untranslated("Optional", 15, optional),
      untranslated("OptionalGetElement", 15, optional), untranslated("OptionalHasElement", 15, optional),
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
