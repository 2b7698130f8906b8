// Source `generic`: any gateway log that keeps an OpenAI chat / Anthropic Messages body in a
// request_json-like column or key (or is the body itself, one request per line), the fallback
// when no tool's own shape is recognised. These are the names the reader accepted before sources
// became tables; docs/FORMATS.md lists them. No tool writes this shape, so nothing here is cited:
// each tool's own names are in its own table (and cited there).
#include "ingest/source_spec.h"

namespace ltl {

extern const SourceSpec kGeneric = {
    .name = "generic",
    .tool = "any gateway",
    .summary = "a request body per row: the line itself, or under request_json / request / body",
    .example =
        R"({"timestamp": 1767225600, "request_json": {"model": "gpt-4o", "messages": [...]}})",
    .json = true,
    .csv = true,
    .priority = -100,
    .body = {".", "request_json", "proxy_server_request", "request_body", "request", "body"},
    .response = {"response_json", "response", "response_body"},
    .model = {"model_name", "model"},
    .status = {"status_code", "status", "response.status"},
    .time = {"timestamp", "ts", "created_at", "start_time", "starttime", "request_created_at",
             "time", "started_at", "created", "request_time", "request_timestamp", "datetime",
             "@timestamp", "date"},
    .session = {"x-claude-code-session-id", "x-session-id", "x-litellm-session-id",
                "helicone-session-id", "session_id", "session-id", "sessionid", "conversation_id",
                "x-portkey-trace-id", "x-litellm-trace-id", "trace_id"},
    .session_headers = {"headers", "request_headers", "request_properties"},
    .prompt_tokens = {"prompt_tokens"},
    .completion_tokens = {"completion_tokens"},
    .latency_s = {"api_time", "response_time", "duration", "duration_s", "latency_s"},
    .latency_ms = {"response_time_ms", "responsetime", "duration_ms", "latency_ms", "latency",
                   "response_ms", "response.response_time_ms", "response.duration_ms",
                   "response.latency_ms"},
    .ttft_s = {"ttft", "ttft_s", "response.ttft"},
    .ttft_ms = {"ttft_ms", "time_to_first_token_ms", "time_to_first_token", "response.ttft_ms"},
    .end_time = {"end_time", "endtime", "completed_at", "response_created_at"},
    .first_token_time = {"completion_start_time", "completionstarttime", "first_token_time"},
    .server_timing = {"server-timing", "server_timing", "response_headers.server-timing",
                      "headers.server-timing"},
};

}  // namespace ltl
