// `export LOG --to cctrace -o DIR`: the per-conversation cache-trace export of an Anthropic
// Messages log. The export command (export_command.cc) adds these options and calls
// RunExportCctrace for this target.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "pipeline/cctrace_export_run.h"

namespace ltl::cli {

struct CctraceExportArgs {
  double split_at_gap = 0;         // --split-at-gap SECONDS (0 = never)
  bool include_subagents = false;  // --include-subagents
  std::string salt;                // --salt TEXT (tests only; default: random per run)
};

void AddCctraceExportOptions(CLI::App* cmd, CctraceExportArgs* args);
// Runs the export and prints its summary line (unless quiet); returns the exit code.
int RunExportCctrace(const CctraceExportSpec& spec, bool quiet);

}  // namespace ltl::cli
