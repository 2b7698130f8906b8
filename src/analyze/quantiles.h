// Quantiles and log2 histogram bins: how the distributions of a profile are summarised (token
// counts, inter-arrival times, requests per conversation).
#pragma once

#include <cstdint>

namespace ltl {

struct Quantiles {
  int64_t p50 = 0, p90 = 0, p99 = 0, max = 0;
  double mean = 0;
  uint64_t count = 0;
};

struct HistogramBin {
  double lo = 0, hi = 0;  // [lo, hi)
  uint64_t count = 0;
};

}  // namespace ltl
