// Terminal rendering of a fleet simulation (see fleet_summary.h).
#include "report/fleet_summary.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/units.h"
#include "simulate/engine_pool.h"
#include "simulate/routing_policy.h"

namespace ltl {
namespace {

std::string CapacityLabel(uint64_t blocks, uint32_t block_size, const FleetOptions& o) {
  if (blocks == kUnboundedCapacity) return "unbounded";
  if (o.sizes_in_gib && o.kv_bytes_per_token > 0) {
    double gib = static_cast<double>(blocks) * block_size * o.kv_bytes_per_token / 1073741824.0;
    return gib >= 100 ? fmt::format("{:.0f} GiB", gib) : fmt::format("{:.3g} GiB", gib);
  }
  if (block_size == 0) return fmt::format("{} blk", WithCommas(static_cast<int64_t>(blocks)));
  return TokenSize(blocks * block_size);
}

std::string PolicyLabel(const FleetPolicyResult& pr, const FleetOptions& o) {
  return PolicyEntryLabel(o, *pr.policy, pr.sweep);
}

// Whether an earlier entry ran the same policy (a --router-sweep entry): its notes are said once.
bool Repeated(const FleetResult& f, const FleetPolicyResult& pr) {
  for (const FleetPolicyResult& e : f.policies) {
    if (&e == &pr) return false;
    if (e.policy == pr.policy) return true;
  }
  return false;
}

double Rate(int64_t hit, int64_t measured) {
  return measured > 0 ? static_cast<double>(hit) / static_cast<double>(measured) : 0.0;
}

}  // namespace

std::string RenderFleetSummary(const FleetResult& f, uint32_t block_size, double warmup) {
  const FleetOptions& o = f.options;
  const size_t ncap = o.capacity_blocks.size();
  std::string out;
  out += fmt::format(
      "\nfleet of {} workers  ({})\n", o.workers,
      warmup > 0 ? fmt::format("steady state: last {} of requests", Percent(1.0 - warmup, 0))
                 : std::string("cold start: all requests"));
  if (o.engine)
    out += fmt::format("each worker is a {} KV pool with its requests in flight (--engine)\n",
                       o.engine->name());
  out += o.engine ? "hit rate by per-worker pool size\n" : "hit rate by per-worker cache size\n";
  // The label column: 20 wide, wider when a label needs it (a swept or parameterised router).
  size_t w = 20;
  for (const FleetPolicyResult& pr : f.policies) w = std::max(w, PolicyLabel(pr, o).size());
  out += fmt::format("  {:<{}}", "", w);
  for (uint64_t c : o.capacity_blocks)
    out += fmt::format("{:>10}", CapacityLabel(c, block_size, o));
  out += "\n";
  for (const FleetPolicyResult& pr : f.policies) {
    out += fmt::format("  {:<{}}", PolicyLabel(pr, o), w);
    for (const FleetPoint& pt : pr.points) out += fmt::format("{:>10}", Percent(pt.HitRate()));
    out += "\n";
  }
  out += fmt::format("  {:<{}}", fmt::format("pooled ({} x size)", o.workers), w);
  for (const HitTokens& h : f.pooled)
    out += fmt::format("{:>10}", Percent(Rate(h.hit, f.measured_tokens)));
  out += "\n";
  out += fmt::format("  {:<{}}{:>10}  <- ceiling (one unbounded cache)\n", "ceiling", w,
                     Percent(Rate(f.ceiling.hit, f.measured_tokens)));

  if (ncap > 0 && !f.policies.empty()) {
    // The largest bounded size (the unbounded column only when it is the only one).
    size_t last = ncap - 1;
    while (last > 0 && o.capacity_blocks[last] == kUnboundedCapacity) --last;
    out += fmt::format("load spread across workers at {} per worker  (coefficient of variation)\n",
                       CapacityLabel(o.capacity_blocks[last], block_size, o));
    out += fmt::format("  {:<{}}{:>10}{:>18}", "", w, "requests", "uncached prefill");
    out += o.engine ? fmt::format("{:>14}{:>14}\n", "wait p50", "wait p95") : "\n";
    for (const FleetPolicyResult& pr : f.policies) {
      const FleetPoint& pt = pr.points[last];
      out += fmt::format("  {:<{}}{:>10.2f}{:>18.2f}", PolicyLabel(pr, o), w, pt.RequestsCv(),
                         pt.UncachedCv());
      out += o.engine ? fmt::format("{:>14}{:>14}\n", FormatDuration(pt.waiting_p50_s),
                                    FormatDuration(pt.waiting_p95_s))
                      : "\n";
    }
  }
  if (o.engine) {  // requests a worker's pool cannot hold are skipped, not measured: say where
    for (size_t c = 0; c < ncap && !f.policies.empty(); ++c) {
      const uint64_t skipped = f.policies.front().points[c].too_large;
      if (skipped > 0)
        out += fmt::format(
            "  at {} per worker, {} requests need more blocks than a pool holds: skipped, not "
            "measured (the pooled pool holds them)\n",
            CapacityLabel(o.capacity_blocks[c], block_size, o),
            WithCommas(static_cast<int64_t>(skipped)));
    }
  }
  for (const FleetPolicyResult& pr : f.policies) {
    if (Repeated(f, pr)) continue;
    const std::string_view key = pr.policy->fallback_key();
    if (!key.empty() && pr.fallback_requests > 0) {
      if (pr.fallback_requests == f.requests)
        out +=
            fmt::format("  {}: no request carried a {}; all {} routed {}\n", pr.policy->name(), key,
                        WithCommas(static_cast<int64_t>(f.requests)), pr.policy->fallback_rule());
      else
        out += fmt::format(
            "  {}: {} of {} requests had no {} and were routed {}\n", pr.policy->name(),
            WithCommas(static_cast<int64_t>(pr.fallback_requests)),
            WithCommas(static_cast<int64_t>(f.requests)), key, pr.policy->fallback_rule());
    }
    if (pr.policy->named()) {
      out += fmt::format("  {}: {}\n", pr.policy->name(), pr.policy->ViewLine(o));
      if (pr.policy->text_view() && pr.requests_without_text > 0)
        out += fmt::format(
            "  {}: {} of {} requests have no prompt text (hashed trace or shard): routed on their "
            "block ids\n",
            pr.policy->name(), WithCommas(static_cast<int64_t>(pr.requests_without_text)),
            WithCommas(static_cast<int64_t>(f.requests)));
    }
    if (pr.policy->has_load_guard()) {
      uint64_t lo = UINT64_MAX, hi = 0;
      for (const FleetPoint& pt : pr.points) {
        lo = std::min(lo, pt.guard_triggers);
        hi = std::max(hi, pt.guard_triggers);
      }
      if (!pr.points.empty())
        out += fmt::format("  {}: the load guard rerouted {} of {} requests\n", pr.policy->name(),
                           lo == hi ? WithCommas(static_cast<int64_t>(lo))
                                    : fmt::format("{}-{}", WithCommas(static_cast<int64_t>(lo)),
                                                  WithCommas(static_cast<int64_t>(hi))),
                           WithCommas(static_cast<int64_t>(f.requests)));
    }
  }
  out += fmt::format("  fleet simulated in {:.2f} s\n", f.seconds);
  return out;
}

}  // namespace ltl
