// reshape1 CLI: one progress line on standard error for a command that runs long (`check`, `fix`).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace reshape1::cli {

/// Shows the latest text given to set() on one line of standard error, rewritten in place, once the
/// command has run for about a second; the line is cleared when the object goes. Nothing is shown when
/// `wanted` is false (--quiet, --json) or standard error is not a terminal: a log or a pipe gets no
/// control characters. A thread of its own draws the line, so that a long read or propagation, which
/// calls nothing back, still shows what it is doing.
class progress_line {
 public:
  explicit progress_line(bool wanted);
  ~progress_line();
  progress_line(const progress_line&) = delete;
  progress_line& operator=(const progress_line&) = delete;

  /// The stage and counts to show (a few words).
  void set(std::string text);

 private:
  void draw_loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::string text_;
  bool changed_ = false;
  bool stop_ = false;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::milliseconds after_;
  std::thread drawer_;
};

}  // namespace reshape1::cli
