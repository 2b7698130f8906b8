// common/huge_pages.h: the range advised is the whole 2 MiB pages inside the given one (never a
// byte outside it), nothing for ranges holding no whole huge page, and ResizeHuge is resize: same
// size and values, whether or not the kernel took the advice.
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

}  // namespace
}  // namespace ltl
