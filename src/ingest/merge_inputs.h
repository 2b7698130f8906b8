// MergeInputs: several input files of one run (rotated logs, mixed compression) as
// one input. Their records are concatenated in file order and replay by time, stably (BuildTrace,
// common/replay_order.h), which is the k-way merge of time-sorted files with ties kept in file
// order, then line order. The gateway post-pass (inferred conversations, filler sessions,
// per-request session fields, turns) runs once over all of them, so a conversation that spans
// files is one conversation; every file keeps its own summary and skip counts (input.files).
// Times are checked and filled per file (ingest/time_check.h), as a shard of that file would be.
#pragma once

#include <vector>

#include "common/skip_counter.h"
#include "common/status.h"
#include "ingest/load_input.h"

namespace ltl {

// Merges inputs read with ctx->gateway.defer_post_pass (or hashed traces), in the order given,
// and runs the gateway post-pass. All must be gateway logs (csv and jsonl may mix), or all the
// same hashed-trace format; a cache trace (cctrace) merges with nothing. Ids already interned stay
// interned (records keep their order, so interner record i is merged record i).
Result<LoadedInput> MergeInputs(std::vector<LoadedInput> parts);

// Every file's skips in one counter (the run's total).
SkipCounter MergedSkips(const LoadedInput& in);

// Adds `from`'s input-wide counts (bytes, filtered, layouts, conformed ids, ignored rows and the
// first reasons) to `into`: what MergeInputs sums over files and the Dask driver over a file's
// pieces (shard/shard.cc), in one place so a new counter is summed by both.
void AddInputCounts(const LoadedInput& from, LoadedInput* into);

}  // namespace ltl
