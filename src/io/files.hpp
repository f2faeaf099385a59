// Internal: memory-mapped reading and atomic writing of files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "reshape1/error.hpp"

namespace reshape1::io::detail {

/// A read-only private mapping of a whole file (no mapping for an empty file).
class mapped_file {
 public:
  explicit mapped_file(const std::filesystem::path& path);
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  ~mapped_file();
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {data_, size_}; }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// The open file, for kernel-side copies.
  [[nodiscard]] int fd() const noexcept { return fd_; }

 private:
  std::string name_;
  int fd_ = -1;
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

/// A file written under a temporary name in the destination's directory and renamed into place by
/// commit(). Destroyed without commit(), it removes the temporary file: the destination is untouched.
class atomic_file {
 public:
  explicit atomic_file(const std::filesystem::path& destination);
  atomic_file(const atomic_file&) = delete;
  atomic_file& operator=(const atomic_file&) = delete;
  ~atomic_file();

  /// Appends bytes.
  void write(std::span<const std::byte> bytes);
  /// Writes `bytes` at the current end using up to `threads` threads (large buffers), reporting progress.
  void write_large(std::span<const std::byte> bytes, unsigned threads,
                   const std::function<void(std::uint64_t, std::uint64_t)>& progress);
  /// Appends `length` bytes of the open file `source` from `offset`, copied by the kernel where it can
  /// (copy_file_range); `fallback` (the same bytes in memory) is written where it cannot.
  void copy_from(int source, std::uint64_t offset, std::span<const std::byte> fallback, unsigned threads,
                 const std::function<void(std::uint64_t, std::uint64_t)>& progress);
  void commit();

 private:
  [[noreturn]] void fail_io(const std::string& what) const;
  std::filesystem::path destination_;
  std::string temp_;
  int fd_ = -1;
  std::uint64_t written_ = 0;
};

/// Test seam: make every atomic_file fail (error(io)) once it has written this many bytes in total.
void fail_writes_after(std::optional<std::uint64_t> bytes);

/// `name at byte N: ` for error messages.
[[nodiscard]] std::string at_byte(const std::string& file, std::uint64_t byte);

}  // namespace reshape1::io::detail
