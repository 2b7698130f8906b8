// Source `kong-ai`: Kong AI Gateway records as the file-log / http-log plugins write them. Facts
// (Kong/docs.konghq.com app/_src/gateway/production/logging/ai-analytics.md; Kong/
// developer.konghq.com app/ai-gateway/ai-audit-log-reference.md): `ai.payload.request` is the
// request payload as a JSON string (Kong's own `request` object carries headers, not the body),
// `ai.<plugin>.payload.response`, `ai.<plugin>.usage.prompt_token` / `completion_token`,
// `ai.<plugin>.meta.request_model`, `ai.<plugin>.meta.llm_latency` (ms); the standard log
// serializer adds started_at (epoch ms), response.status and request.headers.
#include "ingest/source_spec.h"

namespace ltl {

extern const SourceSpec kKongAi = {
    .name = "kong-ai",
    .tool = "Kong AI Gateway (file-log / http-log)",
    .summary = "ai.payload.request (a JSON string), response.status, started_at, request.headers",
    .example =
        R"({"started_at": 1767225600000, "request": {"headers": {...}}, "response": {"status": 200}, "ai": {"payload": {"request": "{\"messages\": [...]}"}, "ai-proxy": {"usage": {"prompt_token": 28}}}})",
    .detect_all = {"ai.payload.request"},
    .priority = 50,
    .body = {"ai.payload.request"},
    .response = {"ai.*.payload.response"},
    .model = {"ai.*.meta.request_model"},
    .status = {"response.status"},
    .time = {"started_at"},
    .session_headers = {"request.headers"},
    .prompt_tokens = {"ai.*.usage.prompt_token", "ai.*.usage.prompt_tokens"},
    .completion_tokens = {"ai.*.usage.completion_token", "ai.*.usage.completion_tokens"},
    .latency_ms = {"ai.*.meta.llm_latency"},
};

}  // namespace ltl
