// --tokenizer / --data-dir (see tokenizer_options.h).
#include "cli/tokenizer_options.h"

#include "tokenize/caching_tokenizer.h"

namespace ltl::cli {

void AddTokenizerOptions(CLI::App* cmd, TokenizerArgs* args) {
  cmd->add_option("--tokenizer", args->tokenizer,
                  "Gateway logs: count and cut blocks with a real tokenizer: cl100k_base, "
                  "o200k_base, a .tiktoken file or a Hugging Face tokenizer.json (default: "
                  "approximate, 4 code points per token)");
  cmd->add_option("--data-dir", args->data_dir,
                  "Where cl100k_base / o200k_base are installed (default: the build's data "
                  "directory, filled by scripts/fetch-vocab.sh)");
}

Result<std::unique_ptr<Tokenizer>> LoadCachedTokenizer(const TokenizerArgs& args) {
  if (args.tokenizer.empty()) return std::unique_ptr<Tokenizer>();
  auto t = LoadTokenizer(args.tokenizer, args.data_dir);
  if (!t.ok()) return Status::InvalidArgument("--tokenizer: " + t.status().message());
  // Conversations resend their history: reuse the ids of segments seen before (exact).
  return std::unique_ptr<Tokenizer>(std::make_unique<CachingTokenizer>(std::move(t).value()));
}

}  // namespace ltl::cli
