// Writing fix's edits into an IR's .xml: only the edited layers' elements and the re-pointed edges are
// written again, so every other byte of the file stays the original's.
#include <pugixml.hpp>

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "detail/fail.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/graph.hpp"
#include "model/graph/edit.hpp"
#include "model/graph/storage.hpp"
#include "model/analysis/fix_ir.hpp"
#include "reshape1/model/propagate.hpp"

namespace reshape1::model {
namespace {

using reshape1::detail::fail;
using model::detail::graph_edit;
using model::detail::no_such_layer;

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

/// A dimension as an IR's port writes it: a number, -1 for one of which nothing is known, or an interval
/// (`1..10`, `2..`), which OpenVINO's reader and reshape1's read back.
std::string port_dim(const dimension& d) {
  if (d.is_static()) return std::to_string(d.lo());
  if (d.range().is_unknown()) return "-1";
  return to_string(dimension(d.range()));
}

/// A port's precision: the element type's own name (`i64`), which OpenVINO's reader takes as it takes `I64`.
std::string ir_precision(element_type t) { return std::string(name(t)); }

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
/// What now feeds an input: a layer id, and its output port id (nullopt: the port the edge names, as a
/// clone's is its original's).
using feed = std::pair<std::int64_t, std::optional<std::int64_t>>;

template <class Bad>
void repoint_edges(std::size_t edges_byte, std::string_view text,
                   const std::map<std::pair<std::int64_t, std::int64_t>, feed>& repoint, splices& edits,
                   const Bad& bad, std::string added_edges) {
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
    edge.attribute("from-layer").set_value(std::to_string(it->second.first).c_str());
    if (it->second.second) edge.attribute("from-port").set_value(std::to_string(*it->second.second).c_str());
    edits.add(at, close + 1, print(edge));
    ++found;
  }
  if (found != repoint.size()) bad("an input fed by a cloned Const has no <edge> in <edges>");
  if (!added_edges.empty()) edits.add(end, end, std::move(added_edges));
}


/// A layer: the body that holds it (the layers around it, outermost first; empty at the top) and its id
/// there.
using layer_key = std::pair<std::vector<std::int64_t>, std::int64_t>;

/// fix's edits of one model's .xml, made on each edited layer's element parsed on its own.
class xml_edits {
 public:
  xml_edits(const graph& g, std::string_view text) : g_(g), text_(text) {}

  [[noreturn]] void bad(const std::string& what, std::string hint = {}) const {
    fail(errc::bad_file, {.file = g_.xml_file()}, fmt::format("{}: {}", g_.xml_file(), what), std::move(hint));
  }

  /// The graph of the body `within` names (the model's own for none).
  [[nodiscard]] const graph& graph_at(const std::vector<std::int64_t>& within) const {
    const graph* at = &g_;
    for (const auto id : within) {
      const auto* l = at->find(id);
      if (l == nullptr) no_such_layer(id);
      if (!l->body) bad(fmt::format("{}: an edit names its body, which it has not", l->where()));
      at = &l->body->network;
    }
    return *at;
  }

  void apply(const graph_edit& e) {
    if (e.what == graph_edit::kind::add_layer) return add(e);
    if (e.what == graph_edit::kind::replace_layer) return replace(e);
    if (e.what == graph_edit::kind::set_source) {
      const auto* consumer = graph_at(e.within).find(e.consumer);
      if (consumer == nullptr) no_such_layer(e.consumer);
      if (e.port >= consumer->inputs.size()) bad(fmt::format("{} has no input {}", consumer->where(), e.port));
      repoint_[e.within][{e.consumer, consumer->inputs[e.port].id}] = {e.layer, output_port(e.within, e.layer, e.output).id};
      return;
    }
    const layer_key k{e.within, e.layer};
    auto node = node_of(k);
    if (e.what == graph_edit::kind::set_attribute) {
      auto data = node.child("data");
      if (!data) data = node.prepend_child("data");
      auto a = data.attribute(e.name.c_str());
      if (!a) a = data.append_attribute(e.name.c_str());
      a.set_value(e.text.c_str());
      return;
    }
    const auto first = owner_.contains(k) ? owner_[k] : k;
    auto& clone = elements_.at(first).clones.emplace_back(std::make_unique<pugi::xml_document>());
    auto copy = clone->append_copy(node);
    copy.attribute("id").set_value(std::to_string(e.id).c_str());
    copy.attribute("name").set_value(e.name.c_str());
    const layer_key made{e.within, e.id};
    nodes_.emplace(made, copy);
    owner_[made] = first;
    const auto* consumer = graph_at(e.within).find(e.consumer);
    if (consumer == nullptr) no_such_layer(e.consumer);
    if (e.port >= consumer->inputs.size()) bad(fmt::format("{} has no input {}", consumer->where(), e.port));
    repoint_[e.within][{e.consumer, consumer->inputs[e.port].id}] = {e.id, std::nullopt};
  }

  /// The new layers' elements, for the <layers> of the model's own graph (fix adds layers there only).
  [[nodiscard]] const std::string& added_layers() const { return added_layers_; }
  /// The <edge>s that feed them.
  [[nodiscard]] const std::string& added_edges() const { return added_edges_; }

  /// Each edited element written again, its clones right after it.
  [[nodiscard]] splices elements_written() const {
    splices out;
    for (const auto& [k, e] : elements_) {
      std::string s = print(e.doc->first_child());
      for (const auto& c : e.clones) s += print(c->first_child());
      out.add(e.begin, e.end, std::move(s));
    }
    return out;
  }

  /// Inputs to re-point, by the body that holds them: (consumer id, port id) -> the layer that now feeds them.
  using repoints = std::map<std::vector<std::int64_t>, std::map<std::pair<std::int64_t, std::int64_t>, feed>>;
  [[nodiscard]] const repoints& repoint() const { return repoint_; }

 private:
  // An edited layer's element, parsed on its own: [begin, end) in the text.
  struct element {
    std::size_t begin = 0, end = 0;
    std::unique_ptr<pugi::xml_document> doc;
    std::vector<std::unique_ptr<pugi::xml_document>> clones;  // written right after it, in order
  };

  /// An output of layer `id`: a new one's, or one of the model's.
  struct out_port {
    std::int64_t id = 0;
    std::string precision;
    std::vector<std::string> dims;
  };
  out_port output_port(const std::vector<std::int64_t>& within, std::int64_t id, std::size_t output) const {
    if (const auto it = added_.find(id); it != added_.end() && within.empty()) return it->second;
    const auto* l = graph_at(within).find(id);
    if (l == nullptr) no_such_layer(id);
    if (output >= l->outputs.size()) bad(fmt::format("{} has no output {}", l->where(), output));
    const auto& p = l->outputs[output];
    out_port r{p.id, {}, {}};
    if (p.type) r.precision = ir_precision(*p.type);
    for (const auto& d : p.dims) r.dims.push_back(port_dim(d));
    return r;
  }

  /// An input port `id` of layer `layer` (in its <input> `in`) that reads `from` (a layer id and its output):
  /// the dims and precision of what feeds it, and the <edge> that feeds it.
  void input_port(pugi::xml_node in, const std::pair<std::int64_t, std::size_t>& from, std::int64_t layer, std::int64_t id) {
    const auto out = output_port({}, from.first, from.second);
    auto p = in.append_child("port");
    p.append_attribute("id").set_value(std::to_string(id).c_str());
    if (!out.precision.empty()) p.append_attribute("precision").set_value(out.precision.c_str());
    for (const auto& d : out.dims) p.append_child("dim").text().set(d.c_str());
    added_edges_ += fmt::format(R"(<edge from-layer="{}" from-port="{}" to-layer="{}" to-port="{}"/>)", from.first,
                                out.id, layer, id);
  }

  /// A new layer of the model's own graph, written as OpenVINO writes one: its <data>, input ports with the
  /// dims of what feeds them, one output port; and the edges that feed it.
  void add(const graph_edit& e) {
    if (!e.within.empty()) bad("fix adds layers only to the model's own graph");
    if (added_.contains(e.id) || g_.find(e.id) != nullptr) bad(fmt::format("a new layer is given id {}, which a layer has already", e.id));
    pugi::xml_document doc;
    auto l = doc.append_child("layer");
    l.append_attribute("id").set_value(std::to_string(e.id).c_str());
    l.append_attribute("name").set_value(e.name.c_str());
    l.append_attribute("type").set_value(e.type.c_str());
    l.append_attribute("version").set_value(fmt::format("opset{}", e.opset).c_str());
    auto data = l.append_child("data");
    for (const auto& [name, text] : e.attributes) data.append_attribute(name.c_str()).set_value(text.c_str());
    if (!e.inputs.empty()) {
      auto in = l.append_child("input");
      for (std::size_t k = 0; k < e.inputs.size(); ++k) input_port(in, e.inputs[k], e.id, static_cast<std::int64_t>(k));
    }
    out_port made{static_cast<std::int64_t>(e.inputs.size()), ir_precision(e.output_type), {}};
    for (const auto d : e.output_dims) made.dims.push_back(std::to_string(d));
    auto out = l.append_child("output").append_child("port");
    out.append_attribute("id").set_value(std::to_string(made.id).c_str());
    out.append_attribute("precision").set_value(made.precision.c_str());
    for (const auto& d : made.dims) out.append_child("dim").text().set(d.c_str());
    added_layers_ += print(l);
    added_.emplace(e.id, std::move(made));
  }

  /// A layer of the model's own graph given another type, version and <data>: its inputs as they were,
  /// then the new ones (ports numbered past every port it has, and their edges), its outputs as they were.
  void replace(const graph_edit& e) {
    if (!e.within.empty()) bad("fix replaces layers only in the model's own graph");
    const auto* l = g_.find(e.layer);
    if (l == nullptr) no_such_layer(e.layer);
    if (e.inputs.size() < l->inputs.size()) bad(fmt::format("{}: a replacement drops one of its inputs", l->where()));
    for (std::size_t k = 0; k < l->inputs.size(); ++k) {
      const auto& s = l->sources[k];
      if (!s || g_.layers()[s->layer].id != e.inputs[k].first || s->output != e.inputs[k].second)
        bad(fmt::format("{}: a replacement changes what its input {} reads", l->where(), k));
    }
    auto node = node_of({{}, e.layer});
    node.attribute("type").set_value(e.type.c_str());
    node.attribute("version").set_value(fmt::format("opset{}", e.opset).c_str());
    node.remove_child("data");
    auto data = node.prepend_child("data");
    for (const auto& [name, text] : e.attributes) data.append_attribute(name.c_str()).set_value(text.c_str());
    std::int64_t next = 0;
    for (const auto& p : l->inputs) next = std::max(next, p.id + 1);
    for (const auto& p : l->outputs) next = std::max(next, p.id + 1);
    auto in = node.child("input");
    if (!in) in = node.insert_child_after("input", data);
    for (std::size_t k = l->inputs.size(); k < e.inputs.size(); ++k, ++next) input_port(in, e.inputs[k], e.layer, next);
    // Its first output stays; the others go (the graph edit refused a replacement whose others are read).
    if (auto out = node.child("output")) {
      auto kept = out.child("port");
      while (kept && kept.next_sibling("port")) out.remove_child(kept.next_sibling("port"));
    }
  }

  pugi::xml_node node_of(const layer_key& k) {
    if (const auto it = nodes_.find(k); it != nodes_.end()) return it->second;
    const auto* l = graph_at(k.first).find(k.second);
    if (l == nullptr) no_such_layer(k.second);
    element e;
    e.begin = l->byte < text_.size() && text_[l->byte] == '<' ? l->byte : text_.rfind('<', l->byte);
    if (e.begin == std::string_view::npos || text_.substr(e.begin, 6) != "<layer")
      bad(fmt::format("{}: its <layer> element is not where it was read", l->where()), "was the file changed?");
    e.end = text_.find("</layer>", e.begin);
    if (e.end == std::string_view::npos ||
        text_.substr(e.begin + 1, e.end - e.begin).find("<layer") != std::string_view::npos)
      bad(fmt::format("{}: fix rewrites only layers without a body", l->where()));
    e.end += std::string_view("</layer>").size();
    e.doc = std::make_unique<pugi::xml_document>();
    if (!e.doc->load_buffer(text_.data() + e.begin, e.end - e.begin, fragment_parse, pugi::encoding_utf8))
      bad(fmt::format("{}: its <layer> element cannot be parsed on its own", l->where()));
    const auto node = e.doc->first_child();
    elements_.emplace(k, std::move(e));
    nodes_.emplace(k, node);
    return node;
  }

  const graph& g_;
  std::string_view text_;
  std::map<layer_key, element> elements_;      // by layer
  std::map<layer_key, pugi::xml_node> nodes_;  // every edited layer's node, clones too
  std::map<layer_key, layer_key> owner_;       // a clone -> the element it follows
  repoints repoint_;
  std::map<std::int64_t, out_port> added_;  // the new layers' outputs, by id
  std::string added_layers_, added_edges_;
};

}  // namespace

std::string detail::graph_editor::edited_xml(const graph& g, std::span<const std::byte> xml,
                                             std::span<const graph_edit> edits) {
  const std::string_view text(reinterpret_cast<const char*>(xml.data()), xml.size());
  xml_edits x(g, text);
  for (const auto& e : edits) x.apply(e);
  splices out = x.elements_written();
  const auto bad = [&](const std::string& what) { x.bad(what); };
  auto repoint = x.repoint();
  if (!x.added_layers().empty()) {
    // The new layers go at the end of the model's own <layers>, which ends before its <edges>.
    const auto layers_end = text.rfind("</layers>", g.edges_byte_);
    if (layers_end == std::string_view::npos) bad("its </layers> is not before its <edges>");
    out.add(layers_end, layers_end, x.added_layers());
    repoint.try_emplace({});
  }
  for (const auto& [within, edges] : repoint)
    repoint_edges(x.graph_at(within).edges_byte_, text, edges, out, bad, within.empty() ? x.added_edges() : std::string());
  return out.applied_to(text);
}

namespace {

/// A Parameter's `shape` attribute: the dimensions without their symbols (`1,3,?,1..10`), `...` for an
/// unknown rank.
std::string shape_attribute(const partial_shape& s) {
  if (!s.rank_known()) return "...";
  std::string out;
  for (std::size_t d = 0; d < s.size(); ++d) out += (d == 0 ? "" : ",") + to_string(dimension(s[d].range()));
  return out;
}

/// Sets a <port>'s <dim> children to `s` (a port of unknown rank is left as declared). Dims already there
/// are rewritten in place, so the file's layout stays; a port of another rank gets its dims anew.
void set_dims(pugi::xml_node port, const partial_shape& s) {
  if (!s.rank_known()) return;
  std::vector<pugi::xml_node> dims;
  for (auto d = port.child("dim"); d; d = d.next_sibling("dim")) dims.push_back(d);
  if (dims.size() != s.size()) {
    for (const auto& d : dims) port.remove_child(d);
    dims.clear();
    for (std::size_t k = 0; k < s.size(); ++k) dims.push_back(port.append_child("dim"));
  }
  for (std::size_t k = 0; k < s.size(); ++k) dims[k].text().set(port_dim(s[k]).c_str());
}

}  // namespace

std::string detail::xml_with_shapes(const graph& g, std::span<const std::byte> xml, const propagation& p,
                                    std::span<const input_shape> given) {
  std::string text(reinterpret_cast<const char*>(xml.data()), xml.size());
  pugi::xml_document doc;
  // Whitespace and comments are kept and written back raw: only the dims (and given Parameters' shapes) change.
  const auto parsed = doc.load_buffer_inplace(text.data(), text.size(), pugi::parse_full | pugi::parse_ws_pcdata,
                                              pugi::encoding_utf8);
  if (!parsed)
    fail(errc::bad_file, {.offset = static_cast<std::size_t>(parsed.offset), .file = g.xml_file()},
         fmt::format("{}: not well-formed XML: {}", g.xml_file(), parsed.description()), {});
  // The ports of `layers_node`'s layers, which `in` holds and `known` propagated; a TensorIterator's or
  // Loop's body's too, from what propagation knew inside it (the hull of its iterations: a dimension that
  // changes from one to the next is written as its bounds or -1).
  const auto write_graph = [&](const auto& self, pugi::xml_node layers_node, const graph& in,
                               const propagation& known, bool top) -> void {
    const auto layers = in.layers();
    for (auto node : layers_node.children("layer")) {
      const auto* l = in.find(node.attribute("id").as_llong(-1));
      if (l == nullptr) continue;
      const auto index = static_cast<std::size_t>(l - layers.data());
      std::size_t k = 0;
      for (auto port : node.child("input").children("port")) {
        if (k < l->sources.size() && l->sources[k])
          set_dims(port, known.outputs[l->sources[k]->layer][l->sources[k]->output].shape);
        ++k;
      }
      for (auto port : node.child("output").children("port")) {
        const auto id = port.attribute("id").as_llong(-1);
        for (std::size_t o = 0; o < l->outputs.size(); ++o)
          if (l->outputs[o].id == id) set_dims(port, known.outputs[index][o].shape);
      }
      for (const auto& x : given)
        if (top && x.layer == index)
          if (auto data = node.child("data"); data && data.attribute("shape"))
            data.attribute("shape").set_value(shape_attribute(x.shape).c_str());
      if (const auto* body = known.body(index); body != nullptr && l->body)
        self(self, node.child("body").child("layers"), l->body->network, *body, false);
    }
  };
  write_graph(write_graph, doc.child("net").child("layers"), g, p, true);
  // The bytes around <net> (the declaration, the line breaks, comments after it) as the file has them:
  // pugixml keeps no whitespace outside the root element.
  const std::string_view original(reinterpret_cast<const char*>(xml.data()), xml.size());
  const auto net = doc.child("net");
  // offset_debug() is where the element's name starts, after its '<'.
  const auto begin = net.offset_debug() > 0 ? original.rfind('<', static_cast<std::size_t>(net.offset_debug()))
                                            : std::string_view::npos;
  const auto close = original.rfind("</net>");
  if (begin == std::string_view::npos || close == std::string_view::npos || close < begin) {
    string_writer w;
    doc.save(w, "", pugi::format_raw | pugi::format_no_declaration, pugi::encoding_utf8);
    return std::move(w.out);
  }
  std::string out(original.substr(0, begin));
  out += print(net);
  out += original.substr(close + std::string_view("</net>").size());
  return out;
}

}  // namespace reshape1::model
