// The engine KV pool `--engine sglang` (simulate/engine_radix_sglang.cc) on hand-built cases, each
// figure worked out by hand from SGLang's radix-cache rules (docs/SEMANTICS.md "Engine KV pool"):
// a running request's locked prefix is not evicted, unlocked leaves go least recently used first
// (a parent only after its children), a finished request's output blocks are inserted and take
// room, eviction asks for the whole allocation, FIFO waiting behind the head, a request larger
// than the pool. Block size 4 throughout, warm-up 0, every duration logged so times are exact.
// Nodes are named by their block id; o1, o2 are output blocks (unique to their request).
#include <gtest/gtest.h>

#include "engine_trace_builders.h"
#include "simulate/engine_pool.h"

namespace ltl {
namespace {

using R = testing::EngineReq;

EngineReplayResult ReplayPool(const std::vector<R>& reqs, uint64_t capacity) {
  return testing::ReplayEnginePool(SglangEngine(), reqs, capacity);
}

TEST(EngineRadixSglang, IsRegistered) {
  ASSERT_NE(FindEngine("sglang"), nullptr);
  EXPECT_EQ(FindEngine("sglang")->name(), "sglang");
  EXPECT_NE(EngineNames().find("sglang"), std::string::npos);
}

TEST(EngineRadixSglang, ARunningRequestsLockedPrefixIsNotEvicted) {
  // Pool of 4. A = [1, 2] runs 0..100: its blocks enter the tree locked. B = [5, 6] takes the 2
  // free blocks and finishes at 2 (5, 6 unlocked). C = [7, 8, 9] needs 3: free 0 + evictable 2
  // (1 and 2 are locked) < 3, so it waits until A ends at 100. Then it evicts 3 leaves, least
  // recent first: 6, 5 (stamped at 2), then 2 (stamped at 100). D = [1, 2] at 101 hits node 1
  // (the cap floor(7/4) = 1 block) and its 1 new block evicts leaf 9.
  auto r = ReplayPool({{0, {1, 2}, 8, 0, 100},
                       {1, {5, 6}, 8, 0, 1},
                       {3, {7, 8, 9}, 12, 0, 1},
                       {101, {1, 2}, 8, 0, 1}},
                      4);
  ASSERT_EQ(r.waiting_s.size(), 4u);
  EXPECT_DOUBLE_EQ(r.waiting_s[1], 0);
  EXPECT_DOUBLE_EQ(r.waiting_s[2], 97);
  EXPECT_DOUBLE_EQ(r.waiting_s[3], 0);
  EXPECT_EQ(r.hit.hit, 4);
  EXPECT_EQ(r.evictions, 4u);
}

TEST(EngineRadixSglang, LeavesAreEvictedLeastRecentlyUsedFirstAndParentsAfterTheirChildren) {
  // Pool of 4, one request at a time. A = [1, 2] (stamped at 1), B = [3, 4] (stamped at 11): the
  // tree is full. C = [1, 9] hits 1 and needs 1 block: of the unlocked leaves 2 (time 1) and 4
  // (time 11), 2 goes. C inserts 9 under 1. D = [3, 4, 7] hits 3 and 4 (8 tokens); its new block
  // must evict: node 1 is older than 9 but is not a leaf, so 9 goes. E = [1, 9] hits 1 again and
  // evicts 7, the only unlocked leaf. Were 4 evicted before 2, D would hit 4 tokens only.
  auto r = ReplayPool({{0, {1, 2}, 8, 0, 1},
                       {10, {3, 4}, 8, 0, 1},
                       {20, {1, 9}, 8, 0, 1},
                       {30, {3, 4, 7}, 12, 0, 1},
                       {40, {1, 9}, 8, 0, 1}},
                      4);
  EXPECT_EQ(r.hit.hit, 4 + 8 + 4);
  EXPECT_EQ(r.evictions, 3u);
}

TEST(EngineRadixSglang, AFinishedRequestsOutputIsInsertedAndEvictionAsksForTheWholeAllocation) {
  // Pool of 6. A = [1, 2] with 8 output tokens: 4 blocks; at its end the tree holds 1 - 2 - o1 -
  // o2 (the output's blocks, unique to A). B = [5, 6, 7] needs 3 blocks, 2 are free: SGLang asks
  // the tree for the whole 3, not the 1 missing, so o2, o1 and 2 go (leaves first). C = [1, 2]
  // still hits node 1. Without the output inserted nothing would be evicted.
  auto r = ReplayPool({{0, {1, 2}, 8, 8, 1}, {10, {5, 6, 7}, 12, 0, 1}, {20, {1, 2}, 8, 0, 1}}, 6);
  EXPECT_EQ(r.hit.hit, 4);
  EXPECT_EQ(r.evictions, 3u);
  // A partial last block is freed, not inserted: 8 + 3 tokens are 3 blocks, 2 full, so the tree
  // keeps 1 - 2 and B's 3 blocks fit the 3 free ones of a pool of 5 without evicting. C hits 1 and
  // its 1 new block evicts a leaf: 2 (stamped at 1) before 7 (stamped at 11).
  auto partial =
      ReplayPool({{0, {1, 2}, 8, 3, 1}, {10, {5, 6, 7}, 12, 0, 1}, {20, {1, 2}, 8, 0, 1}}, 5);
  EXPECT_EQ(partial.hit.hit, 4);
  EXPECT_EQ(partial.evictions, 1u);
}

TEST(EngineRadixSglang, RequestsWaitInArrivalOrderWhenThePoolIsFull) {
  // Pool of 4. A = [1, 2, 3] runs 0..10 holding 3 blocks. B = [4, 5] needs 2: 1 free, nothing
  // evictable: it waits. C = [6] would fit the free block but waits behind B. At 10 A's blocks are
  // unlocked: B evicts its 2 blocks' worth (3, then 2); C takes the last free block at once.
  auto r = ReplayPool({{0, {1, 2, 3}, 12, 0, 10}, {1, {4, 5}, 8, 0, 1}, {2, {6}, 4, 0, 1}}, 4);
  ASSERT_EQ(r.waiting_s.size(), 3u);
  EXPECT_DOUBLE_EQ(r.waiting_s[1], 9);
  EXPECT_DOUBLE_EQ(r.waiting_s[2], 8);
  EXPECT_EQ(r.evictions, 2u);
  EXPECT_EQ(r.max_running, 2u);
}

TEST(EngineRadixSglang, ARequestLargerThanThePoolIsSkippedAndCounted) {
  auto r = ReplayPool({{0, {1, 2, 3}, 12, 0, 1}, {1, {4, 5}, 5, 3, 1}}, 2);
  EXPECT_EQ(r.too_large, 1u);
  EXPECT_EQ(r.measured_requests, 1u);
  EXPECT_EQ(r.measured_tokens, 5);
}

}  // namespace
}  // namespace ltl
