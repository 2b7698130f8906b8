// The time model over a tiered KV store: per measured request, prefill compute of the tokens the
// cache misses (models/model_compute FLOPs at a GPU's dense peak x MFU), plus reading the hit
// tokens held in lower tiers at each tier's bandwidth, plus decode at a fixed rate; TTFT
// quantiles with and without the cache, prefill GPU-seconds saved per day, the end-to-end
// speed-up and, with a GPU-hour price, the money. Estimates of a stated model, not measurements
// (docs/SEMANTICS.md, "Time model").
// Internal to src/analyze/ (tests/build/internal_headers.cmake).
#pragma once

#include <string>
#include <vector>

#include "analyze/profile.h"
#include "models/model_compute.h"
#include "simulate/lru_curve.h"
#include "simulate/trace.h"

namespace ltl {

struct TimeModelRequest {
  bool present = false;
  ComputeShape compute;
  std::string gpu, gpu_source, precision;  // "bf16" / "fp8"
  double peak_flops = 0;                   // dense FLOP/s at that precision
  double mfu = 0.4;
  std::vector<double> tier_bytes_per_s;  // per tier (index 0, the fastest, is not read over a link)
  std::vector<std::string> tier_bandwidth_source;
  double decode_tokens_per_s = 50;
  double gpu_hour_price = 0;
};

// Fills p->tiers.time and the time fields of every row from the split of the same hierarchies.
void BuildTierTimeModel(const Trace& trace, const TimeModelRequest& req, double bytes_per_token,
                        const TierSplit& split, Profile* p);

}  // namespace ltl
