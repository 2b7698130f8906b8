// The pieces of NVIDIA Dynamo's KV router that dynamo-kv (fleet_route_dynamo_kv.cc) replays, each
// testable alone: the per-worker logit (lib/kv-router/src/scheduling/selector.rs@01690d42,
// DefaultWorkerSelector::worker_logit), the pick among the logits (softmax_sample and the
// temperature-0 reservoir), the router's own record of the requests in flight on each worker
// (lib/kv-router/src/sequences/: active prefill tokens, unique active blocks, active requests),
// and the approximate index it keeps without KV events (lib/kv-router/src/approx.rs@209c9e83:
// blocks inserted at routing time with a TTL, pruned when the index outgrows its cap).
// Internal to src/simulate/ (tests/build/internal_headers.cmake).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ltl {

// Dynamo's KvRouterConfig as dynamo-kv reads it (defaults: config.rs@0243c51b; the active-request
// weight: selector.rs@01690d42, whose default config charges nothing for active requests).
struct DynamoKvConfig {
  double prefill_load_scale = 1.0;
  double overlap_score_credit = 1.0;
  double decode_active_request_weight = 0.0;
  double router_temperature = 0.0;
  bool use_kv_events = true;
  double router_ttl_secs = 120.0;
  uint64_t max_tree_size = uint64_t{1} << 20;  // approx.rs PruneConfig (not a router setting)
  double prune_target_ratio = 0.8;
};

// What the selector sees of one worker for one request.
struct DynamoWorkerLoad {
  int64_t active_prefill_tokens = 0;  // prompt tokens of its requests not past their first token
  int64_t active_blocks = 0;          // unique prompt blocks of its requests in flight
  int64_t additional_blocks = 0;      // the request's blocks not among those (leading run)
  int64_t active_requests = 0;
  uint32_t overlap_blocks = 0;  // the request's leading blocks the router believes it caches
};

// prefill_load_scale x max(0, raw prefill blocks - overlap_score_credit x overlap) + (active
// blocks + additional blocks) + decode_active_request_weight x active requests, where raw prefill
// blocks = (active prefill tokens + uncached tokens + cached tokens) / block size, cached =
// overlap x block size, uncached = isl - min(cached, isl).
double DynamoLogit(const DynamoKvConfig& config, const DynamoWorkerLoad& load, int64_t isl_tokens,
                   uint32_t block_size);

// The worker for a request given every worker's logit and one 64-bit draw. Temperature 0: the
// minimum; ties: tied[(draw x |tied|) >> 64] over the tied workers in index order. Temperature
// T > 0: p ∝ exp(-(logit - min) / ((max - min) x T)), uniform when max == min; the draw as a
// uniform u = (draw >> 11) x 2^-53 walks the cumulative probabilities in index order (the first
// worker with u <= cumulative, else the last).
uint32_t DynamoPick(const std::vector<double>& logits, double temperature, uint64_t draw);

// Per-worker counts of requests holding each block id. Dense, one byte per (worker, id), when
// workers x ids is at most kDenseCountCells: a count past 254 keeps 255 there and the rest in a
// hash map (many requests in flight on one worker holding one block are rare); beyond that size,
// every count in the hash map.
class WorkerBlockCounts {
 public:
  static constexpr uint64_t kDenseCountCells = uint64_t{64} << 20;  // 64 MiB per replay at most
  WorkerBlockCounts(uint32_t workers, uint32_t num_ids);
  uint32_t Get(uint32_t worker, uint32_t id) const;
  // Returns the count after the change (delta is +1 or -1).
  uint32_t Add(uint32_t worker, uint32_t id, int delta);
  // Add(worker, id, delta) for each of n ids; returns how many counts left or reached 0.
  int64_t AddEach(uint32_t worker, const uint32_t* ids, uint32_t n, int delta);
  // The leading run of ids whose count is above 0.
  uint32_t LeadingHeld(uint32_t worker, const uint32_t* ids, uint32_t n) const;

 private:
  static constexpr uint8_t kOverflow = 255;
  uint64_t Key(uint32_t worker, uint32_t id) const {
    return static_cast<uint64_t>(worker) * num_ids_ + id;
  }
  uint32_t AddSparse(uint64_t key, int delta);
  uint32_t num_ids_;
  std::vector<uint8_t> dense_;
  std::unordered_map<uint64_t, uint32_t> sparse_;  // dense: the count past 255; else: the count
};

// The requests the router has sent to each worker and not yet seen finish (ActiveSequences):
// their prefill tokens count until their first token, their blocks (deduplicated: a block two of
// them hold counts once) and the request itself until they finish.
class DynamoActiveLoad {
 public:
  DynamoActiveLoad(uint32_t workers, uint32_t num_ids);
  void Add(uint32_t worker, const uint32_t* ids, uint32_t n, int64_t prefill_tokens);
  void PrefillDone(uint32_t worker, int64_t prefill_tokens);
  void Free(uint32_t worker, const uint32_t* ids, uint32_t n);
  // The leading run of ids among the worker's active blocks.
  uint32_t ActivePrefix(uint32_t worker, const uint32_t* ids, uint32_t n) const;
  int64_t prefill_tokens(uint32_t w) const { return prefill_tokens_[w]; }
  int64_t blocks(uint32_t w) const { return blocks_[w]; }
  int64_t requests(uint32_t w) const { return requests_[w]; }

 private:
  WorkerBlockCounts counts_;
  std::vector<int64_t> prefill_tokens_, blocks_, requests_;
};

// The approximate index (use_kv_events off): every block of a routed request is recorded for its
// worker at routing time, expiring ttl seconds later (routing it again renews it). Entries are
// (worker, block) pairs across all workers; when an insertion takes their number above
// max_tree_size, the index drops entries down to floor(max_tree_size x ratio): the earliest
// expiry first, ties the deeper position in its request first, then the larger block id, then the
// larger worker (approx.rs's BlockEntry order, popped from its max-heap).
class DynamoApproxIndex {
 public:
  DynamoApproxIndex(double ttl_s, uint64_t max_size, double prune_ratio);
  // Drops every entry expiring at or before now.
  void Expire(double now);
  void Insert(uint32_t worker, const uint32_t* ids, uint32_t n, double now);
  // The leading run of ids recorded for the worker.
  uint32_t Match(uint32_t worker, const uint32_t* ids, uint32_t n) const;
  bool Holds(uint32_t worker, uint32_t id) const;
  uint64_t size() const { return entries_.size(); }

 private:
  struct Entry {
    double expiry;
    uint32_t position;
  };
  struct Timer {
    double expiry;
    uint32_t position, id, worker;
  };
  static uint64_t Key(uint32_t worker, uint32_t id) {
    return static_cast<uint64_t>(worker) << 32 | id;
  }
  // Pops the next timer in pruning order; true when it was current (its entry is dropped).
  bool PopTimer();
  double ttl_s_;
  uint64_t max_size_;
  double ratio_;
  std::unordered_map<uint64_t, Entry> entries_;
  std::vector<Timer> heap_;  // std heap, "largest" = next to go; stale timers are skipped
};

}  // namespace ltl
