// RoutingPolicy: how a fleet's router picks a worker for each request, as a plug-in registered by
// name (routing_registry.cc). A policy is one of two kinds, and the kind is its type:
//  - StaticRouter: cache-oblivious; routes the whole trace up front, so each worker's sub-trace can
//    be replayed afterwards with any eviction policy's whole-trace evaluation (fleet_partition.h);
//  - CacheAwareRouter: looks at every worker's cache and load as each request arrives, so the fleet
//    is replayed request by request once per capacity (fleet_cache_aware.h).
// `--routing` accepts exactly the registered names (plus "all").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/request_record.h"
#include "common/status.h"
#include "simulate/fleet_options.h"
#include "simulate/fleet_routers.h"
#include "simulate/fleet_routes.h"
#include "simulate/trace.h"

namespace ltl {

class StaticRouter;
class CacheAwareRouter;

// A named router's parameter (`--router-param NAME.KEY=VALUE`): the router's own name for it and
// its default as the pinned version's CLI sets it.
struct RouterParam {
  std::string_view key;
  double default_value;
  std::string_view help;
};

class RoutingPolicy {
 public:
  virtual ~RoutingPolicy() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view summary() const = 0;  // one line for --help and list messages
  // The name with the knobs that shape it, for tables ("prefix-hash (k=1)").
  virtual std::string Label(const FleetOptions& /*options*/) const { return std::string(name()); }
  // What a request needs for this policy to route it by key ("session id"); requests without it
  // are routed round-robin and counted (StaticRoutes::fallback_requests). "" = never falls back.
  virtual std::string_view fallback_key() const { return ""; }
  // How requests without fallback_key() are routed (the terminal's fallback line).
  virtual std::string_view fallback_rule() const { return "round-robin"; }
  // The policy may override its cache choice to balance load (RouteChoice::guard is counted).
  virtual bool has_load_guard() const { return false; }

  // Named routers (docs/FLEET.md "Named routers"): a router people deploy, pinned to a version.
  // source(): the repository @ commit and file its rules come from ("" = a generic policy, which
  // `--routing all` selects; named routers are asked by name or with `named`).
  virtual std::string_view source() const { return ""; }
  bool named() const { return !source().empty(); }
  // The router's view of a request in one line ("matches ...; ... are invisible to it").
  virtual std::string_view view() const { return ""; }
  // The view line of a run with these options (what reports print): view(), unless a parameter
  // of the run shapes the view (aibrix-prefix.block_size).
  virtual std::string ViewLine(const FleetOptions& /*options*/) const {
    return std::string(view());
  }
  // Its view is computed from prompt text (RequestRecord::view): without text it routes on block
  // ids, counted in FleetPolicyResult::requests_without_text.
  virtual bool text_view() const { return false; }
  // The views ingest computes for it (RouterViewKind bits, common/request_record.h); 0 = none.
  virtual uint32_t view_kinds() const { return 0; }
  // Its parameters, in the router's own names.
  virtual std::vector<RouterParam> params() const { return {}; }
  // The parameter shapes the view ingest computes once per run (aibrix-prefix.block_size):
  // --router-param sets it, --router-sweep cannot vary it.
  virtual bool view_param(std::string_view /*key*/) const { return false; }
  // A parameter whose values are names (llm-d-prefix's config=estimate|default|gie): its names,
  // the value being the index of the name (which is accepted too); empty for a numeric one.
  virtual std::vector<std::string_view> param_names(std::string_view /*key*/) const { return {}; }

  // Exactly one of these is non-null: the kind of the policy.
  virtual const StaticRouter* AsStatic() const { return nullptr; }
  virtual const CacheAwareRouter* AsCacheAware() const { return nullptr; }
};

class StaticRouter : public RoutingPolicy {
 public:
  // A worker for every request of `trace`, in replay order.
  virtual StaticRoutes Route(const Trace& trace, const FleetOptions& options) const = 0;
  const StaticRouter* AsStatic() const final { return this; }
};

// One replay of a cache-aware router: the state it keeps between requests (its own index of what
// it believes each worker holds, its counters, its random draws). A fresh run per replay, so the
// replays of several capacities can run on parallel threads.
class RouterRun {
 public:
  virtual ~RouterRun() = default;
  // The worker for trace.requests[i], arriving now (its time_s; requests come in replay order),
  // given what the fleet shows of each worker at that instant (completions up to now retired).
  virtual RouteChoice Choose(size_t i, const WorkerView& view) = 0;
  // After the choice: request i was admitted to `worker` with `uncached_tokens` to prefill, has
  // its first token at first_token_s and is in flight until finish_s (its logged duration, else
  // the load model: simulate/fleet_load.h). Not called for cache pre-population entries
  // (TraceRequest::replay_only), which are never in flight.
  virtual void Admitted(size_t /*i*/, uint32_t /*worker*/, int64_t /*uncached_tokens*/,
                        double /*first_token_s*/, double /*finish_s*/) {}
};

class CacheAwareRouter : public RoutingPolicy {
 public:
  // A fresh run over `trace` (which outlives it).
  virtual std::unique_ptr<RouterRun> Start(const Trace& trace,
                                           const FleetOptions& options) const = 0;
  const CacheAwareRouter* AsCacheAware() const final { return this; }
};

// A cache-aware router whose choice depends only on what it sees now (prefix-aware, kv-cost,
// least-loaded): ties rotate from *rotor (the previous choice), which the policy updates.
class StatelessCacheAwareRouter : public CacheAwareRouter {
 public:
  virtual RouteChoice Choose(const WorkerView& view, const TraceRequest& r,
                             const FleetOptions& options, uint32_t* rotor) const = 0;
  std::unique_ptr<RouterRun> Start(const Trace& trace, const FleetOptions& options) const final;
};

// Every registered policy, in report order.
const std::vector<const RoutingPolicy*>& RoutingPolicies();
// By name; an error listing the registered names when unknown.
Result<const RoutingPolicy*> FindRoutingPolicy(std::string_view name);
// "round-robin,session" -> policies (duplicates dropped, order kept); "all" -> every generic
// policy (RoutingPolicy::named() false), "named" -> every named router.
Result<std::vector<const RoutingPolicy*>> ParseRoutingList(std::string_view text);
// "round-robin, random, ...": the registered names, for help texts.
std::string RoutingPolicyNames();

// `--router-param NAME.KEY=VALUE` checked against the registered routers' parameters; an error
// listing the valid routers or keys otherwise.
Result<RouterParamSetting> ParseRouterParam(std::string_view text);
// `--router-sweep NAME.KEY=V1,V2,...`: one setting per value (duplicates dropped, order kept),
// each checked as ParseRouterParam checks it; a view parameter (RoutingPolicy::view_param) is an
// error naming --router-param.
Result<std::vector<RouterParamSetting>> ParseRouterSweep(std::string_view text);
// A named router's parameter: options.sweep when it sets this one, else the value set in
// options.router_params, else its default.
double RouterParamValue(const FleetOptions& options, const RoutingPolicy& policy,
                        std::string_view key);
// " (key=value, ...)" for the parameters set away from their defaults and the swept one
// (options.sweep, shown even at its default), "" when none.
std::string RouterParamLabel(const FleetOptions& options, const RoutingPolicy& policy);
// The options policies[k] runs with: `options` with sweep = policy_sweeps[k] (when given).
FleetOptions PolicyEntryOptions(const FleetOptions& options, size_t k);
// The label of a policy entry run with `sweep` (router "" = none): its Label() under that
// setting, which always names the swept key ("vllm-router-prefix (prefix_min_match_length=256)").
std::string PolicyEntryLabel(const FleetOptions& options, const RoutingPolicy& policy,
                             const RouterParamSetting& sweep);

}  // namespace ltl
