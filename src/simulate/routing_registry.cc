// The registered routing policies, in report order, and list parsing (see routing_policy.h).
// Adding a policy: write simulate/fleet_route_<name>.cc defining `const RoutingPolicy& <Name>()`,
// then add one X(<Name>) line below.
#include <fmt/format.h>

#include <algorithm>

#include "common/ascii.h"
#include "simulate/routing_policy.h"

#define LTL_ROUTING_POLICIES(X) \
  X(RoundRobinRouting)          \
  X(RandomRouting)              \
  X(SessionRouting)             \
  X(PrefixHashRouting)          \
  X(PrefixAwareRouting)         \
  X(KvCostRouting)              \
  X(LeastLoadedRouting)

namespace ltl {

#define LTL_DECLARE(policy) const RoutingPolicy& policy();
LTL_ROUTING_POLICIES(LTL_DECLARE)
#undef LTL_DECLARE

const std::vector<const RoutingPolicy*>& RoutingPolicies() {
#define LTL_LIST(policy) &policy(),
  static const std::vector<const RoutingPolicy*> all = {LTL_ROUTING_POLICIES(LTL_LIST)};
#undef LTL_LIST
  return all;
}

std::string RoutingPolicyNames() {
  std::vector<std::string_view> names;
  for (const RoutingPolicy* p : RoutingPolicies()) names.push_back(p->name());
  return JoinNames(names);
}

Result<const RoutingPolicy*> FindRoutingPolicy(std::string_view name) {
  for (const RoutingPolicy* p : RoutingPolicies())
    if (p->name() == name) return p;
  return Status::InvalidArgument(fmt::format("unknown routing policy '{}' (registered: {}; or all)",
                                             name, RoutingPolicyNames()));
}

Result<std::vector<const RoutingPolicy*>> ParseRoutingList(std::string_view text) {
  std::vector<const RoutingPolicy*> out;
  auto add = [&out](const RoutingPolicy* p) {
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  };
  for (std::string_view item : SplitList(text)) {
    if (item == "all") {
      for (const RoutingPolicy* p : RoutingPolicies()) add(p);
      continue;
    }
    auto p = FindRoutingPolicy(item);
    if (!p.ok()) return p.status();
    add(*p);
  }
  return out;
}

}  // namespace ltl
