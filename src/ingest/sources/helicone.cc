// Source `helicone`: Helicone's request export (`npx @helicone/export --include-body`, JSONL,
// JSON or CSV). Facts (Helicone/helicone examples/export/typescript/index.ts @
// c7feb3164110940b0eb1e6c24e2ee7f949e51fca): records carry request_created_at,
// response_created_at, response_status, request_body / response_body (from the signed body URL),
// request_properties (custom properties: Helicone-Session-Id), request_user_id, model,
// prompt_tokens, completion_tokens, latency; the JSON mode writes a comma after every record
// (a trailing comma before `]`, which the array framing tolerates); the CSV mode has no
// response_body column and writes object cells as JSON.stringify(v).replace(/"/g, '""') inside a
// field whose quotes are doubled again, so a cell read by RFC 4180 still has doubled quotes.
#include "ingest/source_spec.h"

namespace ltl {

extern const SourceSpec kHelicone = {
    .name = "helicone",
    .tool = "Helicone (@helicone/export --include-body)",
    .summary = "request_body, response_status, request_created_at, request_properties session",
    .example =
        R"({"request_created_at": "2026-01-01T12:00:00Z", "response_status": 200, "request_body": {"messages": [...]}, "request_properties": {"Helicone-Session-Id": "..."}})",
    .json = true,
    .csv = true,
    .detect_all = {"request_created_at"},
    .detect_any = {"request_body", "response_status", "request_properties"},
    .priority = 50,
    .body = {"request_body"},
    .response = {"response_body"},
    .model = {"model"},
    .status = {"response_status"},
    .time = {"request_created_at"},
    .session_headers = {"request_properties"},
    .prompt_tokens = {"prompt_tokens"},
    .completion_tokens = {"completion_tokens"},
    .cached_tokens = {"prompt_cache_read_tokens"},
    .latency_ms = {"latency", "delay_ms"},
    .ttft_ms = {"time_to_first_token"},
    .end_time = {"response_created_at"},
    .doubled_quotes = true,
    .note = "Helicone CSV cells hold JSON with doubled quotes; they are undone before parsing",
};

}  // namespace ltl
