// The "lowest QPS" choice of vLLM production-stack's router
// (vllm-project/production-stack@a6c01db0, src/vllm_router/routers/routing_logic.py
// RoutingInterface._qps_routing, and src/vllm_router/stats/request_stats.py RequestStatsMonitor /
// MovingAverageMonitor): the first worker (in index order; the real one walks its service
// discovery's order) that has never been sent a request; else the worker with the fewest requests
// sent in the last `window` seconds
// (--request-stats-window, default 60: arrivals at or after now - window), ties to the lowest
// index. Every request the router sends counts, whichever rule chose its worker. Time is the log's.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

namespace ltl {

class RouterQps {
 public:
  RouterQps(uint32_t workers, double window_s)
      : sent_(workers), ever_(workers, 0), window_(window_s) {}
  void Sent(uint32_t worker, double now) {
    sent_[worker].push_back(now);
    ever_[worker] = 1;
  }
  uint32_t Lowest(double now) {
    uint32_t best = 0;
    size_t best_count = SIZE_MAX;
    for (uint32_t w = 0; w < sent_.size(); ++w) {
      if (!ever_[w]) return w;
      std::deque<double>& q = sent_[w];
      while (!q.empty() && q.front() < now - window_) q.pop_front();
      if (q.size() < best_count) best = w, best_count = q.size();
    }
    return best;
  }

 private:
  std::vector<std::deque<double>> sent_;  // per worker: arrival times still in the window
  std::vector<uint8_t> ever_;
  double window_;
};

}  // namespace ltl
