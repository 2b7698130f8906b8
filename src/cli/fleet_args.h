// The fleet options of `profile` (--workers, --per-worker-capacity, --routing and the policies'
// knobs) declared on the CLI11 command; the pipeline checks and resolves them
// (pipeline/fleet_settings.h).
#pragma once

#include <CLI/CLI.hpp>

#include "pipeline/fleet_settings.h"

namespace ltl::cli {

using FleetArgs = FleetSettings;  // pipeline/fleet_settings.h

void AddFleetOptions(CLI::App* cmd, FleetArgs* args);

}  // namespace ltl::cli
