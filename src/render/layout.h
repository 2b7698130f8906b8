// Layout: our own description of where a model family's chat template puts the tool definitions
// and the system prompt, which decides how much of a prompt two requests with different tool sets
// can share; plus the family's reasoning rule. Chosen from the model name unless the user overrides
// the layout with --template (docs/SEMANTICS.md says which template behaviour each follows).
#pragma once

#include <cstddef>
#include <string_view>

#include "common/status.h"

namespace ltl {

enum class Layout {
  kAuto,                 // choose per request from the model name and body format
  kToolsFirst,           // GLM, DeepSeek, unknown models: tools before the whole conversation
  kToolsInSystem,        // Qwen: tools appended to the system message
  kToolsInFirstUser,     // Llama 3.x: tools inside the first user message
  kAnthropic,            // Claude / Anthropic Messages bodies: tools -> system -> messages
  kNoTools,              // DeepSeek V3 / V3.1 / R1: the template never renders the tools
  kToolsBeforeLastUser,  // Mistral: system first, the tools just before the last user message
  kSystemInLastUser,     // Mistral Nemo: tools as Mistral, the system only in a final user message
  kHarmony,  // gpt-oss: a "Current date" line first, then system + tools; first tool call only
};

// Which assistant reasoning a family's template renders (OpenAI bodies; Anthropic thinking blocks
// are never rendered).
enum class Reasoning {
  kNever,        // reasoning is dropped everywhere
  kCurrentTurn,  // Qwen3 / QwQ / GLM: the reasoning of assistant messages after the last user
                 // message (the current tool loop); dropped once a new user message follows.
                 // Read from the client's `reasoning`, which vLLM passes to the template as
                 // reasoning_content (an incoming reasoning_content is dropped by vLLM)
};

// Every layout in enum order (tables indexed by a Layout value are built from it).
inline constexpr Layout kAllLayouts[] = {Layout::kAuto,
                                         Layout::kToolsFirst,
                                         Layout::kToolsInSystem,
                                         Layout::kToolsInFirstUser,
                                         Layout::kAnthropic,
                                         Layout::kNoTools,
                                         Layout::kToolsBeforeLastUser,
                                         Layout::kSystemInLastUser,
                                         Layout::kHarmony};
static_assert(sizeof kAllLayouts / sizeof kAllLayouts[0] ==
                  static_cast<size_t>(Layout::kHarmony) + 1,
              "kAllLayouts lists every Layout");

const char* LayoutName(Layout l);
Result<Layout> ParseLayoutName(std::string_view name);
// The layout for one request when the user asked for `requested` (kAuto = decide here).
Layout ChooseLayout(Layout requested, std::string_view model, bool anthropic_body);
// The reasoning rule of the model's family (from the name alone: it holds under --template too).
// gpt-oss renders none: its template reads `thinking`, which vLLM's message model drops.
Reasoning ChooseReasoning(std::string_view model);

}  // namespace ltl
