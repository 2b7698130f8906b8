// What every run that reads inputs shares: its reading specification (ReadSpec: inputs, format,
// block size, reading settings, tokenizer, threads), the callbacks a front end gives for
// warnings and progress (RunHooks), and RunSetup, which loads the model files and the tokenizer
// once and builds the one IngestContext (skip counter, interner, gateway settings) the loader
// (pipeline/run_inputs.h) reads every input with.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/skip_counter.h"
#include "common/status.h"
#include "hash/block_interner.h"
#include "ingest/ingest_context.h"
#include "ingest/load_input.h"
#include "pipeline/input_files.h"
#include "pipeline/input_settings.h"
#include "pipeline/model_files.h"
#include "shard/shard.h"
#include "tokenize/tokenizer.h"

namespace ltl {

struct TokenizerSpec {
  std::string tokenizer;                        // "" = approximate counting
  std::string data_dir = LTL_DEFAULT_DATA_DIR;  // where cl100k_base / o200k_base live
};

// Loads spec.tokenizer (nullptr when none was asked for) behind a CachingTokenizer (conversations
// resend their history). The error is a printable line starting with "--tokenizer: ".
Result<std::unique_ptr<Tokenizer>> LoadCachedTokenizer(const TokenizerSpec& spec);

// Shards that arrive while the run reads (the Dask driver: one per file, in the files' order, as
// the workers finish them), pulled one at a time after ReadSpec::shards; each is interned as it
// comes and its ids dropped, so the driver merges while the workers still hash.
struct ShardStream {
  std::vector<std::string> names;  // the files they come from, in order (they name the run)
  // Sets *next to the next shard, or leaves it empty after the last; an error ends the run.
  std::function<Status(std::optional<Shard>* next)> pull;
};

struct ReadSpec {
  std::vector<std::string> inputs;  // FILE...: paths, globs, "-", PostgreSQL URIs, shard files
  std::vector<Shard> shards;        // shards already in memory (read after `inputs`)
  ShardStream stream;               // then shards pulled as they arrive (profile only)
  InputFormat format = InputFormat::kAuto;
  uint32_t block_size = 0;  // 0 = the format's default
  InputSettings io;
  TokenizerSpec tok;
  unsigned threads = IngestContext{}.threads;  // as IngestContext: 0 = all cores
};

// A front end's callbacks; each may be empty.
struct RunHooks {
  std::function<void(const std::string&)> warn;        // one warning line (no prefix)
  std::function<void(const std::string&)> read_start;  // reading begins (the run's name)
  std::function<void(uint64_t, uint64_t)> progress;    // bytes read of total (0 = unknown)
  std::function<void()> read_done;                     // the inputs are read (or failed)
  void Warn(const std::string& m) const {
    if (warn) warn(m);
  }
};

// The state of one run: owned here so the IngestContext's pointers stay valid (not movable).
struct RunSetup {
  RunSetup() = default;
  RunSetup(const RunSetup&) = delete;
  RunSetup& operator=(const RunSetup&) = delete;

  // --chat-template / --model-dir of the spec (errors name the option and file).
  Status LoadModels(const ReadSpec& spec);
  // --tokenizer of the spec.
  Status LoadTokenizer(const ReadSpec& spec);
  // The IngestContext over the loaded files: name, block size, skips, reading settings, tokenizer,
  // models, threads, and the hooks' warnings and progress.
  void MakeContext(const std::string& name, const ReadSpec& spec, const RunHooks& hooks);
  // A split pattern that ran into its PCRE2 limits tokenized some text unlike the reference:
  // no output rather than a wrong one.
  Status EncodeStatus() const;
  // "--tokenizer / --chat-template have no effect" on an input without text (hashed traces).
  void WarnTextOptionsUnused(const LoadedInput& in, bool has_text, const RunHooks& hooks) const;

  LoadedModelFiles models;
  std::unique_ptr<Tokenizer> tokenizer;
  SkipCounter skips;
  BlockInterner interner;
  IngestContext ctx;
};

// The --max-skip-share message when more than that share of `rows` was skipped ("" = within).
// `percent`: the share is printed as a percentage too (profile, export).
std::string SkipShareMessage(const std::string& name, uint64_t skipped, uint64_t rows,
                             double max_share, bool percent);

}  // namespace ltl
