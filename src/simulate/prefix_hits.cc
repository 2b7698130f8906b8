// UnboundedColdHits (see prefix_hits.h): one pass with a bitmap of seen dense ids.
#include "simulate/prefix_hits.h"

namespace ltl {

std::vector<uint32_t> UnboundedColdHits(const Trace& trace) {
  std::vector<uint32_t> hits(trace.requests.size(), 0);
  std::vector<uint8_t> seen(trace.num_blocks, 0);
  BlockCursor cursor(trace);
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    const TraceRequest& r = trace.requests[i];
    const uint32_t* ids = cursor.Blocks(r);
    uint32_t k = 0;
    if (!r.replay_only)
      while (k < r.num_blocks && seen[ids[k]]) ++k;
    hits[i] = k;
    for (uint32_t j = 0; j < r.num_blocks; ++j) seen[ids[j]] = 1;
  }
  return hits;
}

}  // namespace ltl
