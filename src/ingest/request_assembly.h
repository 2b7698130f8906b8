// Request bodies assembled from sources that keep a request's parts apart: a list of chat messages
// with the tools elsewhere (LiteLLM StandardLoggingPayload, Langfuse), OpenTelemetry GenAI's
// role+parts messages with system instructions and tool definitions as separate attributes, and
// OpenLLMetry's flattened gen_ai.prompt.N.* / llm.request.functions.N.* attributes. Each writes an
// OpenAI chat request as JSON text ({"messages": [...], "tools": [...]}) for the renderer.
// Internal to src/ingest/ (tests/build/internal_headers.cmake).
#pragma once

#include <simdjson.h>

#include <string>

namespace ltl {

// `messages` is a JSON array of OpenAI/Anthropic-style messages; `tools` / `system` may be null.
void AssembleMessageList(simdjson::dom::element messages, const simdjson::dom::element* tools,
                         const simdjson::dom::element* system, std::string* out);

// OpenTelemetry GenAI semantic conventions: gen_ai.input.messages ([{role, parts: [{type: text,
// content} | {type: tool_call, id, name, arguments} | {type: tool_call_response, id, result}]}]),
// gen_ai.system_instructions ([{type: text, content}]) and gen_ai.tool.definitions.
// Returns false when `messages` is not such a list.
bool AssembleOtelParts(simdjson::dom::element messages, const simdjson::dom::element* system,
                       const simdjson::dom::element* tools, std::string* out);

// OpenLLMetry: an OTLP attribute list holding gen_ai.prompt.N.role / .content /
// .tool_calls.M.{id,name,arguments} / .tool_call_id and llm.request.functions.N.{name,
// description,parameters}. Returns false when no gen_ai.prompt.N attribute is present.
bool AssembleOtelFlat(simdjson::dom::array attributes, std::string* out);

}  // namespace ltl
