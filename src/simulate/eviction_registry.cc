// The registered eviction policies, in report order, and lookup by name (see eviction_policy.h).
// Adding a policy: write simulate/eviction_<name>.cc defining `const EvictionPolicy& <Name>()`,
// then add one X(<Name>) line below.
#include <fmt/format.h>

#include <algorithm>

#include "common/ascii.h"
#include "simulate/eviction_policy.h"

#define LTL_EVICTION_POLICIES(X) \
  X(FifoEviction)                \
  X(LruEviction)                 \
  X(RadixLruEviction)            \
  X(OptimalEviction)             \
  X(SieveEviction)

namespace ltl {

#define LTL_DECLARE(policy) const EvictionPolicy& policy();
LTL_EVICTION_POLICIES(LTL_DECLARE)
#undef LTL_DECLARE

const std::vector<const EvictionPolicy*>& EvictionPolicies() {
#define LTL_LIST(policy) &policy(),
  static const std::vector<const EvictionPolicy*> all = {LTL_EVICTION_POLICIES(LTL_LIST)};
#undef LTL_LIST
  return all;
}

std::string EvictionPolicyNames() {
  std::vector<std::string_view> names;
  for (const EvictionPolicy* p : EvictionPolicies()) names.push_back(p->name());
  return JoinNames(names);
}

Result<const EvictionPolicy*> FindEvictionPolicy(std::string_view name) {
  for (const EvictionPolicy* p : EvictionPolicies()) {
    if (EqualsIgnoreAsciiCase(name, p->name())) return p;
    for (std::string_view alias : p->aliases())
      if (EqualsIgnoreAsciiCase(name, alias)) return p;
  }
  return Status::InvalidArgument(fmt::format("unknown eviction policy '{}' (registered: {})",
                                             AsciiLowered(name), EvictionPolicyNames()));
}

Result<std::vector<const EvictionPolicy*>> ParseEvictionList(std::string_view text) {
  std::vector<const EvictionPolicy*> out;
  for (std::string_view item : SplitList(text)) {
    auto p = FindEvictionPolicy(item);
    if (!p.ok()) return p.status();
    if (std::find(out.begin(), out.end(), *p) != out.end())
      return Status::InvalidArgument(fmt::format("eviction policy '{}' given twice", (*p)->name()));
    out.push_back(*p);
  }
  return out;
}

const EvictionPolicy& HeadlineLru(LruEngine engine) {
  return engine == LruEngine::kSglang ? RadixLruEviction() : LruEviction();
}

}  // namespace ltl
