// AiperfCacheHitRate: NVIDIA AIPerf's `analyze-trace` cache_hit_rate — the unweighted mean over
// requests (in file order, with blocks) of leading-already-seen-blocks / blocks, one unbounded set
// of ids, no warm-up. Summed exactly so the figure matches the reference to the last bit.
#pragma once

#include "simulate/trace.h"

namespace ltl {

// `in_file_order`: requests in input order (one file, as AIPerf reads it); false: in replay order,
// which is the file order of the time-merged trace several input files make (`export` writes it).
double AiperfCacheHitRate(const Trace& trace, bool in_file_order = true);

// Exactly rounded sum of doubles (Shewchuk's algorithm, as Python's math.fsum).
class ExactSum {
 public:
  void Add(double x);
  double Value() const;

 private:
  std::vector<double> partials_;
};

}  // namespace ltl
