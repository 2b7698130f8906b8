// Anthropic log rows -> AnthropicCall (see anthropic_calls.h): locate the body, the response and
// the extra columns, serialize tools / system / messages, tokenize, chain-hash, and read the
// response's content types, stop reason, usage and timing.
#include "export/anthropic_calls.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <unordered_map>

#include "export/cctrace_hash.h"
#include "export/cctrace_json.h"
#include "ingest/gateway_row.h"
#include "ingest/session_id.h"
#include "read/csv_reader.h"
#include "read/json_line.h"
#include "read/timestamp.h"

namespace ltl {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

uint64_t Digest(std::string_view s) {
  return std::hash<std::string_view>{}(s) | 1;
}

// A column (CSV) or top-level key (JSONL) value.
struct Value {
  bool is_num = false;
  double num = 0;
  std::string_view text;
  element elem;  // JSONL only
  bool has_elem = false;
};
using Lookup = std::function<bool(std::string_view lower_name, Value* v)>;

bool AsNumber(const Value& v, double* out) {
  if (v.is_num) {
    *out = v.num;
    return std::isfinite(*out);
  }
  std::string_view s = v.text;
  while (!s.empty() && (s.front() == ' ')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && std::isfinite(*out);
}

bool AsTime(const Value& v, double* out) {
  double n;
  if (v.is_num) {
    if (!std::isfinite(v.num)) return false;
    *out = EpochSecondsFromNumber(v.num);
    return true;
  }
  if (AsNumber(v, &n)) {
    *out = EpochSecondsFromNumber(n);
    return true;
  }
  return !v.text.empty() && ParseTimestamp(v.text, out);
}

bool First(const Lookup& look, std::initializer_list<std::string_view> names, Value* v) {
  for (std::string_view n : names)
    if (look(n, v)) return true;
  return false;
}

// Server-Timing: "name;dur=123.4, other;dur=5" -> the first duration, in seconds.
bool ServerTimingSeconds(std::string_view header, double* out) {
  size_t pos = header.find("dur=");
  if (pos == std::string_view::npos) return false;
  std::string_view rest = header.substr(pos + 4);
  double ms;
  auto r = std::from_chars(rest.data(), rest.data() + rest.size(), ms);
  if (r.ec != std::errc() || !std::isfinite(ms) || ms < 0) return false;
  *out = ms / 1000.0;
  return true;
}

bool KeyNoCase(object o, std::string_view lower, element* out) {
  return DomKeyNoCase(o, lower, out);
}

// Timing from the row: durations in seconds or milliseconds, or end / first-token times.
void ReadTiming(const Lookup& look, const AnthropicCall& c, double* api_time, double* ttft) {
  Value v;
  double x;
  if (First(look, {"api_time", "response_time", "duration", "duration_s", "latency_s"}, &v) &&
      AsNumber(v, &x) && x >= 0)
    *api_time = x;
  else if (First(look,
                 {"response_time_ms", "responsetime", "duration_ms", "latency_ms", "latency",
                  "response_ms"},
                 &v) &&
           AsNumber(v, &x) && x >= 0)
    *api_time = x / 1000.0;
  else if (c.has_time &&
           First(look, {"end_time", "endtime", "completed_at", "response_created_at"}, &v) &&
           AsTime(v, &x) && x >= c.time_s)
    *api_time = x - c.time_s;

  if (First(look, {"ttft", "ttft_s"}, &v) && AsNumber(v, &x) && x >= 0)
    *ttft = x;
  else if (First(look, {"ttft_ms", "time_to_first_token_ms", "time_to_first_token"}, &v) &&
           AsNumber(v, &x) && x >= 0)
    *ttft = x / 1000.0;
  else if (c.has_time &&
           First(look, {"completion_start_time", "completionstarttime", "first_token_time"}, &v) &&
           AsTime(v, &x) && x >= c.time_s)
    *ttft = x - c.time_s;
  else if (First(look, {"server-timing", "server_timing"}, &v) && !v.text.empty())
    ServerTimingSeconds(v.text, ttft);
  else {
    for (std::string_view h : {"response_headers", "headers"}) {
      element st;
      if (look(h, &v) && v.has_elem && v.elem.is_object() &&
          KeyNoCase(v.elem.get_object().value_unsafe(), "server-timing", &st) && st.is_string()) {
        ServerTimingSeconds(st.get_string().value_unsafe(), ttft);
        break;
      }
    }
  }
}

// Content block types and sub-agent types come from the log, so only known labels are written
// (anything else could carry client or model text into the trace): Anthropic's documented
// content block types, and Claude Code's built-in sub-agent types.
std::string_view ContentTypeLabel(std::string_view type) {
  static constexpr std::string_view kKnown[] = {"text",
                                                "image",
                                                "document",
                                                "tool_use",
                                                "tool_result",
                                                "thinking",
                                                "redacted_thinking",
                                                "server_tool_use",
                                                "web_search_tool_result",
                                                "web_fetch_tool_result",
                                                "code_execution_tool_result",
                                                "mcp_tool_use",
                                                "mcp_tool_result",
                                                "search_result",
                                                "container_upload"};
  for (std::string_view k : kKnown)
    if (type == k) return k;
  return "other";
}

std::string_view SubagentTypeLabel(std::string_view type) {
  static constexpr std::string_view kBuiltIn[] = {
      "general-purpose",    "Explore",          "Plan", "statusline-setup",
      "output-style-setup", "claude-code-guide"};
  for (std::string_view k : kBuiltIn)
    if (type == k) return k;
  return "custom";
}

void AddUnique(std::vector<std::string>* v, std::string_view s) {
  for (const auto& x : *v)
    if (x == s) return;
  v->emplace_back(s);
}

// Task / Agent tool_use blocks of a content array.
void CollectSpawns(element content, std::vector<TaskSpawn>* out) {
  array blocks;
  if (content.get_array().get(blocks)) return;
  for (element b : blocks) {
    std::string_view type, name, prompt, sub;
    if (b["type"].get_string().get(type) || type != "tool_use") continue;
    if (b["name"].get_string().get(name) || (name != "Task" && name != "Agent")) continue;
    object input;
    if (b["input"].get_object().get(input)) continue;
    if (input["prompt"].get_string().get(prompt)) continue;
    TaskSpawn s;
    s.prompt_digest = Digest(prompt);
    if (!input["subagent_type"].get_string().get(sub))
      s.subagent_type.assign(SubagentTypeLabel(sub));
    out->push_back(std::move(s));
  }
}

void ReadMessages(element messages, AnthropicCall* c) {
  array msgs;
  if (messages.get_array().get(msgs)) return;
  bool first = true;
  for (element m : msgs) {
    std::string_view role;
    if (m["role"].get_string().get(role)) role = {};
    element content;
    bool has_content = !m["content"].get(content);
    if (first) {
      first = false;
      if (role == "user" && has_content) {
        std::string_view text;
        array blocks;
        if (!content.get_string().get(text)) {
          c->first_user_text_digests.push_back(Digest(text));
        } else if (!content.get_array().get(blocks)) {
          for (element b : blocks)
            if (!b["text"].get_string().get(text))
              c->first_user_text_digests.push_back(Digest(text));
        }
      }
    }
    if (!has_content) continue;
    if (content.is_string()) {
      AddUnique(&c->message_types, "text");
      continue;
    }
    array blocks;
    if (content.get_array().get(blocks)) continue;
    for (element b : blocks) {
      std::string_view type;
      if (!b["type"].get_string().get(type)) AddUnique(&c->message_types, ContentTypeLabel(type));
    }
    if (role == "assistant") CollectSpawns(content, &c->spawns);
  }
}

int64_t UsageField(object usage, std::string_view key) {
  int64_t i;
  double d;
  element v;
  if (usage.at_key(key).get(v)) return -1;
  if (!v.get_int64().get(i)) return i >= 0 ? i : -1;
  if (!v.get_double().get(d) && d >= 0 && d < 9e18) return static_cast<int64_t>(d);
  return -1;
}

void ReadResponse(element response, AnthropicCall* c) {
  object r;
  if (response.get_object().get(r)) return;
  c->has_response = true;
  element content;
  array blocks;
  if (!r["content"].get(content) && !content.get_array().get(blocks)) {
    for (element b : blocks) {
      std::string_view type;
      if (b["type"].get_string().get(type)) continue;
      if (type == "redacted_thinking") type = "thinking";
      AddUnique(&c->output_types, ContentTypeLabel(type));
      if (type == "tool_use") ++c->tool_uses;
    }
    CollectSpawns(content, &c->spawns);
  }
  std::string_view stop;
  if (!r["stop_reason"].get_string().get(stop)) c->stop.assign(stop);
  object usage;
  if (!r["usage"].get_object().get(usage)) {
    int64_t in = UsageField(usage, "input_tokens");
    if (in >= 0) {
      int64_t read = UsageField(usage, "cache_read_input_tokens");
      int64_t created = UsageField(usage, "cache_creation_input_tokens");
      c->usage_in = in + std::max<int64_t>(read, 0) + std::max<int64_t>(created, 0);
    }
    c->usage_out = UsageField(usage, "output_tokens");
  }
}

class CallBuilder {
 public:
  explicit CallBuilder(const AnthropicReadConfig& config) : config_(config) {}

  // Fills *c from the body (and response). Returns nullptr or a skip reason.
  const char* Build(element body, const element* response, const Lookup& look, AnthropicCall* c) {
    object obj;
    if (body.get_object().get(obj)) return "request body is not a JSON object";
    element messages;
    if (obj["messages"].get(messages) || !messages.is_array())
      return "request has no messages array";
    std::string_view s;
    if (!obj["model"].get_string().get(s)) c->model.assign(s);
    Value v;
    if (c->model.empty() && First(look, {"model", "model_name"}, &v)) c->model.assign(v.text);
    bool stream = false;
    c->stream = !obj["stream"].get_bool().get(stream) && stream;

    tools_.clear();
    system_.clear();
    messages_.clear();
    element e;
    if (!obj["tools"].get(e)) AppendCctraceJson(e, &tools_);
    if (!obj["system"].get(e)) AppendCctraceJson(e, &system_);
    AppendCctraceJson(messages, &messages_);
    whole_.assign(tools_);
    whole_.append(system_);
    whole_.append(messages_);
    tokens_.clear();
    config_.tokenizer->Encode(whole_, &tokens_);
    c->prompt_tokens = static_cast<int64_t>(tokens_.size());
    c->hashes.clear();
    ChainCctraceBlocks(config_.salt, tokens_, config_.block_size, &c->hashes);
    c->tool_tokens = Count(tools_);
    c->system_tokens = Count(system_);
    whole_.assign(tools_);
    whole_.push_back('\0');
    whole_.append(system_);
    c->thread_digest = Digest(whole_);
    c->messages_digest = Digest(messages_);
    array msgs = messages.get_array().value_unsafe();
    for (element m : msgs) {
      first_.clear();
      AppendCctraceJson(m, &first_);
      c->first_message_digest = Digest(first_);
      break;
    }
    ReadMessages(messages, c);
    if (!c->first_user_text_digests.empty()) {
      // Key the first message by its text: Claude Code sends it as a string once it is no longer
      // the last message, but as a list of text blocks (carrying cache_control) while it is.
      uint64_t h = 0xcbf29ce484222325ull;
      for (uint64_t d : c->first_user_text_digests) h = (h ^ d) * 0x100000001b3ull;
      c->first_message_digest = h | 1;
    }
    if (response) ReadResponse(*response, c);
    ReadTiming(look, *c, &c->api_time, &c->ttft);
    if (c->api_time < 0 && response) {
      // Some gateways keep the timing inside the response object.
      object r;
      if (!response->get_object().get(r)) {
        Lookup inner = [&](std::string_view name, Value* out) {
          element x;
          if (!KeyNoCase(r, name, &x)) return false;
          *out = Value();
          double d;
          if (!x.get_double().get(d)) {
            out->is_num = true;
            out->num = d;
          } else if (x.is_string()) {
            out->text = x.get_string().value_unsafe();
          }
          return true;
        };
        double ttft = -1;
        ReadTiming(inner, *c, &c->api_time, &ttft);
        if (c->ttft < 0) c->ttft = ttft;
      }
    }
    return nullptr;
  }

 private:
  int64_t Count(const std::string& s) {
    if (s.empty()) return 0;
    uint64_t d = Digest(s);
    auto it = counts_.find(d);
    if (it != counts_.end()) return it->second;
    scratch_.clear();
    config_.tokenizer->Encode(s, &scratch_);
    int64_t n = static_cast<int64_t>(scratch_.size());
    if (counts_.size() > 4096) counts_.clear();
    counts_.emplace(d, n);
    return n;
  }

  AnthropicReadConfig config_;
  std::string tools_, system_, messages_, whole_, first_;
  std::vector<uint32_t> tokens_, scratch_;
  std::unordered_map<uint64_t, int64_t> counts_;  // tools / system strings recur on every call
};

simdjson::error_code ParseInto(simdjson::dom::parser& p, std::string& buf, std::string_view json,
                               element* out) {
  if (buf.size() < json.size() + simdjson::SIMDJSON_PADDING)
    buf.resize(json.size() + simdjson::SIMDJSON_PADDING + json.size() / 4);
  std::memcpy(buf.data(), json.data(), json.size());
  return p.parse(buf.data(), json.size(), false).get(*out);
}

bool IsNonSuccess(int status) {
  return status != 0 && (status < 200 || status > 299);
}

void FindSession(object body, const Lookup& look, simdjson::dom::parser* aux, AnthropicCall* c) {
  SessionId sid;
  Value v;
  for (std::string_view h : {"headers", "request_headers"}) {
    if (look(h, &v) && v.has_elem && v.elem.is_object() &&
        FindHeaderSession(v.elem.get_object().value_unsafe(), &sid))
      break;
  }
  if (!sid.field) FindBodySession(body, aux, &sid);
  if (!sid.field) {
    for (std::string_view name : SessionHeaderNames()) {
      if (look(name, &v) && !v.text.empty()) {
        sid.field = SessionHeaderField(name);
        sid.value.assign(v.text);
        break;
      }
    }
  }
  if (sid.field && sid.per_conversation) {
    c->session = std::move(sid.value);
    c->session_field = sid.field;
  }
}

class Reader {
 public:
  Reader(const AnthropicReadConfig& config, ReadContext* ctx, std::vector<AnthropicCall>* out,
         AnthropicReadStats* stats)
      : builder_(config), config_(config), ctx_(ctx), out_(out), stats_(stats) {}

  // One row: body text or element, optional response, the row's lookup.
  void Row(uint64_t line, element body, const element* response, const Lookup& look, int status,
           bool failed_text) {
    if (IsNonSuccess(status) || failed_text) {
      ++stats_->filtered_status;
      return;
    }
    AnthropicCall c;
    c.line = line;
    Value v;
    bool found = config_.ts_column.empty()
                     ? [&] {
                         for (std::string_view n : TimestampColumnNames())
                           if (look(n, &v)) return true;
                         return false;
                       }()
                     : look(config_.ts_column, &v);
    if (found && (v.is_num || !v.text.empty())) {
      if (!AsTime(v, &c.time_s)) return ctx_->Skip("unparseable timestamp", line);
      c.has_time = true;
    }
    if (const char* reason = builder_.Build(body, response, look, &c))
      return ctx_->Skip(reason, line);
    object obj = body.get_object().value_unsafe();
    FindSession(obj, look, &aux_, &c);
    out_->push_back(std::move(c));
  }

  simdjson::dom::parser line_parser_, request_parser_, response_parser_, aux_;
  std::string line_buf_, request_buf_, response_buf_;

 private:
  CallBuilder builder_;
  AnthropicReadConfig config_;
  ReadContext* ctx_;
  std::vector<AnthropicCall>* out_;
  AnthropicReadStats* stats_;
};

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
  return out;
}

Status ReadCsv(InputStream* in, Reader& reader, ReadContext* ctx, AnthropicReadStats* stats) {
  CsvReader csv(in, ctx->limits);
  CsvReader::Outcome first = csv.Next();
  while (first == CsvReader::Outcome::kBad) first = csv.Next();
  if (first == CsvReader::Outcome::kError)
    return Status::Corrupt(fmt::format("{}: {}", ctx->name, csv.error().message()));
  if (first == CsvReader::Outcome::kEnd)
    return Status::InvalidArgument(fmt::format("{}:1: input is empty", ctx->name));
  std::unordered_map<std::string, size_t> index;
  std::vector<std::string> names;
  for (std::string_view f : csv.fields()) {
    names.push_back(Lower(f));
    index.emplace(names.back(), names.size() - 1);
  }
  auto col = [&](std::initializer_list<std::string_view> cands) -> long {
    for (std::string_view c : cands)
      if (auto it = index.find(std::string(c)); it != index.end())
        return static_cast<long>(it->second);
    return -1;
  };
  const long c_request =
      col({"request_json", "proxy_server_request", "request_body", "request", "body"});
  if (c_request < 0)
    return Status::InvalidArgument(
        fmt::format("{}:{}: no request_json column", ctx->name, csv.record_line()));
  const long c_response = col({"response_json", "response", "response_body"});
  const long c_status = col({"status_code", "status"});
  for (;;) {
    auto outcome = csv.Next();
    if (outcome == CsvReader::Outcome::kEnd) break;
    if (outcome == CsvReader::Outcome::kError)
      return Status::Corrupt(
          fmt::format("{}:{}: {}", ctx->name, csv.record_line(), csv.error().message()));
    ++stats->rows;
    if (outcome == CsvReader::Outcome::kBad) {
      ctx->Skip(csv.bad_reason(), csv.record_line());
      continue;
    }
    const auto& f = csv.fields();
    if (f.size() != names.size()) {
      ctx->Skip("CSV record field count differs from the header", csv.record_line());
      continue;
    }
    Lookup look = [&](std::string_view name, Value* v) {
      auto it = index.find(std::string(name));
      if (it == index.end() || f[it->second].empty()) return false;
      *v = Value();
      v->text = f[it->second];
      return true;
    };
    bool failed = false;
    int status = c_status >= 0 ? ParseStatus(f[c_status], &failed) : 0;
    element body;
    if (f[c_request].empty() ||
        ParseInto(reader.request_parser_, reader.request_buf_, f[c_request], &body)) {
      ctx->Skip(f[c_request].empty() ? "empty request_json" : "invalid JSON in request_json",
                csv.record_line());
      continue;
    }
    element response;
    bool has_response =
        c_response >= 0 && !f[c_response].empty() &&
        !ParseInto(reader.response_parser_, reader.response_buf_, f[c_response], &response) &&
        response.is_object();
    reader.Row(csv.record_line(), body, has_response ? &response : nullptr, look, status, failed);
  }
  return Status::Ok();
}

// The body of a JSONL record: the line itself, or under a known key (possibly a JSON string, or a
// Portkey-style {body: ...} holder).
bool LocateJson(Reader& reader, object top, std::initializer_list<const char*> keys,
                simdjson::dom::parser& parser, std::string& buf, element* out, bool* bad) {
  *bad = false;
  for (const char* k : keys) {
    element v;
    if (top.at_key(k).get(v) || v.is_null()) continue;
    if (v.is_string()) {
      if (ParseInto(parser, buf, v.get_string().value_unsafe(), &v)) {
        *bad = true;
        return false;
      }
    }
    object holder;
    element inner;
    if (!v.get_object().get(holder) && holder.at_key("messages").error() &&
        holder.at_key("content").error() && !holder.at_key("body").get(inner)) {
      if (inner.is_string() && ParseInto(parser, buf, inner.get_string().value_unsafe(), &inner)) {
        *bad = true;
        return false;
      }
      v = inner;
    }
    *out = v;
    (void)reader;
    return true;
  }
  return false;
}

Status ReadJsonl(InputStream* in, Reader& reader, ReadContext* ctx, AnthropicReadStats* stats) {
  LineReader lines(in, ctx->limits.max_line_bytes);
  std::string_view line;
  for (;;) {
    auto outcome = lines.Next(&line);
    if (outcome == LineReader::Outcome::kEnd) break;
    if (outcome == LineReader::Outcome::kError)
      return Status::Corrupt(
          fmt::format("{}:{}: {}", ctx->name, lines.line_number() + 1, lines.error().message()));
    if (outcome == LineReader::Outcome::kTooLong) {
      ++stats->rows;
      ctx->Skip(fmt::format("line longer than {} bytes", ctx->limits.max_line_bytes),
                lines.line_number());
      continue;
    }
    if (lines.line_number() == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    ++stats->rows;
    const uint64_t no = lines.line_number();
    element doc;
    object top;
    if (ParseInto(reader.line_parser_, reader.line_buf_, line, &doc)) {
      ctx->Skip("invalid JSON", no);
      continue;
    }
    if (doc.get_object().get(top)) {
      ctx->Skip("line is not a JSON object", no);
      continue;
    }
    element body;
    bool bad = false;
    if (!top.at_key("messages").error()) {
      body = doc;
    } else if (!LocateJson(
                   reader, top,
                   {"request_json", "request", "body", "request_body", "proxy_server_request"},
                   reader.request_parser_, reader.request_buf_, &body, &bad)) {
      ctx->Skip(bad ? "invalid JSON in request body"
                    : "no request body (messages, request_json, request, body, ...)",
                no);
      continue;
    }
    element response;
    bool has_response =
        LocateJson(reader, top, {"response_json", "response", "response_body"},
                   reader.response_parser_, reader.response_buf_, &response, &bad) &&
        response.is_object();
    Lookup look = [&](std::string_view name, Value* v) {
      element x;
      if (!KeyNoCase(top, name, &x)) return false;
      *v = Value();
      v->elem = x;
      v->has_elem = true;
      double d;
      if (!x.get_double().get(d)) {
        v->is_num = true;
        v->num = d;
      } else if (x.is_string()) {
        v->text = x.get_string().value_unsafe();
      }
      return true;
    };
    int status = 0;
    bool failed = false;
    Value sv;
    if (First(look, {"status_code", "status"}, &sv)) {
      if (sv.is_num)
        status = sv.num > 0 && sv.num < 1000 ? static_cast<int>(sv.num) : 0;
      else
        status = ParseStatus(sv.text, &failed);
    }
    reader.Row(no, body, has_response ? &response : nullptr, look, status, failed);
  }
  return Status::Ok();
}

}  // namespace

Status ReadAnthropicCalls(InputStream* in, InputFormat format, const AnthropicReadConfig& config,
                          ReadContext* ctx, std::vector<AnthropicCall>* out,
                          AnthropicReadStats* stats) {
  if (!config.tokenizer) return Status::InvalidArgument("cctrace export needs a tokenizer");
  Reader reader(config, ctx, out, stats);
  if (format == InputFormat::kCsv) return ReadCsv(in, reader, ctx, stats);
  if (format == InputFormat::kJsonl) return ReadJsonl(in, reader, ctx, stats);
  return Status::InvalidArgument(
      fmt::format("{}: export --to cctrace reads Anthropic Messages logs (CSV or JSONL), not {}",
                  ctx->name, FormatName(format)));
}

}  // namespace ltl
