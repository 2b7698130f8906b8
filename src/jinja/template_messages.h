// What an engine does to a request body before the chat template sees it: OpenAI chat bodies
// become the template's `messages` / `tools` / `documents` as vLLM's OpenAI server builds them,
// and Anthropic Messages bodies are first converted the way vLLM's /v1/messages endpoint
// converts them. docs/SEMANTICS.md ("Chat templates: what the template sees") lists every rule
// with the source lines followed (vllm/entrypoints/chat_utils.py, renderers/hf.py,
// openai/chat_completion/protocol.py, anthropic/serving.py).
//
// Every string keeps a segment: tools, system, message k with its role, tool call, tool result,
// reasoning, documents; the segment table goes into the scratch's SegmentMap.
#pragma once

#include <simdjson.h>

#include <string>

#include "jinja/chat_template.h"

namespace ltl {

// How message content reaches the template (vLLM's --chat-template-content-format auto):
// kString joins text parts with "\n"; kOpenAI keeps a list of {"type": "text", "text": ...} /
// {"type": "image"} parts. Detected from the template (DetectContentFormat).
enum class ContentFormat { kString, kOpenAI };

struct TemplateMessageOptions {
  ContentFormat content_format = ContentFormat::kString;
  bool add_generation_prompt = true;  // vLLM's ChatCompletionRequest default
};

// vLLM's _detect_content_format: "openai" when the template loops over a message's content
// (`{% for part in message['content'] %}` with `message` from a loop over `messages` or a
// variable assigned from it), else "string".
ContentFormat DetectContentFormat(const ChatTemplate& tmpl);

// True when `body` is an Anthropic Messages body (top-level system, tools with input_schema, or
// Anthropic-only content blocks).
bool IsAnthropicMessagesBody(simdjson::dom::element body);

// Builds the template's variables for `body` in scratch->arena and the segment table in
// scratch->segments. `special_tokens` (an object, may be empty) supplies bos_token, eos_token,
// ... as transformers passes the tokenizer's special tokens map. False with a fixed reason (no
// request text) when the engine would refuse the body.
bool BuildTemplateInput(simdjson::dom::element body, simdjson::dom::element special_tokens,
                        const TemplateMessageOptions& options, int64_t now_unix_seconds,
                        ChatTemplateScratch* scratch, ChatTemplateInput* input,
                        std::string* reason);

}  // namespace ltl
