// Fuzz targets: a small reader that turns fuzz bytes into choices (0 when the bytes run out), and a
// checker that aborts with a message when an invariant breaks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include <unistd.h>

namespace reshape1::fuzz {

class input {
 public:
  input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  bool flag() { return (byte() & 1) != 0; }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : byte() % n; }
  std::int64_t i64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | byte();
    return static_cast<std::int64_t>(v);
  }
  /// A value that exercises the edges: small ones, the special values, and values near 2^63.
  std::int64_t interesting() {
    static constexpr std::int64_t table[] = {0, 1, 2, 3, 4, 6, 8, 12, -1, -2, 4294967296, 3037000499,
                                             INT64_MAX, INT64_MAX - 1, INT64_MIN, 9007199254740993};
    const auto k = byte();
    if (k < 200) return static_cast<std::int64_t>(k % 13) - 1;
    if (k < 250) return table[k % (sizeof table / sizeof table[0])];
    return i64();
  }
  std::string rest() {
    std::string s(reinterpret_cast<const char*>(data_ + pos_), size_ - pos_);
    pos_ = size_;
    return s;
  }
  [[nodiscard]] std::size_t left() const { return size_ - pos_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

/// A directory of this process's own for the targets that read files (removed by the OS's tmp cleaning).
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("reshape1-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

[[noreturn]] inline void invariant_broken(const std::string& what) {
  std::fprintf(stderr, "reshape1 fuzz: invariant broken: %s\n", what.c_str());
  std::abort();
}

}  // namespace reshape1::fuzz
