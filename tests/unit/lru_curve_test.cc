// Pins the replay semantics on hand-computed sequences, and checks the one-pass LRU curve against a
// straightforward per-capacity LRU written separately here, on random traces at every capacity.
#include "simulate/lru_curve.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <list>
#include <random>
#include <set>
#include <unordered_map>

#include "simulate/aiperf_rate.h"
#include "simulate/lru_replay.h"
#include "trace_builder.h"

namespace ltl {
namespace {

using testing::MakeTrace;
using testing::Req;

ReplayOptions Opts(double warmup, EvictOrder order = EvictOrder::kTailFirst) {
  ReplayOptions o;
  o.warmup = warmup;
  o.order = order;
  return o;
}

TEST(Replay, LeadingRunHitsThenTouches) {
  // bs 4: R1 shares its first two blocks with R0.
  Trace t = MakeTrace({{0, {1, 2, 3}, -1}, {1, {1, 2, 4}, -1}}, 4);
  LruCurve c = LruCurve::Compute(t, Opts(0));
  EXPECT_EQ(c.measured_tokens(), 24);
  EXPECT_EQ(c.Unbounded().hit, 8);
  EXPECT_EQ(c.At(0).hit, 0);
}

TEST(Replay, HitStopsAtFirstMissingBlock) {
  // Blocks 2 and 3 are cached but the request's head differs: no hit at all.
  Trace t = MakeTrace({{0, {1, 2, 3}, -1}, {1, {9, 2, 3}, -1}}, 4);
  EXPECT_EQ(LruCurve::Compute(t, Opts(0)).Unbounded().hit, 0);
}

TEST(Replay, PartialLastBlockCountsOnlyItsTokens) {
  // 6 tokens in 4-token blocks: a full hit is min(2 * 4, 6) = 6 tokens.
  Trace t = MakeTrace({{0, {1, 2}, 6}, {1, {1, 2}, 6}}, 4);
  LruCurve c = LruCurve::Compute(t, Opts(0));
  EXPECT_EQ(c.Unbounded().hit, 6);
  EXPECT_EQ(c.measured_tokens(), 12);
}

TEST(Replay, TailFirstKeepsHeadsHeadFirstKeepsTails) {
  // Capacity 2 after R0 = [1,2,3]: tail-first touches 3,2,1 and keeps {1,2}; head-first touches
  // 1,2,3 and keeps {2,3}, so R1 = [1,2,5] hits two blocks only under tail-first.
  Trace t = MakeTrace({{0, {1, 2, 3}, -1}, {1, {1, 2, 5}, -1}}, 4);
  EXPECT_EQ(LruCurve::Compute(t, Opts(0, EvictOrder::kTailFirst)).At(2).hit, 8);
  EXPECT_EQ(LruCurve::Compute(t, Opts(0, EvictOrder::kHeadFirst)).At(2).hit, 0);
  EXPECT_EQ(LruCurve::Compute(t, Opts(0, EvictOrder::kHeadFirst)).At(3).hit, 8);
  // Capacity 1 keeps only the last touched block: the head (tail-first) hits one block.
  EXPECT_EQ(LruCurve::Compute(t, Opts(0, EvictOrder::kTailFirst)).At(1).hit, 4);
  EXPECT_EQ(LruCurve::Compute(t, Opts(0, EvictOrder::kHeadFirst)).At(1).hit, 0);
}

TEST(Replay, HitIsComputedBeforeTheRequestTouchesItsBlocks) {
  // A request repeating a block within itself does not hit on its own earlier block.
  Trace t = MakeTrace({{0, {7, 7}, -1}}, 4);
  EXPECT_EQ(LruCurve::Compute(t, Opts(0)).Unbounded().hit, 0);
}

TEST(Replay, WarmupBoundaryIsFloorOfNTimesWarmup) {
  // Five identical one-block requests: only the first misses.
  std::vector<Req> reqs;
  reqs.reserve(5);
  for (int i = 0; i < 5; ++i) reqs.push_back({double(i), {1}, -1});
  Trace t = MakeTrace(reqs, 4);
  LruCurve half = LruCurve::Compute(t, Opts(0.5));  // floor(2.5) = 2 -> requests 2,3,4 measured
  EXPECT_EQ(half.measured_requests(), 3u);
  EXPECT_EQ(half.measured_tokens(), 12);
  EXPECT_EQ(half.Unbounded().hit, 12);
  LruCurve cold = LruCurve::Compute(t, Opts(0));
  EXPECT_EQ(cold.measured_requests(), 5u);
  EXPECT_EQ(cold.Unbounded().hit, 16);
  EXPECT_EQ(LruCurve::Compute(t, Opts(0.2)).measured_requests(), 4u);  // floor(1.0) = 1
}

TEST(Replay, TimestampTiesKeepFileOrder) {
  Trace t = MakeTrace({{5, {1}, -1}, {5, {2}, -1}, {1, {3}, -1}, {5, {4}, -1}}, 4);
  ASSERT_EQ(t.requests.size(), 4u);
  EXPECT_EQ(t.requests[0].record, 2u);
  EXPECT_EQ(t.requests[1].record, 0u);
  EXPECT_EQ(t.requests[2].record, 1u);
  EXPECT_EQ(t.requests[3].record, 3u);
}

TEST(Replay, SplitsHitsAcrossAndWithinConversations) {
  // A: [1,2]; B: [1,3] hits block 1, used by A -> across; A again: [1,2,4] hits block 1 (used by
  // B too -> across) and block 2 (only A -> same conversation).
  Trace t = MakeTrace({{0, {1, 2}, -1, "A"}, {1, {1, 3}, -1, "B"}, {2, {1, 2, 4}, -1, "A"}}, 4);
  LruCurve c = LruCurve::Compute(t, Opts(0));
  ASSERT_TRUE(c.has_split());
  EXPECT_EQ(c.Unbounded().hit, 12);
  EXPECT_EQ(c.Unbounded().across, 8);
  EXPECT_EQ(c.Unbounded().same(), 4);
}

TEST(Replay, DenseIdsAndParents) {
  Trace t = MakeTrace({{0, {100, 200, 300}, -1}, {1, {100, 200, 400}, -1}}, 4);
  EXPECT_EQ(t.num_blocks, 4u);
  BlockCursor cursor(t);
  const uint32_t* a = cursor.Blocks(t.requests[0]);
  EXPECT_EQ(std::vector<uint32_t>(a, a + 3), (std::vector<uint32_t>{0, 1, 2}));
  const uint32_t* b = cursor.Blocks(t.requests[1]);
  EXPECT_EQ(std::vector<uint32_t>(b, b + 3), (std::vector<uint32_t>{0, 1, 3}));
  EXPECT_TRUE(t.blocks.empty());  // chained ids: nothing stored per access
  EXPECT_EQ(t.total_block_accesses(), 6u);
  EXPECT_EQ(t.parent, (std::vector<uint32_t>{kNoParent, 0, 1, 1}));
}

TEST(AiperfRate, UnweightedMeanOfLeadingSeenShare) {
  // R0: 0/2; R1: 1/4 (first block seen); R2: 3/3 -> mean = (0 + 0.25 + 1) / 3.
  Trace t = MakeTrace({{0, {1, 2}, -1}, {1, {1, 5, 6, 7}, -1}, {2, {1, 5, 6}, -1}}, 4);
  EXPECT_DOUBLE_EQ(AiperfCacheHitRate(t), 1.25 / 3.0);
}

TEST(ExactSum, MatchesCorrectlyRoundedSum) {
  ExactSum s;
  for (double x : {1e100, 1.0, -1e100, 1e-16, 1.0}) s.Add(x);
  EXPECT_EQ(s.Value(), 2.0);
  ExactSum t;
  for (int i = 0; i < 10; ++i) t.Add(0.1);
  EXPECT_EQ(t.Value(), 1.0);  // naive summation gives 0.9999999999999999
}

// --- One-pass curve vs a straightforward LRU, written independently here. ---

struct RefLru {
  size_t cap;
  std::list<uint32_t> order;  // front = most recent
  std::unordered_map<uint32_t, std::list<uint32_t>::iterator> pos;
  bool Has(uint32_t b) const { return pos.count(b) > 0; }
  void Touch(uint32_t b) {
    auto it = pos.find(b);
    if (it != pos.end()) order.erase(it->second);
    order.push_front(b);
    pos[b] = order.begin();
    if (order.size() > cap) {
      pos.erase(order.back());
      order.pop_back();
    }
  }
};

HitTokens Reference(const Trace& t, size_t cap, const ReplayOptions& o) {
  RefLru lru{cap, {}, {}};
  std::unordered_map<uint32_t, std::set<int32_t>> users;
  HitTokens h;
  size_t first = static_cast<size_t>(t.requests.size() * o.warmup);
  BlockCursor cursor(t);
  for (size_t i = 0; i < t.requests.size(); ++i) {
    const TraceRequest& r = t.requests[i];
    const uint32_t* ids = cursor.Blocks(r);
    if (i >= first) {
      uint32_t k = 0;
      while (k < r.num_blocks && lru.Has(ids[k])) {
        auto& u = users[ids[k]];
        bool other = false;
        for (int32_t c : u) other |= c != r.conversation;
        if (other && t.num_conversations > 0) h.across += BlockTokens(r, k);
        ++k;
      }
      h.hit += std::min<int64_t>(int64_t(k) * r.block_size, r.input_tokens);
    }
    std::vector<uint32_t> order(ids, ids + r.num_blocks);
    if (o.order == EvictOrder::kTailFirst) std::reverse(order.begin(), order.end());
    for (uint32_t b : order) lru.Touch(b);
    for (uint32_t j = 0; j < r.num_blocks; ++j) users[ids[j]].insert(r.conversation);
  }
  return h;
}

// Random requests that share prefixes: each request walks a random tree of chained ids.
Trace RandomTrace(std::mt19937_64& rng, int n, bool conversations) {
  std::vector<Req> reqs;
  std::uniform_int_distribution<int> len(1, 8), branch(0, 2), conv(0, 3), tokens(-3, 0);
  for (int i = 0; i < n; ++i) {
    Req r;
    r.t = static_cast<double>(i - i % 3) / 3;  // some ties
    uint64_t h = 0;
    int k = len(rng);
    for (int j = 0; j < k; ++j) {
      h = h * 1000003 + static_cast<uint64_t>(branch(rng)) + 1;
      r.ids.push_back(h);
    }
    r.len = k * 4 + tokens(rng);  // partial last block sometimes
    if (conversations) r.conv = std::to_string(conv(rng));
    reqs.push_back(r);
  }
  return MakeTrace(reqs, 4);
}

TEST(LruCurve, EqualsPerCapacityReplayAtEveryCapacity) {
  std::mt19937_64 rng(12345);
  for (int round = 0; round < 40; ++round) {
    bool conv = round % 2 == 0;
    Trace t = RandomTrace(rng, 60, conv);
    for (EvictOrder order : {EvictOrder::kTailFirst, EvictOrder::kHeadFirst}) {
      for (double warmup : {0.0, 0.5}) {
        ReplayOptions o = Opts(warmup, order);
        LruCurve c = LruCurve::Compute(t, o);
        for (size_t cap = 1; cap <= t.num_blocks + 1; ++cap) {
          HitTokens ref = Reference(t, cap, o);
          ASSERT_EQ(c.At(cap).hit, ref.hit) << "round " << round << " cap " << cap;
          if (conv) {
            ASSERT_EQ(c.At(cap).across, ref.across) << "round " << round << " cap " << cap;
          }
          // The product's own per-capacity replay agrees too (it is the benchmark baseline).
          ASSERT_EQ(ReplayLruAt(t, cap, o).hit, ref.hit);
        }
        EXPECT_EQ(c.Unbounded().hit, Reference(t, t.num_blocks + 1, o).hit);
      }
    }
  }
}

// The cold ceiling's pass (no stack distances) gives Compute's unbounded figures.
TEST(LruCurve, CeilingOnlyEqualsTheFullCurvesUnboundedFigures) {
  std::mt19937_64 rng(2024);
  for (int round = 0; round < 40; ++round) {
    const bool conv = round % 2 == 0;
    Trace t = RandomTrace(rng, 80, conv);
    for (EvictOrder order : {EvictOrder::kTailFirst, EvictOrder::kHeadFirst}) {
      for (double warmup : {0.0, 0.5}) {
        const ReplayOptions o = Opts(warmup, order);
        const LruCurve full = LruCurve::Compute(t, o);
        const LruCurve ceiling = LruCurve::ComputeCeiling(t, o);
        EXPECT_TRUE(ceiling.ceiling_only());
        EXPECT_FALSE(full.ceiling_only());
        ASSERT_EQ(ceiling.Unbounded().hit, full.Unbounded().hit) << "round " << round;
        ASSERT_EQ(ceiling.Unbounded().across, full.Unbounded().across) << "round " << round;
        ASSERT_EQ(ceiling.measured_tokens(), full.measured_tokens());
        ASSERT_EQ(ceiling.measured_requests(), full.measured_requests());
      }
    }
  }
}

TEST(LruCurve, SlotCompactionKeepsDistancesExact) {
  // Many accesses over few blocks force the Fenwick slots to be compacted repeatedly.
  std::mt19937_64 rng(7);
  std::vector<Req> reqs;
  reqs.reserve(2000);
  std::uniform_int_distribution<int> pick(0, 9);
  for (int i = 0; i < 2000; ++i) reqs.push_back({double(i), {uint64_t(pick(rng)), 99}, -1});
  Trace t = MakeTrace(reqs, 4);
  ReplayOptions o = Opts(0.5);
  LruCurve c = LruCurve::Compute(t, o);
  for (size_t cap = 1; cap <= t.num_blocks + 1; ++cap)
    ASSERT_EQ(c.At(cap).hit, Reference(t, cap, o).hit) << cap;
}

TEST(LruCurve, DenseCurveIsMonotoneAndEndsAtTheCeiling) {
  std::mt19937_64 rng(99);
  Trace t = RandomTrace(rng, 400, false);
  LruCurve c = LruCurve::Compute(t, Opts(0.5));
  auto dense = c.Dense(20);
  ASSERT_FALSE(dense.empty());
  EXPECT_LE(dense.size(), 21u);
  for (size_t i = 1; i < dense.size(); ++i) {
    EXPECT_GT(dense[i].capacity_blocks, dense[i - 1].capacity_blocks);
    EXPECT_GT(dense[i].hit.hit, dense[i - 1].hit.hit);
  }
  EXPECT_EQ(dense.back().hit.hit, c.Unbounded().hit);
  EXPECT_EQ(dense.back().capacity_blocks, c.saturation_blocks());
  EXPECT_LT(c.At(c.saturation_blocks() - 1).hit, c.Unbounded().hit);
}

}  // namespace
}  // namespace ltl
