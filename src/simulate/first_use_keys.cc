// FirstUseKeysOf (see first_use_keys.h).
#include "simulate/first_use_keys.h"

namespace ltl {

FirstUseKeys FirstUseKeysOf(const Trace& trace, size_t records, size_t first_steady,
                            size_t first_cold) {
  FirstUseKeys k;
  k.first_steady = first_steady;
  k.first_cold = first_cold;
  k.has_split = trace.num_conversations > 0;
  const size_t n = trace.requests.size();
  k.rank_of_record.assign(records, kFirstUseNoRank);
  k.conversation.resize(n);
  k.input_tokens.resize(n);
  k.block_size.resize(n);
  k.measured.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const TraceRequest& r = trace.requests[i];
    if (r.record < records) k.rank_of_record[r.record] = static_cast<uint32_t>(i);
    k.conversation[i] = r.conversation;
    k.input_tokens[i] = r.input_tokens;
    k.block_size[i] = r.block_size;
    k.measured[i] = r.replay_only ? 0 : 1;
  }
  return k;
}

}  // namespace ltl
