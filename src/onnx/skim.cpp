#include "skim.hpp"

#include <optional>

namespace reshape1::onnx::detail {
namespace {

// Field numbers of onnx.proto that lead to an initializer's raw_data.
constexpr std::uint32_t model_graph = 7;         // ModelProto.graph
constexpr std::uint32_t graph_initializer = 5;   // GraphProto.initializer
constexpr std::uint32_t tensor_raw_data = 9;     // TensorProto.raw_data
constexpr int length_delimited = 2;

/// One field of a message: its tag from `begin`, its payload (for a length-delimited one), the next field.
struct field {
  std::uint32_t number = 0;
  int wire = 0;
  const std::uint8_t* begin = nullptr;
  const std::uint8_t* payload = nullptr;
  std::uint64_t length = 0;
  const std::uint8_t* next = nullptr;
};

/// Reads the fields of a message's bytes one by one; `ok` turns false at anything the walk does not take
/// (a truncated varint or field, a group, a field number protobuf refuses).
class fields {
 public:
  fields(const std::uint8_t* begin, const std::uint8_t* end) : p_(begin), end_(end) {}
  [[nodiscard]] bool ok() const noexcept { return ok_; }
  [[nodiscard]] bool done() const noexcept { return p_ == end_; }

  std::optional<field> next() {
    field f;
    f.begin = p_;
    const auto tag = varint();
    if (!tag || (*tag >> 3) == 0 || (*tag >> 3) > 0x1FFFFFFF) return fail();
    f.number = static_cast<std::uint32_t>(*tag >> 3);
    f.wire = static_cast<int>(*tag & 7);
    switch (f.wire) {
      case 0:
        if (!varint()) return fail();
        break;
      case 1:
        if (!skip(8)) return fail();
        break;
      case 5:
        if (!skip(4)) return fail();
        break;
      case length_delimited: {
        const auto n = varint();
        if (!n || *n > static_cast<std::uint64_t>(end_ - p_)) return fail();
        f.payload = p_;
        f.length = *n;
        p_ += *n;
        break;
      }
      default: return fail();  // groups (3, 4) and the wire types that do not exist
    }
    f.next = p_;
    return f;
  }

 private:
  std::optional<field> fail() {
    ok_ = false;
    return std::nullopt;
  }
  bool skip(std::size_t n) {
    if (static_cast<std::size_t>(end_ - p_) < n) return false;
    p_ += n;
    return true;
  }
  std::optional<std::uint64_t> varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64 && p_ < end_; shift += 7) {
      const auto byte = *p_++;
      v |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) return v;
    }
    return std::nullopt;
  }
  const std::uint8_t* p_;
  const std::uint8_t* end_;
  bool ok_ = true;
};

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void put_bytes(std::string& out, const std::uint8_t* begin, const std::uint8_t* end) {
  out.append(reinterpret_cast<const char*>(begin), static_cast<std::size_t>(end - begin));
}

/// A length-delimited field `number` holding `content`.
void put_message(std::string& out, std::uint32_t number, const std::string& content) {
  put_varint(out, (std::uint64_t{number} << 3) | length_delimited);
  put_varint(out, content.size());
  out += content;
}

/// The walk runs twice: once to find what to leave out (`out` null), then to write the rest.
class skimmer {
 public:
  explicit skimmer(std::string* out) : out_(out) {}
  bool ok = true;
  std::uint64_t left_out = 0;
  std::unordered_map<std::size_t, std::uint64_t> raw_sizes;

  void model(const std::uint8_t* begin, const std::uint8_t* end) {
    fields f(begin, end);
    while (ok && !f.done()) {
      const auto x = f.next();
      if (!x) break;
      if (x->number == model_graph && x->wire == length_delimited) {
        std::string content;
        graph(x->payload, x->payload + x->length, out_ != nullptr ? &content : nullptr);
        if (out_ != nullptr) put_message(*out_, model_graph, content);
      } else if (out_ != nullptr) {
        put_bytes(*out_, x->begin, x->next);
      }
    }
    ok = ok && f.ok();
  }

 private:
  void graph(const std::uint8_t* begin, const std::uint8_t* end, std::string* out) {
    fields f(begin, end);
    while (ok && !f.done()) {
      const auto x = f.next();
      if (!x) break;
      if (x->number == graph_initializer && x->wire == length_delimited) {
        std::string content;
        tensor(x->payload, x->payload + x->length, out != nullptr ? &content : nullptr);
        if (out != nullptr) put_message(*out, graph_initializer, content);
        ++initializer_;
      } else if (out != nullptr) {
        put_bytes(*out, x->begin, x->next);
      }
    }
    ok = ok && f.ok();
  }

  /// Every raw_data field above min_left_out is left out; the last raw_data field decides what protobuf
  /// would have kept, so its length is recorded when it is one of them (and the tensor is then read as
  /// holding that many bytes whatever smaller field came before).
  void tensor(const std::uint8_t* begin, const std::uint8_t* end, std::string* out) {
    fields f(begin, end);
    std::optional<std::uint64_t> last_left_out;
    while (ok && !f.done()) {
      const auto x = f.next();
      if (!x) break;
      if (x->number == tensor_raw_data && x->wire == length_delimited) {
        if (x->length > min_left_out) {
          last_left_out = x->length;
          left_out += x->length;
          continue;
        }
        last_left_out.reset();
      }
      if (out != nullptr) put_bytes(*out, x->begin, x->next);
    }
    ok = ok && f.ok();
    if (last_left_out) raw_sizes[initializer_] = *last_left_out;
  }

  std::string* out_;
  std::size_t initializer_ = 0;
};

}  // namespace

skimmed_model skim(std::span<const std::byte> file) {
  const auto* begin = reinterpret_cast<const std::uint8_t*>(file.data());
  const auto* end = begin + file.size();
  skimmer plan(nullptr);
  plan.model(begin, end);
  // Worth a copy of the rest only when the weights left out are most of the file: a model of many small
  // tensors is parsed from the file as it is.
  if (!plan.ok || plan.left_out < file.size() / 2) return {};
  skimmed_model s;
  s.bytes.reserve(static_cast<std::size_t>(file.size() - plan.left_out) + 64);
  skimmer write(&s.bytes);
  write.model(begin, end);
  s.raw_sizes = std::move(write.raw_sizes);
  return s;
}

}  // namespace reshape1::onnx::detail
