// Ranking a fleet's policies (see fleet_ranking.h).
#include "analyze/fleet_ranking.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "simulate/routing_policy.h"

namespace ltl {
namespace {

double Ratio(double a, double b) {
  return b > 0 ? a / b : 0.0;
}

// -1 when a ranks before b, 1 after, 0 when equal in every criterion: hit rate (higher first),
// requests CV (lower first), then with --engine waiting p95 (lower first).
int Compare(const FleetRankRow& a, const FleetRankRow& b, bool waiting) {
  if (a.hit_rate != b.hit_rate) return a.hit_rate > b.hit_rate ? -1 : 1;
  if (a.requests_cv != b.requests_cv) return a.requests_cv < b.requests_cv ? -1 : 1;
  if (waiting && a.waiting_p95_s != b.waiting_p95_s)
    return a.waiting_p95_s < b.waiting_p95_s ? -1 : 1;
  return 0;
}

}  // namespace

FleetRanking RankFleet(const FleetResult& f, const TierTimeModel& tm) {
  const FleetOptions& o = f.options;
  FleetRanking out;
  out.waiting = o.engine != nullptr;
  if (tm.present && tm.peak_flops > 0 && tm.mfu > 0 && tm.active_params > 0) {
    out.prefill_rate = tm.peak_flops * tm.mfu / (2 * tm.active_params);
    out.prefill_rate_source = fmt::format(
        "tier time model: {} at {:.1f} TFLOP/s x MFU {:g} / (2 x {:.3g} active "
        "parameters), attention left out",
        tm.gpu, tm.peak_flops / 1e12, tm.mfu, tm.active_params);
  } else {
    out.prefill_rate = o.load.prefill_rate;
    out.prefill_rate_source = "--prefill-rate, the fleet's load model";
  }
  const double measured_requests = static_cast<double>(f.measured_requests);
  for (size_t c = 0; c < o.capacity_blocks.size(); ++c) {
    FleetRankingAtSize at;
    at.capacity_blocks = o.capacity_blocks[c];
    for (size_t k = 0; k < f.policies.size(); ++k) {
      const FleetPolicyResult& pr = f.policies[k];
      if (c >= pr.points.size()) continue;
      const FleetPoint& pt = pr.points[c];
      FleetRankRow r;
      r.policy = k;
      r.label = PolicyEntryLabel(o, *pr.policy, pr.sweep);
      r.hit_rate = pt.HitRate();
      r.hit_tokens = pt.hit_tokens;
      r.has_load = true;
      r.requests_cv = pt.RequestsCv();
      r.uncached_cv = pt.UncachedCv();
      r.has_waiting = out.waiting;
      r.waiting_p50_s = pt.waiting_p50_s;
      r.waiting_p95_s = pt.waiting_p95_s;
      const double reqs =
          static_cast<double>(std::accumulate(pt.requests.begin(), pt.requests.end(), uint64_t{0}));
      const double uncached = static_cast<double>(
          std::accumulate(pt.uncached_tokens.begin(), pt.uncached_tokens.end(), int64_t{0}));
      r.uncached_tokens_per_request = Ratio(uncached, reqs);
      at.rows.push_back(r);
    }
    std::stable_sort(at.rows.begin(), at.rows.end(),
                     [&](const FleetRankRow& a, const FleetRankRow& b) {
                       return Compare(a, b, out.waiting) < 0;
                     });
    for (size_t i = 0; i < at.rows.size(); ++i)
      at.rows[i].rank = i > 0 && Compare(at.rows[i - 1], at.rows[i], out.waiting) == 0
                            ? at.rows[i - 1].rank
                            : static_cast<uint32_t>(i + 1);
    // The references: one cache of workers x size, and one unbounded cache (no load, no wait).
    auto reference = [&](FleetRankRow::Kind kind, const char* label, int64_t hit) {
      FleetRankRow r;
      r.kind = kind;
      r.label = label;
      r.hit_tokens = hit;
      r.hit_rate = Ratio(static_cast<double>(hit), static_cast<double>(f.measured_tokens));
      r.uncached_tokens_per_request =
          Ratio(static_cast<double>(f.measured_tokens - hit), measured_requests);
      at.rows.push_back(r);
    };
    if (c < f.pooled.size()) reference(FleetRankRow::Kind::kPooled, "pooled", f.pooled[c].hit);
    reference(FleetRankRow::Kind::kCeiling, "ceiling", f.ceiling.hit);
    for (FleetRankRow& r : at.rows)
      r.ttft_estimate_s = Ratio(r.uncached_tokens_per_request, out.prefill_rate) +
                          (r.has_waiting ? r.waiting_p50_s : 0.0);
    out.sizes.push_back(std::move(at));
  }
  size_t last = out.sizes.empty() ? 0 : out.sizes.size() - 1;
  while (last > 0 && out.sizes[last].capacity_blocks == kUnboundedCapacity) --last;
  out.largest_bounded = last;

  // The sweeps: entries grouped by (router, key) in the order they first ran.
  for (size_t k = 0; k < f.policies.size(); ++k) {
    const RouterParamSetting& s = f.policies[k].sweep;
    if (s.router.empty()) continue;
    auto it = std::find_if(out.sweeps.begin(), out.sweeps.end(), [&](const FleetSweepBest& b) {
      return b.router == s.router && b.key == s.key;
    });
    if (it == out.sweeps.end()) {
      out.sweeps.push_back({s.router, s.key, {}, {}});
      it = out.sweeps.end() - 1;
    }
    it->entries.push_back(k);
  }
  for (FleetSweepBest& b : out.sweeps)
    for (const FleetRankingAtSize& at : out.sizes) {
      // The first of the sweep's entries in rank order, and every entry tied with it.
      std::vector<double> best;
      const FleetRankRow* first = nullptr;
      for (const FleetRankRow& r : at.rows) {
        if (r.kind != FleetRankRow::Kind::kPolicy ||
            std::find(b.entries.begin(), b.entries.end(), r.policy) == b.entries.end())
          continue;
        if (first && Compare(*first, r, out.waiting) != 0) break;
        if (!first) first = &r;
        best.push_back(f.policies[r.policy].sweep.value);
      }
      b.best.push_back(best);
    }
  return out;
}

}  // namespace ltl
