// common/huge_pages.h: the range advised is the whole 2 MiB pages inside the given one (never a
// byte outside it), nothing for ranges holding no whole huge page, ResizeHuge is resize (same
// size and values, whether or not the kernel took the advice), and ReserveHuge keeps the elements
// and the capacities the standard library would have chosen.
#include "common/huge_pages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace ltl {
namespace {

constexpr uintptr_t kH = kHugePageBytes;

TEST(HugePages, WholePagesInsideTheRange) {
  const auto* p = reinterpret_cast<const void*>(3 * kH + 100);
  HugeRange r = WholeHugePages(p, 5 * kH);  // [3H+100, 8H+100): pages 4..7
  EXPECT_EQ(r.begin, 4 * kH);
  EXPECT_EQ(r.bytes, 4 * kH);
  r = WholeHugePages(reinterpret_cast<const void*>(2 * kH), 2 * kH);  // aligned both ends
  EXPECT_EQ(r.begin, 2 * kH);
  EXPECT_EQ(r.bytes, 2 * kH);
}

TEST(HugePages, NothingWithoutAWholePage) {
  EXPECT_EQ(WholeHugePages(reinterpret_cast<const void*>(kH + 1), kH).bytes, 0u);
  EXPECT_EQ(WholeHugePages(reinterpret_cast<const void*>(kH + 1), 2 * kH - 2).bytes, 0u);
  EXPECT_EQ(WholeHugePages(reinterpret_cast<const void*>(kH), 0).bytes, 0u);
  EXPECT_EQ(WholeHugePages(reinterpret_cast<const void*>(kH), kH - 1).bytes, 0u);
  std::vector<char> small(100);
  EXPECT_EQ(AdviseHugePages(small.data(), small.size()), 0u);
}

TEST(HugePages, ResizeHugeIsResize) {
  std::vector<int64_t> v;
  ResizeHuge(&v, 3 * kH / sizeof(int64_t) + 5, int64_t{-1});
  ASSERT_EQ(v.size(), 3 * kH / sizeof(int64_t) + 5);
  for (int64_t x : v) ASSERT_EQ(x, -1);
  std::vector<int32_t> w = {1, 2, 3};
  ResizeHuge(&w, 5, int32_t{9});  // keeps what it held
  EXPECT_EQ(w, (std::vector<int32_t>{1, 2, 3, 9, 9}));
  ResizeHuge(&w, 2, int32_t{0});  // shrinking keeps the first elements
  EXPECT_EQ(w, (std::vector<int32_t>{1, 2}));
}

TEST(HugePages, ReserveHugeGrowsAsTheStandardLibraryDoes) {
  // The same capacities as push_back and insert (PromptFacts::bytes() and the like report them).
  std::vector<uint32_t> mine, theirs;
  for (uint32_t i = 0; i < 5000; ++i) {
    ReserveHuge(&mine, mine.size() + 1);
    mine.push_back(i);
    theirs.push_back(i);
    ASSERT_EQ(mine.capacity(), theirs.capacity()) << i;
  }
  const std::vector<uint32_t> run(7000, 3);
  ReserveHuge(&mine, mine.size() + run.size());
  mine.insert(mine.end(), run.begin(), run.end());
  theirs.insert(theirs.end(), run.begin(), run.end());
  EXPECT_EQ(mine.capacity(), theirs.capacity());
  EXPECT_EQ(mine, theirs);
  ReserveHuge(&mine, 10);  // room enough: nothing moves
  EXPECT_EQ(mine.capacity(), theirs.capacity());
}

}  // namespace
}  // namespace ltl
