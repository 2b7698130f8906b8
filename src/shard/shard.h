// Shard: the hashed, text-free result of ingesting one input file — every record (times, lengths,
// chained block ids as the salted hash gave them, before interning; conversation keys, session
// fields, models, tool-set digests, the other RequestRecord facts), the gateway post-pass input
// (conversation links, filler sessions) left for the merge, and the file's read statistics and skip
// counts. Shards are produced anywhere (another process, machine or Dask worker) and replayed
// together: MergeShards + BuildTrace + AnalyzeInput gives the report `profile` gives on the same
// files in one process (docs/SCALE.md). Serialised by shard/shard_codec.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "hash/block_interner.h"
#include "ingest/ingest_context.h"
#include "ingest/load_input.h"

namespace ltl {

struct Shard {
  LoadedInput input;          // post-pass pending (gateway logs), block ids kept in the records
  std::string tokenizer;      // the --tokenizer that cut gateway prompts ("" = none)
  uint64_t salt_check = 0;    // gateway logs: a keyed digest of a constant (0 = hashed trace), so
                              // shards hashed with different salts are refused together
  std::string template_name;  // gateway logs: the --template layout setting ("" = not known)
  // Not serialised: how merge messages name this shard (its file, or the log read directly;
  // "" = the first input file's name).
  std::string origin;
};

// Reads one input file into a shard (the IngestContext carries the gateway settings, the salt file,
// limits, threads; its interner is not used, *ctx->skips is this file's). A cache trace (cctrace)
// is refused: profile it directly.
Result<Shard> HashShard(const std::string& path, InputFormat format, IngestContext* ctx);

// Interns each shard's block ids (in order) into *interner and drops them (null: they are interned
// already), checks that the shards agree (salt, tokenizer and cutting, block size, --template
// layout; a refusal names both shards' files), then merges them as
// MergeInputs does: the returned input and *interner make the Trace (BuildTrace).
//
// The replay of shards, as `profile SHARD...` and the Python binding run it:
//   BlockInterner interner;
//   LoadedInput in = MergeShards(std::move(shards), &interner).value();
//   Trace trace = BuildTrace(in.records, std::move(interner));          // simulate/trace.h
//   Profile p = AnalyzeInput(in, trace, MergedSkips(in), options);      // analyze/analyze_input.h
//   std::string json = RenderReportJson(p);                             // report/report_json.h
Result<LoadedInput> MergeShards(std::vector<Shard> shards, BlockInterner* interner);

// The digest stored in Shard::salt_check for a salt key.
uint64_t SaltCheck(const SipKey& key);

}  // namespace ltl
