// `check --batch`'s request: the model's inputs as the request asks for them (by name or #ID, each batch
// index from a layout, the request's shape, the batch), the shapes each run starts from, and the request's
// own mistakes (an input or constant the model lacks, a layout that does not fit), refused before any run.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "detail/fail.hpp"
#include "io/files.hpp"
#include "model/analysis/batch_internal.hpp"
#include "model/analysis/batch_request.hpp"
#include "model/options.hpp"
#include "model/ops/rules.hpp"
#include "model/ops/sizes.hpp"
#include "reshape1/model/batch.hpp"

namespace reshape1::model {
namespace batch_analysis {
namespace {

using detail::op_part;
using detail::part_of;
using detail::trim;
using reshape1::detail::fail;

std::string lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

[[noreturn]] void bad_request(const std::string& what, const std::string& hint) {
  fail(errc::invalid_argument, {}, what, hint);
}

std::string input_names(const graph& g) {
  std::string names;
  for (const auto& l : g.layers())
    if (part_of(l.type) == op_part::parameter)
      names += fmt::format("{}'{}'", names.empty() ? "" : ", ", io::detail::escaped(l.name));
  return names;
}

/// The model's inputs (its Parameters), each at its declared shape.
std::vector<input_report> model_inputs(const graph& g, std::span<const input_shape> declared = {}) {
  const auto layers = g.layers();
  std::vector<input_report> inputs;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto& l = layers[i];
    if (part_of(l.type) != op_part::parameter || l.outputs.empty()) continue;
    input_report in;
    in.layer = i;
    in.id = l.id;
    in.name = l.name;
    const auto given = std::find_if(declared.begin(), declared.end(), [&](const input_shape& x) { return x.layer == i; });
    in.declared = given != declared.end() ? given->shape : detail::parameter_shape(l);
    in.requested = in.declared;
    inputs.push_back(std::move(in));
  }
  return inputs;
}

/// The input an option names: by name, by id (`#12`), or the only one when the name is empty.
input_report& named_input(const graph& g, std::vector<input_report>& inputs, const std::string& name,
                          detail::option option, option_spelling s) {
  if (name.empty()) {
    if (inputs.size() != 1)
      bad_request(fmt::format("{} without a name: the model has {} inputs ({})", detail::spell(s, option), inputs.size(),
                              input_names(g)),
                  fmt::format("write {}", detail::usage_of(s, option)));
    return inputs[0];
  }
  if (name.size() > 1 && name[0] == '#') {  // by id: #12
    std::int64_t id = 0;
    const auto [end, ec] = std::from_chars(name.data() + 1, name.data() + name.size(), id);
    if (ec == std::errc() && end == name.data() + name.size()) {
      for (auto& in : inputs)
        if (in.id == id) {
          // An input whose name is the text `#12` while another has the id 12: neither reading is the
          // obvious one.
          for (const auto& other : inputs)
            if (other.name == name && other.id != id)
              bad_request(fmt::format("{}: names two inputs, '{}' (#{}) by its name and '{}' (#{}) by its id",
                                      detail::spell(s, option, name), io::detail::escaped(other.name), other.id,
                                      io::detail::escaped(in.name), in.id),
                          fmt::format("give #{} for the first, '{}' for the second", other.id, io::detail::escaped(in.name)));
          return in;
        }
      bad_request(fmt::format("{}: no input has the id {}; its inputs are {}", detail::spell(s, option, name), id,
                              input_names(g)),
                  "use one of those names, or #ID for an input's id");
    }
  }
  input_report* match = nullptr;
  for (auto& in : inputs) {
    if (in.name != name) continue;
    if (match != nullptr)
      bad_request(fmt::format("{}: two inputs are named '{}' (ids {} and {})", detail::spell(s, option, name),
                              io::detail::escaped(name), match->id, in.id),
                  fmt::format("address one by its id: {}", detail::spell(s, option, fmt::format("#{}", match->id), "...")));
    match = &in;
  }
  if (match != nullptr) return *match;
  bad_request(fmt::format("{}: the model has no input named '{}'; its inputs are {}", detail::spell(s, option, name),
                          io::detail::escaped(name), input_names(g)),
              "use one of those names, or #ID for an input's id");
}

/// Each input's batch index: from the request's layout, else the layout the model writes, else its
/// dimension 0.
void choose_batch_axes(const graph& g, std::vector<input_report>& inputs, const reshape_request& request) {
  std::set<std::int64_t> seen;  // by id: two inputs may share a name
  for (const auto& [name, layout] : request.layouts) {
    auto& in = named_input(g, inputs, name, detail::option::layout, request.spelling);
    if (!seen.insert(in.id).second)
      bad_request(fmt::format("{}: given twice", detail::spell(request.spelling, detail::option::layout, in.name)),
                  "give each input's layout once");
    try {
      in.batch_index = batch_index_of(layout, in.declared.rank_known() ? std::optional(in.declared.size()) : std::nullopt);
    } catch (const error& e) {
      bad_request(fmt::format("{}: {}", detail::spell(request.spelling, detail::option::layout, in.name, layout), e.what()), "");
    }
    in.layout = layout;
    in.source = in.batch_index ? batch_source::layout_option : batch_source::none;
  }
  for (auto& in : inputs) {
    if (seen.contains(in.id)) continue;
    const auto& written = g.layers()[in.layer].outputs[0].layout;
    if (!written.empty()) {
      try {
        in.batch_index = batch_index_of(written, in.declared.rank_known() ? std::optional(in.declared.size()) : std::nullopt);
        in.layout = written;
        in.source = in.batch_index ? batch_source::layout_in_model : batch_source::none;
        continue;
      } catch (const error&) {
        // A layout in the model that does not fit its shape: fall back to dimension 0, as if none were written.
      }
    }
    if (in.declared.rank_known() && in.declared.size() >= 1) {
      in.batch_index = 0;
      in.source = batch_source::first_dimension;
    }
  }
}

/// The request's shapes; an input whose batch index a new shape (or a dynamic rank) does not have loses
/// it, or is refused when the request's layout or batch needs it. Returns the ids of the inputs shaped.
std::set<std::int64_t> apply_shapes(const graph& g, std::vector<input_report>& inputs, const reshape_request& request) {
  std::set<std::int64_t> seen;
  for (const auto& [name, shape] : request.shapes) {
    auto& in = named_input(g, inputs, name, detail::option::shape, request.spelling);
    if (!seen.insert(in.id).second)
      bad_request(fmt::format("{}: given twice", detail::spell(request.spelling, detail::option::shape, in.name)),
                  "give each input's shape once");
    in.requested = shape;
    if (in.batch_index && (!shape.rank_known() || *in.batch_index >= shape.size())) {
      if (in.source == batch_source::layout_option || request.batch)
        bad_request(fmt::format("{}: the input's batch index is {}, which the new shape does not have",
                                detail::spell(request.spelling, detail::option::shape, in.name, to_string(shape)), *in.batch_index),
                    fmt::format("give a shape of the input's rank, or its layout with {}",
                                detail::spell(request.spelling, detail::option::layout)));
      in.batch_index.reset();
      in.source = batch_source::none;
    }
  }
  // A dimension the model names (an ONNX dim_param) is one size wherever it is declared: given a value in
  // one input's new shape, it has that value in the inputs the request leaves as declared (Silero's `h` and
  // `c`, [2,batch,64], follow `input=[1,1024]` to batch 1).
  std::unordered_map<symbol, dimension> given;
  for (const auto& in : inputs) {
    if (!seen.contains(in.id) || !in.declared.rank_known() || !in.requested.rank_known() ||
        in.declared.size() != in.requested.size())
      continue;
    for (std::size_t d = 0; d < in.declared.size(); ++d)
      if (in.declared[d].has_symbol() && !in.declared[d].is_static()) given.emplace(in.declared[d].symbol(), in.requested[d]);
  }
  for (auto& in : inputs) {
    if (given.empty() || seen.contains(in.id) || !in.requested.rank_known()) continue;
    std::vector<dimension> dims(in.requested.begin(), in.requested.end());
    for (auto& d : dims)
      if (const auto it = d.has_symbol() && !d.is_static() ? given.find(d.symbol()) : given.end(); it != given.end())
        d = it->second;
    in.requested = partial_shape(std::move(dims));
  }
  // A batch index needs a shape that has it (a layout in the model may name N of a dynamic rank).
  for (auto& in : inputs) {
    if (!in.batch_index || (in.requested.rank_known() && *in.batch_index < in.requested.size())) continue;
    if (in.source == batch_source::layout_option)
      bad_request(fmt::format("{}: the input's shape {} has no dimension {}",
                              detail::spell(request.spelling, detail::option::layout, in.name, in.layout), to_string(in.requested),
                              *in.batch_index),
                  fmt::format("give its shape with {}", detail::usage_of(request.spelling, detail::option::shape)));
    in.batch_index.reset();
    in.source = batch_source::none;
  }
  return seen;
}

/// The request's batch at each input's batch index (`shaped`: the inputs whose shape the request gives,
/// which must agree with it there).
void apply_batch(std::vector<input_report>& inputs, const reshape_request& request, const std::set<std::int64_t>& shaped) {
  if (!request.batch) return;
  if (request.batch->range().hi() == 0 && request.batch->range().lo() == 0)
    bad_request(fmt::format("{}: a batch of 0 samples", detail::spell(request.spelling, detail::option::batch, {}, "0")),
                "give a batch of at least 1, or ?");
  // An interval written from 0 (`0..8`) asks for a batch of 0 among the others; `?` is every batch.
  if (request.batch->range().lo() == 0 && request.batch->range().is_bounded()) {
    const auto hi = request.batch->range().hi();
    bad_request(fmt::format("{}: a batch interval from 0 samples",
                            detail::spell(request.spelling, detail::option::batch, {}, fmt::format("0..{}", hi))),
                fmt::format("give one from 1 (1..{}), or ?", hi));
  }
  // A batch asked of a model none of whose inputs holds one (every layout without N, inputs of rank 0)
  // changes nothing: "yes" would answer a question the model cannot be asked.
  if (!inputs.empty() && std::none_of(inputs.begin(), inputs.end(), [](const input_report& in) { return in.batch_index; })) {
    std::string why;
    for (const auto& in : inputs)
      why += fmt::format("{}'{}' {}", why.empty() ? "" : ", ", io::detail::escaped(in.name),
                         in.layout.empty() ? std::string("has no batch dimension") : fmt::format("has layout {}, without N", in.layout));
    bad_request(fmt::format("{}: no input holds a batch ({})", detail::spell(request.spelling, detail::option::batch, {}, to_string(*request.batch)), why),
                fmt::format("give each batched input a layout with N ({}), or change its shape with {}",
                            detail::spell(request.spelling, detail::option::layout, "NAME", "NCHW"), detail::spell(request.spelling, detail::option::shape)));
  }
  // A model that names its batch (an ONNX dim_param) may name it elsewhere too: a dimension with that name
  // is the batch as well, and gets the batch asked (else it would be taken for a size apart from it).
  const auto names = named_batch(inputs);
  // A dynamic batch is `?@N`, unless the model names another size N (a point count): then N1, N2...
  std::unordered_set<symbol> others;
  for (const auto& in : inputs) {
    const auto at = batch_positions(in, names);
    for (std::size_t d = 0; d < at.size(); ++d)
      if (!at[d] && in.requested[d].has_symbol()) others.insert(in.requested[d].symbol());
  }
  std::string batch_name = "N";
  for (int k = 1; others.contains(symbol(batch_name)); ++k) batch_name = fmt::format("N{}", k);
  const auto batch = request.batch->is_static() ? dimension(request.batch->range())
                                                : dimension(request.batch->range(), symbol(batch_name));
  for (auto& in : inputs) {
    if (!in.batch_index) continue;
    auto dims = std::vector<dimension>(in.requested.begin(), in.requested.end());
    auto& d = dims[*in.batch_index];
    if (shaped.contains(in.id) && d.range() != request.batch->range())
      bad_request(fmt::format("input '{}': {} gives {} at the batch index {}, {} gives {}", in.name,
                              detail::spell(request.spelling, detail::option::shape), to_string(dimension(d.range())), *in.batch_index,
                              detail::spell(request.spelling, detail::option::batch), to_string(*request.batch)),
                  "drop one of them, or make them agree");
    d = batch;
    in.requested = partial_shape(std::move(dims));
  }
  for (auto& in : inputs) {
    const auto at = batch_positions(in, names);
    if (std::none_of(at.begin(), at.end(), [](bool b) { return b; })) continue;
    auto dims = std::vector<dimension>(in.requested.begin(), in.requested.end());
    for (std::size_t d = 0; d < dims.size(); ++d)
      if (at[d]) dims[d] = batch;
    in.requested = partial_shape(std::move(dims));
  }
}

}  // namespace

/// The names a model gives its batch: each input's declared batch dimension's symbol (an ONNX dim_param).
std::unordered_set<symbol> named_batch(const std::vector<input_report>& inputs) {
  std::unordered_set<symbol> r;
  for (const auto& in : inputs)
    if (in.batch_index && in.declared.rank_known() && *in.batch_index < in.declared.size() &&
        in.declared[*in.batch_index].has_symbol() && !in.declared[*in.batch_index].is_static())
      r.insert(in.declared[*in.batch_index].symbol());
  return r;
}

/// Where an input holds the batch: its batch index, and every dimension it declares with the batch's name
/// (`[2,batch,64]` beside `[batch,512]`): those are the batch too, whatever the request's value there.
std::vector<bool> batch_positions(const input_report& in, const std::unordered_set<symbol>& names) {
  std::vector<bool> r(in.requested.rank_known() ? in.requested.size() : 0, false);
  if (in.batch_index && *in.batch_index < r.size()) r[*in.batch_index] = true;
  if (!in.declared.rank_known() || in.declared.size() != r.size()) return r;
  for (std::size_t d = 0; d < r.size(); ++d)
    if (in.declared[d].has_symbol() && !in.declared[d].is_static() && names.contains(in.declared[d].symbol())) r[d] = true;
  return r;
}

std::vector<input_report> choose_inputs(const graph& g, const reshape_request& request,
                                        std::span<const input_shape> declared) {
  auto inputs = model_inputs(g, declared);
  choose_batch_axes(g, inputs, request);
  const auto shaped = apply_shapes(g, inputs, request);
  apply_batch(inputs, request, shaped);
  return inputs;
}

std::vector<input_shape> shapes_at(const std::vector<input_report>& inputs, std::optional<std::int64_t> batch) {
  std::vector<input_shape> r;
  const auto names = named_batch(inputs);
  for (const auto& in : inputs) {
    if (!batch || !in.batch_index) {
      r.push_back({in.layer, in.requested});
      continue;
    }
    std::vector<dimension> dims(in.requested.begin(), in.requested.end());
    const auto at = batch_positions(in, names);
    for (std::size_t d = 0; d < dims.size(); ++d)
      if (at[d]) dims[d] = dimension(*batch);
    r.push_back({in.layer, partial_shape(std::move(dims))});
  }
  return r;
}

/// The inputs' shapes at sample batch `batch`. Their other dynamic dimensions keep (or get, from the
/// Parameter) a symbol that is the same at every sample batch, which the rules read as a size that does not
/// change with N; so a dimension the request names with the batch's own symbol (`[?@B,?@B]`) is not one of
/// those: it is the batch, and gets the sample's value as the batch dimension does.
std::vector<input_shape> sample_shapes(const std::vector<input_report>& inputs, std::int64_t batch) {
  std::unordered_set<symbol> batch_symbols;
  for (const auto& in : inputs)
    if (in.batch_index && in.requested.rank_known() && *in.batch_index < in.requested.size() &&
        in.requested[*in.batch_index].symbol())
      batch_symbols.insert(in.requested[*in.batch_index].symbol());
  auto r = shapes_at(inputs, batch);
  if (batch_symbols.empty()) return r;
  for (auto& in : r) {
    if (!in.shape.rank_known()) continue;
    std::vector<dimension> dims(in.shape.begin(), in.shape.end());
    for (auto& d : dims)
      if (d.symbol() && batch_symbols.contains(d.symbol())) d = dimension(batch);
    in.shape = partial_shape(std::move(dims));
  }
  return r;
}

/// The request's --assume-constant names, each a constant of the model or a layer whose window (a pooling's
/// kernel, padding and dilation; a convolution's kernel) it vouches for, by name or #ID.
void check_assumed_constants(const graph& g, const reshape_request& request) {
  constexpr std::string_view hint =
      "give an ONNX initializer's or Constant node's output name, an IR Const's name, a pooling's or "
      "convolution's layer name, or #ID";
  for (const auto& name : request.assume_constant) {
    const auto named = [&](const layer& l) { return l.name == name || fmt::format("#{}", l.id) == name; };
    // A layer whose name is the text `#12` while another has the id 12: the option would vouch for both.
    const auto by_name = std::find_if(g.layers().begin(), g.layers().end(), [&](const layer& l) { return l.name == name; });
    const auto by_id =
        std::find_if(g.layers().begin(), g.layers().end(), [&](const layer& l) { return fmt::format("#{}", l.id) == name; });
    if (by_name != g.layers().end() && by_id != g.layers().end() && by_name != by_id)
      bad_request(fmt::format("{}: names two layers, '{}' (#{}) by its name and '{}' (#{}) by its id",
                              detail::spell(request.spelling, detail::option::assume_constant, {}, name),
                              io::detail::escaped(by_name->name), by_name->id, io::detail::escaped(by_id->name), by_id->id),
                  fmt::format("give #{} for the first, '{}' for the second", by_name->id, io::detail::escaped(by_id->name)));
    const bool found = std::any_of(g.layers().begin(), g.layers().end(), [&](const layer& l) {
      return (part_of(l.type) == op_part::constant || detail::window_of(l).has_value()) && named(l);
    });
    if (found) continue;
    const auto option = detail::spell(request.spelling, detail::option::assume_constant, {}, name);
    // A layer of that name that is neither: say what it is, so that a user who picked the wrong layer sees it.
    const auto other = std::find_if(g.layers().begin(), g.layers().end(), named);
    if (other != g.layers().end())
      bad_request(fmt::format("{}: '{}' (#{}) is a {} layer, which holds no constant or pooling window", option,
                              io::detail::escaped(other->name), other->id, io::detail::escaped(other->op_type())),
                  std::string(hint));
    bad_request(fmt::format("{}: the model has no constant or pooling window named '{}'", option, io::detail::escaped(name)),
                std::string(hint));
  }
}

}  // namespace batch_analysis

using namespace batch_analysis;  // NOLINT(google-build-using-namespace)
using detail::trim;
using reshape1::detail::fail;

dimension parse_batch(std::string_view text, std::string_view where) {
  constexpr std::string_view hint = "give a number such as 8, or ? (or -1) for a dynamic batch";
  if (text.empty()) fail(errc::syntax, {}, fmt::format("{}: an empty batch", where), std::string(hint));
  partial_shape s;
  try {
    s = parse_shape(fmt::format("[{}]", text));
  } catch (const error&) {
  }
  if (!s.rank_known() || s.size() != 1)
    fail(errc::syntax, {}, fmt::format("{}: not a batch", where), std::string(hint));
  return dimension(s[0].range());
}

std::optional<std::size_t> batch_index_of(std::string_view layout, std::optional<std::size_t> rank) {
  const auto text = trim(layout);
  // As written, control characters escaped: a NUL would end the message where it is read as a C string.
  const auto shown = io::detail::escaped(text);
  if (text.empty()) bad_request("an empty layout", "write one letter per dimension, e.g. NCHW, or [N,C,H,W]");
  std::vector<std::string> names;
  if (text.front() == '[') {
    if (text.back() != ']') bad_request(fmt::format("layout '{}' has no closing ]", shown), "write e.g. [N,C,H,W]");
    auto inner = text.substr(1, text.size() - 2);
    while (!trim(inner).empty()) {
      const auto comma = inner.find(',');
      const auto part = trim(inner.substr(0, comma));
      if (part.empty()) bad_request(fmt::format("layout '{}' has an empty dimension name", shown), "write e.g. [N,C,H,W]");
      names.emplace_back(part);
      if (comma == std::string_view::npos) break;
      inner.remove_prefix(comma + 1);
      if (trim(inner).empty()) bad_request(fmt::format("layout '{}' ends with a comma", shown), "write e.g. [N,C,H,W]");
    }
  } else {
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text.substr(i).starts_with("...")) {
        names.emplace_back("...");
        i += 2;
      } else if (std::isalpha(static_cast<unsigned char>(text[i])) != 0 || text[i] == '?') {
        names.emplace_back(1, text[i]);
      } else {
        bad_request(fmt::format("layout '{}': '{}' is not a dimension name", shown, io::detail::escaped(text.substr(i, 1))),
                    "write one letter per dimension, e.g. NCHW, or names in brackets, e.g. [N,C,H,W]");
      }
    }
  }
  std::optional<std::size_t> ellipsis, n;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto& x = names[i];
    if (x == "...") {
      if (ellipsis) bad_request(fmt::format("layout '{}' has two ellipses", shown), "write ... at most once");
      ellipsis = i;
      continue;
    }
    if (x == "?") continue;
    if (!seen.insert(lower(x)).second)
      bad_request(fmt::format("layout '{}' names dimension {} twice", shown, io::detail::escaped(x)), "give each dimension one name");
    if (lower(x) == "n") n = i;
  }
  const std::size_t named = names.size() - (ellipsis ? 1 : 0);
  if (rank) {
    if (!ellipsis && named != *rank)
      bad_request(fmt::format("layout '{}' has {} dimensions, the shape has {}", shown, named, *rank),
                  "give one name per dimension");
    if (ellipsis && named > *rank)
      bad_request(fmt::format("layout '{}' names {} dimensions, the shape has only {}", shown, named, *rank),
                  "give at most one name per dimension");
  }
  if (!n) return std::nullopt;
  if (!ellipsis || *n < *ellipsis) return *n;
  if (!rank) return std::nullopt;  // counted from the end of a shape of unknown rank
  return *rank - (names.size() - *n);
}

std::vector<input_shape> detail::requested_shapes(const graph& g,
                                                  std::span<const std::pair<std::string, partial_shape>> shapes,
                                                  option_spelling spelling) {
  reshape_request request;
  request.shapes.assign(shapes.begin(), shapes.end());
  request.spelling = spelling;
  return shapes_at(choose_inputs(g, request), std::nullopt);
}

}  // namespace reshape1::model
