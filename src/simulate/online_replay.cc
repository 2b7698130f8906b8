// ReplayOnlineCache (see eviction_policy.h): the whole-trace replay of any online cache.
#include "simulate/eviction_policy.h"
#include "simulate/replay_tally.h"

namespace ltl {

ReplayResult ReplayOnlineCache(const Trace& trace, uint64_t capacity_blocks,
                               const ReplayOptions& options, BlockCache* cache,
                               std::vector<uint32_t>* hit_blocks) {
  ReplayTally tally(trace, capacity_blocks, options);
  if (hit_blocks) hit_blocks->assign(trace.requests.size(), 0);
  BlockCursor cursor(trace);
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    const TraceRequest& r = trace.requests[i];
    const uint32_t* ids = cursor.Blocks(r);
    const bool measured = tally.Begin(i, cache->size());
    const uint32_t k = cache->Match(ids, r.num_blocks);
    if (measured) tally.AddHit(r, ids, k);
    if (hit_blocks) (*hit_blocks)[i] = k;
    cache->Admit(ids, r.num_blocks, k, options.order);
    tally.End(r, ids);
  }
  return tally.Finish(cache->size());
}

}  // namespace ltl
