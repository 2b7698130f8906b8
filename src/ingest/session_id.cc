// Session identifier detection (see session_id.h).
#include "ingest/session_id.h"

#include <cctype>

#include "common/ascii.h"
#include "common/json_memory.h"

namespace ltl {
namespace {

struct HeaderName {
  std::string_view name;
  const char* field;
};

const HeaderName kHeaders[] = {
    {"x-claude-code-session-id", "header x-claude-code-session-id"},
    {"x-session-id", "header x-session-id"},
    {"x-litellm-session-id", "header x-litellm-session-id"},
    {"helicone-session-id", "header helicone-session-id"},
    {"session_id", "session_id"},
    {"session-id", "session_id"},
    {"sessionid", "session_id"},
    {"conversation_id", "conversation_id"},
    {"x-portkey-trace-id", "header x-portkey-trace-id"},
    {"x-litellm-trace-id", "header x-litellm-trace-id"},
    {"trace_id", "trace_id"},
};

bool EqualsLower(std::string_view a, std::string_view lower) {
  return EqualsIgnoreAsciiCase(a, lower);
}

bool NonEmptyString(simdjson::dom::element e, std::string_view* s) {
  return !e.get_string().get(*s) && !s->empty();
}

bool Set(SessionId* out, const char* field, std::string_view value, bool per_conversation) {
  out->field = field;
  out->value.assign(value);
  out->per_conversation = per_conversation;
  return true;
}

bool IsUuidChar(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) || c == '-';
}

}  // namespace

const std::vector<std::string_view>& SessionHeaderNames() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (const auto& h : kHeaders) v.push_back(h.name);
    return v;
  }();
  return names;
}

const char* SessionHeaderField(std::string_view lower_name) {
  for (const auto& h : kHeaders)
    if (h.name == lower_name) return h.field;
  return nullptr;
}

bool ClaudeCodeSession(std::string_view user_id, simdjson::dom::parser* aux, std::string* session) {
  if (user_id.size() > 2 && user_id.front() == '{') {
    simdjson::dom::element doc;
    std::string_view sid;
    if (JsonOrOutOfMemory(aux->parse(user_id.data(), user_id.size()).get(doc))) return false;
    if (doc["session_id"].get_string().get(sid) || sid.empty()) return false;
    session->assign(sid);
    return true;
  }
  if (user_id.substr(0, 5) != "user_") return false;
  size_t pos = user_id.rfind("_session_");
  if (pos == std::string_view::npos || user_id.find("_account_") == std::string_view::npos)
    return false;
  std::string_view sid = user_id.substr(pos + 9);
  if (sid.empty()) return false;
  for (char c : sid)
    if (!IsUuidChar(c)) return false;
  session->assign(sid);
  return true;
}

bool FindHeaderSession(simdjson::dom::object headers, SessionId* out) {
  for (const auto& h : kHeaders) {
    for (auto field : headers) {
      std::string_view v;
      if (EqualsLower(field.key, h.name) && NonEmptyString(field.value, &v))
        return Set(out, h.field, v, true);
    }
  }
  return false;
}

bool FindBodySession(simdjson::dom::object body, simdjson::dom::parser* aux, SessionId* out) {
  auto str = [](simdjson::dom::object o, std::string_view key, std::string_view* v) {
    simdjson::dom::element e;
    return !o.at_key(key).get(e) && NonEmptyString(e, v);
  };
  std::string_view v, user_id;
  simdjson::dom::object meta;
  const bool has_meta = !body.at_key("metadata").get_object().get(meta);
  if (has_meta && str(meta, "user_id", &user_id)) {
    std::string session;
    if (ClaudeCodeSession(user_id, aux, &session))
      return Set(out, "metadata.user_id (Claude Code)", session, true);
  }
  if (has_meta && str(meta, "session_id", &v)) return Set(out, "metadata.session_id", v, true);
  if (str(body, "litellm_session_id", &v)) return Set(out, "litellm_session_id", v, true);
  if (str(body, "session_id", &v)) return Set(out, "session_id", v, true);
  if (has_meta && str(meta, "litellm_trace_id", &v))
    return Set(out, "metadata.litellm_trace_id", v, true);
  if (str(body, "litellm_trace_id", &v)) return Set(out, "litellm_trace_id", v, true);
  if (str(body, "prompt_cache_key", &v)) return Set(out, "prompt_cache_key", v, true);
  simdjson::dom::element conv;
  if (!body.at_key("conversation").get(conv)) {
    simdjson::dom::object co;
    if (NonEmptyString(conv, &v)) return Set(out, "conversation", v, true);
    if (!conv.get_object().get(co) && str(co, "id", &v)) return Set(out, "conversation", v, true);
  }
  // Identifiers that do not delimit one conversation (see SessionId::per_conversation).
  if (str(body, "previous_response_id", &v)) return Set(out, "previous_response_id", v, false);
  if (!user_id.empty()) return Set(out, "metadata.user_id", user_id, false);
  if (str(body, "user", &v)) return Set(out, "user", v, false);
  if (str(body, "safety_identifier", &v)) return Set(out, "safety_identifier", v, false);
  return false;
}

}  // namespace ltl
