// common/mapped_array.h: a MappedArray keeps its elements through every growth (moved pages, not
// copies), new storage reads as zero, capacity only grows (at least doubling for push_back), and
// moving or releasing the array leaves nothing behind.
#include "common/mapped_array.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace ltl {
namespace {

TEST(MappedArray, KeepsTheElementsThroughManyGrowths) {
  MappedArray<uint64_t> a;
  std::vector<uint64_t> want;
  std::mt19937_64 rng(5);
  size_t growths = 0;
  for (int i = 0; i < 3'000'000; ++i) {  // 24 MB: past several whole huge pages
    const size_t cap = a.capacity();
    const uint64_t v = rng();
    a.push_back(v);
    want.push_back(v);
    if (a.capacity() != cap) {
      ++growths;
      EXPECT_GE(a.capacity(), 2 * cap);
    }
  }
  EXPECT_GT(growths, 5u);
  ASSERT_EQ(a.size(), want.size());
  EXPECT_TRUE(std::equal(a.begin(), a.end(), want.begin()));
  const uint64_t extra[3] = {1, 2, 3};
  a.append(extra, 3);
  EXPECT_EQ(a.size(), want.size() + 3);
  EXPECT_EQ(a.back(), 3u);
}

// push_back of one of the array's own elements, as the block interner does (a run's start): the
// growth that moves the pages must not leave the argument dangling.
TEST(MappedArray, PushBackOfAnOwnElementAcrossAGrowth) {
  MappedArray<uint32_t> a;
  a.push_back(41);
  for (uint32_t i = 1; i < 2'000'000; ++i) a.push_back(a[i - 1] + 1);
  for (uint32_t i = 0; i < 2'000'000; ++i) ASSERT_EQ(a[i], 41 + i);
}

TEST(MappedArray, NewStorageIsZero) {
  MappedArray<uint32_t> z = MappedArray<uint32_t>::Zeroed(1'000'000);
  ASSERT_EQ(z.size(), 1'000'000u);
  EXPECT_TRUE(std::all_of(z.begin(), z.end(), [](uint32_t x) { return x == 0; }));
  MappedArray<uint32_t> a;
  for (uint32_t i = 0; i < 1000; ++i) a.push_back(0xffffffffu);
  a.clear();
  a.push_back(7);
  a.resize_zeroed(700'000);  // grows past the old capacity: the new elements are zero
  EXPECT_EQ(a[0], 7u);
  EXPECT_TRUE(std::all_of(a.begin() + 1, a.end(), [](uint32_t x) { return x == 0; }));
}

// Storage of 2 MiB or more starts on a huge-page boundary, however it got there (grown from small
// pages, grown again, reserved at once, zeroed), so every 2 MiB of it can be one huge page; the
// elements survive the switch from small pages.
TEST(MappedArray, LargeStorageStartsOnAHugePageBoundary) {
#if !defined(__linux__)
  GTEST_SKIP() << "malloc'd storage elsewhere than Linux";
#endif
  const auto aligned = [](const void* p) {
    return reinterpret_cast<uintptr_t>(p) % kHugePageBytes == 0;
  };
  MappedArray<uint32_t> a;
  for (uint32_t i = 0; i < 3'000'000; ++i) {
    a.push_back(i);
    if (a.reserved_bytes() >= kHugePageBytes) {
      ASSERT_TRUE(aligned(a.data())) << i;
    }
  }
  for (uint32_t i = 0; i < 3'000'000; ++i) ASSERT_EQ(a[i], i);
  MappedArray<uint64_t> b;
  b.push_back(9);
  b.reserve_exact(1'000'000);
  EXPECT_TRUE(aligned(b.data()));
  EXPECT_EQ(b[0], 9u);
  EXPECT_EQ(b.reserved_bytes() % kHugePageBytes, 0u);
  const MappedArray<uint32_t> z = MappedArray<uint32_t>::Zeroed(1'000'000);
  EXPECT_TRUE(aligned(z.data()));
  EXPECT_TRUE(std::all_of(z.begin(), z.end(), [](uint32_t x) { return x == 0; }));
}

TEST(MappedArray, MoveAndRelease) {
  MappedArray<uint32_t> a;
  for (uint32_t i = 0; i < 100'000; ++i) a.push_back(i);
  MappedArray<uint32_t> b = std::move(a);
  EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_EQ(a.capacity(), 0u);
  ASSERT_EQ(b.size(), 100'000u);
  EXPECT_EQ(b[99'999], 99'999u);
  a = std::move(b);
  EXPECT_EQ(a[12'345], 12'345u);
  a.release();
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(a.reserved_bytes(), 0u);
  a.reserve_exact(10);
  EXPECT_GE(a.capacity(), 10u);
  EXPECT_EQ(a.size(), 0u);
}

}  // namespace
}  // namespace ltl
