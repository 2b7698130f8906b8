// CctraceSummary: what a cache-trace (cctrace) profile adds to the report — the parent and
// sub-agent hit rates of the reference replay (unbounded, cold, one cache per conversation and a
// fresh one per sub-agent), in total and per conversation file, and the provider's usage sums.
// Internal to src/analyze/ (tests/build/internal_headers.cmake).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/request_record.h"
#include "read/cctrace_reader.h"
#include "simulate/trace.h"

namespace ltl {

struct CctraceRates {
  uint64_t requests = 0;
  int64_t blocks = 0, hit_blocks = 0;  // leading-hit blocks / blocks
  int64_t tokens = 0, hit_tokens = 0;  // the same in tokens (blocks x block_size)
  double hit_rate() const {
    return tokens > 0 ? static_cast<double>(hit_tokens) / static_cast<double>(tokens) : 0.0;
  }
};

struct CctraceConversationSummary {
  std::string id;  // the file's own id (anonymous)
  uint32_t segment = 0;
  uint64_t subagents = 0;
  CctraceRates parent, subagent;
};

struct CctraceSummary {
  bool present = false;  // the input was a cache trace
  bool warm_prefix = false;
  uint64_t files = 0, ignored_files = 0, subagents = 0, warm_blocks = 0;
  int64_t parent_in = 0, parent_out = 0, subagent_in = 0, subagent_out = 0;
  CctraceRates parent, subagent;
  std::vector<CctraceConversationSummary> conversations;  // read order
};

CctraceSummary SummarizeCctrace(const std::vector<RequestRecord>& records, const Trace& trace,
                                const CctraceReadStats& stats, bool warm_prefix);

}  // namespace ltl
