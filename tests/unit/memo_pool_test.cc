// MemoPool and ChunkedArray (hash/memo_pool.h), the storage of the code-point cutter's memos:
// arrays of several element sizes driven by random appends, pushes and truncations hold what a
// plain std::vector given the same operations holds, element by element and piece by piece;
// chunks go back to the pool when an array shrinks or dies, and a pool serving arrays that are
// forgotten and rebuilt stops growing once its chunks are all in circulation; threads sharing a
// pool are never handed the same chunk twice.
#include "hash/memo_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace ltl {
namespace {

template <class T>
void ExpectEqual(const ChunkedArray<T>& a, const std::vector<T>& want) {
  ASSERT_EQ(a.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(a[i], want[i]) << "element " << i;
  }
  if (!want.empty()) {
    EXPECT_EQ(a.back(), want.back());
  }
  // Pieces from every start: contiguous, in order, covering [from, size).
  for (size_t from : {size_t{0}, want.size() / 3, want.size() / 2, want.size()}) {
    std::vector<T> got;
    a.ForEachPiece(from, [&](const T* p, size_t n) {
      EXPECT_GT(n, 0u);
      got.insert(got.end(), p, p + n);
    });
    EXPECT_EQ(got, std::vector<T>(want.begin() + static_cast<ptrdiff_t>(from), want.end()));
  }
  // Exactly the chunks the elements need.
  const size_t chunks = (want.size() + ChunkedArray<T>::kPer - 1) / ChunkedArray<T>::kPer;
  EXPECT_EQ(a.bytes(), chunks * MemoPool::kChunkBytes);
}

template <class T>
void RandomOpsMatchVector(uint32_t seed) {
  std::mt19937_64 rng(seed);
  MemoPool pool;
  {
    ChunkedArray<T> a(&pool);
    std::vector<T> want;
    const size_t per = ChunkedArray<T>::kPer;
    for (int op = 0; op < 400; ++op) {
      switch (rng() % 5) {
        case 0:
        case 1: {  // Append: sometimes less than a chunk, sometimes several, sometimes none
          const size_t n = rng() % 2 ? rng() % 40 : rng() % (3 * per + 5);
          std::vector<T> add(n);
          for (T& v : add) v = static_cast<T>(rng());
          a.Append(add.data(), add.size());
          want.insert(want.end(), add.begin(), add.end());
          break;
        }
        case 2: {
          const T v = static_cast<T>(rng());
          a.push_back(v);
          want.push_back(v);
          break;
        }
        case 3: {  // Truncate anywhere, a chunk boundary included
          size_t n = want.empty() ? 0 : rng() % (want.size() + 1);
          if (rng() % 4 == 0) n = n / per * per;
          a.Truncate(n);
          want.resize(std::min(n, want.size()));
          break;
        }
        default:
          if (rng() % 8 == 0) {
            a.Clear();
            want.clear();
          }
      }
      ExpectEqual(a, want);
      EXPECT_EQ(pool.chunks_in_use(), (want.size() + per - 1) / per);
    }
  }
  EXPECT_EQ(pool.chunks_in_use(), 0u);  // the array's destructor put them all back
}

TEST(MemoPool, ChunkedArraysHoldWhatAVectorHolds) {
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    RandomOpsMatchVector<char>(seed);
    RandomOpsMatchVector<uint32_t>(seed);
    RandomOpsMatchVector<uint64_t>(seed);
  }
}

TEST(MemoPool, ArrayWithoutAPoolTakesOneLater) {
  MemoPool pool;
  ChunkedArray<char> a;
  EXPECT_EQ(a.size(), 0u);
  a.Truncate(0);  // nothing to give back, no pool needed
  a.set_pool(&pool);
  const std::string s(10000, 'x');
  a.Append(s.data(), s.size());
  EXPECT_EQ(a.size(), s.size());
  EXPECT_EQ(pool.chunks_in_use(), 3u);  // 10000 bytes in 4096-byte chunks
}

// Memos forgotten and rebuilt, as the cutter's store does with ended conversations: the pool
// reaches a high-water mark and reuses its chunks from then on.
TEST(MemoPool, StopsGrowingWhenChunksAreReused) {
  MemoPool pool;
  std::mt19937_64 rng(7);
  std::vector<std::unique_ptr<ChunkedArray<char>>> live;
  const std::string text(3 * MemoPool::kSlabBytes, 'a');
  size_t peak_chunks = 0;
  for (int round = 0; round < 2000; ++round) {
    if (live.size() >= 40) live.erase(live.begin() + static_cast<ptrdiff_t>(rng() % live.size()));
    live.push_back(std::make_unique<ChunkedArray<char>>(&pool));
    live.back()->Append(text.data(), rng() % (4 * MemoPool::kChunkBytes * 8));
    peak_chunks = std::max(peak_chunks, pool.chunks_in_use());
  }
  // Never more slabs than the most chunks ever held at once needed.
  EXPECT_EQ(pool.slabs(), (peak_chunks + MemoPool::kChunksPerSlab - 1) / MemoPool::kChunksPerSlab);
  live.clear();
  EXPECT_EQ(pool.chunks_in_use(), 0u);
}

TEST(MemoPool, ThreadsNeverShareAChunk) {
  MemoPool pool;
  constexpr int kThreads = 4, kChunks = 3000;
  std::vector<std::vector<void*>> got(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kChunks; ++i) {
        void* c = pool.Get();
        // Written whole: a chunk handed out twice would show another thread's mark.
        std::memset(c, t + 1, MemoPool::kChunkBytes);
        got[t].push_back(c);
        if (i % 3 == 2) {  // give some back, to be handed out again
          pool.Put(got[t][got[t].size() - 2]);
          got[t].erase(got[t].end() - 2);
        }
      }
    });
  for (auto& th : threads) th.join();
  std::set<void*> distinct;
  for (int t = 0; t < kThreads; ++t)
    for (void* c : got[t]) {
      EXPECT_TRUE(distinct.insert(c).second);
      const auto* b = static_cast<const unsigned char*>(c);
      EXPECT_EQ(b[0], t + 1);
      EXPECT_EQ(b[MemoPool::kChunkBytes - 1], t + 1);
    }
  EXPECT_EQ(pool.chunks_in_use(), distinct.size());
  for (int t = 0; t < kThreads; ++t)
    for (void* c : got[t]) pool.Put(c);
  EXPECT_EQ(pool.chunks_in_use(), 0u);
}

}  // namespace
}  // namespace ltl
