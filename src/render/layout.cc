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
  }
  return "?";
}

Result<Layout> ParseLayoutName(std::string_view name) {
  for (Layout l : {Layout::kAuto, Layout::kToolsFirst, Layout::kToolsInSystem,
                   Layout::kToolsInFirstUser, Layout::kAnthropic})
    if (name == LayoutName(l)) return l;
  return Status::InvalidArgument(fmt::format(
      "unknown template '{}' (choose auto, tools-first, tools-in-system, tools-in-first-user or "
      "anthropic)",
      name));
}

Layout ChooseLayout(Layout requested, std::string_view model, bool anthropic_body) {
  if (requested != Layout::kAuto) return requested;
  if (anthropic_body) return Layout::kAnthropic;
  const std::string m = AsciiLowered(model);
  if (m.find("claude") != std::string::npos) return Layout::kAnthropic;
  if (m.find("qwen") != std::string::npos || m.find("qwq") != std::string::npos)
    return Layout::kToolsInSystem;
  if (m.find("llama") != std::string::npos && m.find("llama-4") == std::string::npos &&
      m.find("llama4") == std::string::npos)
    return Layout::kToolsInFirstUser;
  return Layout::kToolsFirst;  // GLM, DeepSeek, GPT, unknown: the conservative placement
}

}  // namespace ltl
