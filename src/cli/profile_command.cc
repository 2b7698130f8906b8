// `llmtrafficlens profile`: the options (parsed into a ProfileSpec), the run
// (pipeline/profile_run.h: read, replay, write report.json / report.html) and the terminal summary.
#include <fmt/format.h>

#include <memory>

#include "cli/commands.h"
#include "cli/engine_args.h"
#include "cli/fleet_args.h"
#include "cli/input_options.h"
#include "cli/kv_cache_options.h"
#include "cli/progress_line.h"
#include "cli/tokenizer_options.h"
#include "common/safe_label.h"
#include "common/units.h"
#include "pipeline/profile_run.h"
#include "report/terminal_summary.h"

namespace ltl::cli {
namespace {

struct ProfileArgs {
  std::vector<std::string> inputs;  // FILE...: paths and globs (pipeline/input_files.h)
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
  EngineSettings engine;           // --engine, --max-num-seqs (cli/engine_args.h)
  KvCacheArgs kv;                  // eviction policies and KV memory (cli/kv_cache_options.h)
  bool warm_prefix = false;        // cache traces: pre-populate tools+system blocks
  double sample_rate = 1;          // --sample-rate (1 = every block)
  uint64_t sample_max_blocks = 0;  // --sample-max-blocks (0 = no cap)
  std::string provider_cache = "auto";
  std::string provider_ttl;  // seconds, or with a unit: 90s, 10m, 1h
  std::string prices;
  std::string requests_out;
};

Result<ProfileSpec> ToSpec(const ProfileArgs& a) {
  ProfileSpec spec;
  auto format = ParseFormatName(a.format);
  if (!format.ok()) return format.status();
  if (!(a.warmup >= 0 && a.warmup < 1))
    return Status::InvalidArgument("--warmup must be in [0, 1)");
  if (!a.capacity.empty()) {
    auto r = ParseSizeList(a.capacity);
    if (!r.ok()) return Status::InvalidArgument("--capacity: " + r.status().message());
    spec.capacities.tokens = *r;
  }
  if (!a.capacity_blocks.empty()) {
    auto r = ParseSizeList(a.capacity_blocks);
    if (!r.ok()) return Status::InvalidArgument("--capacity-blocks: " + r.status().message());
    spec.capacities.blocks = *r;
  }
  spec.read.inputs = a.inputs;
  spec.read.format = *format;
  spec.read.block_size = a.block_size;
  spec.read.io = a.io;
  spec.read.tok = a.tok;
  spec.read.threads = a.kv.threads;  // 0 = all cores
  spec.warmup = a.warmup;
  spec.evict_order =
      a.evict_order == "head-first" ? EvictOrder::kHeadFirst : EvictOrder::kTailFirst;
  spec.lru = a.eviction == "sglang" ? LruEngine::kSglang : LruEngine::kVllm;
  spec.kv = KvCacheSettingsOf(a.kv);
  spec.fleet = a.fleet;
  spec.engine = a.engine;
  spec.warm_prefix = a.warm_prefix;
  spec.show_prefix_text = a.show_prefix_text;
  spec.output_prefix = a.output_prefix;
  spec.sample_rate = a.sample_rate;
  spec.sample_max_blocks = a.sample_max_blocks;
  spec.provider_cache = a.provider_cache;
  if (!a.provider_ttl.empty()) {
    auto ttl = ParseDurationSeconds(a.provider_ttl);
    if (!ttl.ok()) return Status::InvalidArgument("--provider-ttl: " + ttl.status().message());
    spec.provider_ttl_s = *ttl;
  }
  spec.prices_file = a.prices;
  if (!a.requests_out.empty()) spec.requests_out = a.requests_out;
  return spec;
}

int RunProfile(const ProfileArgs& a) {
  auto spec = ToSpec(a);
  if (!spec.ok()) {
    PrintError(spec.status().message());
    return kExitUnusable;
  }
  std::unique_ptr<ProgressLine> progress;
  const RunHooks hooks = ProgressHooks(a.quiet, &progress);
  auto result = ProfileRun(std::move(spec).value(), hooks);
  if (progress) progress->Finish();
  if (!result.ok()) {
    PrintError(result.status().message());
    return kExitUnusable;
  }
  std::string summary = RenderTerminalSummary(result->profile);
  // The paths are the user's, but a path can hold control characters: printed escaped, like
  // every message line (common/safe_label.h).
  summary += fmt::format(
      "\nwrote {}, {}{}{}\n", EscapeForTerminal(result->json_path),
      EscapeForTerminal(result->html_path),
      result->requests_path.empty() ? "" : ", " + EscapeForTerminal(result->requests_path),
      result->routes_path.empty() ? "" : ", " + EscapeForTerminal(result->routes_path));
  PrintOutput(summary);
  if (!result->too_many_skipped.empty()) {
    PrintError(result->too_many_skipped);
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
  cmd->add_option("--sample-rate", args->sample_rate,
                  "Replay only the blocks whose salted id falls under this share of the id space "
                  "(SHARDS spatial sampling, 0 < R <= 1; default 1 = every block): memory and "
                  "replay time fall with R, capacities scale by R, and every curve point gets an "
                  "error estimate");
  cmd->add_option("--sample-max-blocks", args->sample_max_blocks,
                  "Cap the kept distinct blocks (fixed-size sampling): the sampling threshold is "
                  "lowered whenever more are kept (0 = no cap)");
  cmd->add_option("--provider-cache", args->provider_cache,
                  "Hosted provider's prompt cache to model: auto (from the models the requests "
                  "name), openai, anthropic, gemini (not modelled: said so), none (default auto)");
  cmd->add_option("--provider-ttl", args->provider_ttl,
                  "What-if: the provider cache's short TTL instead of the documented 5 minutes "
                  "(seconds, or 90s, 10m, 1h)");
  cmd->add_option("--prices", args->prices,
                  "JSON price file overriding or adding models' $/MTok prices (docs/FORMATS.md)");
  cmd->add_option("--requests-out", args->requests_out,
                  "Write one JSON line per replayed request (file, row, tokens, ideal hits, the "
                  "provider model's reads and writes, the observed ones): no text");
  AddTokenizerOptions(cmd, &args->tok);
  cmd->add_flag("-q,--quiet", args->quiet, "No progress line on stderr");
  AddFleetOptions(cmd, &args->fleet);
  AddEngineOptions(cmd, &args->engine);
  AddKvCacheOptions(cmd, &args->kv);
  cmd->callback([args, &registry] {
    registry.Set([args] { return RunProfile(*args); });
    registry.SetSpec([args]() -> Result<CommandSpec> {
      auto spec = ToSpec(*args);
      if (!spec.ok()) return spec.status();
      CommandSpec c;
      c.profile = std::move(spec).value();
      return c;
    });
  });
}

}  // namespace ltl::cli
