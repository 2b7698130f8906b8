// SimulateFleet: N workers behind each routing policy asked for. Cache-oblivious policies are
// routed once and every per-worker capacity read off per-worker one-pass curves; cache-aware
// policies are replayed once per capacity, in parallel threads. The bounds come from the
// single-cache curve the profile already computed (same trace, same replay options).
#pragma once

#include "simulate/fleet_options.h"
#include "simulate/fleet_result.h"
#include "simulate/lru_curve.h"
#include "simulate/replay_options.h"
#include "simulate/trace.h"

namespace ltl {

// options.workers >= 1; capacities are sorted and deduplicated in the result's options.
FleetResult SimulateFleet(const Trace& trace, const ReplayOptions& replay, FleetOptions options,
                          const LruCurve& single_cache);

// The output length used for requests that do not record one: the median of those that do
// (0 when none does).
int64_t DefaultOutputTokens(const Trace& trace);

}  // namespace ltl
