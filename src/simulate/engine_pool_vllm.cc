// Engine `vllm`: vLLM v1's KV block pool (docs/SEMANTICS.md "Engine KV pool"). Rules as vLLM's code
// implements them (read 2026-12-06; no code copied):
// - vllm/v1/core/block_pool.py @ c59cb7941357443da7c5eef75cfa8697d683d228: C blocks, all in the
//   free queue at start (block id order); `get_new_blocks` pops from the free queue's head and
//   evicts what a popped block cached (`_maybe_evict_cached_block`); `touch` takes a hit block
//   that nobody runs (ref_cnt 0) out of the free queue and counts a reference; `free_blocks`
//   drops a reference per block and appends those no longer used to the queue's tail in the order
//   given; `BlockHashToBlockMap` keeps duplicates (a block cached again under a hash that is
//   already cached is added, not merged) and a lookup returns the first one cached.
// - vllm/v1/core/single_type_kv_cache_manager.py @ 129ab7c60cbb8eb11e875373e67f7e521b74aa30:
//   the blocks to allocate are the new ones plus the hit blocks now in the free queue
//   (`get_num_blocks_to_allocate`), refused when more than the free blocks; `free` releases a
//   request's blocks in reverse order (its last block first, so tails evict first); only full
//   blocks are cached (`cache_blocks`: num_tokens // block_size).
// - vllm/v1/core/kv_cache_manager.py @ ace980e6de0540f49b0c63248437a1a7807590c1
//   (`get_computed_blocks`): max_cache_hit_length = num_tokens - 1, so a hit stops at
//   floor((input - 1) / B) blocks; the hit is the leading run of hashes found.
// - vllm/v1/core/kv_cache_utils.py @ bbf906a88ba1a39104884c88c9811a4f968e4659
//   (FreeKVCacheBlockQueue): the doubly linked free list with O(1) removal from the middle.
// Where this differs from vLLM, said in SEMANTICS.md: every block a request will need
// (ceil((input + output) / B)) is reserved at admission, where vLLM allocates decode blocks as it
// goes and preempts a running request when none is free; output blocks get no hash (their tokens
// are not in the trace); vLLM's pool also holds one null block not counted here.
#include <absl/container/flat_hash_map.h>

#include "simulate/engine_pool.h"

namespace ltl {
namespace {

constexpr int32_t kNone = -1;
constexpr uint32_t kNoHash = 0xffffffffu;

class VllmPool final : public PoolModel {
 public:
  VllmPool(const Trace& t, uint64_t capacity)
      : ref_(capacity, 0),
        hash_(capacity, kNoHash),
        prev_(capacity),
        next_(capacity),
        first_(t.num_blocks, kNone) {
    const auto c = static_cast<int32_t>(capacity);
    for (int32_t s = 0; s < c; ++s) {
      prev_[s] = s - 1;
      next_[s] = s + 1 < c ? s + 1 : kNone;
    }
    head_ = c > 0 ? 0 : kNone;
    tail_ = c > 0 ? c - 1 : kNone;
    free_ = capacity;
  }

  bool TryAdmit(const PoolRequest& r, uint64_t handle, uint64_t* hit_blocks) override {
    hits_.clear();
    uint64_t evictable = 0;
    for (uint64_t k = 0; k < r.max_hit_blocks; ++k) {
      const int32_t s = first_[r.ids[k]];
      if (s == kNone) break;
      hits_.push_back(s);
      evictable += ref_[s] == 0;
    }
    const uint64_t k = hits_.size();
    const uint64_t fresh = r.total_blocks > k ? r.total_blocks - k : 0;
    if (fresh + evictable > free_) return false;
    std::vector<int32_t>& held = held_[handle];
    held.reserve(k + fresh);
    for (int32_t s : hits_) {  // touch
      if (ref_[s] == 0) Unlink(s);
      ++ref_[s];
      held.push_back(s);
    }
    for (uint64_t j = 0; j < fresh; ++j) {  // popped from the head, evicting what they cached
      const int32_t s = head_;
      Unlink(s);
      if (hash_[s] != kNoHash) Evict(s);
      ref_[s] = 1;
      held.push_back(s);
    }
    for (uint64_t p = k; p < r.full_blocks; ++p) Cache(held[p], r.ids[p]);
    *hit_blocks = k;
    return true;
  }

  uint64_t Match(const PoolRequest& r) const override {
    uint64_t k = 0;
    while (k < r.max_hit_blocks && first_[r.ids[k]] != kNone) ++k;
    return k;
  }

  void Release(uint64_t handle) override {
    auto it = held_.find(handle);
    if (it == held_.end()) return;
    const std::vector<int32_t>& held = it->second;
    for (size_t j = held.size(); j > 0; --j) {  // the last block first
      const int32_t s = held[j - 1];
      if (--ref_[s] == 0) Append(s);
    }
    held_.erase(it);
  }

  uint64_t evictions() const override { return evictions_; }

 private:
  void Unlink(int32_t s) {
    const int32_t p = prev_[s], n = next_[s];
    (p == kNone ? head_ : next_[p]) = n;
    (n == kNone ? tail_ : prev_[n]) = p;
    prev_[s] = next_[s] = kNone;
    --free_;
  }
  void Append(int32_t s) {
    prev_[s] = tail_;
    next_[s] = kNone;
    (tail_ == kNone ? head_ : next_[tail_]) = s;
    tail_ = s;
    ++free_;
  }
  void Cache(int32_t s, uint32_t id) {
    hash_[s] = id;
    if (first_[id] == kNone) {
      first_[id] = s;
      return;
    }
    std::vector<int32_t>& d = dups_[id];  // a second block under a cached hash
    if (d.empty()) d.push_back(first_[id]);
    d.push_back(s);
  }
  void Evict(int32_t s) {
    const uint32_t id = hash_[s];
    hash_[s] = kNoHash;
    ++evictions_;
    auto it = dups_.find(id);
    if (it == dups_.end()) {
      first_[id] = kNone;
      return;
    }
    std::vector<int32_t>& d = it->second;
    d.erase(std::find(d.begin(), d.end(), s));
    first_[id] = d.front();
    if (d.size() == 1) dups_.erase(it);
  }

  std::vector<uint32_t> ref_;
  std::vector<uint32_t> hash_;  // dense id the block caches, or kNoHash
  std::vector<int32_t> prev_, next_;
  int32_t head_ = kNone, tail_ = kNone;
  uint64_t free_ = 0;
  std::vector<int32_t> first_;  // per dense id: the block a lookup finds, or kNone
  absl::flat_hash_map<uint32_t, std::vector<int32_t>> dups_;  // ids cached in several blocks
  absl::flat_hash_map<uint64_t, std::vector<int32_t>> held_;  // running request -> its blocks
  std::vector<int32_t> hits_;
  uint64_t evictions_ = 0;
};

class Vllm final : public KvEngine {
 public:
  std::string_view name() const override { return "vllm"; }
  std::string_view description() const override {
    return "vLLM v1 block pool: running requests' blocks and cached blocks share the pool; free "
           "blocks keep their hash until reused, oldest freed first, a request's tail first";
  }
  std::unique_ptr<PoolModel> MakePool(const Trace& t, uint64_t capacity_blocks) const override {
    return std::make_unique<VllmPool>(t, capacity_blocks);
  }
};

}  // namespace

const KvEngine& VllmEngine() {
  static const Vllm engine;
  return engine;
}

}  // namespace ltl
