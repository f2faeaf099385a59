// Reading OpenVINO IR (versions 10 and 11) into a typed graph, with pugixml, which stays inside this file;
// and the edits fix makes to a graph in memory and to the .xml's text.
// Every number is parsed once here, with std::from_chars; nothing downstream re-reads text.
#include <pugixml.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <tuple>

#include <fmt/format.h>

#include "detail/fail.hpp"
#include "io/files.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/graph.hpp"
#include "model/options.hpp"
#include "model/ir/read_internal.hpp"
#include "model/ops/rules.hpp"

namespace reshape1::model {
namespace {

using reshape1::detail::fail;
using model::detail::is_space;
using model::detail::op_part;
using model::detail::part_of;
using model::detail::port_index;
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

/// A comma-separated list of T ("" is the empty list; spaces around items are allowed) as a new run of
/// `out`; false (and an empty run) when any item is not a T. One pass over the text.
template <class T, class Arena>
bool parse_list(std::string_view text, Arena& out) {
  out.start();
  const char* p = text.data();
  const char* const end = p + text.size();
  const auto skip_spaces = [&] {
    while (p != end && is_space(*p)) ++p;
  };
  skip_spaces();
  if (p == end) return true;  // "" or only spaces: the empty list
  while (true) {              // at an item, spaces before it skipped
    T v{};
    const auto [next, ec] = std::from_chars(p, end, v);
    if (ec != std::errc() || next == p) break;
    out.append() = v;
    p = next;
    skip_spaces();
    if (p == end) return true;
    if (*p != ',') break;
    ++p;
    skip_spaces();
  }
  out.truncate(0);
  return false;
}

std::optional<bool> parse_boolean(std::string_view t) {
  auto equals = [&](std::string_view word) {
    return t.size() == word.size() &&
           std::equal(t.begin(), t.end(), word.begin(), [](char a, char b) { return (a | 0x20) == b; });
  };
  if (t == "1" || equals("true")) return true;
  if (t == "0" || equals("false")) return false;
  return std::nullopt;
}

/// An element type as a layer's `element_type` writes it (`f32`: reshape1's own names, all lower case) or
/// as a port's `precision` does (`FP32`: all upper case).
std::optional<element_type> precision(std::string_view p) {
  if (p.empty() || !(p[0] >= 'A' && p[0] <= 'Z')) return find_element_type(p);
  static constexpr std::pair<std::string_view, element_type> names[] = {
      {"FP32", element_type::f32}, {"FP16", element_type::f16}, {"FP64", element_type::f64},
      {"BF16", element_type::bf16}, {"I64", element_type::i64},  {"I32", element_type::i32},
      {"I16", element_type::i16},  {"I8", element_type::i8},     {"U64", element_type::u64},
      {"U32", element_type::u32},  {"U16", element_type::u16},   {"U8", element_type::u8},
      {"BOOL", element_type::boolean}, {"U1", element_type::u1}, {"I4", element_type::i4},
      {"U4", element_type::u4}};
  for (const auto& [n, t] : names)
    if (n == p) return t;
  return std::nullopt;
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

const attribute* layer::find(std::string_view n) const noexcept {
  // The first character settles most comparisons without a call to memcmp (an XML name is never empty).
  for (const auto& a : attributes)
    if (a.name.size() == n.size() && !n.empty() && a.name[0] == n[0] && a.name == n) return &a;
  return nullptr;
}

std::string layer::where() const { return fmt::format("layer '{}' (id {})", name, id); }

std::string_view layer::op_type() const { return text("onnx_op", type); }

int layer::op_version() const {
  const auto* a = find("onnx_version");
  return a != nullptr && a->is_integers && a->integers.size() == 1 ? static_cast<int>(a->integers[0]) : opset;
}

namespace {
[[noreturn]] void bad_attribute(const layer& l, std::string_view n, std::string_view what, std::string hint = {}) {
  fail(errc::bad_file, {}, fmt::format("{}: attribute '{}' {}", l.where(), n, what), std::move(hint));
}
const attribute& need(const layer& l, std::string_view n) {
  const auto* a = l.find(n);
  if (a == nullptr) fail(errc::bad_file, {}, fmt::format("{}: missing attribute '{}' in <data>", l.where(), n), {});
  return *a;
}
}  // namespace

std::int64_t layer::integer(std::string_view n) const {
  const auto& a = need(*this, n);
  if (!a.is_integers || a.integers.size() != 1) bad_attribute(*this, n, fmt::format("is '{}', not an integer", a.text));
  return a.integers[0];
}

std::int64_t layer::integer(std::string_view n, std::int64_t fallback) const {
  return find(n) == nullptr ? fallback : integer(n);
}

std::span<const std::int64_t> layer::integers(std::string_view n) const {
  const auto& a = need(*this, n);
  if (!a.is_integers) bad_attribute(*this, n, fmt::format("is '{}', not a list of integers", a.text));
  return a.integers;
}

std::vector<std::int64_t> layer::integers(std::string_view n, std::vector<std::int64_t> fallback) const {
  if (find(n) == nullptr) return fallback;
  const auto list = integers(n);
  return {list.begin(), list.end()};
}

std::vector<double> layer::reals(std::string_view n) const {
  const auto& a = need(*this, n);
  if (!a.is_reals) bad_attribute(*this, n, fmt::format("is '{}', not a list of numbers", a.text));
  if (a.is_integers) return {a.integers.begin(), a.integers.end()};
  return {a.reals.begin(), a.reals.end()};
}

bool layer::flag(std::string_view n) const {
  const auto& a = need(*this, n);
  if (!a.boolean)
    bad_attribute(*this, n, fmt::format("is '{}'", a.text), "write true, false, 1 or 0");
  return *a.boolean;
}

bool layer::flag(std::string_view n, bool fallback) const { return find(n) == nullptr ? fallback : flag(n); }

std::string_view layer::text(std::string_view n, std::string_view fallback) const {
  const auto* a = find(n);
  return a == nullptr ? fallback : std::string_view(a->text);
}

element_type layer::element(std::string_view n) const {
  const auto& a = need(*this, n);
  const auto t = precision(a.text);
  if (!t) fail(errc::unknown_element_type, {}, fmt::format("{}: element type '{}' is unknown", where(), a.text), {});
  return *t;
}

const layer* graph::find(std::int64_t id) const noexcept {
  const auto it = std::lower_bound(by_id_.begin(), by_id_.end(), std::pair<std::int64_t, std::size_t>(id, 0));
  return it == by_id_.end() || it->first != id ? nullptr : &layers_[it->second];
}

std::span<const std::byte> graph::const_bytes(const layer& l) const {
  // The readers checked that every Const's bytes lie in the weights; a layer that is not the graph's own
  // (or a Const the graph holds no bytes for) gets none, not a view past their end.
  const auto offset = static_cast<std::uint64_t>(l.integer("offset"));
  const auto size = static_cast<std::uint64_t>(l.integer("size"));
  if (offset > bin_bytes_.size() || size > bin_bytes_.size() - offset) return {};
  return bin_bytes_.subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(size));
}

// ---- Reading layers -----------------------------------------------------------------------------------
// A graph's texts view the parsed XML, which the graph keeps; its ports, attributes, integer and real
// lists and input sources live in one array each (per graph: a TensorIterator's or Loop's body has its
// own), which layers view once every layer is read.

/// Elements appended in runs (a layer's ports, an attribute's integers), each run contiguous, in blocks
/// that never move: what is appended stays where it is, so that a layer can view its runs at once.
template <class T>
class arena {
 public:
  /// Starts a run: the elements appended until the next start() are contiguous.
  void start() {
    if (blocks_.empty()) grow(0);
    start_ = blocks_.back().size();
  }
  T& append() {
    auto* b = &blocks_.back();
    if (b->size() == b->capacity()) {  // full: the run moves to a new block
      const auto run = b->size() - start_;
      grow(run);
      auto& old = blocks_[blocks_.size() - 2];
      b = &blocks_.back();
      std::move(old.begin() + static_cast<std::ptrdiff_t>(start_), old.end(), std::back_inserter(*b));
      old.resize(start_);
      start_ = 0;
    }
    return b->emplace_back();
  }
  [[nodiscard]] std::size_t run_size() const { return blocks_.back().size() - start_; }
  /// Drops the run's elements from the n-th on.
  void truncate(std::size_t n) { blocks_.back().resize(start_ + n); }
  [[nodiscard]] std::span<T> run() { return {blocks_.back().data() + start_, run_size()}; }

 private:
  void grow(std::size_t run) { blocks_.emplace_back().reserve(std::max(block, 2 * run)); }
  static constexpr std::size_t block = std::max<std::size_t>(16, 16384 / sizeof(T));
  std::vector<std::vector<T>> blocks_;
  std::size_t start_ = 0;
};

/// What a graph's layers view.
struct graph_storage {
  std::shared_ptr<const void> text;  // the XML text every string_view points into; shared with the bodies
  arena<attribute> attributes;
  arena<std::int64_t> integers;
  arena<double> reals;
  arena<port> ports;
  arena<dimension> dims;
  std::vector<std::optional<source>> sources;
};

namespace {
/// Appends the attribute `name`=`text` to st's current run, with what its text reads as: a boolean, an
/// integer list (then a real list too; `reals` is filled only for the others), or a real list.
void append_attribute(graph_storage& st, std::string_view name, std::string_view text) {
  attribute& at = st.attributes.append();
  at.name = name;
  at.text = text;
  at.boolean = parse_boolean(model::detail::trim(at.text));
  at.is_integers = parse_list<std::int64_t>(at.text, st.integers);
  at.integers = st.integers.run();
  if (at.is_integers) {
    at.is_reals = true;
  } else {
    at.is_reals = parse_list<double>(at.text, st.reals);
    at.reals = st.reals.run();
  }
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
  // Messages about a body say whose: `in the body of layer 'lstm' (id 3): ...`.
  const auto in_body = [&] { return owner == nullptr ? std::string() : fmt::format("in the body of {}: ", owner->where()); };
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
    r.bad_layer(l, in_body() + (self ? "the layer feeds its own input" : "the layer is on a cycle of edges"),
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

// ---- Graphs built layer by layer (ONNX) -------------------------------------------------------------

detail::graph_builder::graph_builder(model_format format, int version, std::string name, std::string file)
    : format_(format), version_(version), name_(std::move(name)), file_(std::move(file)) {}

std::size_t detail::graph_builder::add(layer_spec l) {
  layers_.push_back(std::move(l));
  return layers_.size() - 1;
}

void detail::graph_builder::weights(std::shared_ptr<const void> owner, std::span<const std::byte> bytes) {
  weights_owner_ = std::move(owner);
  weights_ = bytes;
}

graph detail::graph_builder::build() {
  // The specs own every text the layers view: they move into the graph's storage once, and never change.
  struct owned {
    std::vector<layer_spec> specs;
    std::vector<std::string> versions;
  };
  auto texts = std::make_shared<owned>();
  texts->specs = std::move(layers_);
  layers_.clear();
  const auto& specs = texts->specs;
  // One text per opset a layer names (a handful), which the layers view: reserved, so none moves.
  texts->versions.reserve(specs.size());
  std::vector<std::size_t> version_of(specs.size());
  for (std::size_t index = 0; index < specs.size(); ++index) {
    const auto text = "opset" + std::to_string(specs[index].opset);
    const auto known = std::find(texts->versions.begin(), texts->versions.end(), text);
    version_of[index] = static_cast<std::size_t>(known - texts->versions.begin());
    if (known == texts->versions.end()) texts->versions.push_back(text);
  }

  graph g;
  g.format_ = format_;
  g.version_ = version_;
  g.name_ = name_;
  g.xml_file_ = file_;
  g.bin_file_ = file_;
  g.bin_ = weights_owner_;
  g.bin_bytes_ = weights_;
  auto storage = std::make_shared<graph_storage>();
  auto& st = *storage;
  g.layers_.reserve(specs.size());
  g.by_id_.reserve(specs.size());
  std::size_t sources = 0;
  for (const auto& spec : specs) sources += spec.inputs.size();
  st.sources.reserve(sources);
  for (std::size_t index = 0; index < specs.size(); ++index) {
    g.by_id_.emplace_back(specs[index].id, index);
    g.layers_.push_back(built_layer(specs[index], texts->versions[version_of[index]], st));
  }
  std::sort(g.by_id_.begin(), g.by_id_.end());
  for (std::size_t i = 1; i < g.by_id_.size(); ++i)
    if (g.by_id_[i].first == g.by_id_[i - 1].first)
      fail(errc::bad_file, {.file = file_},
           fmt::format("{}: {} has the id of an earlier layer", file_, g.layers_[g.by_id_[i].second].where()), {});
  order(g, file_);
  storage->text = std::move(texts);
  g.storage_ = std::move(storage);
  return g;
}

layer detail::graph_builder::built_layer(const layer_spec& spec, std::string_view version, graph_storage& st) {
  layer l;
  l.id = spec.id;
  l.name = spec.name;
  l.type = spec.type;
  l.version = version;
  l.opset = spec.opset;
  l.byte = spec.byte;
  l.body = spec.body;
  l.auxiliary = spec.auxiliary;
  st.attributes.start();
  for (const auto& [name, text] : spec.attributes) append_attribute(st, name, text);
  l.attributes = st.attributes.run();
  st.ports.start();
  for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
    port& p = st.ports.append();
    p.id = static_cast<std::int64_t>(k);
    p.declared = false;
    if (k < spec.input_layouts.size()) p.layout = spec.input_layouts[k];
  }
  l.inputs = st.ports.run();
  st.ports.start();
  for (std::size_t k = 0; k < spec.outputs.size(); ++k) {
    const auto& o = spec.outputs[k];
    port& p = st.ports.append();
    p.id = static_cast<std::int64_t>(spec.inputs.size() + k);
    p.declared = o.declared;
    p.type = o.type;
    p.layout = o.layout;
    st.dims.start();
    for (const auto& d : o.dims) st.dims.append() = d;
    p.dims = st.dims.run();
  }
  l.outputs = st.ports.run();
  const auto first = st.sources.size();
  for (const auto& s : spec.inputs) st.sources.push_back(s);
  l.sources = {st.sources.data() + first, spec.inputs.size()};
  return l;
}

void detail::graph_builder::order(graph& g, const std::string& file_) {
  // Producers first (Kahn); an input that nothing feeds, or a cycle, is refused naming a layer on it.
  const auto n = g.layers_.size();
  std::vector<std::size_t> pending(n, 0), first(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < g.layers_[i].sources.size(); ++k) {
      const auto& s = g.layers_[i].sources[k];
      if (!s || s->layer >= n || s->output >= g.layers_[s->layer].outputs.size())
        fail(errc::bad_file, {.offset = g.layers_[i].byte, .file = file_},
             fmt::format("{}: {}: nothing computes its input {}", file_, g.layers_[i].where(), k),
             "the model cannot be read");
      ++pending[i];
      ++first[s->layer + 1];
    }
  for (std::size_t i = 0; i < n; ++i) first[i + 1] += first[i];
  std::vector<std::size_t> consumers(first[n]);
  {
    std::vector<std::size_t> next(first.begin(), first.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
      for (const auto& s : g.layers_[i].sources) consumers[next[s->layer]++] = i;
  }
  g.order_.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    if (pending[i] == 0) g.order_.push_back(i);
  for (std::size_t k = 0; k < g.order_.size(); ++k)
    for (std::size_t e = first[g.order_[k]]; e < first[g.order_[k] + 1]; ++e)
      if (--pending[consumers[e]] == 0) g.order_.push_back(consumers[e]);
  if (g.order_.size() != n) {
    const auto& l = g.layers_[static_cast<std::size_t>(
        std::find_if(pending.begin(), pending.end(), [](std::size_t p) { return p != 0; }) - pending.begin())];
    fail(errc::bad_file, {.offset = l.byte, .file = file_},
         fmt::format("{}: {} is on a cycle of tensors", file_, l.where()), "the model cannot be read");
  }
}

// ---- Graphs edited in memory (fix) -------------------------------------------------------------------

namespace {

/// What an edited graph's changed layers view; the original's storage stays alive beside it.
struct edit_storage {
  std::shared_ptr<const void> original;
  std::deque<std::string> texts;
  arena<attribute> attributes;
  arena<std::int64_t> integers;
  arena<double> reals;
  std::deque<std::vector<std::optional<source>>> sources;
};

[[noreturn]] void no_such_layer(std::int64_t id) {
  fail(errc::invalid_argument, {}, fmt::format("an edit names layer id {}, which is not in the model", id));
}

}  // namespace

graph detail::graph_editor::edited(const graph& g, std::span<const graph_edit> edits, const weights_for& weights) {
  graph r = g;  // the layers view the original's storage; only the edited ones are given new views
  auto st = std::make_shared<edit_storage>();
  st->original = g.storage_;
  std::tie(r.bin_, r.bin_bytes_) = weights(g);
  const auto sorted = r.by_id_.size();
  std::vector<std::size_t> clones;
  const auto index_of = [&](std::int64_t id) {
    const auto end = r.by_id_.begin() + static_cast<std::ptrdiff_t>(sorted);
    const auto it = std::lower_bound(r.by_id_.begin(), end, std::pair<std::int64_t, std::size_t>(id, 0));
    if (it != end && it->first == id) return it->second;
    for (auto k = sorted; k < r.by_id_.size(); ++k)  // the clones made so far (a few per model)
      if (r.by_id_[k].first == id) return r.by_id_[k].second;
    no_such_layer(id);
  };
  // Edits inside a body, by the layer of `g` that holds it (that body's ids are its own), in order.
  std::map<std::int64_t, std::vector<graph_edit>> inner;
  for (const auto& e : edits) {
    if (!e.within.empty()) {
      auto& x = inner[e.within.front()].emplace_back(e);
      x.within.erase(x.within.begin());
      continue;
    }
    if (e.what == graph_edit::kind::set_attribute) {
      auto& l = r.layers_[index_of(e.layer)];
      const std::string_view name = st->texts.emplace_back(e.name);
      const std::string_view text = st->texts.emplace_back(e.text);
      const auto old = l.attributes;
      bool replaced = false;
      st->attributes.start();
      for (std::size_t k = 0; k <= old.size(); ++k) {
        if (k == old.size() && replaced) break;
        attribute& at = st->attributes.append();
        if (k < old.size() && old[k].name != name) {
          at = old[k];
          continue;
        }
        replaced = true;
        at.name = name;
        at.text = text;
        at.boolean = parse_boolean(trim(text));
        at.is_integers = parse_list<std::int64_t>(text, st->integers);
        at.integers = st->integers.run();
        at.is_reals = at.is_integers || parse_list<double>(text, st->reals);
        at.reals = at.is_integers ? std::span<const double>() : std::span<const double>(st->reals.run());
      }
      l.attributes = st->attributes.run();
    } else {
      layer copy = r.layers_[index_of(e.layer)];
      if (part_of(copy.type) != op_part::constant || !copy.inputs.empty())
        fail(errc::invalid_argument, {}, fmt::format("{}: only a Const is cloned", copy.where()), {});
      if (g.find(e.id) != nullptr || std::any_of(r.by_id_.begin() + static_cast<std::ptrdiff_t>(sorted), r.by_id_.end(),
                                                 [&](const auto& x) { return x.first == e.id; }))
        fail(errc::invalid_argument, {}, fmt::format("a clone is given id {}, which a layer has already", e.id));
      auto& consumer = r.layers_[index_of(e.consumer)];
      if (e.port >= consumer.sources.size())
        fail(errc::invalid_argument, {}, fmt::format("{} has no input {}", consumer.where(), e.port), {});
      copy.id = e.id;
      copy.name = st->texts.emplace_back(e.name);
      const auto index = r.layers_.size();
      auto& fed = st->sources.emplace_back(consumer.sources.begin(), consumer.sources.end());
      fed[e.port] = source{index, 0};
      consumer.sources = fed;
      r.layers_.push_back(copy);
      r.by_id_.emplace_back(e.id, index);
      clones.push_back(index);
    }
  }
  for (const auto& [id, list] : inner) {
    auto& l = r.layers_[index_of(id)];
    if (!l.body) fail(errc::invalid_argument, {}, fmt::format("an edit names the body of {}, which has none", l.where()));
    auto body = std::make_shared<subgraph>(*l.body);
    body->network = edited(l.body->network, list, weights);
    l.body = std::move(body);
  }
  if (!clones.empty()) {
    std::sort(r.by_id_.begin(), r.by_id_.end());
    // A Const reads nothing: before every other layer is a producers-first place for it.
    clones.insert(clones.end(), r.order_.begin(), r.order_.end());
    r.order_ = std::move(clones);
  }
  r.storage_ = std::move(st);
  return r;
}

namespace {

/// Collects what pugixml prints.
struct string_writer final : pugi::xml_writer {
  std::string out;
  void write(const void* data, std::size_t size) override { out.append(static_cast<const char*>(data), size); }
};

constexpr unsigned fragment_parse = pugi::parse_default | pugi::parse_comments | pugi::parse_ws_pcdata;

/// The integer value of attribute `name` in one element's tag text, when it is written plainly
/// (name="123" or name='123', after a space); nullopt otherwise.
std::optional<std::int64_t> quick_integer(std::string_view tag, std::string_view name) {
  for (auto at = tag.find(name); at != std::string_view::npos; at = tag.find(name, at + 1)) {
    if (at == 0 || (tag[at - 1] != ' ' && tag[at - 1] != '\t' && tag[at - 1] != '\n' && tag[at - 1] != '\r')) continue;
    auto p = at + name.size();
    if (p + 1 >= tag.size() || tag[p] != '=' || (tag[p + 1] != '"' && tag[p + 1] != '\'')) return std::nullopt;
    const char quote = tag[p + 1];
    p += 2;
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(tag.data() + p, tag.data() + tag.size(), v);
    if (ec != std::errc() || end == tag.data() + tag.size() || *end != quote) return std::nullopt;
    return v;
  }
  return std::nullopt;
}

std::string print(const pugi::xml_node& n) {
  string_writer w;
  n.print(w, "", pugi::format_raw, pugi::encoding_utf8);
  return std::move(w.out);
}

/// Replacements of byte ranges of a text, made in one pass.
class splices {
 public:
  void add(std::size_t begin, std::size_t end, std::string text) {
    ranges_.emplace_back(begin, end);
    texts_.push_back(std::move(text));
  }
  [[nodiscard]] std::string applied_to(std::string_view text) const {
    std::vector<std::size_t> by_place(ranges_.size());
    for (std::size_t k = 0; k < by_place.size(); ++k) by_place[k] = k;
    std::sort(by_place.begin(), by_place.end(), [&](std::size_t a, std::size_t b) { return ranges_[a] < ranges_[b]; });
    std::string out;
    std::size_t size = text.size();
    for (const auto& s : texts_) size += s.size();
    out.reserve(size);
    std::size_t at = 0;
    for (const auto k : by_place) {
      out.append(text.substr(at, ranges_[k].first - at));
      out += texts_[k];
      at = ranges_[k].second;
    }
    out.append(text.substr(at));
    return out;
  }

 private:
  std::vector<std::pair<std::size_t, std::size_t>> ranges_;
  std::vector<std::string> texts_;
};

/// Re-points the <edge>s of the model's own <edges> (at `edges_byte` in `text`) that feed an input in
/// `repoint` ((consumer id, port id) -> the layer that now feeds it), as splices of `text`; `bad` refuses
/// a file where they are not where they were read.
template <class Bad>
void repoint_edges(std::size_t edges_byte, std::string_view text,
                   const std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t>& repoint, splices& edits,
                   const Bad& bad) {
  // One <edge> feeds each input port.
  const auto begin =
      edges_byte < text.size() && text[edges_byte] == '<' ? edges_byte : text.rfind('<', edges_byte);
  const auto end = begin == std::string_view::npos ? begin : text.find("</edges>", begin);
  if (end == std::string_view::npos || text.substr(begin, 6) != "<edges") bad("its <edges> element is not where it was read");
  std::set<std::int64_t> consumers;
  for (const auto& [key, to] : repoint) consumers.insert(key.first);
  std::size_t found = 0;
  for (auto at = text.find("<edge", begin + 6); at < end; at = text.find("<edge", at + 5)) {
    const auto close = text.find('>', at);
    if (close == std::string_view::npos || close > end) break;
    const auto tag = text.substr(at, close + 1 - at);
    if (tag.size() < 6 || (tag[5] != ' ' && tag[5] != '/' && tag[5] != '\t' && tag[5] != '\n' && tag[5] != '\r')) continue;
    // Most edges feed no clone's consumer: only a tag whose to-layer is one of theirs (or that cannot be
    // read so simply) is parsed.
    if (const auto to = quick_integer(tag, "to-layer"); to && !consumers.contains(*to)) continue;
    pugi::xml_document doc;
    if (!doc.load_buffer(tag.data(), tag.size(), fragment_parse, pugi::encoding_utf8)) continue;
    auto edge = doc.first_child();
    const auto it = repoint.find({edge.attribute("to-layer").as_llong(), edge.attribute("to-port").as_llong()});
    if (it == repoint.end()) continue;
    edge.attribute("from-layer").set_value(std::to_string(it->second).c_str());
    edits.add(at, close + 1, print(edge));
    ++found;
  }
  if (found != repoint.size()) bad("an input fed by a cloned Const has no <edge> in <edges>");
}

}  // namespace

std::string detail::graph_editor::edited_xml(const graph& g, std::span<const std::byte> xml,
                                             std::span<const graph_edit> edits) {
  const std::string_view text(reinterpret_cast<const char*>(xml.data()), xml.size());
  const auto bad = [&](const std::string& what, std::string hint = {}) -> void {
    fail(errc::bad_file, {.file = g.xml_file_}, fmt::format("{}: {}", g.xml_file_, what), std::move(hint));
  };
  // A layer: the body that holds it (the layers around it, outermost first; empty at the top) and its id
  // there.
  using key = std::pair<std::vector<std::int64_t>, std::int64_t>;
  const auto graph_at = [&](const std::vector<std::int64_t>& within) -> const graph& {
    const graph* at = &g;
    for (const auto id : within) {
      const auto* l = at->find(id);
      if (l == nullptr) no_such_layer(id);
      if (!l->body) bad(fmt::format("{}: an edit names its body, which it has not", l->where()));
      at = &l->body->network;
    }
    return *at;
  };
  // An edited layer's element, parsed on its own: [begin, end) in the text.
  struct element {
    std::size_t begin = 0, end = 0;
    std::unique_ptr<pugi::xml_document> doc;
    std::vector<std::unique_ptr<pugi::xml_document>> clones;  // written right after it, in order
  };
  std::map<key, element> elements;      // by layer
  std::map<key, pugi::xml_node> nodes;  // every edited layer's node, clones too
  const auto node_of = [&](const key& k) -> pugi::xml_node {
    if (const auto it = nodes.find(k); it != nodes.end()) return it->second;
    const auto* l = graph_at(k.first).find(k.second);
    if (l == nullptr) no_such_layer(k.second);
    element e;
    e.begin = l->byte < text.size() && text[l->byte] == '<' ? l->byte : text.rfind('<', l->byte);
    if (e.begin == std::string_view::npos || text.substr(e.begin, 6) != "<layer")
      bad(fmt::format("{}: its <layer> element is not where it was read", l->where()), "was the file changed?");
    e.end = text.find("</layer>", e.begin);
    if (e.end == std::string_view::npos || text.substr(e.begin + 1, e.end - e.begin).find("<layer") != std::string_view::npos)
      bad(fmt::format("{}: fix rewrites only layers without a body", l->where()));
    e.end += std::string_view("</layer>").size();
    e.doc = std::make_unique<pugi::xml_document>();
    if (!e.doc->load_buffer(text.data() + e.begin, e.end - e.begin, fragment_parse, pugi::encoding_utf8))
      bad(fmt::format("{}: its <layer> element cannot be parsed on its own", l->where()));
    const auto node = e.doc->first_child();
    elements.emplace(k, std::move(e));
    nodes.emplace(k, node);
    return node;
  };
  std::map<key, key> owner;  // a clone -> the element it follows
  // Inputs to re-point, by the body that holds them: (consumer id, port id) -> the layer that now feeds them.
  std::map<std::vector<std::int64_t>, std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t>> repoint;
  for (const auto& e : edits) {
    const key k{e.within, e.layer};
    auto node = node_of(k);
    if (e.what == graph_edit::kind::set_attribute) {
      auto data = node.child("data");
      if (!data) data = node.prepend_child("data");
      auto a = data.attribute(e.name.c_str());
      if (!a) a = data.append_attribute(e.name.c_str());
      a.set_value(e.text.c_str());
      continue;
    }
    const auto first = owner.contains(k) ? owner[k] : k;
    auto& clone = elements.at(first).clones.emplace_back(std::make_unique<pugi::xml_document>());
    auto copy = clone->append_copy(node);
    copy.attribute("id").set_value(std::to_string(e.id).c_str());
    copy.attribute("name").set_value(e.name.c_str());
    const key made{e.within, e.id};
    nodes.emplace(made, copy);
    owner[made] = first;
    const auto* consumer = graph_at(e.within).find(e.consumer);
    if (consumer == nullptr) no_such_layer(e.consumer);
    if (e.port >= consumer->inputs.size()) bad(fmt::format("{} has no input {}", consumer->where(), e.port));
    repoint[e.within][{e.consumer, consumer->inputs[e.port].id}] = e.id;
  }

  splices out;
  for (const auto& [k, e] : elements) {
    std::string s = print(e.doc->first_child());
    for (const auto& c : e.clones) s += print(c->first_child());
    out.add(e.begin, e.end, std::move(s));
  }
  for (const auto& [within, edges] : repoint) repoint_edges(graph_at(within).edges_byte_, text, edges, out, bad);
  return out.applied_to(text);
}

std::filesystem::path weights_of(const std::filesystem::path& xml, const std::filesystem::path& bin) {
  if (!bin.empty()) return bin;
  // The weights are looked for beside the .xml: say so, and how to give them, when they are not there.
  if (xml == "-")
    fail(errc::invalid_argument, {}, "-: an IR read from standard input has no file beside it to take its weights from",
         fmt::format("give the weights' file with {}", detail::usage_of(detail::option::bin)));
  auto beside = std::filesystem::path(xml).replace_extension(".bin");
  std::error_code ec;
  if (!std::filesystem::exists(beside, ec))
    fail(errc::io, {.file = beside.string()},
         fmt::format("{}: the weights of {} are not there (an IR's weights are looked for beside its .xml)",
                     io::detail::escaped(beside.string()), io::detail::escaped(xml.string())),
         fmt::format("give the weights' file with {}", detail::usage_of(detail::option::bin)));
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
