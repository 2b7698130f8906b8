// The optimal replay on messy random traces (repeated blocks, a block reached through different
// prefixes, partial blocks, warm-up): it never reports more than the unbounded ceiling, reaches the
// ceiling once the capacity holds every distinct block, and never exceeds its capacity.
#include <gtest/gtest.h>

#include <random>

#include "common/request_record.h"
#include "simulate/lru_curve.h"
#include "simulate/next_use.h"
#include "simulate/optimal_replay.h"
#include "simulate/trace.h"

namespace ltl {
namespace {

TEST(OptimalReplay, StaysWithinTheCeilingOnMessyTraces) {
  std::mt19937 rng(11);
  for (int round = 0; round < 200; ++round) {
    std::vector<RequestRecord> recs;
    const int n = 5 + static_cast<int>(rng() % 40);
    const int distinct = 2 + static_cast<int>(rng() % 25);
    for (int i = 0; i < n; ++i) {
      RequestRecord r;
      r.time_s = i;
      r.has_time = true;
      r.block_size = 8;
      const int k = 1 + static_cast<int>(rng() % 6);
      for (int j = 0; j < k; ++j) r.block_ids.push_back(rng() % distinct);
      r.input_tokens = 8 * (k - 1) + 1 + static_cast<int64_t>(rng() % 8);
      recs.push_back(r);
    }
    const Trace trace = BuildTrace(recs);
    const std::vector<uint32_t> next = ComputeNextUse(trace);
    for (double warmup : {0.0, 0.5}) {
      ReplayOptions o;
      o.warmup = warmup;
      const int64_t ceiling = LruCurve::Compute(trace, o).Unbounded().hit;
      for (uint64_t cap = 0; cap <= trace.num_blocks + 1; ++cap) {
        const ReplayResult r = ReplayOptimalAt(trace, next, cap, o);
        ASSERT_LE(r.hit.hit, ceiling) << "round " << round << " cap " << cap;
        if (cap >= trace.num_blocks) {
          ASSERT_EQ(r.hit.hit, ceiling) << "round " << round;
        }
      }
    }
  }
}

}  // namespace
}  // namespace ltl
