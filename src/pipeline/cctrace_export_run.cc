// CctraceExportRun (see cctrace_export_run.h).
#include "pipeline/cctrace_export_run.h"

#include <fmt/format.h>

#include <memory>

#include "common/units.h"
#include "export/anthropic_calls.h"
#include "export/cctrace_hash.h"
#include "export/cctrace_write.h"
#include "ingest/load_input.h"
#include "tokenize/tokenizer.h"

namespace ltl {
namespace {}  // namespace

Result<CctraceExportResult> CctraceExportRun(const CctraceExportSpec& a, const RunHooks& hooks) {
  const CctraceExportSpec& c = a;
  if (!(c.split_at_gap >= 0)) {
    return Status::InvalidArgument("--split-at-gap must be a number of seconds >= 0");
  }
  auto tokenizer = LoadTokenizer("cl100k_base", a.data_dir);
  if (!tokenizer.ok()) {
    return tokenizer.status();
  }
  const std::string name = InputDisplayName(a.input);
  SkipCounter skips;
  IngestContext ctx;
  ctx.name = name;
  ctx.skips = &skips;
  ApplyInputSettings(a.io, &ctx);
  ctx.warn = [&hooks](const std::string& m) { hooks.Warn(m); };
  auto opened = OpenAndDetect(a.input, a.format, &ctx);
  if (!opened.ok()) {
    return opened.status();
  }
  AnthropicReadConfig config;
  config.tokenizer = tokenizer.value().get();
  config.salt = c.salt.empty() ? RandomCctraceSalt() : c.salt;
  config.block_size = a.block_size > 0 ? a.block_size : kCctraceDefaultBlockSize;
  std::vector<AnthropicCall> calls;
  AnthropicReadStats read_stats;
  Status st = ReadAnthropicCalls(opened->stream.get(), opened->detection, config, &ctx, &calls,
                                 &read_stats);
  if (!st.ok()) {
    return st;
  }
  if (calls.empty() && read_stats.rows > 0) {
    return Status::InvalidArgument(
        fmt::format("{}: no request could be read ({} rows: {} skipped, {} failed, {} "
                    "ignored{}{}); nothing was written",
                    name, read_stats.rows, skips.total(), read_stats.filtered_status,
                    read_stats.ignored, skips.total() ? "; first skip: " : "",
                    skips.total() ? skips.by_reason().begin()->first : ""));
  }

  CctraceExportOptions opts;
  opts.block_size = config.block_size;
  opts.split_at_gap_s = c.split_at_gap;
  opts.include_subagents = c.include_subagents;
  opts.salt = config.salt;
  std::vector<CctraceFile> files;
  CctraceExportStats stats;
  BuildCctraceFiles(std::move(calls), opts, &files, &stats);
  st = WriteCctraceDirectory(a.output, files);
  if (!st.ok()) {
    return st;
  }
  if (read_stats.filtered_status > 0)
    hooks.Warn(fmt::format("{} rows with a non-2xx status were left out",
                           WithCommas(static_cast<int64_t>(read_stats.filtered_status))));
  if (stats.without_session > 0)
    hooks.Warn(fmt::format(
        "{} calls carried no session id; they were grouped by their tools, system and first "
        "message",
        WithCommas(static_cast<int64_t>(stats.without_session))));
  if (read_stats.times.implausible > 0) hooks.Warn(read_stats.times.Message());
  if (stats.untimed > 0)
    hooks.Warn(fmt::format("{} calls had no timestamp; each took the previous call's time",
                           WithCommas(static_cast<int64_t>(stats.untimed))));
  if (!c.include_subagents && stats.subagent_requests > 0)
    hooks.Warn(
        fmt::format("{} sub-agent calls ({} sub-agents) left out; --include-subagents writes them",
                    WithCommas(static_cast<int64_t>(stats.subagent_requests)),
                    WithCommas(static_cast<int64_t>(stats.subagents))));
  CctraceExportResult result;
  result.stats = stats;
  result.block_size = opts.block_size;
  result.too_many_skipped =
      SkipShareMessage(name, skips.total(), read_stats.rows, a.io.max_skip_share, true);
  return result;
}

}  // namespace ltl
