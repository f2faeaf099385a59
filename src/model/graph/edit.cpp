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
  arena<port> ports;
  arena<dimension> dims;
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

  /// `at` becomes attribute `name`=`text` (both kept in the storage), with what its text reads as.
  void parsed(attribute& at, std::string_view name, std::string_view text) {
    at.name = name;
    at.text = text;
    at.boolean = parse_boolean(trim(text));
    at.is_integers = parse_list<std::int64_t>(text, st_.integers);
    at.integers = st_.integers.run();
    at.is_reals = at.is_integers || parse_list<double>(text, st_.reals);
    at.reals = at.is_integers ? std::span<const double>() : std::span<const double>(st_.reals.run());
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
      parsed(at, name, text);
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

  /// `l` takes `e`'s type, version, attributes and inputs: the ports it has keep theirs, and each new one
  /// (undeclared) is numbered from `first_new_port` on.
  void retyped(layer& l, const graph_edit& e, std::int64_t first_new_port) {
    l.type = st_.texts.emplace_back(e.type);
    l.version = st_.texts.emplace_back(fmt::format("opset{}", e.opset));
    l.opset = e.opset;
    st_.attributes.start();
    for (const auto& [name, text] : e.attributes)
      parsed(st_.attributes.append(), st_.texts.emplace_back(name), st_.texts.emplace_back(text));
    l.attributes = st_.attributes.run();
    auto& fed = st_.sources.emplace_back();
    st_.ports.start();
    for (std::size_t k = 0; k < e.inputs.size(); ++k) {
      const auto index = index_of(e.inputs[k].first);
      if (e.inputs[k].second >= layers_[index].outputs.size())
        fail(errc::invalid_argument, {}, fmt::format("{} has no output {}", layers_[index].where(), e.inputs[k].second), {});
      fed.push_back(source{index, e.inputs[k].second});
      port& p = st_.ports.append();
      if (k < l.inputs.size()) {
        p = l.inputs[k];
        continue;
      }
      p.id = first_new_port++;
      p.declared = false;
    }
    l.inputs = st_.ports.run();
    l.sources = fed;
  }

  /// `original` is the graph before any edit, whose ids a new layer may not take.
  void add(const graph_edit& e, const graph& original) {
    if (original.find(e.id) != nullptr ||
        std::any_of(by_id_.begin() + static_cast<std::ptrdiff_t>(sorted_), by_id_.end(),
                    [&](const auto& x) { return x.first == e.id; }))
      fail(errc::invalid_argument, {}, fmt::format("a new layer is given id {}, which a layer has already", e.id));
    layer l;
    l.id = e.id;
    l.name = st_.texts.emplace_back(e.name);
    retyped(l, e, 0);
    st_.ports.start();
    port& out = st_.ports.append();
    out.id = static_cast<std::int64_t>(e.inputs.size());
    out.type = e.output_type;
    st_.dims.start();
    // (A negative dim is one the layer computes at run time: `?`.)
    for (const auto d : e.output_dims) st_.dims.append() = d < 0 ? dimension() : dimension(d);
    out.dims = st_.dims.run();
    l.outputs = st_.ports.run();
    const auto index = layers_.size();
    layers_.push_back(l);
    by_id_.emplace_back(e.id, index);
    pending_.push_back(index);
  }

  void replace(const graph_edit& e) {
    const auto at = index_of(e.layer);
    auto& l = layers_[at];
    // A new input takes a port id no other port of the layer has, as the .xml writes it.
    std::int64_t next_port = 0;
    for (const auto& p : l.inputs) next_port = std::max(next_port, p.id + 1);
    for (const auto& p : l.outputs) next_port = std::max(next_port, p.id + 1);
    retyped(l, e, next_port);
    for (const auto& other : layers_)
      for (const auto& s : other.sources)
        if (s && s->layer == at && s->output != 0)
          fail(errc::invalid_argument, {},
               fmt::format("{}: its output {} is read by {}, and its replacement gives one output", l.where(), s->output,
                           other.where()), {});
    l.outputs = l.outputs.first(std::min<std::size_t>(l.outputs.size(), 1));
    placed_.emplace_back(at, std::move(pending_));
    pending_.clear();
  }

  void set_source(const graph_edit& e) {
    const auto from = index_of(e.layer);
    if (e.output >= layers_[from].outputs.size())
      fail(errc::invalid_argument, {}, fmt::format("{} has no output {}", layers_[from].where(), e.output), {});
    const auto to = index_of(e.consumer);
    auto& consumer = layers_[to];
    if (e.port >= consumer.sources.size())
      fail(errc::invalid_argument, {}, fmt::format("{} has no input {}", consumer.where(), e.port), {});
    auto& fed = st_.sources.emplace_back(consumer.sources.begin(), consumer.sources.end());
    fed[e.port] = source{from, e.output};
    consumer.sources = fed;
    placed_.emplace_back(to, std::move(pending_));
    pending_.clear();
  }

  /// The clones' indices, in the order they were made.
  [[nodiscard]] std::vector<std::size_t>& clones() { return clones_; }
  /// The layers added, each group with the layer it is placed before (that its set_source feeds).
  [[nodiscard]] const std::vector<std::pair<std::size_t, std::vector<std::size_t>>>& placed() const {
    if (!pending_.empty()) fail(errc::invalid_argument, {}, "a new layer feeds no layer", {});
    return placed_;
  }

 private:
  std::vector<layer>& layers_;
  std::vector<std::pair<std::int64_t, std::size_t>>& by_id_;
  std::size_t sorted_;  // by_id_ is sorted up to here; the clones follow
  edit_storage& st_;
  std::vector<std::size_t> clones_;
  std::vector<std::size_t> pending_;  // added layers that no set_source has placed yet
  std::vector<std::pair<std::size_t, std::vector<std::size_t>>> placed_;
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
    switch (e.what) {
      case graph_edit::kind::set_attribute: own.set_attribute(e); break;
      case graph_edit::kind::clone_layer: own.clone(e, g); break;
      case graph_edit::kind::add_layer: own.add(e, g); break;
      case graph_edit::kind::set_source: own.set_source(e); break;
      case graph_edit::kind::replace_layer: own.replace(e); break;
    }
  }
  for (const auto& [id, list] : inner) {
    auto& l = r.layers_[own.index_of(id)];
    if (!l.body) fail(errc::invalid_argument, {}, fmt::format("an edit names the body of {}, which has none", l.where()));
    auto body = std::make_shared<subgraph>(*l.body);
    body->network = edited(l.body->network, list, weights);
    l.body = std::move(body);
  }
  if (const auto& placed = own.placed(); !placed.empty()) {
    // Each group of new layers just before the layer they feed: they read only layers before it (and
    // each other, in the order they were added), so the order stays producers first.
    for (const auto& [before, group] : placed) {
      auto at = std::find(r.order_.begin(), r.order_.end(), before);
      r.order_.insert(at, group.begin(), group.end());
    }
  }
  if (auto& clones = own.clones(); !clones.empty() || !own.placed().empty()) {
    std::sort(r.by_id_.begin(), r.by_id_.end());
    // A Const reads nothing: before every other layer is a producers-first place for it.
    clones.insert(clones.end(), r.order_.begin(), r.order_.end());
    r.order_ = std::move(clones);
  }
  r.storage_ = std::move(st);
  return r;
}

}  // namespace reshape1::model
