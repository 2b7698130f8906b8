// Exhaustive check that the optimal replay is optimal: on many tiny random prefix-tree traces, a
// search written here from scratch tries every legal choice (insert or stop at each missing block,
// and, when full, every evictable leaf as the victim) under the same constraints — leaf-only
// eviction, the current request's cached blocks protected, a block only insertable under a cached
// parent — and its best hit count must equal the optimal replay's, and bound FIFO's and LRU's.
// Cold start and full blocks: the setting in which Belady with bypass is provably optimal.
#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <unordered_map>

#include "policy_trace_util.h"
#include "simulate/fifo_replay.h"
#include "simulate/lru_curve.h"
#include "simulate/lru_replay.h"
#include "simulate/next_use.h"
#include "simulate/optimal_replay.h"

namespace ltl {
namespace {

// The best total hit blocks any policy can reach, by memoized search over (request, position,
// cached set). Nodes are 0..n-1 with parent[v] < v or -1.
class BestPossible {
 public:
  BestPossible(std::vector<std::vector<int>> requests, std::vector<int> parent, int capacity)
      : requests_(std::move(requests)), parent_(std::move(parent)), capacity_(capacity) {}

  int Run() { return Solve(0, 0); }

 private:
  bool Has(uint32_t mask, int v) const { return (mask >> v) & 1u; }

  int Solve(size_t i, uint32_t mask) {
    if (i == requests_.size()) return 0;
    int hits = 0;
    while (hits < static_cast<int>(requests_[i].size()) && Has(mask, requests_[i][hits])) ++hits;
    return hits + Insert(i, 0, mask);
  }

  int Insert(size_t i, size_t j, uint32_t mask) {
    const std::vector<int>& req = requests_[i];
    if (j == req.size()) return Solve(i + 1, mask);
    const int b = req[j];
    if (Has(mask, b)) return Insert(i, j + 1, mask);
    const uint64_t key = (static_cast<uint64_t>(i) << 40) | (static_cast<uint64_t>(j) << 32) | mask;
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;

    int best = Solve(i + 1, mask);  // stop inserting for this request
    if (parent_[b] < 0 || Has(mask, parent_[b])) {
      if (std::popcount(mask) < capacity_) {
        best = std::max(best, Insert(i, j + 1, mask | (1u << b)));
      } else {
        for (int v = 0; v < static_cast<int>(parent_.size()); ++v) {
          if (!Has(mask, v) || OnRequest(req, v) || HasCachedChild(mask, v)) continue;
          best = std::max(best, Insert(i, j + 1, (mask & ~(1u << v)) | (1u << b)));
        }
      }
    }
    memo_[key] = best;
    return best;
  }

  static bool OnRequest(const std::vector<int>& req, int v) {
    return std::find(req.begin(), req.end(), v) != req.end();
  }
  bool HasCachedChild(uint32_t mask, int v) const {
    for (int u = 0; u < static_cast<int>(parent_.size()); ++u)
      if (parent_[u] == v && Has(mask, u)) return true;
    return false;
  }

  std::vector<std::vector<int>> requests_;
  std::vector<int> parent_;
  int capacity_;
  std::unordered_map<uint64_t, int> memo_;
};

TEST(OptimalReplay, IsNeverBeatenOnTinyRandomTraces) {
  std::mt19937 rng(20260530);
  int checked = 0, optimal_beat_lru = 0;
  for (int round = 0; round < 400; ++round) {
    const int nodes = 3 + static_cast<int>(rng() % 8);  // 3..10 blocks
    std::vector<int> parent(nodes);
    for (int v = 0; v < nodes; ++v) {
      // Node v hangs under a random earlier node, or starts a new root (1 in 4).
      parent[v] = (v == 0 || rng() % 4 == 0) ? -1 : static_cast<int>(rng() % v);
    }
    const int n_requests = 4 + static_cast<int>(rng() % 7);  // 4..10 requests
    std::vector<std::vector<int>> requests;
    std::vector<std::vector<uint64_t>> paths;
    for (int i = 0; i < n_requests; ++i) {
      std::vector<int> path;
      for (int v = static_cast<int>(rng() % nodes); v >= 0; v = parent[v])
        path.insert(path.begin(), v);
      requests.push_back(path);
      std::vector<uint64_t> ids;
      for (int v : path) ids.push_back(1000 + static_cast<uint64_t>(v));
      paths.push_back(ids);
    }
    const Trace trace = testing::PathTrace(paths);
    const std::vector<uint32_t> next = ComputeNextUse(trace);
    ReplayOptions cold;
    cold.warmup = 0;
    const LruCurve lru_curve = LruCurve::Compute(trace, cold);
    for (int cap = 1; cap <= 4; ++cap) {
      const int best = BestPossible(requests, parent, cap).Run();
      const int64_t bs = testing::kTestBlockSize;
      const int64_t optimal = ReplayOptimalAt(trace, next, cap, cold).hit.hit / bs;
      const int64_t fifo = ReplayFifoAt(trace, cap, cold).hit.hit / bs;
      const int64_t lru = ReplayLruAt(trace, cap, cold).hit / bs;
      ASSERT_EQ(optimal, best) << "round " << round << " capacity " << cap;
      ASSERT_LE(fifo, best) << "round " << round << " capacity " << cap;
      ASSERT_LE(lru, best) << "round " << round << " capacity " << cap;
      ASSERT_EQ(lru_curve.At(cap).hit / bs, lru);
      optimal_beat_lru += optimal > lru;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 1600);
  EXPECT_GT(optimal_beat_lru, 100);  // the traces are not trivially easy
}

}  // namespace
}  // namespace ltl
