// `llmtrafficlens export`: read any input `profile` reads and write it as an anonymized Mooncake or
// bailian trace (lengths, times, anonymous chat ids and hash ids only) that replay tools accept
// (the run: pipeline/export_run.h), or an Anthropic Messages log as per-conversation cache traces
// (`--to cctrace`, cli/export_cctrace.h).
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/export_cctrace.h"
#include "cli/input_options.h"
#include "cli/tokenizer_options.h"
#include "common/units.h"
#include "pipeline/export_run.h"

namespace ltl::cli {
namespace {

struct ExportArgs {
  std::vector<std::string> inputs;  // FILE...: paths and globs (pipeline/input_files.h)
  std::string target;
  std::string output;
  std::string format = "auto";
  uint32_t block_size = 0;        // 0 = the target's default
  uint32_t trace_block_size = 0;  // hashed inputs without a block_size field; 0 = format default
  bool dense_ids = false;
  bool absolute_time = false;
  int64_t default_output_length = 256;
  InputArgs io;  // limits, skip tolerance, gateway settings (cli/input_options.h)
  bool quiet = false;
  TokenizerArgs tok;          // --tokenizer, --data-dir
  CctraceExportArgs cctrace;  // --to cctrace only
};

Result<ExportSpec> ToSpec(const ExportArgs& a) {
  auto format = ParseFormatName(a.format);
  if (!format.ok()) return format.status();
  auto target = ParseExportTarget(a.target);
  if (!target.ok()) return target.status();
  ExportSpec spec;
  spec.read.inputs = a.inputs;
  spec.read.format = *format;
  spec.read.block_size = a.block_size;
  spec.read.io = a.io;
  spec.read.tok = a.tok;
  spec.target = *target;
  spec.trace_block_size = a.trace_block_size;
  spec.dense_ids = a.dense_ids;
  spec.absolute_time = a.absolute_time;
  spec.default_output_length = a.default_output_length;
  spec.output = a.output;
  return spec;
}

int RunExport(const ExportArgs& a, ExportSpec spec) {
  RunHooks hooks;
  hooks.warn = [](const std::string& m) { PrintWarning(m); };
  auto result = ExportRun(std::move(spec), hooks);
  if (!result.ok()) {
    PrintError(result.status().message());
    return kExitUnusable;
  }
  const ExportOptions& opts = result->options;
  const ExportStats& stats = result->stats;
  if (!a.quiet) {
    std::string extra;
    if (opts.dense_ids)
      extra += fmt::format(", {} distinct hash ids",
                           WithCommas(static_cast<int64_t>(stats.distinct_ids)));
    if (opts.target == ExportTarget::kBailian)
      extra +=
          fmt::format(", {} conversations", WithCommas(static_cast<int64_t>(stats.conversations)));
    std::fputs(fmt::format("exported {} requests to {} ({}, block size {}{})\n",
                           WithCommas(static_cast<int64_t>(stats.written)), a.output,
                           ExportTargetName(opts.target), opts.block_size, extra)
                   .c_str(),
               result->to_stdout ? stderr : stdout);  // stdout carries the trace itself
    std::fflush(stdout);
  }
  if (!result->too_many_skipped.empty()) {
    PrintError(result->too_many_skipped);
    return kExitTooManySkipped;
  }
  return kExitOk;
}

// `--to cctrace` reads Anthropic logs with its own pipeline (fixed tokenizer, SHA-256 chain, one
// file per conversation); options of the other targets are refused rather than silently ignored,
// and the other way round.
Result<CommandSpec> ToCommandSpec(const ExportArgs& a, const CLI::App* cmd) {
  static constexpr const char* kTraceOnly[] = {
      "--trace-block-size", "--dense-ids", "--absolute-time", "--default-output-length",
      "--template",         "--salt-file", "--chat-template", "--model-dir"};
  static constexpr const char* kCctraceOnly[] = {"--split-at-gap", "--include-subagents", "--salt"};
  CommandSpec c;
  if (a.target != "cctrace") {
    for (const char* o : kCctraceOnly)
      if (cmd->count(o) > 0)
        return Status::InvalidArgument(fmt::format("{} applies to --to cctrace only", o));
    auto spec = ToSpec(a);
    if (!spec.ok()) return spec.status();
    c.export_trace = std::move(spec).value();
    return c;
  }
  for (const char* o : kTraceOnly)
    if (cmd->count(o) > 0)
      return Status::InvalidArgument(fmt::format("{} does not apply to --to cctrace", o));
  if (!a.tok.tokenizer.empty() && a.tok.tokenizer != "cl100k_base")
    return Status::InvalidArgument(
        "--to cctrace: block ids are defined on cl100k_base tokens; drop --tokenizer");
  if (a.inputs.size() != 1)
    return Status::InvalidArgument("--to cctrace reads one Anthropic log: give one input");
  auto format = ParseFormatName(a.format);
  if (!format.ok()) return format.status();
  CctraceExportSpec spec;
  spec.input = a.inputs.front();
  spec.output = a.output;
  spec.format = *format;
  spec.block_size = a.block_size;
  spec.io = a.io;
  spec.data_dir = a.tok.data_dir;
  spec.split_at_gap = a.cctrace.split_at_gap;
  spec.include_subagents = a.cctrace.include_subagents;
  spec.salt = a.cctrace.salt;
  c.export_cctrace = std::move(spec);
  return c;
}

int DispatchExport(const ExportArgs& a, const CLI::App* cmd) {
  auto spec = ToCommandSpec(a, cmd);
  if (!spec.ok()) {
    PrintError(spec.status().message());
    return kExitUnusable;
  }
  if (spec->export_cctrace) return RunExportCctrace(*spec->export_cctrace, a.quiet);
  return RunExport(a, std::move(*spec->export_trace));
}

}  // namespace

void RegisterExport(CLI::App& app, CommandRegistry& registry) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "export",
      "Write a log or trace as an anonymized Mooncake or bailian trace for replay tools, or an "
      "Anthropic log as per-conversation cache traces (cctrace)");
  cmd->add_option("FILE", args->inputs,
                  "Input files (plain, .gz or .zst; globs are expanded; several files are merged "
                  "by time into one trace), or - for stdin")
      ->required();
  cmd->add_option("--to", args->target,
                  "Trace format to write: mooncake, bailian, or cctrace (Anthropic logs only)")
      ->required()
      ->check(CLI::IsMember({"mooncake", "bailian", "cctrace"}));
  cmd->add_option("-o,--output", args->output,
                  "Output file, written atomically (temporary file + rename); cctrace: a new or "
                  "empty directory, one file per conversation")
      ->required();
  cmd->add_option("--format", args->format,
                  "Input format: auto, mooncake, bailian, cctrace, csv, jsonl (default: detected "
                  "from content)");
  cmd->add_option("--block-size", args->block_size,
                  "Tokens per exported block (default: mooncake 512 and bailian 16, the block "
                  "sizes AIPerf's mooncake_trace and bailian_trace replay without a flag; other "
                  "sizes need an AIPerf that accepts --isl-block-size for trace files). A hashed "
                  "input trace can only be coarsened, to a multiple of "
                  "its own block size");
  cmd->add_option("--trace-block-size", args->trace_block_size,
                  "Block size of a hashed input trace whose lines carry no block_size (default: "
                  "mooncake 512, bailian 16)");
  cmd->add_flag("--dense-ids", args->dense_ids,
                "Renumber hash ids 0,1,2,... in order of first appearance (as the Mooncake "
                "release does); ids then differ between shards");
  cmd->add_flag("--absolute-time", args->absolute_time,
                "Keep the log's own times (epoch ms for mooncake, epoch s for bailian) instead of "
                "times since the first request");
  cmd->add_option("--default-output-length", args->default_output_length,
                  "output_length written when the log does not say (default 256, SGLang's)");
  AddInputOptions(cmd, &args->io, "; the same key gives the same ids");
  AddTokenizerOptions(cmd, &args->tok);
  cmd->add_flag("-q,--quiet", args->quiet, "No summary line on stdout");
  AddCctraceExportOptions(cmd, &args->cctrace);
  cmd->callback([args, cmd, &registry] {
    registry.Set([args, cmd] { return DispatchExport(*args, cmd); });
    registry.SetSpec([args, cmd] { return ToCommandSpec(*args, cmd); });
  });
}

}  // namespace ltl::cli
