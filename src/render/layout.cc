// Layout names and the model-name rules (see layout.h).
#include "render/layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "common/ascii.h"

namespace ltl {

const char* LayoutName(Layout l) {
  switch (l) {
    case Layout::kAuto:
      return "auto";
    case Layout::kToolsFirst:
      return "tools-first";
    case Layout::kToolsInSystem:
      return "tools-in-system";
    case Layout::kToolsInFirstUser:
      return "tools-in-first-user";
    case Layout::kAnthropic:
      return "anthropic";
    case Layout::kNoTools:
      return "no-tools";
    case Layout::kToolsBeforeLastUser:
      return "tools-before-last-user";
    case Layout::kSystemInLastUser:
      return "system-in-last-user";
    case Layout::kHarmony:
      return "harmony";
  }
  return "?";
}

Result<Layout> ParseLayoutName(std::string_view name) {
  for (Layout l : kAllLayouts)
    if (name == LayoutName(l)) return l;
  return Status::InvalidArgument(fmt::format(
      "unknown template '{}' (choose auto, tools-first, tools-in-system, tools-in-first-user, "
      "anthropic, no-tools, tools-before-last-user, system-in-last-user or harmony)",
      name));
}

Layout ChooseLayout(Layout requested, std::string_view model, bool anthropic_body) {
  if (requested != Layout::kAuto) return requested;
  if (anthropic_body) return Layout::kAnthropic;
  const std::string m = AsciiLowered(model);
  auto has = [&m](const char* s) { return m.find(s) != std::string::npos; };
  if (has("claude")) return Layout::kAnthropic;
  if (has("deepseek")) return Layout::kNoTools;  // before qwen/llama: R1-Distill-Qwen/-Llama
  if (has("gpt-oss")) return Layout::kHarmony;
  if (has("mistral") && has("nemo")) return Layout::kSystemInLastUser;
  for (const char* family :
       {"mistral", "mixtral", "magistral", "devstral", "ministral", "codestral", "pixtral"})
    if (has(family)) return Layout::kToolsBeforeLastUser;
  if (m.find("qwen") != std::string::npos || m.find("qwq") != std::string::npos)
    return Layout::kToolsInSystem;
  if (m.find("llama") != std::string::npos && m.find("llama-4") == std::string::npos &&
      m.find("llama4") == std::string::npos)
    return Layout::kToolsInFirstUser;
  return Layout::kToolsFirst;  // GLM, GPT, unknown: the conservative placement
}

Reasoning ChooseReasoning(std::string_view model) {
  const std::string m = AsciiLowered(model);
  auto has = [&m](const char* s) { return m.find(s) != std::string::npos; };
  if (has("deepseek")) return Reasoning::kNever;  // R1-Distill-Qwen is DeepSeek's template
  if (has("qwen3") || has("qwq") || has("glm")) return Reasoning::kCurrentTurn;
  return Reasoning::kNever;
}

}  // namespace ltl
