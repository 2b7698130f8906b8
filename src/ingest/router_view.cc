// The named routers' views of a gateway request (see router_view.h).
#include "ingest/router_view.h"

#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "common/utf8_decode.h"

namespace ltl {

bool VllmRouterPrompt(simdjson::dom::object body, std::string* out) {
  out->clear();
  simdjson::dom::element messages;
  if (body.at_key("messages").get(messages)) {
    std::string_view prompt;
    if (body.at_key("prompt").get_string().get(prompt)) return false;
    out->assign(prompt);
    return true;
  }
  simdjson::dom::array list;
  if (messages.get_array().get(list)) return false;
  bool first = true;
  for (simdjson::dom::element m : list) {
    simdjson::dom::object mo;
    if (m.get_object().get(mo)) continue;
    simdjson::dom::element content;
    std::string_view text;
    if (mo.at_key("content").get(content)) {
      text = "";  // message.get("content", "")
    } else if (content.is_null()) {
      continue;  // `elif content is not None`: left out of the join
    } else if (simdjson::dom::array parts; !content.get_array().get(parts)) {
      // " ".join(part.get("text", "") for part in content if part.get("type") == "text")
      if (!first) out->push_back('\n');
      first = false;
      bool first_part = true;
      for (simdjson::dom::element part : parts) {
        simdjson::dom::object po;
        std::string_view type, part_text;
        if (part.get_object().get(po) || po.at_key("type").get_string().get(type) || type != "text")
          continue;
        if (!first_part) out->push_back(' ');
        first_part = false;
        if (!po.at_key("text").get_string().get(part_text)) out->append(part_text);
      }
      continue;
    } else if (content.get_string().get(text)) {
      continue;  // a number or an object: Python's join would fail the request; left out here
    }
    if (!first) out->push_back('\n');
    first = false;
    out->append(text);
  }
  return true;
}

void ChunkDigests(const SipKey& key, std::string_view text, size_t chunk_chars,
                  std::vector<uint64_t>* out) {
  out->clear();
  std::string buf;
  uint64_t parent = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = pos, chars = 0;
    while (end < text.size() && chars < chunk_chars) {
      ++end;
      while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
      ++chars;
    }
    buf.assign(reinterpret_cast<const char*>(&parent), sizeof parent);
    buf.append(text.substr(pos, end - pos));
    parent = SipHash24(key, buf);
    out->push_back(parent);
    pos = end;
  }
}

namespace {
// Appends `piece` to `out`, a space before it when `out` already has text; empty pieces skipped.
void PushPiece(std::string_view piece, bool* has, std::string* out) {
  if (piece.empty()) return;
  if (*has) out->push_back(' ');
  out->append(piece);
  *has = true;
}
// A string content as it is; a list's parts of type "text", each its own piece.
void PushContent(simdjson::dom::element content, bool* has, std::string* out) {
  std::string_view text;
  if (!content.get_string().get(text)) {
    PushPiece(text, has, out);
    return;
  }
  simdjson::dom::array parts;
  if (content.get_array().get(parts)) return;
  for (simdjson::dom::element part : parts) {
    simdjson::dom::object po;
    std::string_view type;
    if (part.get_object().get(po) || po.at_key("type").get_string().get(type) || type != "text")
      continue;
    if (!po.at_key("text").get_string().get(text)) PushPiece(text, has, out);
  }
}
// parseChatMessages: the items' contents joined with ' ', a string unquoted, any other value as
// its JSON text, a missing one as nothing.
bool AibrixJoinContents(simdjson::dom::array items, std::string* out) {
  bool first = true;
  for (simdjson::dom::element item : items) {
    if (!first) out->push_back(' ');
    first = false;
    simdjson::dom::object io;
    if (item.get_object().get(io)) return false;  // not an object: the gateway's unmarshal fails
    simdjson::dom::element content;
    if (io.at_key("content").get(content)) continue;
    std::string_view text;
    if (!content.get_string().get(text)) {
      out->append(text);
    } else {
      out->append(simdjson::minify(content));
    }
  }
  return true;
}
}  // namespace

bool SglangRouterText(simdjson::dom::object body, std::string* out) {
  out->clear();
  bool has = false;
  simdjson::dom::array messages;
  if (body.at_key("messages").get_array().get(messages)) {
    simdjson::dom::element prompt;
    if (body.at_key("prompt").get(prompt)) return false;
    std::string_view text;
    if (!prompt.get_string().get(text)) {
      out->assign(text);
      return true;
    }
    simdjson::dom::array list;
    if (prompt.get_array().get(list)) return false;
    bool first = true;  // v.join(" "): empty strings kept
    for (simdjson::dom::element e : list) {
      if (e.get_string().get(text)) continue;
      if (!first) out->push_back(' ');
      first = false;
      out->append(text);
    }
    return true;
  }
  // Anthropic's top-level system (messages.rs): a string or text blocks, before the messages.
  if (simdjson::dom::element system; !body.at_key("system").get(system))
    PushContent(system, &has, out);
  for (simdjson::dom::element m : messages) {
    simdjson::dom::object mo;
    if (m.get_object().get(mo)) continue;
    if (simdjson::dom::element content; !mo.at_key("content").get(content))
      PushContent(content, &has, out);
    std::string_view role, reasoning;
    if (!mo.at_key("role").get_string().get(role) && role == "assistant" &&
        !mo.at_key("reasoning_content").get_string().get(reasoning))
      PushPiece(reasoning, &has, out);
  }
  return true;
}

void CodePointDigests(const SipKey& key, std::string_view text, std::vector<uint64_t>* out) {
  out->clear();
  size_t chars = 0;
  for (char c : text) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  out->reserve(chars);
  unsigned char buf[12];
  uint64_t parent = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const int32_t cp = NextUtf8(text, &pos);  // -1 for ill-formed bytes (simdjson rejects them)
    std::memcpy(buf, &parent, 8);
    std::memcpy(buf + 8, &cp, 4);
    parent = SipHash24(key, buf, sizeof buf);
    out->push_back(parent);
  }
}

bool AibrixMessage(simdjson::dom::object body, std::string* out) {
  out->clear();
  simdjson::dom::element value;
  simdjson::dom::array items;
  std::string_view text;
  if (!body.at_key("messages").get(value)) {  // chat completions, Anthropic messages
    if (value.get_array().get(items) || items.size() == 0) return false;
    return AibrixJoinContents(items, out);
  }
  if (!body.at_key("prompt").get(value)) {  // completions: a string only
    if (value.get_string().get(text)) return false;
    out->assign(text);
    return true;
  }
  if (!body.at_key("input").get(value)) {  // Responses API
    if (!value.get_string().get(text)) {
      out->assign(text);
      return true;
    }
    if (value.get_array().get(items) || items.size() == 0) return false;
    return AibrixJoinContents(items, out);
  }
  return false;
}

void ByteBlockDigests(const SipKey& key, std::string_view text, size_t block_bytes,
                      std::vector<uint64_t>* out) {
  out->clear();
  if (block_bytes == 0) return;
  const size_t blocks = text.size() / block_bytes;
  out->reserve(blocks);
  std::string buf(sizeof(uint64_t) + block_bytes, '\0');
  uint64_t parent = 0;
  for (size_t b = 0; b < blocks; ++b) {
    std::memcpy(buf.data(), &parent, sizeof parent);
    std::memcpy(buf.data() + sizeof parent, text.data() + b * block_bytes, block_bytes);
    parent = SipHash24(key, buf);
    out->push_back(parent);
  }
}

void AppendGoJsonString(std::string_view text, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '"':
      case '\\':
        out->push_back('\\');
        out->push_back(static_cast<char>(c));
        continue;
      case '\b':
        out->append("\\b");
        continue;
      case '\f':
        out->append("\\f");
        continue;
      case '\n':
        out->append("\\n");
        continue;
      case '\r':
        out->append("\\r");
        continue;
      case '\t':
        out->append("\\t");
        continue;
      default:
        break;
    }
    if (c < 0x20 || c == '<' || c == '>' || c == '&') {
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 0xF]);
    } else if (c == 0xE2 && i + 2 < text.size() &&
               static_cast<unsigned char>(text[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(text[i + 2]) & 0xFE) == 0xA8) {
      out->append(static_cast<unsigned char>(text[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029");
      i += 2;
    } else {
      out->push_back(static_cast<char>(c));
    }
  }
  out->push_back('"');
}

namespace {
// A Go string field: absent or null leaves it "", a string sets it, anything else fails.
bool GoStringField(simdjson::dom::object o, std::string_view key, std::string_view* out) {
  *out = "";
  simdjson::dom::element e;
  if (o.at_key(key).get(e) || e.is_null()) return true;
  return !e.get_string().get(*out);
}
// A Go struct field of object type: absent or null leaves it zero, an object sets it.
bool GoObjectField(simdjson::dom::object o, std::string_view key, simdjson::dom::object* out,
                   bool* present) {
  *present = false;
  simdjson::dom::element e;
  if (o.at_key(key).get(e) || e.is_null()) return true;
  if (e.get_object().get(*out)) return false;
  *present = true;
  return true;
}
// `"key":"value"` of an omitempty string field, with a leading comma when `*first` is false.
void OmitEmpty(std::string_view key, std::string_view value, bool* first, std::string* out) {
  if (value.empty()) return;
  if (!*first) out->push_back(',');
  *first = false;
  out->push_back('"');
  out->append(key);
  out->append("\":");
  AppendGoJsonString(value, out);
}
// A nested block struct (ImageBlock, AudioBlock, VideoBlock): its omitempty string fields.
bool LlmdInnerBlock(simdjson::dom::object block, std::string_view key,
                    std::initializer_list<std::string_view> fields, std::string* out) {
  simdjson::dom::object inner;
  bool present = false;
  if (!GoObjectField(block, key, &inner, &present)) return false;
  out->append(",\"");
  out->append(key);
  out->append("\":{");
  bool first = true;
  for (std::string_view f : fields) {
    std::string_view v;
    if (present && !GoStringField(inner, f, &v)) return false;
    OmitEmpty(f, v, &first, out);
  }
  out->push_back('}');
  return true;
}
// Content.MarshalJSON of a parsed content (types.go): Raw when non-empty, else the blocks, else "".
bool LlmdContent(simdjson::dom::object message, std::string* out) {
  simdjson::dom::element content;
  std::string_view text;
  if (message.at_key("content").get(content) || content.is_null()) {
    out->append("\"\"");
    return true;
  }
  if (!content.get_string().get(text)) {
    AppendGoJsonString(text, out);  // "" marshals as "" too
    return true;
  }
  simdjson::dom::array blocks;
  if (content.get_array().get(blocks)) return false;  // "content format not supported"
  out->push_back('[');
  bool first_block = true;
  for (simdjson::dom::element b : blocks) {
    if (!first_block) out->push_back(',');
    first_block = false;
    simdjson::dom::object bo;
    const bool is_null = b.is_null();
    if (!is_null && b.get_object().get(bo)) return false;
    std::string_view type, block_text;
    if (!is_null && (!GoStringField(bo, "type", &type) || !GoStringField(bo, "text", &block_text)))
      return false;
    out->append("{\"type\":");
    AppendGoJsonString(type, out);
    bool no_first = false;
    OmitEmpty("text", block_text, &no_first, out);
    if (is_null) {
      out->append(",\"image_url\":{},\"input_audio\":{},\"video_url\":{}}");
      continue;
    }
    if (!LlmdInnerBlock(bo, "image_url", {"url"}, out) ||
        !LlmdInnerBlock(bo, "input_audio", {"data", "format"}, out) ||
        !LlmdInnerBlock(bo, "video_url", {"url"}, out))
      return false;
    out->push_back('}');
  }
  out->push_back(']');
  return true;
}
}  // namespace

bool LlmdUserInput(simdjson::dom::object body, std::string* out, std::string* seed) {
  out->clear();
  seed->clear();
  std::string_view model, salt;
  if (!body.at_key("model").get_string().get(model)) seed->assign(model);
  if (!body.at_key("cache_salt").get_string().get(salt)) seed->append(salt);
  simdjson::dom::element value;
  if (!body.at_key("messages").get(value)) {  // chat completions: json.Marshal(Messages)
    if (value.is_null()) {
      out->assign("null");
      return true;
    }
    simdjson::dom::array messages;
    if (value.get_array().get(messages)) return false;
    out->push_back('[');
    bool first = true;
    for (simdjson::dom::element m : messages) {
      if (!first) out->push_back(',');
      first = false;
      simdjson::dom::object mo;
      std::string_view role;
      if (m.is_null()) {
        out->append("{\"content\":\"\"}");
        continue;
      }
      if (m.get_object().get(mo) || !GoStringField(mo, "role", &role)) return false;
      out->push_back('{');
      bool no_role = true;
      OmitEmpty("role", role, &no_role, out);
      if (!no_role) out->push_back(',');
      out->append("\"content\":");
      if (!LlmdContent(mo, out)) return false;
      out->push_back('}');
    }
    out->push_back(']');
    return true;
  }
  if (!body.at_key("prompt").get(value)) {  // completions: Prompt.PlainText()
    std::string_view text;
    if (!value.get_string().get(text)) {
      out->assign(text);
      return true;
    }
    simdjson::dom::array list;
    if (value.get_array().get(list)) return false;
    // parseArrayInput: strings joined with " "; token ids (a number first) have no text.
    bool first = true;
    for (simdjson::dom::element e : list) {
      if (e.get_string().get(text)) return first && e.is_number();
      if (!first) out->push_back(' ');
      first = false;
      out->append(text);
    }
    return true;
  }
  return false;
}

void LlmdChunkDigests(const SipKey& key, std::string_view seed, std::string_view input,
                      size_t chunk_bytes, size_t max_blocks, std::vector<uint64_t>* out) {
  out->clear();
  if (chunk_bytes == 0 || input.size() < chunk_bytes) return;
  if (input.size() / chunk_bytes >= max_blocks) input = input.substr(0, max_blocks * chunk_bytes);
  out->reserve((input.size() + chunk_bytes - 1) / chunk_bytes);
  uint64_t prev = SipHash24(key, seed);
  std::string buf;
  for (size_t pos = 0; pos < input.size(); pos += chunk_bytes) {
    buf.assign(input.substr(pos, chunk_bytes));
    buf.append(reinterpret_cast<const char*>(&prev), sizeof prev);
    prev = SipHash24(key, buf);
    out->push_back(prev);
  }
}

void RouterViewBuilder::Build(simdjson::dom::object body, uint32_t kinds, RouterView* out) {
  out->text = true;
  if (kinds & kViewChunks128) {
    if (!VllmRouterPrompt(body, &prompt_)) prompt_.clear();
    ChunkDigests(key_, prompt_, kVllmRouterChunkChars, &out->chunks128);
  }
  if (kinds & kViewCodePoints) {
    if (!SglangRouterText(body, &prompt_)) prompt_.clear();
    CodePointDigests(key_, prompt_, &out->code_points);
  }
  if ((kinds & kViewAibrixBlocks) && aibrix_block_bytes_ > 0) {
    if (!AibrixMessage(body, &aibrix_message_)) aibrix_message_.clear();
    ByteBlockDigests(key_, aibrix_message_, aibrix_block_bytes_, &out->aibrix_blocks);
  }
  if (kinds & kViewLlmdBlocks) {
    if (LlmdUserInput(body, &llmd_input_, &llmd_seed_)) {
      // Every chunk: the router keeps the first maxPrefixBlocksToMatch (its parameter), which
      // equals cutting the input there, as a chunk's digest depends only on the bytes before it.
      LlmdChunkDigests(key_, llmd_seed_, llmd_input_, kLlmdChunkBytes, SIZE_MAX, &out->llmd_blocks);
    } else {
      out->llmd_blocks.clear();
    }
  }
}

}  // namespace ltl
