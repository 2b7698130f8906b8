// Hashing for the cache-oblivious routers: a 64-bit mixer and rendezvous (highest random weight)
// hashing, which is consistent — removing a worker moves only the keys that worker held — with no
// ring to build. Hand-written: a dozen lines, and the routers need exactly this and nothing more.
// Internal to src/simulate/ (tests/build/internal_headers.cmake).
#pragma once

#include <cstdint>

#include "common/mix64.h"

namespace ltl {

// One SplitMix64 step (golden-ratio increment, then the finalizer): a bijective 64-bit mixer.
inline uint64_t Mix64(uint64_t x) {
  return SplitMix64Finalizer(x + 0x9e3779b97f4a7c15ull);
}

// The worker with the highest Mix64(key, worker) weight; ties go to the lower index.
inline uint32_t RendezvousWorker(uint64_t key, uint32_t workers) {
  uint32_t best = 0;
  uint64_t best_weight = 0;
  for (uint32_t w = 0; w < workers; ++w) {
    uint64_t weight = Mix64(key ^ Mix64(0x6a09e667f3bcc909ull + w));
    if (w == 0 || weight > best_weight) best = w, best_weight = weight;
  }
  return best;
}

}  // namespace ltl
