// KV-cache options of `profile` (see kv_cache_options.h).
#include "cli/kv_cache_options.h"

#include "common/units.h"
#include "models/hf_config.h"
#include "models/kv_models.h"
#include "models/kv_tiers.h"

namespace ltl::cli {

void AddKvCacheOptions(CLI::App* cmd, KvCacheArgs* a) {
  cmd->add_option("--policies", a->policies,
                  "Eviction policies to compare, comma-separated: lru, fifo, optimal "
                  "(default lru)");
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
  cmd->add_option("--tier-mode", a->tier_mode,
                  "exclusive (default: a block lives in one tier, demoted on eviction, promoted "
                  "on a hit) or inclusive (each tier an LRU over every access, lower tiers a "
                  "superset, as LMCache's CPU + disk backends)")
      ->check(CLI::IsMember({"exclusive", "inclusive"}));
}

Result<TiersRequest> ResolveTiersArgs(const KvCacheArgs& a, const KvCacheRequest& kv) {
  TiersRequest req;
  if (a.tiers.empty()) return req;
  auto parsed = ParseTierList(a.tiers);
  if (!parsed.ok()) return Status::InvalidArgument("--tiers: " + parsed.status().message());
  req.tiers = *parsed;
  req.inclusive = a.tier_mode == "inclusive";
  if (kv.memory) req.bits_per_token = kv.memory->bits_per_token;
  for (const TierSize& t : req.tiers)
    if (t.bytes > 0 && req.bits_per_token == 0)
      return Status::InvalidArgument("--tiers: tier '" + t.name + "' is sized in bytes (" + t.text +
                                     "): give --model, --model-config or --kv-bytes-per-token, or "
                                     "a size in tokens (e.g. 4M)");
  return req;
}

Result<KvCacheRequest> ResolveKvCacheArgs(const KvCacheArgs& a) {
  KvCacheRequest req;
  req.threads = a.threads;
  std::string model = a.model;
  std::string policies = a.policies;
  if (!a.kvcache_sim.empty()) {
    if (!model.empty() && model != a.kvcache_sim)
      return Status::InvalidArgument("--kvcache-sim " + a.kvcache_sim + " conflicts with --model " +
                                     model);
    model = a.kvcache_sim;
    if (policies.empty()) policies = "fifo,lru,optimal";
  }
  if (!policies.empty()) {
    auto parsed = ParseEvictionList(policies);
    if (!parsed.ok()) return Status::InvalidArgument("--policies: " + parsed.status().message());
    req.policies = *parsed;
  }

  const int sources = !model.empty() + !a.model_config.empty() + (a.kv_bytes_per_token > 0);
  if (sources > 1)
    return Status::InvalidArgument(
        "give only one of --model (or --kvcache-sim), --model-config, --kv-bytes-per-token");
  if (!a.kv_precision.empty() && a.kv_bytes_per_token > 0)
    return Status::InvalidArgument(
        "--kv-precision applies to --model / --model-config; --kv-bytes-per-token is already in "
        "bytes");
  auto precision = ParseKvPrecision(a.kv_precision.empty() ? "bf16" : a.kv_precision);
  if (!precision.ok())
    return Status::InvalidArgument("--kv-precision: " + precision.status().message());

  if (sources == 1) {
    KvMemory m;
    if (!model.empty()) {
      auto found = FindKvModel(model);
      if (!found.ok()) return Status::InvalidArgument("--model: " + found.status().message());
      m.model = found->id;
      m.source = "catalog";
      m.precision = std::string(KvPrecisionName(*precision));
      m.derivation = found->arch.Derivation(*precision);
      m.bits_per_token = KvBitsPerToken(found->arch, *precision);
    } else if (!a.model_config.empty()) {
      auto cfg = KvArchitectureFromHfConfig(a.model_config);
      if (!cfg.ok()) return cfg.status();
      m.model = cfg->name;
      m.source = "config " + a.model_config;
      m.precision = std::string(KvPrecisionName(*precision));
      m.derivation = cfg->arch.Derivation(*precision);
      if (!cfg->note.empty()) m.derivation += " (" + cfg->note + ")";
      m.bits_per_token = KvBitsPerToken(cfg->arch, *precision);
    } else {
      m.model = "custom";
      m.source = "--kv-bytes-per-token";
      m.bits_per_token = a.kv_bytes_per_token * 8;
    }
    if (m.bits_per_token == 0) return Status::InvalidArgument("KV bytes per token came out as 0");
    req.memory = m;
    if (a.cache_gib.empty()) {
      req.gib = DefaultCacheGib();
    } else {
      auto gib = ParseDecimalList(a.cache_gib);
      if (!gib.ok()) return Status::InvalidArgument("--cache-gib: " + gib.status().message());
      for (double g : *gib)
        if (!(g > 0)) return Status::InvalidArgument("--cache-gib: sizes must be above 0");
      req.gib = *gib;
    }
  } else if (!a.cache_gib.empty()) {
    return Status::InvalidArgument(
        "--cache-gib needs the KV size per token: give --model, --model-config or "
        "--kv-bytes-per-token");
  }
  return req;
}

}  // namespace ltl::cli
