// Tests for the named routers (docs/FLEET.md "Named routers"), each rule from a hand-built case:
// vllm-router-prefix's view (the prompt production-stack builds from a body, 128-code-point chunks,
// chained digests), its trie (longest match, the intersection of holders, seeded random among the
// best in index order, no eviction, the min-match fallback, block ids without text);
// vllm-router-session (consistent-hash stability, the lowest-QPS fallback: never-sent first,
// the window, ties to the lowest index); and --router-param / --routing parsing.
#include <gtest/gtest.h>

#include <simdjson.h>
#include <algorithm>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/mix64.h"
#include "common/request_record.h"
#include "ingest/router_view.h"
#include "simulate/fleet_hash.h"
#include "simulate/fleet_router_qps.h"
#include "simulate/fleet_routes.h"
#include "simulate/router_views.h"
#include "simulate/routing_policy.h"
#include "simulate/trace.h"

namespace ltl {
namespace {

constexpr uint32_t kBs = 16;
const SipKey kKey{1, 2};

std::string Prompt(const char* json) {
  simdjson::dom::parser parser;
  simdjson::dom::object obj = parser.parse(std::string(json)).get_object().value();
  std::string out;
  EXPECT_TRUE(VllmRouterPrompt(obj, &out)) << json;
  return out;
}

TEST(VllmRouterView, PromptIsTheMessageContentsJoinedWithNewlines) {
  EXPECT_EQ(Prompt(R"({"messages":[{"role":"system","content":"sys"},
                                   {"role":"user","content":"hi"}]})"),
            "sys\nhi");
  // A list content: its text parts joined with single spaces; other parts left out.
  EXPECT_EQ(Prompt(R"({"messages":[{"role":"user","content":[{"type":"text","text":"a"},
      {"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"b"}]}]})"),
            "a b");
  // A null content (an assistant's tool call) is left out; a missing one joins as "".
  EXPECT_EQ(Prompt(R"({"messages":[{"role":"user","content":"q"},
      {"role":"assistant","content":null,"tool_calls":[]},{"role":"tool","content":"r"}]})"),
            "q\nr");
  EXPECT_EQ(Prompt(R"({"messages":[{"role":"user","content":"q"},{"role":"assistant"},
      {"role":"user","content":"r"}]})"),
            "q\n\nr");
  // Roles, tools and Anthropic's top-level system are invisible.
  EXPECT_EQ(Prompt(R"({"system":"S","tools":[{"name":"t"}],"messages":[{"role":"user",
      "content":"x"}]})"),
            "x");
  EXPECT_EQ(Prompt(R"({"messages":[]})"), "");
  // Completions: the prompt string.
  EXPECT_EQ(Prompt(R"({"prompt":"once upon"})"), "once upon");
  simdjson::dom::parser parser;
  std::string out;
  EXPECT_FALSE(
      VllmRouterPrompt(parser.parse(std::string(R"({"input":"x"})")).get_object().value(), &out));
}

TEST(VllmRouterView, ChunksOf128CodePointsChainedLastPartial) {
  std::vector<uint64_t> a, b, c;
  ChunkDigests(kKey, std::string(300, 'x'), 128, &a);
  ASSERT_EQ(a.size(), 3u);  // 128 + 128 + 44
  // Chained: the same chunk text at another depth is another digest.
  EXPECT_NE(a[0], a[1]);
  // A common first chunk gives a common first digest; what follows differs.
  ChunkDigests(kKey, std::string(128, 'x') + "y", 128, &b);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(a[0], b[0]);
  EXPECT_NE(a[1], b[1]);
  // Code points, not bytes: 128 two-byte characters are one chunk, 129 are two.
  std::string e;
  for (int i = 0; i < 128; ++i) e += "\xc3\xa9";  // é
  ChunkDigests(kKey, e, 128, &c);
  EXPECT_EQ(c.size(), 1u);
  ChunkDigests(kKey, e + "\xc3\xa9", 128, &c);
  EXPECT_EQ(c.size(), 2u);
  ChunkDigests(kKey, "", 128, &c);
  EXPECT_TRUE(c.empty());
  // Keyed: another salt, other digests.
  ChunkDigests(SipKey{3, 4}, std::string(300, 'x'), 128, &c);
  EXPECT_NE(c[0], a[0]);
}

// Requests with text views: chunk digests given as small integers (any distinct values do).
RequestRecord TextRec(double t, std::vector<uint64_t> chunks, uint64_t session = 0) {
  RequestRecord r;
  r.time_s = t;
  r.has_time = true;
  r.block_size = kBs;
  r.input_tokens = kBs;
  r.output_tokens = 10;
  r.block_ids = {Mix64(static_cast<uint64_t>(t * 1000) + 1)};
  r.view.text = true;
  r.view.chunks128 = std::move(chunks);
  r.view.session = session;
  return r;
}

Trace ViewTrace(std::vector<RequestRecord> records) {
  Trace t = BuildTrace(records);
  AttachRouterViews(&records, &t);
  return t;
}

// The draw of request i (0-based) under seed s: the rule the plug-in documents.
uint64_t Draw(uint64_t seed, size_t i) {
  return SplitMix64Finalizer(seed + 0x9e3779b97f4a7c15ull * (i + 1));
}
uint32_t Pick(uint64_t draw, const std::vector<uint32_t>& best) {
  return best[static_cast<size_t>((static_cast<unsigned __int128>(draw) * best.size()) >> 64)];
}

TEST(VllmRouterPrefix, NoMatchDrawsAmongAllWorkersThenFollowsTheHolder) {
  const uint64_t seed = 5;
  Trace t = ViewTrace({TextRec(1, {10, 11, 12}), TextRec(2, {10, 11, 13}), TextRec(3, {20})});
  StaticRoutes r = RouteVllmPrefix(t, 4, seed, 0, 60);
  const uint32_t first = Pick(Draw(seed, 0), {0, 1, 2, 3});
  EXPECT_EQ(r.worker[0], first);
  EXPECT_EQ(r.worker[1], first);  // the only holder of chunks 10, 11
  EXPECT_EQ(r.worker[2], Pick(Draw(seed, 2), {0, 1, 2, 3}));
  EXPECT_EQ(r.requests_without_text, 0u);
}

TEST(VllmRouterPrefix, LongestMatchAndTheIntersectionOfHolders) {
  // Without a minimum every trie node has one holder (a request matching its first chunk goes to
  // that chunk's holder), so two holders of one node arise only through the QPS fallback: with
  // prefix_min_match_length 129, a request matching one chunk (128 characters) falls back.
  for (uint64_t seed = 1; seed < 20; ++seed) {
    Trace t = ViewTrace({TextRec(1, {1, 2, 3}), TextRec(2, {1, 9}), TextRec(3, {1, 2, 4}),
                         TextRec(4, {1, 9, 5}), TextRec(5, {1, 7}), TextRec(6, {1, 7, 8})});
    StaticRoutes r = RouteVllmPrefix(t, 3, seed, 129, 60);
    EXPECT_EQ(r.worker[0], 0u);  // no match: the QPS fallback, worker 0 never sent a request
    EXPECT_EQ(r.worker[1], 1u);  // 128 characters < 129: worker 1, now a holder of chunk 1 too
    EXPECT_EQ(r.worker[2], 0u);  // chunks 1, 2: {0, 1} then {0}
    EXPECT_EQ(r.worker[3], 1u);  // chunks 1, 9: {0, 1} then {1}
    EXPECT_EQ(r.worker[4], 2u);  // chunk 1 only: the fallback, worker 2 never sent one
    EXPECT_EQ(r.worker[5], 2u);  // chunks 1, 7: {0, 1, 2} then {2}
  }
}

TEST(VllmRouterPrefix, ZeroMatchIsADrawAmongAllWorkersInIndexOrder) {
  for (uint64_t seed = 1; seed < 60; ++seed) {
    Trace t = ViewTrace({TextRec(1, {1}), TextRec(2, {2}), TextRec(3, {1, 3}), TextRec(4, {2, 4}),
                         TextRec(5, {8}), TextRec(6, {})});
    StaticRoutes r = RouteVllmPrefix(t, 5, seed, 0, 60);
    EXPECT_EQ(r.worker[0], Pick(Draw(seed, 0), {0, 1, 2, 3, 4}));
    EXPECT_EQ(r.worker[1], Pick(Draw(seed, 1), {0, 1, 2, 3, 4}));
    EXPECT_EQ(r.worker[2], r.worker[0]);  // one draw per request even when unused
    EXPECT_EQ(r.worker[3], r.worker[1]);
    EXPECT_EQ(r.worker[4], Pick(Draw(seed, 4), {0, 1, 2, 3, 4}));
    EXPECT_EQ(r.worker[5], Pick(Draw(seed, 5), {0, 1, 2, 3, 4}));  // an empty prompt
  }
}

TEST(VllmRouterPrefix, NoEvictionWhateverCameBetween) {
  std::vector<RequestRecord> recs = {TextRec(0, {1, 2, 3})};
  for (int i = 1; i <= 500; ++i)
    recs.push_back(TextRec(i, {static_cast<uint64_t>(1000 + i), static_cast<uint64_t>(i)}));
  recs.push_back(TextRec(1000, {1, 2, 3, 4}));
  Trace t = ViewTrace(recs);
  StaticRoutes r = RouteVllmPrefix(t, 8, 3, 0, 60);
  EXPECT_EQ(r.worker.back(), r.worker.front());
}

TEST(VllmRouterPrefix, WithoutTextRoutesOnBlockIdsAndCountsThem) {
  std::vector<RequestRecord> recs;
  for (int i = 0; i < 3; ++i) {
    RequestRecord r;
    r.time_s = i;
    r.has_time = true;
    r.block_size = kBs;
    r.input_tokens = kBs * 3;
    r.block_ids = {100, 101, static_cast<uint64_t>(200 + i)};
    recs.push_back(r);
  }
  Trace t = ViewTrace(recs);
  StaticRoutes r = RouteVllmPrefix(t, 4, 9, 0, 60);
  EXPECT_EQ(r.requests_without_text, 3u);
  EXPECT_EQ(r.worker[1], r.worker[0]);  // blocks 100, 101 held by the first request's worker
  EXPECT_EQ(r.worker[2], r.worker[0]);
  // A block counts as block size x 4 characters: 2 blocks = 128 characters < 129.
  StaticRoutes q = RouteVllmPrefix(t, 4, 9, 129, 60);
  EXPECT_EQ(q.worker[0], 0u);
  EXPECT_EQ(q.worker[1], 1u);
  EXPECT_EQ(q.worker[2], 2u);
}

TEST(RouterQps, NeverSentFirstThenFewestInTheWindowTiesToLowestIndex) {
  RouterQps q(3, 60);
  EXPECT_EQ(q.Lowest(0), 0u);
  q.Sent(0, 0);
  EXPECT_EQ(q.Lowest(1), 1u);
  q.Sent(1, 1);
  q.Sent(1, 2);
  EXPECT_EQ(q.Lowest(3), 2u);
  q.Sent(2, 3);
  q.Sent(2, 4);
  // Counts 1, 2, 2: worker 0.
  EXPECT_EQ(q.Lowest(5), 0u);
  q.Sent(0, 5);
  // Counts 2, 2, 2: the lowest index.
  EXPECT_EQ(q.Lowest(6), 0u);
  // At t = 61.5 the arrivals before 1.5 have left the window (0 at 0, 1 at 1): 1, 1, 2.
  EXPECT_EQ(q.Lowest(61.5), 0u);
  // At 62: worker 1's arrival at 2 is still in ([2, 62]); worker 0 holds 5 only, worker 1 holds 2.
  q.Sent(0, 62);
  // 0: {5, 62}, 1: {2}, 2: {3, 4}.
  EXPECT_EQ(q.Lowest(62), 1u);
  // At 62.5, worker 1's 2 has left: 0 requests.
  EXPECT_EQ(q.Lowest(62.5), 1u);
  // At 64.5 worker 2's 3 and 4 have left too: 1 and 2 both at 0, worker 1 first.
  EXPECT_EQ(q.Lowest(64.5), 1u);
}

TEST(HashRingTest, AddingOrRemovingAWorkerMovesOnlyItsKeys) {
  const HashRing eight(8), nine(9), seven(7);
  std::map<uint32_t, int> per_worker;
  int moved_to_new = 0, moved_other = 0, moved_from_removed = 0, removed_other = 0;
  const int keys = 20000;
  const double kd = keys;
  for (int k = 0; k < keys; ++k) {
    const uint64_t key = Mix64(static_cast<uint64_t>(k) * 7919 + 1);
    const uint32_t w8 = eight.Node(key), w9 = nine.Node(key), w7 = seven.Node(key);
    ++per_worker[w8];
    if (w9 != w8) (w9 == 8 ? moved_to_new : moved_other)++;
    if (w7 != w8) (w8 == 7 ? moved_from_removed : removed_other)++;
    EXPECT_EQ(eight.Node(key), w8);  // stable
  }
  EXPECT_EQ(moved_other, 0);
  EXPECT_EQ(removed_other, 0);
  EXPECT_EQ(moved_from_removed, per_worker[7]);
  // About 1/9 of the keys move to the new worker, each worker holds about 1/8.
  EXPECT_NEAR(moved_to_new, kd / 9, kd / 30);
  for (const auto& [w, n] : per_worker) EXPECT_NEAR(n, kd / 8, kd / 20) << w;
}

TEST(VllmRouterSession, SessionsStickWithoutOneTheLowestQps) {
  // Sessions 11 and 22; requests 2, 3, 5 carry none.
  Trace t = ViewTrace({TextRec(0, {1}, 11), TextRec(1, {2}, 22), TextRec(2, {3}), TextRec(3, {4}),
                       TextRec(4, {5}, 11), TextRec(5, {6})});
  StaticRoutes r = RouteVllmSession(t, 4, 60);
  const HashRing ring(4);
  EXPECT_EQ(r.worker[0], ring.Node(11));
  EXPECT_EQ(r.worker[1], ring.Node(22));
  EXPECT_EQ(r.worker[4], r.worker[0]);
  EXPECT_EQ(r.fallback_requests, 3u);
  // The fallback: the first worker never sent a request, in index order.
  RouterQps q(4, 60);
  q.Sent(r.worker[0], 0);
  q.Sent(r.worker[1], 1);
  EXPECT_EQ(r.worker[2], q.Lowest(2));
  q.Sent(r.worker[2], 2);
  EXPECT_EQ(r.worker[3], q.Lowest(3));
  q.Sent(r.worker[3], 3);
  q.Sent(r.worker[4], 4);
  EXPECT_EQ(r.worker[5], q.Lowest(5));
  std::set<uint32_t> first_four = {r.worker[0], r.worker[1], r.worker[2], r.worker[3]};
  if (ring.Node(11) != ring.Node(22)) {
    EXPECT_EQ(first_four.size(), 4u);
  }
}

TEST(RouterParams, ParsedCheckedAndListed) {
  auto p = ParseRouterParam("vllm-router-prefix.prefix_min_match_length=256");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->router, "vllm-router-prefix");
  EXPECT_EQ(p->key, "prefix_min_match_length");
  EXPECT_EQ(p->value, 256);
  auto unknown = ParseRouterParam("sglang.x=1");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown router 'sglang'"), std::string::npos);
  EXPECT_NE(unknown.status().message().find("vllm-router-prefix (prefix_min_match_length, "
                                            "request_stats_window)"),
            std::string::npos)
      << unknown.status().message();
  auto key = ParseRouterParam("vllm-router-session.chunk=1");
  ASSERT_FALSE(key.ok());
  EXPECT_NE(key.status().message().find("unknown parameter 'chunk' of vllm-router-session (valid: "
                                        "request_stats_window)"),
            std::string::npos)
      << key.status().message();
  EXPECT_FALSE(ParseRouterParam("vllm-router-session.request_stats_window=x").ok());
  EXPECT_FALSE(ParseRouterParam("vllm-router-session.request_stats_window=-1").ok());
  EXPECT_FALSE(ParseRouterParam("vllm-router-session").ok());

  const RoutingPolicy& prefix = **FindRoutingPolicy("vllm-router-prefix");
  FleetOptions o;
  EXPECT_EQ(RouterParamValue(o, prefix, "request_stats_window"), 60);
  EXPECT_EQ(prefix.Label(o), "vllm-router-prefix");
  o.router_params.push_back(*p);
  EXPECT_EQ(RouterParamValue(o, prefix, "prefix_min_match_length"), 256);
  EXPECT_EQ(prefix.Label(o), "vllm-router-prefix (prefix_min_match_length=256)");
}

TEST(RouterParams, AllIsTheGenericPoliciesNamedTheRouters) {
  auto all = ParseRoutingList("all");
  ASSERT_TRUE(all.ok());
  for (const RoutingPolicy* p : *all) EXPECT_FALSE(p->named()) << p->name();
  auto named = ParseRoutingList("named");
  ASSERT_TRUE(named.ok());
  std::vector<std::string> names;
  for (const RoutingPolicy* p : *named) names.emplace_back(p->name());
  // Every registered router with a source, in registry order (more join as they are written).
  std::vector<std::string> sourced;
  for (const RoutingPolicy* p : RoutingPolicies())
    if (!p->source().empty()) sourced.emplace_back(p->name());
  EXPECT_EQ(names, sourced);
  for (const char* n : {"vllm-router-prefix", "vllm-router-session", "dynamo-kv",
                        "sglang-cache-aware", "aibrix-prefix", "llm-d-prefix"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
}

}  // namespace
}  // namespace ltl
