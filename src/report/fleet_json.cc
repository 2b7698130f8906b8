// report.json's "fleet" object (see fleet_json.h). Unbounded capacities are null with
// "unbounded": true, since no JSON number stands for infinity.
#include "report/fleet_json.h"

#include "simulate/engine_pool.h"
#include "simulate/eviction_policy.h"
#include "simulate/routing_policy.h"

namespace ltl {
namespace {

using Json = nlohmann::ordered_json;

double Ratio(int64_t a, int64_t b) {
  return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

// PREFIXcapacity_blocks / _tokens (and _gib when the KV bytes per token are known).
void PutCapacity(Json& j, const char* prefix, uint64_t blocks, uint32_t block_size,
                 double kv_bytes_per_token) {
  std::string b = std::string(prefix) + "capacity_blocks";
  std::string t = std::string(prefix) + "capacity_tokens";
  std::string g = std::string(prefix) + "capacity_gib";
  const bool unbounded = blocks == kUnboundedCapacity;
  j[b] = unbounded ? Json(nullptr) : Json(blocks);
  j[t] = unbounded ? Json(nullptr) : Json(blocks * block_size);
  if (kv_bytes_per_token > 0)
    j[g] = unbounded
               ? Json(nullptr)
               : Json(static_cast<double>(blocks) * block_size * kv_bytes_per_token / 1073741824.0);
}

}  // namespace

Json FleetToJson(const FleetResult& f, uint32_t block_size) {
  const FleetOptions& o = f.options;
  Json j;
  j["workers"] = o.workers;
  j["requests"] = f.requests;
  j["measured_requests"] = f.measured_requests;
  j["measured_tokens"] = f.measured_tokens;
  j["conversations_known"] = f.conversations_known;
  j["settings"] = Json{{"worker_policy", std::string(WorkerPolicyOf(o).name())},
                       {"seed", o.seed},
                       {"route_prefix_blocks", o.prefix_blocks},
                       {"balance_rel_threshold", o.balance_rel_threshold},
                       {"balance_abs_threshold", o.balance_abs_threshold},
                       {"kv_cost_weight", o.kv_cost_weight},
                       {"prefill_rate_tokens_per_s", o.load.prefill_rate},
                       {"decode_rate_tokens_per_s", o.load.decode_rate},
                       {"prefill_queue", o.load.prefill_queue},
                       {"default_output_tokens", f.default_output_tokens},
                       {"kv_bytes_per_token", o.kv_bytes_per_token}};
  // --engine: every worker (and the pooled bound) is that engine's pool with requests in flight.
  j["settings"]["engine"] = o.engine ? std::string(o.engine->name()) : std::string("ideal");
  if (o.engine) j["settings"]["max_num_seqs"] = o.max_num_seqs;
  j["ceiling"] =
      Json{{"hit_rate", Ratio(f.ceiling.hit, f.measured_tokens)}, {"hit_tokens", f.ceiling.hit}};
  Json caps = Json::array();
  for (size_t c = 0; c < o.capacity_blocks.size(); ++c) {
    const uint64_t cap = o.capacity_blocks[c];
    const bool unbounded = cap == kUnboundedCapacity;
    Json e;
    e["unbounded"] = unbounded;
    PutCapacity(e, "per_worker_", cap, block_size, o.kv_bytes_per_token);
    PutCapacity(e, "pooled_", unbounded ? cap : cap * o.workers, block_size, o.kv_bytes_per_token);
    e["pooled_hit_rate"] = Ratio(f.pooled[c].hit, f.measured_tokens);
    e["pooled_hit_tokens"] = f.pooled[c].hit;
    caps.push_back(e);
  }
  j["capacities"] = caps;
  Json policies = Json::array();
  for (const FleetPolicyResult& pr : f.policies) {
    FleetOptions entry = o;  // the options this entry ran with
    entry.sweep = pr.sweep;
    Json e;
    e["policy"] = std::string(pr.policy->name());
    e["cache_aware"] = pr.policy->AsCacheAware() != nullptr;
    if (!pr.sweep.router.empty())  // a --router-sweep entry: the value it ran
      e["sweep"] = Json{{"key", pr.sweep.key}, {"value", pr.sweep.value}};
    if (!pr.policy->fallback_key().empty()) e["fallback_requests"] = pr.fallback_requests;
    if (pr.policy->named()) {
      Json router;
      router["source"] = std::string(pr.policy->source());
      router["view"] = pr.policy->ViewLine(entry);
      Json params = Json::object();
      for (const RouterParam& k : pr.policy->params())
        params[std::string(k.key)] = RouterParamValue(entry, *pr.policy, k.key);
      router["params"] = params;
      if (pr.policy->text_view()) router["requests_without_text"] = pr.requests_without_text;
      e["router"] = router;
    }
    Json points = Json::array();
    for (const FleetPoint& pt : pr.points) {
      Json q;
      q["unbounded"] = pt.capacity_blocks == kUnboundedCapacity;
      PutCapacity(q, "per_worker_", pt.capacity_blocks, block_size, o.kv_bytes_per_token);
      q["hit_rate"] = pt.HitRate();
      q["hit_tokens"] = pt.hit_tokens;
      q["measured_tokens"] = pt.measured_tokens;
      q["requests_cv"] = pt.RequestsCv();
      q["uncached_prefill_tokens_cv"] = pt.UncachedCv();
      q["requests_per_worker"] = pt.requests;
      q["uncached_prefill_tokens_per_worker"] = pt.uncached_tokens;
      if (pr.policy->has_load_guard()) q["guard_triggers"] = pt.guard_triggers;
      if (o.engine) {
        q["waiting_p50_s"] = pt.waiting_p50_s;
        q["waiting_p95_s"] = pt.waiting_p95_s;
        q["evictions"] = pt.evictions;
        q["too_large_requests"] = pt.too_large;
      }
      points.push_back(q);
    }
    e["points"] = points;
    policies.push_back(e);
  }
  j["policies"] = policies;
  j["run_time_s"] = f.seconds;
  return j;
}

}  // namespace ltl
