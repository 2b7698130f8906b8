// Next-use indices for the optimal (Belady) replay: for every block access in Trace::blocks, the
// index of the next request that contains the same block, or kNeverUsed. One backward pass,
// O(accesses).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "simulate/trace.h"

namespace ltl {

constexpr uint32_t kNeverUsed = std::numeric_limits<uint32_t>::max();

// result[p] for access p = trace.blocks[p] of request i: the smallest request index > i containing
// the same block, or kNeverUsed. Repeats of a block inside one request share the same value.
std::vector<uint32_t> ComputeNextUse(const Trace& trace);

}  // namespace ltl
