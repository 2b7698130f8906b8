// The fleet section of the terminal summary: hit rate by routing policy and per-worker cache size
// with the pooled bound and the ceiling, the load spread at the largest size, and what the policies
// fell back on.
// Internal to src/report/ (tests/build/internal_headers.cmake).
#pragma once

#include <string>

#include "simulate/fleet_result.h"

namespace ltl {

std::string RenderFleetSummary(const FleetResult& fleet, uint32_t block_size, double warmup);

}  // namespace ltl
