// The nodes fix inserts into an ONNX graph to compute a value from a shape: see fix_nodes.hpp.
#include "fix_nodes.hpp"

#include <fmt/format.h>

#include "lowering.hpp"

#include "proto_edit.hpp"

namespace reshape1::onnx::detail {

std::string pattern_nodes::name(std::string_view what) {
  return unique_name(taken_, fmt::format("{}/{}/{}", base_, word_, what));
}

std::string pattern_nodes::node(std::string_view op, std::vector<std::string> inputs, std::string_view what) {
  auto& n = nodes.emplace_back();
  n.set_op_type(std::string(op));
  const auto out = name(what);
  n.set_name(out);
  for (auto& i : inputs) n.add_input(std::move(i));
  n.add_output(out);
  return out;
}

void pattern_nodes::attribute(std::string_view name, std::int64_t value) {
  auto* a = nodes.back().add_attribute();
  a->set_name(std::string(name));
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(value);
}

std::string pattern_nodes::constant(std::string_view what, const std::vector<std::int64_t>& values) {
  auto* t = g_.add_initializer();
  t->set_name(name(what));
  t->set_data_type(::onnx::TensorProto::INT64);
  t->add_dims(static_cast<std::int64_t>(values.size()));
  for (const auto v : values) t->add_int64_data(v);
  return t->name();
}

std::string pattern_nodes::scalar(std::string_view what, std::int64_t value) {
  auto* t = g_.add_initializer();
  t->set_name(name(what));
  t->set_data_type(::onnx::TensorProto::INT64);
  t->add_int64_data(value);
  return t->name();
}

std::string pattern_nodes::tensor(std::string_view what, const std::vector<double>& values,
                                  const std::vector<std::int64_t>& dims, int type) {
  auto* t = g_.add_initializer();
  t->set_name(name(what));
  t->set_data_type(type);
  for (const auto d : dims) t->add_dims(d);
  for (const auto v : values) {
    if (type == ::onnx::TensorProto::DOUBLE)
      t->add_double_data(v);
    else if (type == ::onnx::TensorProto::FLOAT)
      t->add_float_data(static_cast<float>(v));
    else
      t->add_int64_data(static_cast<std::int64_t>(v));
  }
  return t->name();
}

std::string pattern_nodes::computed(const std::string& data, std::span<const model::detail::pattern_term> terms) {
  const auto shape = node("Shape", {data}, "shape");
  std::vector<std::string> pieces;
  std::vector<std::int64_t> run;
  const auto flush = [&] {
    if (run.empty()) return;
    pieces.push_back(constant(fmt::format("values_{}", pieces.size()), run));
    run.clear();
  };
  for (std::size_t k = 0; k < terms.size(); ++k) {
    const auto& t = terms[k];
    if (t.dims.empty()) {
      run.push_back(t.factor);
      continue;
    }
    flush();
    std::string value;
    for (const auto d : t.dims) {
      const auto dim = node("Gather", {shape, constant(fmt::format("index_{}_{}", k, d), {static_cast<std::int64_t>(d)})},
                            fmt::format("dim_{}_{}", k, d));
      attribute("axis", 0);
      value = value.empty() ? dim : node("Mul", {value, dim}, fmt::format("product_{}_{}", k, d));
    }
    if (t.factor != 1) value = node("Mul", {value, constant(fmt::format("factor_{}", k), {t.factor})}, fmt::format("scaled_{}", k));
    if (t.divisor != 1) value = node("Div", {value, constant(fmt::format("divisor_{}", k), {t.divisor})}, fmt::format("quotient_{}", k));
    if (t.multiple != 0) {
      // What the size lacks to be a multiple: (m - d mod m) mod m (Mod of integers: fmod 0, the sign of m).
      const auto m = constant(fmt::format("multiple_{}", k), {t.multiple});
      const auto over = node("Mod", {value, m}, fmt::format("remainder_{}", k));
      const auto lacks = node("Sub", {m, over}, fmt::format("lacking_{}", k));
      value = node("Mod", {lacks, m}, fmt::format("to_multiple_{}", k));
    }
    pieces.push_back(value);
  }
  flush();
  const auto values = node("Concat", pieces, "values");
  attribute("axis", 0);
  return values;
}

std::optional<std::string> range_nodes(pattern_nodes& made, const model::detail::fix_plan& p, const std::string& count) {
  if (p.range->table) {  // the values as computed, in the Const's type and shape (a [1,4] squeezed where read)
    auto v = count;
    if (p.converted) {
      const auto to = detail::onnx_type_of(*p.converted);
      if (!to) return std::nullopt;
      v = made.node("Cast", {v}, "cast");
      made.attribute("to", *to);
    }
    if (p.range->shape.size() == 1) return v;
    return made.node("Reshape", {v, made.constant("shape", model::detail::table_pattern(p.range->shape))}, "shaped");
  }
  const auto n = made.node("Reshape", {count, made.constant("count_shape", {})}, "count");
  // Counted from 0 by 1 in int64, then the step and the start in integers, then the Const's type and shape.
  auto v = made.node("Range", {made.scalar("zero", 0), n, made.scalar("one", 1)}, "range");
  if (p.range->step != 1) v = made.node("Mul", {v, made.scalar("step", p.range->step)}, "stepped");
  if (p.range->start != 0) v = made.node("Add", {v, made.scalar("start", p.range->start)}, "started");
  if (p.converted) {
    const auto to = detail::onnx_type_of(*p.converted);
    if (!to) return std::nullopt;
    v = made.node("Cast", {v}, "cast");
    made.attribute("to", *to);
  }
  return made.node("Reshape", {v, made.constant("shape", p.range->shape)}, "shaped");
}

std::optional<std::string> grid_nodes(pattern_nodes& made, const model::detail::fix_plan& p, const std::string& count) {
  const auto& r = *p.range;
  const auto type = p.converted.value_or(element_type::i64);
  const int in = is_integer(type) ? ::onnx::TensorProto::INT64
                 : type == element_type::f64 ? ::onnx::TensorProto::DOUBLE
                                             : ::onnx::TensorProto::FLOAT;
  auto reduced = r.shape;  // the base's and each slope's
  for (const auto a : r.axes) reduced[a] = 1;
  auto v = made.tensor("base", r.base, reduced, in);
  const auto zero = made.scalar("zero", 0), one = made.scalar("one", 1);
  for (std::size_t e = 0; e < r.axes.size(); ++e) {
    const auto n = made.node("Gather", {count, made.scalar(fmt::format("index_{}", e), static_cast<std::int64_t>(e))},
                             fmt::format("count_{}", e));
    made.attribute("axis", 0);
    auto t = made.node("Range", {zero, n, one}, fmt::format("range_{}", e));
    if (in != ::onnx::TensorProto::INT64) {
      t = made.node("Cast", {t}, fmt::format("cast_{}", e));
      made.attribute("to", in);
    }
    std::vector<std::int64_t> along(r.shape.size(), 1);
    along[r.axes[e]] = -1;
    t = made.node("Reshape", {t, made.constant(fmt::format("shape_{}", e), along)}, fmt::format("along_{}", e));
    t = made.node("Mul", {t, made.tensor(fmt::format("slope_{}", e), r.slopes[e], reduced, in)}, fmt::format("sloped_{}", e));
    v = made.node("Add", {v, t}, fmt::format("summed_{}", e));
  }
  const auto to = detail::onnx_type_of(type);
  if (!to) return std::nullopt;
  if (*to != in) {
    v = made.node("Cast", {v}, "cast");
    made.attribute("to", *to);
  }
  return v;
}

}  // namespace reshape1::onnx::detail
