// Tests for the fleet simulation: N = 1 equals the single cache exactly, session routing reaches
// the same-conversation share, prefix-aware beats round-robin on shared system prompts, the load
// guard triggers on a burst, and the cache-oblivious path agrees with a naive per-worker replay
// written here independently.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <list>
#include <map>
#include <random>
#include <set>
#include <unordered_map>

#include "common/request_record.h"
#include "ingest/load_input.h"
#include "policy_names.h"
#include "simulate/fifo_replay.h"
#include "simulate/fleet_routers.h"
#include "simulate/fleet_routes.h"
#include "simulate/fleet_sim.h"
#include "simulate/fleet_worker_cache.h"
#include "simulate/lru_curve.h"
#include "simulate/lru_replay.h"
#include "simulate/next_use.h"
#include "simulate/optimal_replay.h"
#include "simulate/trace.h"
#include "test_util.h"

namespace ltl {
namespace {

using ltl::testing::Eviction;
using ltl::testing::Routing;

constexpr uint32_t kBs = 16;

RequestRecord Rec(double t, std::vector<uint64_t> ids, std::string conv = "", int64_t out = 100,
                  int64_t tail = 0) {
  RequestRecord r;
  r.time_s = t;
  r.has_time = true;
  r.block_size = kBs;
  // A partial last block when tail > 0, so token weighting matters.
  r.input_tokens = static_cast<int64_t>(ids.size()) * kBs - (tail > 0 && !ids.empty() ? tail : 0);
  r.output_tokens = out;
  r.block_ids = std::move(ids);
  r.conversation = std::move(conv);
  return r;
}

// Multi-turn conversations (each turn carries the whole history) that open with one of a few
// shared system prompts, interleaved in time. Block ids: system prompt s -> 1000*s + j; the
// conversation's own blocks are unique to it.
std::vector<RequestRecord> SharedPromptLog(uint32_t conversations, uint32_t prompts, uint32_t seed,
                                           bool with_ids = true) {
  std::mt19937 rng(seed);
  std::vector<RequestRecord> out;
  uint64_t next_id = 1u << 20;
  for (uint32_t c = 0; c < conversations; ++c) {
    uint32_t s = rng() % prompts;
    std::vector<uint64_t> history;
    uint32_t sys_len = 4 + s * 3;
    for (uint32_t j = 0; j < sys_len; ++j) history.push_back(1000ull * (s + 1) + j);
    double t = (rng() % 10000) / 10.0;
    uint32_t turns = 1 + rng() % 6;
    for (uint32_t k = 0; k < turns; ++k) {
      uint32_t grow = 1 + rng() % 5;
      for (uint32_t j = 0; j < grow; ++j) history.push_back(next_id++);
      out.push_back(Rec(t, history, with_ids ? fmt::format("c{}", c) : std::string(),
                        50 + rng() % 400, static_cast<int64_t>(rng() % kBs)));
      t += 5 + (rng() % 300) / 10.0;
    }
  }
  return out;
}

FleetOptions Options(uint32_t workers, std::vector<uint64_t> caps,
                     std::vector<const RoutingPolicy*> policies = RoutingPolicies()) {
  FleetOptions o;
  o.workers = workers;
  o.capacity_blocks = std::move(caps);
  o.policies = std::move(policies);
  o.threads = 2;
  return o;
}

const FleetPolicyResult& Policy(const FleetResult& r, const RoutingPolicy* p) {
  for (const auto& pr : r.policies)
    if (pr.policy == p) return pr;
  ADD_FAILURE() << "policy missing";
  return r.policies.front();
}

// A naive fleet replay written independently of the product: per worker a std::list LRU over the
// original ids; requests measured from floor(n * warmup); tail-first touches.
int64_t NaiveFleetHit(const Trace& t, const std::vector<uint32_t>& routes, uint32_t workers,
                      uint64_t capacity, double warmup) {
  struct Lru {
    std::list<uint32_t> order;  // front = most recent
    std::unordered_map<uint32_t, std::list<uint32_t>::iterator> where;
  };
  std::vector<Lru> caches(workers);
  int64_t hit = 0;
  size_t first = static_cast<size_t>(static_cast<double>(t.requests.size()) * warmup);
  BlockCursor cursor(t);
  for (size_t i = 0; i < t.requests.size(); ++i) {
    const TraceRequest& r = t.requests[i];
    Lru& c = caches[routes[i]];
    const uint32_t* ids = cursor.Blocks(r);
    uint32_t k = 0;
    while (k < r.num_blocks && c.where.count(ids[k])) ++k;
    if (i >= first)
      hit += std::min<int64_t>(static_cast<int64_t>(k) * r.block_size, r.input_tokens);
    for (uint32_t j = r.num_blocks; j-- > 0;) {
      auto it = c.where.find(ids[j]);
      if (it != c.where.end()) c.order.erase(it->second);
      c.order.push_front(ids[j]);
      c.where[ids[j]] = c.order.begin();
      if (c.order.size() > capacity) {
        c.where.erase(c.order.back());
        c.order.pop_back();
      }
    }
  }
  return hit;
}

TEST(Fleet, OneWorkerEqualsTheSingleCacheForEveryPolicy) {
  Trace t = BuildTrace(SharedPromptLog(60, 3, 7));
  for (double warmup : {0.5, 0.0}) {
    for (EvictOrder order : {EvictOrder::kTailFirst, EvictOrder::kHeadFirst}) {
      ReplayOptions ro;
      ro.warmup = warmup;
      ro.order = order;
      LruCurve single = LruCurve::Compute(t, ro);
      std::vector<uint64_t> caps = {1, 3, 8, 20, 64, 200, 1000, kUnboundedCapacity};
      FleetResult r = SimulateFleet(t, ro, Options(1, caps), single);
      ASSERT_EQ(r.policies.size(), RoutingPolicies().size());
      for (const FleetPolicyResult& pr : r.policies) {
        ASSERT_EQ(pr.points.size(), caps.size());
        for (size_t c = 0; c < caps.size(); ++c) {
          const FleetPoint& pt = pr.points[c];
          HitTokens want = caps[c] == kUnboundedCapacity ? single.Unbounded() : single.At(caps[c]);
          EXPECT_EQ(pt.hit_tokens, want.hit)
              << pr.policy->name() << " capacity " << caps[c] << " warmup " << warmup;
          EXPECT_EQ(pt.measured_tokens, single.measured_tokens());
          EXPECT_EQ(r.pooled[c].hit, want.hit);
          EXPECT_EQ(pt.RequestsCv(), 0.0);
        }
      }
    }
  }
}

TEST(Fleet, CacheObliviousRoutingMatchesANaivePerWorkerReplay) {
  Trace t = BuildTrace(SharedPromptLog(80, 4, 11));
  ReplayOptions ro;
  LruCurve single = LruCurve::Compute(t, ro);
  std::vector<uint64_t> caps = {2, 5, 17, 40, 300};
  FleetOptions o = Options(
      3, caps,
      {Routing("round-robin"), Routing("random"), Routing("session"), Routing("prefix-hash")});
  o.prefix_blocks = 5;
  FleetResult r = SimulateFleet(t, ro, o, single);
  for (const FleetPolicyResult& pr : r.policies) {
    StaticRoutes routes = pr.policy->AsStatic()->Route(t, o);
    for (size_t c = 0; c < caps.size(); ++c)
      EXPECT_EQ(pr.points[c].hit_tokens, NaiveFleetHit(t, routes.worker, 3, caps[c], 0.5))
          << pr.policy->name() << " capacity " << caps[c];
  }
}

TEST(Fleet, StaticRoutesFollowTheirKeys) {
  Trace t = BuildTrace(SharedPromptLog(50, 3, 5));
  StaticRoutes rr = RouteRoundRobin(t, 4);
  for (size_t i = 0; i < rr.worker.size(); ++i) EXPECT_EQ(rr.worker[i], i % 4);
  StaticRoutes s = RouteSession(t, 4);
  EXPECT_EQ(s.fallback_requests, 0u);
  std::map<int32_t, uint32_t> home;
  for (size_t i = 0; i < s.worker.size(); ++i) {
    auto [it, fresh] = home.emplace(t.requests[i].conversation, s.worker[i]);
    EXPECT_EQ(it->second, s.worker[i]) << "conversation split across workers";
  }
  std::set<uint32_t> used;
  for (auto& [c, w] : home) used.insert(w);
  EXPECT_GT(used.size(), 1u);
  // Requests sharing their first k blocks share a worker.
  StaticRoutes ph = RoutePrefixHash(t, 4, 2);
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> by_prefix;
  BlockCursor cursor(t);
  for (size_t i = 0; i < ph.worker.size(); ++i) {
    const uint32_t* ids = cursor.Blocks(t.requests[i]);
    auto [it, fresh] = by_prefix.emplace(std::make_pair(ids[0], ids[1]), ph.worker[i]);
    EXPECT_EQ(it->second, ph.worker[i]);
  }
  // Random routing is reproducible from its seed and uses every worker.
  EXPECT_EQ(RouteRandom(t, 4, 9).worker, RouteRandom(t, 4, 9).worker);
  EXPECT_NE(RouteRandom(t, 4, 9).worker, RouteRandom(t, 4, 10).worker);
}

TEST(Fleet, SessionRoutingFallsBackToRoundRobinWithoutConversations) {
  Trace t = BuildTrace(SharedPromptLog(30, 2, 3, /*with_ids=*/false));
  StaticRoutes s = RouteSession(t, 3);
  EXPECT_EQ(s.fallback_requests, t.requests.size());
  EXPECT_EQ(s.worker, RouteRoundRobin(t, 3).worker);
}

// Bailian-style JSONL (chat_id, parent_chat_id, timestamp in seconds, hash_ids with full history),
// read through the real reader so conversations come from parent chains.
std::string BailianLog(bool shared_system_prompt) {
  std::mt19937 rng(42);
  std::string text;
  int64_t chat = 1;
  uint64_t next_id = 500;
  struct Turn {
    double t;
    std::string line;
  };
  std::vector<Turn> lines;
  for (int c = 0; c < 40; ++c) {
    std::vector<uint64_t> hist;
    if (shared_system_prompt)
      for (uint64_t j = 0; j < 3; ++j) hist.push_back(1 + j + (c % 2) * 10);
    int64_t parent = -1;
    double t = (rng() % 2000) / 10.0;
    int turns = 1 + static_cast<int>(rng() % 5);
    for (int k = 0; k < turns; ++k) {
      int grow = 1 + static_cast<int>(rng() % 4);
      for (int j = 0; j < grow; ++j) hist.push_back(next_id++);
      std::string ids;
      for (size_t j = 0; j < hist.size(); ++j) {
        if (j) ids += ',';
        ids += std::to_string(hist[j]);
      }
      int64_t len = static_cast<int64_t>(hist.size()) * 16 - static_cast<int64_t>(rng() % 16);
      lines.push_back({t, fmt::format("{{\"chat_id\": {}, \"parent_chat_id\": {}, \"timestamp\": "
                                      "{:.3f}, \"input_length\": {}, \"output_length\": 40, "
                                      "\"type\": \"text\", \"turn\": {}, \"hash_ids\": [{}]}}",
                                      chat, parent, t, len, k + 1, ids)});
      parent = chat++;
      t += 3 + (rng() % 100) / 10.0;
    }
  }
  std::stable_sort(lines.begin(), lines.end(),
                   [](const Turn& a, const Turn& b) { return a.t < b.t; });
  for (const Turn& l : lines) text += l.line + "\n";
  return text;
}

Trace LoadBailian(const std::string& name, const std::string& text) {
  std::string path = testing::WriteTemp(name, text);
  SkipCounter skips;
  IngestContext ctx;
  ctx.name = path;
  ctx.skips = &skips;
  auto loaded = LoadInput(path, InputFormat::kBailian, &ctx);
  EXPECT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(skips.total(), 0u);
  return BuildTrace(loaded->records);
}

TEST(Fleet, UnboundedSessionRoutingReachesTheSameConversationShare) {
  Trace t = LoadBailian("bailian_private.jsonl", BailianLog(false));
  ASSERT_EQ(t.num_conversations, 40u);
  ReplayOptions ro;
  LruCurve single = LruCurve::Compute(t, ro);
  HitTokens ceiling = single.Unbounded();
  ASSERT_GT(ceiling.same(), 0);
  EXPECT_EQ(ceiling.across, 0);  // conversations share nothing
  FleetResult r = SimulateFleet(
      t, ro, Options(4, {kUnboundedCapacity}, {Routing("session"), Routing("round-robin")}),
      single);
  const FleetPoint& session = Policy(r, Routing("session")).points[0];
  EXPECT_EQ(Policy(r, Routing("session")).fallback_requests, 0u);
  EXPECT_EQ(session.hit_tokens, ceiling.same());
  EXPECT_LT(Policy(r, Routing("round-robin")).points[0].hit_tokens, ceiling.same());
}

TEST(Fleet, UnboundedSessionRoutingWithSharedPromptsLiesBetweenSameShareAndCeiling) {
  Trace t = LoadBailian("bailian_shared.jsonl", BailianLog(true));
  ReplayOptions ro;
  LruCurve single = LruCurve::Compute(t, ro);
  HitTokens ceiling = single.Unbounded();
  ASSERT_GT(ceiling.across, 0);
  FleetOptions o = Options(4, {kUnboundedCapacity}, {Routing("session")});
  FleetResult r = SimulateFleet(t, ro, o, single);
  int64_t session = r.policies[0].points[0].hit_tokens;
  EXPECT_GE(session, ceiling.same());
  EXPECT_LE(session, ceiling.hit);
  StaticRoutes routes = RouteSession(t, 4);
  EXPECT_EQ(session, NaiveFleetHit(t, routes.worker, 4, UINT64_MAX, 0.5));
}

TEST(Fleet, PrefixAwareIsNeverWorseThanRoundRobinOnSharedSystemPrompts) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    Trace t = BuildTrace(SharedPromptLog(200, 5, seed));
    ReplayOptions ro;
    LruCurve single = LruCurve::Compute(t, ro);
    std::vector<uint64_t> caps = {4, 16, 64, 256, 1024, kUnboundedCapacity};
    FleetResult r = SimulateFleet(
        t, ro, Options(4, caps, {Routing("round-robin"), Routing("prefix-aware")}), single);
    const auto& rr = Policy(r, Routing("round-robin")).points;
    const auto& pa = Policy(r, Routing("prefix-aware")).points;
    for (size_t c = 0; c < caps.size(); ++c)
      EXPECT_GE(pa[c].hit_tokens, rr[c].hit_tokens) << "seed " << seed << " capacity " << caps[c];
    EXPECT_GT(pa.back().hit_tokens, rr.back().hit_tokens);
    for (size_t c = 0; c < caps.size(); ++c) EXPECT_LE(pa[c].hit_tokens, single.Unbounded().hit);
  }
}

TEST(Fleet, LoadGuardFollowsSGLangThresholds) {
  std::vector<uint32_t> match = {9, 0};
  std::vector<int64_t> blocks = {0, 0};
  auto choose = [&](const std::vector<int64_t>& load) {
    uint32_t rotor = 1;
    WorkerView v{&match, &load, &blocks};
    return ChoosePrefixAware(v, 1.5, 64, &rotor);
  };
  EXPECT_FALSE(choose({64, 0}).guard);    // difference not above 64
  EXPECT_EQ(choose({64, 0}).worker, 0u);  // longest prefix wins
  EXPECT_TRUE(choose({65, 0}).guard);
  EXPECT_EQ(choose({65, 0}).worker, 1u);
  EXPECT_TRUE(choose({200, 100}).guard);   // 100 > 64 and 200 > 150
  EXPECT_FALSE(choose({300, 210}).guard);  // 90 > 64 but 300 < 315
  EXPECT_FALSE(choose({100, 40}).guard);   // 60 <= 64
  // Equal match: the least busy wins.
  match = {3, 3};
  EXPECT_EQ(choose({5, 2}).worker, 1u);
}

TEST(Fleet, LoadGuardTriggersOnACraftedBurst) {
  // 66 requests at the same instant share a 4-block prefix and decode for a long time, so none
  // finishes: prefix-aware stacks them on worker 0 until it holds 65 more than worker 1.
  std::vector<RequestRecord> recs;
  for (uint64_t i = 0; i < 66; ++i) recs.push_back(Rec(10.0, {1, 2, 3, 4, 100 + i}, "", 100000));
  Trace t = BuildTrace(recs);
  ReplayOptions ro;
  ro.warmup = 0;
  LruCurve single = LruCurve::Compute(t, ro);
  FleetOptions o = Options(2, {1000}, {Routing("prefix-aware")});
  FleetResult r = SimulateFleet(t, ro, o, single);
  const FleetPoint& p = r.policies[0].points[0];
  EXPECT_EQ(p.guard_triggers, 1u);
  EXPECT_EQ(p.requests, (std::vector<uint64_t>{65, 1}));
  // Request 1 misses, requests 2..65 hit 4 blocks on worker 0, request 66 misses on worker 1.
  EXPECT_EQ(p.hit_tokens, 64 * 4 * 16);

  o.balance_abs_threshold = 1000;
  FleetResult calm = SimulateFleet(t, ro, o, single);
  EXPECT_EQ(calm.policies[0].points[0].guard_triggers, 0u);
  EXPECT_EQ(calm.policies[0].points[0].requests, (std::vector<uint64_t>{66, 0}));
}

TEST(Fleet, RequestsLeaveTheLoadWhenTheyFinish) {
  // Same burst, but spread 10 s apart with 100 output tokens at 50 tok/s: each request is done
  // before the next arrives, so the guard never fires and everything stays on the warm worker.
  std::vector<RequestRecord> recs;
  for (uint64_t i = 0; i < 100; ++i) recs.push_back(Rec(10.0 * i, {1, 2, 3, 4, 100 + i}, "", 100));
  Trace t = BuildTrace(recs);
  ReplayOptions ro;
  ro.warmup = 0;
  FleetResult r =
      SimulateFleet(t, ro, Options(2, {1000}, {Routing("prefix-aware")}), LruCurve::Compute(t, ro));
  EXPECT_EQ(r.policies[0].points[0].guard_triggers, 0u);
  EXPECT_EQ(r.policies[0].points[0].requests, (std::vector<uint64_t>{100, 0}));
}

TEST(Fleet, KvCostTradesCacheForLoad) {
  std::vector<uint32_t> match = {8, 0};
  std::vector<int64_t> load = {3, 0};
  std::vector<int64_t> blocks = {10, 0};
  WorkerView v{&match, &load, &blocks};
  uint32_t rotor = 1;
  // Worker 0: 2 uncached + 1 x 10 = 12; worker 1: 10 uncached + 0 = 10.
  EXPECT_EQ(ChooseKvCost(v, 10, 1.0, &rotor).worker, 1u);
  // With w = 0.5: worker 0 costs 7, worker 1 costs 10.
  EXPECT_EQ(ChooseKvCost(v, 10, 0.5, &rotor).worker, 0u);
}

TEST(Fleet, CoefficientOfVariation) {
  EXPECT_DOUBLE_EQ(CoefficientOfVariation({2, 2, 2}), 0.0);
  EXPECT_DOUBLE_EQ(CoefficientOfVariation({1, 3}), 0.5);  // sd 1, mean 2
  EXPECT_DOUBLE_EQ(CoefficientOfVariation({0, 0}), 0.0);
}

}  // namespace
}  // namespace ltl

namespace ltl {
namespace {

// Both index layouts of WorkerCache against a plain list LRU on random touches and lookups.
TEST(FleetWorkerCache, DenseAndHashedIndexesAgreeWithAPlainLru) {
  std::mt19937 rng(5);
  for (uint64_t cap : {1ull, 3ull, 10ull, 1000ull}) {
    WorkerCache dense(cap, 50), hashed(cap, 0);
    std::list<uint32_t> lru;  // front = most recent
    for (int step = 0; step < 5000; ++step) {
      std::vector<uint32_t> ids(1 + rng() % 6);
      for (uint32_t& b : ids) b = rng() % 50;
      uint32_t want = 0;
      while (want < ids.size() && std::find(lru.begin(), lru.end(), ids[want]) != lru.end()) ++want;
      const uint32_t k = static_cast<uint32_t>(ids.size());
      ASSERT_EQ(dense.Match(ids.data(), k), want) << "capacity " << cap << " step " << step;
      ASSERT_EQ(hashed.Match(ids.data(), k), want) << "capacity " << cap << " step " << step;
      for (uint32_t j = k; j-- > 0;) {
        dense.Touch(ids[j]);
        hashed.Touch(ids[j]);
        lru.remove(ids[j]);
        lru.push_front(ids[j]);
        if (lru.size() > cap) lru.pop_back();
      }
      ASSERT_EQ(dense.size(), lru.size());
      ASSERT_EQ(hashed.size(), lru.size());
    }
  }
}

}  // namespace
}  // namespace ltl

namespace ltl {
namespace {

// A second, deliberately plain implementation of the cache-aware routers and the load model,
// written from docs/SEMANTICS.md: every admitted request is kept with its finish time and the
// outstanding counts are recomputed from scratch at each arrival.
struct NaiveOutcome {
  int64_t hit = 0;
  std::vector<uint64_t> requests;
  uint64_t guard = 0;
};

NaiveOutcome NaiveCacheAware(const Trace& t, bool kv_cost, uint32_t n, uint64_t capacity,
                             const FleetOptions& o, bool fifo_workers = false,
                             bool least_loaded = false) {
  struct Lru {  // most recent first; with fifo_workers, newest insertion first
    std::list<uint32_t> order;
    bool Has(uint32_t b) const { return std::find(order.begin(), order.end(), b) != order.end(); }
  };
  struct Admitted {
    uint32_t worker;
    double finish;
    int64_t blocks;
  };
  std::vector<Lru> caches(n);
  std::vector<Admitted> admitted;
  std::vector<double> prefill_free(n, 0.0);
  NaiveOutcome out;
  out.requests.assign(n, 0);
  uint32_t last = n - 1;
  const size_t first = t.requests.size() / 2;
  const int64_t default_out = DefaultOutputTokens(t);
  BlockCursor cursor(t);
  for (size_t i = 0; i < t.requests.size(); ++i) {
    const TraceRequest& r = t.requests[i];
    const uint32_t* ids = cursor.Blocks(r);
    std::vector<int64_t> load(n, 0), blocks(n, 0);
    for (const Admitted& a : admitted)
      if (a.finish > r.time_s) ++load[a.worker], blocks[a.worker] += a.blocks;
    std::vector<uint32_t> match(n, 0);
    for (uint32_t w = 0; w < n; ++w)
      while (match[w] < r.num_blocks && caches[w].Has(ids[match[w]])) ++match[w];
    int64_t lo = *std::min_element(load.begin(), load.end());
    int64_t hi = *std::max_element(load.begin(), load.end());
    // least-loaded always ranks by load, as the guard does (and is never counted as one).
    bool guard = least_loaded ||
                 (!kv_cost && hi - lo > o.balance_abs_threshold &&
                  static_cast<double>(hi) > o.balance_rel_threshold * static_cast<double>(lo));
    // Score each worker; the best score wins, ties to fewer outstanding, then to the first worker
    // after the previous choice.
    uint32_t best = 0;
    bool have = false;
    for (uint32_t step = 1; step <= n; ++step) {
      uint32_t w = (last + step) % n;
      auto key = [&](uint32_t v) {
        double primary;
        if (guard)
          primary = static_cast<double>(load[v]);
        else if (kv_cost)
          primary = static_cast<double>(r.num_blocks - match[v]) +
                    o.kv_cost_weight * static_cast<double>(blocks[v]);
        else
          primary = -static_cast<double>(match[v]);
        return std::make_pair(primary, guard ? 0 : load[v]);
      };
      if (!have || key(w) < key(best)) best = w, have = true;
    }
    last = best;
    if (guard && !least_loaded) ++out.guard;
    int64_t hit =
        std::min<int64_t>(static_cast<int64_t>(match[best]) * r.block_size, r.input_tokens);
    if (i >= first) out.hit += hit, ++out.requests[best];
    Lru& c = caches[best];
    if (fifo_workers) {  // missing blocks inserted head first; hits keep their place
      for (uint32_t j = 0; j < r.num_blocks && capacity > 0; ++j) {
        if (c.Has(ids[j])) continue;
        if (c.order.size() == capacity) c.order.pop_back();
        c.order.push_front(ids[j]);
      }
    } else {
      for (uint32_t j = r.num_blocks; j-- > 0;) {
        c.order.remove(ids[j]);
        c.order.push_front(ids[j]);
        if (c.order.size() > capacity) c.order.pop_back();
      }
    }
    double start = std::max(r.time_s, prefill_free[best]);
    double prefill_end = start + static_cast<double>(r.input_tokens - hit) / o.load.prefill_rate;
    prefill_free[best] = prefill_end;
    int64_t out_tokens = r.output_tokens >= 0 ? r.output_tokens : default_out;
    admitted.push_back({best, prefill_end + static_cast<double>(out_tokens) / o.load.decode_rate,
                        static_cast<int64_t>(r.num_blocks)});
  }
  return out;
}

TEST(Fleet, CacheAwareRoutingMatchesAPlainSecondImplementation) {
  // A busy log: many conversations at once, slow workers, a low guard so it fires.
  std::vector<RequestRecord> recs = SharedPromptLog(120, 4, 17);
  for (RequestRecord& r : recs) r.time_s /= 20;
  Trace t = BuildTrace(recs);
  ReplayOptions ro;
  LruCurve single = LruCurve::Compute(t, ro);
  std::vector<uint64_t> caps = {6, 30, 120, 100000};
  FleetOptions o = Options(3, caps, {Routing("prefix-aware"), Routing("kv-cost")});
  o.load.prefill_rate = 200;
  o.load.decode_rate = 20;
  o.balance_abs_threshold = 4;
  o.balance_rel_threshold = 1.2;
  o.kv_cost_weight = 0.3;
  FleetResult r = SimulateFleet(t, ro, o, single);
  uint64_t guards = 0;
  for (const FleetPolicyResult& pr : r.policies) {
    const bool kv = pr.policy == Routing("kv-cost");
    for (size_t c = 0; c < caps.size(); ++c) {
      NaiveOutcome want = NaiveCacheAware(t, kv, 3, caps[c], o);
      EXPECT_EQ(pr.points[c].hit_tokens, want.hit) << pr.policy->name() << " " << caps[c];
      EXPECT_EQ(pr.points[c].requests, want.requests) << pr.policy->name();
      EXPECT_EQ(pr.points[c].guard_triggers, want.guard) << pr.policy->name();
      guards += want.guard;
    }
  }
  EXPECT_GT(guards, 0u);  // the guard path was exercised

  // least-loaded: the plain implementation's guard ranking, always on.
  FleetOptions ll = o;
  ll.policies = {Routing("least-loaded")};
  FleetResult lr = SimulateFleet(t, ro, ll, single);
  for (size_t c = 0; c < caps.size(); ++c) {
    NaiveOutcome want = NaiveCacheAware(t, false, 3, caps[c], o, false, /*least_loaded=*/true);
    EXPECT_EQ(lr.policies[0].points[c].hit_tokens, want.hit) << "least-loaded " << caps[c];
    EXPECT_EQ(lr.policies[0].points[c].requests, want.requests) << "least-loaded " << caps[c];
    EXPECT_EQ(lr.policies[0].points[c].guard_triggers, 0u);
  }

  // The same fleet with FIFO worker caches (--worker-policy fifo) against the plain FIFO lists.
  o.worker_policy = Eviction("fifo");
  r = SimulateFleet(t, ro, o, single);
  for (const FleetPolicyResult& pr : r.policies) {
    const bool kv = pr.policy == Routing("kv-cost");
    for (size_t c = 0; c < caps.size(); ++c) {
      NaiveOutcome want = NaiveCacheAware(t, kv, 3, caps[c], o, /*fifo_workers=*/true);
      EXPECT_EQ(pr.points[c].hit_tokens, want.hit) << "fifo " << pr.policy->name() << caps[c];
      EXPECT_EQ(pr.points[c].requests, want.requests) << "fifo " << pr.policy->name();
    }
  }
}

}  // namespace
}  // namespace ltl

namespace ltl {
namespace {

using ltl::testing::Eviction;
using ltl::testing::Routing;

// Any registered eviction policy runs on the workers: a one-worker fleet is a single cache, so
// every routing policy must give exactly the single-cache replay of that policy at that size, and
// the pooled bound of N workers is the same policy at N x capacity.
TEST(FleetWorkerPolicy, OneWorkerFleetIsTheSingleCacheReplayOfThatPolicy) {
  std::vector<RequestRecord> recs = SharedPromptLog(60, 3, 23);
  Trace t = BuildTrace(recs);
  ReplayOptions ro;
  LruCurve single = LruCurve::Compute(t, ro);
  const std::vector<uint64_t> caps = {5, 40, 400};
  const std::vector<uint32_t> next = ComputeNextUse(t);
  for (const char* name : {"fifo", "lru", "optimal"}) {
    const EvictionPolicy* policy = Eviction(name);
    ASSERT_NE(policy, nullptr) << name;
    std::vector<const RoutingPolicy*> routing = {Routing("round-robin"), Routing("session")};
    if (policy->online()) routing.push_back(Routing("prefix-aware"));
    FleetOptions o = Options(1, caps, routing);
    o.worker_policy = policy;
    FleetResult r = SimulateFleet(t, ro, o, single);
    for (size_t c = 0; c < caps.size(); ++c) {
      int64_t want = 0;
      if (std::string(name) == "fifo") want = ReplayFifoAt(t, caps[c], ro).hit.hit;
      if (std::string(name) == "lru") want = ReplayLruAt(t, caps[c], ro).hit;
      if (std::string(name) == "optimal") want = ReplayOptimalAt(t, next, caps[c], ro).hit.hit;
      EXPECT_EQ(r.pooled[c].hit, want) << name << " pooled " << caps[c];
      for (const FleetPolicyResult& pr : r.policies)
        EXPECT_EQ(pr.points[c].hit_tokens, want) << name << " " << pr.policy->name() << caps[c];
    }
  }
  // Four workers: the pooled bound is the policy's single cache of 4 x capacity.
  FleetOptions o = Options(4, caps, {Routing("round-robin")});
  o.worker_policy = Eviction("fifo");
  FleetResult r = SimulateFleet(t, ro, o, single);
  for (size_t c = 0; c < caps.size(); ++c)
    EXPECT_EQ(r.pooled[c].hit, ReplayFifoAt(t, 4 * caps[c], ro).hit.hit) << caps[c];
}

TEST(PolicyRegistry, NamesAreTheRegisteredOnesAndUnknownNamesAreErrors) {
  std::vector<std::string> eviction, routing;
  for (const EvictionPolicy* p : EvictionPolicies()) eviction.emplace_back(p->name());
  for (const RoutingPolicy* p : RoutingPolicies()) routing.emplace_back(p->name());
  EXPECT_EQ(eviction, (std::vector<std::string>{"fifo", "lru", "radix-lru", "optimal", "sieve"}));
  // The generic policies, then the named routers (docs/FLEET.md "Named routers").
  EXPECT_EQ(routing, (std::vector<std::string>{
                         "round-robin", "random", "session", "prefix-hash", "prefix-aware",
                         "kv-cost", "least-loaded", "vllm-router-prefix", "vllm-router-session",
                         "dynamo-kv", "sglang-cache-aware", "aibrix-prefix", "llm-d-prefix"}));
  for (const RoutingPolicy* p : RoutingPolicies())  // each is exactly one kind
    EXPECT_NE(p->AsStatic() == nullptr, p->AsCacheAware() == nullptr) << p->name();
  auto bad = ParseRoutingList("round-robin,sticky");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("sticky"), std::string::npos);
  EXPECT_NE(bad.status().message().find("kv-cost"), std::string::npos);  // lists what exists
  EXPECT_FALSE(FindEvictionPolicy("arc").ok());
  EXPECT_EQ(*FindEvictionPolicy("Belady"), Eviction("optimal"));
  auto all = ParseRoutingList("session,all");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->front(), Routing("session"));
  // "all" is every generic policy: the named routers are asked by name or with "named".
  EXPECT_EQ(all->size(), 7u);
  for (const RoutingPolicy* p : *all) EXPECT_FALSE(p->named()) << p->name();
}

}  // namespace

TEST(FleetHolders, OnePassMatchEqualsEachWorkerCachesMatch) {
  // Workers whose caches share a FleetHolders (one byte per block up to 8 workers, eight beyond)
  // touch random runs of blocks under eviction; every worker's match from the one pass equals its
  // own cache's Match, for requests drawn the same way.
  for (uint32_t workers : {1u, 3u, 8u, 11u, 64u}) {
    constexpr uint32_t kBlocks = 200;
    FleetHolders holders(workers, kBlocks);
    std::vector<WorkerCache> caches;
    for (uint32_t w = 0; w < workers; ++w) caches.emplace_back(w % 4 == 3 ? 0 : 5 + 7 * w, kBlocks);
    for (uint32_t w = 0; w < workers; ++w) caches[w].ShareHolders(&holders, w);
    std::mt19937 rng(workers);
    std::vector<uint32_t> ids, match(workers);
    for (int step = 0; step < 3000; ++step) {
      ids.clear();
      const uint32_t start = rng() % 40, n = rng() % 30;
      for (uint32_t j = 0; j < n; ++j) ids.push_back((start + j) % kBlocks);
      if (n > 3) ids[n - 2] = rng() % kBlocks;  // not always a run
      holders.MatchAll(ids.data(), n, match.data());
      for (uint32_t w = 0; w < workers; ++w)
        ASSERT_EQ(match[w], caches[w].Match(ids.data(), n)) << workers << " " << step << " " << w;
      caches[rng() % workers].TouchAll(ids.data(), n, step % 2 == 0);
    }
  }
}

}  // namespace ltl
