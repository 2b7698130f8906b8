// GatewayFindings (see gateway_findings.h).
#include "analyze/gateway_findings.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "common/units.h"

namespace ltl {

GatewayFindings ComputeGatewayFindings(const std::vector<RequestRecord>& records,
                                       const Trace& trace) {
  GatewayFindings f;
  f.present = true;
  f.requests = records.size();
  for (const RequestRecord& r : records) {
    if (!r.session_field.empty()) {
      ++f.with_session;
      ++f.session_fields[r.session_field];
    }
    f.truncated_bodies += r.truncated_body;
    f.exact_count_requests += r.exact_counts;
  }
  // Conversations in replay (time) order: count tool-set changes between consecutive requests.
  struct Conv {
    uint64_t requests = 0, changes = 0, last_tools = 0;
    bool session = false;
  };
  std::unordered_map<std::string, Conv> convs;
  std::vector<bool> seen(trace.num_blocks, false);
  BlockCursor cursor(trace);
  for (const TraceRequest& tr : trace.requests) {
    const RequestRecord& r = records[tr.record];
    if (!r.conversation.empty()) {
      Conv& c = convs[r.conversation];
      if (c.requests > 0 && r.tools_digest != c.last_tools) ++c.changes;
      c.last_tools = r.tools_digest;
      c.session = r.conversation[0] == 's';
      ++c.requests;
    }
    // Unbounded cache from cold: the leading blocks seen before this request hit.
    uint64_t k = 0;
    const uint32_t* b = cursor.Blocks(tr);
    while (k < tr.num_blocks && seen[b[k]]) ++k;
    if (r.provider_cached_tokens >= 0 && r.exact_counts) {
      ++f.provider_cache_requests;
      f.provider_cached_tokens += r.provider_cached_tokens;
      f.provider_input_tokens += r.input_tokens;
      f.predicted_hit_tokens += PrefixHitTokens(trace, tr, b, k);
    }
    for (uint32_t j = 0; j < tr.num_blocks; ++j) seen[b[j]] = true;
  }
  f.conversations = convs.size();
  for (const auto& [key, c] : convs) {
    f.conversations_from_sessions += c.session;
    if (c.requests >= 2) ++f.multi_request_conversations;
    if (c.changes > 0) ++f.tool_change_conversations;
    f.max_tool_changes = std::max(f.max_tool_changes, c.changes);
  }
  return f;
}

std::vector<std::string> GatewayFindingSentences(const GatewayFindings& f) {
  std::vector<std::string> findings;
  if (!f.present || f.requests == 0) return findings;
  const double n = static_cast<double>(f.requests);
  if (f.with_session == 0)
    findings.push_back(
        "No request carried a session identifier: pinning sessions to workers is not possible, "
        "so only prefix-aware routing reaches reuse within a conversation. Having clients send "
        "prompt_cache_key (or a session header) would be cheaper than any routing change.");
  for (const std::string& field : f.per_request_session_fields)
    findings.push_back(fmt::format(
        "Every {} value is unique (per-request ids, e.g. LiteLLM's random default): it does not "
        "delimit conversations, which were inferred from the prompt instead.",
        field));
  if (f.tool_change_conversations > 0 && f.multi_request_conversations > 0)
    findings.push_back(fmt::format(
        "Tool sets changed mid-conversation in {} of conversations ({} of {}), {}. Where a "
        "template renders tools near the front, each change discards the history "
        "behind it; keeping the tool array stable for a conversation protects the reuse.",
        Percent(static_cast<double>(f.tool_change_conversations) /
                static_cast<double>(f.multi_request_conversations)),
        WithCommas(static_cast<int64_t>(f.tool_change_conversations)),
        WithCommas(static_cast<int64_t>(f.multi_request_conversations)),
        f.max_tool_changes == 1
            ? std::string("once each")
            : fmt::format("up to {} times in one",
                          WithCommas(static_cast<int64_t>(f.max_tool_changes)))));
  if (f.truncated_bodies > 0) {
    const bool one = f.truncated_bodies == 1;
    findings.push_back(fmt::format(
        "{} request {} ({}) {} truncated by the gateway (litellm_truncated): the logged text is "
        "not what the model saw, so reuse is under-measured. Raise the gateway's logging limit to "
        "measure it fully.",
        WithCommas(static_cast<int64_t>(f.truncated_bodies)), one ? "body" : "bodies",
        Percent(static_cast<double>(f.truncated_bodies) / n), one ? "was" : "were"));
  }
  return findings;
}

}  // namespace ltl
