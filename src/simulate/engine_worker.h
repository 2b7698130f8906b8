// EngineWorker: one engine's KV pool with requests in flight in time — the waiting queue (FIFO,
// head of line first), the running requests and their completions, the prefill queue of the load
// model — driven by arrivals. RunEngineReplay runs one (the single pool of the curve); a fleet with
// --engine runs one per worker behind its router (fleet_engine.h). Rules: docs/SEMANTICS.md
// "Engine KV pool".
// Internal to src/simulate/ (tests/build/internal_headers.cmake).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <queue>
#include <vector>

#include "simulate/engine_pool.h"

namespace ltl {

class EngineWorker {
 public:
  // Told of each admission: request i, its hit blocks, and when it has its first token (its
  // prefill done) and finishes.
  using OnAdmit =
      std::function<void(uint32_t i, uint64_t hit_blocks, double first_token_s, double finish_s)>;

  // pool_blocks: the pool's size as allocated (at most eo.capacity_blocks); requests needing more
  // than eo.capacity_blocks are skipped and counted. Admissions of requests from first_measured on
  // are added to *out.
  EngineWorker(const Trace& t, const KvEngine& engine, const EngineOptions& eo,
               uint64_t pool_blocks, size_t first_measured, EngineReplayResult* out);

  // Every instant up to and including `now` at which requests complete: release, then admit.
  void AdvanceTo(double now);
  // Request i (t.requests[i], not replay-only) arrives at its time, after AdvanceTo(its time):
  // queued, then admitted at once if it fits. False when it is larger than the pool (skipped).
  bool Arrive(uint32_t i);
  // After the last arrival: run every queued request to completion.
  void Drain();

  // The request's blocks as the pool would see them at admission.
  PoolRequest Describe(const TraceRequest& r, const uint32_t* ids) const;
  // Leading blocks of the request the pool holds now (no state change): what a router with the
  // engine's events sees.
  uint64_t Match(const TraceRequest& r, const uint32_t* ids) const;
  uint64_t queued() const { return waiting_.size(); }
  uint64_t running() const { return running_.size(); }
  // Blocks reserved by the requests running and held back for those waiting (total_blocks).
  int64_t reserved_blocks() const { return reserved_blocks_; }
  uint64_t evictions() const { return pool_->evictions(); }

  void set_on_admit(OnAdmit f) { on_admit_ = std::move(f); }

 private:
  struct Running {
    double finish_s;
    uint64_t handle;  // admission sequence: ties at an instant complete in admission order
    int64_t blocks;
    bool operator>(const Running& o) const {
      return finish_s != o.finish_s ? finish_s > o.finish_s : handle > o.handle;
    }
  };
  void ReleaseUntil(double now);
  void Admit(double now);

  const Trace& t_;
  EngineOptions eo_;
  size_t first_measured_;
  EngineReplayResult* out_;
  std::unique_ptr<PoolModel> pool_;
  BlockCursor cursor_;
  std::priority_queue<Running, std::vector<Running>, std::greater<Running>> running_;
  std::deque<uint32_t> waiting_;  // positions in t.requests, arrival order
  uint64_t next_handle_ = 0;
  double prefill_free_s_ = -1e300;  // the prefill queue: when the engine is next free to prefill
  int64_t reserved_blocks_ = 0;
  OnAdmit on_admit_;
};

// Blocks a request needs in all: ceil((input + output) / block size).
uint64_t EngineTotalBlocks(const TraceRequest& r);

// The pool to allocate for `capacity_blocks`: at most the blocks the requests need together (a
// pool that large never evicts, so an unbounded size allocates nothing it cannot use). The
// requests are trace.requests[(*requests)[k]], or all of them when `requests` is null; cache
// pre-population entries (replay_only) are not requests an engine runs and do not count.
uint64_t EnginePoolBlocks(const Trace& t, uint64_t capacity_blocks,
                          const std::vector<uint32_t>* requests = nullptr);

}  // namespace ltl
