// dynamo-kv: NVIDIA Dynamo's KV router (aggregated serving), pinned to ai-dynamo/dynamo —
// lib/kv-router/src/scheduling/selector.rs@01690d42 (DefaultWorkerSelector: worker_logit,
// softmax_sample, the temperature-0 reservoir), scheduling/config.rs@0243c51b (KvRouterConfig
// defaults), lib/kv-router/src/approx.rs@209c9e83 (PruneManager, PruneConfig: the index kept
// without KV events), sequences/single.rs@04df1c42 (ActiveSequences: what is in flight) and
// sequences/prompt_registry.rs@312d3427 (WorkerLoadProjection: additional active blocks).
// Its view is the request's full token blocks (Dynamo hashes the token ids of each full KV block,
// chained; a partial last block is not hashed): here the trace's block ids but a partial last one.
// Each request goes to the worker with the lowest logit (fleet_dynamo_kv.h, DynamoLogit) over
//  - overlap: with use_kv_events (default), the worker's true leading cached blocks (the engines'
//    KV events; with overlap_score_credit 0 the router does not subscribe: no overlap); without,
//    the leading blocks of the request its own approximate index holds for the worker (blocks it
//    routed there in the last router_ttl_secs, 2^20 entries at most, DynamoApproxIndex);
//  - its own record of what it sent each worker (DynamoActiveLoad), from the moment it routes a
//    request: its prefill tokens (its tokens past the overlap it was routed on) until its first
//    token, its blocks and itself until it finishes, both times as the fleet gives them
//    (RouterRun::Admitted: the load model, logged durations, or an engine pool's own timing);
//  - temperature 0: the minimum, ties drawn uniformly; above 0: a softmax draw (DynamoPick).
// One SplitMix64 step per request from --seed gives the draw (Dynamo draws from fastrand).
// Not modelled: the router's queue (router_queue_threshold: requests wait while every worker's
// active prefill tokens exceed 16 x its max_num_batched_tokens, which a log does not give), host
// and disk tiers and shared caches (their credits are 0 here), overlap_score_credit_decay (0 by
// default), output-block tracking (off by default).
#include <limits>
#include <queue>
#include <vector>

#include "common/mix64.h"
#include "simulate/fleet_dynamo_kv.h"
#include "simulate/routing_policy.h"

namespace ltl {

namespace {

// The request's blocks Dynamo hashes: the full ones.
uint32_t FullBlocks(const Trace& trace, const TraceRequest& r) {
  if (trace.sampled() || r.block_size == 0) return r.num_blocks;
  return static_cast<uint32_t>(
      std::min<int64_t>(r.num_blocks, std::max<int64_t>(r.input_tokens, 0) / r.block_size));
}

class DynamoKvRun final : public RouterRun {
  static constexpr int64_t kNotRouted = std::numeric_limits<int64_t>::min();

 public:
  DynamoKvRun(const Trace& trace, uint32_t workers, const DynamoKvConfig& config, uint64_t seed)
      : trace_(trace),
        config_(config),
        workers_(workers),
        active_(workers, trace.num_blocks),
        index_(config.router_ttl_secs, config.max_tree_size, config.prune_target_ratio),
        cursor_(trace),
        state_(seed),
        logits_(workers),
        prefill_tokens_(trace.requests.size(), kNotRouted),
        held_of_(trace.requests.size(), 0) {}

  RouteChoice Choose(size_t i, const WorkerView& view) override {
    const TraceRequest& r = trace_.requests[i];
    Retire(r.time_s);
    if (!config_.use_kv_events) index_.Expire(r.time_s);
    const uint32_t* ids = cursor_.Blocks(r);
    const uint32_t n = FullBlocks(trace_, r);
    overlap_.assign(workers_, 0);
    for (uint32_t w = 0; w < workers_; ++w) {
      if (!config_.use_kv_events)
        overlap_[w] = index_.Match(w, ids, n);
      else if (config_.overlap_score_credit > 0)
        overlap_[w] = std::min((*view.match)[w], n);
      DynamoWorkerLoad load;
      load.active_prefill_tokens = active_.prefill_tokens(w);
      load.active_blocks = active_.blocks(w);
      load.additional_blocks = n - active_.ActivePrefix(w, ids, n);
      load.active_requests = active_.requests(w);
      load.overlap_blocks = overlap_[w];
      logits_[w] = DynamoLogit(config_, load, r.input_tokens, r.block_size);
    }
    state_ += 0x9e3779b97f4a7c15ull;  // one draw per request, used or not
    const uint32_t w = DynamoPick(logits_, config_.router_temperature, SplitMix64Finalizer(state_));
    if (!config_.use_kv_events) index_.Insert(w, ids, n, r.time_s);
    if (!r.replay_only) {  // in flight from now (Dynamo adds a request when it routes it)
      const int64_t cached = static_cast<int64_t>(overlap_[w]) * r.block_size;
      const int64_t prefill_tokens = r.input_tokens - std::min(cached, r.input_tokens);
      active_.Add(w, ids, n, prefill_tokens);
      prefill_tokens_[i] = prefill_tokens;
      held_of_[i] = Hold(ids, n);
    }
    RouteChoice choice;
    choice.worker = w;
    return choice;
  }

  // The times the fleet gives (at once, or when an engine's queue admits the request): its
  // prefill tokens leave the worker's load at the first token, its blocks and itself at the finish.
  void Admitted(size_t i, uint32_t worker, int64_t /*uncached_tokens*/, double first_token_s,
                double finish_s) override {
    const int64_t prefill_tokens = prefill_tokens_[i];
    if (prefill_tokens == kNotRouted) return;
    events_.push({first_token_s, false, worker, i, prefill_tokens});
    events_.push({finish_s, true, worker, i, 0});
    prefill_tokens_[i] = kNotRouted;
  }

 private:
  struct Event {
    double time_s;
    bool finish;  // else: the first token
    uint32_t worker;
    size_t request;
    int64_t prefill_tokens;
    bool operator>(const Event& o) const {
      return time_s != o.time_s ? time_s > o.time_s : finish > o.finish;
    }
  };

  // Every first token and finish at or before now, in time order.
  void Retire(double now) {
    while (!events_.empty() && events_.top().time_s <= now) {
      const Event e = events_.top();
      events_.pop();
      if (!e.finish) {
        active_.PrefillDone(e.worker, e.prefill_tokens);
        continue;
      }
      const uint32_t h = held_of_[e.request];
      active_.Free(e.worker, held_[h].data(), static_cast<uint32_t>(held_[h].size()));
      free_held_.push_back(h);
    }
  }

  // Keeps a copy of a routed request's blocks until it finishes (walking its chain again then
  // would miss the cache); returns its slot in held_.
  uint32_t Hold(const uint32_t* ids, uint32_t n) {
    uint32_t h;
    if (!free_held_.empty()) {
      h = free_held_.back();
      free_held_.pop_back();
    } else {
      h = static_cast<uint32_t>(held_.size());
      held_.emplace_back();
    }
    held_[h].assign(ids, ids + n);
    return h;
  }

  const Trace& trace_;
  DynamoKvConfig config_;
  uint32_t workers_;
  DynamoActiveLoad active_;
  DynamoApproxIndex index_;
  BlockCursor cursor_;
  uint64_t state_;
  std::vector<double> logits_;
  std::vector<uint32_t> overlap_;
  std::vector<int64_t> prefill_tokens_;  // per request: routed, not yet admitted; else kNotRouted
  std::vector<uint32_t> held_of_;        // per routed request: its blocks' slot in held_
  std::vector<std::vector<uint32_t>> held_;
  std::vector<uint32_t> free_held_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
};

class DynamoKv final : public CacheAwareRouter {
 public:
  std::string_view name() const override { return "dynamo-kv"; }
  std::string_view summary() const override {
    return "NVIDIA Dynamo KV router: lowest uncached prefill + active blocks, from KV events or "
           "its own TTL index";
  }
  std::string_view source() const override {
    return "ai-dynamo/dynamo@01690d42 lib/kv-router/src/scheduling/selector.rs, "
           "config.rs@0243c51b, approx.rs@209c9e83, sequences/";
  }
  std::string_view view() const override {
    return "matches the request's full token blocks (block ids); a partial last block is "
           "invisible to it";
  }
  std::vector<RouterParam> params() const override {
    return {{"prefill_load_scale", 1, "weight of the uncached prefill blocks"},
            {"overlap_score_credit", 1,
             "cached blocks credited per overlap block (Dynamo accepts 0 to 1)"},
            {"decode_active_request_weight", 0, "blocks charged per request in flight"},
            {"router_temperature", 0, "0: lowest logit; > 0: softmax sampling"},
            {"use_kv_events", 1, "1: the workers' true caches; 0: the router's TTL index"},
            {"router_ttl_secs", 120, "seconds a routed block stays in the TTL index"}};
  }
  std::string Label(const FleetOptions& o) const override {
    return std::string(name()) + RouterParamLabel(o, *this);
  }
  std::unique_ptr<RouterRun> Start(const Trace& trace, const FleetOptions& o) const override {
    DynamoKvConfig c;
    c.prefill_load_scale = RouterParamValue(o, *this, "prefill_load_scale");
    c.overlap_score_credit = RouterParamValue(o, *this, "overlap_score_credit");
    c.decode_active_request_weight = RouterParamValue(o, *this, "decode_active_request_weight");
    c.router_temperature = RouterParamValue(o, *this, "router_temperature");
    c.use_kv_events = RouterParamValue(o, *this, "use_kv_events") != 0;
    c.router_ttl_secs = RouterParamValue(o, *this, "router_ttl_secs");
    return std::make_unique<DynamoKvRun>(trace, o.workers, c, o.seed);
  }
};

}  // namespace

const RoutingPolicy& DynamoKvRouting() {
  static const DynamoKv policy;
  return policy;
}

}  // namespace ltl
