// Session identifiers: which field of a gateway record says which session or conversation a
// request belongs to. Columns and headers (x-session-id, x-claude-code-session-id, ...) and body
// fields (prompt_cache_key, metadata.session_id, litellm_session_id, Claude Code's
// metadata.user_id, conversation, previous_response_id, user, ...). Values are only ever hashed.
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>
#include <vector>

namespace ltl {

struct SessionId {
  const char* field = nullptr;  // stable field name for the report ("prompt_cache_key", ...)
  std::string value;            // never printed; hashed into the conversation key
  // True when the field names one conversation/session; false for identifiers that are per user
  // (user, safety_identifier) or per turn (previous_response_id): they still allow affinity
  // routing, but conversations are then inferred from the prompt.
  bool per_conversation = true;
  void Clear() {
    field = nullptr;
    value.clear();
    per_conversation = true;
  }
};

// Column or header names (lower case) that carry a session id, most specific first. A column
// "x-session-id" and a header "X-Session-Id" inside a headers object are both recognised.
const std::vector<std::string_view>& SessionHeaderNames();
// The report name of header/column `lower_name` ("header x-session-id"), or nullptr.
const char* SessionHeaderField(std::string_view lower_name);

// Looks through a request body's fields in priority order. `aux` parses Claude Code's JSON-string
// metadata.user_id.
bool FindBodySession(simdjson::dom::object body, simdjson::dom::parser* aux, SessionId* out);

// Claude Code's metadata.user_id: "user_<hex>_account_<uuid or empty>_session_<uuid>" or a JSON
// string {"device_id": ..., "account_uuid": ..., "session_id": "<uuid>"}. Returns the session uuid.
bool ClaudeCodeSession(std::string_view user_id, simdjson::dom::parser* aux, std::string* session);

// Looks for session headers inside a JSON object of headers (keys compared case-insensitively).
bool FindHeaderSession(simdjson::dom::object headers, SessionId* out);

}  // namespace ltl
