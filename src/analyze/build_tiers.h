// BuildTiersSection: hits of an exclusive LRU hierarchy of KV tiers (`--tiers`), split by the tier
// that serves them, from one LRU pass (simulate/lru_curve.h): the hierarchy asked for, its leading
// tiers alone ("HBM only", "HBM + DRAM"), and the whole hierarchy scaled by 1/64 ... 4 for the
// chart of hits by tier across sizes. Stored in Profile::tiers.
#pragma once

#include <vector>

#include "analyze/profile.h"
#include "analyze/tier_time_model.h"
#include "models/kv_tiers.h"
#include "simulate/replay_options.h"
#include "simulate/trace.h"

namespace ltl {

struct TiersRequest {
  std::vector<TierSize> tiers;  // empty = no tiers section
  uint64_t bits_per_token = 0;  // KV bits per token (needed when a size is in bytes)
  // Inclusive: every tier is its own LRU over every access and a lower tier holds a superset of
  // the one above (LMCache's write-through local CPU + disk); exclusive by default.
  bool inclusive = false;
  TimeModelRequest time;  // prefill/decode time model (time.present)
};

// The scales of the sweep rows, besides 1 (the hierarchy asked for).
const std::vector<double>& TierSweepScales();

void BuildTiersSection(const Trace& trace, const ReplayOptions& options,
                       const TiersRequest& request, Profile* p);

}  // namespace ltl
