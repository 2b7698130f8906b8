// RunParallel: runs jobs 0..n-1 on up to `threads` std::threads (0 = hardware concurrency), each
// thread taking the next job index from an atomic counter. Jobs must write only their own outputs.
// The first exception a job throws on any thread (std::bad_alloc above all) stops the others from
// taking new jobs and is rethrown on the calling thread after all have joined, as a single-threaded
// loop would throw it (issue 35, item 5: before, it called std::terminate).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
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
  std::mutex error_mu;
  std::exception_ptr error;
  auto worker = [&] {
    try {
      for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) job(i);
    } catch (...) {
      next.store(n);  // no thread takes a new job
      std::lock_guard<std::mutex> lock(error_mu);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  try {
    pool.reserve(t - 1);
    for (size_t k = 0; k + 1 < t; ++k) pool.emplace_back(worker);
  } catch (...) {  // a thread the system refused: the ones started finish, then it is reported
    next.store(n);
    for (std::thread& th : pool) th.join();
    throw;
  }
  worker();
  for (std::thread& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace ltl
