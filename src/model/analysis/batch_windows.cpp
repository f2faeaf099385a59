// check --shape (issue 47): a pooling window or convolution kernel written as a fixed size where the program
// meant the whole extent (global pooling exported as AveragePool with the map's size), at sizes that change.
#include "model/analysis/batch_internal.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "model/options.hpp"
#include "model/ops/sizes.hpp"
#include "model/text/batch.hpp"

namespace reshape1::model::detail {
namespace {

/// Where a pooling's window starts along spatial axis `k` (its padding before the input) and how far it
/// reaches (its kernel dilated), for an input `n` long that it pools to `out` outputs.
struct window_reach {
  std::int64_t pad_begin = 0, reach = 0, stride = 1;
};
std::optional<window_reach> reach_of(const layer& l, std::size_t k, std::size_t spatial, std::int64_t kernel,
                                     std::int64_t n, std::int64_t out) {
  const auto at = [&](std::string_view name, std::int64_t otherwise) -> std::optional<std::int64_t> {
    const auto* a = l.find(name);
    if (a == nullptr) return otherwise;
    if (!a->is_integers) return std::nullopt;
    const auto v = l.integers(name);
    if (v.size() != spatial) return std::nullopt;
    return v[k];
  };
  const auto stride = at("strides", 1), dilation = at("dilations", 1), begin = at("pads_begin", 0);
  std::int64_t spread = 0;
  if (!stride || !dilation || !begin || *stride < 1 || *dilation < 1 || *begin < 0 || *begin > largest_size ||
      kernel < 1 || __builtin_mul_overflow(*dilation, kernel - 1, &spread) || spread >= largest_size)
    return std::nullopt;
  window_reach w{*begin, spread + 1, *stride};
  const auto pad = l.text("auto_pad", "explicit");
  if (pad == "valid") w.pad_begin = 0;
  if (pad == "same_upper" || pad == "same_lower") {
    // The padding an output of ceil(n / stride) needs, split with the odd one after (upper) or before (lower).
    const auto total = std::max<std::int64_t>(0, (out - 1) * w.stride + w.reach - n);
    w.pad_begin = pad == "same_upper" ? total / 2 : total - total / 2;
  }
  return w;
}

}  // namespace

void kernel_covers(const graph& g, const propagation& declared, const propagation& asked, std::size_t index,
                   std::span<const std::string> assumed, option_spelling spelling, std::vector<batch_finding>& out) {
  const auto& l = g.layers()[index];
  const auto window = window_of(l);
  // A window is an attribute (or a kernel's shape), not a Const: the user vouches for it by its layer.
  if (!window || vouched(l, assumed)) return;
  auto kernel = window->kernel;
  if (const auto port = window->weights_port) {
    if (*port >= l.sources.size()) return;
    const auto& w = declared.input(g, l, *port).shape;
    if (!w.rank_known() || w.size() < window->weights_lead) return;
    for (std::size_t i = window->weights_lead; i < w.size(); ++i) kernel.push_back(w[i].is_static() ? w[i].lo() : 0);
  }
  const auto& d = declared.input(g, l, 0).shape;
  const auto& a = asked.input(g, l, 0).shape;
  const auto& made = declared.outputs[index].empty() ? partial_shape::dynamic() : declared.outputs[index][0].shape;
  if (!d.rank_known() || d.size() != kernel.size() + 2 || !made.rank_known() || made.size() != d.size()) return;
  for (std::size_t k = 0; k < kernel.size(); ++k) {
    const auto axis = k + 2;
    if (!d[axis].is_static() || same_at(d, a, axis) || !made[axis].is_static()) continue;
    const auto n = d[axis].lo();
    const auto outputs = made[axis].lo();
    std::optional<because> reason;
    const std::string at = a.rank_known() && a.size() == d.size() && a[axis].is_static() ? fmt::format("{}", a[axis].lo()) : "unknown";
    // (A pooling's window of 1 on an extent of 1 covers it too: `kernel_size=x.shape[2:]` at a height of 1. A
    // convolution's kernel of 1 is its weights' shape, which no program makes follow a size.)
    if ((kernel[k] >= 2 || (kernel[k] == 1 && !window->weights_port)) && n == kernel[k] && outputs == 1) {
      // The window is the whole extent where it takes all of it into one output.
      reason = because(why::kernel_covers_size, axis, kernel[k]).quoting(at);
    } else if (!window->weights_port && outputs >= 1 && n >= 2) {
      const auto w = reach_of(l, k, kernel.size(), kernel[k], n, outputs);
      if (!w || w->reach < 2) continue;
      if (w->reach >= n) {
        // The last output that starts at or before the input's first element reaches furthest.
        const auto j = std::min(outputs - 1, w->pad_begin / w->stride);
        if (j * w->stride - w->pad_begin + w->reach < n) continue;
        reason = because(why::window_spans_size, axis, w->reach, n).quoting(at);
      } else if (w->stride == w->reach && w->reach == kernel[k] && outputs >= 2 && outputs < kernel[k]) {
        // Windows as wide as their stride that cut the input into fewer bins than a window is wide, padded or
        // not, the last maybe partial (ceil_mode): adaptive pooling exported at one size (a 2x2 pooling of
        // stride 2 makes more outputs than its window is wide, except on maps of at most 4).
        reason = because(why::window_tiles_size, axis, kernel[k], n, outputs).quoting(at);
      }
    }
    if (!reason) continue;
    auto f = size_finding(l, index);
    set_reason(f, *reason);
    const std::string name(l.name);
    text::give_hint(f, reason->code == why::kernel_covers_size  ? text::global_window_hint(spelling, name, l.id)
                       : reason->code == why::window_tiles_size ? text::window_tiles_hint(spelling, name, l.id)
                                                                : text::window_spans_hint(spelling, name, l.id));
    out.push_back(std::move(f));
    return;
  }
}

}  // namespace reshape1::model::detail
