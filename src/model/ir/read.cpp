// Reading OpenVINO IR (versions 10 and 11) into a typed graph, with pugixml, which stays inside the IR's
// reader and writer (write.cpp).
// Every number is parsed once here, with std::from_chars; nothing downstream re-reads text.
#include <pugixml.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <functional>
#include <optional>
#include <span>

#include <fmt/format.h>

#include "detail/fail.hpp"
#include "io/files.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/graph.hpp"
#include "model/options.hpp"
#include "model/graph/storage.hpp"
#include "model/ir/read_internal.hpp"
#include "model/ops/rules.hpp"

namespace reshape1::model {
namespace {

using reshape1::detail::fail;
using model::detail::op_part;
using model::detail::part_of;
using model::detail::port_index;
using model::detail::precision;
using model::detail::trim;

/// A pugixml name (null-terminated) against a literal, without strlen.
template <std::size_t N>
bool named(const char* name, const char (&want)[N]) noexcept {
  for (std::size_t i = 0; i < N; ++i)  // N counts the terminator: a longer or shorter name differs by then
    if (name[i] != want[i]) return false;
  return true;
}

inline pugi::xml_attribute next(const pugi::xml_attribute& a) { return a.next_attribute(); }
inline pugi::xml_node next(const pugi::xml_node& n) { return n.next_sibling(); }

/// In one pass over `item` and the siblings after it (attributes or child nodes), the first of each of
/// `names` (null when there is none), as pugixml's lookups by name would find them one by one.
template <class Item, std::size_t... N>
std::array<Item, sizeof...(N)> first_of_each(Item item, const char (&... names)[N]) {
  std::array<Item, sizeof...(N)> found{};
  for (; item; item = next(item)) {
    const char* n = item.name();  // "" for a text node, which no name matches
    std::size_t k = 0;            // the index of the name that matches; sizeof...(N) for none
    (void)((named(n, names) || (++k, false)) || ...);
    if (k < found.size() && !found[k]) found[k] = item;
  }
  return found;
}

/// A plain decimal of up to 18 digits that ends the string (what almost every number in an IR is): its
/// value, without strlen; nullopt for anything else (which the general parser then reads).
std::optional<std::int64_t> plain_decimal(const char* s) noexcept {
  std::int64_t v = 0;
  int digits = 0;
  for (; *s >= '0' && *s <= '9'; ++s) {
    if (++digits > 18) return std::nullopt;
    v = v * 10 + (*s - '0');
  }
  if (digits == 0 || *s != '\0') return std::nullopt;
  return v;
}

class reader {
 public:
  explicit reader(std::string file) : file_(std::move(file)) {}

  // `what` names layers and elements and quotes the file's text, which may hold "; " (where a message in one
  // piece has its hint): the hint is given apart.
  [[noreturn]] void bad(std::size_t byte, const std::string& what, std::string hint = {}) const {
    reshape1::detail::fail(errc::bad_file, {.offset = byte, .file = file_},
                           fmt::format("{}: {}", io::detail::at_byte(file_, byte), what), std::move(hint));
  }
  [[noreturn]] void bad_layer(const layer& l, const std::string& what, std::string hint = {}) const {
    reshape1::detail::fail(errc::bad_file, {.offset = l.byte, .file = file_},
                           fmt::format("{}: {}: {}", file_, l.where(), what), std::move(hint));
  }
  static std::size_t at(const pugi::xml_node& n) { return static_cast<std::size_t>(n.offset_debug()); }

  /// `what` names the element in a message; it is only called on failure.
  template <class What>
  std::string_view required(const pugi::xml_node& n, const char* attribute, What what) const {
    const auto a = n.attribute(attribute);
    if (!a) bad(at(n), fmt::format("{}: missing attribute '{}'", what(), attribute));
    return a.value();
  }

  template <class What>
  std::int64_t integer(const pugi::xml_node& n, const char* attribute, What what) const {
    return integer(n, n.attribute(attribute), attribute, what);
  }
  /// The same, for an attribute already found (null when missing).
  template <class What>
  std::int64_t integer(const pugi::xml_node& n, const pugi::xml_attribute& a, const char* attribute, What what) const {
    if (!a) bad(at(n), fmt::format("{}: missing attribute '{}'", what(), attribute));
    if (const auto plain = plain_decimal(a.value())) return *plain;
    const std::string_view text = a.value();
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty())
      bad(at(n), fmt::format("{}: attribute '{}' is '{}', not an integer", what(), attribute, text));
    return v;
  }

  dimension dim(const layer& l, std::int64_t port, std::string_view text) const {
    text = trim(text);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc() && end == text.data() + text.size() && !text.empty()) {
      if (v == -1) return dimension();
      if (v >= 0) return dimension(v);
    }
    try {  // intervals (`1..10`) and `?`
      const auto parsed = parse_shape(fmt::format("[{}]", text));
      if (parsed.rank_known() && parsed.size() == 1) return parsed[0];
    } catch (const error&) {
    }
    bad_layer(l, fmt::format("port {}: '{}' is not a dimension", port, text));
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

/// Layer attributes read for the reader's own checks: errors carry the file and the layer's byte offset.
const attribute& required_data(const reader& r, const layer& l, std::string_view name) {
  const auto* a = l.find(name);
  if (a == nullptr) r.bad_layer(l, fmt::format("missing attribute '{}' in <data>", name));
  return *a;
}

std::int64_t count_attribute(const reader& r, const layer& l, std::string_view name) {
  const auto& a = required_data(r, l, name);
  if (!a.is_integers || a.integers.size() != 1 || a.integers[0] < 0)
    r.bad_layer(l, fmt::format("attribute '{}' is '{}', not a byte count below 2^63", name, a.text));
  return a.integers[0];
}

void check_const(const reader& r, const layer& l, std::size_t bin_size, const std::string& bin_file) {
  const auto& type_name = required_data(r, l, "element_type");
  const auto found = precision(type_name.text);
  if (!found)
    fail(errc::unknown_element_type, {.offset = l.byte, .file = r.file()},
         fmt::format("{}: {}: element type '{}' is unknown", r.file(), l.where(), type_name.text), {});
  const auto type = *found;
  const auto& shape_attribute = required_data(r, l, "shape");
  if (!shape_attribute.is_integers)
    r.bad_layer(l, fmt::format("attribute 'shape' is '{}', not a static shape", shape_attribute.text));
  const auto& dims = shape_attribute.integers;
  for (auto d : dims)
    if (d < 0) r.bad_layer(l, fmt::format("attribute 'shape' has the dimension {}", d));
  const auto offset = count_attribute(r, l, "offset");
  const auto size = count_attribute(r, l, "size");
  if (type != element_type::string) {
    std::uint64_t count = 1;
    for (auto d : dims)
      if (__builtin_mul_overflow(count, static_cast<std::uint64_t>(d), &count))
        r.bad_layer(l, "attribute 'shape' has more than 2^64 elements");
    std::uint64_t expected = 0;
    try {
      expected = storage_size(type, count);
    } catch (const error&) {  // said here with the layer, which storage_size does not know
      r.bad_layer(l, fmt::format("attribute 'shape' holds {} elements of {}, more than 2^64 bytes", count, name(type)));
    }
    if (static_cast<std::uint64_t>(size) != expected)
      r.bad_layer(l, fmt::format("size {} does not match a {} tensor of shape [{}] ({} bytes)", size, name(type),
                                 fmt::join(dims, ","), expected));
  }
  std::uint64_t end = 0;
  if (__builtin_add_overflow(static_cast<std::uint64_t>(offset), static_cast<std::uint64_t>(size), &end) ||
      end > bin_size)
    fail(errc::bad_file, {.offset = static_cast<std::size_t>(offset), .file = bin_file},
         fmt::format("{}: {} reads {} bytes at byte {}, past the end of the file ({} bytes)", bin_file, l.where(), size,
                     offset, bin_size),
         {});
}

}  // namespace

namespace {

/// The .xml's bytes in memory, parsed in place: the document's texts point into them, and they live as
/// long as the graph (its string_views point into them). The document itself is freed once the graph is
/// built.
struct xml_in_memory {
  /// Read from the file.
  explicit xml_in_memory(const std::filesystem::path& p)
      : file(std::in_place, p, io::detail::file_access::read_into_memory), text(file->writable_bytes()) {}
  /// Given (a model rewritten in memory).
  explicit xml_in_memory(std::string given) : owned(std::move(given)), text(std::as_writable_bytes(std::span(owned))) {}
  std::optional<io::detail::mapped_file> file;
  std::string owned;
  std::span<std::byte> text;
  pugi::xml_document document;
};

}  // namespace

/// Reads the layers of one graph (the model's or a body's) into it, and the bodies of its TensorIterator
/// and Loop layers (nested ones too).
struct graph_reader {
  graph_reader(const reader& r, graph& g, std::shared_ptr<const void> text)
      : r_(r), g_(g), storage_(std::make_shared<graph_storage>()) {
    storage_->text = std::move(text);
  }

  /// Reads one <layer> (without its body) and appends it to the graph; true when it has a <body>.
  bool read_layer(const pugi::xml_node& node);
  /// Links each layer's inputs to their sources; no layer is read after this.
  void finish();
  /// Sorts the graph's index by id (files usually list layers by id already, and then nothing moves).
  /// Returns the later of two layers that share an id, or nullptr.
  const layer* sort_ids();
  /// The source slot of input `input` of layer `index` (after finish()).
  std::optional<source>& source_slot(std::size_t index, std::size_t input) {
    return storage_->sources[first_source_[index] + input];
  }
  /// Links each input to its source from <edges>, checks that every input is fed, and orders the layers
  /// (every producer before its consumers): the model's edges, or those of the body of `owner`, which
  /// the messages then name.
  void link(const pugi::xml_node& edges, const layer* owner);

  /// Reads the model whose .xml is `in_memory` (named `file` in messages); `weights()` opens its .bin
  /// (named `bin_file`) once the .xml has been read.
  static graph read(const std::shared_ptr<xml_in_memory>& in_memory, const std::string& file,
                    const std::string& bin_file,
                    const std::function<std::shared_ptr<const io::detail::mapped_file>()>& weights);
  static std::shared_ptr<const subgraph> read_body(const reader& r, const pugi::xml_node& node, const graph& outer,
                                                   const layer& owner, const std::string& bin_file, int depth = 1);
  /// Bodies nested deeper are refused (real models nest two or three).
  static constexpr int max_depth = 16;

 private:
  /// Orders the layers (Kahn's algorithm) from `links`, (producer, consumer) per edge in file order, and
  /// `pending`, each layer's count of them; a cycle is refused.
  void order(const std::vector<std::pair<std::size_t, std::size_t>>& links, std::vector<std::size_t>& pending,
             const layer* owner);
  /// Messages about a body say whose: `in the body of layer 'lstm' (id 3): ...`.
  static std::string body_prefix(const layer* owner) {
    return owner == nullptr ? std::string() : fmt::format("in the body of {}: ", owner->where());
  }
  /// Reads the <port> children of <input> or <output>.
  std::span<const port> ports(const layer& l, const pugi::xml_node& parent);
  static port_mapping mapping(const reader& r, const pugi::xml_node& n, const layer& owner);

  const reader& r_;
  graph& g_;
  std::shared_ptr<graph_storage> storage_;
  std::vector<std::size_t> first_source_;
};

std::span<const port> graph_reader::ports(const layer& l, const pugi::xml_node& parent) {
  auto& st = *storage_;
  st.ports.start();
  for (auto p = parent.first_child(); p; p = p.next_sibling()) {
    if (p.type() != pugi::node_element || !named(p.name(), "port")) continue;
    port& out = st.ports.append();
    const auto [id, precision_attribute] = first_of_each(p.first_attribute(), "id", "precision");
    if (!id || id.value()[0] == '\0') r_.bad_layer(l, fmt::format("a port of <{}> has no id", parent.name()));
    out.id = r_.integer(p, id, "id", [&] { return l.where(); });
    st.dims.start();
    for (auto d = p.first_child(); d; d = d.next_sibling()) {
      if (d.type() != pugi::node_element) continue;
      if (named(d.name(), "dim")) {
        if (st.dims.run_size() >= max_rank) [[unlikely]]  // refused as a partial_shape refuses it
          partial_shape(std::span<const dimension>(st.dims.run())).push_back(dimension());
        const char* text = d.child_value();
        const auto plain = plain_decimal(text);
        st.dims.append() = plain ? dimension(*plain) : r_.dim(l, out.id, text);
      } else if (named(d.name(), "rt_info")) {
        for (const auto& a : d.children("attribute"))
          if (std::string_view(a.attribute("name").value()) == "layout") out.layout = a.attribute("layout").value();
      }
    }
    out.dims = st.dims.run();
    if (precision_attribute) out.type = precision(precision_attribute.value());
  }
  return st.ports.run();
}

bool graph_reader::read_layer(const pugi::xml_node& node) {
  layer l;
  l.byte = reader::at(node);
  // One pass over the attributes and one over the children.
  const auto [name, id, type, opset_version] = first_of_each(node.first_attribute(), "name", "id", "type", "version");
  const auto [data, input, output, body] = first_of_each(node.first_child(), "data", "input", "output", "body");
  l.name = name.value();
  l.id = r_.integer(node, id, "id", [&] { return fmt::format("layer '{}'", l.name); });
  if (!type) r_.bad(reader::at(node), fmt::format("{}: missing attribute 'type'", l.where()));
  l.type = type.value();
  l.version = opset_version.value();
  if (l.version.starts_with("opset")) {
    const std::string_view n = l.version.substr(5);
    int v = 0;
    const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
    if (ec == std::errc() && end == n.data() + n.size()) l.opset = v;
  }
  auto& st = *storage_;
  st.attributes.start();
  for (auto a = data.first_attribute(); a; a = a.next_attribute()) append_attribute(st, a.name(), a.value());
  l.attributes = st.attributes.run();
  if (part_of(l.type) == op_part::reshape) {  // refused here when missing or not a boolean (OpenVINO keeps its default)
    const auto* a = l.find("special_zero");
    if (a == nullptr) r_.bad_layer(l, "missing attribute 'special_zero' in <data>");
    if (!a->boolean)
      r_.bad_layer(l, fmt::format("attribute 'special_zero' is '{}'", a->text), "write true, false, 1 or 0");
  }
  l.inputs = ports(l, input);
  l.outputs = ports(l, output);
  g_.by_id_.emplace_back(l.id, g_.layers_.size());
  g_.layers_.push_back(std::move(l));
  return static_cast<bool>(body);
}

const layer* graph_reader::sort_ids() {
  auto& ids = g_.by_id_;
  if (!std::is_sorted(ids.begin(), ids.end())) std::sort(ids.begin(), ids.end());
  for (std::size_t i = 1; i < ids.size(); ++i)
    if (ids[i].first == ids[i - 1].first) return &g_.layers_[std::max(ids[i].second, ids[i - 1].second)];
  return nullptr;
}

void graph_reader::finish() {
  std::size_t sources = 0;
  first_source_.reserve(g_.layers_.size());
  for (const auto& l : g_.layers_) {
    first_source_.push_back(sources);
    sources += l.inputs.size();
  }
  auto& st = *storage_;
  st.sources.assign(sources, std::nullopt);
  for (std::size_t i = 0; i < g_.layers_.size(); ++i)
    g_.layers_[i].sources = {st.sources.data() + first_source_[i], g_.layers_[i].inputs.size()};
  g_.storage_ = storage_;
}

void graph_reader::link(const pugi::xml_node& edges, const layer* owner) {
  graph& g = g_;
  const reader& r = r_;
  const auto in_body = [&] { return body_prefix(owner); };
  // Layer ids are usually 0..n-1: a table finds them without a search (graph::find otherwise).
  std::vector<std::size_t> by_dense_id;
  if (!g.by_id_.empty() && g.by_id_.front().first >= 0 &&
      g.by_id_.back().first < static_cast<std::int64_t>(4 * g.layers_.size() + 64)) {
    by_dense_id.assign(static_cast<std::size_t>(g.by_id_.back().first) + 1, g.layers_.size());
    for (const auto& [id, index] : g.by_id_) by_dense_id[static_cast<std::size_t>(id)] = index;
  }
  const auto layer_of = [&](std::int64_t id) -> const layer* {
    if (by_dense_id.empty()) return g.find(id);
    if (id < 0 || static_cast<std::uint64_t>(id) >= by_dense_id.size()) return nullptr;
    const auto index = by_dense_id[static_cast<std::size_t>(id)];
    return index < g.layers_.size() ? &g.layers_[index] : nullptr;
  };
  std::vector<std::pair<std::size_t, std::size_t>> links;  // (producer, consumer) per edge, in file order
  std::vector<std::size_t> pending(g.layers_.size(), 0);
  for (auto node = edges.first_child(); node; node = node.next_sibling()) {
    if (node.type() != pugi::node_element || !named(node.name(), "edge")) continue;
    const auto edge = [&] { return in_body() + "<edge>"; };
    const auto ends = first_of_each(node.first_attribute(), "from-layer", "from-port", "to-layer", "to-port");
    const auto from_id = r.integer(node, ends[0], "from-layer", edge);
    const auto from_port = r.integer(node, ends[1], "from-port", edge);
    const auto to_id = r.integer(node, ends[2], "to-layer", edge);
    const auto to_port = r.integer(node, ends[3], "to-port", edge);
    const auto where = [&] {
      return fmt::format("{}edge from layer {} port {} to layer {} port {}", in_body(), from_id, from_port, to_id,
                         to_port);
    };
    const auto* from = layer_of(from_id);
    const auto* to = layer_of(to_id);
    if (from == nullptr) r.bad(reader::at(node), fmt::format("{}: layer {} does not exist", where(), from_id));
    if (to == nullptr) r.bad(reader::at(node), fmt::format("{}: layer {} does not exist", where(), to_id));
    const auto out = port_index(from->outputs, from_port);
    const auto in = port_index(to->inputs, to_port);
    if (!out) r.bad(reader::at(node), fmt::format("{}: {} has no output port {}", where(), from->where(), from_port));
    if (!in) r.bad(reader::at(node), fmt::format("{}: {} has no input port {}", where(), to->where(), to_port));
    const auto from_index = static_cast<std::size_t>(from - g.layers_.data());
    const auto to_index = static_cast<std::size_t>(to - g.layers_.data());
    auto& slot = source_slot(to_index, *in);
    if (slot) r.bad(reader::at(node), fmt::format("{}: that input already has an edge", where()));
    slot = source{from_index, *out};
    links.emplace_back(from_index, to_index);
    ++pending[to_index];
  }

  // Every input must be fed: a layer with nothing on an input port cannot be computed.
  for (const auto& l : g.layers_)
    for (std::size_t i = 0; i < l.inputs.size(); ++i)
      if (!l.sources[i])
        r.bad_layer(l, fmt::format("{}nothing is connected to input port {}", in_body(), l.inputs[i].id),
                    "the model cannot be read");
  order(links, pending, owner);
}

void graph_reader::order(const std::vector<std::pair<std::size_t, std::size_t>>& links,
                         std::vector<std::size_t>& pending, const layer* owner) {
  graph& g = g_;
  // Each layer's consumers, in edge order, in one array (first[i]..first[i+1]).
  std::vector<std::size_t> first(g.layers_.size() + 1, 0), consumers(links.size());
  for (const auto& [from, to] : links) ++first[from + 1];
  for (std::size_t i = 0; i < g.layers_.size(); ++i) first[i + 1] += first[i];
  {
    std::vector<std::size_t> next(first.begin(), first.end() - 1);
    for (const auto& [from, to] : links) consumers[next[from]++] = to;
  }

  // Topological order (Kahn); what is left over lies on a cycle.
  g.order_.reserve(g.layers_.size());
  for (std::size_t i = 0; i < g.layers_.size(); ++i)
    if (pending[i] == 0) g.order_.push_back(i);
  for (std::size_t k = 0; k < g.order_.size(); ++k)
    for (std::size_t e = first[g.order_[k]]; e < first[g.order_[k] + 1]; ++e)
      if (--pending[consumers[e]] == 0) g.order_.push_back(consumers[e]);
  if (g.order_.size() != g.layers_.size()) {
    const auto on_cycle = static_cast<std::size_t>(
        std::find_if(pending.begin(), pending.end(), [](std::size_t p) { return p != 0; }) - pending.begin());
    const auto& l = g.layers_[on_cycle];
    const bool self = std::any_of(l.sources.begin(), l.sources.end(),
                                  [&](const auto& s) { return s && s->layer == on_cycle; });
    r_.bad_layer(l, body_prefix(owner) + (self ? "the layer feeds its own input" : "the layer is on a cycle of edges"),
                 "the model cannot be read");
  }
}

// ---- TensorIterator and Loop bodies -------------------------------------------------------------------
// A body is a network of its own (<layers>, <edges>) inside the layer, with a <port_map> and <back_edges>.
// It is read after the outer graph, into a graph that shares the outer one's weights and XML.

port_mapping graph_reader::mapping(const reader& r, const pugi::xml_node& n, const layer& owner) {
  const auto what = [&] { return fmt::format("{}: <port_map> <{}>", owner.where(), n.name()); };
  port_mapping m;
  m.external_port = r.integer(n, "external_port_id", what);
  m.internal_layer = r.integer(n, "internal_layer_id", what);
  if (n.attribute("axis")) m.axis = r.integer(n, "axis", what);
  if (n.attribute("start")) m.start = r.integer(n, "start", what);
  if (n.attribute("end")) m.end = r.integer(n, "end", what);
  if (n.attribute("stride")) m.stride = r.integer(n, "stride", what);
  if (n.attribute("part_size")) m.part_size = r.integer(n, "part_size", what);
  m.purpose = n.attribute("purpose").value();
  if (m.part_size <= 0 || m.stride == 0)
    r.bad(reader::at(n), fmt::format("{}: part_size {} must be positive and stride not 0", what(), m.part_size));
  return m;
}

std::shared_ptr<const subgraph> graph_reader::read_body(const reader& r, const pugi::xml_node& node,
                                                        const graph& outer, const layer& owner,
                                                        const std::string& bin_file, int depth) {
  if (depth > max_depth) r.bad_layer(owner, fmt::format("its <body> is nested more than {} deep", max_depth));
  auto sub = std::make_shared<subgraph>();
  graph& g = sub->network;
  g.version_ = outer.version_;
  g.name_ = owner.name;
  g.xml_file_ = outer.xml_file_;
  g.bin_file_ = outer.bin_file_;
  g.bin_ = outer.bin_;
  g.bin_bytes_ = outer.bin_bytes_;
  const auto body = node.child("body");
  const auto layers = body.child("layers");
  if (!layers) r.bad_layer(owner, "its <body> has no <layers>");
  graph_reader layers_reader(r, g, static_cast<const graph_storage*>(outer.storage_.get())->text);
  std::vector<std::pair<std::size_t, pugi::xml_node>> nested;
  for (const auto& n : layers.children("layer")) {
    if (layers_reader.read_layer(n)) nested.emplace_back(g.layers_.size() - 1, n);
  }
  layers_reader.finish();
  if (const auto* twice = layers_reader.sort_ids())
    r.bad_layer(*twice, fmt::format("in the body of {}: id {} is used by an earlier layer too", owner.where(), twice->id));
  layers_reader.link(body.child("edges"), &owner);
  g.edges_byte_ = reader::at(body.child("edges"));
  for (const auto& l : g.layers_)
    if (part_of(l.type) == op_part::constant) check_const(r, l, g.bin_bytes_.size(), bin_file);
  for (const auto& [index, n] : nested)
    g.layers_[index].body = read_body(r, n, g, g.layers_[index], bin_file, depth + 1);

  // The port map: external ports are the layer's, internal layers the body's Parameters and Results.
  const auto map = node.child("port_map");
  for (const auto& n : map.children()) {
    const std::string_view kind = n.name();
    if (kind != "input" && kind != "output") continue;
    const bool input = kind == "input";
    auto m = mapping(r, n, owner);
    const auto* target = g.find(m.internal_layer);
    const char* expected = input ? "Parameter" : "Result";
    if (target == nullptr || target->type != expected)
      r.bad(reader::at(n), fmt::format("{}: <port_map> <{}> names body layer {}, which is not a {}", owner.where(), kind,
                                       m.internal_layer, expected));
    if (m.external_port != -1 && !port_index(input ? owner.inputs : owner.outputs, m.external_port))
      r.bad(reader::at(n), fmt::format("{}: <port_map> <{}> names port {}, which the layer does not have", owner.where(),
                                       kind, m.external_port));
    (input ? sub->inputs : sub->outputs).push_back(std::move(m));
  }
  for (const auto& n : node.child("back_edges").children("edge")) {
    const auto what = [&] { return fmt::format("{}: <back_edges> <edge>", owner.where()); };
    back_edge e{r.integer(n, "from-layer", what), r.integer(n, "to-layer", what)};
    const auto* from = g.find(e.from_layer);
    const auto* to = g.find(e.to_layer);
    if (from == nullptr || part_of(from->type) != op_part::result || to == nullptr ||
        part_of(to->type) != op_part::parameter)
      r.bad(reader::at(n), fmt::format("{}: a back edge goes from a body Result to a body Parameter", what()),
            fmt::format("{} to {} does not", e.from_layer, e.to_layer));
    sub->back_edges.push_back(e);
  }
  return sub;
}

graph graph_reader::read(const std::shared_ptr<xml_in_memory>& in_memory, const std::string& file,
                         const std::string& bin_file,
                         const std::function<std::shared_ptr<const io::detail::mapped_file>()>& weights) {
  const reader r(file);
  pugi::xml_document* const doc = &in_memory->document;
  const auto bytes = in_memory->text;
  // parse_embed_pcdata keeps a <dim>'s text in the element itself: no node per dimension.
  const auto parsed = doc->load_buffer_inplace(bytes.data(), bytes.size(),
                                               pugi::parse_default | pugi::parse_embed_pcdata, pugi::encoding_utf8);
  if (!parsed)
    r.bad(static_cast<std::size_t>(parsed.offset), fmt::format("not well-formed XML: {}", parsed.description()));
  const auto net = doc->child("net");
  if (!net) r.bad(0, "not an OpenVINO IR: there is no <net> element");

  graph g;
  g.xml_file_ = file;
  g.bin_file_ = bin_file;
  g.name_ = net.attribute("name").value();
  const std::string_view version = r.required(net, "version", [] { return "<net>"; });
  if (version != "10" && version != "11")
    fail(errc::unsupported, {.offset = reader::at(net), .file = file},
         fmt::format("{}: IR version {} is not supported", io::detail::at_byte(file, reader::at(net)), version),
         "reshape1 reads IR versions 10 and 11");
  g.version_ = version == "10" ? 10 : 11;

  const auto layers = net.child("layers");
  if (!layers) r.bad(reader::at(net), "<net> has no <layers>");
  std::size_t count = 0;
  for (auto node = layers.first_child(); node; node = node.next_sibling()) ++count;
  g.layers_.reserve(count);
  g.by_id_.reserve(count);
  graph_reader layers_reader(r, g, in_memory);
  std::vector<std::pair<std::size_t, pugi::xml_node>> bodies;  // TensorIterator and Loop, read last
  for (auto node = layers.first_child(); node; node = node.next_sibling()) {
    if (node.type() != pugi::node_element || !named(node.name(), "layer")) continue;
    if (layers_reader.read_layer(node)) bodies.emplace_back(g.layers_.size() - 1, node);
  }
  layers_reader.finish();
  if (const auto* twice = layers_reader.sort_ids())
    r.bad_layer(*twice, fmt::format("id {} is used by an earlier layer too", twice->id));

  layers_reader.link(net.child("edges"), nullptr);
  g.edges_byte_ = reader::at(net.child("edges"));

  std::shared_ptr<const io::detail::mapped_file> bin = weights();
  g.bin_bytes_ = bin->bytes();
  g.bin_ = std::move(bin);
  constexpr std::string_view lfs = "version https://git-lfs.github.com/spec/";
  if (g.bin_bytes_.size() >= lfs.size() && g.bin_bytes_.size() < 1024 &&
      std::memcmp(g.bin_bytes_.data(), lfs.data(), lfs.size()) == 0)
    fail(errc::bad_file, {.offset = 0, .file = bin_file},
         fmt::format("{}: a Git LFS pointer file, not the weights", bin_file), "fetch them with 'git lfs pull'");
  for (const auto& l : g.layers_)
    if (part_of(l.type) == op_part::constant) check_const(r, l, g.bin_bytes_.size(), bin_file);
  for (const auto& [index, node] : bodies) g.layers_[index].body = graph_reader::read_body(r, node, g, g.layers_[index], bin_file);
  doc->reset();  // the graph needs only the text, not the nodes: propagation reuses their memory
  return g;
}

std::filesystem::path weights_of(const std::filesystem::path& xml, const std::filesystem::path& bin,
                                 option_spelling spelling) {
  if (!bin.empty()) return bin;
  // The weights are looked for beside the .xml: say so, and how to give them, when they are not there.
  if (xml == "-")
    fail(errc::invalid_argument, {}, "-: an IR read from standard input has no file beside it to take its weights from",
         fmt::format("give the weights' file with {}", detail::usage_of(spelling, detail::option::bin)));
  auto beside = std::filesystem::path(xml).replace_extension(".bin");
  std::error_code ec;
  if (!std::filesystem::exists(beside, ec))
    fail(errc::io, {.file = beside.string()},
         fmt::format("{}: the weights of {} are not there (an IR's weights are looked for beside its .xml)",
                     io::detail::escaped(beside.string()), io::detail::escaped(xml.string())),
         fmt::format("give the weights' file with {}", detail::usage_of(spelling, detail::option::bin)));
  return beside;
}

graph read_ir(const std::filesystem::path& xml, const std::filesystem::path& bin) {
  return graph_reader::read(std::make_shared<xml_in_memory>(xml), xml.string(), bin.string(),
                            [&] { return std::make_shared<const io::detail::mapped_file>(bin); });
}

graph detail::read_ir_in_memory(std::string xml, const std::string& xml_name,
                                std::shared_ptr<const io::detail::mapped_file> weights, const std::string& bin_name) {
  return graph_reader::read(std::make_shared<xml_in_memory>(std::move(xml)), xml_name, bin_name,
                            [&] { return weights; });
}

}  // namespace reshape1::model
