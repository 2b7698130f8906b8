// BuildProfile (see build_profile.h).
#include "analyze/build_profile.h"

#include <algorithm>
#include <cmath>

#include "analyze/capacity_knee.h"
#include "analyze/distributions.h"
#include "analyze/leaderboards.h"
#include "analyze/main_finding.h"
#include "analyze/radix_lru_figures.h"
#include "common/parallel_jobs.h"
#include "simulate/aiperf_rate.h"
#include "simulate/first_use_keys.h"
#include "simulate/fleet_sim.h"
#include "simulate/lru_curve.h"

namespace ltl {

std::vector<uint64_t> DefaultCapacityTokens() {
  return {16ull << 10, 64ull << 10, 256ull << 10, 1ull << 20, 4ull << 20, 16ull << 20};
}

namespace {

// The knee's capacities for a saturation point: FindCapacityKnee evaluates the same grid whatever
// the rates are, so one dry call lists them (rates of 1 pass its "any reuse" check).
std::vector<uint64_t> KneeCapacities(uint64_t saturation_blocks) {
  std::vector<uint64_t> caps;
  FindCapacityKnee(
      [&](uint64_t c) {
        caps.push_back(c);
        return 1.0;
      },
      saturation_blocks);
  return caps;
}

// --eviction sglang: the curve rows, the chart's points, the saturation point and the knee from
// per-capacity radix-tree LRU replays (no one-pass derivation is exact for it). The unbounded
// ceiling is the replay at a capacity that never evicts.
void FillRadixLruFigures(const Trace& trace, const ReplayOptions& options, const LruCurve& flat,
                         std::vector<CurveRow> rows, Profile* p) {
  RadixLruFigures radix(trace, options);
  const uint64_t unbounded = radix.unbounded_blocks();
  std::vector<uint64_t> caps = KneeCapacities(flat.saturation_blocks());
  for (const CurveRow& r : rows) caps.push_back(r.capacity_blocks);
  caps.push_back(unbounded);
  radix.Evaluate(caps);
  p->ceiling = radix.At(unbounded);
  // Saturation: the smallest replayed capacity reaching the ceiling (the flat LRU's saturation
  // point is on the grid; a radix tree can need more, up to the never-evicting capacity).
  uint64_t sat = unbounded;
  for (const auto& [c, h] : radix.replayed())
    if (c > 0 && h.hit >= p->ceiling.hit) {
      sat = c;
      break;
    }
  if (sat == unbounded) {
    // Between the grid's top and the never-evicting capacity: doublings find the first to reach it.
    for (uint64_t c = flat.saturation_blocks() * 4; c < unbounded; c *= 2)
      if (radix.At(c).hit >= p->ceiling.hit) {
        sat = c;
        break;
      }
  }
  p->saturation_blocks = sat;
  for (CurveRow& r : rows) {
    r.hit = radix.At(r.capacity_blocks);
    r.measured_tokens = p->measured_tokens;
  }
  p->curve = std::move(rows);
  if (p->measured_tokens > 0) {
    radix.Evaluate(KneeCapacities(sat));
    const double measured = static_cast<double>(p->measured_tokens);
    p->knee = FindCapacityKnee(
        [&](uint64_t c) { return static_cast<double>(radix.At(c).hit) / measured; }, sat);
  }
  // The chart's points: every replayed capacity up to saturation where the hit changes.
  p->dense_curve.clear();
  for (const auto& [c, h] : radix.replayed()) {
    if (c == 0 || c > sat) continue;
    if (!p->dense_curve.empty() && p->dense_curve.back().hit.hit == h.hit) continue;
    p->dense_curve.push_back({c, h});
  }
}

// The cluster's exact unbounded figures in place of the replay's: the same measured windows
// (LruCurve::Compute's), the same HitTokens. On a sampled trace they replace estimates, so their
// error estimates are 0 and the largest error is the curve rows' alone.
void ApplyExactUnbounded(const FirstUseHook& hook, const std::vector<RequestRecord>& records,
                         const Trace& trace, const ReplayOptions& options,
                         const ReplayOptions& cold_opts, Profile* p) {
  const Result<FirstUseFigures> f = hook(
      EncodeFirstUseKeys(FirstUseKeysOf(trace, records.size(), FirstMeasuredIndex(trace, options),
                                        FirstMeasuredIndex(trace, cold_opts))));
  if (!f.ok()) return;
  const bool split = trace.num_conversations > 0;
  p->ceiling = HitTokens{f->steady_hit, split ? f->steady_across : 0};
  p->cold_ceiling = HitTokens{f->cold_hit, split ? f->cold_across : 0};
  if (!p->sampling.active) return;
  p->sampling.unbounded_exact = true;
  p->sampling.ceiling_error_points = 0;
  p->sampling.cold_ceiling_error_points = 0;
  p->sampling.max_error_points = 0;
  for (const CurveRow& r : p->curve)
    p->sampling.max_error_points = std::max(p->sampling.max_error_points, r.error_points);
}

}  // namespace

void BuildProfile(const std::vector<RequestRecord>& records, const Trace& trace,
                  const ReplayOptions& options, const CapacitySpec& capacities, Profile* p,
                  const FleetOptions* fleet, unsigned threads, const FirstUseHook* exact_unbounded,
                  const std::vector<std::function<void()>>& side_jobs,
                  const std::vector<std::function<void()>>& after_curves,
                  const std::vector<std::function<void()>>& lead_jobs) {
  p->block_size = trace.block_size;
  p->warmup = options.warmup;
  p->order = options.order;
  p->lru = options.lru;
  p->requests = RealRequests(trace);
  p->distinct_blocks = trace.num_blocks;
  p->block_accesses = trace.total_block_accesses();
  const bool sampled = trace.sampled();
  if (sampled) {
    // Counts of the whole traffic: accesses are counted before sampling, distinct blocks estimated
    // from the kept ones (kept / R).
    p->block_accesses = trace.all_accesses;
    p->distinct_blocks = static_cast<uint64_t>(
        std::llround(static_cast<double>(trace.num_blocks) / trace.sample_rate));
    SamplingInfo& s = p->sampling;
    s.active = true;
    s.rate = trace.sample_rate;
    s.kept_blocks = trace.num_blocks;
    s.kept_accesses = trace.num_accesses;
  }
  p->has_conversations = trace.num_conversations > 0;

  // The steady-state curve and, with a warm-up, the cold one (no warm-up) are independent one-pass
  // replays of the same trace; the distributions, the AIPerf figure and the caller's side jobs read
  // the same trace: all side by side when threads allow, the longest (the curves) taken first
  // after the caller's lead jobs.
  ReplayOptions cold_opts = options;
  cold_opts.warmup = 0;
  LruCurve steady, cold;
  std::vector<std::function<void()>> jobs = lead_jobs;
  jobs.push_back([&] { steady = LruCurve::Compute(trace, options); });
  // The cold curve gives only its ceiling: the pass that needs no stack distances.
  if (options.warmup != 0)
    jobs.push_back([&] { cold = LruCurve::ComputeCeiling(trace, cold_opts); });
  jobs.insert(jobs.end(), side_jobs.begin(), side_jobs.end());
  if (!sampled) jobs.push_back([&] { p->aiperf_cache_hit_rate = AiperfCacheHitRate(trace); });
  jobs.push_back([&] { p->dist = ComputeDistributions(records, trace); });
  RunParallel(jobs.size(), threads, [&](size_t job) { jobs[job](); });
  p->measured_requests = steady.measured_requests();
  p->measured_tokens = steady.measured_tokens();
  p->ceiling = steady.Unbounded();
  p->saturation_blocks = steady.saturation_blocks();

  if (options.warmup == 0) {
    p->cold_ceiling = p->ceiling;
    p->cold_measured_tokens = p->measured_tokens;
  } else {
    p->cold_ceiling = cold.Unbounded();
    p->cold_measured_tokens = cold.measured_tokens();
    p->sampling.cold_ceiling_error_points = cold.ErrorPoints(LruCurve::kUnboundedCapacity);
    cold = LruCurve();
  }
  if (sampled) {
    p->sampling.ceiling_error_points = steady.ErrorPoints(LruCurve::kUnboundedCapacity);
    if (options.warmup == 0)
      p->sampling.cold_ceiling_error_points = p->sampling.ceiling_error_points;
    p->sampling.max_error_points = p->sampling.ceiling_error_points;
    p->sampling.omitted.push_back("aiperf_cache_hit_rate");
  }

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
  if (options.lru == LruEngine::kSglang) {
    FillRadixLruFigures(trace, options, steady, std::move(rows), p);
  } else {
    for (CurveRow& r : rows) {
      r.hit = steady.At(r.capacity_blocks);
      r.measured_tokens = steady.measured_tokens();
      r.error_points = steady.ErrorPoints(r.capacity_blocks);
      p->sampling.max_error_points = std::max(p->sampling.max_error_points, r.error_points);
    }
    p->curve = std::move(rows);
    p->dense_curve = steady.Dense(300);
    if (sampled)
      for (const CurvePoint& pt : p->dense_curve)
        p->dense_error_points.push_back(steady.ErrorPoints(pt.capacity_blocks));
    if (p->measured_tokens > 0) {
      const double measured = static_cast<double>(p->measured_tokens);
      p->knee = FindCapacityKnee(
          [&](uint64_t c) { return static_cast<double>(steady.At(c).hit) / measured; },
          p->saturation_blocks);
    }
  }
  if (exact_unbounded && *exact_unbounded)
    ApplyExactUnbounded(*exact_unbounded, records, trace, options, cold_opts, p);
  // The curve's per-distance arrays (16 bytes per distinct block) are not needed past this point
  // unless the fleet reads the curve: freed before the prefix tree is built (issue 30: peak RSS).
  if (!fleet) steady = LruCurve();
  // Leaderboards rank whole prefixes: a sampled trace holds only some of each prefix's blocks.
  // They need the cold ceiling; the caller's jobs after the curves run beside them.
  jobs.clear();
  if (sampled)
    p->sampling.omitted.push_back("prefixes");
  else
    jobs.push_back(
        [&] { p->leaderboards = BuildLeaderboards(records, trace, p->cold_ceiling.hit); });
  jobs.insert(jobs.end(), after_curves.begin(), after_curves.end());
  RunParallel(jobs.size(), threads, [&](size_t job) { jobs[job](); });
  // The fleet's worker caches and pooled reference stay the flat LRU (radix-lru has no online
  // cache yet): docs/SEMANTICS.md "Two LRUs". (Its policy sweep has threads of its own.)
  if (fleet) p->fleet = SimulateFleet(trace, options, *fleet, steady);
  AppendDerivedFindings(p);
}

}  // namespace ltl
