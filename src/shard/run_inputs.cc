// LoadRunInputs (see run_inputs.h).
#include "shard/run_inputs.h"

#include <fmt/format.h>

#include "hash/salt_file.h"
#include "shard/shard.h"
#include "shard/shard_codec.h"
#include "tokenize/tokenizer.h"

namespace ltl {

Result<RunInputs> LoadRunInputs(const std::vector<InputName>& inputs, InputFormat format,
                                ReadContext* ctx) {
  RunInputs run;
  std::vector<Shard> parts;  // logs read here become shards without ids (already interned)
  parts.reserve(inputs.size());
  const std::string own_tokenizer = ctx->gateway.tokenizer ? ctx->gateway.tokenizer->name() : "";
  for (const InputName& input : inputs) {
    ReadContext file_ctx = *ctx;
    SkipCounter skips;
    file_ctx.name = input.name;
    file_ctx.skips = &skips;
    file_ctx.gateway.defer_post_pass = true;
    Shard part;
    if (input.path != "-" && IsShardFile(input.path)) {
      auto shard = ReadShardFile(input.path);
      if (!shard.ok()) return shard.status();
      part = std::move(shard).value();
      for (RequestRecord& r : part.input.records) {  // interned now, in input order
        ctx->interner->Add(r.block_ids);
        std::vector<uint64_t>().swap(r.block_ids);
      }
      ++run.shards;
    } else {
      auto loaded = LoadInput(input.path, format, &file_ctx);
      if (!loaded.ok()) return loaded.status();
      part.input = std::move(loaded).value();
      if (part.input.gateway) {
        part.tokenizer = own_tokenizer;
        auto salt = LoadOrCreateSalt(ctx->gateway.salt_file);
        if (!salt.ok()) return salt.status();
        part.salt_check = SaltCheck(salt->key);
      }
    }
    for (const InputFileSummary& f : part.input.files)
      if (ctx->skips) ctx->skips->Merge(f.skipped);
    parts.push_back(std::move(part));
  }
  if (!parts.empty()) run.tokenizer = parts.front().tokenizer;
  // Every id is interned already: MergeShards only checks and merges.
  auto merged = MergeShards(std::move(parts), nullptr);
  if (!merged.ok()) return merged.status();
  run.input = std::move(merged).value();
  return run;
}

}  // namespace ltl
