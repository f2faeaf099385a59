// The ONNX table: each row is (domain, op_type, since_version), the version at which the node's inputs or
// meaning last changed, and its translation; a node's translation is the row with the newest since_version
// at or below the version of the op list (op_list.hpp) the model's opset runs. The rows are in the files of
// their families; this is the one place that joins them.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <tuple>

#include "families.hpp"

namespace reshape1::onnx::detail {

std::vector<onnx_entry> assemble(std::initializer_list<std::span<const onnx_entry>> families) {
  std::vector<onnx_entry> rows;
  for (const auto& family : families) rows.insert(rows.end(), family.begin(), family.end());
  const auto key = [](const onnx_entry& e) { return std::tie(e.domain, e.op_type, e.since); };
  std::sort(rows.begin(), rows.end(), [&](const onnx_entry& a, const onnx_entry& b) { return key(a) < key(b); });
  for (std::size_t k = 1; k < rows.size(); ++k)
    if (key(rows[k]) == key(rows[k - 1])) {
      std::fprintf(stderr, "reshape1 internal invariant failed: the ONNX table has two rows for %.*s%s%.*s-%d\n",
                   rows[k].domain == "ai.onnx" ? 0 : static_cast<int>(rows[k].domain.size()), rows[k].domain.data(),
                   rows[k].domain == "ai.onnx" ? "" : ".", static_cast<int>(rows[k].op_type.size()),
                   rows[k].op_type.data(), rows[k].since);
      std::abort();
    }
  return rows;
}

namespace {
const std::vector<onnx_entry>& table() {
  static const std::vector<onnx_entry> rows =
      assemble({elementwise_rows(), convolution_rows(), normalization_rows(), matmul_rows(), shape_rows(),
                indexing_rows(), reduction_rows(), resize_rows(), recurrent_rows(), detection_rows(),
                quantization_rows(), control_flow_rows(), microsoft_rows(), attention_rows(), signal_rows(),
                random_rows(), text_rows(), sequence_rows(), ml_rows()});
  return rows;
}
}  // namespace

std::span<const onnx_entry> onnx_table() noexcept { return table(); }

const onnx_entry* find_translation(std::string_view domain, std::string_view op_type, int since) noexcept {
  const auto& rows = table();
  auto it = std::upper_bound(rows.begin(), rows.end(), std::make_tuple(domain, op_type, since),
                             [](const auto& k, const onnx_entry& e) { return k < std::tie(e.domain, e.op_type, e.since); });
  if (it == rows.begin()) return nullptr;
  --it;
  return it->domain == domain && it->op_type == op_type ? &*it : nullptr;
}

}  // namespace reshape1::onnx::detail
