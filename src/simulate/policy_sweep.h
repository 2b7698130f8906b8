// RunPolicySweep: every (eviction policy, capacity) pair of a profile, run on a pool of threads.
// A one-pass policy (LRU) is one task covering every capacity; the others are one task per
// capacity, slow policies (optimal) first. Tasks share the read-only Trace and each policy's
// prepared state (e.g. next uses); each holds state proportional to the distinct blocks only.
#pragma once

#include <cstdint>
#include <vector>

#include "simulate/eviction_policy.h"
#include "simulate/replay_options.h"
#include "simulate/replay_tally.h"
#include "simulate/trace.h"

namespace ltl {

struct PolicyRun {
  const EvictionPolicy* policy = nullptr;
  uint64_t capacity_blocks = 0;
  ReplayResult result;
};

// One entry per (policy, capacity), policies outermost in the given order, capacities as given.
// threads == 0 uses the hardware concurrency.
std::vector<PolicyRun> RunPolicySweep(const Trace& trace, const ReplayOptions& options,
                                      const std::vector<const EvictionPolicy*>& policies,
                                      const std::vector<uint64_t>& capacities, unsigned threads);

// Distinct blocks touched before the first measured request: every policy's cache holds
// min(this, capacity) blocks when the measured window opens (nothing is evicted before it fills).
uint64_t DistinctBlocksBeforeMeasured(const Trace& trace, const ReplayOptions& options);

}  // namespace ltl
