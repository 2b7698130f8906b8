// LruCurve: the exact LRU hit rate at every cache capacity from one pass over the trace.
//
// LRU is a stack algorithm (Mattson 1970): a block is cached at capacity C iff fewer than C
// distinct blocks were touched since its last touch (its stack distance). A request's hit at C is
// its leading run of blocks whose running-maximum stack distance is below C, so adding each block's
// tokens to a histogram at that running maximum gives every capacity's hit tokens as a prefix sum.
// Stack distances come from a Fenwick tree over last-touch slots, compacted when the slots run out
// so memory stays proportional to distinct blocks.
//
// Tiers: an exclusive LRU hierarchy (tier 1 = HBM, tier 2 = DRAM, ...; a block evicted from tier
// k moves to the most recent end of tier k+1, a hit in any tier moves the block to tier 1) keeps
// exactly the global LRU stack cut into consecutive pieces: tier k holds stack positions
// [C1+...+C(k-1), C1+...+Ck). So the same pass also splits every hit by tier: a block in a
// request's leading hit run (running maximum below the summed capacity) is served by the tier
// holding its own stack distance (docs/SEMANTICS.md, "Tiered KV memory").
//
// Sampled traces (Trace::sample_rate R < 1, hash/block_sampler.h): the pass runs over the kept
// blocks only, so stack distances are those of a cache R times smaller (SHARDS, Waldspurger et al.,
// FAST '15): a capacity C is read at the sampled capacity ceil(C * R). With tail-first touches a
// block's stack distance never exceeds that of a later block of the same request, so each block
// hits by its own distance. The hit tokens are the exact measured tokens minus the kept blocks'
// missed tokens scaled by 1/R (Horvitz-Thompson on misses; SHARDS_adj's correction, section 4.1 of
// the paper, in another form): the few heavily shared blocks (a system prompt's) that make the hit
// side noisy, kept or not by luck, almost never miss. The same pass records the hits of each sample
// group in log-spaced distance bins; the spread of the groups' estimates, with the curve's change
// over the binomial spread of sampled stack distances, is the error estimate (ErrorPoints).
#pragma once

#include <cstdint>
#include <vector>

#include "hash/block_sampler.h"
#include "simulate/replay_options.h"
#include "simulate/trace.h"

namespace ltl {

struct CurvePoint {
  uint64_t capacity_blocks;  // smallest capacity at which this hit count is reached
  HitTokens hit;
};

// Tier hierarchies to split the hits by: each is the cumulative capacity in blocks after each tier
// (non-decreasing; every hierarchy has the same number of tiers, a tier of size 0 repeats the
// previous bound).
struct TierHierarchies {
  std::vector<std::vector<uint64_t>> cumulative_blocks;
  size_t tiers() const { return cumulative_blocks.empty() ? 0 : cumulative_blocks[0].size(); }
};

// Hit tokens by tier, per hierarchy and per measured request.
struct TierSplit {
  size_t hierarchies = 0, tiers = 0;
  std::vector<int64_t> total;        // [h * tiers + k]: measured hit tokens served by tier k
  std::vector<uint32_t> request;     // trace index of each measured request, replay order
  std::vector<uint32_t> by_request;  // [(m * hierarchies + h) * tiers + k]: request m's tokens
  int64_t At(size_t h, size_t k) const { return total[h * tiers + k]; }
  uint32_t RequestTokens(size_t m, size_t h, size_t k) const {
    return by_request[(m * hierarchies + h) * tiers + k];
  }
};

class LruCurve {
 public:
  static LruCurve Compute(const Trace& trace, const ReplayOptions& options);
  // The same with the measured window given as an index: requests [first_measured, n) are
  // measured, options.warmup is ignored. A fleet's per-worker sub-trace measures the requests that
  // are in the fleet's window, which no share of its own length expresses exactly.
  static LruCurve ComputeFrom(const Trace& trace, const ReplayOptions& options,
                              size_t first_measured);
  // The same pass, also splitting every measured request's hit tokens by tier for each hierarchy.
  static LruCurve ComputeWithTiers(const Trace& trace, const ReplayOptions& options,
                                   size_t first_measured, const TierHierarchies& tiers,
                                   TierSplit* split);
  // Only the unbounded figures of Compute: Unbounded(), measured_tokens(), measured_requests() and
  // ErrorPoints(kUnboundedCapacity) equal Compute's; At(), Dense() and saturation_blocks() are not
  // meaningful (ceiling_only()). A cache that never evicts hits a block iff it was touched before,
  // so no stack distance is needed: one bit and one owner per block instead of Compute's ~26 bytes
  // and Fenwick tree (issue 30: the cold ceiling's pass beside the steady-state curve).
  static LruCurve ComputeCeiling(const Trace& trace, const ReplayOptions& options);
  bool ceiling_only() const { return ceiling_only_; }

  // Hit tokens at a capacity in blocks (0 = no cache).
  HitTokens At(uint64_t capacity_blocks) const;
  HitTokens Unbounded() const;
  int64_t measured_tokens() const { return measured_tokens_; }
  uint64_t measured_requests() const { return measured_requests_; }
  // Smallest capacity reaching the unbounded hit count.
  uint64_t saturation_blocks() const;
  bool has_split() const { return has_split_; }

  // Every capacity at which the hit count changes, down-sampled on a log scale to at most
  // max_points points (always keeping the last one, which reaches the ceiling).
  std::vector<CurvePoint> Dense(size_t max_points) const;

  // The rate the trace was sampled at (1 = every block).
  double sample_rate() const { return rate_; }
  // Sampled curves: the half-width, in points of hit rate (percentage points), of the 95% interval
  // of the hit rate at a capacity (random groups: t(7 df) times the standard error of the mean of
  // kSampleGroups disjoint sub-samples' hit rates); kUnboundedCapacity for the ceiling. 0 when not
  // sampled or nothing was measured. At a bounded capacity the distortion of stack distances is
  // added in quadrature: the curve's largest change within ceil(C * R) +- 1.96 sqrt(ceil(C * R))
  // sampled blocks (the binomial spread of the kept blocks above a block at distance C).
  static constexpr uint64_t kUnboundedCapacity = ~uint64_t{0};
  double ErrorPoints(uint64_t capacity_blocks) const;

 private:
  static LruCurve Run(const Trace& trace, const ReplayOptions& options, size_t first_measured,
                      const TierHierarchies* tiers, TierSplit* split);

  std::vector<int64_t> total_;   // cumulative hit tokens by stack distance
  std::vector<int64_t> across_;  // cumulative across-conversation hit tokens by stack distance
  uint64_t max_distance_ = 0;
  double rate_ = 1;
  std::vector<int64_t> group_bins_;         // sampled: [group * kDistanceBins + bin] hit tokens
  std::vector<int64_t> group_kept_tokens_;  // sampled: per group, its blocks' measured tokens
  int64_t kept_tokens_ = 0;                 // sampled: all kept blocks' measured tokens
  // The sampled capacity a capacity is read at: ceil(C * R) (C itself unsampled).
  uint64_t SampledCapacity(uint64_t capacity_blocks) const;
  int64_t Scale(int64_t sampled_tokens) const;
  int64_t ScaleAcross(int64_t sampled_across, int64_t sampled_hit, int64_t scaled_hit) const;
  HitTokens Clamped(HitTokens h) const;
  int64_t measured_tokens_ = 0;
  uint64_t measured_requests_ = 0;
  bool has_split_ = false;
  bool ceiling_only_ = false;
};

}  // namespace ltl
