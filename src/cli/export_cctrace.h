// `export LOG --to cctrace -o DIR`: the per-conversation cache-trace export of an Anthropic
// Messages log. The export command (export_command.cc) adds these options and calls
// RunExportCctrace for this target.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "cli/input_options.h"

namespace ltl::cli {

struct CctraceExportArgs {
  double split_at_gap = 0;         // --split-at-gap SECONDS (0 = never)
  bool include_subagents = false;  // --include-subagents
  std::string salt;                // --salt TEXT (tests only; default: random per run)
};

// The export command's options that this target uses too.
struct ExportCommonArgs {
  std::string input, output, format = "auto";
  uint32_t block_size = 0;  // 0 = 64 for cctrace
  InputArgs io;  // limits, skip tolerance, source and field overrides (cli/input_options.h)
  bool quiet = false;
  std::string data_dir = LTL_DEFAULT_DATA_DIR;  // where cl100k_base.tiktoken lives
};

void AddCctraceExportOptions(CLI::App* cmd, CctraceExportArgs* args);
int RunExportCctrace(const ExportCommonArgs& common, const CctraceExportArgs& args);

}  // namespace ltl::cli
