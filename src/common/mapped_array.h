// MappedArray<T>: a growable array of a trivially copyable T in a mapping of its own, for the
// per-block arrays that grow to millions of elements while a log is read (the block interner's
// ids, predecessors, runs and table; issue 30: peak RSS and page faults of the default mode).
// Three differences from std::vector, all about memory:
//   - Growing moves the pages (Linux mremap) instead of copying the elements: no second copy is
//     live or faulted in, whatever the growth factor, so the doubling headroom costs address
//     space only (a page never written is never resident).
//   - Freed storage goes back to the system at once (munmap). A std::vector's old storage of a
//     few MiB stays in malloc's heap once glibc's dynamic mmap threshold has risen above it (it
//     rises to the size of each mmapped block freed, up to 32 MiB), where it counts in RSS.
//   - New storage is zero (fresh anonymous pages); a mapping of 2 MiB or more starts on a huge-page
//     boundary and is advised for transparent huge pages (common/huge_pages.h) as a whole, so it
//     stays one mapping that mremap can move (advising a part would split it, and mremap fails
//     across a split), and every page of it, the first 2 MiB included, is faulted in 2 MiB at a
//     time (an unaligned or partly small-paged array takes up to 512 faults per end instead).
// Elsewhere than Linux the storage is malloc'd and realloc'd (zeroed where it grows).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include "common/huge_pages.h"  // kHugePageBytes

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ltl {

template <class T>
class MappedArray {
  static_assert(std::is_trivially_copyable_v<T>, "MappedArray moves its elements as bytes");

 public:
  MappedArray() = default;
  MappedArray(const MappedArray&) = delete;
  MappedArray& operator=(const MappedArray&) = delete;
  MappedArray(MappedArray&& o) noexcept { swap(o); }
  MappedArray& operator=(MappedArray&& o) noexcept {
    MappedArray(std::move(o)).swap(*this);
    return *this;
  }
  ~MappedArray() { Unmap(data_, bytes_); }

  void swap(MappedArray& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(bytes_, o.bytes_);
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return bytes_ / sizeof(T); }
  // Bytes of address space held (what capacity() costs at most once written).
  size_t reserved_bytes() const { return bytes_; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& back() { return data_[size_ - 1]; }

  // Room for n elements; growing at least doubles the capacity (amortized O(1) push_back).
  void reserve(size_t n) {
    if (n > capacity()) Remap(std::max(n, 2 * capacity()));
  }
  // Room for exactly n elements (rounded up to whole pages): for a caller that knows how many
  // elements will come.
  void reserve_exact(size_t n) {
    if (n > capacity()) Remap(n);
  }
  // By value: v may be an element of this array, which growing moves.
  void push_back(T v) {
    if (size_ == capacity()) reserve(size_ + 1);
    data_[size_++] = v;
  }
  void append(const T* p, size_t n) {
    reserve(size_ + n);
    if (n > 0) std::memcpy(static_cast<void*>(data_ + size_), p, n * sizeof(T));
    size_ += n;
  }
  // Elements past the old size are zero bytes (a new slot of the block interner's table: empty).
  void resize_zeroed(size_t n) {
    reserve_exact(n);
    if (n > size_) std::memset(static_cast<void*>(data_ + size_), 0, (n - size_) * sizeof(T));
    size_ = n;
  }
  void clear() { size_ = 0; }
  // Gives the storage back to the system.
  void release() { MappedArray().swap(*this); }

  // A new array of n zero elements whose pages are untouched until written (fresh mapping).
  static MappedArray Zeroed(size_t n) {
    MappedArray a;
    a.Remap(n);  // fresh anonymous pages (or calloc'd storage) are zero
    a.size_ = n;
    return a;
  }

 private:
  static size_t PageRound(size_t bytes) {
    // Whole huge pages once the array is large, so a remap keeps them whole.
    const size_t unit = bytes >= kHugePageBytes ? kHugePageBytes : size_t{4096};
    return (bytes + unit - 1) / unit * unit;
  }

  // New storage of at least n elements, the elements kept; the bytes past them are zero.
  void Remap(size_t n) {
    const size_t bytes = PageRound(n * sizeof(T));
#if defined(__linux__)
    void* p = MAP_FAILED;
    if (bytes < kHugePageBytes) {
      p = data_ ? mremap(data_, bytes_, bytes, MREMAP_MAYMOVE)
                : mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    } else if (bytes_ >= kHugePageBytes) {
      // Already in huge pages: grown where it is if the addresses after it are free, else its
      // pages are moved to a huge-page-aligned range (the kernel then moves whole 2 MiB entries;
      // an unaligned destination would split them into small pages).
      p = mremap(data_, bytes_, bytes, 0);
      if (p == MAP_FAILED) {
        void* to = MapAligned(bytes);
        p = mremap(data_, bytes_, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, to);
        if (p == MAP_FAILED) munmap(to, bytes);
      }
    } else {
      // Crossing into huge pages: a fresh aligned mapping and the elements copied (at most
      // 2 MiB), so the first 2 MiB are a huge page too. Moved instead, the pages already written
      // would keep that range in small pages, each of the rest faulted one by one.
      p = MapAligned(bytes);
      if (p != MAP_FAILED && size_ > 0)
        std::memcpy(p, static_cast<void*>(data_), size_ * sizeof(T));
      if (p != MAP_FAILED) Unmap(data_, bytes_);
    }
    if (p == MAP_FAILED) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
    // The whole mapping, before its new part is written: one mapping with one advice, which
    // mremap can move as one (advising part of it would split it in two).
    if (bytes >= kHugePageBytes) madvise(p, bytes, MADV_HUGEPAGE);
#endif
#else
    void* p = std::realloc(data_, bytes);
    if (!p) throw std::bad_alloc();
    std::memset(static_cast<char*>(p) + bytes_, 0, bytes - bytes_);
#endif
    data_ = static_cast<T*>(p);
    bytes_ = bytes;
  }
#if defined(__linux__)
  // A fresh mapping of `bytes` (a multiple of kHugePageBytes) starting on a huge-page boundary, or
  // MAP_FAILED: over-mapped by one huge page and trimmed (the kernel aligns large anonymous
  // mappings itself only since Linux 6.7).
  static void* MapAligned(size_t bytes) {
    void* raw = mmap(nullptr, bytes + kHugePageBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return raw;
    const auto a = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = (a + kHugePageBytes - 1) & ~(uintptr_t{kHugePageBytes} - 1);
    if (aligned > a) munmap(raw, aligned - a);
    const uintptr_t tail = aligned + bytes;
    if (tail < a + bytes + kHugePageBytes)
      munmap(reinterpret_cast<void*>(tail), a + bytes + kHugePageBytes - tail);
    return reinterpret_cast<void*>(aligned);
  }
#endif
  static void Unmap(T* p, size_t bytes) {
    if (!p) return;
#if defined(__linux__)
    munmap(p, bytes);
#else
    (void)bytes;
    std::free(p);
#endif
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t bytes_ = 0;  // of the mapping
};

}  // namespace ltl
