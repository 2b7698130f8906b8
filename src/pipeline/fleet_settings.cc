// Checking and resolving the fleet settings (see fleet_settings.h).
#include "pipeline/fleet_settings.h"

#include <fmt/format.h>

#include <cmath>
#include <utility>

#include "common/ascii.h"
#include "common/units.h"
#include "simulate/eviction_policy.h"
#include "simulate/router_views.h"
#include "simulate/routing_policy.h"

namespace ltl {
namespace {

// The tokens every default prefix-hash key covers.
constexpr uint32_t kDefaultRoutePrefixTokens = 512;

// A size list whose items may also be "unbounded" (returned as kUnboundedCapacity).
Result<std::vector<uint64_t>> ParseCapacityList(const std::string& text) {
  std::vector<uint64_t> out;
  for (std::string_view item : SplitList(text)) {
    if (item == "unbounded" || item == "inf") {
      out.push_back(kUnboundedCapacity);
      continue;
    }
    auto r = ParseSize(item);
    if (!r.ok()) return r.status();
    if (*r == 0) return Status::InvalidArgument("a per-worker cache size must be positive");
    out.push_back(*r);
  }
  return out;
}

// The --router-sweep entries, in command-line order: (policy, setting) per value; duplicates of
// an earlier entry dropped.
Result<std::vector<std::pair<const RoutingPolicy*, RouterParamSetting>>> SweepEntries(
    const std::vector<std::string>& sweeps) {
  std::vector<std::pair<const RoutingPolicy*, RouterParamSetting>> out;
  for (const std::string& text : sweeps) {
    auto settings = ParseRouterSweep(text);
    if (!settings.ok())
      return Status::InvalidArgument("--router-sweep: " + settings.status().message());
    for (const RouterParamSetting& s : *settings) {
      bool seen = false;
      for (const auto& [p, o] : out)
        seen = seen || (o.router == s.router && o.key == s.key && o.value == s.value);
      if (!seen) out.emplace_back(*FindRoutingPolicy(s.router), s);
    }
  }
  return out;
}

}  // namespace

Status CheckFleetArgs(const FleetSettings& a, const std::optional<KvMemory>& memory) {
  if (a.workers == 0) return Status::Ok();
  if (!a.capacity_gib.empty()) {
    if (!memory)
      return Status::InvalidArgument(
          "--per-worker-capacity-gib needs the KV size per token: give --model, --model-config "
          "or --kv-bytes-per-token");
    auto gib = ParseDecimalList(a.capacity_gib);
    if (!gib.ok())
      return Status::InvalidArgument("--per-worker-capacity-gib: " + gib.status().message());
  }
  if (!a.capacity.empty()) {
    auto r = ParseCapacityList(a.capacity);
    if (!r.ok()) return Status::InvalidArgument("--per-worker-capacity: " + r.status().message());
  }
  if (!a.capacity_blocks.empty()) {
    auto r = ParseCapacityList(a.capacity_blocks);
    if (!r.ok())
      return Status::InvalidArgument("--per-worker-capacity-blocks: " + r.status().message());
  }
  auto routing = ParseRoutingList(a.routing);
  if (!routing.ok()) return Status::InvalidArgument("--routing: " + routing.status().message());
  auto sweeps = SweepEntries(a.router_sweeps);
  if (!sweeps.ok()) return sweeps.status();
  std::vector<const RoutingPolicy*> routers = *routing;
  for (const auto& [p, s] : *sweeps) routers.push_back(p);
  auto worker_policy = FindEvictionPolicy(a.worker_policy);
  if (!worker_policy.ok())
    return Status::InvalidArgument("--worker-policy: " + worker_policy.status().message());
  if (!(*worker_policy)->online())
    for (const RoutingPolicy* r : routers)
      if (r->AsCacheAware())
        return Status::InvalidArgument(fmt::format(
            "--worker-policy {} has no online cache, which the routing policy {} needs (it "
            "watches every worker as requests arrive): pick cache-oblivious policies with "
            "--routing, or another --worker-policy",
            (*worker_policy)->name(), r->name()));
  if (!(a.balance_rel_threshold >= 0) || !std::isfinite(a.balance_rel_threshold))
    return Status::InvalidArgument("--balance-rel-threshold must be a number >= 0");
  if (a.balance_abs_threshold < 0)
    return Status::InvalidArgument("--balance-abs-threshold must be >= 0");
  if (!(a.kv_cost_weight >= 0) || !std::isfinite(a.kv_cost_weight))
    return Status::InvalidArgument("--kv-cost-weight must be a number >= 0");
  if (!(a.prefill_rate > 0) || !(a.decode_rate > 0))
    return Status::InvalidArgument("--prefill-rate and --decode-rate must be positive");
  for (const std::string& text : a.router_params) {
    auto p = ParseRouterParam(text);
    if (!p.ok()) return Status::InvalidArgument("--router-param: " + p.status().message());
    bool routed = false;
    for (const RoutingPolicy* r : routers) routed = routed || r->name() == p->router;
    if (!routed)
      return Status::InvalidArgument(
          fmt::format("--router-param {}: {} is not among --routing {} (add it there)", text,
                      p->router, a.routing));
  }
  return Status::Ok();
}

uint32_t FleetNeedsRouterViews(const FleetSettings& a) {
  if (a.workers == 0) return 0;
  auto routing = ParseRoutingList(a.routing);
  if (!routing.ok()) return 0;
  uint32_t kinds = 0;
  for (const RoutingPolicy* r : *routing) kinds |= r->view_kinds();
  auto sweeps = SweepEntries(a.router_sweeps);
  if (!sweeps.ok()) return 0;
  for (const auto& [p, s] : *sweeps) kinds |= p->view_kinds();
  return kinds;
}

uint32_t FleetAibrixBlockBytes(const FleetSettings& a) {
  if (a.workers == 0) return 0;
  auto routing = ParseRoutingList(a.routing);
  if (!routing.ok()) return 0;
  std::vector<const RoutingPolicy*> routers = *routing;  // a swept aibrix-prefix needs it too
  if (auto sweeps = SweepEntries(a.router_sweeps); sweeps.ok())
    for (const auto& [p, s] : *sweeps) routers.push_back(p);
  FleetOptions o;
  for (const std::string& text : a.router_params)
    if (auto p = ParseRouterParam(text); p.ok()) o.router_params.push_back(*p);
  return AibrixViewBlockBytes(routers, o);
}

std::optional<FleetOptions> ResolveFleetOptions(const FleetSettings& a, uint32_t block_size,
                                                const CapacitySpec& capacities,
                                                const std::optional<KvMemory>& memory) {
  if (a.workers == 0) return std::nullopt;
  const uint64_t bs = std::max<uint32_t>(block_size, 1);
  FleetOptions o;
  o.workers = a.workers;
  std::vector<uint64_t> tokens = capacities.tokens, blocks = capacities.blocks;
  if (!a.capacity.empty() || !a.capacity_blocks.empty() || !a.capacity_gib.empty()) {
    tokens = a.capacity.empty() ? std::vector<uint64_t>{} : *ParseCapacityList(a.capacity);
    blocks =
        a.capacity_blocks.empty() ? std::vector<uint64_t>{} : *ParseCapacityList(a.capacity_blocks);
  }
  for (uint64_t t : tokens)
    o.capacity_blocks.push_back(t == kUnboundedCapacity ? t : std::max<uint64_t>(t / bs, 1));
  for (uint64_t b : blocks) o.capacity_blocks.push_back(b);
  if (memory) {
    o.kv_bytes_per_token = memory->bytes_per_token();
    if (!a.capacity_gib.empty()) {
      o.sizes_in_gib = a.capacity.empty() && a.capacity_blocks.empty();
      const std::vector<double> gibs = *ParseDecimalList(a.capacity_gib);
      for (double g : gibs)
        o.capacity_blocks.push_back(
            std::max<uint64_t>(KvCapacityBlocks(g, memory->bits_per_token, block_size), 1));
    }
  }
  o.policies = *ParseRoutingList(a.routing);
  if (!a.router_sweeps.empty()) {  // one more entry per swept value, after the --routing ones
    o.policy_sweeps.resize(o.policies.size());
    auto sweeps = SweepEntries(a.router_sweeps);  // checked by CheckFleetArgs
    for (const auto& [p, s] : *sweeps) {
      o.policies.push_back(p);
      o.policy_sweeps.push_back(s);
    }
  }
  o.worker_policy = *FindEvictionPolicy(a.worker_policy);
  o.seed = a.seed;
  o.prefix_blocks = a.route_prefix_blocks > 0
                        ? a.route_prefix_blocks
                        : static_cast<uint32_t>((kDefaultRoutePrefixTokens + bs - 1) / bs);
  o.balance_rel_threshold = a.balance_rel_threshold;
  o.balance_abs_threshold = a.balance_abs_threshold;
  o.kv_cost_weight = a.kv_cost_weight;
  o.load.prefill_rate = a.prefill_rate;
  o.load.decode_rate = a.decode_rate;
  o.load.prefill_queue = !a.no_prefill_queue;
  for (const std::string& text : a.router_params)
    o.router_params.push_back(*ParseRouterParam(text));
  o.keep_routes = !a.routes_out.empty();
  return o;
}

}  // namespace ltl
