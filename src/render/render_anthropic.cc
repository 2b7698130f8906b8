// The anthropic layout, in Anthropic's cache-prefix order: tools -> system -> messages.
//   <tools>\nTOOL JSON\n...</tools>\n<system>\nSYSTEM\n</system>\n\n\nHuman: ...\n\nAssistant: ...
// Anthropic Messages bodies render their content blocks (text, image/document digests, tool_use,
// tool_result, thinking without its signature, redacted_thinking digest); cache_control is dropped
// everywhere. OpenAI-format bodies for claude-* models (e.g. through LiteLLM) get the same order:
// their system/developer messages are hoisted into the system section, as the gateway's translation
// to the Messages API does, and tool messages become tool results in a Human turn.
#include "render/render_parts.h"

namespace ltl::render {
namespace {

void AppendSystem(object body, RenderedPrompt* p) {
  element sys;
  bool any = false;
  size_t begin = 0;
  auto open = [&] {
    if (!any) {
      p->text.append("<system>\n");
      begin = Mark(p);
      any = true;
    }
  };
  if (Field(body, "system", &sys)) {
    open();
    Segment top = MessageSegment("system", 0);
    top.message = -1;  // the top-level system, before every message
    ContentAs as(p, top);
    if (sys.is_array()) {
      array sys_list = sys.get_array().value_unsafe();
      for (element b : sys_list) {
        AppendContent(b, p);
        p->text.push_back('\n');
      }
    } else {
      AppendContent(sys, p);
    }
  }
  array msgs;
  if (!body.at_key("messages").get_array().get(msgs)) {
    size_t index = 0;
    for (element e : msgs) {
      const size_t i = index++;
      object m;
      std::string_view role;
      if (e.get_object().get(m) || m.at_key("role").get_string().get(role)) continue;
      if (role != "system" && role != "developer") continue;
      open();
      element c;
      ContentAs as(p, MessageSegment(role, i));
      if (Field(m, "content", &c)) AppendContent(c, p);
      p->text.push_back('\n');
    }
  }
  if (any) {
    AddSpan(begin, p);
    p->text.append("</system>\n");
  }
}

}  // namespace

const char* RenderAnthropic(object body, RenderedPrompt* p) {
  array msgs;
  if (const char* r = MessagesProblem(body)) return r;
  msgs = body.at_key("messages").get_array().value_unsafe();
  if (HasTools(body)) {
    p->text.append("<tools>\n");
    AppendTools(body, PyJsonStyle{}, "\n", p);
    p->text.append("</tools>\n");
  }
  AppendSystem(body, p);
  bool saw_user = false;
  size_t index = 0;
  for (element e : msgs) {
    const size_t i = index++;
    object msg;
    if (e.get_object().get(msg)) return "message is not an object";
    std::string_view role;
    if (msg.at_key("role").get_string().get(role)) return "message without role";
    if (role == "system" || role == "developer") continue;  // hoisted above
    const bool first_user = !saw_user && role == "user";
    if (role == "assistant") {
      p->text.append("\n\nAssistant: ");
    } else {
      p->text.append("\n\nHuman: ");
    }
    std::string_view name = StringField(msg, "name");
    if (!name.empty()) {
      p->text.append("[");
      p->text.append(name);
      p->text.append("] ");
    }
    std::string_view call_id = StringField(msg, "tool_call_id");
    const bool tool_msg = role == "tool" || role == "function";
    if (tool_msg) {
      p->text.append("<tool_result tool_use_id=\"");
      p->text.append(call_id);
      p->text.append("\">");
    }
    size_t begin = Mark(p);
    element content;
    ContentAs as(p, MessageSegment(role, i));
    if (Field(msg, "content", &content)) AppendContent(content, p);
    if (first_user) AddSpan(begin, p);
    if (tool_msg) p->text.append("</tool_result>");
    AppendToolCalls(msg, p);
    if (role == "user") saw_user = true;
  }
  return nullptr;
}

}  // namespace ltl::render
