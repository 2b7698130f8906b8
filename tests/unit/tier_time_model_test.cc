// The time model over tiers (BuildTiersSection with a TimeModelRequest) against a case worked by
// hand: three requests, tiers of 2, 1 and 1 blocks, a made-up model of 1e9 active parameters and
// 4 attention FLOPs per query-key pair, a 1 TFLOP/s GPU at MFU 0.5.
#include <gtest/gtest.h>

#include "analyze/build_tiers.h"
#include "trace_builder.h"

namespace ltl {
namespace {

TEST(TierTimeModel, HandComputedCase) {
  // bs 4, tail-first. R0 [1,2,3] at t=0, R1 [4] at t=1, R2 [1,2,3] at t=2 (12, 4, 12 tokens).
  // Before R2 the LRU stack is 4,1,2,3: R2's blocks 1, 2, 3 are at distances 1, 2, 3, so with
  // tiers of 2, 1, 1 blocks they are served by tier 1, 2 and 3 (4 tokens each).
  Trace trace = testing::MakeTrace({{0, {1, 2, 3}, -1}, {1, {4}, -1}, {2, {1, 2, 3}, -1}}, 4);
  trace.requests[0].output_tokens = 10;
  trace.requests[1].output_tokens = 20;
  trace.requests[2].output_tokens = 30;
  TiersRequest req;
  req.tiers = {{"hbm", 0, 8, "8"}, {"dram", 0, 4, "4"}, {"ssd", 0, 4, "4"}};
  req.bits_per_token = 800;  // 100 B/token
  TimeModelRequest& t = req.time;
  t.present = true;
  t.compute.active_params = 1e9;
  t.compute.attn_layers = 1;
  t.compute.heads = 1;
  t.compute.qk_dim = 1;
  t.compute.v_dim = 1;
  t.peak_flops = 1e12;
  t.mfu = 0.5;  // 5e11 FLOP/s
  t.tier_bytes_per_s = {0, 1e6, 1e5};
  t.tier_bandwidth_source = {"", "", ""};
  t.decode_tokens_per_s = 10;
  ReplayOptions o;
  o.warmup = 0;
  Profile p;
  BuildTiersSection(trace, o, req, &p);
  const TiersSection& s = p.tiers;
  ASSERT_TRUE(s.time.present);
  ASSERT_EQ(s.rows.size(), 3u + 4u);
  const double rate = 5e11;
  // No cache: 12 tokens = 2e9 x 12 + 4 x (1 + ... + 12 = 78); 4 tokens = 8e9 + 4 x 10.
  const double r12 = (24e9 + 312) / rate, r4 = (8e9 + 40) / rate;
  EXPECT_DOUBLE_EQ(s.time.prefill_gpu_s, 2 * r12 + r4);
  EXPECT_DOUBLE_EQ(s.time.ttft_p50, r12);  // sorted r4, r12, r12
  EXPECT_DOUBLE_EQ(s.time.ttft_p95, r12);
  EXPECT_DOUBLE_EQ(s.time.decode_s, 6.0);  // 60 tokens at 10/s
  EXPECT_DOUBLE_EQ(s.time.window_s, 2.0);

  // The asked hierarchy: R2 fully cached (no compute), reads 4 tokens x 100 B at 1e6 B/s from
  // dram and at 1e5 B/s from ssd: 0.4 ms + 4 ms.
  const TierRow& a = s.rows[s.asked_row];
  ASSERT_EQ(a.hit, (std::vector<int64_t>{4, 4, 4}));
  EXPECT_DOUBLE_EQ(a.transfer_s, 4e-4 + 4e-3);
  EXPECT_DOUBLE_EQ(a.prefill_gpu_s, r12 + r4);
  EXPECT_DOUBLE_EQ(a.ttft_p50, r4);  // sorted 4.4 ms, r4 = 16 ms, r12 = 48 ms
  EXPECT_DOUBLE_EQ(a.ttft_p95, r12);
  EXPECT_DOUBLE_EQ(a.ttft_mean, (r12 + r4 + 4.4e-3) / 3);
  // End to end with decode: (2 r12 + r4 + 6) / (r12 + r4 + 4.4 ms + 6), about 1.007: a fully
  // cached repeat buys under 1% because decode dominates.
  EXPECT_DOUBLE_EQ(a.e2e_speedup, (2 * r12 + r4 + 6) / (r12 + r4 + 4.4e-3 + 6));
  // One r12 of compute saved over a 2 s window: x 86,400 / 2 per day.
  EXPECT_DOUBLE_EQ(a.gpu_s_saved_per_day, r12 * 43200);

  // HBM alone (2 blocks): R2 hits block 1 only (block 2 is at distance 2): positions 4..11 left,
  // 2e9 x 8 + 4 x (5 + ... + 12 = 68).
  const TierRow& hbm = s.rows[0];
  ASSERT_EQ(hbm.hit, (std::vector<int64_t>{4, 0, 0}));
  EXPECT_DOUBLE_EQ(hbm.transfer_s, 0);
  EXPECT_DOUBLE_EQ(hbm.prefill_gpu_s, r12 + r4 + (16e9 + 272) / rate);
}

}  // namespace
}  // namespace ltl
