// ReplayTally: the bookkeeping every per-capacity replay shares — which requests are measured, the
// token-weighted hit of each measured request, the across/same-conversation split, and whether the
// cache was under memory pressure before the measured window ("underfilled", docs/SEMANTICS.md).
// Internal to src/simulate/ (tests/build/internal_headers.cmake).
#pragma once

#include <cstdint>
#include <vector>

#include "simulate/replay_options.h"
#include "simulate/trace.h"

namespace ltl {

// What one (policy, capacity) replay measured.
struct ReplayResult {
  HitTokens hit;
  int64_t measured_tokens = 0;
  uint64_t measured_requests = 0;
  // The cache had not filled when the first measured request arrived (with no warm-up: never
  // filled at all), so eviction never chose anything that was measured.
  bool underfilled = false;
};

class ReplayTally {
 public:
  ReplayTally(const Trace& trace, uint64_t capacity_blocks, const ReplayOptions& options)
      : trace_(trace),
        capacity_(capacity_blocks),
        first_measured_(FirstMeasuredIndex(trace, options)),
        owner_(trace.num_conversations > 0 ? trace.num_blocks : 0, kOwnerNone) {}

  // Call before looking request i up, with the number of blocks cached at that moment.
  // Returns whether request i is measured.
  bool Begin(size_t i, uint64_t occupancy) {
    if (i == first_measured_ && first_measured_ > 0) result_.underfilled = occupancy < capacity_;
    return i >= first_measured_ && !trace_.requests[i].replay_only;  // replay-only: never measured
  }

  // Records a measured request whose first `hit_blocks` blocks were cached.
  void AddHit(const TraceRequest& r, const uint32_t* ids, uint32_t hit_blocks) {
    result_.measured_tokens += r.input_tokens;
    ++result_.measured_requests;
    result_.hit.hit += HitTokenCount(r, hit_blocks);
    if (owner_.empty()) return;
    for (uint32_t j = 0; j < hit_blocks; ++j) {
      int32_t o = owner_[ids[j]];
      if (o == kOwnerMany || (o != kOwnerNone && o != r.conversation))
        result_.hit.across += BlockTokens(r, j);
    }
  }

  // Call after request i was replayed: its blocks now belong to its conversation too.
  void End(const TraceRequest& r, const uint32_t* ids) {
    if (owner_.empty()) return;
    for (uint32_t j = 0; j < r.num_blocks; ++j) {
      int32_t& o = owner_[ids[j]];
      if (o == kOwnerNone)
        o = r.conversation;
      else if (o != r.conversation)
        o = kOwnerMany;
    }
  }

  // Call once after the last request with the final occupancy.
  ReplayResult Finish(uint64_t occupancy) {
    if (first_measured_ == 0 || first_measured_ >= trace_.requests.size())
      result_.underfilled = occupancy < capacity_;
    return result_;
  }

 private:
  static constexpr int32_t kOwnerNone = -1;  // no request used the block yet
  static constexpr int32_t kOwnerMany = -2;  // requests of several conversations used it

  const Trace& trace_;
  uint64_t capacity_;
  size_t first_measured_;
  std::vector<int32_t> owner_;  // conversation that used each block, when conversations are known
  ReplayResult result_;
};

}  // namespace ltl
