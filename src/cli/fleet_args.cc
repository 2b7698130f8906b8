// Fleet options of `profile` (see fleet_args.h).
#include "cli/fleet_args.h"

#include "simulate/eviction_policy.h"
#include "simulate/routing_policy.h"

namespace ltl::cli {

void AddFleetOptions(CLI::App* cmd, FleetArgs* a) {
  const std::string group = "Fleet (N workers behind a router)";
  CLI::Option* workers =
      cmd->add_option("--workers", a->workers,
                      "Simulate N workers, each with its own cache, under each routing policy")
          ->check(CLI::Range(1u, 65536u))
          ->group(group);
  auto need = [&](CLI::Option* o) { o->needs(workers)->group(group); };
  // The load model also times the engine pool without --workers (--engine).
  auto load = [&](CLI::Option* o) { o->group(group); };
  need(cmd->add_option("--per-worker-capacity", a->capacity,
                       "Per-worker cache sizes in tokens, comma-separated, 'unbounded' allowed "
                       "(default: the --capacity sizes)"));
  need(cmd->add_option("--per-worker-capacity-blocks", a->capacity_blocks,
                       "Per-worker cache sizes in blocks, comma-separated"));
  need(cmd->add_option("--per-worker-capacity-gib", a->capacity_gib,
                       "Per-worker cache sizes in GiB of KV cache, comma-separated (needs --model, "
                       "--model-config or --kv-bytes-per-token)"));
  need(cmd->add_option(
      "--routing", a->routing,
      "Routing policies, comma-separated: " + RoutingPolicyNames() +
          "; all = the generic ones (default), named = the named routers (docs/FLEET.md)"));
  need(cmd->add_option("--router-param", a->router_params,
                       "A named router's parameter, in the router's own name: NAME.KEY=VALUE "
                       "(repeatable; e.g. vllm-router-prefix.prefix_min_match_length=256)")
           ->allow_extra_args(false));
  need(cmd->add_option("--router-sweep", a->router_sweeps,
                       "Run a router once more per value of one of its parameters: "
                       "NAME.KEY=V1,V2,... (repeatable; NAME.KEY as --router-param takes them; "
                       "the fleet ranking says which value did best)")
           ->allow_extra_args(false));
  need(cmd->add_option("--routes-out", a->routes_out,
                       "Write each routed request's worker per policy and per-worker size to "
                       "ROUTES.jsonl (docs/FORMATS.md)"));
  need(cmd->add_option("--worker-policy", a->worker_policy,
                       "Eviction policy of every worker's cache: " + EvictionPolicyNames() +
                           " (default lru; optimal only with cache-oblivious routing)"));
  need(cmd->add_option("--seed", a->seed, "Seed of random routing (default 1)"));
  need(cmd->add_option("--route-prefix-blocks", a->route_prefix_blocks,
                       "Blocks hashed by prefix-hash routing (default: those covering the first "
                       "512 tokens)"));
  need(cmd->add_option("--balance-rel-threshold", a->balance_rel_threshold,
                       "prefix-aware load guard: busiest worker has more than this times the "
                       "least busy's outstanding requests (default 1.5, SGLang's)"));
  need(cmd->add_option("--balance-abs-threshold", a->balance_abs_threshold,
                       "prefix-aware load guard: ... and more than this many more (default 64, "
                       "SGLang's)"));
  need(cmd->add_option("--kv-cost-weight", a->kv_cost_weight,
                       "kv-cost: weight of outstanding decode blocks against uncached prefill "
                       "blocks (default 1)"));
  load(cmd->add_option("--prefill-rate", a->prefill_rate,
                       "Load model: prompt tokens per second one worker prefills (default 10000)"));
  load(cmd->add_option("--decode-rate", a->decode_rate,
                       "Load model: output tokens per second per request (default 50)"));
  load(cmd->add_flag("--no-prefill-queue", a->no_prefill_queue,
                     "Load model: prefills on a worker overlap instead of queueing behind each "
                     "other"));
}

}  // namespace ltl::cli
