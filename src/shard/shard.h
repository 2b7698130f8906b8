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

// A record whose first `count` block ids are those of the record `back` records before it in the
// same shard (shard_codec.h, version 6), left out of its block_ids by a decode for interning.
struct SharedIdPrefix {
  uint32_t back = 0;
  uint32_t count = 0;
};

struct Shard {
  LoadedInput input;          // post-pass pending (gateway logs), block ids kept in the records
  std::string tokenizer;      // the --tokenizer that cut gateway prompts ("" = none)
  uint64_t salt_check = 0;    // gateway logs: a keyed digest of a constant (0 = hashed trace), so
                              // shards hashed with different salts are refused together
  std::string template_name;  // gateway logs: the --template layout setting ("" = not known)
  // Not serialised: per record, the ids its block_ids leave out (empty: every record's ids are
  // whole). Only a decode for interning leaves them out (DecodeShard's leave_shared_ids):
  // InternShard takes them from the interner, RestoreSharedIds puts them back.
  std::vector<SharedIdPrefix> id_prefixes;
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

// Interns the shard's records' block ids, in order, into *interner and drops them; ids a record
// shares with an earlier one (id_prefixes) are taken as that record's without a lookup, unless
// the interner samples (then they are put back first).
void InternShard(Shard* shard, BlockInterner* interner);
// Puts the ids id_prefixes left out back into the records' block_ids (in record order, each from
// its reference's whole ids), and clears id_prefixes.
void RestoreSharedIds(Shard* shard);

// The digest stored in Shard::salt_check for a salt key.
uint64_t SaltCheck(const SipKey& key);

}  // namespace ltl
