// llm-d-prefix: the llm-d inference scheduler's approximate prefix-cache routing, pinned to
// llm-d/llm-d-inference-scheduler@520af478 — the producer
// pkg/epp/framework/plugins/requestcontrol/dataproducer/approximateprefix (types.go defaults,
// hashing.go hashPrompt, indexer.go, plugin.go Produce / matchLongestPrefix / PreRequest), the
// scorers pkg/epp/framework/plugins/scheduling/scorer/ (prefix/plugin.go, loadaware/load_aware.go,
// queuedepth/queue.go, kvcacheutilization/kvcache_utilization.go) and the picker
// scheduling/picker/maxscore/picker.go with picker/common.go's shuffle. Weights: the sample
// configurations deploy/config/epp-estimate-prefix-cache-config.yaml (`estimate`: prefix 1 +
// load-aware 1, the default here: the sample that runs the approximate producer with a load
// scorer), deploy/config/epp-config.yaml (`default`: prefix 2) and the GIE Helm chart,
// kubernetes-sigs/gateway-api-inference-extension@a03894d9
// config/charts/inference-extension/templates/_config.yaml (`gie`: queue 2, kv-util 2, prefix 3).
// The view (ingest/router_view.h): chained digests of the 64-byte chunks (blockSizeTokens 16 x
// averageCharactersPerToken 4) of the JSON-marshalled messages, a trailing partial chunk hashed,
// none for an input shorter than one chunk; the first maxPrefixBlocksToMatch (256) are used.
// The index (indexer.go): per pod an LRU of chunk digests of lruCapacityPerServer (31,250)
// entries, and one map digest -> the pods holding it. PreRequest, at routing time, adds the
// request's chunks for the chosen pod: each chunk into the pod's LRU in order (a present one
// moves to the front; a new one beyond the capacity evicts the least recent, which drops the pod
// from that digest's holders), then the pod into every chunk's holders — so a request with more
// chunks than the capacity leaves holders that no LRU holds any longer, as the Go code does.
// (llm-d adds asynchronously; here before the next request.)
// Matching (matchLongestPrefix): walk the chunks from the first while some pod holds the chunk;
// each holder's count goes up by one (a pod's count is the chunks of that run it holds).
// Scores per pod, q = its outstanding requests (WorkerView::outstanding; llm-d reads the pod's
// waiting-queue metric, docs/SEMANTICS.md): prefix = count / chunks (0 without chunks);
// load-aware = 0.5 when q = 0, else 0.5 x (1 - min(q, threshold)/threshold), threshold 128;
// queue = (max - q)/(max - min) over the pods, 1 for every pod when all are equal; kv-util =
// 1 - usage, usage = min(1, blocks of its outstanding requests (WorkerView::decode_blocks) /
// lruCapacityPerServer) (vLLM's usage counts blocks held by running requests, and the LRU size is
// what the producer takes for the pod's KV blocks). Total = the weighted sum in the
// configuration's scorer order. Picker: the pods in index order are shuffled (Go's rand.Shuffle:
// Fisher-Yates from the last position down, position j swapping with (draw x (j + 1)) >> 64, n - 1
// draws per request from one SplitMix64 stream seeded with --seed: state += 0x9e3779b97f4a7c15,
// draw = the finalizer of the state), stable-sorted by score descending, and the first wins.
// Without prompt text (hashed traces, shards) the chunks are the request's block ids (at most
// maxPrefixBlocksToMatch). Not modelled: blockSizeTokens auto-tuned from the pods' metrics, the
// LRU sized to a pod's CacheNumBlocks metric (at this commit the producer's makeserver sizes a
// pod's LRU with that metric or the 31,250 constant, so its lruCapacityPerServer setting has no
// effect there; here the parameter sets it), filters and P/D profiles.
// Cost: chunk keys are dense (block ids, then view ids past them), so the holders are a bit set per
// key, and each LRU finds a key's node with a dense array (a hash map beyond kDenseIndexLimit, as
// the worker caches do); routes are the same either way.
#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <bit>
#include <memory>
#include <string>
#include <vector>

#include "common/mix64.h"
#include "simulate/fleet_cache_aware.h"
#include "simulate/router_views.h"
#include "simulate/routing_policy.h"

namespace ltl {

namespace {

constexpr std::string_view kName = "llm-d-prefix";

// The sample configurations, the `config` parameter's values in this order.
enum LlmdConfig { kEstimate = 0, kDefault = 1, kGie = 2 };

struct LlmdParams {
  uint64_t lru_capacity;
  uint64_t max_blocks;
  double threshold;
  LlmdConfig config;
};

// One pod's LRU of digests (hashicorp golang-lru's Add: front = most recent).
class PodLru {
 public:
  // dense_keys > 0: keys 0..dense_keys-1 find their node with an array; 0: with a hash map.
  PodLru(uint64_t capacity, uint64_t dense_keys) : capacity_(capacity), dense_(dense_keys > 0) {
    nodes_.push_back({});
    if (dense_) slot_.assign(dense_keys, 0);
  }
  // Adds `key` at the front; returns true and sets *evicted when the oldest entry left.
  bool Add(uint64_t key, uint64_t* evicted) {
    uint32_t* at;
    if (dense_) {
      if (key >= slot_.size()) slot_.resize(key + 1, 0);
      at = &slot_[key];
    } else {
      at = &at_.try_emplace(key, 0).first->second;
    }
    if (*at != 0) {
      Unlink(*at);
      LinkFront(*at);
      return false;
    }
    uint32_t s;
    if (!free_.empty()) {
      s = free_.back();
      free_.pop_back();
    } else {
      s = static_cast<uint32_t>(nodes_.size());
      nodes_.push_back({});
    }
    nodes_[s].key = key;
    *at = s;
    LinkFront(s);
    if (++size_ <= capacity_) return false;
    const uint32_t old = nodes_[0].prev;
    *evicted = nodes_[old].key;
    Unlink(old);
    if (dense_)
      slot_[*evicted] = 0;
    else
      at_.erase(*evicted);
    free_.push_back(old);
    --size_;
    return true;
  }
  size_t size() const { return size_; }

 private:
  struct Node {
    uint64_t key = 0;
    uint32_t prev = 0, next = 0;
  };
  void Unlink(uint32_t s) {
    nodes_[nodes_[s].prev].next = nodes_[s].next;
    nodes_[nodes_[s].next].prev = nodes_[s].prev;
  }
  void LinkFront(uint32_t s) {
    nodes_[s].prev = 0;
    nodes_[s].next = nodes_[0].next;
    nodes_[nodes_[0].next].prev = s;
    nodes_[0].next = s;
  }
  uint64_t capacity_;
  bool dense_;
  uint64_t size_ = 0;
  std::vector<Node> nodes_;  // node 0: the list's sentinel
  std::vector<uint32_t> free_;
  std::vector<uint32_t> slot_;                  // key -> node (0: absent), when dense
  absl::flat_hash_map<uint64_t, uint32_t> at_;  // key -> node, otherwise
};

class LlmdRun final : public RouterRun {
 public:
  LlmdRun(const Trace& trace, uint32_t workers, uint64_t seed, const LlmdParams& p)
      : trace_(trace),
        workers_(workers),
        p_(p),
        blocks_(trace),
        state_(seed),
        count_(workers),
        score_(workers),
        order_(workers),
        words_((workers + 63) / 64) {
    const uint64_t keys = uint64_t{trace.num_blocks} + trace.router_views.num_llmd_ids;
    holders_.assign(keys * words_, 0);
    const uint64_t dense = uint64_t{workers} * keys <= kDenseIndexLimit ? keys : 0;
    lrus_.reserve(workers);
    for (uint32_t w = 0; w < workers; ++w) lrus_.emplace_back(p.lru_capacity, dense);
  }

  RouteChoice Choose(size_t i, const WorkerView& view) override {
    const std::vector<int64_t>& q = *view.outstanding;
    Keys(i);
    // matchLongestPrefix: while some pod holds the chunk, each holder counts it.
    std::fill(count_.begin(), count_.end(), 0);
    for (uint64_t key : keys_) {
      const uint64_t* h = Holders(key);
      bool any = false;
      for (uint32_t k = 0; k < words_; ++k) {
        for (uint64_t m = h[k]; m != 0; m &= m - 1) ++count_[k * 64 + std::countr_zero(m)];
        any = any || h[k] != 0;
      }
      if (!any) break;
    }
    const int64_t lo = *std::min_element(q.begin(), q.end());
    const int64_t hi = *std::max_element(q.begin(), q.end());
    const double total = static_cast<double>(keys_.size());
    for (uint32_t w = 0; w < workers_; ++w) {
      const double prefix = keys_.empty() ? 0.0 : static_cast<double>(count_[w]) / total;
      double s = 0;
      switch (p_.config) {
        case kEstimate:
          s += prefix * 1.0;
          s += LoadAware(q[w]) * 1.0;
          break;
        case kDefault:
          s += prefix * 2.0;
          break;
        case kGie:
          s += Queue(q[w], lo, hi) * 2.0;
          s += KvUtil((*view.decode_blocks)[w]) * 2.0;
          s += prefix * 3.0;
          break;
      }
      score_[w] = s;
    }
    // The max-score picker: shuffle, then the first of the highest score.
    for (uint32_t w = 0; w < workers_; ++w) order_[w] = w;
    for (uint32_t j = workers_ - 1; j > 0; --j) std::swap(order_[j], order_[Below(j + 1)]);
    uint32_t best = order_[0];
    for (uint32_t w : order_)
      if (score_[w] > score_[best]) best = w;
    Add(best);
    RouteChoice choice;
    choice.worker = best;
    return choice;
  }

  // The scorers (see the header comment).
  double LoadAware(int64_t q) const {
    if (q == 0) return 0.5;
    return 0.5 * (1.0 - std::min(static_cast<double>(q), p_.threshold) / p_.threshold);
  }
  static double Queue(int64_t q, int64_t lo, int64_t hi) {
    if (hi == lo) return 1.0;
    return static_cast<double>(hi - q) / static_cast<double>(hi - lo);
  }
  double KvUtil(int64_t blocks) const {
    const double usage =
        std::min(1.0, static_cast<double>(blocks) / static_cast<double>(p_.lru_capacity));
    return 1.0 - usage;
  }

 private:
  // indexer.Add: every chunk into the pod's LRU (evictions drop the pod from those holders), then
  // the pod into every chunk's holders.
  void Add(uint32_t pod) {
    const uint64_t bit = uint64_t{1} << (pod % 64);
    for (uint64_t key : keys_) {
      uint64_t evicted = 0;
      if (!lrus_[pod].Add(key, &evicted)) continue;
      Holders(evicted)[pod / 64] &= ~bit;
    }
    for (uint64_t key : keys_) Holders(key)[pod / 64] |= bit;
  }
  // The pods holding `key`, a bit per pod (grown past the trace's keys should a key exceed them).
  uint64_t* Holders(uint64_t key) {
    if ((key + 1) * words_ > holders_.size()) holders_.resize((key + 1) * words_, 0);
    return &holders_[key * words_];
  }
  // A draw in [0, n).
  uint32_t Below(uint32_t n) {
    state_ += 0x9e3779b97f4a7c15ull;
    const uint64_t draw = SplitMix64Finalizer(state_);
    return static_cast<uint32_t>((static_cast<unsigned __int128>(draw) * n) >> 64);
  }
  // Request i's chunks: its view ids (offset past the block ids) with text, else its block ids;
  // at most max_blocks.
  void Keys(size_t i) {
    keys_.clear();
    const TraceRouterViews& v = trace_.router_views;
    if (HasLlmdView(trace_, i)) {
      for (uint64_t k = v.llmd_start[i]; k < v.llmd_start[i + 1]; ++k)
        keys_.push_back(uint64_t{trace_.num_blocks} + v.llmd_ids[k]);
    } else {
      const TraceRequest& r = trace_.requests[i];
      const uint32_t* ids = blocks_.Blocks(r);
      keys_.assign(ids, ids + r.num_blocks);
    }
    if (keys_.size() > p_.max_blocks) keys_.resize(p_.max_blocks);
  }

  const Trace& trace_;
  const uint32_t workers_;
  const LlmdParams p_;
  BlockCursor blocks_;
  uint64_t state_;
  std::vector<PodLru> lrus_;
  std::vector<uint64_t> holders_;  // key -> the pods holding it, words_ words of bits
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> count_;
  std::vector<double> score_;
  std::vector<uint32_t> order_;
  const uint32_t words_;
};

class LlmdPrefix final : public CacheAwareRouter {
 public:
  std::string_view name() const override { return kName; }
  std::string_view summary() const override {
    return "llm-d approximate prefix: 64-byte chunks of the JSON messages in a 31,250-entry LRU "
           "per pod, prefix + load-aware scores (config=estimate), max score with random ties";
  }
  std::string_view source() const override {
    return "llm-d/llm-d-inference-scheduler@520af478 pkg/epp/framework/plugins/requestcontrol/"
           "dataproducer/approximateprefix, scheduling/scorer/{prefix,loadaware,queuedepth,"
           "kvcacheutilization}, scheduling/picker/maxscore; deploy/config/epp-*.yaml; "
           "kubernetes-sigs/gateway-api-inference-extension@a03894d9 "
           "config/charts/inference-extension/templates/_config.yaml";
  }
  std::string_view view() const override {
    return "matches 64-byte chunks of the messages as JSON (role and content only); tools, "
           "tool calls, names and the chat template are invisible to it";
  }
  bool text_view() const override { return true; }
  uint32_t view_kinds() const override { return kViewLlmdBlocks; }
  std::vector<RouterParam> params() const override {
    return {{"config", kEstimate,
             "scorer weights: estimate (prefix 1 + load-aware 1), default (prefix 2), gie (queue "
             "2, kv-util 2, prefix 3)"},
            {"lruCapacityPerServer", 31250, "chunk digests each pod's LRU holds"},
            {"maxPrefixBlocksToMatch", 256, "chunks of a request hashed and matched"},
            {"threshold", 128, "load-aware-scorer: queue length scored 0"}};
  }
  std::vector<std::string_view> param_names(std::string_view key) const override {
    if (key == "config") return {"estimate", "default", "gie"};
    return {};
  }
  std::string Label(const FleetOptions& o) const override {
    return std::string(name()) + RouterParamLabel(o, *this);
  }
  std::unique_ptr<RouterRun> Start(const Trace& trace, const FleetOptions& o) const override {
    LlmdParams p;
    p.lru_capacity = std::max<uint64_t>(
        1, static_cast<uint64_t>(RouterParamValue(o, *this, "lruCapacityPerServer")));
    p.max_blocks = static_cast<uint64_t>(RouterParamValue(o, *this, "maxPrefixBlocksToMatch"));
    p.threshold = RouterParamValue(o, *this, "threshold");
    if (!(p.threshold > 0)) p.threshold = 128;  // NewLoadAware: a non-positive one is the default
    p.config = static_cast<LlmdConfig>(std::min(2.0, RouterParamValue(o, *this, "config")));
    return std::make_unique<LlmdRun>(trace, o.workers, o.seed, p);
  }
};

}  // namespace

const RoutingPolicy& LlmdPrefixRouting() {
  static const LlmdPrefix policy;
  return policy;
}

}  // namespace ltl
