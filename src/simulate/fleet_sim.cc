// The fleet simulation driver (see fleet_sim.h).
#include "simulate/fleet_sim.h"

#include <algorithm>
#include <chrono>

#include "common/parallel_jobs.h"
#include "simulate/eviction_policy.h"
#include "simulate/fleet_cache_aware.h"
#include "simulate/fleet_engine.h"
#include "simulate/fleet_partition.h"
#include "simulate/policy_sweep.h"
#include "simulate/router_views.h"
#include "simulate/routing_policy.h"

namespace ltl {

const EvictionPolicy& WorkerPolicyOf(const FleetOptions& options) {
  return options.worker_policy ? *options.worker_policy : LruEviction();
}

int64_t DefaultOutputTokens(const Trace& trace) {
  std::vector<int64_t> known;
  for (const TraceRequest& r : trace.requests)
    if (r.output_tokens >= 0) known.push_back(r.output_tokens);
  if (known.empty()) return 0;
  auto mid = known.begin() + static_cast<std::ptrdiff_t>(known.size() / 2);
  std::nth_element(known.begin(), mid, known.end());
  return *mid;
}

FleetResult SimulateFleet(const Trace& trace, const ReplayOptions& replay, FleetOptions options,
                          const LruCurve& single_cache) {
  const auto start = std::chrono::steady_clock::now();
  options.workers = std::max<uint32_t>(options.workers, 1);
  std::vector<uint64_t>& caps = options.capacity_blocks;
  std::sort(caps.begin(), caps.end());
  caps.erase(std::unique(caps.begin(), caps.end()), caps.end());

  FleetResult out;
  out.requests = RealRequests(trace);
  out.measured_requests = single_cache.measured_requests();
  out.measured_tokens = single_cache.measured_tokens();
  out.conversations_known = trace.num_conversations > 0;
  out.ceiling = single_cache.Unbounded();
  // The pooled bound: one cache of N x capacity under the workers' own eviction policy.
  const EvictionPolicy& worker_policy = WorkerPolicyOf(options);
  std::vector<uint64_t> pooled_caps;
  for (uint64_t c : caps) {
    const bool unbounded = c == kUnboundedCapacity || c > kUnboundedCapacity / options.workers;
    pooled_caps.push_back(unbounded ? kUnboundedCapacity : c * options.workers);
  }
  if (options.engine) {  // one pool of N x capacity (the replays run as the policies' below)
    out.pooled.resize(pooled_caps.size());
    RunParallel(pooled_caps.size(), options.threads, [&](size_t c) {
      out.pooled[c] = PooledEngineBound(trace, replay, options, pooled_caps[c]);
    });
  } else {
    for (const PolicyRun& run :
         RunPolicySweep(trace, replay, {&worker_policy}, pooled_caps, options.threads))
      out.pooled.push_back(run.result.hit);
  }

  out.policies.resize(options.policies.size());
  struct Job {
    size_t policy;
    size_t capacity;
  };
  std::vector<Job> aware_jobs;
  // Each entry's own options: a --router-sweep entry runs with its parameter value.
  std::vector<FleetOptions> entry_options;
  for (size_t k = 0; k < options.policies.size(); ++k)
    entry_options.push_back(PolicyEntryOptions(options, k));
  for (size_t k = 0; k < options.policies.size(); ++k) {
    FleetPolicyResult& pr = out.policies[k];
    const FleetOptions& entry = entry_options[k];
    pr.policy = options.policies[k];
    pr.sweep = entry.sweep;
    if (pr.policy->AsCacheAware()) {
      if (pr.policy->text_view()) pr.requests_without_text = RequestsWithoutText(trace);
      pr.points.resize(caps.size());
      for (size_t c = 0; c < caps.size(); ++c) aware_jobs.push_back({k, c});
      continue;
    }
    StaticRoutes routes = pr.policy->AsStatic()->Route(trace, entry);
    pr.fallback_requests = routes.fallback_requests;
    pr.requests_without_text = routes.requests_without_text;
    pr.points = options.engine ? EvaluateStaticRoutesOnEngines(trace, routes, replay, entry)
                               : EvaluateStaticRoutes(trace, routes, replay, entry);
    if (options.keep_routes)
      for (FleetPoint& pt : pr.points) pt.routes = routes.worker;
  }
  const int64_t default_output = DefaultOutputTokens(trace);
  out.default_output_tokens = default_output;
  RunParallel(aware_jobs.size(), options.threads, [&](size_t j) {
    const Job& job = aware_jobs[j];
    FleetPolicyResult& pr = out.policies[job.policy];
    const CacheAwareRouter& router = *pr.policy->AsCacheAware();
    const FleetOptions& entry = entry_options[job.policy];
    pr.points[job.capacity] =
        options.engine
            ? SimulateCacheAwareOnEngines(trace, router, caps[job.capacity], replay, entry)
            : SimulateCacheAware(trace, router, caps[job.capacity], replay, entry, default_output);
  });

  out.options = std::move(options);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace ltl
