// ONNX's sequences and optionals, followed where the graph gives their contents when it is read: a sequence is its
// tensors in order (SequenceConstruct's inputs, a SplitToSequence into pieces of known lengths, an insert or erase
// at a constant position), an optional its tensor or none. The ops that read one give the tensor it holds
// (SequenceAt, OptionalGetElement), a Concat of its tensors (ConcatFromSequence), or a constant (SequenceLength,
// OptionalHasElement), or a sequence of what a body gives for each (SequenceMap, its body inlined once a tensor); no
// layer carries a sequence. What the lowering cannot follow (a position the graph computes, a sequence a Loop
// carries or a graph input gives, a split into a count of pieces that follows a length other than a constant's, a
// sequence of more than 1,024 tensors) is not covered: "cannot tell" past it.
#include <string_view>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "families.hpp"

namespace reshape1::onnx::detail {

namespace {

constexpr std::string_view not_followed = "reshape1 follows a sequence or an optional only where the graph gives its contents";
/// The most tensors a sequence the lowering follows holds: each insert copies the list, so a chain of inserts costs
/// the square of its length (10,000 inserts took 3.4 GB before this bound).
constexpr std::size_t most_items = 1024;

/// Whether the node is left not covered for a sequence of `count` tensors, more than most_items.
bool too_long(node_context& c, std::size_t count) {
  if (count <= most_items) return false;
  c.not_covered(fmt::format("its sequence holds {} tensors, and reshape1 follows sequences of up to {}", count, most_items));
  return true;
}

/// Input i as the sequence (or optional) it holds; nullptr, with the node not covered, where it holds one the
/// lowering does not follow (a graph input, a Loop's output, an enclosing graph's).
const held_values* held_input(node_context& c, std::size_t i, bool optional) {
  const auto* v = c.input_value(i);
  if (v != nullptr && v->held != nullptr && v->held->followed) {
    if (v->held->optional == optional) return v->held.get();
    c.bad(fmt::format("its input {} ('{}') is {}, where {} takes {}", i, c.node().input(static_cast<int>(i)),
                      v->held->optional ? "an optional" : "a sequence", c.node().op_type(),
                      optional ? "an optional" : "a sequence"),
          "ONNX Runtime refuses the model too");
  }
  c.not_covered(fmt::format("its input {} ('{}') is {} whose contents the graph does not give: {}", i,
                            c.node().input(static_cast<int>(i)), optional ? "an optional" : "a sequence", not_followed));
  return nullptr;
}

/// A sequence position (SequenceAt, SequenceInsert, SequenceErase): a constant's first value, in [-size, size) (up to
/// size inclusive for an insert), counted from the end where negative, as ONNX Runtime refuses another when it runs
/// the node. nullopt, with the node not covered, where the graph computes it.
std::optional<std::size_t> position(node_context& c, std::size_t i, std::size_t size, bool insert) {
  if (const auto type = c.declared_type(i); type && *type != element_type::i64 && *type != element_type::i32)
    c.bad(fmt::format("its position (input {}) is {}", i, name(*type)), "ONNX Runtime refuses the model too: a position is int32 or int64");
  const auto v = c.constant_ints(i);
  if (!v) {
    c.not_covered(fmt::format("its position (input {}) is computed by the graph: {}", i, not_followed));
    return std::nullopt;
  }
  // ONNX asks a scalar; ONNX Runtime reads the first value of a position of any shape (one of no value is not
  // followed: what ONNX Runtime reads there is not defined).
  if (v->empty()) {
    c.not_covered(fmt::format("its position (input {}) holds no value: {}", i, not_followed));
    return std::nullopt;
  }
  const auto n = static_cast<std::int64_t>(size);
  const auto at = (*v)[0];
  const auto last = insert ? n : n - 1;
  if (at < -n || at > last)
    c.bad(fmt::format("its position {} is outside the sequence of {} tensors", at, size),
          fmt::format("a position of {} is in [{}, {}]", c.node().op_type(), -n, last));
  return static_cast<std::size_t>(at < 0 ? at + n : at);
}

void sequence_empty(node_context& c) {
  held_values s;
  const auto dtype = c.i("dtype", ::onnx::TensorProto::FLOAT);
  s.type = element_of(static_cast<int>(dtype));
  if (!s.type) c.bad(fmt::format("dtype is {}, no ONNX data type reshape1 knows", dtype));
  c.output_held(0, std::move(s));
}

void sequence_construct(node_context& c) {
  held_values s;
  if (too_long(c, c.inputs())) return;
  for (std::size_t k = 0; k < c.inputs(); ++k) {
    const auto* v = c.input_value(k);
    if (v == nullptr) c.bad(fmt::format("its input {} is left out", k), "SequenceConstruct's inputs are its tensors");
    s.items.push_back(*v);
    if (!s.type) s.type = v->type;
  }
  c.output_held(0, std::move(s));
}

/// The sequence's type, where known, must be the tensor's: ONNX Runtime refuses another when it loads the model.
void same_type(node_context& c, const held_values& s, const known_value& tensor) {
  if (s.type && tensor.type && *s.type != *tensor.type)
    c.bad(fmt::format("its tensor is {} and its sequence of {}", name(*tensor.type), name(*s.type)),
          "ONNX Runtime refuses the model too: a sequence holds tensors of one type");
}

void sequence_insert(node_context& c) {
  const auto* s = held_input(c, 0, false);
  if (s == nullptr) return;
  const auto* tensor = c.input_value(1);
  if (tensor == nullptr || tensor->held != nullptr) c.bad("its second input is not a tensor", "SequenceInsert inserts a tensor");
  same_type(c, *s, *tensor);
  std::size_t at = s->items.size();
  if (c.input_value(2) != nullptr) {
    const auto p = position(c, 2, s->items.size(), true);
    if (!p) return;
    at = *p;
  }
  if (too_long(c, s->items.size() + 1)) return;
  auto out = *s;
  out.items.insert(out.items.begin() + static_cast<std::ptrdiff_t>(at), *tensor);
  if (!out.type) out.type = tensor->type;
  c.output_held(0, std::move(out));
}

void sequence_erase(node_context& c) {
  const auto* s = held_input(c, 0, false);
  if (s == nullptr) return;
  if (s->items.empty()) c.bad("its sequence is empty", "ONNX Runtime refuses to erase from an empty sequence when it runs the node");
  std::size_t at = s->items.size() - 1;
  if (c.input_value(1) != nullptr) {
    const auto p = position(c, 1, s->items.size(), false);
    if (!p) return;
    at = *p;
  }
  auto out = *s;
  out.items.erase(out.items.begin() + static_cast<std::ptrdiff_t>(at));
  c.output_held(0, std::move(out));
}

void sequence_at(node_context& c) {
  const auto* s = held_input(c, 0, false);
  if (s == nullptr) return;
  if (const auto p = position(c, 1, s->items.size(), false)) c.output_value(0, s->items[*p]);
}

void sequence_length(node_context& c) {
  if (const auto* s = held_input(c, 0, false))
    c.output(0, c.i64({static_cast<std::int64_t>(s->items.size())}, scalar));
}

/// SplitToSequence (11, 24): the input's pieces along `axis`: of the lengths `split` gives (a 1-D constant), of
/// `split` each and the rest last (a scalar), or of 1 each without it (squeezed away unless keepdims). The number of
/// pieces must be fixed when the file is read: the split's length, or for the other two the axis' length, where a
/// Const is split (node_context::known_length: a graph input's declared length changes at another batch or size).
void split_to_sequence(node_context& c) {
  const auto x = c.need(0);
  const auto axis = c.i("axis", 0);
  if (const auto rank = c.rank(0); rank && (axis < -static_cast<std::int64_t>(*rank) || axis >= static_cast<std::int64_t>(*rank)))
    c.bad(fmt::format("axis {} is outside its input's rank {}", axis, *rank));
  std::vector<std::int64_t> lengths;
  bool squeeze = false;
  if (c.input_value(1) != nullptr) {
    const auto split = c.constant_ints(1);
    if (!split) return c.not_covered(fmt::format("its split is computed by the graph: {}", not_followed));
    const auto dims = c.constant_dims(1);
    if (dims && dims->size() > 1) c.bad(fmt::format("its split has rank {}", dims->size()), "split is a scalar or 1-D");
    if (dims && dims->empty()) {
      // ONNX Runtime applies keepdims to a scalar split's pieces too (ONNX's spec: only without a split): each
      // reshaped to its dims without the axis, which fails on a piece longer than 1 unless it is empty, as there.
      squeeze = c.i("keepdims", 1) == 0;
      const auto each = (*split)[0];
      if (each <= 0) c.bad(fmt::format("its split is {}", each), "a scalar split is the length of each piece, above 0");
      const auto length = c.known_length(0, axis);
      if (!length) return c.not_covered(fmt::format("it splits along an axis whose length is not fixed (not a constant's): {}", not_followed));
      if (too_long(c, static_cast<std::size_t>(*length / each + (*length % each != 0)))) return;
      for (std::int64_t done = 0; done < *length; done += each) lengths.push_back(std::min(each, *length - done));
    } else {
      if (split->empty()) c.bad("its split is empty", "a 1-D split gives the length of each piece");
      for (const auto v : *split)
        if (v < 0) c.bad(fmt::format("its split holds {}", v), "a piece's length is 0 or more");
      lengths = *split;
    }
  } else {
    const auto length = c.known_length(0, axis);
    if (!length) return c.not_covered(fmt::format("it splits along an axis whose length is not fixed (not a constant's): {}", not_followed));
    if (too_long(c, static_cast<std::size_t>(*length))) return;
    lengths.assign(static_cast<std::size_t>(*length), 1);
    squeeze = c.i("keepdims", 1) == 0;
  }
  if (too_long(c, lengths.size())) return;
  held_values s;
  s.type = c.declared_type(0);
  if (!lengths.empty()) {
    const auto pieces = c.add("VariadicSplit", 1, {x, c.i64({axis}, scalar), c.i64(lengths)}, {}, lengths.size());
    for (std::size_t k = 0; k < lengths.size(); ++k) {
      source piece{pieces.layer, k};
      if (squeeze) {
        // x is a Const here (the count followed its axis' length): its dims without the axis, as a Reshape's pattern.
        auto dims = *c.constant_dims(0);
        dims.erase(dims.begin() + (axis < 0 ? axis + static_cast<std::int64_t>(dims.size()) : axis));
        piece = c.add("Reshape", 1, {piece, c.i64(dims)}, {{"special_zero", "false"}});
      }
      s.items.push_back({piece, std::nullopt, nullptr, s.type});
    }
  }
  c.output_held(0, std::move(s));
}

/// ConcatFromSequence (11): its tensors joined along `axis`, or stacked along a new one (`new_axis` 1). ONNX Runtime
/// refuses an empty sequence when it runs the node.
void concat_from_sequence(node_context& c) {
  const auto* s = held_input(c, 0, false);
  if (s == nullptr) return;
  const auto axis = c.i("axis");
  if (!axis) c.bad("it has no axis", "ConcatFromSequence needs the attribute axis");
  if (s->items.empty()) c.bad("its sequence is empty", "ONNX Runtime refuses to concatenate an empty sequence when it runs the node");
  const bool stack = c.i("new_axis", 0) == 1;
  std::vector<source> parts;
  for (const auto& item : s->items) parts.push_back(stack ? c.add("Unsqueeze", 1, {item.at, c.i64({*axis})}) : item.at);
  c.output(0, c.add("Concat", 1, std::move(parts), {{"axis", std::to_string(*axis)}}));
}

/// Optional (15): its input as an optional, or an empty one of the `type` attribute without it.
void optional_of(node_context& c) {
  held_values o;
  o.optional = true;
  if (const auto* v = c.input_value(0)) {
    if (v->held != nullptr && v->held->optional)
      c.bad("its input is an optional", "ONNX Runtime refuses the model too: an Optional holds a tensor or a sequence");
    o.items.push_back(*v);
    o.type = v->type;
  } else if (c.attribute("type") == nullptr) {
    c.bad("it has neither an input nor the attribute type", "an empty Optional names its type");
  }
  c.output_held(0, std::move(o));
}

/// OptionalHasElement (15; 18 takes a tensor, which has one, or no input, which has none): a boolean constant.
void optional_has_element(node_context& c) {
  const auto* v = c.input_value(0);
  if (v == nullptr) return c.output(0, c.boolean(false));
  // From 18 a tensor or a sequence has an element: itself.
  if (c.version() >= 18 && (v->held == nullptr || !v->held->optional)) return c.output(0, c.boolean(true));
  if (const auto* o = held_input(c, 0, true)) c.output(0, c.boolean(!o->items.empty()));
}

/// OptionalGetElement (15; 18 takes a tensor too, which it gives as it is): what the optional holds. ONNX Runtime
/// refuses an empty one when it runs the node.
void optional_get_element(node_context& c) {
  const auto* v = c.input_value(0);
  if (v != nullptr && c.version() >= 18 && v->held == nullptr) return c.output(0, v->at);
  if (v != nullptr && c.version() >= 18 && !v->held->optional) return c.output_value(0, *v);
  const auto* o = held_input(c, 0, true);
  if (o == nullptr) return;
  if (o->items.empty()) c.bad("its optional is empty", "ONNX Runtime refuses to read an empty optional when it runs the node");
  c.output_value(0, o->items.front());
}

/// The nodes of `g` and of the graphs its nodes hold.
std::size_t nodes_in(const ::onnx::GraphProto& g) {
  auto n = static_cast<std::size_t>(g.node_size());
  for (const auto& node : g.node())
    for (const auto& a : node.attribute()) {
      if (a.has_g()) n += nodes_in(a.g());
      for (const auto& sub : a.graphs()) n += nodes_in(sub);
    }
  return n;
}

/// SequenceMap's body as ONNX Runtime checks it when it loads the model (it inlines the function SequenceMap is,
/// a Loop over the body, into the graph): a body input and output for each of the node's, every output named;
/// names defined once, and no node output named as a tensor of the graph around it (the graph must be in static
/// single assignment form; a body input may be, which the function renames); no
/// SequenceMap in the body (inlined twice, its names meet); no output that is a tensor from around the body.
const ::onnx::GraphProto& map_body(node_context& c) {
  const auto* body = c.attribute("body");
  if (body == nullptr || !body->has_g()) c.bad("SequenceMap needs the graph attribute body");
  const auto& g = body->g();
  constexpr auto refused = "ONNX Runtime refuses the model too";
  if (static_cast<std::size_t>(g.input_size()) != c.inputs())
    c.bad(fmt::format("its body has {} inputs, where the node has {}", g.input_size(), c.inputs()),
          fmt::format("{}: the body takes one input for each input of the node", refused));
  if (static_cast<std::size_t>(g.output_size()) != c.outputs())
    c.bad(fmt::format("its body has {} outputs, where the node has {}", g.output_size(), c.outputs()),
          fmt::format("{}: the body gives one output for each output of the node", refused));
  for (std::size_t k = 0; k < c.outputs(); ++k)
    if (!c.has_output(k))
      c.bad(fmt::format("its output {} is left out (named \"\")", k), fmt::format("{}: name every output of SequenceMap", refused));
  std::unordered_set<std::string_view> defined;
  const auto define = [&](const std::string& name, bool computed) {
    if (!defined.insert(name).second)
      c.bad(fmt::format("its body defines '{}' twice", name), fmt::format("{}: a name is defined once", refused));
    if (computed && c.defined_around(name))
      c.bad(fmt::format("its body defines '{}', which the graph around it defines too", name),
            fmt::format("{}: SequenceMap's body is inlined into the graph, whose names are defined once", refused));
  };
  for (const auto& v : g.input()) define(v.name(), false);
  for (const auto& t : g.initializer()) define(t.name(), false);
  for (const auto& n : g.node()) {
    if ((n.domain().empty() || n.domain() == "ai.onnx") && n.op_type() == "SequenceMap")
      c.bad(n.name().empty() ? std::string("its body holds a SequenceMap node") : fmt::format("its body holds SequenceMap '{}'", n.name()),
            fmt::format("{}: a SequenceMap inside SequenceMap's body is inlined with names that meet", refused));
    for (const auto& o : n.output())
      if (!o.empty()) define(o, true);
  }
  std::unordered_set<std::string_view> given;
  for (const auto& v : g.output()) {
    if (!given.insert(v.name()).second)
      c.bad(fmt::format("its body gives '{}' twice", v.name()), fmt::format("{}: give each body output once", refused));
    if (!defined.contains(v.name()))
      c.bad(fmt::format("its body gives '{}', a tensor of the graph around it, as its output", v.name()),
            fmt::format("{}: pass it through an Identity in the body", refused));
  }
  return g;
}

/// SequenceMap (17): its body run on each tensor of its first input, a sequence, with each other input given as it
/// is (a tensor) or by the tensor at the same position (a sequence as long as the first at least); each body
/// output gives a sequence of what it gives at each run. Each run is the body inlined, its inputs standing for that
/// run's tensors, so a run that fails fails the node, as it fails ONNX Runtime when it runs the node.
void sequence_map(node_context& c) {
  const auto& g = map_body(c);
  // (The sequences are held here: a run binds names, and nothing it binds may free what it reads.)
  std::vector<known_value> given;
  for (std::size_t k = 0; k < c.inputs(); ++k) {
    const auto* v = c.input_value(k);
    if (v == nullptr) c.bad(fmt::format("its input {} is left out", k), "SequenceMap's inputs are sequences or tensors");
    // The first input is a sequence; an optional is refused, a sequence the lowering does not follow leaves the
    // node not covered.
    if ((k == 0 || v->held != nullptr) && held_input(c, k, false) == nullptr) return;
    given.push_back(*v);
  }
  const auto runs = given[0].held->items.size();
  for (std::size_t k = 1; k < given.size(); ++k)
    if (given[k].held != nullptr && given[k].held->items.size() < runs)  // a longer one's first tensors are read
      c.bad(fmt::format("its input {} is a sequence of {} tensors, and its first of {}", k, given[k].held->items.size(), runs),
            "ONNX Runtime fails when it runs the node: a sequence SequenceMap maps is as long as its first at least");
  // Each body input of the type of what it stands for (ONNX Runtime refuses another when it loads the model; the
  // dims it declares it does not hold a sequence's tensors to).
  for (std::size_t k = 0; k < given.size(); ++k) {
    const auto want = declared_element(g.input(static_cast<int>(k)));
    const auto have = given[k].held != nullptr ? given[k].held->type : given[k].type;
    if (want && have && *want != *have)
      c.bad(fmt::format("its body's input {} ('{}') is declared {}, where its input {} holds {}", k,
                        g.input(static_cast<int>(k)).name(), name(*want), k, name(*have)),
            "ONNX Runtime refuses the model too: declare the body's inputs of the types the node gives them");
  }
  std::vector<held_values> out(c.outputs());
  // ONNX Runtime runs SequenceMap as its function body, which makes each output sequence of the type its body output
  // declares: one declaring none it refuses when it loads the model ("Invalid tensor data type 0").
  for (std::size_t k = 0; k < out.size(); ++k) {
    out[k].type = declared_element(g.output(static_cast<int>(k)));
    if (!out[k].type)
      c.bad(fmt::format("its body's output {} ('{}') declares no element type", k, g.output(static_cast<int>(k)).name()),
            "ONNX Runtime refuses the model too: declare the type of each output of SequenceMap's body");
  }
  // The runs lowered in all of the model's SequenceMaps are bounded: each is the body inlined again.
  if (!c.take_mapped_nodes(runs * std::max<std::size_t>(nodes_in(g), 1)))
    return c.not_covered(fmt::format("it runs its body of {} nodes on {} tensors, past the {} body nodes reshape1 follows "
                                     "SequenceMap runs for in a model",
                                     nodes_in(g), runs, node_context::most_mapped_nodes));
  // No run: ONNX Runtime still checks the body when it loads the model.
  if (runs == 0) c.check_not_run(g);
  for (std::size_t j = 0; j < runs; ++j) {
    std::vector<known_value> in;
    for (const auto& v : given) in.push_back(v.held != nullptr ? v.held->items[j] : v);
    const auto results = c.run_body(g, in);
    for (std::size_t k = 0; k < out.size(); ++k) {
      if (results[k].held != nullptr)
        c.bad(fmt::format("its body's output {} ('{}') is {}", k, g.output(static_cast<int>(k)).name(),
                          results[k].held->optional ? "an optional" : "a sequence"),
              "ONNX Runtime refuses the model too: SequenceMap's body gives tensors");
      if (results[k].type && *results[k].type != *out[k].type)
        c.bad(fmt::format("its body's output {} ('{}') is of type {}, where it is declared {}", k,
                          g.output(static_cast<int>(k)).name(), name(*results[k].type), name(*out[k].type)),
              "ONNX Runtime refuses the model too: declare the type the body gives");
      out[k].items.push_back(results[k]);
    }
  }
  for (std::size_t k = 0; k < out.size(); ++k) c.output_held(k, std::move(out[k]));
}

}  // namespace

std::span<const onnx_entry> sequence_rows() {
  static const std::vector<onnx_entry> rows = {
      {"SequenceEmpty", 11, sequence_empty},
      {"SequenceConstruct", 11, sequence_construct},
      {"SequenceInsert", 11, sequence_insert},
      {"SequenceErase", 11, sequence_erase},
      {"SequenceAt", 11, sequence_at},
      {"SequenceLength", 11, sequence_length},
      {"SplitToSequence", 11, split_to_sequence},
      {"ConcatFromSequence", 11, concat_from_sequence},
      {"Optional", 15, optional_of},
      {"OptionalHasElement", 15, optional_has_element},
      {"OptionalGetElement", 15, optional_get_element},
      {"SequenceMap", 17, sequence_map},
  };
  return rows;
}

}  // namespace reshape1::onnx::detail
