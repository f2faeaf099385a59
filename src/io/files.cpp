#include "files.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <csetjmp>
#include <csignal>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "../detail/compat.hpp"
#include "../detail/fail.hpp"

namespace reshape1::io::detail {
namespace {

using reshape1::detail::fail;

// How long an output FIFO is waited on for a reader (fifo_reader_wait).
std::atomic<std::int64_t> g_fifo_wait_ms{5000};
std::atomic<std::int64_t> g_fail_after{-1};
std::function<void(const std::filesystem::path&)> g_on_mapped;  // test seam, set while no file is read

std::string system_message(int code) { return std::strerror(code); }

/// Test seam: how many of `want` bytes at file offset `at` may be written before the simulated failure
/// (all of them when the seam is off; 0 means fail now).
std::uint64_t seam_allows(std::int64_t limit, std::uint64_t at, std::uint64_t want) {
  if (limit < 0) return want;
  const auto l = static_cast<std::uint64_t>(limit);
  return at >= l ? 0 : std::min(want, l - at);
}

/// Files up to this size are read into memory rather than mapped: nothing can fault on them later.
constexpr std::size_t read_limit = std::size_t{1} << 20;

/// Asks the kernel to back the whole pages of [data, data + size) with writable memory now, in one call,
/// rather than one page fault at a time as the read fills them, which is much of a fresh buffer's read time
/// (bench/README.md, "Design choices"). Pages
/// already there (a reused buffer) are left as they are. Advice only: on a kernel older than 5.14, or
/// under a sandbox that refuses it, nothing changes and the read faults as before.
void prefault(std::byte* data, std::size_t size) noexcept {
#ifdef MADV_POPULATE_WRITE
  constexpr std::size_t worth = std::size_t{256} << 10;  // smaller buffers come from the heap, mostly mapped
  if (size < worth) return;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + page - 1) & ~(page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + size) & ~(page - 1);
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
  (void)data;
  (void)size;
#endif
}

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (a pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

std::optional<std::string> special_file_kind(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return std::nullopt;
  return kind_of(st.st_mode);
}

namespace {

// Temporary files not yet renamed into place, for remove_temporary_files() (which a signal handler calls:
// lock-free atomics only).
constexpr int max_temporary_files = 64;
std::atomic<const char*> g_temporary[max_temporary_files];

int register_temporary(const char* name) {
  for (int i = 0; i < max_temporary_files; ++i) {
    const char* expected = nullptr;
    if (g_temporary[i].compare_exchange_strong(expected, name)) return i;
  }
  return -1;  // more than 64 at once: still removed by the destructor, only not on a signal
}

/// Blocks the signals that remove temporary files while one is being created and registered.
class block_termination_signals {
 public:
  block_termination_signals() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGXFSZ}) sigaddset(&set, s);
    pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  block_termination_signals(const block_termination_signals&) = delete;
  block_termination_signals& operator=(const block_termination_signals&) = delete;
  ~block_termination_signals() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

 private:
  sigset_t old_{};
};

// SIGBUS from reading a mapping past the end of a file that shrank.
thread_local sigjmp_buf* t_fault_jump = nullptr;
struct sigaction g_previous_sigbus {};

void on_sigbus(int, siginfo_t*, void*) {
  if (t_fault_jump != nullptr) siglongjmp(*t_fault_jump, 1);
  // Not a guarded read: put back the previous disposition; the faulting access repeats under it.
  ::sigaction(SIGBUS, &g_previous_sigbus, nullptr);
}

void install_sigbus_handler() {
  struct sigaction sa {};
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGBUS, &sa, &g_previous_sigbus);
}

std::filesystem::path follow_dangling_links(std::filesystem::path p, const std::string& shown) {
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::error_code ec;
    const auto target = std::filesystem::read_symlink(p, ec);
    if (ec) fail(errc::io, {.file = shown}, fmt::format("{}: cannot read the link: {}", shown, ec.message()));
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  fail(errc::io, {.file = shown}, fmt::format("{}: {}", shown, system_message(ELOOP)));
}

}  // namespace

void on_mapped(std::function<void(const std::filesystem::path&)> hook) { g_on_mapped = std::move(hook); }

void fifo_reader_wait(std::chrono::milliseconds wait) { g_fifo_wait_ms = wait.count(); }

void fail_writes_after(std::optional<std::uint64_t> bytes) {
  g_fail_after = bytes ? static_cast<std::int64_t>(*bytes) : -1;
}

std::string at_byte(const std::string& file, std::uint64_t byte) { return fmt::format("{} at byte {}", file, byte); }

std::string escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto hex = [&](unsigned char b) { out += fmt::format("\\x{:02X}", b); };
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      if (b < 0x20 || b == 0x7F) {
        hex(b);
      } else {
        out += static_cast<char>(b);
      }
      ++i;
      continue;
    }
    const std::size_t extra = (b >> 5) == 0x6 ? 1 : (b >> 4) == 0xE ? 2 : (b >> 3) == 0x1E ? 3 : 0;
    bool valid = extra > 0 && i + extra < text.size();
    std::uint32_t cp = b & (0x3Fu >> extra);
    for (std::size_t k = 1; valid && k <= extra; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      valid = (c >> 6) == 0x2;
      cp = (cp << 6) | (c & 0x3Fu);
    }
    static constexpr std::uint32_t least[] = {0, 0x80, 0x800, 0x10000};
    valid = valid && cp >= least[extra] && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
    if (!valid) {
      hex(b);
      ++i;
      continue;
    }
    // The characters that reorder a line on a terminal (bidirectional embeddings, overrides and isolates,
    // and the marks): a name holding one could make a message read as something else.
    const bool reorders = (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E ||
                          cp == 0x200F || cp == 0x061C;
    if (reorders) {
      out += fmt::format("\\u{{{:04X}}}", cp);
      i += extra + 1;
      continue;
    }
    for (std::size_t k = 0; k <= extra; ++k) {
      if (cp <= 0x9F) {
        hex(static_cast<unsigned char>(text[i + k]));  // a C1 control character
      } else {
        out += text[i + k];
      }
    }
    i += extra + 1;
  }
  return out;
}

bool guard_mapped_reads(void (*fn)(void*), void* ctx) {
  static std::once_flag once;
  std::call_once(once, install_sigbus_handler);
  sigjmp_buf env;
  sigjmp_buf* const outer = t_fault_jump;
  // The signal mask is not saved (that would be a system call on every guard, and the model guards each
  // Const it reads): after a fault the handler's jump leaves SIGBUS blocked, so it is unblocked here.
  if (sigsetjmp(env, 0) != 0) {
    t_fault_jump = outer;
    sigset_t bus;
    sigemptyset(&bus);
    sigaddset(&bus, SIGBUS);
    ::pthread_sigmask(SIG_UNBLOCK, &bus, nullptr);
    return false;
  }
  t_fault_jump = &env;
  fn(ctx);
  t_fault_jump = outer;
  return true;
}

void fail_shrunk(const std::string& file) {
  fail(errc::io, {.file = file},
       fmt::format("{}: the file became shorter while it was being read; run again once nothing writes to it", file));
}

void guarded_copy(void* to, const void* from, std::size_t n, const std::string& file) {
  if (n == 0) return;  // `from` may be null (an empty file has no mapping)
  struct copy {
    void* to;
    const void* from;
    std::size_t n;
    void operator()() const { std::memcpy(to, from, n); }
  } c{to, from, n};
  if (!guarded(c)) fail_shrunk(file);
}

mapped_file::mapped_file(const std::filesystem::path& path, file_access access) {
  const bool standard_input = path == "-";
  name_ = standard_input ? std::string("standard input") : escaped(path.string());
  // The system would read the name only up to a NUL: another file than the one named.
  if (path.native().find('\0') != std::string::npos)
    fail(errc::invalid_argument, {.file = name_}, fmt::format("{}: holds a NUL byte, which no file name can", name_));
  fd_ = standard_input ? ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0)
                       : ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd_ < 0) fail(errc::io, {.file = name_}, fmt::format("{}: cannot open: {}", name_, system_message(errno)));
  auto give_up = [&](const std::string& what) {
    ::close(fd_);
    fd_ = -1;
    fail(errc::io, {.file = name_}, fmt::format("{}: {}", name_, what));
  };
  struct stat st {};
  if (::fstat(fd_, &st) != 0) give_up(fmt::format("cannot read: {}", system_message(errno)));
  // A regular file that says it holds 0 bytes may still give some (/proc and /sys files): read as a stream.
  const bool sized = S_ISREG(st.st_mode) && st.st_size > 0;
  auto read_all = [&](std::size_t expected) {
    // `expected` bytes of a regular file, or everything up to the end of a stream.
    std::size_t have = 0;
    std::size_t capacity = sized ? expected : std::size_t{1} << 16;
    buffer_.reset(new std::byte[capacity]);  // left uninitialised: the reads fill it
    if (sized) prefault(buffer_.get(), capacity);
    for (;;) {
      if (have == capacity) {
        if (sized) break;
        std::unique_ptr<std::byte[]> bigger(new std::byte[capacity * 2]);
        std::memcpy(bigger.get(), buffer_.get(), have);
        buffer_ = std::move(bigger);
        capacity *= 2;
      }
      const ssize_t r = sized ? ::pread(fd_, buffer_.get() + have, capacity - have, static_cast<off_t>(have))
                              : ::read(fd_, buffer_.get() + have, capacity - have);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) give_up(fmt::format("cannot read: {}", system_message(errno)));
      if (r == 0) break;
      have += static_cast<std::size_t>(r);
    }
    if (sized && have != expected) {
      ::close(fd_);
      fd_ = -1;
      fail_shrunk(name_);
    }
    data_ = buffer_.get();
    size_ = have;
  };
  if (S_ISREG(st.st_mode)) {
    regular_ = true;
    const auto size = static_cast<std::size_t>(st.st_size);
    if (size <= read_limit || access == file_access::read_into_memory || !reshape1::detail::maps_files) {
      read_all(size);
      return;
    }
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (p == MAP_FAILED) give_up(fmt::format("cannot map: {}", system_message(errno)));
    ::madvise(p, size, MADV_SEQUENTIAL);
    data_ = static_cast<const std::byte*>(p);
    size_ = size;
    mapped_ = true;
    if (g_on_mapped) g_on_mapped(path);
  } else if (standard_input && !S_ISDIR(st.st_mode)) {
    read_all(0);
  } else {
    give_up(fmt::format("is {}, not a regular file; reshape1 reads regular files, or standard input given as -",
                        kind_of(st.st_mode)));
  }
}

namespace {
/// Bytes [from, to) of the regular file open as `fd` into `bytes + from`: error(io) naming `name` when a
/// read fails, or when the file ends first (it became shorter while it was read).
void pread_range(int fd, std::byte* bytes, std::size_t from, std::size_t to, const std::string& name) {
  for (std::size_t have = from; have < to;) {
    const ssize_t r = ::pread(fd, bytes + have, to - have, static_cast<off_t>(have));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail(errc::io, {.file = name}, fmt::format("{}: cannot read: {}", name, system_message(errno)));
    if (r == 0) fail_shrunk(name);
    have += static_cast<std::size_t>(r);
  }
}
}  // namespace

std::unique_ptr<std::byte[]> mapped_file::copy() const {
  std::unique_ptr<std::byte[]> out(new std::byte[size_]);  // left uninitialised: the reads fill it
  if (!mapped_) {
    std::memcpy(out.get(), data_, size_);
    return out;
  }
  prefault(out.get(), size_);
  pread_range(fd_, out.get(), 0, size_, name_);
  return out;
}

mapped_file::mapped_file(const std::filesystem::path& path, std::span<const std::byte> tail)
    : name_(escaped(path.string())) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) fail(errc::io, {.file = name_}, fmt::format("{}: cannot open: {}", name_, system_message(errno)));
  struct closer {  // the descriptor serves the mapping only: closed on every way out
    int fd;
    ~closer() { ::close(fd); }
  } const close_at_end{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    fail(errc::io, {.file = name_}, fmt::format("{}: cannot read: {}", name_, system_message(errno)));
  if (!S_ISREG(st.st_mode))
    fail(errc::io, {.file = name_},
         fmt::format("{}: is {}, not a regular file; reshape1 reads regular files", name_, kind_of(st.st_mode)));
  const auto size = static_cast<std::size_t>(st.st_size);
  const std::size_t total = size + tail.size();
  if (total == 0) return;  // no bytes: no mapping, as for an empty file
  const auto read_rest = [&](std::byte* bytes, std::size_t from) { pread_range(fd, bytes, from, size, name_); };
  if constexpr (!reshape1::detail::maps_files) {
    buffer_.reset(new std::byte[total]);  // left uninitialised: the file and the tail fill it
    read_rest(buffer_.get(), 0);
    if (!tail.empty()) std::memcpy(buffer_.get() + size, tail.data(), tail.size());
    data_ = buffer_.get();
    size_ = total;
    return;
  }
  // One reserved range (inaccessible, no memory committed): the file's whole pages mapped read-only over
  // its start, as a large file is mapped for reading; then a small writable block for the rest (the
  // file's last, partial page, read with pread, and the tail), made read-only once filled. Only that
  // block counts against the system's memory, however large the file.
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t whole = size / page * page;
  void* const base = ::mmap(nullptr, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED)
    fail(errc::io, {.file = name_}, fmt::format("{}: cannot map: {}", name_, system_message(errno)));
  try {
    auto* const bytes = static_cast<std::byte*>(base);
    if (whole > 0 && ::mmap(bytes, whole, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED)
      fail(errc::io, {.file = name_}, fmt::format("{}: cannot map: {}", name_, system_message(errno)));
    if (const std::size_t rest = total - whole; rest > 0) {
      if (::mmap(bytes + whole, rest, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
          MAP_FAILED)
        fail(errc::io, {.file = name_}, fmt::format("{}: cannot map: {}", name_, system_message(errno)));
      read_rest(bytes, whole);
      if (!tail.empty()) std::memcpy(bytes + size, tail.data(), tail.size());
      (void)::mprotect(bytes + whole, rest, PROT_READ);
    }
  } catch (...) {
    ::munmap(base, total);
    throw;
  }
  data_ = static_cast<const std::byte*>(base);
  size_ = total;
  mapped_ = true;
}

mapped_file::~mapped_file() {
  if (mapped_) ::munmap(const_cast<std::byte*>(data_), size_);
  if (fd_ >= 0) ::close(fd_);
}

namespace {
/// Opens a device or a FIFO to be written in place. A FIFO is opened without blocking (open() would wait
/// forever for a reader that never comes), tried again for a while: a reader started beside reshape1 (`cat
/// fifo & reshape1 ... -o fifo`) may open it a moment later.
int open_in_place(const std::filesystem::path& destination, const std::string& shown, const struct stat& st) {
  const int wait = S_ISFIFO(st.st_mode) ? O_NONBLOCK : 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(g_fifo_wait_ms.load());
  int fd = ::open(destination.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | wait);
  while (fd < 0 && errno == ENXIO && wait != 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    fd = ::open(destination.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | wait);
  }
  if (fd < 0 && errno == ENXIO && wait != 0)
    fail(errc::io, {.file = shown},
         fmt::format("{}: is a FIFO (a pipe) that no process reads (waited {} ms)", shown, g_fifo_wait_ms.load()),
         "start the program that reads it first, or give a regular file");
  if (fd < 0)
    fail(errc::io, {.file = shown},
         fmt::format("{}: cannot open {} for writing: {}", shown, kind_of(st.st_mode), system_message(errno)));
  if (wait != 0) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // then written as any pipe
  return fd;
}
}  // namespace

atomic_file::atomic_file(const std::filesystem::path& destination)
    : shown_(escaped(destination.string())), destination_(destination) {
  if (destination.empty())
    fail(errc::invalid_argument, {}, "the output file name is empty; give a file name, or - for standard output");
  if (destination.native().find('\0') != std::string::npos)
    fail(errc::invalid_argument, {.file = shown_}, fmt::format("{}: holds a NUL byte, which no file name can", shown_));
  if (destination == "-") {
    shown_ = "standard output";
    kind_ = output_kind::direct;
    fd_ = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
    if (fd_ < 0) fail_io(fmt::format("cannot write: {}", system_message(errno)));
    return;
  }
  struct stat st {};
  if (::stat(destination.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      fail(errc::io, {.file = shown_}, fmt::format("{}: is a directory; give the name of a file", shown_));
    if (!S_ISREG(st.st_mode)) {
      // A device or a FIFO: written in place, as cp does (a temporary file and a rename would replace it).
      kind_ = output_kind::direct;
      fd_ = open_in_place(destination, shown_, st);
      return;
    }
    kind_ = output_kind::replace;
    // Replacing goes through the directory; refuse as `cp` would when the file itself is not writable.
    if (::access(destination.c_str(), W_OK) != 0)
      fail(errc::io, {.file = shown_}, fmt::format("{}: cannot write: {}", shown_, system_message(errno)));
    std::error_code ec;
    destination_ = std::filesystem::canonical(destination, ec);  // the target of any symbolic link
    if (ec) fail(errc::io, {.file = shown_}, fmt::format("{}: cannot resolve: {}", shown_, ec.message()));
  } else if (errno == ENOENT) {
    destination_ = follow_dangling_links(destination, shown_);
  } else {
    fail(errc::io, {.file = shown_}, fmt::format("{}: cannot write: {}", shown_, system_message(errno)));
  }

  const auto dir = destination_.has_parent_path() ? destination_.parent_path() : std::filesystem::path(".");
  // The temporary name is .NAME.reshape1-XXXXXX, with NAME cut so that it fits a file name (255 bytes).
  constexpr std::size_t name_max = 255, decoration = 17;
  std::string base = destination_.filename().string();
  if (base.size() > name_max - decoration) base.resize(name_max - decoration);
  std::string pattern = (dir / fmt::format(".{}.reshape1-XXXXXX", base)).string();
  {
    const block_termination_signals block;
    fd_ = ::mkostemp(pattern.data(), O_CLOEXEC);
    if (fd_ < 0)
      fail(errc::io, {.file = shown_},
           fmt::format("{}: cannot create a file in {}: {}", shown_, escaped(dir.string()), system_message(errno)));
    temp_ = std::move(pattern);
    slot_ = register_temporary(temp_.c_str());
  }
  if (kind_ == output_kind::replace) {
    // Keep the replaced file's owner (where allowed) and mode; chown first, as it can clear set-id bits.
    if (::fchown(fd_, st.st_uid, st.st_gid) != 0) {
      // Not allowed (not root): the file gets our owner, as with mv.
    }
    ::fchmod(fd_, st.st_mode & 07777);
  } else {
    // mkostemp makes 0600; give the file the permissions an ordinary new file would have.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd_, 0666 & ~mask);
  }
}

atomic_file::~atomic_file() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
  if (slot_ >= 0) g_temporary[slot_].store(nullptr);
}

void remove_temporary_files() noexcept {
  for (auto& slot : g_temporary) {
    if (const char* name = slot.exchange(nullptr)) ::unlink(name);
  }
}

void atomic_file::fail_io(const std::string& what, int code) const {
  const std::string reason =
      code == EFAULT ? std::string("the input file became shorter while it was being copied") : what;
  fail(errc::io, {.file = shown_},
       fmt::format("{}: {}; {}", shown_, reason,
                   kind_ == output_kind::direct ? "what was written before the error stays written"
                                                : "nothing was written"));
}

void atomic_file::write(std::span<const std::byte> bytes) { write_large(bytes, 1, {}); }

void atomic_file::write_stream(std::span<const std::byte> bytes,
                               const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  constexpr std::uint64_t chunk = std::uint64_t{64} << 20;
  const std::uint64_t total = bytes.size();
  const std::int64_t limit = g_fail_after.load();
  std::uint64_t done = 0;
  while (done < total) {
    const std::uint64_t want = seam_allows(limit, written_, std::min(chunk, total - done));
    if (want == 0) fail_io(fmt::format("write failed after {} bytes: {}", written_, system_message(EIO)));
    const ssize_t r = ::write(fd_, bytes.data() + done, static_cast<std::size_t>(want));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      const int code = errno;
      fail_io(fmt::format("write failed after {} bytes: {}", written_, system_message(code)), code);
    }
    done += static_cast<std::uint64_t>(r);
    written_ += static_cast<std::uint64_t>(r);
    if (progress) progress(done, total);
  }
  if (limit >= 0 && total == 0 && written_ >= static_cast<std::uint64_t>(limit))
    fail_io(fmt::format("write failed after {} bytes: {}", written_, system_message(EIO)));
  if (progress && total == 0) progress(0, 0);
}

void atomic_file::write_large(std::span<const std::byte> bytes, unsigned threads,
                              const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  if (kind_ == output_kind::direct) return write_stream(bytes, progress);
  constexpr std::uint64_t chunk = std::uint64_t{64} << 20;
  const std::uint64_t total = bytes.size();
  const std::uint64_t base = written_;
  std::atomic<std::uint64_t> done{0};  // whole chunks, for the progress
  std::atomic<std::uint64_t> sent_total{0};  // every byte written, for the message of a failure
  std::atomic<int> error_code{0};
  const std::int64_t limit = g_fail_after.load();

  // Each worker writes whole chunks (chunk k goes to worker k % workers) with pwrite at its offset.
  auto work = [&](unsigned worker, unsigned workers) {
    for (std::uint64_t offset = std::uint64_t{worker} * chunk; offset < total && error_code == 0;
         offset += std::uint64_t{workers} * chunk) {
      const std::uint64_t n = std::min(chunk, total - offset);
      std::uint64_t sent = 0;
      while (sent < n) {
        const std::uint64_t at = base + offset + sent;
        const std::uint64_t want = seam_allows(limit, at, n - sent);
        if (want == 0) {
          error_code = EIO;
          return;
        }
        const ssize_t r = ::pwrite(fd_, bytes.data() + offset + sent, static_cast<std::size_t>(want),
                                   static_cast<off_t>(at));
        if (r < 0) {
          if (errno == EINTR) continue;
          error_code = errno;
          return;
        }
        sent += static_cast<std::uint64_t>(r);
        sent_total += static_cast<std::uint64_t>(r);
      }
      const auto now = done += n;
      if (progress && worker == 0) progress(now, total);
    }
  };
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const auto workers = static_cast<unsigned>(std::min<std::uint64_t>(threads, (total + chunk - 1) / chunk));
  if (workers <= 1) {
    work(0, 1);
  } else {
    std::vector<reshape1::detail::joining_thread> pool;
    for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work, w, workers);
    work(0, workers);
  }
  if (limit >= 0 && total == 0 && base >= static_cast<std::uint64_t>(limit)) error_code = EIO;
  if (error_code != 0)
    fail_io(fmt::format("write failed after {} bytes: {}", base + sent_total.load(), system_message(error_code)),
            error_code);
  written_ = base + total;
  if (progress) progress(total, total);
}

void atomic_file::copy_from(int source, std::uint64_t offset, std::span<const std::byte> fallback, unsigned threads,
                            const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  if (kind_ == output_kind::direct) return write_stream(fallback, progress);
  if (source < 0) return write_large(fallback, threads, progress);
  constexpr std::uint64_t chunk = std::uint64_t{256} << 20;
  const std::uint64_t total = fallback.size();
  const std::int64_t limit = g_fail_after.load();
  std::uint64_t done = 0;
  while (done < total) {
    const std::uint64_t want = seam_allows(limit, written_, std::min(chunk, total - done));
    if (want == 0) fail_io(fmt::format("write failed after {} bytes: {}", written_, system_message(EIO)));
    auto in = static_cast<off_t>(offset + done);
    auto out = static_cast<off_t>(written_);
    const ssize_t r = reshape1::detail::copy_file_range(source, &in, fd_, &out, static_cast<std::size_t>(want), 0);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) fail_io("the input file became shorter while it was being copied");
    if (r < 0) {
      const int code = errno;
      if (code != EXDEV && code != ENOSYS && code != EINVAL && code != EOPNOTSUPP)
        fail_io(fmt::format("write failed after {} bytes: {}", written_, system_message(code)), code);
      // The kernel cannot copy between these files: write the mapped bytes instead.
      write_large(fallback.subspan(static_cast<std::size_t>(done)), threads, progress ? [&](std::uint64_t d, std::uint64_t) {
        progress(done + d, total);
      } : std::function<void(std::uint64_t, std::uint64_t)>());
      return;
    }
    done += static_cast<std::uint64_t>(r);
    written_ += static_cast<std::uint64_t>(r);
    if (progress) progress(done, total);
  }
  if (progress && total == 0) progress(0, 0);
}

void atomic_file::commit() {
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0) fail_io(fmt::format("cannot close: {}", system_message(errno)));
  if (kind_ == output_kind::direct) return;
  if (::rename(temp_.c_str(), destination_.c_str()) != 0)
    fail_io(fmt::format("cannot rename {} into place: {}", escaped(temp_), system_message(errno)));
  if (slot_ >= 0) g_temporary[std::exchange(slot_, -1)].store(nullptr);
  temp_.clear();
}

}  // namespace reshape1::io::detail
