// The request `check --shape 'x=[1,3,?@H,?@W]'` makes of a model: its first input with the two largest
// dimensions after the batch named H and W (an image's height and width, NCHW or NHWC), for the benchmarks
// of check at new sizes against check --batch 4.
#pragma once

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "reshape1/model/batch.hpp"

namespace bench {

inline reshape1::model::reshape_request at_named_sizes(const reshape1::model::graph& g) {
  const auto in = reshape1::model::check_batch(g, {.batch = reshape1::dimension(1)}).inputs.at(0);
  const auto& d = in.declared;
  std::vector<std::size_t> order(d.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const auto size_of = [&](std::size_t k) { return k == in.batch_index.value_or(0) || !d[k].is_static() ? -1 : d[k].lo(); };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return size_of(a) > size_of(b); });
  std::vector<std::size_t> named(order.begin(), order.begin() + std::min<std::size_t>(2, order.size()));
  std::sort(named.begin(), named.end());
  std::string text = "[";
  for (std::size_t k = 0; k < d.size(); ++k) {
    if (k != 0) text += ",";
    const auto at = std::find(named.begin(), named.end(), k);
    text += at == named.end() ? reshape1::to_string(d[k]) : (at == named.begin() ? "?@H" : "?@W");
  }
  text += "]";
  return {.shapes = {{in.name, reshape1::parse_shape(text)}}};
}

}  // namespace bench
