// CapacityKnee: the cache size past which more memory buys less than one percentage point of hit
// rate per doubling — the point the report marks on the capacity curve as "where buying memory
// stops helping".
#pragma once

#include <cstdint>
#include <functional>

namespace ltl {

struct CapacityKnee {
  bool found = false;            // false when there is no reuse at all
  uint64_t capacity_blocks = 0;  // smallest capacity K such that doubling any capacity >= K gains
                                 // less than `min_gain` (evaluated on a 1/16-octave grid)
  double hit_rate = 0;           // hit rate at K
  double min_gain = 0.01;        // the threshold used (hit-rate ratio per doubling)
};

// `rate(c)` is the hit rate at c blocks (non-decreasing in c); `saturation_blocks` the smallest
// capacity reaching the ceiling. The grid runs from 1 block to saturation in 1/16-octave steps.
CapacityKnee FindCapacityKnee(const std::function<double(uint64_t)>& rate,
                              uint64_t saturation_blocks, double min_gain = 0.01);

}  // namespace ltl
