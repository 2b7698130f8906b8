// --routes-out ROUTES.jsonl: the fleet's routing decisions, one JSON object per routed request,
// for each routing policy and per-worker size in report order: {"policy": its name,
// "per_worker_capacity_blocks": the size (null when unbounded), "request": the request's 0-based
// position in replay order (real requests only: cache traces' --warm-prefix entries are not
// requests), "worker": the 0-based worker}. A cache-oblivious policy's routes are the same at every
// size. Indices only: no text, no keys (docs/FORMATS.md).
#pragma once

#include <string>

#include "common/status.h"
#include "simulate/fleet_result.h"
#include "simulate/trace.h"

namespace ltl {

// Written to a temporary file beside `path` and renamed into place when complete. The fleet was
// simulated with FleetOptions::keep_routes.
Status WriteRoutesJsonl(const std::string& path, const Trace& trace, const FleetResult& fleet);

}  // namespace ltl
