// Reader for per-conversation cache traces (Claude-Code style, format `cctrace`): one JSON document
// per conversation holding chained block ids, request timing and nested sub-agent conversations.
// A path may be one trace file or a directory of them (read in sorted name order).
//
// Every cache context — a file's parent conversation, and each sub-agent instance inside it — gets
// its own id namespace, so its blocks can never hit another context's (docs/SEMANTICS.md, "Cache
// traces"). Split segments of one conversation (`_s1`, `_s2`, ...) are laid end to end in time;
// different conversations all start at time 0 and interleave by `t`. Bad files and bad requests
// are skipped and counted by reason, with their position (1-based index in `requests`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/request_record.h"
#include "common/status.h"
#include "read/input_stream.h"
#include "read/read_context.h"

namespace ltl {

// One trace file that was read: its records carry `conversation == key`.
struct CctraceConversation {
  std::string key;       // the records' conversation key (anonymous)
  std::string id;        // the file's own `id` field (already anonymous: 12 chars of a uuid)
  std::string file;      // file name as shown to the user
  uint32_t segment = 0;  // N of an `_sN` suffix, 0 when not split
  uint64_t subagents = 0;
};

struct CctraceReadStats {
  uint64_t files = 0;          // trace files that held a usable document
  uint64_t ignored_files = 0;  // directory entries whose name is not *.json, *.json.gz, *.json.zst
  uint64_t subagents = 0;      // sub-agent instances replayed (nested ones included)
  uint64_t warm_blocks = 0;    // blocks pre-populated by --warm-prefix, all contexts together
  uint64_t bytes = 0;          // bytes read from disk
  // Sums of the traces' own `in` / `out` fields (the provider's usage counts).
  int64_t parent_in = 0, parent_out = 0, subagent_in = 0, subagent_out = 0;
  std::vector<CctraceConversation> conversations;  // one per file, in read order
};

struct CctraceOptions {
  // Pre-populate each context's cache with the first (tool_tokens + system_tokens) // block_size
  // blocks of its first request, as replay-only records.
  bool warm_prefix = false;
};

// Reads one trace document from `in` (its display name is ctx->name).
Status ReadCctraceStream(InputStream* in, const CctraceOptions& options, ReadContext* ctx,
                         std::vector<RequestRecord>* out, CctraceReadStats* stats);

// Reads every *.json / *.json.gz / *.json.zst file of directory `dir` (not recursive), in sorted
// name order, as one workload. An entry that cannot be read (symbolic link loop, dangling link,
// open failure, truncated or corrupt compressed data) is skipped and counted under its own reason,
// named by its path; the rest is read.
Status ReadCctraceDirectory(const std::string& dir, const CctraceOptions& options, ReadContext* ctx,
                            std::vector<RequestRecord>* out, CctraceReadStats* stats);

}  // namespace ltl
