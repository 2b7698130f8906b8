// Prefix-hash routing (see fleet_routes.h): the key chains the first k block ids, so requests
// sharing their first k blocks reach the same worker whatever follows.
#include <algorithm>

#include "simulate/fleet_hash.h"
#include "simulate/fleet_routes.h"

namespace ltl {

StaticRoutes RoutePrefixHash(const Trace& trace, uint32_t workers, uint32_t k) {
  StaticRoutes out;
  out.worker.resize(trace.requests.size());
  BlockCursor cursor(trace);
  for (size_t i = 0; i < out.worker.size(); ++i) {
    const TraceRequest& r = trace.requests[i];
    uint32_t n = std::min(std::max<uint32_t>(k, 1), r.num_blocks);
    if (n == 0) {
      out.worker[i] = static_cast<uint32_t>(out.fallback_requests % workers);
      ++out.fallback_requests;
      continue;
    }
    const uint32_t* ids = cursor.Blocks(r);
    uint64_t key = 0;
    for (uint32_t j = 0; j < n; ++j) key = Mix64(key ^ ids[j]);
    out.worker[i] = RendezvousWorker(key, workers);
  }
  return out;
}

}  // namespace ltl
