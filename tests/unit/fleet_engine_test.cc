// Fleets of engine KV pools (`--workers N --engine vllm|sglang`, simulate/fleet_engine.cc) on
// hand-built cases, each figure worked out by hand from the rules (docs/SEMANTICS.md "Engine KV
// pool", "Fleets"): per-worker pools behind cache-oblivious routes (a request waits on its own
// worker's pool), a cache-aware router seeing each pool's blocks and its in-flight requests —
// queued ones included — and one worker reducing to the single pool. Block size 4, warm-up 0, every
// duration logged so times are exact.
#include <gtest/gtest.h>

#include "engine_trace_builders.h"
#include "simulate/engine_pool.h"
#include "simulate/fleet_sim.h"
#include "simulate/lru_curve.h"
#include "simulate/routing_policy.h"

namespace ltl {
namespace {

using R = testing::EngineReq;
using testing::Cold;
using testing::EngineTrace;

FleetOptions EngineFleet(uint32_t workers, std::vector<uint64_t> caps, const char* policy,
                         const KvEngine& engine = VllmEngine()) {
  FleetOptions o;
  o.workers = workers;
  o.capacity_blocks = std::move(caps);
  o.policies = {*FindRoutingPolicy(policy)};
  o.engine = &engine;
  o.keep_routes = true;
  o.threads = 1;
  return o;
}

TEST(FleetEngine, RoundRobinRequestsWaitOnTheirOwnWorkersPool) {
  // Pools of 3 blocks. Round-robin: A, C, E on worker 0; B, D on worker 1. A [1,2] runs until 10.
  // B [1,2] misses on worker 1's empty pool. C [1,2,3] (9 tokens) hits A's two running blocks (8
  // tokens, shared) and takes the last free block; runs until 102. D [5] takes worker 1's free
  // block. E [6,7] needs 2 blocks on worker 0: at 10 A ends but C still holds 1 and 2; all three
  // blocks come free when C ends at 102, so E waits 98 s — while worker 1 sits idle.
  Trace t = EngineTrace({{0, {1, 2}, 8, 0, 10},
                         {1, {1, 2}, 8, 0, 10},
                         {2, {1, 2, 3}, 9, 0, 100},
                         {3, {5}, 4, 0, 1},
                         {4, {6, 7}, 8, 0, 1}});
  FleetResult r =
      SimulateFleet(t, Cold(), EngineFleet(2, {3}, "round-robin"), LruCurve::Compute(t, Cold()));
  const FleetPoint& p = r.policies[0].points[0];
  EXPECT_EQ(p.hit_tokens, 8);
  EXPECT_EQ(p.measured_tokens, 37);
  EXPECT_EQ(p.requests, (std::vector<uint64_t>{3, 2}));
  EXPECT_EQ(p.uncached_tokens, (std::vector<int64_t>{17, 12}));
  EXPECT_DOUBLE_EQ(p.waiting_p50_s, 0);
  EXPECT_DOUBLE_EQ(p.waiting_p95_s, 98);  // nearest rank: the 5th of 5
  EXPECT_EQ(p.too_large, 0u);
}

TEST(FleetEngine, ACacheAwareRouterCountsQueuedRequestsAsInFlight) {
  // Pools of 2 blocks, prefix-aware with the guard at abs 1, rel 1.5. A [1,2] runs on worker 0
  // until 100 (ties go to worker 0). B [1,2] matches 1 block there (the hit stops at
  // floor((8 - 1) / 4) = 1) and goes to worker 0, but the pool is full: B waits. C [1,2] sees
  // worker 0 with 2 in flight (one running, one queued) and worker 1 with 0: 2 - 0 > 1 and
  // 2 > 1.5 x 0, so the guard sends it to worker 1 (counting only running requests, 1 - 0 > 1 is
  // false and C would queue behind B). B is admitted at 100, when A frees both blocks: its first
  // block is still hashed there, 4 tokens hit.
  Trace t = EngineTrace({{0, {1, 2}, 8, 0, 100}, {1, {1, 2}, 8, 0, 1}, {2, {1, 2}, 8, 0, 1}});
  FleetOptions o = EngineFleet(2, {2}, "prefix-aware");
  o.balance_abs_threshold = 1;
  o.balance_rel_threshold = 1.5;
  FleetResult r = SimulateFleet(t, Cold(), o, LruCurve::Compute(t, Cold()));
  const FleetPoint& p = r.policies[0].points[0];
  EXPECT_EQ(p.routes, (std::vector<uint32_t>{0, 0, 1}));
  EXPECT_EQ(p.guard_triggers, 1u);
  EXPECT_EQ(p.hit_tokens, 4);
  EXPECT_EQ(p.measured_tokens, 24);
  EXPECT_DOUBLE_EQ(p.waiting_p95_s, 99);
}

TEST(FleetEngine, ACacheAwareRouterSeesBlocksKeptInAFinishedRequestsPool) {
  // A [1,2] (9 tokens) ran on worker 0 and finished; its blocks are free but still hashed. B
  // [1,2,3] (12 tokens) matches them there (its hit stops at floor(11 / 4) = 2 blocks) and
  // prefix-aware sends it to worker 0: 8 tokens hit. Round-robin sends it to worker 1: nothing.
  const std::vector<R> reqs = {{0, {1, 2, 3}, 9, 0, 1}, {5, {1, 2, 3}, 12, 0, 1}};
  Trace t = EngineTrace(reqs);
  FleetResult aware =
      SimulateFleet(t, Cold(), EngineFleet(2, {8}, "prefix-aware"), LruCurve::Compute(t, Cold()));
  EXPECT_EQ(aware.policies[0].points[0].routes, (std::vector<uint32_t>{0, 0}));
  EXPECT_EQ(aware.policies[0].points[0].hit_tokens, 8);
  FleetResult rr =
      SimulateFleet(t, Cold(), EngineFleet(2, {8}, "round-robin"), LruCurve::Compute(t, Cold()));
  EXPECT_EQ(rr.policies[0].points[0].hit_tokens, 0);
}

TEST(FleetEngine, OneWorkerIsTheSinglePoolAndThePooledBoundIsOnePoolOfNTimesTheSize) {
  Trace t = EngineTrace(testing::SharedPrefixRequests());
  for (uint64_t cap : {uint64_t{8}, uint64_t{16}, uint64_t{64}}) {
    EngineOptions eo;
    eo.capacity_blocks = cap;
    EngineReplayResult single = RunEngineReplay(t, Cold(), VllmEngine(), eo);
    const WaitingSummary w = SummarizeWaiting(single.waiting_s);
    for (const char* policy : {"round-robin", "prefix-aware", "kv-cost"}) {
      FleetResult r =
          SimulateFleet(t, Cold(), EngineFleet(1, {cap}, policy), LruCurve::Compute(t, Cold()));
      const FleetPoint& p = r.policies[0].points[0];
      EXPECT_EQ(p.hit_tokens, single.hit.hit) << policy << " " << cap;
      EXPECT_EQ(p.measured_tokens, single.measured_tokens) << policy << " " << cap;
      EXPECT_DOUBLE_EQ(p.waiting_p95_s, w.p95_s) << policy << " " << cap;
      EXPECT_EQ(p.evictions, single.evictions) << policy << " " << cap;
      EXPECT_EQ(r.pooled[0].hit, single.hit.hit);
    }
    // Two workers: the pooled bound is one pool of twice the size.
    EngineOptions twice = eo;
    twice.capacity_blocks = 2 * cap;
    FleetResult two = SimulateFleet(t, Cold(), EngineFleet(2, {cap}, "round-robin"),
                                    LruCurve::Compute(t, Cold()));
    EXPECT_EQ(two.pooled[0].hit, RunEngineReplay(t, Cold(), VllmEngine(), twice).hit.hit);
  }
}

TEST(FleetEngine, SglangWorkersRunTheSamePoolAndARouterSeesARunningRequestsPrompt) {
  // One sglang worker is the single sglang pool, whatever the router.
  Trace t = EngineTrace(testing::SharedPrefixRequests());
  for (uint64_t cap : {uint64_t{8}, uint64_t{16}, uint64_t{64}}) {
    EngineOptions eo;
    eo.capacity_blocks = cap;
    EngineReplayResult single = RunEngineReplay(t, Cold(), SglangEngine(), eo);
    for (const char* policy : {"round-robin", "prefix-aware"}) {
      FleetResult r = SimulateFleet(t, Cold(), EngineFleet(1, {cap}, policy, SglangEngine()),
                                    LruCurve::Compute(t, Cold()));
      EXPECT_EQ(r.policies[0].points[0].hit_tokens, single.hit.hit) << policy << " " << cap;
      EXPECT_EQ(r.policies[0].points[0].evictions, single.evictions) << policy << " " << cap;
    }
  }
  // A [1,2,3] runs on worker 0 until 100; its prompt entered the tree at admission, locked. B, the
  // same 12 tokens, matches 2 blocks there (floor(11 / 4)) while A runs: prefix-aware sends it to
  // worker 0 and 8 tokens hit.
  Trace two = EngineTrace({{0, {1, 2, 3}, 12, 0, 100}, {1, {1, 2, 3}, 12, 0, 1}});
  FleetResult aware =
      SimulateFleet(two, Cold(), EngineFleet(2, {8}, "prefix-aware", SglangEngine()),
                    LruCurve::Compute(two, Cold()));
  EXPECT_EQ(aware.policies[0].points[0].routes, (std::vector<uint32_t>{0, 0}));
  EXPECT_EQ(aware.policies[0].points[0].hit_tokens, 8);
}

TEST(FleetEngine, ARequestLargerThanAWorkersPoolIsSkippedAndCounted) {
  Trace t = EngineTrace({{0, {1, 2, 3}, 12, 0, 1}, {1, {4}, 4, 0, 1}});
  for (const char* policy : {"round-robin", "prefix-aware"}) {
    FleetResult r =
        SimulateFleet(t, Cold(), EngineFleet(2, {2}, policy), LruCurve::Compute(t, Cold()));
    const FleetPoint& p = r.policies[0].points[0];
    EXPECT_EQ(p.too_large, 1u) << policy;
    EXPECT_EQ(p.measured_tokens, 4) << policy;
  }
}

}  // namespace
}  // namespace ltl
