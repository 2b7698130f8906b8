// The `profile` options for eviction policies and KV memory (--policies, --model, --model-config,
// --kv-bytes-per-token, --kv-precision, --cache-gib, --kvcache-sim, --threads) and their resolution
// into a KvCacheRequest. Kept apart from profile_command.cc so that file stays about the pipeline.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "analyze/build_kv_cache.h"
#include "analyze/build_tiers.h"
#include "common/status.h"

namespace ltl::cli {

struct KvCacheArgs {
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
  // The options above that mean something only with --tiers (checked: given alone, an error
  // rather than a silently ignored flag).
  std::vector<const CLI::Option*> tier_options;
};

void AddKvCacheOptions(CLI::App* cmd, KvCacheArgs* args);

// Validates the combination and loads the model config; errors are one printable line.
Result<KvCacheRequest> ResolveKvCacheArgs(const KvCacheArgs& args);
// --tiers, sized with the KV memory of `kv` when a size is in bytes.
Result<TiersRequest> ResolveTiersArgs(const KvCacheArgs& args, const KvCacheRequest& kv);

}  // namespace ltl::cli
