// The OpenAI-chat layouts (tools-first, tools-in-system, tools-in-first-user, no-tools,
// tools-before-last-user, system-in-last-user, harmony). Every message renders as
//   <|im_start|>ROLE[ name=NAME][ tool_call_id=ID]\n[<think>\nREASONING\n</think>\n\n]CONTENT
//   [\n<tool_call>\n{...}\n</tool_call>]<|im_end|>\n
// (a uniform ChatML-style frame: the role markers are constant per message, so only what each
// family renders, and in which order, changes what two requests share). Reasoning is rendered only
// where the family's rule keeps it. docs/SEMANTICS.md describes each family.
#include <ctime>

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

// How one family's template treats the message list (our description, see docs/SEMANTICS.md).
struct MessageRules {
  size_t from = 0;                      // messages before this index are already rendered
  bool tools_in_first_user = false;     // Llama: the tools open the first user message
  bool tools_before_last_user = false;  // Mistral: a tools block just before the last user message
  bool system_in_last_user = false;     // Nemo: the system content only inside a final user message
  size_t max_calls = SIZE_MAX;          // gpt-oss: only the first of parallel tool calls
  Reasoning reasoning = Reasoning::kNever;
};

void AppendThink(std::string_view reasoning, size_t index, RenderedPrompt* p) {
  p->text.append("<think>\n");
  const size_t begin = p->text.size();
  p->text.append(reasoning);
  Segment seg = MessageSegment("assistant", index);
  seg.kind = SegmentKind::kReasoning;
  LabelSpan(begin, seg, p);
  p->text.append("\n</think>\n\n");
}

void ToolsFrame(object body, RenderedPrompt* p) {
  p->text.append("<|im_start|>tools\n");
  AppendToolsBlock(body, p);
  p->text.append("<|im_end|>\n");
}

// Renders messages[r.from..] in order. System messages before the first user message, and the first
// user message, mark the conversation-identifying spans.
const char* RenderMessages(object body, array list, const MessageRules& r, RenderedPrompt* p) {
  // Indexes the rules depend on: the last user message and the leading system message (Nemo moves
  // it).
  size_t last_user = SIZE_MAX, n = 0;
  object system_msg;
  bool has_system = false;
  for (element e : list) {
    object msg;
    std::string_view role;
    if (!e.get_object().get(msg) && !msg.at_key("role").get_string().get(role)) {
      if (role == "user") last_user = n;
      if (n == 0 && IsSystemRole(role)) {
        system_msg = msg;
        has_system = true;
      }
    }
    ++n;
  }
  const bool tools = HasTools(body);
  bool saw_user = false;
  size_t i = 0;
  for (element e : list) {
    const size_t index = i++;
    if (index < r.from) continue;
    object msg;
    if (e.get_object().get(msg)) return "message is not an object";
    std::string_view role;
    if (msg.at_key("role").get_string().get(role)) return "message without role";
    if (r.system_in_last_user && index == 0 && has_system) continue;
    if (r.tools_before_last_user && tools && index == last_user) ToolsFrame(body, p);
    const bool first_user = !saw_user && role == "user";
    const bool identifies = first_user || (!saw_user && IsSystemRole(role));
    Header(msg, role, p);
    if (first_user && r.tools_in_first_user && tools) {
      p->text.append(
          "Given the following functions, please respond with a JSON for a function call with its "
          "proper arguments that best answers the given prompt.\n\nRespond in the format "
          "{\"name\": function name, \"parameters\": dictionary of argument name and its value}."
          "Do not use variables.\n\n");
      AppendTools(body, PyJsonStyle{4}, "\n\n", p);
    }
    if (r.system_in_last_user && has_system && role == "user" && index + 1 == n) {
      element content;
      ContentAs as(p, MessageSegment("system", 0));
      if (Field(system_msg, "content", &content)) AppendContent(content, p);
      p->text.append("\n\n");
    }
    // The client's `reasoning` is what vLLM hands the template as `reasoning_content` (it drops
    // an incoming `reasoning_content` itself; docs/SEMANTICS.md, "Reasoning").
    if (role == "assistant" && r.reasoning == Reasoning::kCurrentTurn &&
        (last_user == SIZE_MAX || index > last_user)) {
      const std::string_view reasoning = StringField(msg, "reasoning");
      if (!reasoning.empty()) AppendThink(reasoning, index, p);
    }
    const size_t begin = Mark(p);
    element content;
    ContentAs as(p, MessageSegment(role, index));
    if (Field(msg, "content", &content)) AppendContent(content, p);
    if (identifies) AddSpan(begin, p);
    AppendToolCalls(msg, p, r.max_calls);
    p->text.append("<|im_end|>\n");
    if (role == "user") saw_user = true;
  }
  return nullptr;
}

// The first message when it is a system/developer message.
bool SystemFirst(array list, object* first) {
  std::string_view role;
  return !list.at(0).get_object().get(*first) && !first->at_key("role").get_string().get(role) &&
         IsSystemRole(role);
}

// The leading system/developer message's content where a layout moves it (into a system block of
// its own making), labelled as message 0 and marked as the span that identifies the conversation.
void AppendLeadingSystem(object first, RenderedPrompt* p) {
  const size_t begin = Mark(p);
  element content;
  ContentAs as(p, MessageSegment(StringField(first, "role"), 0));
  if (Field(first, "content", &content)) AppendContent(content, p);
  AddSpan(begin, p);
}

// The rules every layout starts from: the family's reasoning rule, every message rendered.
MessageRules RulesOf(const FamilyRules& f) {
  MessageRules r;
  r.reasoning = f.reasoning;
  return r;
}

}  // namespace

// GLM-4.5 / unknown models: a system block holding the tools comes before the whole conversation.
const char* RenderToolsFirst(object body, const FamilyRules& f, RenderedPrompt* p) {
  Messages m = GetMessages(body);
  if (m.error) return m.error;
  if (HasTools(body)) {
    p->text.append("<|im_start|>system\n");
    AppendToolsBlock(body, p);
    p->text.append("<|im_end|>\n");
  }
  MessageRules r = RulesOf(f);
  return RenderMessages(body, m.list, r, p);
}

// Qwen2.5 / Qwen3: the tools are appended to the first message when it is a system message, or
// form a system message of their own.
const char* RenderToolsInSystem(object body, const FamilyRules& f, RenderedPrompt* p) {
  Messages m = GetMessages(body);
  if (m.error) return m.error;
  MessageRules r = RulesOf(f);
  object first;
  const bool system_first = SystemFirst(m.list, &first);
  if (HasTools(body)) {
    p->text.append("<|im_start|>system\n");
    if (system_first) {
      AppendLeadingSystem(first, p);
      p->text.append("\n\n");
      r.from = 1;
    }
    AppendToolsBlock(body, p);
    p->text.append("<|im_end|>\n");
  }
  return RenderMessages(body, m.list, r, p);
}

// Llama 3.1-3.3: the system header always carries the knowledge-cutoff and date lines; with tools,
// their JSON (indent=4) opens the first user message.
const char* RenderToolsInFirstUser(object body, const FamilyRules& f, RenderedPrompt* p) {
  Messages m = GetMessages(body);
  if (m.error) return m.error;
  MessageRules r = RulesOf(f);
  r.tools_in_first_user = true;
  object first;
  p->text.append(
      "<|im_start|>system\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n");
  if (SystemFirst(m.list, &first)) {
    AppendLeadingSystem(first, p);
    r.from = 1;
  }
  p->text.append("<|im_end|>\n");
  return RenderMessages(body, m.list, r, p);
}

// The layouts that render the message list alone: DeepSeek V3 / V3.1 / R1 never render the tool
// definitions; Mistral (Small, Large, Magistral, Devstral, ...) keeps the system prompt first and
// puts the tools block just before the last user message, so it moves every turn; Mistral Nemo
// places the tools as Mistral and renders the leading system message only inside the last user
// message when the request ends with it (in a tool loop it is not rendered at all).
const char* RenderMessageList(object body, const FamilyRules& f, ListPlacement where,
                              RenderedPrompt* p) {
  Messages m = GetMessages(body);
  if (m.error) return m.error;
  MessageRules r = RulesOf(f);
  r.tools_before_last_user = where.tools_before_last_user;
  r.system_in_last_user = where.system_in_last_user;
  return RenderMessages(body, m.list, r, p);
}

// gpt-oss (harmony): a system block whose "Current date: YYYY-MM-DD" line comes from the request's
// own time (so cross-conversation reuse resets daily), then the system/developer content and the
// tools; assistant messages render only their first tool call. No reasoning: the template reads a
// message's `thinking`, a key vLLM's message model drops, so no analysis channel reaches it.
const char* RenderHarmony(object body, const FamilyRules& f, RenderedPrompt* p) {
  Messages m = GetMessages(body);
  if (m.error) return m.error;
  MessageRules r;
  r.max_calls = 1;
  const std::time_t t = static_cast<std::time_t>(f.now_unix_seconds);
  std::tm tm{};
  char date[32] = "1970-01-01";
  if (gmtime_r(&t, &tm)) std::strftime(date, sizeof date, "%Y-%m-%d", &tm);
  p->text.append("<|im_start|>system\nCurrent date: ");
  p->text.append(date);
  p->text.append("<|im_end|>\n");
  object first;
  const bool system_first = SystemFirst(m.list, &first);
  if (system_first || HasTools(body)) {
    p->text.append("<|im_start|>developer\n");
    if (system_first) {
      AppendLeadingSystem(first, p);
      p->text.append("\n\n");
      r.from = 1;
    }
    if (HasTools(body)) AppendToolsBlock(body, p);
    p->text.append("<|im_end|>\n");
  }
  return RenderMessages(body, m.list, r, p);
}

}  // namespace ltl::render
