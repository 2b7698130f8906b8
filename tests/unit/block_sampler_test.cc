// Spatial sampling (hash/block_sampler.h, BlockInterner::SetSampling, the sampled LruCurve): the
// keep rule against a reimplementation, the same blocks kept whichever records an interner sees,
// the fixed-size cap, and the capacity and token scaling on hand-computed traces.
#include "hash/block_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "hash/block_interner.h"
#include "simulate/lru_curve.h"
#include "simulate/trace.h"

namespace ltl {
namespace {

// The SplitMix64 finalizer written again from its published constants (Steele, Lea, Flood 2014).
uint64_t RefKey(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Keep iff key / 2^64 < rate, in 128-bit integers (rate a multiple of 1/1024 here).
bool RefKeep(uint64_t id, unsigned rate_in_1024ths) {
  const unsigned __int128 lhs = static_cast<unsigned __int128>(RefKey(id)) * 1024;
  const unsigned __int128 rhs = static_cast<unsigned __int128>(rate_in_1024ths) << 64;
  return lhs < rhs;
}

// The first ids from `from` on that the rule keeps (keep = true) or drops at `rate_in_1024ths`.
std::vector<uint64_t> Ids(bool keep, size_t n, unsigned rate_in_1024ths, uint64_t from = 1) {
  std::vector<uint64_t> out;
  for (uint64_t id = from; out.size() < n; ++id)
    if (RefKeep(id, rate_in_1024ths) == keep) out.push_back(id);
  return out;
}

RequestRecord Rec(std::vector<uint64_t> ids, int64_t tokens, uint32_t block_size, double t) {
  RequestRecord r;
  r.block_ids = std::move(ids);
  r.input_tokens = tokens;
  r.block_size = block_size;
  r.time_s = t;
  r.has_time = true;
  return r;
}

ReplayOptions Cold() {
  ReplayOptions o;
  o.warmup = 0;
  return o;
}

TEST(BlockSampler, KeepRuleMatchesTheReference) {
  std::mt19937_64 rng(5);
  for (unsigned r : {1u, 10u, 102u, 512u, 1000u}) {
    const uint64_t t = SampleThreshold(r / 1024.0);
    for (int i = 0; i < 20000; ++i) {
      const uint64_t id = i < 10000 ? static_cast<uint64_t>(i) : rng();
      EXPECT_EQ(KeepBlock(SampleKey(id), t), RefKeep(id, r)) << id << " at " << r << "/1024";
    }
  }
  EXPECT_TRUE(KeepBlock(~uint64_t{0}, SampleThreshold(1.0)));  // rate 1 keeps every key
  EXPECT_EQ(ThresholdRate(SampleThreshold(0.1)), 0.1);
}

TEST(BlockSampler, InternersKeepTheSameBlocksWhicheverRecordsTheySee) {
  // Chains sharing prefixes; one interner sees all records, two others see alternate halves (two
  // shards, two machines). Each record keeps exactly the ids the rule keeps, in order.
  std::mt19937_64 rng(11);
  std::vector<std::vector<uint64_t>> records;
  for (int i = 0; i < 300; ++i) {
    std::vector<uint64_t> ids;
    uint64_t x = rng() % 7;  // 7 shared heads
    for (int j = 0; j < 1 + static_cast<int>(rng() % 40); ++j) {
      ids.push_back(x);
      x = RefKey(x * 31 + (j < 10 ? 0 : rng() % 3));  // chained: the next id depends on this one
    }
    records.push_back(ids);
  }
  BlockInterner all, even, odd;
  for (BlockInterner* in : {&all, &even, &odd}) in->SetSampling(300 / 1024.0, 0);
  std::set<uint64_t> kept_all, kept_even, kept_odd;
  for (size_t i = 0; i < records.size(); ++i) {
    all.Add(records[i]);
    (i % 2 ? odd : even).Add(records[i]);
    std::vector<uint64_t> want;
    for (uint64_t id : records[i])
      if (RefKeep(id, 300)) want.push_back(id);
    EXPECT_EQ(all.num_blocks(i), want.size());
    EXPECT_EQ((i % 2 ? odd : even).num_blocks(i / 2), want.size());
    kept_all.insert(want.begin(), want.end());
    (i % 2 ? kept_odd : kept_even).insert(want.begin(), want.end());
  }
  EXPECT_EQ(all.distinct_blocks(), kept_all.size());
  EXPECT_EQ(even.distinct_blocks(), kept_even.size());
  EXPECT_EQ(odd.distinct_blocks(), kept_odd.size());
  // Every record's kept ids come back from the chains, head first (materialized = interned).
  std::vector<uint32_t> prov;
  for (size_t i = 0; i < records.size(); ++i) {
    all.Materialize(i, &prov);
    EXPECT_EQ(prov.size(), all.num_blocks(i));
  }
}

TEST(BlockSampler, MaxBlocksKeepsTheSmallestKeys) {
  // 40 distinct ids, a cap of 10: the final threshold is the 11th smallest key, and exactly the
  // 10 smallest keys survive into the trace.
  std::vector<uint64_t> ids;
  for (uint64_t i = 100; i < 140; ++i) ids.push_back(i);
  std::vector<uint64_t> keys(ids.size());
  std::transform(ids.begin(), ids.end(), keys.begin(), RefKey);
  std::sort(keys.begin(), keys.end());
  BlockInterner in;
  in.SetSampling(1.0, 10);
  std::vector<RequestRecord> recs;
  for (size_t i = 0; i < ids.size(); i += 4) {
    recs.push_back(
        Rec({ids[i], ids[i + 1], ids[i + 2], ids[i + 3]}, 64, 16, static_cast<double>(i)));
    in.Add(recs.back().block_ids);
  }
  Trace t = BuildTrace(recs, std::move(in));
  EXPECT_EQ(t.num_blocks, 10u);
  EXPECT_EQ(t.sample_rate, std::ldexp(static_cast<double>(keys[10]), -64));
  EXPECT_EQ(t.num_accesses, 10u);
  EXPECT_EQ(t.all_accesses, 40u);
}

TEST(BlockSampler, CapacitiesScaleByTheRateAndHitsBack) {
  // Rate 1/2. Kept a, b; dropped x, y; 4 tokens per one-block request, cold start.
  // Sampled trace: a, b, a. The last a has sampled stack distance 1: it hits at sampled capacity
  // ceil(C / 2) >= 2, i.e. C >= 3. Hit tokens = measured tokens - kept missed tokens / R =
  // 20 - 8 / 0.5 = 4 (the ratio of kept hits to kept tokens would give 4 / 12 x 20 = 7).
  const auto kept = Ids(true, 2, 512), dropped = Ids(false, 2, 512);
  const uint64_t a = kept[0], b = kept[1], x = dropped[0], y = dropped[1];
  std::vector<RequestRecord> recs = {Rec({a}, 4, 4, 1), Rec({x}, 4, 4, 2), Rec({b}, 4, 4, 3),
                                     Rec({y}, 4, 4, 4), Rec({a}, 4, 4, 5)};
  BlockInterner in;
  in.SetSampling(0.5, 0);
  for (const RequestRecord& r : recs) in.Add(r.block_ids);
  Trace t = BuildTrace(recs, std::move(in));
  ASSERT_EQ(t.num_blocks, 2u);
  LruCurve c = LruCurve::Compute(t, Cold());
  EXPECT_EQ(c.measured_tokens(), 20);
  EXPECT_EQ(c.At(1).hit, 0);
  EXPECT_EQ(c.At(2).hit, 0);
  EXPECT_EQ(c.At(3).hit, 4);
  EXPECT_EQ(c.Unbounded().hit, 4);
  EXPECT_EQ(c.saturation_blocks(), 3u);
  const std::vector<CurvePoint> dense = c.Dense(10);
  ASSERT_EQ(dense.size(), 1u);
  EXPECT_EQ(dense[0].capacity_blocks, 3u);
  EXPECT_EQ(dense[0].hit.hit, 4);
}

TEST(BlockSampler, KeptBlocksCountTheTokensOfTheirOwnPosition) {
  // [x, a] twice (6 tokens in blocks of 4: a is the second block and stands for 2 tokens, not the
  // first block's 4), then [b] (4 tokens, a miss). Kept tokens 2 + 2 + 4 = 8, of which 6 missed:
  // 16 measured tokens - 6 / 0.5 = 4 (a counted as 4 tokens would give 16 - 8 / 0.5 = 0).
  const auto kept = Ids(true, 2, 512);
  const uint64_t a = kept[0], b = kept[1], x = Ids(false, 1, 512)[0];
  std::vector<RequestRecord> recs = {Rec({x, a}, 6, 4, 1), Rec({x, a}, 6, 4, 2), Rec({b}, 4, 4, 3)};
  BlockInterner in;
  in.SetSampling(0.5, 0);
  for (const RequestRecord& r : recs) in.Add(r.block_ids);
  Trace t = BuildTrace(recs, std::move(in));
  LruCurve c = LruCurve::Compute(t, Cold());
  EXPECT_EQ(c.measured_tokens(), 16);
  EXPECT_EQ(c.At(1).hit, 4);
  EXPECT_EQ(c.Unbounded().hit, 4);
}

TEST(BlockSampler, CeilingOnlyPassGivesTheSampledCeilingAndItsError) {
  // Random conversations of chained ids, sampled at 1/2: the cold ceiling's pass (no stack
  // distances) gives the full curve's scaled ceiling, across share and error estimate.
  std::mt19937_64 rng(31);
  std::uniform_int_distribution<int> len(1, 12), branch(0, 3), conv(0, 5);
  std::vector<RequestRecord> recs;
  recs.reserve(300);
  for (int i = 0; i < 300; ++i) {
    std::vector<uint64_t> ids;
    uint64_t h = 0;
    const int k = len(rng);
    ids.reserve(k);
    for (int j = 0; j < k; ++j) ids.push_back(h = h * 1000003 + branch(rng) + 1);
    recs.push_back(Rec(ids, 4 * k - (i % 3), 4, i));
    recs.back().conversation = std::to_string(conv(rng));
  }
  BlockInterner in;
  in.SetSampling(0.5, 0);
  for (const RequestRecord& r : recs) in.Add(r.block_ids);
  Trace t = BuildTrace(recs, std::move(in));
  ASSERT_TRUE(t.sampled());
  ASSERT_GT(t.num_conversations, 0u);
  for (double warmup : {0.0, 0.5}) {
    ReplayOptions o = Cold();
    o.warmup = warmup;
    const LruCurve full = LruCurve::Compute(t, o);
    const LruCurve ceiling = LruCurve::ComputeCeiling(t, o);
    EXPECT_GT(full.Unbounded().hit, 0);
    EXPECT_EQ(ceiling.Unbounded().hit, full.Unbounded().hit);
    EXPECT_EQ(ceiling.Unbounded().across, full.Unbounded().across);
    EXPECT_EQ(ceiling.measured_tokens(), full.measured_tokens());
    EXPECT_GT(full.ErrorPoints(LruCurve::kUnboundedCapacity), 0);
    EXPECT_EQ(ceiling.ErrorPoints(LruCurve::kUnboundedCapacity),
              full.ErrorPoints(LruCurve::kUnboundedCapacity));
  }
}

TEST(BlockSampler, UnsampledCurvesHaveNoError) {
  std::vector<RequestRecord> recs = {Rec({1, 2}, 8, 4, 1), Rec({1, 2}, 8, 4, 2)};
  Trace t = BuildTrace(recs);
  LruCurve c = LruCurve::Compute(t, Cold());
  EXPECT_EQ(c.ErrorPoints(1), 0);
  EXPECT_EQ(c.ErrorPoints(LruCurve::kUnboundedCapacity), 0);
  EXPECT_EQ(c.At(2).hit, 8);
}

}  // namespace
}  // namespace ltl
