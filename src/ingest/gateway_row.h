// GatewayRowProcessor: one gateway log row -> one RequestRecord. Parses the request body (and the
// response, when logged), renders the prompt in the model's layout, counts tokens, cuts blocks and
// chain-hashes them with the salt, finds the session identifier and infers the conversation.
// A processor holds only per-call scratch (parsers, buffers), so each worker thread owns one and
// rows can be processed in any order; the result depends on the row alone.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/request_record.h"
#include "hash/block_chain.h"
#include "hash/block_cutter.h"
#include "ingest/session_id.h"
#include "render/render_prompt.h"

namespace ltl {

struct GatewayConfig {
  Layout layout = Layout::kAuto;  // --template
  SipKey key;                     // the salt
  uint32_t block_size = kGatewayDefaultBlockSize;
  const Tokenizer* tokenizer = nullptr;  // null = approximate counting
  std::string ts_column;                 // --ts-column (lower case), "" = detect
  // --show-prefix-text's second pass: sees each rendered prompt with its line (null = none).
  std::function<void(uint64_t line, std::string_view prompt)> on_prompt;
};

// What a CSV row supplied; views are valid for the duration of the call.
struct GatewayCsvRow {
  uint64_t line = 0;
  std::string_view request, response, model, status, timestamp;
  const char* session_field = nullptr;  // a session column's report name, or null
  std::string_view session_value;
  std::string_view prompt_tokens, completion_tokens;  // LiteLLM spend-log usage columns
};

enum class RowResult { kOk, kSkipped, kFiltered };

class GatewayRowProcessor {
 public:
  explicit GatewayRowProcessor(const GatewayConfig& config);

  // kSkipped: *reason is a fixed phrase. kFiltered: a non-2xx status; out->status_code is set.
  RowResult ProcessCsv(const GatewayCsvRow& row, RequestRecord* out, const char** reason);
  RowResult ProcessJsonLine(std::string_view line, uint64_t line_no, RequestRecord* out,
                            const char** reason);

  // For the row just processed: the conversation key inferred from the prompt ("" when the prompt
  // has no system or user content), whatever the session field said; and the layout used.
  const std::string& inferred_conversation() const { return inferred_; }
  Layout layout() const { return prompt_.layout; }

 private:
  struct Meta {
    std::string_view model;
    int status = 0;  // 0 unknown
    bool failed_text_status = false;
    bool has_time = false;
    double time_s = 0;
    SessionId session;
    int64_t prompt_tokens = -1, completion_tokens = -1;
    bool truncated = false;
  };
  RowResult Finish(simdjson::dom::element body, const simdjson::dom::element* response, Meta& meta,
                   RequestRecord* out, const char** reason);
  simdjson::error_code Parse(simdjson::dom::parser& parser, std::string& padded,
                             std::string_view json, simdjson::dom::element* out);

  GatewayConfig config_;
  simdjson::dom::parser line_parser_, request_parser_, response_parser_, aux_parser_;
  std::string line_buf_, request_buf_, response_buf_;
  RenderedPrompt prompt_, response_text_;
  std::unique_ptr<BlockCutter> cutter_;
  BlockChain chain_;
  std::string inferred_;
  std::string scratch_;
};

// "200" -> 200; "success" -> 200; "failure"/"error" -> *failed; "" -> 0 (unknown).
int ParseStatus(std::string_view text, bool* failed);

}  // namespace ltl
