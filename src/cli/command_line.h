// RunCommandLine: the whole command line of the tool in one call (parse, check the numeric options,
// run the chosen command, map failures to exit codes), main.cc's. ParseCommandSpec: the same
// option table and checks parsing into the pipeline's specification without running, which the
// Python binding (python/core_module.cc) calls with its keyword options, so both front ends accept
// the same options with the same checks and messages. Messages go through a MessageSink:
// stdout/stderr for the executable, or collected strings.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "pipeline/cctrace_export_run.h"
#include "pipeline/export_run.h"
#include "pipeline/hash_shard_run.h"
#include "pipeline/profile_run.h"

namespace ltl::cli {

// Where a command's messages go on the calling thread (PrintError, PrintWarning, PrintOutput in
// cli/commands.h). Each member left empty keeps its stream (stderr for errors and warnings, stdout
// for summaries).
struct MessageSink {
  std::function<void(const std::string&)> error;    // "llmtrafficlens: " + message, no newline
  std::function<void(const std::string&)> warning;  // "llmtrafficlens: warning: " + message
  std::function<void(const std::string&)> output;   // summaries (what stdout shows)
};

// args[0] is the program name. Returns the exit code (0, 1 too many rows skipped, 2 unusable
// input or arguments; --help and --version print and return 0). With a sink, every message of the
// run (parse errors included) goes to it instead of the streams.
int RunCommandLine(const std::vector<std::string>& args, const MessageSink* sink = nullptr);

// What a parsed command asks for, as the pipeline's specification (one member set).
struct CommandSpec {
  std::optional<ProfileSpec> profile;
  std::optional<HashShardSpec> hash_shard;
  std::optional<ExportSpec> export_trace;           // --to mooncake | bailian
  std::optional<CctraceExportSpec> export_cctrace;  // --to cctrace
};

// Parses `args` (the subcommand first, no program name) with the command line's own option table
// and checks (ranges, finiteness, combinations) into the pipeline's specification, without
// running anything: how the Python API validates its keyword options exactly as the CLI does.
// FILE and -o may be left out (a library caller's shards and results are in memory). Errors are
// the messages the command line prints.
Result<CommandSpec> ParseCommandSpec(const std::vector<std::string>& args);

// The long options a subcommand accepts (name without "--", whether it takes a value, not a flag),
// e.g. for "hash-shard": how the Dask driver tells the workers' options from the replay's.
std::vector<std::pair<std::string, bool>> CommandOptions(const std::string& command);

}  // namespace ltl::cli
