// MemoStore (hash/memo_store.h), the per-worker store behind prompt reuse and the cache-buster
// facts' reuse: a taken memo is handed over once, with its contents; over budget the memos written
// longest ago are forgotten, not the ones a conversation just wrote; stamps are unique; and the
// bookkeeping of memos taken over stays bounded when the budget is never reached (a long log of
// conversations that each continue the last request). And that one store shared by threads (the
// workers of one read) hands each memo to one taker and keeps stamps unique.
#include "hash/memo_store.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

namespace ltl {
namespace {

struct TextMemo {
  std::string text;
  uint64_t stamp = 0;
  void Clear() { text.clear(); }
  size_t bytes() const { return 1024; }  // every memo costs 1 KiB against the budget
};

std::unique_ptr<TextMemo> Memo(MemoStore<TextMemo>* store, const std::string& text) {
  auto m = store->Fresh();
  m->text = text;
  return m;
}

TEST(MemoStore, TakeHandsOverOnceWithItsContents) {
  MemoStore<TextMemo> store(1 << 20);
  const uint64_t s1 = store.Remember(1, Memo(&store, "one"));
  const uint64_t s2 = store.Remember(2, Memo(&store, "two"));
  EXPECT_NE(s1, 0u);
  EXPECT_NE(s1, s2);
  const uint64_t keys[] = {9, 2, 1};  // the first key found wins
  auto m = store.Take(keys);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, "two");
  EXPECT_EQ(m->stamp, s2);
  EXPECT_FALSE(store.Take(std::span<const uint64_t>(&keys[1], 1)));  // gone once taken
  EXPECT_EQ(store.size(), 1u);
}

TEST(MemoStore, OverBudgetForgetsTheOldestWritten) {
  MemoStore<TextMemo> store(10 * 1024);
  for (uint64_t k = 1; k <= 25; ++k) store.Remember(k, Memo(&store, std::to_string(k)));
  EXPECT_EQ(store.size(), 10u);
  const uint64_t oldest_kept = 16, forgotten = 15;
  EXPECT_TRUE(store.Take(std::span<const uint64_t>(&oldest_kept, 1)));
  EXPECT_FALSE(store.Take(std::span<const uint64_t>(&forgotten, 1)));
  // Rewriting a key replaces its memo: the newer one is kept, the store does not grow.
  store.Remember(20, Memo(&store, "again"));
  const uint64_t k20 = 20;
  auto m = store.Take(std::span<const uint64_t>(&k20, 1));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, "again");
}

TEST(MemoStore, TakenOverMemosLeaveNoBookkeepingBehind) {
  MemoStore<TextMemo> store(size_t{1} << 30);  // never reached
  std::set<uint64_t> stamps;
  std::vector<uint64_t> latest(20);  // each conversation's latest key
  for (uint64_t c = 0; c < 20; ++c) {
    latest[c] = c << 32;
    stamps.insert(store.Remember(latest[c], Memo(&store, "t")));
  }
  for (uint64_t turn = 1; turn < 5000; ++turn) {
    // A conversation continues its latest request: take it, write it back under the new key.
    const uint64_t c = turn % 20;
    auto m = store.Take(std::span<const uint64_t>(&latest[c], 1));
    ASSERT_TRUE(m) << turn;
    m->text += "x";
    latest[c] = (c << 32) | turn;
    stamps.insert(store.Remember(latest[c], std::move(m)));
    ASSERT_LE(store.order_entries(), 2 * store.size() + 65) << turn;
  }
  EXPECT_EQ(store.size(), 20u);
  EXPECT_EQ(stamps.size(), 20u + 4999u);  // unique
  auto m = store.Take(std::span<const uint64_t>(&latest[7], 1));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text.size(), 1u + 250u);  // "t" plus one "x" per turn of conversation 7 (250)
}

TEST(MemoStore, SharedByThreadsEachMemoHasOneTakerAndStampsStayUnique) {
  MemoStore<TextMemo> store(size_t{1} << 30);  // never reached
  constexpr uint64_t kConversations = 16, kTurns = 4000;
  for (uint64_t c = 0; c < kConversations; ++c) store.Remember(c, Memo(&store, ""));
  // Two threads continue the same conversations: whoever takes a conversation's memo appends its
  // mark and writes it back under the same key; a thread that finds it taken starts none.
  std::vector<uint64_t> stamps[2];
  size_t appended[2] = {0, 0};
  auto run = [&](int t) {
    for (uint64_t turn = 0; turn < kTurns; ++turn) {
      const uint64_t c = (turn * 7 + static_cast<uint64_t>(t)) % kConversations;
      auto m = store.Take(std::span<const uint64_t>(&c, 1));
      if (!m) continue;
      m->text += static_cast<char>('a' + t);
      ++appended[t];
      stamps[t].push_back(store.Remember(c, std::move(m)));
    }
  };
  std::thread other(run, 1);
  run(0);
  other.join();
  EXPECT_EQ(store.size(), kConversations);
  std::set<uint64_t> all(stamps[0].begin(), stamps[0].end());
  all.insert(stamps[1].begin(), stamps[1].end());
  EXPECT_EQ(all.size(), stamps[0].size() + stamps[1].size());  // unique across the threads
  // Every mark written is in exactly one memo: none lost, none duplicated by two takers.
  size_t marks = 0;
  for (uint64_t c = 0; c < kConversations; ++c) {
    auto m = store.Take(std::span<const uint64_t>(&c, 1));
    ASSERT_TRUE(m);
    marks += m->text.size();
  }
  EXPECT_EQ(marks, appended[0] + appended[1]);
}

}  // namespace
}  // namespace ltl
