// A small pool of threads, created once. Jobs are queued; each worker claims a job's chunks one at a
// time with an atomic counter, and the caller claims them too, so a job finishes even when every worker
// is busy with another.
#include "detail/chunk_pool.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace reshape1::detail {
namespace {

struct job {
  const std::function<void(std::size_t)>* chunk;
  std::size_t count;
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;  // guarded by the pool's mutex
};

class pool {
 public:
  explicit pool(std::size_t workers) {
    threads_.reserve(workers);
    for (std::size_t i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
  }
  pool(const pool&) = delete;
  pool& operator=(const pool&) = delete;
  ~pool() {
    {
      const std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }

  [[nodiscard]] std::size_t workers() const noexcept { return threads_.size(); }

  void run(std::size_t count, const std::function<void(std::size_t)>& chunk) {
    job j{&chunk, count};
    {
      const std::lock_guard lock(mutex_);
      queue_.push_back(&j);
    }
    if (count - 1 >= threads_.size())
      wake_.notify_all();
    else
      for (std::size_t i = 0; i + 1 < count; ++i) wake_.notify_one();
    std::size_t mine = 0;
    for (std::size_t i = j.next.fetch_add(1); i < count; i = j.next.fetch_add(1), ++mine) chunk(i);
    std::unique_lock lock(mutex_);
    // Every chunk is claimed: no worker may pick this job up again once it leaves the queue.
    if (const auto it = std::find(queue_.begin(), queue_.end(), &j); it != queue_.end()) queue_.erase(it);
    j.done += mine;
    finished_.wait(lock, [&] { return j.done == count; });
  }

 private:
  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      job* j = queue_.front();
      const std::size_t i = j->next.fetch_add(1);
      if (i >= j->count) {  // all claimed: the job leaves the queue; its caller waits for the rest
        queue_.pop_front();
        continue;
      }
      lock.unlock();
      (*j->chunk)(i);
      lock.lock();
      if (++j->done == j->count) finished_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable finished_;
  std::deque<job*> queue_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

pool& the_pool() {
  static pool p(pool_workers());
  return p;
}

}  // namespace

void run_chunks(std::size_t count, const std::function<void(std::size_t)>& chunk) {
  if (count == 0) return;
  if (count == 1 || pool_workers() == 0) {
    for (std::size_t i = 0; i < count; ++i) chunk(i);
    return;
  }
  the_pool().run(count, chunk);
}

std::size_t pool_workers() noexcept {
  static const std::size_t n = std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()) - 1, 255);
  return n;
}

}  // namespace reshape1::detail
