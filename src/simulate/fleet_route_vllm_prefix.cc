// vllm-router-prefix: vLLM production-stack's "prefixaware" routing logic, pinned to
// vllm-project/production-stack@a6c01db0 — src/vllm_router/routers/routing_logic.py
// (PrefixAwareRouter.route_request) and src/vllm_router/prefix/hashtrie.py (HashTrie).
// The router keeps a trie of the prompts it has routed: one level per 128-character chunk of the
// message contents joined with "\n" (the view, ingest/router_view.h), each node the set of
// workers a prompt through it was sent to. A request walks the trie while some worker holds the
// next chunk, keeping the workers holding all chunks so far (the intersection); it goes to a
// worker drawn at random from that set (every worker when not even the first chunk matched), and
// its chunks are inserted for that worker at routing time. Nothing is ever evicted (the code says
// "we assume that there is no eviction of prefix cache"; PR #711 proposes an LRU). With
// --prefix-min-match-length > 0 a match shorter than that many characters goes to the lowest-QPS
// worker instead (fleet_router_qps.h), still inserted. Without prompt text (hashed traces, shards)
// the trie's levels are the request's block ids, and a block counts as block size x 4 characters.
// The draw: one SplitMix64 step per request from --seed, worker = best[(draw x |best|) >> 64] over
// the best set in index order (the real router calls Python's random.choice on a set).
#include <algorithm>

#include "common/mix64.h"
#include "simulate/fleet_router_qps.h"
#include "simulate/fleet_routes.h"
#include "simulate/router_views.h"
#include "simulate/routing_policy.h"

namespace ltl {

StaticRoutes RouteVllmPrefix(const Trace& trace, uint32_t workers, uint64_t seed,
                             double min_match_chars, double stats_window_s) {
  constexpr uint64_t kCharsPerToken = 4;
  StaticRoutes out;
  out.worker.resize(trace.requests.size());
  const uint32_t words = (workers + 63) / 64;
  // Per trie node (dense id: block ids, then chunk ids after trace.num_blocks): the workers a
  // prompt through it was sent to, as a bit set of `words` words. Grown as ids are seen.
  std::vector<uint64_t> held;
  std::vector<uint64_t> best(words), inter(words);
  std::vector<uint32_t> candidates;
  RouterQps qps(workers, stats_window_s);
  ViewCursor cursor(trace);
  uint64_t state = seed;
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    const TraceRequest& r = trace.requests[i];
    uint32_t n = 0;
    bool text = false;
    const uint32_t* ids = cursor.Ids(i, &n, &text);
    if (!text) ++out.requests_without_text;
    std::fill(best.begin(), best.end(), ~0ull);
    if (workers % 64) best[words - 1] = (1ull << (workers % 64)) - 1;
    uint32_t matched = 0;
    for (; matched < n; ++matched) {
      const uint64_t base = static_cast<uint64_t>(ids[matched]) * words;
      bool any = false;
      for (uint32_t k = 0; k < words; ++k) {
        inter[k] = base + k < held.size() ? held[base + k] & best[k] : 0;
        any = any || inter[k] != 0;
      }
      if (!any) break;
      best.swap(inter);
    }
    state += 0x9e3779b97f4a7c15ull;  // one draw per request, used or not
    const uint64_t draw = SplitMix64Finalizer(state);
    const double match_chars =
        static_cast<double>(matched) *
        static_cast<double>(text ? kVllmRouterChunkChars : uint64_t{r.block_size} * kCharsPerToken);
    uint32_t w;
    if (match_chars < min_match_chars) {
      w = qps.Lowest(r.time_s);
    } else {
      candidates.clear();
      for (uint32_t k = 0; k < workers; ++k)
        if (best[k / 64] >> (k % 64) & 1) candidates.push_back(k);
      const unsigned __int128 pick = static_cast<unsigned __int128>(draw) * candidates.size();
      w = candidates[static_cast<size_t>(pick >> 64)];
    }
    out.worker[i] = w;
    qps.Sent(w, r.time_s);
    for (uint32_t j = 0; j < n; ++j) {
      const uint64_t base = static_cast<uint64_t>(ids[j]) * words;
      if (held.size() < base + words) held.resize(std::max(base + words, held.size() * 2), 0);
      held[base + w / 64] |= 1ull << (w % 64);
    }
  }
  return out;
}

namespace {
class VllmRouterPrefix final : public StaticRouter {
 public:
  std::string_view name() const override { return "vllm-router-prefix"; }
  std::string_view summary() const override {
    return "vLLM production-stack prefixaware: longest 128-character-chunk match, random among "
           "the best, no eviction";
  }
  std::string_view source() const override {
    return "vllm-project/production-stack@a6c01db0 src/vllm_router/routers/routing_logic.py, "
           "prefix/hashtrie.py";
  }
  std::string_view view() const override {
    return "matches 128-character chunks of the message contents joined with newlines; roles, "
           "tools, tool calls and the chat template are invisible to it";
  }
  bool text_view() const override { return true; }
  uint32_t view_kinds() const override { return kViewChunks128; }
  std::vector<RouterParam> params() const override {
    return {{"prefix_min_match_length", 0,
             "characters a match needs, else the lowest-QPS worker (--prefix-min-match-length)"},
            {"request_stats_window", 60, "seconds of the QPS window (--request-stats-window)"}};
  }
  std::string Label(const FleetOptions& o) const override {
    return std::string(name()) + RouterParamLabel(o, *this);
  }
  StaticRoutes Route(const Trace& trace, const FleetOptions& o) const override {
    return RouteVllmPrefix(trace, o.workers, o.seed,
                           RouterParamValue(o, *this, "prefix_min_match_length"),
                           RouterParamValue(o, *this, "request_stats_window"));
  }
};
}  // namespace

const RoutingPolicy& VllmRouterPrefixRouting() {
  static const VllmRouterPrefix policy;
  return policy;
}

}  // namespace ltl
