// Pins FIFO, optimal (Belady with bypass on the prefix tree) and their shared bookkeeping on small
// traces whose per-request hits were worked out by hand (the reasoning is in each test's comment).
// Letters are block ids; a request is its block path, head first; every block is full.
#include <gtest/gtest.h>

#include "policy_names.h"
#include "policy_trace_util.h"
#include "simulate/fifo_replay.h"
#include "simulate/lru_replay.h"
#include "simulate/next_use.h"
#include "simulate/optimal_replay.h"
#include "simulate/policy_sweep.h"

namespace ltl {
namespace {

using ltl::testing::Eviction;
using ltl::testing::Routing;

using testing::kTestBlockSize;
using testing::PathTrace;
using Hits = std::vector<uint32_t>;

enum : uint64_t { A = 101, B, C, D, X, Y, Z };

ReplayOptions Cold() {
  ReplayOptions o;
  o.warmup = 0;
  return o;
}

Hits FifoHits(const Trace& t, uint64_t cap, ReplayResult* out = nullptr) {
  Hits h;
  ReplayResult r = ReplayFifoAt(t, cap, Cold(), &h);
  if (out) *out = r;
  return h;
}

Hits OptimalHits(const Trace& t, uint64_t cap, ReplayResult* out = nullptr) {
  Hits h;
  ReplayResult r = ReplayOptimalAt(t, ComputeNextUse(t), cap, Cold(), &h);
  if (out) *out = r;
  return h;
}

TEST(NextUse, PointsAtTheNextRequestHoldingTheBlock) {
  Trace t = PathTrace({{A, B}, {C}, {A}, {A, B}});
  std::vector<uint32_t> n = ComputeNextUse(t);
  ASSERT_EQ(n.size(), 6u);
  EXPECT_EQ(n[0], 2u);          // A of request 0 -> request 2
  EXPECT_EQ(n[1], 3u);          // B of request 0 -> request 3
  EXPECT_EQ(n[2], kNeverUsed);  // C
  EXPECT_EQ(n[3], 3u);          // A of request 2 -> request 3
  EXPECT_EQ(n[4], kNeverUsed);
  EXPECT_EQ(n[5], kNeverUsed);
}

// Capacity 2. R0 inserts A, B. R1 hits A, then inserting C evicts A (inserted longest ago), so the
// cache is {B, C}. R2 misses at A (C is cached but not leading); inserting A evicts B -> {C, A}.
// R3 hits A; inserting B evicts C.
TEST(FifoReplay, EvictsTheOldestInsertionAndCountsOnlyTheLeadingRun) {
  Trace t = PathTrace({{A, B}, {A, C}, {A, C}, {A, B}});
  ReplayResult r;
  EXPECT_EQ(FifoHits(t, 2, &r), (Hits{0, 1, 0, 1}));
  EXPECT_EQ(r.hit.hit, 2 * kTestBlockSize);
  EXPECT_EQ(r.measured_tokens, 8 * kTestBlockSize);
}

// Capacity 2: a hit does not refresh A, so C evicts A (oldest) and R4 misses; LRU would keep A.
TEST(FifoReplay, HitsDoNotRefresh) {
  Trace t = PathTrace({{A}, {B}, {A}, {C}, {A}});
  EXPECT_EQ(FifoHits(t, 2), (Hits{0, 0, 1, 0, 0}));
  ReplayOptions o = Cold();
  EXPECT_EQ(ReplayLruAt(t, 2, o).hit, 1 * kTestBlockSize + 1 * kTestBlockSize);
}

// Capacity 2 and a 3-block request: inserting C evicts the request's own head A, so the same
// request never hits again (its head is always the oldest insertion).
TEST(FifoReplay, CanEvictTheCurrentRequestsHead) {
  Trace t = PathTrace({{A, B, C}, {A, B, C}, {A, B, C}});
  EXPECT_EQ(FifoHits(t, 2), (Hits{0, 0, 0}));
  // Engine LRU (tail first) ends each request holding its two head blocks.
  EXPECT_EQ(ReplayLruAt(t, 2, Cold()).hit, 4 * kTestBlockSize);
}

TEST(FifoReplay, ZeroCapacityNeverHits) {
  Trace t = PathTrace({{A}, {A}});
  EXPECT_EQ(FifoHits(t, 0), (Hits{0, 0}));
  EXPECT_EQ(OptimalHits(t, 0), (Hits{0, 0}));
}

// Capacity 2, next uses: A, B -> R2; C -> R3. At R1 the cache {A, B} is full; only B is a leaf
// (A has the cached child B), its next use is 2, and C's own next use 3 is no sooner: C is
// bypassed, so R2 hits both blocks. At R3 the victim B is never used again and neither is C:
// bypassed again. FIFO evicts A for C and loses R2.
TEST(OptimalReplay, BypassesABlockNeededNoSoonerThanTheVictim) {
  Trace t = PathTrace({{A, B}, {C}, {A, B}, {C}});
  EXPECT_EQ(OptimalHits(t, 2), (Hits{0, 0, 2, 0}));
  EXPECT_EQ(FifoHits(t, 2), (Hits{0, 0, 0, 0}));
}

// Capacity 2, next uses A -> R3, B -> R5, C -> R4. At R2 the victim is B (furthest) and C (needed
// at 4 < 5) goes in; R3 and R4 hit, R5 misses.
TEST(OptimalReplay, EvictsTheFurthestNextUse) {
  Trace t = PathTrace({{A}, {B}, {C}, {A}, {C}, {B}});
  EXPECT_EQ(OptimalHits(t, 2), (Hits{0, 0, 0, 1, 1, 0}));
}

// Capacity 3. B's first-seen parent is A, so A is an inner node while B is cached. At R2 the
// furthest next use belongs to A (R6), but only leaves may go: C (R5) is evicted for D (R3).
// At R4 B is on the request's path (protected) and Y is bypassed against D (both never used
// again). At R5 the leaves B and D are both never used again; C is bypassed. A survives, so R6
// hits; plain Belady would have evicted A at R2 and missed R6.
TEST(OptimalReplay, EvictsOnlyLeaves) {
  Trace t = PathTrace({{A, B}, {C}, {D}, {D}, {Y, B}, {C}, {A}});
  EXPECT_EQ(OptimalHits(t, 3), (Hits{0, 0, 0, 1, 0, 0, 1}));
}

// Capacity 3, a tie made visible: B (first seen under A) and X are both next used at R4, so at
// R2 the leaves B and X tie; X was first seen more recently and goes, C goes in. R4 then misses at
// its head X (evicting B instead would have let R4 hit X). R5 hits A.
TEST(OptimalReplay, BreaksTiesTowardTheBlockFirstSeenMostRecently) {
  Trace t = PathTrace({{A, B}, {X}, {C}, {C}, {X, B}, {A}});
  EXPECT_EQ(OptimalHits(t, 3), (Hits{0, 0, 0, 1, 0, 1}));
}

// Capacity 1: A is on R0's path, so B finds no evictable leaf and stops the request; R1 hits A.
TEST(OptimalReplay, ProtectsTheCurrentPath) {
  Trace t = PathTrace({{A, B}, {A, B}});
  EXPECT_EQ(OptimalHits(t, 1), (Hits{0, 1}));
}

// Warm-up 0.5 over 4 requests measures R2, R3. With capacity 2 the cache is full when R2 arrives
// (A, B seen); with capacity 3 it is not: underfilled, for every policy alike.
TEST(PolicyReplays, MarkUnderfilledWhenTheCacheNeverFillsBeforeMeasuring) {
  Trace t = PathTrace({{A}, {B}, {A}, {B}});
  ReplayOptions o;
  o.warmup = 0.5;
  const std::vector<uint32_t> next = ComputeNextUse(t);
  EXPECT_FALSE(ReplayFifoAt(t, 2, o).underfilled);
  EXPECT_FALSE(ReplayOptimalAt(t, next, 2, o).underfilled);
  EXPECT_TRUE(ReplayFifoAt(t, 3, o).underfilled);
  EXPECT_TRUE(ReplayOptimalAt(t, next, 3, o).underfilled);
  EXPECT_EQ(DistinctBlocksBeforeMeasured(t, o), 2u);
  auto runs = RunPolicySweep(t, o, {Eviction("lru"), Eviction("fifo")}, {2, 3}, 2);
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_FALSE(runs[0].result.underfilled);
  EXPECT_TRUE(runs[1].result.underfilled);
  EXPECT_FALSE(runs[2].result.underfilled);
  EXPECT_TRUE(runs[3].result.underfilled);
  // Cold start: underfilled means the cache never filled at all.
  EXPECT_FALSE(ReplayFifoAt(t, 2, Cold()).underfilled);
  EXPECT_TRUE(ReplayFifoAt(t, 3, Cold()).underfilled);
}

// Conversations x, y, x with a large cache: R1 hits A first used by x (across); R2 hits A (used by
// both: across) and B (used by x only: same conversation).
TEST(PolicyReplays, SplitHitsAcrossAndWithinConversations) {
  Trace t = PathTrace({{A, B}, {A, C}, {A, B}}, {"x", "y", "x"});
  const std::vector<uint32_t> next = ComputeNextUse(t);
  for (const ReplayResult& r :
       {ReplayFifoAt(t, 10, Cold()), ReplayOptimalAt(t, next, 10, Cold())}) {
    EXPECT_EQ(r.hit.hit, 3 * kTestBlockSize);
    EXPECT_EQ(r.hit.across, 2 * kTestBlockSize);
    EXPECT_EQ(r.hit.same(), 1 * kTestBlockSize);
  }
}

TEST(PolicySweep, ParsesPolicyLists) {
  auto p = ParseEvictionList("fifo,LRU,optimal");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, (std::vector<const EvictionPolicy*>{Eviction("fifo"), Eviction("lru"),
                                                    Eviction("optimal")}));
  EXPECT_FALSE(ParseEvictionList("lru,lru").ok());
  EXPECT_FALSE(ParseEvictionList("arc").ok());
  EXPECT_FALSE(ParseEvictionList("").ok());
}

// The threaded sweep returns what the single replays return, in policy-major order.
TEST(PolicySweep, MatchesSingleReplaysOnAnyThreadCount) {
  Trace t = PathTrace({{A, B}, {C}, {A, B}, {C}, {A, D}, {X, Y}, {A, B}, {X, Z}});
  const std::vector<uint32_t> next = ComputeNextUse(t);
  ReplayOptions o;
  for (unsigned threads : {1u, 3u}) {
    auto runs = RunPolicySweep(t, o, {Eviction("optimal"), Eviction("fifo"), Eviction("lru")},
                               {1, 2, 4}, threads);
    ASSERT_EQ(runs.size(), 9u);
    for (size_t i = 0; i < 3; ++i) {
      uint64_t cap = runs[i].capacity_blocks;
      EXPECT_EQ(runs[i].result.hit.hit, ReplayOptimalAt(t, next, cap, o).hit.hit);
      EXPECT_EQ(runs[3 + i].result.hit.hit, ReplayFifoAt(t, cap, o).hit.hit);
      EXPECT_EQ(runs[6 + i].result.hit.hit, ReplayLruAt(t, cap, o).hit);
    }
  }
}

}  // namespace
}  // namespace ltl
