// The named routers' views of a gateway request (see router_view.h).
#include "ingest/router_view.h"

#include <cstring>

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

void RouterViewBuilder::Build(simdjson::dom::object body, RouterView* out) {
  out->text = true;
  if (!VllmRouterPrompt(body, &prompt_)) prompt_.clear();
  ChunkDigests(key_, prompt_, kVllmRouterChunkChars, &out->chunks128);
}

}  // namespace ltl
