// Pieces shared by the layout renderers: content parts and blocks, tool calls, tool definition
// lists, attachment digests. Internal to src/render/.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string_view>

#include "jinja/py_json.h"
#include "render/render_prompt.h"

namespace ltl::render {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

// The string at obj[key], or "" when absent or not a string.
std::string_view StringField(object obj, std::string_view key);
// obj[key] when present and not null.
bool Field(object obj, std::string_view key, element* out);

// Message content: a string, an array of OpenAI parts or Anthropic blocks, or null.
void AppendContent(element content, RenderedPrompt* p);
// "<image 0123456789abcdef>"-style placeholder: a stable digest of the attachment's JSON.
void AppendDigest(std::string_view kind, element e, RenderedPrompt* p);
// OpenAI assistant tool calls (and legacy function_call) as <tool_call> blocks; at most
// `max_calls` of them (gpt-oss renders only the first).
void AppendToolCalls(object msg, RenderedPrompt* p, size_t max_calls = SIZE_MAX);
// The body's tool definitions ("tools", else legacy "functions"): each as Python JSON followed by
// `sep`; records the span in p->tools_begin/end. Returns false when the body has none.
bool AppendTools(object body, const PyJsonStyle& style, std::string_view sep, RenderedPrompt* p);
bool HasTools(object body);
// Why the body's "messages" cannot be rendered ("missing messages", "messages is not an array"),
// or nullptr when it is a non-empty array.
const char* MessagesProblem(object body);

// The "# Tools ... <tools>" preamble and closing lines used by the ChatML-style layouts.
void AppendToolsBlock(object body, RenderedPrompt* p);

// Segment labels (RenderedPrompt::segments). LabelSpan labels p->text[begin, end) as `s` (nothing
// when empty or when `s` is framing); ContentAs makes AppendContent / AppendToolCalls label what
// they append as `s` (blocks: tool_use as a tool call, tool_result as a tool result, thinking as
// reasoning) until it goes out of scope. Only leaf regions are labelled, so spans never overlap.
void LabelSpan(size_t begin, const Segment& s, RenderedPrompt* p);
SegmentRole RoleOf(std::string_view role);
// A message's content segment by its role: system/developer -> kSystem, tool/function ->
// kToolResult, else kMessage.
Segment MessageSegment(std::string_view role, size_t index);
class ContentAs {
 public:
  ContentAs(RenderedPrompt* p, const Segment& s) : p_(p) { p_->content_segment = s; }
  ~ContentAs() { p_->content_segment = Segment{}; }
  ContentAs(const ContentAs&) = delete;
  ContentAs& operator=(const ContentAs&) = delete;

 private:
  RenderedPrompt* p_;
};

// Starts/ends a conversation-identifying span at the current end of the text.
inline size_t Mark(const RenderedPrompt* p) {
  return p->text.size();
}
inline void AddSpan(size_t begin, RenderedPrompt* p) {
  if (p->text.size() > begin) p->conversation_spans.emplace_back(begin, p->text.size());
}

// What a family's renderer needs besides the body (chosen by RenderPrompt).
struct FamilyRules {
  Reasoning reasoning = Reasoning::kNever;
  int64_t now_unix_seconds = 0;  // the request's own time (harmony's date line)
};

const char* RenderToolsFirst(object body, const FamilyRules& f, RenderedPrompt* p);
const char* RenderToolsInSystem(object body, const FamilyRules& f, RenderedPrompt* p);
const char* RenderToolsInFirstUser(object body, const FamilyRules& f, RenderedPrompt* p);
// Where a layout that renders the message list alone places the tools and the system message.
struct ListPlacement {
  bool tools_before_last_user = false;  // Mistral: a tools block just before the last user message
  bool system_in_last_user = false;     // Nemo: the system content only inside a final user message
};
const char* RenderMessageList(object body, const FamilyRules& f, ListPlacement where,
                              RenderedPrompt* p);
const char* RenderHarmony(object body, const FamilyRules& f, RenderedPrompt* p);
const char* RenderAnthropic(object body, RenderedPrompt* p);

}  // namespace ltl::render
