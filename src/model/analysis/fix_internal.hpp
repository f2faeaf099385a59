// Internal: what the two fixers decide alike. The IR fix (analysis/fix.cpp) and the ONNX fix
// (src/onnx/fix.cpp) write different files, but a Reshape the checks name gets the same values to try, in
// the same order, whichever file it came from: they differ only in where they write the value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "reshape1/model/batch.hpp"
#include "reshape1/model/graph.hpp"
#include "reshape1/model/propagate.hpp"

namespace reshape1::model::detail {

/// A value one element of a Reshape's pattern could take so that the Reshape keeps the batch.
struct pattern_choice {
  std::size_t element = 0;
  std::int64_t old_value = 0;     ///< what the element holds now
  std::int64_t value = 0;         ///< 0 or -1
  bool set_special_zero = false;  ///< with the Reshape's special_zero set to true (ONNX: allowzero to 0)
  std::string why;
};

/// The values to try, best first, for Reshape `l` of `g` (propagated as `p`), which check_batch names with
/// finding `f`. An element that writes the declared batch (`f.pattern_index`) gets 0, the copy of the
/// input's batch: with special_zero as it is, or set to true when no element of the pattern may be 0
/// (setting it then changes no other element's meaning); then -1, when the pattern has no -1 and its other
/// elements are fixed values (then -1 is exactly the batch). A pattern that folds the batch into another
/// dimension and fails at the checked batch gets -1 at each element that holds a positive value, in turn:
/// which one follows the batch is the judges' to find. Empty, with `reason`, when nothing is worth trying.
[[nodiscard]] std::vector<pattern_choice> pattern_choices(const graph& g, const propagation& p, const layer& l,
                                                          const batch_finding& f, std::string& reason);

}  // namespace reshape1::model::detail
