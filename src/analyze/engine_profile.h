// The Profile's part for load in time and the engine's KV pool (docs/SEMANTICS.md "Load in time",
// "Engine KV pool"): how many requests carried their own duration, and, with --engine, the pool's
// figures per size. Filled by the pipeline and analyze stages, rendered by
// report/section_engine.cc.
// Internal to src/analyze/ (tests/build/internal_headers.cmake).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ltl {

// Where each request's in-flight time came from (present when an analysis asked for durations).
struct LoadTiming {
  bool asked = false;
  uint64_t logged = 0;    // requests whose log gave their duration
  uint64_t bad = 0;       // logged timings negative or longer than a day (the load model stood in)
  uint64_t modelled = 0;  // requests timed by the load model (no timing, or a bad one)
};

// One pool size of the engine replay.
struct EnginePoolRow {
  uint64_t capacity_blocks = 0;
  int64_t hit_tokens = 0;       // measured requests' hit tokens at admission
  int64_t measured_tokens = 0;  // measured requests' prompt tokens (too-large ones excluded)
  double waiting_p50_s = 0, waiting_p95_s = 0, waiting_max_s = 0;  // measured requests
  uint64_t waited = 0;       // measured requests that waited at all
  uint64_t evictions = 0;    // hashed blocks reused for other data (whole replay)
  uint64_t too_large = 0;    // requests larger than the pool: skipped
  uint64_t max_running = 0;  // most requests running at once
};

struct EngineProfile {
  std::string engine = "ideal";     // --engine
  std::vector<EnginePoolRow> rows;  // the single pool at each curve size (no --workers)
};

}  // namespace ltl
