// Test driver for the chat-template oracle tests: renders one template over JSON lines and prints
// one JSON line per input: {"ok": true, "text": ...} or {"ok": false, "error": ...}.
//
//   chat_template_driver TEMPLATE --vars FILE.jsonl
//       each line is the template's variables (messages, tools, add_generation_prompt, ...);
//       an optional "__now__" key (unix seconds) is what strftime_now formats.
//   chat_template_driver TEMPLATE --requests FILE.jsonl [--special-tokens JSON]
//       each line is an OpenAI chat or Anthropic Messages body, turned into template variables
//       by the engine rules of jinja/template_messages.h.
//   --segments adds the segment map ({"spans": [[offset, length, kind, role, message, index]]}).
// A template that does not parse prints {"parse_error": ...} once and exits 0.
#include <simdjson.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "jinja/chat_template.h"
#include "jinja/json.h"
#include "jinja/py_json.h"
#include "jinja/template_messages.h"

namespace {

std::string ReadFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void PrintResult(bool ok, const ltl::ChatTemplateScratch& s, bool segments) {
  std::string line;
  if (ok) {
    line = "{\"ok\": true, \"text\": ";
    ltl::AppendPyJsonString(s.text, &line);
    if (segments) {
      line += ", \"spans\": [";
      for (size_t i = 0; i < s.segments.spans.size(); ++i) {
        const ltl::SegmentSpan& sp = s.segments.spans[i];
        const ltl::Segment& seg = s.segments.segments[sp.segment];
        if (i) line += ", ";
        char buf[160];
        std::snprintf(buf, sizeof(buf), "[%zu, %zu, \"%s\", \"%s\", %d, %d]", sp.offset, sp.length,
                      ltl::SegmentKindName(seg.kind), ltl::SegmentRoleName(seg.role), seg.message,
                      seg.index);
        line += buf;
      }
      line += "]";
    }
    line += "}";
  } else {
    line = "{\"ok\": false, \"kind\": \"";
    line += ltl::ct::ErrorKindName(s.error.kind);
    line += "\", \"error\": ";
    ltl::AppendPyJsonString(s.error.ToString(), &line);
    line += "}";
  }
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s TEMPLATE --vars|--requests FILE [--special-tokens JSON] [--segments]\n",
                 argv[0]);
    return 2;
  }
  std::string mode = argv[2];
  std::string special = "{}";
  bool segments = false;
  for (int i = 4; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--special-tokens" && i + 1 < argc) special = argv[++i];
    if (a == "--segments") segments = true;
  }
  auto parsed = ltl::ChatTemplate::Parse(ReadFile(argv[1]));
  if (!parsed.ok()) {
    std::string line = "{\"parse_error\": ";
    ltl::AppendPyJsonString(parsed.status().message(), &line);
    std::printf("%s}\n", line.c_str());
    return 0;
  }
  const ltl::ChatTemplate& tmpl = *parsed.value();
  simdjson::dom::parser special_parser;
  simdjson::dom::element special_dom;
  if (special_parser.parse(special).get(special_dom) != simdjson::SUCCESS) {
    std::fprintf(stderr, "bad --special-tokens JSON\n");
    return 2;
  }
  ltl::TemplateMessageOptions options;
  options.content_format = ltl::DetectContentFormat(tmpl);
  std::ifstream in(argv[3], std::ios::binary);
  std::string line;
  simdjson::dom::parser parser;
  ltl::ChatTemplateScratch scratch;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    simdjson::dom::element doc;
    if (parser.parse(line).get(doc) != simdjson::SUCCESS) {
      std::printf("{\"ok\": false, \"kind\": \"input\", \"error\": \"bad JSON line\"}\n");
      continue;
    }
    scratch.arena.Reset();
    scratch.segments.Clear();
    ltl::ChatTemplateInput input;
    if (mode == "--vars") {
      simdjson::dom::object obj;
      if (doc.get(obj) != simdjson::SUCCESS) continue;
      for (auto field : obj) {
        if (field.key == "__now__") {
          int64_t now = 0;
          if (field.value.get(now) == simdjson::SUCCESS) input.now_unix_seconds = now;
          continue;
        }
        input.Set(std::string(field.key),
                  ltl::ct::FromDom(field.value, ltl::ct::kFraming, &scratch.arena));
      }
    } else {
      std::string reason;
      int64_t now = 0;
      simdjson::dom::element t;
      if (doc["__now__"].get(t) == simdjson::SUCCESS && t.get(now) != simdjson::SUCCESS) now = 0;
      if (!ltl::BuildTemplateInput(doc, special_dom, options, now, &scratch, &input, &reason)) {
        std::string out = "{\"ok\": false, \"kind\": \"request\", \"error\": ";
        ltl::AppendPyJsonString(reason, &out);
        std::printf("%s}\n", out.c_str());
        continue;
      }
    }
    bool ok = tmpl.Render(input, &scratch);
    PrintResult(ok, scratch, segments);
  }
  return 0;
}
