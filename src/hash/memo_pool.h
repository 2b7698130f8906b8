// MemoPool: the memory of the code-point cutter's conversation memos (block_cutter.cc), in
// fixed-size chunks carved from 2 MiB slabs that are advised for transparent huge pages
// (common/huge_pages.h) and kept until the pool is destroyed; ChunkedArray: a growable array of
// trivially copyable elements stored in the pool's chunks.
//
// Why (issue 30, page faults): a memo's text and ids grow a little every turn of a conversation
// and are forgotten when the conversation ends. Kept in std::string and std::vector, every growth
// past the capacity allocated twice the size in the worker's malloc arena and copied, and the
// frees handed memory back to the kernel (glibc trims an arena's free top) or to the other
// worker's arena, so the arenas kept faulting in fresh pages: a third of the faults of a
// two-thread read of the 1 GB benchmark log (docs/PERFORMANCE.md). Chunks of one size leave no
// holes that a later size cannot use, so the pool stops growing once the store's budget is full
// (the budget plus the memos in flight), each slab faults in once (one huge page when the kernel
// grants it), and growing never copies what is already stored.
//
// Thread-safe: the workers of one read share one store and so one pool (Get and Put take its
// mutex; a ChunkedArray is its owner's alone).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <type_traits>
#include <vector>

#include "common/huge_pages.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ltl {

class MemoPool {
 public:
  static constexpr size_t kChunkBytes = 4096;
  static constexpr size_t kSlabBytes = kHugePageBytes;
  static constexpr size_t kChunksPerSlab = kSlabBytes / kChunkBytes;

  MemoPool() = default;
  MemoPool(const MemoPool&) = delete;
  MemoPool& operator=(const MemoPool&) = delete;
  ~MemoPool() {
    for (char* s : slabs_) FreeSlab(s);
  }

  // A chunk of kChunkBytes (contents unspecified), from the chunks put back, else a new slab.
  void* Get() {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.empty()) {
      char* s = NewSlab();
      slabs_.push_back(s);
      // Handed out from the slab's start, so a huge page the kernel refused faults in 4 KiB at a
      // time, in order, as it is used.
      for (size_t i = kChunksPerSlab; i > 0; --i) free_.push_back(s + (i - 1) * kChunkBytes);
    }
    void* c = free_.back();
    free_.pop_back();
    ++in_use_;
    return c;
  }
  void Put(void* chunk) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(static_cast<char*>(chunk));
    --in_use_;
  }

  size_t slabs() const {
    std::lock_guard<std::mutex> lock(mu_);
    return slabs_.size();
  }
  size_t chunks_in_use() const {
    std::lock_guard<std::mutex> lock(mu_);
    return in_use_;
  }

 private:
  // A kSlabBytes-aligned slab (so that it is one whole huge page), advised before it is written.
  static char* NewSlab() {
#if defined(__linux__)
    // Twice the size mapped, the unaligned ends unmapped: mmap aligns to 4 KiB only.
    void* p =
        mmap(nullptr, 2 * kSlabBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    const auto a = reinterpret_cast<uintptr_t>(p);
    const uintptr_t begin = (a + kSlabBytes - 1) & ~(uintptr_t{kSlabBytes} - 1);
    if (begin > a) munmap(p, begin - a);
    if (begin + kSlabBytes < a + 2 * kSlabBytes)
      munmap(reinterpret_cast<void*>(begin + kSlabBytes), a + 2 * kSlabBytes - begin - kSlabBytes);
    char* s = reinterpret_cast<char*>(begin);
#else
    char* s = static_cast<char*>(::operator new (kSlabBytes, std::align_val_t{kSlabBytes}));
#endif
    AdviseHugePages(s, kSlabBytes);
    return s;
  }
  static void FreeSlab(char* s) {
#if defined(__linux__)
    munmap(s, kSlabBytes);
#else
    ::operator delete (s, std::align_val_t{kSlabBytes});
#endif
  }

  mutable std::mutex mu_;
  std::vector<char*> slabs_;
  std::vector<char*> free_;
  size_t in_use_ = 0;
};

// An array of T (trivially copyable) in chunks of one MemoPool: element i is in chunk i / kPer.
// Growing takes chunks, shrinking puts them back; nothing stored moves. Not copyable (it owns its
// chunks); the pool must outlive it.
template <class T>
class ChunkedArray {
  static_assert(std::is_trivially_copyable_v<T>);
  static_assert(MemoPool::kChunkBytes % sizeof(T) == 0);

 public:
  static constexpr size_t kPer = MemoPool::kChunkBytes / sizeof(T);

  ChunkedArray() = default;
  explicit ChunkedArray(MemoPool* pool) : pool_(pool) {}
  ChunkedArray(const ChunkedArray&) = delete;
  ChunkedArray& operator=(const ChunkedArray&) = delete;
  ~ChunkedArray() { Clear(); }

  // The pool of an array made without one; only while it holds no chunks.
  void set_pool(MemoPool* pool) {
    if (chunks_.empty()) pool_ = pool;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](size_t i) const { return chunks_[i / kPer][i % kPer]; }
  const T& back() const { return (*this)[size_ - 1]; }
  // Pool memory held, in bytes (the chunk list's own few bytes are ordinary heap).
  size_t bytes() const { return chunks_.size() * MemoPool::kChunkBytes; }

  void push_back(const T& v) {
    if (size_ == chunks_.size() * kPer) chunks_.push_back(static_cast<T*>(pool_->Get()));
    chunks_[size_ / kPer][size_ % kPer] = v;
    ++size_;
  }
  void Append(const T* p, size_t n) {
    while (n > 0) {
      if (size_ == chunks_.size() * kPer) chunks_.push_back(static_cast<T*>(pool_->Get()));
      const size_t at = size_ % kPer;
      const size_t k = std::min(n, kPer - at);
      std::memcpy(chunks_[size_ / kPer] + at, p, k * sizeof(T));
      p += k;
      n -= k;
      size_ += k;
    }
  }
  // Keeps the first n elements (n <= size()); the chunks past them go back to the pool.
  void Truncate(size_t n) {
    if (n >= size_) return;
    size_ = n;
    const size_t keep = (n + kPer - 1) / kPer;
    while (chunks_.size() > keep) {
      pool_->Put(chunks_.back());
      chunks_.pop_back();
    }
  }
  void Clear() { Truncate(0); }

  // Calls f(const T* data, size_t n) on the elements [from, size()) in contiguous pieces, in
  // order.
  template <class F>
  void ForEachPiece(size_t from, F&& f) const {
    while (from < size_) {
      const size_t at = from % kPer;
      const size_t k = std::min(kPer - at, size_ - from);
      f(chunks_[from / kPer] + at, k);
      from += k;
    }
  }

 private:
  MemoPool* pool_ = nullptr;
  std::vector<T*> chunks_;
  size_t size_ = 0;
};

}  // namespace ltl
