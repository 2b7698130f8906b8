// vllm-router-session: vLLM production-stack's "session" routing logic, pinned to
// vllm-project/production-stack@a6c01db0 — src/vllm_router/routers/routing_logic.py
// (SessionRouter.route_request, RoutingInterface._qps_routing) and
// src/vllm_router/stats/request_stats.py. A request carrying a session key (the router's
// --session-key header or body field; here the session id the log carries, whichever field session
// detection found it in — conversations this tool infers are not a key the router sees; cache
// traces: their session) goes to the worker a consistent-hash ring gives that key (HashRing,
// fleet_hash.h: the real ring hashes endpoint URLs with MD5, so which worker a session lands on
// differs from a deployment, not how sessions spread). A request without one goes to the worker
// with the lowest QPS as the router counts it (fleet_router_qps.h: a worker never sent a request
// first, else the fewest requests sent in the last --request-stats-window seconds, ties to the
// lowest index) — not round-robin.
#include "simulate/fleet_hash.h"
#include "simulate/fleet_router_qps.h"
#include "simulate/fleet_routes.h"
#include "simulate/routing_policy.h"

namespace ltl {

StaticRoutes RouteVllmSession(const Trace& trace, uint32_t workers, double stats_window_s) {
  StaticRoutes out;
  out.worker.resize(trace.requests.size());
  const HashRing ring(workers);
  RouterQps qps(workers, stats_window_s);
  const TraceRouterViews& v = trace.router_views;
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    const TraceRequest& r = trace.requests[i];
    uint64_t key = i < v.session.size() ? v.session[i] : 0;
    if (!v.built && r.conversation >= 0) key = Mix64(static_cast<uint64_t>(r.conversation) + 1) | 1;
    uint32_t w;
    if (key != 0) {
      w = ring.Node(key);
    } else {
      w = qps.Lowest(r.time_s);
      ++out.fallback_requests;
    }
    out.worker[i] = w;
    qps.Sent(w, r.time_s);
  }
  return out;
}

namespace {
class VllmRouterSession final : public StaticRouter {
 public:
  std::string_view name() const override { return "vllm-router-session"; }
  std::string_view summary() const override {
    return "vLLM production-stack session: consistent hash of the session key, lowest QPS "
           "without one";
  }
  std::string_view source() const override {
    return "vllm-project/production-stack@a6c01db0 src/vllm_router/routers/routing_logic.py";
  }
  std::string_view view() const override {
    return "sees only the session key (the session id the log carries); the prompt is invisible "
           "to it";
  }
  std::string_view fallback_key() const override { return "session id"; }
  uint32_t view_kinds() const override { return kViewSession; }
  std::string_view fallback_rule() const override {
    return "to the lowest-QPS worker (requests sent in the last request_stats_window seconds)";
  }
  std::vector<RouterParam> params() const override {
    return {{"request_stats_window", 60, "seconds of the QPS window (--request-stats-window)"}};
  }
  std::string Label(const FleetOptions& o) const override {
    return std::string(name()) + RouterParamLabel(o, *this);
  }
  StaticRoutes Route(const Trace& trace, const FleetOptions& o) const override {
    return RouteVllmSession(trace, o.workers, RouterParamValue(o, *this, "request_stats_window"));
  }
};
}  // namespace

const RoutingPolicy& VllmRouterSessionRouting() {
  static const VllmRouterSession policy;
  return policy;
}

}  // namespace ltl
