// Prefix-hash routing (see fleet_routes.h): the key chains the first k block ids, so requests
// sharing their first k blocks reach the same worker whatever follows.
#include <algorithm>

#include <fmt/format.h>

#include "simulate/fleet_hash.h"
#include "simulate/fleet_routes.h"
#include "simulate/routing_policy.h"

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

namespace {
class PrefixHash final : public StaticRouter {
 public:
  std::string_view name() const override { return "prefix-hash"; }
  std::string_view summary() const override {
    return "rendezvous hash of the first k block ids (--prefix-blocks)";
  }
  std::string Label(const FleetOptions& o) const override {
    return fmt::format("{} (k={})", name(), o.prefix_blocks);
  }
  std::string_view fallback_key() const override { return "blocks"; }
  StaticRoutes Route(const Trace& trace, const FleetOptions& o) const override {
    return RoutePrefixHash(trace, o.workers, o.prefix_blocks);
  }
};
}  // namespace

const RoutingPolicy& PrefixHashRouting() {
  static const PrefixHash policy;
  return policy;
}

}  // namespace ltl
