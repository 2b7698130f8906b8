// The `profile` options for eviction policies and KV memory (--policies, --model, --model-config,
// --kv-bytes-per-token, --kv-precision, --cache-gib, --kvcache-sim, --threads, --tiers and the
// time model's), declared on the CLI11 command; the pipeline resolves them
// (pipeline/kv_settings.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include <vector>

#include "pipeline/kv_settings.h"

namespace ltl::cli {

// The settings plus the options that mean something only with --tiers (checked: given alone, an
// error rather than a silently ignored flag).
struct KvCacheArgs : KvCacheSettings {
  std::vector<const CLI::Option*> tier_options;
};

void AddKvCacheOptions(CLI::App* cmd, KvCacheArgs* args);

// The settings the pipeline resolves (tier_only_option: the first tier option given).
KvCacheSettings KvCacheSettingsOf(const KvCacheArgs& args);

}  // namespace ltl::cli
