// Prefix-aware routing with SGLang's load guard (see fleet_routers.h).
#include <algorithm>

#include "simulate/fleet_routers.h"
#include "simulate/routing_policy.h"

namespace ltl {

RouteChoice ChoosePrefixAware(const WorkerView& view, double rel_threshold, int64_t abs_threshold,
                              uint32_t* rotor) {
  const std::vector<uint32_t>& match = *view.match;
  const std::vector<int64_t>& load = *view.outstanding;
  const uint32_t n = static_cast<uint32_t>(match.size());
  auto [lo, hi] = std::minmax_element(load.begin(), load.end());
  const bool imbalanced = (*hi - *lo) > abs_threshold &&
                          static_cast<double>(*hi) > static_cast<double>(*lo) * rel_threshold;
  RouteChoice choice;
  bool have = false;
  for (uint32_t s = 1; s <= n; ++s) {
    uint32_t w = (*rotor + s) % n;
    bool better;
    if (!have) {
      better = true;
    } else if (imbalanced) {
      better = load[w] < load[choice.worker];
    } else {
      better = match[w] > match[choice.worker] ||
               (match[w] == match[choice.worker] && load[w] < load[choice.worker]);
    }
    if (better) choice.worker = w, have = true;
  }
  choice.guard = imbalanced;
  *rotor = choice.worker;
  return choice;
}

namespace {
class PrefixAware final : public StatelessCacheAwareRouter {
 public:
  std::string_view name() const override { return "prefix-aware"; }
  std::string_view summary() const override {
    return "longest cached prefix, with SGLang's load guard";
  }
  bool has_load_guard() const override { return true; }
  RouteChoice Choose(const WorkerView& view, const TraceRequest&, const FleetOptions& o,
                     uint32_t* rotor) const override {
    return ChoosePrefixAware(view, o.balance_rel_threshold, o.balance_abs_threshold, rotor);
  }
};
}  // namespace

const RoutingPolicy& PrefixAwareRouting() {
  static const PrefixAware policy;
  return policy;
}

}  // namespace ltl
