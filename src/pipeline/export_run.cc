// ExportRun (see export_run.h).
#include "pipeline/export_run.h"

#include <fmt/format.h>

#include <set>

#include "common/output_path.h"
#include "common/units.h"
#include "hash/conform_ids.h"
#include "pipeline/run_inputs.h"

namespace ltl {
namespace {

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
Result<uint32_t> ChooseBlockSize(const ExportSpec& a, const LoadedInput& in,
                                 const RunHooks& hooks) {
  if (a.read.block_size > 0) return a.read.block_size;
  uint32_t wanted = DefaultExportBlockSize(a.target);
  if (!IsHashedTrace(in.format)) return wanted;
  std::set<uint32_t> native;
  for (const auto& r : in.records) native.insert(r.block_size);
  bool all_fit = true;
  for (uint32_t n : native) all_fit = all_fit && CanReblock(n, wanted);
  if (all_fit) return wanted;
  if (native.size() == 1) {
    uint32_t n = *native.begin();
    hooks.Warn(fmt::format(
        "{} blocks are {} tokens and hashed blocks cannot be split; exporting with block size {} "
        "instead of {}",
        in.format == InputFormat::kAuto ? "input" : FormatName(in.format), n, n, wanted));
    return n;
  }
  return Status::InvalidArgument(
      "the input mixes block sizes that the default export block size is not a multiple of; "
      "pass --block-size");
}

std::string Commas(uint64_t n) {
  return WithCommas(static_cast<int64_t>(n));
}

// The warnings after a written export.
void WarnAfterExport(const ExportResult& r, const LoadedInput& in, const RunHooks& hooks) {
  const ExportOptions& opts = r.options;
  const ExportStats& stats = r.stats;
  if (opts.block_size != DefaultExportBlockSize(opts.target))
    hooks.Warn(NonDefaultBlockHint(opts.target, opts.block_size));
  if (stats.reblocked > 0)
    hooks.Warn(fmt::format("{} requests: blocks coarsened from the input's block size to {}",
                           Commas(stats.reblocked), opts.block_size));
  if (in.conformed_ids > 0)
    hooks.Warn(fmt::format(
        "{} requests: hash_ids fitted to the logged token counts, which disagree with the "
        "estimate the blocks were cut by (docs/EXPORT.md)",
        Commas(in.conformed_ids)));
  if (stats.extended + stats.truncated > 0)
    hooks.Warn(fmt::format(
        "{} requests: hash_ids extended and {} truncated to ceil(input_length / block_size) "
        "(docs/EXPORT.md)",
        Commas(stats.extended), Commas(stats.truncated)));
  if (in.filtered_status > 0)
    hooks.Warn(
        fmt::format("{} rows with a non-2xx status were not exported", Commas(in.filtered_status)));
  if (stats.default_output > 0)
    hooks.Warn(fmt::format("{} requests had no output length; wrote {} (--default-output-length)",
                           Commas(stats.default_output), opts.default_output_length));
  if (in.times.implausible > 0) hooks.Warn(in.times.Message());
  if (stats.untimed > 0)
    hooks.Warn(fmt::format("{} requests had no timestamp; each took the previous request's time",
                           Commas(stats.untimed)));
}

}  // namespace

Result<ExportResult> ExportRun(ExportSpec spec, const RunHooks& hooks) {
  if (spec.default_output_length < 0)
    return Status::InvalidArgument("--default-output-length must not be negative");
  // Checked before any work; `-o -`, a FIFO or a character device is written through.
  auto output = ResolveOutputPath(spec.output, /*allow_stream=*/true);
  if (!output.ok()) return output.status();
  ExportResult result;
  result.to_stdout = output->path == "-" && output->kind == OutputPath::Kind::kStream;

  RunSetup run;
  if (Status st = run.LoadModels(spec.read); !st.ok()) return st;
  auto inputs = ExpandInputs(spec.read.inputs);
  if (!inputs.ok()) return inputs.status();
  const std::string name = RunInputName(*inputs);
  run.MakeContext(name, spec.read, hooks);
  if (Status st = run.LoadTokenizer(spec.read); !st.ok()) return st;
  run.ctx.gateway.tokenizer = run.tokenizer.get();
  // Gateway logs are cut into blocks of the export's size directly; hashed traces are read at
  // their own block size and coarsened afterwards.
  const uint32_t gateway_block_size =
      spec.read.block_size > 0 ? spec.read.block_size : DefaultExportBlockSize(spec.target);
  const uint32_t trace_block_size = spec.trace_block_size;
  run.ctx.on_format = [=](InputFormat f, ReadContext* c) {
    c->block_size = IsHashedTrace(f) ? trace_block_size : gateway_block_size;
  };
  if (hooks.read_start) hooks.read_start(name);
  auto loaded = LoadRunInputs(*inputs, std::move(spec.read.shards), spec.read.format, &run.ctx);
  if (hooks.read_done) hooks.read_done();
  if (!loaded.ok()) return loaded.status();
  LoadedInput& in = loaded->input;
  if (Status enc = run.EncodeStatus(); !enc.ok()) return enc;  // a split pattern over its limits
  if (RealRecordCount(in) == 0)  // an empty export would replace a good one: refuse
    return Status::InvalidArgument(NoRequestsMessage(name, in, run.skips));
  run.WarnTextOptionsUnused(in, !IsHashedTrace(in.format), hooks);
  auto block_size = ChooseBlockSize(spec, in, hooks);
  if (!block_size.ok()) return block_size.status();

  ExportOptions& opts = result.options;
  opts.target = spec.target;
  opts.block_size = *block_size;
  opts.dense_ids = spec.dense_ids;
  opts.absolute_time = spec.absolute_time;
  opts.default_output_length = spec.default_output_length;
  OutputWriter file;
  Status st = file.Open(*output);
  if (!st.ok()) return st;
  st = ExportTrace(
      in.records, opts, &run.ctx, [&file](std::string_view chunk) { return file.Write(chunk); },
      &result.stats);
  if (st.ok()) st = file.Commit();
  if (!st.ok()) {
    file.Abandon();
    return st;
  }
  WarnAfterExport(result, in, hooks);
  // Rows skipped while reading and records skipped while exporting are both in the skips.
  const uint64_t rows = in.records.size() + run.skips.total() + in.filtered_status;
  result.too_many_skipped =
      SkipShareMessage(name, run.skips.total(), rows, spec.read.io.max_skip_share, true);
  return result;
}

}  // namespace ltl
