// ModelChatTemplate: loading a model's chat template(s) and rendering request bodies with them
// (see model_chat_template.h).
#include "render/model_chat_template.h"

#include <fstream>
#include <sstream>

#include "common/json_memory.h"
#include "jinja/py_json.h"

namespace ltl {

namespace {

Result<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(path + ": cannot open");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::IoError(path + ": read error");
  return ss.str();
}

// tokenizer_config.json files often hold `"model_max_length": 1000000000000000019884624838656`
// (transformers' VERY_LARGE_INTEGER), an integer simdjson's DOM refuses (NUMBER_ERROR: it does not
// fit 64 bits), so the whole file would fail to parse. Written by hand because no parser option
// does it: integer literals of 20 digits or more (outside strings) get ".0" appended, which makes
// them doubles; no value we read (special tokens, templates) is a number.
std::string WidenHugeIntegers(std::string_view json) {
  std::string out;
  out.reserve(json.size() + 16);
  bool in_string = false;
  for (size_t i = 0; i < json.size();) {
    const char c = json[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < json.size()) {
        out += json[i + 1];
        i += 2;
        continue;
      }
      if (c == '"') in_string = false;
      ++i;
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      ++i;
      continue;
    }
    if (c >= '0' && c <= '9') {
      size_t j = i;
      while (j < json.size() && json[j] >= '0' && json[j] <= '9') ++j;
      out.append(json.substr(i, j - i));
      const bool fraction = j < json.size() && (json[j] == '.' || json[j] == 'e' || json[j] == 'E');
      if (j - i >= 20 && !fraction) out += ".0";
      i = j;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

// Parses a tokenizer_config.json into `p`; *text may be replaced by its widened form (above).
bool ParseConfigObject(std::string* text, simdjson::dom::parser* p, simdjson::dom::object* obj) {
  auto err = p->parse(*text).get(*obj);
  if (err == simdjson::NUMBER_ERROR) {
    *text = WidenHugeIntegers(*text);
    err = p->parse(*text).get(*obj);
  }
  return err == simdjson::SUCCESS;
}

std::string DirOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// The value of `key` in the JSON object `v`, the LAST one when the key repeats: transformers reads
// tokenizer_config.json with Python's json, whose dict keeps the last duplicate (simdjson's
// lookup finds the first; issue 35, item 17).
bool LastKey(simdjson::dom::object obj, std::string_view key, simdjson::dom::element* out) {
  bool found = false;
  for (auto field : obj) {
    if (field.key == key) {
      *out = field.value;
      found = true;
    }
  }
  return found;
}
bool LastKey(simdjson::dom::element v, std::string_view key, simdjson::dom::element* out) {
  simdjson::dom::object obj;
  return v.get(obj) == simdjson::SUCCESS && LastKey(obj, key, out);
}

// transformers' SPECIAL_TOKENS_ATTRIBUTES: a string, or an AddedToken object's "content".
const char* const kSpecialTokenKeys[] = {"bos_token", "eos_token", "unk_token", "sep_token",
                                         "pad_token", "cls_token", "mask_token"};

bool TokenContent(simdjson::dom::element v, std::string_view* out) {
  if (v.get(*out) == simdjson::SUCCESS) return true;
  simdjson::dom::element c;
  return LastKey(v, "content", &c) && c.get(*out) == simdjson::SUCCESS;
}

// The special tokens map of a tokenizer_config.json as a JSON object.
std::string SpecialTokensJson(simdjson::dom::object config) {
  std::string out = "{";
  bool first = true;
  auto add_key = [&](std::string_view k) {
    if (!first) out += ", ";
    first = false;
    AppendPyJsonString(k, &out);
    out += ": ";
  };
  for (const char* key : kSpecialTokenKeys) {
    simdjson::dom::element v;
    std::string_view s;
    if (LastKey(config, key, &v) && TokenContent(v, &s)) {
      add_key(key);
      AppendPyJsonString(s, &out);
    }
  }
  simdjson::dom::array extra;
  simdjson::dom::element extra_value;
  if (LastKey(config, "additional_special_tokens", &extra_value) &&
      extra_value.get(extra) == simdjson::SUCCESS) {
    add_key("additional_special_tokens");
    out += "[";
    bool first_item = true;
    for (simdjson::dom::element v : extra) {
      std::string_view s;
      if (!TokenContent(v, &s)) continue;
      if (!first_item) out += ", ";
      first_item = false;
      AppendPyJsonString(s, &out);
    }
    out += "]";
  }
  return out + "}";
}

bool BodyHasTools(simdjson::dom::element body) {
  simdjson::dom::array tools;
  return body["tools"].get(tools) == simdjson::SUCCESS && tools.size() > 0;
}

}  // namespace

std::string ChatTemplateSkipReason(const ChatTemplateError& e) {
  std::string where;
  if (e.line > 0) where = " (line " + std::to_string(e.line) + ":" + std::to_string(e.column) + ")";
  if (e.kind == ct::ErrorKind::kRaised) {
    return "chat template raised: " + (e.safe_message.empty() ? "(no message)" : e.safe_message) +
           where;
  }
  // Our own limits are fixed phrases naming the limit (no request text): say which was hit.
  if (e.kind == ct::ErrorKind::kLimit) return "chat template limit: " + e.message + where;
  // Other errors can quote request values (a missing key's name): only the kind and position.
  return std::string("chat template error: ") + ct::ErrorKindName(e.kind) + where;
}

Result<ModelChatTemplatePtr> ModelChatTemplate::Load(const std::string& path) {
  auto bytes = ReadWholeFile(path);
  if (!bytes.ok()) return bytes.status();
  std::string& text = bytes.value();
  size_t i = 0;
  while (i < text.size() &&
         (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t' ||
          text[i] == '\xEF' || text[i] == '\xBB' || text[i] == '\xBF')) {
    ++i;
  }
  if (i < text.size() && text[i] == '{') {
    // A JSON object: a tokenizer_config.json (a Jinja template never starts with "{" followed
    // by valid JSON; "{{" / "{%" fail to parse as JSON and fall through).
    simdjson::dom::parser p;
    simdjson::dom::object obj;
    if (ParseConfigObject(&text, &p, &obj)) return FromTokenizerConfig(text, path);
  }
  std::string special = "{}";
  auto config = ReadWholeFile(DirOf(path) + "/tokenizer_config.json");
  if (config.ok()) {
    simdjson::dom::parser p;
    simdjson::dom::object obj;
    if (ParseConfigObject(&config.value(), &p, &obj)) special = SpecialTokensJson(obj);
  }
  return FromJinja(std::move(text), std::move(special), path);
}

Result<ModelChatTemplatePtr> ModelChatTemplate::FromTokenizerConfig(std::string_view json,
                                                                    const std::string& origin) {
  simdjson::dom::parser p;
  simdjson::dom::object config;
  std::string text(json);
  if (!ParseConfigObject(&text, &p, &config)) {
    return Status::InvalidArgument(origin + ": not a JSON object");
  }
  std::shared_ptr<ModelChatTemplate> m(new ModelChatTemplate());
  m->special_json_ = SpecialTokensJson(config);
  simdjson::dom::element chat;
  if (!LastKey(config, "chat_template", &chat) || chat.is_null()) {
    return Status::InvalidArgument(origin +
                                   ": no chat_template (this tokenizer_config.json ships "
                                   "none; pass the model's .jinja file instead)");
  }
  std::vector<std::pair<std::string, std::string>> sources;
  std::string_view single;
  simdjson::dom::array list;
  if (chat.get(single) == simdjson::SUCCESS) {
    sources.emplace_back("default", std::string(single));
  } else if (chat.get(list) == simdjson::SUCCESS) {
    size_t k = 0;
    for (simdjson::dom::element e : list) {
      std::string_view name, tmpl;
      simdjson::dom::element name_value, tmpl_value;
      if (!LastKey(e, "name", &name_value) || name_value.get(name) != simdjson::SUCCESS ||
          !LastKey(e, "template", &tmpl_value) || tmpl_value.get(tmpl) != simdjson::SUCCESS) {
        return Status::InvalidArgument(origin + ": chat_template[" + std::to_string(k) +
                                       "] is not {\"name\": ..., \"template\": ...}");
      }
      sources.emplace_back(std::string(name), std::string(tmpl));
      ++k;
    }
  } else {
    return Status::InvalidArgument(origin + ": chat_template is neither a string nor a list");
  }
  for (auto& [name, source] : sources) {
    auto parsed = ChatTemplate::Parse(std::move(source));
    if (!parsed.ok()) {
      std::string message = origin;
      message.append(": template '").append(name).append("': ").append(parsed.status().message());
      return Status::InvalidArgument(message);
    }
    Named n{name, parsed.value(), DetectContentFormat(*parsed.value())};
    m->templates_.push_back(std::move(n));
  }
  if (!m->Choose(false) && !m->Choose(true)) {
    return Status::InvalidArgument(origin + ": several chat templates and none named 'default'");
  }
  m->description_ = origin;
  if (sources.size() > 1) {
    m->description_ += " (";
    for (size_t i = 0; i < m->templates_.size(); ++i)
      m->description_ += (i ? ", " : "") + m->templates_[i].name;
    m->description_ += ")";
  }
  return ModelChatTemplatePtr(std::move(m));
}

Result<ModelChatTemplatePtr> ModelChatTemplate::FromJinja(std::string source,
                                                          std::string special_json,
                                                          std::string origin) {
  auto parsed = ChatTemplate::Parse(std::move(source));
  if (!parsed.ok()) return Status::InvalidArgument(origin + ": " + parsed.status().message());
  simdjson::dom::parser p;
  simdjson::dom::object obj;
  if (p.parse(special_json).get(obj) != simdjson::SUCCESS) {
    return Status::InvalidArgument(origin + ": special tokens are not a JSON object");
  }
  std::shared_ptr<ModelChatTemplate> m(new ModelChatTemplate());
  m->templates_.push_back(Named{"default", parsed.value(), DetectContentFormat(*parsed.value())});
  m->special_json_ = std::move(special_json);
  m->description_ = std::move(origin);
  return ModelChatTemplatePtr(std::move(m));
}

std::vector<std::string> ModelChatTemplate::names() const {
  std::vector<std::string> out;
  for (const Named& n : templates_) out.push_back(n.name);
  return out;
}

const ModelChatTemplate::Named* ModelChatTemplate::Choose(bool has_tools) const {
  if (templates_.size() == 1) return &templates_[0];
  const Named* fallback = nullptr;
  for (const Named& n : templates_) {
    if (has_tools && n.name == "tool_use") return &n;
    if (n.name == "default") fallback = &n;
  }
  return fallback;
}

bool ModelChatTemplate::Render(simdjson::dom::element body, int64_t now_unix_seconds,
                               ModelTemplateScratch* scratch, RenderedPrompt* out,
                               std::string* reason) const {
  out->Clear();
  const Named* t = Choose(BodyHasTools(body));
  if (!t) {
    // transformers raises ValueError: several templates, none for this request.
    *reason = "chat template: no 'default' template for a request without tools";
    return false;
  }
  if (!scratch->special_parsed) {
    if (JsonOrOutOfMemory(scratch->special_parser.parse(special_json_).get(scratch->special)) !=
        simdjson::SUCCESS) {
      *reason = "chat template: special tokens are not JSON";
      return false;
    }
    scratch->special_parsed = true;
  }
  ChatTemplateScratch& s = scratch->render;
  s.arena.Reset();
  s.segments.Clear();
  ChatTemplateInput input;
  TemplateMessageOptions options;
  options.content_format = t->format;
  std::string why;
  if (!BuildTemplateInput(body, scratch->special, options, now_unix_seconds, &s, &input, &why)) {
    *reason = "request refused before the chat template: " + why;
    return false;
  }
  if (!t->tmpl->Render(input, &s)) {
    *reason = ChatTemplateSkipReason(s.error);
    return false;
  }
  out->text = s.text;
  out->segments = s.segments;
  out->anthropic_body = IsAnthropicMessagesBody(body);
  // Conversation spans: the system content and the first user message's content; tool span:
  // from the first rendered tool byte to the last.
  int first_user = -1;
  for (const Segment& seg : s.segments.segments) {
    if (seg.kind == SegmentKind::kMessage && seg.role == SegmentRole::kUser &&
        (first_user < 0 || seg.message < first_user)) {
      first_user = seg.message;
    }
  }
  bool tools_seen = false;
  for (const SegmentSpan& span : s.segments.spans) {
    const Segment& seg = s.segments.segments[span.segment];
    if (seg.kind == SegmentKind::kSystem ||
        (seg.kind == SegmentKind::kMessage && seg.role == SegmentRole::kUser &&
         seg.message == first_user)) {
      out->conversation_spans.emplace_back(span.offset, span.offset + span.length);
    } else if (seg.kind == SegmentKind::kTools) {
      if (!tools_seen) out->tools_begin = span.offset;
      tools_seen = true;
      out->tools_end = span.offset + span.length;
    }
  }
  return true;
}

}  // namespace ltl
