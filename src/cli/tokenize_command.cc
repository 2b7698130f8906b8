// `llmtrafficlens tokenize`: prints the token ids of each input line (space-separated, one output
// line per input line, the line's '\n' not included) so users can check block boundaries. With
// --null-data the input records are NUL-separated instead, so texts may contain newlines. With
// --chat-template each record is a request body, rendered by that template first (as `profile`
// renders it); --text prints the rendered text instead of ids. --model-dir DIR takes both the
// template and the tokenizer.json from a Hugging Face model folder, as profile's --model-dir does.
// The run itself is pipeline/tokenize_run.h.
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "pipeline/tokenize_run.h"

namespace ltl::cli {
namespace {

int RunTokenize(const TokenizeSpec& spec) {
  TokenizeOutput out;
  out.write = [](std::string_view bytes) { std::fwrite(bytes.data(), 1, bytes.size(), stdout); };
  out.flush = [] {
    return std::fflush(stdout) != 0 ? Status::IoError("cannot write standard output")
                                    : Status::Ok();
  };
  RunHooks hooks;
  hooks.warn = [](const std::string& m) { PrintWarning(m); };
  auto result = TokenizeRun(spec, out, hooks);
  if (!result.ok()) {
    PrintError(result.status().message());
    return kExitUnusable;
  }
  if (!result->refused.empty()) {
    PrintError(result->refused);
    return kExitTooManySkipped;
  }
  return kExitOk;
}

}  // namespace

void RegisterTokenize(CLI::App& app, CommandRegistry& registry) {
  auto args = std::make_shared<TokenizeSpec>();
  CLI::App* cmd = app.add_subcommand(
      "tokenize", "Print the token ids of each input line (space-separated, one line per line)");
  cmd->add_option("--tokenizer", args->tokenizer,
                  "cl100k_base, o200k_base, a .tiktoken ranks file or a Hugging Face "
                  "tokenizer.json (required unless --chat-template with --text)");
  cmd->add_option("--chat-template", args->chat_template,
                  "Each input record is a request body (OpenAI chat or Anthropic Messages JSON): "
                  "render it with this chat template (a .jinja file or a tokenizer_config.json) as "
                  "profile does, then tokenize the rendered text");
  cmd->add_option("--model-dir", args->model_dir,
                  "Each input record is a request body: render it with this Hugging Face model "
                  "folder's template (chat_template.jinja, else tokenizer_config.json) and "
                  "tokenize it with its tokenizer.json, as profile --model-dir does");
  cmd->add_flag("--text", args->text,
                "With --chat-template or --model-dir: print each rendered text (followed by a "
                "newline, or a NUL "
                "with -z) instead of its ids");
  cmd->add_option(
         "--now", args->now,
         "With --chat-template or --model-dir: the time strftime_now formats, in Unix seconds "
         "(default: the clock; profile uses each request's own timestamp)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("FILE", args->input, "Input text (plain, .gz or .zst), or - for stdin (default)");
  cmd->add_option("--data-dir", args->data_dir,
                  "Where cl100k_base / o200k_base vocabularies are installed (default: the "
                  "build's data directory, filled by scripts/fetch-vocab.sh)");
  cmd->add_flag("-z,--null-data", args->null_data,
                "Input records are separated by NUL bytes instead of newlines");
  cmd->add_flag("--cache", args->cache,
                "Encode through the per-segment token cache (same ids; for checking it)");
  cmd->add_option("--cache-min-segment", args->cache_min_segment,
                  "With --cache: shortest segment in bytes (default 256; 1 cuts at every newline "
                  "the cache may cut at, for checking that cutting there is exact)");
  cmd->add_flag("--count", args->count, "Print the number of tokens per line instead of the ids");
  cmd->add_option("--max-line-bytes", args->max_line_bytes,
                  "Longest input line accepted (default 256 MiB)");
  cmd->callback([args, &registry] { registry.Set([args] { return RunTokenize(*args); }); });
}

}  // namespace ltl::cli
