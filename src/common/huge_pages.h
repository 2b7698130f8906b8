// Transparent huge pages for large, long-lived arrays: where the kernel's THP mode is "madvise"
// (the default on many distributions), an array written from start to end takes one page fault
// per 4 KiB; advised, one per 2 MiB. AdviseHugePages marks the whole 2 MiB pages inside a range
// and must be called before the range is first written; ResizeHuge does that for a std::vector
// that is about to be filled, ReserveHuge for one that grows (issue 30: page faults of the
// default mode). Only the few largest
// arrays are advised, so the memory a huge page rounds up to stays small next to the array.
// Elsewhere than Linux, and for ranges holding no whole huge page, nothing happens.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ltl {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// The whole kHugePageBytes-aligned pages inside [p, p + bytes): {first byte, length}; length 0
// when none fits.
struct HugeRange {
  uintptr_t begin = 0;
  size_t bytes = 0;
};
inline HugeRange WholeHugePages(const void* p, size_t bytes) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  const uintptr_t begin = (a + kHugePageBytes - 1) & ~(uintptr_t{kHugePageBytes} - 1);
  const uintptr_t end = (a + bytes) & ~(uintptr_t{kHugePageBytes} - 1);
  if (bytes == 0 || end <= begin) return {};
  return {begin, static_cast<size_t>(end - begin)};
}

// Returns the bytes advised (0 when none, or when the kernel refused).
inline size_t AdviseHugePages(void* p, size_t bytes) {
  const HugeRange r = WholeHugePages(p, bytes);
  if (r.bytes == 0) return 0;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (madvise(reinterpret_cast<void*>(r.begin), r.bytes, MADV_HUGEPAGE) == 0) return r.bytes;
#endif
  return 0;
}

// v->resize(n, value) with the new storage advised first (when resizing reallocates, the new
// storage is untouched until the elements are written).
template <class T>
void ResizeHuge(std::vector<T>* v, size_t n, const T& value = T()) {
  if (n > v->capacity()) {
    v->reserve(n);
    AdviseHugePages(v->data(), v->capacity() * sizeof(T));
  }
  v->resize(n, value);
}

// Makes room for n elements in *v; when that reallocates, the new storage (max(n, twice the size),
// the capacity push_back and insert would choose) is advised before the elements move into it, so
// the copy and the room after it fault in 2 MiB at a time. For arrays that grow to millions of
// elements.
template <class T>
void ReserveHuge(std::vector<T>* v, size_t n) {
  if (n <= v->capacity()) return;
  std::vector<T> grown;
  grown.reserve(std::max(n, 2 * v->size()));  // as the standard library grows
  AdviseHugePages(grown.data(), grown.capacity() * sizeof(T));
  grown.insert(grown.end(), std::make_move_iterator(v->begin()), std::make_move_iterator(v->end()));
  v->swap(grown);
}

}  // namespace ltl
