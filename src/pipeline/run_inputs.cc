// LoadRunInputs (see run_inputs.h).
#include "pipeline/run_inputs.h"

#include <optional>

#include "hash/salt_file.h"
#include "ingest/gateway_readers.h"
#include "shard/shard_codec.h"
#include "tokenize/tokenizer.h"

namespace ltl {

Result<RunInputs> LoadRunInputs(const std::vector<InputName>& inputs, std::vector<Shard> memory,
                                InputFormat format, IngestContext* ctx, const ShardStream* stream) {
  RunInputs run;
  std::vector<Shard> parts;  // logs read here become shards (without ids when interned already)
  parts.reserve(inputs.size() + memory.size());
  const std::string own_tokenizer = ctx->gateway.tokenizer ? ctx->gateway.tokenizer->name() : "";
  std::optional<uint64_t> salt_check;  // the run's salt, loaded once (at the first gateway log)
  auto intern = [ctx](Shard* part) {
    if (ctx->interner)
      InternShard(part, ctx->interner);  // interned now, in input order
    else
      RestoreSharedIds(part);  // ids kept in the records: whole
  };
  // The gateway reads' workers, kept from one file to the next and freed once after the last
  // (ingest/gateway_readers.h): built and freed per file they cost ~0.1 s a file.
  GatewayReadState read_state;
  for (const InputName& input : inputs) {
    IngestContext file_ctx = *ctx;
    file_ctx.read_state = &read_state;
    SkipCounter skips;
    file_ctx.name = input.name;
    file_ctx.skips = &skips;
    file_ctx.gateway.defer_post_pass = true;
    Shard part;
    if (input.path != "-" && IsShardFile(input.path)) {
      auto shard = ReadShardFile(input.path, /*leave_shared_ids=*/true);  // intern() next
      if (!shard.ok()) return shard.status();
      part = std::move(shard).value();
      part.origin = input.name;
      intern(&part);
      ++run.shards;
    } else {
      auto loaded = LoadInput(input.path, format, &file_ctx);
      if (!loaded.ok()) return loaded.status();
      part.input = std::move(loaded).value();
      if (part.input.gateway) {
        part.tokenizer = own_tokenizer;
        part.template_name = ctx->gateway.template_name;
        if (!salt_check) {
          auto salt = LoadOrCreateSalt(ctx->gateway.salt_file);
          if (!salt.ok()) return salt.status();
          salt_check = SaltCheck(salt->key);
        }
        part.salt_check = *salt_check;
      }
    }
    if (part.origin.empty()) part.origin = input.name;
    parts.push_back(std::move(part));
  }
  read_state.Release();
  for (Shard& part : memory) {
    intern(&part);
    ++run.shards;
    parts.push_back(std::move(part));
  }
  while (stream && stream->pull) {
    std::optional<Shard> part;
    if (Status st = stream->pull(&part); !st.ok()) return st;
    if (!part) break;
    intern(&*part);
    ++run.shards;
    parts.push_back(std::move(*part));
  }
  for (const Shard& part : parts)
    for (const InputFileSummary& f : part.input.files)
      if (ctx->skips) ctx->skips->Merge(f.skipped);
  if (!parts.empty()) run.tokenizer = parts.front().tokenizer;
  // Every id is interned already (or kept in the records): MergeShards only checks and merges.
  auto merged = MergeShards(std::move(parts), nullptr);
  if (!merged.ok()) return merged.status();
  run.input = std::move(merged).value();
  return run;
}

}  // namespace ltl
