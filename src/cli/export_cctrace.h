// `export LOG --to cctrace -o DIR`: the per-conversation cache-trace export of an Anthropic
// Messages log. The export command (export_command.cc) adds these options and calls
// RunExportCctrace for this target.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "read/read_context.h"

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
  double max_skip_share = 0.5;
  ReadLimits limits;
  bool quiet = false;
  std::string ts_column;                        // "" = detected
  std::string data_dir = LTL_DEFAULT_DATA_DIR;  // where cl100k_base.tiktoken lives
};

void AddCctraceExportOptions(CLI::App* cmd, CctraceExportArgs* args);
int RunExportCctrace(const ExportCommonArgs& common, const CctraceExportArgs& args);

}  // namespace ltl::cli
