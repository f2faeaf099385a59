#include "reshape1/error.hpp"

#include "detail/fail.hpp"

namespace reshape1 {

std::string_view name(errc code) noexcept {
  switch (code) {
    case errc::pattern_type: return "pattern_type";
    case errc::pattern_rank: return "pattern_rank";
    case errc::invalid_value: return "invalid_value";
    case errc::multiple_infer: return "multiple_infer";
    case errc::copy_out_of_range: return "copy_out_of_range";
    case errc::overflow: return "overflow";
    case errc::infer_zero: return "infer_zero";
    case errc::not_divisible: return "not_divisible";
    case errc::count_mismatch: return "count_mismatch";
    case errc::scalar_pattern: return "scalar_pattern";
    case errc::syntax: return "syntax";
    case errc::unknown_element_type: return "unknown_element_type";
    case errc::value_range: return "value_range";
    case errc::invalid_shape: return "invalid_shape";
    case errc::invalid_argument: return "invalid_argument";
    case errc::buffer_too_small: return "buffer_too_small";
    case errc::io: return "io";
    case errc::bad_file: return "bad_file";
    case errc::unsupported: return "unsupported";
    case errc::too_large: return "too_large";
  }
  return "unknown";
}

error::error(errc code, location where, const std::string& message, std::string hint)
    : std::runtime_error(hint.empty() ? message : message + "; " + hint),
      code_(code),
      where_(std::move(where)),
      hint_(std::move(hint)) {}

namespace detail {

void fail(errc code, location where, std::string message, std::string hint) {
  throw error(code, std::move(where), message, std::move(hint));
}

void fail(errc code, location where, std::string message) {
  // The grammar is `where: what; hint`: a message written in one piece has its hint after the first "; "
  // that follows the file the message starts with, if any (a path may hold "; ").
  const auto from = !where.file.empty() && message.starts_with(where.file) ? where.file.size() : 0;
  const auto split = message.find("; ", from);
  if (split == std::string::npos) throw error(code, std::move(where), message);
  throw error(code, std::move(where), message.substr(0, split), message.substr(split + 2));
}


std::string_view without_hint(std::string_view whole, std::string_view hint) noexcept {
  if (hint.empty() || whole.size() < hint.size() + 2 || !whole.ends_with(hint)) return whole;
  const auto message = whole.substr(0, whole.size() - hint.size() - 2);
  return whole.substr(message.size(), 2) == "; " ? message : whole;
}

std::string message_of(const error& e) { return std::string(without_hint(e.what(), e.hint())); }

}  // namespace detail

}  // namespace reshape1
