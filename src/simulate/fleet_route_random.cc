// Seeded random routing (see fleet_routes.h). The worker is the high 64 bits of draw x N
// (Lemire's multiply-shift), so the mapping does not depend on the standard library's
// distribution implementation.
#include <random>

#include "simulate/fleet_routes.h"

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

}  // namespace ltl
