// aibrix-prefix: AIBrix's "prefix-cache" routing algorithm at its code defaults, pinned to
// vllm-project/aibrix@e3e10f9e — pkg/plugins/gateway/algorithms/prefix_cache.go
// (prefixCacheRouter.routeOriginal, getTargetPodFromMatchedPods,
// getTargetPodListOnLoadImbalance), least_request.go (selectTargetPodWithLeastRequestCount,
// getRequestCounts), util.go (mean, standardDeviation), pkg/utils/prefixcacheindexer/hash.go
// (PrefixHashTable: MatchPrefix, AddPrefix, getPrefixHashes) and pkg/utils/lrustore/lru_store.go.
// The view (ingest/router_view.h): chained digests of the full 4-byte blocks of the routing
// context's message (the default `character` tokenizer: raw UTF-8 bytes; a partial last block is
// not hashed). The index: one LRU store of block digests for the whole gateway, at most
// block_number (200,000) entries, each the set of pods its block was routed to and the time it was
// last put. AddPrefix, at routing time, puts every block of the request for the chosen pod, head
// first: a put moves the entry to the front and stamps it with the request's log time; a new entry
// beyond the capacity drops the least recently put one. Lookups do not refresh an entry. Every
// eviction_interval_seconds (1) entries last put more than eviction_duration_mins (20) ago are
// dropped: here the ticks fall at the first request's time + k x interval, applied before each
// arrival (the real ticker runs on wall-clock time from the gateway's start).
// Per request, with running = the pods' outstanding requests (WorkerView::outstanding):
//  1. if max - min running > pod_running_request_imbalance_abs_count (8), the candidates are the
//     pods at the minimum, else every pod (guard = the restriction applied);
//  2. matching walks the request's blocks while a block is indexed and some remaining candidate
//     holds it; candidates that do not are dropped, those that do get match percent
//     (k + 1) x 100 / blocks (integer division) at block k;
//  3. the matched pods, shuffled, are stable-sorted by percent descending then running ascending,
//     and the first whose running <= mean + standard_deviation_factor (1) x sigma over every pod's
//     running count (the sample standard deviation, n - 1; 0 for one pod) wins;
//  4. else (no match — a request shorter than one block never matches — or none within that
//     bound) least-request: a pod drawn among those with the fewest running requests (all pods).
// Draws: one SplitMix64 stream from --seed (state += 0x9e3779b97f4a7c15, draw = the finalizer of
// the state), taken only when there is a choice: the shuffle is Go's rand.Shuffle (Fisher-Yates
// from the last position down: position j swaps with (draw x (j + 1)) >> 64) over the matched pods
// in index order; least-request takes one draw when several pods tie, pod = ties[(draw x n) >> 64]
// in index order. (AIBrix draws from Go's global source over map iteration order.)
// Without prompt text (hashed traces, shards) the blocks are the request's block ids.
// AIBrix's README (prefix_cache_readme.md) states other defaults (block size 128, imbalance 16,
// factor 2); the code's are used. Not modelled: an entry's pods are kept per model (the fleet
// serves one), and the remote-tokenizer / KV-event-sync path (kvSyncPrefixCacheRouter, off by
// default).
#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "common/mix64.h"
#include "simulate/fleet_cache_aware.h"
#include "simulate/router_views.h"
#include "simulate/routing_policy.h"

namespace ltl {

namespace {

constexpr std::string_view kName = "aibrix-prefix";

struct AibrixParams {
  uint64_t block_number;
  double ttl_s, interval_s;
  int64_t imbalance;
  double sd_factor;
};

// PrefixHashTable's LRU store (lrustore.LRUStore), keyed by block (a block id, or a view id offset
// by the trace's block count), each entry its holders as a bit set (inside the entry for up to 32
// pods, so a lookup and a put touch one place) and the request that last put it (its log time is
// that request's). Keys are dense (below `key_space`): up to kDirectKeys keys (and 32 pods) the
// entry of key k is slot k + 1 (a request's consecutive blocks are neighbours in memory; 16 bytes
// per key), else up to kDenseIndexLimit keys find their slot in an array, beyond it in a hash
// map. Every block of every request is looked up and put, so none of these hash.
class AibrixIndex {
 public:
  static constexpr uint64_t kDirectKeys = uint64_t{8} << 20;  // 128 MiB of entries at most

  AibrixIndex(const Trace& trace, uint32_t workers, uint64_t capacity, uint64_t key_space)
      : trace_(trace),
        words_((workers + 63) / 64),
        inline_(workers <= 32),
        capacity_(capacity),
        direct_(inline_ && key_space <= kDirectKeys) {
    slots_.push_back({});  // slot 0: the list's sentinel (its holders unused)
    if (!inline_) pods_.assign(words_, 0);
    if (direct_) {
      slots_.resize(key_space + 1);
    } else {
      key_of_.push_back(0);
      if (key_space <= kDenseIndexLimit) dense_.assign(key_space, 0);
    }
  }
  // The slot holding `key` (0 = none): itself + 1, or from the dense array or the hash map.
  uint32_t SlotOf(uint64_t key) const {
    if (direct_) return slots_[key + 1].put != 0 ? static_cast<uint32_t>(key + 1) : 0;
    if (!dense_.empty()) return dense_[key];
    auto it = slot_of_.find(key);
    return it == slot_of_.end() ? 0 : it->second;
  }
  // Word j of the holders of slot s.
  uint64_t Holders(uint32_t s, uint32_t j) const {
    return inline_ ? slots_[s].pods : pods_[static_cast<size_t>(s) * words_ + j];
  }
  // Put by request i (at its log time): `pod` holds `key`; the entry moves to the front.
  void Put(uint64_t key, uint32_t pod, size_t i) {
    uint32_t s = SlotOf(key);
    const bool fresh = s == 0;
    if (fresh) {
      s = NewSlot(key);
      ++size_;
    } else {
      Unlink(s);
    }
    Mark(s, pod, i);
    LinkFront(s);
    if (fresh && size_ > capacity_) Drop(slots_[0].prev);
  }
  // Put(key_at(0..n), pod, i) in order, the same by runs: keys already indexed whose entries lie
  // side by side in the list, each newer key just ahead of the one before it (as a request's
  // blocks are left by an earlier request's puts), move to the front as one segment.
  template <typename KeyAt>
  void PutAll(uint32_t n, const KeyAt& key_at, uint32_t pod, size_t i) {
    for (uint32_t j = 0; j < n;) {
      const uint32_t back = SlotOf(key_at(j));
      if (back == 0) {  // a new entry (which may drop the oldest): one at a time
        Put(key_at(j), pod, i);
        ++j;
        continue;
      }
      uint32_t front = back;
      Mark(back, pod, i);
      for (++j; j < n; ++j) {
        const uint32_t s = SlotOf(key_at(j));
        if (s == 0 || slots_[s].next != front) break;
        Mark(s, pod, i);
        front = s;
      }
      // The segment front..back, moved as Put moves each of its entries (oldest first).
      slots_[slots_[front].prev].next = slots_[back].next;
      slots_[slots_[back].next].prev = slots_[front].prev;
      slots_[front].prev = 0;
      slots_[back].next = slots_[0].next;
      slots_[slots_[0].next].prev = back;
      slots_[0].next = front;
    }
  }
  // The eviction tick at `tick`: entries last put more than ttl seconds before it go. Puts come in
  // time order, so the list's tail holds the oldest.
  void Expire(double tick, double ttl) {
    while (slots_[0].prev != 0 && tick - PutTime(slots_[0].prev) > ttl) Drop(slots_[0].prev);
  }
  size_t size() const { return size_; }

 private:
  struct Slot {
    uint32_t prev = 0, next = 0;
    uint32_t put = 0;   // 1 + the request that last put it; 0 = not indexed
    uint32_t pods = 0;  // the holders, when inline_
  };
  void Mark(uint32_t s, uint32_t pod, size_t i) {
    if (inline_)
      slots_[s].pods |= 1u << pod;
    else
      pods_[static_cast<size_t>(s) * words_ + pod / 64] |= 1ull << (pod % 64);
    slots_[s].put = static_cast<uint32_t>(i + 1);
  }
  double PutTime(uint32_t s) const { return trace_.requests[slots_[s].put - 1].time_s; }
  uint32_t NewSlot(uint64_t key) {
    uint32_t s;
    if (direct_) {
      slots_[key + 1].pods = 0;
      return static_cast<uint32_t>(key + 1);
    }
    if (!free_.empty()) {
      s = free_.back();
      free_.pop_back();
    } else {
      s = static_cast<uint32_t>(slots_.size());
      slots_.push_back({});
      key_of_.push_back(0);
      if (!inline_) pods_.resize(pods_.size() + words_, 0);
    }
    key_of_[s] = key;
    SetSlot(key, s);
    slots_[s].pods = 0;
    if (!inline_) std::fill_n(pods_.begin() + static_cast<ptrdiff_t>(s) * words_, words_, 0);
    return s;
  }
  void Unlink(uint32_t s) {
    slots_[slots_[s].prev].next = slots_[s].next;
    slots_[slots_[s].next].prev = slots_[s].prev;
  }
  void LinkFront(uint32_t s) {
    slots_[s].prev = 0;
    slots_[s].next = slots_[0].next;
    slots_[slots_[0].next].prev = s;
    slots_[0].next = s;
  }
  void Drop(uint32_t s) {
    Unlink(s);
    if (!direct_) {
      SetSlot(key_of_[s], 0);
      free_.push_back(s);
    }
    slots_[s].put = 0;
    --size_;
  }
  void SetSlot(uint64_t key, uint32_t s) {
    if (!dense_.empty()) {
      dense_[key] = s;
    } else if (s == 0) {
      slot_of_.erase(key);
    } else {
      slot_of_[key] = s;
    }
  }

  const Trace& trace_;
  uint32_t words_;
  bool inline_;  // at most 32 pods: the holders in the slot
  uint64_t capacity_;
  bool direct_;  // slot = key + 1
  std::vector<Slot> slots_;
  std::vector<uint64_t> key_of_;  // per slot, its key, unless direct_
  std::vector<uint64_t> pods_;    // per slot, `words_` words, unless inline_
  std::vector<uint32_t> free_;
  uint64_t size_ = 0;
  std::vector<uint32_t> dense_;  // per key, its slot (0 = none); empty beyond kDenseIndexLimit
  absl::flat_hash_map<uint64_t, uint32_t> slot_of_;
};

class AibrixRun final : public RouterRun {
 public:
  AibrixRun(const Trace& trace, uint32_t workers, uint64_t seed, const AibrixParams& p)
      : trace_(trace),
        workers_(workers),
        words_((workers + 63) / 64),
        p_(p),
        index_(trace, workers, p.block_number,
               uint64_t{trace.num_blocks} + trace.router_views.num_aibrix_ids),
        blocks_(trace),
        state_(seed),
        start_s_(trace.requests.empty() ? 0 : trace.requests.front().time_s),
        candidates_(words_),
        next_(words_),
        none_(words_, 0),
        percent_(workers) {}

  RouteChoice Choose(size_t i, const WorkerView& view) override {
    const TraceRequest& r = trace_.requests[i];
    const std::vector<int64_t>& running = *view.outstanding;
    index_.Expire(Tick(r.time_s), p_.ttl_s);
    const Keys keys = KeysOf(i);
    const uint32_t n = keys.n;

    // 1. The imbalance rule.
    const int64_t lo = *std::min_element(running.begin(), running.end());
    const int64_t hi = *std::max_element(running.begin(), running.end());
    RouteChoice choice;
    choice.guard = hi - lo > p_.imbalance;
    std::fill(candidates_.begin(), candidates_.end(), 0);
    for (uint32_t w = 0; w < workers_; ++w)
      if (!choice.guard || running[w] == lo) candidates_[w / 64] |= 1ull << (w % 64);

    // 2. Matching: each candidate's percent is the depth of its own run of held blocks, set when
    // it drops out of the candidates (or at the end for those left).
    std::fill(percent_.begin(), percent_.end(), -1);
    uint32_t matched = 0;  // blocks the remaining candidates hold
    auto set_percent = [&](const std::vector<uint64_t>& pods, const std::vector<uint64_t>& but) {
      const int percent = static_cast<int>(uint64_t{matched} * 100 / n);
      for (uint32_t j = 0; j < words_; ++j)
        for (uint64_t b = pods[j] & ~but[j]; b != 0; b &= b - 1)
          percent_[j * 64 + static_cast<uint32_t>(__builtin_ctzll(b))] = percent;
    };
    for (uint32_t k = 0; k < n; ++k) {
      const uint32_t slot = index_.SlotOf(keys[k]);
      if (slot == 0) break;
      uint64_t any = 0, dropped = 0;
      for (uint32_t j = 0; j < words_; ++j) {
        const uint64_t held = index_.Holders(slot, j);
        next_[j] = held & candidates_[j];
        any |= next_[j];
        dropped |= candidates_[j] & ~held;
      }
      if (any == 0) break;
      if (matched > 0 && dropped != 0) set_percent(candidates_, next_);  // those dropping out
      candidates_.swap(next_);
      matched = k + 1;
    }
    if (matched > 0) set_percent(candidates_, none_);

    // 3. The best match within mean + factor x sigma of the running counts.
    matched_.clear();
    for (uint32_t w = 0; w < workers_; ++w)
      if (percent_[w] >= 0) matched_.push_back(w);
    bool chosen = false;
    if (!matched_.empty()) {
      for (size_t j = matched_.size() - 1; j > 0; --j)
        std::swap(matched_[j], matched_[Below(j + 1)]);
      std::stable_sort(matched_.begin(), matched_.end(), [&](uint32_t a, uint32_t b) {
        if (percent_[a] != percent_[b]) return percent_[a] > percent_[b];
        return running[a] < running[b];
      });
      const double bound = Mean(running) + p_.sd_factor * SampleSd(running);
      for (uint32_t w : matched_) {
        if (static_cast<double>(running[w]) <= bound) {
          choice.worker = w;
          chosen = true;
          break;
        }
      }
    }
    // 4. Least-request over every pod.
    if (!chosen) {
      ties_.clear();
      for (uint32_t w = 0; w < workers_; ++w)
        if (running[w] == lo) ties_.push_back(w);
      choice.worker = ties_.size() == 1 ? ties_[0] : ties_[Below(ties_.size())];
    }
    // AddPrefix for the chosen pod, at routing time.
    index_.PutAll(
        n, [&](uint32_t k) { return keys[k]; }, choice.worker, i);
    return choice;
  }

 private:
  double Tick(double t) const {
    if (!(p_.interval_s > 0)) return t;
    return start_s_ + std::floor((t - start_s_) / p_.interval_s) * p_.interval_s;
  }
  // A draw in [0, n).
  size_t Below(size_t n) {
    state_ += 0x9e3779b97f4a7c15ull;
    const uint64_t draw = SplitMix64Finalizer(state_);
    return static_cast<size_t>((static_cast<unsigned __int128>(draw) * n) >> 64);
  }
  // util.go mean / standardDeviation (sample: n - 1; 0 for fewer than two values).
  static double Mean(const std::vector<int64_t>& v) {
    double sum = 0;
    for (int64_t x : v) sum += static_cast<double>(x);
    return v.empty() ? 0 : sum / static_cast<double>(v.size());
  }
  static double SampleSd(const std::vector<int64_t>& v) {
    if (v.size() <= 1) return 0;
    const double avg = Mean(v);
    double squares = 0;
    for (int64_t x : v) {
      const double d = static_cast<double>(x) - avg;
      squares += d * d;
    }
    return std::sqrt(squares / static_cast<double>(v.size() - 1));
  }
  // Request i's blocks: its view ids (offset past the block ids) with text, else its block ids.
  struct Keys {
    const uint32_t* ids;
    uint64_t offset;
    uint32_t n;
    uint64_t operator[](uint32_t k) const { return offset + ids[k]; }
  };
  Keys KeysOf(size_t i) {
    const TraceRouterViews& v = trace_.router_views;
    if (HasAibrixView(trace_, i))
      return {v.aibrix_ids.data() + v.aibrix_start[i], trace_.num_blocks,
              static_cast<uint32_t>(v.aibrix_start[i + 1] - v.aibrix_start[i])};
    const TraceRequest& r = trace_.requests[i];
    return {blocks_.Blocks(r), 0, r.num_blocks};
  }

  const Trace& trace_;
  const uint32_t workers_, words_;
  const AibrixParams p_;
  AibrixIndex index_;
  BlockCursor blocks_;
  uint64_t state_;
  const double start_s_;
  std::vector<uint64_t> candidates_, next_, none_;  // none_: all zero
  std::vector<int> percent_;                        // per pod, -1 = not matched
  std::vector<uint32_t> matched_, ties_;
};

class AibrixPrefix final : public CacheAwareRouter {
 public:
  std::string_view name() const override { return kName; }
  std::string_view summary() const override {
    return "AIBrix prefix-cache: 4-byte blocks of the message in a 200,000-entry LRU (20 min), "
           "best match within mean + 1 sigma of running requests, least-request otherwise";
  }
  std::string_view source() const override {
    return "vllm-project/aibrix@e3e10f9e pkg/plugins/gateway/algorithms/prefix_cache.go, "
           "least_request.go, pkg/utils/prefixcacheindexer/hash.go, pkg/utils/lrustore";
  }
  std::string_view view() const override {
    return "matches 4-byte blocks of the message contents joined with spaces (a non-string "
           "content as its JSON); roles, tools and the chat template are invisible to it";
  }
  // The block size the ingest stage cut this run's view at (block_size, 4 by default).
  std::string ViewLine(const FleetOptions& o) const override {
    return "matches " + std::to_string(AibrixViewBlockBytes({this}, o)) +
           "-byte blocks of the message contents joined with spaces (a non-string content as its "
           "JSON); roles, tools and the chat template are invisible to it";
  }
  bool text_view() const override { return true; }
  uint32_t view_kinds() const override { return kViewAibrixBlocks; }
  bool has_load_guard() const override { return true; }
  std::vector<RouterParam> params() const override {
    return {
        {"block_size", 4, "bytes per block (AIBRIX_PREFIX_CACHE_BLOCK_SIZE)"},
        {"block_number", 200000, "entries of the block index (AIBRIX_PREFIX_CACHE_BLOCK_NUMBER)"},
        {"eviction_duration_mins", 20,
         "minutes an entry lives after its last put (AIBRIX_PREFIX_CACHE_EVICTION_DURATION_MINS)"},
        {"eviction_interval_seconds", 1,
         "seconds between expiry sweeps (AIBRIX_PREFIX_CACHE_EVICTION_INTERVAL_SECONDS)"},
        {"pod_running_request_imbalance_abs_count", 8,
         "max - min running requests above which only the least loaded pods are candidates "
         "(AIBRIX_PREFIX_CACHE_POD_RUNNING_REQUEST_IMBALANCE_ABS_COUNT)"},
        {"standard_deviation_factor", 1,
         "a match needs running <= mean + factor x sigma "
         "(AIBRIX_PREFIX_CACHE_STANDARD_DEVIATION_FACTOR)"}};
  }
  // The ingest stage cuts the view at block_size (AibrixViewBlockBytes), once per run.
  bool view_param(std::string_view key) const override { return key == "block_size"; }
  std::string Label(const FleetOptions& o) const override {
    return std::string(name()) + RouterParamLabel(o, *this);
  }
  std::unique_ptr<RouterRun> Start(const Trace& trace, const FleetOptions& o) const override {
    AibrixParams p;
    p.block_number = static_cast<uint64_t>(RouterParamValue(o, *this, "block_number"));
    p.ttl_s = RouterParamValue(o, *this, "eviction_duration_mins") * 60;
    p.interval_s = RouterParamValue(o, *this, "eviction_interval_seconds");
    p.imbalance =
        static_cast<int64_t>(RouterParamValue(o, *this, "pod_running_request_imbalance_abs_count"));
    p.sd_factor = RouterParamValue(o, *this, "standard_deviation_factor");
    return std::make_unique<AibrixRun>(trace, o.workers, o.seed, p);
  }
};

}  // namespace

const RoutingPolicy& AibrixPrefixRouting() {
  static const AibrixPrefix policy;
  return policy;
}

uint32_t AibrixViewBlockBytes(const std::vector<const RoutingPolicy*>& policies,
                              const FleetOptions& options) {
  for (const RoutingPolicy* p : policies)
    if (p->name() == kName)
      return std::max<uint32_t>(
          1, static_cast<uint32_t>(std::min(RouterParamValue(options, *p, "block_size"), 1e9)));
  return 0;
}

}  // namespace ltl
