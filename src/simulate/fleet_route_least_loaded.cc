// The "least-loaded" routing policy: the worker with the fewest outstanding requests, ties to the
// next worker after the previous choice — a load balancer that never looks at the caches, as a
// baseline for the cache-aware policies. It watches the workers' load as each request arrives, so
// it is replayed with the fleet (a CacheAwareRouter), though it ignores what they have cached.
#include "simulate/routing_policy.h"

namespace ltl {
namespace {

class LeastLoaded final : public StatelessCacheAwareRouter {
 public:
  std::string_view name() const override { return "least-loaded"; }
  std::string_view summary() const override {
    return "fewest outstanding requests (ignores the caches)";
  }
  RouteChoice Choose(const WorkerView& view, const TraceRequest&, const FleetOptions&,
                     uint32_t* rotor) const override {
    const std::vector<int64_t>& load = *view.outstanding;
    const uint32_t n = static_cast<uint32_t>(load.size());
    RouteChoice choice;
    choice.worker = (*rotor + 1) % n;
    for (uint32_t s = 2; s <= n; ++s) {
      const uint32_t w = (*rotor + s) % n;
      if (load[w] < load[choice.worker]) choice.worker = w;
    }
    *rotor = choice.worker;
    return choice;
  }
};

}  // namespace

const RoutingPolicy& LeastLoadedRouting() {
  static const LeastLoaded policy;
  return policy;
}

}  // namespace ltl
