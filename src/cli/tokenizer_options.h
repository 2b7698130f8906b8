// The `--tokenizer` / `--data-dir` options shared by `profile`, `export` and `hash-shard`, declared
// on a CLI11 command into the pipeline's TokenizerSpec (pipeline/run_setup.h loads it).
#pragma once

#include <CLI/CLI.hpp>

#include "pipeline/run_setup.h"

namespace ltl::cli {

using TokenizerArgs = TokenizerSpec;  // pipeline/run_setup.h

inline void AddTokenizerOptions(CLI::App* cmd, TokenizerArgs* args) {
  cmd->add_option("--tokenizer", args->tokenizer,
                  "Gateway logs: count and cut blocks with a real tokenizer: cl100k_base, "
                  "o200k_base, a .tiktoken file or a Hugging Face tokenizer.json (default: "
                  "approximate, 4 code points per token)");
  cmd->add_option("--data-dir", args->data_dir,
                  "Where cl100k_base / o200k_base are installed (default: the build's data "
                  "directory, filled by scripts/fetch-vocab.sh)");
}

}  // namespace ltl::cli
