// ExportTrace: writes RequestRecords as a Mooncake or bailian trace that AIPerf, SGLang and the
// kvcache simulator replay unchanged — replay order, relative or absolute times, conversation links
// (bailian), and export block ids (hash/conform_ids.h), optionally remapped to dense ids. Each line
// holds lengths, times, anonymous chat ids and hash ids only. docs/EXPORT.md is the specification.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "common/request_record.h"
#include "common/status.h"
#include "ingest/ingest_context.h"
#include "read/trace_readers.h"  // the formats' default block sizes

namespace ltl {

enum class ExportTarget { kMooncake, kBailian };

const char* ExportTargetName(ExportTarget t);
Result<ExportTarget> ParseExportTarget(std::string_view name);
// The consumers' defaults: AIPerf's mooncake_trace loader cuts hash ids into 512-token blocks and
// bailian_trace into 16 (the only sizes older AIPerf builds replay; docs/EXPORT.md).
uint32_t DefaultExportBlockSize(ExportTarget t);

struct ExportOptions {
  ExportTarget target = ExportTarget::kMooncake;
  uint32_t block_size = kMooncakeDefaultBlockSize;  // tokens per exported block
  bool dense_ids = false;               // remap ids to 0,1,2,... in order of first appearance
  bool absolute_time = false;           // keep the log's own times instead of "since the first"
  int64_t default_output_length = 256;  // written when a record's output length is unknown
};

struct ExportStats {
  uint64_t written = 0;         // lines written
  uint64_t input_tokens = 0;    // sum of input_length over written lines
  uint64_t distinct_ids = 0;    // distinct hash ids in the export
  uint64_t reblocked = 0;       // records whose ids were coarsened to the export block size
  uint64_t extended = 0;        // records whose id list was extended (usage > estimate)
  uint64_t truncated = 0;       // records whose id list was truncated (usage < estimate)
  uint64_t tails = 0;           // records whose last block is partial (derived tail id)
  uint64_t untimed = 0;         // written records that had no timestamp
  uint64_t default_output = 0;  // records written with default_output_length
  uint64_t conversations = 0;   // bailian: conversations (chains of parent_chat_id)
};

// Writes one line per usable record through `write` (called with chunks of whole lines). Records
// with input_length 0 or without ids are skipped through ctx->Skip. Fails when a record's block
// size does not divide options.block_size, or when a derived tail id collides with a full block's
// id.
Status ExportTrace(const std::vector<RequestRecord>& records, const ExportOptions& options,
                   IngestContext* ctx, const std::function<Status(std::string_view)>& write,
                   ExportStats* stats);

}  // namespace ltl
