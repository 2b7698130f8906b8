// The facts store (common/facts_store.h) and its feeder (ingest/facts_sharer.h): random
// conversations whose turns repeat a prefix of an earlier turn's segments and a tool list from a
// small pool, added with right, wrong and missing parents, read back equal to the plain lists they
// were added with (the reference: a vector of PromptFacts), with the same counts and list bytes;
// repeated segments and tool lists are kept once; chains past kMaxDepth still read back.
#include <gtest/gtest.h>

#include <random>

#include "common/facts_store.h"
#include "ingest/facts_sharer.h"

namespace ltl {
namespace {

SegmentFact RandomSegment(std::mt19937_64& rng) {
  SegmentFact s;
  s.digest = static_cast<uint32_t>(rng() % 8);  // few values: equal segments by chance too
  s.masked_digest = static_cast<uint32_t>(rng() % 4);
  s.token_start = static_cast<uint32_t>(rng() % 16);
  s.item = static_cast<uint16_t>(rng() % 3);
  s.kind = static_cast<uint8_t>(rng() % 3);
  s.role = static_cast<uint8_t>(rng() % 2);
  return s;
}

void ExpectEqual(const PromptFacts& want, const PromptFacts& got, size_t i) {
  ASSERT_EQ(got.segments.size(), want.segments.size()) << i;
  for (size_t k = 0; k < want.segments.size(); ++k) {
    const SegmentFact &a = want.segments[k], &b = got.segments[k];
    EXPECT_TRUE(a.digest == b.digest && a.masked_digest == b.masked_digest &&
                a.token_start == b.token_start && a.item == b.item && a.kind == b.kind &&
                a.role == b.role)
        << i << " segment " << k;
  }
  ASSERT_EQ(got.tools.size(), want.tools.size()) << i;
  for (size_t k = 0; k < want.tools.size(); ++k) {
    EXPECT_EQ(got.tools[k].name_digest, want.tools[k].name_digest) << i;
    EXPECT_EQ(got.tools[k].definition_digest, want.tools[k].definition_digest) << i;
  }
  EXPECT_EQ(got.cache_control, want.cache_control) << i;
}

// Random turns: each continues a random earlier turn (a prefix of it and a new tail) or starts
// afresh; tool lists from a pool of three.
std::vector<PromptFacts> RandomTurns(std::mt19937_64& rng, size_t n, std::vector<size_t>* from) {
  std::vector<std::vector<ToolFact>> pool = {{}, {{1, 2}, {3, 4}}, {{1, 2}, {3, 5}, {6, 7}}};
  std::vector<PromptFacts> turns;
  for (size_t i = 0; i < n; ++i) {
    PromptFacts f;
    const bool continues = i > 0 && rng() % 5 != 0;
    const size_t p = continues ? rng() % i : i;
    from->push_back(p);
    if (continues) {
      const std::vector<SegmentFact>& prev = turns[p].segments;
      f.segments.assign(prev.begin(),
                        prev.begin() + static_cast<std::ptrdiff_t>(rng() % (prev.size() + 1)));
    }
    const size_t tail = rng() % 6;
    for (size_t k = 0; k < tail; ++k) f.segments.push_back(RandomSegment(rng));
    f.tools = pool[rng() % pool.size()];
    f.cache_control = static_cast<int32_t>(rng() % 4) - 2;
    turns.push_back(std::move(f));
  }
  return turns;
}

TEST(FactsStore, ReadsBackWhatWasAddedWhateverTheParent) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 20; ++round) {
    std::vector<size_t> from;
    const std::vector<PromptFacts> turns = RandomTurns(rng, 300, &from);
    auto store = std::make_shared<FactsStore>();
    std::vector<PromptFacts> records(turns.size());
    size_t total = 0;
    for (size_t i = 0; i < turns.size(); ++i) {
      // The right parent, a wrong one, or none.
      const uint64_t pick = rng() % 3;
      const uint32_t parent = from[i] == i || pick == 2 ? FactsStore::kNoEntry
                              : pick == 0               ? static_cast<uint32_t>(from[i])
                                                        : static_cast<uint32_t>(rng() % i);
      const uint32_t e = store->Add(turns[i], parent, static_cast<uint32_t>(turns[i].bytes()));
      ASSERT_EQ(e, i);
      records[i].cache_control = turns[i].cache_control;
      records[i].shared = SharedFacts{store, e};
      total += turns[i].segments.size();
    }
    EXPECT_LT(store->kept_segments(), total);
    EXPECT_LE(store->tool_lists(), 3u);
    PromptFacts scratch;
    for (size_t i = 0; i < turns.size(); ++i) {
      EXPECT_EQ(SegmentCount(records[i]), turns[i].segments.size());
      EXPECT_EQ(PlainFactsBytes(records[i]), kPlainFactsHeaderBytes + turns[i].bytes());
      ExpectEqual(turns[i], ReadFacts(records[i], &scratch), i);
    }
  }
}

TEST(FactsStore, LongChainsAreCut) {
  // Each turn extends the last by one segment: a chain far past kMaxDepth.
  auto store = std::make_shared<FactsStore>();
  std::vector<PromptFacts> turns;
  std::mt19937_64 rng(11);
  uint32_t last = FactsStore::kNoEntry;
  size_t total = 0;
  for (size_t i = 0; i < 5 * FactsStore::kMaxDepth; ++i) {
    PromptFacts f = turns.empty() ? PromptFacts() : turns.back();
    f.segments.push_back(RandomSegment(rng));
    last = store->Add(f, last, 0);
    total += f.segments.size();
    turns.push_back(f);
  }
  EXPECT_LT(store->kept_segments(), total / 10);
  PromptFacts scratch;
  for (size_t i = 0; i < turns.size(); ++i) {
    PromptFacts r;
    r.shared = SharedFacts{store, static_cast<uint32_t>(i)};
    ExpectEqual(turns[i], ReadFacts(r, &scratch), i);
  }
}

TEST(FactsSharer, SharesAlongLinksAndConversations) {
  std::mt19937_64 rng(3);
  std::vector<size_t> from;
  const std::vector<PromptFacts> turns = RandomTurns(rng, 400, &from);
  FactsSharer sharer;
  std::vector<PromptFacts> records = turns;
  std::vector<size_t> plain_bytes;
  size_t total = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    // Links name the turn continued (its own link is its index + 1); every fourth turn has none,
    // and some carry a conversation key instead.
    ConversationLinks links;
    links.known = i % 4 != 0;
    links.own = i + 1;
    if (from[i] != i) links.parents = {999999, from[i] + 1};
    std::string conversation;  // (not "c" + to_string: GCC 12's -Wrestrict false positive)
    if (i % 3 == 0) conversation = std::to_string(from[i] % 7) + "c";
    plain_bytes.push_back(PlainFactsBytes(records[i]));
    sharer.Share(&records[i], links, conversation);
    total += turns[i].segments.size();
    EXPECT_TRUE(records[i].segments.empty());
    EXPECT_TRUE(records[i].tools.empty());
  }
  EXPECT_LT(sharer.store().kept_segments(), total);
  PromptFacts scratch;
  for (size_t i = 0; i < records.size(); ++i) {
    const bool none = turns[i].segments.empty() && turns[i].tools.empty();
    EXPECT_EQ(records[i].shared.store == nullptr, none) << i;
    ExpectEqual(turns[i], ReadFacts(records[i], &scratch), i);
    EXPECT_EQ(PlainFactsBytes(records[i]), plain_bytes[i]) << i;
  }
}

}  // namespace
}  // namespace ltl
