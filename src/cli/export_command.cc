// `llmtrafficlens export`: read any input `profile` reads and write it as an anonymized Mooncake or
// bailian trace (lengths, times, anonymous chat ids and hash ids only) that replay tools accept, or
// an Anthropic Messages log as per-conversation cache traces (`--to cctrace`,
// cli/export_cctrace.h).
#include <fmt/format.h>

#include <memory>
#include <set>

#include "cli/commands.h"
#include "cli/export_cctrace.h"
#include "cli/input_files.h"
#include "cli/input_options.h"
#include "cli/model_files.h"
#include "cli/tokenizer_options.h"
#include "common/atomic_file.h"
#include "common/output_path.h"
#include "common/units.h"
#include "export/export_trace.h"
#include "hash/conform_ids.h"
#include "ingest/load_input.h"
#include "ingest/merge_inputs.h"

namespace ltl::cli {
namespace {

struct ExportArgs {
  std::vector<std::string> inputs;  // FILE...: paths and globs (cli/input_files.h)
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

bool IsHashedTrace(InputFormat f) {
  return f == InputFormat::kMooncake || f == InputFormat::kBailian || f == InputFormat::kCctrace;
}

// What a replay tool needs for an export at a block size other than AIPerf's default for the
// format. Never a flag the consumer rejects: AIPerf builds that route --isl-block-size onto trace
// files (src/aiperf/config/flags/_converter_dataset.py, _apply_block_size) accept it; earlier
// builds reject it with --input-file ("only supported with synthetic datasets") and replay only
// the default block size (docs/EXPORT.md, "Which versions replay an export").
std::string NonDefaultBlockHint(ExportTarget target, uint32_t block_size) {
  const char* dataset = target == ExportTarget::kMooncake ? "mooncake_trace" : "bailian_trace";
  return fmt::format(
      "block size {} is not AIPerf's default for {} ({}): AIPerf replays it only where "
      "--isl-block-size is accepted for trace files (then pass --isl-block-size {}); older "
      "AIPerf builds reject that flag with --input-file and replay only {}-token blocks, so "
      "export with the default block size for them (docs/EXPORT.md)",
      block_size, dataset, DefaultExportBlockSize(target), block_size,
      DefaultExportBlockSize(target));
}

// The export block size. An explicit --block-size always wins (ExportTrace rejects one the input's
// blocks cannot be coarsened to). Otherwise the target's default, unless the input is a hashed
// trace whose blocks cannot be coarsened to it (e.g. 512-token mooncake to 16-token bailian):
// hashed blocks cannot be split, so the trace's own block size is kept and the user is told.
Result<uint32_t> ChooseBlockSize(const ExportArgs& a, ExportTarget target, const LoadedInput& in) {
  if (a.block_size > 0) return a.block_size;
  uint32_t wanted = DefaultExportBlockSize(target);
  if (!IsHashedTrace(in.format)) return wanted;
  std::set<uint32_t> native;
  for (const auto& r : in.records) native.insert(r.block_size);
  bool all_fit = true;
  for (uint32_t n : native) all_fit = all_fit && CanReblock(n, wanted);
  if (all_fit) return wanted;
  if (native.size() == 1) {
    uint32_t n = *native.begin();
    PrintWarning(fmt::format(
        "{} blocks are {} tokens and hashed blocks cannot be split; exporting with block size {} "
        "instead of {}",
        in.format == InputFormat::kAuto ? "input" : FormatName(in.format), n, n, wanted));
    return n;
  }
  return Status::InvalidArgument(
      "the input mixes block sizes that the default export block size is not a multiple of; "
      "pass --block-size");
}

int RunExport(const ExportArgs& a) {
  auto format = ParseFormatName(a.format);
  if (!format.ok()) {
    PrintError(format.status().message());
    return kExitUnusable;
  }
  auto target = ParseExportTarget(a.target);
  if (!target.ok()) {
    PrintError(target.status().message());
    return kExitUnusable;
  }
  if (a.default_output_length < 0) {
    PrintError("--default-output-length must not be negative");
    return kExitUnusable;
  }
  // Checked before any work; `-o -`, a FIFO or a character device is written through.
  auto output = ResolveOutputPath(a.output, /*allow_stream=*/true);
  if (!output.ok()) {
    PrintError(output.status().message());
    return kExitUnusable;
  }
  const bool to_stdout = output->path == "-" && output->kind == OutputPath::Kind::kStream;

  auto loaded_models =
      LoadModelFiles(a.io.chat_template, a.io.model_dirs, !a.tok.tokenizer.empty());
  if (!loaded_models.ok()) {
    PrintError(loaded_models.status().message());
    return kExitUnusable;
  }
  LoadedModelFiles model_files = std::move(loaded_models).value();

  auto inputs = ExpandInputs(a.inputs);
  if (!inputs.ok()) {
    PrintError(inputs.status().message());
    return kExitUnusable;
  }
  SkipCounter skips;
  ReadContext ctx;
  ctx.name = RunInputName(*inputs);
  ctx.skips = &skips;
  ApplyInputArgs(a.io, &ctx);
  auto loaded_tokenizer = LoadCachedTokenizer(a.tok);
  if (!loaded_tokenizer.ok()) {
    PrintError(loaded_tokenizer.status().message());
    return kExitUnusable;
  }
  std::unique_ptr<Tokenizer> tokenizer = std::move(loaded_tokenizer).value();
  ctx.gateway.tokenizer = tokenizer.get();
  ctx.gateway.models = model_files.models;
  ctx.warn = [](const std::string& m) { PrintWarning(m); };
  // Gateway logs are cut into blocks of the export's size directly; hashed traces are read at
  // their own block size and coarsened afterwards.
  const uint32_t gateway_block_size =
      a.block_size > 0 ? a.block_size : DefaultExportBlockSize(*target);
  ctx.on_format = [&](InputFormat f, ReadContext* c) {
    c->block_size = IsHashedTrace(f) ? a.trace_block_size : gateway_block_size;
  };
  auto loaded = LoadInputs(*inputs, *format, &ctx);
  if (!loaded.ok()) {
    PrintError(loaded.status().message());
    return kExitUnusable;
  }
  LoadedInput& in = loaded.value();
  if (tokenizer) {
    Status enc = tokenizer->EncodeStatus();  // a split pattern over its PCRE2 limits
    if (!enc.ok()) {
      PrintError(enc.message());
      return kExitUnusable;
    }
  }
  if (RealRecordCount(in) == 0) {  // an empty export would replace a good one: refuse
    PrintError(NoRequestsMessage(ctx.name, in, skips));
    return kExitUnusable;
  }
  if (tokenizer && IsHashedTrace(in.format)) {
    PrintWarning(fmt::format("--tokenizer has no effect on {} input: hashed traces carry no text",
                             FormatName(in.format)));
  }
  if (!model_files.models.empty() && IsHashedTrace(in.format)) {
    PrintWarning(fmt::format(
        "--chat-template and --model-dir have no effect on {} input: hashed traces carry no text",
        FormatName(in.format)));
  }
  auto block_size = ChooseBlockSize(a, *target, in);
  if (!block_size.ok()) {
    PrintError(block_size.status().message());
    return kExitUnusable;
  }

  ExportOptions opts;
  opts.target = *target;
  opts.block_size = *block_size;
  opts.dense_ids = a.dense_ids;
  opts.absolute_time = a.absolute_time;
  opts.default_output_length = a.default_output_length;

  OutputWriter file;
  Status st = file.Open(*output);
  if (!st.ok()) {
    PrintError(st.message());
    return kExitUnusable;
  }
  ExportStats stats;
  st = ExportTrace(
      in.records, opts, &ctx, [&file](std::string_view chunk) { return file.Write(chunk); },
      &stats);
  if (st.ok()) st = file.Commit();
  if (!st.ok()) {
    file.Abandon();
    PrintError(st.message());
    return kExitUnusable;
  }

  if (opts.block_size != DefaultExportBlockSize(opts.target))
    PrintWarning(NonDefaultBlockHint(opts.target, opts.block_size));
  if (stats.reblocked > 0)
    PrintWarning(fmt::format("{} requests: blocks coarsened from the input's block size to {}",
                             WithCommas(static_cast<int64_t>(stats.reblocked)), opts.block_size));
  if (in.conformed_ids > 0)
    PrintWarning(fmt::format(
        "{} requests: hash_ids fitted to the logged token counts, which disagree with the "
        "estimate the blocks were cut by (docs/EXPORT.md)",
        WithCommas(static_cast<int64_t>(in.conformed_ids))));
  if (stats.extended + stats.truncated > 0)
    PrintWarning(fmt::format(
        "{} requests: hash_ids extended and {} truncated to ceil(input_length / block_size) "
        "(docs/EXPORT.md)",
        WithCommas(static_cast<int64_t>(stats.extended)),
        WithCommas(static_cast<int64_t>(stats.truncated))));
  if (in.filtered_status > 0)
    PrintWarning(fmt::format("{} rows with a non-2xx status were not exported",
                             WithCommas(static_cast<int64_t>(in.filtered_status))));
  if (stats.default_output > 0)
    PrintWarning(fmt::format("{} requests had no output length; wrote {} (--default-output-length)",
                             WithCommas(static_cast<int64_t>(stats.default_output)),
                             opts.default_output_length));
  if (in.times.implausible > 0) PrintWarning(in.times.Message());
  if (stats.untimed > 0)
    PrintWarning(fmt::format("{} requests had no timestamp; each took the previous request's time",
                             WithCommas(static_cast<int64_t>(stats.untimed))));
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
               to_stdout ? stderr : stdout);  // stdout carries the trace itself
    std::fflush(stdout);
  }

  uint64_t rows = in.records.size() + skips.total() + in.filtered_status;
  if (rows == 0) return kExitOk;
  // Rows skipped while reading and records skipped while exporting are both in `skips`.
  double skip_share = static_cast<double>(skips.total()) / static_cast<double>(rows);
  if (skip_share > a.io.max_skip_share) {
    PrintError(fmt::format("{}: {} of {} rows skipped ({}), above --max-skip-share {}", ctx.name,
                           skips.total(), rows, Percent(skip_share), a.io.max_skip_share));
    return kExitTooManySkipped;
  }
  return kExitOk;
}

// `--to cctrace` reads Anthropic logs with its own pipeline (fixed tokenizer, SHA-256 chain, one
// file per conversation); options of the other targets are refused rather than silently ignored,
// and the other way round.
int DispatchExport(const ExportArgs& a, const CLI::App* cmd) {
  static constexpr const char* kTraceOnly[] = {
      "--trace-block-size", "--dense-ids", "--absolute-time", "--default-output-length",
      "--template",         "--salt-file", "--chat-template", "--model-dir"};
  static constexpr const char* kCctraceOnly[] = {"--split-at-gap", "--include-subagents", "--salt"};
  if (a.target != "cctrace") {
    for (const char* o : kCctraceOnly)
      if (cmd->count(o) > 0) {
        PrintError(fmt::format("{} applies to --to cctrace only", o));
        return kExitUnusable;
      }
    return RunExport(a);
  }
  for (const char* o : kTraceOnly)
    if (cmd->count(o) > 0) {
      PrintError(fmt::format("{} does not apply to --to cctrace", o));
      return kExitUnusable;
    }
  if (!a.tok.tokenizer.empty() && a.tok.tokenizer != "cl100k_base") {
    PrintError("--to cctrace: block ids are defined on cl100k_base tokens; drop --tokenizer");
    return kExitUnusable;
  }
  if (a.inputs.size() != 1) {
    PrintError("--to cctrace reads one Anthropic log: give one input");
    return kExitUnusable;
  }
  ExportCommonArgs common;
  common.input = a.inputs.front();
  common.output = a.output;
  common.format = a.format;
  common.block_size = a.block_size;
  common.io = a.io;
  common.quiet = a.quiet;
  common.data_dir = a.tok.data_dir;
  return RunExportCctrace(common, a.cctrace);
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
  cmd->callback(
      [args, cmd, &registry] { registry.Set([args, cmd] { return DispatchExport(*args, cmd); }); });
}

}  // namespace ltl::cli
