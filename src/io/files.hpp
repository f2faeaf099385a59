// Internal: reading files (mapped, or read into memory) and writing them (atomically, or directly to a
// device or FIFO).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reshape1/error.hpp"

namespace reshape1::io::detail {

/// How mapped_file holds a regular file's bytes.
enum class file_access {
  map_large,         ///< a read-only mapping when the file is large, a copy in memory when it is small
  read_into_memory,  ///< always a copy in memory, which writable_bytes() gives (for parsers that work in place)
};

/// The bytes of a whole input file: a read-only private mapping of a regular file, or, for small files,
/// for file_access::read_into_memory and for standard input ("-") when it is not a regular file, a copy
/// read into memory. Anything else that is not a regular file (a FIFO, a device, a socket, a directory) is
/// refused at once with error(io): it is never opened in a way that could block.
class mapped_file {
 public:
  explicit mapped_file(const std::filesystem::path& path, file_access access = file_access::map_large);
  /// The regular file's bytes followed by `tail`, one contiguous block: a file with bytes appended, read
  /// without writing it anywhere. The file's whole pages are mapped read-only; only its last, partial page
  /// and the tail are copied (and count against memory). fd() is -1: the bytes are no longer the file's.
  mapped_file(const std::filesystem::path& path, std::span<const std::byte> tail);
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  ~mapped_file();
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {data_, size_}; }
  /// The name for messages (control characters escaped; "standard input" for "-").
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// The open regular file, for kernel-side copies; -1 when the bytes came from a stream.
  [[nodiscard]] int fd() const noexcept { return regular_ ? fd_ : -1; }
  /// Whether bytes() is a mapping (reads of it can fault if the file shrinks: use guarded_copy).
  [[nodiscard]] bool mapped() const noexcept { return mapped_; }
  /// The bytes as a private copy that no change to the file can reach, for a parser that cannot be
  /// guarded against a mapping that faults: a mapped file is read again with pread() into a buffer
  /// populated at once (one set of pages, faulted in bulk, where a copy of the mapping faults both the
  /// mapping's and the copy's pages one by one); a file that shrank meanwhile is error(io). Bytes already
  /// in memory (mapped() false) are copied as they are.
  [[nodiscard]] std::unique_ptr<std::byte[]> copy() const;
  /// The copy in memory, writable; empty when the file is mapped.
  [[nodiscard]] std::span<std::byte> writable_bytes() noexcept {
    return mapped_ ? std::span<std::byte>() : std::span<std::byte>(buffer_.get(), size_);
  }

 private:
  std::string name_;
  int fd_ = -1;
  bool regular_ = false;
  bool mapped_ = false;
  std::unique_ptr<std::byte[]> buffer_;  // not zeroed first: every byte of it is read from the file
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Runs fn(ctx), which may read mapped memory; returns false if it touched a page past the end of a
/// file that shrank after it was mapped (SIGBUS), true when it completed. `fn` must not have objects with
/// non-trivial destructors alive when it reads mapped memory: on a fault the stack is unwound by
/// siglongjmp, which runs no destructors.
bool guard_mapped_reads(void (*fn)(void*), void* ctx);
template <class F>
bool guarded(F& f) {
  return guard_mapped_reads([](void* c) { (*static_cast<F*>(c))(); }, &f);
}
/// memcpy that fails with error(io) naming `file` when the source is a mapping of a file that shrank.
void guarded_copy(void* to, const void* from, std::size_t n, const std::string& file);
/// The error for a mapped input that shrank while it was read.
[[noreturn]] void fail_shrunk(const std::string& file);

/// Where write_file puts its bytes, after following symbolic links.
enum class output_kind {
  new_file,  ///< nothing there yet: a temporary file beside it, renamed into place
  replace,   ///< an existing regular file: replaced the same way, keeping its mode (and owner when allowed)
  direct,    ///< a device, a FIFO, or standard output ("-"): opened and written in place
};

/// A file written under a temporary name in the destination's directory and renamed into place by
/// commit(); destroyed without commit(), it removes the temporary file, so the destination is untouched.
/// A destination that is a symbolic link is followed: its final target is replaced, the link stays. A
/// device, a FIFO or "-" (standard output) is written directly, without a temporary file.
class atomic_file {
 public:
  explicit atomic_file(const std::filesystem::path& destination);
  atomic_file(const atomic_file&) = delete;
  atomic_file& operator=(const atomic_file&) = delete;
  ~atomic_file();

  [[nodiscard]] output_kind kind() const noexcept { return kind_; }
  /// Appends bytes.
  void write(std::span<const std::byte> bytes);
  /// Writes `bytes` at the current end using up to `threads` threads (large buffers), reporting progress.
  void write_large(std::span<const std::byte> bytes, unsigned threads,
                   const std::function<void(std::uint64_t, std::uint64_t)>& progress);
  /// Appends `length` bytes of the open file `source` from `offset`, copied by the kernel where it can
  /// (copy_file_range); `fallback` (the same bytes in memory) is written where it cannot, and when
  /// `source` is -1 (bytes that are not a file's: mapped_file::fd()).
  void copy_from(int source, std::uint64_t offset, std::span<const std::byte> fallback, unsigned threads,
                 const std::function<void(std::uint64_t, std::uint64_t)>& progress);
  void commit();

 private:
  [[noreturn]] void fail_io(const std::string& what, int code = 0) const;
  void write_stream(std::span<const std::byte> bytes,
                    const std::function<void(std::uint64_t, std::uint64_t)>& progress);
  std::string shown_;                  // the destination as given, for messages
  std::filesystem::path destination_;  // after following symbolic links
  output_kind kind_ = output_kind::new_file;
  std::string temp_;
  int slot_ = -1;  // in the registry of temporary files removed on a signal
  int fd_ = -1;
  std::uint64_t written_ = 0;
};

/// What `path` is when it exists and is not a regular file ("a directory", "a FIFO (a pipe)", ...), for
/// refusing it as an output before anything is written; nullopt for a regular file or nothing.
[[nodiscard]] std::optional<std::string> special_file_kind(const std::filesystem::path& path);

/// Removes every temporary file an atomic_file has not committed yet. Async-signal-safe.
void remove_temporary_files() noexcept;

/// Test seam: called with the path of every file mapped_file maps (not those it reads into memory), right
/// after mapping it; empty to turn off. The tests truncate the file there.
void on_mapped(std::function<void(const std::filesystem::path&)> hook);

/// How long an atomic_file given a FIFO waits for a process to open it for reading before refusing it
/// (5 s; the tests shorten it).
void fifo_reader_wait(std::chrono::milliseconds wait);

/// Test seam: make every atomic_file fail (error(io)) once it has written this many bytes in total.
void fail_writes_after(std::optional<std::uint64_t> bytes);

/// `name at byte N: ` for error messages.
[[nodiscard]] std::string at_byte(const std::string& file, std::uint64_t byte);

/// `text` with control characters (C0, DEL and C1) and bytes that are not part of valid UTF-8 written as
/// \xNN, and the characters that reorder text (bidirectional overrides, isolates, marks) as \u{NNNN}: safe
/// to print on a terminal, read as written, and never half a character.
[[nodiscard]] std::string escaped(std::string_view text);

}  // namespace reshape1::io::detail
