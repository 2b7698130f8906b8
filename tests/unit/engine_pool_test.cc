// The engine KV pool (`--engine vllm`, simulate/engine_pool_vllm.cc) on hand-built cases, each
// figure worked out by hand from vLLM v1's rules (docs/SEMANTICS.md "Engine KV pool"): FIFO
// waiting with head-of-line blocking, pinning of hit blocks held by running requests, the
// reverse-order free and the eviction of a free hashed block from the free queue's head, a request
// larger than the pool, the floor((input - 1) / B) hit cap, duplicate cached blocks, max-num-seqs.
// Block size 4 throughout, warm-up 0, every duration logged so times are exact.
#include <gtest/gtest.h>

#include "engine_trace_builders.h"
#include "simulate/engine_pool.h"

namespace ltl {
namespace {

using R = testing::EngineReq;
using testing::EngineTrace;

EngineReplayResult ReplayPool(const std::vector<R>& reqs, uint64_t capacity,
                              uint32_t max_seqs = 256) {
  return testing::ReplayEnginePool(VllmEngine(), reqs, capacity, max_seqs);
}

TEST(EnginePoolVllm, WaitsInArrivalOrderBehindTheHead) {
  // Pool of 6, free queue [0..5]. A = [1, 2] takes blocks 0, 1 until t=10. B needs 5 blocks:
  // waits. C = [1, 10] (5 tokens) would fit now (block 1 is A's, running, plus 1 new) but waits
  // behind B (FIFO). At 10 A frees its blocks last first: queue [2, 3, 4, 5, 1, 0]. B pops 5 from
  // the head, evicting hash 2 (block 1). C would touch block 0 (hash 1, free) and take 1 more: 2 >
  // the 1 free, so it waits until B ends at 15; then it hits hash 1 (4 tokens) and its new block
  // pops the head, B's last block (hash 9): a second eviction.
  auto r =
      ReplayPool({{0, {1, 2}, 8, 0, 10}, {1, {5, 6, 7, 8, 9}, 20, 0, 5}, {2, {1, 10}, 5, 0, 5}}, 6);
  ASSERT_EQ(r.waiting_s.size(), 3u);
  EXPECT_DOUBLE_EQ(r.waiting_s[0], 0);
  EXPECT_DOUBLE_EQ(r.waiting_s[1], 9);
  EXPECT_DOUBLE_EQ(r.waiting_s[2], 13);
  EXPECT_EQ(r.hit.hit, 4);
  EXPECT_EQ(r.measured_tokens, 33);
  EXPECT_EQ(r.evictions, 2u);
  EXPECT_EQ(r.max_running, 1u);
}

TEST(EnginePoolVllm, HitBlocksHeldByARunningRequestArePinnedNotTaken) {
  // Pool of 3. A runs [1, 2] until 100. B (9 tokens: 3 blocks, 2 full) hits both of A's blocks
  // while A runs: they are shared (no free block taken for them), B takes the 1 free block and
  // runs at once. C needs 1 block: none is free until B ends at 6.
  auto r = ReplayPool({{0, {1, 2}, 8, 0, 100}, {1, {1, 2, 3}, 9, 0, 5}, {2, {7}, 4, 0, 1}}, 3);
  ASSERT_EQ(r.waiting_s.size(), 3u);
  EXPECT_DOUBLE_EQ(r.waiting_s[1], 0);
  EXPECT_DOUBLE_EQ(r.waiting_s[2], 4);
  EXPECT_EQ(r.hit.hit, 8);
  EXPECT_EQ(r.evictions, 0u);  // B's partial block had no hash
}

TEST(EnginePoolVllm, ReverseOrderFreeEvictsTheTailFirst) {
  // Pool of 3. A caches [1, 2, 3] and frees them at t=1 last block first: the free queue is
  // [3, 2, 1]. B needs 1 block: the head, block 3, is evicted. B frees at 3 (queue [2, 1, 7]).
  // C = [1, 2, 3] (cap 2 blocks) hits 1 and 2, and its new block pops 7 (evicted).
  // Freed in forward order, B would have evicted block 1 and C would hit nothing.
  auto r = ReplayPool({{0, {1, 2, 3}, 12, 0, 1}, {2, {7}, 4, 0, 1}, {4, {1, 2, 3}, 12, 0, 1}}, 3);
  EXPECT_EQ(r.hit.hit, 8);
  EXPECT_EQ(r.evictions, 2u);
}

TEST(EnginePoolVllm, ARequestLargerThanThePoolIsSkippedAndCounted) {
  // Pool of 2: 12 tokens need 3 blocks; 5 + 3 output tokens need 2 and fit.
  auto r = ReplayPool({{0, {1, 2, 3}, 12, 0, 1}, {1, {4, 5}, 5, 3, 1}}, 2);
  EXPECT_EQ(r.too_large, 1u);
  EXPECT_EQ(r.measured_requests, 1u);
  EXPECT_EQ(r.measured_tokens, 5);
  // Output tokens count: 5 + 4 tokens need 3 blocks.
  EXPECT_EQ(ReplayPool({{0, {4, 5}, 5, 4, 1}}, 2).too_large, 1u);
}

TEST(EnginePoolVllm, AFullyCachedPromptRecomputesItsLastBlockAndCachesItAgain) {
  // Pool of 4, queue [0, 1, 2, 3]. A = [1, 2] takes blocks 0, 1 and frees them (queue [2, 3, 1,
  // 0]). B = A again: the cap floor(7/4) = 1 block hits 1; block 2 is recomputed into a new block
  // (2), cached a second time under the same hash. B frees: queue [3, 1, 2, 0].
  // C = [1, 2, 3] hits 1 and the first block cached for 2 (block 1): 8 tokens.
  // C frees [0, 1, 3] last first: queue [2, 3, 1, 0]. D = [8, 9] pops blocks 2 (the duplicate of
  // hash 2: only that copy goes) and 3 (hash 3): 2 evictions; it frees them (queue [1, 0, 3, 2]).
  // E = [1, 2, 4] still hits 1 and 2, and its new block pops block 3 (hash 9): a third eviction.
  auto r = ReplayPool({{0, {1, 2}, 8, 0, 1},
                       {5, {1, 2}, 8, 0, 1},
                       {10, {1, 2, 3}, 12, 0, 1},
                       {20, {8, 9}, 8, 0, 1},
                       {30, {1, 2, 4}, 12, 0, 1}},
                      4);
  EXPECT_EQ(r.hit.hit, 0 + 4 + 8 + 0 + 8);
  EXPECT_EQ(r.evictions, 3u);
}

TEST(EnginePoolVllm, MaxNumSeqsCapsRunningRequests) {
  auto r = ReplayPool({{0, {1}, 4, 0, 10}, {1, {2}, 4, 0, 10}, {2, {3}, 4, 0, 10}}, 100, 2);
  ASSERT_EQ(r.waiting_s.size(), 3u);
  EXPECT_DOUBLE_EQ(r.waiting_s[2], 8);  // admitted when the first ends at 10
  EXPECT_EQ(r.max_running, 2u);
}

TEST(EnginePoolVllm, CompletionsAtAnInstantAreReleasedBeforeArrivals) {
  // A ends at exactly 5 when B arrives: B finds A's blocks free (pool of 2) and hits block 1.
  auto r = ReplayPool({{0, {1, 2}, 8, 0, 5}, {5, {1, 2}, 8, 0, 1}}, 2);
  EXPECT_DOUBLE_EQ(r.waiting_s[1], 0);
  EXPECT_EQ(r.hit.hit, 4);
}

TEST(EnginePoolVllm, UnloggedDurationsFollowTheLoadModelFromAdmission) {
  // A: 8 uncached tokens at 4 tok/s prefill + 2 output at 1 tok/s = 4 s. B waits for the pool
  // (2 blocks) until 4; its 1 hit block leaves 4 uncached tokens: prefill 1 s.
  Trace t = EngineTrace({{0, {1, 2}, 8, 2, -1}, {1, {1, 2}, 8, 0, -1}, {2, {5}, 4, 0, -1}});
  EngineOptions eo;
  eo.capacity_blocks = 3;
  eo.load = {4, 1, true};
  auto r = RunEngineReplay(t, testing::Cold(), VllmEngine(), eo);
  ASSERT_EQ(r.waiting_s.size(), 3u);
  EXPECT_DOUBLE_EQ(r.waiting_s[1], 3);  // A holds 3 blocks (8 + 2 tokens) until 4
  // B took A's free hashed block 1 and 1 new block; C takes the last free one (hash 2) at 4.
  EXPECT_DOUBLE_EQ(r.waiting_s[2], 2);
  EXPECT_EQ(r.evictions, 1u);
}

}  // namespace
}  // namespace ltl
