// The fleet's router ranking (docs/FLEET.md "Choosing a router"): at each per-worker size, the
// policies that ran ordered by hit rate, then requests CV, then (--engine) waiting p95, with a TTFT
// estimate each, the pooled bound and the ceiling as reference rows; and, per --router-sweep, the
// value that did best at each size. A pure function of the FleetResult (and the tier time model's
// prefill rate when the report has one).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyze/profile.h"
#include "simulate/fleet_result.h"

namespace ltl {

struct FleetRankRow {
  enum class Kind { kPolicy, kPooled, kCeiling };
  Kind kind = Kind::kPolicy;
  size_t policy = 0;  // kPolicy: index into FleetResult::policies
  std::string label;  // "vllm-router-prefix (prefix_min_match_length=256)", "pooled", "ceiling"
  uint32_t rank = 0;  // kPolicy: 1 = best; rows equal in every criterion share a rank
  double hit_rate = 0;
  int64_t hit_tokens = 0;
  bool has_load = false;  // kPolicy: the CVs below are set
  double requests_cv = 0, uncached_cv = 0;
  bool has_waiting = false;  // kPolicy with --engine
  double waiting_p50_s = 0, waiting_p95_s = 0;
  double uncached_tokens_per_request = 0;  // mean over the measured requests
  // mean uncached prefill / prefill rate + waiting p50 (0 without --engine): an estimate.
  double ttft_estimate_s = 0;
};

struct FleetRankingAtSize {
  uint64_t capacity_blocks = 0;    // per worker
  std::vector<FleetRankRow> rows;  // the policies in rank order, then pooled, then ceiling
};

// A --router-sweep (one router, one key): the entries that ran it and the best value per size.
struct FleetSweepBest {
  std::string router, key;
  std::vector<size_t> entries;            // indexes into FleetResult::policies, as run
  std::vector<std::vector<double>> best;  // per size: the value(s) ranked first (ties: several)
};

struct FleetRanking {
  double prefill_rate = 0;                // tokens/s the TTFT estimate prefills at
  std::string prefill_rate_source;        // where that rate comes from
  bool waiting = false;                   // --engine: waiting times known
  std::vector<FleetRankingAtSize> sizes;  // one per FleetOptions::capacity_blocks entry
  std::vector<FleetSweepBest> sweeps;
  size_t largest_bounded = 0;  // index into sizes: the largest bounded size (else the last)
};

// The prefill rate of the TTFT estimate: the tier time model's when the report has one
// (GPU peak x MFU / (2 x active parameters) tokens/s, attention FLOPs left out), else the fleet's
// load model rate (--prefill-rate).
FleetRanking RankFleet(const FleetResult& f, const TierTimeModel& time_model);

}  // namespace ltl
