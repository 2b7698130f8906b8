// Trace: the simulator's input. Requests in replay order (timestamp, ties in file order) with
// their blocks remapped to dense ids 0..num_blocks-1 in order of first appearance, concatenated in
// one flat array. Built from RequestRecords by BuildTrace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/request_record.h"

namespace ltl {

constexpr uint32_t kNoParent = 0xffffffffu;
constexpr int32_t kNoConversation = -1;

struct TraceRequest {
  uint64_t first = 0;        // index of the first block in Trace::blocks
  uint32_t num_blocks = 0;
  uint32_t block_size = 0;
  int64_t input_tokens = 0;
  int64_t output_tokens = -1;
  double time_s = 0;
  int32_t conversation = kNoConversation;  // dense conversation index
  uint32_t record = 0;       // index into the RequestRecord vector it came from
  bool replay_only = false;  // only touches its blocks (cache pre-population); never measured
};

struct Trace {
  std::vector<TraceRequest> requests;  // replay order
  std::vector<uint32_t> blocks;        // dense block ids, per request head first
  uint32_t num_blocks = 0;             // distinct blocks
  uint32_t num_conversations = 0;
  uint32_t block_size = 0;             // nominal block size (most common among requests)
  uint64_t num_replay_only = 0;        // replay-only entries among `requests` (not real requests)
  std::vector<uint32_t> parent;        // per dense block: its parent block (first seen), or kNoParent

  const uint32_t* begin(const TraceRequest& r) const { return blocks.data() + r.first; }
  uint64_t total_block_accesses() const { return blocks.size(); }
};

// Sorts records by time (stable; records without a time keep file position relative to others),
// remaps ids densely and conversation keys to indices. Records are not modified.
Trace BuildTrace(const std::vector<RequestRecord>& records);

// Tokens of block j (0-based) of a request: min((j+1)*bs, L) - min(j*bs, L).
inline int64_t BlockTokens(const TraceRequest& r, uint64_t j) {
  int64_t bs = r.block_size;
  int64_t lo = std::min<int64_t>(static_cast<int64_t>(j) * bs, r.input_tokens);
  int64_t hi = std::min<int64_t>(static_cast<int64_t>(j + 1) * bs, r.input_tokens);
  return hi - lo;
}

// Hit tokens of a request whose first k blocks hit: min(k * bs, L).
inline int64_t HitTokenCount(const TraceRequest& r, uint64_t k) {
  return std::min<int64_t>(static_cast<int64_t>(k) * r.block_size, r.input_tokens);
}

// Index of the first measured request for a warm-up share: floor(n * warmup).
inline size_t FirstMeasured(size_t n, double warmup) {
  return static_cast<size_t>(static_cast<double>(n) * warmup);
}

// Real requests in the trace (replay-only entries excluded).
inline size_t RealRequests(const Trace& t) { return t.requests.size() - t.num_replay_only; }

// Position in t.requests of the first measured request: the warm-up share counts real requests
// only (floor(real * warmup) of them fill the cache). Replay-only entries are never measured,
// wherever they sit: callers test `i >= FirstMeasuredIndex(...) && !r.replay_only`.
size_t FirstMeasuredIndex(const Trace& t, double warmup);

}  // namespace ltl
