// ProviderFactsBuilder (ingest/provider_facts.h), the price table (analyze/provider_prices.h) and
// the per-request loss of ReplayProviderCache (simulate/provider_gap.h), each against cases worked
// out by hand.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>

#include "analyze/provider_prices.h"
#include "common/segment_map.h"
#include "common/siphash.h"
#include "ingest/provider_facts.h"
#include "simulate/provider_cache.h"
#include "simulate/provider_gap.h"

namespace ltl {
namespace {

struct Built {
  simdjson::dom::parser parser;
  ProviderFacts facts;
};

void Build(const std::string& json, const PromptFacts& segments, int64_t cut, int64_t prompt,
           Built* b) {
  simdjson::dom::object body;
  ASSERT_EQ(b->parser.parse(json).get_object().get(body), simdjson::SUCCESS);
  ProviderFactsBuilder builder(SipKey{1, 2});
  builder.Build(body, segments, cut, prompt, &b->facts);
}

SegmentFact Seg(uint32_t start, SegmentKind kind, uint16_t item) {
  SegmentFact f;
  f.token_start = start;
  f.kind = static_cast<uint8_t>(kind);
  f.item = item;
  return f;
}

TEST(ProviderFacts, OpenAiKeyAndRetention) {
  PromptFacts none;
  Built a, b, c;
  Build(R"({"model":"gpt-4.1","prompt_cache_key":"tenant-1","prompt_cache_retention":"24h",
            "messages":[{"role":"user","content":"hi"}]})",
        none, 10, 10, &a);
  Build(R"({"model":"gpt-4.1","prompt_cache_key":"tenant-1","messages":[]})", none, 10, 10, &b);
  Build(R"({"model":"gpt-4.1","prompt_cache_key":"tenant-2","prompt_cache_retention":"in_memory",
            "messages":[]})",
        none, 10, 10, &c);
  EXPECT_NE(a.facts.cache_key, 0u);
  EXPECT_EQ(a.facts.cache_key, b.facts.cache_key);
  EXPECT_NE(a.facts.cache_key, c.facts.cache_key);
  EXPECT_TRUE(a.facts.retention_24h);
  EXPECT_FALSE(c.facts.retention_24h);
  EXPECT_TRUE(
      a.facts.blocks.empty());  // no cache_control anywhere: nothing a breakpoint cache holds
}

// Tools T0, T1, a one-block system, one user message of two equal blocks: segments put T0 at 0,
// T1 at 10, the system at 20 and the message at 50 of 100 cut tokens; the log says 200 tokens.
// By hand: T0 ends at 10, T1 at 20, the system at 50, the message's blocks split [50, 100] evenly
// (75, 100); scaled x2: 20, 40, 100, 150, 200.
TEST(ProviderFacts, AnthropicBlocksFromSegmentsScaledToTheLoggedPrompt) {
  PromptFacts segs;
  segs.cache_control = 0;
  segs.segments = {Seg(0, SegmentKind::kTools, 0), Seg(10, SegmentKind::kTools, 1),
                   Seg(20, SegmentKind::kSystem, 0xffff), Seg(50, SegmentKind::kMessage, 0)};
  const std::string body =
      R"({"model":"claude-sonnet-4-5","tools":[{"name":"a"},{"name":"b","cache_control":{"type":"ephemeral"}}],
          "system":[{"type":"text","text":"sys"}],
          "messages":[{"role":"user","content":[{"type":"text","text":"xx"},
            {"type":"text","text":"yy","cache_control":{"type":"ephemeral","ttl":"1h"}}]}]})";
  Built b;
  Build(body, segs, 100, 200, &b);
  ASSERT_EQ(b.facts.blocks.size(), 5u);
  const uint32_t ends[] = {20, 40, 100, 150, 200};
  const uint8_t bps[] = {0, 1, 0, 0, 2};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(b.facts.blocks[i].tokens, ends[i]) << i;
    EXPECT_EQ(b.facts.blocks[i].breakpoint, bps[i]) << i;
  }
  // The same body with the last block's text changed: the first four prefixes are the same, the
  // fifth differs; cache_control markers are not content.
  std::string other = body;
  other.replace(other.find("\"yy\""), 4, "\"zz\"");
  Built c;
  Build(other, segs, 100, 200, &c);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(b.facts.blocks[i].prefix, c.facts.blocks[i].prefix);
  EXPECT_NE(b.facts.blocks[4].prefix, c.facts.blocks[4].prefix);
  std::string unmarked = body;
  const std::string marker = R"(,"cache_control":{"type":"ephemeral"})";
  unmarked.replace(unmarked.find(marker), marker.size(), "");
  Built d;
  Build(unmarked, segs, 100, 200, &d);
  ASSERT_EQ(d.facts.blocks.size(), 5u);
  EXPECT_EQ(d.facts.blocks[1].prefix, b.facts.blocks[1].prefix);
  EXPECT_EQ(d.facts.blocks[1].breakpoint, 0);
}

TEST(ProviderFacts, AutomaticCachingAndAFallbackWithoutSegments) {
  PromptFacts none;  // no segments: blocks split the prompt by their canonical JSON bytes
  Built b;
  Build(R"({"model":"claude-opus-4-5","cache_control":{"type":"ephemeral","ttl":"1h"},
            "system":"s","messages":[{"role":"user","content":"question"}]})",
        none, 40, 40, &b);
  EXPECT_EQ(b.facts.automatic, 2);
  ASSERT_EQ(b.facts.blocks.size(), 2u);
  EXPECT_LT(b.facts.blocks[0].tokens, b.facts.blocks[1].tokens);
  EXPECT_EQ(b.facts.blocks[1].tokens, 40u);
}

TEST(ProviderPrices, LongestKeyWinsAcrossVendorsModelStrings) {
  const PriceTable t = DefaultPriceTable();
  const ModelPrice* bedrock = t.Find("anthropic.claude-sonnet-4-5-20250929-v1:0");
  ASSERT_NE(bedrock, nullptr);
  EXPECT_EQ(bedrock->input, 3);
  EXPECT_EQ(bedrock->cached_read, 0.3);
  EXPECT_EQ(bedrock->cache_write_5m, 3.75);
  EXPECT_EQ(bedrock->cache_write_1h, 6);
  const ModelPrice* haiku = t.Find("claude-3-5-haiku-20241022");
  ASSERT_NE(haiku, nullptr);
  EXPECT_EQ(haiku->input, 0.8);
  const ModelPrice* mini = t.Find("gpt-4o-mini-2024-07-18");
  ASSERT_NE(mini, nullptr);
  EXPECT_EQ(mini->input, 0.15);  // not gpt-4o's 2.50
  const ModelPrice* dotted = t.Find("gpt-4.1");
  ASSERT_NE(dotted, nullptr);
  EXPECT_EQ(dotted->cached_read, 0.5);
  EXPECT_EQ(t.Find("qwen3-32b"), nullptr);
}

TEST(ProviderPrices, PriceFilesAddReplaceAndFailWithTheirPath) {
  PriceTable t = DefaultPriceTable();
  ASSERT_TRUE(MergePriceFile("p.json",
                             R"({"date":"2026-12-01","models":{
                                 "my-model":{"input":1,"cached_read":0.1,"output":2},
                                 "gpt-4.1":{"input":9,"cached_read":1,"output":9,
                                            "cache_write_5m":9.5}}})",
                             &t)
                  .ok());
  const ModelPrice* mine = t.Find("my-model-v2");
  ASSERT_NE(mine, nullptr);
  EXPECT_EQ(mine->cache_write_5m, 1);  // no write surcharge given: writes cost input
  EXPECT_EQ(mine->date, "2026-12-01");
  EXPECT_EQ(t.Find("gpt-4.1")->input, 9);
  EXPECT_EQ(t.Find("gpt-4.1")->cache_write_1h, 9.5);
  Status bad =
      MergePriceFile("p.json", R"({"models":{"x":{"input":-1,"cached_read":0,"output":0}}})", &t);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(), R"(p.json: $.models["x"].input: not a price in [0, 1e6] $/MTok)");
  bad = MergePriceFile("p.json", R"({"models":{"x":{"input":1,"output":0}}})", &t);
  EXPECT_EQ(bad.message(), R"(p.json: $.models["x"].cached_read: missing)");
  bad = MergePriceFile("p.json", "{", &t);
  EXPECT_NE(bad.message().find("p.json: $: not valid JSON"), std::string::npos);
}

// Two OpenAI requests of 1,024 tokens (64 blocks of 16), the second 400 s after the first: the TTL
// takes its whole read away, and only the TTL's per-request loss shows it (1,024 at request 1).
TEST(ProviderGap, PerRequestLossOfTheTracedRule) {
  std::vector<uint32_t> ids(64);
  for (uint32_t i = 0; i < 64; ++i) ids[i] = i + 1;
  auto request = [&](size_t i) {
    ProviderRequest r;
    r.time_s = i == 0 ? 0 : 400;
    r.model = "gpt-4.1";
    r.prompt_tokens = 1024;
    r.blocks = ids.data();
    r.num_blocks = 64;
    r.block_size = 16;
    return r;
  };
  auto model = FindProviderCacheModel("openai");
  ASSERT_TRUE(model.ok());
  ProviderReplayResult r = ReplayProviderCache(**model, ProviderRules{}, 2, request, "ttl");
  ASSERT_EQ(r.loss.size(), 2u);
  EXPECT_EQ(r.loss[0], 0);
  EXPECT_EQ(r.loss[1], 1024);
  EXPECT_EQ(r.predictions[1].read, 0);
  EXPECT_EQ(r.rule_free_read, 1024);
}

}  // namespace
}  // namespace ltl
