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
#include "ingest/gateway_readers.h"
#include "ingest/response_usage.h"

namespace ltl {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

uint64_t Digest(std::string_view s) {
  return std::hash<std::string_view>{}(s) | 1;
}

// Labels that come from the log are written only when they are in a closed set (anything else
// could carry client or model text into the trace): `value` itself when it is one of `known`, else
// `other`.
template <size_t N>
std::string_view ClosedLabel(std::string_view value, const std::string_view (&known)[N],
                             std::string_view other) {
  for (std::string_view k : known)
    if (value == k) return k;
  return other;
}

// Anthropic's documented content block types.
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
  return ClosedLabel(type, kKnown, "other");
}

// Claude Code's built-in sub-agent types.
std::string_view SubagentTypeLabel(std::string_view type) {
  static constexpr std::string_view kBuiltIn[] = {
      "general-purpose",    "Explore",          "Plan", "statusline-setup",
      "output-style-setup", "claude-code-guide"};
  return ClosedLabel(type, kBuiltIn, "custom");
}

// Anthropic's documented stop reasons (Messages API, "stop_reason").
std::string_view StopReasonLabel(std::string_view stop) {
  static constexpr std::string_view kKnown[] = {"end_turn",
                                                "max_tokens",
                                                "stop_sequence",
                                                "tool_use",
                                                "pause_turn",
                                                "refusal",
                                                "model_context_window_exceeded"};
  return stop.empty() ? std::string_view() : ClosedLabel(stop, kKnown, "other");
}

// A model name is written only when it has the shape of a model identifier (letters, digits and
// ._:/@+- , at most 128 bytes: "claude-sonnet-4-5-20250929", "us.anthropic.claude-3-7-sonnet-
// 20250219-v1:0", "openrouter/anthropic/claude-opus-4.1"); anything else, which could be text, is
// "other".
std::string ModelIdLabel(std::string_view model) {
  if (model.empty()) return "";
  if (model.size() > 128) return "other";
  for (char ch : model) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == ':' || ch == '/' ||
                    ch == '@' || ch == '+' || ch == '-';
    if (!ok) return "other";
  }
  return std::string(model);
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
  if (!r["stop_reason"].get_string().get(stop)) c->stop.assign(StopReasonLabel(stop));
  const ResponseUsage usage = ReadResponseUsage(response);
  c->usage_in = usage.input;
  c->usage_out = usage.output;
}

class CallBuilder {
 public:
  explicit CallBuilder(const AnthropicReadConfig& config) : config_(config) {}

  // Fills *c from the body (and response). Returns nullptr or a skip reason.
  const char* Build(const LocatedRow& row, AnthropicCall* c) {
    element body = row.body;
    const element* response = row.has_response ? &row.response : nullptr;
    object obj;
    if (body.get_object().get(obj)) return "request body is not a JSON object";
    element messages;
    if (obj["messages"].get(messages) || !messages.is_array())
      return "request has no messages array";
    std::string_view s;
    if (!obj["model"].get_string().get(s)) c->model = ModelIdLabel(s);
    if (c->model.empty()) c->model = ModelIdLabel(row.model);
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
    // Timing as the row locator found it: durations, else end / first-token times.
    c->api_time = row.latency_s;
    if (c->api_time < 0 && c->has_time && row.end_time >= c->time_s)
      c->api_time = row.end_time - c->time_s;
    c->ttft = row.ttft_s;
    if (c->ttft < 0 && c->has_time && row.first_token_time >= c->time_s)
      c->ttft = row.first_token_time - c->time_s;
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

}  // namespace

Status ReadAnthropicCalls(InputStream* in, const Detection& detection,
                          const AnthropicReadConfig& config, IngestContext* ctx,
                          std::vector<AnthropicCall>* out, AnthropicReadStats* stats) {
  if (!config.tokenizer) return Status::InvalidArgument("cctrace export needs a tokenizer");
  if (detection.format != InputFormat::kCsv && detection.format != InputFormat::kJsonl)
    return Status::InvalidArgument(
        fmt::format("{}: export --to cctrace reads Anthropic Messages logs (CSV or JSON), not {}",
                    ctx->name, FormatName(detection.format)));
  CallBuilder builder(config);
  // Per call: the value and name of a field the tool fills per request ("" = none).
  std::vector<std::pair<std::string, std::string>> fillers;
  GatewayReadStats read;
  Status st = ForEachGatewayRow(
      in, detection, ctx,
      [&](const LocatedRow& row) -> const char* {
        AnthropicCall c;
        c.line = row.line;
        c.time_s = row.time_s;
        c.has_time = row.has_time;
        if (const char* reason = builder.Build(row, &c)) return reason;
        if (row.session.field && row.session.per_conversation) {
          c.session = row.session.value;
          c.session_field = row.session.field;
        }
        if (row.filler.field)
          fillers.emplace_back(row.filler.value, row.filler.field);
        else
          fillers.emplace_back();
        out->push_back(std::move(c));
        return nullptr;
      },
      &read);
  if (!st.ok()) return st;
  stats->times = DropImplausibleTimes(out, EpochNow());
  // A filler value (a session id the tool made up for one request) is a session only when it
  // repeats, and never replaces a real one (docs/SEMANTICS.md, "Session identifiers").
  std::unordered_map<std::string, uint32_t> seen;
  for (const auto& f : fillers)
    if (!f.first.empty()) ++seen[f.first];
  for (size_t i = 0; i < out->size(); ++i) {
    AnthropicCall& c = (*out)[i];
    if (!c.session.empty() || fillers[i].first.empty() || seen[fillers[i].first] < 2) continue;
    c.session = fillers[i].first;
    c.session_field = fillers[i].second;
  }
  stats->filtered_status = read.filtered_status;
  stats->rows = read.rows;
  stats->ignored = read.ignored;
  stats->source = read.source;
  return Status::Ok();
}

}  // namespace ltl
