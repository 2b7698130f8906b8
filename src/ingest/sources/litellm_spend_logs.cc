// Source `litellm-spendlogs`: LiteLLM proxy's LiteLLM_SpendLogs table, as `psql \copy (...) TO
// STDOUT CSV HEADER`, as the GET /spend/logs JSON array, or read from PostgreSQL directly.
// Facts (BerriAI/litellm):
//  - columns and types: schema.prisma @ 029f645f1c81cbd6c6c48fbc8490d91da937066f, model
//    LiteLLM_SpendLogs (request_id, startTime, endTime, completionStartTime, request_duration_ms,
//    model, model_group, prompt_tokens, completion_tokens, metadata Json, messages Json,
//    response Json, session_id, status, proxy_server_request Json, ...);
//  - litellm/proxy/spend_tracking/spend_tracking_utils.py @
//  00907c60692d7d14dc7ea814e645165d3b4d5fe9:
//    proxy_server_request is json.dumps of the request body only when store_prompts_in_spend_logs
//    is true, else "{}"; strings over MAX_STRING_LENGTH_PROMPT_IN_DB are cut around a
//    "litellm_truncated" marker; session_id is the StandardLoggingPayload trace_id, else
//    litellm_trace_id, else a fresh uuid4 ("Ensure we always have a session id"): a filler;
//    status is "success" or "failure"; metadata.additional_usage_values holds the other usage
//    keys (prompt_tokens_details.cached_tokens, cache_read_input_tokens).
#include "ingest/source_spec.h"

namespace ltl {

extern const SourceSpec kLitellmSpendLogs = {
    .name = "litellm-spendlogs",
    .tool = "LiteLLM proxy (LiteLLM_SpendLogs, /spend/logs)",
    .summary = "proxy_server_request (JSON text), status success/failure, startTime, session_id",
    .example =
        R"({"request_id": "chatcmpl-1", "startTime": "2026-01-01 12:00:00.123", "model": "gpt-4o", "proxy_server_request": "{\"messages\": [...]}", "status": "success", "session_id": "5f0c..."})",
    .json = true,
    .csv = true,
    .detect_all = {"proxy_server_request", "startTime"},
    .detect_any = {"session_id", "request_id", "spend"},
    .priority = 50,
    .body = {"proxy_server_request"},
    .response = {"response"},
    .model = {"model", "model_group"},
    .status = {"status"},
    .time = {"startTime"},
    .filler_session = {"session_id"},
    .prompt_tokens = {"prompt_tokens"},
    .completion_tokens = {"completion_tokens"},
    .cached_tokens = {"metadata.additional_usage_values.prompt_tokens_details.cached_tokens",
                      "metadata.additional_usage_values.cache_read_input_tokens"},
    .latency_ms = {"request_duration_ms"},
    .end_time = {"endTime"},
    .first_token_time = {"completionStartTime"},
    .empty_body_reason =
        "empty proxy_server_request ({}): LiteLLM stores request bodies only with "
        "store_prompts_in_spend_logs: true",
};

}  // namespace ltl
