// `llmtrafficlens hash-shard FILE -o OUT.ltlshard`: read one log or hashed trace and write its
// hashed shard (shard/shard.h): the text-free records with their salted block ids, the gateway
// post-pass input and the file's counts. `profile SHARD...` replays shards (with or without logs)
// into the report `profile FILE...` gives on the same files. The run is pipeline/hash_shard_run.h.
#include <fmt/format.h>

#include <memory>

#include "cli/commands.h"
#include "cli/input_options.h"
#include "cli/progress_line.h"
#include "cli/tokenizer_options.h"
#include "common/output_path.h"
#include "common/units.h"
#include "pipeline/hash_shard_run.h"

namespace ltl::cli {
namespace {

struct HashShardArgs {
  std::string input;
  std::string output;
  std::string format = "auto";
  uint32_t block_size = 0;
  unsigned threads = 0;  // 0 = all cores
  InputArgs io;
  TokenizerArgs tok;
  bool quiet = false;
};

Result<HashShardSpec> ToSpec(const HashShardArgs& a) {
  auto format = ParseFormatName(a.format);
  if (!format.ok()) return format.status();
  HashShardSpec spec;
  spec.read.inputs = {a.input};
  spec.read.format = *format;
  spec.read.block_size = a.block_size;
  spec.read.threads = a.threads;
  spec.read.io = a.io;
  spec.read.tok = a.tok;
  spec.output = a.output;
  return spec;
}

int RunHashShard(const HashShardArgs& a) {
  auto spec = ToSpec(a);
  if (!spec.ok()) {
    PrintError(spec.status().message());
    return kExitUnusable;
  }
  if (a.output.empty()) {  // the run would keep the shard in memory only
    PrintError(ResolveOutputPath("", /*allow_stream=*/false).status().message());
    return kExitUnusable;
  }
  std::unique_ptr<ProgressLine> progress;
  const RunHooks hooks = ProgressHooks(a.quiet, &progress);
  auto result = HashShardRun(std::move(spec).value(), hooks);
  if (progress) progress->Finish();
  if (!result.ok()) {
    PrintError(result.status().message());
    return kExitUnusable;
  }
  if (!a.quiet)
    std::fputs(fmt::format("hashed {} requests of {} into {} ({} bytes{})\n",
                           WithCommas(static_cast<int64_t>(RealRecordCount(result->shard.input))),
                           result->name, result->output_path,
                           WithCommas(static_cast<int64_t>(result->bytes_written)),
                           result->skipped ? fmt::format(", {} rows skipped", result->skipped) : "")
                   .c_str(),
               stdout);
  if (!result->too_many_skipped.empty()) {
    PrintError(result->too_many_skipped);
    return kExitTooManySkipped;
  }
  return kExitOk;
}

}  // namespace

void RegisterHashShard(CLI::App& app, CommandRegistry& registry) {
  auto args = std::make_shared<HashShardArgs>();
  CLI::App* cmd = app.add_subcommand(
      "hash-shard",
      "Hash one log or trace into a shard (text-free: salted block ids, lengths, times, "
      "conversation keys) that `profile SHARD...` replays with the shards of other files");
  cmd->add_option("FILE", args->input, "Input file (plain, .gz or .zst), or - for stdin")
      ->required();
  cmd->add_option("-o,--output", args->output, "The shard file to write (e.g. a.ltlshard)")
      ->required();
  cmd->add_option("--format", args->format,
                  "Input format: auto, mooncake, bailian, csv, jsonl (default: detected)");
  cmd->add_option("--block-size", args->block_size,
                  "Tokens per block (default: mooncake 512, bailian 16, gateway logs 16); every "
                  "shard of one replay must use the same");
  cmd->add_option("--threads", args->threads,
                  "Gateway logs: threads that parse, render and hash rows (default: all cores; "
                  "the shard is the same for every value)");
  AddInputOptions(cmd, &args->io,
                  "; every shard replayed together must be hashed with the same salt file");
  AddTokenizerOptions(cmd, &args->tok);
  cmd->add_flag("-q,--quiet", args->quiet, "No progress line or summary line");
  cmd->callback([args, &registry] {
    registry.Set([args] { return RunHashShard(*args); });
    registry.SetSpec([args]() -> Result<CommandSpec> {
      auto spec = ToSpec(*args);
      if (!spec.ok()) return spec.status();
      CommandSpec c;
      c.hash_shard = std::move(spec).value();
      return c;
    });
  });
}

}  // namespace ltl::cli
