// The data path: views, copies at memory bandwidth, value propagation.
#include "reshape1/kernel.hpp"

#include <algorithm>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "detail/chunk_pool.hpp"
#include "detail/fail.hpp"

namespace reshape1 {
namespace {

void require_capacity(std::uint64_t needed, std::uint64_t capacity, const tensor_view& source) {
  if (capacity < needed)
    detail::fail(errc::buffer_too_small, {},
                 fmt::format("destination: {} bytes are too few for a {} tensor of shape {} ({} bytes); nothing "
                             "was written",
                             capacity, name(source.type()), to_string(source.dims()), needed));
}

}  // namespace

namespace detail {
struct view_access {
  /// The input's data under another shape with the same element count (inference checks the counts
  /// agree), so its count and byte size carry over without another pass over the dimensions.
  static tensor_view reshaped(const tensor_view& input, shape&& dims) noexcept {
    return {input.data_, input.type_, std::move(dims), input.count_, input.bytes_};
  }
};
}  // namespace detail

tensor_view reshape(const tensor_view& input, std::span<const std::int64_t> pattern, bool special_zero,
                    const reshape_options& options) {
  return detail::view_access::reshaped(input, infer_static_shape(input.dims(), pattern, special_zero, options));
}

void copy_elements(const tensor_view& source, std::span<std::byte> destination, const copy_options& options) {
  if (source.type() == element_type::string)
    detail::fail(errc::invalid_argument, {},
                 "destination: a string tensor copies into std::string objects, not bytes; use the std::string "
                 "overload");
  const std::uint64_t bytes = source.byte_size();
  require_capacity(bytes, destination.size(), source);
  if (bytes == 0) return;
  const auto* from = static_cast<const std::byte*>(source.data());
  std::byte* to = destination.data();

  const std::uint64_t threads = options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  if (bytes < options.parallel_threshold || threads == 1) {
    std::memcpy(to, from, static_cast<std::size_t>(bytes));
    return;
  }
  // Equal slices on cache-line boundaries (the last one shorter), one chunk each.
  constexpr std::uint64_t line = 64;
  struct slices {
    const std::byte* from;
    std::byte* to;
    std::uint64_t size;
    std::uint64_t bytes;
  } const s{from, to, (bytes / threads + line - 1) / line * line, bytes};
  const auto count = static_cast<std::size_t>((bytes + s.size - 1) / s.size);
  // Captures one pointer, so std::function stores it without allocating.
  const std::function<void(std::size_t)> chunk = [&s](std::size_t i) {
    const std::uint64_t begin = i * s.size;
    std::memcpy(s.to + begin, s.from + begin, static_cast<std::size_t>(std::min(s.size, s.bytes - begin)));
  };
  if (options.parallel_for)
    options.parallel_for(count, chunk);
  else
    detail::run_chunks(count, chunk);
}

void copy_elements(const tensor_view& source, std::span<std::string> destination) {
  if (source.type() != element_type::string)
    detail::fail(errc::invalid_argument, {},
                 fmt::format("destination: a {} tensor copies into bytes, not std::string objects", name(source.type())));
  const auto from = source.strings();
  if (destination.size() < from.size())
    detail::fail(errc::buffer_too_small, {},
                 fmt::format("destination: {} strings are too few for a string tensor of shape {} ({} elements); "
                             "nothing was written",
                             destination.size(), to_string(source.dims()), from.size()));
  std::copy(from.begin(), from.end(), destination.begin());
}

tensor_view reshape_copy(const tensor_view& input, std::span<const std::int64_t> pattern, bool special_zero,
                         std::span<std::byte> destination, const reshape_options& options, const copy_options& copy) {
  const tensor_view out = reshape(input, pattern, special_zero, options);
  copy_elements(input, destination, copy);
  return {destination.data(), out.type(), out.dims()};
}

std::pair<tensor_view, tensor_view> propagate_values(const tensor_view& lower, const tensor_view& upper,
                                                     const shape& output) {
  if (lower.type() != upper.type() || !(lower.dims() == upper.dims()))
    detail::fail(errc::invalid_argument, {},
                 fmt::format("values: the lower ({} {}) and upper ({} {}) value tensors differ in type or shape",
                             name(lower.type()), to_string(lower.dims()), name(upper.type()), to_string(upper.dims())));
  const auto count = output.element_count();
  if (count != lower.element_count())
    detail::fail(errc::invalid_argument, {},
                 fmt::format("values: {} values cannot take the shape {} ({} elements)", lower.element_count(),
                             to_string(output), count));
  return {tensor_view(lower.data(), lower.type(), output), tensor_view(upper.data(), upper.type(), output)};
}

}  // namespace reshape1
