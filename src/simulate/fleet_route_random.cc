// Seeded random routing (see fleet_routes.h). The worker is the high 64 bits of draw x N
// (Lemire's multiply-shift), so the mapping does not depend on the standard library's
// distribution implementation.
#include <random>

#include <fmt/format.h>

#include "simulate/fleet_routes.h"
#include "simulate/routing_policy.h"

namespace ltl {

StaticRoutes RouteRandom(const Trace& trace, uint32_t workers, uint64_t seed) {
  StaticRoutes out;
  out.worker.resize(trace.requests.size());
  std::mt19937_64 rng(seed);
  for (uint32_t& w : out.worker) {
    unsigned __int128 product = static_cast<unsigned __int128>(rng()) * workers;
    w = static_cast<uint32_t>(product >> 64);
  }
  return out;
}

namespace {
class Random final : public StaticRouter {
 public:
  std::string_view name() const override { return "random"; }
  std::string_view summary() const override { return "uniform over workers, seeded (--seed)"; }
  std::string Label(const FleetOptions& o) const override {
    return fmt::format("{} (seed {})", name(), o.seed);
  }
  StaticRoutes Route(const Trace& trace, const FleetOptions& o) const override {
    return RouteRandom(trace, o.workers, o.seed);
  }
};
}  // namespace

const RoutingPolicy& RandomRouting() {
  static const Random policy;
  return policy;
}

}  // namespace ltl
