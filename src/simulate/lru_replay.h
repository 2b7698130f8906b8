// ReplayLruAt: one LRU replay at one capacity — the method peer simulators use (one replay per
// budget). The product uses LruCurve; this exists as the benchmark baseline and a cross-check.
#pragma once

#include <cstdint>

#include "simulate/replay_options.h"
#include "simulate/trace.h"

namespace ltl {

// Hit tokens over the measured requests at `capacity_blocks` (> 0).
HitTokens ReplayLruAt(const Trace& trace, uint64_t capacity_blocks, const ReplayOptions& options);

}  // namespace ltl
