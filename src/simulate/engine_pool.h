// The engine's KV pool as plug-ins (docs/SEMANTICS.md "Engine KV pool"): a pool of C blocks shared
// by the requests it is running and the blocks it keeps cached, replayed in time. `RunEngineReplay`
// is the one driver every engine shares: requests arrive in replay order, wait in a FIFO queue
// until the pool admits them (head of line first: a head that does not fit blocks those behind
// it), run for their duration (logged, else the load model from admission) and release their
// blocks at completion; completions at an instant are released before admissions and arrivals at
// that instant. An engine (`PoolModel`) decides what hits at admission, whether the request fits,
// what it evicts, and what it keeps at release. Engines are listed in engine_registry.cc; each is
// one file (`engine_pool_vllm.cc`, `engine_radix_sglang.cc`).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "simulate/fleet_options.h"
#include "simulate/replay_options.h"
#include "simulate/trace.h"

namespace ltl {

struct EngineOptions {
  uint64_t capacity_blocks = 0;  // the pool's size
  uint32_t max_num_seqs = 256;   // running requests at most (vLLM's --max-num-seqs default)
  LoadModel load;                // durations of requests the log did not time
};

// One pool's replay.
struct EngineReplayResult {
  uint64_t capacity_blocks = 0;
  HitTokens hit;                // measured requests' hit tokens at admission (across unused)
  int64_t measured_tokens = 0;  // measured requests' prompt tokens (too-large ones excluded)
  uint64_t measured_requests = 0;
  std::vector<double> waiting_s;  // per admitted measured request, in replay order
  uint64_t evictions = 0;         // cached blocks whose memory was taken for other data
  uint64_t too_large = 0;         // requests needing more blocks than the pool has: skipped
  uint64_t max_running = 0;
};

// A request as the pool sees it at admission.
struct PoolRequest {
  const uint32_t* ids = nullptr;      // its dense block ids, head first
  uint64_t full_blocks = 0;           // prompt blocks that are full (only they carry a hash)
  uint64_t max_hit_blocks = 0;        // floor((input - 1) / B): a fully cached prompt recomputes
  uint64_t total_blocks = 0;          // ceil((input + output) / B): reserved at admission
  uint64_t sequence_full_blocks = 0;  // floor((input + output) / B): full blocks at completion
};

class PoolModel {
 public:
  virtual ~PoolModel() = default;
  // Admits the request as `handle` when it fits now: sets *hit_blocks (its leading blocks found
  // in the pool) and returns true; returns false (changing nothing) when it does not fit. `r.ids`
  // is valid during the call only.
  virtual bool TryAdmit(const PoolRequest& r, uint64_t handle, uint64_t* hit_blocks) = 0;
  // Leading blocks of the request found in the pool now, as TryAdmit would hit (no state change).
  virtual uint64_t Match(const PoolRequest& r) const = 0;
  // The request admitted as `handle` completed.
  virtual void Release(uint64_t handle) = 0;
  virtual uint64_t evictions() const = 0;
};

class KvEngine {
 public:
  virtual ~KvEngine() = default;
  virtual std::string_view name() const = 0;
  // One line for the report: what the pool holds and what it evicts.
  virtual std::string_view description() const = 0;
  virtual std::unique_ptr<PoolModel> MakePool(const Trace& t, uint64_t capacity_blocks) const = 0;
};

// Waiting times summarised by nearest rank (the k-th smallest, k = ceil(q x n)).
struct WaitingSummary {
  double p50_s = 0, p95_s = 0, max_s = 0;
  uint64_t waited = 0;  // requests that waited at all (> 0 s)
};
WaitingSummary SummarizeWaiting(std::vector<double> waiting_s);

// The driver: replays `requests` (positions in t.requests, ascending; all of them when null)
// through a fresh pool of this engine. Replay-only entries are skipped; measured requests are
// those from FirstMeasuredIndex(t, options) on. The trace must not be sampled.
EngineReplayResult RunEngineReplay(const Trace& t, const ReplayOptions& options,
                                   const KvEngine& engine, const EngineOptions& eo,
                                   const std::vector<uint32_t>* requests = nullptr);

// The registered engines (engine_registry.cc); null when unknown. "ideal" is not an engine: it is
// the cache of cached blocks only that the curve replays without --engine.
const KvEngine* FindEngine(std::string_view name);
std::string EngineNames();  // "vllm, sglang"

const KvEngine& VllmEngine();    // engine_pool_vllm.cc
const KvEngine& SglangEngine();  // engine_radix_sglang.cc

}  // namespace ltl
