// Tests for sglang-cache-aware (fleet_route_sglang.cc, smg_tree.h, ingest/router_view.h), each
// rule of the SGLang model gateway's cache_aware policy (lightseekorg/smg@73da68ca) from a
// hand-built case: the routing text (chat.rs), one chained digest per code point, the radix tree
// (a partial edge counts its child, the deepest node's cached tenant else the lowest index, the
// 1-in-8 refresh as an epoch counter, LRU leaf eviction to a size), and the router (the match-rate
// threshold, the guard's two thresholds and its tie order, insertion after a guard choice,
// eviction at the interval, block ids without text).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>
#include <vector>

#include "common/request_record.h"
#include "ingest/router_view.h"
#include "simulate/fleet_hash.h"
#include "simulate/fleet_routers.h"
#include "simulate/router_views.h"
#include "simulate/routing_policy.h"
#include "simulate/smg_tree.h"
#include "simulate/trace.h"

namespace ltl {
namespace {

constexpr uint32_t kBs = 16;
const SipKey kKey{1, 2};

std::string Text(const char* json) {
  simdjson::dom::parser parser;
  simdjson::dom::object obj = parser.parse(std::string(json)).get_object().value();
  std::string out;
  EXPECT_TRUE(SglangRouterText(obj, &out)) << json;
  return out;
}

TEST(SglangView, NonEmptyPiecesJoinedWithSingleSpaces) {
  EXPECT_EQ(Text(R"({"messages":[{"role":"system","content":"sys"},
                                 {"role":"user","content":"hi"}]})"),
            "sys hi");
  // Empty contents and empty text parts are skipped, not joined as "".
  EXPECT_EQ(Text(R"({"messages":[{"role":"user","content":"a"},{"role":"assistant","content":""},
      {"role":"user","content":[{"type":"text","text":""},{"type":"text","text":"b"},
      {"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"c"}]}]})"),
            "a b c");
  // An assistant's reasoning_content follows its content; a null content (a tool call) adds
  // nothing; reasoning on another role is not read.
  EXPECT_EQ(Text(R"({"messages":[{"role":"user","content":"q"},
      {"role":"assistant","content":"ans","reasoning_content":"think"},
      {"role":"assistant","content":null,"reasoning_content":"r2","tool_calls":[]},
      {"role":"tool","tool_call_id":"t","content":"out"},
      {"role":"user","content":"z","reasoning_content":"no"}]})"),
            "q ans think r2 out z");
  EXPECT_EQ(Text(R"({"messages":[{"role":"assistant","content":"","reasoning_content":""}]})"), "");
  // Roles, names, tools are invisible; Anthropic's top-level system comes first.
  EXPECT_EQ(Text(R"({"system":[{"type":"text","text":"S"}],"tools":[{"name":"t"}],
      "messages":[{"role":"user","content":"x"}]})"),
            "S x");
  // Completions: the prompt, an array joined with " " as it is.
  EXPECT_EQ(Text(R"({"prompt":"once upon"})"), "once upon");
  EXPECT_EQ(Text(R"({"prompt":["a","","b"]})"), "a  b");
  simdjson::dom::parser parser;
  std::string out;
  EXPECT_FALSE(
      SglangRouterText(parser.parse(std::string(R"({"input":"x"})")).get_object().value(), &out));
}

TEST(SglangView, OneChainedDigestPerCodePoint) {
  std::vector<uint64_t> a, b, c;
  CodePointDigests(kKey, "abc", &a);
  ASSERT_EQ(a.size(), 3u);
  CodePointDigests(kKey, "abd", &b);
  EXPECT_EQ(a[0], b[0]);
  EXPECT_EQ(a[1], b[1]);
  EXPECT_NE(a[2], b[2]);
  // Chained: the same character at another position is another digest.
  CodePointDigests(kKey, "aa", &c);
  EXPECT_NE(c[0], c[1]);
  // Code points, not bytes: é (2 bytes), 中 (3), 🙂 (4, outside the BMP).
  CodePointDigests(kKey, "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x99\x82x", &c);
  EXPECT_EQ(c.size(), 4u);
  CodePointDigests(kKey, "", &c);
  EXPECT_TRUE(c.empty());
  CodePointDigests(SipKey{3, 4}, "abc", &c);
  EXPECT_NE(c[0], a[0]);
}

std::vector<uint32_t> Ids(std::initializer_list<uint32_t> ids) {
  return ids;
}

TEST(SmgTreeTest, PartialEdgeCountsTheChildAsTheDeepestNode) {
  SmgTree t(4, 0, 1);
  const auto abcdef = Ids({1, 2, 3, 4, 5, 6});
  t.Insert(abcdef.data(), 6, 2);
  // "abcx": 3 shared labels inside the one edge; the child's tenant.
  const auto abcx = Ids({1, 2, 3, 9});
  SmgTree::Match m = t.MatchPrefix(abcx.data(), 4);
  EXPECT_EQ(m.matched, 3u);
  EXPECT_EQ(m.tenant, 2);
  const auto x = Ids({9});
  m = t.MatchPrefix(x.data(), 1);
  EXPECT_EQ(m.matched, 0u);
  EXPECT_EQ(m.tenant, -1);
  EXPECT_EQ(t.size(2), 6u);
}

TEST(SmgTreeTest, CachedTenantIsTheCreatorElseTheLowestIndex) {
  SmgTree t(4, 0, 1);
  const auto one = Ids({1}), other = Ids({5, 6, 7});
  t.Insert(one.data(), 1, 3);  // the node's creator: 3, cached
  t.Insert(one.data(), 1, 2);
  t.Insert(one.data(), 1, 1);                         // now held by 1, 2 and 3
  EXPECT_EQ(t.MatchPrefix(one.data(), 1).tenant, 3);  // the cached tenant, not the lowest
  t.Insert(other.data(), 3, 3);                       // 3 holds 4 labels, [1] the oldest
  t.EvictBySize(3);                                   // 3 loses [1]; 1 and 2 hold 1 label
  EXPECT_EQ(t.size(3), 3u);
  EXPECT_EQ(t.size(2), 1u);
  // The cached tenant no longer holds the node: the lowest index holding it (not the first to
  // join, 2).
  EXPECT_EQ(t.MatchPrefix(one.data(), 1).tenant, 1);
  // A split's upper part copies the lower part's cached tenant.
  SmgTree s(4, 0, 1);
  const auto ab = Ids({1, 2}), ac = Ids({1, 7});
  s.Insert(ab.data(), 2, 3);
  s.Insert(ac.data(), 2, 0);  // [1] split off [1 2]: held by 0 and 3, cached 3
  EXPECT_EQ(s.MatchPrefix(one.data(), 1).tenant, 3);
}

TEST(SmgTreeTest, EpochsOnePerMatchOnePerInsertRefreshEveryEighth) {
  SmgTree t(1, 0, 1);
  const auto ab = Ids({1, 2}), cd = Ids({3, 4});
  t.Insert(ab.data(), 2, 0);  // [1 2] at epoch 0
  t.Insert(cd.data(), 2, 0);  // [3 4] at epoch 1
  EXPECT_EQ(t.epoch(), 2u);
  for (int k = 0; k < 6; ++k) t.MatchPrefix(cd.data(), 2);  // epochs 2..7: no refresh
  t.MatchPrefix(ab.data(), 2);                              // epoch 8: [1 2]'s time becomes 8
  EXPECT_EQ(t.epoch(), 9u);
  // Without the refresh [1 2] (time 0) would be the least recent; now [3 4] (time 1) is.
  t.EvictBySize(2);
  EXPECT_EQ(t.MatchPrefix(ab.data(), 2).matched, 2u);
  EXPECT_EQ(t.MatchPrefix(cd.data(), 2).matched, 0u);
}

TEST(SmgTreeTest, EvictionDropsLeastRecentLeavesToTheSize) {
  SmgTree t(1, 0, 1);
  const auto a = Ids({1, 2, 3, 4}), b = Ids({1, 2, 7, 8}), c = Ids({1, 2, 9});
  t.Insert(a.data(), 4, 0);  // leaf [1 2 3 4], epoch 0
  t.Insert(b.data(), 4, 0);  // split: [1 2] (time copied: 0) -> [3 4] (0), [7 8] (1)
  t.Insert(c.data(), 3, 0);  // [9] (2)
  EXPECT_EQ(t.size(0), 7u);
  t.EvictBySize(5);  // drops [3 4] (time 0) only
  EXPECT_EQ(t.size(0), 5u);
  EXPECT_EQ(t.MatchPrefix(a.data(), 4).matched, 2u);
  EXPECT_EQ(t.MatchPrefix(b.data(), 4).matched, 4u);
  t.EvictBySize(2);  // then [7 8] (1), then [9] (2): [1 2] is left, a leaf again
  EXPECT_EQ(t.size(0), 2u);
  EXPECT_EQ(t.MatchPrefix(c.data(), 3).matched, 2u);
  t.EvictBySize(0);
  EXPECT_EQ(t.live_nodes(), 0u);
}

// Requests with text views: the digests of their text.
RequestRecord TextRec(double t, const std::string& text) {
  RequestRecord r;
  r.time_s = t;
  r.has_time = true;
  r.block_size = kBs;
  r.input_tokens = kBs;
  r.output_tokens = 10;
  r.block_ids = {Mix64(static_cast<uint64_t>(t * 1000) + 1)};
  r.view.text = true;
  CodePointDigests(kKey, text, &r.view.code_points);
  return r;
}

Trace ViewTrace(std::vector<RequestRecord> records) {
  Trace t = BuildTrace(records);
  AttachRouterViews(&records, &t);
  return t;
}

struct Fleet {
  explicit Fleet(uint32_t n) : match(n, 0), load(n, 0), blocks(n, 0) {}
  WorkerView view() { return {&match, &load, &blocks}; }
  std::vector<uint32_t> match;
  std::vector<int64_t> load, blocks;
};

FleetOptions Options(uint32_t workers, std::vector<std::pair<std::string, double>> params = {}) {
  FleetOptions o;
  o.workers = workers;
  for (auto& [k, v] : params) o.router_params.push_back({"sglang-cache-aware", k, v});
  return o;
}

const CacheAwareRouter& Router() {
  return *(*FindRoutingPolicy("sglang-cache-aware"))->AsCacheAware();
}

TEST(SglangCacheAware, MatchRateMustExceedTheThreshold) {
  // 10 characters, 3 shared (0.3: not above) vs 4 shared (0.4).
  Trace t =
      ViewTrace({TextRec(1, "abcdefghij"), TextRec(2, "abcXXXXXXX"), TextRec(3, "abcdYYYYYY")});
  FleetOptions o = Options(3);
  auto run = Router().Start(t, o);
  Fleet f(3);
  EXPECT_EQ(run->Choose(0, f.view()).worker, 0u);  // empty tree: min-load (all 0): index 0
  // Request 1 matches 3 of 10 = 0.3: min-load by (load, processed, index): 1.
  EXPECT_EQ(run->Choose(1, f.view()).worker, 1u);
  // Request 2 matches "abcd" = 0.4 on 0's edge: the partial child's tenant.
  EXPECT_EQ(run->Choose(2, f.view()).worker, 0u);
}

TEST(SglangCacheAware, GuardNeedsBothThresholdsTiesByLoadProcessedIndex) {
  std::vector<RequestRecord> recs;
  for (int i = 0; i < 8; ++i) recs.push_back(TextRec(i, "shared prompt text"));
  Trace t = ViewTrace(recs);
  FleetOptions o = Options(3, {{"balance_abs_threshold", 4}, {"balance_rel_threshold", 1.5}});
  auto run = Router().Start(t, o);
  Fleet f(3);
  EXPECT_EQ(run->Choose(0, f.view()).worker, 0u);
  // Rel met (10 > 1.5 x 7 is not: 10.5), abs not (3): the cache choice.
  f.load = {10, 7, 7};
  RouteChoice c = run->Choose(1, f.view());
  EXPECT_FALSE(c.guard);
  EXPECT_EQ(c.worker, 0u);
  // Rel met (10 > 1.5 x 5), abs met (5 > 4): the guard; min-load ties: worker 1 and 2 both at
  // load 5, neither routed to yet: index 1.
  f.load = {10, 5, 5};
  c = run->Choose(2, f.view());
  EXPECT_TRUE(c.guard);
  EXPECT_EQ(c.worker, 1u);
  // Same loads: worker 1 has now processed one, worker 2 none: 2.
  c = run->Choose(3, f.view());
  EXPECT_TRUE(c.guard);
  EXPECT_EQ(c.worker, 2u);
  // Abs met (20 - 14 > 4) but not rel (20 > 21 false): no guard.
  f.load = {20, 14, 14};
  c = run->Choose(4, f.view());
  EXPECT_FALSE(c.guard);
  // Lower load wins over fewer processed.
  f.load = {10, 4, 5};
  EXPECT_EQ(run->Choose(5, f.view()).worker, 1u);
}

TEST(SglangCacheAware, GuardChoiceIsInsertedForItsWorker) {
  Trace t = ViewTrace({TextRec(1, "first prompt"), TextRec(2, "another prompt entirely"),
                       TextRec(3, "another prompt entirely, continued")});
  FleetOptions o = Options(2, {{"balance_abs_threshold", 1}, {"balance_rel_threshold", 1}});
  auto run = Router().Start(t, o);
  Fleet f(2);
  EXPECT_EQ(run->Choose(0, f.view()).worker, 0u);
  f.load = {3, 0};
  RouteChoice c = run->Choose(1, f.view());
  EXPECT_TRUE(c.guard);
  EXPECT_EQ(c.worker, 1u);
  // Balanced again: the continuation matches the guard's insertion, held by worker 1 only.
  f.load = {0, 1};
  c = run->Choose(2, f.view());
  EXPECT_FALSE(c.guard);
  EXPECT_EQ(c.worker, 1u);
}

TEST(SglangCacheAware, EvictionAtTheFirstRequestAfterEachInterval) {
  // max_tree_size 5 characters, interval 10 s from the first request (t = 100).
  Trace t = ViewTrace({TextRec(100, "0123456789"), TextRec(109.9, "0123456789abc"),
                       TextRec(110, "0123456789xyz"), TextRec(111, "0123456789")});
  FleetOptions o = Options(2, {{"eviction_interval", 10}, {"max_tree_size", 5}});
  auto run = Router().Start(t, o);
  Fleet f(2);
  EXPECT_EQ(run->Choose(0, f.view()).worker, 0u);
  // Not yet evicted at 109.9: 10 of 13 matched on worker 0's prompt.
  EXPECT_EQ(run->Choose(1, f.view()).worker, 0u);
  // At 110 the eviction runs first: worker 0 held 13 characters ([0-9] time 1, [abc] time 3);
  // its leaves go until it holds <= 5: [abc], then [0-9], a leaf again. Nothing left to match:
  // min-load, worker 1 (fewer processed).
  EXPECT_EQ(run->Choose(2, f.view()).worker, 1u);
  // Worker 1's insertion stands (the next eviction is at 120).
  EXPECT_EQ(run->Choose(3, f.view()).worker, 1u);
}

TEST(SglangCacheAware, ViewLineSaysTokenBlocksInGrpcMode) {
  const std::string chars = Router().ViewLine(Options(2));
  EXPECT_EQ(chars.rfind("matches characters (code points)", 0), 0u) << chars;
  const std::string tokens = Router().ViewLine(Options(2, {{"tokens", 1}}));
  EXPECT_EQ(tokens.rfind("matches the request's full token blocks", 0), 0u) << tokens;
}

TEST(SglangCacheAware, WithoutTextRoutesOnBlockIds) {
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
  FleetOptions o = Options(4);
  auto run = Router().Start(t, o);
  Fleet f(4);
  f.load = {1, 0, 0, 0};
  EXPECT_EQ(run->Choose(0, f.view()).worker, 1u);
  f.load = {0, 1, 0, 0};
  EXPECT_EQ(run->Choose(1, f.view()).worker, 1u);  // 2 of 3 blocks: above 0.3
  EXPECT_EQ(run->Choose(2, f.view()).worker, 1u);
}

}  // namespace
}  // namespace ltl
