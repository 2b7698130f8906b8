// RowLocator: one gateway record (a CSV row or a JSON record) -> where its request lives and what
// the log says about it: the body (as an OpenAI chat / Anthropic Messages request, assembled when
// the source stores messages and tools apart), the response, status, time, model, session ids,
// usage and timing. Driven by a SourceSpec table (ingest/source_spec.h) plus the user's overrides
// (--body-field, --status-field, --session-field, --time-field, --model-field). Used by profile,
// export --to mooncake|bailian (through GatewayRowProcessor) and export --to cctrace alike.
// Internal to src/ingest/ (tests/build/internal_headers.cmake).
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "ingest/field_path.h"
#include "ingest/session_id.h"
#include "ingest/source_spec.h"

namespace ltl {

struct FieldOverrides {
  std::string body, status, session, time, model;  // "" = the source's own
  bool any() const {
    return !body.empty() || !status.empty() || !session.empty() || !time.empty() || !model.empty();
  }
};

// A source's paths parsed once; read-only, shared by every worker's locator.
struct CompiledSource {
  const SourceSpec* spec = nullptr;
  struct Field {
    FieldPath path;
    std::string report_name;  // sessions: the name the report gives the field
  };
  using Fields = std::vector<Field>;
  Fields body, tools, system, response, model, status, time, session, session_headers,
      filler_session, prompt_tokens, completion_tokens, cached_tokens, latency_s, latency_ms,
      ttft_s, ttft_ms, end_time, first_token_time, server_timing, kind;
  bool body_is_record = false;  // "." is a body candidate (the record, when it has messages)
  bool status_overridden = false;
  std::string no_body_reason;  // fixed phrase naming the tried fields and --body-field
  std::string ignored_reason;  // records of another kind (Langfuse spans, OTel non-LLM spans)
};

Result<std::shared_ptr<const CompiledSource>> CompileSource(const SourceSpec& spec,
                                                            const FieldOverrides& overrides);

// A CSV header mapped onto a source's fields: which columns hold what. Cells of the used columns
// are handed to the locator in `used` order.
struct CsvLayout {
  struct Ref {
    int slot = -1;    // index into `used`, -1 = not present
    size_t rest = 0;  // path segments after the column (walked into the cell's JSON)
  };
  std::vector<size_t> used;  // column indexes the reader copies
  // Per CompiledSource field list, in the same order: where each path is.
  std::vector<std::vector<Ref>> refs;  // indexed by FieldId
  bool has_body = false;
};

enum class FieldId {
  kBody,
  kTools,
  kSystem,
  kResponse,
  kModel,
  kStatus,
  kTime,
  kSession,
  kSessionHeaders,
  kFillerSession,
  kPromptTokens,
  kCompletionTokens,
  kCachedTokens,
  kLatencyS,
  kLatencyMs,
  kTtftS,
  kTtftMs,
  kEndTime,
  kFirstTokenTime,
  kServerTiming,
  kKind,
  kCount
};

// Maps `lower_names` (the header, lower case). Columns each used path names.
CsvLayout MapCsvHeader(const CompiledSource& source, const std::vector<std::string>& lower_names);

// What the locator found in one record. Elements stay valid until the next Locate call.
struct LocatedRow {
  uint64_t line = 0;
  simdjson::dom::element body;  // the request, as the renderer reads it
  bool has_response = false;
  simdjson::dom::element response;
  std::string_view model;  // the log's model field ("" = the body's own)
  int status = 0;          // HTTP status when known
  bool has_time = false;
  double time_s = 0;
  SessionId session;  // a real session id (source fields, headers, the body)
  SessionId filler;   // a value of a field the tool fills per request (kept apart)
  int64_t prompt_tokens = -1, completion_tokens = -1, cached_tokens = -1;
  bool truncated = false;  // litellm_truncated marker in the body
  // LocateTiming only (seconds; -1 unknown).
  double latency_s = -1, ttft_s = -1, end_time = -1, first_token_time = -1;
  bool bad_latency = false;  // a latency field held a negative number
};

enum class LocateResult { kOk, kSkipped, kFiltered, kIgnored };

class RowLocator {
 public:
  explicit RowLocator(std::shared_ptr<const CompiledSource> source);

  // `raw` is the record's text (searched for the truncation marker).
  LocateResult LocateJson(std::string_view raw, uint64_t line, LocatedRow* out,
                          const char** reason);
  // `cells` holds the used columns' cells in CsvLayout::used order.
  LocateResult LocateCsv(const CsvLayout& layout, const std::vector<std::string_view>& cells,
                         uint64_t line, LocatedRow* out, const char** reason);
  // Fills the timing fields of the row just located.
  void LocateTiming(LocatedRow* out);

  const CompiledSource& source() const { return *source_; }

 private:
  struct Value {
    bool is_elem = false;
    simdjson::dom::element elem;
    std::string_view text;
  };
  bool Find(FieldId id, Value* v);
  bool FindText(FieldId id, std::string_view* s, const char** name = nullptr);
  bool FindNumber(FieldId id, double* d);
  bool FindCount(FieldId id, int64_t* n);
  bool AsJson(const Value& v, simdjson::dom::element* out);
  LocateResult Finish(LocatedRow* out, const char** reason, std::string_view raw);
  bool FindBody(LocatedRow* out, const char** reason, std::string_view raw);
  bool Assemble(simdjson::dom::element list_or_attrs, LocatedRow* out, const char** reason);
  const CompiledSource::Fields& FieldsOf(FieldId id) const;

  std::shared_ptr<const CompiledSource> source_;
  JsonScratch scratch_;
  simdjson::dom::parser record_parser_, aux_parser_;
  std::string record_buf_;
  std::string assembled_, fixed_;
  // The record being located: a JSON element, or CSV cells.
  bool csv_ = false;
  simdjson::dom::element root_;
  const CsvLayout* layout_ = nullptr;
  const std::vector<std::string_view>* cells_ = nullptr;
  const char* found_name_ = nullptr;
};

// "200" -> 200; "success" -> 200; "failure"/"error" -> *failed; "" -> 0 (unknown).
int ParseStatus(std::string_view text, bool* failed);

}  // namespace ltl
