// The cluster's first-use shuffle (hash/first_use.h, simulate/first_use_keys.h): map, reduce by
// partition, cuts and sums on hand-built cases (first use, same-conversation against across, the
// owner rule for requests of no conversation, a block first used by a later file's earlier
// request, leading runs, repeats and token-less blocks) and, on random traces, against the
// one-pass LRU curve's unbounded figures (the single-process ceiling and cold ceiling).
#include "hash/first_use.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "simulate/first_use_keys.h"
#include "simulate/lru_curve.h"
#include "simulate/trace.h"
#include "trace_builder.h"

namespace ltl {
namespace {

using testing::Records;
using testing::Req;

// The whole shuffle as the Dask driver runs it: records in merged order, file f holding records
// [starts[f], starts[f + 1]); every step's bytes go through their codec; a partition's map outputs
// are handed over last file first (the reduce must not depend on their order).
FirstUseFigures Shuffle(const std::vector<RequestRecord>& recs, std::vector<size_t> starts,
                        uint32_t partitions, double warmup) {
  const Trace t = BuildTrace(recs);
  ReplayOptions o, cold;
  o.warmup = warmup;
  cold.warmup = 0;
  const std::string key_bytes = EncodeFirstUseKeys(
      FirstUseKeysOf(t, recs.size(), FirstMeasuredIndex(t, o), FirstMeasuredIndex(t, cold)));
  const FirstUseKeys keys = DecodeFirstUseKeys(key_bytes).value();
  starts.push_back(recs.size());
  std::vector<std::vector<std::string>> maps;
  for (size_t f = 0; f + 1 < starts.size(); ++f) {
    std::vector<RequestRecord> file(recs.begin() + static_cast<ptrdiff_t>(starts[f]),
                                    recs.begin() + static_cast<ptrdiff_t>(starts[f + 1]));
    maps.push_back(FirstUseMap(file, static_cast<uint32_t>(f), partitions));
  }
  std::vector<std::vector<FirstUseAccess>> misses;
  std::vector<std::string> across;
  for (uint32_t p = 0; p < partitions; ++p) {
    std::vector<std::string_view> blobs;
    for (size_t f = maps.size(); f-- > 0;) blobs.push_back(maps[f][p]);
    Result<FirstUseReduced> r = FirstUseReduce(blobs, keys);
    EXPECT_TRUE(r.ok()) << r.status().message();
    misses.push_back(DecodeFirstUseAccesses(EncodeFirstUseAccesses(r->first_miss)).value());
    across.push_back(EncodeFirstUseAccesses(r->across));
  }
  // Pairwise, as the workers merge them (the cuts are the same either way).
  std::vector<std::vector<FirstUseAccess>> merged{misses[0]};
  for (size_t p = 1; p < misses.size(); ++p) merged[0] = MergeFirstMisses(merged[0], misses[p]);
  const std::vector<uint32_t> cuts = FirstUseCuts(keys, merged).value();
  EXPECT_EQ(cuts, FirstUseCuts(keys, misses).value());
  std::vector<FirstUseFigures> sums;
  sums.reserve(across.size());
  for (const std::string& a : across)
    sums.push_back(FirstUseAcross(DecodeFirstUseAccesses(a).value(), keys, cuts));
  return FirstUseFiguresOf(keys, cuts, sums);
}

FirstUseFigures FromCurve(const std::vector<RequestRecord>& recs, double warmup) {
  const Trace t = BuildTrace(recs);
  ReplayOptions o, cold;
  o.warmup = warmup;
  cold.warmup = 0;
  const HitTokens s = LruCurve::Compute(t, o).Unbounded();
  const HitTokens c = LruCurve::Compute(t, cold).Unbounded();
  return {s.hit, s.across, c.hit, c.across};
}

TEST(FirstUse, FirstUseAndTheConversationSplit) {
  // bs 4. r1 resends a's blocks (same conversation); r2 of b reuses a's three blocks (across);
  // block 1 is then used by a and b, so a's r3 hits it across.
  const auto recs = Records({{1, {1, 2}, 8, "a"},
                             {2, {1, 2, 3}, 12, "a"},
                             {3, {1, 2, 3, 4}, 14, "b"},
                             {4, {1, 5}, 8, "a"}},
                            4);
  const FirstUseFigures want{24, 16, 24, 16};
  for (uint32_t p : {1u, 2u, 5u}) {
    EXPECT_EQ(Shuffle(recs, {0}, p, 0), want) << p;
    EXPECT_EQ(Shuffle(recs, {0, 2, 3}, p, 0), want) << p;
  }
  EXPECT_EQ(FromCurve(recs, 0), want);
  // Warm-up 0.5: r2 and r3 measured (steady), all four cold.
  EXPECT_EQ(Shuffle(recs, {0, 1}, 3, 0.5), (FirstUseFigures{16, 16, 24, 16}));
  EXPECT_EQ(FromCurve(recs, 0.5), (FirstUseFigures{16, 16, 24, 16}));
}

TEST(FirstUse, FirstUseInALaterFileEarlierInTime) {
  // File 0's request is at t=5, file 1's at t=1: file 1's is the first use, file 0's the hit.
  const auto recs = Records({{5, {7, 8}, 8, "y"}, {1, {7, 8}, 8, "x"}}, 4);
  const FirstUseFigures want{8, 8, 8, 8};
  for (uint32_t p : {1u, 2u, 4u}) EXPECT_EQ(Shuffle(recs, {0, 1}, p, 0), want) << p;
  EXPECT_EQ(FromCurve(recs, 0), want);
}

TEST(FirstUse, RequestsOfNoConversationFollowTheOwnerRule) {
  // r0 (no conversation) leaves block 1 unowned: a's r1 hits it as same-conversation and owns
  // it; r2 (no conversation) then hits it across, and makes it shared.
  const auto recs = Records({{1, {1}, 4, ""}, {2, {1}, 4, "a"}, {3, {1}, 4, ""}}, 4);
  const FirstUseFigures want{8, 4, 8, 4};
  EXPECT_EQ(Shuffle(recs, {0, 1, 2}, 2, 0), want);
  EXPECT_EQ(FromCurve(recs, 0), want);
  // An owner, then a request of no conversation: shared, so a's own request hits it across.
  const auto again = Records({{1, {1}, 4, "a"}, {2, {1}, 4, ""}, {3, {1}, 4, "a"}}, 4);
  EXPECT_EQ(Shuffle(again, {0}, 3, 0), (FirstUseFigures{8, 8, 8, 8}));
  EXPECT_EQ(FromCurve(again, 0), (FirstUseFigures{8, 8, 8, 8}));
}

TEST(FirstUse, LeadingRunsRepeatsAndTokenlessBlocks) {
  // r1: block 9 is new, so block 2 after it is no hit (4 tokens). r2: block 5 twice, both its own
  // first use (0). r3: 6 tokens in blocks of 4: the third block holds none (6 tokens hit).
  const auto recs =
      Records({{1, {1, 2}, 8}, {2, {1, 9, 2}, 12}, {3, {5, 5}, 8}, {4, {1, 2, 3}, 6}}, 4);
  const FirstUseFigures want{10, 0, 10, 0};
  for (uint32_t p : {1u, 3u}) EXPECT_EQ(Shuffle(recs, {0, 2}, p, 0), want) << p;
  EXPECT_EQ(FromCurve(recs, 0), want);
}

TEST(FirstUse, MergedFirstMissesKeepTheSmallerPositionPerRequest) {
  const std::vector<FirstUseAccess> a{{0, 3}, {2, 1}, {5, 4}}, b{{1, 2}, {2, 0}, {5, 7}, {6, 1}};
  const std::vector<FirstUseAccess> want{{0, 3}, {1, 2}, {2, 0}, {5, 4}, {6, 1}};
  EXPECT_EQ(MergeFirstMisses(a, b), want);
  EXPECT_EQ(MergeFirstMisses(b, a), want);
  EXPECT_EQ(MergeFirstMisses({}, a), a);
}

TEST(FirstUse, AMissingMapOutputIsRefused) {
  const auto recs = Records({{1, {1}, 4}, {2, {1}, 4}}, 4);
  const Trace t = BuildTrace(recs);
  const FirstUseKeys keys = FirstUseKeysOf(t, recs.size(), 0, 0);
  std::vector<RequestRecord> first(recs.begin(), recs.begin() + 1);
  const std::vector<std::string> map0 = FirstUseMap(first, 0, 1);
  EXPECT_FALSE(FirstUseReduce({map0[0]}, keys).ok());           // 1 record of 2
  EXPECT_FALSE(FirstUseReduce({map0[0], map0[0]}, keys).ok());  // file 0 twice
  EXPECT_FALSE(DecodeFirstUseKeys(EncodeFirstUseKeys(keys).substr(3)).ok());
  // A request whose end no partition holds: the cuts refuse it.
  EXPECT_FALSE(FirstUseCuts(keys, {{{0, 1}}}).ok());
}

TEST(FirstUse, RandomTracesEqualTheCurvesUnboundedFigures) {
  std::mt19937_64 rng(34);
  for (int round = 0; round < 300; ++round) {
    const int n = 1 + static_cast<int>(rng() % 40);
    const uint32_t bs = 1 + static_cast<uint32_t>(rng() % 5);
    std::vector<Req> reqs;
    for (int i = 0; i < n; ++i) {
      Req r;
      r.t = static_cast<double>(rng() % 8);  // many ties: input order breaks them
      const size_t k = rng() % 7;
      for (size_t j = 0; j < k; ++j) r.ids.push_back(rng() % 12);  // repeats, broken chains
      r.len = rng() % 3 == 0 ? static_cast<int64_t>(rng() % (k * bs + 3)) : -1;
      const uint64_t c = rng() % 5;
      r.conv = c == 0 ? "" : std::string(1, static_cast<char>('a' + c));
      reqs.push_back(r);
    }
    const auto recs = Records(reqs, bs);
    std::vector<size_t> starts{0};
    for (int i = 1; i < n; ++i)
      if (rng() % 4 == 0) starts.push_back(static_cast<size_t>(i));
    const uint32_t partitions = 1 + static_cast<uint32_t>(rng() % 6);
    for (double warmup : {0.0, 0.5})
      ASSERT_EQ(Shuffle(recs, starts, partitions, warmup), FromCurve(recs, warmup))
          << "round " << round << " warmup " << warmup;
  }
}

}  // namespace
}  // namespace ltl
