// Reading OpenVINO IR (versions 10 and 11) with pugixml, which stays inside this file.
#include "reshape1/io/ir.hpp"

#include <pugixml.hpp>

#include <fmt/format.h>

#include "../detail/fail.hpp"
#include "files.hpp"
#include "reshape1/element_type.hpp"
#include "reshape1/error.hpp"

namespace reshape1::io {
namespace {

using reshape1::detail::fail;

class reader {
 public:
  explicit reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void bad(std::size_t byte, const std::string& what) const {
    fail(errc::bad_file, {.offset = byte, .file = file_}, fmt::format("{}: {}", detail::at_byte(file_, byte), what));
  }
  [[noreturn]] void bad_layer(const ir_layer& l, const std::string& what) const {
    fail(errc::bad_file, {.offset = l.byte, .file = file_},
         fmt::format("{}: layer '{}' (id {}): {}", file_, l.name, l.id, what));
  }

  std::size_t at(const pugi::xml_node& n) const { return static_cast<std::size_t>(n.offset_debug()); }

  std::string required(const pugi::xml_node& n, const char* attribute, const std::string& what) const {
    const auto a = n.attribute(attribute);
    if (!a) bad(at(n), fmt::format("{}: missing attribute '{}'", what, attribute));
    return a.value();
  }

  std::vector<ir_port> ports(const ir_layer& l, const pugi::xml_node& parent) const {
    std::vector<ir_port> result;
    for (const auto& p : parent.children("port")) {
      ir_port port;
      port.id = p.attribute("id").value();
      if (port.id.empty()) bad_layer(l, fmt::format("a port of <{}> has no id", parent.name()));
      std::vector<dimension> dims;
      for (const auto& d : p.children("dim")) {
        const std::string text = d.child_value();
        try {
          const auto parsed = parse_shape("[" + text + "]");
          if (parsed.size() != 1) throw error(errc::syntax, {}, "not one dimension");
          dims.push_back(parsed[0]);
        } catch (const error&) {
          bad_layer(l, fmt::format("port {}: '{}' is not a dimension", port.id, text));
        }
      }
      port.dims = partial_shape(std::move(dims));
      result.push_back(std::move(port));
    }
    return result;
  }

 private:
  std::string file_;
};

std::uint64_t parse_count(const reader& r, const ir_layer& l, const std::string& attribute) {
  const auto it = l.data.find(attribute);
  if (it == l.data.end()) r.bad_layer(l, fmt::format("missing attribute '{}' in <data>", attribute));
  const std::string& text = it->second;
  std::uint64_t v = 0;
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    r.bad_layer(l, fmt::format("attribute '{}' is '{}', not a byte count", attribute, text));
  for (char c : text)
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, static_cast<std::uint64_t>(c - '0'), &v))
      r.bad_layer(l, fmt::format("attribute '{}' is '{}', more than 2^64-1", attribute, text));
  return v;
}

shape const_shape(const reader& r, const ir_layer& l) {
  const auto it = l.data.find("shape");
  if (it == l.data.end()) r.bad_layer(l, "missing attribute 'shape' in <data>");
  if (it->second.empty()) return shape{};
  try {
    return parse_shape("[" + it->second + "]").to_static();
  } catch (const error&) {
    r.bad_layer(l, fmt::format("attribute 'shape' is '{}', not a static shape", it->second));
  }
}

}  // namespace

const ir_port* ir_layer::input(std::string_view port) const {
  for (const auto& p : inputs)
    if (p.id == port) return &p;
  return nullptr;
}

const ir_port* ir_layer::output(std::string_view port) const {
  for (const auto& p : outputs)
    if (p.id == port) return &p;
  return nullptr;
}

const ir_layer* ir_model::layer(std::string_view id) const {
  const auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &layers_[it->second];
}

const ir_edge* ir_model::edge_to(std::string_view id, std::string_view port) const {
  const auto it = edge_by_target_.find(std::pair<std::string, std::string>(id, port));
  return it == edge_by_target_.end() ? nullptr : &edges_[it->second];
}

std::span<const std::byte> ir_model::const_bytes(const ir_layer& l) const {
  const auto offset = std::stoull(l.data.at("offset"));
  const auto size = std::stoull(l.data.at("size"));
  return bin_bytes_.subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(size));
}

ir_model read_ir(const std::filesystem::path& xml, const std::filesystem::path& bin) {
  const std::string file = xml.string();
  const reader r(file);
  auto text = std::make_shared<detail::mapped_file>(xml);
  pugi::xml_document doc;
  const auto bytes = text->bytes();
  const auto parsed = doc.load_buffer(bytes.data(), bytes.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!parsed) r.bad(static_cast<std::size_t>(parsed.offset), fmt::format("not well-formed XML: {}", parsed.description()));
  const auto net = doc.child("net");
  if (!net) r.bad(0, "not an OpenVINO IR: there is no <net> element");

  ir_model m;
  m.xml_file_ = file;
  m.name_ = net.attribute("name").value();
  const std::string version = r.required(net, "version", "<net>");
  if (version != "10" && version != "11")
    fail(errc::unsupported, {.offset = r.at(net), .file = file},
         fmt::format("{}: IR version {} is not supported; reshape1 reads IR versions 10 and 11",
                     detail::at_byte(file, r.at(net)), version));
  m.version_ = version == "10" ? 10 : 11;

  const auto layers = net.child("layers");
  if (!layers) r.bad(r.at(net), "<net> has no <layers>");
  for (const auto& node : layers.children("layer")) {
    ir_layer l;
    l.byte = r.at(node);
    l.name = node.attribute("name").value();
    l.id = r.required(node, "id", fmt::format("layer '{}'", l.name));
    l.type = r.required(node, "type", fmt::format("layer '{}' (id {})", l.name, l.id));
    l.version = node.attribute("version").value();
    for (const auto& a : node.child("data").attributes()) l.data.emplace(a.name(), a.value());
    l.inputs = r.ports(l, node.child("input"));
    l.outputs = r.ports(l, node.child("output"));
    if (!m.by_id_.emplace(l.id, m.layers_.size()).second)
      r.bad_layer(l, fmt::format("id {} is used by an earlier layer too", l.id));
    m.layers_.push_back(std::move(l));
  }

  if (const auto edges = net.child("edges")) {
    for (const auto& node : edges.children("edge")) {
      ir_edge e{r.required(node, "from-layer", "<edge>"), r.required(node, "from-port", "<edge>"),
                r.required(node, "to-layer", "<edge>"), r.required(node, "to-port", "<edge>")};
      const auto where = fmt::format("edge from layer {} port {} to layer {} port {}", e.from_layer, e.from_port,
                                     e.to_layer, e.to_port);
      const auto* from = m.layer(e.from_layer);
      const auto* to = m.layer(e.to_layer);
      if (from == nullptr) r.bad(r.at(node), fmt::format("{}: layer {} does not exist", where, e.from_layer));
      if (to == nullptr) r.bad(r.at(node), fmt::format("{}: layer {} does not exist", where, e.to_layer));
      if (from->output(e.from_port) == nullptr)
        r.bad(r.at(node), fmt::format("{}: layer '{}' (id {}) has no output port {}", where, from->name, from->id,
                                      e.from_port));
      if (to->input(e.to_port) == nullptr)
        r.bad(r.at(node), fmt::format("{}: layer '{}' (id {}) has no input port {}", where, to->name, to->id,
                                      e.to_port));
      if (!m.edge_by_target_.emplace(std::pair(e.to_layer, e.to_port), m.edges_.size()).second)
        r.bad(r.at(node), fmt::format("{}: that input already has an edge", where));
      m.edges_.push_back(std::move(e));
    }
  }

  auto weights = std::make_shared<detail::mapped_file>(bin);
  m.bin_bytes_ = weights->bytes();
  m.bin_ = std::move(weights);
  // Every Const is checked before any of its bytes is read.
  for (const auto& l : m.layers_) {
    if (l.type != "Const") continue;
    const auto type_name = l.data.find("element_type");
    if (type_name == l.data.end()) r.bad_layer(l, "missing attribute 'element_type' in <data>");
    const auto type = find_element_type(type_name->second);
    if (!type)
      fail(errc::unknown_element_type, {.offset = l.byte, .file = file},
           fmt::format("{}: layer '{}' (id {}): element type '{}' is unknown", file, l.name, l.id, type_name->second));
    const shape dims = const_shape(r, l);
    const auto offset = parse_count(r, l, "offset");
    const auto size = parse_count(r, l, "size");
    if (*type != element_type::string) {
      const auto expected = storage_size(*type, static_cast<std::uint64_t>(dims.element_count()));
      if (size != expected)
        r.bad_layer(l, fmt::format("size {} does not match a {} tensor of shape {} ({} bytes)", size, name(*type),
                                   to_string(dims), expected));
    }
    std::uint64_t end = 0;
    if (__builtin_add_overflow(offset, size, &end) || end > m.bin_bytes_.size())
      fail(errc::bad_file, {.offset = offset, .file = bin.string()},
           fmt::format("{}: layer '{}' (id {}) reads {} bytes at byte {}, past the end of the file ({} bytes)",
                       bin.string(), l.name, l.id, size, offset, m.bin_bytes_.size()));
  }
  return m;
}

}  // namespace reshape1::io
