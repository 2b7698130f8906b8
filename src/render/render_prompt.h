// RenderPrompt: an OpenAI chat or Anthropic Messages request body -> the text its model's chat
// template puts before generation (tools, system, every message with role, name, tool_call_id,
// content and tool calls), in the layout chosen for the model. Pure: no I/O, no shared state, so
// worker threads may call it concurrently with their own RenderedPrompt.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/segment_map.h"
#include "render/layout.h"

namespace ltl {

struct RenderedPrompt {
  std::string text;
  Layout layout = Layout::kToolsFirst;
  bool anthropic_body = false;
  // Spans of `text` that identify a conversation when no session id exists: the system content and
  // the first user message's content (never the tools, so a tool change does not split it).
  std::vector<std::pair<size_t, size_t>> conversation_spans;
  size_t tools_begin = 0, tools_end = 0;  // the rendered tool definitions (empty = none)
  bool has_image = false, has_file = false;
  // Which bytes came from which part of the request (tools, system, message k, tool call, tool
  // result, reasoning; unlabelled bytes are framing), for the cache-busters analysis.
  SegmentMap segments;
  // While rendering a message's content: the segment its bytes belong to (kFraming = do not label).
  Segment content_segment;
  int content_depth = 0;  // nesting of AppendContent (only the outer call labels)
  void Clear();
};

// Renders `body`. `model` is the model name the layout and reasoning rule are chosen from (the
// log's model column, else the body's "model"); `now_unix_seconds` is the request's own time (the
// harmony layout's date line; 0 = 1970-01-01 when the row has none, as in exact mode). Returns
// nullptr on success, else a fixed skip reason (never input text).
const char* RenderPrompt(simdjson::dom::element body, Layout requested, std::string_view model,
                         RenderedPrompt* out, int64_t now_unix_seconds = 0);

// Appends the generated text of a response (OpenAI `choices[].message` content and tool calls, else
// Anthropic `content`) for an output-token estimate; false when the response has neither.
bool AppendResponseText(simdjson::dom::element response, RenderedPrompt* text);

// True when the body is in Anthropic Messages format (top-level system, tools with input_schema,
// or Anthropic-only content blocks).
bool IsAnthropicBody(simdjson::dom::element body);

}  // namespace ltl
