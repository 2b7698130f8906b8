// libFuzzer target: chat-template parsing and rendering. The input is a template source, then
// optionally "\n@@VARS@@\n" and a JSON object of variables (default: a small conversation with
// tools). Properties beyond "no crash" (ASan/UBSan): rendering is deterministic (a second render
// into a used scratch gives the same text, segment spans and error); every span lies inside the
// text, in order, without overlap; a parse failure or render error carries a message.
// fuzz/chat_template.dict gives the mutator the constructs of issue 35 (self-containing
// namespaces, deep parentheses and statements, filter chains, over-long digit strings,
// '%'-formatting); each render runs under small work and byte budgets (20,000 steps, 4 MiB), so
// the limits are reached, not merely approached, and an input costs at most a few milliseconds.
#include <simdjson.h>

#include <cstdlib>
#include <string>

#include "jinja/chat_template.h"
#include "jinja/template_messages.h"

namespace {

const char* kDefaultBody = R"({"messages": [
  {"role": "system", "content": "sys"}, {"role": "user", "content": "hi"},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "abcdefghi", "type": "function",
   "function": {"name": "f", "arguments": "{\"x\": [1, 2.5, \"y\"]}"}}]},
  {"role": "tool", "tool_call_id": "abcdefghi", "content": "ok"}],
  "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]})";

bool RenderOnce(const ltl::ChatTemplate& t, simdjson::dom::element body,
                simdjson::dom::element special, ltl::ChatTemplateScratch* s) {
  s->arena.Reset();
  s->segments.Clear();
  ltl::ChatTemplateInput input;
  input.max_steps = 20000;
  input.max_bytes = size_t{4} << 20;
  std::string reason;
  ltl::TemplateMessageOptions options;
  options.content_format = ltl::DetectContentFormat(t);
  if (!ltl::BuildTemplateInput(body, special, options, 1700000000, s, &input, &reason))
    return false;
  bool ok = t.Render(input, s);
  if (!ok && s->error.message.empty() && s->error.kind != ltl::ct::ErrorKind::kRaised) std::abort();
  return ok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string in(reinterpret_cast<const char*>(data), size);
  std::string tmpl = in, body = kDefaultBody;
  size_t sep = in.find("\n@@VARS@@\n");
  if (sep != std::string::npos) {
    tmpl = in.substr(0, sep);
    body = in.substr(sep + 10);
  }
  auto parsed = ltl::ChatTemplate::Parse(tmpl);
  if (!parsed.ok()) {
    if (parsed.status().message().empty()) std::abort();
    return 0;
  }
  simdjson::dom::parser p1, p2;
  simdjson::dom::element doc, special;
  if (p1.parse(body).get(doc) != simdjson::SUCCESS) return 0;
  if (p2.parse(std::string(R"({"bos_token": "<s>", "eos_token": "</s>"})")).get(special) !=
      simdjson::SUCCESS)
    return 0;
  ltl::ChatTemplateScratch a, b;
  bool ok_a = RenderOnce(*parsed.value(), doc, special, &a);
  bool ok_b = RenderOnce(*parsed.value(), doc, special, &b);
  // A used scratch must give the same result.
  bool ok_c = RenderOnce(*parsed.value(), doc, special, &a);
  if (ok_a != ok_b || ok_a != ok_c) std::abort();
  if (ok_a) {
    if (a.text != b.text || a.segments.spans.size() != b.segments.spans.size()) std::abort();
    size_t end = 0;
    for (const ltl::SegmentSpan& s : a.segments.spans) {
      if (s.offset < end || s.offset + s.length > a.text.size() || s.length == 0) std::abort();
      if (s.segment >= a.segments.segments.size()) std::abort();
      end = s.offset + s.length;
    }
  } else if (a.error.message != b.error.message) {
    std::abort();
  }
  return 0;
}
