// The ONNX table: each row is (op_type, since_version), the version at which the node's inputs or meaning
// last changed, and its translation; a node's translation is the row with the newest since_version at or
// below the model's opset. The rows are in the files of their families; this is the one place that joins
// them.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "families.hpp"

namespace reshape1::onnx::detail {

std::vector<onnx_entry> assemble(std::initializer_list<std::span<const onnx_entry>> families) {
  std::vector<onnx_entry> rows;
  for (const auto& family : families) rows.insert(rows.end(), family.begin(), family.end());
  std::sort(rows.begin(), rows.end(), [](const onnx_entry& a, const onnx_entry& b) {
    return a.op_type != b.op_type ? a.op_type < b.op_type : a.since < b.since;
  });
  for (std::size_t k = 1; k < rows.size(); ++k)
    if (rows[k].op_type == rows[k - 1].op_type && rows[k].since == rows[k - 1].since) {
      std::fprintf(stderr, "reshape1 internal invariant failed: the ONNX table has two rows for %.*s-%d\n",
                   static_cast<int>(rows[k].op_type.size()), rows[k].op_type.data(), rows[k].since);
      std::abort();
    }
  return rows;
}

namespace {
const std::vector<onnx_entry>& table() {
  static const std::vector<onnx_entry> rows =
      assemble({elementwise_rows(), convolution_rows(), normalization_rows(), matmul_rows(), shape_rows(),
                indexing_rows(), reduction_rows(), resize_rows(), recurrent_rows(), detection_rows(),
                quantization_rows(), control_flow_rows()});
  return rows;
}
}  // namespace

std::span<const onnx_entry> onnx_table() noexcept { return table(); }

const onnx_entry* find_translation(std::string_view op_type, int opset) noexcept {
  const onnx_entry* best = nullptr;
  for (const auto& e : table())
    if (e.op_type == op_type && e.since <= opset) best = &e;
  return best;
}

}  // namespace reshape1::onnx::detail
