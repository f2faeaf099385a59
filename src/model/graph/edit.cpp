// Graphs edited in memory (fix): what fix proves is the graph these edits give, before it writes them.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "detail/fail.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/graph.hpp"
#include "model/graph/edit.hpp"
#include "model/graph/storage.hpp"
#include "model/ops/rules.hpp"

namespace reshape1::model {

using reshape1::detail::fail;

void detail::no_such_layer(std::int64_t id) {
  fail(errc::invalid_argument, {}, fmt::format("an edit names layer id {}, which is not in the model", id));
}

namespace {

using model::detail::graph_edit;
using model::detail::op_part;
using model::detail::parse_boolean;
using model::detail::parse_list;
using model::detail::part_of;
using model::detail::trim;

/// What an edited graph's changed layers view; the original's storage stays alive beside it.
struct edit_storage {
  std::shared_ptr<const void> original;
  std::deque<std::string> texts;
  arena<attribute> attributes;
  arena<std::int64_t> integers;
  arena<double> reals;
  std::deque<std::vector<std::optional<source>>> sources;
};

/// The edits of one graph's own layers (not its bodies'), made on a copy of its layers and id index.
class layer_edits {
 public:
  layer_edits(std::vector<layer>& layers, std::vector<std::pair<std::int64_t, std::size_t>>& by_id, edit_storage& st)
      : layers_(layers), by_id_(by_id), sorted_(by_id.size()), st_(st) {}

  [[nodiscard]] std::size_t index_of(std::int64_t id) const {
    const auto end = by_id_.begin() + static_cast<std::ptrdiff_t>(sorted_);
    const auto it = std::lower_bound(by_id_.begin(), end, std::pair<std::int64_t, std::size_t>(id, 0));
    if (it != end && it->first == id) return it->second;
    for (auto k = sorted_; k < by_id_.size(); ++k)  // the clones made so far (a few per model)
      if (by_id_[k].first == id) return by_id_[k].second;
    detail::no_such_layer(id);
  }

  void set_attribute(const graph_edit& e) {
    auto& l = layers_[index_of(e.layer)];
    const std::string_view name = st_.texts.emplace_back(e.name);
    const std::string_view text = st_.texts.emplace_back(e.text);
    const auto old = l.attributes;
    bool replaced = false;
    st_.attributes.start();
    for (std::size_t k = 0; k <= old.size(); ++k) {
      if (k == old.size() && replaced) break;
      attribute& at = st_.attributes.append();
      if (k < old.size() && old[k].name != name) {
        at = old[k];
        continue;
      }
      replaced = true;
      at.name = name;
      at.text = text;
      at.boolean = parse_boolean(trim(text));
      at.is_integers = parse_list<std::int64_t>(text, st_.integers);
      at.integers = st_.integers.run();
      at.is_reals = at.is_integers || parse_list<double>(text, st_.reals);
      at.reals = at.is_integers ? std::span<const double>() : std::span<const double>(st_.reals.run());
    }
    l.attributes = st_.attributes.run();
  }

  /// `original` is the graph before any edit, whose ids a clone may not take.
  void clone(const graph_edit& e, const graph& original) {
    layer copy = layers_[index_of(e.layer)];
    if (part_of(copy.type) != op_part::constant || !copy.inputs.empty())
      fail(errc::invalid_argument, {}, fmt::format("{}: only a Const is cloned", copy.where()), {});
    if (original.find(e.id) != nullptr ||
        std::any_of(by_id_.begin() + static_cast<std::ptrdiff_t>(sorted_), by_id_.end(),
                    [&](const auto& x) { return x.first == e.id; }))
      fail(errc::invalid_argument, {}, fmt::format("a clone is given id {}, which a layer has already", e.id));
    auto& consumer = layers_[index_of(e.consumer)];
    if (e.port >= consumer.sources.size())
      fail(errc::invalid_argument, {}, fmt::format("{} has no input {}", consumer.where(), e.port), {});
    copy.id = e.id;
    copy.name = st_.texts.emplace_back(e.name);
    const auto index = layers_.size();
    auto& fed = st_.sources.emplace_back(consumer.sources.begin(), consumer.sources.end());
    fed[e.port] = source{index, 0};
    consumer.sources = fed;
    layers_.push_back(copy);
    by_id_.emplace_back(e.id, index);
    clones_.push_back(index);
  }

  /// The clones' indices, in the order they were made.
  [[nodiscard]] std::vector<std::size_t>& clones() { return clones_; }

 private:
  std::vector<layer>& layers_;
  std::vector<std::pair<std::int64_t, std::size_t>>& by_id_;
  std::size_t sorted_;  // by_id_ is sorted up to here; the clones follow
  edit_storage& st_;
  std::vector<std::size_t> clones_;
};

}  // namespace

graph detail::graph_editor::edited(const graph& g, std::span<const graph_edit> edits, const weights_for& weights) {
  graph r = g;  // the layers view the original's storage; only the edited ones are given new views
  auto st = std::make_shared<edit_storage>();
  st->original = g.storage_;
  std::tie(r.bin_, r.bin_bytes_) = weights(g);
  layer_edits own(r.layers_, r.by_id_, *st);
  // Edits inside a body, by the layer of `g` that holds it (that body's ids are its own), in order.
  std::map<std::int64_t, std::vector<graph_edit>> inner;
  for (const auto& e : edits) {
    if (!e.within.empty()) {
      auto& x = inner[e.within.front()].emplace_back(e);
      x.within.erase(x.within.begin());
      continue;
    }
    if (e.what == graph_edit::kind::set_attribute)
      own.set_attribute(e);
    else
      own.clone(e, g);
  }
  for (const auto& [id, list] : inner) {
    auto& l = r.layers_[own.index_of(id)];
    if (!l.body) fail(errc::invalid_argument, {}, fmt::format("an edit names the body of {}, which has none", l.where()));
    auto body = std::make_shared<subgraph>(*l.body);
    body->network = edited(l.body->network, list, weights);
    l.body = std::move(body);
  }
  if (auto& clones = own.clones(); !clones.empty()) {
    std::sort(r.by_id_.begin(), r.by_id_.end());
    // A Const reads nothing: before every other layer is a producers-first place for it.
    clones.insert(clones.end(), r.order_.begin(), r.order_.end());
    r.order_ = std::move(clones);
  }
  r.storage_ = std::move(st);
  return r;
}

}  // namespace reshape1::model
