// AnalyzeInput: everything `profile` computes from a loaded input and its Trace, gathered into one
// Profile — the description of the input, the LRU curve and distributions (BuildProfile), the
// eviction-policy section, the fleet, and the findings of gateway logs or cache traces. The
// command line only resolves options, reads the input and writes the renderings.
#pragma once

#include <optional>
#include <string>

#include "analyze/build_engine.h"
#include "analyze/build_kv_cache.h"
#include "analyze/build_profile.h"
#include "analyze/build_tiers.h"
#include "analyze/profile.h"
#include "analyze/provider_cache_section.h"
#include "common/skip_counter.h"
#include "ingest/load_input.h"
#include "simulate/fleet_options.h"
#include "simulate/replay_options.h"
#include "simulate/trace.h"

namespace ltl {

struct AnalyzeOptions {
  std::string input_name;  // as shown in messages and the report
  ReplayOptions replay;
  CapacitySpec capacities;
  std::optional<FleetOptions> fleet;    // --workers
  std::optional<EngineRun> engine;      // --engine other than ideal
  KvCacheRequest kv_cache;              // eviction policies and KV memory
  TiersRequest tiers;                   // --tiers (empty = none)
  bool warm_prefix = false;             // cache traces: --warm-prefix
  std::string tokenizer;                // gateway logs: the --tokenizer used ("" = none)
  ProviderCacheOptions provider_cache;  // --provider-cache, --provider-ttl, --prices
  FirstUseHook exact_unbounded;         // the Dask driver's shuffle (BuildProfile); empty = none
};

// The records' segment facts (PromptFacts, the cache busters' input) are freed once the cache
// busters have read them (issue 30: they are the largest per-request data and were live until the
// end); nothing after AnalyzeInput reads them. The rest of `in` is left as it was.
Profile AnalyzeInput(LoadedInput& in, const Trace& trace, const SkipCounter& skips,
                     const AnalyzeOptions& options);

}  // namespace ltl
