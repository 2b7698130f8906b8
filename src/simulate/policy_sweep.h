// RunPolicySweep: every (eviction policy, capacity) pair of a profile, run on a pool of threads.
// LRU comes from the one-pass curve (one task covers every capacity); FIFO and optimal have no
// one-pass method, so each (policy, capacity) is its own task. Tasks share the read-only Trace and
// the next-use array; each holds state proportional to the distinct blocks only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "simulate/replay_options.h"
#include "simulate/replay_tally.h"
#include "simulate/trace.h"

namespace ltl {

enum class EvictionPolicy { kFifo, kLru, kOptimal };

std::string_view PolicyName(EvictionPolicy p);
// "lru,fifo,optimal" (any order, case-insensitive, no repeats) -> policies in the given order.
Result<std::vector<EvictionPolicy>> ParsePolicyList(std::string_view text);

struct PolicyRun {
  EvictionPolicy policy = EvictionPolicy::kLru;
  uint64_t capacity_blocks = 0;
  ReplayResult result;
};

// One entry per (policy, capacity), policies outermost in the given order, capacities as given.
// threads == 0 uses the hardware concurrency.
std::vector<PolicyRun> RunPolicySweep(const Trace& trace, const ReplayOptions& options,
                                      const std::vector<EvictionPolicy>& policies,
                                      const std::vector<uint64_t>& capacities, unsigned threads);

// Distinct blocks touched before the first measured request: every policy's cache holds
// min(this, capacity) blocks when the measured window opens (nothing is evicted before it fills).
uint64_t DistinctBlocksBeforeMeasured(const Trace& trace, const ReplayOptions& options);

}  // namespace ltl
