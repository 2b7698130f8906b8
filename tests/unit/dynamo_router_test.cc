// Tests for dynamo-kv (NVIDIA Dynamo's KV router, docs/FLEET.md "Named routers"), each rule from a
// hand-built case with the expected value worked out here: every term of the logit (scale, the
// overlap credit and its clamp at 0, the active and additional blocks, the active-request weight),
// the pick (a unique minimum always wins; temperature-0 ties drawn by the seed; softmax
// frequencies against the formula), the active load (prefill tokens until the first token, blocks
// and requests until the finish, blocks shared by requests counted once), and the approximate
// index without KV events (TTL expiry, renewal, the pruning order and target).
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "common/mix64.h"
#include "common/request_record.h"
#include "simulate/fleet_dynamo_kv.h"
#include "simulate/fleet_options.h"
#include "simulate/routing_policy.h"
#include "simulate/trace.h"

namespace ltl {
namespace {

constexpr uint32_t kBs = 16;

// The draws the router makes: one SplitMix64 step per request from the seed.
std::vector<uint64_t> Draws(uint64_t seed, size_t n) {
  std::vector<uint64_t> out;
  for (size_t i = 0; i < n; ++i) out.push_back(SplitMix64Finalizer(seed += 0x9e3779b97f4a7c15ull));
  return out;
}

TEST(DynamoKvLogit, EveryTermByHand) {
  DynamoKvConfig c;
  DynamoWorkerLoad l;
  l.active_prefill_tokens = 32;
  l.active_blocks = 5;
  l.additional_blocks = 3;
  l.active_requests = 2;
  l.overlap_blocks = 2;
  // isl 64: cached 32, uncached 32; raw prefill = (32 + 32 + 32) / 16 = 6 blocks, credit 2.
  // 1 x (6 - 2) + (5 + 3) + 0 x 2 = 12.
  EXPECT_DOUBLE_EQ(DynamoLogit(c, l, 64, kBs), 12.0);
  c.prefill_load_scale = 2;  // 2 x 4 + 8
  EXPECT_DOUBLE_EQ(DynamoLogit(c, l, 64, kBs), 16.0);
  c.prefill_load_scale = 1;
  c.overlap_score_credit = 0.5;  // (6 - 1) + 8
  EXPECT_DOUBLE_EQ(DynamoLogit(c, l, 64, kBs), 13.0);
  c.overlap_score_credit = 0;  // the cache ignored: 6 + 8
  EXPECT_DOUBLE_EQ(DynamoLogit(c, l, 64, kBs), 14.0);
  c.overlap_score_credit = 1;
  c.decode_active_request_weight = 2.5;  // 12 + 2.5 x 2
  EXPECT_DOUBLE_EQ(DynamoLogit(c, l, 64, kBs), 17.0);
  // Fractional blocks: isl 72 (4.5 blocks) with no overlap and no load: 4.5 + 0.
  EXPECT_DOUBLE_EQ(DynamoLogit(DynamoKvConfig{}, DynamoWorkerLoad{}, 72, kBs), 4.5);
}

TEST(DynamoKvLogit, CreditClampsAtZeroAndCachedBeyondThePromptCounts) {
  // Dynamo's own case (selector.rs test_worker_logit_clamps_non_decode_overlap_credit): isl 64,
  // 6 overlap blocks (96 cached tokens > isl: uncached 0), 16 active prefill tokens, 2 active + 3
  // additional blocks, scale 2: raw = (16 + 0 + 96) / 16 = 7, 2 x (7 - 6) + 5 = 7.
  DynamoKvConfig c;
  c.prefill_load_scale = 2;
  DynamoWorkerLoad l;
  l.active_prefill_tokens = 16;
  l.active_blocks = 2;
  l.additional_blocks = 3;
  l.overlap_blocks = 6;
  EXPECT_DOUBLE_EQ(DynamoLogit(c, l, 64, kBs), 7.0);
  // A credit above the prefill: max(0, 7 - 1.5 x 6) = 0, only the blocks remain.
  c.overlap_score_credit = 1.5;
  EXPECT_DOUBLE_EQ(DynamoLogit(c, l, 64, kBs), 5.0);
  // selector.rs test_worker_logit_can_charge_active_requests: 100 blocks, 4 requests, isl 0.
  DynamoWorkerLoad busy;
  busy.active_blocks = 100;
  busy.active_requests = 4;
  EXPECT_DOUBLE_EQ(DynamoLogit(DynamoKvConfig{}, busy, 0, kBs), 100.0);
  DynamoKvConfig weighted;
  weighted.decode_active_request_weight = 32;
  EXPECT_DOUBLE_EQ(DynamoLogit(weighted, busy, 0, kBs), 228.0);
}

TEST(DynamoKvPick, AUniqueMinimumAlwaysWins) {
  for (uint64_t d : Draws(3, 2000)) {
    EXPECT_EQ(DynamoPick({5, 3, 7, 3.5}, 0, d), 1u);
    EXPECT_EQ(DynamoPick({-1, -5, 0}, 0, d), 1u);
  }
  EXPECT_EQ(DynamoPick({4}, 0, 0), 0u);
  EXPECT_EQ(DynamoPick({4}, 1.0, ~0ull), 0u);
}

TEST(DynamoKvPick, TemperatureZeroTiesAreDrawnUniformlyBySeed) {
  const std::vector<double> logits = {3, 1, 1, 5, 1};
  std::vector<uint32_t> a, b;
  std::vector<int> count(5, 0);
  for (uint64_t d : Draws(1, 3000)) a.push_back(DynamoPick(logits, 0, d));
  for (uint64_t d : Draws(2, 3000)) b.push_back(DynamoPick(logits, 0, d));
  for (uint32_t w : a) ++count[w];
  EXPECT_EQ(count[0] + count[3], 0);  // never a worker above the minimum
  for (int w : {1, 2, 4}) EXPECT_NEAR(count[w] / 3000.0, 1.0 / 3, 0.03) << w;
  EXPECT_NE(a, b);  // another seed, other winners among the ties
  // The draw indexes the tied workers in index order: (draw x 3) >> 64.
  EXPECT_EQ(DynamoPick(logits, 0, 0), 1u);
  EXPECT_EQ(DynamoPick(logits, 0, 0x6000000000000000ull), 2u);
  EXPECT_EQ(DynamoPick(logits, 0, ~0ull), 4u);
}

TEST(DynamoKvPick, SoftmaxFrequenciesFollowTheFormula) {
  // p ∝ exp(-(logit - min) / ((max - min) x T)): logits 0, 3, 9 at T = 1 and T = 0.5.
  const std::vector<double> logits = {0, 3, 9};
  for (double t : {1.0, 0.5}) {
    std::vector<double> p;
    double sum = 0;
    for (double l : logits) sum += std::exp(-(l - 0) / (9 * t));
    for (double l : logits) p.push_back(std::exp(-(l - 0) / (9 * t)) / sum);
    const int n = 200000;
    std::vector<int> count(3, 0);
    for (uint64_t d : Draws(7, n)) ++count[DynamoPick(logits, t, d)];
    for (int w = 0; w < 3; ++w) EXPECT_NEAR(count[w] / double(n), p[w], 0.005) << t << " " << w;
  }
  // max == min: uniform.
  std::vector<int> count(4, 0);
  for (uint64_t d : Draws(9, 40000)) ++count[DynamoPick({2, 2, 2, 2}, 0.7, d)];
  for (int w = 0; w < 4; ++w) EXPECT_NEAR(count[w] / 40000.0, 0.25, 0.01);
  // The draw as u = (draw >> 11) / 2^53 walks the cumulative probabilities: u = 0 is the first.
  EXPECT_EQ(DynamoPick(logits, 1.0, 0), 0u);
  EXPECT_EQ(DynamoPick(logits, 1.0, ~0ull), 2u);
}

TEST(DynamoKvActiveLoad, BlocksSharedByRequestsCountOnce) {
  // Dense counts, and hash-map counts (2 workers x 40M ids is past the dense limit): the same.
  for (uint32_t num_ids : {10u, 40u << 20}) {
    DynamoActiveLoad a(2, num_ids);
    const uint32_t r1[] = {0, 1, 2, 3};
    const uint32_t r2[] = {0, 1, 5};
    a.Add(0, r1, 4, 64);
    a.Add(0, r2, 3, 16);
    EXPECT_EQ(a.blocks(0), 5);  // 0 1 2 3 5
    EXPECT_EQ(a.requests(0), 2);
    EXPECT_EQ(a.prefill_tokens(0), 80);
    EXPECT_EQ(a.blocks(1), 0);
    const uint32_t q[] = {0, 1, 2, 7, 3};
    EXPECT_EQ(a.ActivePrefix(0, q, 5), 3u);  // the leading run only: 3 is behind 7
    EXPECT_EQ(a.ActivePrefix(1, q, 5), 0u);
    a.PrefillDone(0, 64);
    EXPECT_EQ(a.prefill_tokens(0), 16);
    EXPECT_EQ(a.blocks(0), 5);  // blocks stay until the finish
    a.Free(0, r1, 4);
    EXPECT_EQ(a.blocks(0), 3);  // 0 1 5: still held by r2
    EXPECT_EQ(a.requests(0), 1);
    a.Free(0, r2, 3);
    EXPECT_EQ(a.blocks(0), 0);
    EXPECT_EQ(a.ActivePrefix(0, q, 5), 0u);
  }
}

TEST(DynamoKvActiveLoad, CountsPastOneByteStayExact) {
  // A dense count keeps 255 in its byte and the rest aside: 300 holders, then down to none.
  for (uint32_t num_ids : {10u, 40u << 20}) {
    WorkerBlockCounts c(2, num_ids);
    for (uint32_t k = 1; k <= 300; ++k) EXPECT_EQ(c.Add(1, 7, 1), k);
    EXPECT_EQ(c.Get(1, 7), 300u);
    EXPECT_EQ(c.Get(0, 7), 0u);
    for (uint32_t k = 300; k-- > 0;) EXPECT_EQ(c.Add(1, 7, -1), k);
    EXPECT_EQ(c.Get(1, 7), 0u);
    EXPECT_EQ(c.Add(1, 7, 1), 1u);  // and up again from nothing
  }
}

TEST(DynamoKvApproxIndex, ABlockRoutedAtTIsAHitBeforeTPlusTtlNotAfter) {
  DynamoApproxIndex idx(120, 1 << 20, 0.8);
  const uint32_t ids[] = {4, 5, 6};
  idx.Insert(1, ids, 3, 10.0);
  EXPECT_EQ(idx.Match(1, ids, 3), 3u);
  EXPECT_EQ(idx.Match(0, ids, 3), 0u);  // another worker holds nothing
  idx.Expire(129.999);
  EXPECT_EQ(idx.Match(1, ids, 3), 3u);
  idx.Expire(130.0);  // expiry at t + ttl: gone
  EXPECT_EQ(idx.Match(1, ids, 3), 0u);
  EXPECT_EQ(idx.size(), 0u);
  // Routing it again renews it; a request sharing a prefix matches its leading run.
  idx.Insert(1, ids, 3, 200.0);
  idx.Insert(1, ids, 2, 300.0);  // blocks 4 5 renewed until 420, 6 stays until 320
  idx.Expire(320.0);
  EXPECT_EQ(idx.Match(1, ids, 3), 2u);
  const uint32_t other[] = {4, 9};
  EXPECT_EQ(idx.Match(1, other, 2), 1u);
}

TEST(DynamoKvApproxIndex, PrunesOldestThenDeepestDownToTheTarget) {
  // Cap 10, ratio 0.8: the 11th entry prunes down to 8 — the earliest expiry first, ties the
  // deeper position first, then the larger id, then the larger worker.
  DynamoApproxIndex idx(100, 10, 0.8);
  const uint32_t a[] = {0, 1, 2, 3};
  const uint32_t b[] = {10, 11, 12};
  const uint32_t c[] = {20, 21, 22};
  idx.Insert(0, a, 4, 1.0);
  idx.Insert(1, b, 3, 2.0);
  idx.Insert(0, c, 3, 3.0);
  EXPECT_EQ(idx.size(), 10u);  // at the cap: nothing pruned
  const uint32_t d[] = {30};
  idx.Insert(2, d, 1, 4.0);  // 11 > 10: prune 3, all from a (expiry 101), deepest first
  EXPECT_EQ(idx.size(), 8u);
  EXPECT_TRUE(idx.Holds(0, 0));
  for (uint32_t id : {1u, 2u, 3u}) EXPECT_FALSE(idx.Holds(0, id)) << id;
  EXPECT_EQ(idx.Match(0, a, 4), 1u);
  // Ties at one expiry and one position: the larger id, then the larger worker goes first.
  DynamoApproxIndex tie(100, 3, 0.5);  // target floor(1.5) = 1
  const uint32_t x[] = {7};
  const uint32_t y[] = {8};
  tie.Insert(0, x, 1, 0.0);
  tie.Insert(1, x, 1, 0.0);
  tie.Insert(0, y, 1, 0.0);
  tie.Insert(1, y, 1, 0.0);  // 4 > 3: prune 3 -> (1,8), (0,8), (1,7) go; (0,7) stays
  EXPECT_EQ(tie.size(), 1u);
  EXPECT_TRUE(tie.Holds(0, 7));
  // A renewed entry is pruned by its new expiry, not the old one.
  DynamoApproxIndex renew(100, 2, 0.5);
  const uint32_t p[] = {1};
  const uint32_t q[] = {2};
  renew.Insert(0, p, 1, 0.0);
  renew.Insert(0, q, 1, 1.0);
  renew.Insert(0, p, 1, 2.0);  // 1 now expires after 2
  const uint32_t r[] = {3};
  renew.Insert(0, r, 1, 3.0);  // 3 > 2: prune 2 down to 1 -> 2 then 1 go
  EXPECT_EQ(renew.size(), 1u);
  EXPECT_TRUE(renew.Holds(0, 3));
}

// A two-worker run driven by hand: the test gives each worker's cached prefix (the fleet's
// WorkerView) and the first-token and finish times (Admitted).
struct HandRun {
  Trace trace;
  FleetOptions options;
  std::unique_ptr<RouterRun> run;
  std::vector<uint32_t> match;
  std::vector<int64_t> outstanding, blocks;
  HandRun(std::vector<RequestRecord> records, std::vector<RouterParamSetting> params, uint64_t seed)
      : trace(BuildTrace(records)), match(2, 0), outstanding(2, 0), blocks(2, 0) {
    options.workers = 2;
    options.seed = seed;
    options.router_params = std::move(params);
    auto p = FindRoutingPolicy("dynamo-kv");
    EXPECT_TRUE(p.ok());
    run = (*p)->AsCacheAware()->Start(trace, options);
  }
  uint32_t Choose(size_t i, std::vector<uint32_t> m) {
    match = std::move(m);
    return run->Choose(i, WorkerView{&match, &outstanding, &blocks}).worker;
  }
};

RequestRecord Rec(double t, uint64_t first_id, uint32_t n, uint64_t shared = 0) {
  RequestRecord r;
  r.time_s = t;
  r.has_time = true;
  r.block_size = kBs;
  for (uint32_t j = 0; j < shared; ++j) r.block_ids.push_back(1 + j);  // request 0's blocks
  for (uint32_t j = shared; j < n; ++j) r.block_ids.push_back(first_id + j);
  r.input_tokens = static_cast<int64_t>(n) * kBs;
  r.output_tokens = 10;
  return r;
}

TEST(DynamoKvRun, PrefillTokensCountUntilTheFirstTokenBlocksUntilTheFinish) {
  // Request 0: 10 blocks at t = 0, first token at 1, finish at 5. Probes of 12 blocks: the first
  // 10 shared with request 0 (cached on its worker w0), or none shared. overlap_score_credit 0.5.
  // Each probe in a fresh run (a routed probe would count in the load itself); the same seed
  // sends request 0 to the same worker in each.
  const std::vector<RequestRecord> recs = {Rec(0, 1, 10),     Rec(0.5, 100, 12, 10),
                                           Rec(0.5, 500, 12), Rec(1.0, 200, 12, 10),
                                           Rec(1.5, 300, 12), Rec(5.0, 400, 12)};
  const std::vector<RouterParamSetting> half = {{"dynamo-kv", "overlap_score_credit", 0.5}};
  std::set<int> tie_winners;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    auto probe = [&](size_t k, bool admit, uint32_t cached_on_w0,
                     std::vector<RouterParamSetting> params) {
      HandRun r(recs, params, seed);
      const uint32_t w0 = r.Choose(0, {0, 0});
      if (admit) r.run->Admitted(0, w0, 160, 1.0, 5.0);
      std::vector<uint32_t> m(2, 0);
      m[w0] = cached_on_w0;
      return r.Choose(k, m) == w0;
    };
    // t = 0.5, before the first token. w0: raw (160 + 192) / 16 = 22, - 0.5 x 10 = 17; blocks 10
    // active + 2 additional = 12: 29. w1: 12 + 12 = 24.
    EXPECT_FALSE(probe(1, true, 10, half));
    // t = 1.0, the first token (at or before now retires): w0: 12 - 5 + 12 = 19 < 24.
    EXPECT_TRUE(probe(3, true, 10, half));
    // t = 1.5, nothing shared, nothing cached: w0: 12 + (10 + 12) = 34; w1: 12 + 12 = 24.
    EXPECT_FALSE(probe(4, true, 0, half));
    // Routed but not yet admitted (an engine's queue holds it): it counts from its routing.
    EXPECT_FALSE(probe(2, false, 0, half));
    // t = 5.0, finished: both 24, a tie the draw decides.
    tie_winners.insert(probe(5, true, 0, {}));
  }
  EXPECT_EQ(tie_winners.size(), 2u);  // both drawn: the finished request no longer counts
}

TEST(DynamoKvRun, WithoutKvEventsTheRouterTrustsOnlyItsTtlIndex) {
  // use_kv_events=0: the fleet's cached prefix is ignored; a request sharing request 0's blocks
  // follows it while the index holds them (routed at 0, ttl 120) and not at 120 or later.
  const std::vector<RequestRecord> recs = {Rec(0, 1, 10), Rec(100, 100, 11, 10),
                                           Rec(120, 200, 11, 10)};
  const std::vector<RouterParamSetting> off = {{"dynamo-kv", "use_kv_events", 0}};
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    HandRun r(recs, off, seed);
    const uint32_t w0 = r.Choose(0, {0, 0});
    r.run->Admitted(0, w0, 160, 0.01, 0.2);
    // t = 100: w0: raw 11 - 10 = 1, blocks 11 -> 12; w1: 11 + 11 = 22. The view says the other
    // worker caches everything: not seen.
    std::vector<uint32_t> lie(2, 0);
    lie[1 - w0] = 11;
    EXPECT_EQ(r.Choose(1, lie), w0);
    r.run->Admitted(1, w0, 16, 100.01, 100.2);
    // Request 1 renewed blocks 1-10 on w0 at 100: at 120 they are held until 220, w0 again.
    EXPECT_EQ(r.Choose(2, {0, 0}), w0);
  }
  // Without renewal: a probe at 119.9 still follows request 0, one at 120 exactly finds nothing
  // (a tie the draw decides).
  const std::vector<RequestRecord> late = {Rec(0, 1, 10), Rec(119.9, 300, 11, 10),
                                           Rec(120, 200, 11, 10)};
  std::set<int> picks_at_119, picks_at_120;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    for (size_t k : {1, 2}) {
      HandRun r(late, off, seed);
      const uint32_t w0 = r.Choose(0, {0, 0});
      r.run->Admitted(0, w0, 160, 0.01, 0.2);
      (k == 1 ? picks_at_119 : picks_at_120).insert(r.Choose(k, {0, 0}) == w0);
    }
  }
  EXPECT_EQ(picks_at_119, std::set<int>{1});
  EXPECT_EQ(picks_at_120, (std::set<int>{0, 1}));
}

TEST(DynamoKvRouter, RegisteredWithItsParametersAndSource) {
  auto p = FindRoutingPolicy("dynamo-kv");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE((*p)->named());
  EXPECT_NE((*p)->AsCacheAware(), nullptr);
  EXPECT_FALSE((*p)->text_view());
  EXPECT_NE((*p)->source().find("ai-dynamo/dynamo@01690d42"), std::string_view::npos);
  std::vector<std::string_view> keys;
  for (const RouterParam& k : (*p)->params()) keys.push_back(k.key);
  EXPECT_EQ(keys, (std::vector<std::string_view>{
                      "prefill_load_scale", "overlap_score_credit", "decode_active_request_weight",
                      "router_temperature", "use_kv_events", "router_ttl_secs"}));
  FleetOptions o;
  EXPECT_EQ((*p)->Label(o), "dynamo-kv");
  o.router_params.push_back({"dynamo-kv", "use_kv_events", 0});
  EXPECT_EQ((*p)->Label(o), "dynamo-kv (use_kv_events=0)");
  auto parsed = ParseRouterParam("dynamo-kv.router_ttl_secs=30");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->value, 30);
}

}  // namespace
}  // namespace ltl
