#include "progress.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string_view>

#include "report.hpp"

namespace reshape1::cli {
namespace {

void write_stderr(std::string_view s) {
  while (!s.empty()) {
    const auto n = ::write(STDERR_FILENO, s.data(), s.size());
    if (n <= 0) return;  // a closed terminal: the line is only a courtesy
    s.remove_prefix(static_cast<std::size_t>(n));
  }
}

/// How long a command runs before its line shows: a second, or RESHAPE1_PROGRESS_AFTER_MS (the tests
/// show it at once, on a pseudo-terminal).
std::chrono::milliseconds delay() {
  if (const char* v = std::getenv("RESHAPE1_PROGRESS_AFTER_MS"); v != nullptr && *v != '\0') {
    char* end = nullptr;
    const long ms = std::strtol(v, &end, 10);
    if (*end == '\0' && ms >= 0) return std::chrono::milliseconds(ms);
  }
  return std::chrono::seconds(1);
}

/// `text` as the line shows it: escaped as every printed text is (a layer name may hold control
/// characters), and short enough not to wrap on a narrow terminal.
std::string line_of(const std::string& text) {
  std::string line = printable(text);
  if (line.size() > 78) {
    line.resize(78);
    while (!line.empty() && (static_cast<unsigned char>(line.back()) & 0xC0) == 0x80) line.pop_back();
    if (!line.empty() && (static_cast<unsigned char>(line.back()) & 0x80) != 0) line.pop_back();  // its lead byte
  }
  return "\r\033[K" + line;
}

}  // namespace

progress_line::progress_line(bool wanted) : start_(std::chrono::steady_clock::now()), after_(delay()) {
  if (wanted && ::isatty(STDERR_FILENO) == 1) drawer_ = std::thread([this] { draw_loop(); });
}

progress_line::~progress_line() {
  if (!drawer_.joinable()) return;
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  drawer_.join();
  // Due but not drawn yet (the drawer had not woken): drawn once, so that what is shown never depends
  // on the scheduler, then cleared with the rest.
  if (!shown_ && changed_ && std::chrono::steady_clock::now() - start_ >= after_) {
    write_stderr(line_of(text_));
    shown_ = true;
  }
  if (shown_) write_stderr("\r\033[K");
}

void progress_line::set(std::string text) {
  if (!drawer_.joinable()) return;
  const std::lock_guard lock(mutex_);
  text_ = std::move(text);
  changed_ = true;
}

void progress_line::draw_loop() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::milliseconds(100));
    if (stop_ || !changed_ || std::chrono::steady_clock::now() - start_ < after_) continue;
    changed_ = false;
    shown_ = true;
    const auto line = line_of(text_);
    lock.unlock();
    write_stderr(line);
    lock.lock();
  }
}

}  // namespace reshape1::cli
