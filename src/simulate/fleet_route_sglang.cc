// sglang-cache-aware: the SGLang model gateway's (SMG) cache_aware policy in HTTP mode, pinned to
// lightseekorg/smg@73da68ca — model_gateway/src/policies/cache_aware.rs (select_worker,
// is_imbalanced, select_worker_with_text, select_worker_min_load), model_gateway/src/main.rs (CLI
// defaults), crates/kv_index/src/string_tree.rs (the tree: simulate/smg_tree.h) and
// crates/protocols/src/chat.rs (extract_text_for_routing: the view, ingest/router_view.h).
// Per request, in arrival order:
//  1. Eviction: every eviction_interval seconds of log time from the first request, the tree
//     evicts each worker's least recently used leaves down to max_tree_size characters; it runs
//     before routing the first request at or after first + k x interval (once, however many
//     intervals passed: a second run would find nothing to do). 0 = never (SMG: no thread).
//  2. Load: the router's own in-flight requests per worker (WorkerView::outstanding). The
//     min-load worker is the least of (load, requests this router sent it so far, index).
//     Imbalanced when max - min > balance_abs_threshold and max > balance_rel_threshold x min
//     (f32 as SMG computes it): the min-load worker (a guard choice), its text inserted for it
//     (insert_text, no match: no tenant cache or time refresh).
//  3. Else the tree match: match_rate = matched / input code points (f32); above cache_threshold
//     the deepest matched node's tenant (smg_tree.h: its cached tenant, else the lowest index),
//     else the min-load worker; the whole text inserted for the chosen worker at routing time.
// Completion does nothing to the tree (on_request_complete). Without prompt text (hashed traces,
// shards) a request's labels are its block ids, each block block_size x 4 characters toward
// max_tree_size and match_rate counted in blocks on both sides; `tokens=1` routes every request
// so (SMG's gRPC TokenTree mode, at block granularity: a block is block_size tokens).
#include <algorithm>
#include <cmath>
#include <memory>

#include "simulate/router_views.h"
#include "simulate/routing_policy.h"
#include "simulate/smg_tree.h"

namespace ltl {

namespace {

constexpr uint64_t kCharsPerToken = 4;

struct SglangParams {
  float cache_threshold;
  int64_t balance_abs_threshold;
  float balance_rel_threshold;
  double eviction_interval;
  uint64_t max_tree_size;
  bool tokens;
};

class SglangRun final : public RouterRun {
 public:
  SglangRun(const Trace& trace, uint32_t workers, const SglangParams& p)
      : trace_(trace),
        p_(p),
        tree_(workers, trace.num_blocks,
              uint64_t{std::max<uint32_t>(trace.block_size, 1)} * (p.tokens ? 1 : kCharsPerToken)),
        cursor_(trace),
        processed_(workers, 0) {}

  RouteChoice Choose(size_t i, const WorkerView& view) override {
    const TraceRequest& r = trace_.requests[i];
    if (p_.eviction_interval > 0) {
      if (!started_) first_s_ = r.time_s, next_eviction_s_ = r.time_s + p_.eviction_interval;
      if (r.time_s >= next_eviction_s_) {
        tree_.EvictBySize(p_.max_tree_size);
        next_eviction_s_ =
            first_s_ +
            p_.eviction_interval * (std::floor((r.time_s - first_s_) / p_.eviction_interval) + 1);
      }
    }
    started_ = true;
    uint32_t n = 0;
    bool text = false;
    const uint32_t* ids = cursor_.Ids(i, p_.tokens, &n, &text);
    const std::vector<int64_t>& load = *view.outstanding;
    const uint32_t workers = static_cast<uint32_t>(load.size());
    uint32_t min_w = 0;
    int64_t lo = load[0], hi = load[0];
    for (uint32_t w = 1; w < workers; ++w) {
      lo = std::min(lo, load[w]);
      hi = std::max(hi, load[w]);
      if (load[w] < load[min_w] || (load[w] == load[min_w] && processed_[w] < processed_[min_w]))
        min_w = w;
    }
    RouteChoice choice;
    if (hi - lo > p_.balance_abs_threshold &&
        static_cast<float>(hi) > static_cast<float>(lo) * p_.balance_rel_threshold) {
      choice.worker = min_w;
      choice.guard = true;
    } else {
      const SmgTree::Match m = tree_.MatchPrefix(ids, n);
      const float rate = n == 0 ? 0.0f : static_cast<float>(m.matched) / static_cast<float>(n);
      choice.worker =
          rate > p_.cache_threshold && m.tenant >= 0 ? static_cast<uint32_t>(m.tenant) : min_w;
    }
    tree_.Insert(ids, n, choice.worker);
    ++processed_[choice.worker];
    return choice;
  }

 private:
  const Trace& trace_;
  SglangParams p_;
  SmgTree tree_;
  TextCursor cursor_;
  std::vector<uint64_t> processed_;
  bool started_ = false;
  double first_s_ = 0, next_eviction_s_ = 0;  // the first request's time, the next eviction's
};

class SglangCacheAware final : public CacheAwareRouter {
 public:
  std::string_view name() const override { return "sglang-cache-aware"; }
  std::string_view summary() const override {
    return "SGLang model gateway cache_aware: longest character-prefix match on its radix tree "
           "above 30%, else and when imbalanced the least-loaded worker";
  }
  std::string_view source() const override {
    return "lightseekorg/smg@73da68ca model_gateway/src/policies/cache_aware.rs, "
           "crates/kv_index/src/string_tree.rs, crates/protocols/src/chat.rs";
  }
  std::string_view view() const override {
    return "matches characters (code points) of the message contents and reasoning joined with "
           "single spaces, empty ones skipped; roles, tools, tool calls and the chat template are "
           "invisible to it";
  }
  // tokens=1 (gRPC mode) routes on block ids, not characters.
  std::string ViewLine(const FleetOptions& o) const override {
    if (RouterParamValue(o, *this, "tokens") == 0) return std::string(view());
    return "matches the request's full token blocks (block ids: the prompt as the engine "
           "tokenizes it, SMG's gRPC mode); a partial last block is invisible to it";
  }
  bool text_view() const override { return true; }
  uint32_t view_kinds() const override { return kViewCodePoints; }
  bool has_load_guard() const override { return true; }
  std::vector<RouterParam> params() const override {
    return {{"cache_threshold", 0.3, "match rate a cache choice needs (--cache-threshold)"},
            {"balance_abs_threshold", 64,
             "in-flight spread (max - min) the guard needs (--balance-abs-threshold)"},
            {"balance_rel_threshold", 1.5,
             "in-flight ratio (max / min) the guard needs (--balance-rel-threshold)"},
            {"eviction_interval", 120,
             "seconds between tree evictions, 0 = never "
             "(--eviction-interval)"},
            {"max_tree_size", 67108864, "characters per worker after eviction (--max-tree-size)"},
            {"tokens", 0, "1 = gRPC mode: route on block ids (token blocks), not characters"}};
  }
  std::string Label(const FleetOptions& o) const override {
    return std::string(name()) + RouterParamLabel(o, *this);
  }
  std::unique_ptr<RouterRun> Start(const Trace& trace, const FleetOptions& o) const override {
    SglangParams p;
    p.cache_threshold = static_cast<float>(RouterParamValue(o, *this, "cache_threshold"));
    p.balance_abs_threshold =
        static_cast<int64_t>(RouterParamValue(o, *this, "balance_abs_threshold"));
    p.balance_rel_threshold =
        static_cast<float>(RouterParamValue(o, *this, "balance_rel_threshold"));
    p.eviction_interval = RouterParamValue(o, *this, "eviction_interval");
    p.max_tree_size = static_cast<uint64_t>(RouterParamValue(o, *this, "max_tree_size"));
    p.tokens = RouterParamValue(o, *this, "tokens") != 0;
    return std::make_unique<SglangRun>(trace, std::max<uint32_t>(o.workers, 1), p);
  }
};

}  // namespace

const RoutingPolicy& SglangCacheAwareRouting() {
  static const SglangCacheAware policy;
  return policy;
}

}  // namespace ltl
