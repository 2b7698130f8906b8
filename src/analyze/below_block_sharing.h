// "Shared, but shorter than a block" (docs/SEMANTICS.md, "Cache busters"): requests that share no
// block with any earlier request, yet begin with whole prompt segments (a short system prompt, the
// tools) that an earlier request began with too. An engine caches only full blocks (vLLM hashes
// full blocks only: vllm/v1/core/kv_cache_utils.py @ 001cabc1, request_block_hasher), so such a
// prefix is never hit and a block-level count reads it as "nothing shared" (vLLM issue #54607).
// Found from the segment facts (keyed digests and token positions): counts and tokens only.
#pragma once

#include <cstdint>
#include <vector>

#include "analyze/cache_busters.h"
#include "common/request_record.h"
#include "simulate/trace.h"

namespace ltl {

struct SharedBelowBlock {
  uint64_t requests = 0;           // real requests of this kind
  uint64_t measured_requests = 0;  // ... from the first measured request on
  int64_t tokens = 0;              // their shared leading tokens (whole segments: a lower bound)
  int64_t measured_tokens = 0;     // ... of the measured requests
  uint64_t median_tokens = 0;      // a typical request's shared leading tokens
  uint32_t block_size = 0;         // the trace's block size (tokens)
};

// `divergences` from FindDivergences; `first_measured` from FirstMeasuredIndex.
SharedBelowBlock FindSharedBelowBlock(const Trace& trace, const std::vector<RequestRecord>& records,
                                      const std::vector<Divergence>& divergences,
                                      size_t first_measured);

}  // namespace ltl
