// `llmtrafficlens profile`: read an input, replay it, write report.json / report.html and print
// the terminal summary.
#include <fmt/format.h>

#include <memory>

#include "analyze/analyze_input.h"
#include "cli/commands.h"
#include "cli/fleet_args.h"
#include "cli/input_files.h"
#include "cli/input_options.h"
#include "cli/kv_cache_options.h"
#include "cli/model_files.h"
#include "cli/prefix_text_pass.h"
#include "cli/progress_line.h"
#include "cli/tokenizer_options.h"
#include "common/atomic_file.h"
#include "common/output_path.h"
#include "common/safe_label.h"
#include "common/units.h"
#include "hash/block_interner.h"
#include "ingest/load_input.h"
#include "ingest/merge_inputs.h"
#include "report/report_html.h"
#include "report/report_json.h"
#include "report/terminal_summary.h"
#include "shard/run_inputs.h"
#include "simulate/trace.h"

namespace ltl::cli {
namespace {

struct ProfileArgs {
  std::vector<std::string> inputs;  // FILE...: paths and globs (cli/input_files.h)
  std::string format = "auto";
  std::string output_prefix = "report";
  uint32_t block_size = 0;
  double warmup = 0.5;
  std::string evict_order = "tail-first";
  std::string eviction = "vllm";
  std::string capacity;         // tokens, e.g. 16K,1M
  std::string capacity_blocks;  // blocks
  InputArgs io;                 // limits, skip tolerance, gateway settings (cli/input_options.h)
  bool quiet = false;
  size_t show_prefix_text = 0;  // --show-prefix-text N (0 = no prompt text in any output)
  TokenizerArgs tok;            // --tokenizer, --data-dir
  FleetArgs fleet;
  KvCacheArgs kv;            // eviction policies and KV memory (cli/kv_cache_options.h)
  bool warm_prefix = false;  // cache traces: pre-populate tools+system blocks
};

int RunProfile(const ProfileArgs& a) {
  auto format = ParseFormatName(a.format);
  if (!format.ok()) {
    PrintError(format.status().message());
    return kExitUnusable;
  }
  if (!(a.warmup >= 0 && a.warmup < 1)) {
    PrintError("--warmup must be in [0, 1)");
    return kExitUnusable;
  }
  CapacitySpec caps;
  if (!a.capacity.empty()) {
    auto r = ParseSizeList(a.capacity);
    if (!r.ok()) {
      PrintError("--capacity: " + r.status().message());
      return kExitUnusable;
    }
    caps.tokens = *r;
  }
  if (!a.capacity_blocks.empty()) {
    auto r = ParseSizeList(a.capacity_blocks);
    if (!r.ok()) {
      PrintError("--capacity-blocks: " + r.status().message());
      return kExitUnusable;
    }
    caps.blocks = *r;
  }
  if (caps.tokens.empty() && caps.blocks.empty()) caps.tokens = DefaultCapacityTokens();
  auto loaded_models =
      LoadModelFiles(a.io.chat_template, a.io.model_dirs, !a.tok.tokenizer.empty());
  if (!loaded_models.ok()) {
    PrintError(loaded_models.status().message());
    return kExitUnusable;
  }
  LoadedModelFiles model_files = std::move(loaded_models).value();
  // --model-dir DIR's config.json gives the KV bytes per token unless the user said otherwise.
  KvCacheArgs kv_args = a.kv;
  if (!model_files.kv_config.empty() && kv_args.model.empty() && kv_args.model_config.empty() &&
      kv_args.kv_bytes_per_token == 0)
    kv_args.model_config = model_files.kv_config;
  auto kv_request = ResolveKvCacheArgs(kv_args);
  if (!kv_request.ok()) {
    PrintError(kv_request.status().message());
    return kExitUnusable;
  }
  KvCacheArgs tier_args = a.kv;
  tier_args.decode_rate = a.fleet.decode_rate;  // one --decode-rate for the load and time models
  auto tiers_request = ResolveTiersArgs(tier_args, *kv_request);
  if (!tiers_request.ok()) {
    PrintError(tiers_request.status().message());
    return kExitUnusable;
  }
  if (Status fst = CheckFleetArgs(a.fleet, kv_request->memory); !fst.ok()) {
    PrintError(fst.message());
    return kExitUnusable;
  }
  // The outputs are checked before any work: a run never ends by refusing its -o.
  if (a.output_prefix == "-") {
    PrintError(ResolveOutputPath("-", /*allow_stream=*/false).status().message());
    return kExitUnusable;
  }
  const std::string prefix = ReportPrefix(a.output_prefix);
  auto json_out = ResolveOutputPath(prefix + ".json", /*allow_stream=*/false);
  auto html_out = ResolveOutputPath(prefix + ".html", /*allow_stream=*/false);
  for (const auto* out : {&json_out, &html_out})
    if (!out->ok()) {
      PrintError(out->status().message());
      return kExitUnusable;
    }

  auto inputs = ExpandInputs(a.inputs);
  if (!inputs.ok()) {
    PrintError(inputs.status().message());
    return kExitUnusable;
  }
  if (a.show_prefix_text > 0 && inputs->size() > 1) {
    PrintError("--show-prefix-text reads one file: give one input (or profile each file)");
    return kExitUnusable;
  }
  SkipCounter skips;
  ReadContext ctx;
  ctx.name = RunInputName(*inputs);
  ctx.block_size = a.block_size;
  ctx.skips = &skips;
  ApplyInputArgs(a.io, &ctx);
  ctx.cctrace_warm_prefix = a.warm_prefix;
  auto loaded_tokenizer = LoadCachedTokenizer(a.tok);
  if (!loaded_tokenizer.ok()) {
    PrintError(loaded_tokenizer.status().message());
    return kExitUnusable;
  }
  std::unique_ptr<Tokenizer> tokenizer = std::move(loaded_tokenizer).value();
  ctx.gateway.tokenizer = tokenizer.get();
  ctx.gateway.models = model_files.models;
  ctx.threads = a.kv.threads;  // 0 = all cores
  BlockInterner interner;      // block ids leave the records as they are read
  ctx.interner = &interner;
  ctx.warn = [](const std::string& m) { PrintWarning(m); };
  ProgressLine progress(ProgressLine::Wanted(a.quiet), ctx.name);
  ctx.progress = [&progress](uint64_t bytes, uint64_t total) { progress.Update(bytes, total); };
  ctx.warn = [&progress](const std::string& m) {
    progress.Finish();  // a warning takes its own line, the progress line is redrawn after it
    PrintWarning(m);
  };
  auto loaded = LoadRunInputs(*inputs, *format, &ctx);
  progress.Finish();
  if (!loaded.ok()) {
    PrintError(loaded.status().message());
    return kExitUnusable;
  }
  LoadedInput& in = loaded->input;
  if (RealRecordCount(in) == 0) {  // nothing to measure: say why, write nothing
    PrintError(NoRequestsMessage(ctx.name, in, skips));
    return kExitUnusable;
  }
  if (tokenizer && !in.gateway) {
    PrintWarning(fmt::format("--tokenizer has no effect on {} input: hashed traces carry no text",
                             FormatName(in.format)));
  }
  if (!model_files.models.empty() && !in.gateway) {
    PrintWarning(fmt::format(
        "--chat-template and --model-dir have no effect on {} input: hashed traces carry no text",
        FormatName(in.format)));
  }

  AnalyzeOptions analyze;
  analyze.input_name = ctx.name;
  analyze.replay.warmup = a.warmup;
  analyze.replay.order =
      a.evict_order == "head-first" ? EvictOrder::kHeadFirst : EvictOrder::kTailFirst;
  analyze.replay.lru = a.eviction == "sglang" ? LruEngine::kSglang : LruEngine::kVllm;
  analyze.capacities = caps;
  analyze.kv_cache = *kv_request;
  analyze.tiers = *tiers_request;
  analyze.warm_prefix = a.warm_prefix;
  analyze.tokenizer = loaded->tokenizer;  // --tokenizer, or the one the shards were cut with
  Trace trace = BuildTrace(in.records, std::move(interner));
  analyze.fleet = ResolveFleetOptions(a.fleet, trace.block_size, caps, kv_request->memory);
  Profile p = AnalyzeInput(in, trace, skips, analyze);
  if (a.show_prefix_text > 0) {
    if (!in.gateway) {
      PrintWarning(fmt::format("--show-prefix-text: {} is a hashed trace and holds no prompt text",
                               ctx.name));
    } else if (loaded->shards > 0) {
      PrintWarning("--show-prefix-text: a hashed shard holds no prompt text");
    } else if (inputs->front().path == "-") {
      PrintWarning("--show-prefix-text needs a file: standard input cannot be read a second time");
    } else {
      Status text_st = FillPrefixText(inputs->front().path, in.format, ctx, p.block_size,
                                      a.show_prefix_text, &p.leaderboards);
      if (!text_st.ok()) {
        PrintError(text_st.message());
        return kExitUnusable;
      }
    }
  }

  if (tokenizer) {
    // A split pattern that ran into its PCRE2 limits tokenized some text unlike the reference:
    // no report rather than a wrong one.
    Status enc = tokenizer->EncodeStatus();
    if (!enc.ok()) {
      PrintError(enc.message());
      return kExitUnusable;
    }
  }

  const std::string json_path = prefix + ".json";
  const std::string html_path = prefix + ".html";
  // Both are renamed only when both are complete, report.json last (common/output_path.h).
  Status st = WriteFilesTogether(
      {{html_out->path, RenderReportHtml(p)}, {json_out->path, RenderReportJson(p)}});
  if (!st.ok()) {
    PrintError(st.message());
    return kExitUnusable;
  }
  std::string summary = RenderTerminalSummary(p);
  // The paths are the user's, but a path can hold control characters: printed escaped, like
  // every message line (common/safe_label.h).
  summary +=
      fmt::format("\nwrote {}, {}\n", EscapeForTerminal(json_path), EscapeForTerminal(html_path));
  PrintOutput(summary);

  if (p.rows_read == 0) return kExitOk;
  double skip_share = static_cast<double>(skips.total()) / static_cast<double>(p.rows_read);
  if (skip_share > a.io.max_skip_share) {
    PrintError(fmt::format("{}: {} of {} rows skipped ({}), above --max-skip-share {}", ctx.name,
                           skips.total(), p.rows_read, Percent(skip_share), a.io.max_skip_share));
    return kExitTooManySkipped;
  }
  return kExitOk;
}

}  // namespace

void RegisterProfile(CLI::App& app, CommandRegistry& registry) {
  auto args = std::make_shared<ProfileArgs>();
  CLI::App* cmd =
      app.add_subcommand("profile", "Measure prefix-cache reuse of a gateway log or hashed trace");
  cmd->add_option("FILE", args->inputs,
                  "Input files (plain, .gz or .zst; globs are expanded; several files are merged "
                  "by time into one report) or hashed shards (hash-shard), - for stdin, or a "
                  "directory of cctrace files")
      ->required();
  cmd->add_option("--format", args->format,
                  "Input format: auto, mooncake, bailian, cctrace, csv, jsonl (default: detected "
                  "from content)");
  cmd->add_option("-o,--output", args->output_prefix,
                  "Output prefix: writes PREFIX.json and PREFIX.html (default: report)");
  cmd->add_option("--block-size", args->block_size,
                  "Tokens per block (default: mooncake 512, bailian 16, gateway logs 16); a "
                  "record's own block_size wins");
  cmd->add_option("--warmup", args->warmup,
                  "Share of requests that only fill the cache (default 0.5; 0 = cold start)");
  cmd->add_option("--evict-order", args->evict_order,
                  "Order a request touches its blocks: tail-first (vLLM, default) or head-first")
      ->check(CLI::IsMember({"tail-first", "head-first"}));
  cmd->add_option("--eviction", args->eviction,
                  "Which LRU the curve, knee and the lru policy follow: vllm (flat block LRU, "
                  "default) or sglang (SGLang's radix-tree LRU, one replay per capacity)")
      ->check(CLI::IsMember({"vllm", "sglang"}));
  cmd->add_option("--capacity", args->capacity,
                  "Cache sizes in tokens, comma-separated (binary K/M/G; default "
                  "16K,64K,256K,1M,4M,16M)");
  cmd->add_option("--capacity-blocks", args->capacity_blocks,
                  "Cache sizes in blocks, comma-separated");
  AddInputOptions(cmd, &args->io, "");
  cmd->add_flag("--warm-prefix", args->warm_prefix,
                "Cache traces: start each conversation and sub-agent with its first "
                "(tool_tokens + system_tokens) // block_size blocks cached (the shared prefix is "
                "warm at the provider)");
  cmd->add_option("--show-prefix-text", args->show_prefix_text,
                  "Gateway logs: add the first N characters of each top prefix to the reports "
                  "(opt-in: prompt text is otherwise never written; reads the log a second time)");
  AddTokenizerOptions(cmd, &args->tok);
  cmd->add_flag("-q,--quiet", args->quiet, "No progress line on stderr");
  AddFleetOptions(cmd, &args->fleet);
  AddKvCacheOptions(cmd, &args->kv);
  cmd->callback([args, &registry] { registry.Set([args] { return RunProfile(*args); }); });
}

}  // namespace ltl::cli
