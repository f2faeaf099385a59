#include "skim.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "../detail/fail.hpp"
#include "../io/files.hpp"
#include "reshape1/error.hpp"

namespace reshape1::onnx::detail {
namespace {

// Field numbers of onnx.proto that lead to an initializer's raw_data.
constexpr std::uint32_t model_graph = 7;         // ModelProto.graph
constexpr std::uint32_t graph_node = 1;          // GraphProto.node
constexpr std::uint32_t graph_initializer = 5;   // GraphProto.initializer
constexpr std::uint32_t node_op_type = 4;        // NodeProto.op_type
constexpr std::uint32_t node_attribute = 5;      // NodeProto.attribute
constexpr std::uint32_t node_domain = 7;         // NodeProto.domain
constexpr std::uint32_t attribute_tensor = 5;    // AttributeProto.t
constexpr std::uint32_t tensor_raw_data = 9;     // TensorProto.raw_data
constexpr std::uint32_t tensor_data_location = 14;  // TensorProto.data_location (1: EXTERNAL)
constexpr int length_delimited = 2;

/// One field of a message: its tag from `begin`, its payload (for a length-delimited one), the next field.
struct field {
  std::uint32_t number = 0;
  int wire = 0;
  const std::uint8_t* begin = nullptr;
  const std::uint8_t* payload = nullptr;
  std::uint64_t length = 0;  ///< a length-delimited field's length; a varint field's value
  const std::uint8_t* next = nullptr;
};

/// Reads the fields of a message's bytes one by one; `ok` turns false at anything the walk does not take
/// (a truncated varint or field, a group, a field number protobuf refuses). The bytes may be a mapping of
/// the file: each field's header is copied out of it guarded, so that a file that shrinks while it is
/// walked is error(io) naming `name`, not a fault.
class fields {
 public:
  fields(const std::uint8_t* begin, const std::uint8_t* end, const std::string& name)
      : p_(begin), end_(end), name_(name) {}
  [[nodiscard]] bool ok() const noexcept { return ok_; }
  [[nodiscard]] bool done() const noexcept { return p_ == end_; }

  std::optional<field> next() {
    field f;
    f.begin = p_;
    // The longest header: a five-byte tag and a ten-byte varint value.
    std::uint8_t head[15];
    const auto held = std::min<std::size_t>(sizeof head, static_cast<std::size_t>(end_ - p_));
    io::detail::guarded_copy(head, p_, held, name_);
    std::size_t at = 0;
    const auto varint = [&](int most_bytes) -> std::optional<std::uint64_t> {
      std::uint64_t v = 0;
      for (int shift = 0; shift < 7 * most_bytes && at < held; shift += 7) {
        const auto byte = head[at++];
        v |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
        if ((byte & 0x80) == 0) return v;
      }
      return std::nullopt;
    };
    // A tag or a length longer than five bytes, or a length above 2^31 - 1, is left to protobuf, which
    // refuses some of them: the walk must not make a file it refuses readable by writing them anew.
    const auto tag = varint(5);
    if (!tag || (*tag >> 3) == 0 || (*tag >> 3) > 0x1FFFFFFF) return fail();
    f.number = static_cast<std::uint32_t>(*tag >> 3);
    f.wire = static_cast<int>(*tag & 7);
    std::uint64_t body = 0;  // the bytes after the header
    switch (f.wire) {
      case 0: {
        const auto v = varint(10);
        if (!v) return fail();
        f.length = *v;
        break;
      }
      case 1: body = 8; break;
      case 5: body = 4; break;
      case length_delimited: {
        const auto n = varint(5);
        if (!n || *n > 0x7FFFFFFF) return fail();
        f.length = *n;
        body = *n;
        break;
      }
      default: return fail();  // groups (3, 4) and the wire types that do not exist
    }
    p_ += at;
    if (body > static_cast<std::uint64_t>(end_ - p_)) return fail();
    if (f.wire == length_delimited) f.payload = p_;
    p_ += body;
    f.next = p_;
    return f;
  }

 private:
  std::optional<field> fail() {
    ok_ = false;
    return std::nullopt;
  }
  const std::uint8_t* p_;
  const std::uint8_t* end_;
  const std::string& name_;
  bool ok_ = true;
};

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

/// Appends bytes that may lie in a mapping of the file `name` (guarded, as fields reads them).
void put_bytes(std::string& out, const std::uint8_t* begin, const std::uint8_t* end, const std::string& name) {
  const auto at = out.size();
  out.resize(at + static_cast<std::size_t>(end - begin));
  io::detail::guarded_copy(out.data() + at, begin, static_cast<std::size_t>(end - begin), name);
}

/// A length-delimited field `number` holding `content`.
void put_message(std::string& out, std::uint32_t number, const std::string& content) {
  put_varint(out, (std::uint64_t{number} << 3) | length_delimited);
  put_varint(out, content.size());
  out += content;
}

/// The walk runs twice: once to find what to leave out (`out` null), then to write the rest, by the
/// first walk's plan (`plan`).
class skimmer {
 public:
  using constant_key = std::pair<std::size_t, std::size_t>;
  struct plan {
    std::unordered_map<std::size_t, left_out_field> initializers;
    std::map<constant_key, left_out_field> constants;
  };

  skimmer(std::string* out, const skim_options& options, const plan* planned, const std::uint8_t* file_begin,
          const std::string& name)
      : out_(out), options_(options), planned_(planned), file_begin_(file_begin), name_(name) {}
  bool ok = true;
  std::uint64_t left_out = 0;
  plan found;

  void model(const std::uint8_t* begin, const std::uint8_t* end) {
    fields f(begin, end, name_);
    while (ok && !f.done()) {
      const auto x = f.next();
      if (!x) break;
      if (x->number == model_graph && x->wire == length_delimited) {
        std::string content;
        graph(x->payload, x->payload + x->length, out_ != nullptr ? &content : nullptr);
        if (out_ != nullptr) put_message(*out_, model_graph, content);
      } else if (out_ != nullptr) {
        put_bytes(*out_, x->begin, x->next, name_);
      }
    }
    ok = ok && f.ok();
  }

 private:
  // The graph's fields, counted across its occurrences as protobuf merges them (a repeated field's
  // elements are appended).
  void graph(const std::uint8_t* begin, const std::uint8_t* end, std::string* out) {
    fields f(begin, end, name_);
    while (ok && !f.done()) {
      const auto x = f.next();
      if (!x) break;
      if (x->number == graph_initializer && x->wire == length_delimited) {
        const bool left = planned_ != nullptr && planned_->initializers.contains(initializer_);
        if (out == nullptr) {
          if (const auto raw = tensor_plan(x->payload, x->payload + x->length)) {
            found.initializers[initializer_] = *raw;
            left_out += raw->length;
          }
        } else if (left) {
          std::string content;
          tensor_without_raw(x->payload, x->payload + x->length, content);
          put_message(*out, graph_initializer, content);
        } else {
          put_bytes(*out, x->begin, x->next, name_);
        }
        ++initializer_;
      } else if (options_.constants && x->number == graph_node && x->wire == length_delimited) {
        if (out == nullptr) node_plan(x->payload, x->payload + x->length);
        else if (node_left_out(node_)) node_without_raw(*x, *out);
        else put_bytes(*out, x->begin, x->next, name_);
        ++node_;
      } else if (out != nullptr) {
        put_bytes(*out, x->begin, x->next, name_);
      }
    }
    ok = ok && f.ok();
  }

  /// The last raw_data field decides what protobuf would have kept: when it is long (and the tensor's data
  /// is not in an external file, which is what is read, and which a rewrite inlines), its place and length.
  std::optional<left_out_field> tensor_plan(const std::uint8_t* begin, const std::uint8_t* end) {
    fields f(begin, end, name_);
    std::optional<left_out_field> last;
    bool external = false;  // data_location EXTERNAL, by its last value
    while (ok && !f.done()) {
      const auto x = f.next();
      if (!x) break;
      if (x->number == tensor_data_location && x->wire == 0) external = x->length == 1;
      if (x->number == tensor_raw_data && x->wire == length_delimited)
        last = left_out_field{static_cast<std::uint64_t>(x->payload - file_begin_), x->length};
    }
    ok = ok && f.ok();
    if (!last || external || last->length <= options_.above) return std::nullopt;
    return last;
  }

  /// A tensor left out: every raw_data field goes (it is read as holding the planned length).
  void tensor_without_raw(const std::uint8_t* begin, const std::uint8_t* end, std::string& out) {
    fields f(begin, end, name_);
    while (ok && !f.done()) {
      const auto x = f.next();
      if (!x) break;
      if (x->number == tensor_raw_data && x->wire == length_delimited) continue;
      put_bytes(out, x->begin, x->next, name_);
    }
    ok = ok && f.ok();
  }

  /// A node's tensor attributes whose value can be left out, kept when the node is a Constant of the
  /// default domain (by the last op_type and domain, as protobuf keeps them): only that node's value is
  /// read through the reader that knows what was left out. An attribute with its tensor given twice
  /// (protobuf merges the two) is left whole.
  void node_plan(const std::uint8_t* begin, const std::uint8_t* end) {
    fields f(begin, end, name_);
    std::vector<std::pair<std::size_t, left_out_field>> candidates;
    bool constant = false, default_domain = true;
    std::size_t attribute = 0;
    while (ok && !f.done()) {
      const auto x = f.next();
      if (!x) break;
      if (x->wire != length_delimited) continue;
      if (x->number == node_op_type) constant = holds(*x, "Constant");
      if (x->number == node_domain) default_domain = x->length == 0 || holds(*x, "ai.onnx");
      if (x->number != node_attribute) continue;
      if (const auto raw = attribute_plan(x->payload, x->payload + x->length)) candidates.emplace_back(attribute, *raw);
      ++attribute;
    }
    ok = ok && f.ok();
    if (!ok || !constant || !default_domain) return;
    for (const auto& [index, raw] : candidates) {
      found.constants[{node_, index}] = raw;
      left_out += raw.length;
    }
  }

  std::optional<left_out_field> attribute_plan(const std::uint8_t* begin, const std::uint8_t* end) {
    fields f(begin, end, name_);
    std::optional<field> tensor;
    int tensors = 0;
    while (ok && !f.done()) {
      const auto x = f.next();
      if (!x) break;
      if (x->number == attribute_tensor) {
        ++tensors;
        tensor = x;
      }
    }
    ok = ok && f.ok();
    if (!ok || tensors != 1 || tensor->wire != length_delimited) return std::nullopt;
    return tensor_plan(tensor->payload, tensor->payload + tensor->length);
  }

  /// Whether a string field holds exactly `text` (read guarded: the bytes may be a mapping).
  bool holds(const field& x, std::string_view text) const {
    if (x.length != text.size()) return false;
    std::string s;
    put_bytes(s, x.payload, x.payload + x.length, name_);
    return s == text;
  }

  [[nodiscard]] bool node_left_out(std::size_t node) const {
    const auto it = planned_->constants.lower_bound({node, 0});
    return it != planned_->constants.end() && it->first.first == node;
  }

  void node_without_raw(const field& node, std::string& out) {
    std::string content;
    fields f(node.payload, node.payload + node.length, name_);
    std::size_t attribute = 0;
    while (ok && !f.done()) {
      const auto x = f.next();
      if (!x) break;
      if (x->number == node_attribute && x->wire == length_delimited && planned_->constants.contains({node_, attribute})) {
        std::string a;
        attribute_without_raw(x->payload, x->payload + x->length, a);
        put_message(content, node_attribute, a);
      } else {
        put_bytes(content, x->begin, x->next, name_);
      }
      if (x->number == node_attribute && x->wire == length_delimited) ++attribute;
    }
    ok = ok && f.ok();
    put_message(out, graph_node, content);
  }

  void attribute_without_raw(const std::uint8_t* begin, const std::uint8_t* end, std::string& out) {
    fields f(begin, end, name_);
    while (ok && !f.done()) {
      const auto x = f.next();
      if (!x) break;
      if (x->number == attribute_tensor && x->wire == length_delimited) {
        std::string t;
        tensor_without_raw(x->payload, x->payload + x->length, t);
        put_message(out, attribute_tensor, t);
      } else {
        put_bytes(out, x->begin, x->next, name_);
      }
    }
    ok = ok && f.ok();
  }

  std::string* out_;
  const skim_options& options_;
  const plan* planned_;
  const std::uint8_t* file_begin_;  // to give a left-out field's offset in the file
  const std::string& name_;
  std::size_t initializer_ = 0, node_ = 0;
};

}  // namespace

skimmed_model skim(std::span<const std::byte> file, const std::string& name, skim_options options) {
  const auto* begin = reinterpret_cast<const std::uint8_t*>(file.data());
  const auto* end = begin + file.size();
  skimmer planner(nullptr, options, nullptr, begin, name);
  planner.model(begin, end);
  // Worth a copy of the rest only when the weights left out are most of the file: a model of many small
  // tensors is parsed from the file as it is.
  if (!planner.ok || planner.left_out == 0 || (!options.any_share && planner.left_out < file.size() / 2)) return {};
  skimmed_model s;
  s.bytes.reserve(static_cast<std::size_t>(file.size() - planner.left_out) + 64);
  skimmer writer(&s.bytes, options, &planner.found, begin, name);
  writer.model(begin, end);
  s.left_out = std::move(planner.found.initializers);
  s.constants_left_out = std::move(planner.found.constants);
  return s;
}

namespace {

/// Whether protobuf parses field `number` of a TensorProto, with this wire type, into a known field (else
/// it keeps it as an unknown field, which it writes after every known one). Asked of protobuf's own parser
/// with a message of that one field, empty: the lite runtime the WebAssembly build links has no descriptors.
bool parses_as_known_tensor_field(std::uint32_t number, int wire) {
  std::string probe;
  put_varint(probe, (std::uint64_t{number} << 3) | static_cast<std::uint64_t>(wire));
  switch (wire) {
    case 0: probe.push_back('\0'); break;                 // varint
    case 1: probe.append(8, '\0'); break;                 // fixed64
    case length_delimited: probe.push_back('\0'); break;  // length 0 (a packed run of nothing, "")
    case 5: probe.append(4, '\0'); break;                 // fixed32
    default: return false;                                // groups: no field of TensorProto is one
  }
  ::onnx::TensorProto t;
  return t.ParseFromString(probe) && t.unknown_fields().empty();
}

/// The same, asked once per field number up to raw_data's (the only ones put_back asks about) and wire type.
bool known_tensor_field(std::uint32_t number, int wire) {
  static const auto known = [] {
    std::array<std::array<bool, 6>, tensor_raw_data + 1> t{};
    for (std::uint32_t n = 0; n < t.size(); ++n)
      for (int w = 0; w < 6; ++w) t[n][static_cast<std::size_t>(w)] = parses_as_known_tensor_field(n, w);
    return t;
  }();
  if (number >= known.size() || wire < 0 || wire >= 6) return parses_as_known_tensor_field(number, wire);
  return known[number][static_cast<std::size_t>(wire)];
}

/// The bytes a varint takes.
std::uint64_t varint_size(std::uint64_t v) {
  std::uint64_t n = 1;
  for (; v >= 0x80; v >>= 7) ++n;
  return n;
}

/// put_back's walk: the model's fields copied, its graph's and the left-out initializers' rebuilt, all
/// written once into the output (the lengths of the graph and of each initializer are worked out first,
/// so that no part holding the weights is built apart and copied again).
class restorer {
 public:
  restorer(std::span<const std::byte> file, const std::unordered_map<std::size_t, left_out_field>& left_out,
           const std::string& name)
      : file_(file), left_out_(left_out), name_(name) {}

  std::string model(const std::uint8_t* begin, const std::uint8_t* end) {
    std::uint64_t size = static_cast<std::uint64_t>(end - begin);
    {
      fields f(begin, end, name_);
      while (!f.done()) {
        const auto x = need(f.next());
        if (x.number != model_graph || x.wire != length_delimited) continue;
        const auto grown = graph_size(x.payload, x.payload + x.length);
        size += grown - x.length + varint_size(grown) - varint_size(x.length);
      }
    }
    std::string out;
    out.reserve(static_cast<std::size_t>(size));
    fields f(begin, end, name_);
    while (!f.done()) {
      const auto x = need(f.next());
      if (x.number == model_graph && x.wire == length_delimited) {
        put_varint(out, (std::uint64_t{model_graph} << 3) | length_delimited);
        put_varint(out, graph_size(x.payload, x.payload + x.length));
        graph(out, x.payload, x.payload + x.length);
      } else {
        put_bytes(out, x.begin, x.next, name_);
      }
    }
    if (restored_ != left_out_.size()) broken("an initializer whose weights were left out is missing");
    return out;
  }

 private:
  field need(std::optional<field> x) const {
    if (!x) broken("it is not a well-formed ModelProto");
    return *x;
  }

  [[noreturn]] void broken(std::string_view why) const {
    reshape1::detail::fail(errc::unsupported, {.file = name_},
                           fmt::format("{}: fix cannot put the weights back into the fixed model: {}", name_, why),
                           "please report this with the model");
  }

  /// The raw_data field of `raw`: its tag, its length and its bytes.
  static std::uint64_t raw_field_size(const left_out_field& raw) {
    return varint_size((std::uint64_t{tensor_raw_data} << 3) | length_delimited) + varint_size(raw.length) + raw.length;
  }

  /// The graph's length once its left-out initializers hold their raw_data again (the initializers
  /// counted from the graph's first: a model holds one graph field, which protobuf wrote).
  std::uint64_t graph_size(const std::uint8_t* begin, const std::uint8_t* end) const {
    std::uint64_t size = static_cast<std::uint64_t>(end - begin);
    fields f(begin, end, name_);
    std::size_t index = 0;
    while (!f.done()) {
      const auto x = need(f.next());
      if (x.number != graph_initializer || x.wire != length_delimited) continue;
      const auto it = left_out_.find(index++);
      if (it == left_out_.end()) continue;
      const auto grown = x.length + raw_field_size(it->second);
      size += grown - x.length + varint_size(grown) - varint_size(x.length);
    }
    return size;
  }

  void graph(std::string& out, const std::uint8_t* begin, const std::uint8_t* end) {
    fields f(begin, end, name_);
    std::size_t index = 0;
    while (!f.done()) {
      const auto x = need(f.next());
      if (x.number == graph_initializer && x.wire == length_delimited) {
        const auto it = left_out_.find(index++);
        if (it != left_out_.end()) {
          put_varint(out, (std::uint64_t{graph_initializer} << 3) | length_delimited);
          put_varint(out, x.length + raw_field_size(it->second));
          tensor(out, x.payload, x.payload + x.length, it->second);
          ++restored_;
          continue;
        }
      }
      put_bytes(out, x.begin, x.next, name_);
    }
  }

  /// The tensor's fields with raw_data where protobuf writes it: its known fields in their numbers' order,
  /// then the unknown ones; so before the first known field numbered above it or the first unknown one
  /// (at the end when there is neither).
  void tensor(std::string& out, const std::uint8_t* begin, const std::uint8_t* end, const left_out_field& raw) {
    bool put = false;
    const auto put_raw = [&] {
      if (raw.offset > file_.size() || raw.length > file_.size() - raw.offset) broken("a weight lies past the file's end");
      put_varint(out, (std::uint64_t{tensor_raw_data} << 3) | length_delimited);
      put_varint(out, raw.length);
      const auto at = out.size();
      out.resize(at + static_cast<std::size_t>(raw.length));
      io::detail::guarded_copy(out.data() + at, file_.data() + raw.offset, static_cast<std::size_t>(raw.length), name_);
      put = true;
    };
    fields f(begin, end, name_);
    while (!f.done()) {
      const auto x = need(f.next());
      if (x.number == tensor_raw_data && x.wire == length_delimited)
        broken("an initializer whose weights were left out holds raw_data");
      if (!put && (x.number > tensor_raw_data || !known_tensor_field(x.number, x.wire))) put_raw();
      put_bytes(out, x.begin, x.next, name_);
    }
    if (!put) put_raw();
  }

  std::span<const std::byte> file_;
  const std::unordered_map<std::size_t, left_out_field>& left_out_;
  const std::string& name_;
  std::size_t restored_ = 0;
};

}  // namespace

std::string put_back(std::span<const std::byte> skimmed, std::span<const std::byte> file,
                     const std::unordered_map<std::size_t, left_out_field>& left_out, const std::string& name) {
  const auto* begin = reinterpret_cast<const std::uint8_t*>(skimmed.data());
  return restorer(file, left_out, name).model(begin, begin + skimmed.size());
}

}  // namespace reshape1::onnx::detail
