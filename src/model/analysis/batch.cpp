// `check --batch`: propagate at the requested shapes, and with the batch at three sample values to see
// which dimensions carry it (a dimension is N·k when it is k times the sample at every sample), then
// report the layers that fail, the Reshapes that fold or replace the batch where it matters, and the
// post-processing outputs that grow with it.
#include "reshape1/model/batch.hpp"

#include <algorithm>
#include <charconv>
#include <array>
#include <cctype>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "detail/fail.hpp"
#include "io/files.hpp"
#include "model/analysis/batch_internal.hpp"
#include "model/analysis/batch_scope.hpp"
#include "model/options.hpp"
#include "model/ops/rules.hpp"
#include "model/propagate/in_place.hpp"
#include "model/propagate/engine.hpp"
#include "model/text/batch.hpp"

namespace reshape1::model {
namespace {

// The names the stages share (batch_scope.hpp).
using namespace batch_analysis;  // NOLINT(google-build-using-namespace)

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



// ---- inputs --------------------------------------------------------------------------------------

}  // namespace

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

namespace {

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
        if (in.id == id) return in;
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

std::vector<input_report> choose_inputs(const graph& g, const reshape_request& request,
                                        std::span<const input_shape> declared = {}) {
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

bool any_name_starts_with(const graph& g, std::string_view prefix) {
  return std::any_of(g.layers().begin(), g.layers().end(), [&](const layer& l) {
    return l.name.starts_with(prefix) || (l.body != nullptr && any_name_starts_with(l.body->network, prefix));
  });
}

/// What the sample runs name the dimensions they leave unknown after (propagate_graph): a name no layer's
/// starts with, so that none is a Parameter's `NAME.k` or another's; "" (no names) for a model whose names
/// would not allow one.
std::string sample_names(const graph& g) {
  const std::string prefix = "\x01";
  return any_name_starts_with(g, prefix) ? std::string() : prefix;
}

void body_layer_names(const graph& g, std::unordered_set<std::string_view>& names) {
  for (const auto& l : g.layers()) {
    if (l.body == nullptr) continue;
    for (const auto& b : l.body->network.layers()) names.insert(b.name);
    body_layer_names(l.body->network, names);
  }
}

/// The sizes apart from the batch (batch_free_sizes): the symbols the sample runs give the inputs' other
/// dynamic dimensions, one the same at each. A Parameter names a dynamic dimension `NAME.k`: a body's
/// Parameter with an input's name could give another dimension that input's names, which are then left out.
detail::batch_free_sizes free_sizes(const graph& g, const std::vector<input_report>& inputs, const runs& r) {
  detail::batch_free_sizes sizes;
  std::unordered_set<std::string_view> in_bodies;
  body_layer_names(g, in_bodies);
  for (const auto& in : inputs) {
    std::array<const partial_shape*, samples.size()> at{};
    for (std::size_t k = 0; k < samples.size(); ++k) at[k] = &r.at_samples[k]->outputs[in.layer][0].shape;
    if (!at[0]->rank_known()) continue;
    for (std::size_t d = 0; d < at[0]->size(); ++d) {
      const auto s = (*at[0])[d].symbol();
      if (in.batch_index == d || !s || (*at[0])[d].is_static()) continue;
      const auto name = s.name();
      const auto dot = name.rfind('.');
      if (dot != std::string_view::npos && in_bodies.contains(name.substr(0, dot))) continue;
      if (std::all_of(at.begin(), at.end(), [&](const partial_shape* x) {
            return x->rank_known() && d < x->size() && (*x)[d].symbol() == s && !(*x)[d].is_static();
          }))
        sizes.insert(s);
    }
  }
  return sizes;
}

// ---- carriers --------------------------------------------------------------------------------------

batch_carrier carrier_of(const std::array<const partial_shape*, samples.size()>& at, const detail::batch_free_sizes* sizes) {
  batch_carrier c;
  const auto& first = *at[0];
  if (!first.rank_known()) return c;
  for (const auto* s : at)
    if (!s->rank_known() || s->size() != first.size()) return c;
  bool all_known = true;
  std::size_t carrying = 0;
  for (std::size_t d = 0; d < first.size(); ++d) {
    std::int64_t factor = 0;
    bool carries = true, known = true;
    for (std::size_t k = 0; k < samples.size(); ++k) {
      const auto& dim = (*at[k])[d];
      if (!dim.is_static()) {
        // A size apart from the batch is known not to carry it; any other dimension may.
        known = detail::known_at_samples(at, d, sizes);
        carries = false;
        break;
      }
      const auto v = dim.lo();
      if (v == 0 || v % samples[k] != 0 || (k > 0 && v / samples[k] != factor)) carries = false;
      factor = samples[k] == 0 ? 0 : v / samples[k];
    }
    all_known = all_known && known;
    if (carries) {
      ++carrying;
      c.axis = d;
      c.factor = factor;
    }
  }
  if (carrying == 1) {
    c.state = batch_carrier::kind::one;
  } else if (carrying > 1) {
    c.state = batch_carrier::kind::several;
    c.axis = 0;
    c.factor = 0;
  } else {
    c.state = all_known ? batch_carrier::kind::none : batch_carrier::kind::unknown;
    c.axis = 0;
    c.factor = 0;
  }
  return c;
}

// ---- the analysis ---------------------------------------------------------------------------------------

}  // namespace

namespace batch_analysis {

/// The model's findings, in the order of the layers, each body's right after its TensorIterator or Loop.
std::vector<batch_finding> scope::run(const std::string& target_at, std::optional<std::int64_t> example_at,
                                      std::size_t& failing_at_declared) {
  for (const auto& x : declared_.lost) {
    if (x.not_covered) continue;
    ++failing_at_declared;
    auto f = finding(batch_issue::fails_at_declared, layers_[x.layer]);
    f.code = name(x.code);
    set_message(f, x);
    if (f.hint.empty()) f.hint = detail::plain_check(spelling());
    found_.push_back(std::move(f));
  }
  find_replaced();
  find_failures(target_, target_at);
  if (runs_.example != nullptr && example_at) find_failures(*runs_.example, std::to_string(*example_at));
  if (!carriers_.empty()) {
    find_replaced_swallows();
    follow_states(nullptr);
    check_outputs();
    drop_harmless_replaced();
    replaced_in_bodies();
  }
  explain_failures();
  return findings();
}

void scope::compute_carriers() {
  carriers_.resize(layers_.size());
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    carriers_[i].resize(layers_[i].outputs.size());
    for (std::size_t o = 0; o < layers_[i].outputs.size(); ++o) {
      std::array<const partial_shape*, samples.size()> at{};
      for (std::size_t k = 0; k < samples.size(); ++k) at[k] = &runs_.at_samples[k]->outputs[i][o].shape;
      carriers_[i][o] = carrier_of(at, runs_.sizes);
    }
  }
}

}  // namespace batch_analysis

namespace {


/// A batch index taken as dimension 0 for want of a layout is likely wrong when that dimension holds
/// another size than the other inputs' batches (license-plate-recognition-barrier-0001's `seq_ind [88,1]`
/// beside `data [1,3,24,94]`): every finding such an input reaches says so, and how to set it.
void hint_guessed_batches(const graph& g, batch_report& report, option_spelling spelling) {
  std::map<std::int64_t, std::size_t> sizes;  // the inputs' declared batch sizes, and how many have each
  for (const auto& in : report.inputs)
    if (in.batch_index && in.declared.rank_known() && in.declared[*in.batch_index].is_static())
      ++sizes[in.declared[*in.batch_index].lo()];
  if (sizes.size() < 2) return;
  const auto common = std::max_element(sizes.begin(), sizes.end(), [](const auto& a, const auto& b) {
                        return a.second < b.second;
                      })->first;
  const auto layers = g.layers();
  for (const auto& in : report.inputs) {
    if (in.source != batch_source::first_dimension || !in.declared.rank_known() ||
        in.declared[*in.batch_index].lo() == common)
      continue;
    // Where the batch may be instead: the one dimension that holds the other inputs' batch size.
    std::optional<std::size_t> elsewhere;
    for (std::size_t k = 0; k < in.declared.size(); ++k)
      if (in.declared[k].is_static() && in.declared[k].lo() == common) elsewhere = elsewhere ? std::nullopt : std::optional(k);
    const auto hint = text::guessed_batch_hint(spelling, in, common, elsewhere);
    std::vector<char> reached(layers.size(), 0);
    reached[in.layer] = 1;
    for (const auto i : g.order())
      for (const auto& src : layers[i].sources)
        if (src && reached[src->layer]) reached[i] = 1;
    for (auto& f : report.findings)
      if (f.within.empty() && f.layer < reached.size() && reached[f.layer] &&
          f.issue != batch_issue::scales_with_batch)
        f.hint = f.hint.empty() ? hint : text::joined(hint, f.hint);
  }
}

/// A batch to try besides the target when the requested batch is dynamic, where a hard-coded batch fails:
/// 2 (3 when the model is declared at 2), within the requested interval; nullopt when none fits.
std::optional<std::int64_t> example_batch(const std::vector<input_report>& inputs) {
  for (const auto& in : inputs) {
    if (!in.batch_index || !in.requested.rank_known()) continue;
    const auto& d = in.requested[*in.batch_index];
    if (d.is_static()) continue;
    const auto declared_batch = in.declared.rank_known() && *in.batch_index < in.declared.size() &&
                                        in.declared[*in.batch_index].is_static()
                                    ? std::optional(in.declared[*in.batch_index].lo())
                                    : std::nullopt;
    std::int64_t w = std::max<std::int64_t>(d.lo(), 2);
    if (declared_batch && w == *declared_batch) ++w;
    if (!d.range().contains(w)) w = std::max<std::int64_t>(d.lo(), 1);
    if (!d.range().contains(w) || (declared_batch && w == *declared_batch)) continue;
    return w;
  }
  return std::nullopt;
}

/// The notes about the inputs: a shape of another rank (allowed, as OpenVINO takes it, but rarely meant:
/// the layers after the input were built for its rank), and an ONNX input whose static batch ONNX
/// Runtime will not let change.
void input_notes(const graph& g, batch_report& report, option_spelling spelling) {
  for (const auto& in : report.inputs)
    if (in.requested.rank_known() && in.declared.rank_known() && in.requested.size() != in.declared.size())
      report.notes.push_back(text::other_rank_note(spelling, in));
  if (g.format() != model_format::onnx) return;
  for (const auto& in : report.inputs) {
    if (!in.batch_index || !in.declared.rank_known() || *in.batch_index >= in.declared.size()) continue;
    const auto& was = in.declared[*in.batch_index];
    const auto& now = in.requested[*in.batch_index];
    if (!was.is_static() || (now.is_static() && now.lo() == was.lo())) continue;
    report.notes.push_back(text::onnx_static_batch_note(in, *in.batch_index, was.lo()));
  }
}

/// Each model output at the declared and the target shapes, and how it holds the batch.
void output_reports(const graph& g, const propagation& declared, const propagation& target, batch_report& report) {
  for (const auto index : g.order()) {
    const auto& l = g.layers()[index];
    if (part_of(l.type) != op_part::result || l.sources.empty() || !l.sources[0]) continue;
    output_report out;
    out.layer = index;
    out.id = l.id;
    out.name = l.name;
    out.declared = detail::with_given_symbols(declared.input(g, l, 0).shape);
    out.reshaped = target.input(g, l, 0).shape;
    const auto& src = *l.sources[0];
    if (src.layer < report.carriers.size() && src.output < report.carriers[src.layer].size())
      out.batch = report.carriers[src.layer][src.output];
    report.outputs.push_back(std::move(out));
  }
}

void count_findings(batch_report& report) {
  for (const auto& f : report.findings) {
    switch (f.issue) {
      case batch_issue::fails: ++report.summary.fails; break;
      case batch_issue::swallows_batch: ++report.summary.swallows_batch; break;
      case batch_issue::scales_with_batch: ++report.summary.scales_with_batch; break;
      case batch_issue::mixes_samples: ++report.summary.mixes_samples; break;
      case batch_issue::drops_samples: ++report.summary.drops_samples; break;
      case batch_issue::loses_batch: ++report.summary.loses_batch; break;
      case batch_issue::cannot_tell: ++report.summary.cannot_tell; break;
      case batch_issue::fails_at_declared: break;  // counted as failing_at_declared
    }
  }
}

/// Run k of `runs` at `given`: made afresh, or, with `undo` (runs are those of a graph g is an edit of, at the
/// same shapes), made g's in place.
const propagation& run_at(const graph& g, detail::batch_runs& runs, std::size_t k, std::span<const input_shape> given,
                          std::span<const char> redo, detail::batch_undo* undo, std::string_view names) {
  auto& slot = runs.runs[k];
  if (undo != nullptr && slot) {
    detail::propagate_in_place(g, given, *slot, redo, undo->logs[k], names);
    undo->in_place[k] = true;
  } else {
    if (undo != nullptr && !undo->replaced[k]) {
      undo->before[k] = std::move(slot);
      undo->replaced[k] = true;
    }
    slot = detail::propagate_naming(g, given, names);
  }
  return *slot;
}

/// Records the shapes the runs in `keep` are made at. With `undo` (the runs are an edited graph's), the runs
/// are reused only at the shapes they were made at (an edit leaves the Parameters alone): any other are
/// set aside in `undo`, to be made afresh.
void keep_request(detail::batch_runs& keep, detail::batch_undo* undo, const std::vector<input_shape>& requested,
                  std::optional<std::int64_t> example) {
  if (undo == nullptr) {
    keep.requested = requested;
    keep.example_batch = example;
    return;
  }
  const bool same = keep.requested.size() == requested.size() && keep.example_batch == example &&
                    std::equal(requested.begin(), requested.end(), keep.requested.begin(),
                               [](const input_shape& a, const input_shape& b) { return a.layer == b.layer && a.shape == b.shape; });
  undo->analysed = true;
  undo->requested = std::exchange(keep.requested, requested);
  undo->example_batch = std::exchange(keep.example_batch, example);
  if (same) return;
  for (std::size_t k = 1; k < keep.runs.size(); ++k) {
    undo->before[k] = std::exchange(keep.runs[k], std::nullopt);
    undo->replaced[k] = true;
  }
}

/// Which runs stand for batch 1 (each sample alone) and cover every batch asked, from the batches the
/// inputs declare and are asked at.
void reference_runs(const std::vector<input_report>& inputs, const propagation& declared, const propagation& target,
                    runs& r) {
  const auto batches = [&](auto shape_of) {
    std::vector<interval> b;
    for (const auto& in : inputs)
      if (in.batch_index) {
        const partial_shape& s = shape_of(in);
        b.push_back(s.rank_known() && *in.batch_index < s.size() ? s[*in.batch_index].range() : interval{});
      }
    return b;
  };
  const auto declared_at = batches([](const input_report& in) -> const partial_shape& { return in.declared; });
  const auto asked = batches([](const input_report& in) -> const partial_shape& { return in.requested; });
  const auto all = [](const std::vector<interval>& b, auto pred) { return std::all_of(b.begin(), b.end(), pred); };
  // The declared run stands for a batch asked about only where the declared shapes are the requested ones
  // but for the batch (a --shape may change other dimensions too).
  const bool declared_alike = std::all_of(inputs.begin(), inputs.end(), [](const input_report& in) {
    if (!in.declared.rank_known() || !in.requested.rank_known() || in.declared.size() != in.requested.size())
      return false;
    for (std::size_t d = 0; d < in.declared.size(); ++d)
      if ((!in.batch_index || d != *in.batch_index) && !(without_symbols(partial_shape{in.declared[d]}) ==
                                                         without_symbols(partial_shape{in.requested[d]})))
        return false;
    return true;
  });
  if (declared_alike && all(declared_at, [](const interval& i) { return i.lo() == 1 && i.hi() == 1; }))
    r.at_one = &declared;
  else if (all(asked, [](const interval& i) { return i.lo() == 1 && i.hi() == 1; })) r.at_one = &target;
  r.asked_static = all(asked, [](const interval& i) { return i.lo() == i.hi(); });
  r.asked_holds_samples = all(asked, [](const interval& i) {
    return std::all_of(samples.begin(), samples.end(), [&](std::int64_t n) { return i.contains(n); });
  });
  if (all(asked, [](const interval& i) { return i.lo() != i.hi() && i.contains(1); })) r.covering = &target;
  bool declared_covers = true;
  for (std::size_t k = 0; k < asked.size(); ++k)
    declared_covers = declared_covers && declared_at[k].lo() != declared_at[k].hi() && declared_at[k].contains(1) &&
                      declared_at[k].lo() <= asked[k].lo() && asked[k].hi() <= declared_at[k].hi();
  if (declared_alike && declared_covers && r.covering == nullptr) r.covering = &declared;
}

/// Whether a size other than the batch changes: an input's rank, or a dimension but its batch, is another
/// in the request than declared.
bool sizes_change(const std::vector<input_report>& inputs) {
  const auto names = named_batch(inputs);
  return std::any_of(inputs.begin(), inputs.end(), [&](const input_report& in) {
    if (!in.declared.rank_known() || !in.requested.rank_known()) return in.declared.rank_known() != in.requested.rank_known();
    if (in.declared.size() != in.requested.size()) return true;
    const auto at = batch_positions(in, names);
    for (std::size_t d = 0; d < in.declared.size(); ++d)
      if (!at[d] && in.declared[d].range() != in.requested[d].range()) return true;
    return false;
  });
}

/// The request's --assume-constant names, each a constant of the model (by name or #ID).
void check_assumed_constants(const graph& g, const reshape_request& request) {
  for (const auto& name : request.assume_constant) {
    const bool found = std::any_of(g.layers().begin(), g.layers().end(), [&](const layer& l) {
      return part_of(l.type) == op_part::constant && (l.name == name || fmt::format("#{}", l.id) == name);
    });
    if (!found)
      bad_request(fmt::format("{}: the model has no constant named '{}'", detail::spell(request.spelling, detail::option::assume_constant, {}, name),
                              io::detail::escaped(name)),
                  "give an ONNX initializer's or Constant node's output name, an IR Const's name, or #ID");
  }
}

/// The constants that may stand for a size that changes, each a finding after the layer's others, in the
/// order of the layers (a layer that already has a finding keeps only that: it fails, or its batch does).
void add_size_findings(const graph& g, const propagation& declared, const propagation& target,
                       const reshape_request& request, batch_report& report) {
  std::vector<std::size_t> position(g.layers().size(), 0);
  for (std::size_t k = 0; k < g.order().size(); ++k) position[g.order()[k]] = k;
  std::unordered_map<std::int64_t, std::size_t> by_id;
  for (std::size_t i = 0; i < g.layers().size(); ++i) by_id.emplace(g.layers()[i].id, i);
  const auto key = [&](const batch_finding& f) {
    if (f.within.empty()) return position[f.layer];
    const auto it = by_id.find(f.within.front().id);
    return it == by_id.end() ? std::size_t{0} : position[it->second];
  };
  std::unordered_set<std::size_t> decided;
  for (const auto& f : report.findings)
    if (f.within.empty() && f.issue != batch_issue::scales_with_batch) decided.insert(f.layer);
  for (auto& f : detail::baked_sizes(g, declared, target, report.carriers, request.assume_constant, request.spelling))
    if (!decided.contains(f.layer)) report.findings.push_back(std::move(f));
  std::stable_sort(report.findings.begin(), report.findings.end(),
                   [&](const batch_finding& a, const batch_finding& b) { return key(a) < key(b); });
}

/// Sizes asked as intervals or symbols (not the batch's) in the request's --shape, tried at members
/// (detail::try_members) unless a layer already fails. A dimension the model declares `?` and the request
/// asks as `?` is asked too: "every length" is the question.
void try_sizes_asked(const graph& g, const propagation& declared, const reshape_request& request, batch_report& report) {
  if (std::any_of(report.findings.begin(), report.findings.end(), [](const batch_finding& f) { return f.issue == batch_issue::fails; }))
    return;
  const auto names = named_batch(report.inputs);
  const auto given = [&](const input_report& in) {
    return std::any_of(request.shapes.begin(), request.shapes.end(), [&](const auto& s) {
      return s.first == in.name || (s.first.empty() && report.inputs.size() == 1);
    });
  };
  std::vector<std::vector<bool>> ranged;
  bool any = false;
  for (const auto& in : report.inputs) {
    auto& r = ranged.emplace_back();
    if (!given(in) || !in.requested.rank_known()) continue;
    const auto at = batch_positions(in, names);
    r.assign(in.requested.size(), false);
    for (std::size_t d = 0; d < r.size(); ++d) {
      r[d] = !at[d] && !in.requested[d].is_static();
      any = any || r[d];
    }
  }
  if (any) detail::try_members(g, declared, report.inputs, ranged, request.assume_constant, request.spelling,
                               report.findings);
}

/// The model: its inputs, the propagations at the declared shapes, the new ones, an example batch (for a
/// dynamic one) and the samples (kept in `keep`; made in place with `undo`), then the scopes.
batch_report analyse(const graph& g, const reshape_request& request, detail::batch_runs& keep,
                     std::span<const char> redo, detail::batch_undo* undo) {
  batch_report report;
  report.inputs = choose_inputs(g, request, keep.declared_inputs);
  check_assumed_constants(g, request);
  const auto& inputs = report.inputs;
  report.target = text::target(request.batch);
  const bool any_batch = std::any_of(inputs.begin(), inputs.end(), [](const auto& in) { return in.batch_index; });
  auto requested = shapes_at(inputs, std::nullopt);
  const auto example = example_batch(inputs);
  keep_request(keep, undo, requested, example);
  // The sample runs name every dimension they leave unknown (sample_names): the analysis follows which of
  // them do not change with N (batch_free_sizes). So does the run at batch 1 made for them (run 6), so that
  // a size read back from a shape ([N, T, -1] of [N, T, 6625]) is as known alone as at the samples.
  const auto names = sample_names(g);
  const auto named = [](std::size_t k) { return (k >= 3 && k < 3 + samples.size()) || k == 6; };
  const auto run = [&](std::size_t k, std::span<const input_shape> given) -> const propagation& {
    return run_at(g, keep, k, given, redo, undo, named(k) ? std::string_view(names) : std::string_view());
  };
  if (undo != nullptr ? !(undo->in_place[0] || undo->replaced[0]) : !keep.runs[0]) run(0, keep.declared_inputs);
  const auto& declared = *keep.runs[0];
  const auto& target = run(1, requested);
  // Whether there is anything to analyse: a new shape, a batch that is not one known value (a model
  // declared with a dynamic batch may still hard-code it), or a batch of several samples even where the model
  // is declared at it (each sample's result is compared with the sample alone, at batch 1, whatever the
  // declared batch: `n == 1` read as data is wrong at a declared batch of 2 too).
  const bool changed = std::any_of(inputs.begin(), inputs.end(), [](const auto& in) {
    return to_string(without_symbols(in.requested)) != to_string(without_symbols(in.declared)) ||
           (in.batch_index && (!in.requested[*in.batch_index].is_static() || in.requested[*in.batch_index].lo() != 1));
  });
  runs r{&declared, &target, example ? &run(2, shapes_at(inputs, example)) : nullptr, {}};
  // At batch 1 every sample is alone: nothing can mix, drop or swallow it, and only a layer that fails
  // there is a finding (a pattern that hard-codes 1 is right at 1, whatever the declared batch).
  const bool one_sample = std::all_of(inputs.begin(), inputs.end(), [](const input_report& in) {
    return !in.batch_index || (in.requested.rank_known() && *in.batch_index < in.requested.size() &&
                               in.requested[*in.batch_index].is_static() && in.requested[*in.batch_index].lo() == 1);
  });
  const bool analysed = any_batch && changed && !one_sample;
  if (analysed) {
    for (std::size_t k = 0; k < samples.size(); ++k) r.at_samples[k] = &run(3 + k, sample_shapes(inputs, samples[k]));
    reference_runs(inputs, declared, target, r);
  }
  const auto sizes = analysed ? free_sizes(g, inputs, r) : detail::batch_free_sizes{};
  r.sizes = &sizes;
  std::optional<scope> top;
  top.emplace(g, r, std::vector<enclosing_layer>{}, &report.inputs, &request);
  report.findings = top->run(text::failing_at(request.batch), example, report.summary.failing_at_declared);
  if (top->wants_one()) {
    // A value computed from the batch size that the samples agree on: compare it with batch 1, then analyse
    // again with that run.
    r.at_one = &run(6, sample_shapes(inputs, 1));
    report.summary.failing_at_declared = 0;
    top.emplace(g, r, std::vector<enclosing_layer>{}, &report.inputs, &request);
    report.findings = top->run(text::failing_at(request.batch), example, report.summary.failing_at_declared);
  } else if (keep.runs[6]) {
    // Not made for this graph: a later analysis in place must not take it for this graph's run.
    if (undo != nullptr && !undo->replaced[6]) {
      undo->before[6] = std::move(keep.runs[6]);
      undo->replaced[6] = true;
    }
    keep.runs[6].reset();
  }
  report.carriers = std::move(*top).carriers();
  if (sizes_change(inputs)) add_size_findings(g, declared, target, request, report);
  try_sizes_asked(g, declared, request, report);
  hint_guessed_batches(g, report, request.spelling);
  output_reports(g, declared, target, report);
  input_notes(g, report, request.spelling);
  count_findings(report);
  return report;
}

}  // namespace

namespace detail {
std::vector<char> downstream_of(const graph& g, const std::vector<char>& marked) {
  const auto layers = g.layers();
  std::vector<char> after(layers.size(), 0);
  for (const auto i : g.order())
    for (const auto& src : layers[i].sources)
      if (src && (after[src->layer] || marked[src->layer])) after[i] = 1;
  return after;
}

namespace {
/// Whether a rule reads the same of `a` as of `b`: the same attributes, sources and body. (A Const's
/// bytes are where its offset and size attributes say; the bytes appended for the rewrites kept so far
/// keep their places in every trial, so the same attributes mean the same bytes.)
bool same_layer(const layer& a, const layer& b) {
  const auto same_attributes =
      (a.attributes.data() == b.attributes.data() && a.attributes.size() == b.attributes.size()) ||
      std::equal(a.attributes.begin(), a.attributes.end(), b.attributes.begin(), b.attributes.end(),
                 [](const attribute& x, const attribute& y) { return x.name == y.name && x.text == y.text; });
  // Ports are never edited: a layer whose ports are other views is taken as changed.
  const auto same_ports = a.inputs.data() == b.inputs.data() && a.inputs.size() == b.inputs.size() &&
                          a.outputs.data() == b.outputs.data() && a.outputs.size() == b.outputs.size();
  // An edit inside a body gives the layer that holds it a new body.
  return same_attributes && same_ports && a.id == b.id && a.type == b.type && a.opset == b.opset && a.body == b.body &&
         std::equal(a.sources.begin(), a.sources.end(), b.sources.begin(), b.sources.end(),
                    [](const std::optional<source>& x, const std::optional<source>& y) {
                      return x.has_value() == y.has_value() && (!x || (x->layer == y->layer && x->output == y->output));
                    });
}

}  // namespace

std::vector<char> layers_to_redo(const graph& before, const graph& after) {
  const auto a = before.layers(), b = after.layers();
  std::vector<char> changed(b.size(), 0);
  for (std::size_t i = 0; i < b.size(); ++i) changed[i] = i >= a.size() || !same_layer(a[i], b[i]);
  auto redo = downstream_of(after, changed);
  for (std::size_t i = 0; i < b.size(); ++i)
    redo[i] = changed[i] ? redo_always : redo[i] ? redo_if_inputs_changed : char{0};
  return redo;
}

element_origin origin_of_element(const graph& g, const propagation& p, const layer& l, std::size_t port,
                                 std::size_t index) {
  element_origin o;
  const layer* at = &l;
  std::size_t in = port;
  for (int depth = 0; depth < 64; ++depth) {
    if (in >= at->sources.size() || !at->sources[in]) return o;
    const auto& src = g.layers()[at->sources[in]->layer];
    o.holder = &src;
    o.index = index;
    o.consumer = at;
    o.consumer_port = in;
    if (part_of(src.type) == op_part::constant) return o;
    if (part_of(src.type) == op_part::concat) {
      bool found = false;
      for (std::size_t j = 0; j < src.inputs.size() && !found; ++j) {
        const auto& s = p.input(g, src, j).shape;
        if (!s.rank_known() || s.size() != 1 || !s[0].is_static()) return o;
        const auto length = static_cast<std::uint64_t>(s[0].lo());
        if (index < length) {
          o.through = &src;
          o.path.push_back(&src);
          at = &src;
          in = j;
          found = true;
        } else {
          index -= length;
        }
      }
      if (!found) return o;
      continue;
    }
    if (part_of(src.type) == op_part::passes_values) {
      o.path.push_back(&src);
      at = &src;
      in = 0;
      continue;
    }
    return o;
  }
  return o;
}

}  // namespace detail

std::string_view name(batch_source s) noexcept {
  switch (s) {
    case batch_source::layout_option: return "layout_option";
    case batch_source::layout_in_model: return "layout_in_model";
    case batch_source::first_dimension: return "first_dimension";
    case batch_source::none: return "none";
  }
  return "none";
}

std::string_view name(batch_issue i) noexcept {
  switch (i) {
    case batch_issue::fails: return "fails";
    case batch_issue::swallows_batch: return "swallows_batch";
    case batch_issue::scales_with_batch: return "scales_with_batch";
    case batch_issue::mixes_samples: return "mixes_samples";
    case batch_issue::drops_samples: return "drops_samples";
    case batch_issue::loses_batch: return "loses_batch";
    case batch_issue::fails_at_declared: return "fails_at_declared";
    case batch_issue::cannot_tell: return "cannot_tell";
  }
  return "fails";
}

std::string_view name(batch_verdict v) noexcept {
  switch (v) {
    case batch_verdict::yes: return "yes";
    case batch_verdict::no: return "no";
    case batch_verdict::cannot_tell: return "cannot_tell";
  }
  return "cannot_tell";
}

std::optional<std::size_t> batch_index_of(std::string_view layout, std::optional<std::size_t> rank) {
  const auto text = trim(layout);
  if (text.empty()) bad_request("an empty layout", "write one letter per dimension, e.g. NCHW, or [N,C,H,W]");
  std::vector<std::string> names;
  if (text.front() == '[') {
    if (text.back() != ']') bad_request(fmt::format("layout '{}' has no closing ]", text), "write e.g. [N,C,H,W]");
    auto inner = text.substr(1, text.size() - 2);
    while (!trim(inner).empty()) {
      const auto comma = inner.find(',');
      const auto part = trim(inner.substr(0, comma));
      if (part.empty()) bad_request(fmt::format("layout '{}' has an empty dimension name", text), "write e.g. [N,C,H,W]");
      names.emplace_back(part);
      if (comma == std::string_view::npos) break;
      inner.remove_prefix(comma + 1);
      if (trim(inner).empty()) bad_request(fmt::format("layout '{}' ends with a comma", text), "write e.g. [N,C,H,W]");
    }
  } else {
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text.substr(i).starts_with("...")) {
        names.emplace_back("...");
        i += 2;
      } else if (std::isalpha(static_cast<unsigned char>(text[i])) != 0 || text[i] == '?') {
        names.emplace_back(1, text[i]);
      } else {
        bad_request(fmt::format("layout '{}': '{}' is not a dimension name", text, text[i]),
                    "write one letter per dimension, e.g. NCHW, or names in brackets, e.g. [N,C,H,W]");
      }
    }
  }
  std::optional<std::size_t> ellipsis, n;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto& x = names[i];
    if (x == "...") {
      if (ellipsis) bad_request(fmt::format("layout '{}' has two ellipses", text), "write ... at most once");
      ellipsis = i;
      continue;
    }
    if (x == "?") continue;
    if (!seen.insert(lower(x)).second)
      bad_request(fmt::format("layout '{}' names dimension {} twice", text, x), "give each dimension one name");
    if (lower(x) == "n") n = i;
  }
  const std::size_t named = names.size() - (ellipsis ? 1 : 0);
  if (rank) {
    if (!ellipsis && named != *rank)
      bad_request(fmt::format("layout '{}' has {} dimensions, the shape has {}", text, named, *rank),
                  "give one name per dimension");
    if (ellipsis && named > *rank)
      bad_request(fmt::format("layout '{}' names {} dimensions, the shape has only {}", text, named, *rank),
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

batch_report check_batch(const graph& g, const reshape_request& request) {
  detail::batch_runs runs;
  return detail::check_batch_keeping(g, request, runs);
}

batch_report detail::check_batch_keeping(const graph& g, const reshape_request& request, batch_runs& runs) {
  detail::check_request(request);
  for (std::size_t k = 1; k < runs.runs.size(); ++k) runs.runs[k].reset();
  return analyse(g, request, runs, {}, nullptr);
}

void detail::declared_in_place(const graph& g, batch_runs& runs, std::span<const char> redo, batch_undo& undo) {
  run_at(g, runs, 0, {}, redo, &undo, {});
}

batch_report detail::check_batch_in_place(const graph& g, const reshape_request& request, batch_runs& runs,
                                          std::span<const char> redo, batch_undo& undo) {
  detail::check_request(request);
  return analyse(g, request, runs, redo, &undo);
}

void detail::undo_runs(const graph& before, batch_runs& runs, batch_undo&& undo) {
  for (std::size_t k = 0; k < runs.runs.size(); ++k) {
    if (undo.in_place[k] && runs.runs[k]) undo_in_place(before, *runs.runs[k], std::move(undo.logs[k]));
    if (undo.replaced[k]) runs.runs[k] = std::move(undo.before[k]);
  }
  if (undo.analysed) {
    runs.requested = std::move(undo.requested);
    runs.example_batch = undo.example_batch;
  }
}

}  // namespace reshape1::model
