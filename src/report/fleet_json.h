// The "fleet" object of report.json (docs/FORMATS.md): settings, bounds, and per routing policy
// and per-worker capacity the hit rate and the load spread.
// Internal to src/report/ (tests/build/internal_headers.cmake).
#pragma once

#include <nlohmann/json.hpp>

#include "simulate/fleet_result.h"

namespace ltl {

nlohmann::ordered_json FleetToJson(const FleetResult& fleet, uint32_t block_size);

}  // namespace ltl
