// RenderPrompt: layout choice and dispatch, and a response's generated text (see render_prompt.h).
#include "render/render_prompt.h"

#include "render/render_parts.h"

namespace ltl {

void RenderedPrompt::Clear() {
  text.clear();
  conversation_spans.clear();
  tools_begin = tools_end = 0;
  has_image = has_file = false;
  anthropic_body = false;
  segments.Clear();
  content_segment = Segment{};
  content_depth = 0;
}

bool AppendResponseText(simdjson::dom::element response, RenderedPrompt* text) {
  bool any = false;
  simdjson::dom::array choices;
  if (!response.at_key("choices").get_array().get(choices)) {
    for (simdjson::dom::element c : choices) {
      simdjson::dom::object msg;
      if (c.at_key("message").get_object().get(msg)) continue;
      simdjson::dom::element content;
      if (render::Field(msg, "content", &content)) render::AppendContent(content, text);
      render::AppendToolCalls(msg, text);
      any = true;
    }
  }
  simdjson::dom::element content;
  simdjson::dom::object top;
  if (!any && !response.get_object().get(top) && render::Field(top, "content", &content)) {
    render::AppendContent(content, text);
    any = true;
  }
  return any;
}

bool IsAnthropicBody(simdjson::dom::element body) {
  simdjson::dom::object obj;
  if (body.get_object().get(obj)) return false;
  simdjson::dom::element e;
  if (!obj.at_key("system").get(e)) return true;  // OpenAI bodies carry system as a message
  simdjson::dom::array tools;
  if (!obj.at_key("tools").get_array().get(tools)) {
    for (auto t : tools) {
      simdjson::dom::object to;
      if (!t.get_object().get(to) && !to.at_key("input_schema").get(e)) return true;
    }
  }
  simdjson::dom::array msgs;
  if (obj.at_key("messages").get_array().get(msgs)) return false;
  for (auto m : msgs) {
    simdjson::dom::array blocks;
    if (m.at_key("content").get_array().get(blocks)) continue;
    for (auto b : blocks) {
      std::string_view type;
      if (b.at_key("type").get_string().get(type)) continue;
      if (type == "tool_use" || type == "tool_result" || type == "thinking" ||
          type == "redacted_thinking" || type == "document" || type == "image")
        return true;
    }
  }
  return false;
}

const char* RenderPrompt(simdjson::dom::element body, Layout requested, std::string_view model,
                         RenderedPrompt* out, int64_t now_unix_seconds) {
  out->Clear();
  simdjson::dom::object obj;
  if (body.get_object().get(obj)) return "request body is not a JSON object";
  out->anthropic_body = IsAnthropicBody(body);
  out->layout = ChooseLayout(requested, model, out->anthropic_body);
  const render::FamilyRules f{ChooseReasoning(model), now_unix_seconds};
  switch (out->layout) {
    case Layout::kToolsInSystem:
      return render::RenderToolsInSystem(obj, f, out);
    case Layout::kToolsInFirstUser:
      return render::RenderToolsInFirstUser(obj, f, out);
    case Layout::kAnthropic:
      return render::RenderAnthropic(obj, out);
    case Layout::kNoTools:
      return render::RenderMessageList(obj, f, {}, out);
    case Layout::kToolsBeforeLastUser:
      return render::RenderMessageList(
          obj, f, {.tools_before_last_user = true, .system_in_last_user = false}, out);
    case Layout::kSystemInLastUser:
      return render::RenderMessageList(
          obj, f, {.tools_before_last_user = true, .system_in_last_user = true}, out);
    case Layout::kHarmony:
      return render::RenderHarmony(obj, f, out);
    case Layout::kToolsFirst:
    case Layout::kAuto:
      break;
  }
  return render::RenderToolsFirst(obj, f, out);
}

}  // namespace ltl
