// LruCurve: the exact LRU hit rate at every cache capacity from one pass over the trace.
//
// LRU is a stack algorithm (Mattson 1970): a block is cached at capacity C iff fewer than C
// distinct blocks were touched since its last touch (its stack distance). A request's hit at C is
// its leading run of blocks whose running-maximum stack distance is below C, so adding each block's
// tokens to a histogram at that running maximum gives every capacity's hit tokens as a prefix sum.
// Stack distances come from a Fenwick tree over last-touch slots, compacted when the slots run out
// so memory stays proportional to distinct blocks.
#pragma once

#include <cstdint>
#include <vector>

#include "simulate/replay_options.h"
#include "simulate/trace.h"

namespace ltl {

struct CurvePoint {
  uint64_t capacity_blocks;  // smallest capacity at which this hit count is reached
  HitTokens hit;
};

class LruCurve {
 public:
  static LruCurve Compute(const Trace& trace, const ReplayOptions& options);
  // The same with the measured window given as an index: requests [first_measured, n) are
  // measured, options.warmup is ignored. A fleet's per-worker sub-trace measures the requests that
  // are in the fleet's window, which no share of its own length expresses exactly.
  static LruCurve ComputeFrom(const Trace& trace, const ReplayOptions& options,
                              size_t first_measured);

  // Hit tokens at a capacity in blocks (0 = no cache).
  HitTokens At(uint64_t capacity_blocks) const;
  HitTokens Unbounded() const;
  int64_t measured_tokens() const { return measured_tokens_; }
  uint64_t measured_requests() const { return measured_requests_; }
  // Smallest capacity reaching the unbounded hit count.
  uint64_t saturation_blocks() const { return max_distance_ + 1; }
  bool has_split() const { return has_split_; }

  // Every capacity at which the hit count changes, down-sampled on a log scale to at most
  // max_points points (always keeping the last one, which reaches the ceiling).
  std::vector<CurvePoint> Dense(size_t max_points) const;

 private:
  std::vector<int64_t> total_;   // cumulative hit tokens by stack distance
  std::vector<int64_t> across_;  // cumulative across-conversation hit tokens by stack distance
  uint64_t max_distance_ = 0;
  int64_t measured_tokens_ = 0;
  uint64_t measured_requests_ = 0;
  bool has_split_ = false;
};

}  // namespace ltl
