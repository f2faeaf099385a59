// Element types as ONNX Runtime checks them when it loads a model: each input against its op version's type
// parameters (the op list's types column), the inputs bound to one parameter alike, If's and Loop's control
// inputs; and each node's outputs given the types ONNX gives them, so that the nodes after them are checked too,
// and `shapes` reports and writes ONNX's types.
#include <bit>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "lowering.hpp"
#include "model/ops/rules.hpp"

namespace reshape1::onnx::detail {
namespace {

/// The types a group takes, as messages list them: "f16, f32, f64".
std::string type_names(const type_group& g) {
  std::string out;
  for (const auto t : all_element_types())
    if (g.takes(t)) out += fmt::format("{}{}", out.empty() ? "" : ", ", name(t));
  return out.empty() ? "none reshape1 reads" : out;
}

/// ONNX Runtime checks every node's element types against its version's type parameters when it loads a model,
/// before it infers shapes: an input of a type its parameter does not take (Relu-13 of int32), and two inputs of
/// one parameter that differ (Add of float and int32), are refused. Checked where an input's type is known:
/// declared (graph input, value_info), a constant's, or what the list says the node that computes it gives
/// (graph_lowering::infer_output_types).
void refuse_wrong_parameters(const node_context& c, const ::onnx::NodeProto& node, const listed_op* schema) {
  if (schema == nullptr || !schema->types) return;
  const auto version = version_name(node, *schema);
  constexpr auto hint = "ONNX Runtime refuses the model too: Cast the input to a type the op takes";
  // Per group: the first input of a known type.
  std::vector<std::optional<std::pair<int, element_type>>> bound(schema->types->size());
  for (int k = 0; k < node.input_size(); ++k) {
    const auto* group = schema->group_of(k, false);
    const auto type = c.declared_type(static_cast<std::size_t>(k));
    if (group == nullptr || !type) continue;
    if (!group->takes(*type))
      c.bad(fmt::format("its input {} ('{}') is of type {}, which {} does not take there (it takes {})", k,
                        node.input(k), name(*type), version, type_names(*group)), hint);
    // A list's members past the one asked (QLinearConcat's triples) bind only where that one was seen bound to
    // another input; else each may be any of the types (a heterogeneous list, as Loop's states are).
    const bool past_asked = schema->inputs && schema->inputs->most == std::numeric_limits<int>::max() && k > schema->inputs->least;
    if (past_asked && std::popcount(group->inputs) < 2) continue;
    auto& first = bound[static_cast<std::size_t>(group - schema->types->data())];
    if (!first) first = std::pair{k, *type};
    else if (first->second != *type)
      c.bad(fmt::format("its inputs {} and {} are of types {} and {}, where {} takes one type for both", first->first, k,
                        name(first->second), name(*type), version), hint);
  }
}

/// The type of output k of a default-domain op where the list's types column gives none (an attribute or a graph
/// chooses it, or ONNX Runtime could not be asked), as ONNX Runtime infers it: Cast's `to`; `dtype` or its default
/// (the input's type for the Like ops and Bernoulli); ConstantOfShape's value's type, f32 without one;
/// QuantizeLinear's `output_dtype`, else its zero point's type, else u8; the statistics of the norms;
/// ConcatFromSequence's sequence's; what If's, Loop's and Scan's graphs declare; com.microsoft's MurmurHash3's
/// `positive`. nullopt for any other, or a type reshape1 has no name for.
std::optional<element_type> chosen_type(const node_context& c, int k) {
  const auto& node = c.node();
  // com.microsoft's MurmurHash3: uint32, or int32 where `positive` is 0 (the list was asked with the default).
  if (node.domain() == "com.microsoft" && node.op_type() == "MurmurHash3" && k == 0)
    return c.i("positive", 1) == 0 ? element_type::i32 : element_type::u32;
  if (node.domain() == "ai.onnx.ml") return ml_output_type(c, k);
  if (!node.domain().empty() && node.domain() != "ai.onnx") return std::nullopt;
  const auto& op = node.op_type();
  const auto* dtype = c.attribute("dtype");
  // BatchNormalization's running statistics in training mode (14 on): the input mean's type.
  if (op == "BatchNormalization" && (k == 1 || k == 2)) return c.declared_type(3);
  // The statistics of the layer norms (LayerNormalization's mean and inverse deviation, outputs 1 and 2; RMS's
  // inverse deviation, output 1): `stash_type`, float by default.
  if ((op == "LayerNormalization" && (k == 1 || k == 2)) || (op == "SimplifiedLayerNormalization" && k == 1))
    return c.attribute("stash_type") != nullptr ? element_of(static_cast<int>(c.attribute("stash_type")->i())) : element_type::f32;
  // If, Loop and Scan: what their graphs' outputs declare (a Loop's first body output is its condition); an If's
  // where both branches declare one type.
  const auto declared_output = [&](const char* graph, int at) -> std::optional<element_type> {
    const auto* g = c.attribute(graph);
    if (g == nullptr || !g->has_g() || at >= g->g().output_size() || !g->g().output(at).type().has_tensor_type())
      return std::nullopt;
    return element_of(g->g().output(at).type().tensor_type().elem_type());
  };
  if (op == "If") {
    const auto then_type = declared_output("then_branch", k);
    return then_type == declared_output("else_branch", k) ? then_type : std::nullopt;
  }
  if (op == "Loop") return declared_output("body", k + 1);
  if (op == "Scan") return declared_output("body", k);
  if (k != 0) return std::nullopt;
  if (op == "LayerNormalization" || op == "SimplifiedLayerNormalization") return c.declared_type(0);
  // ConcatFromSequence: its sequence's type (the list cannot ask ONNX Runtime about a sequence input).
  if (op == "ConcatFromSequence") {
    const auto* s = c.input_value(0);
    return s != nullptr && s->held != nullptr ? s->held->type : std::nullopt;
  }
  // QuantizeLinear: `output_dtype` (21 on), else the zero point's type, else uint8.
  if (op == "QuantizeLinear") {
    if (const auto* to = c.attribute("output_dtype"); to != nullptr && to->i() != 0) return element_of(static_cast<int>(to->i()));
    return node.input_size() > 2 && !node.input(2).empty() ? c.declared_type(2) : element_type::u8;
  }
  if (op == "Cast") return c.attribute("to") != nullptr ? element_of(static_cast<int>(c.attribute("to")->i())) : std::nullopt;
  if (op == "ConstantOfShape")
    return c.attribute("value") != nullptr ? element_of(c.attribute("value")->t().data_type()) : element_type::f32;
  if (op == "RandomNormal" || op == "RandomUniform") return dtype ? element_of(static_cast<int>(dtype->i())) : element_type::f32;
  if (op == "Multinomial") return dtype ? element_of(static_cast<int>(dtype->i())) : element_type::i32;
  if (op == "RandomNormalLike" || op == "RandomUniformLike" || op == "EyeLike" || op == "Bernoulli")
    return dtype ? element_of(static_cast<int>(dtype->i())) : c.declared_type(0);
  return std::nullopt;
}

/// If's condition, and Loop's trip count and condition, of the types ONNX Runtime takes (the op list cannot ask
/// about the ops of graph attributes).
void refuse_wrong_control_types(const node_context& c, const ::onnx::NodeProto& node) {
  if (!node.domain().empty() && node.domain() != "ai.onnx") return;
  const auto expect = [&](int k, element_type t, const char* what) {
    if (k >= node.input_size() || node.input(k).empty()) return;
    if (const auto type = c.declared_type(static_cast<std::size_t>(k)); type && *type != t)
      c.bad(fmt::format("its {} (input {}, '{}') is of type {}, where {} takes {}", what, k, node.input(k), name(*type),
                        node.op_type(), name(t)),
            "ONNX Runtime refuses the model too: Cast the input to a type the op takes");
  };
  if (node.op_type() == "If") expect(0, element_type::boolean, "condition");
  if (node.op_type() == "Loop") {
    expect(0, element_type::i64, "trip count");
    expect(1, element_type::boolean, "condition");
  }
}

}  // namespace

void refuse_wrong_types(const node_context& c, const listed_op* schema) {
  refuse_wrong_parameters(c, c.node(), schema);
  refuse_wrong_control_types(c, c.node());
}

void graph_lowering::type_outputs() {
  for (const auto& [name, k] : names_) {
    if (!k.type || k.constant != nullptr || k.held != nullptr) continue;
    auto& layer = b_.at(k.at.layer);
    if (model::detail::part_of(layer.type) == model::detail::op_part::parameter || k.at.output >= layer.outputs.size())
      continue;
    if (auto& out = layer.outputs[k.at.output]; !out.type) out.type = k.type;
  }
}

void graph_lowering::infer_output_types(const node_context& c, const listed_op* schema) {
  if (schema == nullptr) return;
  const auto& node = c.node();
  for (int k = 0; k < node.output_size(); ++k) {
    const auto* group = schema->group_of(k, true);
    const auto it = node.output(k).empty() ? names_.end() : names_.find(node.output(k));
    if (it == names_.end()) continue;
    // What an attribute chooses first: it overrides the one type the list was given when asked with its default.
    std::optional<element_type> type = chosen_type(c, k);
    if (!type && group != nullptr && group->inputs == 0 && std::has_single_bit(group->types))
      type = static_cast<element_type>(std::countr_zero(group->types));
    for (int i = 0; group != nullptr && i < node.input_size() && !type; ++i)
      if (schema->group_of(i, false) == group) type = c.declared_type(static_cast<std::size_t>(i));
    if (!type) continue;
    // ONNX Runtime refuses an output that value_info or the graph's outputs declare of another type than it infers.
    if (const auto declared = declared_types.find(node.output(k)); declared != declared_types.end() && declared->second != *type)
      c.bad(fmt::format("its output {} ('{}') is declared of type {}, where {} gives {}", k, node.output(k),
                        name(declared->second), version_name(node, *schema), name(*type)),
            "ONNX Runtime refuses the model too: declare the type the op gives, or none");
    if (!it->second.type) it->second.type = type;
  }
}

}  // namespace reshape1::onnx::detail
