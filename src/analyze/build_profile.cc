// BuildProfile (see build_profile.h).
#include "analyze/build_profile.h"

#include <algorithm>

#include "analyze/capacity_knee.h"
#include "analyze/distributions.h"
#include "analyze/leaderboards.h"
#include "analyze/main_finding.h"
#include "simulate/aiperf_rate.h"
#include "simulate/fleet_sim.h"
#include "simulate/lru_curve.h"

namespace ltl {

std::vector<uint64_t> DefaultCapacityTokens() {
  return {16ull << 10, 64ull << 10, 256ull << 10, 1ull << 20, 4ull << 20, 16ull << 20};
}

void BuildProfile(const std::vector<RequestRecord>& records, const Trace& trace,
                  const ReplayOptions& options, const CapacitySpec& capacities, Profile* p,
                  const FleetOptions* fleet) {
  p->block_size = trace.block_size;
  p->warmup = options.warmup;
  p->order = options.order;
  p->requests = RealRequests(trace);
  p->distinct_blocks = trace.num_blocks;
  p->block_accesses = trace.total_block_accesses();
  p->has_conversations = trace.num_conversations > 0;

  LruCurve steady = LruCurve::Compute(trace, options);
  p->measured_requests = steady.measured_requests();
  p->measured_tokens = steady.measured_tokens();
  p->ceiling = steady.Unbounded();
  p->saturation_blocks = steady.saturation_blocks();

  ReplayOptions cold_opts = options;
  cold_opts.warmup = 0;
  if (options.warmup == 0) {
    p->cold_ceiling = p->ceiling;
    p->cold_measured_tokens = p->measured_tokens;
  } else {
    LruCurve cold = LruCurve::Compute(trace, cold_opts);
    p->cold_ceiling = cold.Unbounded();
    p->cold_measured_tokens = cold.measured_tokens();
  }
  p->aiperf_cache_hit_rate = AiperfCacheHitRate(trace);

  const uint64_t bs = std::max<uint32_t>(trace.block_size, 1);
  std::vector<CurveRow> rows;
  for (uint64_t tok : capacities.tokens) {
    CurveRow r;
    r.capacity_tokens = tok;
    r.capacity_blocks = tok / bs;
    rows.push_back(r);
  }
  for (uint64_t blocks : capacities.blocks) {
    CurveRow r;
    r.capacity_blocks = blocks;
    r.capacity_tokens = blocks * bs;
    rows.push_back(r);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const CurveRow& a, const CurveRow& b) {
    return a.capacity_blocks < b.capacity_blocks;
  });
  for (CurveRow& r : rows) {
    r.hit = steady.At(r.capacity_blocks);
    r.measured_tokens = steady.measured_tokens();
  }
  p->curve = std::move(rows);
  p->dense_curve = steady.Dense(300);
  p->dist = ComputeDistributions(records, trace);
  if (fleet) p->fleet = SimulateFleet(trace, options, *fleet, steady);
  p->leaderboards = BuildLeaderboards(records, trace, p->cold_ceiling.hit);
  if (p->measured_tokens > 0) {
    const double measured = static_cast<double>(p->measured_tokens);
    p->knee = FindCapacityKnee(
        [&](uint64_t c) { return static_cast<double>(steady.At(c).hit) / measured; },
        p->saturation_blocks);
  }
  AppendDerivedFindings(p);
}

}  // namespace ltl
