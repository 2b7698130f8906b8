// RadixLruFigures (see radix_lru_figures.h).
#include "analyze/radix_lru_figures.h"

#include <algorithm>

#include "simulate/eviction_policy.h"
#include "simulate/policy_sweep.h"

namespace ltl {

void RadixLruFigures::Evaluate(const std::vector<uint64_t>& capacities) {
  std::vector<uint64_t> uncomputed;
  for (uint64_t c : capacities) {
    if (c == 0)
      hits_[0] = HitTokens{};  // no cache
    else if (!hits_.count(c))
      uncomputed.push_back(c);
  }
  std::sort(uncomputed.begin(), uncomputed.end());
  uncomputed.erase(std::unique(uncomputed.begin(), uncomputed.end()), uncomputed.end());
  if (uncomputed.empty()) return;
  std::vector<PolicyRun> runs =
      RunPolicySweep(trace_, options_, {&RadixLruEviction()}, uncomputed, threads_);
  for (const PolicyRun& run : runs) hits_[run.capacity_blocks] = run.result.hit;
}

HitTokens RadixLruFigures::At(uint64_t capacity_blocks) {
  if (capacity_blocks == 0) return {};
  auto it = hits_.find(capacity_blocks);
  if (it != hits_.end()) return it->second;
  Evaluate({capacity_blocks});
  return hits_[capacity_blocks];
}

uint64_t RadixLruFigures::unbounded_blocks() const {
  return std::max<uint64_t>(trace_.total_block_accesses(), 1);
}

}  // namespace ltl
