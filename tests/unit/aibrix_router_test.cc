// Tests for aibrix-prefix (simulate/fleet_route_aibrix_prefix.cc), each rule from a hand-built
// case: the message AIBrix routes on, full 4-byte blocks only and chained digests (the view); the
// index (per-pod depth of the match, the LRU's capacity, expiry at the eviction ticks); the
// selection (the imbalance restriction, percent then running order, the mean + factor x sigma
// bound, least-request ties, the seeded shuffle); block ids without text; the parameters.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <memory>
#include <string>
#include <vector>

#include "common/mix64.h"
#include "common/request_record.h"
#include "ingest/router_view.h"
#include "simulate/fleet_hash.h"
#include "simulate/fleet_routers.h"
#include "simulate/router_views.h"
#include "simulate/routing_policy.h"
#include "simulate/trace.h"

namespace ltl {
namespace {

const SipKey kKey{1, 2};

std::string Message(const char* json) {
  simdjson::dom::parser parser;
  simdjson::dom::object obj = parser.parse(std::string(json)).get_object().value();
  std::string out;
  EXPECT_TRUE(AibrixMessage(obj, &out)) << json;
  return out;
}

bool Refused(const char* json) {
  simdjson::dom::parser parser;
  std::string out;
  return !AibrixMessage(parser.parse(std::string(json)).get_object().value(), &out);
}

TEST(AibrixView, MessageIsTheContentsJoinedWithSpaces) {
  EXPECT_EQ(Message(R"({"system":"S","tools":[{"name":"t"}],"messages":[
      {"role":"system","content":"sys"},{"role":"user","content":"hi\nthere"}]})"),
            "sys hi\nthere");
  // Any other content is its JSON text: a list of parts, a null (a tool call).
  EXPECT_EQ(Message(R"({"messages":[{"role":"user","content":[{"type":"text", "text":"a"}]},
      {"role":"assistant","content":null,"tool_calls":[{"id":"x"}]},{"role":"tool","content":"r"}]})"),
            R"([{"type":"text","text":"a"}] null r)");
  // A missing content: nothing between its spaces.
  EXPECT_EQ(Message(R"({"messages":[{"role":"user","content":"q"},{"role":"assistant"},
      {"role":"user","content":"r"}]})"),
            "q  r");
  EXPECT_EQ(Message(R"({"prompt":"once upon"})"), "once upon");
  EXPECT_EQ(Message(R"({"input":"plain"})"), "plain");
  EXPECT_EQ(Message(R"({"input":[{"role":"user","content":"a"},{"type":"function_call_output"},
      {"role":"user","content":"b"}]})"),
            "a  b");
  EXPECT_TRUE(Refused(R"({"messages":[]})"));
  EXPECT_TRUE(Refused(R"({"prompt":["a","b"]})"));
  EXPECT_TRUE(Refused(R"({"contents":"x"})"));
}

TEST(AibrixView, FullBlocksOnlyChainedAndKeyed) {
  std::vector<uint64_t> a, b, c;
  ByteBlockDigests(kKey, "abcdefghij", 4, &a);
  ASSERT_EQ(a.size(), 2u);  // "ij" is a partial block: not hashed
  ByteBlockDigests(kKey, "abcdefgh", 4, &b);
  EXPECT_EQ(a, b);
  ByteBlockDigests(kKey, "abc", 4, &c);
  EXPECT_TRUE(c.empty());  // shorter than one block: nothing to match
  // Chained: the same block at another depth, or after another block, is another digest.
  ByteBlockDigests(kKey, "abcdabcd", 4, &c);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_NE(c[0], c[1]);
  ByteBlockDigests(kKey, "xxxxefgh", 4, &c);
  EXPECT_NE(c[1], a[1]);
  // Bytes, not characters: "é" is two bytes, so two of them are one block.
  ByteBlockDigests(kKey, "\xc3\xa9\xc3\xa9", 4, &c);
  EXPECT_EQ(c.size(), 1u);
  // Another block size, other blocks.
  ByteBlockDigests(kKey, "abcdefgh", 8, &c);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NE(c[0], a[0]);
  // Keyed: another salt, other digests.
  ByteBlockDigests(SipKey{3, 4}, "abcdefgh", 4, &c);
  EXPECT_NE(c[0], a[0]);
}

// A request whose view is the given block digests (small integers do).
RequestRecord Rec(double t, std::vector<uint64_t> blocks) {
  RequestRecord r;
  r.time_s = t;
  r.has_time = true;
  r.block_size = 16;
  r.input_tokens = 16;
  r.output_tokens = 10;
  r.block_ids = {Mix64(static_cast<uint64_t>(t * 1000) + 1)};
  r.view.text = true;
  r.view.aibrix_blocks = std::move(blocks);
  return r;
}

// The documented draws: one SplitMix64 stream from the seed.
struct Draws {
  uint64_t state;
  size_t Below(size_t n) {
    state += 0x9e3779b97f4a7c15ull;
    return static_cast<size_t>((static_cast<unsigned __int128>(SplitMix64Finalizer(state)) * n) >>
                               64);
  }
};

// One run of the router over records, fed running counts by hand.
class Replay {
 public:
  Replay(std::vector<RequestRecord> records, uint32_t workers, uint64_t seed = 1,
         std::vector<RouterParamSetting> params = {}) {
    trace_ = BuildTrace(records);
    AttachRouterViews(&records, &trace_);
    options_.workers = workers;
    options_.seed = seed;
    options_.router_params = std::move(params);
    match_.assign(workers, 0);
    decode_.assign(workers, 0);
    run_ = (*FindRoutingPolicy("aibrix-prefix"))->AsCacheAware()->Start(trace_, options_);
  }
  RouteChoice Route(size_t i, std::vector<int64_t> running) {
    running_ = std::move(running);
    WorkerView view{&match_, &running_, &decode_};
    return run_->Choose(i, view);
  }
  uint32_t To(size_t i, std::vector<int64_t> running) {
    return Route(i, std::move(running)).worker;
  }

 private:
  Trace trace_;
  FleetOptions options_;
  std::vector<uint32_t> match_;
  std::vector<int64_t> running_, decode_;
  std::unique_ptr<RouterRun> run_;
};

RouterParamSetting Param(const char* key, double value) {
  return RouterParamSetting{"aibrix-prefix", key, value};
}

TEST(AibrixPrefix, NoMatchIsLeastRequestThenTheHolderWins) {
  for (uint64_t seed = 1; seed < 30; ++seed) {
    Replay r({Rec(0, {1, 2, 3}), Rec(1, {1, 2, 4}), Rec(2, {9})}, 3, seed);
    Draws d{seed};
    const uint32_t first = r.To(0, {0, 0, 0});
    EXPECT_EQ(first, d.Below(3));          // three pods at 0 running: a draw
    EXPECT_EQ(r.To(1, {1, 1, 1}), first);  // blocks 1, 2 on `first` (66%); 1 <= 1 + 0
    EXPECT_EQ(r.To(2, {1, 0, 1}), 1u);     // no match: the one least-loaded pod, no draw
  }
}

TEST(AibrixPrefix, ShortRequestsNeverMatchNorIndex) {
  // A request shorter than one block has no blocks: least-request, and nothing is added.
  Replay r({Rec(0, {}), Rec(1, {}), Rec(2, {5})}, 2);
  EXPECT_EQ(r.To(0, {1, 0}), 1u);
  EXPECT_EQ(r.To(1, {0, 1}), 0u);
  EXPECT_EQ(r.To(2, {1, 0}), 1u);
}

TEST(AibrixPrefix, EachPodMatchesToItsOwnDepthAndImbalanceRestricts) {
  Replay r({Rec(0, {1, 2, 3}), Rec(1, {1, 2, 7}), Rec(2, {1, 2, 3, 4}), Rec(3, {1, 2, 7, 5}),
            Rec(4, {1, 2, 3, 8}), Rec(5, {1, 2, 3, 9})},
           3);
  EXPECT_EQ(r.To(0, {0, 1, 1}), 0u);
  // 9 - 0 > 8: only pod 1 (at the minimum) is a candidate; block 1 is held by pod 0 only, so
  // nothing matches and least-request picks pod 1, which now holds 1, 2, 7.
  RouteChoice c = r.Route(1, {9, 0, 9});
  EXPECT_EQ(c.worker, 1u);
  EXPECT_TRUE(c.guard);
  // Pod 0 matches 3 of 4 blocks (75%), pod 1 two (50%): pod 0; then the other way round.
  c = r.Route(2, {2, 2, 2});
  EXPECT_EQ(c.worker, 0u);
  EXPECT_FALSE(c.guard);
  EXPECT_EQ(r.To(3, {2, 2, 2}), 1u);
  // 8 - 0 is not above 8: no restriction, and pod 0's 75% wins, within mean + sigma
  // (3.33 + 4.16).
  EXPECT_EQ(r.To(4, {2, 8, 0}), 0u);
  // 9 - 0: candidates {1}, which holds blocks 1, 2 (50%); pod 0's 75% (9 <= 4.67 + 4.5) is not
  // a candidate.
  c = r.Route(5, {9, 0, 5});
  EXPECT_EQ(c.worker, 1u);
  EXPECT_TRUE(c.guard);
}

TEST(AibrixPrefix, ImbalanceFallsBackAmongTheLeastLoaded) {
  Replay r({Rec(0, {1, 2}), Rec(1, {1, 3}), Rec(2, {1, 2, 4})}, 3);
  EXPECT_EQ(r.To(0, {0, 1, 1}), 0u);
  EXPECT_EQ(r.To(1, {1, 0, 1}), 0u);  // block 1 on pod 0 (50%), within the bound
  // Pods 1 and 2 at 0, pod 0 at 9: candidates {1, 2}, none holds block 1: least-request over
  // every pod draws between pods 1 and 2 (the first draw of the run).
  Draws d{1};
  EXPECT_EQ(r.To(2, {9, 0, 0}), 1u + d.Below(2));
}

TEST(AibrixPrefix, ABestMatchAboveMeanPlusSigmaIsSkipped) {
  for (int64_t load3 : {1, 5}) {
    // Pod 0 holds blocks 1, 2, 3; pod 3 (through the imbalance rule) 1, 2, 6.
    Replay r({Rec(0, {1, 2, 3}), Rec(1, {1, 2, 6}), Rec(2, {1, 2, 3})}, 4);
    EXPECT_EQ(r.To(0, {0, 1, 1, 1}), 0u);
    EXPECT_EQ(r.To(1, {9, 1, 1, 0}), 3u);
    // Running 5, 0, 0, 1: mean 1.5, sample sigma sqrt(17 / 3) = 2.38, bound 3.88: pod 0 (100%)
    // is above it, pod 3 (66%) within: pod 3. Running 5, 0, 0, 5: bound 2.5 + 2.89 = 5.39: pod 0.
    EXPECT_EQ(r.To(2, {5, 0, 0, load3}), load3 == 1 ? 3u : 0u);
  }
}

TEST(AibrixPrefix, NoMatchWithinTheBoundFallsBackToLeastRequest) {
  Replay r({Rec(0, {1, 2}), Rec(1, {1, 2}), Rec(2, {1, 2})}, 4, 3);
  EXPECT_EQ(r.To(0, {0, 1, 1, 1}), 0u);
  // Pod 0 alone holds the blocks, at 5 above 1.5 + 2.38: skipped; least-request draws between
  // pods 1 and 2.
  Draws d{3};
  const uint32_t w = r.To(1, {5, 0, 0, 1});
  EXPECT_EQ(w, 1u + d.Below(2));
  // Pods 0 and w hold the blocks (100%): w first (1 running against 3), within 1.5 + 1.
  EXPECT_EQ(r.To(2, {3, 1, 1, 1}), w);
}

TEST(AibrixPrefix, SigmaIsTheSampleStandardDeviation) {
  // Running 2, 0, 1: mean 1, sample sigma 1: bound 2 keeps pod 0 (the population sigma, 0.82,
  // would skip it for least-request's pod 1).
  Replay r({Rec(0, {1, 2}), Rec(1, {1, 2})}, 3);
  EXPECT_EQ(r.To(0, {0, 1, 1}), 0u);
  EXPECT_EQ(r.To(1, {2, 0, 1}), 0u);
  // standard_deviation_factor 0: the bound is the mean.
  Replay z({Rec(0, {1, 2}), Rec(1, {1, 2})}, 3, 1, {Param("standard_deviation_factor", 0)});
  EXPECT_EQ(z.To(0, {0, 1, 1}), 0u);
  EXPECT_EQ(z.To(1, {2, 0, 1}), 1u);
}

TEST(AibrixPrefix, TiesInPercentGoToFewerRunningThenTheShuffle) {
  for (uint64_t seed = 1; seed < 40; ++seed) {
    Replay r({Rec(0, {1, 2}), Rec(1, {1, 2}), Rec(2, {1, 2, 5}), Rec(3, {1, 2, 6})}, 3, seed);
    Draws d{seed};
    EXPECT_EQ(r.To(0, {0, 1, 1}), 0u);
    EXPECT_EQ(r.To(1, {9, 0, 1}), 1u);  // candidates {1}: no match, least-request, no draw
    // Pods 0 and 1 hold blocks 1, 2 (66% each): running 1 against 2, pod 1 whatever the
    // shuffle (one draw) gave.
    EXPECT_EQ(r.To(2, {2, 1, 2}), 1u);
    d.Below(2);
    // Again 66% each, both at 1 running: the shuffle decides. Fisher-Yates over {0, 1}.
    std::vector<uint32_t> order = {0, 1};
    std::swap(order[1], order[d.Below(2)]);
    EXPECT_EQ(r.To(3, {1, 1, 2}), order[0]) << seed;
  }
}

TEST(AibrixPrefix, TheIndexHoldsBlockNumberEntriesLeastRecentlyPutFirstOut) {
  for (double cap : {3.0, 4.0}) {
    Replay r({Rec(0, {1, 2}), Rec(1, {3, 4}), Rec(2, {1, 2})}, 3, 1, {Param("block_number", cap)});
    EXPECT_EQ(r.To(0, {0, 1, 1}), 0u);
    EXPECT_EQ(r.To(1, {1, 0, 1}), 1u);
    // Four entries put: with room for 3, block 1 (the oldest) went, and blocks 2.. do not match
    // without it; with room for 4 pod 0 still matches.
    EXPECT_EQ(r.To(2, {1, 1, 0}), cap == 3 ? 2u : 0u) << cap;
  }
  // A put refreshes: blocks 1, 2 put again after 3, 4 are the newest, 3 goes first.
  Replay r(
      {Rec(0, {1, 2}), Rec(1, {3, 4}), Rec(2, {1, 2}), Rec(3, {5}), Rec(4, {1, 2}), Rec(5, {3, 4})},
      3, 1, {Param("block_number", 4)});
  EXPECT_EQ(r.To(0, {0, 1, 1}), 0u);
  EXPECT_EQ(r.To(1, {1, 0, 1}), 1u);
  EXPECT_EQ(r.To(2, {1, 1, 1}), 0u);  // matched on pod 0, put again: order 3, 4, 1, 2
  EXPECT_EQ(r.To(3, {1, 1, 0}), 2u);  // block 5 in: block 3 out
  EXPECT_EQ(r.To(4, {1, 1, 1}), 0u);  // 1, 2 still there
  EXPECT_EQ(r.To(5, {1, 1, 0}), 2u);  // 3 gone: no match
}

TEST(AibrixPrefix, PutsAgainKeepTheRequestsOrderAheadOfOlderEntries) {
  // Puts head first: after request 0 the list is 3 2 1 (newest first); 9 goes in ahead of them.
  // Request 2 puts 1 2 3 again (entries side by side: moved as one run) and then 4: 4 3 2 1 9.
  // Request 3's new block 5 makes six entries for room for five: 9, the oldest, goes (were the
  // run misordered, 1 would go and 9 would still route to pod 1). Request 4 puts 9 again: 1 goes.
  Replay r({Rec(0, {1, 2, 3}), Rec(1, {9}), Rec(2, {1, 2, 3, 4}), Rec(3, {5}), Rec(4, {9}),
            Rec(5, {2}), Rec(6, {4})},
           3, 1, {Param("block_number", 5)});
  EXPECT_EQ(r.To(0, {0, 1, 1}), 0u);
  EXPECT_EQ(r.To(1, {1, 0, 1}), 1u);
  EXPECT_EQ(r.To(2, {1, 1, 0}), 0u);  // 75% on pod 0, within mean + sigma
  EXPECT_EQ(r.To(3, {1, 1, 0}), 2u);  // no match: least-request
  EXPECT_EQ(r.To(4, {0, 1, 1}), 0u);  // 9 gone: least-request, not its holder pod 1
  EXPECT_EQ(r.To(5, {1, 1, 1}), 0u);  // 2 still held by pod 0 (sigma 0: running 1 <= 1)
  EXPECT_EQ(r.To(6, {1, 1, 1}), 0u);  // and 4
}

TEST(AibrixPrefix, EntriesExpireAtTheEvictionTicks) {
  // Puts at 0; at 1200.5 the last tick (1200) is 1200 s after: not more than 20 minutes, kept
  // (and put again at 1200.5); at 2401.2 the tick 2401 is 1200.5 s after: gone.
  Replay r({Rec(0, {1, 2}), Rec(1200.5, {1, 2}), Rec(2401.2, {1, 2})}, 3);
  EXPECT_EQ(r.To(0, {0, 1, 1}), 0u);
  EXPECT_EQ(r.To(1, {1, 1, 0}), 0u);
  EXPECT_EQ(r.To(2, {1, 1, 0}), 2u);
  // With 10-second ticks the tick at 2401.2 is 2400: 1199.5 s after the put, kept.
  Replay ten({Rec(0, {1, 2}), Rec(1200.5, {1, 2}), Rec(2401.2, {1, 2})}, 3, 1,
             {Param("eviction_interval_seconds", 10)});
  EXPECT_EQ(ten.To(0, {0, 1, 1}), 0u);
  EXPECT_EQ(ten.To(1, {1, 1, 0}), 0u);
  EXPECT_EQ(ten.To(2, {1, 1, 0}), 0u);
  // eviction_duration_mins 1: gone after a minute.
  Replay one({Rec(0, {1, 2}), Rec(61.5, {1, 2})}, 3, 1, {Param("eviction_duration_mins", 1)});
  EXPECT_EQ(one.To(0, {0, 1, 1}), 0u);
  EXPECT_EQ(one.To(1, {1, 1, 0}), 2u);
}

TEST(AibrixPrefix, WithoutTextRoutesOnBlockIds) {
  std::vector<RequestRecord> recs;
  for (int i = 0; i < 3; ++i) {
    RequestRecord r;
    r.time_s = i;
    r.has_time = true;
    r.block_size = 16;
    r.input_tokens = 48;
    r.block_ids = {100, 101, static_cast<uint64_t>(200 + i)};
    recs.push_back(r);
  }
  Replay r(recs, 4);
  EXPECT_EQ(r.To(0, {1, 1, 0, 1}), 2u);
  EXPECT_EQ(r.To(1, {0, 0, 0, 0}), 2u);  // blocks 100, 101 on pod 2 (66%)
  EXPECT_EQ(r.To(2, {0, 0, 0, 0}), 2u);
}

TEST(AibrixPrefix, NamedWithItsParametersAndViewSize) {
  const RoutingPolicy& p = **FindRoutingPolicy("aibrix-prefix");
  EXPECT_TRUE(p.named());
  EXPECT_TRUE(p.text_view());
  EXPECT_NE(p.source().find("aibrix@e3e10f9e"), std::string_view::npos);
  FleetOptions o;
  EXPECT_EQ(RouterParamValue(o, p, "block_size"), 4);
  EXPECT_EQ(RouterParamValue(o, p, "block_number"), 200000);
  EXPECT_EQ(RouterParamValue(o, p, "eviction_duration_mins"), 20);
  EXPECT_EQ(RouterParamValue(o, p, "eviction_interval_seconds"), 1);
  EXPECT_EQ(RouterParamValue(o, p, "pod_running_request_imbalance_abs_count"), 8);
  EXPECT_EQ(RouterParamValue(o, p, "standard_deviation_factor"), 1);
  EXPECT_EQ(AibrixViewBlockBytes({&p}, o), 4u);
  EXPECT_EQ(AibrixViewBlockBytes({}, o), 0u);
  EXPECT_EQ(p.ViewLine(o).rfind("matches 4-byte blocks of the message contents", 0), 0u);
  o.router_params.push_back(Param("block_size", 16));
  EXPECT_EQ(AibrixViewBlockBytes({&p}, o), 16u);
  EXPECT_EQ(p.Label(o), "aibrix-prefix (block_size=16)");
  // The report's view line says the size the view was cut at.
  EXPECT_EQ(p.ViewLine(o).rfind("matches 16-byte blocks of the message contents", 0), 0u);
  EXPECT_EQ(p.ViewLine(o).find("4-byte"), std::string::npos);
}

}  // namespace
}  // namespace ltl
