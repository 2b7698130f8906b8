// Session-affinity routing (see fleet_routes.h): the conversation index is the key, so every
// request of a conversation reaches the same worker. Requests without a conversation (all of them
// in a Mooncake trace) fall back to round-robin among themselves and are counted.
#include "simulate/fleet_hash.h"
#include "simulate/fleet_routes.h"
#include "simulate/routing_policy.h"

namespace ltl {

StaticRoutes RouteSession(const Trace& trace, uint32_t workers) {
  StaticRoutes out;
  out.worker.resize(trace.requests.size());
  std::vector<uint32_t> by_conversation(trace.num_conversations);
  for (uint32_t c = 0; c < trace.num_conversations; ++c)
    by_conversation[c] = RendezvousWorker(Mix64(c), workers);
  for (size_t i = 0; i < out.worker.size(); ++i) {
    int32_t c = trace.requests[i].conversation;
    if (c >= 0 && static_cast<uint32_t>(c) < by_conversation.size()) {
      out.worker[i] = by_conversation[static_cast<uint32_t>(c)];
    } else {
      out.worker[i] = static_cast<uint32_t>(out.fallback_requests % workers);
      ++out.fallback_requests;
    }
  }
  return out;
}

namespace {
class Session final : public StaticRouter {
 public:
  std::string_view name() const override { return "session"; }
  std::string_view summary() const override {
    return "rendezvous hash of the conversation (session affinity)";
  }
  std::string_view fallback_key() const override { return "session id"; }
  StaticRoutes Route(const Trace& trace, const FleetOptions& o) const override {
    return RouteSession(trace, o.workers);
  }
};
}  // namespace

const RoutingPolicy& SessionRouting() {
  static const Session policy;
  return policy;
}

}  // namespace ltl
