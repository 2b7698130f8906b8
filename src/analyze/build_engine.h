// BuildEngineRows: --engine without --workers: the engine's KV pool replaces the single cache of
// the curve (docs/SEMANTICS.md "Engine KV pool"). Each curve row's hit tokens become the pool's at
// that size, and the pool's waiting times, evictions and too-large requests go to p->engine.
// Internal to src/analyze/ (tests/build/internal_headers.cmake).
#pragma once

#include "analyze/profile.h"
#include "simulate/engine_pool.h"
#include "simulate/replay_options.h"
#include "simulate/trace.h"

namespace ltl {

struct EngineRun {
  const KvEngine* engine = nullptr;
  EngineOptions options;  // capacity_blocks is set per curve row
  unsigned threads = 0;   // pool sizes replayed at once (0 = all cores)
};

void BuildEngineRows(const Trace& trace, const ReplayOptions& replay, const EngineRun& run,
                     Profile* p);

// p50 / p95 / max of waiting times (seconds), nearest rank; zeros when empty.
void WaitingQuantiles(std::vector<double> waiting, EnginePoolRow* row);

}  // namespace ltl
