// Cache-buster causes and their cost (docs/SEMANTICS.md, "Cache busters: causes"): each break
// FindDivergences found gets one cause by written rules (volatile text, tools added / removed /
// reordered / edited, system prompt edited, history rewritten, reasoning stripped or kept,
// cache_control moved, model switched, template framing, new content only), the prefix it would
// have shared without that cause, and so the tokens an unbounded cache lost to it. Per cause: lost
// tokens, points of the ceiling, requests and conversations affected, the typical position; and
// the what-if ceiling with the top cause's breaks removed. Counts and categories only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyze/below_block_sharing.h"
#include "analyze/cache_busters.h"
#include "common/request_record.h"
#include "simulate/trace.h"

namespace ltl {

enum class BusterCause : uint8_t {
  kVolatileText,
  kToolsAdded,
  kToolsRemoved,
  kToolsReordered,
  kToolEdited,
  kSystemEdited,
  kHistoryRewritten,
  kReasoningStripped,
  kReasoningKept,
  kCacheControlMoved,
  kModelSwitched,
  kTemplateFraming,
  kNewContentOnly,
};
inline constexpr size_t kBusterCauses = static_cast<size_t>(BusterCause::kNewContentOnly) + 1;

const char* BusterCauseName(BusterCause c);    // "volatile_text", ... (report.json)
const char* BusterCauseLabel(BusterCause c);   // "volatile text (dates, times, ids)", ...
const char* BusterCauseAdvice(BusterCause c);  // the usual fix, one clause
// Natural misses (new content only) are not busters: no fix recovers them.
inline bool IsNatural(BusterCause c) {
  return c == BusterCause::kNewContentOnly;
}

struct CauseCost {
  BusterCause cause = BusterCause::kNewContentOnly;
  uint64_t requests = 0;       // requests with a break of this cause (cache_control: moves too)
  uint64_t conversations = 0;  // distinct conversations among them
  int64_t lost_tokens = 0;     // over every request
  int64_t lost_measured_tokens = 0;  // over the measured requests (the ceiling's)
  double ceiling_points = 0;         // lost_measured_tokens / measured tokens, in points
  // Typical position: the most common segment of the break ("system", "tools", "message (user)"),
  // the median token offset inside it, and the median prompt token where the shared prefix ends.
  std::string segment;
  uint64_t token_offset = 0;
  uint64_t prompt_token = 0;
};

struct CacheBusters {
  bool present = false;           // gateway requests with segment facts
  uint64_t requests = 0;          // requests analysed (real, with facts)
  uint64_t compared = 0;          // ... with an earlier request to compare with
  uint64_t breaks = 0;            // ... whose shared prefix ended early
  int64_t lost_tokens = 0;        // all busters (natural excluded)
  std::vector<CauseCost> causes;  // busters by lost tokens (descending), new content only last
  // What-if: the ceiling with the top buster's breaks removed (each such request hits its would-be
  // shared prefix), beside the ceiling; measured as the profile's ceiling.
  bool has_top = false;
  BusterCause top = BusterCause::kNewContentOnly;
  int64_t measured_tokens = 0;
  int64_t ceiling_hit_tokens = 0;
  int64_t whatif_hit_tokens = 0;
  double facts_bytes_per_request = 0;  // PromptFacts with its vectors, averaged over requests
  // Requests that share no block but begin as an earlier request did, for less than a block.
  SharedBelowBlock below_block;
};

// `first_measured`: trace index of the first measured request (FirstMeasuredIndex);
// `ceiling_hit_tokens`/`measured_tokens`: the profile's steady-state ceiling.
CacheBusters AnalyzeCacheBusters(const Trace& trace, const std::vector<RequestRecord>& records,
                                 const std::vector<Divergence>& divergences, size_t first_measured,
                                 int64_t ceiling_hit_tokens, int64_t measured_tokens);

// Sets the figures that depend on the profile's steady-state ceiling: measured_tokens,
// ceiling_hit_tokens, each cause's ceiling_points and whatif_hit_tokens. AnalyzeCacheBusters ends
// with it; called again with the curve's figures on a CacheBusters analysed before the curve was
// known (AnalyzeInput: the segment facts are read, then freed, beside the curves), it gives what
// one call with them gives.
void SetCacheBusterCeiling(CacheBusters* b, int64_t ceiling_hit_tokens, int64_t measured_tokens);

// One sentence per buster for the findings (aggregates only).
std::vector<std::string> CacheBusterSentences(const CacheBusters& b);

// The cause of one break and the blocks the request would have shared without it.
struct BreakCause {
  BusterCause cause = BusterCause::kNewContentOnly;
  uint64_t would_share = 0;  // blocks
  // The segment that names the position: the request's (or, when `in_reference`, the
  // reference's: the reasoning a request lacks) index in its facts; -1 = none.
  int32_t where = -1;
  bool in_reference = false;
};
BreakCause ClassifyBreak(const Trace& trace, const std::vector<RequestRecord>& records,
                         size_t request, const Divergence& d);

}  // namespace ltl
