// Sources `portkey-export`, `portkey-legacy`, `portkey-logs-api`: Portkey's three log shapes.
// Facts: the logs export (docs page portkey.ai/docs/product/observability/logs-export, stored
// copy, no repository found: Portkey-AI/docs holds no such page) selects fields such as id,
// trace_id, created_at, request, response, response_status_code, ai_model; Portkey fills
// trace_id with a generated id when the client sent no x-portkey-trace-id (a filler when it
// never repeats; same page, not confirmed in a repository). The POST /v1/logs body
// (Portkey-AI/docs api-reference/logs.md @ 3a2a72aa56d52a88909cf349ce009537dd5d6812) is
// {request: {url, method, headers, body}, response: {status, headers, body, time},
// metadata: {organisationId, userId, model, provider, isSuccess, traceId, spanId, ...}}: it
// documents no time field, so created_at / timestamp are read when present. The legacy export
// wrote the same fields as flat dotted keys ("request.body", "response.status"): from the
// project's earlier reader, no Portkey source or page found for it.
#include "ingest/source_spec.h"

namespace ltl {

extern const SourceSpec kPortkeyExport = {
    .name = "portkey-export",
    .tool = "Portkey logs export (JSONL)",
    .summary = "request.body, response.body, response_status_code, created_at, trace_id",
    .example =
        R"({"id": "...", "trace_id": "...", "created_at": "2026-01-01T12:00:00.000Z", "response_status_code": 200, "request": {"body": {"messages": [...]}}, "response": {"body": {...}}})",
    .detect_all = {"response_status_code"},
    .detect_any = {"request.body", "request"},
    .priority = 50,
    .body = {"request.body", "request"},
    .response = {"response.body", "response"},
    .model = {"ai_model"},
    .status = {"response_status_code"},
    .time = {"created_at"},
    .session = {"metadata.session_id", "metadata._session_id"},
    .session_headers = {"request.headers"},
    .filler_session = {"trace_id"},
    .prompt_tokens = {"prompt_tokens", "req_units"},
    .completion_tokens = {"completion_tokens", "res_units"},
    .latency_ms = {"response_time"},
};

extern const SourceSpec kPortkeyLegacy = {
    .name = "portkey-legacy",
    .tool = "Portkey legacy export (flat dotted keys)",
    .summary = R"("request.body", "response.body", "response.status" as flat keys)",
    .example =
        R"({"created_at": "2026-01-01T12:00:00Z", "trace_id": "...", "request.body": {"messages": [...]}, "response.status": 200})",
    .detect_all = {R"(["request.body"])"},
    .priority = 55,
    .body = {R"(["request.body"])"},
    .response = {R"(["response.body"])"},
    .model = {"ai_model", "model"},
    .status = {R"(["response.status"])", "response_status_code", "status"},
    .time = {"created_at", "timestamp"},
    .session_headers = {R"(["request.headers"])"},
    .filler_session = {"trace_id", R"(["metadata.trace_id"])"},
    .prompt_tokens = {"prompt_tokens", "req_units"},
    .completion_tokens = {"completion_tokens", "res_units"},
    .latency_ms = {R"(["response.response_time"])", "response_time"},
};

extern const SourceSpec kPortkeyLogsApi = {
    .name = "portkey-logs-api",
    .tool = "Portkey POST /v1/logs bodies",
    .summary = "request {body, headers}, response {status, body, time}, metadata.traceId",
    .example =
        R"({"request": {"url": "...", "body": {"messages": [...]}, "headers": {}}, "response": {"status": 200, "body": {...}, "time": 812}, "metadata": {"traceId": "..."}})",
    .detect_all = {"request.body", "response.status", "metadata"},
    .priority = 45,
    .body = {"request.body"},
    .response = {"response.body"},
    .model = {"metadata.model", "request.body.model"},
    .status = {"response.status"},
    .time = {"metadata.created_at", "created_at", "timestamp"},
    .session = {"metadata.session_id"},
    .session_headers = {"request.headers"},
    .filler_session = {"metadata.traceId", "metadata.trace_id"},
    .latency_ms = {"response.time", "response.response_time"},
};

}  // namespace ltl
