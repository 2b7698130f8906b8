// The registered routing policies, in report order, and list parsing (see routing_policy.h).
// Adding a policy: write simulate/fleet_route_<name>.cc defining `const RoutingPolicy& <Name>()`,
// then add one X(<Name>) line below.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "common/ascii.h"
#include "simulate/routing_policy.h"

#define LTL_ROUTING_POLICIES(X) \
  X(RoundRobinRouting)          \
  X(RandomRouting)              \
  X(SessionRouting)             \
  X(PrefixHashRouting)          \
  X(PrefixAwareRouting)         \
  X(KvCostRouting)              \
  X(LeastLoadedRouting)         \
  X(VllmRouterPrefixRouting)    \
  X(VllmRouterSessionRouting)   \
  X(DynamoKvRouting)            \
  X(SglangCacheAwareRouting)    \
  X(AibrixPrefixRouting)        \
  X(LlmdPrefixRouting)

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
  return Status::InvalidArgument(fmt::format(
      "unknown routing policy '{}' (registered: {}; or all, named)", name, RoutingPolicyNames()));
}

Result<std::vector<const RoutingPolicy*>> ParseRoutingList(std::string_view text) {
  std::vector<const RoutingPolicy*> out;
  auto add = [&out](const RoutingPolicy* p) {
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  };
  for (std::string_view item : SplitList(text)) {
    if (item == "all" || item == "named") {
      for (const RoutingPolicy* p : RoutingPolicies())
        if (p->named() == (item == "named")) add(p);
      continue;
    }
    auto p = FindRoutingPolicy(item);
    if (!p.ok()) return p.status();
    add(*p);
  }
  return out;
}

namespace {

std::string ParamKeys(const RoutingPolicy& p) {
  std::vector<std::string_view> keys;
  for (const RouterParam& k : p.params()) keys.push_back(k.key);
  return keys.empty() ? std::string("none") : JoinNames(keys);
}

std::string RoutersWithParams() {
  std::vector<std::string> items;
  for (const RoutingPolicy* p : RoutingPolicies())
    if (!p->params().empty()) items.push_back(fmt::format("{} ({})", p->name(), ParamKeys(*p)));
  std::vector<std::string_view> views(items.begin(), items.end());
  return JoinNames(views);
}

}  // namespace

Result<RouterParamSetting> ParseRouterParam(std::string_view text) {
  const size_t dot = text.find('.');
  const size_t eq = text.find('=');
  if (dot == std::string_view::npos || eq == std::string_view::npos || eq < dot)
    return Status::InvalidArgument(fmt::format(
        "'{}' is not NAME.KEY=VALUE (routers with parameters: {})", text, RoutersWithParams()));
  RouterParamSetting s;
  s.router = std::string(text.substr(0, dot));
  s.key = std::string(text.substr(dot + 1, eq - dot - 1));
  const RoutingPolicy* policy = nullptr;
  for (const RoutingPolicy* p : RoutingPolicies())
    if (p->name() == s.router && !p->params().empty()) policy = p;
  if (!policy)
    return Status::InvalidArgument(fmt::format("unknown router '{}' (routers with parameters: {})",
                                               s.router, RoutersWithParams()));
  bool known = false;
  for (const RouterParam& k : policy->params()) known = known || k.key == s.key;
  if (!known)
    return Status::InvalidArgument(fmt::format("unknown parameter '{}' of {} (valid: {})", s.key,
                                               s.router, ParamKeys(*policy)));
  const std::string value(text.substr(eq + 1));
  const std::vector<std::string_view> names = policy->param_names(s.key);
  for (size_t n = 0; n < names.size(); ++n)  // a named value: its index
    if (names[n] == value) {
      s.value = static_cast<double>(n);
      return s;
    }
  char* end = nullptr;
  s.value = std::strtod(value.c_str(), &end);
  const bool number = !value.empty() && end == value.c_str() + value.size() &&
                      std::isfinite(s.value) && s.value >= 0;
  if (!names.empty() &&
      (!number || s.value != std::floor(s.value) || s.value >= static_cast<double>(names.size())))
    return Status::InvalidArgument(
        fmt::format("{}.{}: '{}' is not one of {}", s.router, s.key, value, JoinNames(names)));
  if (!number)
    return Status::InvalidArgument(
        fmt::format("{}.{}: '{}' is not a finite number >= 0", s.router, s.key, value));
  return s;
}

Result<std::vector<RouterParamSetting>> ParseRouterSweep(std::string_view text) {
  const size_t eq = text.find('=');
  const std::string_view head = text.substr(0, eq);
  if (eq == std::string_view::npos || SplitList(text.substr(eq + 1)).empty()) {
    // Let ParseRouterParam name what is wrong with the NAME.KEY part first.
    auto s = ParseRouterParam(std::string(head) + "=0");
    if (!s.ok()) return s.status();
    return Status::InvalidArgument(fmt::format("'{}' is not NAME.KEY=V1,V2,... (no values)", text));
  }
  // A parameter of the view: ingest cuts the view once per run, at one value.
  if (auto s = ParseRouterParam(std::string(head) + "=0"); s.ok())
    if (auto p = FindRoutingPolicy(s->router); p.ok() && (*p)->view_param(s->key))
      return Status::InvalidArgument(
          fmt::format("{} shapes the router's view, which is computed once per run; set it with "
                      "--router-param {}=VALUE in a run of its own",
                      head, head));
  std::vector<RouterParamSetting> out;
  for (std::string_view v : SplitList(text.substr(eq + 1))) {
    auto s = ParseRouterParam(fmt::format("{}={}", head, v));
    if (!s.ok()) return s.status();
    bool seen = false;
    for (const RouterParamSetting& o : out) seen = seen || o.value == s->value;
    if (!seen) out.push_back(*s);
  }
  return out;
}

namespace {

bool Sweeps(const FleetOptions& options, const RoutingPolicy& policy, std::string_view key) {
  return options.sweep.router == policy.name() && options.sweep.key == key;
}

}  // namespace

double RouterParamValue(const FleetOptions& options, const RoutingPolicy& policy,
                        std::string_view key) {
  double value = 0;
  for (const RouterParam& k : policy.params())
    if (k.key == key) value = k.default_value;
  for (const RouterParamSetting& s : options.router_params)  // the last setting wins
    if (s.router == policy.name() && s.key == key) value = s.value;
  if (Sweeps(options, policy, key)) value = options.sweep.value;  // the entry's own, last
  return value;
}

std::string RouterParamLabel(const FleetOptions& options, const RoutingPolicy& policy) {
  std::string out;
  for (const RouterParam& k : policy.params()) {
    const double v = RouterParamValue(options, policy, k.key);
    if (v == k.default_value && !Sweeps(options, policy, k.key)) continue;
    const std::vector<std::string_view> names = policy.param_names(k.key);
    const size_t n = static_cast<size_t>(v);
    if (n < names.size()) {
      out += fmt::format("{}{}={}", out.empty() ? " (" : ", ", k.key, names[n]);
    } else {
      out += fmt::format("{}{}={}", out.empty() ? " (" : ", ", k.key, v);
    }
  }
  return out.empty() ? out : out + ")";
}

FleetOptions PolicyEntryOptions(const FleetOptions& options, size_t k) {
  FleetOptions o = options;
  o.sweep = k < options.policy_sweeps.size() ? options.policy_sweeps[k] : RouterParamSetting{};
  return o;
}

std::string PolicyEntryLabel(const FleetOptions& options, const RoutingPolicy& policy,
                             const RouterParamSetting& sweep) {
  FleetOptions o = options;
  o.sweep = sweep;
  std::string label = policy.Label(o);
  // A policy whose Label() does not list its parameters still names the swept one.
  if (!sweep.router.empty() && label.find(sweep.key + "=") == std::string::npos)
    label += fmt::format(" ({}={})", sweep.key, sweep.value);
  return label;
}

}  // namespace ltl
