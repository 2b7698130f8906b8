// Provider caches (simulate/provider_*.cc): every documented rule from a hand-computed case —
// OpenAI's minimum, 128-token increments, TTL expiry and refresh, 24 h retention, model and
// prompt_cache_key partitions; Anthropic's per-model minimum (Haiku vs Sonnet), breakpoints, the
// 20-block look-back, the 4-breakpoint cap, the write span and its TTL split, TTL expiry and
// refresh on read, automatic caching; and the gap split by rule.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "simulate/provider_cache.h"
#include "simulate/provider_gap.h"

namespace ltl {

int64_t ClaudeMinimumCacheable(std::string_view model);

namespace {

constexpr uint32_t kB = 16;

// A prompt of `tokens` tokens whose first `shared` full blocks are ids base..., the rest unique.
struct Prompt {
  std::vector<uint32_t> ids;
  int64_t tokens = 0;
};

Prompt MakePrompt(int64_t tokens, uint32_t shared_blocks, uint32_t unique_base) {
  Prompt p;
  p.tokens = tokens;
  const uint32_t n = static_cast<uint32_t>((tokens + kB - 1) / kB);
  for (uint32_t i = 0; i < n; ++i) p.ids.push_back(i < shared_blocks ? i : unique_base + i);
  return p;
}

ProviderRequest OpenAiRequest(const Prompt& p, double t, std::string_view model = "gpt-4o",
                              uint64_t key = 0, bool retention = false) {
  ProviderRequest r;
  r.time_s = t;
  r.model = model;
  r.cache_key = key;
  r.retention_24h = retention;
  r.prompt_tokens = p.tokens;
  r.blocks = p.ids.data();
  r.num_blocks = static_cast<uint32_t>(p.ids.size());
  r.block_size = kB;
  return r;
}

std::unique_ptr<ProviderCacheReplay> StartModel(std::string_view name, ProviderRules rules = {}) {
  auto model = FindProviderCacheModel(name);
  EXPECT_TRUE(model.ok());
  return (*model)->Start(rules);
}

TEST(OpenAiProviderCache, PromptsUnderTheMinimumCacheNothing) {
  auto c = StartModel("openai");
  Prompt short_prompt = MakePrompt(1000, 1000, 0);  // 62 full blocks + 8 tokens
  EXPECT_EQ(c->Next(OpenAiRequest(short_prompt, 0)).read, 0);
  EXPECT_EQ(c->Next(OpenAiRequest(short_prompt, 1)).read, 0);
  EXPECT_EQ(c->Next(OpenAiRequest(short_prompt, 1)).write(), 0);
  // A long prompt sharing those 1,000 tokens finds nothing: the short ones were never cached.
  Prompt longer = MakePrompt(2000, 62, 5000);
  EXPECT_EQ(c->Next(OpenAiRequest(longer, 2)).read, 0);
}

TEST(OpenAiProviderCache, HitsAreReportedIn128TokenIncrements) {
  auto c = StartModel("openai");
  Prompt a = MakePrompt(2000, 125, 0);
  ProviderPrediction first = c->Next(OpenAiRequest(a, 0));
  EXPECT_EQ(first.read, 0);
  EXPECT_EQ(first.write_5m, 2000);  // the whole prompt is cached although it read nothing
  // Shares 93 full blocks = 1,488 tokens: 1,024 + 128 * floor(464 / 128) = 1,408.
  Prompt b = MakePrompt(1600, 93, 9000);
  ProviderPrediction second = c->Next(OpenAiRequest(b, 10));
  EXPECT_EQ(second.read, 1408);
  EXPECT_EQ(second.write_5m, 1600 - 1488);
  // The same prompt again: 1,600 tokens, 100 full blocks matched = 1,600: 1,024 + 128 * 4 = 1,536.
  EXPECT_EQ(c->Next(OpenAiRequest(b, 20)).read, 1536);
}

TEST(OpenAiProviderCache, FiveMinuteTtlExpiresAndIsRefreshedByUse) {
  auto c = StartModel("openai");
  Prompt a = MakePrompt(2048, 128, 0);
  EXPECT_EQ(c->Next(OpenAiRequest(a, 0)).read, 0);
  EXPECT_EQ(c->Next(OpenAiRequest(a, 299)).read, 2048);  // alive until 300; refreshed to 599
  EXPECT_EQ(c->Next(OpenAiRequest(a, 599)).read, 2048);  // alive while now <= expiry
  EXPECT_EQ(c->Next(OpenAiRequest(a, 899)).read, 2048);  // refreshed to 1,199
  EXPECT_EQ(c->Next(OpenAiRequest(a, 1199.5)).read, 0);
}

TEST(OpenAiProviderCache, TwentyFourHourRetentionIsNeverShortenedByAFiveMinuteUse) {
  auto c = StartModel("openai");
  Prompt a = MakePrompt(2048, 128, 0);
  c->Next(OpenAiRequest(a, 0, "gpt-4o", 0, /*retention=*/true));
  EXPECT_EQ(c->Next(OpenAiRequest(a, 3600)).read, 2048);   // 5-minute use: entry keeps 86,400
  EXPECT_EQ(c->Next(OpenAiRequest(a, 80000)).read, 2048);  // max(86,400, 80,300)
  EXPECT_EQ(c->Next(OpenAiRequest(a, 86401)).read, 0);
}

TEST(OpenAiProviderCache, PartitionsByModelAndPromptCacheKey) {
  auto c = StartModel("openai");
  Prompt a = MakePrompt(2048, 128, 0);
  c->Next(OpenAiRequest(a, 0, "gpt-4o", 1));
  EXPECT_EQ(c->Next(OpenAiRequest(a, 1, "gpt-4o", 2)).read, 0);       // another key
  EXPECT_EQ(c->Next(OpenAiRequest(a, 2, "gpt-4o-mini", 1)).read, 0);  // another model
  EXPECT_EQ(c->Next(OpenAiRequest(a, 3, "gpt-4o")).read, 0);          // no key is its own
  EXPECT_EQ(c->Next(OpenAiRequest(a, 4, "gpt-4o", 1)).read, 2048);
  // With the partition rule off, every request shares one cache.
  ProviderRules open;
  open.partition = false;
  auto d = StartModel("openai", open);
  d->Next(OpenAiRequest(a, 0, "gpt-4o", 1));
  EXPECT_EQ(d->Next(OpenAiRequest(a, 1, "gpt-4.1", 7)).read, 2048);
}

TEST(OpenAiProviderCache, GapSplitsTheRuleFreeReadByRule) {
  // R1 writes 2,048 tokens; R2 resends it after the TTL (TTL loses 2,048); R3 shares 68 blocks =
  // 1,088 tokens (increments report 1,024: 64 lost); R4 has 500 tokens sharing 31 blocks (496
  // tokens, below the minimum: 496 lost).
  std::vector<Prompt> prompts = {MakePrompt(2048, 128, 0), MakePrompt(2048, 128, 0),
                                 MakePrompt(1100, 68, 10000), MakePrompt(500, 31, 20000)};
  std::vector<double> times = {0, 1000, 1001, 1002};
  auto model = FindProviderCacheModel("openai");
  ASSERT_TRUE(model.ok());
  ProviderReplayResult r =
      ReplayProviderCache(**model, ProviderRules{}, prompts.size(),
                          [&](size_t i) { return OpenAiRequest(prompts[i], times[i]); });
  EXPECT_EQ(r.rule_free_read, 2048 + 1088 + 496);
  ASSERT_EQ(r.gap.size(), 4u);
  EXPECT_EQ(r.gap[0].rule, "partition");
  EXPECT_EQ(r.gap[0].tokens, 0);
  EXPECT_EQ(r.gap[1].rule, "minimum");
  EXPECT_EQ(r.gap[1].tokens, 496);
  EXPECT_EQ(r.gap[2].rule, "ttl");
  EXPECT_EQ(r.gap[2].tokens, 2048);
  EXPECT_EQ(r.gap[3].rule, "increments");
  EXPECT_EQ(r.gap[3].tokens, 64);
  ASSERT_EQ(r.predictions.size(), 4u);
  EXPECT_EQ(r.predictions[2].read, 1024);
  int64_t total = 0;
  for (const ProviderPrediction& p : r.predictions) total += p.read;
  EXPECT_EQ(total, r.rule_free_read - 496 - 2048 - 64);
}

// Anthropic: a prompt as content blocks (prefix digest, tokens through the block, breakpoint).
struct Blocks {
  std::vector<ProviderBoundary> b;
  Blocks& Add(uint64_t prefix, int64_t tokens, Breakpoint bp = Breakpoint::kNone) {
    b.push_back({prefix, tokens, bp});
    return *this;
  }
};

ProviderRequest ClaudeRequest(const Blocks& blocks, double t,
                              std::string_view model = "claude-sonnet-4-5-20250929") {
  ProviderRequest r;
  r.time_s = t;
  r.model = model;
  r.prompt_tokens = blocks.b.empty() ? 0 : blocks.b.back().tokens;
  r.boundaries = blocks.b.data();
  r.num_boundaries = static_cast<uint32_t>(blocks.b.size());
  return r;
}

TEST(AnthropicProviderCache, MinimumLengthPerModelFromTheDocumentationTable) {
  EXPECT_EQ(ClaudeMinimumCacheable("claude-sonnet-4-5-20250929"), 1024);
  EXPECT_EQ(ClaudeMinimumCacheable("claude-3-7-sonnet-20250219"), 1024);
  EXPECT_EQ(ClaudeMinimumCacheable("anthropic.claude-3-7-sonnet-20250219-v1:0"), 1024);
  EXPECT_EQ(ClaudeMinimumCacheable("claude-opus-4-1@20250805"), 1024);
  EXPECT_EQ(ClaudeMinimumCacheable("claude-3-5-haiku-20241022"), 2048);
  EXPECT_EQ(ClaudeMinimumCacheable("claude-3-haiku-20240307"), 2048);
  EXPECT_EQ(ClaudeMinimumCacheable("claude-haiku-4-5"), 4096);
  EXPECT_EQ(ClaudeMinimumCacheable("claude-opus-4-5-20251101"), 4096);
  EXPECT_EQ(ClaudeMinimumCacheable("claude-opus-4-6"), 4096);
  EXPECT_EQ(ClaudeMinimumCacheable("claude-opus-4-7"), 2048);
  EXPECT_EQ(ClaudeMinimumCacheable("claude-opus-5"), 512);
}

TEST(AnthropicProviderCache, HaikuIgnoresABreakpointSonnetCaches) {
  Blocks p;
  p.Add(1, 800).Add(2, 1500, Breakpoint::k5m).Add(3, 1600);
  auto sonnet = StartModel("anthropic");
  ProviderPrediction s1 = sonnet->Next(ClaudeRequest(p, 0));
  EXPECT_EQ(s1.read, 0);
  EXPECT_EQ(s1.write_5m, 1500);
  EXPECT_EQ(sonnet->Next(ClaudeRequest(p, 1)).read, 1500);
  auto haiku = StartModel("anthropic");
  ProviderPrediction h1 = haiku->Next(ClaudeRequest(p, 0, "claude-3-5-haiku-20241022"));
  EXPECT_EQ(h1.read + h1.write(), 0);  // 1,500 < 2,048: the breakpoint does not qualify
  EXPECT_EQ(haiku->Next(ClaudeRequest(p, 1, "claude-3-5-haiku-20241022")).read, 0);
}

TEST(AnthropicProviderCache, WriteSpansTakeTheTtlOfTheBreakpointThatEndsThem) {
  Blocks p;
  p.Add(1, 1200, Breakpoint::k1h).Add(2, 1500).Add(3, 2000, Breakpoint::k5m).Add(4, 2100);
  auto c = StartModel("anthropic");
  ProviderPrediction w = c->Next(ClaudeRequest(p, 0));
  EXPECT_EQ(w.read, 0);
  EXPECT_EQ(w.write_1h, 1200);
  EXPECT_EQ(w.write_5m, 800);  // 1,200 -> 2,000; the 100 tokens after it are plain input
  // Same prefix through block 3, another tail: reads 2,000, writes nothing.
  Blocks q;
  q.Add(1, 1200, Breakpoint::k1h).Add(2, 1500).Add(3, 2000, Breakpoint::k5m).Add(9, 2500);
  ProviderPrediction r = c->Next(ClaudeRequest(q, 10));
  EXPECT_EQ(r.read, 2000);
  EXPECT_EQ(r.write(), 0);
  // After 10 minutes the 5-minute entry is gone, the 1-hour one is alive: reads 1,200, writes 800.
  ProviderPrediction later = c->Next(ClaudeRequest(q, 10 + 301));
  EXPECT_EQ(later.read, 1200);
  EXPECT_EQ(later.write_5m, 800);
}

TEST(AnthropicProviderCache, EntriesExistOnlyAtBreakpoints) {
  auto c = StartModel("anthropic");
  Blocks a;
  a.Add(1, 1100).Add(2, 1300).Add(3, 1500, Breakpoint::k5m);
  c->Next(ClaudeRequest(a, 0));
  // Shares blocks 1 and 2 only: no entry was written there, so nothing is read.
  Blocks b;
  b.Add(1, 1100).Add(2, 1300).Add(7, 1600).Add(8, 1700, Breakpoint::k5m);
  ProviderPrediction p = c->Next(ClaudeRequest(b, 1));
  EXPECT_EQ(p.read, 0);
  EXPECT_EQ(p.write_5m, 1700);
}

TEST(AnthropicProviderCache, LookBackReachesTwentyBlocksBeforeEachBreakpoint) {
  // The first request writes an entry at block 5 (1,100 tokens).
  Blocks first;
  for (uint64_t i = 0; i <= 5; ++i)
    first.Add(100 + i, 600 + 100 * static_cast<int64_t>(i),
              i == 5 ? Breakpoint::k5m : Breakpoint::kNone);
  // The second shares blocks 0..5 and adds 25 more; its only breakpoint is block 30: the window
  // 10..30 misses block 5.
  Blocks far = first;
  far.b[5].breakpoint = Breakpoint::kNone;
  for (uint64_t i = 6; i <= 30; ++i)
    far.Add(200 + i, 600 + 100 * static_cast<int64_t>(i),
            i == 30 ? Breakpoint::k5m : Breakpoint::kNone);
  auto c = StartModel("anthropic");
  c->Next(ClaudeRequest(first, 0));
  EXPECT_EQ(c->Next(ClaudeRequest(far, 1)).read, 0);
  // Block 25 (window 5..25) reaches it.
  auto d = StartModel("anthropic");
  d->Next(ClaudeRequest(first, 0));
  Blocks near = far;
  near.b[25].breakpoint = Breakpoint::k5m;
  ProviderPrediction p = d->Next(ClaudeRequest(near, 1));
  EXPECT_EQ(p.read, 1100);
  EXPECT_EQ(p.write_5m, 3600 - 1100);  // through block 30
}

TEST(AnthropicProviderCache, OnlyTheFirstFourBreakpointsCount) {
  Blocks p;
  for (int64_t i = 1; i <= 5; ++i) p.Add(static_cast<uint64_t>(i), 1000 + 200 * i, Breakpoint::k5m);
  p.Add(6, 2500);
  auto c = StartModel("anthropic");
  ProviderPrediction w = c->Next(ClaudeRequest(p, 0));
  EXPECT_EQ(w.write_5m, 1800);  // through the 4th breakpoint; the 5th (2,000) is ignored
  ProviderPrediction again = c->Next(ClaudeRequest(p, 1));
  EXPECT_EQ(again.read, 1800);
  EXPECT_EQ(again.write(), 0);
}

TEST(AnthropicProviderCache, ReadRefreshesTheFiveMinuteTtl) {
  Blocks p;
  p.Add(1, 1500, Breakpoint::k5m).Add(2, 1600);
  auto c = StartModel("anthropic");
  c->Next(ClaudeRequest(p, 0));
  EXPECT_EQ(c->Next(ClaudeRequest(p, 200)).read, 1500);  // refreshed to 500
  EXPECT_EQ(c->Next(ClaudeRequest(p, 450)).read, 1500);  // alive only thanks to the refresh
  EXPECT_EQ(c->Next(ClaudeRequest(p, 751)).read, 0);     // expired at 750
  // --provider-ttl: a 20-minute what-if keeps it.
  ProviderRules what_if;
  what_if.short_ttl_s = 1200;
  auto d = StartModel("anthropic", what_if);
  d->Next(ClaudeRequest(p, 0));
  EXPECT_EQ(d->Next(ClaudeRequest(p, 1000)).read, 1500);
}

TEST(AnthropicProviderCache, AutomaticCachingBreaksAtTheLastBlock) {
  Blocks p;
  p.Add(1, 900).Add(2, 1500);
  auto c = StartModel("anthropic");
  ProviderRequest r = ClaudeRequest(p, 0);
  EXPECT_EQ(c->Next(r).write(), 0);  // no breakpoint: nothing cached
  r.automatic = Breakpoint::k5m;
  EXPECT_EQ(c->Next(r).write_5m, 1500);
  r.time_s = 1;
  EXPECT_EQ(c->Next(r).read, 1500);
}

}  // namespace
}  // namespace ltl
