// The `profile` options for eviction policies and KV memory (--policies, --model, --model-config,
// --kv-bytes-per-token, --kv-precision, --cache-gib, --kvcache-sim, --threads) and their resolution
// into a KvCacheRequest. Kept apart from profile_command.cc so that file stays about the pipeline.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "analyze/build_kv_cache.h"
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
};

void AddKvCacheOptions(CLI::App* cmd, KvCacheArgs* args);

// Validates the combination and loads the model config; errors are one printable line.
Result<KvCacheRequest> ResolveKvCacheArgs(const KvCacheArgs& args);

}  // namespace ltl::cli
