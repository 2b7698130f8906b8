// Per-capacity LRU replay: the fleet's WorkerCache (fleet_worker_cache.h, the online LRU) run over
// the whole trace with every block id dense, so the LRU rule is written once.
#include "simulate/lru_replay.h"

#include <vector>

#include "simulate/fleet_worker_cache.h"

namespace ltl {

HitTokens ReplayLruAt(const Trace& trace, uint64_t capacity_blocks, const ReplayOptions& options) {
  HitTokens h;
  WorkerCache lru(capacity_blocks, trace.num_blocks);
  std::vector<int32_t> owner(trace.num_conversations > 0 ? trace.num_blocks : 0, -1);
  const size_t first_measured = FirstMeasuredIndex(trace, options);
  BlockCursor cursor(trace);
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    const TraceRequest& r = trace.requests[i];
    const uint32_t* ids = cursor.Blocks(r);
    if (i >= first_measured && !r.replay_only) {
      const uint32_t k = lru.Match(ids, r.num_blocks);
      for (uint32_t j = 0; j < k && !owner.empty(); ++j) {
        const int32_t o = owner[ids[j]];
        if (o == -2 || (o != -1 && o != r.conversation)) h.across += BlockTokens(r, j);
      }
      h.hit += HitTokenCount(r, k);
    }
    if (options.order == EvictOrder::kTailFirst) {
      for (uint32_t j = r.num_blocks; j-- > 0;) lru.Touch(ids[j]);
    } else {
      for (uint32_t j = 0; j < r.num_blocks; ++j) lru.Touch(ids[j]);
    }
    for (uint32_t j = 0; j < r.num_blocks && !owner.empty(); ++j) {
      int32_t& o = owner[ids[j]];
      if (o == -1)
        o = r.conversation;
      else if (o != r.conversation)
        o = -2;
    }
  }
  return h;
}

}  // namespace ltl
