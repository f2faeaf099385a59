// ONNX nodes as registry ops. A node becomes one op when only the attribute names differ (Conv and
// Convolution), or a small fixed graph of ops when OpenVINO's ONNX frontend decomposes it too (Gemm,
// Flatten, LSTM's layout); each row is (op_type, since_version): the version at which the node's inputs
// or meaning last changed. A node's translation is the row with the newest since_version at or below the
// model's opset.
#include <algorithm>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "../detail/fail.hpp"
#include "model/ops/rules.hpp"
#include "lowering.hpp"

namespace reshape1::onnx::detail {

// ---- node_context ----------------------------------------------------------------------------------------

namespace {
std::string node_name(const ::onnx::NodeProto& n) {
  if (!n.name().empty()) return n.name();
  return n.output_size() > 0 ? n.output(0) : std::string();
}

std::string list(std::span<const std::int64_t> v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i != 0) s += ',';
    s += std::to_string(v[i]);
  }
  return s;
}
std::string list(const std::vector<std::int64_t>& v) { return list(std::span<const std::int64_t>(v)); }
}  // namespace

void node_context::bad(const std::string& what, std::string hint) const {
  reshape1::detail::fail(errc::bad_file, {.file = g_.file()},
                         fmt::format("{}: node '{}' ({}, node {}): {}", g_.file(), node_name(node_), node_.op_type(),
                                     index_, what),
                         std::move(hint));
}

std::optional<source> node_context::input(std::size_t i) const {
  if (i >= inputs() || node_.input(static_cast<int>(i)).empty()) return std::nullopt;
  const auto* k = g_.find(node_.input(static_cast<int>(i)));
  if (k == nullptr)
    bad(fmt::format("input {} '{}' is computed by no node before it, and is no graph input or initializer", i,
                    node_.input(static_cast<int>(i))));
  return k->at;
}

source node_context::need(std::size_t i) const {
  const auto s = input(i);
  if (!s) bad(fmt::format("{} {} needs input {}", node_.op_type(), version_, i));
  return *s;
}

bool node_context::has_output(std::size_t i) const {
  return i < outputs() && !node_.output(static_cast<int>(i)).empty();
}

const ::onnx::AttributeProto* node_context::attribute(std::string_view name) const {
  for (const auto& a : node_.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

std::optional<std::int64_t> node_context::i(std::string_view name) const {
  const auto* a = attribute(name);
  if (a == nullptr) return std::nullopt;
  if (a->type() != ::onnx::AttributeProto::INT && !a->has_i()) bad(fmt::format("attribute '{}' is not an integer", name));
  return a->i();
}

std::int64_t node_context::i(std::string_view name, std::int64_t fallback) const { return i(name).value_or(fallback); }

float node_context::f(std::string_view name, float fallback) const {
  const auto* a = attribute(name);
  if (a == nullptr) return fallback;
  if (a->type() != ::onnx::AttributeProto::FLOAT && !a->has_f()) bad(fmt::format("attribute '{}' is not a float", name));
  return a->f();
}

std::string node_context::s(std::string_view name, std::string_view fallback) const {
  const auto* a = attribute(name);
  if (a == nullptr) return std::string(fallback);
  if (a->type() != ::onnx::AttributeProto::STRING && !a->has_s()) bad(fmt::format("attribute '{}' is not a string", name));
  return a->s();
}

std::optional<std::vector<std::int64_t>> node_context::ints(std::string_view name) const {
  const auto* a = attribute(name);
  if (a == nullptr) return std::nullopt;
  return std::vector<std::int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<std::vector<float>> node_context::floats(std::string_view name) const {
  const auto* a = attribute(name);
  if (a == nullptr) return std::nullopt;
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

std::optional<std::vector<std::int64_t>> node_context::constant_ints(std::size_t i) const {
  if (i >= inputs() || node_.input(static_cast<int>(i)).empty()) return std::nullopt;
  const auto* k = g_.find(node_.input(static_cast<int>(i)));
  if (k == nullptr || k->constant == nullptr) return std::nullopt;
  const auto& t = *k->constant;
  const auto data = g_.tensor_bytes(t, [&] { return fmt::format("input {} of node '{}'", i, node_name(node_)); });
  const auto bytes = data.bytes;
  std::vector<std::int64_t> out;
  const auto read = [&]<class T>(T) {
    for (std::size_t p = 0; p + sizeof(T) <= bytes.size(); p += sizeof(T)) {
      T v;
      std::memcpy(&v, bytes.data() + p, sizeof(T));
      out.push_back(static_cast<std::int64_t>(v));
    }
  };
  switch (t.data_type()) {
    case ::onnx::TensorProto::INT64: read(std::int64_t{}); break;
    case ::onnx::TensorProto::INT32: read(std::int32_t{}); break;
    case ::onnx::TensorProto::INT16: read(std::int16_t{}); break;
    case ::onnx::TensorProto::INT8: read(std::int8_t{}); break;
    case ::onnx::TensorProto::UINT8:
    case ::onnx::TensorProto::BOOL: read(std::uint8_t{}); break;
    default: return std::nullopt;
  }
  return out;
}

std::optional<std::vector<std::int64_t>> node_context::constant_dims(std::size_t i) const {
  if (i >= inputs() || node_.input(static_cast<int>(i)).empty()) return std::nullopt;
  const auto* k = g_.find(node_.input(static_cast<int>(i)));
  if (k == nullptr || k->constant == nullptr) return std::nullopt;
  return std::vector<std::int64_t>(k->constant->dims().begin(), k->constant->dims().end());
}

std::optional<source> node_context::constant_as(std::size_t i, const std::vector<std::int64_t>& dims) {
  if (i >= inputs() || node_.input(static_cast<int>(i)).empty()) return std::nullopt;
  const auto* k = g_.find(node_.input(static_cast<int>(i)));
  if (k == nullptr || k->constant == nullptr) return std::nullopt;
  std::int64_t count = 1, want = 1;
  for (const auto d : k->constant->dims())
    if (d < 0 || __builtin_mul_overflow(count, d, &count)) return std::nullopt;
  for (const auto d : dims)
    if (d < 0 || __builtin_mul_overflow(want, d, &want)) return std::nullopt;
  if (count != want) return std::nullopt;
  const auto type = element_of(k->constant->data_type());
  if (!type) return std::nullopt;
  if (const auto view = g_.constant_view(k->at, dims, node_name(node_))) return view;
  const bool small = count <= model::detail::max_value_elements;  // what a rule may read
  const auto data =
      g_.tensor_bytes(*k->constant, [&] { return fmt::format("input {} of node '{}'", i, node_name(node_)); }, small);
  return g_.constant_bytes(*type, dims, data.bytes, node_name(node_));
}

std::optional<std::size_t> node_context::rank(std::size_t i) const {
  if (i >= inputs() || node_.input(static_cast<int>(i)).empty()) return std::nullopt;
  const auto* k = g_.find(node_.input(static_cast<int>(i)));
  return k == nullptr ? std::nullopt : k->rank;
}

source node_context::add(std::string_view type, int opset, std::vector<source> in, attributes a, std::size_t outputs) {
  return g_.add(type, opset, std::move(in), std::move(a), outputs, node_name(node_));
}

source node_context::i64(std::vector<std::int64_t> values, std::optional<std::vector<std::int64_t>> dims) {
  const std::vector<std::int64_t> d = dims ? *dims : std::vector<std::int64_t>{static_cast<std::int64_t>(values.size())};
  return g_.constant_bytes(element_type::i64, d, std::as_bytes(std::span(values)), node_name(node_));
}

source node_context::f32(std::vector<float> values, bool scalar) {
  const std::vector<std::int64_t> d = scalar ? std::vector<std::int64_t>{} : std::vector<std::int64_t>{static_cast<std::int64_t>(values.size())};
  return g_.constant_bytes(element_type::f32, d, std::as_bytes(std::span(values)), node_name(node_));
}

source node_context::constant_tensor(const ::onnx::TensorProto& t) { return g_.constant(t, node_name(node_)); }

void node_context::output_constant(std::size_t i, const ::onnx::TensorProto& t) {
  if (!has_output(i)) return;
  g_.bind(node_.output(static_cast<int>(i)),
          {g_.constant(t, node_.output(static_cast<int>(i))), static_cast<std::size_t>(t.dims_size()), &t});
}

std::optional<element_type> node_context::constant_type(std::size_t i) const {
  if (i >= inputs() || node_.input(static_cast<int>(i)).empty()) return std::nullopt;
  const auto* k = g_.find(node_.input(static_cast<int>(i)));
  return k == nullptr || k->constant == nullptr ? std::nullopt : element_of(k->constant->data_type());
}

void node_context::output(std::size_t i, source s) {
  if (!has_output(i)) return;
  g_.bind(node_.output(static_cast<int>(i)), {s, std::nullopt, nullptr});
}

namespace {
/// The names a subgraph reads from the scopes around it: its nodes' inputs that neither its own inputs,
/// initializers nor nodes define (nested subgraphs included).
void outer_names(const ::onnx::GraphProto& g, std::set<std::string>& out) {
  std::set<std::string> defined;
  for (const auto& v : g.input()) defined.insert(v.name());
  for (const auto& t : g.initializer()) defined.insert(t.name());
  for (const auto& n : g.node()) {
    for (const auto& i : n.input())
      if (!i.empty() && !defined.contains(i)) out.insert(i);
    for (const auto& a : n.attribute()) {
      std::set<std::string> inner;
      if (a.has_g()) outer_names(a.g(), inner);
      for (const auto& sub : a.graphs()) outer_names(sub, inner);
      for (const auto& i : inner)
        if (!defined.contains(i)) out.insert(i);
    }
    for (const auto& o : n.output()) defined.insert(o);
  }
}
}  // namespace

void node_context::not_covered(const std::string& why) {
  std::vector<source> in;
  for (std::size_t k = 0; k < inputs(); ++k)
    if (const auto s = input(k)) in.push_back(*s);
  // A subgraph (If's branches, Loop's and Scan's bodies) may read any tensor of the graphs around it:
  // those it reads are inputs of the layer too, so that what depends on the batch is seen to.
  std::set<std::string> captured;
  for (const auto& a : node_.attribute()) {
    if (a.has_g()) outer_names(a.g(), captured);
    for (const auto& sub : a.graphs()) outer_names(sub, captured);
  }
  for (const auto& name : captured)
    if (const auto* k = g_.find(name)) in.push_back(k->at);
  const auto type = node_.domain().empty() || node_.domain() == "ai.onnx"
                        ? fmt::format("onnx.{}", node_.op_type())
                        : fmt::format("{}.{}", node_.domain(), node_.op_type());
  const auto first = add(type, version_, std::move(in), {{"not_covered", why}}, std::max<std::size_t>(outputs(), 1));
  for (std::size_t k = 0; k < outputs(); ++k) output(k, source{first.layer, k});
}

std::vector<source> node_context::inline_subgraph(const ::onnx::GraphProto& sub) {
  g_.lower_nodes(sub, false);
  std::vector<source> out;
  for (const auto& v : sub.output()) {
    const auto* k = g_.find(v.name());
    if (k == nullptr) bad(fmt::format("its subgraph '{}' has an output '{}' that nothing computes", sub.name(), v.name()));
    out.push_back(k->at);
  }
  return out;
}

node_context::lowered_body node_context::lower_body(const ::onnx::GraphProto& sub, const axes& squeezed,
                                                    const axes& unsqueezed) {
  return g_.lower_body(sub, squeezed, unsqueezed, node_name(node_));
}

source node_context::add_with_body(std::string_view type, int opset, std::vector<source> in,
                                   std::shared_ptr<const model::subgraph> body, std::size_t outputs,
                                   std::vector<body_names> names) {
  const auto first = add(type, opset, std::move(in), {}, outputs);
  g_.builder().at(first.layer).body = std::move(body);
  if (g_.bodies != nullptr)
    for (auto& n : names) {
      if (n.op.empty()) n.op = node_.op_type();  // this node's own body (its nested ones have theirs)
      n.layers.insert(n.layers.begin(), first.layer);
      g_.bodies->push_back(std::move(n));
    }
  return first;
}

source node_context::boolean(bool value) {
  const auto byte = static_cast<std::byte>(value ? 1 : 0);
  return g_.constant_bytes(element_type::boolean, {}, std::span(&byte, 1), node_name(node_));
}

source node_context::shape_of(source x) { return add("ShapeOf", 3, {x}, {{"output_type", "i64"}}); }

source node_context::rank_of(source x) {
  const auto shape_of_shape = shape_of(shape_of(x));
  return add("Squeeze", 1, {shape_of_shape, i64({0})});
}

source node_context::axes_from(source x, std::int64_t from) {
  return add("Range", 4, {i64({from}, std::vector<std::int64_t>{}), rank_of(x), i64({1}, std::vector<std::int64_t>{})},
             {{"output_type", "i64"}});
}

namespace {

using attributes = node_context::attributes;

std::string real(float v) { return fmt::format("{}", v); }

// ---- element-wise ------------------------------------------------------------------------------------

template <const char* Type, int Opset = 1>
void unary(node_context& c) {
  c.output(0, c.add(Type, Opset, {c.need(0)}));
}
template <const char* Type>
void binary(node_context& c) {
  c.output(0, c.add(Type, 1, {c.need(0), c.need(1)}, {{"auto_broadcast", "numpy"}}));
}
/// Max, Min, Sum, Mean: a chain of the binary op over every input.
template <const char* Type>
void variadic(node_context& c) {
  auto acc = c.need(0);
  for (std::size_t k = 1; k < c.inputs(); ++k) acc = c.add(Type, 1, {acc, c.need(k)}, {{"auto_broadcast", "numpy"}});
  c.output(0, acc);
}
void mean(node_context& c) {
  auto acc = c.need(0);
  for (std::size_t k = 1; k < c.inputs(); ++k) acc = c.add("Add", 1, {acc, c.need(k)}, {{"auto_broadcast", "numpy"}});
  if (c.inputs() > 1) acc = c.add("Divide", 1, {acc, c.f32({static_cast<float>(c.inputs())}, true)});
  c.output(0, acc);
}

constexpr char Abs[] = "Abs", Ceiling[] = "Ceiling", Cos[] = "Cos", Erf[] = "Erf", Exp[] = "Exp", Floor[] = "Floor",
               Log[] = "Log", Negative[] = "Negative", LogicalNot[] = "LogicalNot", ReLU[] = "ReLU",
               Sigmoid[] = "Sigmoid", Sign[] = "Sign", Sin[] = "Sin", SoftPlus[] = "SoftPlus", Sqrt[] = "Sqrt",
               Tanh[] = "Tanh", HSwish[] = "HSwish", Add[] = "Add", Subtract[] = "Subtract", Multiply[] = "Multiply",
               Divide[] = "Divide", Power[] = "Power", Maximum[] = "Maximum", Minimum[] = "Minimum", Equal[] = "Equal",
               Greater[] = "Greater", Less[] = "Less", GreaterEqual[] = "GreaterEqual", LessEqual[] = "LessEqual",
               LogicalAnd[] = "LogicalAnd", LogicalOr[] = "LogicalOr", LogicalXor[] = "LogicalXor",
               Atan[] = "Atan", Tan[] = "Tan", Asin[] = "Asin", Acos[] = "Acos", Sinh[] = "Sinh", Cosh[] = "Cosh";

void identity(node_context& c) { c.output(0, c.need(0)); }
void dropout(node_context& c) {
  if (c.has_output(1)) return c.not_covered("Dropout's mask output is not covered");
  c.output(0, c.need(0));
}
void reciprocal(node_context& c) { c.output(0, c.add("Divide", 1, {c.f32({1.0F}, true), c.need(0)})); }
void round_(node_context& c) { c.output(0, c.add("Round", 5, {c.need(0)}, {{"mode", "half_to_even"}})); }
void elu(node_context& c) { c.output(0, c.add("Elu", 1, {c.need(0)}, {{"alpha", real(c.f("alpha", 1.0F))}})); }
void leaky_relu(node_context& c) { c.output(0, c.add("PReLU", 1, {c.need(0), c.f32({c.f("alpha", 0.01F)}, true)})); }
void prelu(node_context& c) { c.output(0, c.add("PReLU", 1, {c.need(0), c.need(1)})); }
void hard_sigmoid(node_context& c) {
  c.output(0, c.add("HardSigmoid", 1, {c.need(0), c.f32({c.f("alpha", 0.2F)}, true), c.f32({c.f("beta", 0.5F)}, true)}));
}
void cast(node_context& c) {
  const auto to = element_of(static_cast<int>(c.i("to", 0)));
  if (!to) return c.not_covered(fmt::format("Cast to ONNX data type {} is not covered", c.i("to", 0)));
  c.output(0, c.add("Convert", 1, {c.need(0)}, {{"destination_type", std::string(name(*to))}}));
}
void mod(node_context& c) {
  c.output(0, c.add(c.i("fmod", 0) != 0 ? "Mod" : "FloorMod", 1, {c.need(0), c.need(1)}, {{"auto_broadcast", "numpy"}}));
}
void where(node_context& c) {
  c.output(0, c.add("Select", 1, {c.need(0), c.need(1), c.need(2)}, {{"auto_broadcast", "numpy"}}));
}
void clip6(node_context& c) {
  c.output(0, c.add("Clamp", 1, {c.need(0)}, {{"min", real(c.f("min", -3.4028234663852886e38F))},
                                              {"max", real(c.f("max", 3.4028234663852886e38F))}}));
}
// Clip-11: min and max are optional inputs (a Maximum and a Minimum, which keep the data's shape).
void clip11(node_context& c) {
  auto x = c.need(0);
  if (const auto lo = c.input(1)) x = c.add("Maximum", 1, {x, *lo}, {{"auto_broadcast", "numpy"}});
  if (const auto hi = c.input(2)) x = c.add("Minimum", 1, {x, *hi}, {{"auto_broadcast", "numpy"}});
  c.output(0, x);
}

// ---- convolution and pooling -------------------------------------------------------------------------

/// The window attributes every ONNX windowed op shares, in IR names.
attributes window(const node_context& c, std::size_t spatial, bool with_dilations) {
  attributes a;
  const auto ones = std::vector<std::int64_t>(spatial, 1);
  a.emplace_back("strides", list(c.ints("strides").value_or(ones)));
  if (with_dilations) a.emplace_back("dilations", list(c.ints("dilations").value_or(ones)));
  const auto pads = c.ints("pads").value_or(std::vector<std::int64_t>(2 * spatial, 0));
  if (pads.size() != 2 * spatial) c.bad(fmt::format("pads has {} values for {} spatial axes", pads.size(), spatial));
  a.emplace_back("pads_begin", list(std::span(pads).first(spatial)));
  a.emplace_back("pads_end", list(std::span(pads).last(spatial)));
  const auto pad = c.s("auto_pad", "NOTSET");
  a.emplace_back("auto_pad", pad == "SAME_UPPER"   ? "same_upper"
                             : pad == "SAME_LOWER" ? "same_lower"
                             : pad == "VALID"      ? "valid"
                                                   : "explicit");
  return a;
}

/// The number of spatial axes of a windowed op: from kernel_shape, or the weights' (or input's) rank.
std::size_t spatial_axes(const node_context& c, std::size_t ranked_input) {
  if (const auto k = c.ints("kernel_shape")) return k->size();
  if (const auto r = c.rank(ranked_input); r && *r >= 2) return *r - 2;
  c.bad("the number of spatial axes is unknown: no kernel_shape and no declared rank");
}

/// Bias [C] added to [N, C, ...]: seen as [1, C, 1...] (rank 2 + spatial); an initializer is simply given
/// that shape, as OpenVINO's frontend folds the Reshape it writes.
source add_bias(node_context& c, source x, source bias, std::size_t spatial) {
  std::vector<std::int64_t> pattern{1, -1};
  pattern.resize(2 + spatial, 1);
  std::optional<source> shaped;
  if (const auto dims = c.constant_dims(2); dims && dims->size() == 1) {
    pattern[1] = (*dims)[0];
    shaped = c.constant_as(2, pattern);
  }
  if (!shaped) shaped = c.add("Reshape", 1, {bias, c.i64(pattern)}, {{"special_zero", "false"}});
  return c.add("Add", 1, {x, *shaped}, {{"auto_broadcast", "numpy"}});
}

/// Grouped weights [O, I/G, k...] as [G, O/G, I/G, k...]: an initializer given that shape, or a Reshape.
source grouped(node_context& c, source w, std::int64_t groups) {
  if (const auto dims = c.constant_dims(1); dims && !dims->empty() && groups > 0 && (*dims)[0] % groups == 0) {
    std::vector<std::int64_t> shape{groups, (*dims)[0] / groups};
    shape.insert(shape.end(), dims->begin() + 1, dims->end());
    if (const auto s = c.constant_as(1, shape)) return *s;
  }
  const auto tail = c.add("StridedSlice", 1, {c.shape_of(w), c.i64({1}), c.i64({0}), c.i64({1})},
                          {{"begin_mask", "0"}, {"end_mask", "1"}});
  const auto pattern = c.add("Concat", 1, {c.i64({groups, -1}), tail}, {{"axis", "0"}});
  return c.add("Reshape", 1, {w, pattern}, {{"special_zero", "false"}});
}

void conv(node_context& c) {
  const auto spatial = spatial_axes(c, 1);
  const auto groups = c.i("group", 1);
  auto a = window(c, spatial, true);
  source y = groups == 1 ? c.add("Convolution", 1, {c.need(0), c.need(1)}, a)
                         : c.add("GroupConvolution", 1, {c.need(0), grouped(c, c.need(1), groups)}, a);
  if (const auto bias = c.input(2)) y = add_bias(c, y, *bias, spatial);
  c.output(0, y);
}

void conv_transpose(node_context& c) {
  const auto spatial = spatial_axes(c, 1);
  const auto groups = c.i("group", 1);
  auto a = window(c, spatial, true);
  a.emplace_back("output_padding", list(c.ints("output_padding").value_or(std::vector<std::int64_t>(spatial, 0))));
  if (c.ints("output_shape")) return c.not_covered("ConvTranspose with output_shape is not covered");
  source y = groups == 1 ? c.add("ConvolutionBackpropData", 1, {c.need(0), c.need(1)}, a)
                         : c.add("GroupConvolutionBackpropData", 1, {c.need(0), grouped(c, c.need(1), groups)}, a);
  if (const auto bias = c.input(2)) y = add_bias(c, y, *bias, spatial);
  c.output(0, y);
}

void max_pool(node_context& c) {
  const auto spatial = spatial_axes(c, 0);
  auto a = window(c, spatial, true);
  const auto kernel = c.ints("kernel_shape");
  if (!kernel) c.bad("MaxPool needs kernel_shape");
  a.emplace_back("kernel", list(*kernel));
  a.emplace_back("rounding_type", c.i("ceil_mode", 0) != 0 ? "ceil" : "floor");
  a.emplace_back("index_element_type", "i64");
  a.emplace_back("axis", "0");
  const auto y = c.add("MaxPool", 8, {c.need(0)}, a, 2);
  c.output(0, y);
  c.output(1, source{y.layer, 1});
}

void average_pool(node_context& c) {
  const auto spatial = spatial_axes(c, 0);
  auto a = window(c, spatial, false);
  const auto kernel = c.ints("kernel_shape");
  if (!kernel) c.bad("AveragePool needs kernel_shape");
  a.emplace_back("kernel", list(*kernel));
  a.emplace_back("rounding_type", c.i("ceil_mode", 0) != 0 ? "ceil" : "floor");
  a.emplace_back("exclude-pad", c.i("count_include_pad", 0) != 0 ? "false" : "true");
  if (c.ints("dilations")) {
    const auto d = *c.ints("dilations");
    if (std::any_of(d.begin(), d.end(), [](std::int64_t v) { return v != 1; }))
      return c.not_covered("AveragePool with dilations is not covered");
  }
  c.output(0, c.add("AvgPool", 1, {c.need(0)}, a));
}

template <const char* Reduce>
void global_pool(node_context& c) {
  const auto x = c.need(0);
  c.output(0, c.add(Reduce, 1, {x, c.axes_from(x, 2)}, {{"keep_dims", "true"}}));
}
constexpr char ReduceMean[] = "ReduceMean", ReduceMax[] = "ReduceMax";

// ---- normalisation -----------------------------------------------------------------------------------

/// The per-channel scale and bias of a normalisation, applied to `normalised`: a BatchNormInference whose
/// gamma and beta are `scale` and `bias` and whose mean and variance are `mean` and `variance`, so that its
/// rule checks each is 1-D of the channel count, as ONNX Runtime does. reshape1 computes no floating-point
/// data: the layer stands for the affine map per channel, whatever the statistics in it.
source per_channel(node_context& c, source normalised, source scale, source bias, source mean, source variance) {
  return c.add("BatchNormInference", 5, {normalised, scale, bias, mean, variance}, {{"epsilon", "0"}});
}

// BatchNormalization: with training_mode (opset 14 on), Y is normalised with the batch's own mean and
// variance over every axis but the channels, which mixes the samples: an MVN over [0, 2, ...] shows it.
// The running mean and variance it also returns (ONNX's shape inference, and so ONNX Runtime, wants all
// three outputs) are per channel: a reduction over the same axes gives their shape.
void batch_norm(node_context& c) {
  const auto x = c.need(0);
  if (c.version() >= 14 && c.i("training_mode", 0) != 0) {
    if (c.outputs() != 3)
      c.bad(fmt::format("training_mode=1 with {} output{}", c.outputs(), c.outputs() == 1 ? "" : "s"),
            "in training mode BatchNormalization has three outputs: Y, running_mean and running_var");
    const auto axes = c.add("Concat", 1, {c.i64({0}), c.axes_from(x, 2)}, {{"axis", "0"}});
    const auto normalised = c.add("MVN", 6, {x, axes},
                                  {{"eps", real(c.f("epsilon", 1e-5F))}, {"normalize_variance", "true"},
                                   {"eps_mode", "inside_sqrt"}});
    c.output(0, per_channel(c, normalised, c.need(1), c.need(2), c.need(3), c.need(4)));
    // One layer for both (of the normalised data: the MVN is where the samples meet, and is reported).
    if (c.has_output(1) || c.has_output(2)) {
      const auto statistics = c.add("ReduceMean", 1, {normalised, axes}, {{"keep_dims", "false"}});
      for (std::size_t k = 1; k < 3; ++k)
        if (c.has_output(k)) c.output(k, statistics);
    }
    return;
  }
  if (c.version() >= 14 && c.outputs() != 1)
    c.bad(fmt::format("training_mode=0 with {} outputs", c.outputs()),
          "in inference mode BatchNormalization has one output, Y (training_mode=1 gives the running statistics)");
  if (c.has_output(1) || c.has_output(2) || c.has_output(3) || c.has_output(4))
    return c.not_covered("BatchNormalization's training outputs are not covered");
  c.output(0, c.add("BatchNormInference", 5, {x, c.need(1), c.need(2), c.need(3), c.need(4)},
                    {{"epsilon", real(c.f("epsilon", 1e-5F))}}));
}

// InstanceNormalization: MVN over the spatial axes, then the per-channel scale and bias (whose lengths
// must be C). LayerNormalization: MVN over the normalised axes; its scale and bias are per normalised
// element: they change neither shape nor batch, and are left out.
void instance_norm(node_context& c) {
  const auto x = c.need(0);
  // ONNX Runtime refuses an input of rank below 3 (no spatial axis to normalise over).
  if (const auto r = c.rank(0); r && *r < 3)
    c.bad(fmt::format("its input has rank {}", *r), "InstanceNormalization normalises over the axes from 2 on: rank 3 at least");
  const auto normalised = c.add("MVN", 6, {x, c.axes_from(x, 2)},
                                {{"eps", real(c.f("epsilon", 1e-5F))}, {"normalize_variance", "true"},
                                 {"eps_mode", "inside_sqrt"}});
  const auto scale = c.need(1), bias = c.need(2);
  c.output(0, per_channel(c, normalised, scale, bias, bias, scale));
}
void layer_norm(node_context& c) {
  if (c.has_output(1) || c.has_output(2)) return c.not_covered("LayerNormalization's mean and inverse outputs are not covered");
  const auto x = c.need(0);
  const auto axis = c.i("axis", -1);
  source axes = axis >= 0 ? c.axes_from(x, axis)
                          : c.add("Range", 4, {c.i64({axis}, std::vector<std::int64_t>{}), c.i64({0}, std::vector<std::int64_t>{}),
                                               c.i64({1}, std::vector<std::int64_t>{})},
                                  {{"output_type", "i64"}});
  c.output(0, c.add("MVN", 6, {x, axes},
                    {{"eps", real(c.f("epsilon", 1e-5F))}, {"normalize_variance", "true"}, {"eps_mode", "inside_sqrt"}}));
}
// MeanVarianceNormalization: MVN over its axes (9 on: the attribute, [0, 2, 3] by default; the
// experimental opset-1 op: the spatial axes, the channels too with across_channels). Its statistics are
// over those axes only: with the batch folded into the channels ([1, -1, 0, 0]), the default axes keep each
// sample's channels apart.
void mean_variance_norm(node_context& c) {
  const auto x = c.need(0);
  const std::string variance = c.version() >= 9 || c.i("normalize_variance", 1) != 0 ? "true" : "false";
  const auto axes = c.version() >= 9 ? c.i64(c.ints("axes").value_or(std::vector<std::int64_t>{0, 2, 3}))
                                     : c.axes_from(x, c.i("across_channels", 0) != 0 ? 1 : 2);
  c.output(0, c.add("MVN", 6, {x, axes}, {{"eps", "1e-09"}, {"normalize_variance", variance}, {"eps_mode", "outside_sqrt"}}));
}
void lrn(node_context& c) {
  c.output(0, c.add("LRN", 1, {c.need(0), c.i64({1})},
                    {{"alpha", real(c.f("alpha", 1e-4F))}, {"beta", real(c.f("beta", 0.75F))},
                     {"bias", real(c.f("bias", 1.0F))}, {"size", fmt::format("{}", c.i("size", 1))}}));
}

/// The pattern that flattens x to 2-D at `axis` (Flatten, and Softmax before opset 13): [1,-1] at 0,
/// [0,-1] at 1, else the product of the dimensions before the axis, then -1. Those dimensions are the first
/// piece of a VariadicSplit of the shape ([axis, -1], or [-1, -axis] for a negative axis), whose rule
/// refuses an axis past the rank as ONNX Runtime does (a slice would clamp it). With `names_dimension`
/// (Softmax) the axis must name a dimension, not the end: the split holds a piece of 1 after the prefix.
source flattening_pattern(node_context& c, source x, std::int64_t axis, bool names_dimension) {
  if (axis == 0) return c.i64({1, -1});
  if (axis == 1) return c.i64({0, -1});
  // The dimensions from the axis on, for a negative one (its magnitude: INT64_MIN's is out of range anyway).
  const auto from_end = axis == std::numeric_limits<std::int64_t>::min() ? std::numeric_limits<std::int64_t>::max() : -axis;
  std::vector<std::int64_t> lengths;
  if (names_dimension)
    lengths = axis > 0 ? std::vector<std::int64_t>{axis, 1, -1} : std::vector<std::int64_t>{-1, 1, from_end - 1};
  else
    lengths = axis > 0 ? std::vector<std::int64_t>{axis, -1} : std::vector<std::int64_t>{-1, from_end};
  const auto pieces = lengths.size();
  const auto before = c.add("VariadicSplit", 1, {c.shape_of(x), c.i64({0}), c.i64(std::move(lengths))}, {}, pieces);
  return c.add("Concat", 1, {c.add("ReduceProd", 1, {before, c.i64({0})}, {{"keep_dims", "true"}}), c.i64({-1})},
               {{"axis", "0"}});
}

/// Softmax and LogSoftmax before opset 13: the input flattened to 2-D at `axis`, normalised along the
/// second axis, and shaped back.
void softmax_2d(node_context& c, std::string_view type, int opset) {
  const auto x = c.need(0);
  const auto axis = c.i("axis", 1);
  const auto flat = c.add("Reshape", 1, {x, flattening_pattern(c, x, axis, true)}, {{"special_zero", axis == 1 ? "true" : "false"}});
  const auto y = c.add(type, opset, {flat}, {{"axis", "1"}});
  c.output(0, c.add("Reshape", 1, {y, c.shape_of(x)}, {{"special_zero", "false"}}));
}
void softmax1(node_context& c) { softmax_2d(c, "SoftMax", 8); }
void softmax13(node_context& c) { c.output(0, c.add("SoftMax", 8, {c.need(0)}, {{"axis", fmt::format("{}", c.i("axis", -1))}})); }
void log_softmax1(node_context& c) { softmax_2d(c, "LogSoftmax", 5); }
void log_softmax13(node_context& c) {
  c.output(0, c.add("LogSoftmax", 5, {c.need(0)}, {{"axis", fmt::format("{}", c.i("axis", -1))}}));
}

// ---- matrix products ---------------------------------------------------------------------------------

void matmul(node_context& c) {
  c.output(0, c.add("MatMul", 1, {c.need(0), c.need(1)}, {{"transpose_a", "false"}, {"transpose_b", "false"}}));
}
void gemm(node_context& c) {
  auto y = c.add("MatMul", 1, {c.need(0), c.need(1)},
                 {{"transpose_a", c.i("transA", 0) != 0 ? "true" : "false"},
                  {"transpose_b", c.i("transB", 0) != 0 ? "true" : "false"}});
  if (const float alpha = c.f("alpha", 1.0F); alpha != 1.0F) y = c.add("Multiply", 1, {y, c.f32({alpha}, true)});
  if (const auto bias = c.input(2)) {
    auto b = *bias;
    if (const float beta = c.f("beta", 1.0F); beta != 1.0F) b = c.add("Multiply", 1, {b, c.f32({beta}, true)});
    y = c.add("Add", 1, {y, b}, {{"auto_broadcast", "numpy"}});
  }
  c.output(0, y);
}
void einsum(node_context& c) {
  std::vector<source> in;
  for (std::size_t k = 0; k < c.inputs(); ++k) in.push_back(c.need(k));
  c.output(0, c.add("Einsum", 7, std::move(in), {{"equation", c.s("equation", "")}}));
}

// ---- shapes ------------------------------------------------------------------------------------------

void reshape5(node_context& c) {
  const bool allowzero = c.version() >= 14 && c.i("allowzero", 0) != 0;
  c.output(0, c.add("Reshape", 1, {c.need(0), c.need(1)}, {{"special_zero", allowzero ? "false" : "true"}}));
}
void shape1(node_context& c) { c.output(0, c.shape_of(c.need(0))); }
void shape15(node_context& c) {
  const auto s = c.shape_of(c.need(0));
  const auto start = c.i("start", 0);
  const auto end = c.i("end");
  if (start == 0 && !end) return c.output(0, s);
  c.output(0, c.add("Slice", 8, {s, c.i64({start}), c.i64({end.value_or(std::numeric_limits<std::int64_t>::max())}), c.i64({1})}));
}
void size(node_context& c) {
  c.output(0, c.add("ReduceProd", 1, {c.shape_of(c.need(0)), c.i64({0})}, {{"keep_dims", "false"}}));
}
void flatten(node_context& c) {
  const auto x = c.need(0);
  const auto axis = c.i("axis", 1);
  c.output(0, c.add("Reshape", 1, {x, flattening_pattern(c, x, axis, false)}, {{"special_zero", axis == 1 ? "true" : "false"}}));
}
/// Squeeze and Unsqueeze: axes from the attribute (before 13) or the second input.
source axes_input(node_context& c, bool attribute) {
  if (attribute) {
    const auto axes = c.ints("axes");
    if (!axes) c.bad("needs the attribute axes");
    return c.i64(*axes);
  }
  return c.need(1);
}
void squeeze1(node_context& c) {
  if (const auto axes = c.ints("axes")) return c.output(0, c.add("Squeeze", 1, {c.need(0), c.i64(*axes)}));
  c.output(0, c.add("Squeeze", 1, {c.need(0)}));
}
void squeeze13(node_context& c) {
  if (const auto axes = c.input(1)) return c.output(0, c.add("Squeeze", 1, {c.need(0), *axes}));
  c.output(0, c.add("Squeeze", 1, {c.need(0)}));
}
void unsqueeze1(node_context& c) { c.output(0, c.add("Unsqueeze", 1, {c.need(0), axes_input(c, true)})); }
void unsqueeze13(node_context& c) { c.output(0, c.add("Unsqueeze", 1, {c.need(0), axes_input(c, false)})); }
void transpose(node_context& c) {
  const auto x = c.need(0);
  if (const auto perm = c.ints("perm")) return c.output(0, c.add("Transpose", 1, {x, c.i64(*perm)}));
  // No perm: the axes reversed.
  const auto rank = c.rank_of(x);
  const auto last = c.add("Subtract", 1, {rank, c.i64({1}, std::vector<std::int64_t>{})}, {{"auto_broadcast", "numpy"}});
  const auto order = c.add("Range", 4, {last, c.i64({-1}, std::vector<std::int64_t>{}), c.i64({-1}, std::vector<std::int64_t>{})},
                           {{"output_type", "i64"}});
  c.output(0, c.add("Transpose", 1, {x, order}));
}
void concat(node_context& c) {
  std::vector<source> in;
  for (std::size_t k = 0; k < c.inputs(); ++k)
    if (const auto s = c.input(k)) in.push_back(*s);
  const auto axis = c.i("axis");
  if (!axis) c.bad("Concat needs the attribute axis");
  c.output(0, c.add("Concat", 1, std::move(in), {{"axis", fmt::format("{}", *axis)}}));
}
/// Split: given lengths (attribute before 13, input from 13), or equal parts.
void split(node_context& c) {
  const auto x = c.need(0);
  const auto axis = c.i("axis", 0);
  const auto n = c.outputs();
  std::optional<source> lengths;
  if (c.version() < 13) {
    if (const auto s = c.ints("split")) lengths = c.i64(*s);
  } else {
    lengths = c.input(1);
  }
  const auto axis_const = c.i64({axis}, std::vector<std::int64_t>{});
  source y = lengths ? c.add("VariadicSplit", 1, {x, axis_const, *lengths}, {}, n)
                     : c.add("Split", 1, {x, axis_const}, {{"num_splits", fmt::format("{}", c.i("num_outputs", static_cast<std::int64_t>(n)))}}, n);
  for (std::size_t k = 0; k < n; ++k) c.output(k, source{y.layer, k});
}
void slice1(node_context& c) {
  const auto starts = c.ints("starts");
  const auto ends = c.ints("ends");
  if (!starts || !ends) c.bad("Slice needs the attributes starts and ends");
  std::vector<std::int64_t> axes = c.ints("axes").value_or(std::vector<std::int64_t>{});
  if (axes.empty())
    for (std::size_t k = 0; k < starts->size(); ++k) axes.push_back(static_cast<std::int64_t>(k));
  c.output(0, c.add("Slice", 8, {c.need(0), c.i64(*starts), c.i64(*ends), c.i64(std::vector<std::int64_t>(starts->size(), 1)),
                                 c.i64(axes)}));
}
void slice10(node_context& c) {
  const auto starts = c.need(1);
  std::vector<source> in{c.need(0), starts, c.need(2)};
  if (const auto steps = c.input(4)) {
    in.push_back(*steps);
  } else {
    in.push_back(c.add("Broadcast", 3, {c.i64({1}, std::vector<std::int64_t>{}), c.shape_of(starts)}, {{"mode", "numpy"}}));
  }
  if (const auto axes = c.input(3)) in.push_back(*axes);
  c.output(0, c.add("Slice", 8, std::move(in)));
}
void gather(node_context& c) {
  c.output(0, c.add("Gather", 8, {c.need(0), c.need(1), c.i64({c.i("axis", 0)}, std::vector<std::int64_t>{})},
                    {{"batch_dims", "0"}}));
}
void gather_elements(node_context& c) {
  c.output(0, c.add("GatherElements", 6, {c.need(0), c.need(1)}, {{"axis", fmt::format("{}", c.i("axis", 0))}}));
}
void gather_nd(node_context& c) {
  c.output(0, c.add("GatherND", 8, {c.need(0), c.need(1)}, {{"batch_dims", fmt::format("{}", c.i("batch_dims", 0))}}));
}
void expand(node_context& c) {
  c.output(0, c.add("Broadcast", 3, {c.need(0), c.need(1)}, {{"mode", "bidirectional"}}));
}
void tile(node_context& c) {
  // ONNX wants one repeat per input dimension, where OpenVINO's Tile takes any number (it pads the shorter
  // of the two with ones): the attribute tells Tile's rule to refuse any other length.
  c.output(0, c.add("Tile", 1, {c.need(0), c.need(1)}, {{"onnx_exact_repeats", "true"}}));
}
void constant_of_shape(node_context& c) {
  // The value's type decides the output's; its shape does not matter past its one element.
  source scalar;
  if (const auto* a = c.attribute("value"); a != nullptr && a->has_t()) {
    ::onnx::TensorProto t = a->t();
    t.clear_dims();
    scalar = c.constant_tensor(t);
  } else {
    scalar = c.f32({0.0F}, true);
  }
  c.output(0, c.add("Broadcast", 3, {scalar, c.need(0)}, {{"mode", "numpy"}}));
}
void range(node_context& c) {
  c.output(0, c.add("Range", 4, {c.need(0), c.need(1), c.need(2)}, {{"output_type", "i64"}}));
}
void constant(node_context& c) {
  if (const auto* a = c.attribute("value"); a != nullptr) {
    if (!a->has_t()) c.bad("attribute value is not a tensor");
    return c.output_constant(0, a->t());
  }
  if (const auto v = c.ints("value_ints")) return c.output(0, c.i64(*v));
  if (const auto v = c.i("value_int")) return c.output(0, c.i64({*v}, std::vector<std::int64_t>{}));
  if (const auto v = c.floats("value_floats")) return c.output(0, c.f32(*v));
  if (c.attribute("value_float") != nullptr) return c.output(0, c.f32({c.f("value_float", 0)}, true));
  c.not_covered("a Constant of a sparse tensor or strings is not covered");
}
void depth_to_space(node_context& c) {
  c.output(0, c.add("DepthToSpace", 1, {c.need(0)},
                    {{"mode", c.s("mode", "DCR") == "CRD" ? "depth_first" : "blocks_first"},
                     {"block_size", fmt::format("{}", c.i("blocksize", 1))}}));
}
void space_to_depth(node_context& c) {
  c.output(0, c.add("SpaceToDepth", 1, {c.need(0)},
                    {{"mode", "blocks_first"}, {"block_size", fmt::format("{}", c.i("blocksize", 1))}}));
}

// Pad-2 (pads attribute) and Pad-11 (pads input, [begin..., end...]).
void pad_with(node_context& c, source pads, std::optional<source> value) {
  const auto halves = c.add("Split", 1, {pads, c.i64({0}, std::vector<std::int64_t>{})}, {{"num_splits", "2"}}, 2);
  const auto mode = c.s("mode", "constant");
  std::vector<source> in{c.need(0), halves, source{halves.layer, 1}};
  if (value) in.push_back(*value);
  c.output(0, c.add("Pad", 1, std::move(in), {{"pad_mode", mode == "edge" ? "edge" : mode == "reflect" ? "reflect" : "constant"}}));
}
void pad2(node_context& c) {
  const auto pads = c.ints("pads");
  if (!pads) c.bad("Pad needs the attribute pads");
  pad_with(c, c.i64(*pads), c.f32({c.f("value", 0.0F)}, true));
}
void pad11(node_context& c) {
  if (c.input(3)) return c.not_covered("Pad with axes is not covered");
  pad_with(c, c.need(1), c.input(2));
}

// ---- reductions --------------------------------------------------------------------------------------

/// Reductions: axes from the attribute (ReduceSum before 13, the others before 18) or the second input;
/// none means every axis (or none at all with noop_with_empty_axes).
template <const char* Type, int AxesInputSince, int Opset = 1>
void reduce(node_context& c) {
  const auto x = c.need(0);
  const bool keep = c.i("keepdims", 1) != 0;
  std::optional<source> axes;
  if (c.version() < AxesInputSince) {
    if (const auto a = c.ints("axes")) axes = c.i64(*a);
  } else {
    axes = c.input(1);
    // An empty axes tensor is no axes (OpenVINO's reductions read it as "reduce nothing").
    if (const auto v = axes ? c.constant_ints(1) : std::nullopt; v && v->empty()) axes.reset();
    if (!axes && c.i("noop_with_empty_axes", 0) != 0) return c.output(0, x);
  }
  if (!axes) axes = c.axes_from(x, 0);
  c.output(0, c.add(Type, Opset, {x, *axes}, {{"keep_dims", keep ? "true" : "false"}}));
}
constexpr char ReduceSum[] = "ReduceSum", ReduceMin[] = "ReduceMin", ReduceProd[] = "ReduceProd",
               ReduceL2[] = "ReduceL2", ReduceL1[] = "ReduceL1";

template <bool Max>
void arg(node_context& c) {
  if (c.i("select_last_index", 0) != 0) return c.not_covered("select_last_index is not covered");
  const auto axis = c.i("axis", 0);
  const auto k = c.add("TopK", 11, {c.need(0), c.i64({1}, std::vector<std::int64_t>{})},
                       {{"axis", fmt::format("{}", axis)}, {"mode", Max ? "max" : "min"}, {"sort", "none"},
                        {"index_element_type", "i64"}},
                       2);
  source y{k.layer, 1};
  if (c.i("keepdims", 1) == 0) y = c.add("Squeeze", 1, {y, c.i64({axis})});
  c.output(0, y);
}
void top_k(node_context& c) {
  const auto k = c.version() < 10 ? c.i64({c.i("k", 1)}, std::vector<std::int64_t>{}) : c.need(1);
  const auto scalar_k = c.version() < 10 ? k : c.add("Squeeze", 1, {k});
  const auto y = c.add("TopK", 11, {c.need(0), scalar_k},
                       {{"axis", fmt::format("{}", c.i("axis", -1))}, {"mode", c.i("largest", 1) != 0 ? "max" : "min"},
                        {"sort", c.i("sorted", 1) != 0 ? "value" : "none"}, {"index_element_type", "i64"}},
                       2);
  c.output(0, y);
  c.output(1, source{y.layer, 1});
}

// ---- resize ------------------------------------------------------------------------------------------

std::string resize_mode(const node_context& c) {
  const auto m = c.s("mode", "nearest");
  return m == "linear" || m == "bilinear" ? "linear_onnx" : m == "cubic" ? "cubic" : "nearest";
}
void interpolate_scales(node_context& c, source x, source scales) {
  c.output(0, c.add("Interpolate", 11, {x, scales},
                    {{"mode", resize_mode(c)}, {"shape_calculation_mode", "scales"},
                     {"coordinate_transformation_mode", "asymmetric"}, {"nearest_mode", "floor"}}));
}
void upsample7(node_context& c) {
  const auto scales = c.floats("scales");
  if (!scales) c.bad("Upsample needs the attribute scales");
  interpolate_scales(c, c.need(0), c.f32(*scales));
}
void upsample9(node_context& c) { interpolate_scales(c, c.need(0), c.need(1)); }
void resize10(node_context& c) { interpolate_scales(c, c.need(0), c.need(1)); }
void resize11(node_context& c) {
  if (c.attribute("axes") != nullptr) return c.not_covered("Resize with axes is not covered");
  if (const auto sizes = c.input(3)) {
    return c.output(0, c.add("Interpolate", 11, {c.need(0), *sizes},
                             {{"mode", resize_mode(c)}, {"shape_calculation_mode", "sizes"},
                              {"coordinate_transformation_mode", "asymmetric"}, {"nearest_mode", "floor"}}));
  }
  interpolate_scales(c, c.need(0), c.need(2));
}

// ---- recurrent ---------------------------------------------------------------------------------------

/// LSTM, GRU and RNN: ONNX's layout is sequence-major (X [L, N, I], states [D, N, H], Y [L, D, N, H])
/// unless layout = 1; OpenVINO's sequences are batch-major. Transposes on the way in and out, B's two
/// halves added (OpenVINO has one bias per gate), missing lengths and states filled.
template <int Gates>
void recurrent(node_context& c) {
  const char* type = Gates == 4 ? "LSTMSequence" : Gates == 3 ? "GRUSequence" : "RNNSequence";
  const auto hidden = c.i("hidden_size");
  if (!hidden) c.bad("needs the attribute hidden_size");
  const auto direction = c.s("direction", "forward");
  const std::int64_t dirs = direction == "bidirectional" ? 2 : 1;
  const bool batch_first = c.i("layout", 0) != 0;
  if (Gates == 4 && c.input(7)) return c.not_covered("LSTM with peepholes is not covered");
  const auto x0 = c.need(0);
  const auto x = batch_first ? x0 : c.add("Transpose", 1, {x0, c.i64({1, 0, 2})});
  const auto shape = c.shape_of(x);
  const auto batch = c.add("Gather", 8, {shape, c.i64({0}), c.i64({0}, std::vector<std::int64_t>{})}, {{"batch_dims", "0"}});
  const auto seq = c.add("Gather", 8, {shape, c.i64({1}), c.i64({0}, std::vector<std::int64_t>{})}, {{"batch_dims", "0"}});
  const auto state = [&](std::size_t port) {
    if (const auto s = c.input(port))
      return batch_first ? *s : c.add("Transpose", 1, {*s, c.i64({1, 0, 2})});
    const auto dims = c.add("Concat", 1, {batch, c.i64({dirs, *hidden})}, {{"axis", "0"}});
    return c.add("Broadcast", 3, {c.f32({0.0F}, true), dims}, {{"mode", "numpy"}});
  };
  const auto h0 = state(5);
  const auto lengths = c.input(4) ? *c.input(4) : c.add("Broadcast", 3, {seq, batch}, {{"mode", "numpy"}});
  const auto w = c.need(1), r = c.need(2);
  const auto g = (Gates == 3 && c.i("linear_before_reset", 0) != 0) ? 4 : Gates;
  source bias;
  if (const auto b = c.input(3)) {
    const auto halves = c.add("Split", 1, {*b, c.i64({1}, std::vector<std::int64_t>{})}, {{"num_splits", "2"}}, 2);
    bias = g == Gates ? c.add("Add", 1, {halves, source{halves.layer, 1}}, {{"auto_broadcast", "numpy"}})
                      : c.add("Concat", 1, {c.add("Add", 1, {halves, source{halves.layer, 1}}, {{"auto_broadcast", "numpy"}}),
                                            c.add("Broadcast", 3, {c.f32({0.0F}, true), c.i64({dirs, *hidden})}, {{"mode", "numpy"}})},
                                  {{"axis", "1"}});
    if (g != Gates) bias = c.add("StridedSlice", 1, {bias, c.i64({0, 0}), c.i64({0, g * *hidden}), c.i64({1, 1})},
                                 {{"begin_mask", "1,1"}, {"end_mask", "1,0"}});
  } else {
    bias = c.add("Broadcast", 3, {c.f32({0.0F}, true), c.i64({dirs, g * *hidden})}, {{"mode", "numpy"}});
  }
  std::vector<source> in{x, h0};
  if (Gates == 4) in.push_back(state(6));
  in.insert(in.end(), {lengths, w, r, bias});
  attributes a{{"hidden_size", fmt::format("{}", *hidden)}, {"direction", direction}};
  if (Gates == 3) a.emplace_back("linear_before_reset", c.i("linear_before_reset", 0) != 0 ? "true" : "false");
  const auto y = c.add(type, 5, std::move(in), std::move(a), Gates == 4 ? 3 : 2);
  // Y [N, D, L, H] back to [L, D, N, H] (or [N, L, D, H] batch-first); the states [N, D, H] to [D, N, H].
  c.output(0, c.add("Transpose", 1, {y, c.i64(batch_first ? std::vector<std::int64_t>{0, 2, 1, 3} : std::vector<std::int64_t>{2, 1, 0, 3})}));
  for (std::size_t k = 1; k < (Gates == 4 ? 3U : 2U); ++k) {
    const source s{y.layer, k};
    c.output(k, batch_first ? s : c.add("Transpose", 1, {s, c.i64({1, 0, 2})}));
  }
}

// ---- indexing and detection --------------------------------------------------------------------------

void non_zero(node_context& c) { c.output(0, c.add("NonZero", 3, {c.need(0)}, {{"output_type", "i64"}})); }
void scatter_elements(node_context& c) {
  const auto reduction = c.s("reduction", "none");
  c.output(0, c.add("ScatterElementsUpdate", 12, {c.need(0), c.need(1), c.need(2), c.i64({c.i("axis", 0)}, std::vector<std::int64_t>{})},
                    {{"reduction", reduction == "add" ? "sum" : reduction == "mul" ? "prod" : reduction}, {"use_init_val", "true"}}));
}
void scatter_nd(node_context& c) {
  if (c.s("reduction", "none") != "none") return c.not_covered("ScatterND with a reduction is not covered");
  c.output(0, c.add("ScatterNDUpdate", 4, {c.need(0), c.need(1), c.need(2)}));
}
void non_max_suppression(node_context& c) {
  std::vector<source> in{c.need(0), c.need(1)};
  for (std::size_t k = 2; k < 5; ++k) {
    if (const auto s = c.input(k)) {
      in.push_back(*s);
    } else {
      in.push_back(k == 2 ? c.i64({0}, std::vector<std::int64_t>{}) : c.f32({0.0F}, true));
    }
  }
  const auto y = c.add("NonMaxSuppression", 9, std::move(in),
                       {{"box_encoding", c.i("center_point_box", 0) != 0 ? "center" : "corner"},
                        {"sort_result_descending", "false"}, {"output_type", "i64"}},
                       3);
  c.output(0, y);
}
// Trilu: one triangle of each matrix in the last two axes kept, the rest zero. The mask compares column
// minus row with k, so an axis the batch is folded into keeps a meaning per position, as the batch rules
// then see.
void trilu(node_context& c) {
  const auto x = c.need(0);
  const auto shape = c.shape_of(x);
  const auto scalar = std::vector<std::int64_t>{};
  const auto dim = [&](std::int64_t axis) {
    return c.add("Gather", 8, {shape, c.i64({axis}, scalar), c.i64({0}, scalar)}, {{"batch_dims", "0"}});
  };
  const auto rows = c.add("Unsqueeze", 1, {c.add("Range", 4, {c.i64({0}, scalar), dim(-2), c.i64({1}, scalar)},
                                                 {{"output_type", "i64"}}),
                                           c.i64({1})});
  const auto cols = c.add("Range", 4, {c.i64({0}, scalar), dim(-1), c.i64({1}, scalar)}, {{"output_type", "i64"}});
  const auto diff = c.add("Subtract", 1, {cols, rows}, {{"auto_broadcast", "numpy"}});
  const auto k = c.input(1) ? *c.input(1) : c.i64({0}, scalar);
  const auto mask = c.add(c.i("upper", 1) != 0 ? "GreaterEqual" : "LessEqual", 1, {diff, k}, {{"auto_broadcast", "numpy"}});
  const auto zero = c.add("Subtract", 1, {x, x}, {{"auto_broadcast", "numpy"}});  // zeros of x's type
  c.output(0, c.add("Select", 1, {mask, x, zero}, {{"auto_broadcast", "numpy"}}));
}

/// A per-axis quantisation parameter (1-D, along `axis`) shaped to broadcast against the data; a
/// per-tensor one as it is. nullopt when the data's rank is unknown.
std::optional<source> along_axis(node_context& c, source p, std::size_t port) {
  const auto rank = c.rank(port);
  const auto prank = c.rank(0);
  if (rank && *rank == 0) return p;
  if (const auto v = c.constant_ints(port); v && v->size() == 1) return p;
  if (!prank) return std::nullopt;
  auto axis = c.i("axis", 1);
  if (axis < 0) axis += static_cast<std::int64_t>(*prank);
  std::vector<std::int64_t> pattern(*prank, 1);
  if (axis < 0 || axis >= static_cast<std::int64_t>(*prank)) c.bad(fmt::format("axis {} is out of range", c.i("axis", 1)));
  pattern[static_cast<std::size_t>(axis)] = -1;
  return c.add("Reshape", 1, {p, c.i64(pattern)}, {{"special_zero", "false"}});
}
// QuantizeLinear: x / scale + zero point, converted to the zero point's type (u8 by default).
void quantize(node_context& c) {
  const auto scale = along_axis(c, c.need(1), 1);
  if (!scale) return c.not_covered("per-axis QuantizeLinear on data of unknown rank is not covered");
  auto y = c.add("Divide", 1, {c.need(0), *scale}, {{"auto_broadcast", "numpy"}});
  std::string type = "u8";
  if (const auto zp = c.input(2)) {
    const auto shaped = along_axis(c, *zp, 2);
    if (!shaped) return c.not_covered("per-axis QuantizeLinear on data of unknown rank is not covered");
    y = c.add("Add", 1, {y, c.add("Convert", 1, {*shaped}, {{"destination_type", "f32"}})}, {{"auto_broadcast", "numpy"}});
    if (const auto t = c.constant_type(2)) type = std::string(name(*t));
  }
  c.output(0, c.add("Convert", 1, {y}, {{"destination_type", type}}));
}
// DequantizeLinear: (x - zero point) * scale, in f32.
void dequantize(node_context& c) {
  const auto scale = along_axis(c, c.need(1), 1);
  if (!scale) return c.not_covered("per-axis DequantizeLinear on data of unknown rank is not covered");
  auto y = c.add("Convert", 1, {c.need(0)}, {{"destination_type", "f32"}});
  if (const auto zp = c.input(2)) {
    const auto shaped = along_axis(c, *zp, 2);
    if (!shaped) return c.not_covered("per-axis DequantizeLinear on data of unknown rank is not covered");
    y = c.add("Subtract", 1, {y, c.add("Convert", 1, {*shaped}, {{"destination_type", "f32"}})}, {{"auto_broadcast", "numpy"}});
  }
  c.output(0, c.add("Multiply", 1, {y, *scale}, {{"auto_broadcast", "numpy"}}));
}

// If: a constant condition takes its branch, inlined. Otherwise both branches are inlined (a branch that
// fails or breaks the batch does so for the inputs that take it) and each output is an IfMerge of the two,
// which holds the batch only when both branches hold it alike.
void if_(node_context& c) {
  const auto* then_branch = c.attribute("then_branch");
  const auto* else_branch = c.attribute("else_branch");
  if (then_branch == nullptr || else_branch == nullptr || !then_branch->has_g() || !else_branch->has_g())
    c.bad("If needs the graph attributes then_branch and else_branch");
  if (const auto v = c.constant_ints(0); v && v->size() == 1) {
    const auto out = c.inline_subgraph((*v)[0] != 0 ? then_branch->g() : else_branch->g());
    for (std::size_t k = 0; k < out.size(); ++k) c.output(k, out[k]);
    return;
  }
  const auto cond = c.need(0);
  const auto a = c.inline_subgraph(then_branch->g());
  const auto b = c.inline_subgraph(else_branch->g());
  if (a.size() != b.size() || a.size() < c.outputs())
    c.bad(fmt::format("its branches have {} and {} outputs", a.size(), b.size()), fmt::format("the node has {}", c.outputs()));
  for (std::size_t k = 0; k < c.outputs(); ++k) c.output(k, c.add("IfMerge", 1, {cond, a[k], b[k]}));
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

// Loop: OpenVINO's Loop-5, as its ONNX frontend builds it. The body becomes a graph of its own: the
// iteration number is the Loop's current_iteration, the condition and each carried value a Parameter fed
// by the node's input at the first iteration and by the body's output after it (a back edge), the body's
// condition output the Loop's execution_condition, each scan output unsqueezed at axis 0 and concatenated
// along it over the iterations. A tensor of the enclosing graph the body reads is one more input of the
// Loop, invariant across iterations. No trip count is -1 (no bound), no condition is true.
void loop(node_context& c) {
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
  if (c.outputs() > carried + scans)
    c.bad(fmt::format("it has {} outputs", c.outputs()),
          fmt::format("its body gives {} (the carried values, then scan outputs)", carried + scans));
  node_context::axes unsqueezed(static_cast<std::size_t>(g.output_size()));
  for (std::size_t k = 1 + carried; k < unsqueezed.size(); ++k) unsqueezed[k] = 0;
  auto lowered = c.lower_body(g, {}, unsqueezed);

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

// Scan (from 9): OpenVINO's TensorIterator-1, as its ONNX frontend builds it. The state variables are body
// Parameters fed by the node's inputs and then, by back edges, by the body's outputs; each scan input is
// sliced along its axis (backwards for direction 1), one element a step, the body seeing it without that
// axis (a Squeeze: OpenVINO's slice keeps it with size 1); each scan output is unsqueezed at its axis and
// concatenated along it. A tensor of the graph around the body that the body reads is an invariant input.
void scan(node_context& c) {
  const auto* body = c.attribute("body");
  if (body == nullptr || !body->has_g()) c.bad("Scan needs the graph attribute body");
  const auto& g = body->g();
  const auto m = c.i("num_scan_inputs");
  if (!m || *m < 1 || static_cast<std::size_t>(*m) > c.inputs())
    c.bad(fmt::format("num_scan_inputs must be between 1 and its {} inputs", c.inputs()));
  const auto scanned = static_cast<std::size_t>(*m);
  const std::size_t states = c.inputs() - scanned;
  if (static_cast<std::size_t>(g.input_size()) != states + scanned)
    c.bad(fmt::format("its body has {} inputs", g.input_size()),
          fmt::format("the node gives {} (state variables, then scan inputs)", states + scanned));
  if (static_cast<std::size_t>(g.output_size()) < states)
    c.bad(fmt::format("its body has {} outputs, fewer than its {} state variables", g.output_size(), states));
  const std::size_t outputs = static_cast<std::size_t>(g.output_size()) - states;
  if (c.outputs() > states + outputs)
    c.bad(fmt::format("it has {} outputs", c.outputs()), fmt::format("its body gives {}", states + outputs));
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
  auto lowered = c.lower_body(g, squeezed, unsqueezed);

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

const std::vector<onnx_entry>& table() {
  static const std::vector<onnx_entry> rows = [] {
    std::vector<onnx_entry> r = {
        {"Abs", 6, unary<Abs>}, {"Acos", 7, unary<Acos>}, {"Asin", 7, unary<Asin>}, {"Atan", 7, unary<Atan>},
        {"Ceil", 6, unary<Ceiling>}, {"Cos", 7, unary<Cos>}, {"Cosh", 9, unary<Cosh>}, {"Erf", 9, unary<Erf>},
        {"Exp", 6, unary<Exp>}, {"Floor", 6, unary<Floor>}, {"Log", 6, unary<Log>}, {"Neg", 6, unary<Negative>},
        {"Not", 1, unary<LogicalNot>}, {"Relu", 6, unary<ReLU>}, {"Sigmoid", 6, unary<Sigmoid>},
        {"Sign", 9, unary<Sign>}, {"Sin", 7, unary<Sin>}, {"Sinh", 9, unary<Sinh>}, {"Softplus", 1, unary<SoftPlus, 4>},
        {"Sqrt", 6, unary<Sqrt>}, {"Tan", 7, unary<Tan>}, {"Tanh", 6, unary<Tanh>}, {"HardSwish", 14, unary<HSwish, 4>},
        {"Round", 11, round_}, {"Reciprocal", 6, reciprocal}, {"Elu", 6, elu}, {"LeakyRelu", 6, leaky_relu},
        {"PRelu", 7, prelu}, {"HardSigmoid", 6, hard_sigmoid}, {"Identity", 1, identity}, {"Dropout", 7, dropout},
        {"Cast", 6, cast}, {"Clip", 6, clip6}, {"Clip", 11, clip11},
        {"Add", 7, binary<Add>}, {"Sub", 7, binary<Subtract>}, {"Mul", 7, binary<Multiply>},
        {"Div", 7, binary<Divide>}, {"Pow", 7, binary<Power>}, {"Equal", 7, binary<Equal>},
        {"Greater", 7, binary<Greater>}, {"Less", 7, binary<Less>}, {"GreaterOrEqual", 12, binary<GreaterEqual>},
        {"LessOrEqual", 12, binary<LessEqual>}, {"And", 7, binary<LogicalAnd>}, {"Or", 7, binary<LogicalOr>},
        {"Xor", 7, binary<LogicalXor>}, {"Mod", 10, mod}, {"Where", 9, where},
        {"Max", 8, variadic<Maximum>}, {"Min", 8, variadic<Minimum>}, {"Sum", 8, variadic<Add>}, {"Mean", 8, mean},
        {"Conv", 1, conv}, {"ConvTranspose", 1, conv_transpose}, {"MaxPool", 8, max_pool},
        {"AveragePool", 7, average_pool}, {"GlobalAveragePool", 1, global_pool<ReduceMean>},
        {"GlobalMaxPool", 1, global_pool<ReduceMax>}, {"BatchNormalization", 7, batch_norm}, {"BatchNormalization", 14, batch_norm},
        {"InstanceNormalization", 6, instance_norm},
        {"MeanVarianceNormalization", 1, mean_variance_norm}, {"MeanVarianceNormalization", 9, mean_variance_norm},
        {"MeanVarianceNormalization", 13, mean_variance_norm}, {"LayerNormalization", 17, layer_norm}, {"LRN", 1, lrn},
        {"Softmax", 1, softmax1}, {"Softmax", 13, softmax13}, {"LogSoftmax", 1, log_softmax1},
        {"LogSoftmax", 13, log_softmax13}, {"MatMul", 1, matmul}, {"Gemm", 7, gemm}, {"Einsum", 12, einsum},
        {"Reshape", 5, reshape5}, {"Reshape", 14, reshape5}, {"Shape", 1, shape1}, {"Shape", 15, shape15},
        {"Size", 1, size}, {"Flatten", 1, flatten}, {"Squeeze", 1, squeeze1}, {"Squeeze", 13, squeeze13},
        {"Unsqueeze", 1, unsqueeze1}, {"Unsqueeze", 13, unsqueeze13}, {"Transpose", 1, transpose},
        {"Concat", 4, concat}, {"Split", 2, split}, {"Split", 13, split}, {"Split", 18, split},
        {"Slice", 1, slice1}, {"Slice", 10, slice10}, {"Gather", 1, gather}, {"GatherElements", 11, gather_elements},
        {"GatherND", 11, gather_nd}, {"Expand", 8, expand}, {"Tile", 6, tile},
        {"ConstantOfShape", 9, constant_of_shape}, {"Range", 11, range}, {"Constant", 1, constant},
        {"DepthToSpace", 1, depth_to_space}, {"SpaceToDepth", 1, space_to_depth}, {"Pad", 2, pad2},
        {"Pad", 11, pad11},
        // A translation sees the since_version of its row: the version that moves the axes from an
        // attribute to an input has a row of its own.
        {"ReduceMean", 1, reduce<ReduceMean, 18>}, {"ReduceMean", 18, reduce<ReduceMean, 18>},
        {"ReduceMax", 1, reduce<ReduceMax, 18>}, {"ReduceMax", 18, reduce<ReduceMax, 18>},
        {"ReduceMin", 1, reduce<ReduceMin, 18>}, {"ReduceMin", 18, reduce<ReduceMin, 18>},
        {"ReduceProd", 1, reduce<ReduceProd, 18>}, {"ReduceProd", 18, reduce<ReduceProd, 18>},
        {"ReduceSum", 1, reduce<ReduceSum, 13>}, {"ReduceSum", 13, reduce<ReduceSum, 13>},
        {"ReduceL2", 1, reduce<ReduceL2, 18, 4>}, {"ReduceL2", 18, reduce<ReduceL2, 18, 4>},
        {"ReduceL1", 1, reduce<ReduceL1, 18, 4>}, {"ReduceL1", 18, reduce<ReduceL1, 18, 4>}, {"ArgMax", 1, arg<true>}, {"ArgMin", 1, arg<false>},
        {"TopK", 1, top_k}, {"TopK", 10, top_k}, {"Upsample", 7, upsample7}, {"Upsample", 9, upsample9},
        {"Resize", 10, resize10}, {"Resize", 11, resize11}, {"LSTM", 7, recurrent<4>}, {"GRU", 7, recurrent<3>},
        {"RNN", 7, recurrent<1>}, {"NonZero", 9, non_zero}, {"ScatterElements", 11, scatter_elements},
        {"ScatterND", 11, scatter_nd}, {"NonMaxSuppression", 10, non_max_suppression}, {"Trilu", 14, trilu},
        {"If", 1, if_}, {"Loop", 1, loop}, {"Scan", 9, scan}, {"QuantizeLinear", 10, quantize}, {"DequantizeLinear", 10, dequantize},
    };
    std::sort(r.begin(), r.end(), [](const onnx_entry& a, const onnx_entry& b) {
      return a.op_type != b.op_type ? a.op_type < b.op_type : a.since < b.since;
    });
    return r;
  }();
  return rows;
}

}  // namespace

std::span<const onnx_entry> onnx_table() noexcept { return table(); }

const onnx_entry* find_translation(std::string_view op_type, int opset) noexcept {
  const onnx_entry* best = nullptr;
  for (const auto& e : table())
    if (e.op_type == op_type && e.since <= opset) best = &e;
  return best;
}

}  // namespace reshape1::onnx::detail
