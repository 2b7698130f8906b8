// Source `kong-ai`: Kong AI Gateway records as the file-log / http-log plugins write them.
// Facts, from Kong's own code:
// - Kong >= 3.8 (Kong/kong kong/llm/plugin/shared-filters/serialize-analytics.lua @
//   1f39c077db673b76adfb713c70d0fbf1abf45260, namespace "proxy" from
//   kong/llm/plugin/observability.lua @ 007d34e64875198aa9bf90e1f996a75812acff29): with
//   logging.log_payloads the raw request body, a JSON string, is at `ai.proxy.payload.request`
//   and the response at `ai.proxy.payload.response`; with log_statistics `ai.proxy.meta`
//   {request_model, response_model, provider_name, plugin_id, llm_latency (ms)} and
//   `ai.proxy.usage` {prompt_tokens, completion_tokens, total_tokens, time_per_token, cost}.
// - Kong 3.6/3.7 (an older kong/llm/drivers/shared.lua, stored without its commit): the body
//   at `ai.payload.request`, per plugin `ai.<plugin>.usage.prompt_token` / `completion_token`.
//   Kong's docs still show this shape (Kong/developer.konghq.com
//   app/ai-gateway/ai-audit-log-reference.md @ 07588d4f105cf18958ec49899d43e601684f2992).
// - The standard serializer (Kong/kong kong/pdk/log.lua @
//   008261824c15f63eeb29024b915be24cc2ab3658): request {uri, url, method, headers, size} (no
//   body), response {status, headers, size}, started_at = kong.request.get_start_time() (ms).
#include "ingest/source_spec.h"

namespace ltl {

extern const SourceSpec kKongAi = {
    .name = "kong-ai",
    .tool = "Kong AI Gateway (file-log / http-log)",
    .summary =
        "ai.proxy.payload.request or ai.payload.request (a JSON string), response.status, "
        "started_at, request.headers",
    .example =
        R"({"started_at": 1767225600000, "request": {"headers": {...}}, "response": {"status": 200}, "ai": {"proxy": {"payload": {"request": "{\"messages\": [...]}"}, "usage": {"prompt_tokens": 28}}}})",
    .detect_any = {"ai.*.payload.request", "ai.payload.request"},
    .priority = 50,
    .body = {"ai.*.payload.request", "ai.payload.request"},
    .response = {"ai.*.payload.response"},
    .model = {"ai.*.meta.request_model"},
    .status = {"response.status"},
    .time = {"started_at"},
    .session_headers = {"request.headers"},
    .prompt_tokens = {"ai.*.usage.prompt_tokens", "ai.*.usage.prompt_token"},
    .completion_tokens = {"ai.*.usage.completion_tokens", "ai.*.usage.completion_token"},
    // The model call's own time first; else the whole request as the standard serializer logs it
    // (latencies.request, kong/pdk/log.lua @ the commit above).
    .latency_ms = {"ai.*.meta.llm_latency", "latencies.request"},
};

}  // namespace ltl
