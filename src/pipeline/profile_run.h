// ProfileRun: the `profile` run as a library call, for the command line (cli/profile_command.cc)
// and the Python API (python/core_module.cc) alike. It resolves the analyses asked (KV memory,
// tiers, fleet), checks the outputs before any work, loads model files and tokenizer once, reads
// every input (logs, traces, shard files, shards in memory) through the one loader, builds the
// Trace, analyses it into a Profile, adds the prefix text when asked, and writes PREFIX.json and
// PREFIX.html together when an output prefix is given.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "analyze/build_profile.h"
#include "analyze/profile.h"
#include "common/status.h"
#include "hash/first_use.h"
#include "pipeline/engine_settings.h"
#include "pipeline/fleet_settings.h"
#include "pipeline/kv_settings.h"
#include "pipeline/run_setup.h"
#include "simulate/replay_options.h"

namespace ltl {

struct ProfileSpec {
  ReadSpec read;
  double warmup = 0.5;  // share of requests that only fill the cache, in [0, 1)
  EvictOrder evict_order = EvictOrder::kTailFirst;
  LruEngine lru = LruEngine::kVllm;
  CapacitySpec capacities;      // both lists empty = DefaultCapacityTokens()
  KvCacheSettings kv;           // eviction policies, KV memory, tiers (kv.threads: the replays')
  FleetSettings fleet;          // --workers 0 = no fleet
  EngineSettings engine;        // --engine, --max-num-seqs
  bool warm_prefix = false;     // cache traces: pre-populate tools+system blocks
  size_t show_prefix_text = 0;  // characters of each top prefix (0 = no prompt text anywhere)
  std::optional<std::string> output_prefix;  // PREFIX.json and PREFIX.html; none: not written
  // Spatial sampling (hash/block_sampler.h; docs/SEMANTICS.md "Sampled curves"): keep blocks under
  // rate's threshold; sample_max_blocks > 0 caps the kept blocks (fixed-size). 1 and 0: exact.
  double sample_rate = 1;
  uint64_t sample_max_blocks = 0;
  // A hosted provider's prompt cache (analyze/provider_cache_section.h).
  std::string provider_cache = "auto";      // auto | none | gemini | a registered model name
  double provider_ttl_s = 0;                // > 0: the short TTL for a what-if (--provider-ttl)
  std::string prices_file;                  // --prices FILE (JSON; "" = the built-in table)
  std::optional<std::string> requests_out;  // --requests-out REQ.jsonl
  // The ceiling and the cold ceiling computed elsewhere from the trace's keys (the Dask driver's
  // shuffle by block id, hash/first_use.h): exact on a sampled trace too. Empty = the replay's.
  FirstUseHook exact_unbounded;
};

// Under sampling, the options whose figures sampling does not support: one message naming the
// first such option and why ("" = none).
std::string SamplingRefusal(const ProfileSpec& spec);

struct ProfileResult {
  Profile profile;
  std::string json_path, html_path;  // as written ("" = not written)
  std::string requests_path;         // --requests-out as written ("" = not asked)
  std::string routes_path;           // --routes-out as written ("" = not asked)
  // The --max-skip-share message when more rows were skipped than tolerated ("" = within); the
  // outputs are written all the same (the command line exits 1).
  std::string too_many_skipped;
};

// Errors are one printable line (the command line exits 2 on them); warnings go to hooks.warn.
Result<ProfileResult> ProfileRun(ProfileSpec spec, const RunHooks& hooks);

}  // namespace ltl
