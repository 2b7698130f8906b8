// FindSharedBelowBlock (see below_block_sharing.h).
#include "analyze/below_block_sharing.h"

#include <absl/container/flat_hash_set.h>

#include <algorithm>

#include "common/facts_store.h"
#include "common/mix64.h"
#include "common/segment_map.h"

namespace ltl {
namespace {

// One segment chained onto the digest of the segments before it (kind, role and text digest:
// equal chains mean equal leading segments, as FirstDifferingSegment compares them).
uint64_t Chain(uint64_t h, const SegmentFact& s) {
  const uint64_t v = (uint64_t{s.digest} << 16) | (uint64_t{s.kind} << 8) | s.role;
  return SplitMix64Finalizer(h ^ SplitMix64Finalizer(v + 0x9e3779b97f4a7c15ull));
}

// The token where segment `i` ends: the next segment's start, or the prompt's end.
uint64_t SegmentEnd(const PromptFacts& f, size_t i, int64_t input_tokens) {
  return i + 1 < f.segments.size() ? f.segments[i + 1].token_start
                                   : static_cast<uint64_t>(std::max<int64_t>(input_tokens, 0));
}

}  // namespace

SharedBelowBlock FindSharedBelowBlock(const Trace& trace, const std::vector<RequestRecord>& records,
                                      const std::vector<Divergence>& divergences,
                                      size_t first_measured) {
  SharedBelowBlock out;
  // Chains of the leading segments that start inside a request's first block: only those can
  // hold a prefix shorter than one block, so the set stays small (a few entries per distinct
  // opening, not per request).
  absl::flat_hash_set<uint64_t> seen;
  std::vector<uint64_t> shared_tokens;
  PromptFacts scratch;  // ReadFacts's
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    const TraceRequest& tr = trace.requests[i];
    if (SegmentCount(records[tr.record].facts) == 0 || tr.block_size == 0) continue;
    const PromptFacts& f = ReadFacts(records[tr.record].facts, &scratch);
    if (out.block_size == 0) out.block_size = tr.block_size;
    const bool candidate = !tr.replay_only && divergences[i].best_shared == 0;
    uint64_t h = 0, shared = 0;
    bool content = false;  // the shared run holds more than the template's own framing
    for (size_t s = 0; s < f.segments.size() && f.segments[s].token_start < tr.block_size; ++s) {
      h = Chain(h, f.segments[s]);
      const bool before = !seen.insert(h).second;
      // The leading run an earlier request had too (a gap ends the run: later chains differ).
      if (candidate && before && shared == f.segments[s].token_start) {
        shared = SegmentEnd(f, s, tr.input_tokens);
        content = content || f.segments[s].kind != static_cast<uint8_t>(SegmentKind::kFraming);
      }
    }
    // No block shared, so the shared part is shorter than a block unless the request itself is.
    // A run of framing alone (the template's opening, which every request has) is no sharing.
    shared = std::min<uint64_t>(shared, tr.block_size - 1);
    if (!candidate || shared == 0 || !content) continue;
    ++out.requests;
    out.tokens += static_cast<int64_t>(shared);
    if (i >= first_measured) {
      ++out.measured_requests;
      out.measured_tokens += static_cast<int64_t>(shared);
    }
    shared_tokens.push_back(shared);
  }
  if (!shared_tokens.empty()) {
    auto mid = shared_tokens.begin() + static_cast<std::ptrdiff_t>(shared_tokens.size() / 2);
    std::nth_element(shared_tokens.begin(), mid, shared_tokens.end());
    out.median_tokens = *mid;
  }
  return out;
}

}  // namespace ltl
