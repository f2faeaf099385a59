// An ONNX tensor's data and the Const layers that hold it: the bytes from raw_data, the typed fields or an
// external file, checked against the tensor's shape, and kept in the graph's weights only where a rule or
// an analysis may read them (weights are checked, not copied).
#include <onnx/onnx_pb.h>

#include <cstring>
#include <functional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "../detail/fail.hpp"
#include "lowering.hpp"
#include "model/ir/read_internal.hpp"
#include "model/ops/rules.hpp"

namespace reshape1::onnx::detail {
namespace {

using model::detail::op_part;
using model::detail::part_of;
using reshape1::detail::fail;

// `what` names the tensor, whose name may hold "; " (where a message in one piece has its hint): never split.
[[noreturn]] void bad(const std::string& file, const std::string& what) {
  fail(errc::bad_file, {.file = file}, fmt::format("{}: {}", file, what), {});
}

/// The bytes of tensor `t` (`count` elements of `type`) from its typed field (float_data, int32_data...), which
/// must hold as many values as the tensor has (4-bit ones packed two to a value, as ONNX packs them); `size`
/// bytes long, or none where `size` is 0 (only checked). `what` names the tensor in `file`.
std::vector<std::byte> field_bytes(const ::onnx::TensorProto& t, element_type type, std::uint64_t count,
                                   std::uint64_t size, const std::string& file, const std::function<std::string()>& what) {
  std::vector<std::byte> out;
  const auto fill = [&](const auto& field, auto convert) {
    if (static_cast<std::uint64_t>(field.size()) != count)
      bad(file, fmt::format("{}: {} values for a tensor of {} elements", what(), field.size(), count));
    if (size == 0) return;
    out.resize(size);  // only now: the field holds count values, so size is no larger than the file
    const std::size_t width = count == 0 ? 0 : size / count;
    for (std::size_t k = 0; k < count; ++k) {
      const auto v = convert(field.Get(static_cast<int>(k)));
      std::memcpy(out.data() + k * width, &v, width);
    }
  };
  switch (type) {
    case element_type::f32: fill(t.float_data(), [](float v) { return v; }); break;
    case element_type::f64: fill(t.double_data(), [](double v) { return v; }); break;
    case element_type::i64: fill(t.int64_data(), [](std::int64_t v) { return v; }); break;
    case element_type::u64: fill(t.uint64_data(), [](std::uint64_t v) { return v; }); break;
    case element_type::u32: fill(t.uint64_data(), [](std::uint64_t v) { return static_cast<std::uint32_t>(v); }); break;
    case element_type::i32: fill(t.int32_data(), [](std::int32_t v) { return v; }); break;
    case element_type::i16: fill(t.int32_data(), [](std::int32_t v) { return static_cast<std::int16_t>(v); }); break;
    case element_type::u16:
    case element_type::f16:
    case element_type::bf16: fill(t.int32_data(), [](std::int32_t v) { return static_cast<std::uint16_t>(v); }); break;
    case element_type::i8: fill(t.int32_data(), [](std::int32_t v) { return static_cast<std::int8_t>(v); }); break;
    case element_type::u8:
    case element_type::f8e4m3:
    case element_type::f8e5m2:
    case element_type::f8e8m0:
    case element_type::boolean: fill(t.int32_data(), [](std::int32_t v) { return static_cast<std::uint8_t>(v); }); break;
    case element_type::u4:
    case element_type::i4:
    case element_type::f4e2m1: {
      // Two values a byte, the first in the low half, each int32_data entry one byte (ONNX packs them so).
      const auto bytes = (count + 1) / 2;
      if (static_cast<std::uint64_t>(t.int32_data_size()) != bytes)
        bad(file, fmt::format("{}: {} values for a tensor of {} 4-bit elements, packed two to a value ({})", what(),
                              t.int32_data_size(), count, bytes));
      if (size == 0) break;
      out.resize(size);
      for (std::size_t k = 0; k < bytes; ++k)
        out[k] = static_cast<std::byte>(static_cast<std::uint8_t>(t.int32_data(static_cast<int>(k))));
      break;
    }
    default:
      fail(errc::unsupported, {.file = file}, fmt::format("{}: {}: element type {} is not supported", file, what(), name(type)), {});
  }
  return out;
}

}  // namespace

tensor_data graph_lowering::tensor_bytes(const ::onnx::TensorProto& t, const std::function<std::string()>& what,
                                        bool read) const {
  const auto type = element_of(t.data_type());
  if (!type) fail(errc::unsupported, {.file = file_}, fmt::format("{}: {}: ONNX data type {} is not supported", file_, what(), t.data_type()), {});
  // The element count as ONNX Runtime takes it, dimension by dimension in a signed 64-bit product: a prefix
  // past it is refused even where a later 0 empties the tensor (ONNX Runtime: "Integer overflow").
  std::int64_t product = 1;
  for (const auto d : t.dims()) {
    if (d < 0) bad(file_, fmt::format("{}: dimension {} is negative", what(), d));
    if (__builtin_mul_overflow(product, d, &product))
      bad(file_, fmt::format("{}: its dimensions' product passes 2^63 elements", what()));
  }
  const auto count = static_cast<std::uint64_t>(product);
  std::uint64_t size = 0;
  try {
    size = storage_size(*type, count);
  } catch (const error&) {  // said here with the file and the tensor, which storage_size does not know
    bad(file_, fmt::format("{}: {} elements of {} need more than 2^64 bytes", what(), count, name(*type)));
  }
  tensor_data out;
  const auto owned = [&] {
    out.bytes = out.owned;
    return std::move(out);
  };
  const auto wrong_size = [&](std::uint64_t got) {
    bad(file_, fmt::format("{}: {} bytes of data for a {} tensor of {} elements ({} bytes)", what(), got, name(*type),
                           count, size));
  };
  if (t.data_location() == ::onnx::TensorProto::EXTERNAL) {
    const auto stored = external(t, what(), read ? &out.owned : nullptr);
    if (stored != size) wrong_size(stored);
    return owned();
  }
  if (left_out != nullptr) {
    if (const auto it = left_out->find(&t); it != left_out->end()) {
      // Longer than any tensor a rule reads (min_left_out): a tensor that small holding this many bytes
      // is refused here, as it was with its bytes.
      if (it->second != size) wrong_size(it->second);
      if (read) bad(file_, fmt::format("{}: its data was left out of the parse", what()));
      return out;
    }
  }
  if (t.has_raw_data()) {
    if (t.raw_data().size() != size) wrong_size(t.raw_data().size());
    if (read) out.bytes = std::as_bytes(std::span(t.raw_data().data(), t.raw_data().size()));
    return out;
  }
  out.owned = field_bytes(t, *type, count, read ? size : 0, file_, what);
  return owned();
}

bool kept_shape(const ::onnx::TensorProto& t, std::uint64_t count) {
  if (count <= static_cast<std::uint64_t>(model::detail::max_value_elements)) return true;
  return count <= static_cast<std::uint64_t>(model::detail::max_grid_elements) && (t.dims_size() <= 2 || t.dims(0) == 1);
}

bool graph_lowering::kept_for_rules(const ::onnx::TensorProto& t, std::uint64_t count) const {
  if (count <= static_cast<std::uint64_t>(model::detail::max_value_elements)) return true;
  return kept_shape(t, count) && t.data_location() != ::onnx::TensorProto::EXTERNAL &&
         (left_out == nullptr || !left_out->contains(&t));
}

source graph_lowering::constant_bytes(element_type type, std::span<const std::int64_t> dims,
                                      std::span<const std::byte> bytes, const std::string& name) {
  std::uint64_t count = 1;
  for (const auto d : dims) count *= static_cast<std::uint64_t>(d);
  // Only tensors whose values a rule or an analysis may read are kept (their callers read those alone,
  // kept_for_rules); weights would cost memory and time and no rule reads them (their shape is all that
  // matters).
  const bool kept = count <= static_cast<std::uint64_t>(model::detail::max_grid_elements) && !bytes.empty();
  const auto offset = weights_.size();
  if (kept) weights_.insert(weights_.end(), bytes.begin(), bytes.end());
  return const_layer(type, dims, std::to_string(kept ? offset : 0), std::to_string(kept ? bytes.size() : 0), name);
}

std::optional<source> graph_lowering::constant_view(source of, std::span<const std::int64_t> dims,
                                                    const std::string& name) {
  const auto& l = b_.at(of.layer);
  if (part_of(l.type) != op_part::constant || l.outputs.empty() || !l.outputs[0].type) return std::nullopt;
  const std::string* offset = nullptr;
  const std::string* size = nullptr;
  for (const auto& [key, value] : l.attributes) {
    if (key == "offset") offset = &value;
    if (key == "size") size = &value;
  }
  if (offset == nullptr || size == nullptr) return std::nullopt;
  return const_layer(*l.outputs[0].type, dims, *offset, *size, name);
}

source graph_lowering::const_layer(element_type type, std::span<const std::int64_t> dims, std::string offset,
                                   std::string size, const std::string& name) {
  std::string shape_text;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i != 0) shape_text += ',';
    shape_text += std::to_string(dims[i]);
  }
  node_context::attributes a{{"element_type", std::string(reshape1::name(type))},
                             {"shape", std::move(shape_text)},
                             {"offset", std::move(offset)},
                             {"size", std::move(size)}};
  const auto s = add("Const", 1, {}, std::move(a), 1, name);
  b_.at(s.layer).attributes.emplace_back("onnx_constant", "true");
  auto& out = b_.at(s.layer).outputs[0];
  out.declared = true;
  out.type = type;
  for (const auto d : dims) out.dims.emplace_back(d);
  return s;
}

/// A tensor of strings: its shape, not its values (no rule reads a string; ONNX Runtime's ops that take them
/// move or compare them, and what that gives is left unknown). Its strings must be as many as its shape says,
/// in string_data: ONNX keeps strings nowhere else (ONNX Runtime refuses raw_data or external data for them).
source graph_lowering::string_constant(const ::onnx::TensorProto& t, const std::string& name) {
  std::uint64_t count = 1;
  for (const auto d : t.dims())
    if (d < 0 || __builtin_mul_overflow(count, static_cast<std::uint64_t>(d), &count))
      fail(errc::bad_file, {.file = file_},
           fmt::format("{}: tensor '{}': its dimensions [{}] {}", file_, name, fmt::join(t.dims(), ","),
                       d < 0 ? "hold a negative one" : "hold more than 2^64 elements"),
           {});
  if (t.has_raw_data() || t.data_location() == ::onnx::TensorProto::EXTERNAL)
    fail(errc::bad_file, {.file = file_},
         fmt::format("{}: tensor '{}': a tensor of strings with {}", file_, name,
                     t.has_raw_data() ? "raw_data" : "external data"),
         "ONNX keeps strings in string_data; ONNX Runtime refuses the model too");
  if (static_cast<std::uint64_t>(t.string_data_size()) != count)
    fail(errc::bad_file, {.file = file_},
         fmt::format("{}: tensor '{}': {} strings for the {} elements of [{}]", file_, name, t.string_data_size(), count,
                     fmt::join(t.dims(), ",")),
         "ONNX Runtime refuses the model too");
  return const_layer(element_type::string, std::span(t.dims().data(), static_cast<std::size_t>(t.dims_size())), "0",
                     "0", name);
}

source graph_lowering::constant(const ::onnx::TensorProto& t, const std::string& name) {
  const auto type = element_of(t.data_type());
  if (!type)
    fail(errc::unsupported, {.file = file_},
         fmt::format("{}: tensor '{}': ONNX data type {} is not supported", file_, name, t.data_type()), {});
  if (*type == element_type::string) return string_constant(t, name);
  // Weights are checked (their data is as long as their shape says) but not copied: no rule reads more
  // than kept_for_rules keeps, and copying them would cost the time and memory of the model.
  std::uint64_t count = 1;
  bool small = true;
  for (const auto d : t.dims()) {
    if (d < 0 || __builtin_mul_overflow(count, static_cast<std::uint64_t>(d), &count)) {
      small = false;
      break;
    }
  }
  small = small && kept_for_rules(t, count);
  const auto data = tensor_bytes(t, [&] { return fmt::format("tensor '{}'", name); }, small);
  return constant_bytes(*type, std::span(t.dims().data(), static_cast<std::size_t>(t.dims_size())), data.bytes, name);
}
}  // namespace reshape1::onnx::detail

namespace reshape1::onnx::detail {

source graph_lowering::sparse_constant(const ::onnx::SparseTensorProto& t, const std::string& name) {
  const auto& values = t.values();
  const auto& indices = t.indices();
  const auto what = [&] { return fmt::format("sparse tensor '{}'", name); };
  const auto type = element_of(values.data_type());
  if (!type)
    fail(errc::unsupported, {.file = file_},
         fmt::format("{}: {}: ONNX data type {} is not supported", file_, what(), values.data_type()), {});
  std::vector<std::int64_t> dims(t.dims().begin(), t.dims().end());
  std::int64_t count = 1;
  for (const auto d : dims)
    if (d < 0 || __builtin_mul_overflow(count, d, &count))
      bad(file_, fmt::format("{}: its dimensions [{}] are negative or pass 2^63 elements", what(), fmt::join(dims, ",")));
  // ONNX Runtime's densifying asks values [NNZ] and indices [NNZ] (positions in the flattened tensor) or
  // [NNZ, rank] (coordinates), of an integer type, each inside the shape.
  if (values.dims_size() != 1)
    bad(file_, fmt::format("{}: its values have rank {}, where a sparse tensor's are 1-D (one for each index)", what(),
                           values.dims_size()));
  const auto nnz = values.dims(0);
  // Strings and sub-byte elements keep their shape only, as a dense tensor too large for a rule to read does.
  const auto bits = bit_width(*type);
  const bool dense = *type != element_type::string && bits % 8 == 0 &&
                     static_cast<std::uint64_t>(count) <= static_cast<std::uint64_t>(model::detail::max_grid_elements);
  // The values first: their data must be as long as their shape says (so NNZ is no more than the file holds); read
  // where they are written dense.
  tensor_data value_bytes;
  if (values.data_type() == ::onnx::TensorProto::STRING) {
    if (nnz < 0 || values.string_data_size() != nnz)
      bad(file_, fmt::format("{}: it holds {} strings for {} values", what(), values.string_data_size(), nnz));
  } else {
    value_bytes = tensor_bytes(values, [&] { return fmt::format("{}'s values", what()); }, dense);
  }
  const auto rank = static_cast<std::int64_t>(dims.size());
  const bool linear = indices.dims_size() == 1 && indices.dims(0) == nnz;
  const bool coordinates = indices.dims_size() == 2 && indices.dims(0) == nnz && indices.dims(1) == rank;
  if (!linear && !coordinates)
    bad(file_, fmt::format("{}: its indices are of shape [{}], where {} values over {} dimensions take [{}] or [{},{}]",
                           what(), fmt::join(indices.dims(), ","), nnz, rank, nnz, nnz, rank));
  const auto index_type = element_of(indices.data_type());
  if (!index_type || (*index_type != element_type::i64 && *index_type != element_type::i32 &&
                      *index_type != element_type::i16 && *index_type != element_type::i8))
    bad(file_, fmt::format("{}: its indices are of {}, not an integer type", what(), onnx_type_name(indices.data_type())));
  const auto index_bytes = tensor_bytes(indices, [&] { return fmt::format("{}'s indices", what()); });
  const auto width = static_cast<std::size_t>(bit_width(*index_type) / 8);
  const auto index_at = [&](std::size_t k) {
    std::int64_t v = 0;
    switch (width) {
      case 8: std::memcpy(&v, index_bytes.bytes.data() + k * 8, 8); break;
      case 4: { std::int32_t x; std::memcpy(&x, index_bytes.bytes.data() + k * 4, 4); v = x; break; }
      case 2: { std::int16_t x; std::memcpy(&x, index_bytes.bytes.data() + k * 2, 2); v = x; break; }
      default: v = static_cast<std::int8_t>(index_bytes.bytes[k]); break;
    }
    return v;
  };
  std::vector<std::int64_t> positions(static_cast<std::size_t>(nnz));
  for (std::size_t k = 0; k < positions.size(); ++k) {
    if (linear) {
      positions[k] = index_at(k);
      if (positions[k] < 0 || positions[k] >= count)
        bad(file_, fmt::format("{}: index {} ({}) is outside its {} elements", what(), k, positions[k], count));
      continue;
    }
    std::int64_t at = 0;
    for (std::int64_t axis = 0; axis < rank; ++axis) {
      const auto v = index_at(k * static_cast<std::size_t>(rank) + static_cast<std::size_t>(axis));
      if (v < 0 || v >= dims[static_cast<std::size_t>(axis)])
        bad(file_, fmt::format("{}: index {} holds {} on axis {} of length {}", what(), k, v, axis,
                               dims[static_cast<std::size_t>(axis)]));
      at = at * dims[static_cast<std::size_t>(axis)] + v;
    }
    positions[k] = at;
  }
  if (!dense) return constant_bytes(*type, dims, {}, name);
  const auto size = static_cast<std::size_t>(bits / 8);
  std::vector<std::byte> out(static_cast<std::size_t>(count) * size);
  for (std::size_t k = 0; k < positions.size(); ++k)
    std::memcpy(out.data() + static_cast<std::size_t>(positions[k]) * size, value_bytes.bytes.data() + k * size, size);
  return constant_bytes(*type, dims, out, name);
}

}  // namespace reshape1::onnx::detail
