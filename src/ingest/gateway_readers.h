// Gateway log readers: CSV (a request_json column, optional response_json, model_name,
// status_code, timestamp and session columns) and JSONL (one request per line, the body directly
// or under a known key). Each row goes through GatewayRowProcessor; bad rows are skipped and
// counted by reason; non-2xx rows are counted and not replayed. After reading, session fields whose
// values never repeat are recognised as per-request ids, and turns are numbered per conversation.
// With ctx->threads > 1 the reading thread cuts rows into batches, ctx->threads workers process
// them, and the results are taken back in input order: records, skips and stats do not depend on
// the thread count. Logged usage fits a record's ids to the exact count on the worker
// (hash/conform_ids.h); with ctx->interner the ids are then interned in input order and dropped.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/request_record.h"
#include "common/status.h"
#include "ingest/gateway_row.h"
#include "read/input_stream.h"
#include "read/read_context.h"

namespace ltl {

struct GatewayReadStats {
  uint64_t filtered_status = 0;             // non-2xx rows, not replayed
  std::map<std::string, uint64_t> layouts;  // layout name -> requests rendered with it
  // Session fields whose every value was unique (e.g. LiteLLM's random per-request session_id):
  // not used as conversations; conversations were inferred from the prompt instead.
  std::vector<std::string> per_request_session_fields;
  // Records with logged usage whose ids were fitted to the exact count (hash/conform_ids.h).
  uint64_t conformed_ids = 0;
};

Status ReadGatewayCsv(InputStream* in, ReadContext* ctx, const GatewayConfig& config,
                      std::vector<RequestRecord>* out, GatewayReadStats* stats);
Status ReadGatewayJsonl(InputStream* in, ReadContext* ctx, const GatewayConfig& config,
                        std::vector<RequestRecord>* out, GatewayReadStats* stats);

}  // namespace ltl
