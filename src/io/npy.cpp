// numpy's .npy format, versions 1.0, 2.0 and 3.0: a magic string, a version, a header length and a
// Python-literal dict {'descr': ..., 'fortran_order': ..., 'shape': (...)}, then the data.
#include "reshape1/io/npy.hpp"

#include <array>
#include <algorithm>
#include <bit>
#include <mutex>
#include <cstring>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "../detail/checked.hpp"
#include "../detail/fail.hpp"
#include "files.hpp"

namespace reshape1::io {
namespace {

using reshape1::detail::fail;

constexpr std::string_view magic = "\x93NUMPY";

struct dtype_info {
  element_type type;
  std::uint64_t item_size;  // bytes per element in the file
  bool big_endian;
  char string_kind;  // 'U', 'S' or 0
};

/// The dict of a .npy header. Offsets in errors are byte offsets in the file.
class header_parser {
 public:
  header_parser(std::string_view text, std::uint64_t base, const std::string& file)
      : text_(text), base_(base), file_(file) {}

  struct header {
    std::string descr;
    std::uint64_t descr_at = 0;
    bool fortran = false;
    std::vector<std::int64_t> dims;
  };

  header parse() {
    header h;
    bool seen_descr = false, seen_fortran = false, seen_shape = false;
    skip();
    expect('{');
    for (;;) {
      skip();
      if (eat('}')) break;
      const auto key_at = pos_;
      const std::string key = string_literal();
      skip();
      expect(':');
      skip();
      if (key == "descr") {
        if (peek() == '[')
          fail_at(errc::unsupported, pos_, "a structured dtype (a list of fields) is not supported; reshape1 reads bool, integer, "
                               "float and string arrays");
        h.descr_at = base_ + pos_;
        h.descr = string_literal();
        seen_descr = true;
      } else if (key == "fortran_order") {
        if (text_.substr(pos_, 4) == "True") {
          h.fortran = true;
          pos_ += 4;
        } else if (text_.substr(pos_, 5) == "False") {
          pos_ += 5;
        } else {
          bad(pos_, "fortran_order must be True or False");
        }
        seen_fortran = true;
      } else if (key == "shape") {
        h.dims = tuple();
        seen_shape = true;
      } else {
        bad(key_at, fmt::format("unexpected key '{}' in the header; a .npy header has descr, fortran_order and shape",
                                detail::escaped(key)));
      }
      skip();
      if (eat('}')) break;
      expect(',');
    }
    skip();
    if (pos_ != text_.size()) bad(pos_, "unexpected text after the header dict");
    if (!seen_descr || !seen_fortran || !seen_shape)
      bad(0, fmt::format("the header lacks '{}'", !seen_descr ? "descr" : !seen_fortran ? "fortran_order" : "shape"));
    return h;
  }

 private:
  [[noreturn]] void fail_at(errc code, std::size_t at, const std::string& what) const {
    fail(code, {.offset = base_ + at, .file = file_}, fmt::format("{}: {}", detail::at_byte(file_, base_ + at), what));
  }
  [[noreturn]] void bad(std::size_t at, const std::string& what) const { fail_at(errc::bad_file, at, what); }
  void skip() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t')) ++pos_;
  }
  [[nodiscard]] char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!eat(c)) bad(pos_, fmt::format("expected '{}' in the header dict", c));
  }
  std::string string_literal() {
    const char quote = peek();
    if (quote != '\'' && quote != '"') bad(pos_, "expected a quoted string in the header dict");
    const auto start = ++pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) ++pos_;
    if (pos_ >= text_.size()) bad(start - 1, "unterminated string in the header dict");
    return std::string(text_.substr(start, pos_++ - start));
  }
  std::vector<std::int64_t> tuple() {
    std::vector<std::int64_t> dims;
    expect('(');
    for (;;) {
      skip();
      if (eat(')')) break;
      const auto at = pos_;
      std::uint64_t v = 0;
      if (!std::isdigit(static_cast<unsigned char>(peek()))) bad(at, "expected a dimension (a non-negative integer)");
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        const auto digit = static_cast<std::uint64_t>(peek() - '0');
        if (v > (static_cast<std::uint64_t>(INT64_MAX) - digit) / 10) bad(at, "a dimension does not fit int64");
        v = v * 10 + digit;
        ++pos_;
      }
      if (eat('L')) {}  // Python 2 long suffix
      dims.push_back(static_cast<std::int64_t>(v));
      skip();
      if (eat(')')) break;
      expect(',');
    }
    return dims;
  }

  std::string_view text_;
  std::uint64_t base_;
  const std::string& file_;
  std::size_t pos_ = 0;
};

dtype_info parse_dtype(const std::string& descr, std::uint64_t at, const std::string& file) {
  auto unsupported = [&](std::string_view what) -> dtype_info {
    fail(errc::unsupported, {.offset = at, .file = file},
         fmt::format("{}: dtype '{}' ({}) is not supported; reshape1 reads bool, int8..int64, uint8..uint64, "
                     "float16/32/64 and fixed-width strings (S, U)",
                     detail::at_byte(file, at), detail::escaped(descr), what));
  };
  if (descr.size() < 2) unsupported("not a dtype");
  const char order = descr[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') unsupported("unknown byte order");
  const char kind = descr[1];
  std::uint64_t size = 0;
  const auto digits = std::string_view(descr).substr(2);
  if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string_view::npos)
    unsupported(kind == 'M' || kind == 'm' ? "datetime" : "not a simple dtype");
  for (char c : digits) size = size * 10 + static_cast<std::uint64_t>(c - '0');
  const bool big = order == '>' && std::endian::native == std::endian::little;
  auto numeric = [&](element_type t) { return dtype_info{t, size, big && size > 1, 0}; };
  switch (kind) {
    case 'b':
      if (size == 1) return numeric(element_type::boolean);
      break;
    case 'i':
      if (size == 1) return numeric(element_type::i8);
      if (size == 2) return numeric(element_type::i16);
      if (size == 4) return numeric(element_type::i32);
      if (size == 8) return numeric(element_type::i64);
      break;
    case 'u':
      if (size == 1) return numeric(element_type::u8);
      if (size == 2) return numeric(element_type::u16);
      if (size == 4) return numeric(element_type::u32);
      if (size == 8) return numeric(element_type::u64);
      break;
    case 'f':
      if (size == 2) return numeric(element_type::f16);
      if (size == 4) return numeric(element_type::f32);
      if (size == 8) return numeric(element_type::f64);
      return unsupported("extended-precision float");
    case 'c': return unsupported("complex");
    case 'O': return unsupported("Python objects");
    case 'V': return unsupported("raw void records");
    case 'M':
    case 'm': return unsupported("datetime");
    case 'S':
    case 'a':
      if (size > 0) return {element_type::string, size, false, 'S'};
      break;
    case 'U':
      if (size > 0 && size <= UINT64_MAX / 4) return {element_type::string, 4 * size, order == '>', 'U'};
      break;
    default: break;
  }
  return unsupported("unknown kind or size");
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

/// UTF-8 to code points; nullopt when the text is not valid UTF-8.
std::optional<std::vector<std::uint32_t>> code_points(const std::string& s) {
  std::vector<std::uint32_t> cps;
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    int extra = b < 0x80 ? 0 : (b >> 5) == 0x6 ? 1 : (b >> 4) == 0xE ? 2 : (b >> 3) == 0x1E ? 3 : -1;
    if (extra < 0 || i + static_cast<std::size_t>(extra) >= s.size() + (extra == 0 ? 1 : 0)) return std::nullopt;
    std::uint32_t cp = extra == 0 ? b : b & (0x3F >> extra);
    for (int k = 1; k <= extra; ++k) {
      const auto c = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if ((c >> 6) != 0x2) return std::nullopt;
      cp = (cp << 6) | (c & 0x3F);
    }
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
    cps.push_back(cp);
    i += static_cast<std::size_t>(extra) + 1;
  }
  return cps;
}

/// numpy arrays have at most 64 dimensions (32 before numpy 2).
constexpr std::size_t max_numpy_rank = 64;

/// Row-major index -> Fortran-order (column-major) element index, by walking an odometer: f(k, source) for
/// the `count` row-major indices k from `first`.
template <class F>
void for_each_fortran_index(const std::vector<std::int64_t>& dims, std::int64_t first, std::int64_t count, F f) {
  const std::size_t rank = dims.size();
  std::array<std::int64_t, max_numpy_rank> index{}, stride{};
  stride[0] = 1;
  for (std::size_t d = 1; d < rank; ++d) stride[d] = stride[d - 1] * dims[d - 1];
  std::int64_t source = 0;
  for (std::int64_t rest = first, d = static_cast<std::int64_t>(rank) - 1; d >= 0; --d) {
    const auto u = static_cast<std::size_t>(d);
    if (dims[u] == 0) return;  // no elements
    index[u] = rest % dims[u];
    rest /= dims[u];
    source += index[u] * stride[u];
  }
  for (std::int64_t k = first; k < first + count; ++k) {
    f(k, source);
    for (std::size_t d = rank; d-- > 0;) {  // increment the row-major odometer, last axis fastest
      if (++index[d] < dims[d]) {
        source += stride[d];
        break;
      }
      source -= stride[d] * (dims[d] - 1);
      index[d] = 0;
    }
  }
}

}  // namespace

std::string npy_header(const std::string& descr, const shape& dims);

std::string numpy_dtype(element_type type) {
  switch (type) {
    case element_type::boolean: return "|b1";
    case element_type::i8: return "|i1";
    case element_type::i16: return "<i2";
    case element_type::i32: return "<i4";
    case element_type::i64: return "<i8";
    case element_type::u8: return "|u1";
    case element_type::u16: return "<u2";
    case element_type::u32: return "<u4";
    case element_type::u64: return "<u8";
    case element_type::f16: return "<f2";
    case element_type::f32: return "<f4";
    case element_type::f64: return "<f8";
    default: return {};
  }
}

/// Numeric data still in the file's order: byte-swapped and/or Fortran-ordered.
struct loaded_tensor::conversion {
  std::shared_ptr<detail::mapped_file> file;
  const std::byte* data = nullptr;   // in the mapping
  std::vector<std::int64_t> dims;    // the file's shape
  std::size_t item = 0;              // bytes per element
  bool swap = false;
  bool fortran = false;
  std::once_flag once;
  std::shared_ptr<tensor> converted;
  tensor_view view;

  /// Row-major elements [first, first + count) into `out`; error(io) if the file shrank.
  void convert(std::byte* out, std::int64_t first, std::int64_t count) const {
    auto move_item = [&](std::int64_t to, std::int64_t from) {
      const std::byte* src = data + static_cast<std::uint64_t>(from) * item;
      std::byte* dst = out + static_cast<std::uint64_t>(to - first) * item;
      if (swap) {
        for (std::size_t b = 0; b < item; ++b) dst[b] = src[item - 1 - b];
      } else {
        std::memcpy(dst, src, item);
      }
    };
    // Reads of the mapping: guarded, and nothing with a destructor lives in here.
    auto run = [&] {
      if (fortran) {
        for_each_fortran_index(dims, first, count, move_item);
      } else {
        for (std::int64_t k = first; k < first + count; ++k) move_item(k, k);
      }
    };
    if (!detail::guarded(run)) detail::fail_shrunk(file->name());
  }

  /// Appends all `count` elements to `out`, converted 16 MiB at a time: the memory it takes is bounded.
  void stream(detail::atomic_file& out, std::int64_t count, const write_options& options) const {
    constexpr std::int64_t chunk_bytes = std::int64_t{16} << 20;
    const std::int64_t per_chunk = std::max<std::int64_t>(1, chunk_bytes / static_cast<std::int64_t>(item));
    std::vector<std::byte> buffer(static_cast<std::size_t>(std::min(count, per_chunk)) * item);
    const auto total = static_cast<std::uint64_t>(count) * item;
    for (std::int64_t k = 0; k < count; k += per_chunk) {
      const std::int64_t m = std::min(per_chunk, count - k);
      convert(buffer.data(), k, m);
      out.write(std::span<const std::byte>(buffer.data(), static_cast<std::size_t>(m) * item));
      if (options.progress) options.progress(static_cast<std::uint64_t>(k + m) * item, total);
    }
    if (count == 0 && options.progress) options.progress(0, 0);
  }
};

const tensor_view& loaded_tensor::view() const& {
  if (!pending_) return view_;
  conversion& c = *pending_;
  std::call_once(c.once, [&] {
    auto t = std::make_shared<tensor>(type_, dims_);
    c.convert(static_cast<std::byte*>(t->data()), 0, dims_.element_count());
    c.view = t->view();
    c.converted = std::move(t);
    c.file.reset();  // the mapping is no longer needed
  });
  return c.view;
}

void loaded_tensor::set_view(const tensor_view& v) {
  view_ = v;
  type_ = v.type();
  dims_ = v.dims();
  byte_size_ = v.byte_size();
}

namespace {

/// Decodes numpy's fixed-width strings ('S': bytes, NUL-padded; 'U': UTF-32 code points) into a string
/// tensor, in C order; a code point that is not one is refused, naming its byte (`data_start`: the data's).
std::shared_ptr<tensor> decode_strings(const std::byte* data, std::int64_t n, std::uint64_t data_bytes,
                                       const dtype_info& dt, const std::vector<std::int64_t>& dims, bool reorder,
                                       std::uint64_t data_start, const std::string& name) {
  auto bad = [&](std::uint64_t at, const std::string& what) {
    fail(errc::bad_file, {.offset = at, .file = name}, fmt::format("{}: {}", detail::at_byte(name, at), what));
  };
  auto converted = std::make_shared<tensor>(dt.type, shape(dims));
  {
    auto out = converted->strings();
    std::vector<std::byte> raw(static_cast<std::size_t>(data_bytes));
    detail::guarded_copy(raw.data(), data, raw.size(), name);
    auto decode = [&](std::int64_t to, std::int64_t from) {
      const std::byte* item = raw.data() + static_cast<std::uint64_t>(from) * dt.item_size;
      std::string s;
      if (dt.string_kind == 'S') {
        std::size_t len = static_cast<std::size_t>(dt.item_size);
        while (len > 0 && item[len - 1] == std::byte{0}) --len;
        s.assign(reinterpret_cast<const char*>(item), len);
      } else {
        std::size_t chars = static_cast<std::size_t>(dt.item_size / 4);
        auto cp_at = [&](std::size_t c) {
          std::uint32_t v = 0;
          for (int b = 0; b < 4; ++b) {
            const auto byte = std::to_integer<std::uint32_t>(item[4 * c + static_cast<std::size_t>(b)]);
            v |= dt.big_endian ? byte << (8 * (3 - b)) : byte << (8 * b);
          }
          return v;
        };
        while (chars > 0 && cp_at(chars - 1) == 0) --chars;
        for (std::size_t c = 0; c < chars; ++c) {
          const auto cp = cp_at(c);
          if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            bad(data_start + static_cast<std::uint64_t>(from) * dt.item_size + 4 * c,
                fmt::format("U+{:X} is not a Unicode code point", cp));
          append_utf8(s, cp);
        }
      }
      out[static_cast<std::size_t>(to)] = std::move(s);
    };
    if (reorder) {
      for_each_fortran_index(dims, 0, n, decode);
    } else {
      for (std::int64_t k = 0; k < n; ++k) decode(k, k);
    }
  }
  return converted;
}

/// Where a .npy file's header starts and how long it is, from its preamble (the magic, the version, the
/// header's length), and its major version.
struct npy_preamble {
  std::uint32_t major = 0;
  std::uint64_t header_start = 0, header_length = 0;
};

npy_preamble read_preamble(std::span<const std::byte> bytes, const std::string& name) {
  auto bad = [&](std::uint64_t at, const std::string& what) {
    fail(errc::bad_file, {.offset = at, .file = name}, fmt::format("{}: {}", detail::at_byte(name, at), what));
  };
  std::array<unsigned char, 12> preamble{};
  detail::guarded_copy(preamble.data(), bytes.data(), std::min(bytes.size(), preamble.size()), name);
  auto u8 = [&](std::size_t i) { return std::uint32_t{preamble[i]}; };

  if (bytes.size() < magic.size() || std::memcmp(preamble.data(), magic.data(), magic.size()) != 0)
    bad(0, "not a .npy file: it does not start with \\x93NUMPY");
  if (bytes.size() < 10) bad(bytes.size(), "the file ends inside the .npy preamble");
  const std::uint32_t major = u8(6), minor = u8(7);
  if (major < 1 || major > 3 || minor != 0)
    fail(errc::unsupported, {.offset = 6, .file = name},
         fmt::format("{}: .npy version {}.{} is not supported; reshape1 reads versions 1.0, 2.0 and 3.0",
                     detail::at_byte(name, 6), major, minor));
  const std::uint64_t length_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + length_bytes) bad(bytes.size(), "the file ends inside the header length");
  std::uint64_t header_length = u8(8) | (u8(9) << 8);
  if (major >= 2) header_length |= (std::uint64_t{u8(10)} << 16) | (std::uint64_t{u8(11)} << 24);
  const std::uint64_t header_start = 8 + length_bytes;
  if (header_length > bytes.size() - header_start)
    bad(8, fmt::format("the header length {} runs past the end of the file ({} bytes)", header_length, bytes.size()));
  return {major, header_start, header_length};
}

}  // namespace

loaded_tensor read_npy(const std::filesystem::path& path) {
  auto file = std::make_shared<detail::mapped_file>(path);
  const auto bytes = file->bytes();
  const std::string& name = file->name();
  auto bad = [&](std::uint64_t at, const std::string& what) {
    fail(errc::bad_file, {.offset = at, .file = name}, fmt::format("{}: {}", detail::at_byte(name, at), what));
  };
  // The preamble and the header are copied out of the mapping (a copy that fails cleanly if the file
  // shrinks); the data is read in place or converted under the same guard.
  const auto [major, header_start, header_length] = read_preamble(bytes, name);
  std::string header_text(static_cast<std::size_t>(header_length), '\0');
  detail::guarded_copy(header_text.data(), bytes.data() + header_start, header_text.size(), name);
  if (major < 3)
    for (std::size_t i = 0; i < header_text.size(); ++i)
      if (static_cast<unsigned char>(header_text[i]) >= 0x80) bad(header_start + i, "the header is not ASCII");
  const auto h = header_parser(header_text, header_start, name).parse();
  const dtype_info dt = parse_dtype(h.descr, h.descr_at, name);

  if (h.dims.size() > max_numpy_rank)
    fail(errc::unsupported, {.offset = header_start, .file = name},
         fmt::format("{}: {} dimensions is more than numpy's limit of {}", detail::at_byte(name, header_start),
                     h.dims.size(), max_numpy_rank));
  const shape dims(h.dims);
  auto count = reshape1::detail::count_product(h.dims, [](std::int64_t d) { return d; });
  std::uint64_t data_bytes = 0;
  if (!count || __builtin_mul_overflow(static_cast<std::uint64_t>(*count), dt.item_size, &data_bytes))
    bad(header_start, fmt::format("the shape {} promises more than 2^64 bytes of data", to_string(dims)));
  const std::uint64_t data_start = header_start + header_length;
  // Bytes after the data are left alone, as numpy's np.load leaves them (it reads what the header
  // promises); too few are an error.
  if (bytes.size() - data_start < data_bytes)
    bad(data_start, fmt::format("the header promises {} bytes of {} data of shape {}, but the file holds {}",
                                data_bytes, detail::escaped(h.descr), to_string(dims), bytes.size() - data_start));

  loaded_tensor result;
  result.dtype_ = h.descr;
  const std::byte* data = bytes.data() + data_start;
  const bool reorder = h.fortran && dims.size() > 1;
  if (dt.type != element_type::string && !dt.big_endian && !reorder) {
    result.set_view(tensor_view(data, dt.type, dims));  // zero-copy: the mapping is the tensor
    result.source_fd_ = file->fd();
    result.source_offset_ = data_start;
    result.keep_alive_ = std::move(file);
    return result;
  }

  if (dt.type != element_type::string) {
    // Converted when first needed: by view(), or chunk by chunk while writing (write_npy, write_raw).
    auto c = std::make_shared<loaded_tensor::conversion>();
    c->data = data;
    c->dims = h.dims;
    c->item = static_cast<std::size_t>(dt.item_size);
    c->swap = dt.big_endian;
    c->fortran = reorder;
    c->file = std::move(file);
    result.type_ = dt.type;
    result.dims_ = dims;
    result.byte_size_ = data_bytes;
    result.pending_ = std::move(c);
    return result;
  }
  auto converted = decode_strings(bytes.data() + data_start, *count, data_bytes, dt, h.dims, reorder, data_start, name);
  result.set_view(converted->view());
  result.keep_alive_ = std::move(converted);
  return result;
}

loaded_tensor read_raw(const std::filesystem::path& path, element_type type, const shape& dims) {
  if (type == element_type::string)
    fail(errc::unsupported, {.file = path.string()},
         fmt::format("{}: a string tensor has no raw byte form; use a .npy file", path.string()));
  auto file = std::make_shared<detail::mapped_file>(path);
  const auto expected = storage_size(type, static_cast<std::uint64_t>(dims.element_count()));
  if (file->bytes().size() != expected)
    fail(errc::bad_file, {.file = file->name()},
         fmt::format("{}: the file has {} bytes, but a {} tensor of shape {} takes {}", file->name(),
                     file->bytes().size(), name(type), to_string(dims), expected));
  loaded_tensor result;
  result.set_view(tensor_view(file->bytes().data(), type, dims));
  result.source_fd_ = file->fd();
  result.keep_alive_ = std::move(file);
  return result;
}

void write_npy(const std::filesystem::path& path, const tensor_view& data, const write_options& options) {
  std::string descr = numpy_dtype(data.type());
  std::vector<std::byte> encoded;  // string tensors only
  if (data.type() == element_type::string) {
    const auto strings = data.strings();
    auto too_long = [&](std::size_t i, std::size_t length) {
      fail(errc::invalid_argument, {.indices = {i}, .file = path.string()},
           fmt::format("{}: element {} has {} characters, more than the dtype's width {}", detail::escaped(path.string()),
                       i, length, options.string_width));
    };
    if (options.string_kind == 'S') {
      std::size_t width = std::max<std::size_t>(1, options.string_width);
      for (std::size_t i = 0; i < strings.size(); ++i) {
        if (options.string_width != 0 && strings[i].size() > options.string_width) too_long(i, strings[i].size());
        width = std::max(width, strings[i].size());
      }
      encoded.resize(width * strings.size());
      for (std::size_t i = 0; i < strings.size(); ++i) std::memcpy(encoded.data() + i * width, strings[i].data(), strings[i].size());
      descr = fmt::format("|S{}", width);
    } else {
      std::vector<std::vector<std::uint32_t>> cps;
      std::size_t width = std::max<std::size_t>(1, options.string_width);
      for (std::size_t i = 0; i < strings.size(); ++i) {
        auto c = code_points(strings[i]);
        if (!c)
          fail(errc::invalid_argument, {.indices = {i}, .file = path.string()},
               fmt::format("{}: element {} is not valid UTF-8, so it cannot be stored as numpy str ('U'); store it "
                           "as bytes ('S')",
                           detail::escaped(path.string()), i));
        if (options.string_width != 0 && c->size() > options.string_width) too_long(i, c->size());
        width = std::max(width, c->size());
        cps.push_back(std::move(*c));
      }
      encoded.resize(4 * width * strings.size());
      for (std::size_t i = 0; i < cps.size(); ++i)
        for (std::size_t c = 0; c < cps[i].size(); ++c)
          for (int b = 0; b < 4; ++b)
            encoded[4 * (i * width + c) + static_cast<std::size_t>(b)] = static_cast<std::byte>((cps[i][c] >> (8 * b)) & 0xFF);
      descr = fmt::format("<U{}", width);
    }
  } else if (descr.empty()) {
    fail(errc::unsupported, {.file = path.string()},
         fmt::format("{}: numpy has no dtype for {}; write a raw file instead", path.string(), name(data.type())));
  }

  const std::string head = npy_header(descr, data.dims());
  detail::atomic_file out(path);
  out.write(std::as_bytes(std::span(head.data(), head.size())));
  if (data.type() == element_type::string) {
    out.write(encoded);
  } else {
    out.write_large(data.bytes(), options.threads, options.progress);
  }
  out.commit();
}

std::string npy_header(const std::string& descr, const shape& dims) {
  std::string shape_text = "(";
  for (std::size_t i = 0; i < dims.size(); ++i) shape_text += fmt::format("{}, ", dims[i]);
  if (dims.size() == 1) shape_text.pop_back();  // (3,)
  else if (dims.size() > 1) shape_text.resize(shape_text.size() - 2);
  shape_text += ')';
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr, shape_text);
  // Pad with spaces and a final newline so that the data starts on a 64-byte boundary.
  const bool v2 = dict.size() + 1 + 10 > 65535;
  const std::size_t preamble = v2 ? 12 : 10;
  const std::size_t total = (preamble + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - preamble - dict.size() - 1, ' ');
  dict += '\n';
  std::string head(magic);
  head += static_cast<char>(v2 ? 2 : 1);
  head += '\0';
  const std::size_t len = dict.size();
  head += static_cast<char>(len & 0xFF);
  head += static_cast<char>((len >> 8) & 0xFF);
  if (v2) {
    head += static_cast<char>((len >> 16) & 0xFF);
    head += static_cast<char>((len >> 24) & 0xFF);
  }
  head += dict;
  return head;
}

namespace {
void check_count(const loaded_tensor& data, const shape& dims, const std::filesystem::path& path) {
  const std::int64_t n = data.dims().element_count();
  if (dims.element_count() != n)
    fail(errc::invalid_argument, {.file = path.string()},
         fmt::format("{}: {} elements cannot take the shape {}", path.string(), n, to_string(dims)));
}
tensor_view reshaped(const loaded_tensor& data, const shape& dims, const std::filesystem::path& path) {
  check_count(data, dims, path);
  const auto& v = data.view();
  return {v.data(), v.type(), dims};
}
}  // namespace

void write_npy(const std::filesystem::path& path, const loaded_tensor& data, const shape& dims,
               const write_options& options) {
  if (data.pending_ && !data.pending_->converted) {  // convert on the way to the file, in chunks
    check_count(data, dims, path);
    const std::string head = npy_header(numpy_dtype(data.type()), dims);
    detail::atomic_file out(path);
    out.write(std::as_bytes(std::span(head.data(), head.size())));
    data.pending_->stream(out, dims.element_count(), options);
    out.commit();
    return;
  }
  const tensor_view v = reshaped(data, dims, path);
  if (v.type() == element_type::string && data.dtype_.size() > 2) {
    // The output has the input's dtype: its kind, and its width, which is part of the data.
    write_options o = options;
    o.string_kind = data.dtype_[1] == 'U' ? 'U' : 'S';
    o.string_width = std::stoull(data.dtype_.substr(2));
    return write_npy(path, v, o);
  }
  const std::string descr = numpy_dtype(v.type());
  if (!data.file_backed() || descr.empty()) return write_npy(path, v, options);
  const std::string head = npy_header(descr, dims);
  detail::atomic_file out(path);
  out.write(std::as_bytes(std::span(head.data(), head.size())));
  out.copy_from(data.source_fd_, data.source_offset_, v.bytes(), options.threads, options.progress);
  out.commit();
}

void write_raw(const std::filesystem::path& path, const loaded_tensor& data, const shape& dims,
               const write_options& options) {
  if (data.pending_ && !data.pending_->converted) {
    check_count(data, dims, path);
    detail::atomic_file out(path);
    data.pending_->stream(out, dims.element_count(), options);
    out.commit();
    return;
  }
  const tensor_view v = reshaped(data, dims, path);
  if (!data.file_backed()) return write_raw(path, v, options);
  detail::atomic_file out(path);
  out.copy_from(data.source_fd_, data.source_offset_, v.bytes(), options.threads, options.progress);
  out.commit();
}

void write_raw(const std::filesystem::path& path, const tensor_view& data, const write_options& options) {
  if (data.type() == element_type::string)
    fail(errc::unsupported, {.file = path.string()},
         fmt::format("{}: a string tensor has no raw byte form; write a .npy file", path.string()));
  detail::atomic_file out(path);
  out.write_large(data.bytes(), options.threads, options.progress);
  out.commit();
}

}  // namespace reshape1::io
