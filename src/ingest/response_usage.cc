// Reading a logged response's usage (see response_usage.h).
#include "ingest/response_usage.h"

#include <algorithm>
#include <string_view>

#include "read/json_line.h"

namespace ltl {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

// A count as a number (see ReadDomCount) or as a decimal string ("12"), as some gateways log it.
bool ReadInt(element e, int64_t* out) {
  if (ReadDomCount(e, out)) return true;
  std::string_view s;
  if (e.get_string().get(s)) return false;
  int64_t i = 0;
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9' || i > 900000000000000000) return false;
    i = i * 10 + (c - '0');
  }
  *out = i;
  return true;
}

bool Key(object o, std::string_view key, element* out) {
  return !o.at_key(key).get(*out) && !out->is_null();
}

// A cache count the provider reported: absent leaves *out as is; present but not a non-negative
// integer makes the row's observation bad (the request is replayed all the same).
void ReadCacheCount(object o, std::string_view key, BadObservation bad_reason, int64_t* out,
                    ResponseUsage* u) {
  element v;
  if (!Key(o, key, &v)) return;
  int64_t x;
  if (ReadInt(v, &x)) {
    *out = x;
  } else if (u->bad == BadObservation::kNone) {
    u->bad = bad_reason;
  }
}

void ReadInto(element response, ResponseUsage* u) {
  object usage;
  if (response.at_key("usage").get_object().get(usage)) return;
  element v;
  int64_t x;
  if (Key(usage, "prompt_tokens", &v) && ReadInt(v, &x)) {
    u->input = x;  // OpenAI chat: total prompt, cached included
    object details;
    if (!usage.at_key("prompt_tokens_details").get_object().get(details) &&
        Key(details, "cached_tokens", &v))
      ReadCacheCount(details, "cached_tokens", BadObservation::kCachedTokens, &u->cached, u);
    else if (Key(usage, "prompt_cache_hit_tokens", &v) && ReadInt(v, &x))
      u->cached = x;  // DeepSeek
    if (Key(usage, "completion_tokens", &v) && ReadInt(v, &x)) u->output = x;
    return;
  }
  if (Key(usage, "input_tokens", &v) && ReadInt(v, &x)) {
    object details;
    if (!usage.at_key("input_tokens_details").get_object().get(details)) {
      u->input = x;  // OpenAI Responses: input_tokens includes the cached ones
      ReadCacheCount(details, "cached_tokens", BadObservation::kInputCachedTokens, &u->cached, u);
    } else {
      // Anthropic: input_tokens excludes cache reads and writes; the prompt is the sum of three.
      int64_t read = -1, created = -1;
      ReadCacheCount(usage, "cache_read_input_tokens", BadObservation::kCacheRead, &read, u);
      ReadCacheCount(usage, "cache_creation_input_tokens", BadObservation::kCacheCreation, &created,
                     u);
      u->input = x + std::max<int64_t>(read, 0) + std::max<int64_t>(created, 0);
      if (read >= 0) u->cached = read;
      if (created >= 0) {
        u->write = created;
        object creation;  // {"ephemeral_5m_input_tokens": .., "ephemeral_1h_input_tokens": ..}
        if (!usage.at_key("cache_creation").get_object().get(creation))
          ReadCacheCount(creation, "ephemeral_1h_input_tokens", BadObservation::kCacheCreation1h,
                         &u->write_1h, u);
      }
    }
    if (Key(usage, "output_tokens", &v) && ReadInt(v, &x)) u->output = x;
  }
}

}  // namespace

ResponseUsage ReadResponseUsage(element response) {
  ResponseUsage u;
  ReadInto(response, &u);
  return u;
}

}  // namespace ltl
