// Registered policies by name, for tests (null when the name is not registered, which the test's
// assertions then expose).
#pragma once

#include <string_view>

#include "simulate/eviction_policy.h"
#include "simulate/routing_policy.h"

namespace ltl::testing {

inline const RoutingPolicy* Routing(std::string_view name) {
  auto r = FindRoutingPolicy(name);
  return r.ok() ? *r : nullptr;
}

inline const EvictionPolicy* Eviction(std::string_view name) {
  auto r = FindEvictionPolicy(name);
  return r.ok() ? *r : nullptr;
}

}  // namespace ltl::testing
