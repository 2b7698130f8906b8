// Routing policy names and list parsing (see fleet_options.h).
#include "simulate/fleet_options.h"

#include <fmt/format.h>
#include <algorithm>

namespace ltl {

const std::vector<RoutingPolicy>& AllRoutingPolicies() {
  static const std::vector<RoutingPolicy> all = {
      RoutingPolicy::kRoundRobin, RoutingPolicy::kRandom,      RoutingPolicy::kSession,
      RoutingPolicy::kPrefixHash, RoutingPolicy::kPrefixAware, RoutingPolicy::kKvCost};
  return all;
}

std::string_view RoutingPolicyName(RoutingPolicy p) {
  switch (p) {
    case RoutingPolicy::kRoundRobin:
      return "round-robin";
    case RoutingPolicy::kRandom:
      return "random";
    case RoutingPolicy::kSession:
      return "session";
    case RoutingPolicy::kPrefixHash:
      return "prefix-hash";
    case RoutingPolicy::kPrefixAware:
      return "prefix-aware";
    case RoutingPolicy::kKvCost:
      return "kv-cost";
  }
  return "?";
}

bool IsCacheAware(RoutingPolicy p) {
  return p == RoutingPolicy::kPrefixAware || p == RoutingPolicy::kKvCost;
}

Result<std::vector<RoutingPolicy>> ParseRoutingList(std::string_view text) {
  std::vector<RoutingPolicy> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = text.substr(start, comma - start);
    start = comma + 1;
    if (item == "all") {
      for (RoutingPolicy p : AllRoutingPolicies())
        if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
      continue;
    }
    bool found = false;
    for (RoutingPolicy p : AllRoutingPolicies()) {
      if (item != RoutingPolicyName(p)) continue;
      found = true;
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    }
    if (!found)
      return Status::InvalidArgument(fmt::format(
          "unknown routing policy '{}' (known: round-robin, random, session, prefix-hash, "
          "prefix-aware, kv-cost, all)",
          item));
  }
  return out;
}

}  // namespace ltl
