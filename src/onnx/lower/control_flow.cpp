// ONNX's nodes that hold graphs: If (its branches inlined), Loop and Scan (their bodies lowered into graphs
// of their own, which OpenVINO's Loop-5 and TensorIterator-1 run), and the lowering of such a body.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "../../detail/fail.hpp"
#include "families.hpp"

namespace reshape1::onnx::detail {
namespace {

/// A node that runs a graph (a Loop, a Scan, an If) with an output left out: ONNX Runtime fails on it, when it
/// creates the session or when it runs (its subgraph kernels look every output up; such a Loop, and an If of a
/// constant condition it had folded, crashed it), so it is refused.
void every_output_named(node_context& c) {
  for (std::size_t k = 0; k < c.outputs(); ++k)
    if (!c.has_output(k))
      c.bad(fmt::format("its output {} is left out (named \"\")", k),
            "ONNX Runtime fails on it when it loads the model: name every output of a node that runs a graph");
}

/// The count ONNX's type inference holds a control-flow node's outputs to: `gives`, what its graph gives (If:
/// each branch's outputs; Loop: the carried values and scan outputs; Scan: the states and scan outputs).
void outputs_as_given(node_context& c, std::size_t gives, std::string_view what) {
  if (c.outputs() != gives)
    c.bad(fmt::format("it has {} output{}, where {} give{} {}", c.outputs(), c.outputs() == 1 ? "" : "s", what,
                      what.ends_with('s') ? "" : "s", gives),
          "ONNX Runtime refuses the model too: give the node one output for each its graph gives");
}

/// The node's inputs [from, from + n) of the types the body's inputs [at, at + n) declare, where both are known:
/// ONNX Runtime refuses another when it loads the model (a Loop's carried values, a Scan's states and scan inputs).
void inputs_as_declared(node_context& c, const ::onnx::GraphProto& g, std::size_t from, std::size_t at, std::size_t n) {
  for (std::size_t k = 0; k < n; ++k) {
    const auto given = c.declared_type(from + k);
    const auto declared = declared_element(g.input(static_cast<int>(at + k)));
    if (given && declared && *given != *declared)
      c.bad(fmt::format("its input {} ('{}') is of type {}, where its body's input {} ('{}') is declared {}", from + k,
                        c.node().input(static_cast<int>(from + k)), name(*given), at + k, g.input(static_cast<int>(at + k)).name(),
                        name(*declared)),
            "ONNX Runtime refuses the model too: give the body's input the node's input's type");
  }
}

/// Each state the body carries (its inputs [at, at + n)) given back by its outputs [out, out + n) of the type it
/// was declared: ONNX Runtime refuses another when it loads a Loop and fails when it runs a Scan.
void states_keep_types(node_context& c, const ::onnx::GraphProto& g, const node_context::lowered_body& body, std::size_t at,
                       std::size_t out, std::size_t n, std::string_view when) {
  for (std::size_t k = 0; k < n; ++k) {
    const auto declared = declared_element(g.input(static_cast<int>(at + k)));
    const auto given = out + k < body.result_types.size() ? body.result_types[out + k] : std::nullopt;
    if (given && declared && *given != *declared)
      c.bad(fmt::format("its body's output {} ('{}') is of type {}, where the state it carries ('{}') is {}", out + k,
                        g.output(static_cast<int>(out + k)).name(), name(*given), g.input(static_cast<int>(at + k)).name(),
                        name(*declared)),
            fmt::format("ONNX Runtime refuses it {}: a state keeps its type from one iteration to the next", when));
  }
}

/// An If's branches, held to the counts ONNX Runtime checks when it loads the model.
std::pair<const ::onnx::GraphProto*, const ::onnx::GraphProto*> if_branches(node_context& c) {
  const auto* then_branch = c.attribute("then_branch");
  const auto* else_branch = c.attribute("else_branch");
  if (then_branch == nullptr || else_branch == nullptr || !then_branch->has_g() || !else_branch->has_g())
    c.bad("If needs the graph attributes then_branch and else_branch");
  outputs_as_given(c, static_cast<std::size_t>(then_branch->g().output_size()), "its then_branch");
  outputs_as_given(c, static_cast<std::size_t>(else_branch->g().output_size()), "its else_branch");
  every_output_named(c);
  return {&then_branch->g(), &else_branch->g()};
}

/// What a branch gives as one output: a tensor, a sequence or an optional, and its element type where known.
struct given_kind {
  std::string_view kind = "a tensor";
  std::optional<element_type> type;
};
given_kind given_by(const known_value& v) {
  if (v.held == nullptr) return {"a tensor", v.type};
  return {v.held->optional ? "an optional" : "a sequence", v.held->type};
}
/// What a graph output declares (nothing known where it declares no type).
std::optional<given_kind> declared_kind(const ::onnx::ValueInfoProto& v) {
  const auto& t = v.type();
  if (t.has_tensor_type()) return given_kind{"a tensor", element_of(t.tensor_type().elem_type())};
  if (t.has_sequence_type())
    return given_kind{"a sequence", t.sequence_type().elem_type().has_tensor_type()
                                        ? element_of(t.sequence_type().elem_type().tensor_type().elem_type())
                                        : std::nullopt};
  if (t.has_optional_type()) return given_kind{"an optional", std::nullopt};
  return std::nullopt;
}

/// An If's output k of one kind and element type in both branches, where both are known: ONNX Runtime refuses the
/// model when it loads it otherwise, whatever the condition.
void branches_of_one_type(node_context& c, std::size_t k, const std::optional<given_kind>& a, const std::optional<given_kind>& b) {
  if (!a || !b) return;
  constexpr auto hint = "ONNX Runtime refuses the model too, whatever the condition: give both branches' outputs one type";
  if (a->kind != b->kind) c.bad(fmt::format("its output {} is {} in then_branch and {} in else_branch", k, a->kind, b->kind), hint);
  if (a->type && b->type && *a->type != *b->type)
    c.bad(fmt::format("its output {} is of type {} in then_branch and {} in else_branch", k, name(*a->type), name(*b->type)), hint);
}

/// What a lowered branch gives as each output, held to the types it declares them (ONNX Runtime refuses another
/// when it loads the model): the declared type where the lowering knows none.
std::vector<std::optional<given_kind>> branch_gives(node_context& c, const ::onnx::GraphProto& g,
                                                    const std::vector<known_value>& out, std::string_view branch) {
  std::vector<std::optional<given_kind>> kinds;
  for (std::size_t k = 0; k < out.size(); ++k) {
    auto computed = given_by(out[k]);
    const auto declared = declared_kind(g.output(static_cast<int>(k)));
    if (declared && declared->type && computed.type && computed.kind == declared->kind && *declared->type != *computed.type)
      c.bad(fmt::format("its {} gives output {} ('{}') of type {}, which it declares {}", branch, k,
                        g.output(static_cast<int>(k)).name(), name(*computed.type), name(*declared->type)),
            "ONNX Runtime refuses the model too: declare the type the branch gives, or none");
    if (!computed.type && declared && declared->kind == computed.kind) computed.type = declared->type;
    kinds.emplace_back(computed);
  }
  return kinds;
}

// If: a constant condition takes its branch, inlined. Otherwise both branches are inlined (a branch that
// fails or breaks the batch does so for the inputs that take it) and each output is an IfMerge of the two,
// which holds the batch only when both branches hold it alike.
void if_(node_context& c) {
  const auto [then_branch, else_branch] = if_branches(c);
  // One condition: ONNX Runtime refuses a constant of other than one element when it folds the If. (A computed
  // one of more it refuses when it runs: not checked, which would add layers to every If.)
  if (const auto v = c.constant_ints(0); v && v->size() != 1)
    c.bad(fmt::format("its condition holds {} values", v->size()), "an If's condition is one boolean");
  if (const auto v = c.constant_ints(0); v && v->size() == 1) {
    // ONNX Runtime checks the branch not taken too when it loads the model (and folds the If only then).
    const bool taken = (*v)[0] != 0;
    c.check_not_run(taken ? *else_branch : *then_branch);
    // What the branch gives passes on as it is: a tensor, or a sequence or an optional the lowering follows.
    const auto& branch = taken ? *then_branch : *else_branch;
    const auto& other = taken ? *else_branch : *then_branch;
    const auto out = c.inline_subgraph(branch);
    const auto gives = branch_gives(c, branch, out, taken ? "then_branch" : "else_branch");
    for (std::size_t k = 0; k < out.size(); ++k) {
      // The branch not taken is not lowered: the types its outputs declare.
      const auto declared = declared_kind(other.output(static_cast<int>(k)));
      branches_of_one_type(c, k, taken ? gives[k] : declared, taken ? declared : gives[k]);
      c.output_value(k, out[k]);
    }
    return;
  }
  const auto cond = c.need(0);
  const auto a = c.inline_subgraph(*then_branch);
  const auto b = c.inline_subgraph(*else_branch);
  const auto a_gives = branch_gives(c, *then_branch, a, "then_branch");
  const auto b_gives = branch_gives(c, *else_branch, b, "else_branch");
  for (std::size_t k = 0; k < c.outputs(); ++k) branches_of_one_type(c, k, a_gives[k], b_gives[k]);
  // A sequence or an optional either branch gives is not followed past a computed condition (which one holds is
  // the data's): not covered from there.
  const auto merged = [&](const known_value& v) {
    return c.opaque(v, "a sequence or an optional an If chooses by a condition the graph computes");
  };
  for (std::size_t k = 0; k < c.outputs(); ++k) c.output(k, c.add("IfMerge", 1, {cond, merged(a[k]), merged(b[k])}));
}

/// One entry of a Loop's or TensorIterator's port map: with `axis`, an input sliced (an output
/// concatenated) along it one element at a time, backwards when `reverse`.
model::port_mapping mapping(std::int64_t external, std::int64_t internal, std::optional<std::int64_t> axis = std::nullopt,
                            bool reverse = false, std::string purpose = {}) {
  model::port_mapping m;
  m.external_port = external;
  m.internal_layer = internal;
  m.axis = axis;
  if (reverse) {
    m.start = -1;
    m.end = 0;
    m.stride = -1;
  }
  m.purpose = std::move(purpose);
  return m;
}

/// A Loop's body, held to the counts ONNX Runtime checks when it loads the model: the body, and how many
/// carried values and scan outputs it has.
std::tuple<const ::onnx::GraphProto*, std::size_t, std::size_t> loop_body(node_context& c) {
  const auto* body = c.attribute("body");
  if (body == nullptr || !body->has_g()) c.bad("Loop needs the graph attribute body");
  const auto& g = body->g();
  const std::size_t carried = c.inputs() > 2 ? c.inputs() - 2 : 0;
  if (static_cast<std::size_t>(g.input_size()) != carried + 2)
    c.bad(fmt::format("its body has {} inputs", g.input_size()),
          fmt::format("with {} carried values it needs {} (iteration number, condition, the carried values)", carried,
                      carried + 2));
  if (static_cast<std::size_t>(g.output_size()) < carried + 1)
    c.bad(fmt::format("its body has {} outputs", g.output_size()),
          fmt::format("with {} carried values it needs at least {} (condition, the carried values, then scan outputs)",
                      carried, carried + 1));
  const std::size_t scans = static_cast<std::size_t>(g.output_size()) - 1 - carried;
  outputs_as_given(c, carried + scans, "its body's carried values and scan outputs");
  every_output_named(c);
  return {&g, carried, scans};
}

// Loop: OpenVINO's Loop-5, as its ONNX frontend builds it. The body becomes a graph of its own: the
// iteration number is the Loop's current_iteration, the condition and each carried value a Parameter fed
// by the node's input at the first iteration and by the body's output after it (a back edge), the body's
// condition output the Loop's execution_condition, each scan output unsqueezed at axis 0 and concatenated
// along it over the iterations. A tensor of the enclosing graph the body reads is one more input of the
// Loop, invariant across iterations. No trip count is -1 (no bound), no condition is true.
void loop(node_context& c) {
  const auto [body, carried, scans] = loop_body(c);
  const auto& g = *body;
  node_context::axes unsqueezed(static_cast<std::size_t>(g.output_size()));
  for (std::size_t k = 1 + carried; k < unsqueezed.size(); ++k) unsqueezed[k] = 0;
  inputs_as_declared(c, g, 2, 2, carried);
  // The iteration number is an int64 and the condition a boolean, in and out (ONNX Runtime refuses another when it
  // loads the model, or fails when it runs the body).
  for (const auto& [at, t, what] : {std::tuple{0, element_type::i64, "iteration number"}, std::tuple{1, element_type::boolean, "condition"}})
    if (const auto declared = declared_element(g.input(at)); declared && *declared != t)
      c.bad(fmt::format("its body's input {} ('{}'), the {}, is declared {}", at, g.input(at).name(), what, name(*declared)),
            fmt::format("ONNX Runtime refuses the model too: the {} is {}", what, name(t)));
  auto lowered = c.lower_body(g, {}, unsqueezed);
  states_keep_types(c, g, lowered, 2, 1, carried, "when it loads the model");
  if (const auto& t = lowered.result_types.front(); t && *t != element_type::boolean)
    c.bad(fmt::format("its body's condition output ('{}') is of type {}", g.output(0).name(), name(*t)),
          "ONNX Runtime fails when it runs the body: the condition it gives is a boolean");

  std::vector<source> in;
  in.push_back(c.input(0) ? *c.input(0) : c.i64({-1}, std::vector<std::int64_t>{}));
  in.push_back(c.input(1) ? *c.input(1) : c.boolean(true));
  for (std::size_t i = 0; i < carried; ++i) in.push_back(c.need(2 + i));
  for (const auto& [outside, param] : lowered.captured) in.push_back(outside);

  auto sub = std::make_shared<model::subgraph>();
  const auto& params = lowered.parameters;
  const auto& results = lowered.results;
  const auto port = [](std::size_t k) { return static_cast<std::int64_t>(k); };
  sub->inputs.push_back(mapping(-1, params[0], std::nullopt, false, "current_iteration"));
  sub->inputs.push_back(mapping(1, params[1]));
  sub->back_edges.push_back({results[0], params[1]});
  for (std::size_t i = 0; i < carried; ++i) {
    sub->inputs.push_back(mapping(port(2 + i), params[2 + i]));
    sub->back_edges.push_back({results[1 + i], params[2 + i]});
  }
  for (std::size_t j = 0; j < lowered.captured.size(); ++j)
    sub->inputs.push_back(mapping(port(2 + carried + j), lowered.captured[j].second));
  const auto n_in = in.size();
  sub->outputs.push_back(mapping(-1, results[0], std::nullopt, false, "execution_condition"));
  for (std::size_t i = 0; i < carried; ++i) sub->outputs.push_back(mapping(port(n_in + i), results[1 + i]));
  for (std::size_t k = 0; k < scans; ++k)
    sub->outputs.push_back(mapping(port(n_in + carried + k), results[1 + carried + k], 0));
  sub->network = std::move(lowered.network);
  const auto first = c.add_with_body("Loop", 5, std::move(in), std::move(sub), std::max<std::size_t>(carried + scans, 1),
                                     std::move(lowered.names));
  for (std::size_t k = 0; k < c.outputs(); ++k) c.output(k, source{first.layer, k});
}

/// A Scan's body, held to the counts ONNX Runtime checks when it loads the model: the body, and how many
/// scan inputs, state variables and scan outputs it has. From version 9 the node's inputs are the states and
/// the scan inputs; Scan-8's first is sequence_lens.
struct scan_counts {
  const ::onnx::GraphProto* body;
  std::size_t scanned, states, outputs;
};
scan_counts scan_body(node_context& c, bool eight) {
  const auto* body = c.attribute("body");
  if (body == nullptr || !body->has_g()) c.bad("Scan needs the graph attribute body");
  const auto& g = body->g();
  const auto m = c.i("num_scan_inputs");
  const std::size_t given = eight ? (c.inputs() > 0 ? c.inputs() - 1 : 0) : c.inputs();
  if (!m || *m < 1 || static_cast<std::size_t>(*m) > given)
    c.bad(eight ? fmt::format("num_scan_inputs must be between 1 and its {} inputs after sequence_lens", given)
                : fmt::format("num_scan_inputs must be between 1 and its {} inputs", given));
  const auto scanned = static_cast<std::size_t>(*m);
  const std::size_t states = given - scanned;
  if (static_cast<std::size_t>(g.input_size()) != given)
    c.bad(fmt::format("its body has {} inputs", g.input_size()),
          fmt::format("the node gives {} (state variables, then scan inputs)", given));
  if (static_cast<std::size_t>(g.output_size()) < states)
    c.bad(fmt::format("its body has {} outputs, fewer than its {} state variables", g.output_size(), states));
  const std::size_t outputs = static_cast<std::size_t>(g.output_size()) - states;
  outputs_as_given(c, states + outputs, "its body's state variables and scan outputs");
  every_output_named(c);
  return {&g, scanned, states, outputs};
}

// Scan (from 9): OpenVINO's TensorIterator-1, as its ONNX frontend builds it. The state variables are body
// Parameters fed by the node's inputs and then, by back edges, by the body's outputs; each scan input is
// sliced along its axis (backwards for direction 1), one element a step, the body seeing it without that
// axis (a Squeeze: OpenVINO's slice keeps it with size 1); each scan output is unsqueezed at its axis and
// concatenated along it. A tensor of the graph around the body that the body reads is an invariant input.
void scan(node_context& c) {
  const auto [body, scanned, states, outputs] = scan_body(c, false);
  const auto& g = *body;
  const auto list = [&](std::string_view name, std::size_t n) {
    auto v = c.ints(name).value_or(std::vector<std::int64_t>(n, 0));
    if (v.size() != n) c.bad(fmt::format("{} has {} entries for {} tensors", name, v.size(), n));
    return v;
  };
  const auto in_axes = list("scan_input_axes", scanned);
  const auto in_directions = list("scan_input_directions", scanned);
  const auto out_axes = list("scan_output_axes", outputs);
  const auto out_directions = list("scan_output_directions", outputs);
  node_context::axes squeezed(states + scanned), unsqueezed(states + outputs);
  for (std::size_t j = 0; j < scanned; ++j) squeezed[states + j] = in_axes[j];
  for (std::size_t k = 0; k < outputs; ++k) unsqueezed[states + k] = out_axes[k];
  inputs_as_declared(c, g, 0, 0, states + scanned);
  auto lowered = c.lower_body(g, squeezed, unsqueezed);
  states_keep_types(c, g, lowered, 0, 0, states, "when it runs the node");

  std::vector<source> in;
  for (std::size_t i = 0; i < states + scanned; ++i) in.push_back(c.need(i));
  for (const auto& [outside, param] : lowered.captured) in.push_back(outside);
  auto sub = std::make_shared<model::subgraph>();
  const auto& params = lowered.parameters;
  const auto& results = lowered.results;
  const auto port = [](std::size_t k) { return static_cast<std::int64_t>(k); };
  for (std::size_t i = 0; i < states; ++i) {
    sub->inputs.push_back(mapping(port(i), params[i]));
    sub->back_edges.push_back({results[i], params[i]});
  }
  for (std::size_t j = 0; j < scanned; ++j)
    sub->inputs.push_back(mapping(port(states + j), params[states + j], in_axes[j], in_directions[j] != 0));
  for (std::size_t j = 0; j < lowered.captured.size(); ++j)
    sub->inputs.push_back(mapping(port(states + scanned + j), lowered.captured[j].second));
  const auto n_in = in.size();
  for (std::size_t i = 0; i < states; ++i) sub->outputs.push_back(mapping(port(n_in + i), results[i]));
  for (std::size_t k = 0; k < outputs; ++k)
    sub->outputs.push_back(mapping(port(n_in + states + k), results[states + k], out_axes[k], out_directions[k] != 0));
  sub->network = std::move(lowered.network);
  const auto first =
      c.add_with_body("TensorIterator", 1, std::move(in), std::move(sub), std::max<std::size_t>(states + outputs, 1),
                      std::move(lowered.names));
  for (std::size_t k = 0; k < c.outputs(); ++k) c.output(k, source{first.layer, k});
}

// Scan-8: every state variable and scan input holds the batch first and scans along axis 1, and the body
// runs on one batch entry at a time (sequence_lens, the first input, giving each entry's length: values,
// which decide no shape). Lowered as a TensorIterator over the batch (axis 0), whose body is Scan-9's
// TensorIterator over the sequence on one entry: each entry apart, as ONNX defines it, and the final states
// and scan outputs each entry's, stacked along axis 0.
void scan8(node_context& c) {
  const auto [body, scanned, states, outputs] = scan_body(c, true);
  const auto& g = *body;
  const std::size_t given = states + scanned;  // after sequence_lens
  const auto directions = c.ints("directions").value_or(std::vector<std::int64_t>(scanned, 0));
  if (directions.size() != scanned) c.bad(fmt::format("directions has {} entries for {} scan inputs", directions.size(), scanned));
  // The inner TensorIterator: Scan-9's on one entry, each scan input's entry [S, ...] sliced along axis 0.
  node_context::axes squeezed(given), unsqueezed(states + outputs);
  for (std::size_t j = 0; j < scanned; ++j) squeezed[states + j] = 0;
  for (std::size_t k = 0; k < outputs; ++k) unsqueezed[states + k] = 0;
  inputs_as_declared(c, g, 1, 0, given);
  auto lowered = c.lower_body(g, squeezed, unsqueezed);
  states_keep_types(c, g, lowered, 0, 0, states, "when it runs the node");
  const auto port = [](std::size_t k) { return static_cast<std::int64_t>(k); };
  auto inner = std::make_shared<model::subgraph>();
  for (std::size_t i = 0; i < states; ++i) {
    inner->inputs.push_back(mapping(port(i), lowered.parameters[i]));
    inner->back_edges.push_back({lowered.results[i], lowered.parameters[i]});
  }
  for (std::size_t j = 0; j < scanned; ++j)
    inner->inputs.push_back(mapping(port(states + j), lowered.parameters[states + j], 0, directions[j] != 0));
  for (std::size_t j = 0; j < lowered.captured.size(); ++j)
    inner->inputs.push_back(mapping(port(given + j), lowered.captured[j].second));
  const auto n_in = given + lowered.captured.size();
  for (std::size_t i = 0; i < states; ++i) inner->outputs.push_back(mapping(port(n_in + i), lowered.results[i]));
  for (std::size_t k = 0; k < outputs; ++k)
    inner->outputs.push_back(mapping(port(n_in + states + k), lowered.results[states + k], 0));
  inner->network = std::move(lowered.network);
  // The outer one: each state and scan input sliced along the batch, the tensors the body reads whole.
  auto entry = c.per_entry_body(n_in, given, std::move(inner), states + outputs, std::move(lowered.names));
  std::vector<source> in;
  for (std::size_t i = 0; i < given; ++i) in.push_back(c.need(1 + i));
  for (const auto& [outside, param] : lowered.captured) in.push_back(outside);
  auto outer = std::make_shared<model::subgraph>();
  for (std::size_t i = 0; i < n_in; ++i)
    outer->inputs.push_back(i < given ? mapping(port(i), entry.parameters[i], 0) : mapping(port(i), entry.parameters[i]));
  for (std::size_t k = 0; k < states + outputs; ++k) outer->outputs.push_back(mapping(port(n_in + k), entry.results[k], 0));
  outer->network = std::move(entry.network);
  const auto first = c.add_with_body("TensorIterator", 1, std::move(in), std::move(outer),
                                     std::max<std::size_t>(states + outputs, 1), std::move(entry.names));
  for (std::size_t k = 0; k < c.outputs(); ++k) c.output(k, source{first.layer, k});
}

}  // namespace

void check_graphs(node_context& c) {
  const auto& op = c.node().op_type();
  const bool standard = c.node().domain().empty() || c.node().domain() == "ai.onnx";
  if (!standard) return;
  if (op == "If") {
    const auto [then_branch, else_branch] = if_branches(c);
    c.check_not_run(*then_branch);
    c.check_not_run(*else_branch);
  } else if (op == "Loop") {
    c.check_not_run(*std::get<0>(loop_body(c)));
  } else if (op == "Scan") {
    c.check_not_run(*scan_body(c, c.version() < 9).body);
  }
}

std::span<const onnx_entry> control_flow_rows() {
  static const std::vector<onnx_entry> rows = {
      {"If", 1, if_}, {"Loop", 1, loop}, {"Scan", 8, scan8}, {"Scan", 9, scan},
  };
  return rows;
}

// ---- a Loop's or Scan's body, lowered into a graph of its own ----------------------------------------

namespace {

using model::detail::graph_builder;

/// A Parameter of a body (a graph input of it, or a tensor of the graphs around it that it reads), of the
/// element type and dims `type` declares when given; its output and its id.
std::pair<source, std::int64_t> body_parameter(graph_builder& bb, graph_lowering& lb, const std::string& name,
                                               const ::onnx::TypeProto* type) {
  graph_builder::layer_spec l;
  l.id = lb.next_id++;
  l.name = name;
  l.type = "Parameter";
  l.opset = 1;
  auto& out = l.outputs.emplace_back();
  if (type != nullptr && type->has_tensor_type()) {
    if (const auto t = element_of(type->tensor_type().elem_type())) {
      out.type = t;
      l.attributes.emplace_back("element_type", std::string(reshape1::name(*t)));
    }
    if (const auto dims = declared_dims(*type)) {
      out.dims = *dims;
      out.declared = true;
      l.attributes.emplace_back("shape", dims_text(*dims));
    }
  }
  const auto id = l.id;
  return std::pair{source{bb.add(std::move(l)), 0}, id};
}

/// The axis a scanned tensor is squeezed or unsqueezed at, as the 1-D Const the op reads.
source axis_const(graph_lowering& lb, std::int64_t axis, const std::string& node) {
  const std::int64_t one = 1;
  return lb.constant_bytes(element_type::i64, std::span(&one, 1), std::as_bytes(std::span(&axis, 1)), node);
}

/// Binds each graph input of the body to a Parameter of its own (read through a Squeeze of the axis
/// `squeezed` gives it, when it does), and lists the Parameters in `parameters`.
void bind_body_inputs(graph_builder& bb, graph_lowering& lb, const ::onnx::GraphProto& g,
                      const node_context::axes& squeezed, const std::string& node, std::vector<std::int64_t>& parameters) {
  std::unordered_set<std::string_view> listed;
  for (int k = 0; k < g.input_size(); ++k) {
    const auto& in = g.input(k);
    // As the model's graph: ONNX names each value once, and ONNX Runtime refuses a body that does not.
    if (!listed.insert(in.name()).second)
      reshape1::detail::fail(errc::bad_file, {.file = lb.file()},
                             fmt::format("{}: node '{}': its body '{}' lists input '{}' twice", lb.file(), node, g.name(),
                                         in.name()),
                             "a tensor name is defined once in a graph; ONNX Runtime refuses the model");
    std::optional<std::int64_t> squeeze;
    if (static_cast<std::size_t>(k) < squeezed.size()) squeeze = squeezed[static_cast<std::size_t>(k)];
    // A sliced input's Parameter declares no shape: the slice keeps the axis the graph input leaves out.
    const auto [at, id] = body_parameter(bb, lb, in.name(), squeeze ? nullptr : &in.type());
    const auto dims = declared_dims(in.type());
    const auto rank = dims ? std::optional(dims->size()) : std::nullopt;
    // Its declared element type, which the body's nodes are held to as ONNX Runtime holds them.
    const auto type = declared_element(in);
    lb.bind(in.name(), {squeeze ? lb.add("Squeeze", 1, {at, axis_const(lb, *squeeze, node)}, {}, 1, node) : at, rank,
                        nullptr, type});
    parameters.push_back(id);
  }
}

/// A Result of a body named `name`, reading `at`; its id.
std::int64_t body_result(graph_builder& bb, graph_lowering& lb, std::string name, source at) {
  graph_builder::layer_spec l;
  l.id = lb.next_id++;
  l.name = std::move(name);
  l.type = "Result";
  l.opset = 1;
  l.inputs.emplace_back(at);
  const auto id = l.id;
  bb.add(std::move(l));
  return id;
}

/// A Result for each graph output of the body (after an Unsqueeze of the axis `unsqueezed` gives it, when
/// it does), listed in `results`.
void add_body_results(graph_builder& bb, graph_lowering& lb, const ::onnx::GraphProto& g,
                      const node_context::axes& unsqueezed, const std::string& node, node_context::lowered_body& r) {
  for (int k = 0; k < g.output_size(); ++k) {
    const auto& v = g.output(k);
    const auto* found = lb.find(v.name());
    if (found == nullptr)
      reshape1::detail::fail(errc::bad_file, {.file = lb.file()},
                             fmt::format("{}: node '{}': its body '{}' has an output '{}' that nothing computes",
                                         lb.file(), node, g.name(), v.name()),
                             {});
    // A sequence or an optional the body gives as its output is not followed through the Loop or Scan.
    auto at = lb.opaque_of(*found, "a sequence or an optional a body gives as its output", node);
    if (static_cast<std::size_t>(k) < unsqueezed.size() && unsqueezed[static_cast<std::size_t>(k)])
      at = lb.add("Unsqueeze", 1, {at, axis_const(lb, *unsqueezed[static_cast<std::size_t>(k)], node)}, {}, 1, node);
    r.results.push_back(body_result(bb, lb, v.name(), at));
    r.result_types.push_back(found->type);
  }
}

}  // namespace

node_context::lowered_body graph_lowering::lower_body(const ::onnx::GraphProto& g, const node_context::axes& squeezed,
                                                      const node_context::axes& unsqueezed, const std::string& node) {
  node_context::lowered_body r;
  graph_builder bb(model::model_format::onnx, 0, g.name(), file_);
  // The body's Consts are bytes of their own: the body is a graph of its own, built before the model is.
  auto bytes = std::make_shared<std::vector<std::byte>>();
  graph_lowering lb(file_, opset_, bb, *bytes);
  lb.external = external;
  lb.domain_versions = domain_versions;
  lb.mapped_nodes = mapped_nodes;
  for (const auto* list : {&g.value_info(), &g.output()})
    for (const auto& v : *list) {
      if (const auto dims = declared_dims(v.type())) lb.declared_ranks[v.name()] = dims->size();
      if (const auto t = declared_element(v)) lb.declared_types[v.name()] = *t;
    }
  bind_body_inputs(bb, lb, g, squeezed, node, r.parameters);
  // A name the body does not bind is looked up around it (this lowering, then the ones around it); the
  // body reads it through a Parameter of its own, which keeps the outer constant's values for the
  // translations that read them.
  lb.outer = [this, &bb, &lb, &r](const std::string& name) -> const known* {
    const auto* k = find(name);
    if (k == nullptr) return nullptr;
    const auto outside = *k;
    if (outside.held != nullptr) {
      // A sequence or an optional of the enclosing graph: its tensors are not the body's; what reads it is not covered.
      auto unfollowed = *outside.held;
      unfollowed.items.clear();
      unfollowed.followed = false;
      const std::int64_t zero = 0;
      const auto at = lb.constant_bytes(element_type::i64, {}, std::as_bytes(std::span(&zero, 1)), name);
      lb.bind(name, {at, std::nullopt, nullptr, std::nullopt, std::make_shared<const held_values>(std::move(unfollowed))});
      return lb.find(name);
    }
    const auto [at, id] = body_parameter(bb, lb, name, nullptr);
    r.captured.emplace_back(outside.at, id);
    lb.bind(name, {at, outside.rank, outside.constant, outside.type});
    return lb.find(name);
  };
  if (bodies != nullptr) lb.bodies = &r.names;  // its own bodies, after this one's entry below
  lb.lower_nodes(g, false);
  add_body_results(bb, lb, g, unsqueezed, node, r);
  bb.weights(bytes, std::span<const std::byte>(*bytes));
  r.network = bb.build();
  if (bodies != nullptr) {
    body_names own{&g, node, {}, {}, {}};
    lb.export_names(own.names);
    r.names.insert(r.names.begin(), std::move(own));
  }
  return r;
}

node_context::lowered_body graph_lowering::per_entry_body(std::size_t inputs, std::size_t sliced,
                                                          std::shared_ptr<const model::subgraph> inner,
                                                          std::size_t outputs, std::vector<body_names> names,
                                                          const std::string& node, const std::string& op) {
  node_context::lowered_body r;
  graph_builder bb(model::model_format::onnx, 0, node + " (each entry)", file_);
  auto bytes = std::make_shared<std::vector<std::byte>>();
  graph_lowering lb(file_, opset_, bb, *bytes);
  std::vector<source> in;
  for (std::size_t k = 0; k < inputs; ++k) {
    const auto [at, id] = body_parameter(bb, lb, fmt::format("{}/entry_input_{}", node, k), nullptr);
    in.push_back(k < sliced ? lb.add("Squeeze", 1, {at, axis_const(lb, 0, node)}, {}, 1, node) : at);
    r.parameters.push_back(id);
  }
  const auto runs = lb.add("TensorIterator", 1, std::move(in), {}, std::max<std::size_t>(outputs, 1), node);
  bb.at(runs.layer).body = std::move(inner);
  for (std::size_t k = 0; k < outputs; ++k) {
    const auto at = lb.add("Unsqueeze", 1, {source{runs.layer, k}, axis_const(lb, 0, node)}, {}, 1, node);
    r.results.push_back(body_result(bb, lb, fmt::format("{}/entry_output_{}", node, k), at));
  }
  bb.weights(bytes, std::span<const std::byte>(*bytes));
  r.network = bb.build();
  if (bodies != nullptr)
    for (auto& n : names) {
      if (n.op.empty()) n.op = op;
      n.layers.insert(n.layers.begin(), runs.layer);
      r.names.push_back(std::move(n));
    }
  return r;
}

}  // namespace reshape1::onnx::detail
