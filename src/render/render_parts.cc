// Shared rendering pieces (see render_parts.h).
#include "render/render_parts.h"

#include <fmt/format.h>

#include "common/siphash.h"

namespace ltl::render {
namespace {

// A fixed, public key: attachment digests only need to be stable and distinct; the rendered text
// they sit in is hashed with the secret salt before anything leaves the process.
constexpr SipKey kDigestKey{0x6c6c6d7472616666ull, 0x69636c656e736469ull};

void AppendBlock(element part, RenderedPrompt* p);

void AppendToolResultContent(element content, RenderedPrompt* p) {
  AppendContent(content, p);
}

void AppendBlock(element part, RenderedPrompt* p) {
  if (part.is_string()) {
    p->text.append(part.get_string().value_unsafe());
    return;
  }
  object obj;
  if (part.get_object().get(obj)) {
    AppendPyJson(part, PyJsonStyle{}, &p->text);
    return;
  }
  std::string_view type = StringField(obj, "type");
  element v;
  if (type == "text" || type == "input_text" || type == "output_text") {
    p->text.append(StringField(obj, "text"));
  } else if (type == "image_url" || type == "image" || type == "input_image") {
    p->has_image = true;
    element src;
    if (Field(obj, "image_url", &src) || Field(obj, "source", &src))
      AppendDigest("image", src, p);
    else
      AppendDigest("image", part, p);
  } else if (type == "document" || type == "file" || type == "input_file" ||
             type == "input_audio") {
    p->has_file = true;
    element src;
    if (Field(obj, "source", &src) || Field(obj, "file", &src) || Field(obj, "input_audio", &src))
      AppendDigest(type == "input_audio" ? "audio" : "document", src, p);
    else
      AppendDigest("document", part, p);
  } else if (type == "tool_use" || type == "server_tool_use") {
    p->text.append("<tool_use id=\"");
    p->text.append(StringField(obj, "id"));
    p->text.append("\" name=\"");
    p->text.append(StringField(obj, "name"));
    p->text.append("\">");
    if (Field(obj, "input", &v)) AppendPyJson(v, PyJsonStyle{}, &p->text);
    p->text.append("</tool_use>");
  } else if (type == "tool_result") {
    p->text.append("<tool_result tool_use_id=\"");
    p->text.append(StringField(obj, "tool_use_id"));
    p->text.append("\"");
    bool is_error = false;
    if (Field(obj, "is_error", &v) && v.is_bool() && v.get_bool().value_unsafe()) is_error = true;
    p->text.append(is_error ? " is_error>" : ">");
    if (Field(obj, "content", &v)) AppendToolResultContent(v, p);
    p->text.append("</tool_result>");
  } else if (type == "thinking") {
    // The thinking text is part of the prefix Anthropic caches; its `signature` is not rendered.
    p->text.append("<thinking>");
    p->text.append(StringField(obj, "thinking"));
    p->text.append("</thinking>");
  } else if (type == "redacted_thinking") {
    if (Field(obj, "data", &v)) AppendDigest("redacted_thinking", v, p);
  } else {
    // Unknown part types render as their JSON (cache_control dropped), so they still count.
    AppendPyJson(part, PyJsonStyle{}, &p->text);
  }
}

}  // namespace

std::string_view StringField(object obj, std::string_view key) {
  std::string_view s;
  if (obj.at_key(key).get_string().get(s)) return {};
  return s;
}

bool Field(object obj, std::string_view key, element* out) {
  if (obj.at_key(key).get(*out)) return false;
  return !out->is_null();
}

void LabelSpan(size_t begin, const Segment& s, RenderedPrompt* p) {
  if (s.kind == SegmentKind::kFraming || p->text.size() <= begin) return;
  const uint32_t id = p->segments.Add(s);
  p->segments.spans.push_back(SegmentSpan{begin, p->text.size() - begin, id});
}

SegmentRole RoleOf(std::string_view role) {
  if (role == "system") return SegmentRole::kSystem;
  if (role == "developer") return SegmentRole::kDeveloper;
  if (role == "user") return SegmentRole::kUser;
  if (role == "assistant") return SegmentRole::kAssistant;
  if (role == "tool" || role == "function") return SegmentRole::kTool;
  return SegmentRole::kOther;
}

Segment MessageSegment(std::string_view role, size_t index) {
  Segment s;
  s.role = RoleOf(role);
  s.message = static_cast<int32_t>(index);
  s.kind = s.role == SegmentRole::kSystem || s.role == SegmentRole::kDeveloper
               ? SegmentKind::kSystem
           : s.role == SegmentRole::kTool ? SegmentKind::kToolResult
                                          : SegmentKind::kMessage;
  return s;
}

namespace {

// The segment of one content block inside a message labelled `base`.
Segment BlockSegment(element part, const Segment& base) {
  Segment s = base;
  object obj;
  if (part.get_object().get(obj)) return s;
  const std::string_view type = StringField(obj, "type");
  if (type == "tool_use" || type == "server_tool_use")
    s.kind = SegmentKind::kToolCall;
  else if (type == "tool_result")
    s.kind = SegmentKind::kToolResult;
  else if (type == "thinking" || type == "redacted_thinking")
    s.kind = SegmentKind::kReasoning;
  return s;
}

}  // namespace

void AppendContent(element content, RenderedPrompt* p) {
  const bool label = p->content_depth == 0;
  const Segment base = p->content_segment;
  ++p->content_depth;
  const size_t begin = p->text.size();
  if (content.is_string()) {
    p->text.append(content.get_string().value_unsafe());
  } else if (content.is_array()) {
    array content_list = content.get_array().value_unsafe();
    for (element part : content_list) {
      const size_t part_begin = p->text.size();
      AppendBlock(part, p);
      if (label) LabelSpan(part_begin, BlockSegment(part, base), p);
    }
  } else if (content.is_object()) {
    AppendBlock(content, p);
    if (label) LabelSpan(begin, BlockSegment(content, base), p);
  } else if (!content.is_null()) {
    AppendPyJson(content, PyJsonStyle{}, &p->text);
  }
  if (label && !content.is_array() && !content.is_object()) LabelSpan(begin, base, p);
  --p->content_depth;
}

void AppendDigest(std::string_view kind, element e, RenderedPrompt* p) {
  std::string json;
  if (e.is_string())
    json.assign(e.get_string().value_unsafe());
  else
    AppendPyJson(e, PyJsonStyle{}, &json);
  p->text.append(fmt::format("<{} {:016x}>", kind, SipHash24(kDigestKey, json)));
}

void AppendToolCalls(object msg, RenderedPrompt* p, size_t max_calls) {
  int32_t call = 0;
  auto one = [p, &call](object fn) {
    Segment seg = p->content_segment;
    if (seg.kind != SegmentKind::kFraming) {
      seg.kind = SegmentKind::kToolCall;
      seg.index = call;
    }
    ++call;
    const size_t begin = p->text.size();
    p->text.append("\n<tool_call>\n{\"name\": ");
    AppendPyJsonString(StringField(fn, "name"), &p->text);
    p->text.append(", \"arguments\": ");
    element args;
    if (Field(fn, "arguments", &args)) {
      if (args.is_string())
        p->text.append(args.get_string().value_unsafe());  // the client's JSON text, verbatim
      else
        AppendPyJson(args, PyJsonStyle{}, &p->text);
    } else {
      p->text.append("{}");
    }
    p->text.append("}\n</tool_call>");
    LabelSpan(begin, seg, p);
  };
  element calls;
  if (Field(msg, "tool_calls", &calls) && calls.is_array()) {
    array calls_list = calls.get_array().value_unsafe();
    for (element c : calls_list) {
      if (max_calls == 0) return;
      object call, fn;
      if (c.get_object().get(call)) continue;
      if (call.at_key("function").get_object().get(fn)) continue;
      one(fn);
      --max_calls;
    }
  }
  if (max_calls == 0) return;
  object fc;
  if (!msg.at_key("function_call").get_object().get(fc)) one(fc);
}

const char* MessagesProblem(object body) {
  element m;
  if (body.at_key("messages").get(m) || m.is_null()) return "missing messages";
  if (!m.is_array()) return "messages is not an array";
  if (m.get_array().value_unsafe().size() == 0) return "missing messages";
  return nullptr;
}

bool HasTools(object body) {
  array a;
  if (!body.at_key("tools").get_array().get(a) && a.size() > 0) return true;
  if (!body.at_key("functions").get_array().get(a) && a.size() > 0) return true;
  return false;
}

bool AppendTools(object body, const PyJsonStyle& style, std::string_view sep, RenderedPrompt* p) {
  array a;
  if (body.at_key("tools").get_array().get(a) || a.size() == 0) {
    if (body.at_key("functions").get_array().get(a) || a.size() == 0) return false;
  }
  p->tools_begin = p->text.size();
  int32_t k = 0;
  for (element t : a) {
    const size_t begin = p->text.size();
    AppendPyJson(t, style, &p->text);
    p->text.append(sep);
    Segment seg;
    seg.kind = SegmentKind::kTools;
    seg.index = k++;
    LabelSpan(begin, seg, p);
  }
  p->tools_end = p->text.size();
  return true;
}

void AppendToolsBlock(object body, RenderedPrompt* p) {
  p->text.append(
      "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
      "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n");
  AppendTools(body, PyJsonStyle{}, "\n", p);
  p->text.append(
      "</tools>\n\nFor each function call, return a json object with function name and arguments "
      "within <tool_call></tool_call> XML tags.");
}

}  // namespace ltl::render
