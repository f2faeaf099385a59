// The helpers every op family uses, and the one table of rules by (type, opset version).
#include "model/ops/rules.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

#include <fmt/format.h>

#include "detail/assert.hpp"
#include "detail/fail.hpp"
#include "io/files.hpp"

namespace reshape1::model::detail {

namespace {
/// The facts of each registry type that hold for all its versions, one row per type (rule_table() puts them
/// on its rows): its versions in OpenVINO's operation specifications (the files `name-N.rst` of
/// docs/articles_en/documentation/openvino-ir-format/operation-sets/operation-specs in OpenVINO's
/// repository, read 2026-11; the specification names each op as the IR writes it, except Const), its part
/// in the graph, the inputs it reads as sizes, and whether it is elementwise arithmetic.
struct type_facts {
  std::string_view type;
  std::array<int, 6> versions;  // ascending, then zeros; none for an op OpenVINO does not specify
  op_part part = op_part::other;
  std::span<const std::size_t> sizes{};
  bool arithmetic = false;
};
template <std::size_t... Port>
constexpr std::array<std::size_t, sizeof...(Port)> at{Port...};
constexpr type_facts facts[] = {
    {"Abs", {1}},
    {"Acos", {1}},
    {"Acosh", {3}},
    {"AdaptiveAvgPool", {8}},
    {"AdaptiveMaxPool", {8}},
    {"Add", {1}, op_part::other, at<0, 1>, true},
    {"Asin", {1}},
    {"Asinh", {3}},
    {"Atan", {1}},
    {"Atanh", {3}},
    {"AvgPool", {1, 14, 16}},
    {"BatchNormInference", {1, 5}},
    {"BitwiseAnd", {13}},
    {"BitwiseLeftShift", {15}},
    {"BitwiseNot", {13}},
    {"BitwiseOr", {13}},
    {"BitwiseRightShift", {15}},
    {"BitwiseXor", {13}},
    {"Broadcast", {1, 3}, op_part::other, at<1>},
    {"CTCGreedyDecoder", {1}},
    {"CTCGreedyDecoderSeqLen", {6}},
    {"Ceiling", {1}},
    {"Clamp", {1}},
    {"Concat", {1}, op_part::concat},
    {"Const", {1}, op_part::constant},
    {"Convert", {1}, op_part::passes_values},
    {"ConvertLike", {1}},
    {"Convolution", {1}},
    {"ConvolutionBackpropData", {1}, op_part::other, at<2>},
    {"Cos", {1}},
    {"Cosh", {1}},
    {"CumSum", {3}},
    {"DepthToSpace", {1}},
    {"DetectionOutput", {1, 8}},
    {"Divide", {1}, op_part::other, at<0, 1>, true},
    {"Einsum", {7}},
    {"Elu", {1}},
    {"Equal", {1}},
    {"Erf", {1}},
    {"Exp", {1}},
    {"FakeQuantize", {1}},
    {"Floor", {1}},
    {"FloorMod", {1}, op_part::other, at<0, 1>, true},
    {"GRUCell", {3}},
    {"GRUSequence", {5}, op_part::other, at<2>},
    {"Gather", {1, 7, 8}, op_part::other, at<1>},
    {"GatherElements", {6}},
    {"GatherND", {5, 8}},
    {"Gelu", {2, 7}},
    {"Greater", {1}},
    {"GreaterEqual", {1}},
    {"GroupConvolution", {1}},
    {"GroupConvolutionBackpropData", {1}, op_part::other, at<2>},
    {"GroupNormalization", {12}},
    {"HSigmoid", {5}},
    {"HSwish", {4}},
    {"HardSigmoid", {1}},
    {"IfMerge", {}, op_part::if_merge},
    {"Interpolate", {1, 4, 11}, op_part::other, at<1, 2>},
    {"LRN", {1}},
    {"LSTMCell", {1}},
    {"LSTMSequence", {1, 5}, op_part::other, at<3>},
    {"Less", {1}},
    {"LessEqual", {1}},
    {"Log", {1}},
    {"LogSoftmax", {5}},
    {"LogicalAnd", {1}},
    {"LogicalNot", {1}},
    {"LogicalOr", {1}},
    {"LogicalXor", {1}},
    {"Loop", {5}, op_part::runs_body},
    {"MVN", {1, 6}},
    {"MatMul", {1}},
    {"MaxPool", {1, 8, 14}},
    {"Maximum", {1}, op_part::other, at<0, 1>, true},
    {"Minimum", {1}, op_part::other, at<0, 1>, true},
    {"Mish", {4}},
    {"Mod", {1}, op_part::other, at<0, 1>, true},
    {"Multiply", {1}, op_part::other, at<0, 1>, true},
    {"Negative", {1}},
    {"NonMaxSuppression", {1, 3, 4, 5, 9}},
    {"NonZero", {3}},
    {"NormalizeL2", {1}},
    {"NotEqual", {1}},
    {"PReLU", {1}},
    {"Pad", {1, 12}, op_part::other, at<1, 2>},
    {"Parameter", {1}, op_part::parameter},
    {"Power", {1}},
    {"PriorBox", {1, 8}},
    {"PriorBoxClustered", {1}},
    {"Proposal", {1, 4}},
    {"RNNCell", {3}},
    {"RNNSequence", {5}, op_part::other, at<2>},
    {"ROIAlign", {3, 9}},
    {"ROIPooling", {1}},
    {"RandomUniform", {8}, op_part::other, at<0>},
    {"Range", {1, 4}, op_part::other, at<0, 1, 2>},
    {"ReLU", {1}},
    {"ReduceL1", {4}},
    {"ReduceL2", {4}},
    {"ReduceLogicalAnd", {1}},
    {"ReduceLogicalOr", {1}},
    {"ReduceMax", {1}},
    {"ReduceMean", {1}},
    {"ReduceMin", {1}},
    {"ReduceProd", {1}},
    {"ReduceSum", {1}},
    {"RegionYolo", {1}},
    {"Reshape", {1}, op_part::reshape, at<1>},
    {"Result", {1}, op_part::result},
    {"Round", {5}},
    {"ScatterElementsUpdate", {3, 12}},
    {"ScatterNDUpdate", {3, 14, 15}},
    {"ScatterUpdate", {3}},
    {"Select", {1}},
    {"Selu", {1}},
    {"ShapeOf", {1, 3}},
    {"ShuffleChannels", {1}},
    {"Sigmoid", {1}},
    {"Sign", {1}},
    {"Sin", {1}},
    {"Sinh", {1}},
    {"Slice", {8}, op_part::other, at<1, 2, 3>},
    {"SoftMax", {1, 8}},
    {"SoftPlus", {4}},
    {"SoftSign", {9}},
    {"SpaceToDepth", {1}},
    {"Split", {1}},
    {"Sqrt", {1}},
    {"SquaredDifference", {1}},
    {"Squeeze", {1, 15}, op_part::passes_values},
    {"StridedSlice", {1}, op_part::other, at<1, 2, 3>},
    {"Subtract", {1}, op_part::other, at<0, 1>, true},
    {"Swish", {4}},
    {"Tan", {1}},
    {"Tanh", {1}},
    {"TensorIterator", {1}, op_part::runs_body},
    {"Tile", {1}, op_part::other, at<1>},
    {"TopK", {1, 3, 11}, op_part::other, at<1>},
    {"Transpose", {1}},
    {"Unsqueeze", {1}, op_part::passes_values},
    {"VariadicSplit", {1}, op_part::other, at<2>},
};

/// The specification's version a row of `opset` implements: the IR writes the opset an op version was
/// taken into, the specification numbers the version itself, which came in that opset or before it (MVN-1
/// is written opset2). A row older than every version of the specification (RNNCell, written opset1) is
/// the first version.
int spec_version(const type_facts& f, int opset) {
  int version = f.versions[0];
  for (const auto v : f.versions)
    if (v != 0 && v <= opset) version = v;
  return version;
}

const type_facts* facts_of(std::string_view type) {
  const auto* it = std::lower_bound(std::begin(facts), std::end(facts), type,
                                    [](const type_facts& f, std::string_view t) { return f.type < t; });
  return it != std::end(facts) && it->type == type ? it : nullptr;
}
}  // namespace

std::string spec_name(std::string_view type, int opset) {
  const auto* e = find_entry(type, opset);
  if (e == nullptr || e->spec == 0) return {};
  return fmt::format("{}-{}", e->part == op_part::constant ? std::string_view("Constant") : e->type, e->spec);
}

namespace {
// part_of is asked of every layer many times per analysis (each walk and each propagation), so the few
// types with a part sit in a table indexed by a hash of a type's length and end letters: one compare per
// call. The hash is checked, when this file compiles, to give each of them a slot of its own.
constexpr std::size_t part_slots = 64;
constexpr std::size_t part_slot(std::string_view type) noexcept {
  if (type.empty()) return 0;
  return (type.size() * 7 + static_cast<unsigned char>(type.front()) * 3 + static_cast<unsigned char>(type.back())) %
         part_slots;
}
constexpr auto part_table = [] {
  std::array<std::pair<std::string_view, op_part>, part_slots> table{};
  for (const auto& f : facts) {
    if (f.part == op_part::other) continue;
    auto& slot = table[part_slot(f.type)];
    if (!slot.first.empty()) throw "two types with a part share a slot of part_table: change part_slot";
    slot = {f.type, f.part};
  }
  return table;
}();
}  // namespace

op_part part_of(std::string_view type) noexcept {
  const auto& [name, part] = part_table[part_slot(type)];
  return !name.empty() && name == type ? part : op_part::other;
}

const rule_entry* first_entry(std::string_view type) noexcept {
  const auto table = rule_table();
  const auto* it = std::lower_bound(table.data(), table.data() + table.size(), type,
                                    [](const rule_entry& e, std::string_view t) { return e.type < t; });
  return it != table.data() + table.size() && it->type == type ? it : nullptr;
}

const layer* op::constant_source(std::size_t i) const {
  if (i >= l.sources.size() || !l.sources[i]) return nullptr;
  const auto& s = g.layers()[l.sources[i]->layer];
  return part_of(s) == op_part::constant ? &s : nullptr;
}

void op::need(std::size_t inputs, std::size_t outputs) const {
  if (in.size() < inputs || out.size() < outputs)
    refuse(*this, fmt::format("{} {} needs {} inputs and {} outputs", l.type, l.version, inputs, outputs),
           fmt::format("the layer has {} and {}", in.size(), out.size()));
}

std::optional<element_type> op::declared_type(std::size_t i) const {
  return i < l.outputs.size() ? l.outputs[i].type : std::nullopt;
}

void refuse(const op& o, const std::string& what, const std::string& hint) {
  reshape1::detail::fail(errc::invalid_shape, {}, fmt::format("{}: {}", o.l.where(), what), hint);
}

partial_shape without_symbols(const partial_shape& s) {
  if (!s.rank_known()) return s;
  std::vector<dimension> dims;
  dims.reserve(s.size());
  for (const auto& d : s) dims.emplace_back(d.range());
  return partial_shape(std::move(dims));
}

bool reads_as_symbol(std::string_view name) noexcept {
  const auto letter = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; };
  return !name.empty() && letter(name[0]) && std::all_of(name.begin(), name.end(), [&](char c) {
           return letter(c) || std::isdigit(static_cast<unsigned char>(c)) != 0;
         });
}

partial_shape with_given_symbols(const partial_shape& s) {
  if (!s.rank_known()) return s;
  std::vector<dimension> dims;
  dims.reserve(s.size());
  for (const auto& d : s)
    dims.emplace_back(d.range(), d.has_symbol() && reads_as_symbol(d.symbol().name()) ? d.symbol() : symbol{});
  return partial_shape(std::move(dims));
}

partial_shape parameter_shape(const layer& l) {
  const auto port = l.outputs.empty() ? partial_shape::dynamic() : l.outputs[0].shape();
  const auto* a = l.find("shape");
  if (a == nullptr || part_of(l) != op_part::parameter) return port;
  try {
    const auto text = detail::trim(a->text);
    return parse_shape(text == "..." ? std::string("[...]") : fmt::format("[{}]", text));
  } catch (const error&) {
    return port;  // an attribute that does not read (OpenVINO would refuse the model): the port's dims
  }
}

std::size_t normalize_axis(const op& o, std::int64_t axis, std::size_t rank, std::string_view what) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r)
    refuse(o, fmt::format("{} {} is out of range for rank {}", what, axis, rank));
  return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

dimension merge(const op& o, const dimension& a, const dimension& b, std::string_view what) {
  if (!a.range().intersects(b.range()))
    refuse(o, fmt::format("{}: {} and {} cannot be equal", what, to_string(dimension(a.range())),
                          to_string(dimension(b.range()))));
  const interval r(std::max(a.lo(), b.lo()), std::min(a.hi(), b.hi()));
  if (a.has_symbol() && a.range() == r) return a;
  if (b.has_symbol() && b.range() == r) return b;
  return dimension(r, a.has_symbol() ? a.symbol() : b.symbol());
}

partial_shape broadcast(const op& o, const partial_shape& a, const partial_shape& b) {
  if (!a.rank_known() || !b.rank_known()) return partial_shape::dynamic();
  const std::size_t rank = std::max(a.size(), b.size());
  std::vector<dimension> dims(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const bool has_a = i + a.size() >= rank, has_b = i + b.size() >= rank;
    const dimension one(1);
    const dimension& x = has_a ? a[i + a.size() - rank] : one;
    const dimension& y = has_b ? b[i + b.size() - rank] : one;
    if (x.is_static() && x.lo() == 1) {
      dims[i] = y;
    } else if (y.is_static() && y.lo() == 1) {
      dims[i] = x;
    } else if (x.is_static() && y.is_static()) {
      if (x.lo() != y.lo())
        refuse(o, fmt::format("the shapes {} and {} do not broadcast: dimension {} is {} and {}", to_string(a),
                              to_string(b), i, x.lo(), y.lo()));
      dims[i] = x;
    } else if (x.is_static() || y.is_static()) {
      // A static n > 1 against a dynamic dimension: the dynamic one must be n (or 1).
      const dimension& s = x.is_static() ? x : y;
      const dimension& d = x.is_static() ? y : x;
      if (!d.range().contains(s.lo()) && !d.range().contains(1))
        refuse(o, fmt::format("the shapes {} and {} do not broadcast: dimension {} is {} and {}", to_string(a),
                              to_string(b), i, to_string(dimension(x.range())), to_string(dimension(y.range()))));
      dims[i] = s;
    } else if (x == y) {
      dims[i] = x;
    } else {
      dims[i] = dimension(interval(std::max(x.lo(), y.lo()), std::max(x.hi(), y.hi())));
    }
  }
  return partial_shape(std::move(dims));
}

dimension dimension_from(const element_bound& e) {
  const std::int64_t lo = e.lo < 0 ? 0 : e.lo;
  const std::int64_t hi = e.hi < 0 ? 0 : e.hi;
  return dimension(interval(lo, hi < lo ? lo : hi), e.symbol);
}

element_bound bound_of(const dimension& d) {
  return {d.lo(), d.range().is_bounded() ? d.hi() : element_bound::no_upper, d.symbol(), false};
}

dimension span_dimension(std::int64_t lo, std::int64_t hi) { return dimension(interval(lo, hi)); }

std::optional<std::int64_t> small_count(const partial_shape& s) {
  if (!s.is_static()) return std::nullopt;
  std::int64_t n = 1;
  for (const auto& d : s) {
    if (d.lo() > max_value_elements) return std::nullopt;
    n *= d.lo();
    if (n > max_value_elements) return std::nullopt;
  }
  return n;
}

std::optional<std::vector<std::int64_t>> exact_values(const std::optional<tensor_value>& v) {
  if (!v || v->is_real()) return std::nullopt;
  std::vector<std::int64_t> r;
  r.reserve(v->elements.size());
  for (const auto& e : v->elements) {
    if (!e.exact()) return std::nullopt;
    r.push_back(e.lo);
  }
  return r;
}

std::optional<partial_shape> shape_from_value(const op& o, std::size_t input) {
  const auto& v = o.value(input);
  if (v && !v->is_real()) {
    std::vector<dimension> dims;
    for (const auto& e : v->elements) dims.push_back(dimension_from(e));
    return partial_shape(std::move(dims));
  }
  const auto& s = o.shape(input);
  if (s.rank_known() && s.size() <= 1 && (s.size() == 0 || (s[0].is_static() && s[0].lo() <= max_value_elements))) {
    return partial_shape(std::vector<dimension>(s.size() == 0 ? 1 : static_cast<std::size_t>(s[0].lo())));
  }
  return std::nullopt;
}

std::optional<std::vector<std::int64_t>> known_integers(const op& o, std::size_t input) {
  if (input >= o.in.size()) return std::nullopt;
  return exact_values(o.value(input));
}

namespace {

/// Refuses element `i` (`e`) of input `input` where it lies outside [-n, n) for every size n the dimension
/// `d` (axis `axis`, "of the data" where `of_data`) may have.
void refuse_if_past(const op& o, std::size_t input, std::size_t i, const element_bound& e, const dimension& d,
                    std::size_t axis, bool of_data) {
  if (!d.range().is_bounded() || (e.lo < d.hi() && e.hi >= -d.hi())) return;
  refuse(o,
         fmt::format("index {} (element {} of input {}) is outside axis {}{}, which holds {}",
                     e.exact() ? fmt::format("{}", e.lo) : fmt::format("{}..{}", e.lo, e.hi), i, input, axis,
                     of_data ? " of the data" : "", to_string(d)),
         "engines refuse an index past the axis when the model runs");
}

}  // namespace

void refuse_indices_past(const op& o, std::size_t input, const dimension& axis_dim, std::size_t axis) {
  if (input >= o.in.size()) return;
  const auto* v = o.value(input) ? &*o.value(input) : nullptr;
  // A Const of more indices than the propagation carries (a GatherElements' table of positions) is read here,
  // up to max_value_elements: its indices decide whether the layer runs at all at a new size.
  std::optional<tensor_value> read;
  if (v == nullptr && input < o.l.sources.size() && o.l.sources[input] && axis_dim.range().is_bounded()) {
    const auto& holder = o.g.layers()[o.l.sources[input]->layer];
    const auto count = small_count(o.shape(input));
    const auto& type = o.in[input]->type;
    if (part_of(holder.type) == op_part::constant && count && *count <= max_value_elements && type && is_integer(*type))
      read = const_values(o.g, holder, *type, *count);
    if (read) v = &*read;
  }
  if (v == nullptr || v->is_real()) return;
  for (std::size_t i = 0; i < v->elements.size(); ++i)
    refuse_if_past(o, input, i, v->elements[i], axis_dim, axis, false);
}

void refuse_index_tuples_past(const op& o, std::size_t input, const partial_shape& data, std::size_t first,
                              std::size_t k) {
  if (input >= o.in.size() || k == 0 || !data.rank_known() || first + k > data.size()) return;
  const auto& v = o.value(input);
  if (!v || v->is_real()) return;
  for (std::size_t i = 0; i < v->elements.size(); ++i) {
    const auto axis = first + i % k;
    refuse_if_past(o, input, i, v->elements[i], data[axis], axis, true);
  }
}

void require_index_input(const op& o, std::size_t input, std::string_view what, bool one_d) {
  if (input >= o.in.size()) return;
  if (const auto& t = o.in[input]->type; t && !is_integer(*t))
    refuse(o, fmt::format("{} (input {}) is {}, not an integer type", what, input, name(*t)),
           "indices, bounds and repeats are integers (i64 or i32)");
  if (const auto& s = o.shape(input); one_d && s.rank_known() && s.size() != 1)
    refuse(o, fmt::format("{} (input {}) must be a 1-D tensor, got shape {}", what, input, to_string(s)));
}

std::optional<tensor_value> gather_value(const tensor_value& v, const std::vector<std::size_t>& positions) {
  tensor_value r;
  if (v.is_real()) {
    r.reals.reserve(positions.size());
    if (v.reals_computed.empty()) {  // (every real a constant, as nearly always: no flag to carry)
      for (auto p : positions) r.reals.push_back(v.reals.at(p));
    } else {
      for (auto p : positions) r.push_real(v.reals.at(p), v.real_constant(p));
    }
  } else {
    r.elements.reserve(positions.size());
    for (auto p : positions) r.elements.push_back(v.elements.at(p));
  }
  return r;
}

std::optional<std::size_t> port_index(std::span<const port> ports, std::int64_t id) noexcept {
  for (std::size_t i = 0; i < ports.size(); ++i)
    if (ports[i].id == id) return i;
  return std::nullopt;
}

std::vector<std::size_t> strides_of(const shape& s) {
  std::vector<std::size_t> st(s.size(), 1);
  for (std::size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * static_cast<std::size_t>(s[i]);
  return st;
}

/// For each row-major position of `out`, the position in `in` that NumPy broadcasting reads. The output
/// coordinates advance like an odometer (the last axis first), and the input position moves with them by
/// each axis's input stride (0 where the input has 1 or no such axis): no division per element.
std::vector<std::size_t> broadcast_positions(const shape& in, const shape& out) {
  const std::size_t rank = out.size();
  const std::size_t shift = rank - in.size();
  const auto in_strides = strides_of(in);
  std::vector<std::size_t> step(rank, 0), size(rank);
  std::size_t count = 1;
  for (std::size_t i = 0; i < rank; ++i) {
    size[i] = static_cast<std::size_t>(out[i]);
    count *= size[i];
    if (i >= shift && in[i - shift] != 1) step[i] = in_strides[i - shift];
  }
  std::vector<std::size_t> r(count), coordinate(rank, 0);
  std::size_t p = 0;
  for (std::size_t k = 0; k < count; ++k) {
    r[k] = p;
    for (std::size_t i = rank; i-- > 0;) {
      if (++coordinate[i] < size[i]) {
        p += step[i];
        break;
      }
      p -= step[i] * (size[i] - 1);  // this axis wraps to 0 and the one before it moves
      coordinate[i] = 0;
    }
  }
  return r;
}

void copy_const_bytes(const graph& g, std::span<const std::byte> bytes, std::span<std::byte> to) {
  RESHAPE1_ASSERT(to.size() >= bytes.size());
  io::detail::guarded_copy(to.data(), bytes.data(), bytes.size(), g.bin_file());
}

namespace {
bool before(const rule_entry& a, const rule_entry& b) { return a.type != b.type ? a.type < b.type : a.opset < b.opset; }
}  // namespace

std::span<const rule_entry> rule_table() noexcept {
  // The one table: every family's rules, sorted by (type, opset) once.
  static const std::vector<rule_entry> table = [] {
    std::vector<rule_entry> all;
    for (const auto& family : {elementwise_rules(), convolution_rules(), pooling_rules(), matmul_rules(),
                               shape_rules(), data_movement_rules(), resize_rules(), reduction_rules(),
                               detection_rules(), recurrent_rules(), normalization_rules(), indexing_rules(),
                               einsum_rules(), subgraph_rules()})
      all.insert(all.end(), family.begin(), family.end());
    std::sort(all.begin(), all.end(), before);
    for (auto& e : all)
      if (const auto* f = facts_of(e.type)) {
        e.spec = spec_version(*f, e.opset);
        e.part = f->part;
        e.sizes = f->sizes;
        e.arithmetic = f->arithmetic;
      }
    return all;
  }();
  return table;
}

std::string rule_table_problems() {
  std::string r;
  const auto table = rule_table();
  for (std::size_t i = 1; i < table.size(); ++i)
    if (table[i].type == table[i - 1].type && table[i].opset == table[i - 1].opset)
      r += fmt::format("{}-{} has two rows\n", table[i].type, table[i].opset);
  for (const auto& f : facts)
    if (first_entry(f.type) == nullptr) r += fmt::format("{} has facts but no row\n", f.type);
  for (std::size_t i = 1; i < std::size(facts); ++i)
    if (!(facts[i - 1].type < facts[i].type)) r += fmt::format("{}: the types' facts are not sorted, or twice\n", facts[i].type);
  return r;
}

namespace {
/// Mixes the length, the first and the last (up to) 8 bytes of the type and the opset: a few instructions
/// rather than a multiplication per character. Each 8 bytes are one load for types of 8 characters or
/// more; a shorter type is gathered byte by byte in a register (a copy of variable length through memory
/// stalls the load that reads it back; bench/README.md, "Design choices").
std::size_t hash_of(std::string_view type, int opset) noexcept {
  std::uint64_t head = 0, tail = 0;
  if (type.size() >= 8) {
    std::memcpy(&head, type.data(), 8);
    std::memcpy(&tail, type.data() + type.size() - 8, 8);
  } else {
    for (const char c : type) head = (head << 8) | static_cast<unsigned char>(c);
    tail = head;
  }
  std::uint64_t h = (head ^ (tail * 0x9E3779B97F4A7C15u) ^ (std::uint64_t{type.size()} << 56) ^ static_cast<std::uint64_t>(opset)) *
                    0xBF58476D1CE4E5B9u;
  return static_cast<std::size_t>(h ^ (h >> 31));
}
}  // namespace

const rule_entry* find_entry(std::string_view type, int opset) noexcept {
  // Looked up once per layer per propagation: an open-addressing table over rule_table(), at least four
  // times as large, finds a rule with one hash and (almost always) one comparison.
  static const auto index = [] {
    const auto table = rule_table();
    std::size_t size = 64;
    while (size < 4 * table.size()) size *= 2;
    std::vector<const rule_entry*> slots(size, nullptr);
    for (const auto& e : table) {
      auto k = hash_of(e.type, e.opset) & (size - 1);
      while (slots[k] != nullptr) k = (k + 1) & (size - 1);
      slots[k] = &e;
    }
    return slots;
  }();
  const std::size_t mask = index.size() - 1;
  for (auto k = hash_of(type, opset) & mask; index[k] != nullptr; k = (k + 1) & mask)
    if (index[k]->opset == opset && index[k]->type == type) return index[k];
  return nullptr;
}

rule find_rule(std::string_view type, int opset) noexcept {
  const auto* e = find_entry(type, opset);
  return e == nullptr ? nullptr : e->fn;
}

}  // namespace reshape1::model::detail
