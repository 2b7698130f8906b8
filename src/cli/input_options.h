// The reading options shared by `profile`, `export` and `hash-shard` (skip tolerance, line and
// field limits, the gateway-log settings) declared on a CLI11 command, into the pipeline's
// InputSettings (pipeline/input_settings.h). One declaration so every command accepts the same
// values with the same meaning.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>
#include <vector>

#include "pipeline/input_settings.h"

namespace ltl::cli {

using InputArgs = InputSettings;  // pipeline/input_settings.h

// `salt_note` ends the --salt-file help (what the key means for this command).
void AddInputOptions(CLI::App* cmd, InputArgs* args, const std::string& salt_note);

}  // namespace ltl::cli
