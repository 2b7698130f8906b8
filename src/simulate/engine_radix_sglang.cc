// Engine `sglang`: SGLang's radix cache as the KV pool (docs/SEMANTICS.md "Engine KV pool"), at
// block granularity: a node is one block (SGLang's radix tree holds token ids, its nodes are
// compressed runs of tokens; here the trace's block ids are the keys, so a node is a full block and
// a match or an eviction moves whole blocks). Rules as SGLang's code implements them (read
// 2026-12-07; no code copied):
// - sgl-project/sglang python/sglang/srt/mem_cache/radix_cache.py @
//   006b0e3d317f1cd4a7300e919a4eaa878b1947e7: `match_prefix` walks the tree from the root and
//   stamps every node on the matched path with the access time; `inc_lock_ref(last_node)` locks
//   the path up to the root while the request runs (a locked node leaves `evictable_size_`) and
//   `dec_lock_ref` releases it; `evict(num_tokens)` pops the evictable leaves (no child cached,
//   lock_ref 0) in order of `last_access_time` (LRUStrategy, `--radix-eviction-policy lru`, the
//   default) and pushes a parent that became an unlocked leaf; `cache_unfinished_req` (called
//   after the prefill, "so others can match") inserts the prompt, frees the request's copies of
//   what the tree already held and moves its lock to the new last node; `cache_finished_req`
//   inserts the request's tokens, prompt and output (`origin_input_ids + output_ids`, page
//   aligned) and unlocks its path; `_insert_helper` stamps the nodes it walks and creates the
//   missing ones.
// - python/sglang/srt/managers/schedule_policy.py @ 00550cd11b35def9d584bf761a1e32729c20a21d
//   (PrefillAdder.add_one_req): the request's matched prefix is locked while its fit is checked,
//   so its own prefix is not counted as evictable; it fits when its new tokens fit the free pool
//   (available + evictable); otherwise NO_TOKEN stops the scheduling pass (head of line blocks).
//   `--schedule-policy` defaults to `fcfs` (server_args.py, ServerArgs.schedule_policy): the
//   waiting queue is served in arrival order, the case modelled here (`lpm` reorders it).
// - schedule_batch.py `_compute_max_prefix_len`: a match is at most input - 1 tokens, so the hit
//   stops at floor((input - 1) / B) blocks.
// - mem_cache/common.py `evict_from_tree_cache` (as read in the stored index; moved by later
//   commits): when fewer slots are available than an allocation needs, the tree is asked to
//   evict the whole allocation's size, not the shortfall.
// Where this differs from SGLang, said in SEMANTICS.md: every block the request needs
// (ceil((input + output) / B)) is taken at admission, where SGLang reserves an estimate of the
// decode tokens (new_token_ratio) and allocates them as it decodes, retracting requests when the
// pool runs out; the prompt enters the tree at admission, where SGLang inserts it when the
// prefill is done; the output's blocks have no ids in the trace: they are unique to the request
// (inserted, never hit); only full blocks are inserted (SGLang's default page_size 1 also caches a
// partial block's tokens); a waiting request's prefix is stamped at its admission only (SGLang
// re-matches waiting requests at every scheduling pass); nodes are single blocks, so an eviction
// frees whole blocks one leaf at a time where SGLang frees a whole compressed node.
#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <limits>

#include "simulate/engine_pool.h"

namespace ltl {
namespace {

constexpr int32_t kRoot = -1;

class SglangRadixPool final : public PoolModel {
 public:
  explicit SglangRadixPool(uint64_t capacity) : capacity_(capacity) {}

  bool TryAdmit(const PoolRequest& r, uint64_t handle, uint64_t* hit_blocks) override {
    hits_.clear();
    int32_t at = kRoot;
    uint64_t newly_locked = 0;
    for (uint64_t k = 0; k < r.max_hit_blocks; ++k) {
      const int32_t child = Child(at, r.ids[k]);
      if (child == kRoot) break;
      hits_.push_back(child);
      newly_locked += node_[child].lock == 0;
      at = child;
    }
    const uint64_t k = hits_.size();
    const uint64_t fresh = r.total_blocks > k ? r.total_blocks - k : 0;
    // The matched path is locked while the fit is checked: it is not evictable for this request.
    if (fresh > Available() + evictable_ - newly_locked) return false;
    Held& h = held_[handle];
    h.path = hits_;
    for (int32_t s : hits_) Touch(s);  // the matched path gets the access time, head first
    for (int32_t s : hits_) Lock(s);
    if (Available() < fresh) EvictBlocks(fresh);  // SGLang asks for the whole allocation
    own_ += fresh;
    h.own = fresh;
    // The prompt's full blocks enter the tree, locked by the request (SGLang: cache_unfinished_req
    // after the prefill); a block the tree already holds (the input - 1 cap kept it from
    // hitting) is stamped and locked instead, and the request's copy freed.
    for (uint64_t j = k; j < r.full_blocks; ++j) {
      int32_t child = Child(at, r.ids[j]);
      if (child == kRoot) {
        child = NewNode(at, Key(at, r.ids[j]));
      } else {
        Touch(child);
      }
      Lock(child);
      h.path.push_back(child);
      --own_;
      --h.own;
      at = child;
    }
    h.output_blocks = r.sequence_full_blocks - std::min(r.sequence_full_blocks, r.full_blocks);
    *hit_blocks = k;
    return true;
  }

  uint64_t Match(const PoolRequest& r) const override {
    int32_t at = kRoot;
    uint64_t k = 0;
    while (k < r.max_hit_blocks && (at = Child(at, r.ids[k])) != kRoot) ++k;
    return k;
  }

  // cache_finished_req: the request's path is stamped again, the output's full blocks are
  // inserted under it, the rest (a partial last block) freed, and the path unlocked.
  void Release(uint64_t handle) override {
    auto it = held_.find(handle);
    if (it == held_.end()) return;
    const Held& h = it->second;
    for (int32_t s : h.path) Touch(s);
    int32_t at = h.path.empty() ? kRoot : h.path.back();
    for (uint64_t j = 0; j < h.output_blocks; ++j)
      at = NewNode(at, kNoKey);  // an output block: unique to the request, never matched
    own_ -= h.own;
    for (int32_t s : h.path) Unlock(s);
    held_.erase(it);
  }

  uint64_t evictions() const override { return evictions_; }

 private:
  static constexpr uint64_t kNoKey = std::numeric_limits<uint64_t>::max();
  struct Node {
    int32_t parent = kRoot;
    uint32_t children = 0;  // cached children
    uint32_t lock = 0;
    uint64_t time = 0;
    uint64_t key = kNoKey;  // (parent + 1) << 32 | block id; kNoKey for an output block
    bool alive = false;
  };
  struct Held {
    std::vector<int32_t> path;   // the prompt's full blocks in the tree, locked
    uint64_t own = 0;            // blocks held outside the tree (output, a partial last block)
    uint64_t output_blocks = 0;  // full blocks of the output, inserted at completion
  };
  struct Entry {
    uint64_t time;
    int32_t node;
  };
  struct EvictsLater {  // std heap: the least recent leaf on top
    bool operator()(const Entry& a, const Entry& b) const { return a.time > b.time; }
  };

  static uint64_t Key(int32_t parent, uint32_t id) {
    return (static_cast<uint64_t>(parent + 1) << 32) | id;
  }
  int32_t Child(int32_t parent, uint32_t id) const {
    auto it = index_.find(Key(parent, id));
    return it == index_.end() ? kRoot : it->second;
  }
  uint64_t Available() const { return capacity_ - tree_ - own_; }

  int32_t NewNode(int32_t parent, uint64_t key) {
    int32_t s;
    if (!free_nodes_.empty()) {
      s = free_nodes_.back();
      free_nodes_.pop_back();
      node_[s] = Node{};
    } else {
      s = static_cast<int32_t>(node_.size());
      node_.emplace_back();
    }
    node_[s].parent = parent;
    node_[s].key = key;
    node_[s].alive = true;
    if (key != kNoKey) index_[key] = s;
    if (parent != kRoot) ++node_[parent].children;
    ++tree_;
    ++evictable_;
    Touch(s);
    return s;
  }
  void Touch(int32_t s) {
    node_[s].time = ++clock_;
    if (node_[s].children == 0 && node_[s].lock == 0) Push(s);
  }
  void Lock(int32_t s) {
    if (node_[s].lock++ == 0) --evictable_;
  }
  void Unlock(int32_t s) {
    if (--node_[s].lock == 0) {
      ++evictable_;
      if (node_[s].children == 0) Push(s);
    }
  }
  void Push(int32_t s) {
    MaybeCompact();
    heap_.push_back({node_[s].time, s});
    std::push_heap(heap_.begin(), heap_.end(), EvictsLater());
  }
  bool Valid(const Entry& e) const {
    const Node& n = node_[e.node];
    return n.alive && n.children == 0 && n.lock == 0 && n.time == e.time;
  }

  // Evicts up to `blocks` unlocked leaves, least recently used first.
  void EvictBlocks(uint64_t blocks) {
    for (uint64_t done = 0; done < blocks && !heap_.empty();) {
      std::pop_heap(heap_.begin(), heap_.end(), EvictsLater());
      const Entry e = heap_.back();
      heap_.pop_back();
      if (!Valid(e)) continue;
      Remove(e.node);
      ++done;
    }
  }
  void Remove(int32_t s) {
    Node& n = node_[s];
    if (n.key != kNoKey) index_.erase(n.key);
    n.alive = false;
    free_nodes_.push_back(s);
    --tree_;
    --evictable_;
    ++evictions_;
    const int32_t p = n.parent;
    if (p != kRoot && --node_[p].children == 0 && node_[p].lock == 0) Push(p);
  }
  // Stale entries pile up (every touch of a leaf pushes one): keep the heap within twice the
  // cached blocks.
  void MaybeCompact() {
    if (heap_.size() <= 2 * tree_ + 1024) return;
    std::erase_if(heap_, [this](const Entry& e) { return !Valid(e); });
    std::make_heap(heap_.begin(), heap_.end(), EvictsLater());
  }

  uint64_t capacity_;
  uint64_t tree_ = 0;       // blocks the tree holds
  uint64_t own_ = 0;        // blocks running requests hold outside the tree
  uint64_t evictable_ = 0;  // tree blocks no running request locks
  uint64_t clock_ = 0;      // access times: strictly increasing, so no two nodes tie
  uint64_t evictions_ = 0;
  std::vector<Node> node_;
  std::vector<int32_t> free_nodes_;
  absl::flat_hash_map<uint64_t, int32_t> index_;  // (parent, block id) -> node
  absl::flat_hash_map<uint64_t, Held> held_;      // running request -> what it holds
  std::vector<int32_t> hits_;
  std::vector<Entry> heap_;
};

class Sglang final : public KvEngine {
 public:
  std::string_view name() const override { return "sglang"; }
  std::string_view description() const override {
    return "SGLang radix cache: running requests lock their matched prefix; a finished request's "
           "prompt and output are inserted; unlocked leaves evicted least recently used first";
  }
  std::unique_ptr<PoolModel> MakePool(const Trace&, uint64_t capacity_blocks) const override {
    return std::make_unique<SglangRadixPool>(capacity_blocks);
  }
};

}  // namespace

const KvEngine& SglangEngine() {
  static const Sglang engine;
  return engine;
}

}  // namespace ltl
