// `export --to cctrace` (see export_cctrace.h): the options, the run
// (pipeline/cctrace_export_run.h) and the summary line.
#include "cli/export_cctrace.h"

#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.h"
#include "common/units.h"

namespace ltl::cli {

void AddCctraceExportOptions(CLI::App* cmd, CctraceExportArgs* args) {
  cmd->add_option("--split-at-gap", args->split_at_gap,
                  "cctrace: start a new segment file (_s1, _s2, ...) when a conversation's main "
                  "thread pauses longer than SECONDS (default: never)");
  cmd->add_flag("--include-subagents", args->include_subagents,
                "cctrace: write sub-agent conversations as nested entries (default: leave their "
                "calls out)");
  cmd->add_option("--salt", args->salt,
                  "cctrace: fixed hash salt, for tests only (default: random per run, never "
                  "written anywhere)");
}

int RunExportCctrace(const CctraceExportSpec& spec, bool quiet) {
  RunHooks hooks;
  hooks.warn = [](const std::string& m) { PrintWarning(m); };
  auto result = CctraceExportRun(spec, hooks);
  if (!result.ok()) {
    PrintError(result.status().message());
    return kExitUnusable;
  }
  const CctraceExportStats& stats = result->stats;
  if (!quiet) {
    std::fputs(fmt::format("exported {} conversations ({} files, {} requests, {} sub-agents) to "
                           "{} (cctrace, block size {})\n",
                           WithCommas(static_cast<int64_t>(stats.conversations)),
                           WithCommas(static_cast<int64_t>(stats.files)),
                           WithCommas(static_cast<int64_t>(stats.parent_requests +
                                                           stats.subagent_requests_written)),
                           WithCommas(static_cast<int64_t>(stats.subagents)), spec.output,
                           result->block_size)
                   .c_str(),
               stdout);
    std::fflush(stdout);
  }
  if (!result->too_many_skipped.empty()) {
    PrintError(result->too_many_skipped);
    return kExitTooManySkipped;
  }
  return kExitOk;
}

}  // namespace ltl::cli
