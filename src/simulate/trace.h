// Trace: the simulator's input. Requests in replay order (timestamp, ties in file order) with
// their blocks remapped to dense ids 0..num_blocks-1 in order of first appearance. Blocks are
// stored as prefix chains (per block: its predecessor and the start of its run of consecutive ids,
// 8 bytes per distinct block; per request: its last block), so a trace takes O(distinct blocks +
// requests) memory however often history is resent; requests whose ids are not a chain keep their
// dense ids in a flat array. BlockCursor hands a request's ids to a replay. Built from
// RequestRecords (or from their ids interned while reading, hash/block_interner.h) by
// BuildTrace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/request_record.h"
#include "hash/block_interner.h"
#include "simulate/replay_options.h"

namespace ltl {

constexpr uint32_t kNoParent = 0xffffffffu;
constexpr int32_t kNoConversation = -1;

constexpr uint64_t kChained = BlockInterner::kNotFlat;

struct TraceRequest {
  uint64_t first = 0;  // index of the request's first block access (running total)
  uint32_t num_blocks = 0;
  uint32_t block_size = 0;
  int64_t input_tokens = 0;
  int64_t output_tokens = -1;
  double time_s = 0;
  int32_t conversation = kNoConversation;  // dense conversation index
  uint32_t record = 0;                     // index into the RequestRecord vector it came from
  bool replay_only = false;   // only touches its blocks (cache pre-population); never measured
  uint32_t last = kNoParent;  // chained requests: the last block
  uint64_t flat = kChained;   // else: offset of its blocks in Trace::blocks
};

// The named routers' views of a trace's requests (RequestRecord::view), with the chunk digests
// remapped to dense ids, as block ids are (AttachRouterViews, simulate/router_views.h). Empty
// unless a named router was asked.
struct TraceRouterViews {
  bool built = false;
  std::vector<uint8_t> text;          // per request (replay order): its view came from prompt text
  std::vector<uint64_t> chunk_start;  // per request + 1: offsets into chunk_ids
  std::vector<uint32_t> chunk_ids;    // vllm-router-prefix's 128-character chunks, dense ids
  uint32_t num_chunk_ids = 0;
  std::vector<uint64_t> session;  // per request: digest of its session key (0 = none)
  // sglang-cache-aware: each request's text as a path in the trie of all texts' code points (a
  // code point's chained digest names its whole prefix, so it is interned to one dense id):
  // the request's last code point's id (kNoParent = empty or no view) and its length in code
  // points; per id, the id of the code point before it (kNoParent = the first).
  std::vector<uint32_t> text_last;
  std::vector<uint32_t> text_chars;
  std::vector<uint32_t> char_parent;
  uint64_t text_requests = 0;  // requests whose view came from prompt text
  // aibrix-prefix's blocks (RouterView::aibrix_blocks) as dense ids: per request + 1, offsets
  // into aibrix_ids (empty unless it was asked).
  std::vector<uint64_t> aibrix_start;
  std::vector<uint32_t> aibrix_ids;
  uint32_t num_aibrix_ids = 0;
  // llm-d-prefix's chunks (RouterView::llmd_blocks) likewise: per request + 1, offsets into
  // llmd_ids (empty unless it was asked).
  std::vector<uint64_t> llmd_start;
  std::vector<uint32_t> llmd_ids;
  uint32_t num_llmd_ids = 0;
};

struct Trace {
  std::vector<TraceRequest> requests;  // replay order
  std::vector<uint32_t> blocks;        // dense block ids of the requests stored flat
  std::vector<uint32_t> chain_parent;  // per dense block: predecessor on its chain, or kNoParent
  std::vector<uint32_t> chain_run;     // per dense block: first id of its run (see BlockInterner)
  uint64_t num_accesses = 0;           // block accesses of all requests
  uint32_t num_blocks = 0;             // distinct blocks
  uint32_t num_conversations = 0;
  uint32_t block_size = 0;       // nominal block size (most common among requests)
  uint64_t num_replay_only = 0;  // replay-only entries among `requests` (not real requests)
  std::vector<uint32_t> parent;  // per dense block: its parent block (first seen), or kNoParent
  // Spatial sampling (hash/block_sampler.h): the trace holds only the kept blocks, each request
  // the subsequence of its kept blocks. Unsampled: rate 1, depth and group empty.
  double sample_rate = 1;
  std::vector<uint32_t>
      depth;  // per dense block: its position in its requests (tokens depend on it)
  std::vector<uint8_t> group;  // per dense block: its sample group (error estimates)
  uint64_t all_accesses = 0;   // block accesses before sampling (= num_accesses unsampled)
  bool sampled() const { return !depth.empty() || sample_rate < 1; }
  // Load in time (docs/SEMANTICS.md "Load in time"): per request in replay order, the seconds it
  // was in flight as the log timed it (RequestRecord::duration_s; < 0 = not logged: the load model
  // decides). Empty when no request has one (then every request is modelled).
  std::vector<float> duration_s;
  uint64_t logged_durations = 0;  // requests with a logged duration
  uint64_t bad_durations = 0;     // requests whose logged timing was negative or > 1 day
  TraceRouterViews router_views;  // named routers only
  // A request's logged duration in seconds, or -1 (by position in `requests`).
  double LoggedDuration(size_t i) const {
    return i < duration_s.size() ? static_cast<double>(duration_s[i]) : -1.0;
  }

  uint64_t total_block_accesses() const { return num_accesses; }
  // A request's dense ids, head first. Convenience for code outside hot loops: the pointer is
  // valid until the next begin() on the same thread (a thread-local BlockCursor); replays use
  // their own BlockCursor.
  const uint32_t* begin(const TraceRequest& r) const;
  // Bytes per distinct block of the block storage (chain arrays and parent links).
  size_t block_bytes() const {
    return (chain_parent.capacity() + chain_run.capacity() + parent.capacity()) * 4 +
           blocks.capacity() * 4;
  }
};

// A request's dense block ids, head first. The pointer is valid until the next call; one cursor
// per thread. Walking a chain costs one jump per run of consecutive ids.
class BlockCursor {
 public:
  explicit BlockCursor(const Trace& t) : t_(t) {}
  const uint32_t* Blocks(const TraceRequest& r) {
    if (r.flat != kChained) return t_.blocks.data() + r.flat;
    if (scratch_.size() < r.num_blocks) scratch_.resize(r.num_blocks);
    if (r.num_blocks > 0)
      WalkChain(t_.chain_parent.data(), t_.chain_run.data(), r.last, r.num_blocks, scratch_.data());
    return scratch_.data();
  }

 private:
  const Trace& t_;
  std::vector<uint32_t> scratch_;
};

// Sorts records by time (stable; records without a time keep file position relative to others),
// remaps ids densely and conversation keys to indices. Records are not modified.
Trace BuildTrace(const std::vector<RequestRecord>& records);
// The same from ids interned while reading (one BlockInterner entry per record, in record order;
// the records' own block_ids are ignored). Frees the interner as it goes.
Trace BuildTrace(const std::vector<RequestRecord>& records, BlockInterner&& interned);

// Tokens of block j (0-based) of a request: min((j+1)*bs, L) - min(j*bs, L).
inline int64_t BlockTokens(const TraceRequest& r, uint64_t j) {
  int64_t bs = r.block_size;
  int64_t lo = std::min<int64_t>(static_cast<int64_t>(j) * bs, r.input_tokens);
  int64_t hi = std::min<int64_t>(static_cast<int64_t>(j + 1) * bs, r.input_tokens);
  return hi - lo;
}

// Tokens of the j-th block the trace holds for request r (dense id `id`): BlockTokens at the
// block's own position, which in a sampled trace is its depth, not j.
inline int64_t TraceBlockTokens(const Trace& t, const TraceRequest& r, uint64_t j, uint32_t id) {
  return BlockTokens(r, t.depth.empty() ? j : t.depth[id]);
}

// Hit tokens of a request whose first k blocks hit: min(k * bs, L).
inline int64_t HitTokenCount(const TraceRequest& r, uint64_t k) {
  return std::min<int64_t>(static_cast<int64_t>(k) * r.block_size, r.input_tokens);
}

// Hit tokens of a request whose first k held blocks (ids: its blocks in the trace) hit:
// HitTokenCount on a whole trace; on a sampled one, the kept blocks' own tokens scaled by 1 / rate
// (an estimate).
inline int64_t PrefixHitTokens(const Trace& t, const TraceRequest& r, const uint32_t* ids,
                               uint64_t k) {
  if (!t.sampled()) return HitTokenCount(r, k);
  int64_t tokens = 0;
  for (uint64_t j = 0; j < k; ++j) tokens += TraceBlockTokens(t, r, j, ids[j]);
  return static_cast<int64_t>(static_cast<double>(tokens) / t.sample_rate + 0.5);
}

// Index of the first measured request for a warm-up share: floor(n * warmup).
inline size_t FirstMeasured(size_t n, double warmup) {
  return static_cast<size_t>(static_cast<double>(n) * warmup);
}

// Real requests in the trace (replay-only entries excluded).
inline size_t RealRequests(const Trace& t) {
  return t.requests.size() - t.num_replay_only;
}

// Position in t.requests of the first measured request: the warm-up share counts real requests
// only (floor(real * warmup) of them fill the cache). Replay-only entries are never measured,
// wherever they sit: callers test `i >= FirstMeasuredIndex(...) && !r.replay_only`.
size_t FirstMeasuredIndex(const Trace& t, double warmup);
// Distinct blocks among requests [0, first): with dense ids numbered by first appearance in replay
// order, one more than the largest id seen.
uint64_t DistinctBlocksBefore(const Trace& t, size_t first);
// The same for a replay's options: options.measured_from when set, else by options.warmup.
size_t FirstMeasuredIndex(const Trace& t, const ReplayOptions& options);

}  // namespace ltl
