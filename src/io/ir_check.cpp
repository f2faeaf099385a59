// The checker of an IR model's Reshape layers, and the evaluator of the shape sub-graphs that compute
// their patterns (ShapeOf, Gather, Concat, Convert, Squeeze, Unsqueeze, Slice, StridedSlice, and
// integer arithmetic), giving values or per-element bounds.
#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "../detail/checked.hpp"
#include "reshape1/error.hpp"
#include "reshape1/io/ir.hpp"
#include "reshape1/reshape.hpp"

namespace reshape1::io {
namespace {

constexpr std::int64_t lowest = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t highest = std::numeric_limits<std::int64_t>::max();

/// One element of a shape value: bounds (lowest..highest when unknown), a symbol, and whether it
/// comes from constants only (a value the model hard-codes).
struct element {
  std::int64_t lo = lowest;
  std::int64_t hi = highest;
  reshape1::symbol symbol{};
  bool constant = false;
  [[nodiscard]] bool exact() const { return lo == hi; }
};

/// A 0-D or 1-D integer tensor known by its elements.
struct value {
  bool scalar = false;
  std::vector<element> elements;
};

using maybe = std::optional<value>;

/// Symbols for the dynamic dimensions of a tensor: named after the layer output that produces it, so
/// that every port reading that tensor sees the same symbol.
std::string tensor_symbol(const ir_edge& e, std::size_t dim) {
  return fmt::format("t{}_{}_{}", e.from_layer, e.from_port, dim);
}

class evaluator {
 public:
  explicit evaluator(const ir_model& m) : m_(m) {}

  /// The declared dimensions at an input port, dynamic ones symbolled by their producer.
  partial_shape input_dims(const ir_layer& l, const std::string& port) const {
    const auto* p = l.input(port);
    if (p == nullptr || !p->dims.rank_known()) return partial_shape::dynamic();
    const auto* e = m_.edge_to(l.id, port);
    std::vector<dimension> dims;
    for (std::size_t i = 0; i < p->dims.size(); ++i) {
      const auto& d = p->dims[i];
      dims.push_back(d.is_static() || e == nullptr ? d : dimension(d.range(), tensor_symbol(*e, i)));
    }
    return partial_shape(std::move(dims));
  }

  /// The value flowing into input `port` of `l`, if the sub-graph can be evaluated.
  maybe input(const ir_layer& l, const std::string& port) {
    const auto* e = m_.edge_to(l.id, port);
    if (e == nullptr) return std::nullopt;
    return output(e->from_layer, e->from_port);
  }

  maybe output(const std::string& layer, const std::string& port) {
    const auto key = layer + ":" + port;
    if (const auto it = memo_.find(key); it != memo_.end()) return it->second;
    if (!active_.insert(key).second || active_.size() > 256) return std::nullopt;  // a cycle, or too deep
    maybe v = compute(*m_.layer(layer));
    active_.erase(key);
    memo_.emplace(key, v);
    return v;
  }

  /// Whether any ancestor of the layer is a Parameter: data that follows the model's inputs. Iterative
  /// (models have long chains), and every layer is visited once per model.
  bool follows_inputs(const ir_layer& start) {
    if (const auto it = data_path_.find(start.id); it != data_path_.end()) return it->second;
    std::vector<const ir_layer*> stack{&start};
    std::set<std::string> seen{start.id};
    bool found = false;
    while (!stack.empty() && !found) {
      const ir_layer* l = stack.back();
      stack.pop_back();
      if (const auto it = data_path_.find(l->id); it != data_path_.end()) {
        found = it->second;
        continue;
      }
      if (l->type == "Parameter") {
        found = true;
        break;
      }
      for (const auto& p : l->inputs)
        if (const auto* e = m_.edge_to(l->id, p.id); e != nullptr && seen.insert(e->from_layer).second)
          stack.push_back(m_.layer(e->from_layer));
    }
    // Without a Parameter, everything reached is constant too; with one, only `start` is known.
    if (!found)
      for (const auto& id : seen) data_path_[id] = false;
    data_path_[start.id] = found;
    return found;
  }

 private:
  static std::optional<std::int64_t> exact_scalar(const maybe& v) {
    if (!v || v->elements.size() != 1 || !v->elements[0].exact()) return std::nullopt;
    return v->elements[0].lo;
  }

  maybe compute(const ir_layer& l) {
    const auto& t = l.type;
    if (t == "Const") return constant(l);
    if (t == "ShapeOf") return shape_of(l);
    if (t == "Convert") return input(l, port(l, 0));
    if (t == "Concat") return concat(l);
    if (t == "Gather") return gather(l);
    if (t == "Unsqueeze") return unsqueeze(l);
    if (t == "Squeeze") return squeeze(l);
    if (t == "StridedSlice") return strided_slice(l);
    if (t == "Slice") return slice(l);
    if (t == "ReduceProd") return reduce_prod(l);
    if (t == "Add" || t == "Subtract" || t == "Multiply" || t == "Divide") return arithmetic(l);
    return std::nullopt;
  }

  static std::string port(const ir_layer& l, std::size_t i) { return i < l.inputs.size() ? l.inputs[i].id : ""; }

  maybe constant(const ir_layer& l) {
    const auto type = find_element_type(l.data.at("element_type"));
    if (!type || !is_integer(*type)) return std::nullopt;
    const auto& text = l.data.at("shape");
    const shape dims = text.empty() ? shape{} : parse_shape("[" + text + "]").to_static();
    if (dims.size() > 1) return std::nullopt;
    const auto p = reshape_pattern::from_tensor(*type, m_.const_bytes(l), dims);
    if (!p.too_large().empty()) return std::nullopt;
    value v;
    v.scalar = dims.empty();
    for (const auto& b : p.elements()) v.elements.push_back({b.lo, b.lo, {}, true});
    return v;
  }

  maybe shape_of(const ir_layer& l) {
    const auto dims = input_dims(l, port(l, 0));
    if (!dims.rank_known()) return std::nullopt;
    value v;
    for (const auto& d : dims) v.elements.push_back({d.lo(), d.range().is_bounded() ? d.hi() : highest, d.symbol(), false});
    return v;
  }

  maybe concat(const ir_layer& l) {
    const auto axis = l.data.find("axis");
    if (axis != l.data.end() && axis->second != "0" && axis->second != "-1") return std::nullopt;
    value v;
    for (const auto& p : l.inputs) {
      auto part = input(l, p.id);
      if (!part || part->scalar) return std::nullopt;
      v.elements.insert(v.elements.end(), part->elements.begin(), part->elements.end());
    }
    return v;
  }

  maybe gather(const ir_layer& l) {
    auto data = input(l, port(l, 0));
    auto indices = input(l, port(l, 1));
    const auto axis = l.inputs.size() > 2 ? exact_scalar(input(l, port(l, 2))) : std::optional<std::int64_t>(0);
    const auto batch = l.data.find("batch_dims");
    if (!data || data->scalar || !indices || !axis || (*axis != 0 && *axis != -1) ||
        (batch != l.data.end() && batch->second != "0"))
      return std::nullopt;
    value v;
    v.scalar = indices->scalar;
    const auto n = static_cast<std::int64_t>(data->elements.size());
    for (const auto& i : indices->elements) {
      if (!i.exact()) return std::nullopt;
      const auto k = i.lo < 0 ? i.lo + n : i.lo;
      if (k < 0 || k >= n) return std::nullopt;
      v.elements.push_back(data->elements[static_cast<std::size_t>(k)]);
    }
    return v;
  }

  maybe unsqueeze(const ir_layer& l) {
    auto v = input(l, port(l, 0));
    if (!v || !v->scalar) return std::nullopt;  // only a scalar becomes a 1-D vector here
    v->scalar = false;
    return v;
  }

  maybe squeeze(const ir_layer& l) {
    auto v = input(l, port(l, 0));
    if (!v || (!v->scalar && v->elements.size() != 1)) return std::nullopt;
    v->scalar = true;
    return v;
  }

  /// 1-D slicing with Python semantics: start/stop clamped, negative values from the end.
  static maybe slice_1d(const value& data, std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                        std::int64_t step) {
    if (step == 0 || data.scalar) return std::nullopt;
    const auto n = static_cast<std::int64_t>(data.elements.size());
    auto norm = [&](std::int64_t x, std::int64_t low, std::int64_t high) {
      if (x < 0) x = x < -n ? low : x + n;
      return std::clamp(x, low, high);
    };
    std::int64_t b = 0, e = 0;
    if (step > 0) {
      b = start ? norm(*start, 0, n) : 0;
      e = stop ? norm(*stop, 0, n) : n;
    } else {
      b = start ? norm(*start, -1, n - 1) : n - 1;
      e = stop ? norm(*stop, -1, n - 1) : -1;
    }
    value v;
    for (std::int64_t i = b; step > 0 ? i < e : i > e; i += step) v.elements.push_back(data.elements[static_cast<std::size_t>(i)]);
    return v;
  }

  static bool mask_bit(const ir_layer& l, const char* name) {
    const auto it = l.data.find(name);
    return it != l.data.end() && !it->second.empty() && it->second[0] == '1';
  }
  static bool mask_any(const ir_layer& l, const char* name) {
    const auto it = l.data.find(name);
    return it != l.data.end() && it->second.find('1') != std::string::npos;
  }

  maybe strided_slice(const ir_layer& l) {
    auto data = input(l, port(l, 0));
    auto begin = input(l, port(l, 1)), end = input(l, port(l, 2));
    auto strides = l.inputs.size() > 3 ? input(l, port(l, 3)) : maybe(value{false, {{1, 1, {}, true}}});
    if (!data || !begin || !end || !strides || mask_any(l, "new_axis_mask") || mask_any(l, "ellipsis_mask"))
      return std::nullopt;
    const auto b = exact_scalar(begin), e = exact_scalar(end), s = exact_scalar(strides);
    if (!b || !e || !s) return std::nullopt;
    if (mask_bit(l, "shrink_axis_mask")) {
      auto one = slice_1d(*data, *b, *b == -1 ? std::nullopt : std::optional<std::int64_t>(*b + 1), 1);
      if (!one || one->elements.size() != 1) return std::nullopt;
      one->scalar = true;
      return one;
    }
    return slice_1d(*data, mask_bit(l, "begin_mask") ? std::nullopt : b, mask_bit(l, "end_mask") ? std::nullopt : e, *s);
  }

  maybe slice(const ir_layer& l) {
    auto data = input(l, port(l, 0));
    const auto start = exact_scalar(input(l, port(l, 1)));
    const auto stop = exact_scalar(input(l, port(l, 2)));
    const auto step = exact_scalar(input(l, port(l, 3)));
    if (l.inputs.size() > 4) {
      const auto axis = exact_scalar(input(l, port(l, 4)));
      if (!axis || (*axis != 0 && *axis != -1)) return std::nullopt;
    }
    if (!data || !start || !stop || !step) return std::nullopt;
    return slice_1d(*data, start, stop, *step);
  }

  maybe reduce_prod(const ir_layer& l) {
    auto data = input(l, port(l, 0));
    if (!data || data->scalar) return std::nullopt;
    element r{1, 1, {}, true};
    for (const auto& x : data->elements) r = binary('*', r, x);
    if (data->elements.size() == 1) r.symbol = data->elements[0].symbol;
    const auto keep = l.data.find("keep_dims");
    value v;
    v.scalar = !(keep != l.data.end() && (keep->second == "True" || keep->second == "true" || keep->second == "1"));
    v.elements.push_back(r);
    return v;
  }

  /// Interval arithmetic over all bound combinations; anything that overflows is unknown.
  static element binary(char op, const element& a, const element& b) {
    element r;
    r.constant = a.constant && b.constant;
    const bool known = a.lo != lowest && a.hi != highest && b.lo != lowest && b.hi != highest;
    if (!known) return r;
    std::vector<std::int64_t> results;
    for (auto x : {a.lo, a.hi})
      for (auto y : {b.lo, b.hi}) {
        std::int64_t z = 0;
        bool overflow = false;
        switch (op) {
          case '+': overflow = __builtin_add_overflow(x, y, &z); break;
          case '-': overflow = __builtin_sub_overflow(x, y, &z); break;
          case '*': overflow = __builtin_mul_overflow(x, y, &z); break;
          default:  // integer division rounds down, as OpenVINO's Divide does for integers
            if (y == 0 || (x == lowest && y == -1)) return r;
            z = x / y - ((x % y != 0) && ((x < 0) != (y < 0)) ? 1 : 0);
        }
        if (overflow) return r;
        results.push_back(z);
      }
    if (op == '/' && b.lo <= 0 && b.hi >= 0) return r;  // a divisor range through 0
    r.lo = *std::min_element(results.begin(), results.end());
    r.hi = *std::max_element(results.begin(), results.end());
    // Identities keep the symbol: x*1, x/1, x+0, x-0.
    const bool identity = b.exact() && ((op == '*' || op == '/') ? b.lo == 1 : b.lo == 0);
    if (identity) r.symbol = a.symbol;
    return r;
  }

  maybe arithmetic(const ir_layer& l) {
    auto a = input(l, port(l, 0));
    auto b = input(l, port(l, 1));
    if (!a || !b) return std::nullopt;
    const auto na = a->elements.size(), nb = b->elements.size();
    if (na != nb && na != 1 && nb != 1) return std::nullopt;
    const char op = l.type == "Add" ? '+' : l.type == "Subtract" ? '-' : l.type == "Multiply" ? '*' : '/';
    value v;
    v.scalar = a->scalar && b->scalar;
    for (std::size_t i = 0; i < std::max(na, nb); ++i)
      v.elements.push_back(binary(op, a->elements[na == 1 ? 0 : i], b->elements[nb == 1 ? 0 : i]));
    return v;
  }

  const ir_model& m_;
  std::map<std::string, maybe> memo_;
  std::set<std::string> active_;
  std::map<std::string, bool> data_path_;
};

bool flag(const ir_layer& l, const char* name) {
  const auto it = l.data.find(name);
  return it != l.data.end() && (it->second == "True" || it->second == "true" || it->second == "1");
}

/// The shape's text without the checker's internal tensor symbols.
partial_shape without_symbols(const partial_shape& s) {
  if (!s.rank_known()) return s;
  std::vector<dimension> dims;
  for (const auto& d : s) dims.emplace_back(d.range());
  return partial_shape(std::move(dims));
}

/// -1 when the ranks or a dimension cannot match; 1 when `declared` is less precise somewhere; 0 otherwise.
int compare(const partial_shape& declared, const partial_shape& inferred) {
  if (!declared.rank_known()) return inferred.rank_known() ? 1 : 0;
  if (!inferred.rank_known()) return 0;
  if (declared.size() != inferred.size()) return -1;
  int r = 0;
  for (std::size_t i = 0; i < declared.size(); ++i) {
    const auto& d = declared[i].range();
    const auto& f = inferred[i].range();
    if (!d.intersects(f)) return -1;
    if (d != f && d.lo() <= f.lo() && f.hi() <= d.hi()) r = 1;
  }
  return r;
}

interval count_of(const partial_shape& s) { return reshape1::detail::count_interval(s).value_or(interval()); }

finding check_layer(const ir_model& m, evaluator& ev, const ir_layer& l) {
  finding f;
  f.id = l.id;
  f.name = l.name;
  f.special_zero = flag(l, "special_zero");
  const auto data_port = l.inputs.empty() ? std::string() : l.inputs[0].id;
  const auto pattern_port = l.inputs.size() > 1 ? l.inputs[1].id : std::string();
  const partial_shape input = ev.input_dims(l, data_port);
  f.input = to_string(without_symbols(input));
  const partial_shape declared = l.outputs.empty() ? partial_shape::dynamic() : l.outputs[0].dims;
  f.declared = to_string(declared);

  // The pattern: evaluated when the sub-graph allows, else only its declared length.
  reshape_pattern pattern = reshape_pattern::unknown();
  std::vector<bool> constant;
  const auto value = pattern_port.empty() ? maybe() : ev.input(l, pattern_port);
  if (value) {
    f.pattern_known = true;
    // Known values are bounds with lo == hi; inference reads both the same way.
    std::vector<pattern_bound> bounds;
    for (const auto& e : value->elements) {
      bounds.push_back({e.lo, e.hi, e.symbol});
      constant.push_back(e.constant);
    }
    pattern = reshape_pattern::from_bounds(std::move(bounds));
    if (value->scalar) pattern = pattern.with_tensor_shape(partial_shape{});
  } else if (const auto* p = l.input(pattern_port); p != nullptr) {
    pattern = reshape_pattern::unknown(p->dims);
  }
  // A Const pattern keeps its element type (checked by read_ir): inference reports a non-integer one.
  if (const auto* e = pattern_port.empty() ? nullptr : m.edge_to(l.id, pattern_port);
      e != nullptr && m.layer(e->from_layer)->type == "Const")
    pattern = pattern.with_element_type(parse_element_type(m.layer(e->from_layer)->data.at("element_type")));
  {
    // Printed without the internal symbols.
    std::vector<pattern_bound> shown(pattern.elements().begin(), pattern.elements().end());
    for (auto& b : shown) b.symbol = {};
    f.pattern = pattern.kind() == pattern_kind::unknown
                    ? to_string(pattern)
                    : to_string(reshape_pattern::from_bounds(shown).with_tensor_shape(pattern.tensor_shape()));
  }

  try {
    const auto r = infer_shape(input, pattern, f.special_zero);
    const auto inferred = without_symbols(r.shape);
    f.inferred = to_string(inferred);
    const int c = compare(declared, inferred);
    if (c < 0) {
      f.result = verdict::mismatch;
      f.hint = fmt::format("the declared output {} cannot be {}", f.declared, f.inferred);
    } else if (c > 0) {
      f.result = verdict::refinable;
      f.hint = fmt::format("the output can be declared as {}", f.inferred);
    }
    if (input.rank_known() && declared.rank_known() && !count_of(input).intersects(count_of(declared)))
      f.warnings.push_back(fmt::format("the input {} has {} elements but the declared output {} has {}: the counts "
                                       "can never match",
                                       f.input, to_string(dimension(count_of(input))), f.declared,
                                       to_string(dimension(count_of(declared)))));
  } catch (const error& e) {
    f.result = verdict::error;
    f.code = name(e.code());
    f.message = e.what();
    f.hint = e.hint();
  }

  // Warnings about the pattern itself.
  const auto elements = pattern.elements();
  const bool data_path = !data_port.empty() && m.edge_to(l.id, data_port) != nullptr &&
                         ev.follows_inputs(*m.layer(m.edge_to(l.id, data_port)->from_layer));
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const auto& b = elements[i];
    if (b.lo < b.hi && ((b.lo <= -1 && b.hi >= -1) || (f.special_zero && b.lo <= 0 && b.hi >= 0)))
      f.warnings.push_back(fmt::format("pattern[{}] has the bounds {}..{}: at run time it may be {}, which the bound "
                                       "does not cover (see --sound-bounds)",
                                       i, b.lo, b.hi == interval::unbounded ? std::string() : std::to_string(b.hi),
                                       b.lo <= -1 && b.hi >= -1 ? "-1 (infer)" : "0 (copy)"));
    const bool literal = b.lo == b.hi && b.lo > 0 && i < constant.size() && constant[i];
    if (!literal || !data_path || !input.rank_known() || i >= input.size()) continue;
    const bool has_minus_one = std::any_of(elements.begin(), elements.end(), [](const pattern_bound& e) {
      return e.lo == -1 && e.hi == -1;
    });
    const std::string fix = f.special_zero ? (has_minus_one ? "use 0 to copy it" : "use 0 to copy it, or -1")
                                           : (has_minus_one ? "use 0 with special_zero=true to copy it"
                                                            : "use -1, or 0 with special_zero=true");
    if (!input[i].is_static()) {
      f.warnings.push_back(fmt::format("pattern[{}] hard-codes {} where the input's dimension {} is dynamic ({}); {}",
                                       i, b.lo, i, to_string(dimension(input[i].range())), fix));
      f.blocks_reshape = true;
    } else if (i == 0 && input[0].lo() == b.lo) {
      f.warnings.push_back(fmt::format("pattern[0] hard-codes the batch ({}): the model cannot be reshaped to another "
                                       "batch; {}",
                                       b.lo, fix));
      f.blocks_reshape = true;
    }
  }
  if (f.hint.empty() && f.blocks_reshape) f.hint = f.special_zero ? "use 0 for the batch" : "use -1 or special_zero=true";
  return f;
}

}  // namespace

std::string_view name(verdict v) noexcept {
  switch (v) {
    case verdict::ok: return "ok";
    case verdict::error: return "error";
    case verdict::mismatch: return "mismatch";
    case verdict::refinable: return "refinable";
  }
  return "ok";
}

check_report check_ir(const ir_model& model) {
  check_report report;
  evaluator ev(model);
  for (const auto& l : model.layers()) {
    if (l.type != "Reshape") continue;
    auto f = check_layer(model, ev, l);
    auto& s = report.summary;
    ++s.reshapes;
    switch (f.result) {
      case verdict::ok: ++s.ok; break;
      case verdict::error: ++s.errors; break;
      case verdict::mismatch: ++s.mismatches; break;
      case verdict::refinable: ++s.refinable; break;
    }
    if (f.blocks_reshape) ++s.blocking;
    report.findings.push_back(std::move(f));
  }
  return report;
}

}  // namespace reshape1::io
