// Layout: where a model's chat template puts the tool definitions, which decides how much of a
// prompt two requests with different tool sets can share. Chosen from the model name unless the
// user overrides it with --template (docs/SEMANTICS.md cites the template lines each follows).
#pragma once

#include <string_view>

#include "common/status.h"

namespace ltl {

enum class Layout {
  kAuto,              // choose per request from the model name and body format
  kToolsFirst,        // GLM, DeepSeek, unknown models: tools before the whole conversation
  kToolsInSystem,     // Qwen: tools appended to the system message
  kToolsInFirstUser,  // Llama 3.x: tools inside the first user message
  kAnthropic,         // Claude / Anthropic Messages bodies: tools -> system -> messages
};

const char* LayoutName(Layout l);
Result<Layout> ParseLayoutName(std::string_view name);
// The layout for one request when the user asked for `requested` (kAuto = decide here).
Layout ChooseLayout(Layout requested, std::string_view model, bool anthropic_body);

}  // namespace ltl
