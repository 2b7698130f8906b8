// RequestRecord: what the read stage hands to the simulator, whatever the input format was.
// It carries structure only (lengths, times, chained block ids, anonymous keys): no prompt text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ltl {

// One rendered segment of a gateway request's prompt (cache busters, docs/SEMANTICS.md): what part
// of the request it came from, where it starts after cutting, and keyed digests of its text (never
// the text). 16 bytes.
struct SegmentFact {
  uint32_t digest = 0;         // salted SipHash of the segment's text (low 32 bits)
  uint32_t masked_digest = 0;  // the same with volatile substrings (dates, times, ids) masked
  uint32_t token_start = 0;    // first token of the segment (segments are contiguous, in order)
  uint16_t item = 0xffff;      // message index, or tool index for kTools (0xffff = none)
  uint8_t kind = 0;            // SegmentKind (render/chat_template/segment_map.h)
  uint8_t role = 0;            // SegmentRole
};

// One tool definition of the request body, in body order. 8 bytes.
struct ToolFact {
  uint32_t name_digest = 0;        // salted digest of the tool's name
  uint32_t definition_digest = 0;  // of its definition (canonical JSON, no cache_control)
};

// What the cache-busters analysis knows of a gateway request's prompt: positions, categories and
// keyed digests only. Empty for hashed traces.
struct PromptFacts {
  std::vector<SegmentFact> segments;  // in rendered order, covering the whole prompt
  std::vector<ToolFact> tools;
  int32_t cache_control = -1;  // message index of the last cache_control marker; -1 none, -2 the
                               // tools or top-level system
  bool empty() const { return segments.empty() && tools.empty() && cache_control == -1; }
  size_t bytes() const {
    return segments.capacity() * sizeof(SegmentFact) + tools.capacity() * sizeof(ToolFact);
  }
};

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
  PromptFacts facts;            // gateway logs: segments and tools (cache busters)
  // Cache traces (cctrace) only.
  bool subagent = false;     // a sub-agent's request (its own isolated cache namespace)
  bool replay_only = false;  // not a request: pre-populates the cache (--warm-prefix); never
                             // measured or counted, only its blocks are touched
};

}  // namespace ltl
