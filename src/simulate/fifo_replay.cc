// The whole-trace FIFO replay at one capacity: the FifoCache (fifo_cache.h) run over the trace
// with every block id dense.
#include "simulate/fifo_replay.h"

#include "simulate/fifo_cache.h"

namespace ltl {

ReplayResult ReplayFifoAt(const Trace& trace, uint64_t capacity_blocks,
                          const ReplayOptions& options, std::vector<uint32_t>* hit_blocks) {
  ReplayTally tally(trace, capacity_blocks, options);
  FifoCache cache(capacity_blocks, trace.num_blocks);
  if (hit_blocks) hit_blocks->assign(trace.requests.size(), 0);
  BlockCursor cursor(trace);
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    const TraceRequest& r = trace.requests[i];
    const uint32_t* ids = cursor.Blocks(r);
    const bool measured = tally.Begin(i, cache.size());
    const uint32_t k = cache.Match(ids, r.num_blocks);
    if (measured) tally.AddHit(r, ids, k);
    if (hit_blocks) (*hit_blocks)[i] = k;
    cache.Admit(ids, r.num_blocks);
    tally.End(r, ids);
  }
  return tally.Finish(cache.size());
}

}  // namespace ltl
