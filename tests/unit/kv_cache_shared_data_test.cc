// The public Mooncake conversation trace with GLM-5.2 at bf16: 1 GiB is 22 blocks of 512 tokens,
// where LRU reaches the reference simulator's 4.5%, under its 39.8% ceiling; optimal and FIFO stay
// within [0, ceiling] and optimal is at least LRU at every default budget. Skips without the data.
#include <gtest/gtest.h>

#include "analyze/build_kv_cache.h"
#include "analyze/build_profile.h"
#include "ingest/load_input.h"
#include "policy_names.h"
#include "test_util.h"

namespace ltl {
namespace {

using ltl::testing::Eviction;

TEST(KvCacheSharedData, ConversationTraceGlm52) {
  const std::string path = testing::SharedData("conversation_trace.jsonl");
  if (path.empty()) GTEST_SKIP() << "../shared/data/conversation_trace.jsonl is absent";
  SkipCounter skips;
  IngestContext ctx;
  ctx.name = path;
  ctx.skips = &skips;
  auto loaded = LoadInput(path, InputFormat::kMooncake, &ctx);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  Trace trace = BuildTrace(loaded->records);
  ASSERT_EQ(trace.block_size, 512u);

  Profile p;
  ReplayOptions opts;
  CapacitySpec caps;
  caps.tokens = DefaultCapacityTokens();
  BuildProfile(loaded->records, trace, opts, caps, &p);
  EXPECT_NEAR(p.Rate(p.ceiling, p.measured_tokens), 0.398, 0.0005);

  KvCacheRequest req;
  req.policies = {Eviction("fifo"), Eviction("lru"), Eviction("optimal")};
  KvMemory m;
  m.model = "glm-5.2";
  m.bits_per_token = 95232 * 8;
  req.memory = m;
  req.gib = DefaultCacheGib();
  req.threads = 2;
  BuildKvCacheSection(trace, opts, req, caps, &p);
  const auto& rows = p.kv_cache.rows;
  ASSERT_EQ(rows.size(), 3u * 13u);
  // Policy-major: fifo rows 0..12, lru 13..25, optimal 26..38.
  EXPECT_EQ(rows[13].policy, "lru");
  EXPECT_EQ(rows[13].capacity_blocks, 22u);
  EXPECT_NEAR(p.Rate(rows[13].hit, rows[13].measured_tokens), 0.045, 0.0005);
  const double ceiling = p.Rate(p.ceiling, p.measured_tokens);
  for (size_t c = 0; c < 13; ++c) {
    const double fifo = p.Rate(rows[c].hit, rows[c].measured_tokens);
    const double lru = p.Rate(rows[13 + c].hit, rows[13 + c].measured_tokens);
    const double optimal = p.Rate(rows[26 + c].hit, rows[26 + c].measured_tokens);
    EXPECT_GE(optimal, lru) << rows[c].capacity_gib << " GiB";
    EXPECT_GT(fifo, 0.0);
    EXPECT_LE(fifo, ceiling + 1e-12);
    EXPECT_LE(optimal, ceiling + 1e-12);
  }
  // The largest default budget holds every block the optimal policy wants: it reaches the ceiling.
  EXPECT_EQ(rows[38].hit.hit, p.ceiling.hit);
}

}  // namespace
}  // namespace ltl
