// BuildCctraceFiles: logged Anthropic calls -> cache-trace documents, one per conversation (or per
// segment when split at long gaps). Calls are grouped by session; within a session, sub-agent
// calls are told from the main thread (their first user message is the prompt of an earlier
// Task/Agent tool_use, or their tools + system differ from the main thread's) and grouped into
// instances by their first message. Every field of the format is filled from the calls
// (docs/FORMATS.md, "Cache traces"); hash ids are numbered per file from 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "export/anthropic_calls.h"

namespace ltl {

struct CctraceExportOptions {
  uint32_t block_size = kCctraceDefaultBlockSize;
  double split_at_gap_s = 0;       // > 0: start a new segment after a longer gap between requests
  bool include_subagents = false;  // write sub-agent entries (otherwise their calls are left out)
  std::string salt;                // for agent ids and ids of conversations without a session
};

struct CctraceFile {
  std::string name;  // file name inside the output directory
  std::string json;
};

struct CctraceExportStats {
  uint64_t conversations = 0;
  uint64_t files = 0;
  uint64_t parent_requests = 0;
  uint64_t subagents = 0;                  // instances found
  uint64_t subagent_requests = 0;          // their calls
  uint64_t subagent_requests_written = 0;  // with --include-subagents
  uint64_t without_session = 0;            // calls grouped by their first message instead
  uint64_t untimed = 0;                    // calls without a timestamp
};

void BuildCctraceFiles(std::vector<AnthropicCall> calls, const CctraceExportOptions& options,
                       std::vector<CctraceFile>* files, CctraceExportStats* stats);

}  // namespace ltl
