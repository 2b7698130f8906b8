// BlockInterner and the chain-stored Trace: every request's dense ids come back exactly as a plain
// remap written here (first appearance in time order, the method BuildTrace used before chains)
// computes them, for chained ids, non-chained ids (repeats, a block after two predecessors), time
// order different from file order, and records without ids; chained traces store nothing per
// access.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <unordered_map>

#include "hash/block_interner.h"
#include "simulate/trace.h"

namespace ltl {
namespace {

RequestRecord Rec(double t, std::vector<uint64_t> ids) {
  RequestRecord r;
  r.time_s = t;
  r.has_time = true;
  r.block_size = 16;
  r.input_tokens = static_cast<int64_t>(ids.size()) * 16;
  r.block_ids = std::move(ids);
  return r;
}

// The reference: stable sort by time, dense ids by first appearance, parents first seen.
struct Reference {
  std::vector<std::vector<uint32_t>> blocks;  // per request in replay order
  std::vector<uint32_t> parent;
};
Reference Remap(const std::vector<RequestRecord>& recs) {
  std::vector<size_t> order(recs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return recs[a].time_s < recs[b].time_s; });
  Reference ref;
  std::unordered_map<uint64_t, uint32_t> dense;
  for (size_t i : order) {
    std::vector<uint32_t> out;
    uint32_t prev = kNoParent;
    for (uint64_t id : recs[i].block_ids) {
      auto [it, ins] = dense.emplace(id, static_cast<uint32_t>(dense.size()));
      if (ins) ref.parent.push_back(prev);
      out.push_back(it->second);
      prev = it->second;
    }
    ref.blocks.push_back(out);
  }
  return ref;
}

void ExpectSameAsReference(const std::vector<RequestRecord>& recs) {
  Reference ref = Remap(recs);
  Trace t = BuildTrace(recs);
  ASSERT_EQ(t.requests.size(), ref.blocks.size());
  EXPECT_EQ(t.parent, ref.parent);
  BlockCursor cursor(t);
  uint64_t accesses = 0;
  for (size_t i = 0; i < t.requests.size(); ++i) {
    const TraceRequest& r = t.requests[i];
    ASSERT_EQ(r.num_blocks, ref.blocks[i].size());
    EXPECT_EQ(r.first, accesses);
    const uint32_t* ids = cursor.Blocks(r);
    EXPECT_EQ(std::vector<uint32_t>(ids, ids + r.num_blocks), ref.blocks[i]) << "request " << i;
    accesses += r.num_blocks;
  }
  EXPECT_EQ(t.total_block_accesses(), accesses);
}

TEST(BlockInterner, ChainedRequestsKeepOnlyTheirLastBlock) {
  // A conversation resending its history, a second one sharing the system prompt (1, 2).
  std::vector<RequestRecord> recs = {Rec(0, {1, 2, 3}), Rec(1, {1, 2, 3, 4, 5}), Rec(2, {1, 2, 7}),
                                     Rec(3, {1, 2, 3, 4, 5, 6}), Rec(4, {})};
  ExpectSameAsReference(recs);
  BlockInterner in;
  for (const auto& r : recs) in.Add(r.block_ids);
  EXPECT_EQ(in.flat_accesses(), 0u);
  EXPECT_EQ(in.distinct_blocks(), 7u);
  EXPECT_EQ(in.block_accesses(), 17u);
  Trace t = BuildTrace(recs);
  EXPECT_TRUE(t.blocks.empty());
  // Dense: 1 2 3 4 5 -> 0..4 (one run), 7 -> 5 (after 2 = id 1), 6 -> 6 (after 5 = id 4).
  EXPECT_EQ(t.chain_run, (std::vector<uint32_t>{0, 0, 0, 0, 0, 5, 6}));
}

TEST(BlockInterner, NonChainedIdsAreKeptFlat) {
  // Block 2 after 1, then after 9 (not a chain); a repeat inside a request; a head that was a
  // child.
  std::vector<RequestRecord> recs = {Rec(0, {1, 2, 3}), Rec(1, {9, 2, 3}), Rec(2, {4, 4, 4}),
                                     Rec(3, {2, 3}), Rec(4, {1, 2, 3, 8})};
  ExpectSameAsReference(recs);
  BlockInterner in;
  for (const auto& r : recs) in.Add(r.block_ids);
  EXPECT_FALSE(in.chained(1));
  EXPECT_FALSE(in.chained(2));
  EXPECT_TRUE(in.chained(3));  // a suffix of a chain is still a walk of 2 from its last block
  EXPECT_TRUE(in.chained(4));
  EXPECT_EQ(in.flat_accesses(), 6u);
}

TEST(BlockInterner, TimeOrderDifferentFromFileOrder) {
  // File order numbers 10.. first; replay order sees the later-stamped rows first.
  std::vector<RequestRecord> recs = {Rec(5, {10, 11, 12}), Rec(1, {20, 21}), Rec(3, {10, 11, 13}),
                                     Rec(1, {20, 21, 22}), Rec(0, {10, 11})};
  ExpectSameAsReference(recs);
}

TEST(BlockInterner, RandomMixturesMatchThePlainRemap) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 50; ++round) {
    std::vector<RequestRecord> recs;
    std::vector<std::vector<uint64_t>> convs(5);
    uint64_t next = 1;
    for (int i = 0; i < 200; ++i) {
      auto& c = convs[rng() % convs.size()];
      if (rng() % 10 == 0) c.clear();
      int grow = static_cast<int>(rng() % 6);
      for (int k = 0; k < grow; ++k) c.push_back(next++);
      std::vector<uint64_t> ids = c;
      if (rng() % 8 == 0 && !ids.empty()) ids[rng() % ids.size()] = rng() % 50 + 1;  // break chains
      if (rng() % 8 == 0 && ids.size() > 2) ids.erase(ids.begin());                  // suffixes
      recs.push_back(Rec(static_cast<double>(rng() % 100), ids));
    }
    ExpectSameAsReference(recs);
  }
}

// AddSharing (a record given as an earlier record's first ids plus its own rest) interns exactly
// as Add given the whole ids: the same provisional ids, parents, chain flags and counts, for
// chained records, records with broken chains and repeats, and references of either kind.
TEST(BlockInterner, SharingAPrefixWithAnEarlierRecordIsAddOfTheWholeIds) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 50; ++round) {
    std::vector<std::vector<uint64_t>> recs;
    std::vector<std::vector<uint64_t>> convs(5);
    uint64_t next = 1;
    for (int i = 0; i < 200; ++i) {
      auto& c = convs[rng() % convs.size()];
      if (rng() % 10 == 0) c.clear();
      const int grow = static_cast<int>(rng() % 6);
      for (int k = 0; k < grow; ++k) c.push_back(next++);
      std::vector<uint64_t> ids = c;
      if (rng() % 8 == 0 && !ids.empty()) ids[rng() % ids.size()] = rng() % 50 + 1;  // break chains
      if (rng() % 8 == 0 && ids.size() > 2) ids.erase(ids.begin());                  // suffixes
      recs.push_back(ids);
    }
    BlockInterner whole, sharing;
    for (size_t i = 0; i < recs.size(); ++i) {
      whole.Add(recs[i]);
      const size_t ref = i > 0 ? rng() % i : 0;
      uint32_t shared = 0;
      if (i > 0)
        while (shared < recs[i].size() && shared < recs[ref].size() &&
               recs[i][shared] == recs[ref][shared])
          ++shared;
      if (shared == 0) {
        sharing.Add(recs[i]);
      } else {
        const std::vector<uint64_t> rest(recs[i].begin() + shared, recs[i].end());
        sharing.AddSharing(ref, shared, rest);
      }
    }
    ASSERT_EQ(sharing.records(), whole.records());
    ASSERT_EQ(sharing.distinct_blocks(), whole.distinct_blocks());
    EXPECT_EQ(sharing.block_accesses(), whole.block_accesses());
    EXPECT_EQ(sharing.flat_accesses(), whole.flat_accesses());
    for (uint32_t p = 0; p < whole.distinct_blocks(); ++p)
      ASSERT_EQ(sharing.parent(p), whole.parent(p)) << p;
    std::vector<uint32_t> a, b;
    for (size_t r = 0; r < whole.records(); ++r) {
      EXPECT_EQ(sharing.chained(r), whole.chained(r)) << r;
      whole.Materialize(r, &a);
      sharing.Materialize(r, &b);
      ASSERT_EQ(b, a) << "record " << r;
    }
  }
}

// The id table's tag bytes (block_interner.cc) only speed up lookups: over enough distinct blocks
// to grow the table many times (so slots with equal tags and long probe sequences occur), every
// record's provisional ids are the first-seen numbering a plain hash map gives.
TEST(BlockInterner, ProvisionalIdsAreTheFirstSeenNumberingThroughManyGrows) {
  std::mt19937_64 rng(11);
  BlockInterner in;
  std::unordered_map<uint64_t, uint32_t> first_seen;
  std::vector<std::vector<uint32_t>> expected;
  std::vector<std::vector<uint64_t>> convs(64);
  std::vector<uint64_t> seen;  // ids already used, for repeats in other places
  for (int i = 0; i < 6000; ++i) {
    auto& c = convs[rng() % convs.size()];
    if (rng() % 20 == 0) c.clear();
    const int grow = static_cast<int>(rng() % 120);
    for (int k = 0; k < grow; ++k) c.push_back(rng());  // new random 64-bit ids
    std::vector<uint64_t> ids = c;
    if (rng() % 6 == 0 && !seen.empty())  // an old block in a new place
      ids.insert(ids.begin() + static_cast<std::ptrdiff_t>(rng() % (ids.size() + 1)),
                 seen[rng() % seen.size()]);
    if (rng() % 10 == 0) ids.push_back(rng() % 64);  // small ids, repeated across records
    std::vector<uint32_t> want;
    for (uint64_t id : ids) {
      auto [it, inserted] = first_seen.emplace(id, static_cast<uint32_t>(first_seen.size()));
      if (inserted) seen.push_back(id);
      want.push_back(it->second);
    }
    in.Add(ids);
    expected.push_back(std::move(want));
  }
  ASSERT_GT(first_seen.size(), 100000u);  // the table grew past 128k slots
  EXPECT_EQ(in.distinct_blocks(), first_seen.size());
  std::vector<uint32_t> got;
  for (size_t r = 0; r < expected.size(); ++r) {
    in.Materialize(r, &got);
    ASSERT_EQ(got, expected[r]) << "record " << r;
  }
}

// A reader's estimate of the distinct blocks (BlockInterner::ExpectBlocks) sizes the table's
// growth only: with estimates too low, too high, and changing on every record, over many grows
// (the table grows by 1.25x to 2x towards the estimate), every record's provisional ids are the
// first-seen numbering of a plain hash map, and the table stays at most 3/4 full and, once the
// estimate is right, no larger than the next growth step needs.
TEST(BlockInterner, GrowingTowardsAnEstimateKeepsTheFirstSeenNumbering) {
  for (const int mode : {0, 1, 2, 3}) {
    std::mt19937_64 rng(100 + mode);
    BlockInterner in;
    std::unordered_map<uint64_t, uint32_t> first_seen;
    std::vector<std::vector<uint32_t>> expected;
    std::vector<std::vector<uint64_t>> convs(32);
    constexpr uint64_t kFinal = 150000;  // about the distinct blocks this loop makes
    for (int i = 0; first_seen.size() < kFinal; ++i) {
      switch (mode) {
        case 0:
          in.ExpectBlocks(kFinal / 10);
          break;  // far too low
        case 1:
          in.ExpectBlocks(kFinal * 8);
          break;  // far too high
        case 2:
          in.ExpectBlocks(first_seen.size() + rng() % kFinal);
          break;  // noisy
        case 3:
          in.ExpectBlocks(kFinal + kFinal / 20);
          break;  // right, +5%
      }
      auto& c = convs[rng() % convs.size()];
      if (rng() % 16 == 0) c.clear();
      const int grow = static_cast<int>(rng() % 100);
      for (int k = 0; k < grow; ++k) c.push_back(rng());
      std::vector<uint64_t> ids = c;
      if (rng() % 8 == 0) ids.push_back(rng() % 32);  // small ids, repeated across records
      std::vector<uint32_t> want;
      for (uint64_t id : ids)
        want.push_back(
            first_seen.emplace(id, static_cast<uint32_t>(first_seen.size())).first->second);
      in.Add(ids);
      expected.push_back(std::move(want));
      ASSERT_LE(uint64_t{in.distinct_blocks()} * 4, uint64_t{in.table_slots()} * 3);
    }
    EXPECT_EQ(in.distinct_blocks(), first_seen.size());
    if (mode == 3) {  // the last growth went to the estimate, not to twice the blocks
      EXPECT_LE(in.table_slots(), kFinal * 3 / 2) << "mode " << mode;
    }
    std::vector<uint32_t> got;
    for (size_t r = 0; r < expected.size(); ++r) {
      in.Materialize(r, &got);
      ASSERT_EQ(got, expected[r]) << "mode " << mode << " record " << r;
    }
  }
}

}  // namespace
}  // namespace ltl
