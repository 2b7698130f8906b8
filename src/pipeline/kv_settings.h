// KvCacheSettings: the eviction-policy and KV-memory settings of a profile run (--policies,
// --model, --model-config, --kv-bytes-per-token, --kv-precision, --cache-gib, --kvcache-sim,
// --threads, --tiers and the time model's) and their resolution into the analyze stage's
// KvCacheRequest and TiersRequest. Errors are one printable line naming the option.
#pragma once

#include <string>

#include "analyze/build_kv_cache.h"
#include "analyze/build_tiers.h"
#include "common/status.h"

namespace ltl {

struct KvCacheSettings {
  std::string policies;
  std::string model;
  std::string model_config;
  uint64_t kv_bytes_per_token = 0;
  std::string kv_precision;  // "" = bf16
  std::string cache_gib;
  std::string kvcache_sim;
  unsigned threads = 0;
  std::string tiers;  // --tiers hbm=80GiB,dram=1TiB,ssd=8TiB
  std::string tier_mode = "exclusive";
  // Time model over the tiers (needs --tiers and a model with compute values).
  std::string gpu = "h100";
  std::string compute_precision = "bf16";
  double mfu = 0.4;
  std::string tier_bandwidth;  // NAME=RATE,... (defaults: tier 2 pcie-gen5-x16, then nvme-gen5)
  double decode_rate = 50;     // tokens/s per request: the load model's --decode-rate
  double gpu_hour_price = 0;
  std::string compute_model;  // --compute-model: catalog id for FLOPs when --model is not one
  // The first option given that means something only with --tiers ("" = none): given without
  // --tiers, an error rather than a silently ignored flag.
  std::string tier_only_option;
};

// Validates the combination and loads the model config.
Result<KvCacheRequest> ResolveKvCacheArgs(const KvCacheSettings& args);
// --tiers, sized with the KV memory of `kv` when a size is in bytes.
Result<TiersRequest> ResolveTiersArgs(const KvCacheSettings& args, const KvCacheRequest& kv);

}  // namespace ltl
