// LoadRunInputs: the inputs of one `profile` run, each either a log or trace (read here, its ids
// interned as it is read) or a hashed shard (`hash-shard` output, recognised by its header and
// interned as it is loaded), merged in the order given (ingest/merge_inputs.h). Shards and logs
// mix freely as long as every gateway log was hashed with the same salt and cut the same way.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "ingest/merge_inputs.h"
#include "read/read_context.h"

namespace ltl {

struct RunInputs {
  LoadedInput input;      // merged; its ids are in the ReadContext's interner
  std::string tokenizer;  // the tokenizer that cut the gateway prompts ("" = none)
  size_t shards = 0;      // inputs that were shards
};

// ctx->interner must be set; *ctx->skips receives every input's skips.
Result<RunInputs> LoadRunInputs(const std::vector<InputName>& inputs, InputFormat format,
                                ReadContext* ctx);

}  // namespace ltl
