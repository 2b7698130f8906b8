// The engine options of `profile` (--engine, --max-num-seqs) declared on the CLI11 command; the
// pipeline checks and resolves them (pipeline/engine_settings.h, pipeline/profile_run.cc).
#pragma once

#include <CLI/CLI.hpp>

#include "pipeline/engine_settings.h"

namespace ltl::cli {

void AddEngineOptions(CLI::App* cmd, EngineSettings* args);

}  // namespace ltl::cli
