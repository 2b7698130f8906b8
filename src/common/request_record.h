// RequestRecord: what the read stage hands to the simulator, whatever the input format was.
// It carries structure only (lengths, times, chained block ids, anonymous keys): no prompt text.
#pragma once

#include <cstdint>
#include <memory>
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
  uint8_t kind = 0;            // SegmentKind (common/segment_map.h)
  uint8_t role = 0;            // SegmentRole
};

// One tool definition of the request body, in body order. 8 bytes.
struct ToolFact {
  uint32_t name_digest = 0;        // salted digest of the tool's name
  uint32_t definition_digest = 0;  // of its definition (canonical JSON, no cache_control)
};

class FactsStore;  // common/facts_store.h

// A record's facts kept in a FactsStore: the store (shared by the records of one read) and the
// record's entry in it.
struct SharedFacts {
  std::shared_ptr<const FactsStore> store;
  uint32_t entry = 0;
};

// What the cache-busters analysis knows of a gateway request's prompt: positions, categories and
// keyed digests only. Empty for hashed traces. A request is read into the lists; the read then
// moves them into its FactsStore (ingest/facts_sharer.h), which keeps the segments a conversation
// repeats once: `segments` and `tools` are then empty and `shared` says where they are. Readers
// take the lists with ReadFacts (common/facts_store.h), which gives them either way.
struct PromptFacts {
  std::vector<SegmentFact> segments;  // in rendered order, covering the whole prompt
  std::vector<ToolFact> tools;
  int32_t cache_control = -1;  // message index of the last cache_control marker; -1 none, -2 the
                               // tools or top-level system
  SharedFacts shared;
  bool empty() const {
    return segments.empty() && tools.empty() && cache_control == -1 && !shared.store;
  }
  // The bytes of the lists held here.
  size_t bytes() const {
    return segments.capacity() * sizeof(SegmentFact) + tools.capacity() * sizeof(ToolFact);
  }
};
// What a record's own lists and position took besides the lists' bytes (two vectors and the
// position), as report.json's facts_bytes_per_request counts them (docs/FORMATS.md).
inline constexpr size_t kPlainFactsHeaderBytes = 56;

// What a hosted provider's prompt cache needs of a request (simulate/provider_cache.h), and what
// the log says that provider did. Keyed digests and token positions only, never text.
struct ProviderBlock {
  uint64_t prefix = 0;     // keyed digest of the body's blocks tools -> system -> messages so far
  uint32_t tokens = 0;     // prompt tokens through this block
  uint8_t breakpoint = 0;  // cache_control on this block: 0 none, 1 "5m", 2 "1h"
};

// Why a row's cache usage could not be used as an observation (the row stays in the replay).
enum class BadObservation : uint8_t {
  kNone,
  kCachedTokens,       // usage.prompt_tokens_details.cached_tokens
  kInputCachedTokens,  // usage.input_tokens_details.cached_tokens (Responses API)
  kCacheRead,          // usage.cache_read_input_tokens
  kCacheCreation,      // usage.cache_creation_input_tokens
  kCacheCreation1h,    // usage.cache_creation.ephemeral_1h_input_tokens
  kAbovePrompt,        // cache tokens above the prompt's
};
inline constexpr uint8_t kBadObservationCodes = 7;
inline const char* BadObservationReason(BadObservation b) {
  switch (b) {
    case BadObservation::kNone:
      return "";
    case BadObservation::kCachedTokens:
      return "usage.prompt_tokens_details.cached_tokens is not a non-negative integer";
    case BadObservation::kInputCachedTokens:
      return "usage.input_tokens_details.cached_tokens is not a non-negative integer";
    case BadObservation::kCacheRead:
      return "usage.cache_read_input_tokens is not a non-negative integer";
    case BadObservation::kCacheCreation:
      return "usage.cache_creation_input_tokens is not a non-negative integer";
    case BadObservation::kCacheCreation1h:
      return "usage.cache_creation.ephemeral_1h_input_tokens is not a non-negative integer";
    case BadObservation::kAbovePrompt:
      return "cache tokens reported above the prompt's";
  }
  return "";
}

struct ProviderFacts {
  uint64_t cache_key = 0;      // keyed digest of OpenAI's prompt_cache_key (0 = none sent)
  bool retention_24h = false;  // OpenAI "prompt_cache_retention": "24h"
  uint8_t automatic = 0;       // Anthropic top-level cache_control: 0 none, 1 "5m", 2 "1h"
  // Anthropic content blocks (each tool, system block and message content block) in prefix order;
  // filled only when the body carries a cache_control marker (without one nothing is cached).
  std::vector<ProviderBlock> blocks;
  // Cache traces: the trace's tool_tokens + system_tokens, where Claude Code's system breakpoint
  // sits (the provider model puts breakpoints there and at each prompt's end).
  uint32_t shared_prefix_tokens = 0;
  // Observed by the provider, as the row's usage reports it (-1 = not reported).
  int64_t observed_write = -1;     // Anthropic cache_creation_input_tokens
  int64_t observed_write_1h = -1;  // of which with the 1-hour TTL (cache_creation.ephemeral_1h_...)
  BadObservation bad_observation = BadObservation::kNone;
  size_t bytes() const { return blocks.capacity() * sizeof(ProviderBlock); }
};

// What the named routers see of a request (simulate/routing_policy.h, docs/FLEET.md "Named
// routers"): each router's own view, computed in the ingest stage from the prompt text and kept as
// keyed digests only, as block ids are. Filled only when a named router is asked
// (GatewayOptions::router_views, ingest/ingest_context.h); `text` false = no prompt text (hashed
// traces, shards): routers whose view is text route on block ids there.
// vllm-router-prefix's chunk size in characters (production-stack's HashTrie default).
inline constexpr size_t kVllmRouterChunkChars = 128;

// The views ingest computes, a bit set (RoutingPolicy::view_kinds(), GatewayOptions::router_views):
// each only when a router that reads it is asked for.
enum RouterViewKind : uint32_t {
  kViewSession = 1,       // the session digest (vllm-router-session)
  kViewChunks128 = 2,     // vllm-router-prefix's chunks
  kViewCodePoints = 4,    // sglang-cache-aware's code points
  kViewAibrixBlocks = 8,  // aibrix-prefix's byte blocks (GatewayOptions::aibrix_block_bytes)
  kViewLlmdBlocks = 16,   // llm-d-prefix's 64-byte chunks of the JSON-marshalled messages
};

struct RouterView {
  bool text = false;
  // vllm-router-prefix: chained keyed digests of the 128-code-point chunks (the last one partial)
  // of the message contents joined with "\n" (ingest/router_view.h).
  std::vector<uint64_t> chunks128;
  // sglang-cache-aware: one chained keyed digest per code point of the text SMG routes on (the
  // non-empty contents and reasoning joined with single spaces, ingest/router_view.h).
  std::vector<uint64_t> code_points;
  uint64_t session = 0;  // keyed digest of the logged session id (0 = none)
  // aibrix-prefix: chained keyed digests of the full blocks of GatewayOptions::aibrix_block_bytes
  // bytes of the message AIBrix routes on (ingest/router_view.h); empty unless it is asked.
  std::vector<uint64_t> aibrix_blocks;
  // llm-d-prefix: chained keyed digests of the 64-byte chunks (the last one partial) of the
  // messages as the scheduler marshals them (ingest/router_view.h); empty unless it is asked.
  std::vector<uint64_t> llmd_blocks;
  size_t bytes() const {
    return (chunks128.capacity() + code_points.capacity() + aibrix_blocks.capacity() +
            llmd_blocks.capacity()) *
           sizeof(uint64_t);
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
  // Seconds the request was in flight as the log timed it (ReadContext::durations only): end -
  // start, else the logged latency; -1 = unknown or bad. bad_duration: the log's timing was
  // negative or longer than a day (the load model stands in; docs/SEMANTICS.md "Load in time").
  double duration_s = -1;
  bool bad_duration = false;
  int turn = 0;  // 1-based turn within the conversation, 0 = unknown
  // Gateway extras (0 / -1 when unknown).
  int64_t provider_cached_tokens = -1;  // cache hits the provider reported, -1 unknown
  bool exact_counts = false;            // counts came from usage rather than an estimate
  uint64_t tools_digest = 0;    // digest of the tool set (0 = none), for tool-churn findings
  bool truncated_body = false;  // the gateway truncated the body (e.g. litellm_truncated)
  PromptFacts facts;            // gateway logs: segments and tools (cache busters)
  ProviderFacts provider;       // gateway logs: what a provider's prompt cache needs and did
  RouterView view;              // gateway logs, when a named router is asked
  uint32_t file = 0;            // index of the input file the record came from (run order)
  // Cache traces (cctrace) only.
  bool subagent = false;     // a sub-agent's request (its own isolated cache namespace)
  bool replay_only = false;  // not a request: pre-populates the cache (--warm-prefix); never
                             // measured or counted, only its blocks are touched
};

}  // namespace ltl
