// Radix-tree LRU replay against a reference written separately here: a std::map from each block
// path (the ids from the request's head to the block) to its node, and a linear scan over every
// node for the least recently accessed unlocked leaf. Random traces share prefixes (requests
// extend earlier requests), some reuse ids behind different prefixes (not chained), last blocks
// are partial, conversations vary, with and without a warm-up window, at many capacities.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "common/request_record.h"
#include "simulate/eviction_policy.h"
#include "simulate/radix_lru_replay.h"
#include "simulate/trace.h"

namespace ltl {
namespace {

using Path = std::vector<uint64_t>;

struct RefNode {
  bool cached = false;
  uint64_t time = 0;
  int children = 0;  // cached children
};

struct RefResult {
  int64_t hit = 0, measured = 0;
};

RefResult ReferenceRadixLru(const std::vector<RequestRecord>& recs, size_t capacity,
                            double warmup) {
  std::map<Path, RefNode> tree;
  size_t cached = 0;
  uint64_t clock = 0;
  RefResult out;
  const size_t first = static_cast<size_t>(static_cast<double>(recs.size()) * warmup);
  for (size_t i = 0; i < recs.size(); ++i) {
    const RequestRecord& r = recs[i];
    const size_t n = r.block_ids.size();
    auto prefix = [&](size_t len) { return Path(r.block_ids.begin(), r.block_ids.begin() + len); };
    size_t k = 0;
    while (k < n && tree[prefix(k + 1)].cached) ++k;
    if (i >= first) {
      out.measured += r.input_tokens;
      out.hit += std::min<int64_t>(static_cast<int64_t>(k) * r.block_size, r.input_tokens);
    }
    std::set<Path> locked;
    for (size_t j = 1; j <= k; ++j) {
      tree[prefix(j)].time = ++clock;
      locked.insert(prefix(j));
    }
    for (size_t j = k; j < n; ++j) {
      if (tree[prefix(j + 1)].cached) continue;
      if (cached >= capacity) {
        const Path* victim = nullptr;
        for (const auto& [path, node] : tree) {
          if (!node.cached || node.children > 0 || locked.count(path)) continue;
          if (!victim || node.time < tree[*victim].time) victim = &path;
        }
        if (!victim) break;
        const Path gone = *victim;
        tree[gone].cached = false;
        --cached;
        if (gone.size() > 1) --tree[Path(gone.begin(), gone.end() - 1)].children;
      }
      if (cached >= capacity || (j > 0 && !tree[prefix(j)].cached)) break;
      RefNode& node = tree[prefix(j + 1)];
      node.cached = true;
      node.time = ++clock;
      ++cached;
      if (j > 0) ++tree[prefix(j)].children;
    }
  }
  return out;
}

std::vector<RequestRecord> RandomTrace(std::mt19937& rng, bool chained) {
  const int n = 5 + static_cast<int>(rng() % 40);
  std::vector<RequestRecord> recs;
  uint64_t next_id = 1;
  for (int i = 0; i < n; ++i) {
    RequestRecord r;
    r.time_s = i;
    r.has_time = true;
    r.block_size = 4;
    if (!recs.empty() && rng() % 4 != 0) {  // extend a prefix of an earlier request
      const RequestRecord& base = recs[rng() % recs.size()];
      const size_t keep = rng() % (base.block_ids.size() + 1);
      r.block_ids.assign(base.block_ids.begin(), base.block_ids.begin() + keep);
    }
    const int more = static_cast<int>(rng() % 5) + (r.block_ids.empty() ? 1 : 0);
    for (int j = 0; j < more; ++j)
      r.block_ids.push_back(chained ? next_id++ : 1 + rng() % 6);  // small alphabet: reuse
    const int64_t k = static_cast<int64_t>(r.block_ids.size());
    r.input_tokens = 4 * (k - 1) + 1 + static_cast<int64_t>(rng() % 4);  // partial last block
    r.conversation = std::string(1, static_cast<char>('a' + rng() % 3));
    recs.push_back(r);
  }
  return recs;
}

TEST(RadixLruReplay, MatchesAnIndependentReference) {
  std::mt19937 rng(21);
  for (int round = 0; round < 300; ++round) {
    const bool chained = round % 3 != 0;
    const std::vector<RequestRecord> recs = RandomTrace(rng, chained);
    const Trace trace = BuildTrace(recs);
    const RadixNodes nodes = ComputeRadixNodes(trace);
    if (chained) {
      EXPECT_TRUE(nodes.nodes.empty()) << "chained ids are already the tree";
    }
    for (uint64_t cap : {0, 1, 2, 3, 4, 5, 6, 8, 10, 13, 20, 40, 200}) {
      for (double warmup : {0.0, 0.5}) {
        ReplayOptions o;
        o.warmup = warmup;
        const ReplayResult got = ReplayRadixLruAt(trace, nodes, cap, o);
        const RefResult want = ReferenceRadixLru(recs, cap, warmup);
        ASSERT_EQ(got.hit.hit, want.hit)
            << "round " << round << " cap " << cap << " warmup " << warmup;
        ASSERT_EQ(got.measured_tokens, want.measured);
      }
    }
  }
}

// A request longer than the cache is cached only in part, and a later request sharing its head
// hits that part only; the flat LRU (tail first) keeps the head too but evicts differently.
TEST(RadixLruReplay, LongRequestIsCachedInPart) {
  std::vector<RequestRecord> recs;
  for (int i = 0; i < 2; ++i) {
    RequestRecord r;
    r.time_s = i;
    r.has_time = true;
    r.block_size = 4;
    r.block_ids = {1, 2, 3, 4, 5};
    r.input_tokens = 20;
    recs.push_back(r);
  }
  const Trace trace = BuildTrace(recs);
  ReplayOptions o;
  o.warmup = 0;
  // Capacity 3: blocks 1, 2, 3 go in; block 4 finds leaf 3 (its own parent) as the only
  // unlocked leaf, evicts it, then has no parent: the cache keeps 1, 2.
  EXPECT_EQ(ReplayRadixLruAt(trace, ComputeRadixNodes(trace), 3, o).hit.hit, 8);
}

TEST(RadixLruReplay, RegisteredUnderBothNames) {
  auto a = FindEvictionPolicy("radix-lru");
  auto b = FindEvictionPolicy("sglang");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_FALSE((*a)->one_pass());
}

}  // namespace
}  // namespace ltl
