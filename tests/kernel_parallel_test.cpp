// The copy kernel's parallelism: the caller's parallel_for, and reshape1's own pool (started once).
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "detail/chunk_pool.hpp"
#include "reshape1/kernel.hpp"
#include "reshape1/version.hpp"
#include "test_util.hpp"

namespace reshape1 {
namespace {

tensor_view bytes_view(const std::vector<std::byte>& b) {
  return {b.data(), element_type::u8, shape{static_cast<std::int64_t>(b.size())}};
}

std::set<std::string> thread_ids() {
  std::set<std::string> ids;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ids.insert(e.path().filename());
  return ids;
}

TEST(copy_parallel, the_callers_parallel_for_runs_every_chunk_once_in_any_order) {
  const auto src = test::pattern_bytes((std::size_t{1} << 20) + 77, 1);
  std::vector<std::byte> dst(src.size());
  copy_options o;
  o.threads = 5;
  o.parallel_threshold = 0;
  std::size_t chunks = 0;
  o.parallel_for = [&](std::size_t count, const std::function<void(std::size_t)>& chunk) {
    chunks = count;
    for (std::size_t i = count; i-- > 0;) chunk(i);  // backwards, on the calling thread
  };
  copy_elements(bytes_view(src), dst, o);
  EXPECT_EQ(chunks, 5u);
  EXPECT_EQ(dst, src);
}

TEST(copy_parallel, the_callers_threads_run_the_chunks) {
  const auto src = test::pattern_bytes((std::size_t{3} << 20) + 5, 2);
  std::vector<std::byte> dst(src.size());
  copy_options o;
  o.threads = 4;
  o.parallel_threshold = 0;
  std::mutex m;
  std::set<std::thread::id> runners;
  o.parallel_for = [&](std::size_t count, const std::function<void(std::size_t)>& chunk) {
    std::vector<std::thread> team;
    for (std::size_t i = 0; i < count; ++i)
      team.emplace_back([&, i] {
        chunk(i);
        const std::lock_guard lock(m);
        runners.insert(std::this_thread::get_id());
      });
    for (auto& t : team) t.join();
  };
  copy_elements(bytes_view(src), dst, o);
  EXPECT_EQ(runners.size(), 4u);
  EXPECT_EQ(runners.count(std::this_thread::get_id()), 0u);
  EXPECT_EQ(dst, src);
}

TEST(copy_parallel, small_copies_and_one_thread_never_call_parallel_for) {
  const auto src = test::pattern_bytes(4096, 3);
  std::vector<std::byte> dst(src.size());
  copy_options o;
  o.parallel_for = [](std::size_t, const std::function<void(std::size_t)>&) { FAIL() << "called"; };
  o.threads = 4;  // below the default 16 MiB threshold
  copy_elements(bytes_view(src), dst, o);
  o.threads = 1;
  o.parallel_threshold = 0;
  copy_elements(bytes_view(src), dst, o);
  EXPECT_EQ(dst, src);
}

TEST(copy_parallel, an_exception_from_parallel_for_reaches_the_caller) {
  const auto src = test::pattern_bytes(1 << 16, 4);
  std::vector<std::byte> dst(src.size());
  copy_options o;
  o.threads = 2;
  o.parallel_threshold = 0;
  o.parallel_for = [](std::size_t, const std::function<void(std::size_t)>&) { throw std::runtime_error("pool down"); };
  EXPECT_THROW(copy_elements(bytes_view(src), dst, o), std::runtime_error);
}

TEST(copy_parallel, the_default_pool_starts_its_threads_once) {
  const auto src = test::pattern_bytes((std::size_t{2} << 20) + 3, 5);
  std::vector<std::byte> dst(src.size());
  copy_options o;
  o.threads = 3;
  o.parallel_threshold = 0;
  copy_elements(bytes_view(src), dst, o);
  EXPECT_EQ(dst, src);
  const auto after_first = thread_ids();
  EXPECT_GE(after_first.size(), 1 + detail::pool_workers());  // the pool's workers and this thread
  for (unsigned seed = 6; seed < 12; ++seed) {
    const auto again = test::pattern_bytes(src.size(), seed);
    copy_elements(bytes_view(again), dst, o);
    EXPECT_EQ(dst, again);
    EXPECT_EQ(thread_ids(), after_first) << "a copy started or ended threads";
  }
}

TEST(copy_parallel, copies_from_several_threads_share_the_pool) {
  constexpr int callers = 4;
  std::vector<std::thread> team;
  std::atomic<int> good{0};
  for (int c = 0; c < callers; ++c)
    team.emplace_back([c, &good] {
      copy_options o;
      o.threads = 3;
      o.parallel_threshold = 0;
      for (unsigned round = 0; round < 3; ++round) {
        const auto src = test::pattern_bytes((std::size_t{1} << 20) + static_cast<std::size_t>(c) * 1000 + round, round + 20);
        std::vector<std::byte> dst(src.size());
        copy_elements(bytes_view(src), dst, o);
        if (dst == src) ++good;
      }
    });
  for (auto& t : team) t.join();
  EXPECT_EQ(good.load(), callers * 3);
}

TEST(copy_parallel, run_chunks_runs_each_index_once) {
  for (const std::size_t count : {0u, 1u, 2u, 7u, 64u}) {
    std::vector<std::atomic<int>> seen(count);
    detail::run_chunks(count, [&](std::size_t i) { ++seen[i]; });
    for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(seen[i].load(), 1) << count << " chunks, chunk " << i;
  }
}

TEST(version, the_header_and_the_library_agree) {
  EXPECT_EQ(version(), RESHAPE1_VERSION_STRING);
  EXPECT_EQ(std::to_string(RESHAPE1_VERSION_MAJOR) + "." + std::to_string(RESHAPE1_VERSION_MINOR) + "." +
                std::to_string(RESHAPE1_VERSION_PATCH),
            version());
  EXPECT_EQ(RESHAPE1_VERSION, RESHAPE1_VERSION_MAJOR * 10000 + RESHAPE1_VERSION_MINOR * 100 + RESHAPE1_VERSION_PATCH);
}

}  // namespace
}  // namespace reshape1
