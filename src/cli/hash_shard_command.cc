// `llmtrafficlens hash-shard FILE -o OUT.ltlshard`: read one log or hashed trace and write its
// hashed shard (shard/shard.h): the text-free records with their salted block ids, the gateway
// post-pass input and the file's counts. `profile SHARD...` replays shards (with or without logs)
// into the report `profile FILE...` gives on the same files.
#include <fmt/format.h>

#include <memory>

#include "cli/commands.h"
#include "cli/input_files.h"
#include "cli/input_options.h"
#include "cli/model_files.h"
#include "cli/progress_line.h"
#include "cli/tokenizer_options.h"
#include "common/atomic_file.h"
#include "common/output_path.h"
#include "common/units.h"
#include "ingest/load_input.h"
#include "shard/shard.h"
#include "shard/shard_codec.h"

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

int RunHashShard(const HashShardArgs& a) {
  auto format = ParseFormatName(a.format);
  if (!format.ok()) {
    PrintError(format.status().message());
    return kExitUnusable;
  }
  auto out = ResolveOutputPath(a.output, /*allow_stream=*/false);
  if (!out.ok()) {
    PrintError(out.status().message());
    return kExitUnusable;
  }
  auto inputs = ExpandInputs({a.input});
  if (!inputs.ok()) {
    PrintError(inputs.status().message());
    return kExitUnusable;
  }
  if (inputs->size() != 1) {
    PrintError(fmt::format("{}: matches {} files; a shard holds one file (run hash-shard per file)",
                           a.input, inputs->size()));
    return kExitUnusable;
  }
  const InputName& input = inputs->front();
  if (input.path != "-" && IsShardFile(input.path)) {
    PrintError(fmt::format("{}: is a shard already", input.name));
    return kExitUnusable;
  }
  auto loaded_models =
      LoadModelFiles(a.io.chat_template, a.io.model_dirs, !a.tok.tokenizer.empty());
  if (!loaded_models.ok()) {
    PrintError(loaded_models.status().message());
    return kExitUnusable;
  }
  LoadedModelFiles model_files = std::move(loaded_models).value();
  auto loaded_tokenizer = LoadCachedTokenizer(a.tok);
  if (!loaded_tokenizer.ok()) {
    PrintError(loaded_tokenizer.status().message());
    return kExitUnusable;
  }
  std::unique_ptr<Tokenizer> tokenizer = std::move(loaded_tokenizer).value();

  SkipCounter skips;
  ReadContext ctx;
  ctx.name = input.name;
  ctx.block_size = a.block_size;
  ctx.skips = &skips;
  ApplyInputArgs(a.io, &ctx);
  ctx.gateway.tokenizer = tokenizer.get();
  ctx.gateway.models = model_files.models;
  ctx.threads = a.threads;
  ProgressLine progress(ProgressLine::Wanted(a.quiet), ctx.name);
  ctx.progress = [&progress](uint64_t bytes, uint64_t total) { progress.Update(bytes, total); };
  ctx.warn = [&progress](const std::string& m) {
    progress.Finish();
    PrintWarning(m);
  };
  auto shard = HashShard(input.path, *format, &ctx);
  progress.Finish();
  if (!shard.ok()) {
    PrintError(shard.status().message());
    return kExitUnusable;
  }
  if (tokenizer) {
    Status enc = tokenizer->EncodeStatus();  // a split pattern over its PCRE2 limits
    if (!enc.ok()) {
      PrintError(enc.message());
      return kExitUnusable;
    }
  }
  const LoadedInput& in = shard->input;
  if (RealRecordCount(in) == 0) {  // an empty shard would hide a misread file: refuse
    PrintError(NoRequestsMessage(ctx.name, in, skips));
    return kExitUnusable;
  }
  const std::string bytes = EncodeShard(*shard);
  if (Status st = WriteFileAtomically(out->path, bytes); !st.ok()) {
    PrintError(st.message());
    return kExitUnusable;
  }
  const uint64_t rows = in.files.front().rows();
  if (!a.quiet)
    std::fputs(fmt::format("hashed {} requests of {} into {} ({} bytes{})\n",
                           WithCommas(static_cast<int64_t>(RealRecordCount(in))), ctx.name,
                           out->path, WithCommas(static_cast<int64_t>(bytes.size())),
                           skips.total() ? fmt::format(", {} rows skipped", skips.total()) : "")
                   .c_str(),
               stdout);
  if (rows > 0 &&
      static_cast<double>(skips.total()) / static_cast<double>(rows) > a.io.max_skip_share) {
    PrintError(fmt::format("{}: {} of {} rows skipped, above --max-skip-share {}", ctx.name,
                           skips.total(), rows, a.io.max_skip_share));
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
  cmd->callback([args, &registry] { registry.Set([args] { return RunHashShard(*args); }); });
}

}  // namespace ltl::cli
