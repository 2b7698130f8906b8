// MemoStore (hash/memo_store.h), the per-worker store behind prompt reuse and the cache-buster
// facts' reuse: a taken memo is handed over once, with its contents; over budget the memos written
// longest ago are forgotten, not the ones a conversation just wrote; stamps are unique; and the
// bookkeeping of memos taken over stays bounded when the budget is never reached (a long log of
// conversations that each continue the last request).
#include "hash/memo_store.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
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

}  // namespace
}  // namespace ltl
