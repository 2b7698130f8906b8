// `export --to cctrace` (see export_cctrace.h): read the log, build one trace per conversation,
// write the directory atomically, and say what was found.
#include "cli/export_cctrace.h"

#include <fmt/format.h>

#include <cctype>
#include <cstring>
#include <memory>

#include "cli/commands.h"
#include "common/units.h"
#include "export/anthropic_calls.h"
#include "export/cctrace_export.h"
#include "export/cctrace_hash.h"
#include "export/cctrace_write.h"
#include "ingest/load_input.h"
#include "tokenize/tokenizer.h"

namespace ltl::cli {
namespace {

constexpr uint32_t kCctraceDefaultBlockSize = 64;

}  // namespace

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

int RunExportCctrace(const ExportCommonArgs& a, const CctraceExportArgs& c) {
  auto format = ParseFormatName(a.format);
  if (!format.ok()) {
    PrintError(format.status().message());
    return kExitUnusable;
  }
  if (!(c.split_at_gap >= 0)) {
    PrintError("--split-at-gap must be a number of seconds >= 0");
    return kExitUnusable;
  }
  auto tokenizer = LoadTokenizer("cl100k_base", a.data_dir);
  if (!tokenizer.ok()) {
    PrintError(tokenizer.status().message());
    return kExitUnusable;
  }
  const std::string name = InputDisplayName(a.input);
  SkipCounter skips;
  ReadContext ctx;
  ctx.name = name;
  ctx.skips = &skips;
  ApplyInputSettings(a.io, &ctx);
  ctx.warn = [](const std::string& m) { PrintWarning(m); };
  auto opened = OpenAndDetect(a.input, *format, &ctx);
  if (!opened.ok()) {
    PrintError(opened.status().message());
    return kExitUnusable;
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
    PrintError(st.message());
    return kExitUnusable;
  }
  if (calls.empty() && read_stats.rows > 0) {
    PrintError(
        fmt::format("{}: no request could be read ({} rows: {} skipped, {} failed, {} "
                    "ignored{}{}); nothing was written",
                    name, read_stats.rows, skips.total(), read_stats.filtered_status,
                    read_stats.ignored, skips.total() ? "; first skip: " : "",
                    skips.total() ? skips.by_reason().begin()->first : ""));
    return kExitUnusable;
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
    PrintError(st.message());
    return kExitUnusable;
  }
  if (read_stats.filtered_status > 0)
    PrintWarning(fmt::format("{} rows with a non-2xx status were left out",
                             WithCommas(static_cast<int64_t>(read_stats.filtered_status))));
  if (stats.without_session > 0)
    PrintWarning(fmt::format(
        "{} calls carried no session id; they were grouped by their tools, system and first "
        "message",
        WithCommas(static_cast<int64_t>(stats.without_session))));
  if (read_stats.times.implausible > 0) PrintWarning(read_stats.times.Message());
  if (stats.untimed > 0)
    PrintWarning(fmt::format("{} calls had no timestamp; each took the previous call's time",
                             WithCommas(static_cast<int64_t>(stats.untimed))));
  if (!c.include_subagents && stats.subagent_requests > 0)
    PrintWarning(
        fmt::format("{} sub-agent calls ({} sub-agents) left out; --include-subagents writes them",
                    WithCommas(static_cast<int64_t>(stats.subagent_requests)),
                    WithCommas(static_cast<int64_t>(stats.subagents))));
  if (!a.quiet) {
    std::fputs(
        fmt::format("exported {} conversations ({} files, {} requests, {} sub-agents) to "
                    "{} (cctrace, block size {})\n",
                    WithCommas(static_cast<int64_t>(stats.conversations)),
                    WithCommas(static_cast<int64_t>(stats.files)),
                    WithCommas(static_cast<int64_t>(stats.parent_requests +
                                                    stats.subagent_requests_written)),
                    WithCommas(static_cast<int64_t>(stats.subagents)), a.output, opts.block_size)
            .c_str(),
        stdout);
    std::fflush(stdout);
  }
  if (read_stats.rows == 0) return kExitOk;
  double share = static_cast<double>(skips.total()) / static_cast<double>(read_stats.rows);
  if (share > a.io.max_skip_share) {
    PrintError(fmt::format("{}: {} of {} rows skipped ({}), above --max-skip-share {}", name,
                           skips.total(), read_stats.rows, Percent(share), a.io.max_skip_share));
    return kExitTooManySkipped;
  }
  return kExitOk;
}

}  // namespace ltl::cli
