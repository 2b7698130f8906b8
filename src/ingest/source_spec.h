// SourceSpec: one gateway-log source (a tool's export or logging format) as data: how it is
// recognised and where each field of a request lives. Every source is one file under
// src/ingest/sources/ holding one table, registered by one line in sources/sources.def. The row
// locator (ingest/row_locator.h) is the only code that reads these tables.
//
// Every list holds field paths (ingest/field_path.h) tried in order; the first one present wins.
// For CSV inputs a path's first segment is a column name.
#pragma once

#include <string_view>
#include <vector>

namespace ltl {

using Paths = std::vector<std::string_view>;

// How the request body is found.
enum class BodyShape {
  kRequest,      // an OpenAI chat / Anthropic Messages request body (has `messages`)
  kMessageList,  // a list of chat messages (+ `tools`, `system` lists): a request is assembled
  kOtelParts,    // OpenTelemetry GenAI `gen_ai.input.messages` (role + parts), assembled
  kOtelFlat,     // OpenLLMetry's flattened attributes gen_ai.prompt.N.*, llm.request.functions.N.*
};

// How a status field is read.
enum class StatusKind {
  kHttp,   // HTTP code, or success/failure/error text; false booleans fail
  kOtel,   // OTLP status code: 2 (STATUS_CODE_ERROR) fails
  kLevel,  // an observation level: ERROR fails
};

struct SourceSpec {
  std::string_view name{};        // --source NAME
  std::string_view tool{};        // who writes it ("LiteLLM proxy", ...)
  std::string_view summary{};     // one line for list-sources
  std::string_view example{};     // one abbreviated example record for list-sources
  bool json = true, csv = false;  // the framings it comes in
  // Detection on the first record: every path of `detect_all` present, and at least one of
  // `detect_any` when it is non-empty; among matching sources the highest priority wins.
  Paths detect_all{};
  Paths detect_any{};
  int priority = 0;

  // Records nested inside each framed value (OTLP: resourceSpans[*].scopeSpans[*].spans[*]);
  // empty = the value is the record.
  Paths records_at{};
  // Only records whose `kind_field` is one of `kind_keep` are requests; others are counted and
  // ignored (Langfuse SPAN/EVENT observations).
  std::string_view kind_field{};
  Paths kind_keep{};

  BodyShape shape = BodyShape::kRequest;
  Paths body{};  // kRequest: the body ("." = the record itself); kMessageList: the message list
  Paths
      tools{};  // tools held outside the body (assembled shapes, and added when the body has none)
  Paths system{};  // system prompt held outside the body (assembled shapes)
  Paths response{};
  Paths model{};
  Paths status{};
  StatusKind status_kind = StatusKind::kHttp;
  Paths time{};
  // Session identifiers, strongest first: `session` values name a session; `session_headers`
  // are objects of request headers searched for x-session-id & co; then the body's own fields
  // (prompt_cache_key, metadata.user_id, ...). `filler_session` fields are filled by the tool
  // with a fresh id on every request the client sent none for: a value seen on one request only
  // is a filler, not a session, and never shadows a real id (docs/SEMANTICS.md).
  Paths session{};
  Paths session_headers{};
  Paths filler_session{};
  Paths prompt_tokens{};
  Paths completion_tokens{};
  Paths cached_tokens{};
  // Timing (cache-trace export): durations in seconds or milliseconds, or absolute times.
  Paths latency_s{};
  Paths latency_ms{};
  Paths ttft_s{};
  Paths ttft_ms{};
  Paths end_time{};
  Paths first_token_time{};
  Paths server_timing{};

  // Quirks.
  bool doubled_quotes = false;  // CSV cells whose JSON quotes are doubled once more (Helicone)
  // Said when the body is the empty object "{}" (LiteLLM without store_prompts_in_spend_logs).
  std::string_view empty_body_reason{};
  std::string_view note{};  // said once when the source is used (quirk handled, caveat)
};

// All registered sources, in registration order (sources/sources.def).
const std::vector<const SourceSpec*>& AllSources();
// nullptr when no source has that name.
const SourceSpec* FindSource(std::string_view name);

}  // namespace ltl
