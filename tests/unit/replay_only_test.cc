// Replay-only entries (cache pre-population, used by cctrace --warm-prefix): they touch blocks but
// are never measured or counted, and the warm-up share counts real requests only. Hand-computed.
#include <gtest/gtest.h>

#include "simulate/aiperf_rate.h"
#include "simulate/lru_curve.h"
#include "simulate/lru_replay.h"
#include "simulate/prefix_hits.h"
#include "trace_builder.h"

namespace ltl {
namespace {

Trace WarmTrace() {
  // t=0 replay-only [1,2]; t=1 [1,2,3]; t=2 [1,2,3,4]; t=3 [9]; block size 10.
  auto recs = testing::Records(
      {{0, {1, 2}, -1}, {1, {1, 2, 3}, -1}, {2, {1, 2, 3, 4}, -1}, {3, {9}, -1}}, 10);
  recs[0].replay_only = true;
  return BuildTrace(recs);
}

TEST(ReplayOnly, PrepopulatesButIsNeverMeasured) {
  Trace t = WarmTrace();
  ASSERT_EQ(RealRequests(t), 3u);
  ReplayOptions cold;
  cold.warmup = 0;
  LruCurve c = LruCurve::Compute(t, cold);
  // Hits: 2 (warm) + 3 + 0 blocks of 3 + 4 + 1 measured blocks.
  EXPECT_EQ(c.measured_requests(), 3u);
  EXPECT_EQ(c.measured_tokens(), 80);
  EXPECT_EQ(c.Unbounded().hit, 50);
  EXPECT_EQ(ReplayLruAt(t, 100, cold).hit, 50);
  // At capacity 2: [1,2] hit twice (tail-first touches leave 1 and 2 the most recent each time).
  EXPECT_EQ(c.At(2).hit, 40);
  EXPECT_EQ(ReplayLruAt(t, 2, cold).hit, 40);
  // AIPerf mean over real requests: (2/3 + 3/4 + 0) / 3.
  EXPECT_DOUBLE_EQ(AiperfCacheHitRate(t), (2.0 / 3 + 3.0 / 4) / 3);
  std::vector<uint32_t> hits = UnboundedColdHits(t);
  EXPECT_EQ(hits, (std::vector<uint32_t>{0, 2, 3, 0}));
}

TEST(ReplayOnly, WarmupShareCountsRealRequestsOnly) {
  Trace t = WarmTrace();
  // floor(3 * 0.5) = 1 real request fills the cache: measured are the requests at t=2 and t=3.
  EXPECT_EQ(FirstMeasuredIndex(t, 0.5), 2u);
  ReplayOptions half;
  half.warmup = 0.5;
  LruCurve c = LruCurve::Compute(t, half);
  EXPECT_EQ(c.measured_requests(), 2u);
  EXPECT_EQ(c.measured_tokens(), 50);
  EXPECT_EQ(c.Unbounded().hit, 30);
  EXPECT_EQ(ReplayLruAt(t, 100, half).hit, 30);
}

}  // namespace
}  // namespace ltl
