// The `--tokenizer` / `--data-dir` options shared by `profile` and `export`, and loading the chosen
// tokenizer wrapped in the segment cache (conversations resend their history).
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "common/status.h"
#include "tokenize/tokenizer.h"

namespace ltl::cli {

struct TokenizerArgs {
  std::string tokenizer;                        // "" = approximate counting
  std::string data_dir = LTL_DEFAULT_DATA_DIR;  // where cl100k_base / o200k_base live
};

void AddTokenizerOptions(CLI::App* cmd, TokenizerArgs* args);

// Loads args.tokenizer (nullptr when none was asked for) behind a CachingTokenizer. The error is a
// printable line starting with "--tokenizer: ".
Result<std::unique_ptr<Tokenizer>> LoadCachedTokenizer(const TokenizerArgs& args);

}  // namespace ltl::cli
