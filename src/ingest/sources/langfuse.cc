// Source `langfuse`: Langfuse observations, as the public API / UI export writes them (JSONL,
// JSON or CSV; camelCase keys) and as the blob-storage export does (snake_case). Only GENERATION
// observations are model calls; SPAN and EVENT rows are counted and ignored. Facts: the
// observation fields of Langfuse's public API (genai-rs/langfuse-client-base docs/
// ObservationsApi.md, generated from Langfuse's OpenAPI): id, traceId, type, startTime, endTime,
// completionStartTime, model, input, output, usageDetails, level (DEBUG, DEFAULT, WARNING,
// ERROR); level ERROR marks a failed call. `input` is what the integration logged: a message
// list, or {messages, tools}. The session lives on the trace (sessionId); traceId is one per
// request unless the client grouped calls, so it is a filler when it never repeats.
#include "ingest/source_spec.h"

namespace ltl {

extern const SourceSpec kLangfuse = {
    .name = "langfuse",
    .tool = "Langfuse observations export (JSONL, CSV)",
    .summary = "GENERATION rows' input (messages or {tools, messages}), level, traceId/sessionId",
    .example =
        R"({"id": "...", "traceId": "...", "sessionId": "...", "type": "GENERATION", "startTime": "2026-01-01T12:00:00.000Z", "model": "gpt-4o", "level": "DEFAULT", "input": [...]})",
    .json = true,
    .csv = true,
    .detect_all = {"type", "input"},
    .detect_any = {"traceId", "trace_id"},
    .priority = 50,
    .kind_field = "type",
    .kind_keep = {"GENERATION"},
    .shape = BodyShape::kMessageList,
    .body = {"input"},
    .tools = {"tool_definitions", "toolDefinitions"},
    .response = {"output"},
    .model = {"model", "providedModelName", "provided_model_name"},
    .status = {"level"},
    .status_kind = StatusKind::kLevel,
    .time = {"startTime", "start_time"},
    .session = {"sessionId", "session_id"},
    .filler_session = {"traceId", "trace_id"},
    .prompt_tokens = {"usageDetails.input", "usage_details.input", "usage.input", "promptTokens"},
    .completion_tokens = {"usageDetails.output", "usage_details.output", "usage.output",
                          "completionTokens"},
    .cached_tokens = {"usageDetails.input_cached_tokens", "usage_details.input_cached_tokens"},
    .end_time = {"endTime", "end_time"},
    .first_token_time = {"completionStartTime", "completion_start_time"},
};

}  // namespace ltl
