// RequestRecord: what the read stage hands to the simulator, whatever the input format was.
// It carries structure only (lengths, times, chained block ids, anonymous keys): no prompt text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ltl {

struct RequestRecord {
  uint64_t line = 0;      // 1-based line (JSONL) or record number (CSV) in the input
  double time_s = 0;      // seconds; absolute epoch or trace-relative, as the input had it
  bool has_time = false;  // false when the input carried no usable timestamp
  int64_t input_tokens = 0;
  int64_t output_tokens = -1;       // -1 = unknown
  uint32_t block_size = 0;          // tokens per block for this record
  std::vector<uint64_t> block_ids;  // chained block ids, head first
  std::string conversation;         // conversation key ("" = unknown); anonymous, never printed
  std::string session_field;        // which field carried a session id ("" = none)
  std::string model;                // model name ("" = unknown)
  int stream = -1;                  // 1 streaming, 0 not, -1 unknown
  int status_code = 0;              // 0 = unknown
  std::string type = "text";        // text | image | file (what the request carried)
  int turn = 0;                     // 1-based turn within the conversation, 0 = unknown
  // Gateway extras (0 / -1 when unknown).
  int64_t provider_cached_tokens = -1;  // cache hits the provider reported, -1 unknown
  bool exact_counts = false;            // counts came from usage rather than an estimate
  uint64_t tools_digest = 0;    // digest of the tool set (0 = none), for tool-churn findings
  bool truncated_body = false;  // the gateway truncated the body (e.g. litellm_truncated)
  // Cache traces (cctrace) only.
  bool subagent = false;     // a sub-agent's request (its own isolated cache namespace)
  bool replay_only = false;  // not a request: pre-populates the cache (--warm-prefix); never
                             // measured or counted, only its blocks are touched
};

}  // namespace ltl
