// Numeric options checked in one place after parsing, for every command: a FLOAT option must be
// a finite number (CLI11 reads "nan" and "inf" as doubles), an unsigned one must not be negative
// (CLI11 wraps "-5" around), and the options listed in option_limits.cc must lie in their stated
// range (threads at most 256, block size at most 1,048,576 tokens, ...). One line names the option
// and its bound.
#pragma once

#include <CLI/CLI.hpp>

#include "common/status.h"

namespace ltl::cli {

inline constexpr unsigned kMaxThreads = 256;

// Checks the options of the parsed subcommands of `app`.
Status CheckNumericOptions(const CLI::App& app);

}  // namespace ltl::cli
