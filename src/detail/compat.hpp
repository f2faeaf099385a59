// Internal: what the WebAssembly build's libraries lack. That build compiles with Debian 12's emscripten,
// whose libc++ 14 declares the floating-point from_chars deleted and has no std::jthread, and whose libc
// has no copy_file_range and an mmap that copies; everywhere else these are the standard's and the
// system's own.
#pragma once

#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>

#include <unistd.h>

namespace reshape1::detail {

/// std::from_chars. Under libc++ before 17, a floating-point number is read with strtod (which in that
/// build always runs in the "C" locale) to the same contract: the "general" format, no leading '+' or
/// spaces, no hexadecimal after "0x" (from_chars reads the "0" and stops), result_out_of_range past
/// double's range.
template <class T>
std::from_chars_result parse_number(const char* first, const char* last, T& value) {
#if defined(_LIBCPP_VERSION) && _LIBCPP_VERSION < 170000
  if constexpr (std::is_floating_point_v<T>) {
    const auto invalid = std::from_chars_result{first, std::errc::invalid_argument};
    const char* p = first;
    if (p != last && *p == '-') ++p;
    // strtod takes more than from_chars: leading spaces, '+', and hexadecimal after "0x". from_chars
    // reads the "0" of "0x1p3" and stops at the 'x'.
    if (p == last || *p == '+' || *p == ' ' || (*p >= '\t' && *p <= '\r')) return invalid;
    const std::string text(first, last);
    const bool hex_prefix = last - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    const std::string digits = hex_prefix ? std::string(first, p + 1) : text;
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(digits.c_str(), &end);
    if (end == digits.c_str()) return invalid;
    const char* stop = first + (end - digits.c_str());
    if (errno == ERANGE && (v > 1.0 || v < -1.0)) return {stop, std::errc::result_out_of_range};
    value = static_cast<T>(v);
    return {stop, std::errc()};
  } else {
    return std::from_chars(first, last, value);
  }
#else
  return std::from_chars(first, last, value);
#endif
}

#if defined(__cpp_lib_jthread)
using joining_thread = std::jthread;
#else
/// std::jthread without its stop token: a thread joined when it is destroyed, so that a pool of them is
/// joined when the function that started it returns or throws.
class joining_thread {
 public:
  template <class F, class... Args>
  explicit joining_thread(F&& f, Args&&... args) : thread_(std::forward<F>(f), std::forward<Args>(args)...) {}
  joining_thread(joining_thread&&) noexcept = default;
  joining_thread& operator=(joining_thread&&) = delete;
  joining_thread(const joining_thread&) = delete;
  joining_thread& operator=(const joining_thread&) = delete;
  ~joining_thread() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::thread thread_;
};
#endif

/// Whether files are mapped (mmap) rather than read. Emscripten's mmap copies the file into the heap anyway
/// and takes no MAP_FIXED over a reserved range: there every file is read into memory.
#if defined(__EMSCRIPTEN__)
inline constexpr bool maps_files = false;
#else
inline constexpr bool maps_files = true;
#endif

/// copy_file_range(2). Emscripten has none: there it fails with ENOSYS, as on a kernel without it, and the
/// caller writes the bytes itself.
inline ssize_t copy_file_range(int in, off_t* in_offset, int out, off_t* out_offset, std::size_t n, unsigned flags) {
#if defined(__EMSCRIPTEN__)
  (void)in, (void)in_offset, (void)out, (void)out_offset, (void)n, (void)flags;
  errno = ENOSYS;
  return -1;
#else
  return ::copy_file_range(in, in_offset, out, out_offset, n, flags);
#endif
}

}  // namespace reshape1::detail
