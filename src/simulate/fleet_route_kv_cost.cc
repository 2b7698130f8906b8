// KV-cost routing in the manner of NVIDIA Dynamo's KV router (see fleet_routers.h). Dynamo writes
// the cost as overlap_weight x prefill blocks + decode blocks; ours is prefill blocks +
// w x decode blocks, the same ranking with w = 1 / overlap_weight (Dynamo's default is 1).
#include <algorithm>

#include <fmt/format.h>

#include "simulate/fleet_routers.h"
#include "simulate/routing_policy.h"

namespace ltl {

RouteChoice ChooseKvCost(const WorkerView& view, uint32_t request_blocks, double weight,
                         uint32_t* rotor) {
  const std::vector<uint32_t>& match = *view.match;
  const std::vector<int64_t>& load = *view.outstanding;
  const std::vector<int64_t>& decode = *view.decode_blocks;
  const uint32_t n = static_cast<uint32_t>(match.size());
  RouteChoice choice;
  double best = 0;
  bool have = false;
  for (uint32_t s = 1; s <= n; ++s) {
    uint32_t w = (*rotor + s) % n;
    double prefill = static_cast<double>(request_blocks - std::min(match[w], request_blocks));
    double cost = prefill + weight * static_cast<double>(decode[w]);
    if (!have || cost < best || (cost == best && load[w] < load[choice.worker]))
      choice.worker = w, best = cost, have = true;
  }
  *rotor = choice.worker;
  return choice;
}

namespace {
class KvCost final : public StatelessCacheAwareRouter {
 public:
  std::string_view name() const override { return "kv-cost"; }
  std::string_view summary() const override {
    return "lowest uncached prefill + w x outstanding decode blocks (Dynamo-style; "
           "--kv-cost-weight)";
  }
  std::string Label(const FleetOptions& o) const override {
    return fmt::format("{} (w={})", name(), o.kv_cost_weight);
  }
  RouteChoice Choose(const WorkerView& view, const TraceRequest& r, const FleetOptions& o,
                     uint32_t* rotor) const override {
    return ChooseKvCost(view, r.num_blocks, o.kv_cost_weight, rotor);
  }
};
}  // namespace

const RoutingPolicy& KvCostRouting() {
  static const KvCost policy;
  return policy;
}

}  // namespace ltl
