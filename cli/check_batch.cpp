// `check --batch`: options into a model::reshape_request, the report into text or JSON.
#include "check_batch.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <variant>

#include <fmt/format.h>

#include "io/files.hpp"
#include "model/ops/rules.hpp"
#include "model/options.hpp"
#include "report.hpp"

namespace reshape1::cli {
namespace {

[[noreturn]] void fail(errc code, location where, const std::string& message, std::string hint = {}) {
  throw error(code, std::move(where), message, std::move(hint));
}

/// "NAME=VALUE" split at the last '=' (shapes and layouts never contain one); no '=': an empty name.
std::pair<std::string, std::string> split_named(const std::string& text) {
  const auto eq = text.rfind('=');
  if (eq == std::string::npos) return {std::string(), text};
  return {text.substr(0, eq), text.substr(eq + 1)};
}

std::string batch_text(const model::input_report& in) {
  if (!in.batch_index) {
    return in.source == model::batch_source::none && !in.layout.empty()
               ? fmt::format("none (layout {} has no N)", in.layout)
               : std::string("none");
  }
  switch (in.source) {
    case model::batch_source::layout_option: return fmt::format("{} (--layout {})", *in.batch_index, in.layout);
    case model::batch_source::layout_in_model: return fmt::format("{} (layout {} in the model)", *in.batch_index, in.layout);
    default: return fmt::format("{} (first dimension; no layout)", *in.batch_index);
  }
}

std::string carrier_text(const model::batch_carrier& c) {
  switch (c.state) {
    case model::batch_carrier::kind::one:
      return c.factor == 1 ? fmt::format("dimension {}", c.axis) : fmt::format("dimension {} (N·{})", c.axis, c.factor);
    case model::batch_carrier::kind::none: return "none";
    case model::batch_carrier::kind::several: return "several dimensions";
    case model::batch_carrier::kind::unknown: break;
  }
  return "unknown";
}


}  // namespace

std::vector<std::pair<std::string, std::string>> parse_layouts(const std::vector<std::string>& texts) {
  std::vector<std::pair<std::string, std::string>> r;
  for (const auto& text : texts) r.push_back(split_named(text));  // no name: the only input, as for --shape
  return r;
}

std::vector<std::pair<std::string, partial_shape>> parse_shapes(const std::vector<std::string>& texts,
                                                                model::detail::option key) {
  std::vector<std::pair<std::string, partial_shape>> r;
  for (const auto& text : texts) {
    auto [name, shape] = split_named(text);
    try {
      r.emplace_back(name, parse_shape(shape));
    } catch (const error& e) {
      fail(e.code(), {}, fmt::format("{}: {}", model::detail::spell(flags, key, name, shape), e.what()));
    }
  }
  return r;
}

model::reshape_request parse_request(const batch_options& o) {
  model::reshape_request r;
  r.spelling = flags;
  if (o.batch_given || !o.batch.empty())
    r.batch = model::parse_batch(o.batch, model::detail::spell(flags, model::detail::option::batch, {}, o.batch));
  r.shapes = parse_shapes(o.shapes, model::detail::option::shape);
  r.layouts = parse_layouts(o.layouts);
  r.assume_kept = o.assume_kept;
  r.assume_constant = o.assume_constant;
  // Without a new batch or shape there is nothing to check against: a layout, --assume-kept or --dot
  // alone would answer "yes" for the declared shapes. --dot has no Python counterpart, so its own words.
  if ((!o.dot.empty() || o.dot_given) && !r.batch && r.shapes.empty())
    fail(errc::syntax, {}, "--dot: no batch and no shape to draw the findings of",
         "give --batch N (or --shape NAME=SHAPE) with it");
  model::detail::check_request(r);
  return r;
}

void print_batch(const model::batch_report& r, bool quiet) {
  if (!quiet) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& in : r.inputs)
      rows.push_back({std::to_string(in.id), in.name, to_string(in.declared), to_string(in.requested), batch_text(in)});
    print_table({"id", "input", "declared", "reshaped to", "batch index"}, rows, {});
    std::cout << '\n';
    rows.clear();
    for (const auto& out : r.outputs)
      rows.push_back({std::to_string(out.id), out.name, to_string(out.declared), to_string(out.reshaped),
                      carrier_text(out.batch)});
    print_table({"id", "output", "declared", "reshaped", "batch"}, rows, {});
    std::cout << '\n';
  }
  std::vector<std::vector<std::string>> rows, notes;
  for (const auto& f : r.findings) {
    if (quiet && f.issue == model::batch_issue::scales_with_batch) continue;
    rows.push_back({id_path(f.within, f.id), f.name, fmt::format("{}-{}", f.type, f.opset),
                    f.issue == model::batch_issue::fails ? fmt::format("fails at {}", f.at) : std::string(name(f.issue))});
    std::vector<std::string> n;
    n.push_back(f.issue == model::batch_issue::fails || f.issue == model::batch_issue::fails_at_declared
                    ? fmt::format("{}: {}", f.code, f.what)
                    : f.what);
    if (!f.source.empty()) n.push_back("value from: " + f.source);
    if (!f.hint.empty()) n.push_back("hint: " + f.hint);
    notes.push_back(std::move(n));
  }
  print_table({"id", "name", "op", "finding"}, rows, notes);
  if (r.summary.failing_at_declared != 0)
    std::cout << fmt::format("note: {} layer{} already fail{} at the declared shapes (see reshape1 check without "
                             "--batch)\n",
                             r.summary.failing_at_declared, r.summary.failing_at_declared == 1 ? "" : "s",
                             r.summary.failing_at_declared == 1 ? "s" : "");
  for (const auto& n : r.notes) std::cout << "note: " << printable(n) << '\n';
  std::cout << printable(r.summary_line()) << '\n';
}


namespace {

/// A name or a text in a DOT string: control characters and bidirectional overrides escaped as the
/// terminal output shows them (a newline or an escape sequence from a model's names must not reach a
/// viewer raw), then quotes and backslashes escaped for DOT.
std::string dot_quote(const std::string& s) {
  std::string r;
  for (const char c : io::detail::escaped(s)) {
    if (c == '"' || c == '\\') r += '\\';
    r += c;
  }
  return r;
}

/// A shape with its batch dimension marked `*` (from the carrier), as the DOT edges show it.
std::string marked(const partial_shape& s, const model::batch_carrier* c) {
  if (!s.rank_known() || c == nullptr || c->state != model::batch_carrier::kind::one || c->axis >= s.size())
    return to_string(s);
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto d = to_string(partial_shape{s[i]});  // "[x]"
    r += (i == 0 ? "" : ",") + d.substr(1, d.size() - 2) + (i == c->axis ? "*" : "");
  }
  return r + "]";
}

/// A layer's box as the file names it. An IR layer: its id, name, type and opset. An ONNX node: its index
/// (the id reshape1 gives it), name, op and version; the layers its translation adds beside the one that
/// computes its first output, the graph's inputs, initializers and outputs have ids the file does not, so
/// they are shown by name and what they are.
std::string box_label(const model::graph& g, const model::layer& l) {
  const auto name = dot_quote(std::string(l.name));
  if (g.format() != model::model_format::onnx) return fmt::format("{} {}\\n{}-{}", l.id, name, l.type, l.opset);
  if (l.find("onnx_op") == nullptr) {
    const auto part = model::detail::part_of(l.type);
    const char* what = l.find("onnx_initializer") != nullptr          ? "initializer"
                       : part == model::detail::op_part::parameter ? "graph input"
                       : part == model::detail::op_part::result    ? "graph output"
                                                                    : "tensor";
    return fmt::format("{}\\n{}", name, what);
  }
  if (l.auxiliary) return fmt::format("{}\\n{}-{} (part of the node)", name, l.op_type(), l.op_version());
  return fmt::format("{} {}\\n{}-{}", l.id, name, l.op_type(), l.op_version());
}

std::string fill_of(model::batch_issue i) {
  switch (i) {
    case model::batch_issue::scales_with_batch: return "#bcd7f5";
    case model::batch_issue::cannot_tell: return "#f7d58b";
    default: return "#f4a6a6";
  }
}

}  // namespace

void check_dot_output(const std::string& path, const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  if (path.empty()) fail(errc::invalid_argument, {}, "--dot: an empty file name", "give the file to write the picture to");
  std::error_code ec;
  for (const auto& in : inputs) {
    if (in.empty() || in == "-" || path == "-") continue;
    if (fs::exists(path, ec) && fs::exists(in, ec) && fs::equivalent(path, in, ec))
      fail(errc::invalid_argument, {.file = io::detail::escaped(path)},
           fmt::format("--dot {}: is one of the model's own files ({})", io::detail::escaped(path), io::detail::escaped(in)),
           "write the picture to another file; the model is never modified");
  }
  if (fs::is_directory(path, ec))
    fail(errc::invalid_argument, {.file = io::detail::escaped(path)},
         fmt::format("--dot {}: is a directory", io::detail::escaped(path)), "give the name of a file");
  // An existing file that is not a picture reshape1 wrote is data (an ONNX model's external data, a tensor,
  // another model): the picture never replaces it.
  if (fs::is_regular_file(path, ec) && fs::file_size(path, ec) > 0) {
    std::string head(16, '\0');
    std::ifstream in(path, std::ios::binary);
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    if (!head.starts_with("digraph"))
      fail(errc::invalid_argument, {.file = io::detail::escaped(path)},
           fmt::format("--dot {}: is a file that holds something else than a DOT picture", io::detail::escaped(path)),
           "give a new name, or the name of a picture --dot wrote before");
  }
}

namespace {

/// The layers --dot draws: every finding's (a body finding's outermost TensorIterator or Loop), the layer or
/// output it names as the user of the batch, and all their ancestors; Consts only when a finding names one.
struct drawn_layers {
  std::map<std::size_t, const model::batch_finding*> marked;
  std::set<std::size_t> keep, sources_shown;
};

drawn_layers layers_to_draw(const model::graph& g, const model::batch_report& r) {
  const auto layers = g.layers();
  const auto index_of = [&](std::int64_t id) -> std::optional<std::size_t> {
    const auto* l = g.find(id);
    return l == nullptr ? std::nullopt : std::optional(static_cast<std::size_t>(l - layers.data()));
  };
  drawn_layers d;
  std::vector<std::size_t> stack;
  for (const auto& f : r.findings) {
    const auto at = index_of(f.within.empty() ? f.id : f.within.front().id);
    if (!at) continue;
    d.marked.emplace(*at, &f);
    stack.push_back(*at);
    if (f.used_by_id)
      if (const auto u = index_of(*f.used_by_id)) stack.push_back(*u);
    if (f.source_id && f.within.empty())
      if (const auto src = index_of(*f.source_id)) {
        d.keep.insert(*src);
        d.sources_shown.insert(*src);
      }
  }
  while (!stack.empty()) {
    const auto i = stack.back();
    stack.pop_back();
    if (!d.keep.insert(i).second && d.marked.count(i) == 0) continue;
    for (const auto& s : layers[i].sources)
      if (s && model::detail::part_of(layers[s->layer]) != model::detail::op_part::constant && !d.keep.contains(s->layer))
        stack.push_back(s->layer);
  }
  return d;
}

/// Chains of layers with one input and one output on the way, none of them a finding, are drawn as one
/// dashed box ("12 layers: a … b"): a backbone would otherwise fill the picture.
struct elided_runs {
  std::map<std::size_t, std::size_t> run_of;          ///< an elided layer -> the first layer of its run
  std::map<std::size_t, std::vector<std::size_t>> runs;  ///< the first layer -> the run, in order
};

elided_runs runs_to_elide(std::span<const model::layer> layers, const drawn_layers& d) {
  std::map<std::size_t, std::vector<std::size_t>> preds, succs;
  for (const auto i : d.keep)
    for (const auto& s : layers[i].sources)
      if (s && d.keep.contains(s->layer)) {
        preds[i].push_back(s->layer);
        succs[s->layer].push_back(i);
      }
  const auto elidable = [&](std::size_t i) {
    return d.marked.count(i) == 0 && preds[i].size() == 1 && succs[i].size() == 1 && !d.sources_shown.contains(i);
  };
  elided_runs e;
  for (const auto i : d.keep) {
    if (!elidable(i) || elidable(preds[i][0])) continue;
    for (auto j = i; elidable(j); j = succs[j][0]) {
      e.runs[i].push_back(j);
      e.run_of[j] = i;
      if (!d.keep.contains(succs[j][0])) break;
    }
  }
  return e;
}

}  // namespace

void write_dot(const model::graph& g, const model::batch_report& r, const std::string& path) {
  const auto layers = g.layers();
  const auto drawn = layers_to_draw(g, r);
  const auto& marked_layers = drawn.marked;
  const auto& keep = drawn.keep;
  auto elided = runs_to_elide(layers, drawn);
  auto& run_of = elided.run_of;
  auto& runs = elided.runs;
  std::vector<model::input_shape> shapes;
  for (const auto& in : r.inputs) shapes.push_back({in.layer, in.requested});
  const auto declared = model::propagate(g);
  const auto target = model::propagate(g, shapes);

  const auto node_name = [&](std::size_t i) {
    const auto it = run_of.find(i);
    return it == run_of.end() ? fmt::format("L{}", layers[i].id) : fmt::format("R{}", layers[it->second].id);
  };

  std::string dot = fmt::format("digraph \"reshape1\" {{\n  label=\"{}\\n* marks the dimension that holds the batch\";\n"
                                "  labelloc=t;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n"
                                "  edge [fontname=\"monospace\", fontsize=9];\n",
                                dot_quote(r.summary_line()));
  // A constant a size finding names: the value it holds, which may stand for a size.
  std::map<std::int64_t, std::string> constants;
  for (const auto& f : r.findings) {
    if (f.code != "baked_size" || !f.source_id || !f.within.empty()) continue;
    for (const auto& [key, value] : f.args)
      if (key == "size" && std::holds_alternative<std::int64_t>(value))
        constants.emplace(*f.source_id, fmt::format("may stand for the size {}", std::get<std::int64_t>(value)));
  }
  for (const auto i : keep) {
    if (run_of.contains(i)) continue;
    const auto& l = layers[i];
    std::string label = box_label(g, l);
    if (const auto c = constants.find(l.id); c != constants.end()) label += "\\n" + c->second;
    std::string style;
    if (const auto it = marked_layers.find(i); it != marked_layers.end()) {
      const auto& f = *it->second;
      label += "\\n" + std::string(model::name(f.issue));
      if (f.issue == model::batch_issue::cannot_tell && !f.code.empty()) label += fmt::format(" ({})", f.code);
      if (!f.within.empty()) label += fmt::format(" (in its body: {} {})", f.id, dot_quote(f.name));
      style = fmt::format(", style=filled, fillcolor=\"{}\", penwidth=2", fill_of(f.issue));
    }
    dot += fmt::format("  L{} [label=\"{}\"{}];\n", l.id, label, style);
  }
  for (const auto& [first, run] : runs) {
    const auto& a = layers[run.front()];
    const auto& b = layers[run.back()];
    dot += fmt::format("  R{} [label=\"{} layer{}: {} {} ... {} {}\", style=dashed];\n", a.id, run.size(),
                       run.size() == 1 ? "" : "s", a.id, dot_quote(std::string(a.name)), b.id,
                       dot_quote(std::string(b.name)));
  }
  for (const auto i : keep) {
    const auto& l = layers[i];
    for (const auto& s : l.sources) {
      if (!s || !keep.contains(s->layer)) continue;
      // Inside a run: no edge.
      if (run_of.contains(i) && run_of.contains(s->layer) && run_of[i] == run_of[s->layer]) continue;
      const model::batch_carrier* c = s->layer < r.carriers.size() && s->output < r.carriers[s->layer].size()
                                          ? &r.carriers[s->layer][s->output]
                                          : nullptr;
      const auto before = to_string(declared.outputs[s->layer][s->output].shape);
      const auto after = marked(target.outputs[s->layer][s->output].shape, c);
      dot += fmt::format("  {} -> {} [label=\"{}\\n{}\"];\n", node_name(s->layer), node_name(i), before,
                         dot_quote(after));
    }
  }
  dot += "}\n";
  io::detail::atomic_file out(path);
  out.write(std::as_bytes(std::span(dot.data(), dot.size())));
  out.commit();
}

}  // namespace reshape1::cli
