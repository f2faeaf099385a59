#include "files.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "../detail/fail.hpp"

namespace reshape1::io::detail {
namespace {

std::atomic<std::int64_t> g_fail_after{-1};

std::string system_message(int code) { return std::strerror(code); }

/// Test seam: how many of `want` bytes at file offset `at` may be written before the simulated failure
/// (all of them when the seam is off; 0 means fail now).
std::uint64_t seam_allows(std::int64_t limit, std::uint64_t at, std::uint64_t want) {
  if (limit < 0) return want;
  const auto l = static_cast<std::uint64_t>(limit);
  return at >= l ? 0 : std::min(want, l - at);
}

}  // namespace

void fail_writes_after(std::optional<std::uint64_t> bytes) {
  g_fail_after = bytes ? static_cast<std::int64_t>(*bytes) : -1;
}

std::string at_byte(const std::string& file, std::uint64_t byte) { return fmt::format("{} at byte {}", file, byte); }

mapped_file::mapped_file(const std::filesystem::path& path) : name_(path.string()) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  fd_ = fd;
  if (fd < 0)
    reshape1::detail::fail(errc::io, {.file = name_},
                           fmt::format("{}: cannot open: {}", name_, system_message(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const int code = errno;
    ::close(fd);
    fd_ = -1;
    reshape1::detail::fail(errc::io, {.file = name_},
                           fmt::format("{}: cannot read: {}", name_,
                                       S_ISDIR(st.st_mode) ? std::string("is a directory") : system_message(code)));
  }
  size_ = static_cast<std::size_t>(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    const int code = errno;
    if (p == MAP_FAILED) {
      ::close(fd);
      fd_ = -1;
      reshape1::detail::fail(errc::io, {.file = name_}, fmt::format("{}: cannot map: {}", name_, system_message(code)));
    }
    ::madvise(p, size_, MADV_SEQUENTIAL);
    data_ = static_cast<const std::byte*>(p);
  }
}

mapped_file::~mapped_file() {
  if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
  if (fd_ >= 0) ::close(fd_);
}

atomic_file::atomic_file(const std::filesystem::path& destination) : destination_(destination) {
  const auto dir = destination.has_parent_path() ? destination.parent_path() : std::filesystem::path(".");
  std::string pattern = (dir / fmt::format(".{}.reshape1-XXXXXX", destination.filename().string())).string();
  fd_ = ::mkstemp(pattern.data());
  if (fd_ < 0)
    reshape1::detail::fail(errc::io, {.file = destination.string()},
                           fmt::format("{}: cannot create a file in {}: {}", destination.string(), dir.string(),
                                       system_message(errno)));
  temp_ = pattern;
  // mkstemp makes 0600; give the file the permissions an ordinary new file would have.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, 0666 & ~mask);
}

atomic_file::~atomic_file() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

void atomic_file::fail_io(const std::string& what) const {
  reshape1::detail::fail(errc::io, {.file = destination_.string()},
                         fmt::format("{}: {}; nothing was written", destination_.string(), what));
}

void atomic_file::write(std::span<const std::byte> bytes) {
  write_large(bytes, 1, {});
}

void atomic_file::write_large(std::span<const std::byte> bytes, unsigned threads,
                              const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  constexpr std::uint64_t chunk = std::uint64_t{64} << 20;
  const std::uint64_t total = bytes.size();
  const std::uint64_t base = written_;
  std::atomic<std::uint64_t> done{0};
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
    std::vector<std::jthread> pool;
    for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work, w, workers);
    work(0, workers);
  }
  if (limit >= 0 && total == 0 && base >= static_cast<std::uint64_t>(limit)) error_code = EIO;
  if (error_code != 0)
    fail_io(fmt::format("write failed after {} bytes: {}", base + done.load(), system_message(error_code)));
  written_ = base + total;
  if (progress) progress(total, total);
}

void atomic_file::copy_from(int source, std::uint64_t offset, std::span<const std::byte> fallback, unsigned threads,
                            const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  constexpr std::uint64_t chunk = std::uint64_t{256} << 20;
  const std::uint64_t total = fallback.size();
  const std::int64_t limit = g_fail_after.load();
  std::uint64_t done = 0;
  while (done < total) {
    const std::uint64_t want = seam_allows(limit, written_, std::min(chunk, total - done));
    if (want == 0) fail_io(fmt::format("write failed after {} bytes: {}", written_, system_message(EIO)));
    auto in = static_cast<off_t>(offset + done);
    auto out = static_cast<off_t>(written_);
    const ssize_t r = ::copy_file_range(source, &in, fd_, &out, static_cast<std::size_t>(want), 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      if (r < 0 && errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP)
        fail_io(fmt::format("write failed after {} bytes: {}", written_, system_message(errno)));
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
  if (::close(fd_) != 0) {
    fd_ = -1;
    fail_io(fmt::format("cannot close: {}", system_message(errno)));
  }
  fd_ = -1;
  if (::rename(temp_.c_str(), destination_.c_str()) != 0)
    fail_io(fmt::format("cannot rename {} into place: {}", temp_, system_message(errno)));
  temp_.clear();
}

}  // namespace reshape1::io::detail
