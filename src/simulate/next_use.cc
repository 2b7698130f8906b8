// ComputeNextUse (see next_use.h): walk requests from last to first, remembering for each block the
// most recent (in backward order: the nearest later) request that contained it.
#include "simulate/next_use.h"

namespace ltl {

std::vector<uint32_t> ComputeNextUse(const Trace& trace) {
  std::vector<uint32_t> next(trace.num_accesses, kNeverUsed);
  std::vector<uint32_t> later(trace.num_blocks, kNeverUsed);  // nearest later request per block
  BlockCursor cursor(trace);
  for (size_t i = trace.requests.size(); i-- > 0;) {
    const TraceRequest& r = trace.requests[i];
    const uint32_t* ids = cursor.Blocks(r);
    // Read every access first so repeats within the request all see the next *other* request.
    for (uint32_t j = 0; j < r.num_blocks; ++j) next[r.first + j] = later[ids[j]];
    for (uint32_t j = 0; j < r.num_blocks; ++j) later[ids[j]] = static_cast<uint32_t>(i);
  }
  return next;
}

}  // namespace ltl
