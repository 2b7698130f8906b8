// RunParallel: runs jobs 0..n-1 on up to `threads` std::threads (0 = hardware concurrency), each
// thread taking the next job index from an atomic counter. Jobs must write only their own outputs.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace ltl {

inline void RunParallel(size_t n, unsigned threads, const std::function<void(size_t)>& job) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  size_t t = std::min<size_t>(threads, n);
  if (t <= 1) {
    for (size_t i = 0; i < n; ++i) job(i);
    return;
  }
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) job(i);
  };
  std::vector<std::thread> pool;
  pool.reserve(t - 1);
  for (size_t k = 0; k + 1 < t; ++k) pool.emplace_back(worker);
  worker();
  for (std::thread& th : pool) th.join();
}

}  // namespace ltl
