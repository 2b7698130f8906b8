// --requests-out REQ.jsonl: one JSON object per replayed request in replay order, for joining the
// per-request figures back to the user's own log by (file, row): index, file, row, time,
// input_tokens, hit_tokens (the ideal unbounded cache, from empty), and with a provider model
// provider_read_tokens, provider_write_tokens, observed_read_tokens, observed_write_tokens (null
// where the row reports none). Counts only: no text, no session values (docs/FORMATS.md).
#pragma once

#include <string>
#include <vector>

#include "analyze/provider_cache_section.h"
#include "common/request_record.h"
#include "common/status.h"
#include "ingest/load_input.h"
#include "simulate/trace.h"

namespace ltl {

// Written to a temporary file beside `path` and renamed into place when complete.
Status WriteRequestsJsonl(const std::string& path, const Trace& trace,
                          const std::vector<RequestRecord>& records,
                          const std::vector<InputFileSummary>& files,
                          const ProviderCacheSection& provider);

}  // namespace ltl
