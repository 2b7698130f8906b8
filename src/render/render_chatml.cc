// The three OpenAI-chat layouts (tools-first, tools-in-system, tools-in-first-user). Every message
// renders as
//   <|im_start|>ROLE[ name=NAME][
//   tool_call_id=ID]\nCONTENT[\n<tool_call>\n{...}\n</tool_call>]<|im_end|>\n
// (a uniform ChatML-style frame: the role markers are constant per message, so only the order of
// tools, system and messages changes what two requests share). reasoning_content is never rendered.
// docs/SEMANTICS.md maps each layout to the lines of the model's template it follows.
#include "render/render_parts.h"

namespace ltl::render {
namespace {

struct Messages {
  array list;
  const char* error = nullptr;
};

Messages GetMessages(object body) {
  Messages m;
  if (const char* r = MessagesProblem(body))
    m.error = r;
  else
    m.list = body.at_key("messages").get_array().value_unsafe();
  return m;
}

bool IsSystemRole(std::string_view role) {
  return role == "system" || role == "developer";
}

void Header(object msg, std::string_view role, RenderedPrompt* p) {
  p->text.append("<|im_start|>");
  p->text.append(role);
  std::string_view name = StringField(msg, "name");
  if (!name.empty()) {
    p->text.append(" name=");
    p->text.append(name);
  }
  std::string_view id = StringField(msg, "tool_call_id");
  if (!id.empty()) {
    p->text.append(" tool_call_id=");
    p->text.append(id);
  }
  p->text.push_back('\n');
}

// Content, tool calls and the closing marker of one message; `prefix` is called between the
// header and the content (the Llama layout puts the tools there).
template <typename Prefix>
void Body(object msg, bool identifies, RenderedPrompt* p, Prefix prefix) {
  prefix();
  size_t begin = Mark(p);
  element content;
  if (Field(msg, "content", &content)) AppendContent(content, p);
  if (identifies) AddSpan(begin, p);
  AppendToolCalls(msg, p);
  p->text.append("<|im_end|>\n");
}

// Renders messages[from..] in order. System messages before the first user message, and the first
// user message, mark the conversation-identifying spans. `first_user_prefix` runs inside the first
// user message before its content.
template <typename Prefix>
const char* RenderMessages(array list, size_t from, bool saw_user, RenderedPrompt* p,
                           Prefix first_user_prefix) {
  size_t i = 0;
  for (element e : list) {
    if (i++ < from) continue;
    object msg;
    if (e.get_object().get(msg)) return "message is not an object";
    std::string_view role;
    if (msg.at_key("role").get_string().get(role)) return "message without role";
    bool first_user = !saw_user && role == "user";
    bool identifies = first_user || (!saw_user && IsSystemRole(role));
    Header(msg, role, p);
    if (first_user)
      Body(msg, identifies, p, first_user_prefix);
    else
      Body(msg, identifies, p, [] {});
    if (role == "user") saw_user = true;
  }
  return nullptr;
}

}  // namespace

// GLM-4.5 / DeepSeek: a system block holding the tools comes before the whole conversation.
const char* RenderToolsFirst(object body, RenderedPrompt* p) {
  Messages m = GetMessages(body);
  if (m.error) return m.error;
  if (HasTools(body)) {
    p->text.append("<|im_start|>system\n");
    AppendToolsBlock(body, p);
    p->text.append("<|im_end|>\n");
  }
  return RenderMessages(m.list, 0, false, p, [] {});
}

// Qwen2.5 / Qwen3: the tools are appended to the first message when it is a system message, or
// form a system message of their own.
const char* RenderToolsInSystem(object body, RenderedPrompt* p) {
  Messages m = GetMessages(body);
  if (m.error) return m.error;
  size_t from = 0;
  object first;
  std::string_view role;
  bool system_first = !m.list.at(0).get_object().get(first) &&
                      !first.at_key("role").get_string().get(role) && IsSystemRole(role);
  if (HasTools(body)) {
    p->text.append("<|im_start|>system\n");
    if (system_first) {
      size_t begin = Mark(p);
      element content;
      if (Field(first, "content", &content)) AppendContent(content, p);
      AddSpan(begin, p);
      p->text.append("\n\n");
      from = 1;
    }
    AppendToolsBlock(body, p);
    p->text.append("<|im_end|>\n");
  }
  return RenderMessages(m.list, from, false, p, [] {});
}

// Llama 3.1-3.3: the system header always carries the knowledge-cutoff and date lines; with tools,
// their JSON (indent=4) opens the first user message.
const char* RenderToolsInFirstUser(object body, RenderedPrompt* p) {
  Messages m = GetMessages(body);
  if (m.error) return m.error;
  size_t from = 0;
  object first;
  std::string_view role;
  p->text.append(
      "<|im_start|>system\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n");
  if (!m.list.at(0).get_object().get(first) && !first.at_key("role").get_string().get(role) &&
      IsSystemRole(role)) {
    size_t begin = Mark(p);
    element content;
    if (Field(first, "content", &content)) AppendContent(content, p);
    AddSpan(begin, p);
    from = 1;
  }
  p->text.append("<|im_end|>\n");
  const bool tools = HasTools(body);
  return RenderMessages(m.list, from, false, p, [body, tools, p] {
    if (!tools) return;
    p->text.append(
        "Given the following functions, please respond with a JSON for a function call with its "
        "proper arguments that best answers the given prompt.\n\nRespond in the format "
        "{\"name\": function name, \"parameters\": dictionary of argument name and its value}."
        "Do not use variables.\n\n");
    AppendTools(body, PyJsonStyle{4}, "\n\n", p);
  });
}

}  // namespace ltl::render
