// The "sieve" eviction policy (simulate/eviction_sieve.cc) against SIEVE written separately here
// from the NSDI 2024 paper's description: a vector of (block, visited) oldest first and the hand as
// an index, hits counted block by block, on random traces of shared and repeated prefixes at
// several capacities; plus the paper's worked rule that a visited block survives one pass.
#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include "policy_trace_util.h"
#include "simulate/eviction_policy.h"

namespace ltl {
namespace {

// Hit blocks of each request (leading blocks cached), replaying SIEVE with `capacity` blocks.
std::vector<uint32_t> ReferenceSieve(const std::vector<std::vector<uint64_t>>& paths,
                                     size_t capacity) {
  std::vector<std::pair<uint64_t, bool>> q;  // oldest first
  long hand = -1;                            // index of the hand, -1 = start at the oldest
  auto find = [&q](uint64_t id) {
    for (size_t i = 0; i < q.size(); ++i)
      if (q[i].first == id) return static_cast<long>(i);
    return -1L;
  };
  std::vector<uint32_t> hits;
  for (const auto& path : paths) {
    uint32_t k = 0;
    while (k < path.size() && find(path[k]) >= 0) ++k;
    hits.push_back(k);
    if (capacity == 0) continue;
    for (uint64_t id : path) {
      const long at = find(id);
      if (at >= 0) {
        q[at].second = true;
        continue;
      }
      if (q.size() == capacity) {
        size_t i = hand >= 0 ? static_cast<size_t>(hand) : 0;
        while (q[i].second) {
          q[i].second = false;
          i = i + 1 < q.size() ? i + 1 : 0;
        }
        q.erase(q.begin() + static_cast<long>(i));
        hand = i < q.size() ? static_cast<long>(i) : -1;
      }
      q.emplace_back(id, false);
    }
  }
  return hits;
}

const EvictionPolicy& Sieve() {
  return **FindEvictionPolicy("sieve");
}

TEST(SievePolicy, MatchesAnIndependentReference) {
  std::mt19937 rng(31);
  for (int round = 0; round < 200; ++round) {
    const int n = 5 + static_cast<int>(rng() % 40);
    const int prefixes = 1 + static_cast<int>(rng() % 6);
    std::vector<std::vector<uint64_t>> paths;
    for (int i = 0; i < n; ++i) {  // a shared prefix family, then private blocks
      std::vector<uint64_t> p;
      const uint64_t family = rng() % prefixes;
      const int shared = static_cast<int>(rng() % 6), own = static_cast<int>(rng() % 4);
      p.reserve(shared + own + 1);
      for (int j = 0; j < shared; ++j) p.push_back(1000 * (family + 1) + j);
      for (int j = 0; j < own; ++j) p.push_back(1000000 + rng() % 50);
      if (p.empty()) p.push_back(7);
      paths.push_back(p);
    }
    const Trace trace = testing::PathTrace(paths);
    ReplayOptions options;
    options.warmup = 0;
    const std::vector<uint64_t> capacities = {0, 1, 3, 8, 20, 1000};
    const std::vector<ReplayResult> got = Sieve().Evaluate(trace, options, capacities, nullptr);
    ASSERT_EQ(got.size(), capacities.size());
    for (size_t c = 0; c < capacities.size(); ++c) {
      int64_t want = 0;
      for (uint32_t h : ReferenceSieve(paths, capacities[c])) want += h * testing::kTestBlockSize;
      EXPECT_EQ(got[c].hit.hit, want) << "round " << round << " capacity " << capacities[c];
    }
  }
}

TEST(SievePolicy, AVisitedBlockSurvivesOnePassOfTheHand) {
  // Capacity 3: a, b, c cached; a is hit (visited); d evicts b (a's bit is cleared, b goes); e
  // then evicts c; a is still cached, b and c are not.
  auto cache = Sieve().MakeCache(3, 0);
  const uint32_t a = 1, b = 2, c = 3, d = 4, e = 5;
  for (uint32_t id : {a, b, c}) cache->Admit(&id, 1, 0, EvictOrder::kTailFirst);
  EXPECT_EQ(cache->Match(&a, 1), 1u);
  cache->Admit(&a, 1, 1, EvictOrder::kTailFirst);
  cache->Admit(&d, 1, 0, EvictOrder::kTailFirst);
  EXPECT_EQ(cache->Match(&b, 1), 0u);
  cache->Admit(&e, 1, 0, EvictOrder::kTailFirst);
  EXPECT_EQ(cache->Match(&a, 1), 1u);
  EXPECT_EQ(cache->Match(&c, 1), 0u);
  EXPECT_EQ(cache->size(), 3u);
}

}  // namespace
}  // namespace ltl
