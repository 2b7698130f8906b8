// Source `langfuse`: Langfuse observations, as the UI batch export writes them (JSONL, JSON or
// CSV; camelCase keys) and as the blob-storage export does (snake_case). Only GENERATION
// observations are model calls; SPAN and EVENT rows are counted and ignored. Facts:
// - The batch export (langfuse/langfuse worker/src/features/database-read-stream/
//   observation-stream.ts @ 03b77af5f77d3cc2363de874ce72c04eafb80e63) selects the snake_case
//   columns id, type, start_time, end_time, trace_id, completion_start_time, usage_details,
//   level, provided_model_name, input, output, ... and writes each row through convertObservation.
// - convertObservation (langfuse/langfuse packages/shared/src/server/repositories/
//   observations_converters.ts @ 010ff9205c9a93974e6bd0c7b0f2f032dc1e6a41) names them id,
//   traceId, type, startTime, endTime, completionStartTime, model (= provided_model_name),
//   input, output, usageDetails, level, userId, sessionId (sessionId only where the row carries
//   session_id; older exports have no sessionId column, and the session lives on the trace:
//   Trace.sessionId in fern/apis/server/definition/commons.yml @
//   0010e28ff5f0138b178553ed2b7143a2f275f09d, which also gives ObservationLevel DEBUG, DEFAULT,
//   WARNING, ERROR). level ERROR marks a failed call.
// - `input` is what the integration logged: a message list, or {messages, tools}; the
//   usageDetails keys input / output are Langfuse's; `input_cached_tokens` is not confirmed in
//   Langfuse's own repositories (searched, not found).
// - A trace is one execution (one agent turn: a tool loop, a title call beside it), and sessions
//   group traces: "Many interactions with LLM applications span multiple traces. Sessions in
//   Langfuse allow you to group traces together" (https://langfuse.com/docs/observability/
//   features/sessions.md, read 2026-12-06). So traceId is no session identifier, not even a
//   filler one: conversations across traces are inferred from the resent history (issue 35,
//   item 20).
#include "ingest/source_spec.h"

namespace ltl {

extern const SourceSpec kLangfuse = {
    .name = "langfuse",
    .tool = "Langfuse observations export (JSONL, CSV)",
    .summary = "GENERATION rows' input (messages or {tools, messages}), level, sessionId",
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
    .prompt_tokens = {"usageDetails.input", "usage_details.input", "usage.input", "promptTokens"},
    .completion_tokens = {"usageDetails.output", "usage_details.output", "usage.output",
                          "completionTokens"},
    .cached_tokens = {"usageDetails.input_cached_tokens", "usage_details.input_cached_tokens"},
    .end_time = {"endTime", "end_time"},
    .first_token_time = {"completionStartTime", "completion_start_time"},
};

}  // namespace ltl
