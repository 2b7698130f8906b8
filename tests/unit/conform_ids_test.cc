// Unit tests for conformed block ids (src/hash/conform_ids.*): counts conform to ceil(L / B),
// hand-worked coarsening, extension and tail derivation, and the 63-bit range.
#include "hash/conform_ids.h"

#include <gtest/gtest.h>

#include <set>

namespace ltl {
namespace {

RequestRecord Record(int64_t input_tokens, uint32_t block_size, std::vector<uint64_t> ids) {
  RequestRecord r;
  r.input_tokens = input_tokens;
  r.block_size = block_size;
  r.block_ids = std::move(ids);
  return r;
}

std::vector<uint64_t> Ids(const RequestRecord& r, uint32_t bs, IdAdjustment* adj = nullptr) {
  IdAdjustment local;
  std::vector<uint64_t> out;
  ConformBlockIds(r, bs, &out, adj ? adj : &local);
  return out;
}

TEST(ConformIds, ExactFitKeepsFullIdsAndDerivesOnlyThePartialTail) {
  IdAdjustment adj;
  EXPECT_EQ(Ids(Record(48, 16, {7, 8, 9}), 16, &adj), (std::vector<uint64_t>{7, 8, 9}));
  EXPECT_FALSE(adj.tail);
  auto ids = Ids(Record(40, 16, {7, 8, 9}), 16, &adj);  // 16 + 16 + 8
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids[0], 7u);
  EXPECT_EQ(ids[1], 8u);
  EXPECT_EQ(ids[2], TailBlockId(9, 8));
  EXPECT_NE(ids[2], 9u);
  EXPECT_TRUE(adj.tail);
  EXPECT_EQ(adj.extended + adj.truncated, 0);
}

TEST(ConformIds, TailIdsDependOnTheTailLengthAndStayIn63Bits) {
  std::set<uint64_t> seen;
  for (uint32_t t = 1; t < 16; ++t) {
    uint64_t id = TailBlockId(123, t);
    EXPECT_LE(id, kMaxBlockId);
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 15u);
  EXPECT_NE(TailBlockId(123, 5), TailBlockId(124, 5));
  EXPECT_EQ(TailBlockId(123, 5), TailBlockId(123, 5));
}

TEST(ConformIds, UsageLongerThanTheEstimateExtendsTheChain) {
  IdAdjustment adj;
  auto ids = Ids(Record(64, 16, {1, 2}), 16, &adj);  // 4 blocks wanted, 2 known
  ASSERT_EQ(ids.size(), 4u);
  EXPECT_EQ(ids[2], ExtendedBlockId(2));
  EXPECT_EQ(ids[3], ExtendedBlockId(ids[2]));
  EXPECT_EQ(adj.extended, 2);
  // Two requests with the same known prefix extend identically (the chain stays a chain).
  EXPECT_EQ(Ids(Record(64, 16, {1, 2}), 16), ids);
  EXPECT_NE(Ids(Record(64, 16, {1, 3}), 16)[2], ids[2]);
}

TEST(ConformIds, UsageShorterThanTheEstimateTruncatesAndReTailsTheLastKeptBlock) {
  IdAdjustment adj;
  auto ids = Ids(Record(20, 16, {1, 2, 3, 4}), 16, &adj);  // 2 blocks: 16 + 4
  EXPECT_EQ(ids, (std::vector<uint64_t>{1, TailBlockId(2, 4)}));
  EXPECT_EQ(adj.truncated, 2);
}

TEST(ConformIds, CoarseningTakesTheChainedIdOfTheLastFineBlockInside) {
  // 100 tokens at 16 = 7 fine blocks (6 full + 4 tokens); at 48 = 3 coarse blocks (48, 48, 4).
  IdAdjustment adj;
  auto ids = Ids(Record(100, 16, {10, 11, 12, 13, 14, 15, 16}), 48, &adj);
  EXPECT_EQ(ids, (std::vector<uint64_t>{12, 15, TailBlockId(16, 4)}));
  EXPECT_TRUE(adj.reblocked);
  EXPECT_EQ(adj.extended + adj.truncated, 0);
  // A coarse tail built from several fine blocks: 40 tokens at 16 -> one coarse block of 40.
  EXPECT_EQ(Ids(Record(40, 16, {10, 11, 12}), 48), (std::vector<uint64_t>{TailBlockId(12, 40)}));
  EXPECT_TRUE(CanReblock(16, 512));
  EXPECT_FALSE(CanReblock(512, 16));
  EXPECT_FALSE(CanReblock(16, 40));
  EXPECT_FALSE(CanReblock(0, 16));
}

TEST(ConformIds, IdsAboveTheSignedRangeLoseTheirTopBit) {
  auto ids = Ids(Record(32, 16, {~uint64_t{0}, (uint64_t{1} << 63) | 5}), 16);
  EXPECT_EQ(ids, (std::vector<uint64_t>{kMaxBlockId, 5}));
}

TEST(ConformIds, InPlaceFitsARecordAtItsOwnBlockSizeAndLeavesEmptyRecordsAlone) {
  RequestRecord r = Record(20, 16, {1, 2, 3});  // usage says 20 tokens, the estimate cut 3 blocks
  IdAdjustment adj = ConformRecordBlockIds(&r);
  EXPECT_EQ(r.block_ids, (std::vector<uint64_t>{1, TailBlockId(2, 4)}));
  EXPECT_EQ(adj.truncated, 1);
  RequestRecord empty = Record(0, 16, {});
  ConformRecordBlockIds(&empty);
  EXPECT_TRUE(empty.block_ids.empty());
  RequestRecord no_ids = Record(40, 16, {});
  ConformRecordBlockIds(&no_ids);
  EXPECT_TRUE(no_ids.block_ids.empty());
}

}  // namespace
}  // namespace ltl
