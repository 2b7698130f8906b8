// KV-cache options of `profile` (see kv_cache_options.h).
#include "cli/kv_cache_options.h"

#include "common/units.h"
#include "simulate/eviction_policy.h"

namespace ltl::cli {

void AddKvCacheOptions(CLI::App* cmd, KvCacheArgs* a) {
  cmd->add_option(
      "--policies", a->policies,
      "Eviction policies to compare, comma-separated: " + EvictionPolicyNames() + " (default lru)");
  cmd->add_option("--model", a->model,
                  "Size caches in GiB of this model's KV cache (see `llmtrafficlens list-models`)");
  cmd->add_option("--model-config", a->model_config,
                  "Size caches in GiB, with KV bytes per token computed from this Hugging Face "
                  "config.json");
  cmd->add_option("--kv-bytes-per-token", a->kv_bytes_per_token,
                  "Size caches in GiB, at this many KV bytes per token");
  cmd->add_option("--kv-precision", a->kv_precision,
                  "KV cache element precision for --model / --model-config: bf16 (default), "
                  "fp8, fp4");
  cmd->add_option("--cache-gib", a->cache_gib,
                  "Cache budgets in GiB, comma-separated (default 1,2,4,...,4096)");
  cmd->add_option("--kvcache-sim", a->kvcache_sim,
                  "Shorthand for --model MODEL --policies fifo,lru,optimal");
  cmd->add_option("--threads", a->threads,
                  "Threads that parse, render and hash gateway-log rows and run the policy "
                  "replays (default: all cores; results do not depend on it)");
  cmd->add_option("--tiers", a->tiers,
                  "Tiered KV store, fastest first: NAME=SIZE,... e.g. hbm=80GiB,dram=1TiB,ssd=8TiB "
                  "(an exclusive LRU hierarchy; sizes in bytes of KV need --model, --model-config "
                  "or --kv-bytes-per-token; plain sizes like 4M are tokens). One cache: with "
                  "--workers the tiers still model the whole trace as one cache");
  a->tier_options.push_back(
      cmd->add_option(
             "--tier-mode", a->tier_mode,
             "exclusive (default: a block lives in one tier, demoted on eviction, promoted "
             "on a hit) or inclusive (each tier an LRU over every access, lower tiers a "
             "superset, as LMCache's CPU + disk backends)")
          ->check(CLI::IsMember({"exclusive", "inclusive"})));
  a->tier_options.push_back(cmd->add_option(
      "--gpu", a->gpu,
      "Time model over --tiers: the GPU whose dense tensor peak prefills (h100, h200, "
      "b200, mi300x; default h100)"));
  a->tier_options.push_back(cmd->add_option("--compute-precision", a->compute_precision,
                                            "Time model: the peak used, bf16 (default) or fp8")
                                ->check(CLI::IsMember({"bf16", "fp8"})));
  a->tier_options.push_back(
      cmd->add_option("--mfu", a->mfu,
                      "Time model: achieved share of the GPU's dense peak in prefill (default 0.4, "
                      "the low end of the 38-43% BF16 MFU Meta reports for Llama 3 on H100)")
          ->check(CLI::Range(0.001, 1.0)));
  a->tier_options.push_back(cmd->add_option(
      "--tier-bandwidth", a->tier_bandwidth,
      "Time model: NAME=RATE per lower tier, e.g. dram=50GB/s,ssd=nvme-gen4 (presets "
      "pcie-gen5-x16, pcie-gen4-x16, nvme-gen5, nvme-gen4; default: the second tier "
      "pcie-gen5-x16, later tiers nvme-gen5)"));
  a->tier_options.push_back(
      cmd->add_option(
             "--gpu-hour-price", a->gpu_hour_price,
             "Time model: price of one GPU-hour; prints the prefill cost saved per day and "
             "month")
          ->check(CLI::NonNegativeNumber));
  a->tier_options.push_back(cmd->add_option(
      "--compute-model", a->compute_model,
      "Time model: catalog model whose FLOPs to use when --model is not given or is "
      "not the served model (default: --model, or --model-config's file)"));
}

KvCacheSettings KvCacheSettingsOf(const KvCacheArgs& args) {
  KvCacheSettings s = args;
  for (const CLI::Option* o : args.tier_options)
    if (o->count() > 0 && s.tier_only_option.empty()) s.tier_only_option = o->get_name();
  return s;
}

}  // namespace ltl::cli
