// Per-worker sub-traces and their one-pass curves (see fleet_partition.h).
#include "simulate/fleet_partition.h"

#include <limits>

#include "common/parallel_jobs.h"
#include "simulate/eviction_policy.h"

namespace ltl {

Trace WorkerSubTrace(const Trace& trace, const std::vector<uint32_t>& routes, uint32_t worker,
                     size_t fleet_first_measured, size_t* first_measured) {
  constexpr uint32_t kUnmapped = std::numeric_limits<uint32_t>::max();
  Trace sub;
  sub.block_size = trace.block_size;
  std::vector<uint32_t> local(trace.num_blocks, kUnmapped);
  *first_measured = 0;
  BlockCursor cursor(trace);
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    if (routes[i] != worker) continue;
    if (i < fleet_first_measured) ++*first_measured;
    TraceRequest r = trace.requests[i];
    const uint32_t* ids = cursor.Blocks(r);
    r.first = sub.blocks.size();
    r.flat = r.first;  // sub-traces keep their blocks flat (fleet runs only)
    r.conversation = kNoConversation;
    uint32_t prev = kNoParent;
    for (uint32_t j = 0; j < r.num_blocks; ++j) {
      uint32_t& id = local[ids[j]];
      if (id == kUnmapped) {
        id = sub.num_blocks++;
        sub.parent.push_back(prev);  // first seen after `prev`, as BuildTrace numbers parents
      }
      prev = id;
      sub.blocks.push_back(id);
    }
    sub.requests.push_back(r);
  }
  sub.num_accesses = sub.blocks.size();
  return sub;
}

std::vector<FleetPoint> EvaluateStaticRoutes(const Trace& trace, const StaticRoutes& routes,
                                             const ReplayOptions& replay,
                                             const FleetOptions& options) {
  const uint32_t n = options.workers;
  const size_t fleet_first = FirstMeasuredIndex(trace, replay);
  const size_t caps = options.capacity_blocks.size();
  // Per worker: hit tokens at each capacity, measured tokens and requests.
  std::vector<std::vector<int64_t>> hit(n, std::vector<int64_t>(caps, 0));
  std::vector<int64_t> measured_tokens(n, 0);
  std::vector<uint64_t> measured_requests(n, 0);
  const EvictionPolicy& policy = WorkerPolicyOf(options);
  RunParallel(n, options.threads, [&](size_t w) {
    ReplayOptions local = replay;
    Trace sub = WorkerSubTrace(trace, routes.worker, static_cast<uint32_t>(w), fleet_first,
                               &local.measured_from);
    const std::vector<ReplayResult> r =
        policy.Evaluate(sub, local, options.capacity_blocks, policy.Prepare(sub).get());
    for (size_t c = 0; c < caps; ++c) hit[w][c] = r[c].hit.hit;
    measured_tokens[w] = caps > 0 ? r[0].measured_tokens : 0;
    measured_requests[w] = caps > 0 ? r[0].measured_requests : 0;
  });
  std::vector<FleetPoint> points(caps);
  for (size_t c = 0; c < caps; ++c) {
    FleetPoint& p = points[c];
    p.capacity_blocks = options.capacity_blocks[c];
    p.requests = measured_requests;
    p.uncached_tokens.resize(n);
    for (uint32_t w = 0; w < n; ++w) {
      p.hit_tokens += hit[w][c];
      p.measured_tokens += measured_tokens[w];
      p.uncached_tokens[w] = measured_tokens[w] - hit[w][c];
    }
  }
  return points;
}

}  // namespace ltl
