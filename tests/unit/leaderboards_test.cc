// Tests for the prefix tree and the two prefix leaderboards on hand-built block trees: which
// prefixes are listed, who wins each ranking, and that the documented shares add up. Totals are
// checked against a set-based cold replay written separately here.
#include "analyze/leaderboards.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <unordered_set>

#include "analyze/build_profile.h"
#include "report/terminal_summary.h"
#include "simulate/prefix_tree.h"
#include "simulate/trace.h"

namespace ltl {
namespace {

constexpr uint32_t kBs = 16;

RequestRecord Req(std::vector<uint64_t> ids, double t, std::string model = "",
                  std::string session_field = "") {
  RequestRecord r;
  r.block_size = kBs;
  r.input_tokens = static_cast<int64_t>(ids.size()) * kBs;
  r.block_ids = std::move(ids);
  r.time_s = t;
  r.has_time = true;
  r.model = std::move(model);
  r.session_field = std::move(session_field);
  return r;
}

std::vector<uint64_t> Range(uint64_t first, uint64_t n) {
  std::vector<uint64_t> v;
  for (uint64_t i = 0; i < n; ++i) v.push_back(first + i);
  return v;
}

std::vector<uint64_t> Concat(std::vector<uint64_t> a, const std::vector<uint64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Independent reference: hit tokens of an unbounded cache replaying every request from cold.
int64_t ColdUnboundedHitTokens(std::vector<RequestRecord> recs) {
  std::stable_sort(recs.begin(), recs.end(), [](const RequestRecord& a, const RequestRecord& b) {
    return a.time_s < b.time_s;
  });
  std::unordered_set<uint64_t> seen;
  int64_t hit = 0;
  for (const RequestRecord& r : recs) {
    size_t k = 0;
    while (k < r.block_ids.size() && seen.count(r.block_ids[k])) ++k;
    hit += std::min<int64_t>(static_cast<int64_t>(k) * r.block_size, r.input_tokens);
    seen.insert(r.block_ids.begin(), r.block_ids.end());
  }
  return hit;
}

// 180 requests share a 16-token prefix A; 30 others share a 2,400-token prefix B; every request
// ends with a block of its own. Interleaved in time.
std::vector<RequestRecord> DisjointTree() {
  std::vector<RequestRecord> recs;
  recs.reserve(210);
  uint64_t unique = 1'000'000;
  for (int i = 0; i < 180; ++i)
    recs.push_back(Req(Concat({1}, {unique++}), i * 1.0, "small-model"));
  for (int i = 0; i < 30; ++i)
    recs.push_back(Req(Concat(Range(1000, 150), {unique++}), i * 6.0 + 0.5, "big-model",
                       i % 3 == 0 ? "prompt_cache_key" : ""));
  return recs;
}

// 180 requests start with A (16 tokens); 30 of them go on with 149 more shared blocks (B, 2,400
// tokens in all); every request ends with a block of its own.
std::vector<RequestRecord> NestedTree() {
  std::vector<RequestRecord> recs;
  uint64_t unique = 1'000'000;
  for (int i = 0; i < 180; ++i) {
    std::vector<uint64_t> ids = {1};
    if (i % 6 == 0) ids = Concat(ids, Range(2000, 149));
    ids.push_back(unique++);
    recs.push_back(Req(ids, i * 1.0));
  }
  return recs;
}

Leaderboards Build(const std::vector<RequestRecord>& recs, size_t top_n) {
  Trace trace = BuildTrace(recs);
  return BuildLeaderboards(recs, trace, ColdUnboundedHitTokens(recs), top_n);
}

TEST(PrefixTree, ListsBranchPointsAndEndsOnly) {
  // Chain 1-2-3 in three requests; one continues with 4 (end), two with 5-6 (end).
  std::vector<RequestRecord> recs = {Req({1, 2, 3, 4}, 0), Req({1, 2, 3, 5, 6}, 1),
                                     Req({1, 2, 3, 5, 6}, 2)};
  Trace trace = BuildTrace(recs);
  PrefixTree tree = PrefixTree::Build(trace);
  // Dense ids follow first appearance: 1->0, 2->1, 3->2, 4->3, 5->4, 6->5.
  EXPECT_EQ(tree.requests(0), 3u);
  EXPECT_EQ(tree.requests(2), 3u);
  EXPECT_EQ(tree.requests(4), 2u);
  EXPECT_FALSE(tree.IsListed(0));  // its child 2 is in as many requests
  EXPECT_FALSE(tree.IsListed(1));
  EXPECT_TRUE(tree.IsListed(2));   // branch point: children in 1 and 2 requests
  EXPECT_FALSE(tree.IsListed(3));  // an end seen once: nothing to reuse
  EXPECT_FALSE(tree.IsListed(4));
  EXPECT_TRUE(tree.IsListed(5));  // an end in 2 requests
  EXPECT_EQ(tree.tokens(2), 48);
  EXPECT_EQ(tree.tokens(5), 80);
  EXPECT_EQ(tree.ListedAncestor(5), 2u);
  EXPECT_EQ(tree.OwnReusableTokens(5), (80 - 48) * 1);
  EXPECT_EQ(tree.OwnReusableTokens(2), 48 * 2);
}

TEST(Leaderboards, CountAndVolumeWinnersDifferOnDisjointPrefixes) {
  const auto recs = DisjointTree();
  const Leaderboards lb = Build(recs, 20);
  // Hand-computed: A = 16 x 179, B = 2,400 x 29; tails are never reused.
  const int64_t total = 16 * 179 + 2400 * 29;
  ASSERT_EQ(lb.reusable_tokens, total);
  ASSERT_FALSE(lb.by_count.empty());
  ASSERT_FALSE(lb.by_volume.empty());
  EXPECT_EQ(lb.listed_prefixes, 2u);
  EXPECT_EQ(lb.by_count[0].tokens, 16);
  EXPECT_EQ(lb.by_count[0].requests, 180u);
  EXPECT_EQ(lb.by_volume[0].tokens, 2400);
  EXPECT_EQ(lb.by_volume[0].blocks, 150u);
  EXPECT_EQ(lb.by_volume[0].requests, 30u);
  EXPECT_EQ(lb.by_volume[0].reusable_tokens, 2400 * 29);
  EXPECT_NEAR(lb.by_volume[0].share, 2400.0 * 29 / total, 1e-12);
  EXPECT_NEAR(lb.by_count[0].share, 16.0 * 179 / total, 1e-12);
  // Disjoint prefixes: the shares add up to all reusable volume.
  EXPECT_NEAR(lb.by_count[0].share + lb.by_volume[0].share, 1.0, 1e-12);
  // Details of the rows.
  EXPECT_EQ(lb.by_volume[0].models.at("big-model"), 30u);
  EXPECT_EQ(lb.by_volume[0].with_session_id, 10u);
  EXPECT_EQ(lb.by_count[0].with_session_id, 0u);
  EXPECT_DOUBLE_EQ(lb.by_volume[0].first_seen_s, 0.5);
  EXPECT_DOUBLE_EQ(lb.by_volume[0].last_seen_s, 29 * 6.0 + 0.5);
  EXPECT_DOUBLE_EQ(lb.by_count[0].last_seen_s, 179.0);
}

TEST(Leaderboards, NestedPrefixSharesAddUpThroughOwnShares) {
  const auto recs = NestedTree();
  const Leaderboards lb = Build(recs, 1000);
  const int64_t total = ColdUnboundedHitTokens(recs);
  // Hand-computed: A's block is hit by 179 requests, B's 149 further blocks by 29.
  ASSERT_EQ(total, 16 * 179 + 149 * 16 * 29);
  ASSERT_EQ(lb.by_count.size(), 2u);
  EXPECT_EQ(lb.by_count[0].tokens, 16);
  EXPECT_EQ(lb.by_count[0].requests, 180u);
  EXPECT_EQ(lb.by_volume[0].tokens, 2400);
  EXPECT_EQ(lb.by_volume[0].requests, 30u);
  EXPECT_EQ(lb.by_volume[0].own_tokens, 2384);
  // Nested shares overlap (B's volume includes A's 16 tokens in its 29 reuses) ...
  EXPECT_GT(lb.by_count[0].share + lb.by_volume[0].share, 1.0);
  // ... while the own shares of all listed prefixes add up to exactly all reusable volume.
  double own = 0;
  for (const PrefixRow& r : lb.by_count) own += r.own_share;
  EXPECT_NEAR(own, 1.0, 1e-12);
}

TEST(Leaderboards, OwnSharesAddUpOnARandomForest) {
  // Random conversations that resend history over a few shared system prompts.
  std::vector<RequestRecord> recs;
  uint64_t next_id = 100;
  uint32_t seed = 12345;
  auto rnd = [&](uint32_t n) {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) % n;
  };
  for (int conv = 0; conv < 40; ++conv) {
    std::vector<uint64_t> ids = Range(1 + 10 * rnd(3), 1 + rnd(5));  // shared system prefix
    int turns = 1 + static_cast<int>(rnd(6));
    for (int t = 0; t < turns; ++t) {
      for (uint32_t k = 0, n = 1 + rnd(4); k < n; ++k) ids.push_back(next_id++);
      recs.push_back(Req(ids, conv * 10.0 + t));
    }
  }
  const Leaderboards lb = Build(recs, 100000);
  double own = 0;
  for (const PrefixRow& r : lb.by_volume) own += r.own_share;
  EXPECT_NEAR(own, 1.0, 1e-9);
  EXPECT_EQ(lb.by_volume.size(), lb.listed_prefixes);
}

TEST(Leaderboards, TerminalShowsTheTopOfEachRanking) {
  const auto recs = DisjointTree();
  Trace trace = BuildTrace(recs);
  Profile p;
  CapacitySpec caps;
  caps.tokens = DefaultCapacityTokens();
  BuildProfile(recs, trace, ReplayOptions{}, caps, &p);
  const std::string s = RenderTerminalSummary(p);
  // 69,600 / 72,464 = 96.05%; 2,864 / 72,464 = 3.95%.
  EXPECT_NE(s.find("top prefix by volume  2,400 tok x 30 reqs = 96.0% of reusable volume\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("top prefix by count   16 tok x 180 reqs = 4.0% of reusable volume\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("session identifiers  4.8% of requests  (affinity routing reaches only these "
                   "requests)\n"),
            std::string::npos)
      << s;
}

}  // namespace
}  // namespace ltl
