// AiperfCacheHitRate: NVIDIA AIPerf's `analyze-trace` cache_hit_rate — the unweighted mean over
// requests (in file order, with blocks) of leading-already-seen-blocks / blocks, one unbounded set
// of ids, no warm-up. Summed exactly so the figure matches the reference to the last bit.
#pragma once

#include "simulate/trace.h"

namespace ltl {

double AiperfCacheHitRate(const Trace& trace);

// Exactly rounded sum of doubles (Shewchuk's algorithm, as Python's math.fsum).
class ExactSum {
 public:
  void Add(double x);
  double Value() const;

 private:
  std::vector<double> partials_;
};

}  // namespace ltl
