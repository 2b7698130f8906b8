// Hashing for the cache-oblivious routers: a 64-bit mixer and rendezvous (highest random weight)
// hashing, which is consistent — removing a worker moves only the keys that worker held — with no
// ring to build; and the ring vllm-router-session's consistent hashing needs. Hand-written: a dozen
// lines, and the routers need exactly this and nothing more.
// Internal to src/simulate/ (tests/build/internal_headers.cmake).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

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

// A consistent-hash ring (vllm-router-session): kPointsPerWorker points per worker, a key goes to
// the owner of the first point at or after Mix64(key), wrapping around. A worker's points depend
// on its index only, so adding or removing a worker moves only the keys it gains or held.
class HashRing {
 public:
  // uhashring's ketama default: 40 virtual nodes x 4 points each (vllm-router-session's ring).
  static constexpr uint32_t kPointsPerWorker = 160;
  explicit HashRing(uint32_t workers) {
    for (uint32_t w = 0; w < workers; ++w)
      for (uint32_t k = 0; k < kPointsPerWorker; ++k)
        points_.emplace_back(Mix64(Mix64(0xbb67ae8584caa73bull + w) ^ k), w);
    std::sort(points_.begin(), points_.end());
  }
  uint32_t Node(uint64_t key) const {
    auto it = std::lower_bound(points_.begin(), points_.end(),
                               std::pair<uint64_t, uint32_t>(Mix64(key), 0));
    if (it == points_.end()) it = points_.begin();
    return it->second;
  }

 private:
  std::vector<std::pair<uint64_t, uint32_t>> points_;  // (point, worker), ascending
};

}  // namespace ltl
