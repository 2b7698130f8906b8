// Per-tier hits of the one-pass LRU (LruCurve::ComputeWithTiers) against a multi-level LRU replay
// written separately here: one std::list per tier, a block evicted from tier k demoted to the front
// of tier k+1, a block touched in any tier promoted to the front of tier 1, a request's leading
// run looked up tier by tier before its touches. Random traces with prefix sharing and with
// arbitrary ids, both touch orders, warm-up on and off, every split of up to three tiers.
#include <gtest/gtest.h>

#include <list>
#include <random>
#include <unordered_map>

#include "simulate/lru_curve.h"
#include "trace_builder.h"

namespace ltl {
namespace {

using testing::Records;
using testing::Req;

class MultiLevelLru {
 public:
  explicit MultiLevelLru(std::vector<size_t> caps) : caps_(std::move(caps)), tiers_(caps_.size()) {}

  // The tier holding id, or -1.
  int Find(uint64_t id) const {
    auto it = where_.find(id);
    return it == where_.end() ? -1 : it->second.tier;
  }

  void Touch(uint64_t id) {
    auto it = where_.find(id);
    if (it != where_.end()) {
      tiers_[it->second.tier].erase(it->second.pos);
      where_.erase(it);
    }
    Put(0, id);
    for (size_t k = 0; k < tiers_.size(); ++k) {
      while (tiers_[k].size() > caps_[k]) {
        const uint64_t victim = tiers_[k].back();
        tiers_[k].pop_back();
        where_.erase(victim);
        if (k + 1 < tiers_.size()) Put(k + 1, victim);  // demoted; off the last tier: dropped
      }
    }
  }

 private:
  struct Where {
    int tier;
    std::list<uint64_t>::iterator pos;
  };
  void Put(size_t k, uint64_t id) {
    tiers_[k].push_front(id);
    where_[id] = {static_cast<int>(k), tiers_[k].begin()};
  }
  std::vector<size_t> caps_;
  std::vector<std::list<uint64_t>> tiers_;
  std::unordered_map<uint64_t, Where> where_;
};

// The inclusive hierarchy: every tier its own LRU cache over every access; a block is served by
// the first tier that holds it.
class InclusiveLru {
 public:
  explicit InclusiveLru(const std::vector<size_t>& caps) {
    for (size_t c : caps) tiers_.emplace_back(std::vector<size_t>{c});
  }
  int Find(uint64_t id) const {
    for (size_t k = 0; k < tiers_.size(); ++k)
      if (tiers_[k].Find(id) >= 0) return static_cast<int>(k);
    return -1;
  }
  void Touch(uint64_t id) {
    for (MultiLevelLru& t : tiers_) t.Touch(id);
  }

 private:
  std::vector<MultiLevelLru> tiers_;
};

// Per measured request, per tier: hit tokens.
template <typename Cache>
std::vector<std::vector<int64_t>> ReferenceTiers(const std::vector<Req>& reqs, uint32_t bs,
                                                 const std::vector<size_t>& caps, double warmup,
                                                 EvictOrder order) {
  Cache cache(caps);
  std::vector<std::vector<int64_t>> out;
  const size_t first = static_cast<size_t>(static_cast<double>(reqs.size()) * warmup);
  for (size_t i = 0; i < reqs.size(); ++i) {
    const Req& r = reqs[i];
    const int64_t len = r.len >= 0 ? r.len : static_cast<int64_t>(r.ids.size()) * bs;
    if (i >= first) {
      std::vector<int64_t> by_tier(caps.size(), 0);
      for (size_t j = 0; j < r.ids.size(); ++j) {
        const int tier = cache.Find(r.ids[j]);
        const int64_t lo = std::min<int64_t>(static_cast<int64_t>(j) * bs, len);
        const int64_t hi = std::min<int64_t>(static_cast<int64_t>(j + 1) * bs, len);
        if (tier < 0 || hi == lo) break;
        by_tier[tier] += hi - lo;
      }
      out.push_back(by_tier);
    }
    if (order == EvictOrder::kTailFirst) {
      for (size_t j = r.ids.size(); j-- > 0;) cache.Touch(r.ids[j]);
    } else {
      for (uint64_t id : r.ids) cache.Touch(id);
    }
  }
  return out;
}

// Requests that extend a prefix of an earlier request (conversations, shared system prompts), or,
// with `arbitrary`, ids drawn at random (repeats inside a request, one block under many prefixes).
std::vector<Req> RandomRequests(std::mt19937* rng, bool arbitrary, uint32_t bs) {
  std::vector<Req> reqs;
  const int n = 5 + static_cast<int>((*rng)() % 40);
  uint64_t next_id = 1;
  for (int i = 0; i < n; ++i) {
    Req r;
    r.t = i;
    if (arbitrary) {
      const int k = 1 + static_cast<int>((*rng)() % 6);
      for (int j = 0; j < k; ++j) r.ids.push_back((*rng)() % 12);
    } else {
      if (!reqs.empty() && (*rng)() % 4 != 0) {
        const Req& base = reqs[(*rng)() % reqs.size()];
        const size_t keep = (*rng)() % (base.ids.size() + 1);
        r.ids.assign(base.ids.begin(), base.ids.begin() + static_cast<long>(keep));
      }
      const int extra = static_cast<int>((*rng)() % 4) + (r.ids.empty() ? 1 : 0);
      for (int j = 0; j < extra; ++j) r.ids.push_back(next_id++);
    }
    r.len = static_cast<int64_t>(bs) * static_cast<int64_t>(r.ids.size() - 1) + 1 +
            static_cast<int64_t>((*rng)() % bs);  // partial last block
    reqs.push_back(r);
  }
  return reqs;
}

TEST(LruTiers, MatchesAMultiLevelReplayAtEveryTierSplit) {
  std::mt19937 rng(19);
  const uint32_t bs = 4;
  const std::vector<size_t> sizes = {0, 1, 2, 3, 5, 8};
  int compared = 0;
  for (int round = 0; round < 120; ++round) {
    const std::vector<Req> reqs = RandomRequests(&rng, round % 3 == 0, bs);
    const Trace trace = BuildTrace(Records(reqs, bs));
    // Every 3-tier split of the sizes, as one TierHierarchies (one pass covers them all).
    std::vector<std::vector<size_t>> splits;
    for (size_t a : sizes)
      for (size_t b : sizes)
        for (size_t c : sizes) splits.push_back({a, b, c});
    TierHierarchies h;
    for (const auto& s : splits)
      h.cumulative_blocks.push_back({s[0], s[0] + s[1], s[0] + s[1] + s[2]});
    for (EvictOrder order : {EvictOrder::kTailFirst, EvictOrder::kHeadFirst}) {
      for (double warmup : {0.0, 0.5}) {
        ReplayOptions o;
        o.warmup = warmup;
        o.order = order;
        TierSplit split;
        const LruCurve curve =
            LruCurve::ComputeWithTiers(trace, o, FirstMeasuredIndex(trace, o), h, &split);
        ASSERT_EQ(split.hierarchies, splits.size());
        ASSERT_EQ(split.tiers, 3u);
        for (size_t s = 0; s < splits.size(); ++s) {
          const auto want = ReferenceTiers<MultiLevelLru>(reqs, bs, splits[s], warmup, order);
          ASSERT_EQ(split.request.size(), want.size());
          int64_t sum = 0;
          for (size_t k = 0; k < 3; ++k) {
            int64_t tier_total = 0;
            for (size_t m = 0; m < want.size(); ++m) {
              ASSERT_EQ(split.RequestTokens(m, s, k), want[m][k])
                  << "round " << round << " split " << splits[s][0] << "," << splits[s][1] << ","
                  << splits[s][2] << " request " << m << " tier " << k;
              tier_total += want[m][k];
            }
            ASSERT_EQ(split.At(s, k), tier_total);
            sum += tier_total;
          }
          // The hierarchy holds what one flat LRU of the summed size holds.
          ASSERT_EQ(sum, curve.At(splits[s][0] + splits[s][1] + splits[s][2]).hit);
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, 120 * 4 * 216);
}

TEST(LruTiers, InclusiveMatchesIndependentLruPerTier) {
  // Inclusive bounds are the running maximum of the tier sizes (ComputeWithTiers needs
  // non-decreasing bounds; a tier no larger than one above it serves nothing).
  std::mt19937 rng(23);
  const uint32_t bs = 4;
  const std::vector<size_t> sizes = {0, 1, 2, 4, 7};
  for (int round = 0; round < 80; ++round) {
    const std::vector<Req> reqs = RandomRequests(&rng, round % 3 == 0, bs);
    const Trace trace = BuildTrace(Records(reqs, bs));
    std::vector<std::vector<size_t>> splits;
    TierHierarchies h;
    for (size_t a : sizes)
      for (size_t b : sizes)
        for (size_t c : sizes) {
          splits.push_back({a, b, c});
          const uint64_t m1 = a, m2 = std::max(a, b), m3 = std::max(m2, static_cast<uint64_t>(c));
          h.cumulative_blocks.push_back({m1, m2, m3});
        }
    for (EvictOrder order : {EvictOrder::kTailFirst, EvictOrder::kHeadFirst}) {
      ReplayOptions o;
      o.warmup = 0.3;
      o.order = order;
      TierSplit split;
      const LruCurve curve =
          LruCurve::ComputeWithTiers(trace, o, FirstMeasuredIndex(trace, o), h, &split);
      for (size_t s = 0; s < splits.size(); ++s) {
        const auto want = ReferenceTiers<InclusiveLru>(reqs, bs, splits[s], 0.3, order);
        ASSERT_EQ(split.request.size(), want.size());
        int64_t sum = 0;
        for (size_t m = 0; m < want.size(); ++m)
          for (size_t k = 0; k < 3; ++k) {
            ASSERT_EQ(split.RequestTokens(m, s, k), want[m][k])
                << "round " << round << " inclusive " << splits[s][0] << "," << splits[s][1] << ","
                << splits[s][2] << " request " << m << " tier " << k;
            sum += want[m][k];
          }
        ASSERT_EQ(sum, curve.At(h.cumulative_blocks[s][2]).hit);
      }
    }
  }
}

TEST(LruTiers, HandComputedSplit) {
  // bs 4, tail-first. R0 = [1,2,3] leaves the stack 1,2,3 (1 most recent); R1 = [4] pushes 4 on
  // top: 4,1,2,3. R2 = [1,2,3] then finds 1 at distance 1, 2 at 2, 3 at 3. With tiers of 2, 1 and 1
  // blocks: blocks 1 (distance 1) in tier 1, 2 (distance 2) in tier 2, 3 (distance 3) in tier 3.
  const Trace t = testing::MakeTrace({{0, {1, 2, 3}, -1}, {1, {4}, -1}, {2, {1, 2, 3}, -1}}, 4);
  ReplayOptions o;
  o.warmup = 0;
  TierHierarchies h;
  h.cumulative_blocks = {{2, 3, 4}, {2, 3, 3}, {0, 4, 4}};
  TierSplit split;
  LruCurve::ComputeWithTiers(t, o, 0, h, &split);
  ASSERT_EQ(split.request.size(), 3u);
  EXPECT_EQ(split.request[2], 2u);
  EXPECT_EQ(split.RequestTokens(2, 0, 0), 4u);
  EXPECT_EQ(split.RequestTokens(2, 0, 1), 4u);
  EXPECT_EQ(split.RequestTokens(2, 0, 2), 4u);
  // A 3-block hierarchy holds blocks 1 and 2 only (block 3 at distance 3 fell off).
  EXPECT_EQ(split.At(1, 0) + split.At(1, 1) + split.At(1, 2), 8);
  EXPECT_EQ(split.At(1, 2), 0);
  // No tier 1: everything from tier 2.
  EXPECT_EQ(split.At(2, 0), 0);
  EXPECT_EQ(split.At(2, 1), 12);
}

}  // namespace
}  // namespace ltl
