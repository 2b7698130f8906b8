// GatewayRowProcessor (see gateway_row.h): field lookup for CSV rows and JSON lines, usage and
// status extraction, then render -> cut -> hash for the body.
#include "ingest/gateway_row.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstring>

#include "common/safe_label.h"
#include "read/json_line.h"
#include "read/timestamp.h"
#include "render/render_parts.h"

namespace ltl {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

// A count as a number (see ReadDomCount) or as a decimal string ("12"), as some gateways log it.
bool ReadInt(element e, int64_t* out) {
  if (ReadDomCount(e, out)) return true;
  int64_t i;
  std::string_view s;
  if (!e.get_string().get(s)) {
    auto r = std::from_chars(s.data(), s.data() + s.size(), i);
    if (r.ec == std::errc() && r.ptr == s.data() + s.size() && i >= 0) {
      *out = i;
      return true;
    }
  }
  return false;
}

bool ReadIntText(std::string_view s, int64_t* out) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  if (s.empty()) return false;
  double d;
  auto r = std::from_chars(s.data(), s.data() + s.size(), d);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || !(d >= 0) || d > 9e18) return false;
  *out = static_cast<int64_t>(d);
  return true;
}

bool Key(object o, std::string_view key, element* out) {
  return !o.at_key(key).get(*out) && !out->is_null();
}

bool KeyNoCase(object o, std::string_view lower, element* out) {
  return DomKeyNoCase(o, lower, out);
}

struct Usage {
  int64_t input = -1, output = -1, cached = -1;
};

void ReadUsage(element response, Usage* u) {
  object usage;
  if (response.at_key("usage").get_object().get(usage)) return;
  element v;
  int64_t x;
  if (Key(usage, "prompt_tokens", &v) && ReadInt(v, &x)) {
    u->input = x;  // OpenAI chat: total prompt, cached included
    object details;
    if (!usage.at_key("prompt_tokens_details").get_object().get(details) &&
        Key(details, "cached_tokens", &v) && ReadInt(v, &x))
      u->cached = x;
    else if (Key(usage, "prompt_cache_hit_tokens", &v) && ReadInt(v, &x))
      u->cached = x;  // DeepSeek
    if (Key(usage, "completion_tokens", &v) && ReadInt(v, &x)) u->output = x;
    return;
  }
  if (Key(usage, "input_tokens", &v) && ReadInt(v, &x)) {
    object details;
    if (!usage.at_key("input_tokens_details").get_object().get(details)) {
      u->input = x;  // OpenAI Responses: input_tokens includes the cached ones
      if (Key(details, "cached_tokens", &v) && ReadInt(v, &x)) u->cached = x;
    } else {
      // Anthropic: input_tokens excludes cache reads and writes; the prompt is the sum of three.
      int64_t read = 0, created = 0;
      bool has_read = Key(usage, "cache_read_input_tokens", &v) && ReadInt(v, &read);
      if (Key(usage, "cache_creation_input_tokens", &v)) ReadInt(v, &created);
      u->input = x + read + created;
      if (has_read) u->cached = read;
    }
    if (Key(usage, "output_tokens", &v) && ReadInt(v, &x)) u->output = x;
  }
}

// The generated text of a response (OpenAI choices, Anthropic content), for an output estimate.
bool AppendResponseText(element response, RenderedPrompt* text) {
  bool any = false;
  simdjson::dom::array choices;
  if (!response.at_key("choices").get_array().get(choices)) {
    for (element c : choices) {
      object msg;
      if (c.at_key("message").get_object().get(msg)) continue;
      element content;
      if (Key(msg, "content", &content)) render::AppendContent(content, text);
      render::AppendToolCalls(msg, text);
      any = true;
    }
  }
  element content;
  if (!any && Key(response.get_object().value_unsafe(), "content", &content)) {
    render::AppendContent(content, text);
    any = true;
  }
  return any;
}

bool IsNonSuccess(int status) {
  return status != 0 && (status < 200 || status > 299);
}

std::string HexKey(char tag, uint64_t h) {
  return fmt::format("{}{:016x}", tag, h);
}

}  // namespace

int ParseStatus(std::string_view text, bool* failed) {
  *failed = false;
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.remove_suffix(1);
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  if (text.empty()) return 0;
  int64_t code;
  if (ReadIntText(text, &code)) return code > 0 && code < 1000 ? static_cast<int>(code) : 0;
  std::string lower;
  for (char c : text)
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (lower == "success" || lower == "ok" || lower == "succeeded") return 200;
  if (lower == "failure" || lower == "failed" || lower == "error" || lower == "fail")
    *failed = true;
  return 0;
}

GatewayRowProcessor::GatewayRowProcessor(const GatewayConfig& config)
    : config_(config),
      cutter_(config.tokenizer ? MakeTokenCutter(config.tokenizer, config.block_size)
                               : MakeApproxCutter(config.block_size)),
      chain_(config.key) {}

simdjson::error_code GatewayRowProcessor::Parse(simdjson::dom::parser& parser, std::string& padded,
                                                std::string_view json, element* out) {
  // Our own padded copy: simdjson would otherwise allocate a padded buffer on every call.
  if (padded.size() < json.size() + simdjson::SIMDJSON_PADDING)
    padded.resize(json.size() + simdjson::SIMDJSON_PADDING + json.size() / 4);
  std::memcpy(padded.data(), json.data(), json.size());
  return parser.parse(padded.data(), json.size(), false).get(*out);
}

RowResult GatewayRowProcessor::ProcessCsv(const GatewayCsvRow& row, RequestRecord* out,
                                          const char** reason) {
  out->line = row.line;
  inferred_.clear();
  Meta meta;
  meta.status = ParseStatus(row.status, &meta.failed_text_status);
  if (IsNonSuccess(meta.status) || meta.failed_text_status) {
    out->status_code = meta.status;
    return RowResult::kFiltered;
  }
  meta.model = row.model;
  if (!row.timestamp.empty() && row.timestamp.find_first_not_of(" \r") != std::string_view::npos) {
    if (!ParseTimestamp(row.timestamp, &meta.time_s)) {
      *reason = "unparseable timestamp";
      return RowResult::kSkipped;
    }
    meta.has_time = true;
  }
  if (row.session_field && !row.session_value.empty()) {
    meta.session.field = row.session_field;
    meta.session.value.assign(row.session_value);
  }
  ReadIntText(row.prompt_tokens, &meta.prompt_tokens);
  ReadIntText(row.completion_tokens, &meta.completion_tokens);
  meta.truncated = row.request.find("litellm_truncated") != std::string_view::npos;
  element body;
  if (row.request.empty()) {
    *reason = "empty request_json";
    return RowResult::kSkipped;
  }
  if (auto err = Parse(request_parser_, request_buf_, row.request, &body)) {
    *reason = JsonErrorReason(err, "invalid JSON in request_json");
    return RowResult::kSkipped;
  }
  element response;
  bool has_response = !row.response.empty() &&
                      !Parse(response_parser_, response_buf_, row.response, &response) &&
                      response.is_object();
  return Finish(body, has_response ? &response : nullptr, meta, out, reason);
}

RowResult GatewayRowProcessor::ProcessJsonLine(std::string_view line, uint64_t line_no,
                                               RequestRecord* out, const char** reason) {
  out->line = line_no;
  inferred_.clear();
  element doc;
  if (auto err = Parse(line_parser_, line_buf_, line, &doc)) {
    *reason = JsonErrorReason(err, "invalid JSON");
    return RowResult::kSkipped;
  }
  object top;
  if (doc.get_object().get(top)) {
    *reason = "line is not a JSON object";
    return RowResult::kSkipped;
  }
  Meta meta;
  element v;
  // Status first: non-2xx rows are not rendered at all.
  if (Key(top, "status_code", &v) || Key(top, "status", &v)) {
    int64_t code;
    std::string_view s;
    if (ReadInt(v, &code))
      meta.status = code < 1000 ? static_cast<int>(code) : 0;
    else if (!v.get_string().get(s))
      meta.status = ParseStatus(s, &meta.failed_text_status);
  }

  // The request body: the line itself, or under a known key (possibly as a JSON string).
  element body;
  bool has_body = false, body_is_line = false;
  object holder;
  if (!top.at_key("messages").error()) {
    body = doc;
    has_body = body_is_line = true;
  } else {
    for (const char* k :
         {"request_json", "request", "body", "request_body", "proxy_server_request"}) {
      if (!Key(top, k, &v)) continue;
      if (v.is_string()) {
        if (auto err = Parse(request_parser_, request_buf_, v.get_string().value_unsafe(), &v)) {
          *reason = JsonErrorReason(err, "invalid JSON in request body");
          return RowResult::kSkipped;
        }
      }
      element inner;
      if (v.is_object() && v.at_key("messages").error() && !v.get_object().get(holder) &&
          Key(holder, "body", &inner)) {
        if (Key(holder, "headers", &v) && v.is_object() && !meta.session.field)
          FindHeaderSession(v.get_object().value_unsafe(), &meta.session);
        if (inner.is_string() &&
            Parse(request_parser_, request_buf_, inner.get_string().value_unsafe(), &inner)) {
          *reason = "invalid JSON in request body";
          return RowResult::kSkipped;
        }
        v = inner;  // Portkey: request.body
      }
      body = v;
      has_body = true;
      break;
    }
  }
  if (!has_body) {
    *reason = "no request body (messages, request_json, request, body, ...)";
    return RowResult::kSkipped;
  }
  if (meta.status == 0 && !meta.failed_text_status) {
    element resp, st;
    object ro;
    if (Key(top, "response", &resp) && !resp.get_object().get(ro) && Key(ro, "status", &st)) {
      int64_t code;
      if (ReadInt(st, &code) && code < 1000) meta.status = static_cast<int>(code);
    }
  }
  if (IsNonSuccess(meta.status) || meta.failed_text_status) {
    out->status_code = meta.status;
    return RowResult::kFiltered;
  }

  element response;
  bool has_response = false;
  for (const char* k : {"response_json", "response", "response_body"}) {
    if (!Key(top, k, &v)) continue;
    if (v.is_string() && Parse(response_parser_, response_buf_, v.get_string().value_unsafe(), &v))
      break;
    object ro;
    element inner;
    if (!v.get_object().get(ro) && ro.at_key("usage").error() && ro.at_key("choices").error() &&
        Key(ro, "body", &inner)) {
      if (inner.is_string() &&
          Parse(response_parser_, response_buf_, inner.get_string().value_unsafe(), &inner))
        break;
      v = inner;  // Portkey: response.body
    }
    has_response = v.is_object();
    response = v;
    break;
  }

  std::string_view s;
  if (Key(top, "model_name", &v) && !v.get_string().get(s)) meta.model = s;

  // Time.
  element tv;
  bool found_time = false;
  if (!config_.ts_column.empty()) {
    found_time = KeyNoCase(top, config_.ts_column, &tv);
  } else {
    for (std::string_view k : TimestampColumnNames())
      if ((found_time = KeyNoCase(top, k, &tv))) break;
  }
  if (found_time) {
    double t;
    if (!tv.get_double().get(t) && std::isfinite(t)) {
      meta.time_s = EpochSecondsFromNumber(t);
      meta.has_time = true;
    } else if (!tv.get_string().get(s) && !s.empty()) {
      if (!ParseTimestamp(s, &meta.time_s)) {
        *reason = "unparseable timestamp";
        return RowResult::kSkipped;
      }
      meta.has_time = true;
    }
  }

  // Session fields outside the body: headers objects, then top-level session columns.
  if (!meta.session.field) {
    for (const char* k : {"headers", "request_headers", "request_properties"}) {
      if (Key(top, k, &v) && v.is_object() &&
          FindHeaderSession(v.get_object().value_unsafe(), &meta.session))
        break;
    }
  }
  if (!meta.session.field && !body_is_line) {
    for (std::string_view name : SessionHeaderNames()) {
      if (KeyNoCase(top, name, &v) && !v.get_string().get(s) && !s.empty()) {
        meta.session.field = SessionHeaderField(name);
        meta.session.value.assign(s);
        break;
      }
    }
  }
  meta.truncated = line.find("litellm_truncated") != std::string_view::npos;
  int64_t x;
  if (Key(top, "prompt_tokens", &v) && ReadInt(v, &x)) meta.prompt_tokens = x;
  if (Key(top, "completion_tokens", &v) && ReadInt(v, &x)) meta.completion_tokens = x;
  return Finish(body, has_response ? &response : nullptr, meta, out, reason);
}

RowResult GatewayRowProcessor::Finish(element body, const element* response, Meta& meta,
                                      RequestRecord* out, const char** reason) {
  object obj;
  if (body.get_object().get(obj)) {
    *reason = "request body is not a JSON object";
    return RowResult::kSkipped;
  }
  std::string_view model = meta.model;
  std::string_view body_model;
  if (!obj.at_key("model").get_string().get(body_model) && model.empty()) model = body_model;

  if (const char* r = RenderPrompt(body, config_.layout, model, &prompt_)) {
    *reason = r;
    return RowResult::kSkipped;
  }
  out->block_ids.clear();
  out->block_size = config_.block_size;
  out->input_tokens = cutter_->Cut(prompt_.text, &chain_, &out->block_ids);
  if (config_.on_prompt) config_.on_prompt(out->line, prompt_.text);
  out->time_s = meta.time_s;
  out->has_time = meta.has_time;
  out->model = SafeLabel(model);  // printed in reports: no escapes, valid UTF-8, bounded
  out->status_code = meta.status;
  bool stream;
  out->stream = obj.at_key("stream").get_bool().get(stream) ? -1 : (stream ? 1 : 0);
  out->type = prompt_.has_image ? "image" : prompt_.has_file ? "file" : "text";
  out->truncated_body = meta.truncated;

  // Exact counts from the logged usage (the response's, else the gateway's usage columns).
  Usage usage;
  if (response) ReadUsage(*response, &usage);
  if (usage.input < 0 && meta.prompt_tokens > 0) usage.input = meta.prompt_tokens;
  if (usage.output < 0 && meta.completion_tokens >= 0 && meta.prompt_tokens > 0)
    usage.output = meta.completion_tokens;
  out->exact_counts = usage.input > 0;
  if (usage.input > 0) out->input_tokens = usage.input;
  out->provider_cached_tokens = usage.input > 0 ? usage.cached : -1;
  if (usage.output >= 0) {
    out->output_tokens = usage.output;
  } else if (response) {
    response_text_.Clear();
    out->output_tokens =
        AppendResponseText(*response, &response_text_) ? cutter_->Count(response_text_.text) : -1;
  } else {
    out->output_tokens = -1;
  }

  // Tool set digest (for tool-churn findings).
  out->tools_digest = 0;
  if (prompt_.tools_end > prompt_.tools_begin)
    out->tools_digest =
        SipHash24(config_.key,
                  std::string_view(prompt_.text)
                      .substr(prompt_.tools_begin, prompt_.tools_end - prompt_.tools_begin)) |
        1;

  // Conversation: inferred from the system + first user content; a per-conversation session id
  // wins when present.
  if (!prompt_.conversation_spans.empty()) {
    chain_.Reset();
    for (auto [b, e] : prompt_.conversation_spans)
      chain_.Full(std::string_view(prompt_.text).substr(b, e - b));
    inferred_ = HexKey('p', chain_.last());
  }
  if (!meta.session.field) FindBodySession(obj, &aux_parser_, &meta.session);
  out->session_field = meta.session.field ? meta.session.field : "";
  if (meta.session.field && meta.session.per_conversation) {
    scratch_.assign(meta.session.field);
    scratch_.push_back('\0');
    scratch_.append(meta.session.value);
    out->conversation = HexKey('s', SipHash24(config_.key, scratch_));
  } else {
    out->conversation = inferred_;
  }
  return RowResult::kOk;
}

}  // namespace ltl
