// LoadRunInputs: the one loader of every command's inputs. Each input is a log or trace (read here,
// its ids interned as it is read when the IngestContext has an interner) or a hashed shard (a file
// `hash-shard` wrote, recognised by its header, or a Shard already in memory: the Python API),
// merged in the order given (MergeShards, ingest/merge_inputs.h). Shards and logs mix freely as
// long as every gateway log was hashed with the same salt and cut the same way. Skips are counted
// one way for every command: each file's own counter (InputFileSummary::skipped) into *ctx->skips.
// Internal to src/pipeline/ (tests/build/internal_headers.cmake).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "ingest/ingest_context.h"
#include "ingest/merge_inputs.h"
#include "pipeline/input_files.h"
#include "pipeline/run_setup.h"
#include "shard/shard.h"

namespace ltl {

struct RunInputs {
  LoadedInput input;      // merged; with an interner its ids are there, else in the records
  std::string tokenizer;  // the tokenizer that cut the gateway prompts ("" = none)
  size_t shards = 0;      // inputs that were shards
};

// `inputs` are read first, then `memory` (shards in memory), then the shards `stream` gives (when
// it has a pull function), each in order. With ctx->interner set every record's ids go there as
// each input comes (records keep none); without, records keep their ids.
Result<RunInputs> LoadRunInputs(const std::vector<InputName>& inputs, std::vector<Shard> memory,
                                InputFormat format, IngestContext* ctx,
                                const ShardStream* stream = nullptr);

}  // namespace ltl
