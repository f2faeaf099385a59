// Fuzz targets over models: check at new sizes (issue "Any size"). The first input of rank 3 or more gets
// its last two dimensions doubled (a new single size) and then named (`?@H`, `?@W`, tried at members);
// whatever the model, each answer agrees with its findings, every finding has a code, and one that fails
// says where.
#pragma once

#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/batch.hpp"

namespace reshape1::fuzz {

inline void check_at_new_sizes(const model::graph& g) {
  const auto inputs = model::check_batch(g, {.batch = dimension(1)}).inputs;
  for (const auto& in : inputs) {
    const auto& d = in.declared;
    if (!d.rank_known() || d.size() < 3) continue;
    for (const bool named : {false, true}) {
      std::vector<dimension> dims(d.begin(), d.end());
      for (std::size_t k = dims.size() - 2; k < dims.size(); ++k) {
        if (named) {
          dims[k] = dimension();
        } else if (dims[k].is_static() && dims[k].lo() < (std::int64_t{1} << 20)) {
          dims[k] = dimension(dims[k].lo() * 2 + 1);
        }
      }
      try {
        const auto r = model::check_batch(g, {.shapes = {{in.name, partial_shape(dims)}}});
        std::size_t breaks = 0, undecided = 0;
        for (const auto& f : r.findings) {
          if (f.code.empty()) invariant_broken("a size finding without a code");
          if (f.issue == model::batch_issue::fails && f.at.empty()) invariant_broken("fails without where");
          undecided += f.issue == model::batch_issue::cannot_tell;
          breaks += f.issue != model::batch_issue::scales_with_batch && f.issue != model::batch_issue::cannot_tell;
        }
        const auto expected = breaks != 0      ? model::batch_verdict::no
                              : undecided != 0 ? model::batch_verdict::cannot_tell
                                               : model::batch_verdict::yes;
        if (r.summary.verdict() != expected) invariant_broken("verdict at new sizes");
      } catch (const error&) {
      }
    }
    return;
  }
}

}  // namespace reshape1::fuzz
