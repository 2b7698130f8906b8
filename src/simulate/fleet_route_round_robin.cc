// The "round-robin" routing policy (see fleet_routes.h): request i goes to worker i mod N.
#include "simulate/fleet_routes.h"
#include "simulate/routing_policy.h"

namespace ltl {

StaticRoutes RouteRoundRobin(const Trace& trace, uint32_t workers) {
  StaticRoutes out;
  out.worker.resize(trace.requests.size());
  for (size_t i = 0; i < out.worker.size(); ++i) out.worker[i] = static_cast<uint32_t>(i % workers);
  return out;
}

namespace {
class RoundRobin final : public StaticRouter {
 public:
  std::string_view name() const override { return "round-robin"; }
  std::string_view summary() const override { return "request i goes to worker i mod N"; }
  StaticRoutes Route(const Trace& trace, const FleetOptions& o) const override {
    return RouteRoundRobin(trace, o.workers);
  }
};
}  // namespace

const RoutingPolicy& RoundRobinRouting() {
  static const RoundRobin policy;
  return policy;
}

}  // namespace ltl
