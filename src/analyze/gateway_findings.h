// GatewayFindings: what a raw gateway log shows beyond the hit-rate curve — the share of requests
// carrying a session identifier (and which fields), tool sets changing mid-conversation, bodies the
// gateway truncated, and the provider-observed cache hit rate beside the predicted one. Computed
// from RequestRecords and the Trace by the analyze stage; report/gateway_findings_render.h renders
// it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/request_record.h"
#include "simulate/trace.h"

namespace ltl {

struct GatewayFindings {
  bool present = false;  // the input was a gateway log (csv, jsonl)
  uint64_t requests = 0;
  uint64_t with_session = 0;                            // requests carrying any session identifier
  std::map<std::string, uint64_t> session_fields;       // field -> requests carrying it
  std::vector<std::string> per_request_session_fields;  // ids that never repeat (ignored)
  // Values of fields the tool fills per request (LiteLLM's session_id, ...) seen on one request
  // only: not sessions (field -> requests).
  std::map<std::string, uint64_t> filler_values_ignored;
  uint64_t ignored_records = 0;  // records of another kind (Langfuse spans, non-LLM OTel spans)
  std::string ignored_reason;
  std::map<std::string, uint64_t> layouts;  // template layout -> requests
  uint64_t conversations = 0;
  uint64_t conversations_from_sessions = 0;  // keyed by a session id; the rest are inferred
  uint64_t multi_request_conversations = 0;  // conversations with at least two requests
  uint64_t tool_change_conversations = 0;    // ... whose tool set changed at least once
  uint64_t max_tool_changes = 0;             // most tool-set changes in one conversation
  uint64_t truncated_bodies = 0;             // bodies the gateway truncated (litellm_truncated)
  uint64_t exact_count_requests = 0;         // token counts from logged usage
  // Provider-observed prompt caching, over the requests whose usage reported cached tokens.
  uint64_t provider_cache_requests = 0;
  int64_t provider_cached_tokens = 0;
  int64_t provider_input_tokens = 0;
  // Our prediction for the same requests: an unbounded cache, replayed from the first request.
  int64_t predicted_hit_tokens = 0;
};

GatewayFindings ComputeGatewayFindings(const std::vector<RequestRecord>& records,
                                       const Trace& trace);

// The findings as one sentence each (listed in report.json "findings", report.html's findings
// section and the terminal); rendering lives in report/gateway_findings_render.h.
std::vector<std::string> GatewayFindingSentences(const GatewayFindings& f);

}  // namespace ltl
