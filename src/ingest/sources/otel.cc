// Sources `otel-genai` and `openllmetry`: OpenTelemetry spans as the Collector's file exporter
// writes them (OTLP JSON, one ExportTraceServiceRequest per line:
// resourceSpans[].scopeSpans[].spans[], attributes as [{key, value: {stringValue | intValue ...}}],
// startTimeUnixNano as a decimal string, status.code 2 = STATUS_CODE_ERROR).
// Facts (open-telemetry/semantic-conventions): docs/gen-ai/gen-ai-input-messages.json @
// 32e44cbf6b596cb7ce7ac0931a80bdc9a376e100 (messages are {role, parts: [text | tool_call |
// tool_call_response]}), gen-ai-system-instructions.json @
// c28cd0299307d0edaf727cb7ed251c007d6387c6, gen-ai-tool-definitions.json @
// 15756140c627a9443b7ec87e507f73d06e54ea7f, gen-ai-spans.md @
// a064dcca28053f4406d5dc65895e89c523171ca4 (gen_ai.operation.name, gen_ai.request.model,
// gen_ai.conversation.id, gen_ai.usage.input_tokens / output_tokens). OpenLLMetry's older
// flattened attributes (traceloop/openllmetry semantic-conventions-ai: LLM_REQUEST_FUNCTIONS =
// "llm.request.functions", LLM_USAGE_PROMPT_TOKENS = "gen_ai.usage.prompt_tokens",
// gen_ai.prompt.{i}.role / .content) carry the session as
// traceloop.association.properties.session_id.
#include "ingest/source_spec.h"

namespace ltl {

extern const SourceSpec kOtelGenAi = {
    .name = "otel-genai",
    .tool = "OpenTelemetry GenAI spans (OTLP JSON, current conventions)",
    .summary = "gen_ai.input.messages, gen_ai.system_instructions, gen_ai.tool.definitions",
    .example =
        R"({"resourceSpans": [{"scopeSpans": [{"spans": [{"startTimeUnixNano": "1767225600000000000", "status": {"code": 1}, "attributes": [{"key": "gen_ai.input.messages", "value": {"stringValue": "[...]"}}]}]}]}]})",
    .detect_all = {R"(attributes["gen_ai.input.messages"])"},
    .priority = 60,
    .records_at = {"resourceSpans", "scopeSpans", "spans"},
    .kind_field = R"(attributes["gen_ai.operation.name"])",
    .kind_keep = {"chat", "text_completion", "generate_content"},
    .shape = BodyShape::kOtelParts,
    .body = {R"(attributes["gen_ai.input.messages"])"},
    .tools = {R"(attributes["gen_ai.tool.definitions"])"},
    .system = {R"(attributes["gen_ai.system_instructions"])"},
    .model = {R"(attributes["gen_ai.request.model"])", R"(attributes["gen_ai.response.model"])"},
    .status = {"status.code"},
    .status_kind = StatusKind::kOtel,
    .time = {"startTimeUnixNano"},
    .session = {R"(attributes["gen_ai.conversation.id"])"},
    .prompt_tokens = {R"(attributes["gen_ai.usage.input_tokens"])"},
    .completion_tokens = {R"(attributes["gen_ai.usage.output_tokens"])"},
    .cached_tokens = {R"(attributes["gen_ai.usage.cache_read.input_tokens"])"},
    .end_time = {"endTimeUnixNano"},
};

extern const SourceSpec kOpenLlmetry = {
    .name = "openllmetry",
    .tool = "OpenLLMetry / Traceloop spans (OTLP JSON, flattened attributes)",
    .summary = "gen_ai.prompt.N.role/content, llm.request.functions.N.*, association session_id",
    .example =
        R"({"resourceSpans": [{"scopeSpans": [{"spans": [{"attributes": [{"key": "gen_ai.prompt.0.role", "value": {"stringValue": "user"}}, ...]}]}]}]})",
    .detect_any = {R"(attributes["gen_ai.prompt.0.role"])",
                   R"(attributes["gen_ai.prompt.0.content"])"},
    .priority = 55,
    .records_at = {"resourceSpans", "scopeSpans", "spans"},
    .kind_field = R"(attributes["llm.request.type"])",
    .kind_keep = {"chat", "completion"},
    .shape = BodyShape::kOtelFlat,
    .model = {R"(attributes["gen_ai.request.model"])", R"(attributes["gen_ai.response.model"])"},
    .status = {"status.code"},
    .status_kind = StatusKind::kOtel,
    .time = {"startTimeUnixNano"},
    .session = {R"(attributes["traceloop.association.properties.session_id"])",
                R"(attributes["gen_ai.conversation.id"])"},
    .prompt_tokens = {R"(attributes["gen_ai.usage.prompt_tokens"])",
                      R"(attributes["gen_ai.usage.input_tokens"])"},
    .completion_tokens = {R"(attributes["gen_ai.usage.completion_tokens"])",
                          R"(attributes["gen_ai.usage.output_tokens"])"},
    .end_time = {"endTimeUnixNano"},
};

}  // namespace ltl
