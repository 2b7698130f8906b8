// Tests for llm-d-prefix (simulate/fleet_route_llmd_prefix.cc), each rule from a hand-built case:
// the bytes it hashes (Go's json.Marshal of the parsed messages, the completions prompt), 64-byte
// chunks with the partial tail, the chain and its model/cache_salt seed (the view); the index
// (each holder's count, the per-pod LRU's capacity and refresh, holders outliving the LRU when a
// request has more chunks than it, the maxPrefixBlocksToMatch cut); the scorers (prefix,
// load-aware and its threshold, queue with its all-equal case, kv-util) and the weights of each
// configuration; the seeded shuffle for ties; block ids without text; the parameters.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdint>
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

std::string Input(const char* json, std::string* seed = nullptr) {
  simdjson::dom::parser parser;
  simdjson::dom::object obj = parser.parse(std::string(json)).get_object().value();
  std::string out, s;
  EXPECT_TRUE(LlmdUserInput(obj, &out, &s)) << json;
  if (seed) *seed = s;
  return out;
}

bool NoInput(const char* json) {
  simdjson::dom::parser parser;
  std::string out, seed;
  return !LlmdUserInput(parser.parse(std::string(json)).get_object().value(), &out, &seed);
}

TEST(LlmdView, MessagesAsGoMarshalsThem) {
  // Role then content; every other field (name, tool calls, tools, system) dropped.
  std::string seed;
  EXPECT_EQ(Input(R"({"model":"m1","cache_salt":"s","tools":[{"type":"function"}],"messages":[
      {"content":"sys","role":"system","name":"n"},
      {"role":"assistant","content":null,"tool_calls":[{"id":"x"}]},
      {"role":"tool","tool_call_id":"x","content":"r"}]})",
                  &seed),
            R"([{"role":"system","content":"sys"},{"role":"assistant","content":""},)"
            R"({"role":"tool","content":"r"}])");
  EXPECT_EQ(seed, "m1s");
  // An empty or missing role is omitted; a missing content is "".
  EXPECT_EQ(Input(R"({"messages":[{"content":"a"},{"role":""}]})"),
            R"([{"content":"a"},{"content":""}])");
  // Content blocks: every field of ContentBlock, "text" and the inner fields omitted when empty.
  EXPECT_EQ(Input(R"({"messages":[{"role":"user","content":[{"type":"text","text":"hi",
      "cache_control":{"type":"ephemeral"}},{"type":"image_url","image_url":{"url":"u","detail":"d"}}]},
      {"role":"user","content":[]}]})"),
            R"([{"role":"user","content":[{"type":"text","text":"hi","image_url":{},)"
            R"("input_audio":{},"video_url":{}},{"type":"image_url","image_url":{"url":"u"},)"
            R"("input_audio":{},"video_url":{}}]},{"role":"user","content":[]}])");
  // Go's string escaping: HTML characters, short escapes, other control bytes, U+2028.
  EXPECT_EQ(
      Input(R"({"messages":[{"role":"user","content":"<a&b>\"\\\n\t\b\f\r\u0001\u007f\u2028é"}]})"),
      "[{\"role\":\"user\",\"content\":\"\\u003ca\\u0026b\\u003e\\\"\\\\\\n\\t\\b\\f\\r"
      "\\u0001\x7f\\u2028\xc3\xa9\"}]");
  // Completions: the prompt as it is; a list of strings joined with " "; token ids: nothing.
  EXPECT_EQ(Input(R"({"prompt":"<raw> & \"text\""})"), "<raw> & \"text\"");
  EXPECT_EQ(Input(R"({"prompt":["a","b"]})"), "a b");
  EXPECT_EQ(Input(R"({"prompt":[1,2]})"), "");
  // What Go fails to parse hashes nothing.
  EXPECT_TRUE(NoInput(R"({"messages":[{"role":"user","content":5}]})"));
  EXPECT_TRUE(NoInput(R"({"messages":[{"role":1,"content":"a"}]})"));
  EXPECT_TRUE(NoInput(R"({"messages":["a"]})"));
  EXPECT_TRUE(NoInput(R"({"messages":[{"content":[{"type":"image_url","image_url":"u"}]}]})"));
  EXPECT_TRUE(NoInput(R"({"input":"responses are not modelled"})"));
}

uint64_t Chain(std::string_view chunk, uint64_t prev) {
  std::string buf(chunk);
  buf.append(reinterpret_cast<const char*>(&prev), sizeof prev);
  return SipHash24(kKey, buf);
}

TEST(LlmdView, ChunksOf64BytesChainedWithAPartialTail) {
  const std::string a(64, 'a'), b(64, 'b');
  std::vector<uint64_t> d;
  LlmdChunkDigests(kKey, "m", a.substr(0, 63), 64, 256, &d);
  EXPECT_TRUE(d.empty());  // shorter than one chunk: nothing
  LlmdChunkDigests(kKey, "m", a, 64, 256, &d);
  const uint64_t seed = SipHash24(kKey, std::string_view("m"));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0], Chain(a, seed));
  LlmdChunkDigests(kKey, "m", a + b + "xy", 64, 256, &d);
  ASSERT_EQ(d.size(), 3u);  // the partial tail "xy" is a chunk too
  EXPECT_EQ(d[1], Chain(b, d[0]));
  EXPECT_EQ(d[2], Chain("xy", d[1]));
  // Chained: "b" after another chunk is another digest; another model or salt, another chain.
  std::vector<uint64_t> e;
  LlmdChunkDigests(kKey, "m", b + b, 64, 256, &e);
  EXPECT_NE(e[1], d[1]);
  LlmdChunkDigests(kKey, "m2", a, 64, 256, &e);
  EXPECT_NE(e[0], d[0]);
  // At most max_blocks chunks: the input is cut there (the tail beyond is not hashed).
  std::string many;
  for (int i = 0; i < 300; ++i) many += std::string(64, static_cast<char>('A' + i % 26));
  LlmdChunkDigests(kKey, "m", many + "z", 64, 256, &e);
  ASSERT_EQ(e.size(), 256u);
  std::vector<uint64_t> all;
  LlmdChunkDigests(kKey, "m", many + "z", 64, SIZE_MAX, &all);
  ASSERT_EQ(all.size(), 301u);
  EXPECT_TRUE(std::equal(e.begin(), e.end(), all.begin()));
}

// A request whose view is the given chunk digests (small integers do).
RequestRecord Rec(double t, std::vector<uint64_t> blocks) {
  RequestRecord r;
  r.time_s = t;
  r.has_time = true;
  r.block_size = 16;
  r.input_tokens = 16;
  r.output_tokens = 10;
  r.block_ids = {Mix64(static_cast<uint64_t>(t * 1000) + 1)};
  r.view.text = true;
  r.view.llmd_blocks = std::move(blocks);
  return r;
}

// The documented draws: one SplitMix64 stream from the seed; the shuffle's first pod.
struct Draws {
  uint64_t state;
  uint32_t Below(uint32_t n) {
    state += 0x9e3779b97f4a7c15ull;
    return static_cast<uint32_t>((static_cast<unsigned __int128>(SplitMix64Finalizer(state)) * n) >>
                                 64);
  }
  std::vector<uint32_t> Shuffled(uint32_t n) {
    std::vector<uint32_t> order(n);
    for (uint32_t w = 0; w < n; ++w) order[w] = w;
    for (uint32_t j = n - 1; j > 0; --j) std::swap(order[j], order[Below(j + 1)]);
    return order;
  }
};

RouterParamSetting Param(const char* key, double value) {
  return RouterParamSetting{"llm-d-prefix", key, value};
}

// One run of the router over records, fed queues (and in-flight blocks) by hand.
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
    run_ = (*FindRoutingPolicy("llm-d-prefix"))->AsCacheAware()->Start(trace_, options_);
  }
  uint32_t To(size_t i, std::vector<int64_t> queue, std::vector<int64_t> blocks = {}) {
    queue_ = std::move(queue);
    blocks_ = blocks.empty() ? std::vector<int64_t>(queue_.size(), 0) : std::move(blocks);
    WorkerView view{&match_, &queue_, &blocks_};
    return run_->Choose(i, view).worker;
  }

 private:
  Trace trace_;
  FleetOptions options_;
  std::vector<uint32_t> match_;
  std::vector<int64_t> queue_, blocks_;
  std::unique_ptr<RouterRun> run_;
};

// estimate (the default configuration): prefix 1 + load-aware 1.
TEST(LlmdPrefix, EstimateWeighsPrefixAgainstLoadAware) {
  // Pod 0 holds 1, 2, 3. Request 1..4: prefix 3/4. At q = 10, 0.75 + 0.5 x 118/128 = 1.21
  // beats the idle pod's 0.5.
  Replay r({Rec(0, {1, 2, 3}), Rec(1, {1, 2, 3, 4}), Rec(2, {1, 9, 9, 9}), Rec(3, {1, 2, 3})}, 2);
  EXPECT_EQ(r.To(0, {0, 1}), 0u);  // 0.5 against 0.5 x 127/128
  EXPECT_EQ(r.To(1, {10, 0}), 0u);
  // 1/4 at q = 128 (load-aware 0) against the idle pod's 0.5: the idle pod.
  EXPECT_EQ(r.To(2, {128, 0}), 1u);
  // Pods 0 and 1 both hold chunk 1; pod 0 holds 1, 2, 3: 1.0 at q = 200 (0) against 1/3 + 0.5.
  EXPECT_EQ(r.To(3, {200, 0}), 0u);
}

TEST(LlmdPrefix, LoadAwareThreshold) {
  // No prefix anywhere: q = 1 (0.4961) beats q = 2 (0.4922); with threshold 1 both score 0 and
  // the shuffle decides.
  for (uint64_t seed = 1; seed < 20; ++seed) {
    Replay r({Rec(0, {})}, 2, seed);
    EXPECT_EQ(r.To(0, {1, 2}), 0u);
    Replay t({Rec(0, {})}, 2, seed, {Param("threshold", 1)});
    Draws d{seed};
    EXPECT_EQ(t.To(0, {1, 2}), d.Shuffled(2)[0]) << seed;
  }
}

TEST(LlmdPrefix, DefaultIsPrefixOnly) {
  // prefix 2: the holder wins whatever its queue.
  Replay r({Rec(0, {1, 2}), Rec(1, {1, 2, 3, 4})}, 2, 1, {Param("config", 1)});
  Draws d{1};
  const uint32_t holder = d.Shuffled(2)[0];
  EXPECT_EQ(r.To(0, {0, 0}), holder);
  std::vector<int64_t> q = {0, 0};
  q[holder] = 1000;
  EXPECT_EQ(r.To(1, q), holder);
}

TEST(LlmdPrefix, GieWeighsQueueKvUtilAndPrefix) {
  // No prefix: 2 x queue + 2 x kv-util, usage = in-flight blocks / lruCapacityPerServer (100).
  const std::vector<RouterParamSetting> gie = {Param("config", 2),
                                               Param("lruCapacityPerServer", 100)};
  {
    Replay r({Rec(0, {}), Rec(1, {}), Rec(2, {}), Rec(3, {})}, 3, 1, gie);
    // queue 1, 0.5, 0 (q 0, 5, 10); kv-util 0, 1, 1: 2, 3, 2.
    EXPECT_EQ(r.To(0, {0, 5, 10}, {100, 0, 0}), 1u);
    // kv-util 0.1, 0.4, 1: 2.2, 1.8, 2.
    EXPECT_EQ(r.To(1, {0, 5, 10}, {90, 60, 0}), 0u);
    // Every queue equal: queue 1 for all; kv-util 0.5, 1, 0.8.
    EXPECT_EQ(r.To(2, {3, 3, 3}, {50, 0, 20}), 1u);
    // Usage is at most 1: 500 blocks score as 100 (kv-util 0, not -4): queue 1, 0, 0 and kv-util
    // 0, 0.9, 0 give 2, 1.8, 0.
    EXPECT_EQ(r.To(3, {0, 10, 10}, {500, 10, 100}), 0u);
  }
  {
    Replay r({Rec(0, {1, 2}), Rec(1, {1, 2}), Rec(2, {1, 2, 3, 4})}, 3, 1, gie);
    EXPECT_EQ(r.To(0, {0, 1, 1}, {0, 0, 0}), 0u);  // queue 1, 0, 0: 4, 2, 2
    // prefix 3: pod 0 holds 1, 2 (3 x 1) at queue 0 (the longest) and kv-util 0.6: 4.2, against
    // pod 1's 2 x 1 + 2 x 1 = 4 and pod 2's 2 x 0.5 + 2 = 3.
    EXPECT_EQ(r.To(1, {4, 0, 2}, {40, 0, 0}), 0u);
    // Half the chunks: 3 x 0.5 + 0 + 2 x 0.9 = 3.3 against pod 1's 4.
    EXPECT_EQ(r.To(2, {4, 0, 2}, {10, 0, 0}), 1u);
  }
}

TEST(LlmdPrefix, EachHolderCountsTheChunksOfTheRun) {
  // Pod 0 holds 1, 2, 3; pod 1 holds 1, 5, 6. Request 1, 2, 3, 4: pod 0 3/4, pod 1 1/4; at q 128
  // and 0 both score 0.75: the shuffle decides.
  for (uint64_t seed = 1; seed < 30; ++seed) {
    Replay r({Rec(0, {1, 2, 3}), Rec(1, {1, 5, 6}), Rec(2, {1, 2, 3, 4})}, 2, seed);
    Draws d{seed};
    EXPECT_EQ(r.To(0, {0, 1}), 0u);
    d.Shuffled(2);
    EXPECT_EQ(r.To(1, {128, 0}), 1u);  // 1/3 + 0 against 0 + 0.5
    d.Shuffled(2);
    EXPECT_EQ(r.To(2, {128, 0}), d.Shuffled(2)[0]) << seed;
  }
  // The walk stops at the first chunk nobody holds: 1, 9, 2, 3 matches one chunk on pod 0.
  Replay r({Rec(0, {1, 2, 3}), Rec(1, {1, 9, 2, 3})}, 2);
  EXPECT_EQ(r.To(0, {0, 1}), 0u);
  EXPECT_EQ(r.To(1, {128, 0}), 1u);  // 1/4 + 0 against 0.5 (3/4 would have won)
}

TEST(LlmdPrefix, ThePodLruHoldsLruCapacityPerServerChunks) {
  for (double cap : {2.0, 3.0}) {
    Replay r({Rec(0, {1, 2}), Rec(1, {3}), Rec(2, {4}), Rec(3, {1, 2})}, 2, 1,
             {Param("lruCapacityPerServer", cap)});
    EXPECT_EQ(r.To(0, {0, 1}), 0u);
    EXPECT_EQ(r.To(1, {1, 0}), 1u);
    EXPECT_EQ(r.To(2, {0, 1}), 0u);  // pod 0: 1, 2, 4 — with room for 2, chunk 1 goes
    EXPECT_EQ(r.To(3, {1, 0}), cap == 2 ? 1u : 0u) << cap;
  }
  // An add refreshes: 1, 2 added again after 4 are the newest, so 5 evicts 4, not 1.
  Replay r({Rec(0, {1, 2}), Rec(1, {4}), Rec(2, {1, 2}), Rec(3, {5}), Rec(4, {1, 2}), Rec(5, {4})},
           2, 1, {Param("lruCapacityPerServer", 3)});
  EXPECT_EQ(r.To(0, {0, 1}), 0u);
  EXPECT_EQ(r.To(1, {0, 1}), 0u);  // 1, 2, 4
  EXPECT_EQ(r.To(2, {1, 0}), 0u);  // 1.0 + 0.496 against 0.5; order 4, 1, 2
  EXPECT_EQ(r.To(3, {0, 1}), 0u);  // 5 in, 4 out: 1, 2, 5
  EXPECT_EQ(r.To(4, {1, 0}), 0u);
  EXPECT_EQ(r.To(5, {1, 0}), 1u);  // 4 gone from pod 0: the idle pod
}

TEST(LlmdPrefix, MoreChunksThanTheLruLeavesHoldersBehind) {
  // Capacity 1: adding 1 then 2 evicts 1 before the pod is a holder of it, then the pod is added
  // to the holders of both — chunk 1 stays matched although no LRU holds it (indexer.go's order).
  Replay r({Rec(0, {1, 2}), Rec(1, {1, 2}), Rec(2, {3}), Rec(3, {1, 2})}, 2, 1,
           {Param("lruCapacityPerServer", 1)});
  EXPECT_EQ(r.To(0, {0, 1}), 0u);
  EXPECT_EQ(r.To(1, {1, 0}), 0u);  // both chunks matched: 1.0 + 0.496
  EXPECT_EQ(r.To(2, {0, 1}), 0u);  // 3 in: 2 out of the LRU and of the holders; 1 stays
  EXPECT_EQ(r.To(3, {1, 0}), 0u);  // 1/2 + 0.496 = 0.996 against 0.5
}

TEST(LlmdPrefix, MaxPrefixBlocksToMatchCutsTheRequest) {
  // Pod 0 holds 1, 2; request 1, 2, 9, 10, 11, 12 at q 128: 2/6 against the idle pod's 0.5; cut
  // at 2 chunks it is 2/2.
  for (double cut : {256.0, 2.0}) {
    Replay r({Rec(0, {1, 2}), Rec(1, {1, 2, 9, 10, 11, 12})}, 2, 1,
             {Param("maxPrefixBlocksToMatch", cut)});
    EXPECT_EQ(r.To(0, {0, 1}), 0u);
    EXPECT_EQ(r.To(1, {128, 0}), cut == 2 ? 0u : 1u) << cut;
  }
}

TEST(LlmdPrefix, TiesGoToTheSeededShuffle) {
  std::vector<uint32_t> seen(4, 0);
  for (uint64_t seed = 1; seed < 60; ++seed) {
    Replay r({Rec(0, {}), Rec(1, {})}, 4, seed);
    Replay again({Rec(0, {}), Rec(1, {})}, 4, seed);
    Draws d{seed};
    const uint32_t first = r.To(0, {0, 0, 0, 0});
    EXPECT_EQ(first, d.Shuffled(4)[0]);
    EXPECT_EQ(again.To(0, {0, 0, 0, 0}), first);  // the same seed, the same choice
    ++seen[first];
    // Three draws every request, ties or not: the next tie is the next shuffle's first.
    EXPECT_EQ(r.To(1, {0, 0, 0, 0}), d.Shuffled(4)[0]);
  }
  for (uint32_t n : seen) EXPECT_GT(n, 0u);
}

TEST(LlmdPrefix, WithoutTextRoutesOnBlockIds) {
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
  Replay r(recs, 3);
  EXPECT_EQ(r.To(0, {1, 1, 0}), 2u);
  EXPECT_EQ(r.To(1, {0, 0, 10}), 2u);  // 2/3 + 0.46 against 0.5
  EXPECT_EQ(r.To(2, {0, 0, 10}), 2u);
}

TEST(LlmdPrefix, NamedWithItsParameters) {
  const RoutingPolicy& p = **FindRoutingPolicy("llm-d-prefix");
  EXPECT_TRUE(p.named());
  EXPECT_TRUE(p.text_view());
  EXPECT_EQ(p.view_kinds(), static_cast<uint32_t>(kViewLlmdBlocks));
  EXPECT_NE(p.source().find("llm-d-inference-scheduler@520af478"), std::string_view::npos);
  FleetOptions o;
  EXPECT_EQ(RouterParamValue(o, p, "config"), 0);
  EXPECT_EQ(RouterParamValue(o, p, "lruCapacityPerServer"), 31250);
  EXPECT_EQ(RouterParamValue(o, p, "maxPrefixBlocksToMatch"), 256);
  EXPECT_EQ(RouterParamValue(o, p, "threshold"), 128);
  auto gie = ParseRouterParam("llm-d-prefix.config=gie");
  ASSERT_TRUE(gie.ok());
  EXPECT_EQ(gie->value, 2);
  o.router_params.push_back(*gie);
  EXPECT_EQ(p.Label(o), "llm-d-prefix (config=gie)");
  auto bad = ParseRouterParam("llm-d-prefix.config=precise");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("estimate, default, gie"), std::string::npos);
  EXPECT_FALSE(ParseRouterParam("llm-d-prefix.blockSize=4").ok());
  // The index is accepted as well (what a sweep's check of the key passes), nothing beyond.
  EXPECT_EQ(ParseRouterParam("llm-d-prefix.config=1")->value, 1);
  EXPECT_FALSE(ParseRouterParam("llm-d-prefix.config=3").ok());
  EXPECT_FALSE(ParseRouterParam("llm-d-prefix.config=0.5").ok());
  auto sweep = ParseRouterSweep("llm-d-prefix.config=estimate,gie,default");
  ASSERT_TRUE(sweep.ok()) << sweep.status().message();
  ASSERT_EQ(sweep->size(), 3u);
  EXPECT_EQ((*sweep)[1].value, 2);
}

}  // namespace
}  // namespace ltl
